/*
** test_ifs_re_parse.c — unit tests of ext/ifs_re_parse.c: the trees
** re/_parser.py builds (its rewrites included), group numbers, flags,
** SubPattern.getwidth, the errors Python raises, and allocation failure.
** Trees and widths are what re._parser.parse(p) gives under
** /usr/bin/python3 (3.11.2), hard-coded.
*/
#include "ifs_test.h"
#include "ifs_re_tree.h"
#include "ifs_text.h"
#include <stdlib.h>

typedef struct parsed {
  ifs_arena arena;
  uint32_t cps[1300];
  parser p;
  seq *root;
} parsed;

/* Parses pat (UTF-8); the tree lives until done(). */
static seq *parse(parsed *t, const char *pat) {
  size_t n = 0, len = strlen(pat);
  for (size_t i = 0; i < len;) t->cps[n++] = ifs_decode(pat, len, &i);
  ifs_arena_init(&t->arena);
  t->root = ifs_re_parse(&t->p, &t->arena, t->cps, n);
  return t->root;
}

static void done(parsed *t) { ifs_arena_free(&t->arena); }

static const node *at(const seq *q, size_t i) {
  ck_assert_uint_lt(i, seq_len(q));
  return seq_at(q, i);
}

/* ab|ac: the common prefix is factored out, the rest becomes a set:
** [(LITERAL, 97), (IN, [(LITERAL, 98), (LITERAL, 99)])]. */
START_TEST(alternation_rewrites) {
  parsed t;
  seq *q = parse(&t, "ab|ac");
  ck_assert_ptr_nonnull(q);
  ck_assert_uint_eq(seq_len(q), 2);
  ck_assert(at(q, 0)->kind == N_LIT && at(q, 0)->c == 'a');
  const node *in = at(q, 1);
  ck_assert(in->kind == N_IN && in->nset == 2);
  ck_assert(in->set[0].op == S_LIT && in->set[0].a == 'b');
  ck_assert(in->set[1].op == S_LIT && in->set[1].a == 'c');
  done(&t);
  /* a|b|[cd]: one set [(IN, [a, b, c, d])] */
  q = parse(&t, "a|b|[cd]");
  ck_assert_uint_eq(seq_len(q), 1);
  ck_assert(at(q, 0)->kind == N_IN && at(q, 0)->nset == 4);
  done(&t);
  /* ab|cd stays a BRANCH of two */
  q = parse(&t, "ab|cd");
  ck_assert_uint_eq(seq_len(q), 1);
  ck_assert(at(q, 0)->kind == N_BRANCH && at(q, 0)->nalts == 2);
  done(&t);
  /* (?:ab)c: the group is unpacked; (?i:ab)c is not */
  q = parse(&t, "(?:ab)c");
  ck_assert_uint_eq(seq_len(q), 3);
  ck_assert(at(q, 1)->kind == N_LIT && at(q, 1)->c == 'b');
  done(&t);
  q = parse(&t, "(?i:ab)c");
  ck_assert_uint_eq(seq_len(q), 2);
  ck_assert(at(q, 0)->kind == N_SUB && at(q, 0)->addf == F_IGNORECASE && at(q, 0)->c == 0);
  done(&t);
  /* [a]: a set of one literal is that literal; [^a] NOT_LITERAL */
  q = parse(&t, "[a][^a]");
  ck_assert(at(q, 0)->kind == N_LIT && at(q, 1)->kind == N_NOTLIT && at(q, 1)->c == 'a');
  done(&t);
}
END_TEST

START_TEST(groups_and_repeats) {
  parsed t;
  seq *q = parse(&t, "(a)(?P<n>b)(?P=n)\\1");
  ck_assert_ptr_nonnull(q);
  ck_assert_uint_eq(t.p.ngroups, 3);              /* group 0 counts */
  ck_assert(at(q, 0)->kind == N_SUB && at(q, 0)->c == 1);
  ck_assert(at(q, 1)->kind == N_SUB && at(q, 1)->c == 2);
  ck_assert(at(q, 2)->kind == N_GROUPREF && at(q, 2)->c == 2);
  ck_assert(at(q, 3)->kind == N_GROUPREF && at(q, 3)->c == 1);
  done(&t);
  q = parse(&t, "a{2,5}?b*+c{3}(?:de)+");
  ck_assert_uint_eq(seq_len(q), 4);
  const node *r = at(q, 0);
  ck_assert(r->kind == N_REPEAT && r->min == 2 && r->max == 5 && r->sub == R_MIN);
  r = at(q, 1);
  ck_assert(r->min == 0 && r->max == MAXREPEAT && r->sub == R_POSS);
  r = at(q, 2);
  ck_assert(r->min == 3 && r->max == 3 && r->sub == R_MAX);
  r = at(q, 3);   /* the unpacked group's items are the repeat's body */
  ck_assert(r->min == 1 && r->max == MAXREPEAT && seq_len(r->a) == 2);
  done(&t);
  /* a{ and x{a} are literals */
  q = parse(&t, "a{");
  ck_assert_uint_eq(seq_len(q), 2);
  ck_assert(at(q, 1)->kind == N_LIT && at(q, 1)->c == '{');
  done(&t);
  q = parse(&t, "(?<=ab)(?!c)\\b$");
  ck_assert(at(q, 0)->kind == N_ASSERT && at(q, 0)->dir == -1 && at(q, 0)->sub == 0);
  ck_assert(at(q, 1)->kind == N_ASSERT && at(q, 1)->dir == 1 && at(q, 1)->sub == 1);
  ck_assert(at(q, 2)->kind == N_AT && at(q, 2)->sub == AT_BOUNDARY);
  ck_assert(at(q, 3)->kind == N_AT && at(q, 3)->sub == AT_END);
  done(&t);
}
END_TEST

/* Global flags, and the UNICODE flag fix_flags adds. */
START_TEST(flags) {
  parsed t;
  ck_assert_ptr_nonnull(parse(&t, "(?i)a"));
  ck_assert_uint_eq(t.p.flags, F_IGNORECASE | F_UNICODE);
  done(&t);
  ck_assert_ptr_nonnull(parse(&t, "(?ax)a b"));
  ck_assert_uint_eq(t.p.flags, F_ASCII | F_VERBOSE);
  ck_assert_uint_eq(seq_len(t.root), 2);           /* verbose: the space is gone */
  done(&t);
  ck_assert_ptr_nonnull(parse(&t, "(?ms)."));
  ck_assert_uint_eq(t.p.flags, F_MULTILINE | F_DOTALL | F_UNICODE);
  done(&t);
}
END_TEST

/* SubPattern.getwidth: (2, 6), (0, MAXREPEAT), (1, 1), and a group's width
** where it is referred to. */
START_TEST(widths) {
  parsed t;
  uint64_t lo, hi;
  ifs_re_width(&t.p, parse(&t, "a{2,5}b?"), &lo, &hi);
  ck_assert(lo == 2 && hi == 6);
  done(&t);
  ifs_re_width(&t.p, parse(&t, "(?:ab)*"), &lo, &hi);
  ck_assert(lo == 0 && hi == MAXREPEAT);
  done(&t);
  ifs_re_width(&t.p, parse(&t, "(?<=abc)x\\b"), &lo, &hi);
  ck_assert(lo == 1 && hi == 1);
  done(&t);
  ifs_re_width(&t.p, parse(&t, "(ab|c)\\1"), &lo, &hi);
  ck_assert(lo == 2 && hi == 4);
  done(&t);
  /* capped as Python caps them: lo at MAXREPEAT - 1 */
  ifs_re_width(&t.p, parse(&t, "(?:a{4294967294}){2}"), &lo, &hi);
  ck_assert(lo == MAXREPEAT - 1 && hi == MAXREPEAT);
  done(&t);
}
END_TEST

/* re.compile raises on each of these. */
START_TEST(errors) {
  static const char *const bad[] = {
    "(", "a)", "a**", "*a", "[a", "[z-a]", "\\8", "(?P<1>a)", "(?P<a>x)(?P<a>y)", "(a\\1)",
    "(?(1)a|b|c)(a)", "(?L)a", "(?au)a", "a(?i)b", "\\x4", "a{2,1}", "a{4294967295}",
    "(?<n>x)", "\\h", "(?-a:a)",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    parsed t;
    ck_assert_msg(parse(&t, bad[i]) == NULL && t.p.err == IFS_INVALID, "%s", bad[i]);
    done(&t);
  }
}
END_TEST

/* Python's recursion limit, seen from the parser: 494 nested groups
** parse (re.compile of them works from the third frame, of 495 it raises;
** see test_ifs_re_emit.c), and at 600 the parser itself gives up. */
START_TEST(recursion_limit) {
  static char pat[2 * 600 + 1];
  static const int depths[] = { 494, 600 };
  for (int i = 0; i < 2; i++) {
    memset(pat, '(', (size_t)depths[i]);
    memset(pat + depths[i], ')', (size_t)depths[i]);
    pat[2 * depths[i]] = 0;
    parsed t;
    seq *q = parse(&t, pat);
    if (i == 0) ck_assert_ptr_nonnull(q);
    else ck_assert_msg(q == NULL && t.p.err == IFS_INVALID, "err %d", t.p.err);
    done(&t);
  }
}
END_TEST

/* Every allocation failing in turn: IFS_NOMEM, never a wrong tree. */
START_TEST(alloc_failure) {
  const char *pat = "(?P<name>a|b)+(?:x{2,3}|[^\\d\\s]){1,9}(?(name)y|z)\\1";
  int done_ = 0;
  for (long k = 1; k < 200 && !done_; k++) {
    parsed t;
    ifs_test_fail_nth(k);
    seq *q = parse(&t, pat);
    ifs_test_fail_nth(0);
    if (q) {
      ck_assert_int_eq(t.p.err, IFS_OK);
      ck_assert_uint_eq(seq_len(q), 4);
      done_ = 1;
    } else {
      ck_assert_int_eq(t.p.err, IFS_NOMEM);
    }
    done(&t);
  }
  ck_assert(done_);
}
END_TEST

static Suite *parse_suite(void) {
  Suite *s = suite_create("ifs_re_parse");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, alternation_rewrites);
  tcase_add_test(tc, groups_and_repeats);
  tcase_add_test(tc, flags);
  tcase_add_test(tc, widths);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, recursion_limit);
  tcase_add_test(tc, alloc_failure);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(parse_suite)
