/*
** test_ifs_common.c — unit tests of ext/ifs_common.c: the byte buffer
** (exact bytes, growth, sticky out-of-memory), the bump arena (alignment,
** blocks, reset, failure), the byte hash (values computed independently
** with Python from the same definition, and the properties the caches
** rely on) and the record of hashes seen.
*/
#include "ifs_test.h"
#include "soup.h"
#include <stdint.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

START_TEST(buf_appends_exact_bytes) {
  ifs_buf b;
  ifs_buf_init(&b);
  ck_assert_ptr_null(b.p);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_int_eq(ifs_buf_append_str(&b, "ab"), IFS_OK);
  ck_assert_int_eq(ifs_buf_append(&b, "c\0d", 3), IFS_OK);   /* NUL is a byte */
  ck_assert_int_eq(ifs_buf_append_char(&b, '-'), IFS_OK);
  ck_assert_int_eq(ifs_buf_append_u64(&b, 0), IFS_OK);
  ck_assert_int_eq(ifs_buf_append_char(&b, '-'), IFS_OK);
  ck_assert_int_eq(ifs_buf_append_u64(&b, UINT64_MAX), IFS_OK);
  ck_assert_int_eq(ifs_buf_append(&b, NULL, 0), IFS_OK);
  static const char want[] = "abc\0d-0-18446744073709551615";
  ck_assert_uint_eq(b.len, sizeof want - 1);
  ck_assert_mem_eq(b.p, want, sizeof want);   /* and the terminating NUL */
  ck_assert_int_eq(b.oom, 0);
  ifs_buf_free(&b);
  ck_assert_ptr_null(b.p);
  ck_assert_uint_eq(b.len, 0);
}
END_TEST

/* Code points as internal UTF-8: one to four bytes, surrogates in three. */
START_TEST(buf_appends_code_points) {
  ifs_buf b;
  ifs_buf_init(&b);
  static const uint32_t cps[] = { 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xD800,
                                  0xDCFF, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF };
  for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++)
    ck_assert_int_eq(ifs_buf_append_cp(&b, cps[i]), IFS_OK);
  ck_assert_buf_eq(&b, "A\x7f\xc2\x80\xc3\xa9\xdf\xbf\xe0\xa0\x80\xe2\x82\xac\xed\xa0\x80"
                       "\xed\xb3\xbf\xef\xbf\xbf\xf0\x90\x80\x80\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
  ifs_buf_free(&b);
}
END_TEST

/* Growth keeps the contents; clear keeps the memory. */
START_TEST(buf_grows_and_clears) {
  ifs_buf b;
  ifs_buf_init(&b);
  for (int i = 0; i < 100000; i++)
    ck_assert_int_eq(ifs_buf_append_char(&b, (char)('a' + i % 26)), IFS_OK);
  ck_assert_uint_eq(b.len, 100000);
  ck_assert_uint_ge(b.cap, 100001);
  for (int i = 0; i < 100000; i++) ck_assert_int_eq(b.p[i], 'a' + i % 26);
  ck_assert_int_eq(b.p[100000], 0);
  size_t cap = b.cap;
  char *p = b.p;
  ifs_buf_clear(&b);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_uint_eq(b.cap, cap);
  ck_assert_ptr_eq(b.p, p);
  ck_assert_int_eq(b.p[0], 0);
  ck_assert_int_eq(ifs_buf_reserve(&b, cap - 1), IFS_OK);   /* fits: no move */
  ck_assert_ptr_eq(b.p, p);
  ifs_buf_free(&b);
}
END_TEST

/* A failed append leaves the contents as they were and sets oom, which
** sticks (every later append fails) until the buffer is cleared. */
START_TEST(buf_out_of_memory_sticks) {
  ifs_buf b;
  ifs_buf_init(&b);
  ck_assert_int_eq(ifs_buf_append_str(&b, "keep"), IFS_OK);
  char big[100];
  memset(big, 'x', sizeof big);
  ifs_test_fail_nth(1);
  ck_assert_int_eq(ifs_buf_append(&b, big, sizeof big), IFS_NOMEM);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(b.oom, 1);
  ck_assert_buf_eq(&b, "keep");
  ck_assert_int_eq(ifs_buf_append_char(&b, 'y'), IFS_NOMEM);   /* would fit: still fails */
  ck_assert_buf_eq(&b, "keep");
  ifs_buf_clear(&b);
  ck_assert_int_eq(b.oom, 0);
  ck_assert_int_eq(ifs_buf_append(&b, big, sizeof big), IFS_OK);
  ck_assert_uint_eq(b.len, sizeof big);
  /* a size no allocator could give is refused before asking */
  ifs_buf_clear(&b);
  long before = ifs_test_alloc_count;
  ck_assert_int_eq(ifs_buf_reserve(&b, SIZE_MAX - 8), IFS_NOMEM);
  ck_assert_int_eq(ifs_test_alloc_count, before);
  ck_assert_int_eq(b.oom, 1);
  ifs_buf_free(&b);
}
END_TEST

/* Allocations are 8-byte aligned and never overlap, small ones share
** blocks, a large one gets a block of its own. */
START_TEST(arena_allocates_aligned_disjoint) {
  ifs_arena a;
  ifs_arena_init(&a);
  enum { N = 3000 };
  unsigned char *p[N];
  size_t sz[N];
  ifs_test_fail_nth(0);
  ifs_test_alloc_count = 0;
  for (int i = 0; i < N; i++) {
    sz[i] = (size_t)(i % 37);
    p[i] = ifs_arena_alloc(&a, sz[i]);
    ck_assert_ptr_nonnull(p[i]);
    ck_assert_uint_eq((uintptr_t)p[i] % 8, 0);
    memset(p[i], i & 0xFF, sz[i]);
  }
  /* 3000 allocations of at most 40 bytes (rounded): 8 blocks of 16 KiB at most */
  ck_assert_int_le(ifs_test_alloc_count, 8);
  unsigned char *large = ifs_arena_alloc(&a, 100000);
  ck_assert_ptr_nonnull(large);
  memset(large, 0xAB, 100000);
  unsigned char *after = ifs_arena_alloc(&a, 16);
  ck_assert_ptr_nonnull(after);
  memset(after, 0xCD, 16);
  for (int i = 0; i < N; i++)
    for (size_t k = 0; k < sz[i]; k++) ck_assert_int_eq(p[i][k], i & 0xFF);
  for (size_t k = 0; k < 100000; k++) ck_assert_int_eq(large[k], 0xAB);
  ck_assert_ptr_null(ifs_arena_alloc(&a, SIZE_MAX));   /* refused, arena intact */
  ck_assert_ptr_nonnull(ifs_arena_alloc(&a, 8));
  ifs_arena_free(&a);
  ck_assert_ptr_null(a.head);
}
END_TEST

/* Reset keeps one block: what fits in it needs no new allocation. */
START_TEST(arena_reset_reuses_a_block) {
  ifs_arena a;
  ifs_arena_init(&a);
  for (int i = 0; i < 2000; i++) ck_assert_ptr_nonnull(ifs_arena_alloc(&a, 64));
  ifs_arena_reset(&a);
  ck_assert_ptr_nonnull(a.head);
  ifs_test_fail_nth(0);
  ifs_test_alloc_count = 0;
  for (int i = 0; i < 200; i++) ck_assert_ptr_nonnull(ifs_arena_alloc(&a, 64));
  ck_assert_int_eq(ifs_test_alloc_count, 0);
  ifs_arena_free(&a);
  ifs_arena_reset(&a);   /* an empty arena: nothing to do */
  ck_assert_ptr_null(a.head);
}
END_TEST

START_TEST(arena_out_of_memory) {
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_test_fail_nth(1);
  ck_assert_ptr_null(ifs_arena_alloc(&a, 10));
  ifs_test_fail_nth(0);
  ck_assert_ptr_null(a.head);
  ck_assert_ptr_nonnull(ifs_arena_alloc(&a, 10));
  ifs_arena_free(&a);
}
END_TEST

/* Values from a Python transcription of the definition. */
START_TEST(hash_known_values) {
  ck_assert_uint_eq(ifs_hash_bytes("", 0), 0xdf442d22110c749bull);
  ck_assert_uint_eq(ifs_hash_bytes("abc", 3), 0x39c57e7caa38b98eull);
  ck_assert_uint_eq(ifs_hash_bytes("0123456789abcdef!", 17), 0x93875a428666849cull);
  ck_assert_uint_eq(ifs_hash_bytes("a\0b", 3), 0x853d5cee1ad8b06cull);
  ck_assert_uint_eq(ifs_hash_bytes("abcd", 4), 0x7d01595b4de4281aull);
  ck_assert_uint_eq(ifs_hash_bytes("abcdefg", 7), 0x5a5c8f362a736b5cull);
  unsigned char bytes[70];   /* four lanes, a word and a tail */
  for (int i = 0; i < 70; i++) bytes[i] = (unsigned char)i;
  ck_assert_uint_eq(ifs_hash_bytes(bytes, 70), 0x0fc6d47231004173ull);
  unsigned char text[1085];   /* 16 stripes and the last 64 bytes; 4 stripes */
  for (int i = 0; i < 1085; i++) text[i] = (unsigned char)(i * 7 + 3);
  ck_assert_uint_eq(ifs_hash_bytes(text, 1085), 0x7ee1612f3ec1bdccull);
  ck_assert_uint_eq(ifs_hash_bytes(text, 256), 0x0b775fc75146a5adull);
}
END_TEST

/* A long text's stripes give the portable loop's hash by every loop the
** CPU has (SSE2 and AVX2, or NEON), at every length and alignment. */
START_TEST(hash_of_long_texts_on_every_loop) {
  static unsigned char buf[1400 + 8];
  unsigned seed = 7;
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)soup_next(&seed);
  for (size_t n = 250; n <= 1400; n += 3)
    for (size_t off = 0; off < 8; off += 3) {
      uint64_t portable = ifs_test_hash_by(0, buf + off, n);
      ck_assert_uint_eq(ifs_test_hash_by(1, buf + off, n), portable);
      ck_assert_uint_eq(ifs_test_hash_by(2, buf + off, n), portable);
      ck_assert_uint_eq(ifs_hash_bytes(buf + off, n), portable);
    }
}
END_TEST

/* What the caches rely on: the hash does not depend on alignment, and
** changing any one byte, or the length, changes it (every length to 64,
** and long texts' about the stripes' start). */
START_TEST(hash_properties) {
  static unsigned char buf[1100 + 8], key[1100];
  unsigned seed = 99;
  for (size_t n = 0; n <= 1085; n = n < 64 ? n + 1 : n < 250 ? 250 : n < 262 ? n + 1 : n + 823) {
    for (size_t i = 0; i < n; i++) key[i] = (unsigned char)soup_next(&seed);
    uint64_t h = ifs_hash_bytes(key, n);
    for (size_t off = 1; off < 8; off++) {
      memcpy(buf + off, key, n);
      ck_assert_uint_eq(ifs_hash_bytes(buf + off, n), h);
    }
    for (size_t i = 0; i < n; i++) {
      key[i] ^= 1;
      ck_assert_uint_ne(ifs_hash_bytes(key, n), h);
      key[i] ^= 1;
    }
    key[n] = 0;
    ck_assert_uint_ne(ifs_hash_bytes(key, n + 1), h);
  }
}
END_TEST

/* The caches index by the low bits: 65536 distinct keys that differ only
** in two bytes side by side, at the start, in the middle or at the end of
** keys of every length from 2 to 40 (the last bytes of a word, or of a
** text, reach only the top of a product), spread over 1024 slots about
** evenly (64 expected per slot), without collisions. */
START_TEST(hash_spreads_low_bits) {
  static uint64_t seen[65536];
  static int slot[1024];
  unsigned char key[40];
  for (size_t n = 2; n <= sizeof key; n++)
    for (int place = 0; place < 3; place++) {
      size_t at = place == 0 ? 0 : place == 1 ? n / 2 - 1 : n - 2;
      memset(slot, 0, sizeof slot);
      for (unsigned k = 0; k < 65536; k++) {
        memset(key, 'k', n);
        key[at] = (unsigned char)(k & 0xFF);
        key[at + 1] = (unsigned char)(k >> 8);
        seen[k] = ifs_hash_bytes(key, n);
        slot[seen[k] & 1023]++;
      }
      int lo = 65536, hi = 0;
      for (int i = 0; i < 1024; i++) {
        if (slot[i] < lo) lo = slot[i];
        if (slot[i] > hi) hi = slot[i];
      }
      ck_assert_msg(lo >= 32 && hi <= 110, "length %zu, bytes %zu and %zu: slot loads from %d to %d",
                    n, at, at + 1, lo, hi);
      qsort(seen, 65536, sizeof seen[0], cmp_u64);
      unsigned same = 0;   /* (an assertion a key is a message to the runner each) */
      for (unsigned k = 1; k < 65536; k++) same += seen[k] == seen[k - 1];
      ck_assert_msg(same == 0, "length %zu: %u collisions", n, same);
    }
}
END_TEST

/* Adds h to s and returns whether it was there before (-1: no room). */
static int seen_add(ifs_seen *s, uint64_t h) {
  int before = -1;
  return ifs_seen_add(s, h, &before) == IFS_OK ? before : -1;
}

/* A first sighting says 0 and is remembered, a return says 1; a full set
** takes a new tag in place of one of its own, leaving the others; a record
** that cannot be allocated says so and works once it can. */
START_TEST(seen_tells_returns) {
  ifs_seen s;
  ifs_seen_init(&s, 4, 2);
  ck_assert_int_eq(seen_add(&s, 0x1234567800000001ull), 0);
  ck_assert_int_eq(seen_add(&s, 0x1234567800000001ull), 1);
  ck_assert_int_eq(seen_add(&s, 0x2234567800000001ull), 0);   /* same set */
  ck_assert_int_eq(seen_add(&s, 0x1234567800000002ull), 0);   /* another */
  ck_assert_int_eq(seen_add(&s, 0x3234567800000001ull), 0);   /* set full */
  int kept = seen_add(&s, 0x1234567800000001ull) + seen_add(&s, 0x2234567800000001ull);
  ck_assert_int_eq(kept, 1);   /* one of the two was replaced (and is now back in) */
  ck_assert_int_eq(seen_add(&s, 0x1234567800000002ull), 1);
  ifs_seen_free(&s);
  ifs_seen_init(&s, 4, 2);
  ifs_test_fail_nth(1);
  int before = -1;
  ck_assert_int_eq(ifs_seen_add(&s, 7ull << 32, &before), IFS_NOMEM);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(before, -1);
  ck_assert_int_eq(seen_add(&s, 7ull << 32), 0);
  ck_assert_int_eq(seen_add(&s, 7ull << 32), 1);
  ifs_seen_free(&s);
  /* three keys of one two-way set, in turn: each comes back seen at times
  ** (a fixed way to replace would leave two of them never seen again) */
  ifs_seen_init(&s, 4, 2);
  int hits[3] = {0, 0, 0};
  for (int round = 0; round < 30; round++)
    for (int k = 0; k < 3; k++)
      hits[k] += seen_add(&s, (uint64_t)(k + 1) << 40 | 1);
  for (int k = 0; k < 3; k++) ck_assert_int_gt(hits[k], 0);
  ifs_seen_free(&s);
}
END_TEST

/* With the time: how far the caller's count moved since the last sighting
** (0 on the first); a tag added without the time was seen at time 0; a
** record that cannot be allocated says so. */
START_TEST(seen_tells_since) {
  ifs_seen s;
  ifs_seen_init(&s, 4, 2);
  int before = -1;
  uint32_t since = 99;
  ck_assert_int_eq(ifs_seen_since(&s, 5ull << 32, 10, &before, &since), IFS_OK);
  ck_assert_int_eq(before, 0);
  ck_assert_uint_eq(since, 0);
  ck_assert_int_eq(ifs_seen_since(&s, 5ull << 32, 25, &before, &since), IFS_OK);
  ck_assert_int_eq(before, 1);
  ck_assert_uint_eq(since, 15);
  ck_assert_int_eq(ifs_seen_since(&s, 5ull << 32, 26, &before, &since), IFS_OK);
  ck_assert_uint_eq(since, 1);
  ck_assert_int_eq(seen_add(&s, 6ull << 32), 0);
  ck_assert_int_eq(ifs_seen_since(&s, 6ull << 32, 100, &before, &since), IFS_OK);
  ck_assert_int_eq(before, 1);
  ck_assert_uint_eq(since, 100);
  ifs_seen_free(&s);
  ifs_seen_init(&s, 4, 2);
  ifs_test_fail_nth(1);
  ck_assert_int_eq(ifs_seen_since(&s, 7ull << 32, 1, &before, &since), IFS_NOMEM);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(ifs_seen_since(&s, 7ull << 32, 2, &before, &since), IFS_OK);
  ck_assert_int_eq(before, 0);
  ifs_seen_free(&s);
}
END_TEST

static Suite *common_suite(void) {
  Suite *s = suite_create("ifs_common");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, buf_appends_exact_bytes);
  tcase_add_test(tc, buf_appends_code_points);
  tcase_add_test(tc, buf_grows_and_clears);
  tcase_add_test(tc, buf_out_of_memory_sticks);
  tcase_add_test(tc, arena_allocates_aligned_disjoint);
  tcase_add_test(tc, arena_reset_reuses_a_block);
  tcase_add_test(tc, arena_out_of_memory);
  tcase_add_test(tc, hash_known_values);
  tcase_add_test(tc, hash_of_long_texts_on_every_loop);
  tcase_add_test(tc, hash_properties);
  tcase_add_test(tc, hash_spreads_low_bits);
  tcase_add_test(tc, seen_tells_returns);
  tcase_add_test(tc, seen_tells_since);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(common_suite)
