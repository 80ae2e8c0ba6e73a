/*
** test_ifs_eval.c — unit tests of ext/ifs_eval.c: whole evaluations with
** exact scores and reason strings (expected values from the Python
** reference, hard-coded), the fence stripping, and allocation failures.
*/
#include "ifs_test.h"
#include "ifs_eval.h"
#include "ifs_text.h"
#include "soup.h"
#include <math.h>
#include <stdio.h>

typedef struct {
  const char *resp, *cons;
  int scored;
  double score;
  const char *reason;
} eval_case;

static const eval_case cases[] = {
  {"Hello world",
   "{\"max_words\": 5, \"must_include\": \"hello\"}",
   1, 1.0,
   "all 2 constraints satisfied"},
  {"Hello world",
   "{\"max_words\": 1}",
   1, 0.0,
   "0/1 satisfied; failed: max_words<=1 (got 2)"},
  {"Hello world",
   NULL,
   0, 0.0,
   "no constraints specified \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "null",
   0, 0.0,
   "no constraints specified \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "{}",
   0, 0.0,
   "no constraints specified \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "[1]",
   0, 0.0,
   "constraints must be a JSON object \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "{\"foo\": 1}",
   0, 0.0,
   "no recognized constraints \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "{\"max_words\": 1,}",
   0, 0.0,
   "invalid constraints JSON \xe2""\x80""\x94"" cannot score"},
  {"Hello world",
   "{\"max_words\": null, \"min_words\": \"\xd9""\xa1""\xd9""\xa2""\", \"max_chars\": 1e20}",
   1, 0.3333333333333333,
   "1/3 satisfied; failed: max_words (invalid value); min_words>=12 (got 2)"},
  {"Hello world",
   "{\"regex\": \"world\\\\Z\", \"must_exclude\": [\"O W\", \"xyz\", \"\"]}",
   1, 0.5,
   "2/4 satisfied; failed: must_exclude 'O W'; must_exclude ''"},
  {"```json\n{\"a\": 1}\n```",
   "{\"must_be_json\": \"false\"}",
   1, 1.0,
   "all 1 constraints satisfied"},
  {"{\"a\": 1} trailing",
   "{\"must_be_json\": true, \"must_include\": [1.0, null, true, {\"k\": \"v'\"}]}",
   1, 0.0,
   "0/5 satisfied; failed: must_be_json; must_include '1.0'; must_include 'None'; must_include 'True'; must_include '{'k': \"v'\"}'"},
  {"\xce""\x91""\xce""\xa3""",
   "{\"must_include\": \"\xce""\xb1""\xcf""\x82""\", \"min_words\": 5.9, \"max_chars\": -0.5, \"max_words\": Infinity}",
   1, 0.25,
   "1/4 satisfied; failed: max_words (invalid value); min_words>=5 (got 1); max_chars<=0 (got 2)"},
  {"x",
   "{\"regex\": \"(?<n>x)\", \"must_include\": \"X\"}",
   1, 0.5,
   "1/2 satisfied; failed: regex /(?<n>x)/ (invalid pattern)"},
  {NULL,
   "{\"max_chars\": 0, \"max_words\": \"1_0\", \"min_words\": \"1e3\"}",
   1, 0.6666666666666666,
   "2/3 satisfied; failed: min_words (invalid value)"},
};

START_TEST(test_reference_cases) {
  const eval_case *t = &cases[_i];
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  ck_assert_ptr_nonnull(ev);
  int rc = ifs_evaluate(ev, t->resp, t->resp ? strlen(t->resp) : 0,
                        t->cons, t->cons ? strlen(t->cons) : 0, &r);
  ck_assert_int_eq(rc, IFS_OK);
  ck_assert_int_eq(r.verdict == IFS_SCORED, t->scored);
  if (t->scored) ck_assert_msg(r.score == t->score, "score %.17g", r.score);
  ck_assert_buf_eq(&r.reason, t->reason);
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

START_TEST(test_checks_list) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  const char *cons = "{\"regex\": \"b\", \"must_include\": [\"a\", \"z\"], \"max_words\": 9}";
  ck_assert_int_eq(ifs_evaluate(ev, "a b", 3, cons, strlen(cons), &r), IFS_OK);
  ck_assert_uint_eq(r.total, 4);
  ck_assert_uint_eq(r.passed, 3);
  static const ifs_kind kinds[] = {IFS_MAX_WORDS, IFS_MUST_INCLUDE, IFS_MUST_INCLUDE, IFS_REGEX};
  static const char *const labels[] = {"max_words<=9 (got 2)", "must_include 'a'",
                                       "must_include 'z'", "regex /b/"};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_int_eq(r.checks[i].kind, kinds[i]);
    ck_assert_int_eq(r.checks[i].ok, i != 2);
    ck_assert_uint_eq(r.checks[i].label_len, strlen(labels[i]));
    ck_assert(memcmp(r.labels.p + r.checks[i].label_at, labels[i], strlen(labels[i])) == 0);
  }
  ck_assert_str_eq(ifs_kind_name(IFS_MUST_BE_JSON), "must_be_json");
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

/* A score counts the needle set's checks without writing them; they are
** written when asked for (ifs_result_checks, or the reason), while the
** evaluator has evaluated nothing since. */
START_TEST(test_needle_checks_written_when_read) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r, other;
  ifs_result_init(&r);
  ifs_result_init(&other);
  const char *cons = "{\"max_words\": 9, \"must_include\": [\"a\", \"z\", \"c\"], "
                     "\"must_exclude\": [\"b\", \"q\"], \"regex\": \"b\"}";
  static const ifs_kind kinds[] = {IFS_MAX_WORDS, IFS_MUST_INCLUDE, IFS_MUST_INCLUDE,
                                   IFS_MUST_INCLUDE, IFS_MUST_EXCLUDE, IFS_MUST_EXCLUDE, IFS_REGEX};
  static const int ok[] = {1, 1, 0, 1, 0, 1, 1}, other_ok[] = {1, 0, 1, 0, 1, 0, 0};
  for (int round = 0; round < 3; round++) {   /* the plan compiled, seen once, kept */
    ck_assert_int_eq(ifs_evaluate_scores(ev, "z q", 3, cons, strlen(cons), &r), IFS_OK);
    ck_assert_uint_eq(r.passed, 3);
    ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_OK);
    for (size_t i = 0; i < 7; i++) ck_assert_int_eq(r.checks[i].ok, other_ok[i]);
    ck_assert_int_eq(ifs_evaluate_scores(ev, "a b c", 5, cons, strlen(cons), &r), IFS_OK);
    ck_assert_uint_eq(r.total, 7);
    ck_assert_uint_eq(r.passed, 5);
    ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_OK);
    for (size_t i = 0; i < 7; i++) {
      ck_assert_int_eq(r.checks[i].kind, kinds[i]);
      ck_assert_int_eq(r.checks[i].ok, ok[i]);
    }
    ck_assert_int_eq(ifs_evaluate_scores(ev, "z q", 3, cons, strlen(cons), &r), IFS_OK);
    ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_OK);
    ck_assert_int_eq(ifs_evaluate_scores(ev, "a b c", 5, cons, strlen(cons), &r), IFS_OK);
    ck_assert_int_eq(ifs_result_reason(ev, &r), IFS_OK);   /* the checks written for it */
    ck_assert_buf_eq(&r.reason, "5/7 satisfied; failed: must_include 'z'; must_exclude 'b'");
  }
  /* another row evaluated in between: the answers are gone */
  ck_assert_int_eq(ifs_evaluate_scores(ev, "a b c", 5, cons, strlen(cons), &r), IFS_OK);
  ck_assert_int_eq(ifs_evaluate_scores(ev, "z q", 3, cons, strlen(cons), &other), IFS_OK);
  ck_assert_uint_eq(other.passed, 3);
  ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_INVALID);
  ck_assert_int_eq(ifs_result_reason(ev, &r), IFS_INVALID);
  ck_assert_int_eq(ifs_result_checks(ev, &other), IFS_OK);
  for (size_t i = 0; i < 7; i++) ck_assert_int_eq(other.checks[i].ok, other_ok[i]);
  ifs_result_free(&r);
  ifs_result_free(&other);
  ifs_evaluator_free(ev);
}
END_TEST

/* Needles in answers holding U+0130 and U+03A3, whose lowercase is not
** each character lowered alone, against `needle.lower() in resp.lower()`
** made literally (ifs_lower, ifs_find): one needle (searched alone) and
** ten (a set; in one case of four, needles that meet no context lowercase,
** so that the set searches the answer itself), each constraints text seen
** twice (a plan used once, then kept). */
START_TEST(test_needles_in_context_lowercase) {
  static const char *const text_pieces[] = {
    "\xc4\xb0", "\xce\xa3", "i", "I", "a", "A", " ", "x", "K", "\xe2\x84\xaa", "\xcf\x83",
    "\xcf\x82", "\xcc\x87", "\xc4\xb1", "AI", "\xce\x91", ".", "\xc3\x89",
    "\xce\x91\xc4\xb0", "\xc3\x89\xc4\xb0"};
  /* the first SAFE meet no context lowercase (sigma, final sigma, U+0307) */
  static const char *const needle_pieces[] = {
    "i", "a", "ai", " ", "x", "k", "\xc4\xb1", "I", "\xc4\xb0", "\xce\xb1", "\xc3\xa9",
    "A i", "\xce\xb1i", "\xc3\xa9i", "\xcf\x83", "\xcf\x82", "i\xcc\x87", "\xcc\x87"};
  enum { SAFE = 14 };
  unsigned seed = 2024;
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  ck_assert_ptr_nonnull(ev);
  int bad = -1;
  for (int iter = 0; iter < 6000 && bad < 0; iter++) {
    char resp[200], nd[10][40];
    size_t rn = soup_fill(resp, sizeof resp, text_pieces, sizeof text_pieces / sizeof *text_pieces,
                          40, &seed);
    size_t k = iter % 2 ? 10 : 1, ndn[10];
    ifs_buf cons, low_resp;
    ifs_buf_init(&cons);
    ifs_buf_init(&low_resp);
    ifs_lower(resp, rn, &low_resp);
    ifs_buf_append_str(&cons, "{\"must_include\": [");
    for (size_t j = 0; j < k; j++) {
      ndn[j] = 0;
      while (ndn[j] == 0)
        ndn[j] = soup_fill(nd[j], sizeof nd[j], needle_pieces,
                           iter % 4 == 1 ? SAFE : sizeof needle_pieces / sizeof *needle_pieces,
                           4, &seed);
      if (j) ifs_buf_append_str(&cons, ", ");
      ifs_buf_append_char(&cons, '"');
      ifs_buf_append(&cons, nd[j], ndn[j]);
      ifs_buf_append_char(&cons, '"');
    }
    ifs_buf_append_str(&cons, "]}");
    for (int pass = 0; pass < 2 && bad < 0; pass++) {
      if (ifs_evaluate_scores(ev, resp, rn, cons.p, cons.len, &r) || r.total != k ||
          ifs_result_checks(ev, &r))
        bad = iter;
      for (size_t j = 0; j < k && bad < 0; j++) {
        ifs_buf low_nd;
        ifs_buf_init(&low_nd);
        ifs_lower(nd[j], ndn[j], &low_nd);
        int want = ifs_find(low_resp.p ? low_resp.p : "", low_resp.len, low_nd.p, low_nd.len) != NULL;
        if (r.checks[j].ok != want) bad = iter;
        ifs_buf_free(&low_nd);
      }
    }
    ifs_buf_free(&cons);
    ifs_buf_free(&low_resp);
  }
  ck_assert_msg(bad < 0, "case %d", bad);
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

/* Answers with many U+0130, around the most the evaluator holds the places
** of (past them, resp.lower() answers): needles ending in "i", alone and in
** a set, against `needle.lower() in resp.lower()` made literally. */
START_TEST(test_many_dotted_capital_i) {
  static const char *const needles[] = {"abi", "zzi", "i", "b i", "xi", "ab", "\xce\xb1i",
                                        "q", "bi", "x\xce\xb1i"};
  static const size_t counts[] = {0, 3, 1021, 1022, 1023, 3000};   /* and two more after */
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  ck_assert_ptr_nonnull(ev);
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    ifs_buf resp, low_resp;
    ifs_buf_init(&resp);
    ifs_buf_init(&low_resp);
    for (size_t i = 0; i < counts[c]; i++)
      ifs_buf_append_str(&resp, i % 7 ? "\xc4\xb0" : "\xc4\xb0 ");
    ifs_buf_append_str(&resp, "x ab\xc4\xb0 \xce\x91\xc4\xb0 \xce\xa3");
    ifs_lower(resp.p, resp.len, &low_resp);
    for (size_t list = 0; list <= 10; list++) {   /* each needle alone, then the ten (a set) */
      size_t k = list < 10 ? 1 : 10;
      ifs_buf cons;
      ifs_buf_init(&cons);
      ifs_buf_append_str(&cons, "{\"must_include\": [");
      for (size_t j = 0; j < k; j++) {
        ifs_buf_append_str(&cons, j ? ", \"" : "\"");
        ifs_buf_append_str(&cons, needles[k == 1 ? list : j]);
        ifs_buf_append_char(&cons, '"');
      }
      ifs_buf_append_str(&cons, "]}");
      for (int pass = 0; pass < 2; pass++) {   /* a plan used once, then kept */
        ck_assert_int_eq(ifs_evaluate_scores(ev, resp.p, resp.len, cons.p, cons.len, &r), IFS_OK);
        ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_OK);
        ck_assert_uint_eq(r.total, k);
        for (size_t j = 0; j < k; j++) {
          const char *nd = needles[k == 1 ? list : j];
          ifs_buf low_nd;
          ifs_buf_init(&low_nd);
          ifs_lower(nd, strlen(nd), &low_nd);
          int want = ifs_find(low_resp.p, low_resp.len, low_nd.p, low_nd.len) != NULL;
          ck_assert_msg(r.checks[j].ok == want, "%zu U+0130, needle %s: %d, want %d", counts[c], nd,
                        r.checks[j].ok, want);
          ifs_buf_free(&low_nd);
        }
      }
      ifs_buf_free(&cons);
    }
    ifs_buf_free(&resp);
    ifs_buf_free(&low_resp);
  }
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

/* A kept plan knows which of its needles end in "i" (up to 64 needles;
** past that it reads every absent one, as a plan used once does): an
** answer with U+0130, sigma not lowered, tries those alone through each
** U+0130.  Needles in both lists, some ending in "i" and found only
** through a U+0130, and the same with 60 more needles before them (70 in
** all), each text evaluated three times (used once, then kept), against
** `needle.lower() in resp.lower()` made literally. */
START_TEST(test_kept_plans_know_needles_ending_in_i) {
  static const char *const included[] = {"abi", "zzi", "b i", "xi", "\xce\xb1i"};
  static const char *const excluded[] = {"ab", "ebi", "q", "bi", "x\xce\xb1i"};
  const char *resp = "x ab\xc4\xb0 \xce\x91\xc4\xb0 \xce\xa3 e\xc4\xb0 EB\xc4\xb0";
  ifs_buf low_resp;
  ifs_buf_init(&low_resp);
  ifs_lower(resp, strlen(resp), &low_resp);
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  ck_assert_ptr_nonnull(ev);
  for (int fillers = 0; fillers <= 60; fillers += 60) {
    ifs_buf cons;
    ifs_buf_init(&cons);
    ifs_buf_append_str(&cons, "{\"must_include\": [");
    for (int f = 0; f < fillers; f++) {
      char filler[32];
      snprintf(filler, sizeof filler, "\"fill%d\", ", f);
      ifs_buf_append_str(&cons, filler);
    }
    for (size_t j = 0; j < 5; j++) {
      ifs_buf_append_str(&cons, j ? ", \"" : "\"");
      ifs_buf_append_str(&cons, included[j]);
      ifs_buf_append_char(&cons, '"');
    }
    ifs_buf_append_str(&cons, "], \"must_exclude\": [");
    for (size_t j = 0; j < 5; j++) {
      ifs_buf_append_str(&cons, j ? ", \"" : "\"");
      ifs_buf_append_str(&cons, excluded[j]);
      ifs_buf_append_char(&cons, '"');
    }
    ifs_buf_append_str(&cons, "]}");
    size_t k = (size_t)fillers + 10;
    for (int pass = 0; pass < 3; pass++) {
      ck_assert_int_eq(ifs_evaluate_scores(ev, resp, strlen(resp), cons.p, cons.len, &r), IFS_OK);
      ck_assert_int_eq(ifs_result_checks(ev, &r), IFS_OK);
      ck_assert_uint_eq(r.total, k);
      for (size_t j = (size_t)fillers; j < k; j++) {
        int include = j < (size_t)fillers + 5;
        size_t at = j - (size_t)fillers;
        const char *nd = include ? included[at] : excluded[at - 5];
        ifs_buf low_nd;
        ifs_buf_init(&low_nd);
        ifs_lower(nd, strlen(nd), &low_nd);
        int in = ifs_find(low_resp.p, low_resp.len, low_nd.p, low_nd.len) != NULL;
        ck_assert_msg(r.checks[j].ok == (include ? in : !in), "%d more, pass %d, needle %s: %d",
                      fillers, pass, nd, r.checks[j].ok);
        ifs_buf_free(&low_nd);
      }
      /* found through a U+0130 only, and one not found at all */
      ck_assert_int_eq(r.checks[fillers].ok, 1);       /* "abi" */
      ck_assert_int_eq(r.checks[fillers + 4].ok, 1);   /* alpha i */
      ck_assert_int_eq(r.checks[fillers + 6].ok, 0);   /* "ebi" excluded, found */
      ck_assert_int_eq(r.checks[fillers + 2].ok, 0);   /* "b i" */
    }
    ifs_buf_free(&cons);
  }
  ifs_result_free(&r);
  ifs_buf_free(&low_resp);
  ifs_evaluator_free(ev);
}
END_TEST

/* Texts seen once each (an id makes each distinct) whose lists come from a
** few: a list of eight needles or more is searched by the set the evaluator
** keeps for it, a shorter one needle by needle, beside it.  Every answer
** against `needle.lower() in resp.lower()` made literally, in answers with
** U+0130 and U+03A3; includes pass when found, excludes when not. */
START_TEST(test_lists_of_texts_seen_once) {
  static const char *const text_pieces[] = {
    "\xc4\xb0", "\xce\xa3", "i", "I", "a", "A", " ", "x", "K", "\xe2\x84\xaa", "ai", "Xa"};
  static const char *const needle_pieces[] = {"i", "a", "ai", " ", "x", "k", "\xce\xb1", "\xcf\x83"};
  enum { LISTS = 5, MAXK = 12 };
  unsigned seed = 7;
  char nd[LISTS][MAXK][16];
  size_t ndn[LISTS][MAXK], lk[LISTS] = {12, 8, 3, 9, 0};
  for (int l = 0; l < LISTS; l++)
    for (size_t j = 0; j < lk[l]; j++)
      ndn[l][j] = soup_fill(nd[l][j], sizeof nd[l][j], needle_pieces,
                            sizeof needle_pieces / sizeof *needle_pieces, 3, &seed);
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  int bad = -1;
  for (int iter = 0; iter < 3000 && bad < 0; iter++) {
    char resp[200];
    size_t rn = soup_fill(resp, sizeof resp, text_pieces, sizeof text_pieces / sizeof *text_pieces,
                          30, &seed);
    int li[2] = {iter % LISTS, (iter / LISTS) % LISTS};   /* include, exclude */
    ifs_buf cons, low_resp;
    ifs_buf_init(&cons);
    ifs_buf_init(&low_resp);
    ifs_lower(resp, rn, &low_resp);
    ifs_buf_append_str(&cons, "{\"case_id\": ");
    ifs_buf_append_u64(&cons, (uint64_t)iter);
    for (int side = 0; side < 2; side++) {
      ifs_buf_append_str(&cons, side ? "], \"must_exclude\": [" : ", \"must_include\": [");
      for (size_t j = 0; j < lk[li[side]]; j++) {
        if (j) ifs_buf_append_str(&cons, ", ");
        ifs_buf_append_char(&cons, '"');
        ifs_buf_append(&cons, nd[li[side]][j], ndn[li[side]][j]);
        ifs_buf_append_char(&cons, '"');
      }
    }
    ifs_buf_append_str(&cons, "]}");
    size_t total = lk[li[0]] + lk[li[1]];
    if (ifs_evaluate_scores(ev, resp, rn, cons.p, cons.len, &r) || r.total != total ||
        ifs_result_checks(ev, &r))
      bad = iter;
    for (size_t i = 0; i < total && bad < 0; i++) {
      int side = i >= lk[li[0]];
      size_t j = side ? i - lk[li[0]] : i;
      ifs_buf low_nd;
      ifs_buf_init(&low_nd);
      ifs_lower(nd[li[side]][j], ndn[li[side]][j], &low_nd);
      int in = ifs_find(low_resp.p ? low_resp.p : "", low_resp.len, low_nd.p ? low_nd.p : "",
                        low_nd.len) != NULL;
      if (r.checks[i].ok != (side ? !in : in)) bad = iter;
      ifs_buf_free(&low_nd);
    }
    ifs_buf_free(&cons);
    ifs_buf_free(&low_resp);
  }
  ck_assert_msg(bad < 0, "case %d", bad);
  const char *cons = "{\"id\": 1, \"must_include\": [\"a\", \"b\", \"c\", \"d\", \"e\", "
                     "\"f\", \"g\", \"h\"], \"must_exclude\": [\"x\", \"y\"]}";
  ck_assert_int_eq(ifs_evaluate(ev, "A bag, hex", 10, cons, strlen(cons), &r), IFS_OK);
  ck_assert_buf_eq(&r.reason, "6/10 satisfied; failed: must_include 'c'; must_include 'd'; "
                              "must_include 'f'; must_exclude 'x'");
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

/* Lists of needles copied from the list cache (texts that share a long
** list's JSON): every text's score and reason are those of an evaluator
** that reads the text afresh, whatever the key, the place or the other
** list; only the needle keys' lists are copied. */
START_TEST(test_lists_copied_by_their_json) {
  ifs_buf list;
  ifs_buf_init(&list);
  ifs_buf_append_str(&list, "[\"Sorry\", \"I CAN'T\", 1.0, null, true, {\"k\": \"v'\"}, "
                            "\"\\u0130X\", \"\xce\xa3\xce\x91\xce\xa3\", \"\", \"STRASSE\"");
  for (int i = 0; i < 30; i++) {
    ifs_buf_append_str(&list, ", \"Phrase ");
    ifs_buf_append_u64(&list, (uint64_t)i);
    ifs_buf_append_char(&list, '"');
  }
  ifs_buf_append_char(&list, ']');
  const char *texts[] = {
    "{\"id\": 1, \"must_exclude\": @, \"must_include\": \"hello\"}",
    "{\"must_exclude\": @, \"id\": 2}",
    "{\"must_include\": @, \"must_exclude\": @, \"max_words\": 3}",
    "{\"regex\": @, \"id\": 4}",
    "{\"must_exclude\": @, \"must_exclude\": null, \"max_chars\": 9}",
    "{\"must_include\": [\"x\"], \"must_exclude\": @}",
  };
  const char *resps[] = {"Sorry, I can't: phrase 7 and PHRASE 12. \xc4\xb0x \xcf\x83\xce\xb1\xcf\x82",
                         "hello \xce\xa3\xce\xb1\xcf\x82 strasse None true"};
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r, fresh;
  ifs_result_init(&r);
  ifs_result_init(&fresh);
  for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
    ifs_buf cons;
    ifs_buf_init(&cons);
    for (const char *p = texts[t]; *p; p++) {
      if (*p == '@') ifs_buf_append(&cons, list.p, list.len);
      else ifs_buf_append_char(&cons, *p);
    }
    for (size_t i = 0; i < 2; i++) {
      ifs_evaluator *once = ifs_evaluator_new();
      ck_assert_int_eq(ifs_evaluate(once, resps[i], strlen(resps[i]), cons.p, cons.len, &fresh),
                       IFS_OK);
      ifs_evaluator_free(once);
      ck_assert_int_eq(ifs_evaluate(ev, resps[i], strlen(resps[i]), cons.p, cons.len, &r), IFS_OK);
      ck_assert_msg(r.score == fresh.score && r.reason.len == fresh.reason.len &&
                        memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0,
                    "text %zu, response %zu: %.*s", t, i, (int)r.reason.len, r.reason.p);
    }
    ifs_buf_free(&cons);
  }
  /* a text's plan is compiled when it is first seen and again when it is
  ** kept, the second time: the first text read the list, then copied it;
  ** the others copied it each time, the third text twice, the fourth and
  ** fifth never (a regex; a list replaced by null) */
  ck_assert_uint_eq(ifs_test_evaluator_lists_copied(ev), 1 + 2 * (1 + 2 + 0 + 0 + 1));
  /* out of memory anywhere while a list is read, kept or copied: an error
  ** or the right answer */
  ifs_buf a, b;
  ifs_buf_init(&a);
  ifs_buf_init(&b);
  ifs_buf_append_str(&a, "{\"must_exclude\": ");
  ifs_buf_append(&a, list.p, list.len);
  ifs_buf_append_str(&a, "}");
  ifs_buf_append_str(&b, "{\"id\": 2, \"must_exclude\": ");
  ifs_buf_append(&b, list.p, list.len);
  ifs_buf_append_str(&b, "}");
  ck_assert_int_eq(ifs_evaluate(ev, resps[0], strlen(resps[0]), b.p, b.len, &fresh), IFS_OK);
  int completed = 0;
  for (long n = 1; n < 400 && !completed; n++) {
    ifs_test_fail_nth(n);
    ifs_evaluator *e = ifs_evaluator_new();
    if (e) {
      int rc = ifs_evaluate(e, resps[0], strlen(resps[0]), a.p, a.len, &r);
      if (rc == IFS_OK) rc = ifs_evaluate(e, resps[0], strlen(resps[0]), b.p, b.len, &r);
      ck_assert(rc == IFS_OK || rc == IFS_NOMEM);
      if (rc == IFS_OK) ck_assert(r.reason.len == fresh.reason.len &&
                                  memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0);
      if (rc == IFS_OK && ifs_test_alloc_count < n) completed = 1;
      ifs_evaluator_free(e);
    }
    ifs_test_fail_nth(0);
  }
  ck_assert(completed);
  ifs_buf_free(&a);
  ifs_buf_free(&b);
  ifs_result_free(&r);
  ifs_result_free(&fresh);
  ifs_evaluator_free(ev);
  ifs_buf_free(&list);
}
END_TEST

/* A refusal list of 40 phrases (kept by the list cache when first read),
** with needles that are not plain: non-strings, U+0130, final sigma, an
** empty one, a capital sharp s's expansion; lists of other tags have the
** same length and differ in their bytes. */
static void refusal_list(ifs_buf *b, char tag) {
  ifs_buf_clear(b);
  ifs_buf_append_str(b, "[\"Sorry\", \"I CAN'T\", 1.0, null, true, {\"k\": \"v'\"}, "
                        "\"\\u0130X\", \"\xce\xa3\xce\x91\xce\xa3\", \"\", \"STRASSE\"");
  for (int i = 0; i < 30; i++) {
    ifs_buf_append_str(b, ", \"Phrase ");
    ifs_buf_append_char(b, tag);
    ifs_buf_append_u64(b, (uint64_t)(10 + i));
    ifs_buf_append_char(b, '"');
  }
  ifs_buf_append_char(b, ']');
}

/* A constraints text from a pattern: @ is list l, $ list l2, # number c. */
static void text_of2(ifs_buf *t, const char *pattern, const ifs_buf *l, const ifs_buf *l2,
                     int c) {
  ifs_buf_clear(t);
  for (const char *p = pattern; *p; p++) {
    if (*p == '@') ifs_buf_append(t, l->p, l->len);
    else if (*p == '$') ifs_buf_append(t, l2->p, l2->len);
    else if (*p == '#') ifs_buf_append_u64(t, (uint64_t)c);
    else ifs_buf_append_char(t, *p);
  }
}

/* A constraints text from a pattern: @ is list l, # is number c. */
static void text_of(ifs_buf *t, const char *pattern, const ifs_buf *l, int c) {
  text_of2(t, pattern, l, NULL, c);
}

/* Case c's ten words to include, as JSON. */
static void own_words(ifs_buf *own, int c) {
  ifs_buf_clear(own);
  for (int w = 0; w < 10; w++) {
    ifs_buf_append_str(own, w ? ", \"Case" : "[\"Case");
    ifs_buf_append_u64(own, (uint64_t)c);
    ifs_buf_append_str(own, " word ");
    ifs_buf_append_u64(own, (uint64_t)w);
    ifs_buf_append_char(own, '"');
  }
  ifs_buf_append_char(own, ']');
}

/* Case c's constraints: its own words with list l, in one of five shapes
** (the list under either key or both, first or last; an own list of one
** word, searched for on its own); the numbers are of the same width, so
** that texts of one shape differ in bytes, not length. */
static void case_text(ifs_buf *t, const ifs_buf *l, int c) {
  static const char *shapes[] = {
    "{\"must_include\": [\"word#\", \"Alpha\", \"beta\", \"GAMMA\", \"delta #\"], "
    "\"must_exclude\": @, \"case\": #}",
    "{\"case\": #, \"must_exclude\": @, \"must_include\": [\"WORD#\", \"alpha\", \"\", 7, \"e\"]}",
    "{\"must_include\": @, \"must_exclude\": [\"word#\", \"x\", \"y\", \"zeta\"], \"max_words\": #}",
    "{\"must_include\": [\"Word#\"], \"must_exclude\": @}",
    "{\"must_include\": @, \"must_exclude\": @, \"id\": #}",
  };
  text_of(t, shapes[c % 5], l, 10 + c);
}

static const char *const share_resps[] = {
  "Sorry, I can't: phrase a12 and PHRASE a37. \xc4\xb0x \xcf\x83\xce\xb1\xcf\x82 word12 alpha GAMMA",
  "hello Beta delta 13, strasse None true word11 WORD25 Phrase b12",
};

/* Evaluates text t on response resp with ev and with a new evaluator:
** the same score and reason. */
static void one_row_as_fresh(ifs_evaluator *ev, const ifs_buf *t, const char *resp) {
  ifs_result r, fresh;
  ifs_result_init(&r);
  ifs_result_init(&fresh);
  ifs_evaluator *once = ifs_evaluator_new();
  ck_assert_int_eq(ifs_evaluate(once, resp, strlen(resp), t->p, t->len, &fresh), IFS_OK);
  ifs_evaluator_free(once);
  ck_assert_int_eq(ifs_evaluate(ev, resp, strlen(resp), t->p, t->len, &r), IFS_OK);
  ck_assert_msg(r.score == fresh.score && r.reason.len == fresh.reason.len &&
                    memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0,
                "%.*s: %.*s, not %.*s", (int)t->len, t->p, (int)r.reason.len, r.reason.p,
                (int)fresh.reason.len, fresh.reason.p);
  ifs_result_free(&r);
  ifs_result_free(&fresh);
}

/* Evaluates text t on each response with ev and with a new evaluator:
** the same score and reason. */
static void same_as_fresh(ifs_evaluator *ev, const ifs_buf *t) {
  for (size_t i = 0; i < sizeof share_resps / sizeof *share_resps; i++)
    one_row_as_fresh(ev, t, share_resps[i]);
}

/* Texts with list l, each seen once: the list is found in more texts than
** a kept plan needs to share it. */
static void find_often(ifs_evaluator *ev, const ifs_buf *l) {
  ifs_buf t;
  ifs_buf_init(&t);
  for (int i = 0; i < 20; i++) {
    text_of(&t, "{\"must_exclude\": @, \"warm\": #}", l, i);
    same_as_fresh(ev, &t);   /* (two rows: kept at the second) */
  }
  ifs_buf_free(&t);
}

/* A banned-phrase list of n phrases after the refusal list's. */
static void long_list(ifs_buf *b, int n) {
  refusal_list(b, 'a');
  b->len--;   /* its ']' */
  for (int i = 0; i < n; i++) {
    ifs_buf_append_str(b, ", \"banned phrase number ");
    ifs_buf_append_u64(b, (uint64_t)i);
    ifs_buf_append_str(b, " of the list\"");
  }
  ifs_buf_append_char(b, ']');
}

/* A table whose 200 cases each have their own ten words to include, with
** one refusal list, every row's text its own (an id), read three times:
** each case's words are copied from the list cache on the third reading
** (remembered at the first, kept at the second), the refusal list from the
** second row on.  Every answer is a fresh evaluator's. */
START_TEST(test_own_lists_of_texts_seen_once) {
  enum { CASES = 200 };
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, own, t, resp;
  ifs_buf_init(&l);
  ifs_buf_init(&own);
  ifs_buf_init(&t);
  ifs_buf_init(&resp);
  refusal_list(&l, 'a');
  ifs_result r, fresh;
  ifs_result_init(&r);
  ifs_result_init(&fresh);
  for (int round = 0; round < 3; round++)
    for (int c = 0; c < CASES; c++) {
      own_words(&own, c);
      ifs_buf_clear(&resp);
      for (int w = 0; w < 10; w++)
        if ((w + c) % 3 == 0) {   /* in the answer, in capitals */
          ifs_buf_append_str(&resp, "CASE");
          ifs_buf_append_u64(&resp, (uint64_t)c);
          ifs_buf_append_str(&resp, " WORD ");
          ifs_buf_append_u64(&resp, (uint64_t)w);
          ifs_buf_append_str(&resp, ", phrase a1");
          ifs_buf_append_u64(&resp, (uint64_t)(c % 40));
          ifs_buf_append_str(&resp, ". ");
        }
      text_of2(&t, "{\"must_include\": @, \"must_exclude\": $, \"id\": #}", &own, &l,
               round * CASES + c);
      ifs_evaluator *once = ifs_evaluator_new();
      ck_assert_int_eq(ifs_evaluate(once, resp.p, resp.len, t.p, t.len, &fresh), IFS_OK);
      ifs_evaluator_free(once);
      ck_assert_int_eq(ifs_evaluate(ev, resp.p, resp.len, t.p, t.len, &r), IFS_OK);
      ck_assert_msg(r.score == fresh.score && r.reason.len == fresh.reason.len &&
                        memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0,
                    "round %d, case %d: %.*s", round, c, (int)r.reason.len, r.reason.p);
    }
  ck_assert_uint_eq(ifs_test_evaluator_lists_copied(ev), CASES + (3 * CASES - 1));
  /* the refusal list's checks, first in the text and after ten words, are
  ** where the row before left them from the third row on */
  ck_assert_uint_eq(ifs_test_evaluator_lists_in_place(ev), 3 * CASES - 2);
  ck_assert_uint_eq(ifs_test_evaluator_compiles(ev), 3 * CASES);
  ifs_result_free(&r);
  ifs_result_free(&fresh);
  ifs_buf_free(&l);
  ifs_buf_free(&own);
  ifs_buf_free(&t);
  ifs_buf_free(&resp);
  ifs_evaluator_free(ev);
}
END_TEST

/* Flat texts seen once, each case's words and a refusal list with an id in
** three orders of keys: from the fifth reading on (the words kept at the
** second, the lists found together at the third and fourth) a case's text
** is not compiled: the plan kept for its lists is its plan, whichever the
** order.  The first two readings' 74 texts are not flat (their words not
** kept yet): after 16 of them in a row, one in 16 is read flat, so that
** the third reading reads its first six as it reads a text of any other
** shape, and reads flat from its seventh (the 80th miss in a row) on; those
** six cases' texts are compiled on the fifth reading too.  Texts of the
** same lists that are not flat (a limit, a regex, an escape, a value past
** ASCII or nested, a float, a key twice) are compiled, each time.  Every
** answer is a fresh evaluator's. */
START_TEST(test_flat_texts_by_their_lists) {
  enum { CASES = 37 };
  static const char *const orders[] = {
    "{\"must_include\": @, \"must_exclude\": $, \"id\": \"run-#\"}",
    "{\"id\": #, \"must_exclude\": $, \"must_include\": @}",
    "{\"must_exclude\": $, \"must_include\": @, \"seen\": true, \"id\": #}",
  };
  static const char *const not_flat[] = {
    "{\"must_include\": @, \"must_exclude\": $, \"max_words\": 400, \"id\": #}",
    "{\"must_include\": @, \"must_exclude\": $, \"regex\": \"word\", \"id\": #}",
    "{\"must_include\": @, \"must_exclude\": $, \"i\\u0064\": #}",
    "{\"must_include\": @, \"must_exclude\": $, \"id\": \"\xc3\xa9#\"}",
    "{\"must_include\": @, \"must_exclude\": $, \"id\": {\"n\": #}}",
    "{\"must_include\": @, \"must_exclude\": $, \"id\": #.5}",
    "{\"must_include\": @, \"must_exclude\": $, \"must_include\": @, \"id\": #}",
    "{\"must_include\": @, \"must_exclude\": $, \"id\": #,}",
  };
  static const char *const resps[] = {
    "Case3 word 1 and case3 WORD 2; Phrase a12. \xc4\xb0x \xcf\x83\xce\xb1\xcf\x82",
    "Sorry: case 7 word 4, Case7 word 9, strasse",
  };
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, own, t;
  ifs_buf_init(&l);
  ifs_buf_init(&own);
  ifs_buf_init(&t);
  refusal_list(&l, 'a');
  int id = 0;
  for (int round = 0; round < 7; round++) {
    size_t before = ifs_test_evaluator_compiles(ev);
    for (int c = 0; c < CASES; c++) {
      own_words(&own, c);
      text_of2(&t, orders[(round + c) % 3], &own, &l, 1000 + id++);
      one_row_as_fresh(ev, &t, resps[c % 2]);
    }
    size_t compiled = ifs_test_evaluator_compiles(ev) - before;
    ck_assert_uint_eq(compiled, round < 4 ? CASES : round == 4 ? 6 : 0);
  }
  for (size_t k = 0; k < sizeof not_flat / sizeof *not_flat; k++) {
    size_t before = ifs_test_evaluator_compiles(ev);
    own_words(&own, (int)k);
    text_of2(&t, not_flat[k], &own, &l, 2000 + id++);
    one_row_as_fresh(ev, &t, resps[k % 2]);
    ck_assert_msg(ifs_test_evaluator_compiles(ev) == before + 1, "%s", not_flat[k]);
  }
  ifs_buf_free(&l);
  ifs_buf_free(&own);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* Plans kept by their lists within a bound of about ten of them: past it,
** plans picked at random go until an eighth of it is free, so that a
** table of more cases than fit keeps most of them (all dropped at once,
** it would keep a few after each drop).  The bytes counted are the plans'
** sum throughout, and every answer is a fresh evaluator's. */
START_TEST(test_plans_by_lists_within_their_bound) {
  enum { CASES = 60 };
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, own, t;
  ifs_buf_init(&l);
  ifs_buf_init(&own);
  ifs_buf_init(&t);
  refusal_list(&l, 'b');
  const char *resp = "Case4 word 2, case 9 word 1; Phrase b13.";
  int id = 0, rows_kept = 0;
  size_t one = 0, bytes;
  for (int round = 0; round < 5; round++)   /* plans kept from the fourth on */
    for (int c = 0; c < CASES; c++) {
      own_words(&own, c);
      text_of2(&t, "{\"must_include\": @, \"must_exclude\": $, \"id\": #}", &own, &l, id++);
      one_row_as_fresh(ev, &t, resp);
      size_t n = ifs_test_evaluator_lists_plans(ev, &bytes);
      ck_assert_uint_ne(n, (size_t)-1);
      if (!one && n == 1) {   /* the first plan: the bound, ten and a half of its size */
        one = bytes;
        ifs_test_evaluator_lists_bound(ev, 10 * one + one / 2);
      }
      if (!one) continue;
      ck_assert_uint_le(bytes, 10 * one + one / 2);
      if (++rows_kept > 10) ck_assert_uint_ge(n, 8);   /* never fewer than seven eighths */
    }
  ck_assert_uint_gt(rows_kept, 100);
  ifs_buf_free(&l);
  ifs_buf_free(&own);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* A list whose text was not valid UTF-8 is kept as its internal form read
** it (byte FF as U+DCFF, ED B3 BF); a text holding those three bytes as
** they are is not valid UTF-8 either, and reads them as three characters:
** it is not flat, though the bytes of its list are the kept list's. */
START_TEST(test_flat_texts_of_valid_utf8_only) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, t;
  ifs_buf_init(&l);
  ifs_buf_init(&t);
  const char *resp = "a byte \xff, and phrase 3";
  for (int pass = 0; pass < 2; pass++) {
    ifs_buf_clear(&l);
    ifs_buf_append_str(&l, pass ? "[\"\xed\xb3\xbf\"" : "[\"\xff\"");
    for (int i = 0; i < 9; i++) {
      ifs_buf_append_str(&l, ", \"phrase ");
      ifs_buf_append_u64(&l, (uint64_t)i);
      ifs_buf_append_char(&l, '"');
    }
    ifs_buf_append_char(&l, ']');
    for (int i = 0; i < 4; i++) {   /* the list kept at its second text */
      text_of(&t, "{\"must_exclude\": @, \"id\": #}", &l, 10 * pass + i);
      one_row_as_fresh(ev, &t, resp);
    }
  }
  ifs_buf_free(&l);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* A list copied from the list cache to where the last compile copied it
** (the same list, checks and text) is not copied again; moved by a check
** before it, or under the other key, it is.  Each text is seen once; every
** answer is a fresh evaluator's. */
START_TEST(test_lists_copied_in_place) {
  static const char *const texts[] = {
    "{\"must_exclude\": @, \"id\": #}",                        /* read, kept */
    "{\"must_exclude\": @, \"id\": #}",                        /* copied */
    "{\"must_exclude\": @, \"id\": #}",                        /* in place */
    "{\"max_words\": 9, \"must_exclude\": @, \"id\": #}",      /* a check before it */
    "{\"id\": #, \"max_chars\": 9, \"must_exclude\": @}",      /* in place */
    "{\"must_include\": @, \"id\": #}",                        /* the other key */
    "{\"must_include\": @, \"must_exclude\": @, \"id\": #}",   /* its text after */
    "{\"id\": #, \"must_include\": @, \"must_exclude\": @}",   /* both in place */
  };
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, t;
  ifs_buf_init(&l);
  ifs_buf_init(&t);
  refusal_list(&l, 'a');
  ifs_result r, fresh;
  ifs_result_init(&r);
  ifs_result_init(&fresh);
  const char *resp = share_resps[0];
  for (int i = 0; i < (int)(sizeof texts / sizeof *texts); i++) {
    text_of(&t, texts[i], &l, i);
    ifs_evaluator *once = ifs_evaluator_new();
    ck_assert_int_eq(ifs_evaluate(once, resp, strlen(resp), t.p, t.len, &fresh), IFS_OK);
    ifs_evaluator_free(once);
    ck_assert_int_eq(ifs_evaluate(ev, resp, strlen(resp), t.p, t.len, &r), IFS_OK);
    ck_assert_msg(r.score == fresh.score && r.reason.len == fresh.reason.len &&
                      memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0,
                  "text %d: %.*s", i, (int)r.reason.len, r.reason.p);
  }
  ck_assert_uint_eq(ifs_test_evaluator_compiles(ev), 8);
  ck_assert_uint_eq(ifs_test_evaluator_lists_copied(ev), 9);
  ck_assert_uint_eq(ifs_test_evaluator_lists_in_place(ev), 4);
  ifs_result_free(&r);
  ifs_result_free(&fresh);
  ifs_buf_free(&l);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* A list of 3,000 phrases (over 100 KB of JSON; its plan, about 600 KB, was
** once too big to keep and compiled on every row): one text holding it on
** every row is kept; in texts of their own it is copied from the list cache
** and shared by every plan kept, from the first (a set of its own for each
** would cost more than the rows gain).  Every answer is a fresh
** evaluator's. */
START_TEST(test_long_lists_kept) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_buf l, t;
  ifs_buf_init(&l);
  ifs_buf_init(&t);
  long_list(&l, 3000);
  ck_assert_uint_gt(l.len, 100000);
  text_of(&t, "{\"must_exclude\": @, \"max_words\": #}", &l, 99);
  for (int round = 0; round < 3; round++) same_as_fresh(ev, &t);
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 1);
  ck_assert_uint_eq(ifs_test_evaluator_lists_copied(ev), 1);   /* compiled twice: kept at the second */
  ifs_evaluator_free(ev);
  ev = ifs_evaluator_new();
  find_often(ev, &l);
  /* each text's first row from the fourth text on finds the plan kept for
  ** the list (kept at the third, the list's second text after its first) */
  ck_assert_uint_eq(ifs_test_evaluator_lists_copied(ev), 1 + 2 + 2 + 17);
  /* twenty texts kept; all but the first two, kept before the list had
  ** been found often enough (SHARE_FINDS: a row of a text not kept finds it
  ** too, reading it flat), share it */
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 20);
  ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(ev), 18);
  for (int round = 0; round < 2; round++)
    for (int c = 0; c < 10; c++) {
      case_text(&t, &l, c);
      same_as_fresh(ev, &t);
    }
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 30);
  ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(ev), 28);
  ifs_evaluator_free(ev);
  ifs_buf_free(&l);
  ifs_buf_free(&t);
}
END_TEST

/* Kept plans of texts holding a list found in many texts share it with the
** list cache (their key leaves its JSON out, they search with its set),
** from the first plan kept; a plan whose two lists are both that list, here
** from the first too, by default once the kept plans hold 4 MB (these hold
** less: each of those eight plans keeps one set of both).  Every answer is
** a fresh evaluator's, while the list is held and after it has been
** replaced (the plans are compiled again, and, under the sanitizers, the
** replaced list is never read). */
START_TEST(test_plans_share_long_lists) {
  ifs_evaluator *ev = ifs_evaluator_new(), *by_default = ifs_evaluator_new();
  ifs_test_evaluator_share_from(ev, 0);
  ifs_buf l, t;
  ifs_buf_init(&l);
  ifs_buf_init(&t);
  refusal_list(&l, 'a');
  find_often(ev, &l);
  find_often(by_default, &l);
  size_t before = ifs_test_evaluator_plans_sharing(ev),
         before_default = ifs_test_evaluator_plans_sharing(by_default);
  for (int round = 0; round < 3; round++)
    for (int c = 0; c < 40; c++) {
      case_text(&t, &l, c);
      same_as_fresh(ev, &t);
      same_as_fresh(by_default, &t);
    }
  ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(ev), before + 40);
  ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(by_default), before_default + 32);
  ifs_evaluator_free(by_default);
  /* a row of case 0: the reference's answer (tests/oracle.py) */
  ifs_result r;
  ifs_result_init(&r);
  case_text(&t, &l, 0);
  ck_assert_int_eq(ifs_evaluate(ev, share_resps[0], strlen(share_resps[0]), t.p, t.len, &r),
                   IFS_OK);
  ck_assert(r.score == 35.0 / 45.0);
  ck_assert_buf_eq(&r.reason, "35/45 satisfied; failed: must_include 'word10'; must_include 'beta'; "
                              "must_include 'delta 10'; must_exclude 'Sorry'; must_exclude 'I CAN'T'; "
                              "must_exclude '\xc4\xb0X'; must_exclude '\xce\xa3\xce\x91\xce\xa3'; "
                              "must_exclude ''; must_exclude 'Phrase a12'; must_exclude 'Phrase a37'");
  ifs_result_free(&r);
  /* eight other long lists: the list's entry goes to one of them */
  ifs_buf other;
  ifs_buf_init(&other);
  for (char tag = 'b'; tag < 'b' + 8; tag++) {
    refusal_list(&other, tag);
    text_of(&t, "{\"must_exclude\": @}", &other, 0);
    same_as_fresh(ev, &t);
  }
  for (int round = 0; round < 2; round++)
    for (int c = 0; c < 40; c++) {
      case_text(&t, &l, c);
      same_as_fresh(ev, &t);
    }
  ifs_buf_free(&other);
  ifs_buf_free(&l);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* With every text's plan under one hash, kept plans sharing lists are told
** apart by their bytes alone: texts differing only inside a shared list
** (two lists of one length), only outside it, or only where it is. */
START_TEST(test_shared_plans_told_apart_by_bytes) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_test_evaluator_same_hash(ev);
  ifs_test_evaluator_share_from(ev, 0);
  ifs_buf a, b, t;
  ifs_buf_init(&a);
  ifs_buf_init(&b);
  ifs_buf_init(&t);
  refusal_list(&a, 'a');
  refusal_list(&b, 'b');
  ck_assert_uint_eq(a.len, b.len);
  find_often(ev, &a);
  find_often(ev, &b);
  size_t before = ifs_test_evaluator_plans_sharing(ev);
  for (int round = 0; round < 2; round++)
    for (int c = 0; c < 20; c++) {
      case_text(&t, &a, c);
      same_as_fresh(ev, &t);
      case_text(&t, &b, c);
      same_as_fresh(ev, &t);
    }
  ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(ev), before + 40);
  ifs_buf_free(&a);
  ifs_buf_free(&b);
  ifs_buf_free(&t);
  ifs_evaluator_free(ev);
}
END_TEST

/* Out of memory anywhere while a plan sharing a list is made or used: an
** error or the right answer. */
START_TEST(test_shared_plans_out_of_memory) {
  ifs_buf l, t;
  ifs_buf_init(&l);
  ifs_buf_init(&t);
  refusal_list(&l, 'a');
  case_text(&t, &l, 0);
  const char *resp = share_resps[0];
  ifs_result r, fresh;
  ifs_result_init(&r);
  ifs_result_init(&fresh);
  ifs_evaluator *once = ifs_evaluator_new();
  ck_assert_int_eq(ifs_evaluate(once, resp, strlen(resp), t.p, t.len, &fresh), IFS_OK);
  ifs_evaluator_free(once);
  int completed = 0;
  for (long n = 1; n < 2000 && !completed; n++) {
    ifs_evaluator *e = ifs_evaluator_new();
    ck_assert_ptr_nonnull(e);
    ifs_test_evaluator_share_from(e, 0);
    find_often(e, &l);
    size_t warm = ifs_test_evaluator_plans_sharing(e);
    ifs_test_fail_nth(n);
    int rc = IFS_OK;
    for (int i = 0; i < 3 && rc == IFS_OK; i++) {
      rc = ifs_evaluate(e, resp, strlen(resp), t.p, t.len, &r);
      ck_assert(rc == IFS_OK || rc == IFS_NOMEM);
      if (rc == IFS_OK) ck_assert(r.reason.len == fresh.reason.len &&
                                  memcmp(r.reason.p, fresh.reason.p, r.reason.len) == 0);
    }
    if (rc == IFS_OK && ifs_test_alloc_count < n) {
      completed = 1;
      ck_assert_uint_eq(ifs_test_evaluator_plans_sharing(e), warm + 1);
    }
    ifs_test_fail_nth(0);
    ifs_evaluator_free(e);
  }
  ck_assert(completed);
  ifs_result_free(&r);
  ifs_result_free(&fresh);
  ifs_buf_free(&l);
  ifs_buf_free(&t);
}
END_TEST

/* The plan a row reuses from the row before, across the cache's drops
** when it is full (4096 plans): every answer stays exact (and, under the
** sanitizers, no dropped plan is read). */
START_TEST(test_plans_reused_across_drops) {
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  const char *a = "{\"must_include\": [\"zz\"]}";
  char other[64];
  int bad = -1;
  for (int i = 0; i < 5000 && bad < 0; i++) {
    int n = snprintf(other, sizeof other, "{\"max_words\": %d}", i % 4500);
    for (int pass = 0; pass < 2; pass++) {   /* a text is kept when it comes back */
      if (ifs_evaluate_scores(ev, "a zz", 4, a, strlen(a), &r) || r.score != 1.0) bad = i;
      if (ifs_evaluate_scores(ev, "one two", 7, other, (size_t)n, &r) ||
          r.score != (i % 4500 >= 2 ? 1.0 : 0.0))
        bad = i;
    }
  }
  ck_assert_msg(bad < 0, "row %d", bad);
  ck_assert_int_eq(ifs_evaluate(ev, "no", 2, a, strlen(a), &r), IFS_OK);
  ck_assert_buf_eq(&r.reason, "0/1 satisfied; failed: must_include 'zz'");
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

/* The text whose plan is asked for ahead of the next row (NULL: none). */
static const char *ahead(const ifs_evaluator *ev) {
  size_t n = 0;
  const char *k = ifs_test_evaluator_ahead(ev, &n);
  static char copy[128];
  if (!k) return NULL;
  ck_assert_uint_lt(n, sizeof copy);
  memcpy(copy, k, n);
  copy[n] = 0;
  return copy;
}

static double score_of(ifs_evaluator *ev, const char *resp, const char *cons) {
  ifs_result r;
  ifs_result_init(&r);
  ck_assert_int_eq(ifs_evaluate_scores(ev, resp, strlen(resp), cons, strlen(cons), &r), IFS_OK);
  double score = r.score;
  ifs_result_free(&r);
  return score;
}

/* Rows read again in the same order: once a plan has been followed by the
** same plan twice, that one is asked for ahead; rows in no steady order,
** or a text seen once between, ask for none.  Answers stay exact. */
START_TEST(test_next_plan_asked_ahead) {
  const char *a = "{\"must_include\": [\"aa\"]}", *b = "{\"must_include\": [\"bb\"]}",
             *c = "{\"max_words\": 1}", *once = "{\"max_chars\": 1}";
  ifs_evaluator *ev = ifs_evaluator_new();
  /* a text is kept the second time, followed the third, steady from the fourth */
  for (int round = 0; round < 5; round++) {
    ck_assert(score_of(ev, "aa x", a) == 1.0);
    ck_assert_pstr_eq(ahead(ev), round >= 3 ? b : NULL);
    ck_assert(score_of(ev, "aa x", b) == 0.0);
    ck_assert_pstr_eq(ahead(ev), round >= 3 ? c : NULL);
    ck_assert(score_of(ev, "aa x", c) == 0.0);
    ck_assert_pstr_eq(ahead(ev), round >= 3 ? a : NULL);
  }
  ck_assert(score_of(ev, "aa x", once) == 0.0);   /* not kept: no plan to follow */
  ck_assert_ptr_null(ahead(ev));
  ck_assert(score_of(ev, "bb", b) == 1.0);
  ck_assert_pstr_eq(ahead(ev), c);   /* b's own next is still known */
  for (int i = 0; i < 3; i++) {      /* a followed by b, then by c: no steady next */
    ck_assert(score_of(ev, "aa", a) == 1.0);
    ck_assert(score_of(ev, "aa", i % 2 ? b : c) == (i % 2 ? 0.0 : 1.0));
  }
  ck_assert(score_of(ev, "aa", a) == 1.0);
  ck_assert_ptr_null(ahead(ev));
  ifs_evaluator_free(ev);
}
END_TEST

/* Steady rows over 3,000 texts, then 2,000 others twice, which fill the
** cache (4,096 plans) so that an eighth of it is dropped, more than once,
** while plans point at the next ones, then the first rows again: every
** answer stays exact (and, under the sanitizers, no dropped plan is read);
** the next plan is asked for in the steady rounds, once the first texts
** are all kept again (eight rounds here). */
static int steady_rounds(ifs_evaluator *ev, int texts, int from, int rounds, int *asked) {
  char cons[64];
  for (int round = 0; round < rounds; round++)
    for (int i = from; i < from + texts; i++) {
      snprintf(cons, sizeof cons, "{\"max_words\": %d}", i);
      if (score_of(ev, "one two", cons) != (i >= 2 ? 1.0 : 0.0)) return i;
      if (round == rounds - 1) *asked += ahead(ev) != NULL;
    }
  return -1;
}

START_TEST(test_next_plan_across_drops) {
  ifs_evaluator *ev = ifs_evaluator_new();
  int asked = 0, others = 0, again = 0;
  /* (a text the record of first sightings lost is kept a round later) */
  ck_assert_int_eq(steady_rounds(ev, 3000, 0, 5, &asked), -1);
  ck_assert_int_eq(asked, 3000);
  ck_assert_int_eq(steady_rounds(ev, 2000, 10000, 2, &others), -1);
  ck_assert_int_eq(steady_rounds(ev, 3000, 0, 8, &again), -1);
  ck_assert_int_eq(again, 3000);
  ifs_evaluator_free(ev);
}
END_TEST

/* 5,000 texts in rotation, more than the cache's 4,096 plans: each round
** after the first two compiles under half of them (emptying the cache when
** full, or dropping the least recently used, compiled all 5,000 every
** round), and every answer is exact. */
START_TEST(test_rotation_past_the_cache) {
  ifs_evaluator *ev = ifs_evaluator_new();
  int asked = 0;
  ck_assert_int_eq(steady_rounds(ev, 5000, 0, 2, &asked), -1);
  size_t before = ifs_test_evaluator_compiles(ev);
  ck_assert_int_eq(steady_rounds(ev, 5000, 0, 4, &asked), -1);
  size_t per_round = (ifs_test_evaluator_compiles(ev) - before) / 4;
  ck_assert_msg(per_round > 0 && per_round <= 2500, "%zu compiled a round (2,020 when written)",
                per_round);
  ck_assert_uint_le(ifs_test_evaluator_plans_kept(ev), 4096);
  ifs_evaluator_free(ev);
}
END_TEST

/* Reads each case's flat text of round `round` (its words, a refusal
** list, an id of the round) once, as a fresh evaluator would, the cases in
** order or the other way round (reverse); returns the texts compiled. */
static size_t read_flat_rows(ifs_evaluator *ev, int cases, int round, int reverse) {
  ifs_buf l, own, t;
  ifs_buf_init(&l);
  ifs_buf_init(&own);
  ifs_buf_init(&t);
  refusal_list(&l, 'c');
  size_t before = ifs_test_evaluator_compiles(ev);
  for (int i = 0; i < cases; i++) {
    int c = reverse ? cases - 1 - i : i;
    own_words(&own, c);
    text_of2(&t, "{\"must_include\": @, \"must_exclude\": $, \"id\": #}", &own, &l,
             round * cases + c);
    one_row_as_fresh(ev, &t, c % 2 ? "Case1 word 3; Phrase c12." : "case0 WORD 9, sorry");
  }
  ifs_buf_free(&l);
  ifs_buf_free(&own);
  ifs_buf_free(&t);
  return ifs_test_evaluator_compiles(ev) - before;
}

static size_t read_flat_round(ifs_evaluator *ev, int cases, int round) {
  return read_flat_rows(ev, cases, round, 0);
}

/* Flat texts that come back soon (a small table of texts seen once, read
** again) are kept by their bytes; back late, after more rows than the plan
** cache holds plans (a big one), they take the plan kept for their lists:
** no compile, and no plan kept or dropped for them (keeping them compiled
** every text the record of sightings still held, and dropped plans); back
** soon after that, they are kept by their bytes.  Every answer is a fresh
** evaluator's. */
START_TEST(test_flat_texts_back_late) {
  enum { CASES = 30 };
  char other[32];
  for (int late = 0; late < 2; late++) {
    ifs_evaluator *ev = ifs_evaluator_new();
    /* words kept at the second round, lists together at the third and
    ** fourth (but for the first four texts of the third, which are not read
    ** flat after 60 that were not: test_flat_texts_by_their_lists) */
    static const size_t compiled[] = {CASES, CASES, CASES, CASES, 4, 0};
    for (int round = 0; round < 6; round++)
      ck_assert_uint_eq(read_flat_round(ev, CASES, round), compiled[round]);
    for (int i = 0; late && i < 4096; i++) {   /* rows of other texts, each seen once */
      snprintf(other, sizeof other, "{\"max_words\": %d}", i);
      ck_assert(score_of(ev, "one two", other) == (i >= 2 ? 1.0 : 0.0));
    }
    ck_assert_uint_eq(read_flat_round(ev, CASES, 5), late ? 0 : CASES);
    ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), late ? 0 : CASES);
    /* back soon now (30 rows later): kept by their bytes, then found */
    ck_assert_uint_eq(read_flat_round(ev, CASES, 5), late ? CASES : 0);
    ck_assert_uint_eq(read_flat_round(ev, CASES, 5), 0);
    ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), CASES);
    ifs_evaluator_free(ev);
  }
}
END_TEST

/* A table of flat texts seen once read in a steady order: once each row's
** link names the plan kept for its lists, its text is neither hashed nor
** looked up in the plan table (nor compiled); back soon, it is, and kept
** by its bytes, as any text.  Every answer is a fresh evaluator's. */
START_TEST(test_flat_texts_of_the_linked_plan) {
  enum { CASES = 30 };
  ifs_evaluator *ev = ifs_evaluator_new();
  for (int round = 0; round < 6; round++) read_flat_round(ev, CASES, round);
  size_t looks = ifs_test_evaluator_table_looks(ev);
  size_t hashes = ifs_test_evaluator_text_hashes(ev);
  size_t list_lookups = ifs_test_evaluator_list_lookups(ev);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 6), 0);   /* each text new */
  ck_assert_uint_eq(ifs_test_evaluator_table_looks(ev), looks);
  ck_assert_uint_eq(ifs_test_evaluator_text_hashes(ev), hashes);
  /* each row's lists found where the linked plan says they are */
  ck_assert_uint_eq(ifs_test_evaluator_list_lookups(ev), list_lookups);
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 0);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 6), CASES);   /* back soon */
  ck_assert_uint_eq(ifs_test_evaluator_table_looks(ev), looks + CASES);
  ck_assert_uint_eq(ifs_test_evaluator_text_hashes(ev), hashes + CASES);
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), CASES);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 6), 0);   /* found by their bytes */
  ifs_evaluator_free(ev);
}
END_TEST

/* The sighting of a flat text of the plan the link names is recorded in
** that plan: read again in another order, where no link names its plan,
** the text is found there, back soon, and kept by its bytes; then found
** by its bytes in either order.  The record holds a plan's last four
** texts: four in rotation are kept, of five the first is gone when it
** comes back.  Every answer is a fresh evaluator's. */
START_TEST(test_flat_texts_recorded_in_their_plan) {
  enum { CASES = 30 };
  ifs_evaluator *ev = ifs_evaluator_new();
  for (int round = 0; round < 6; round++) read_flat_round(ev, CASES, round);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 6), 0);   /* linked: each text new */
  ck_assert_uint_eq(read_flat_rows(ev, CASES, 6, 1), CASES);   /* back soon: kept */
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), CASES);
  ck_assert_uint_eq(read_flat_rows(ev, CASES, 6, 1), 0);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 6), 0);
  /* rounds 7 to 10, then 7 again: back soon, in the plan's record */
  for (int round = 7; round <= 10; round++) ck_assert_uint_eq(read_flat_round(ev, CASES, round), 0);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 7), CASES);
  /* rounds 11 to 15, then 11 again: pushed out of the record by the fifth */
  for (int round = 11; round <= 15; round++) ck_assert_uint_eq(read_flat_round(ev, CASES, round), 0);
  ck_assert_uint_eq(read_flat_round(ev, CASES, 11), 0);
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 2 * CASES);
  ifs_evaluator_free(ev);
}
END_TEST

/* Texts back more than 8,192 rows after their last sighting are compiled
** for their row and not kept (10,000 in rotation: no plan kept, none
** dropped), where 8,000 in rotation are still kept (the cache full, a few
** thousand of them kept each round).  Every answer is exact. */
START_TEST(test_rotation_too_long_to_keep) {
  int asked = 0;
  ifs_evaluator *ev = ifs_evaluator_new();
  ck_assert_int_eq(steady_rounds(ev, 10000, 0, 3, &asked), -1);
  ck_assert_uint_eq(ifs_test_evaluator_plans_kept(ev), 0);
  size_t before = ifs_test_evaluator_compiles(ev);
  ck_assert_int_eq(steady_rounds(ev, 10000, 0, 1, &asked), -1);
  ck_assert_uint_eq(ifs_test_evaluator_compiles(ev) - before, 10000);
  ifs_evaluator_free(ev);
  ev = ifs_evaluator_new();
  ck_assert_int_eq(steady_rounds(ev, 8000, 0, 3, &asked), -1);
  ck_assert_uint_gt(ifs_test_evaluator_plans_kept(ev), 2000);
  ifs_evaluator_free(ev);
}
END_TEST

START_TEST(test_invalid_bytes_and_nul) {
  /* response b"a\x80 b\0" : 3 words? no: 'a\udc80', 'b\x00' -> 2 words, 5 chars */
  ifs_evaluator *ev = ifs_evaluator_new();
  ifs_result r;
  ifs_result_init(&r);
  const char cons[] = "{\"max_chars\": 4, \"must_include\": \"\\udc80\", \"max_words\": 2}";
  ck_assert_int_eq(ifs_evaluate(ev, "a\x80 b\0", 5, cons, sizeof cons - 1, &r), IFS_OK);
  ck_assert_buf_eq(&r.reason, "2/3 satisfied; failed: max_chars<=4 (got 5)");
  ifs_result_free(&r);
  ifs_evaluator_free(ev);
}
END_TEST

typedef struct { const char *in, *out; } fence_case;
static const fence_case fences[] = {
  {"```json\n{\"a\": 1}\n```", "{\"a\": 1}"},
  {"  ```\n[1]```  ", "[1]"},
  {"```", ""},
  {"``````", ""},
  {"```json```", ""},
  {"x````", "x````"},
  {"```py3 \xe3\x80\x80 1 \xc2\xa0```", "1"},
  {"\xe3\x80\x80 plain \x1f", "plain"},
  {"````", "`"},
  {"```a```b", "```b"},
};

START_TEST(test_strip_fences) {
  const fence_case *t = &fences[_i];
  size_t a, b;
  ifs_strip_fences(t->in, strlen(t->in), &a, &b);
  ck_assert_uint_eq(b - a, strlen(t->out));
  ck_assert(memcmp(t->in + a, t->out, b - a) == 0);
}
END_TEST

START_TEST(test_out_of_memory_everywhere) {
  const char *cons = "{\"max_words\": 3, \"must_be_json\": 1, \"must_include\": [\"\xc4\xb0\", 2.5],"
                     " \"must_exclude\": {\"a\": [1]}, \"regex\": \"^a\\\\s\"}";
  const char *resp = "A \xce\xa3 \x80 {} text";
  int completed = 0;
  for (long n = 1; n < 400 && !completed; n++) {
    ifs_test_fail_nth(n);
    ifs_evaluator *ev = ifs_evaluator_new();
    if (ev) {
      ifs_result r;
      ifs_result_init(&r);
      int rc = ifs_evaluate(ev, resp, strlen(resp), cons, strlen(cons), &r);
      ck_assert(rc == IFS_OK || rc == IFS_NOMEM);
      if (rc == IFS_OK && ifs_test_alloc_count < n) completed = 1;
      ifs_result_free(&r);
      ifs_evaluator_free(ev);
    }
    ifs_test_fail_nth(0);
  }
  ck_assert_msg(completed, "never completed without hitting the failing allocation");
}
END_TEST

static Suite *eval_suite(void) {
  Suite *s = suite_create("ifs_eval");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_reference_cases, 0, sizeof cases / sizeof cases[0]);
  tcase_add_test(tc, test_checks_list);
  tcase_add_test(tc, test_needle_checks_written_when_read);
  tcase_add_test(tc, test_needles_in_context_lowercase);
  tcase_add_test(tc, test_many_dotted_capital_i);
  tcase_add_test(tc, test_kept_plans_know_needles_ending_in_i);
  tcase_add_test(tc, test_lists_of_texts_seen_once);
  tcase_add_test(tc, test_lists_copied_by_their_json);
  tcase_add_test(tc, test_lists_copied_in_place);
  tcase_add_test(tc, test_own_lists_of_texts_seen_once);
  tcase_add_test(tc, test_flat_texts_by_their_lists);
  tcase_add_test(tc, test_flat_texts_of_valid_utf8_only);
  tcase_add_test(tc, test_plans_by_lists_within_their_bound);
  tcase_add_test(tc, test_flat_texts_back_late);
  tcase_add_test(tc, test_flat_texts_of_the_linked_plan);
  tcase_add_test(tc, test_flat_texts_recorded_in_their_plan);
  tcase_add_test(tc, test_long_lists_kept);
  tcase_add_test(tc, test_plans_share_long_lists);
  tcase_add_test(tc, test_shared_plans_told_apart_by_bytes);
  tcase_add_test(tc, test_shared_plans_out_of_memory);
  tcase_add_test(tc, test_plans_reused_across_drops);
  tcase_add_test(tc, test_next_plan_asked_ahead);
  tcase_add_test(tc, test_next_plan_across_drops);
  tcase_add_test(tc, test_rotation_past_the_cache);
  tcase_add_test(tc, test_rotation_too_long_to_keep);
  tcase_add_test(tc, test_invalid_bytes_and_nul);
  tcase_add_loop_test(tc, test_strip_fences, 0, sizeof fences / sizeof fences[0]);
  tcase_add_test(tc, test_out_of_memory_everywhere);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(eval_suite)
