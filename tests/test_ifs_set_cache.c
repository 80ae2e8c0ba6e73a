/*
** test_ifs_set_cache.c — unit tests of ext/ifs_set_cache.c: the same list
** (the same needles' bytes, in the same order, from any text) gets the same
** set, and a set that answers for that list; lists whose needles join to
** the same bytes are told apart; a list used on every call stays while
** others come and go, and the set the call before took is never the one
** replaced; a short list is kept when it comes back (if still remembered),
** a long one at once;
** a list past the bound is not kept; out of memory leaves the cache as it
** was.
*/
#include "ifs_test.h"
#include "ifs_set_cache.h"
#include <stdio.h>

/* The needles of text, one per '|' (spans into text). */
static size_t split(const char *text, ifs_span *span) {
  size_t k = 0, at = 0, n = strlen(text);
  for (size_t i = 0; i <= n; i++) {
    if (i < n && text[i] != '|') continue;
    span[k].at = at;
    span[k].len = i - at;
    k++;
    at = i + 1;
  }
  return k;
}

typedef struct got {
  const ifs_needle_set *set;
  const char *text;
} got;

/* The list's set, asked for twice when it is short and new (the first
** time it is only remembered). */
static got get(ifs_set_cache *c, const char *list) {
  ifs_span span[64];
  size_t k = split(list, span);
  got g;
  ck_assert_int_eq(ifs_set_cache_get(c, list, span, k, 1, &g.set, &g.text), IFS_OK);
  if (!g.set && k < IFS_SET_CACHE_EAGER)
    ck_assert_int_eq(ifs_set_cache_get(c, list, span, k, 1, &g.set, &g.text), IFS_OK);
  ck_assert_ptr_nonnull(g.set);
  return g;
}

/* The set the cache gives for the list at the first asking (NULL: none). */
static const ifs_needle_set *ask(ifs_set_cache *c, const char *list) {
  ifs_span span[64];
  size_t k = split(list, span);
  got g;
  ck_assert_int_eq(ifs_set_cache_get(c, list, span, k, 1, &g.set, &g.text), IFS_OK);
  return g.set;
}

static const char *REFUSAL = "i'm sorry|as an ai|i cannot|i can't help|unethical|"
                             "i won't|not able to|apologize|against my guidelines";

START_TEST(same_list_same_set) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  got a = get(c, REFUSAL);
  char copy[256];   /* the same needles in another text */
  snprintf(copy, sizeof copy, "%s", REFUSAL);
  got b = get(c, copy);
  ck_assert_ptr_eq(a.set, b.set);
  ck_assert_ptr_eq(a.text, b.text);
  signed char found[16];
  const char *resp = "Sure. As an AI I cannot judge; I'm SORRY.";
  ifs_needle_set_find(b.set, b.text, resp, strlen(resp), 1, found);
  static const signed char want[9] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
  ck_assert_mem_eq(found, want, 9);
  ifs_set_cache_free(c);
}
END_TEST

START_TEST(lists_of_the_same_bytes_differ) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  if (_i) ifs_test_set_cache_same_hash(c);   /* the keys decide */
  got a = get(c, "ab|c|d|e|f|g|h|i");
  got b = get(c, "a|bc|d|e|f|g|h|i");
  got d = get(c, "c|ab|d|e|f|g|h|i");   /* the same needles, in another order */
  ck_assert_ptr_ne(a.set, b.set);
  ck_assert_ptr_ne(a.set, d.set);
  signed char found[8];
  ifs_needle_set_find(b.set, b.text, "xa", 2, 1, found);
  ck_assert_int_eq(found[0], 1);   /* "a" of the second list, */
  ifs_needle_set_find(a.set, a.text, "xa", 2, 1, found);
  ck_assert_int_eq(found[0], 0);   /* not "ab" of the first */
  ifs_set_cache_free(c);
}
END_TEST

/* 1 when the cache holds the list: asked for it, it gives a set and
** allocates nothing (its key and spans buffers have held as long a list
** before). */
static int is_kept(ifs_set_cache *c, const char *list) {
  ifs_span span[64];
  size_t k = split(list, span);
  const ifs_needle_set *set;
  const char *st;
  ifs_test_fail_nth(1);
  ifs_status rc = ifs_set_cache_get(c, list, span, k, 1, &set, &st);
  ifs_test_fail_nth(0);
  ck_assert(rc == IFS_OK || rc == IFS_NOMEM);
  return rc == IFS_OK && set != NULL;
}

/* Lists used once each, a shared one between every two: it stays. */
START_TEST(a_list_used_on_every_call_stays) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  get(c, REFUSAL);
  char own[64];
  for (int i = 0; i < 10 * IFS_SET_CACHE_ENTRIES; i++) {
    snprintf(own, sizeof own, "word%d|other%d|x|y|z|w|v|u", i, i);
    get(c, own);
    ck_assert(is_kept(c, REFUSAL));
  }
  ck_assert(!is_kept(c, "word0|other0|x|y|z|w|v|u"));
  ifs_set_cache_free(c);
}
END_TEST

/* A row takes two lists: a miss replaces the least recent entry, never the
** one the call before took, even where that one sits first in the cache. */
START_TEST(the_last_calls_set_is_not_replaced) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  char list[IFS_SET_CACHE_ENTRIES][64];
  for (int i = 0; i < IFS_SET_CACHE_ENTRIES; i++) {
    snprintf(list[i], sizeof list[i], "first%d|a|b|c|d|e|f|g", i);
    get(c, list[i]);
  }
  get(c, list[0]);                      /* the call before */
  get(c, "second|a|b|c|d|e|f|g");       /* a miss */
  ck_assert(is_kept(c, list[0]));
  ck_assert(!is_kept(c, list[1]));      /* the least recent went */
  for (int i = 2; i < IFS_SET_CACHE_ENTRIES; i++) ck_assert(is_kept(c, list[i]));
  ifs_set_cache_free(c);
}
END_TEST

/* A short list is kept the second time it comes, a long one at once; a
** short list's first sighting is remembered among the recent ones (64, in
** sets: after a thousand others it is gone). */
START_TEST(a_short_list_is_kept_when_it_comes_back) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  ck_assert_ptr_null(ask(c, REFUSAL));
  ck_assert_ptr_nonnull(ask(c, REFUSAL));
  char list[4096] = "", one[32];
  for (int i = 0; i < IFS_SET_CACHE_EAGER; i++) {
    snprintf(one, sizeof one, "%sphrase %d", i ? "|" : "", i);
    strcat(list, one);
  }
  ck_assert_ptr_nonnull(ask(c, list));
  ck_assert_ptr_null(ask(c, "new|a|b|c|d|e|f|g"));
  ck_assert_ptr_null(ask(c, "gone|a|b|c|d|e|f|g"));
  for (int i = 0; i < 1000; i++) {
    snprintf(one, sizeof one, "other%d|a|b|c|d|e|f|g", i);
    ck_assert_ptr_null(ask(c, one));
    if (i == 9) ck_assert_ptr_nonnull(ask(c, "new|a|b|c|d|e|f|g"));   /* still remembered */
  }
  ck_assert_ptr_null(ask(c, "gone|a|b|c|d|e|f|g"));   /* forgotten meanwhile */
  ck_assert_ptr_nonnull(ask(c, "gone|a|b|c|d|e|f|g"));
  ifs_set_cache_free(c);
}
END_TEST

START_TEST(a_list_past_the_bound_is_not_kept) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  size_t n = IFS_SET_CACHE_LIST_MAX;
  char *text = malloc(n);
  memset(text, 'a', n);
  ifs_span span[2] = {{0, n / 2}, {n / 2, n / 2}};
  const ifs_needle_set *set;
  const char *st;
  for (int time = 0; time < 2; time++) {   /* not when new, nor when back */
    ck_assert_int_eq(ifs_set_cache_get(c, text, span, 2, 1, &set, &st), IFS_OK);
    ck_assert_ptr_null(set);
  }
  span[1].len = n / 2 - 8;   /* with the two lengths, the bound exactly */
  ck_assert_int_eq(ifs_set_cache_get(c, text, span, 2, 1, &set, &st), IFS_OK);
  ck_assert_int_eq(ifs_set_cache_get(c, text, span, 2, 1, &set, &st), IFS_OK);
  ck_assert_ptr_nonnull(set);
  ck_assert_int_eq(ifs_set_cache_get(c, text, span, 0, 1, &set, &st), IFS_OK);
  ck_assert_ptr_null(set);
  free(text);
  ifs_set_cache_free(c);
}
END_TEST

START_TEST(out_of_memory_keeps_the_cache) {
  ifs_set_cache *c = ifs_set_cache_new(NULL);
  got a = get(c, REFUSAL);
  ifs_span span[16];
  const char *other = "one|two|three|four|five|six|seven|eight";
  size_t k = split(other, span);
  const ifs_needle_set *set;
  const char *st;
  ck_assert_ptr_null(ask(c, other));   /* remembered: the next asking builds */
  int failed = 0;
  for (long n = 1; n < 20; n++) {   /* each allocation of a miss in turn */
    ifs_test_fail_nth(n);
    ifs_status rc = ifs_set_cache_get(c, other, span, k, 1, &set, &st);
    ifs_test_fail_nth(0);
    if (rc == IFS_OK) break;
    ck_assert_int_eq(rc, IFS_NOMEM);
    failed++;
    ck_assert_ptr_eq(get(c, REFUSAL).set, a.set);
  }
  ck_assert_int_gt(failed, 0);
  ck_assert_ptr_nonnull(set);
  ifs_set_cache_free(c);
}
END_TEST

static Suite *set_cache_suite(void) {
  Suite *s = suite_create("ifs_set_cache");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, same_list_same_set);
  tcase_add_loop_test(tc, lists_of_the_same_bytes_differ, 0, 2);
  tcase_add_test(tc, a_list_used_on_every_call_stays);
  tcase_add_test(tc, the_last_calls_set_is_not_replaced);
  tcase_add_test(tc, a_short_list_is_kept_when_it_comes_back);
  tcase_add_test(tc, a_list_past_the_bound_is_not_kept);
  tcase_add_test(tc, out_of_memory_keeps_the_cache);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(set_cache_suite)
