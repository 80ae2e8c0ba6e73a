/*
** test_ifs_heap.c — unit tests of ext/ifs_heap.c: blocks carved side by
** side in the order asked for, 64-byte aligned past their header; a block
** released is the next of its class; size classes at their edges; a
** chunk's rest kept for later blocks; blocks of their own (NULL heap, over
** IFS_HEAP_BLOCK_MAX, the heap full, out of memory) released as any; no
** two blocks overlap.
*/
#include "ifs_test.h"
#include "ifs_heap.h"
#include <stdint.h>
#include <stdio.h>

#define HEADER 16   /* ifs_heap.c's */

/* Fills block p of n bytes with its own byte; 1 when it still holds it. */
static void fill(unsigned char *p, size_t n, unsigned char v) { memset(p, v, n); }
static int holds(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

START_TEST(blocks_side_by_side) {
  ifs_heap *h = ifs_heap_new();
  ck_assert_ptr_nonnull(h);
  char *a = ifs_heap_alloc(h, 100);   /* class 128 with its header */
  char *b = ifs_heap_alloc(h, 48);    /* 64 */
  char *c = ifs_heap_alloc(h, 49);    /* 128 */
  char *d = ifs_heap_alloc(h, 1008);  /* 1,024 */
  char *e = ifs_heap_alloc(h, 1009);  /* 1,280 */
  char *f = ifs_heap_alloc(h, 1);     /* 64 */
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_uint_eq(((uintptr_t)a - HEADER) % 64, 0);
  ck_assert_ptr_eq(b, a + 128);
  ck_assert_ptr_eq(c, b + 64);
  ck_assert_ptr_eq(d, c + 128);
  ck_assert_ptr_eq(e, d + 1024);
  ck_assert_ptr_eq(f, e + 1280);
  ck_assert_uint_eq(ifs_heap_bytes(h), 128 << 10);
#endif
  /* a block released is the next of its class, not of another */
  ifs_heap_release(c);
  char *g = ifs_heap_alloc(h, 40);    /* 64: not c's */
  char *i = ifs_heap_alloc(h, 60);    /* 128: c's */
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_ptr_eq(g, f + 64);
  ck_assert_ptr_eq(i, c);
#endif
  fill((unsigned char *)a, 100, 1);
  fill((unsigned char *)b, 48, 2);
  fill((unsigned char *)d, 1008, 3);
  fill((unsigned char *)e, 1009, 4);
  fill((unsigned char *)f, 1, 5);
  fill((unsigned char *)g, 40, 6);
  fill((unsigned char *)i, 60, 7);
  ck_assert(holds((unsigned char *)a, 100, 1) && holds((unsigned char *)b, 48, 2) &&
            holds((unsigned char *)d, 1008, 3) && holds((unsigned char *)e, 1009, 4) &&
            holds((unsigned char *)f, 1, 5) && holds((unsigned char *)g, 40, 6) &&
            holds((unsigned char *)i, 60, 7));
  char *all[] = {a, b, d, e, f, g, i};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) ifs_heap_release(all[k]);
  ifs_heap_free(h);
}
END_TEST

/* A chunk's rest, too small for the next block, goes to the free lists:
** a later block of a class that fits it is there. */
START_TEST(a_chunks_rest_is_kept) {
  ifs_heap *h = ifs_heap_new();
  char *a = ifs_heap_alloc(h, IFS_HEAP_BLOCK_MAX - HEADER);   /* the largest class */
  char *b = ifs_heap_alloc(h, IFS_HEAP_BLOCK_MAX - HEADER);   /* a second chunk */
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_uint_eq(ifs_heap_bytes(h), (128 << 10) + (256 << 10));
  /* the first chunk's rest (a bit less than 64 KiB) went to the largest
  ** classes that fit: 56 KiB first */
  char *c = ifs_heap_alloc(h, 56 * 1024 - HEADER);
  ck_assert_ptr_eq(c, a + IFS_HEAP_BLOCK_MAX);
  ifs_heap_release(c);
#endif
  ifs_heap_release(a);
  ifs_heap_release(b);
  ifs_heap_free(h);
}
END_TEST

/* Blocks of their own: with no heap, over IFS_HEAP_BLOCK_MAX; released
** like any (no chunk taken for them). */
START_TEST(blocks_of_their_own) {
  char *p = ifs_heap_alloc(NULL, 10);
  ck_assert_ptr_nonnull(p);
  fill((unsigned char *)p, 10, 9);
  ifs_heap_release(p);
  ifs_heap_release(NULL);
  ifs_heap *h = ifs_heap_new();
  char *big = ifs_heap_alloc(h, IFS_HEAP_BLOCK_MAX - HEADER + 1);
  ck_assert_ptr_nonnull(big);
  fill((unsigned char *)big, IFS_HEAP_BLOCK_MAX - HEADER + 1, 8);
  ck_assert_uint_eq(ifs_heap_bytes(h), 0);
  ck_assert_ptr_null(ifs_heap_alloc(h, SIZE_MAX - 8));
  ifs_heap_release(big);
  ifs_heap_free(h);
}
END_TEST

/* The heap grows to IFS_HEAP_MAX bytes of chunks, then blocks are their
** own; none overlaps another. */
START_TEST(a_full_heap_gives_blocks_of_their_own) {
  ifs_heap *h = ifs_heap_new();
  size_t n = 40000, count = IFS_HEAP_MAX / n + 200;
  unsigned char **p = malloc(count * sizeof *p);
  for (size_t i = 0; i < count; i++) {
    p[i] = ifs_heap_alloc(h, n);
    ck_assert_ptr_nonnull(p[i]);
    fill(p[i], n, (unsigned char)i);
    ck_assert_uint_le(ifs_heap_bytes(h), IFS_HEAP_MAX);
  }
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_uint_gt(ifs_heap_bytes(h), IFS_HEAP_MAX - IFS_HEAP_HUGE_CHUNK);
#endif
  for (size_t i = 0; i < count; i++) ck_assert(holds(p[i], n, (unsigned char)i));
  for (size_t i = 0; i < count; i += 2) ifs_heap_release(p[i]);
  for (size_t i = 0; i < count; i += 2) {   /* the same room again */
    p[i] = ifs_heap_alloc(h, n - 100);
    fill(p[i], n - 100, (unsigned char)~i);
  }
  for (size_t i = 0; i < count; i++)
    ck_assert(holds(p[i], i % 2 ? n : n - 100, (unsigned char)(i % 2 ? i : ~i)));
  for (size_t i = 0; i < count; i++) ifs_heap_release(p[i]);
  free(p);
  ifs_heap_free(h);
}
END_TEST

/* Out of memory: a chunk that cannot be had leaves a block of its own; a
** block of its own that cannot be had, NULL; the heap works on after. */
START_TEST(out_of_memory) {
  ifs_test_fail_nth(1);
  ck_assert_ptr_null(ifs_heap_new());
  ifs_test_fail_nth(0);
  ifs_heap *h = ifs_heap_new();
  ifs_test_fail_nth(1);   /* the first chunk (of its own: the block) */
  char *a = ifs_heap_alloc(h, 100);
  ifs_test_fail_nth(0);
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_ptr_nonnull(a);
#else
  ck_assert_ptr_null(a);
#endif
  ck_assert_uint_eq(ifs_heap_bytes(h), 0);
  ifs_test_fail_nth(1);
  ck_assert_ptr_null(ifs_heap_alloc(h, IFS_HEAP_BLOCK_MAX));
  ifs_test_fail_nth(0);
  char *c = ifs_heap_alloc(h, 100);
  ck_assert_ptr_nonnull(c);
#ifndef IFS_HEAP_OWN_BLOCKS
  ck_assert_uint_eq(ifs_heap_bytes(h), 128 << 10);
#endif
  ifs_heap_release(a);
  ifs_heap_release(c);
  ifs_heap_free(h);
}
END_TEST

/* Chunks of IFS_HEAP_HUGE_CHUNK bytes are advised as huge pages: on Linux,
** the mapping holding a block 2 MiB into such a chunk (on a whole huge
** page of it, however the chunk lies) is flagged "hg" in /proc/self/smaps. */
#if defined(__linux__) && !defined(IFS_HEAP_OWN_BLOCKS)
#include <sys/mman.h>

/* The VmFlags of the mapping holding p, into flags; 0 when not found. */
static int vm_flags_of(const void *p, char *flags, size_t cap) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[1024];
  int in = 0, found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && strncmp(line, "VmFlags:", 8) == 0) {
      size_t n = strlen(line + 8) < cap ? strlen(line + 8) : cap - 1;
      memcpy(flags, line + 8, n);
      flags[n] = 0;
      found = 1;
    }
  }
  fclose(f);
  return found;
}

/* Whether this system shows advice in /proc/self/smaps at all: a region
** of the test's own, advised here (an emulator, qemu-user, takes the
** advice and shows nothing of it). */
static int smaps_shows_advice(void) {
  size_t n = (size_t)4 << 20;
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  char *page = (char *)(((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
  char flags[512];
  int shown = madvise(page, (size_t)2 << 20, MADV_HUGEPAGE) == 0 &&
              vm_flags_of(page, flags, sizeof flags) && strstr(flags, " hg") != NULL;
  munmap(p, n);
  return shown;
}

START_TEST(huge_chunks_are_advised) {
  if (!smaps_shows_advice()) {
    fprintf(stderr, "huge_chunks_are_advised: /proc/self/smaps shows no advice here"
                    " (an emulator?): not checked\n");
    return;
  }
  ifs_heap *h = ifs_heap_new();
  unsigned char *first = NULL, *p = NULL;   /* the first block of a huge chunk; one 2 MiB on */
  unsigned char *all[512];
  size_t n = 0;
  while (!p) {
    size_t before = ifs_heap_bytes(h);
    unsigned char *b = ifs_heap_alloc(h, 60000);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_lt(n, 512);
    all[n++] = b;
    if (ifs_heap_bytes(h) - before == IFS_HEAP_HUGE_CHUNK) first = b;
    if (first && (size_t)(b - first) >= (2u << 20)) p = b;
  }
  char flags[512];
  ck_assert_msg(vm_flags_of(p, flags, sizeof flags), "no VmFlags in /proc/self/smaps");
  ck_assert_msg(strstr(flags, " hg") != NULL, "VmFlags:%s", flags);
  while (n) ifs_heap_release(all[--n]);
  ifs_heap_free(h);
}
END_TEST
#endif

static Suite *heap_suite(void) {
  Suite *s = suite_create("ifs_heap");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, blocks_side_by_side);
  tcase_add_test(tc, a_chunks_rest_is_kept);
  tcase_add_test(tc, blocks_of_their_own);
  tcase_add_test(tc, a_full_heap_gives_blocks_of_their_own);
  tcase_add_test(tc, out_of_memory);
#if defined(__linux__) && !defined(IFS_HEAP_OWN_BLOCKS)
  tcase_add_test(tc, huge_chunks_are_advised);
#endif
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(heap_suite)
