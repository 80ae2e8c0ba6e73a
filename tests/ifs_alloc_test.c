/*
** ifs_alloc_test.c — the core's allocator for unit tests: malloc, with a
** hook that makes the Nth allocation from now fail (0 = never), so tests
** can walk every allocation of an operation and check it fails cleanly.
*/
#include "ifs_common.h"
#include <stdlib.h>

long ifs_test_fail_at = 0;   /* test-only state, never in the extension */
long ifs_test_alloc_count = 0;

static int should_fail(void) {
  ifs_test_alloc_count++;
  return ifs_test_fail_at > 0 && ifs_test_alloc_count == ifs_test_fail_at;
}

void *ifs_malloc(size_t n) { return should_fail() ? NULL : malloc(n ? n : 1); }
void *ifs_realloc(void *p, size_t n) {
  return should_fail() ? NULL : realloc(p, n ? n : 1);
}
void ifs_free(void *p) { free(p); }
