/*
** test_ifs_text.c — unit tests of ext/ifs_text.c.  Expected values were
** produced by CPython 3.11 (bytes.decode('utf-8', 'surrogateescape'),
** str.lower, str.split, len) and are hard-coded here.
*/
#include "ifs_test.h"
#include "soup.h"
#include "ref_text.h"
#include "ifs_text.h"
#include "ifs_unicode_tables.h"
#include <stdlib.h>


typedef struct { const char *in; size_t in_n; const char *low; size_t low_n;
                 size_t chars, words; } lower_case;

static const lower_case lower_cases[] = {
  {LIT("HELLO World"), LIT("hello world"), 11, 2},
  {LIT("\xc4\xb0stanbul"), LIT("i\xcc\x87stanbul"), 8, 1},
  {LIT("\xce\xa3\xce\x91\xce\xa3"), LIT("\xcf\x83\xce\xb1\xcf\x82"), 3, 1},
  {LIT("\xce\x91\xce\xa3'\xce\xa3"), LIT("\xce\xb1\xcf\x83'\xcf\x82"), 4, 1},
  {LIT("\xce\xa3"), LIT("\xcf\x83"), 1, 1},
  {LIT("a\xce\xa3"), LIT("a\xcf\x82"), 2, 1},
  {LIT("\xce\x91\xce\xa3."), LIT("\xce\xb1\xcf\x82."), 3, 1},
  {LIT("\xce\x91\xce\xa3'"), LIT("\xce\xb1\xcf\x82'"), 3, 1},
  {LIT("A\xcd\x85\xce\xa3"), LIT("a\xcd\x85\xcf\x82"), 3, 1},
  {LIT("\xce\x91\xce\xa3\xcd\x85" "a"), LIT("\xce\xb1\xcf\x83\xcd\x85" "a"), 4, 1},
  {LIT("\xe1\xba\x9e Stra\xc3\x9f" "e"), LIT("\xc3\x9f stra\xc3\x9f" "e"), 8, 2},
  {LIT("\xc7\x85\xc7\x88"), LIT("\xc7\x86\xc7\x89"), 2, 1},
  {LIT("\xce\xa9\xce\xa3\xce\xa3 \xce\xa3\xce\xa3"),
   LIT("\xcf\x89\xcf\x83\xcf\x82 \xcf\x83\xcf\x82"), 6, 2},
  {LIT("\xe2\x85\xab \xe2\x93\x90\xe2\x92\xb6"), LIT("\xe2\x85\xbb \xe2\x93\x90\xe2\x93\x90"), 4, 2},
  {LIT("\xf0\x90\x90\x80\xf0\x9e\xa4\x80"), LIT("\xf0\x90\x90\xa8\xf0\x9e\xa4\xa2"), 2, 1},
  {LIT("\xef\xac\x81 \xc4\xb2K"), LIT("\xef\xac\x81 \xc4\xb3k"), 4, 2},
  {LIT("a\xc2\xa0" "b\xe2\x80\x8b" "c"), LIT("a\xc2\xa0" "b\xe2\x80\x8b" "c"), 5, 2},
  {LIT("x\xe2\x80\xa8y\xe3\x80\x80z\xe1\xa0\x8e"), LIT("x\xe2\x80\xa8y\xe3\x80\x80z\xe1\xa0\x8e"), 6, 3},
  {LIT(" \x1c\x1dq\x1f"), LIT(" \x1c\x1dq\x1f"), 5, 1},
  {LIT("\xc2\x85\xe2\x80\x80" "a\xe2\x80\xaf\xe2\x81\x9f" "b\xef\xbb\xbf"),
   LIT("\xc2\x85\xe2\x80\x80" "a\xe2\x80\xaf\xe2\x81\x9f" "b\xef\xbb\xbf"), 7, 2},
  {LIT("a\0b C"), LIT("a\0b c"), 5, 2},
  {LIT(""), LIT(""), 0, 0},
};

START_TEST(test_lower_words_chars) {
  const lower_case *t = &lower_cases[_i];
  ifs_buf b;
  ifs_buf_init(&b);
  ck_assert_int_eq(ifs_lower(t->in, t->in_n, &b), IFS_OK);
  ck_assert_uint_eq(b.len, t->low_n);
  ck_assert(memcmp(b.p ? b.p : "", t->low, t->low_n) == 0);
  ck_assert_uint_eq(ifs_count_chars(t->in, t->in_n), t->chars);
  ck_assert_uint_eq(ifs_count_words(t->in, t->in_n), t->words);
  ifs_buf_free(&b);
}
END_TEST

typedef struct { const char *raw; size_t raw_n; const char *internal; size_t int_n;
                 size_t chars; } raw_case;

/* internal = raw.decode('utf-8','surrogateescape').encode('utf-8','surrogatepass') */
static const raw_case raw_cases[] = {
  {LIT("ab\x80" "c"), LIT("ab\xed\xb2\x80" "c"), 4},
  {LIT("\xed\xa0\x80"), LIT("\xed\xb3\xad\xed\xb2\xa0\xed\xb2\x80"), 3},
  {LIT("\xe2\x82"), LIT("\xed\xb3\xa2\xed\xb2\x82"), 2},
  {LIT("\xf0\x9f\x98\x80\xff"), LIT("\xf0\x9f\x98\x80\xed\xb3\xbf"), 2},
  {LIT("\xc0\xaf"), LIT("\xed\xb3\x80\xed\xb2\xaf"), 2},
  {LIT("\xf4\x90\x80\x80"), LIT("\xed\xb3\xb4\xed\xb2\x90\xed\xb2\x80\xed\xb2\x80"), 4},
  {LIT("a\0b"), LIT("a\0b"), 3},
  {LIT("\xe0\x80\x80"), LIT("\xed\xb3\xa0\xed\xb2\x80\xed\xb2\x80"), 3},
  {LIT("\xf0\x9f\x98"), LIT("\xed\xb3\xb0\xed\xb2\x9f\xed\xb2\x98"), 3},
};

START_TEST(test_surrogateescape_roundtrip) {
  const raw_case *t = &raw_cases[_i];
  ifs_buf in, out;
  ifs_buf_init(&in);
  ifs_buf_init(&out);
  int valid = t->raw_n == t->int_n && memcmp(t->raw, t->internal, t->raw_n) == 0;
  ck_assert_int_eq(ifs_utf8_is_valid(t->raw, t->raw_n), valid);
  ck_assert_int_eq(ifs_to_internal(t->raw, t->raw_n, &in), IFS_OK);
  ck_assert_uint_eq(in.len, t->int_n);
  ck_assert(memcmp(in.p, t->internal, t->int_n) == 0);
  ck_assert_uint_eq(ifs_count_chars(in.p, in.len), t->chars);
  ck_assert_int_eq(ifs_has_escaped_bytes(in.p, in.len), !valid);
  ck_assert_int_eq(ifs_to_external(in.p, in.len, &out), IFS_OK);
  ck_assert_uint_eq(out.len, t->raw_n);
  ck_assert(memcmp(out.p, t->raw, t->raw_n) == 0);
  ifs_buf_free(&in);
  ifs_buf_free(&out);
}
END_TEST

START_TEST(test_lone_surrogate_stays_three_bytes) {
  /* U+D800 (from a JSON escape) has no byte to go back to. */
  ifs_buf out;
  ifs_buf_init(&out);
  ck_assert_int_eq(ifs_to_external("x\xed\xa0\x80", 4, &out), IFS_OK);
  ck_assert_buf_eq(&out, "x\xed\xa0\x80");
  ifs_buf_free(&out);
}
END_TEST

/* str.isspace() holds for these 29 code points and no other (Python
** 3.11.2); ifs_space_table gives them as the ranges ifs_isspace reads. */
START_TEST(test_isspace_matches_python) {
  static const uint32_t spaces[] = {
    0x9, 0xA, 0xB, 0xC, 0xD, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2001,
    0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029,
    0x202F, 0x205F, 0x3000,
  };
  size_t k = 0, n = sizeof spaces / sizeof spaces[0];
  for (uint32_t cp = 0; cp < 0x110000; cp++) {
    int want = k < n && spaces[k] == cp;
    if (want) k++;
    if (ifs_isspace(cp) != want) ck_abort_msg("ifs_isspace(U+%04X) != %d", cp, want);
  }
  ck_assert_uint_eq(k, n);
  const uint32_t (*r)[2];
  size_t nr, count = 0;
  ifs_space_table(&r, &nr);
  for (size_t i = 0; i < nr; i++) {
    ck_assert(i == 0 || r[i][0] > r[i - 1][1] + 1);   /* sorted, disjoint, not adjacent */
    for (uint32_t cp = r[i][0]; cp <= r[i][1]; cp++, count++) ck_assert(ifs_isspace(cp));
  }
  ck_assert_uint_eq(count, n);
}
END_TEST

START_TEST(test_decode_prev_and_strip) {
  const char s[] = "\xe3\x80\x80 \xf0\x9f\x98\x80x\xc2\xa0\x1f";
  size_t a, b;
  ifs_strip(s, sizeof s - 1, &a, &b);
  ck_assert_uint_eq(a, 4);
  ck_assert_uint_eq(b, 9);
  size_t i = 8;
  ck_assert_uint_eq(ifs_decode_prev(s, &i), 0x1F600);
  ck_assert_uint_eq(i, 4);
  ifs_strip("  ", 2, &a, &b);
  ck_assert_uint_eq(a, b);
}
END_TEST

START_TEST(test_decimal_and_printable) {
  ck_assert_int_eq(ifs_decimal_value('7'), 7);
  ck_assert_int_eq(ifs_decimal_value(0x0661), 1);    /* ARABIC-INDIC ONE */
  ck_assert_int_eq(ifs_decimal_value(0xFF12), 2);    /* FULLWIDTH TWO */
  ck_assert_int_eq(ifs_decimal_value(0x1D7FF), 9);   /* MATHEMATICAL MONOSPACE NINE */
  ck_assert_int_eq(ifs_decimal_value(0x00B2), -1);   /* SUPERSCRIPT TWO: digit, not decimal */
  ck_assert_int_eq(ifs_decimal_value(0x2167), -1);   /* ROMAN NUMERAL EIGHT */
  ck_assert_int_eq(ifs_decimal_value('a'), -1);
  ck_assert_int_eq(ifs_isprintable('a'), 1);
  ck_assert_int_eq(ifs_isprintable(' '), 1);
  ck_assert_int_eq(ifs_isprintable('\n'), 0);
  ck_assert_int_eq(ifs_isprintable(0x7F), 0);
  ck_assert_int_eq(ifs_isprintable(0xA0), 0);
  ck_assert_int_eq(ifs_isprintable(0xE9), 1);
  ck_assert_int_eq(ifs_isprintable(0x200B), 0);
  ck_assert_int_eq(ifs_isprintable(0xDC80), 0);
  ck_assert_int_eq(ifs_isprintable(0x1F600), 1);
  ck_assert_int_eq(ifs_isprintable(0xE000), 0);
  ck_assert_int_eq(ifs_isprintable(0x10FFFF), 0);
}
END_TEST

START_TEST(test_lower_fails_cleanly) {
  const char s[] = "\xce\x91\xce\xa3 ABC \xc4\xb0";
  for (long n = 1; n < 4; n++) {
    ifs_buf b;
    ifs_buf_init(&b);
    ifs_test_fail_nth(n);
    int rc = ifs_lower(s, sizeof s - 1, &b);
    ifs_test_fail_nth(0);
    ck_assert(rc == IFS_NOMEM || rc == IFS_OK);
    ifs_buf_free(&b);
  }
}
END_TEST

/* The word-at-a-time loops against a character-at-a-time model. */
START_TEST(test_count_random) {
  static const char *const pieces[] = {
    " ", "\t", "\n", "\x1c", "\x1f", "!", "a", "Z", "word", "\xc2\xa0", "\xc2\x85",
    "\xe2\x80\x80", "\xe2\x80\x8b", "\xe3\x80\x80", "\xe1\x9a\x80", "\xd0\x96", "\xf0\x9f\x98\x80",
    "\xed\xb2\x80", "\0", "@", "[", "`", "{", "AbCdEfGhIjKlMnOpQrStUvWxYz", "\x7f"};
  unsigned seed = 12345;
  char buf[512];
  for (int iter = 0; iter < 5000; iter++) {
    size_t n = soup_fill(buf, sizeof buf, pieces, sizeof pieces / sizeof pieces[0], 40, &seed);
    size_t w1, c1, w2, c2;
    ifs_count(buf, n, &w1, &c1);
    ref_count(buf, n, &w2, &c2);
    ck_assert_uint_eq(w1, w2);
    ck_assert_uint_eq(c1, c2);
    ck_assert_uint_eq(ifs_count_chars(buf, n), c2);
  }
}
END_TEST

/* ifs_lower_preimages against every code point's lowercase (U+0130's is
** itself for ifs_lower_char, so it is no source of i). */
START_TEST(test_preimages_exhaustive) {
  enum { N = 0x110000 };
  uint32_t (*want)[3] = calloc(N, sizeof *want);
  unsigned char *count = calloc(N, 1);
  ck_assert(want && count);
  uint32_t bad = UINT32_MAX;   /* the first low whose preimages differ (checks outside the loops) */
  for (uint32_t cp = 0; cp < N; cp++) {
    uint32_t low = ifs_lower_char(cp);
    if (low >= N) continue;
    if (count[low] == 3) { bad = low; break; }
    want[low][count[low]++] = cp;
  }
  for (uint32_t low = 0; low < N && bad == UINT32_MAX; low++) {
    uint32_t got[3];
    size_t k = ifs_lower_preimages(low, got);
    if (k != count[low]) bad = low;
    for (size_t a = 0; a < k && bad == UINT32_MAX; a++) {
      size_t b = 0;
      while (b < k && want[low][b] != got[a]) b++;
      if (b == k) bad = low;
    }
  }
  free(want);
  free(count);
  ck_assert_msg(bad == UINT32_MAX, "the preimages of U+%04X", (unsigned)bad);
}
END_TEST

/* A lowercase character lowers to itself, as do those lower() makes in
** context (U+0307 after the i of U+0130, final and medial sigma): the
** needle search takes a character the text holds in a lowered needle's
** own bytes as a match without lowering it. */
START_TEST(test_lowercase_is_its_own) {
  uint32_t bad = UINT32_MAX;
  for (uint32_t cp = 0; cp < 0x110000 && bad == UINT32_MAX; cp++) {
    uint32_t low = ifs_lower_char(cp);
    if (ifs_lower_char(low) != low) bad = cp;
  }
  ck_assert_msg(bad == UINT32_MAX, "lower(lower(U+%04X)) is not lower(U+%04X)", (unsigned)bad,
                (unsigned)bad);
  static const uint32_t in_context[] = {0x69, 0x307, 0x3C3, 0x3C2};
  for (size_t i = 0; i < sizeof in_context / sizeof in_context[0]; i++)
    ck_assert_uint_eq(ifs_lower_char(in_context[i]), in_context[i]);
}
END_TEST

/* ifs_lower's inline paths (sixteen ASCII bytes at a time, two-, three-
** and four-byte characters decoded in place) against the character-at-a-
** time model, on soups of ASCII runs longer and shorter than a vector,
** characters that change length when lowered, overlong forms of U+0130,
** surrogates, code points past U+10FFFF and cut sequences. */
START_TEST(test_lower_matches_model) {
  static const char *const pieces[] = {
    "a", "Z", "AbCdEfGhIjKlMnOpQrStUvWxYz0123", "word ", "\0", "\x7f", "@[`{",
    "\xc3\x84", "\xd0\x96", "\xce\xa9", "\xc8\xba", "\xc4\xb0", "\xc3\xa9",
    "\xe2\x84\xaa", "\xe1\xba\x9e", "\xe2\x85\xab", "\xe6\x97\xa5", "\xe2\x80\x9c",
    "\xed\xb2\x80", "\xef\xbf\xbf", "\xe0\x84\xb0", "\xc0\xb0", "\xf0\x80\x84\xb0",
    "\xf0\x90\x90\x80", "\xf0\x9e\xa4\x80", "\xf0\x9f\x98\x80", "\xf4\x90\x80\x80",
    "\xf7\xbf\xbf\xbf", "\xc4", "\xe2\x80", "\xf0\x9f\x98", "\x80", "\xff"};
  unsigned seed = 4242;
  char buf[400];
  for (int iter = 0; iter < 20000; iter++) {
    size_t n = soup_fill(buf, sizeof buf, pieces, sizeof pieces / sizeof pieces[0], 60, &seed);
    ifs_buf got, want;
    ifs_buf_init(&got);
    ifs_buf_init(&want);
    ck_assert_int_eq(ifs_lower(buf, n, &got), IFS_OK);
    ck_assert_int_eq(ref_lower_no_sigma(buf, n, &want), IFS_OK);
    ck_assert_uint_eq(got.len, want.len);
    ck_assert(memcmp(got.p, want.p ? want.p : "", want.len) == 0);
    ifs_buf_free(&got);
    ifs_buf_free(&want);
  }
}
END_TEST

/* The vectorised validation and counting against the byte loops, on
** random soups of sequences chosen to sit on every table boundary (valid
** and invalid leads, overlongs, surrogates, > U+10FFFF, truncations,
** every whitespace lead) and cut at random offsets. */
START_TEST(test_vector_matches_byte_loops) {
  static const char *const pieces[] = {
    "a", " ", "\t", "\x1c", "\x7f", "\0", "\xc2\x85", "\xc2\xa0", "\xc3\xa9", "\xd0\xb6",
    "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x8a", "\xe2\x80\x8b", "\xe2\x80\xa8",
    "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80", "\xe2\x80\x99", "\xef\xbf\xbf",
    "\xe0\xa0\x80", "\xe0\x9f\xbf", "\xed\x9f\xbf", "\xed\xa0\x80", "\xed\xb2\x80",
    "\xf0\x90\x80\x80", "\xf0\x8f\xbf\xbf", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
    "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xc0\x80", "\xc1\xbf", "\xc2", "\xe2\x80",
    "\xf0\x9f\x98", "\x80", "\xbf", "\xfe", "\xff"};
  unsigned seed = 777;
  char buf[300];
  ifs_buf in;
  ifs_buf_init(&in);
  for (int iter = 0; iter < 60000; iter++) {
    size_t n = soup_fill(buf, sizeof buf, pieces, sizeof pieces / sizeof pieces[0], 60, &seed);
    seed = seed * 1103515245u + 12345u;
    size_t cut = n ? (seed >> 16) % (n + 1) : 0;   /* start mid-sequence too */
    const char *s = buf + cut;
    n -= cut;
    int valid = ifs_utf8_is_valid(s, n);
    ck_assert_int_eq(valid, ifs_utf8_is_valid_bytes(s, n));
    ifs_scan b;
    ifs_utf8_scan_bytes(s, n, &b);
    for (int level = 0; level <= 4; level++) {   /* 4: what ifs_utf8_scan picks */
      ifs_scan v;
      if (level == 4) ifs_utf8_scan(s, n, &v);
      else ifs_test_utf8_scan_level(s, n, &v, level);
      ck_assert_int_eq(v.valid, valid);
      ck_assert_int_eq(v.ascii, b.ascii);
      ck_assert_int_eq(v.plain_lower, b.plain_lower);
    }
    ifs_buf_clear(&in);
    ck_assert_int_eq(ifs_to_internal(s, n, &in), IFS_OK);
    ck_assert_int_eq(valid, in.len == n && memcmp(in.p, s, n) == 0);
    size_t w1, c1, w2, c2;
    ifs_count_bytes(in.p, in.len, &w2, &c2);
    for (int level = 1; level <= 3; level++) {   /* 3: what ifs_count picks */
      if (level == 3) ifs_count(in.p, in.len, &w1, &c1);
      else ifs_test_count_level(in.p, in.len, &w1, &c1, level);
      ck_assert_uint_eq(w1, w2);
      ck_assert_uint_eq(c1, c2);
    }
  }
  ifs_buf_free(&in);
}
END_TEST

/* The scan's flags: U+0130 / U+03A3 found at every offset of a text long
** enough for the vector loop, and only as the right byte pairs. */
START_TEST(test_scan_flags) {
  ifs_scan sc;
  ifs_utf8_scan(LIT("\xc4\xb0stanbul"), &sc);
  ck_assert(sc.valid && !sc.ascii && !sc.plain_lower);
  ifs_utf8_scan(LIT("\xce\x91\xce\xa3"), &sc);
  ck_assert(sc.valid && !sc.plain_lower);
  ifs_utf8_scan(LIT("\xcf\x83\xcf\x82 i\xcc\x87"), &sc);
  ck_assert(sc.valid && sc.plain_lower);
  ifs_utf8_scan(LIT("plain ASCII, and longer than sixteen bytes"), &sc);
  ck_assert(sc.valid && sc.ascii && sc.plain_lower);
  char text[200];   /* whole ASCII blocks after the one with the pair, for every loop */
  for (int level = 0; level <= 3; level++)
    for (size_t at = 0; at + 1 < sizeof text; at++) {
      memset(text, 'x', sizeof text);
      text[at] = (char)0xC4;   /* C4 alone: invalid, but no U+0130 */
      ifs_test_utf8_scan_level(text, sizeof text, &sc, level);
      ck_assert(!sc.valid && !sc.ascii && sc.plain_lower);
      text[at + 1] = (char)0xB0;
      ifs_test_utf8_scan_level(text, sizeof text, &sc, level);
      ck_assert(sc.valid && !sc.plain_lower);
      memcpy(text + at, "\xce\xa3", 2);
      ifs_test_utf8_scan_level(text, sizeof text, &sc, level);
      ck_assert(sc.valid && !sc.plain_lower);
      text[at] = (char)0xC4;   /* C4 A3 is another character */
      ifs_test_utf8_scan_level(text, sizeof text, &sc, level);
      ck_assert(sc.valid && sc.plain_lower);
    }
}
END_TEST

/* The scan's ends: ASCII but for one sequence (complete, cut short, a
** stray byte, U+0130) at every place of texts of every length to 160,
** each loop against the byte loops; an end that is ASCII after an ASCII
** block is taken from the text's last bytes, anything else is not. */
START_TEST(test_scan_every_place) {
  static const char *const seqs[] = {"\xe2\x80\x99", "\xe2", "\xe2\x80", "\xf0\x9f\x98\x80",
                                     "\xf0\x9f", "\x80", "\xc4\xb0", "\xce\xa3", "\xed\xa0\x80"};
  char text[160];
  unsigned differ = 0;   /* (an assertion a case is a message to the runner each) */
  int first_level = 0;
  size_t first_n = 0, first_q = 0, first_at = 0;
  for (size_t n = 0; n <= sizeof text; n++)
    for (size_t q = 0; q < sizeof seqs / sizeof seqs[0]; q++) {
      size_t len = strlen(seqs[q]);
      for (size_t at = 0; at + len <= n; at++) {
        memset(text, 'x', n);
        memcpy(text + at, seqs[q], len);
        ifs_scan b, v;
        ifs_utf8_scan_bytes(text, n, &b);
        for (int level = 1; level <= 3; level++) {
          ifs_test_utf8_scan_level(text, n, &v, level);
          if (v.valid == b.valid && v.ascii == b.ascii && v.plain_lower == b.plain_lower) continue;
          if (!differ++) {
            first_level = level;
            first_n = n;
            first_q = q;
            first_at = at;
          }
        }
      }
    }
  ck_assert_msg(differ == 0, "%u cases differ, the first: level %d, length %zu, sequence %zu at %zu",
                differ, first_level, first_n, first_q, first_at);
}
END_TEST

/* ifs_is_ascii() at every length to 40, with no byte past ASCII or one at
** each place (0x80 and 0xFF), the string read from an offset past the start
** of its buffer, whose bytes before and after are not ASCII. */
START_TEST(test_is_ascii) {
  static const unsigned char highs[] = {0x80, 0xFF};
  unsigned char buf[48];
  for (size_t n = 0; n <= 40; n++) {
    memset(buf, 0xC3, sizeof buf);
    memset(buf + 4, 'a', n);
    ck_assert_msg(ifs_is_ascii((const char *)buf + 4, n), "length %zu, ASCII", n);
    for (size_t at = 0; at < n; at++)
      for (size_t h = 0; h < sizeof highs; h++) {
        buf[4 + at] = highs[h];
        ck_assert_msg(!ifs_is_ascii((const char *)buf + 4, n), "length %zu, 0x%02x at %zu", n,
                      highs[h], at);
        buf[4 + at] = 'a';
      }
  }
}
END_TEST

/* ifs_may_meet_context() at every length to 40: 1 only with byte CC or CF
** at some place of the string (not the other lead bytes of Greek and the
** combining marks, CD and CE, nor CC or CF just outside it). */
START_TEST(test_may_meet_context) {
  static const unsigned char bytes[] = {0xCC, 0xCF, 0xCD, 0xCE, 0x87};
  static const int meets[] = {1, 1, 0, 0, 0};
  unsigned char buf[48];
  for (size_t n = 0; n <= 40; n++) {
    memset(buf, 0xCF, sizeof buf);
    memset(buf + 4, 'a', n);
    ck_assert_msg(!ifs_may_meet_context((const char *)buf + 4, n), "length %zu, plain", n);
    for (size_t at = 0; at < n; at++)
      for (size_t b = 0; b < sizeof bytes; b++) {
        buf[4 + at] = bytes[b];
        ck_assert_msg(ifs_may_meet_context((const char *)buf + 4, n) == meets[b],
                      "length %zu, 0x%02x at %zu", n, bytes[b], at);
        buf[4 + at] = 'a';
      }
  }
}
END_TEST

START_TEST(test_find_matches_naive) {
  static char h[300], nd[40];
  unsigned seed = 99;
  for (int iter = 0; iter < 50000; iter++) {
    seed = seed * 1103515245u + 12345u;
    size_t hn = (seed >> 8) % sizeof h;
    seed = seed * 1103515245u + 12345u;
    size_t nn = (seed >> 8) % 12;
    seed = seed * 1103515245u + 12345u;
    int alphabet = 1 + (int)((seed >> 8) % 3);   /* tiny alphabets: many near-misses */
    for (size_t i = 0; i < hn; i++) {
      seed = seed * 1103515245u + 12345u;
      h[i] = (char)('a' + (seed >> 16) % (unsigned)alphabet);
    }
    for (size_t i = 0; i < nn; i++) {
      seed = seed * 1103515245u + 12345u;
      nd[i] = (char)('a' + (seed >> 16) % (unsigned)alphabet);
    }
    const char *want = NULL;
    for (size_t i = 0; i + nn <= hn && !want; i++)
      if (memcmp(h + i, nd, nn) == 0) want = h + i;
    ck_assert_ptr_eq(ifs_find(h, hn, nd, nn), want);
  }
}
END_TEST

START_TEST(test_find_adversarial_is_linear) {
  /* a^n with a needle a^m b: quadratic for a naive search */
  size_t hn = 1 << 22, nn = 1 << 12;
  char *h = malloc(hn), *nd = malloc(nn);
  memset(h, 'a', hn);
  memset(nd, 'a', nn);
  nd[nn - 1] = 'b';
  ck_assert_ptr_null(ifs_find(h, hn, nd, nn));
  nd[nn - 1] = 'a';
  nd[0] = 'b';
  ck_assert_ptr_null(ifs_find(h, hn, nd, nn));
  h[hn - 1] = 'b';
  nd[0] = 'a';
  nd[nn - 1] = 'b';
  ck_assert_ptr_eq(ifs_find(h, hn, nd, nn), h + hn - nn);
  free(h);
  free(nd);
}
END_TEST

static Suite *text_suite(void) {
  Suite *s = suite_create("ifs_text");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_lower_words_chars, 0,
                      sizeof lower_cases / sizeof lower_cases[0]);
  tcase_add_loop_test(tc, test_surrogateescape_roundtrip, 0,
                      sizeof raw_cases / sizeof raw_cases[0]);
  tcase_add_test(tc, test_lone_surrogate_stays_three_bytes);
  tcase_add_test(tc, test_isspace_matches_python);
  tcase_add_test(tc, test_decode_prev_and_strip);
  tcase_add_test(tc, test_decimal_and_printable);
  tcase_add_test(tc, test_lower_fails_cleanly);
  tcase_add_test(tc, test_count_random);
  tcase_add_test(tc, test_preimages_exhaustive);
  tcase_add_test(tc, test_lowercase_is_its_own);
  tcase_add_test(tc, test_lower_matches_model);
  tcase_add_test(tc, test_vector_matches_byte_loops);
  tcase_add_test(tc, test_scan_flags);
  tcase_add_test(tc, test_scan_every_place);
  tcase_add_test(tc, test_is_ascii);
  tcase_add_test(tc, test_may_meet_context);
  tcase_add_test(tc, test_find_matches_naive);
  tcase_add_test(tc, test_find_adversarial_is_linear);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(text_suite)
