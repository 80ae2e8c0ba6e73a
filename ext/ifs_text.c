/*
** ifs_text.c — Python-compatible text operations (see ifs_text.h).
**
** The hot loops (words, chars, lower) have ASCII fast paths; non-ASCII
** characters are decoded only where their value matters.
**
** Entry points: ifs_utf8_scan(), ifs_count(), ifs_lower(), ifs_find(),
** ifs_to_internal() and ifs_to_external().
*/
#include "ifs_text.h"
#include "ifs_unicode_tables.h"
#include "ifs_simd.h"
#include <string.h>
/* SSSE3 kernels are compiled for any x86-64 and used where the CPU has it. */
#if IFS_X86_SIMD
#define SIMD_TARGET __attribute__((target("ssse3,popcnt")))
#endif

/* The word-at-a-time loops read 8 bytes as one little-endian word; elsewhere
** they step aside for the byte loops. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define IFS_LITTLE_ENDIAN 1
#else
#define IFS_LITTLE_ENDIAN 0
#endif

/* Length of the well-formed UTF-8 sequence at s[i], or 0 (Unicode table 3-7). */
static size_t utf8_seq_len(const unsigned char *s, size_t n, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t left = n - i;
  unsigned char lo = 0x80, hi = 0xBF;
  size_t len;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else return 0;
  if (left < len) return 0;
  if (s[i + 1] < lo || s[i + 1] > hi) return 0;
  for (size_t k = 2; k < len; k++)
    if ((s[i + k] & 0xC0) != 0x80) return 0;
  return len;
}

int ifs_is_ascii(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, u + i, 8);
    if (w & 0x8080808080808080ull) return 0;
  }
  for (; i < n; i++)
    if (u[i] & 0x80) return 0;
  return 1;
}

int ifs_may_meet_context(const char *s, size_t n) {
  return n && (memchr(s, 0xCC, n) || memchr(s, 0xCF, n));
}

/* Bit 7 of each byte of w that is a continuation byte (10xxxxxx). */
static inline uint64_t cont_bits(uint64_t w) {
  return w & ~(w << 1) & 0x8080808080808080ull;
}

/* Number of bytes whose bit 7 is set in a mask holding only such bits
** (no popcount instruction assumed: a multiply sums the bytes). */
static inline size_t count_high_bits(uint64_t m) {
  return (size_t)(((m >> 7) * 0x0101010101010101ull) >> 56);
}

static inline uint64_t load8(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* 1 when w (8 bytes) is four well-formed two-byte sequences (lead bytes
** C2..DF, then a continuation byte): a run of Cyrillic, Greek or accented
** Latin letters, checked in one go. */
static inline int four_two_byte_chars(uint64_t w) {
  if (!IFS_LITTLE_ENDIAN) return 0;
  if ((w & 0xC0E0C0E0C0E0C0E0ull) != 0x80C080C080C080C0ull) return 0;
  uint64_t leads = w & 0x001E001E001E001Eull;   /* zero only for C0/C1 */
  return ((leads + 0x7FFF7FFF7FFF7FFFull) & 0x8000800080008000ull) == 0x8000800080008000ull;
}

int ifs_utf8_is_valid_bytes(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned char c = u[i];
    if (c < 0x80) {
      while (i + 16 <= n && !((load8(u + i) | load8(u + i + 8)) & 0x8080808080808080ull))
        i += 16;
      while (i < n && u[i] < 0x80) i++;
      continue;
    }
    /* Two-byte sequences (Latin, Greek, Cyrillic...) are the common case. */
    while (i + 8 <= n && four_two_byte_chars(load8(u + i))) i += 8;
    if (i < n && u[i] >= 0xC2 && u[i] <= 0xDF && i + 1 < n && (u[i + 1] & 0xC0) == 0x80) {
      i += 2;
      continue;
    }
    if (i >= n) break;
    c = u[i];
    if (c < 0x80) continue;
    /* Three-byte sequences without the E0/ED special cases (punctuation
    ** such as quotes and dashes, CJK). */
    if (((c >= 0xE1 && c <= 0xEC) || c >= 0xEE) && c <= 0xEF && i + 2 < n &&
        (u[i + 1] & 0xC0) == 0x80 && (u[i + 2] & 0xC0) == 0x80) {
      i += 3;
      continue;
    }
    size_t len = utf8_seq_len(u, n, i);
    if (!len) return 0;
    i += len;
  }
  return 1;
}

/* U+DC00+byte as internal UTF-8: ED B2|B3 xx. */
static void escape_byte(unsigned char b, unsigned char out[3]) {
  uint32_t cp = 0xDC00u + b;
  out[0] = 0xED;
  out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  out[2] = (unsigned char)(0x80 | (cp & 0x3F));
}

ifs_status ifs_to_internal(const char *s, size_t n, ifs_buf *out) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, run = 0;
  if (ifs_buf_reserve(out, n)) return IFS_NOMEM;
  while (i < n) {
    size_t len = utf8_seq_len(u, n, i);
    if (len) { i += len; continue; }
    unsigned char esc[3];
    escape_byte(u[i], esc);
    if (ifs_buf_append(out, s + run, i - run) || ifs_buf_append(out, esc, 3))
      return IFS_NOMEM;
    run = ++i;
  }
  return ifs_buf_append(out, s + run, n - run);
}

/* An escaped byte U+DC80..U+DCFF is ED B2 xx or ED B3 xx. */
static int is_escaped_byte_at(const unsigned char *u, size_t n, size_t i) {
  return u[i] == 0xED && i + 2 < n && (u[i + 1] == 0xB2 || u[i + 1] == 0xB3);
}

int ifs_has_escaped_bytes(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  const unsigned char *p = u;
  while ((p = memchr(p, 0xED, n - (size_t)(p - u))) != NULL) {
    if (is_escaped_byte_at(u, n, (size_t)(p - u))) return 1;
    p++;
  }
  return 0;
}

ifs_status ifs_to_external(const char *s, size_t n, ifs_buf *out) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, run = 0;
  if (ifs_buf_reserve(out, n)) return IFS_NOMEM;
  while (i < n) {
    if (!is_escaped_byte_at(u, n, i)) { i++; continue; }
    char raw = (char)(((u[i + 1] & 0x3F) << 6 | (u[i + 2] & 0x3F)) & 0xFF);
    if (ifs_buf_append(out, s + run, i - run) || ifs_buf_append(out, &raw, 1))
      return IFS_NOMEM;
    i += 3;
    run = i;
  }
  return ifs_buf_append(out, s + run, n - run);
}

uint32_t ifs_decode(const char *s, size_t n, size_t *i) {
  const unsigned char *u = (const unsigned char *)s;
  size_t k = *i;
  unsigned char c = u[k];
  size_t len = c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0;
  if (len == 1) { *i = k + 1; return c; }
  if (len == 0 || n - k < len) { *i = k + 1; return 0xDC00u + c; }
  uint32_t cp = c & (0x7F >> len);
  for (size_t j = 1; j < len; j++) {
    if ((u[k + j] & 0xC0) != 0x80) { *i = k + 1; return 0xDC00u + c; }
    cp = (cp << 6) | (u[k + j] & 0x3F);
  }
  *i = k + len;
  return cp;
}

uint32_t ifs_decode_prev(const char *s, size_t *i) {
  const unsigned char *u = (const unsigned char *)s;
  size_t end = *i, k = end;
  /* Internal text is well formed, so at most three continuation bytes. */
  while (k > 0 && end - k < 4 && (u[k - 1] & 0xC0) == 0x80) k--;
  if (k > 0 && end - k < 4) k--;
  size_t j = k;
  uint32_t cp = ifs_decode(s, end, &j);
  if (j != end) { k = end - 1; cp = 0xDC00u + u[k]; }
  *i = k;
  return cp;
}

int ifs_isspace(uint32_t cp) {
  size_t lo = 0, hi = sizeof ifs_space_ranges / sizeof ifs_space_ranges[0];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp < ifs_space_ranges[mid][0]) hi = mid;
    else if (cp > ifs_space_ranges[mid][1]) lo = mid + 1;
    else return 1;
  }
  return 0;
}

void ifs_space_table(const uint32_t (**ranges)[2], size_t *n) {
  *ranges = ifs_space_ranges;
  *n = sizeof ifs_space_ranges / sizeof ifs_space_ranges[0];
}

/* 1 when the non-ASCII character at s[i] (lead byte) is Python whitespace;
** only lead bytes C2, E1, E2 and E3 can start one. */
static int nonascii_space_at(const unsigned char *u, size_t n, size_t i) {
  unsigned char c = u[i];
  if (c != 0xC2 && (c < 0xE1 || c > 0xE3)) return 0;
  size_t j = i;
  return ifs_isspace(ifs_decode((const char *)u, n, &j));
}

static const unsigned char ascii_space[128] = {
  ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
  [0x1C] = 1, [0x1D] = 1, [0x1E] = 1, [0x1F] = 1, [' '] = 1,
};

/* Bit 7 set in each byte of an all-ASCII word w that lies in [lo, lo+k). */
static inline uint64_t ascii_in_range(uint64_t w, unsigned lo, unsigned k) {
  const uint64_t ones = 0x0101010101010101ull;
  uint64_t ge_lo = w + ones * (0x80 - lo);
  uint64_t ge_hi = w + ones * (0x80 - lo - k);
  return ge_lo & ~ge_hi & 0x8080808080808080ull;
}

/* Python whitespace bytes of an all-ASCII word: 09..0D and 1C..20. */
static inline uint64_t ascii_space_bits(uint64_t w) {
  return ascii_in_range(w, 0x09, 5) | ascii_in_range(w, 0x1C, 5);
}

/* Bit 7 set in each byte of w equal to b. */
static inline uint64_t bytes_equal(uint64_t w, unsigned char b) {
  uint64_t x = w ^ (0x0101010101010101ull * b);
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/* 1 when w holds a lead byte of a non-ASCII whitespace character: C2
** (U+0085, U+00A0), E1 (U+1680), E2 (U+2000..U+205F), E3 (U+3000). */
static inline int has_space_lead(uint64_t w) {
  return (bytes_equal(w, 0xC2) | bytes_equal(w, 0xE1) | bytes_equal(w, 0xE2) |
          bytes_equal(w, 0xE3)) != 0;
}

void ifs_count_bytes(const char *s, size_t n, size_t *words_out, size_t *chars_out) {
  const unsigned char *u = (const unsigned char *)s;
  size_t words = 0, cont = 0, i = 0;
  uint64_t prev_word = 0;   /* bit 7 set when the previous character was not space */
  while (i < n) {
    /* Eight bytes at once when they start a character and hold no lead of
    ** a non-ASCII space: then only their ASCII bytes can be spaces, and the
    ** bytes of a multi-byte character are all "word". */
    if (IFS_LITTLE_ENDIAN && i + 8 <= n && (u[i] & 0xC0) != 0x80) {
      uint64_t w = load8(u + i);
      uint64_t high = w & 0x8080808080808080ull;
      if (!high || !has_space_lead(w)) {
        uint64_t space = ascii_space_bits(w & 0x7F7F7F7F7F7F7F7Full) & ~high;
        uint64_t word = ~space & 0x8080808080808080ull;
        uint64_t starts = word & ~((word << 8) | prev_word) & ~cont_bits(w);
        words += count_high_bits(starts);
        cont += count_high_bits(cont_bits(w));
        prev_word = (word >> 56) & 0x80;
        i += 8;
        continue;
      }
    }
    unsigned char c = u[i];
    int space;
    if (c < 0x80) space = ascii_space[c];
    else if (c < 0xC0) { cont++; i++; continue; }   /* same character */
    else space = nonascii_space_at(u, n, i);
    if (!space && !prev_word) words++;
    prev_word = space ? 0 : 0x80;
    i++;
  }
  *words_out = words;
  *chars_out = n - cont;
}

#if IFS_X86_SIMD || IFS_NEON
/* UTF-8 validation sixteen bytes at a time by nibble lookups (the method
** of Keiser and Lemire, "Validating UTF-8 in less than one instruction per
** byte", 2021).  Each byte pair (previous, current) is classified by three
** 16-entry tables whose AND is non-zero exactly for the invalid pairs; a
** continuation byte is further required two and three bytes after a lead
** of a 3- or 4-byte sequence.  The lookups are pshufb on x86 (SSSE3, AVX2)
** and tbl on NEON. */
enum {
  TOO_SHORT = 1 << 0,   /* lead not followed by a continuation */
  TOO_LONG = 1 << 1,    /* ASCII followed by a continuation */
  OVERLONG_3 = 1 << 2,  /* E0 80..9F */
  TOO_LARGE = 1 << 3,   /* F4 90..BF, F5..FF + 90..BF */
  SURROGATE = 1 << 4,   /* ED A0..BF */
  OVERLONG_2 = 1 << 5,  /* C0, C1 + continuation */
  TOO_LARGE_1000 = 1 << 6, /* F5..FF 80..8F */
  OVERLONG_4 = 1 << 6,  /* F0 80..8F */
  TWO_CONTS = 1 << 7    /* continuation after continuation */
};
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

/* Indexed by the high nibble of the first byte of a pair, its low nibble,
** and the high nibble of the second byte. */
static const unsigned char first_high_tbl[16] = {
  TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
  TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
  TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
  TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4};
static const unsigned char first_low_tbl[16] = {
  CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
  CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
  CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000};
static const unsigned char second_high_tbl[16] = {
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT};
#endif

#if IFS_X86_SIMD
/* ---- SSSE3 kernels, chosen at run time ------------------------------ */

/* Every x86-64 CPU since 2008 has SSSE3 and POPCNT; the byte loops above
** stay for the others and as the reference the tests compare against. */
static int simd_ok(void) {
  return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("popcnt");
}

SIMD_TARGET static __m128i load16(const unsigned char *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}

SIMD_TARGET static __m128i utf8_pair_errors(__m128i in, __m128i prev_in) {
  const __m128i nib = _mm_set1_epi8(0x0F);
  const __m128i first_high = load16(first_high_tbl);
  const __m128i first_low = load16(first_low_tbl);
  const __m128i second_high = load16(second_high_tbl);
  __m128i prev1 = _mm_alignr_epi8(in, prev_in, 15);
  __m128i special = _mm_and_si128(
      _mm_and_si128(_mm_shuffle_epi8(first_high, _mm_and_si128(_mm_srli_epi16(prev1, 4), nib)),
                    _mm_shuffle_epi8(first_low, _mm_and_si128(prev1, nib))),
      _mm_shuffle_epi8(second_high, _mm_and_si128(_mm_srli_epi16(in, 4), nib)));
  /* bytes 2 and 3 after a lead of a 3- / 4-byte sequence */
  __m128i prev2 = _mm_alignr_epi8(in, prev_in, 14);
  __m128i prev3 = _mm_alignr_epi8(in, prev_in, 13);
  __m128i must_cont = _mm_or_si128(_mm_subs_epu8(prev2, _mm_set1_epi8(0xE0 - 0x80)),
                                   _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80))));
  must_cont = _mm_and_si128(must_cont, _mm_set1_epi8((char)0x80));
  return _mm_xor_si128(must_cont, special);
}

/* Byte pairs C4 B0 (U+0130) and CE A3 (U+03A3), the characters that
** lower() does not map one to one. */
SIMD_TARGET static __m128i special_lower_pairs(__m128i in, __m128i prev_in) {
  __m128i prev1 = _mm_alignr_epi8(in, prev_in, 15);
  return _mm_or_si128(
      _mm_and_si128(_mm_cmpeq_epi8(prev1, _mm_set1_epi8((char)0xC4)),
                    _mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xB0))),
      _mm_and_si128(_mm_cmpeq_epi8(prev1, _mm_set1_epi8((char)0xCE)),
                    _mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xA3))));
}

SIMD_TARGET static void scan_ssse3(const unsigned char *u, size_t n, ifs_scan *out) {
  __m128i prev = _mm_setzero_si128(), err = _mm_setzero_si128(), special = err;
  int high = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i in = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
    /* an ASCII block only has to see the previous one's sequences end */
    int in_high = _mm_movemask_epi8(in);
    if (in_high == 0 && _mm_movemask_epi8(prev) == 0) { prev = in; continue; }
    high |= in_high;
    err = _mm_or_si128(err, utf8_pair_errors(in, prev));
    special = _mm_or_si128(special, special_lower_pairs(in, prev));
    prev = in;
  }
  /* The tail and then NULs, as in scan_avx2(). */
  if (n < 16 || _mm_movemask_epi8(load16(u + n - 16))) {
    unsigned char pad[16] = {0};
    memcpy(pad, u + i, n - i);
    __m128i in = _mm_loadu_si128((const __m128i *)(const void *)pad);
    high |= _mm_movemask_epi8(in);
    err = _mm_or_si128(err, utf8_pair_errors(in, prev));
    special = _mm_or_si128(special, special_lower_pairs(in, prev));
  }
  out->valid = _mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) == 0xFFFF;
  out->ascii = high == 0;
  out->plain_lower = _mm_movemask_epi8(special) == 0;
}
#endif

#if IFS_X86_SIMD
/* The same scan 32 bytes at a time with AVX2 (the two 128-bit lanes each
** look up the same tables; the previous bytes cross the lane boundary
** through a permute). */
#define AVX2_TARGET __attribute__((target("avx2,popcnt")))

static int avx2_ok(void) {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

/* in shifted right by k bytes with the top k bytes of prev in front. */
#define PREV_BYTES(in, prev, k) \
  _mm256_alignr_epi8((in), _mm256_permute2x128_si256((prev), (in), 0x21), 16 - (k))

AVX2_TARGET static __m256i table32(const unsigned char *t) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}

/* Inlined into the loop (a call per block kept err and special in memory,
** and the tables' loads in the block). */
AVX2_TARGET static inline __attribute__((always_inline)) void scan_block_avx2(
    __m256i in, __m256i prev, __m256i *err, __m256i *special) {
  const __m256i nib = _mm256_set1_epi8(0x0F);
  __m256i prev1 = PREV_BYTES(in, prev, 1);
  __m256i sc = _mm256_and_si256(
      _mm256_and_si256(
          _mm256_shuffle_epi8(table32(first_high_tbl), _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nib)),
          _mm256_shuffle_epi8(table32(first_low_tbl), _mm256_and_si256(prev1, nib))),
      _mm256_shuffle_epi8(table32(second_high_tbl), _mm256_and_si256(_mm256_srli_epi16(in, 4), nib)));
  __m256i must_cont = _mm256_or_si256(
      _mm256_subs_epu8(PREV_BYTES(in, prev, 2), _mm256_set1_epi8(0xE0 - 0x80)),
      _mm256_subs_epu8(PREV_BYTES(in, prev, 3), _mm256_set1_epi8((char)(0xF0 - 0x80))));
  must_cont = _mm256_and_si256(must_cont, _mm256_set1_epi8((char)0x80));
  *err = _mm256_or_si256(*err, _mm256_xor_si256(must_cont, sc));
  __m256i pairs = _mm256_or_si256(
      _mm256_and_si256(_mm256_cmpeq_epi8(prev1, _mm256_set1_epi8((char)0xC4)),
                       _mm256_cmpeq_epi8(in, _mm256_set1_epi8((char)0xB0))),
      _mm256_and_si256(_mm256_cmpeq_epi8(prev1, _mm256_set1_epi8((char)0xCE)),
                       _mm256_cmpeq_epi8(in, _mm256_set1_epi8((char)0xA3))));
  *special = _mm256_or_si256(*special, pairs);
}

AVX2_TARGET static void scan_avx2(const unsigned char *u, size_t n, ifs_scan *out) {
  __m256i prev = _mm256_setzero_si256(), err = prev, special = prev;
  unsigned high = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)(u + i));
    unsigned in_high = (unsigned)_mm256_movemask_epi8(in);
    if (in_high == 0 && _mm256_movemask_epi8(prev) == 0) { prev = in; continue; }
    high |= in_high;
    scan_block_avx2(in, prev, &err, &special);
    prev = in;
  }
  /* The tail and then NULs (a sequence cut short by the end is an error);
  ** nothing when the last 32 bytes, which hold the tail and the byte before
  ** it, are ASCII: then no sequence runs into the tail (this runs once a
  ** row, a block's work and a copy). */
  if (n < 32 ||
      _mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(u + n - 32)))) {
    unsigned char pad[32] = {0};
    memcpy(pad, u + i, n - i);
    __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)pad);
    high |= (unsigned)_mm256_movemask_epi8(in);
    scan_block_avx2(in, prev, &err, &special);
  }
  out->valid = _mm256_testz_si256(err, err);
  out->ascii = high == 0;
  out->plain_lower = _mm256_testz_si256(special, special);
}
#endif

#if IFS_X86_SIMD
/* The same scan 64 bytes at a time with AVX-512 (BW): the shuffles look
** up the tables in each 128-bit lane, as with AVX2.  The bytes before each
** position are loaded again from the text one, two and three bytes back:
** shifting them in from the block before (valignd, then vpalignr) takes
** four more operations on the shuffle unit, which the look-ups keep busy.
** The first block (no text before it) and the tail (loads from it would
** read past the text) still take them from registers. */
#define AVX512_TARGET __attribute__((target("avx512f,avx512bw")))

static int avx512_ok(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

/* in shifted right by k bytes (k <= 16) with the top k bytes of prev in front. */
#define PREV_BYTES_512(in, prev, k) \
  _mm512_alignr_epi8((in), _mm512_alignr_epi32((in), (prev), 12), 16 - (k))

AVX512_TARGET static __m512i table64(const unsigned char *t) {
  return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t));
}

/* One block's checks, given the block and the bytes 1, 2 and 3 before
** each of its positions. */
AVX512_TARGET static inline __attribute__((always_inline)) void scan_block_avx512(
    __m512i in, __m512i prev1, __m512i prev2, __m512i prev3, __m512i *err, uint64_t *special) {
  const __m512i nib = _mm512_set1_epi8(0x0F);
  __m512i sc = _mm512_ternarylogic_epi32(
      _mm512_shuffle_epi8(table64(first_high_tbl), _mm512_and_si512(_mm512_srli_epi16(prev1, 4), nib)),
      _mm512_shuffle_epi8(table64(first_low_tbl), _mm512_and_si512(prev1, nib)),
      _mm512_shuffle_epi8(table64(second_high_tbl), _mm512_and_si512(_mm512_srli_epi16(in, 4), nib)),
      0x80);   /* a & b & c */
  __m512i must_cont = _mm512_or_si512(
      _mm512_subs_epu8(prev2, _mm512_set1_epi8(0xE0 - 0x80)),
      _mm512_subs_epu8(prev3, _mm512_set1_epi8((char)(0xF0 - 0x80))));
  must_cont = _mm512_and_si512(must_cont, _mm512_set1_epi8((char)0x80));
  *err = _mm512_or_si512(*err, _mm512_xor_si512(must_cont, sc));
  *special |= (_mm512_cmpeq_epi8_mask(prev1, _mm512_set1_epi8((char)0xC4)) &
               _mm512_cmpeq_epi8_mask(in, _mm512_set1_epi8((char)0xB0))) |
              (_mm512_cmpeq_epi8_mask(prev1, _mm512_set1_epi8((char)0xCE)) &
               _mm512_cmpeq_epi8_mask(in, _mm512_set1_epi8((char)0xA3)));
}

/* The block in after the block prev, the bytes before it taken from the
** two registers (the first block, after zeros, and the last). */
AVX512_TARGET static inline __attribute__((always_inline)) void scan_joined_avx512(
    __m512i in, __m512i prev, __m512i *err, uint64_t *special) {
  scan_block_avx512(in, PREV_BYTES_512(in, prev, 1), PREV_BYTES_512(in, prev, 2),
                    PREV_BYTES_512(in, prev, 3), err, special);
}

AVX512_TARGET static void scan_avx512(const unsigned char *u, size_t n, ifs_scan *out) {
  __m512i prev = _mm512_setzero_si512(), err = prev;
  uint64_t high = 0, prev_high = 0, special = 0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i in = _mm512_loadu_si512((const void *)(u + i));
    uint64_t in_high = _mm512_movepi8_mask(in);
    /* an ASCII block only has to see the previous one's sequences end */
    if ((in_high | prev_high) != 0) {
      high |= in_high;
      if (i == 0)
        scan_joined_avx512(in, prev, &err, &special);
      else   /* the bytes before from memory: loads, where shifts take the shuffle unit */
        scan_block_avx512(in, _mm512_loadu_si512((const void *)(u + i - 1)),
                          _mm512_loadu_si512((const void *)(u + i - 2)),
                          _mm512_loadu_si512((const void *)(u + i - 3)), &err, &special);
    }
    prev = in;
    prev_high = in_high;
  }
  /* the tail and then NULs (a masked load reads none of the bytes past n):
  ** a sequence cut short by the end is an error */
  __m512i in = _mm512_maskz_loadu_epi8(n - i ? ~(uint64_t)0 >> (64 - (n - i)) : 0, u + i);
  high |= _mm512_movepi8_mask(in);
  scan_joined_avx512(in, prev, &err, &special);
  out->valid = _mm512_test_epi8_mask(err, err) == 0;
  out->ascii = high == 0;
  out->plain_lower = special == 0;
}
#endif

#if IFS_X86_SIMD || IFS_NEON
/* The sixteen bytes the vector counts read at u + i: the text's, or the
** tail padded with spaces (no words, no continuation bytes) into pad. */
static inline const unsigned char *count_block(const unsigned char *u, size_t n, size_t i,
                                               unsigned char pad[16]) {
  if (n - i >= 16) return u + i;
  memset(pad, ' ', 16);
  memcpy(pad, u + i, n - i);
  return pad;
}
#endif

#if IFS_X86_SIMD
/* len(s.split()) and len(s) sixteen bytes at a time.  A byte is "space"
** when it belongs to a whitespace character; words are the space-to-word
** transitions, characters the bytes that are not continuation bytes.  Only
** leads C2, E1, E2 and E3 can start a non-ASCII space: those few positions
** are looked at one by one, and a space character reaching past the block
** carries its bits into the next. */
SIMD_TARGET static void count_ssse3(const unsigned char *u, size_t n, size_t *words_out,
                                    size_t *chars_out) {
  size_t words = 0, cont = 0;
  unsigned prev_word = 0, carried_space = 0;
  for (size_t i = 0; i < n; i += 16) {
    unsigned char pad[16];
    __m128i in = _mm_loadu_si128((const __m128i *)(const void *)count_block(u, n, i, pad));
    __m128i sp = _mm_or_si128(
        _mm_and_si128(_mm_cmpgt_epi8(in, _mm_set1_epi8(0x08)), _mm_cmplt_epi8(in, _mm_set1_epi8(0x0E))),
        _mm_and_si128(_mm_cmpgt_epi8(in, _mm_set1_epi8(0x1B)), _mm_cmplt_epi8(in, _mm_set1_epi8(0x21))));
    unsigned space = (unsigned)_mm_movemask_epi8(sp) | carried_space;
    carried_space = 0;
    __m128i leads = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xC2)), _mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xE1))),
        _mm_or_si128(_mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xE2)), _mm_cmpeq_epi8(in, _mm_set1_epi8((char)0xE3))));
    unsigned lead_bits = (unsigned)_mm_movemask_epi8(leads);
    while (lead_bits) {
      unsigned k = (unsigned)__builtin_ctz(lead_bits);
      lead_bits &= lead_bits - 1;
      if (i + k < n && nonascii_space_at(u, n, i + k)) {
        uint32_t bits = (u[i + k] == 0xC2 ? 3u : 7u) << k;
        space |= bits & 0xFFFF;
        carried_space |= bits >> 16;
      }
    }
    /* continuation bytes 80..BF are the signed bytes below -64 */
    unsigned cont_bits16 = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(in, _mm_set1_epi8(-64)));
    cont += (size_t)__builtin_popcount(cont_bits16);
    unsigned word = ~space & 0xFFFF;
    words += (size_t)__builtin_popcount(word & ~((word << 1) | prev_word));
    prev_word = word >> 15;
  }
  *words_out = words;
  *chars_out = n - cont;
}
#endif

#if IFS_NEON
/* ---- NEON kernels (every AArch64 CPU has NEON) ----------------------- */

/* The SSSE3 scan's steps, one for one: tbl for pshufb, ext for palignr,
** uqsub for psubusb; a reduction (umaxv) stands for movemask where only
** "any byte?" is asked.  Per ASCII block: load, orr, umaxv, compare and
** branch. */
static uint8x16_t utf8_pair_errors_neon(uint8x16_t in, uint8x16_t prev_in) {
  const uint8x16_t first_high = vld1q_u8(first_high_tbl);
  const uint8x16_t first_low = vld1q_u8(first_low_tbl);
  const uint8x16_t second_high = vld1q_u8(second_high_tbl);
  uint8x16_t prev1 = vextq_u8(prev_in, in, 15);
  uint8x16_t special = vandq_u8(
      vandq_u8(vqtbl1q_u8(first_high, vshrq_n_u8(prev1, 4)),
               vqtbl1q_u8(first_low, vandq_u8(prev1, vdupq_n_u8(0x0F)))),
      vqtbl1q_u8(second_high, vshrq_n_u8(in, 4)));
  /* bytes 2 and 3 after a lead of a 3- / 4-byte sequence */
  uint8x16_t must_cont = vorrq_u8(vqsubq_u8(vextq_u8(prev_in, in, 14), vdupq_n_u8(0xE0 - 0x80)),
                                  vqsubq_u8(vextq_u8(prev_in, in, 13), vdupq_n_u8(0xF0 - 0x80)));
  must_cont = vandq_u8(must_cont, vdupq_n_u8(0x80));
  return veorq_u8(must_cont, special);
}

/* C4 B0 (U+0130) and CE A3 (U+03A3), as special_lower_pairs. */
static uint8x16_t special_lower_pairs_neon(uint8x16_t in, uint8x16_t prev_in) {
  uint8x16_t prev1 = vextq_u8(prev_in, in, 15);
  return vorrq_u8(vandq_u8(vceqq_u8(prev1, vdupq_n_u8(0xC4)), vceqq_u8(in, vdupq_n_u8(0xB0))),
                  vandq_u8(vceqq_u8(prev1, vdupq_n_u8(0xCE)), vceqq_u8(in, vdupq_n_u8(0xA3))));
}

static void scan_neon(const unsigned char *u, size_t n, ifs_scan *out) {
  uint8x16_t prev = vdupq_n_u8(0), err = prev, special = prev, high = prev;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t in = vld1q_u8(u + i);
    /* an ASCII block only has to see the previous one's sequences end */
    if (__builtin_expect(vmaxvq_u8(vorrq_u8(in, prev)) < 0x80, 1)) { prev = in; continue; }
    high = vorrq_u8(high, in);
    err = vorrq_u8(err, utf8_pair_errors_neon(in, prev));
    special = vorrq_u8(special, special_lower_pairs_neon(in, prev));
    prev = in;
  }
  /* the tail and then NULs: a sequence cut short by the end is an error */
  unsigned char pad[16] = {0};
  memcpy(pad, u + i, n - i);
  uint8x16_t in = vld1q_u8(pad);
  high = vorrq_u8(high, in);
  err = vorrq_u8(err, utf8_pair_errors_neon(in, prev));
  special = vorrq_u8(special, special_lower_pairs_neon(in, prev));
  out->valid = vmaxvq_u8(err) == 0;
  out->ascii = vmaxvq_u8(high) < 0x80;
  out->plain_lower = vmaxvq_u8(special) == 0;
}

/* count_ssse3 with four mask bits a byte (ifs_v16_bits): a word starts
** where a byte's nibble is "word" and the previous byte's is not. */
static void count_neon(const unsigned char *u, size_t n, size_t *words_out, size_t *chars_out) {
  const uint64_t nibble_low = 0x1111111111111111ull;
  size_t words = 0, cont = 0;
  uint64_t prev_word = 0, carried_space = 0;
  for (size_t i = 0; i < n; i += 16) {
    unsigned char pad[16];
    uint8x16_t in = vld1q_u8(count_block(u, n, i, pad));
    /* 09..0D and 1C..20: (b - lo) < 5, unsigned */
    uint8x16_t sp = vorrq_u8(vcltq_u8(vsubq_u8(in, vdupq_n_u8(0x09)), vdupq_n_u8(5)),
                             vcltq_u8(vsubq_u8(in, vdupq_n_u8(0x1C)), vdupq_n_u8(5)));
    uint64_t space = ifs_v16_bits(sp) | carried_space;
    carried_space = 0;
    /* C2, and E1..E3 as (b - E1) < 3 */
    uint8x16_t leads = vorrq_u8(vceqq_u8(in, vdupq_n_u8(0xC2)),
                                vcltq_u8(vsubq_u8(in, vdupq_n_u8(0xE1)), vdupq_n_u8(3)));
    uint64_t lead_bits = ifs_v16_one_bit_each(ifs_v16_bits(leads));
    while (lead_bits) {
      unsigned k = ifs_v16_first(lead_bits);
      lead_bits &= lead_bits - 1;
      if (i + k < n && nonascii_space_at(u, n, i + k)) {
        unsigned end = k + (u[i + k] == 0xC2 ? 2u : 3u);
        for (unsigned b = k; b < end; b++) {
          if (b < 16) space |= 0xFull << (4 * b);
          else carried_space |= 0xFull << (4 * (b - 16));
        }
      }
    }
    /* continuation bytes 80..BF are the signed bytes below -64 */
    uint8x16_t conts = vcltq_s8(vreinterpretq_s8_u8(in), vdupq_n_s8(-64));
    cont += vaddvq_u8(vandq_u8(conts, vdupq_n_u8(1)));
    uint64_t word = ~space;
    words += (size_t)__builtin_popcountll(word & ~((word << 4) | prev_word) & nibble_low);
    prev_word = word >> 60;
  }
  *words_out = words;
  *chars_out = n - cont;
}
#endif

/* The portable scan: the byte loops, one after the other. */
static int plain_lower_bytes(const unsigned char *u, size_t n) {
  for (size_t i = 0; i + 1 < n; i++)
    if ((u[i] == 0xC4 && u[i + 1] == 0xB0) || (u[i] == 0xCE && u[i + 1] == 0xA3)) return 0;
  return 1;
}

void ifs_utf8_scan_bytes(const char *s, size_t n, ifs_scan *out) {
  out->valid = ifs_utf8_is_valid_bytes(s, n);
  out->ascii = ifs_is_ascii(s, n);
  out->plain_lower = plain_lower_bytes((const unsigned char *)s, n);
}

static void scan_level(const char *s, size_t n, ifs_scan *out, int level) {
#if IFS_X86_SIMD
  if (level >= 3 && avx512_ok()) { scan_avx512((const unsigned char *)s, n, out); return; }
  if (level >= 2 && avx2_ok()) { scan_avx2((const unsigned char *)s, n, out); return; }
  if (level >= 1 && simd_ok()) { scan_ssse3((const unsigned char *)s, n, out); return; }
#elif IFS_NEON
  if (level >= 1) { scan_neon((const unsigned char *)s, n, out); return; }
#else
  (void)level;
#endif
  ifs_utf8_scan_bytes(s, n, out);
}

void ifs_utf8_scan(const char *s, size_t n, ifs_scan *out) {
  /* the vector loops pay off from a block or two */
  scan_level(s, n, out, n >= 64 ? 3 : n >= 16 ? 1 : 0);
}

#ifdef IFS_TESTING
void ifs_test_utf8_scan_level(const char *s, size_t n, ifs_scan *out, int level) {
  scan_level(s, n, out, level);
}
#endif

int ifs_utf8_is_valid(const char *s, size_t n) {
  ifs_scan sc;
  ifs_utf8_scan(s, n, &sc);
  return sc.valid;
}

#if IFS_X86_SIMD
/* The same count 32 bytes at a time with AVX2. */
AVX2_TARGET static void count_avx2(const unsigned char *u, size_t n, size_t *words_out,
                                   size_t *chars_out) {
  size_t words = 0, cont = 0;
  uint32_t prev_word = 0, carried_space = 0;
  const __m256i c08 = _mm256_set1_epi8(0x08), c0e = _mm256_set1_epi8(0x0E),
                c1b = _mm256_set1_epi8(0x1B), c21 = _mm256_set1_epi8(0x21),
                cc2 = _mm256_set1_epi8((char)0xC2), ce1 = _mm256_set1_epi8((char)0xE1),
                ce3 = _mm256_set1_epi8((char)0xE3), c40 = _mm256_set1_epi8(-64);
  for (size_t i = 0; i < n; i += 32) {
    __m256i in;
    unsigned char pad[32];
    if (n - i >= 32) {
      in = _mm256_loadu_si256((const __m256i *)(const void *)(u + i));
    } else {   /* the tail, padded with spaces: no words, no continuation */
      memset(pad, ' ', sizeof pad);
      memcpy(pad, u + i, n - i);
      in = _mm256_loadu_si256((const __m256i *)(const void *)pad);
    }
    __m256i sp = _mm256_or_si256(
        _mm256_and_si256(_mm256_cmpgt_epi8(in, c08), _mm256_cmpgt_epi8(c0e, in)),
        _mm256_and_si256(_mm256_cmpgt_epi8(in, c1b), _mm256_cmpgt_epi8(c21, in)));
    uint32_t space = (uint32_t)_mm256_movemask_epi8(sp) | carried_space;
    carried_space = 0;
    /* leads C2, E1, E2, E3 (E1..E3: a signed range) */
    __m256i leads = _mm256_or_si256(
        _mm256_cmpeq_epi8(in, cc2),
        _mm256_and_si256(_mm256_cmpgt_epi8(in, _mm256_sub_epi8(ce1, _mm256_set1_epi8(1))),
                         _mm256_cmpgt_epi8(_mm256_add_epi8(ce3, _mm256_set1_epi8(1)), in)));
    uint32_t lead_bits = (uint32_t)_mm256_movemask_epi8(leads);
    while (lead_bits) {
      unsigned k = (unsigned)__builtin_ctz(lead_bits);
      lead_bits &= lead_bits - 1;
      if (i + k < n && nonascii_space_at(u, n, i + k)) {
        uint64_t bits = (uint64_t)(u[i + k] == 0xC2 ? 3u : 7u) << k;
        space |= (uint32_t)bits;
        carried_space |= (uint32_t)(bits >> 32);
      }
    }
    /* continuation bytes 80..BF are the signed bytes below -64 */
    uint32_t cont_bits = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(c40, in));
    cont += (size_t)__builtin_popcount(cont_bits);
    uint32_t word = ~space;
    words += (size_t)__builtin_popcount(word & ~((word << 1) | prev_word));
    prev_word = word >> 31;
  }
  *words_out = words;
  *chars_out = n - cont;
}
#endif

static void count_level(const char *s, size_t n, size_t *words, size_t *chars, int level) {
#if IFS_X86_SIMD
  if (level >= 2 && n >= 32 && avx2_ok()) {
    count_avx2((const unsigned char *)s, n, words, chars);
    return;
  }
  if (level >= 1 && n >= 16 && simd_ok()) {
    count_ssse3((const unsigned char *)s, n, words, chars);
    return;
  }
#elif IFS_NEON
  if (level >= 1 && n >= 16) {
    count_neon((const unsigned char *)s, n, words, chars);
    return;
  }
#else
  (void)level;
#endif
  ifs_count_bytes(s, n, words, chars);
}

void ifs_count(const char *s, size_t n, size_t *words, size_t *chars) {
  count_level(s, n, words, chars, 2);
}

#ifdef IFS_TESTING
void ifs_test_count_level(const char *s, size_t n, size_t *words, size_t *chars, int level) {
  count_level(s, n, words, chars, level);
}
#endif

size_t ifs_count_words(const char *s, size_t n) {
  size_t words, chars;
  ifs_count(s, n, &words, &chars);
  return words;
}

size_t ifs_count_chars(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t cont = 0, i = 0;
  for (; i + 8 <= n; i += 8) cont += count_high_bits(cont_bits(load8(u + i)));
  for (; i < n; i++) cont += (u[i] & 0xC0) == 0x80;
  return n - cont;
}

void ifs_strip(const char *s, size_t n, size_t *start, size_t *end) {
  size_t a = 0, b = n;
  while (a < b) {
    size_t j = a;
    if (!ifs_isspace(ifs_decode(s, b, &j))) break;
    a = j;
  }
  while (b > a) {
    size_t j = b;
    if (!ifs_isspace(ifs_decode_prev(s, &j))) break;
    b = j;
  }
  *start = a;
  *end = b;
}

static int32_t lower_delta(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  return ifs_lower_stage2[ifs_lower_stage1[cp >> 8]][cp & 0xFF];
}

uint32_t ifs_lower_char(uint32_t cp) {
  if (cp - 'A' < 26) return cp + 32;
  return (uint32_t)((int32_t)cp + lower_delta(cp));
}

size_t ifs_lower_preimages(uint32_t low, uint32_t out[3]) {
  size_t k = 0;
  if (low < 0x80) {   /* the common case, without the search: only KELVIN SIGN lowers into ASCII */
    if (low - 'A' < 26) return 0;
    out[k++] = low;
    if (low - 'a' < 26) out[k++] = low - 32;
    if (low == 'k') out[k++] = 0x212A;
    return k;
  }
  if (low < 0x110000 && lower_delta(low) == 0) out[k++] = low;
  size_t lo = 0, hi = sizeof ifs_lower_inv_low / sizeof ifs_lower_inv_low[0];
  while (lo < hi) {   /* the first pair with this lowercase */
    size_t mid = (lo + hi) / 2;
    if (ifs_lower_inv_low[mid] < low) lo = mid + 1; else hi = mid;
  }
  for (; lo < sizeof ifs_lower_inv_low / sizeof ifs_lower_inv_low[0] &&
         ifs_lower_inv_low[lo] == low && k < 3; lo++)
    out[k++] = ifs_lower_inv_src[lo];
  return k;
}

/* Final-sigma class of cp: 0 other, 1 cased, 2 case-ignorable. */
static int sigma_class(uint32_t cp) {
  size_t lo = 0, hi = sizeof ifs_sigma_run_start / sizeof ifs_sigma_run_start[0];
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (ifs_sigma_run_start[mid] <= cp) lo = mid; else hi = mid;
  }
  return ifs_sigma_run_class[lo];
}

/* CPython's rule: U+03A3 at [at, after) lowercases to final sigma when
** preceded by a cased character (skipping case-ignorable ones) and not
** followed by one (skipping likewise). */
static int is_final_sigma(const char *s, size_t n, size_t at, size_t after) {
  size_t j = at;
  int k = 0;
  while (j > 0) {
    k = sigma_class(ifs_decode_prev(s, &j));
    if (k != 2) break;
  }
  if (k != 1) return 0;
  j = after;
  while (j < n) {
    k = sigma_class(ifs_decode(s, n, &j));
    if (k != 2) return k != 1;
  }
  return 1;
}


/* The length of the multi-byte character at u[i] (a lead and its
** continuation bytes, read as ifs_decode reads them, overlong forms too), its
** code point in *cp; 0 for bytes ifs_decode reads otherwise. */
static size_t plain_multibyte(const unsigned char *u, size_t n, size_t i, uint32_t *cp) {
  unsigned char c = u[i];
  if (c >= 0xC2 && c <= 0xDF) {
    if (n - i < 2 || (u[i + 1] & 0xC0) != 0x80) return 0;
    *cp = (uint32_t)(c & 0x1F) << 6 | (u[i + 1] & 0x3F);
    return 2;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    if (n - i < 3 || ((u[i + 1] & 0xC0) | (u[i + 2] & 0xC0) >> 2) != 0xA0) return 0;
    *cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(u[i + 1] & 0x3F) << 6 | (u[i + 2] & 0x3F);
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF7) {
    if (n - i < 4 || ((u[i + 1] & 0xC0) | (u[i + 2] & 0xC0) >> 2 | (u[i + 3] & 0xC0) >> 4) != 0xA8)
      return 0;
    *cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(u[i + 1] & 0x3F) << 12 |
          (uint32_t)(u[i + 2] & 0x3F) << 6 | (u[i + 3] & 0x3F);
    return 4;
  }
  return 0;
}

/* ASCII bytes from u[i], lowered into d, sixteen at a time while sixteen
** are left; how many (the output has room for sixteen: ifs_lower reserves
** 1.5 times the input). */
static size_t lower_ascii_run(const unsigned char *u, size_t n, size_t i, unsigned char *d) {
  size_t done = 0;
#if IFS_X86_SIMD
  while (i + done + 16 <= n) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(u + i + done));
    __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('A' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('Z' + 1)));
    _mm_storeu_si128((__m128i *)(void *)(d + done),
                     _mm_add_epi8(x, _mm_and_si128(upper, _mm_set1_epi8(32))));
    unsigned high = (unsigned)_mm_movemask_epi8(x);
    if (high) return done + (size_t)__builtin_ctz(high);   /* bytes past it are rewritten */
    done += 16;
  }
#endif
  for (; i + done < n && u[i + done] < 0x80; done++) {
    unsigned char c = u[i + done];
    d[done] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  return done;
}

ifs_status ifs_lower(const char *s, size_t n, ifs_buf *out) {
  const unsigned char *u = (const unsigned char *)s;
  /* No character's lowercase is more than 1.5 times its UTF-8 length
  ** (the generator's tables bear this out), so one reservation holds. */
  if (n > SIZE_MAX / 2 - 8 || ifs_buf_reserve(out, n + n / 2 + 4)) return IFS_NOMEM;
  unsigned char *d = (unsigned char *)out->p + out->len;
  size_t i = 0;
  while (i < n) {
    if (u[i] < 0x80) {
      size_t k = lower_ascii_run(u, n, i, d);
      i += k;
      d += k;
      continue;
    }
    size_t at = i;
    uint32_t cp;
    size_t len = plain_multibyte(u, n, i, &cp);   /* inline; the decoder for the rest */
    if (len) i += len;
    else cp = ifs_decode(s, n, &i);
    if (cp == 0x130) {
      memcpy(d, "i\xCC\x87", 3);
      d += 3;
    } else if (cp == 0x3A3) {
      d += ifs_utf8_put(d, is_final_sigma(s, n, at, i) ? 0x3C2 : 0x3C3);
    } else {
      int32_t delta = lower_delta(cp);
      if (delta) d += ifs_utf8_put(d, (uint32_t)((int32_t)cp + delta));
      else { memcpy(d, u + at, i - at); d += i - at; }
    }
  }
  out->len = (size_t)((char *)d - out->p);
  out->p[out->len] = 0;
  return IFS_OK;
}

int ifs_decimal_value(uint32_t cp) {
  size_t lo = 0, hi = sizeof ifs_digit_zeros / sizeof ifs_digit_zeros[0];
  if (cp < '0') return -1;
  if (cp <= '9') return (int)(cp - '0');
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_digit_zeros[mid] > cp) hi = mid;
    else if (cp - ifs_digit_zeros[mid] >= 10) lo = mid + 1;
    else return (int)(cp - ifs_digit_zeros[mid]);
  }
  return -1;
}

int ifs_isprintable(uint32_t cp) {
  size_t nr = sizeof ifs_nonprintable_ranges / sizeof ifs_nonprintable_ranges[0] / 2;
  size_t lo = 0, hi = nr;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_nonprintable_ranges[2 * mid + 1] < cp) lo = mid + 1;
    else if (ifs_nonprintable_ranges[2 * mid] > cp) hi = mid;
    else return 0;
  }
  return 1;
}

#if IFS_V16
/* Candidate positions where both the needle's first and last bytes match,
** sixteen at a time (the "generic SIMD" substring search; SSE2 or NEON).
** Verification work is capped so that no input makes it quadratic: past
** the cap the rest goes to memmem's linear-time two-way search. */
static const char *find_v16(const char *h, size_t hn, const char *nd, size_t nn) {
  const ifs_v16 first = ifs_v16_splat((unsigned char)nd[0]);
  const ifs_v16 last = ifs_v16_splat((unsigned char)nd[nn - 1]);
  size_t budget = 4 * hn + 4096, i = 0;
  for (; i + nn - 1 + 16 <= hn; i += 16) {
    uint64_t mask = ifs_v16_bits(ifs_v16_and(ifs_v16_eq(first, ifs_v16_load(h + i)),
                                             ifs_v16_eq(last, ifs_v16_load(h + i + nn - 1))));
    mask = ifs_v16_one_bit_each(mask);
    while (mask) {
      size_t at = i + ifs_v16_first(mask);
      if (memcmp(h + at + 1, nd + 1, nn - 2) == 0) return h + at;
      if (budget < nn) return memmem(h + at, hn - at, nd, nn);
      budget -= nn;
      mask &= mask - 1;
    }
  }
  for (; i + nn <= hn; i++)   /* the last < 16 positions */
    if (h[i] == nd[0] && memcmp(h + i, nd, nn) == 0) return h + i;
  return NULL;
}
#endif

const char *ifs_find(const char *h, size_t hn, const char *nd, size_t nn) {
  if (nn == 0) return h;
  if (nn > hn) return NULL;
  if (nn == 1) return memchr(h, nd[0], hn);
#if IFS_V16
  return find_v16(h, hn, nd, nn);
#else
  return memmem(h, hn, nd, nn);
#endif
}
