/*
** ifs_simd.h — which vector instructions the core uses, decided in one
** place, and the few 16-byte operations that every such kernel shares.
**
** x86-64: SSE2 is in every CPU and used directly; SSSE3 and AVX2 kernels
** (and AVX-512BW ones: the needle sets' filter, the UTF-8 scan) are compiled for any
** x86-64 (target attributes in their files) and chosen at run time
** (__builtin_cpu_supports).  AArch64: NEON (Advanced
** SIMD) is in every CPU, so its kernels are used directly.  Any other CPU,
** or a build with -DIFS_NO_SIMD, runs the portable loops, which are also
** what the unit tests compare every vector kernel with.
**
** The ifs_v16 operations below are the baseline of both (SSE2, NEON): a
** loop written with them is one loop for both.  A comparison gives 0x00 or
** 0xFF per byte; ifs_v16_bits packs it into an integer with byte k at bits
** [k * IFS_V16_STRIDE, (k + 1) * IFS_V16_STRIDE): pmovmskb on x86 (one bit
** a byte), a narrowing shift on NEON (shrn, four bits a byte, because NEON
** has no movemask; one instruction either way).  ifs_v16_first reads the
** first set byte's index back.
*/
#ifndef IFS_SIMD_H
#define IFS_SIMD_H

#include <stdint.h>

#if !defined(IFS_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define IFS_X86_SIMD 1
#include <immintrin.h>
#else
#define IFS_X86_SIMD 0
#endif

#if !defined(IFS_NO_SIMD) && defined(__aarch64__) && defined(__ARM_NEON) && \
    (defined(__GNUC__) || defined(__clang__))
#define IFS_NEON 1
#include <arm_neon.h>
#else
#define IFS_NEON 0
#endif

#define IFS_V16 (IFS_X86_SIMD || IFS_NEON)

#if IFS_X86_SIMD
/* An unaligned 32-byte load, for the AVX2 loops (a macro: an inline
** function would need their target attribute). */
#define IFS_LOAD32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))

typedef __m128i ifs_v16;
#define IFS_V16_STRIDE 1
static inline ifs_v16 ifs_v16_load(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline ifs_v16 ifs_v16_splat(unsigned char b) { return _mm_set1_epi8((char)b); }
static inline ifs_v16 ifs_v16_eq(ifs_v16 a, ifs_v16 b) { return _mm_cmpeq_epi8(a, b); }
static inline ifs_v16 ifs_v16_and(ifs_v16 a, ifs_v16 b) { return _mm_and_si128(a, b); }
static inline ifs_v16 ifs_v16_or(ifs_v16 a, ifs_v16 b) { return _mm_or_si128(a, b); }
static inline uint64_t ifs_v16_bits(ifs_v16 m) { return (uint64_t)(unsigned)_mm_movemask_epi8(m); }
/* Bytes outside printable ASCII: below 0x20 or past 0x7E (as signed
** bytes, 0x80 and up are below 0x20 too). */
static inline ifs_v16 ifs_v16_unprintable(ifs_v16 x) {
  return _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7F)));
}
#elif IFS_NEON
typedef uint8x16_t ifs_v16;
#define IFS_V16_STRIDE 4
static inline ifs_v16 ifs_v16_load(const void *p) { return vld1q_u8((const uint8_t *)p); }
static inline ifs_v16 ifs_v16_splat(unsigned char b) { return vdupq_n_u8(b); }
static inline ifs_v16 ifs_v16_eq(ifs_v16 a, ifs_v16 b) { return vceqq_u8(a, b); }
static inline ifs_v16 ifs_v16_and(ifs_v16 a, ifs_v16 b) { return vandq_u8(a, b); }
static inline ifs_v16 ifs_v16_or(ifs_v16 a, ifs_v16 b) { return vorrq_u8(a, b); }
static inline uint64_t ifs_v16_bits(ifs_v16 m) {
  return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
}
static inline ifs_v16 ifs_v16_unprintable(ifs_v16 x) {
  return vorrq_u8(vcltq_u8(x, vdupq_n_u8(0x20)), vcgeq_u8(x, vdupq_n_u8(0x7F)));
}
#endif

#if IFS_V16
/* One bit per set byte of an ifs_v16_bits mask, so that clearing the
** lowest bit (m &= m - 1) moves to the next byte. */
static inline uint64_t ifs_v16_one_bit_each(uint64_t m) {
  return IFS_V16_STRIDE == 1 ? m : m & 0x8888888888888888ull;
}

/* The index of the first byte set in a non-zero ifs_v16_bits mask. */
static inline unsigned ifs_v16_first(uint64_t m) {
  return (unsigned)__builtin_ctzll(m) / IFS_V16_STRIDE;
}
#endif

#endif
