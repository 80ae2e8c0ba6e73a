/* ifs_test.h — helpers shared by the Check unit tests. */
#ifndef IFS_TEST_H
#define IFS_TEST_H
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "ifs_common.h"

extern long ifs_test_fail_at;
extern long ifs_test_alloc_count;

/* Arms the failing allocator: allocation number n from now fails. */
static inline void ifs_test_fail_nth(long n) {
  ifs_test_alloc_count = 0;
  ifs_test_fail_at = n;
}

/* A string literal and its length (NULs inside count), for tables of cases. */
#define LIT(s) s, sizeof(s) - 1

/* Compares a buffer with a C literal, printing both on failure. */
#define ck_assert_buf_eq(b, lit) do { \
    const char *want_ = (lit); size_t wn_ = strlen(want_); \
    ck_assert_msg((b)->len == wn_ && memcmp((b)->p, want_, wn_) == 0, \
                  "got [%.*s] want [%s]", (int)(b)->len, (b)->p ? (b)->p : "", want_); \
  } while (0)

/* How many times slower than this machine the tests run: IFS_TEST_SLOWDOWN
** (tests/arm64/run.sh sets it under the emulator, make san-unit for the
** sanitizer build), 1 by default.  Bounds
** in seconds of CPU are multiplied by it; counted work is not. */
static inline double ifs_test_slowdown(void) {
  const char *v = getenv("IFS_TEST_SLOWDOWN");
  double f = v ? atof(v) : 1.0;
  return f >= 1.0 ? f : 1.0;
}

/* Runs one suite; main() of each test file is IFS_TEST_MAIN(suite_fn). */
#define IFS_TEST_MAIN(make_suite) \
  int main(void) { \
    SRunner *sr = srunner_create(make_suite()); \
    srunner_run_all(sr, CK_NORMAL); \
    int nf = srunner_ntests_failed(sr); \
    srunner_free(sr); \
    return nf ? 1 : 0; \
  }
#endif
