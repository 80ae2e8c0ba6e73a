/*
** ifs_common.h — shared plumbing of the ifscore core: status codes, the
** allocator seam, a growable byte buffer and a bump arena.
**
** The core never includes sqlite3.h.  Memory goes through ifs_malloc /
** ifs_realloc / ifs_free, defined at link time: ifs_alloc_sqlite.c (the
** extension, so SQLite's allocator and its OOM accounting apply) or
** tests/ifs_alloc_test.c (unit tests, with a fail-the-Nth-allocation hook).
**
** Text inside the core is "internal UTF-8": UTF-8 in which a lone surrogate
** U+D800..U+DFFF is allowed, encoded in three bytes (ED A0..BF 80..BF).
** A byte that is not valid UTF-8 in the input becomes U+DC00+byte, exactly
** as Python's surrogateescape reading does; see ifs_text.h.
**
** Test hooks (functions named ifs_test_*, and the reference loops tests
** compare the fast paths with) are declared and compiled only when
** IFS_TESTING is defined, as the unit test, sanitizer and fuzzing builds
** do (Makefile, mk/hostile.mk); the extension never has them.
*/
#ifndef IFS_COMMON_H
#define IFS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The result of every fallible operation of the core.  A yes/no answer
** that such an operation also gives (matched, found) goes to an int
** out-parameter, set when the status is IFS_OK; a question that cannot
** fail is a predicate named for it (ifs_is_ascii, ifs_utf8_is_valid).
** Only the glue (ifscore.c) turns statuses into SQLite's codes. */
typedef enum ifs_status {
  IFS_OK = 0,
  IFS_NOMEM = 1,     /* an allocation failed */
  IFS_INVALID = 2,   /* the input is not what was asked (bad JSON, bad int,
                        a pattern Python's re rejects...) */
  IFS_LIMIT = 3      /* a size or work bound was reached before an answer */
} ifs_status;

void *ifs_malloc(size_t n);
void *ifs_realloc(void *p, size_t n);
void ifs_free(void *p);

/* A growable byte buffer; p is NUL-terminated for convenience only. */
typedef struct ifs_buf {
  char *p;
  size_t len;
  size_t cap;
  int oom;          /* sticky: set when any append failed */
} ifs_buf;

void ifs_buf_init(ifs_buf *b);
void ifs_buf_free(ifs_buf *b);
void ifs_buf_clear(ifs_buf *b);                 /* len = 0, keeps memory */
ifs_status ifs_buf_reserve(ifs_buf *b, size_t extra);  /* IFS_OK or IFS_NOMEM, as all */
ifs_status ifs_buf_append(ifs_buf *b, const void *p, size_t n);
/* z is a C literal: inline, its length is a constant */
static inline ifs_status ifs_buf_append_str(ifs_buf *b, const char *z) {
  return ifs_buf_append(b, z, strlen(z));
}
ifs_status ifs_buf_append_char(ifs_buf *b, char c);
ifs_status ifs_buf_append_u64(ifs_buf *b, uint64_t v);
ifs_status ifs_buf_append_cp(ifs_buf *b, uint32_t cp);     /* internal UTF-8 */

/* The bytes of cp in internal UTF-8 (a surrogate takes three), 1 to 4. */
static inline size_t ifs_utf8_len(uint32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* Writes cp as internal UTF-8 at out (a surrogate takes three bytes, as
** any other BMP code point); returns the byte count, 1 to 4. */
static inline size_t ifs_utf8_put(unsigned char *out, uint32_t cp) {
  if (cp < 0x80) { out[0] = (unsigned char)cp; return 1; }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xC0 | cp >> 6);
    out[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xE0 | cp >> 12);
    out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | cp >> 18);
  out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
  out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
  out[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A bump arena: many small allocations, freed all at once. */
typedef struct ifs_arena_block ifs_arena_block;
typedef struct ifs_arena {
  ifs_arena_block *head;
} ifs_arena;

void ifs_arena_init(ifs_arena *a);
void *ifs_arena_alloc(ifs_arena *a, size_t n);  /* 8-byte aligned; NULL on OOM */
void ifs_arena_reset(ifs_arena *a);             /* empty, keeps one block */
void ifs_arena_free(ifs_arena *a);

/* A 64-bit hash of n bytes, eight at a time, a long text's 64 at a time
** in eight lanes (cache keys; not for security). */
uint64_t ifs_hash_bytes(const void *p, size_t n);
#ifdef IFS_TESTING
/* Test hook: the same hash by one loop (0: portable, 1: SSE2 on x86-64,
** else the widest the CPU has), which the others must match. */
uint64_t ifs_test_hash_by(int loop, const void *p, size_t n);
#endif

/* A record of hashes seen, to tell a first sighting from a return (a cache
** keeps only what comes back): 32-bit tags of the hashes, `ways` to each
** of `sets` sets (powers of two), allocated at first use.  A new tag
** replaces one of its full set at random, so that keys sharing a set that
** come back in turn cannot keep pushing each other out.  A tag shared by
** two keys only makes one look seen early.  Each tag has its last sighting's
** time beside it (ifs_seen_since), in the same line. */
typedef struct ifs_seen_slot {
  uint32_t tag;            /* 0: empty */
  uint32_t when;
} ifs_seen_slot;

/* The tag a slot holds for hash h: its top half, never 0 (the empty slot). */
static inline uint32_t ifs_seen_tag(uint64_t h) { return (uint32_t)(h >> 32) | 1; }

typedef struct ifs_seen {
  ifs_seen_slot *slots;
  size_t sets, ways;
  uint32_t rng;            /* xorshift state choosing the tag replaced */
} ifs_seen;

void ifs_seen_init(ifs_seen *s, size_t sets, size_t ways);
void ifs_seen_free(ifs_seen *s);

/* Remembers hash h; *before tells whether it was already there (not set
** when the record cannot be allocated: IFS_NOMEM). */
ifs_status ifs_seen_add(ifs_seen *s, uint64_t h, int *before);

/* ifs_seen_add(), with the time: *since is how far `now` (a count the
** caller keeps, such as rows) has moved since h was last seen (0 on a
** first sighting; a tag added by ifs_seen_add was seen at time 0). */
ifs_status ifs_seen_since(ifs_seen *s, uint64_t h, uint32_t now, int *before,
                          uint32_t *since);

/* The next value of a xorshift64 generator (its state never 0): what the
** caches pick to drop, the same on every run. */
static inline uint64_t ifs_xorshift64(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

/* Asks the CPU to bring the n bytes at p into its cache, every line at once,
** for data read soon after and likely cold (nothing where the compiler has
** no prefetch).  The empty asm is a side effect the compiler must keep: a
** prefetch alone has none, so a function that only prefetches (a loop, not
** inlined) was judged to do nothing and its calls were dropped. */
static inline void ifs_prefetch(const void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
  const char *c = p;
  size_t skew = (uintptr_t)c & 63;   /* the lines from p's own */
  for (size_t at = 0; at < n + skew; at += 64) __builtin_prefetch(c - skew + at);
  __asm__ volatile("" : : "r"(c));
#else
  (void)p;
  (void)n;
#endif
}

#endif
