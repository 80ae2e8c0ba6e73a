/*
** test_ifs_memo.c — unit tests of ext/ifs_memo.c: a hit only for the
** arguments stored last, byte for byte (NULL apart from empty, NUL a
** byte, texts that fit the same sketch told apart); copies stop after
** IFS_MEMO_IDLE rows that no call reused, and a row asked for twice
** starts them again.
*/
#include "ifs_test.h"
#include "ifs_memo.h"
#include <stdio.h>

/* What the glue does for one function call on a row: reuse, or evaluate
** (counted) and store.  1 when the call reused the memo. */
static int call(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn,
                int *evaluations) {
  if (ifs_memo_hit(m, resp, rn, cons, cn)) return 1;
  ifs_memo_forget(m);
  ++*evaluations;
  ck_assert_int_eq(ifs_memo_store(m, resp, rn, cons, cn), IFS_OK);
  return 0;
}

/* A new memo, made to copy: a row asked for twice. */
static void start_copying(ifs_memo *m) {
  int ev = 0;
  ifs_memo_init(m);
  call(m, LIT("a"), LIT("{}"), &ev);
  call(m, LIT("a"), LIT("{}"), &ev);
  ck_assert_int_eq(m->copying, 1);
}

/* Row i's response: distinct for every i, of one length. */
static const char *row_text(int i, char *buf) {
  snprintf(buf, 32, "response %06d", i);
  return buf;
}

START_TEST(second_call_on_a_row_starts_copies) {
  ifs_memo m;
  ifs_memo_init(&m);
  int ev = 0;
  ck_assert_int_eq(call(&m, LIT("Hello world"), LIT("{}"), &ev), 0);   /* a sketch */
  ck_assert_int_eq(call(&m, LIT("Hello world"), LIT("{}"), &ev), 0);   /* fits it: copies */
  ck_assert_int_eq(call(&m, LIT("Hello world"), LIT("{}"), &ev), 1);
  ck_assert_int_eq(call(&m, LIT("Hello world"), LIT("{}"), &ev), 1);
  ck_assert_int_eq(ev, 2);
  ifs_memo_free(&m);
}
END_TEST

/* Three functions a row: from the second row on, each row is evaluated once. */
START_TEST(three_functions_a_row_evaluate_once) {
  ifs_memo m;
  ifs_memo_init(&m);
  int ev = 0;
  char buf[32];
  for (int i = 0; i < 1000; i++) {
    const char *r = row_text(i, buf);
    int reused = 0;
    for (int f = 0; f < 3; f++) reused += call(&m, r, strlen(r), LIT("{\"max_words\": 3}"), &ev);
    ck_assert_int_eq(reused, i == 0 ? 1 : 2);
  }
  ck_assert_int_eq(ev, 1001);
  ifs_memo_free(&m);
}
END_TEST

/* One function a row: copies stop after IFS_MEMO_IDLE rows; a later
** second call is evaluated again and starts them. */
START_TEST(copies_stop_when_never_reused) {
  ifs_memo m;
  start_copying(&m);
  int ev = 0;
  char buf[32];
  for (int i = 0; i < IFS_MEMO_IDLE; i++) {
    const char *r = row_text(i, buf);
    ck_assert_int_eq(call(&m, r, strlen(r), LIT("{}"), &ev), 0);
    ck_assert_int_eq(m.copying, 1);
    ck_assert_int_eq(m.valid, 1);
  }
  const char *r = row_text(IFS_MEMO_IDLE, buf);
  call(&m, r, strlen(r), LIT("{}"), &ev);
  ck_assert_int_eq(m.copying, 0);
  ck_assert_int_eq(m.valid, 0);   /* nothing copied */
  ck_assert_int_eq(m.resp.len, strlen(row_text(IFS_MEMO_IDLE - 1, buf)));   /* the last copy, stale */
  r = row_text(IFS_MEMO_IDLE, buf);
  ev = 0;
  ck_assert_int_eq(call(&m, r, strlen(r), LIT("{}"), &ev), 0);   /* evaluated again */
  ck_assert_int_eq(m.copying, 1);
  ck_assert_int_eq(call(&m, r, strlen(r), LIT("{}"), &ev), 1);
  ck_assert_int_eq(ev, 1);
  ifs_memo_free(&m);
}
END_TEST

/* A reuse now and then keeps the copies. */
START_TEST(a_reuse_keeps_copies) {
  ifs_memo m;
  start_copying(&m);
  int ev = 0;
  char buf[32];
  for (int i = 0; i < 20 * IFS_MEMO_IDLE; i++) {
    const char *r = row_text(i, buf);
    call(&m, r, strlen(r), LIT("{}"), &ev);
    if (i % IFS_MEMO_IDLE == IFS_MEMO_IDLE - 1)
      ck_assert_int_eq(call(&m, r, strlen(r), LIT("{}"), &ev), 1);
    ck_assert_int_eq(m.copying, 1);
  }
  ifs_memo_free(&m);
}
END_TEST

/* Only the very bytes hit: texts that fit the sketch (same lengths, same
** first and last eight bytes) but differ inside, NULL and empty, a NUL. */
START_TEST(only_equal_arguments_hit) {
  static const struct { const char *r; size_t rn; const char *c; size_t cn; } rows[] = {
    {LIT("the first eight + middle A + the last eight"), LIT("{\"must_include\": [\"a\"]}")},
    {LIT("the first eight + middle B + the last eight"), LIT("{\"must_include\": [\"a\"]}")},
    {LIT("the first eight + middle B + the last eight"), LIT("{\"must_include\": [\"b\"]}")},
    {LIT("x\0y"), LIT("{}")},
    {LIT("x\0z"), LIT("{}")},
    {LIT(""), LIT("{}")},
    {NULL, 0, LIT("{}")},
    {LIT(""), LIT("")},
    {LIT(""), NULL, 0},
    {NULL, 0, NULL, 0},
  };
  const size_t n = sizeof rows / sizeof rows[0];
  ifs_memo m;
  ifs_memo_init(&m);
  int ev = 0;
  for (size_t i = 0; i < n; i++) {
    call(&m, rows[i].r, rows[i].rn, rows[i].c, rows[i].cn, &ev);
    call(&m, rows[i].r, rows[i].rn, rows[i].c, rows[i].cn, &ev);   /* copying from here */
    ck_assert_int_eq(m.copying, 1);
    ck_assert_int_eq(ifs_memo_hit(&m, rows[i].r, rows[i].rn, rows[i].c, rows[i].cn), 1);
    for (size_t j = 0; j < n; j++)
      ck_assert_msg(ifs_memo_hit(&m, rows[j].r, rows[j].rn, rows[j].c, rows[j].cn) == (i == j),
                    "row %zu stored, row %zu asked", i, j);
  }
  ifs_memo_free(&m);
}
END_TEST

/* A failed evaluation leaves nothing to reuse. */
START_TEST(forget_leaves_no_hit) {
  ifs_memo m;
  start_copying(&m);
  ck_assert_int_eq(ifs_memo_hit(&m, LIT("a"), LIT("{}")), 1);
  ifs_memo_forget(&m);
  ck_assert_int_eq(ifs_memo_hit(&m, LIT("a"), LIT("{}")), 0);
  ifs_memo_free(&m);
}
END_TEST

START_TEST(copy_out_of_memory) {
  ifs_memo m;
  ifs_memo_init(&m);
  int ev = 0;
  call(&m, LIT("a"), LIT("{}"), &ev);
  ck_assert_int_eq(ifs_memo_hit(&m, LIT("a"), LIT("{}")), 0);
  ifs_test_fail_nth(1);
  ck_assert_int_eq(ifs_memo_store(&m, LIT("a"), LIT("{}")), IFS_NOMEM);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(ifs_memo_hit(&m, LIT("a"), LIT("{}")), 0);
  ifs_memo_free(&m);
}
END_TEST

static Suite *memo_suite(void) {
  Suite *s = suite_create("ifs_memo");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, second_call_on_a_row_starts_copies);
  tcase_add_test(tc, three_functions_a_row_evaluate_once);
  tcase_add_test(tc, copies_stop_when_never_reused);
  tcase_add_test(tc, a_reuse_keeps_copies);
  tcase_add_test(tc, only_equal_arguments_hit);
  tcase_add_test(tc, forget_leaves_no_hit);
  tcase_add_test(tc, copy_out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(memo_suite)
