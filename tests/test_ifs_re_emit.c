/*
** test_ifs_re_emit.c — unit tests of ext/ifs_re_emit.c beyond the
** translations of tests/test_ifs_regex.c: the surrogate mapping for
** subjects that hold surrogates (map_base), the leading-repeat test for
** the search (lead), the start-position filter (prefixed), and the
** emitter's own refusals (re._compiler's errors, the 16 MB bound).
*/
#include "ifs_test.h"
#include "ifs_re_emit.h"
#include "ifs_regex.h"
#include "ifs_text.h"
#include <stdlib.h>

typedef struct emitted {
  ifs_buf out, lead;
  int prefixed;
} emitted;

/* Parses and emits pat (UTF-8) for subjects whose surrogates are at
** map_base + k (0: none). */
static ifs_status emit(const char *pat, size_t len, uint32_t map_base, emitted *r) {
  size_t n = 0;
  uint32_t *cps = malloc((len ? len : 1) * sizeof *cps);
  ck_assert_ptr_nonnull(cps);
  for (size_t i = 0; i < len;) cps[n++] = ifs_decode(pat, len, &i);
  ifs_buf_init(&r->out);
  ifs_buf_init(&r->lead);
  r->prefixed = -1;
  ifs_arena arena;
  ifs_arena_init(&arena);
  parser p;
  seq *root = ifs_re_parse(&p, &arena, cps, n);
  ifs_status rc = p.err;
  if (root) rc = ifs_re_emit(&p, root, map_base, &r->out, &r->lead, &r->prefixed);
  ifs_arena_free(&arena);
  free(cps);
  return rc;
}

static void done(emitted *r) {
  ifs_buf_free(&r->out);
  ifs_buf_free(&r->lead);
}

static void ck_emit(const char *pat, uint32_t map_base, const char *want) {
  emitted r;
  ck_assert_int_eq(emit(pat, strlen(pat), map_base, &r), IFS_OK);
  ck_assert_buf_eq(&r.out, want);
  done(&r);
}

/* A surrogate never matches a subject without any; with the subject's
** surrogates at map_base + k it is written there, and the real characters
** of that block (which the subject does not hold) never match. */
START_TEST(surrogate_mapping) {
  ck_emit("\\ud800", 0, "[^\\x{0}-\\x{10ffff}]");
  ck_emit("\\ud800", 0x10F800, "\\x{10f800}");
  ck_emit("\\udcff", 0x10F800, "\\x{10fcff}");
  ck_emit("\\U0010f800", 0x10F800, "[^\\x{0}-\\x{10ffff}]");
  ck_emit("\\U0010f800", 0, "\\x{10f800}");
  ck_emit("[\\ud7ff-\\ue000]", 0, "[\\x{d7ff}\\x{e000}]");
  ck_emit("[\\ud7ff-\\ue000]", 0xFF800, "[\\x{d7ff}\\x{ff800}-\\x{fffff}\\x{e000}]");
  ck_emit("[\\ue000-\\U0010ffff]", 0x10F800, "[\\x{e000}-\\x{10f7ff}]");
  ck_emit("[^\\ud800]", 0x10F800, "[^\\x{10f800}]");
}
END_TEST

/* In a look-behind, PCRE2 wants every part fixed-length, even one repeated
** zero times: a body of varying width goes into a look-ahead that never
** holds (its groups stay, never set); a fixed-width one stays as it is.
** Python: re.search('(?<=(?:ab|c){0})x', 'x') matches, and so do
** re.search('(?<=(a|bc){0,0})x(?(1)y|z)', 'xz') and not on 'xy'. */
START_TEST(zero_repeat_in_lookbehind) {
  ck_emit("(?<=(?:ab|c){0})x", 0, "(?<=(?:(?=[^\\x{0}-\\x{10ffff}](?:ab|c))|))x");
  ck_emit("(?<=x(?:a+){0}y)z", 0, "(?<=x(?:(?=[^\\x{0}-\\x{10ffff}]a+)|)y)z");
  ck_emit("(?<=(a){0})x", 0, "(?<=(a){0})x");
  ck_emit("(?:ab|c){0}x", 0, "(?:ab|c){0}x");
  ifs_regex_cache *c = ifs_regex_cache_new();
  ck_assert_ptr_nonnull(c);
  int m = -1;
  ck_assert_int_eq(ifs_regex_search(c, "(?<=(?:ab|c){0})x", 17, "x", 1, &m), IFS_OK);
  ck_assert_int_eq(m, 1);
  const char *cond = "(?<=(a|bc){0,0})x(?(1)y|z)";
  ck_assert_int_eq(ifs_regex_search(c, cond, strlen(cond), "xz", 2, &m), IFS_OK);
  ck_assert_int_eq(m, 1);
  ck_assert_int_eq(ifs_regex_search(c, cond, strlen(cond), "xy", 2, &m), IFS_OK);
  ck_assert_int_eq(m, 0);
  ifs_regex_cache_free(c);
}
END_TEST

/* A pattern that starts with X* or X+ (X one character test) hands X to
** the search; a filter for the start positions comes first when the
** categories of the first set mean something else under the global flags
** (Python: re.search(r'(?a:\W)', 'é') is None). */
START_TEST(lead_and_prefix) {
  emitted r;
  ck_assert_int_eq(emit("[^a-z]*\\Z", 9, 0, &r), IFS_OK);
  ck_assert_buf_eq(&r.out, "[^a-z]*\\z");
  ck_assert_buf_eq(&r.lead, "[^a-z]");
  ck_assert_int_eq(r.prefixed, 0);
  done(&r);
  ck_assert_int_eq(emit("\\w+ing", 6, 0, &r), IFS_OK);
  ck_assert_buf_eq(&r.lead, "\\w");
  done(&r);
  ck_assert_int_eq(emit("ab*", 3, 0, &r), IFS_OK);
  ck_assert_uint_eq(r.lead.len, 0);
  done(&r);
  ck_assert_int_eq(emit("(?a:\\W)", 7, 0, &r), IFS_OK);
  ck_assert_int_eq(r.prefixed, 1);
  ck_assert_buf_eq(&r.out, "(?=[\\W])(?:[\\x{0}-\\/\\:-\\@\\[-\\^\\`\\{-\\x{d7ff}\\x{e000}-\\x{10ffff}])");
  done(&r);
}
END_TEST

/* What re._compiler refuses: a look-behind of variable width, a repeat
** under the template flag, nesting past Python's recursion limit (re.compile
** of 494 nested groups works, of 495 raises RecursionError when called from
** the third frame). */
START_TEST(refusals) {
  emitted r;
  ck_assert_int_eq(emit("(?<=a|bc)", 9, 0, &r), IFS_INVALID);
  done(&r);
  ck_assert_int_eq(emit("(?t)a*", 6, 0, &r), IFS_INVALID);
  done(&r);
  char pat[1000];
  for (int depth = 494; depth <= 495; depth++) {
    memset(pat, '(', (size_t)depth);
    memset(pat + depth, ')', (size_t)depth);
    ck_assert_int_eq(emit(pat, 2 * (size_t)depth, 0, &r), depth == 494 ? IFS_OK : IFS_INVALID);
    done(&r);
  }
}
END_TEST

/* A translation past 16 MB is IFS_LIMIT: 180,000 \s, each written as its
** Python ranges. */
START_TEST(output_bound) {
  size_t n = 180000;
  char *pat = malloc(2 * n);
  ck_assert_ptr_nonnull(pat);
  for (size_t i = 0; i < n; i++) { pat[2 * i] = '\\'; pat[2 * i + 1] = 's'; }
  emitted r;
  ck_assert_int_eq(emit(pat, 2 * n / 2, 0, &r), IFS_OK);   /* 90,000: under the bound */
  done(&r);
  ck_assert_int_eq(emit(pat, 2 * n, 0, &r), IFS_LIMIT);
  done(&r);
  free(pat);
}
END_TEST

static Suite *emit_suite(void) {
  Suite *s = suite_create("ifs_re_emit");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, surrogate_mapping);
  tcase_add_test(tc, lead_and_prefix);
  tcase_add_test(tc, zero_repeat_in_lookbehind);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, output_bound);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(emit_suite)
