/*
** ifs_needle.c — case-insensitive needle search (see ifs_needle.h).
**
** Entry points: ifs_needle_init(), ifs_needle_find(), ifs_needle_at().
*/
#include "ifs_needle.h"
#include "ifs_simd.h"
#include "ifs_text.h"
#include <string.h>
#if IFS_X86_SIMD
#define IFS_AVX2 1
#define AVX2_TARGET __attribute__((target("avx2")))
#else
#define IFS_AVX2 0
#endif

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

static unsigned char utf8_last_byte(uint32_t cp) {
  return (unsigned char)(cp < 0x80 ? cp : 0x80 | (cp & 0x3F));
}

/* Adds byte b to the set, merging it with a member that differs from it
** in one bit only (a letter and its other case). */
static void byteset_add(ifs_byteset *s, unsigned char b) {
  for (int i = 0; i < s->n; i++) {
    unsigned char diff = (unsigned char)(s->want[i] ^ b) & (unsigned char)~s->fold[i];
    if (diff == 0) return;
    if ((diff & (diff - 1)) == 0 && s->fold[i] == 0) {
      s->fold[i] = diff;
      s->want[i] |= diff;
      return;
    }
  }
  s->fold[s->n] = 0;
  s->want[s->n] = b;
  s->n++;
}

static int byteset_has(const ifs_byteset *s, unsigned char b) {
  for (int i = 0; i < s->n; i++)
    if ((unsigned char)(b | s->fold[i]) == s->want[i]) return 1;
  return 0;
}

/* The set of an ASCII byte and, for a lowercase letter, its capital: one
** member, as byteset_add() would make it. */
static void ascii_cases(ifs_byteset *s, unsigned char c) {
  s->n = 1;
  s->fold[0] = (unsigned)(c - 'a') < 26u ? 0x20 : 0;
  s->want[0] = c;
}

/* An ASCII character whose only sources are itself and its capital: not
** k (KELVIN SIGN lowers to it), nor a capital (no source: not lowered). */
static int ascii_plain(unsigned char c) {
  return c < 0x80 && c != 'k' && (unsigned)(c - 'A') >= 26u;
}

void ifs_needle_init(ifs_needle *nd, const char *low, size_t len) {
  memset(nd, 0, sizeof *nd);
  nd->low = low;
  nd->len = len;
  nd->ascii = ifs_is_ascii(low, len);
  if (nd->ascii) {   /* in ASCII text a letter's sources are its two cases */
    /* only KELVIN SIGN lowers into ASCII from outside it, and only to k:
    ** a match of a needle without k is as many ASCII bytes (a capital, not
    ** in a lowered needle, would match nothing either way) */
    nd->plain = memchr(low, 'k', len) == NULL;
    ascii_cases(&nd->ascii_first, (unsigned char)low[0]);
    ascii_cases(&nd->ascii_last, (unsigned char)low[len - 1]);
    if (ascii_plain((unsigned char)low[0]) &&
        (len == 1 || ascii_plain((unsigned char)low[1]))) {   /* most needles: no decoding */
      nd->first = nd->ascii_first;
      if (len > 1) {
        ascii_cases(&nd->second, (unsigned char)low[1]);
        nd->second_at = 1;
      }
      return;
    }
  }
  size_t i = 0;
  uint32_t src[3];
  uint32_t c1 = ifs_decode(low, len, &i);
  size_t k = ifs_lower_preimages(c1, src);
  for (size_t j = 0; j < k; j++) byteset_add(&nd->first, utf8_last_byte(src[j]));
  if (i >= len) return;
  /* Character 2 starts right after the byte the first set tests; its last
  ** byte is a fixed distance away when all its sources have one length. */
  uint32_t c2 = ifs_decode(low, len, &i);
  k = ifs_lower_preimages(c2, src);
  size_t at = ifs_utf8_len(src[0]);
  for (size_t j = 1; j < k; j++)
    if (ifs_utf8_len(src[j]) != at) at = 0;
  if (at == 0) {
    return;   /* mixed lengths (K and KELVIN SIGN): the first set alone */
  }
  for (size_t j = 0; j < k; j++) byteset_add(&nd->second, utf8_last_byte(src[j]));
  nd->second_at = at;
}

/* How many bytes from h[t] and low[j] on are the same, cut back to whole
** characters (both are at a character's start).  A character the text
** holds in the needle's own bytes lowers to itself, as the needle is
** lowered and lowering a lowercase character changes nothing. */
static size_t same_chars(const char *low, size_t len, size_t j, const char *h, size_t n,
                         size_t t) {
  size_t same = 0;
  while (j + same < len && t + same < n && h[t + same] == low[j + same]) same++;
  if (j + same < len)
    while (same > 0 && is_cont((unsigned char)low[j + same])) same--;
  return same;
}

/* 1 when the text's characters from the one holding byte p onwards lower
** to low[0..len) (the run compared is a real run of characters wherever p
** falls, so a hit is genuine); *work counts the bytes and characters
** compared. */
static int decode_at(const char *low, size_t len, const char *h, size_t n, size_t p,
                     size_t *work) {
  const unsigned char *u = (const unsigned char *)h;
  size_t k = p;
  while (k > 0 && p - k < 3 && is_cont(u[k])) k--;
  if (is_cont(u[k])) return 0;
  size_t t = k, j = 0;
  for (;;) {
    size_t same = same_chars(low, len, j, h, n, t);
    j += same;
    t += same;
    *work += same;
    if (j >= len) return 1;
    if (t >= n) return 0;
    uint32_t want = ifs_decode(low, len, &j);
    uint32_t got = ifs_decode(h, n, &t);
    ++*work;
    if (ifs_lower_char(got) != want) return 0;
  }
}

/* An ASCII needle at p, letter case aside, as far as the text is ASCII:
** 1 or 0 when that decides, -1 at a non-ASCII byte (p + *i). */
static int ascii_prefix_at(const char *low, size_t len, const char *h, size_t n, size_t p,
                           size_t *i) {
  if (n - p < len) return 0;
  const uint64_t ones = 0x0101010101010101ull, high = 0x80 * ones;
  /* Eight bytes a step to the first that, its letter lowered, differs from
  ** the needle's (a non-ASCII byte always does: the needle is ASCII); the
  ** byte loop decides there.  Stopping early costs only a few bytes' loop. */
  for (*i = 0; *i + 8 <= len; *i += 8) {
    uint64_t w, want;
    memcpy(&w, h + p + *i, 8);
    memcpy(&want, low + *i, 8);
    uint64_t a = w & ~high;   /* below 0x80: no carry from byte to byte */
    uint64_t upper = (a + (0x80 - 'A') * ones) & ~(a + (0x80 - 'Z' - 1) * ones) & high;
    uint64_t stop = (w | upper >> 2) ^ want;
    if (stop) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      *i += (size_t)__builtin_ctzll(stop) / 8;
#endif
      break;   /* (else the byte loop finds it from the step's start) */
    }
  }
  for (; *i < len; ++*i) {
    unsigned char c = (unsigned char)h[p + *i];
    if (c >= 0x80) return -1;
    if ((unsigned)(c - 'A') < 26u) c = (unsigned char)(c + 32);
    if (c != (unsigned char)low[*i]) return 0;
  }
  return 1;
}

/* In ASCII text, the needle (ASCII too) at p, letter case aside. */
static int verify_ascii_at(const ifs_needle *nd, const char *h, size_t n, size_t p, size_t *work) {
  size_t i = 0;
  *work += nd->len;
  return ascii_prefix_at(nd->low, nd->len, h, n, p, &i) == 1;
}

static int verify(const ifs_needle *nd, const char *h, size_t n, size_t p, int ascii,
                  size_t *work) {
  return ascii ? verify_ascii_at(nd, h, n, p, work) : decode_at(nd->low, nd->len, h, n, p, work);
}

int ifs_needle_at(const char *low, size_t len, int low_ascii, const char *h, size_t n, size_t p,
                  size_t *work) {
  if (!low_ascii) return decode_at(low, len, h, n, p, work);
  /* an ASCII needle: bytes compared while the text is ASCII too (a
  ** character that is not ends the short way: KELVIN SIGN lowers to k) */
  size_t i = 0;
  int rc = ascii_prefix_at(low, len, h, n, p, &i);
  *work += i + 1;
  if (rc >= 0) return rc;
  return decode_at(low, len, h, n, p, work);
}

/* Positions p in [from, to) where the filters hold, verified one by one. */
static int scan_bytes(const ifs_needle *nd, const char *h, size_t n, size_t from, size_t to,
                      int ascii, size_t *work, size_t budget) {
  for (size_t p = from; p < to; p++) {
    if (!byteset_has(&nd->first, (unsigned char)h[p])) continue;
    if (nd->second_at && (p + nd->second_at >= n ||
                          !byteset_has(&nd->second, (unsigned char)h[p + nd->second_at])))
      continue;
    if (verify(nd, h, n, p, ascii, work)) return 1;
    if (*work > budget) return -1;
  }
  return 0;
}

#if IFS_V16
/* 0xFF in each byte of v that is in the set (SSE2 or NEON). */
static ifs_v16 byteset_match(const ifs_byteset *s, ifs_v16 v) {
  ifs_v16 m = ifs_v16_splat(0);
  for (int i = 0; i < s->n; i++)
    m = ifs_v16_or(m, ifs_v16_eq(ifs_v16_or(v, ifs_v16_splat(s->fold[i])),
                                 ifs_v16_splat(s->want[i])));
  return m;
}

/* The ASCII search sixteen positions at a time (mid: the middle byte's
** set); *p is where it stopped. */
static int find_ascii_v16(const ifs_needle *nd, const ifs_byteset *mid, const char *h, size_t n,
                          size_t *p, size_t *work, size_t budget) {
  size_t last = nd->len - 1, middle = nd->len / 2;
  for (; *p + last + 16 <= n; *p += 16) {
    ifs_v16 m = ifs_v16_and(byteset_match(&nd->ascii_first, ifs_v16_load(h + *p)),
                            byteset_match(&nd->ascii_last, ifs_v16_load(h + *p + last)));
    m = ifs_v16_and(m, byteset_match(mid, ifs_v16_load(h + *p + middle)));
    uint64_t mask = ifs_v16_one_bit_each(ifs_v16_bits(m));
    while (mask) {
      size_t at = *p + ifs_v16_first(mask);
      mask &= mask - 1;
      if (verify_ascii_at(nd, h, n, at, work)) return 1;
      if (*work > budget) return -1;
    }
  }
  return 0;
}
#endif

#if IFS_AVX2
AVX2_TARGET static __m256i byteset_match32(const ifs_byteset *s, __m256i v) {
  __m256i m = _mm256_setzero_si256();
  for (int i = 0; i < s->n; i++)
    m = _mm256_or_si256(m, _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8((char)s->fold[i])),
                                             _mm256_set1_epi8((char)s->want[i])));
  return m;
}

/* 0xFF in each byte of v that is in s, a set of one member (a letter's two
** cases, or one byte): one comparison, its vectors made once before a loop. */
AVX2_TARGET static inline __m256i one_member32(const ifs_byteset *s, __m256i v) {
  return _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8((char)s->fold[0])),
                           _mm256_set1_epi8((char)s->want[0]));
}

/* next_candidates() for two sets of one member each. */
AVX2_TARGET static unsigned next_candidates_1(const ifs_byteset *a, const ifs_byteset *b,
                                              size_t reach, const char *h, size_t n, size_t *q) {
  unsigned mask = 0;
  size_t at = *q;
  for (; at + reach + 32 <= n && !mask; at += 32)
    mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(
        one_member32(a, IFS_LOAD32(h + at)), one_member32(b, IFS_LOAD32(h + at + reach))));
  *q = at;
  return mask;
}

/* The candidates of the first block from *q on that has any, where byte
** set a holds and, reach bytes on, set b (reach 0: a alone); 0 when none
** before the end.  *q is left past the block. */
AVX2_TARGET static unsigned next_candidates(const ifs_byteset *a, const ifs_byteset *b,
                                            size_t reach, const char *h, size_t n, size_t *q) {
  if (reach && a->n == 1 && b->n == 1) return next_candidates_1(a, b, reach, h, n, q);
  unsigned mask = 0;
  size_t at = *q;
  for (; at + reach + 32 <= n && !mask; at += 32) {
    __m256i m = byteset_match32(a, IFS_LOAD32(h + at));
    if (reach) m = _mm256_and_si256(m, byteset_match32(b, IFS_LOAD32(h + at + reach)));
    mask = (unsigned)_mm256_movemask_epi8(m);
  }
  *q = at;
  return mask;
}

/* The search by decoding 32 positions at a time from *p (where it
** stopped), the candidates of a block verified once the filter has found
** them, so that the filter's loop holds no state around a verification. */
AVX2_TARGET static int find_avx2(const ifs_needle *nd, const char *h, size_t n, size_t *p,
                                 size_t *work, size_t budget) {
  for (;;) {
    unsigned mask = next_candidates(&nd->first, &nd->second, nd->second_at, h, n, p);
    if (!mask) return 0;
    for (; mask; mask &= mask - 1) {
      size_t at = *p - 32 + (size_t)__builtin_ctz(mask);
      if (decode_at(nd->low, nd->len, h, n, at, work)) return 1;
      if (*work > budget) return -1;
    }
  }
}

/* 0xFF at each of the 32 positions from at where the text holds the
** needle's first, middle and last bytes (each set one member, a letter's
** two cases). */
AVX2_TARGET static inline __m256i ascii_candidates32(const ifs_needle *nd, const ifs_byteset *mid,
                                                     const char *h, size_t at, size_t middle,
                                                     size_t last) {
  __m256i m = _mm256_and_si256(one_member32(&nd->ascii_first, IFS_LOAD32(h + at)),
                               one_member32(&nd->ascii_last, IFS_LOAD32(h + at + last)));
  return _mm256_and_si256(m, one_member32(mid, IFS_LOAD32(h + at + middle)));
}

/* The ASCII search from *p, as find_avx2(), to the text's end: 64
** positions a step (one branch for two vectors), then 32, then a step that
** ends where the text does, the positions tested before it masked off (a
** byte loop there would take a branch at each, mispredicted at random). */
AVX2_TARGET static int find_ascii_avx2(const ifs_needle *nd, const ifs_byteset *mid,
                                       const char *h, size_t n, size_t *p, size_t *work,
                                       size_t budget) {
  const size_t last = nd->len - 1, middle = nd->len / 2;
  if (n - *p < last + 32) return 0;
  const size_t end = n - last - 32;   /* the last step's first position */
  for (;;) {
    uint64_t mask = 0;
    size_t at = *p, base = at;   /* mask's bit i: position base + i */
    for (; !mask && at + 32 <= end; at += 64) {
      __m256i a = ascii_candidates32(nd, mid, h, at, middle, last),
              b = ascii_candidates32(nd, mid, h, at + 32, middle, last);
      __m256i any = _mm256_or_si256(a, b);
      if (_mm256_testz_si256(any, any)) continue;
      mask = (unsigned)_mm256_movemask_epi8(a) |
             (uint64_t)(unsigned)_mm256_movemask_epi8(b) << 32;
      base = at;
    }
    if (!mask && at <= end) {
      mask = (unsigned)_mm256_movemask_epi8(ascii_candidates32(nd, mid, h, at, middle, last));
      base = at;
      at += 32;
    }
    if (!mask && at < end + 32) {   /* the last step, overlapping the one before (by 1-31) */
      mask = (unsigned)_mm256_movemask_epi8(ascii_candidates32(nd, mid, h, end, middle, last)) &
             ~0u << (at - end);
      base = end;
      at = end + 32;
    }
    *p = at;
    if (!mask) return 0;
    for (; mask; mask &= mask - 1) {
      if (verify_ascii_at(nd, h, n, base + (size_t)__builtin_ctzll(mask), work)) return 1;
      if (*work > budget) return -1;
    }
  }
}
#endif

/* An ASCII needle in ASCII text, or a plain one in any text: its first,
** middle and last bytes (either case) filter the positions, which are then
** compared (a byte that is not ASCII ends a comparison: it holds no match).
** With the first and last alone, English lets through many positions that
** are not matches, and each candidate costs a branch mispredicted.  (In a
** needle of one or two bytes the middle one is one of the others.) */
static int find_ascii(const ifs_needle *nd, const char *h, size_t n) {
  size_t work = 0, budget = 4 * n + 4096, p = 0, last = nd->len - 1, middle = nd->len / 2;
  ifs_byteset mid;
  ascii_cases(&mid, (unsigned char)nd->low[middle]);
#if IFS_AVX2
  if (__builtin_cpu_supports("avx2")) {
    int rc = find_ascii_avx2(nd, &mid, h, n, &p, &work, budget);
    if (rc) return rc;
  }
#endif
#if IFS_V16
  int rc = find_ascii_v16(nd, &mid, h, n, &p, &work, budget);
  if (rc) return rc;
#endif
  for (; p + last < n; p++) {
    if (!byteset_has(&nd->ascii_first, (unsigned char)h[p]) ||
        !byteset_has(&mid, (unsigned char)h[p + middle]) ||
        !byteset_has(&nd->ascii_last, (unsigned char)h[p + last]))
      continue;
    if (verify_ascii_at(nd, h, n, p, &work)) return 1;
    if (work > budget) return -1;
  }
  return 0;
}

/* 1 found, 0 not, -1 when verification passed its budget. */
static int find(const ifs_needle *nd, const char *h, size_t n, int ascii) {
  /* An ASCII text lowers to ASCII: no other needle is in it.  A plain
  ** needle's match is its own bytes in any text: no decoding, and its last
  ** byte a fixed distance on (the second character's is common next to the
  ** first: "th", "in"). */
  if (ascii || nd->plain) return nd->ascii ? find_ascii(nd, h, n) : 0;
  /* Verification is capped so that no text makes the search quadratic. */
  size_t work = 0, budget = 4 * n + 4096, p = 0;
#if IFS_AVX2
  if (__builtin_cpu_supports("avx2")) {
    int rc = find_avx2(nd, h, n, &p, &work, budget);
    if (rc) return rc;
  }
#endif
#if IFS_V16
  size_t reach = nd->second_at;   /* bytes read past p */
  for (; p + reach + 16 <= n; p += 16) {
    ifs_v16 m = byteset_match(&nd->first, ifs_v16_load(h + p));
    if (reach) m = ifs_v16_and(m, byteset_match(&nd->second, ifs_v16_load(h + p + reach)));
    uint64_t mask = ifs_v16_one_bit_each(ifs_v16_bits(m));
    while (mask) {
      size_t at = p + ifs_v16_first(mask);
      mask &= mask - 1;
      if (verify(nd, h, n, at, ascii, &work)) return 1;
      if (work > budget) return -1;
    }
  }
#endif
  return scan_bytes(nd, h, n, p, n, ascii, &work, budget);
}

ifs_status ifs_needle_find(const ifs_needle *nd, const char *h, size_t n, int ascii,
                           int *found) {
  int r = find(nd, h, n, ascii);
  *found = r > 0;
  return r < 0 ? IFS_LIMIT : IFS_OK;
}
