/*
** test_ifs_re_nfa.c — unit tests of ext/ifs_re_nfa.c: which parsed
** patterns compile into a DFA, the program bounds (IFS_REDFA_MAX_INSTS,
** IFS_REDFA_MAX_SETS) at and past their values, answers of the DFA it
** makes (Python's, from /usr/bin/python3 3.11.2), and allocation failure.
*/
#include "ifs_test.h"
#include "ifs_re_nfa.h"
#include "ifs_text.h"
#include <stdio.h>
#include <stdlib.h>

/* The DFA of pat, NULL when it has none; *rc as ifs_re_compile_dfa sets it. */
static ifs_redfa *dfa_of(const char *pat, ifs_status *rc) {
  size_t len = strlen(pat), n = 0;
  uint32_t *cps = malloc((len ? len : 1) * sizeof *cps);
  ck_assert_ptr_nonnull(cps);
  for (size_t i = 0; i < len;) cps[n++] = ifs_decode(pat, len, &i);
  ifs_arena arena;
  ifs_arena_init(&arena);
  parser p;
  seq *root = ifs_re_parse(&p, &arena, cps, n);
  ifs_redfa *d = NULL;
  *rc = p.err;
  if (root) {
    *rc = IFS_OK;
    d = ifs_re_compile_dfa(&p, root, rc);
  }
  ifs_arena_free(&arena);
  free(cps);
  return d;
}

static int has_dfa(const char *pat) {
  ifs_status rc;
  ifs_redfa *d = dfa_of(pat, &rc);
  ck_assert_int_eq(rc, IFS_OK);
  ifs_redfa_free(d);
  return d != NULL;
}

START_TEST(which_patterns) {
  static const char *const regular[] = {
    "a+b", "[^a-z]*\\Z", "(?m)^ab$", "\\bfoo\\b", "(?s).*x", "(a|bc)*?d{2,4}", "(?i).",
    "(?a)\\w\\d\\s", "", "x{0}", "(?:)*", "(?i)a", "(?i)[a-z]",
    /* a look-ahead at the end, a look-behind at the start */
    "(?=a)", "a(?=b)", "(?<=a)b", "(?:x(?=y)|z)",
  };
  for (size_t i = 0; i < sizeof regular / sizeof *regular; i++)
    ck_assert_msg(has_dfa(regular[i]), "%s", regular[i]);
  static const char *const not_regular[] = {
    "(a)\\1", "(?=a)b", "a(?<=a)", "(?!a)", "(?<!a)b", "(?>a)", "a*+", "(a)(?(1)b)",
    "\\b(?a:\\b)",   /* \b of both kinds */
  };
  for (size_t i = 0; i < sizeof not_regular / sizeof *not_regular; i++)
    ck_assert_msg(!has_dfa(not_regular[i]), "%s", not_regular[i]);
}
END_TEST

/* a{N}: N CHARs and MATCH; N one-character nodes: N sets. */
START_TEST(program_bounds) {
  char pat[64];
  snprintf(pat, sizeof pat, "a{%u}", IFS_REDFA_MAX_INSTS - 1);
  ck_assert(has_dfa(pat));
  snprintf(pat, sizeof pat, "a{%u}", IFS_REDFA_MAX_INSTS);
  ck_assert(!has_dfa(pat));
  char *many = malloc(IFS_REDFA_MAX_SETS + 2);
  ck_assert_ptr_nonnull(many);
  memset(many, 'a', IFS_REDFA_MAX_SETS + 1);
  many[IFS_REDFA_MAX_SETS] = 0;
  ck_assert(has_dfa(many));
  many[IFS_REDFA_MAX_SETS] = 'a';
  many[IFS_REDFA_MAX_SETS + 1] = 0;
  ck_assert(!has_dfa(many));
  free(many);
}
END_TEST

/* re.search(pat, text) is not None, answered by the DFA. */
START_TEST(answers) {
  static const struct { const char *pat, *text; int want; } cases[] = {
    { "\\bfoo\\b", "a foo b", 1 }, { "\\bfoo\\b", "afoo", 0 },
    { "(?m)^b$", "a\nb\nc", 1 }, { "^b$", "a\nb", 0 }, { "a$", "xa\n", 1 },
    { "a\\Z", "xa\n", 0 }, { "[^a-z]*\\Z", "abc", 1 }, { "(?a)\\w", "\xc3\xa9", 0 },
    { "\\w", "\xc3\xa9", 1 }, { "\\d", "\xd9\xa3", 1 }, { "(?a)\\d", "\xd9\xa3", 0 },
    { "\\s", "\xe2\x80\x8b", 0 }, { "\\s", "\x1c", 1 }, { ".", "\n", 0 }, { "(?s).", "\n", 1 },
    { "(ab|c)+d", "xcabcd", 1 }, { "(ab|c)+d", "abd", 1 }, { "(ab|c)+d", "ad", 0 },
    { "(?i)k", "\xe2\x84\xaa", 1 }, { "(?i)[^k]", "\xe2\x84\xaa", 0 }, { "(?i)s", "\xc5\xbf", 1 },
    { "(?i)[a-z]", "\xc4\xb0", 1 }, { "(?i)\xc4\xb0", "i", 1 },
    { "a(?=bc)", "xabc", 1 }, { "a(?=bc)", "xab", 0 }, { "(?<=ab)c", "abc", 1 },
    { "(?<=ab)c", "xbc", 0 }, { "(?:x(?=y)|z)", "xy", 1 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ifs_status rc;
    ifs_redfa *d = dfa_of(cases[i].pat, &rc);
    ck_assert_msg(d != NULL, "%s", cases[i].pat);
    int matched = -1;
    ck_assert_int_eq(ifs_redfa_search(d, cases[i].text, strlen(cases[i].text), &matched), IFS_OK);
    ck_assert_msg(matched == cases[i].want, "re.search(%s, %s): %d", cases[i].pat, cases[i].text,
                  matched);
    ifs_redfa_free(d);
  }
}
END_TEST

/* Every allocation failing in turn: no DFA and IFS_NOMEM, or the DFA. */
START_TEST(alloc_failure) {
  int made = 0;
  for (long k = 1; k < 400 && !made; k++) {
    ifs_status rc;
    ifs_test_fail_nth(k);
    ifs_redfa *d = dfa_of("(ab|[c-e])+\\bx?", &rc);
    ifs_test_fail_nth(0);
    if (d) {
      ck_assert_int_eq(rc, IFS_OK);
      made = 1;
    } else {
      ck_assert_int_eq(rc, IFS_NOMEM);
    }
    ifs_redfa_free(d);
  }
  ck_assert(made);
}
END_TEST

static Suite *nfa_suite(void) {
  Suite *s = suite_create("ifs_re_nfa");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, which_patterns);
  tcase_add_test(tc, program_bounds);
  tcase_add_test(tc, answers);
  tcase_add_test(tc, alloc_failure);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(nfa_suite)
