/*
** test_ifs_re_charset.c — unit tests of ext/ifs_re_charset.c: the set
** operations, sre's character properties, and the sets that case folding
** makes.  Expected sets are Python's: the characters c for which
** re.fullmatch(pattern, c) holds under /usr/bin/python3 (3.11.2), or the
** code re._compiler produces, hard-coded.
*/
#include "ifs_test.h"
#include "ifs_re_charset.h"
#include "ifs_re_tree.h"
#include "ifs_text.h"

#define R(a, b) { (a), (b) }

/* s holds exactly the ranges want[0..n). */
static void ck_ranges(const rset *s, const uint32_t (*want)[2], size_t n) {
  ck_assert_int_eq(s->oom, 0);
  ck_assert_msg(s->n == n, "%zu ranges, want %zu", s->n, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(s->r[i][0] == want[i][0] && s->r[i][1] == want[i][1],
                  "range %zu: [%x, %x], want [%x, %x]", i, s->r[i][0], s->r[i][1], want[i][0],
                  want[i][1]);
}

static node in_node(setitem *items, size_t n) {
  node x;
  memset(&x, 0, sizeof x);
  x.kind = N_IN;
  x.set = items;
  x.nset = n;
  return x;
}

START_TEST(set_operations) {
  rset s = {0};
  ifs_rs_push(&s, 10, 20);
  ifs_rs_push(&s, 5, 7);
  ifs_rs_push(&s, 1, 2);
  ifs_rs_push(&s, 15, 25);   /* overlaps */
  ifs_rs_push(&s, 3, 3);     /* adjacent */
  ifs_rs_normalize(&s);
  static const uint32_t norm[][2] = { R(1, 3), R(5, 7), R(10, 25) };
  ck_ranges(&s, norm, 3);
  ck_assert(ifs_rs_has(&s, 3) && !ifs_rs_has(&s, 4) && ifs_rs_has(&s, 25) &&
            !ifs_rs_has(&s, 26) && !ifs_rs_has(&s, 0));
  rset d = {0};
  ifs_rs_push(&d, 2, 2);
  ifs_rs_push(&d, 6, 12);
  ifs_rs_push(&d, 30, 40);
  ifs_rs_normalize(&d);
  ifs_rs_subtract(&s, &d);
  static const uint32_t diff[][2] = { R(1, 1), R(3, 3), R(5, 5), R(13, 25) };
  ck_ranges(&s, diff, 4);
  ifs_rs_complement(&s);
  static const uint32_t comp[][2] = { R(0, 0), R(2, 2), R(4, 4), R(6, 12), R(26, 0x10FFFF) };
  ck_ranges(&s, comp, 5);
  ifs_rs_free(&s);
  ifs_rs_complement(&s);   /* the empty set's complement is everything */
  static const uint32_t all[][2] = { R(0, 0x10FFFF) };
  ck_ranges(&s, all, 1);
  ifs_rs_complement(&s);
  ck_ranges(&s, all, 0);
  ifs_rs_free(&s);
  ifs_rs_free(&d);
}
END_TEST

/* A failed allocation is sticky in oom; later operations do nothing. */
START_TEST(set_out_of_memory) {
  rset s = {0};
  ifs_test_fail_nth(1);
  ifs_rs_push(&s, 1, 2);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(s.oom, 1);
  ifs_rs_push(&s, 3, 4);
  ifs_rs_normalize(&s);
  ifs_rs_complement(&s);
  ck_assert_int_eq(s.oom, 1);
  ck_assert_uint_eq(s.n, 0);
  ifs_rs_free(&s);
}
END_TEST

START_TEST(properties) {
  /* \d in Unicode mode is the digits unicodedata.decimal knows (the class's
  ** ranges and the digits' values come from two tables: they agree) */
  const uint32_t (*dt)[2];
  size_t dn, at = 0;
  ifs_re_cat_table(C_DIGIT, 1, &dt, &dn);
  for (uint32_t c = 0; c <= 0x10FFFF; c++) {
    while (at < dn && c > dt[at][1]) at++;
    int in_class = at < dn && c >= dt[at][0];
    ck_assert_msg(in_class == (ifs_decimal_value(c) >= 0), "U+%04X", (unsigned)c);
  }
  ck_assert_int_eq(ifs_decimal_value(0x663), 3);     /* ARABIC-INDIC THREE */
  ck_assert_int_eq(ifs_decimal_value(0xB2), -1);     /* SUPERSCRIPT TWO */
  /* str.isidentifier */
  static const uint32_t e_acute[] = { 0xE9 }, one_a[] = { '1', 'a' }, us_x[] = { '_', 'x' },
                        a_dot[] = { 'a', 0xB7 }, dot[] = { 0xB7 };
  ck_assert(ifs_re_py_isidentifier(e_acute, 1) && ifs_re_py_isidentifier(us_x, 2) &&
            ifs_re_py_isidentifier(a_dot, 2));
  ck_assert(!ifs_re_py_isidentifier(one_a, 2) && !ifs_re_py_isidentifier(dot, 1) &&
            !ifs_re_py_isidentifier(us_x, 0));
  /* sre's lowercase and casedness, Unicode and ASCII mode */
  ck_assert_uint_eq(ifs_re_mode_lower(1, 'K'), 'k');
  ck_assert_uint_eq(ifs_re_mode_lower(1, 0x212A), 'k');    /* KELVIN SIGN */
  ck_assert_uint_eq(ifs_re_mode_lower(1, 0x130), 'i');     /* sre: one character */
  ck_assert_uint_eq(ifs_re_mode_lower(0, 0xC9), 0xC9);
  ck_assert_uint_eq(ifs_re_mode_lower(0, 'A'), 'a');
  ck_assert(ifs_re_mode_iscased(1, 'a') && ifs_re_mode_iscased(1, 0xE9));
  ck_assert(!ifs_re_mode_iscased(1, '1') && !ifs_re_mode_iscased(0, 0xE9));
  ck_assert(ifs_re_range_has_cased(1, '0', 'A') && !ifs_re_range_has_cased(1, '0', '9'));
  ck_assert(!ifs_re_range_has_cased(0, 0x80, 0x10FFFF));
}
END_TEST

/* re.fullmatch('(?i)k', c) and friends, over every code point. */
START_TEST(literal_classes) {
  rset s = {0};
  ifs_re_literal_class(1, 'k', &s);
  static const uint32_t k[][2] = { R('K', 'K'), R('k', 'k'), R(0x212A, 0x212A) };
  ck_ranges(&s, k, 3);
  ifs_rs_free(&s);
  ifs_re_literal_class(0, 'k', &s);                   /* (?ai)k */
  static const uint32_t ak[][2] = { R('K', 'K'), R('k', 'k') };
  ck_ranges(&s, ak, 2);
  ifs_rs_free(&s);
  ifs_re_literal_class(1, 'S', &s);
  static const uint32_t ss[][2] = { R('S', 'S'), R('s', 's'), R(0x17F, 0x17F) };
  ck_ranges(&s, ss, 3);
  ifs_rs_free(&s);
  ifs_re_literal_class(1, 0x3C3, &s);                 /* sigma */
  static const uint32_t sigma[][2] = { R(0x3A3, 0x3A3), R(0x3C2, 0x3C3) };
  ck_ranges(&s, sigma, 2);
  ifs_rs_free(&s);
}
END_TEST

/* (?i)[a-z] holds 56 characters: A-Z, a-z, U+0130, U+0131, U+017F, U+212A;
** (?i)[^k] is the complement of K, k, U+212A (the negation is the
** emitter's). */
START_TEST(folded_sets) {
  setitem az[] = { { S_RANGE, 0, 'a', 'z' } };
  node x = in_node(az, 1);
  rset plain, exclude;
  ifs_re_set_folded(&x, F_IGNORECASE | F_UNICODE, &plain, &exclude);
  static const uint32_t want[][2] = { R('A', 'Z'), R('a', 'z'), R(0x130, 0x131), R(0x17F, 0x17F),
                                      R(0x212A, 0x212A) };
  ck_ranges(&plain, want, 5);
  ck_ranges(&exclude, want, 0);
  ifs_rs_free(&plain);
  ifs_rs_free(&exclude);
  /* without IGNORECASE the set is as written */
  ifs_re_set_folded(&x, F_UNICODE, &plain, &exclude);
  static const uint32_t asis[][2] = { R('a', 'z') };
  ck_ranges(&plain, asis, 1);
  ifs_rs_free(&plain);
  ifs_rs_free(&exclude);
  setitem notk[] = { { S_NEGATE, 1, 0, 0 }, { S_LIT, 0, 'k', 0 } };
  x = in_node(notk, 2);
  ifs_re_set_folded(&x, F_IGNORECASE | F_UNICODE, &plain, &exclude);
  static const uint32_t k[][2] = { R('K', 'K'), R('k', 'k'), R(0x212A, 0x212A) };
  ck_ranges(&plain, k, 3);
  ifs_rs_free(&plain);
  ifs_rs_free(&exclude);
}
END_TEST

/* What one-character nodes match (no IGNORECASE). */
START_TEST(node_sets) {
  rset s = {0};
  setitem digit[] = { { S_CAT, 1, C_DIGIT, 0 } };
  node x = in_node(digit, 1);
  ifs_re_node_set(&x, 0, &s);                 /* (?a)[\d] */
  static const uint32_t ascii_digit[][2] = { R('0', '9') };
  ck_ranges(&s, ascii_digit, 1);
  ifs_rs_free(&s);
  ifs_re_node_set(&x, F_UNICODE, &s);         /* [\d]: every Nd block */
  ck_assert(ifs_rs_has(&s, '7') && ifs_rs_has(&s, 0x663) && ifs_rs_has(&s, 0xFF15));
  ck_assert(!ifs_rs_has(&s, 0xB2) && !ifs_rs_has(&s, 'a'));
  ifs_rs_free(&s);
  node any;
  memset(&any, 0, sizeof any);
  any.kind = N_ANY;
  ifs_re_node_set(&any, F_UNICODE, &s);       /* . */
  static const uint32_t not_nl[][2] = { R(0, 9), R(11, 0x10FFFF) };
  ck_ranges(&s, not_nl, 2);
  ifs_rs_free(&s);
  ifs_re_node_set(&any, F_UNICODE | F_DOTALL, &s);
  static const uint32_t all[][2] = { R(0, 0x10FFFF) };
  ck_ranges(&s, all, 1);
  ifs_rs_free(&s);
  node notlit = any;
  notlit.kind = N_NOTLIT;
  notlit.c = 'a';
  ifs_re_node_set(&notlit, F_UNICODE, &s);    /* [^a] */
  static const uint32_t not_a[][2] = { R(0, 0x60), R(0x62, 0x10FFFF) };
  ck_ranges(&s, not_a, 2);
  ifs_rs_free(&s);
  setitem nw[] = { { S_NEGATE, 1, 0, 0 }, { S_CAT, 1, C_WORD, 0 }, { S_LIT, 0, ' ', 0 } };
  x = in_node(nw, 3);
  ifs_re_node_set(&x, 0, &s);                 /* (?a)[^\w ] */
  static const uint32_t not_word_sp[][2] = { R(0, 0x1F), R(0x21, 0x2F), R(0x3A, 0x40),
                                             R(0x5B, 0x5E), R(0x60, 0x60), R(0x7B, 0x10FFFF) };
  ck_ranges(&s, not_word_sp, 6);
  ifs_rs_free(&s);
}
END_TEST

/* Whether re._compiler writes a bitmap (CHARSET / BIGCHARSET) for the set:
** [ace] yes, [a-c] [ac] [a-cx-z] no, (?i)[as] yes (a, s and U+017F). */
START_TEST(bitmap_sets) {
  setitem ace[] = { { S_LIT, 0, 'a', 0 }, { S_LIT, 0, 'c', 0 }, { S_LIT, 0, 'e', 0 } };
  setitem a_c[] = { { S_RANGE, 0, 'a', 'c' } };
  setitem ac[] = { { S_LIT, 0, 'a', 0 }, { S_LIT, 0, 'c', 0 } };
  setitem two[] = { { S_RANGE, 0, 'a', 'c' }, { S_RANGE, 0, 'x', 'z' } };
  setitem as[] = { { S_LIT, 0, 'a', 0 }, { S_LIT, 0, 's', 0 } };
  node x = in_node(ace, 3);
  ck_assert(ifs_re_set_needs_bitmap(&x, F_UNICODE));
  x = in_node(a_c, 1);
  ck_assert(!ifs_re_set_needs_bitmap(&x, F_UNICODE));
  x = in_node(ac, 2);
  ck_assert(!ifs_re_set_needs_bitmap(&x, F_UNICODE));
  x = in_node(two, 2);
  ck_assert(!ifs_re_set_needs_bitmap(&x, F_UNICODE));
  x = in_node(as, 2);
  ck_assert(!ifs_re_set_needs_bitmap(&x, F_UNICODE));
  ck_assert(ifs_re_set_needs_bitmap(&x, F_UNICODE | F_IGNORECASE));
}
END_TEST

static Suite *charset_suite(void) {
  Suite *s = suite_create("ifs_re_charset");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, set_operations);
  tcase_add_test(tc, set_out_of_memory);
  tcase_add_test(tc, properties);
  tcase_add_test(tc, literal_classes);
  tcase_add_test(tc, folded_sets);
  tcase_add_test(tc, node_sets);
  tcase_add_test(tc, bitmap_sets);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(charset_suite)
