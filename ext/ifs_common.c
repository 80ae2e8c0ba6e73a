/*
** ifs_common.c — the byte buffer, the arena, the hash of a text and the
** record of hashes seen, and when (see ifs_common.h).
**
** Entry points: ifs_buf_append(), ifs_arena_alloc(), ifs_hash_bytes(),
** ifs_seen_add(), ifs_seen_since().
*/
#include "ifs_common.h"
#include "ifs_simd.h"
#include <string.h>

void ifs_buf_init(ifs_buf *b) {
  b->p = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

void ifs_buf_free(ifs_buf *b) {
  ifs_free(b->p);
  ifs_buf_init(b);
}

void ifs_buf_clear(ifs_buf *b) {
  b->len = 0;
  b->oom = 0;
  if (b->p) b->p[0] = 0;
}

ifs_status ifs_buf_reserve(ifs_buf *b, size_t extra) {
  if (b->oom) return IFS_NOMEM;
  if (extra >= SIZE_MAX / 2 - b->len) { b->oom = 1; return IFS_NOMEM; }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return IFS_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = ifs_realloc(b->p, cap);
  if (!p) { b->oom = 1; return IFS_NOMEM; }
  b->p = p;
  b->cap = cap;
  return IFS_OK;
}

ifs_status ifs_buf_append(ifs_buf *b, const void *p, size_t n) {
  if (ifs_buf_reserve(b, n)) return IFS_NOMEM;
  if (n) memcpy(b->p + b->len, p, n);
  b->len += n;
  b->p[b->len] = 0;
  return IFS_OK;
}

ifs_status ifs_buf_append_char(ifs_buf *b, char c) {
  return ifs_buf_append(b, &c, 1);
}

ifs_status ifs_buf_append_u64(ifs_buf *b, uint64_t v) {
  char tmp[24];
  size_t i = sizeof tmp;
  do { tmp[--i] = (char)('0' + v % 10); v /= 10; } while (v);
  return ifs_buf_append(b, tmp + i, sizeof tmp - i);
}

ifs_status ifs_buf_append_cp(ifs_buf *b, uint32_t cp) {
  unsigned char t[4];
  return ifs_buf_append(b, t, ifs_utf8_put(t, cp));
}

/* SQLite's allocator promises 8-byte alignment, so blocks (a header of
** three words) hand out 8-byte aligned memory: enough for every value the
** core stores (pointers, size_t, double). */
struct ifs_arena_block {
  ifs_arena_block *next;
  size_t used, cap;
  unsigned char data[];
};

void ifs_arena_init(ifs_arena *a) { a->head = NULL; }

void *ifs_arena_alloc(ifs_arena *a, size_t n) {
  if (n > SIZE_MAX / 2) return NULL;
  n = (n + 7) & ~(size_t)7;
  ifs_arena_block *h = a->head;
  if (!h || h->cap - h->used < n) {
    size_t cap = n > 16384 ? n : 16384;
    if (h && h->cap * 2 > cap && h->cap < (1u << 24)) cap = h->cap * 2;
    h = ifs_malloc(sizeof *h + cap);
    if (!h) return NULL;
    h->next = a->head;
    h->used = 0;
    h->cap = cap;
    a->head = h;
  }
  void *p = h->data + h->used;
  h->used += n;
  return p;
}

void ifs_arena_reset(ifs_arena *a) {
  ifs_arena_block *h = a->head;
  if (!h) return;
  /* keep the newest (largest) block, free the rest */
  ifs_arena_block *rest = h->next;
  h->next = NULL;
  h->used = 0;
  while (rest) {
    ifs_arena_block *next = rest->next;
    ifs_free(rest);
    rest = next;
  }
}

void ifs_arena_free(ifs_arena *a) {
  ifs_arena_block *h = a->head;
  while (h) {
    ifs_arena_block *next = h->next;
    ifs_free(h);
    h = next;
  }
  a->head = NULL;
}

static uint64_t hash_mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0xFF51AFD7ED558CCDull;
  return h ^ (h >> 32);
}

static uint64_t hash_step(uint64_t h, const unsigned char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return hash_mix(h, w);
}

/* The last n % 8 bytes of s, in one step: the last eight bytes (some
** hashed already) when s has eight, else all of its one to seven (with the
** length in the hash, distinct texts of one length give distinct words).
** One multiply, not one a byte: a constraints text is hashed every row. */
static uint64_t hash_tail(uint64_t h, const unsigned char *s, size_t n) {
  if (n >= 8) return hash_step(h, s + n - 8);
  if (n < 4) return hash_mix(h, s[0] | (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16);
  uint32_t first, last;
  memcpy(&first, s, 4);
  memcpy(&last, s + n - 4, 4);
  return hash_mix(h, first | (uint64_t)last << 32);
}

/* ---- long texts: stripes of 64 bytes in eight lanes -------------------
**
** A constraints text of a table whose every row has its own (a kilobyte
** with a case's lists) is hashed every row.  Past STRIPED_MIN bytes its
** stripes of 64 go through eight 64-bit lanes, each word w of a lane
** added as acc += rotate32(w) + lo32(w ^ key) * hi32(w ^ key) (XXH3's
** accumulate, its secret eight fixed words): one 32x32-bit multiply per
** eight bytes, which SSE2 and NEON do for two lanes at once and AVX2 for
** four, where the step above is a 64-bit multiply and three more
** instructions per eight bytes, in a chain.  Every loop gives the same
** lanes, so the hash of a text is the same on every machine. */
#define STRIPE 64
#define STRIPED_MIN 256

static const uint64_t lane_key[8] = {
  0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull,
  0xFF51AFD7ED558CCDull, 0xC4CEB9FE1A85EC53ull, 0x85EBCA77C2B2AE63ull, 0x94D049BB133111EBull};

#if !IFS_V16 || defined(IFS_TESTING)
static void stripes_portable(uint64_t acc[8], const unsigned char *s, size_t stripes) {
  for (size_t i = 0; i < stripes; i++, s += STRIPE)
    for (int l = 0; l < 8; l++) {
      uint64_t w, k;
      memcpy(&w, s + 8 * l, 8);
      k = w ^ lane_key[l];
      acc[l] += (w << 32 | w >> 32) + (k & 0xFFFFFFFFu) * (k >> 32);
    }
}
#endif

#if IFS_X86_SIMD
static void stripes_sse2(uint64_t acc[8], const unsigned char *s, size_t stripes) {
  __m128i a[4], key[4];
  for (int r = 0; r < 4; r++) {
    a[r] = _mm_loadu_si128((const __m128i *)(const void *)(acc + 2 * r));
    key[r] = _mm_loadu_si128((const __m128i *)(const void *)(lane_key + 2 * r));
  }
  for (size_t i = 0; i < stripes; i++, s += STRIPE)
    for (int r = 0; r < 4; r++) {
      __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * r));
      __m128i k = _mm_xor_si128(w, key[r]);
      __m128i product = _mm_mul_epu32(k, _mm_srli_epi64(k, 32));
      a[r] = _mm_add_epi64(a[r], _mm_add_epi64(product, _mm_shuffle_epi32(w, 0xB1)));
    }
  for (int r = 0; r < 4; r++) _mm_storeu_si128((__m128i *)(void *)(acc + 2 * r), a[r]);
}

__attribute__((target("avx2"))) static void stripes_avx2(uint64_t acc[8],
                                                          const unsigned char *s,
                                                          size_t stripes) {
  __m256i a[2], key[2];
  for (int r = 0; r < 2; r++) {
    a[r] = IFS_LOAD32(acc + 4 * r);
    key[r] = IFS_LOAD32(lane_key + 4 * r);
  }
  for (size_t i = 0; i < stripes; i++, s += STRIPE)
    for (int r = 0; r < 2; r++) {
      __m256i w = IFS_LOAD32(s + 32 * r);
      __m256i k = _mm256_xor_si256(w, key[r]);
      __m256i product = _mm256_mul_epu32(k, _mm256_srli_epi64(k, 32));
      a[r] = _mm256_add_epi64(a[r], _mm256_add_epi64(product, _mm256_shuffle_epi32(w, 0xB1)));
    }
  for (int r = 0; r < 2; r++) _mm256_storeu_si256((__m256i *)(void *)(acc + 4 * r), a[r]);
}
#elif IFS_NEON
static void stripes_neon(uint64_t acc[8], const unsigned char *s, size_t stripes) {
  uint64x2_t a[4], key[4];
  for (int r = 0; r < 4; r++) {
    a[r] = vld1q_u64(acc + 2 * r);
    key[r] = vld1q_u64(lane_key + 2 * r);
  }
  for (size_t i = 0; i < stripes; i++, s += STRIPE)
    for (int r = 0; r < 4; r++) {
      uint64x2_t w = vreinterpretq_u64_u8(vld1q_u8(s + 16 * r));
      uint64x2_t k = veorq_u64(w, key[r]);
      uint64x2_t product = vmull_u32(vmovn_u64(k), vshrn_n_u64(k, 32));
      uint64x2_t rotated = vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(w)));
      a[r] = vaddq_u64(a[r], vaddq_u64(product, rotated));
    }
  for (int r = 0; r < 4; r++) vst1q_u64(acc + 2 * r, a[r]);
}
#endif

/* The lanes after the stripes of s (n / STRIPE of them), by the widest
** loop the CPU has. */
static void stripes(uint64_t acc[8], const unsigned char *s, size_t n) {
#if IFS_X86_SIMD
  if (__builtin_cpu_supports("avx2")) stripes_avx2(acc, s, n / STRIPE);
  else stripes_sse2(acc, s, n / STRIPE);
#elif IFS_NEON
  stripes_neon(acc, s, n / STRIPE);
#else
  stripes_portable(acc, s, n / STRIPE);
#endif
}

/* The hash of a long text: its stripes but the last, then its last 64
** bytes as one more (overlapping the stripe before unless n is a multiple
** of 64), by stripes_fn; each lane mixed apart (eight independent
** multiplies, not a chain of them) and summed. */
static uint64_t hash_striped(const unsigned char *s, size_t n,
                             void (*stripes_fn)(uint64_t[8], const unsigned char *, size_t)) {
  uint64_t acc[8];
  for (int l = 0; l < 8; l++) acc[l] = lane_key[l] ^ n;
  stripes_fn(acc, s, (n - 1) / STRIPE * STRIPE);
  stripes_fn(acc, s + n - STRIPE, STRIPE);
  uint64_t h = n * 0x9E3779B97F4A7C15ull;
  for (int l = 0; l < 8; l++) h += hash_mix(lane_key[l], acc[l]);
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

#ifdef IFS_TESTING
static void stripes_by_portable(uint64_t acc[8], const unsigned char *s, size_t n) {
  stripes_portable(acc, s, n / STRIPE);
}

#if IFS_X86_SIMD
static void stripes_by_sse2(uint64_t acc[8], const unsigned char *s, size_t n) {
  stripes_sse2(acc, s, n / STRIPE);
}
#endif

/* The hash of a long text by loop `loop` (0: portable, 1: SSE2 where the
** CPU is x86-64, else the widest it has), which must all agree (test
** only). */
uint64_t ifs_test_hash_by(int loop, const void *p, size_t n) {
  if (n < STRIPED_MIN) return ifs_hash_bytes(p, n);
  if (loop == 0) return hash_striped(p, n, stripes_by_portable);
#if IFS_X86_SIMD
  if (loop == 1) return hash_striped(p, n, stripes_by_sse2);
#endif
  return hash_striped(p, n, stripes);
}
#endif

uint64_t ifs_hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p;
  if (n >= STRIPED_MIN) return hash_striped(s, n, stripes);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  size_t i = 0;
  if (n >= 64) {   /* four independent lanes: a long key is not one long chain */
    uint64_t a = h, b = h ^ 0xC2B2AE3D27D4EB4Full, c = h ^ 0x165667B19E3779F9ull,
             d = h ^ 0x27D4EB2F165667C5ull;
    for (; i + 32 <= n; i += 32) {
      a = hash_step(a, s + i);
      b = hash_step(b, s + i + 8);
      c = hash_step(c, s + i + 16);
      d = hash_step(d, s + i + 24);
    }
    h = a ^ (b * 0x9E3779B97F4A7C15ull) ^ (c * 0xC2B2AE3D27D4EB4Full) ^ (d * 0x165667B19E3779F9ull);
  }
  for (; i + 8 <= n; i += 8) h = hash_step(h, s + i);
  if (i < n) h = hash_tail(h, s, n);
  /* A step's last bytes reach only the top of its product: one more
  ** multiply, so that every byte moves the low bits tables index by. */
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

void ifs_seen_init(ifs_seen *s, size_t sets, size_t ways) {
  s->slots = NULL;
  s->sets = sets;
  s->ways = ways;
  s->rng = 0x9E3779B9u;
}

void ifs_seen_free(ifs_seen *s) {
  ifs_free(s->slots);
  s->slots = NULL;
}

/* ifs_seen_add(): h's slot, or NULL when the record cannot be allocated. */
static ifs_seen_slot *seen_put(ifs_seen *s, uint64_t h, int *before) {
  size_t n = s->sets * s->ways;
  if (!s->slots) {
    if (!(s->slots = ifs_malloc(n * sizeof *s->slots))) return NULL;
    memset(s->slots, 0, n * sizeof *s->slots);
  }
  uint32_t tag = ifs_seen_tag(h);
  ifs_seen_slot *set = &s->slots[s->ways * (h & (s->sets - 1))];
  size_t empty = s->ways;
  for (size_t i = 0; i < s->ways; i++) {
    if (set[i].tag == tag) { *before = 1; return &set[i]; }
    if (!set[i].tag && empty == s->ways) empty = i;
  }
  if (empty == s->ways) {
    uint32_t x = s->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s->rng = x;
    empty = x & (s->ways - 1);   /* (a power of two) */
  }
  set[empty] = (ifs_seen_slot){tag, 0};
  *before = 0;
  return &set[empty];
}

ifs_status ifs_seen_add(ifs_seen *s, uint64_t h, int *before) {
  return seen_put(s, h, before) ? IFS_OK : IFS_NOMEM;
}

ifs_status ifs_seen_since(ifs_seen *s, uint64_t h, uint32_t now, int *before,
                          uint32_t *since) {
  ifs_seen_slot *slot = seen_put(s, h, before);
  if (!slot) return IFS_NOMEM;
  *since = *before ? now - slot->when : 0;
  slot->when = now;
  return IFS_OK;
}
