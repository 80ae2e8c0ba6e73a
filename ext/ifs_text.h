/*
** ifs_text.h — Python-compatible text operations on internal UTF-8.
**
** Python reads the SQLite bytes with errors="surrogateescape": each byte
** that is not part of a well-formed UTF-8 sequence becomes one character
** U+DC00+byte.  ifs_to_internal() performs that reading, producing
** "internal UTF-8" (UTF-8 that may carry surrogates as 3-byte sequences);
** ifs_to_external() writes text back the way Python's encoder with
** surrogateescape would, with any other lone surrogate kept as its 3-byte
** sequence (what "surrogatepass" writes).
**
** Every other function here takes internal UTF-8 and counts code points.
*/
#ifndef IFS_TEXT_H
#define IFS_TEXT_H

#include "ifs_common.h"

/* 1 when s[0..n) is strict UTF-8 (no surrogates, no overlongs, <= U+10FFFF);
** such text is already internal UTF-8, unchanged. */
int ifs_utf8_is_valid(const char *s, size_t n);

/* What one pass over a text finds out (a response is scanned once). */
typedef struct ifs_scan {
  int valid;         /* strict UTF-8, as ifs_utf8_is_valid */
  int ascii;         /* every byte below 0x80 */
  int plain_lower;   /* neither U+0130 nor U+03A3 (C4 B0, CE A3) in the
                        bytes: lower() maps it character by character */
} ifs_scan;

void ifs_utf8_scan(const char *s, size_t n, ifs_scan *out);

#ifdef IFS_TESTING
/* Test hooks.  The portable byte loops, the reference for the vectorised
** versions, which are used where the CPU allows: */
int ifs_utf8_is_valid_bytes(const char *s, size_t n);
void ifs_utf8_scan_bytes(const char *s, size_t n, ifs_scan *out);
void ifs_count_bytes(const char *s, size_t n, size_t *words, size_t *chars);
/* The scan by a chosen loop: 0 bytes, 1 SSSE3 or NEON, 2 AVX2, 3 AVX-512
** (or the best one below it that the CPU has). */
void ifs_test_utf8_scan_level(const char *s, size_t n, ifs_scan *out, int level);
/* The word and character count by a chosen loop, likewise. */
void ifs_test_count_level(const char *s, size_t n, size_t *words, size_t *chars, int level);
#endif

/* Surrogateescape reading: appends the internal form of raw bytes to out. */
ifs_status ifs_to_internal(const char *s, size_t n, ifs_buf *out);

/* 1 when internal text holds U+DC80..U+DCFF (so external form differs). */
int ifs_has_escaped_bytes(const char *s, size_t n);

/* Internal -> external bytes (U+DC80..U+DCFF back to the raw byte). */
ifs_status ifs_to_external(const char *s, size_t n, ifs_buf *out);

/* Decodes one code point of internal UTF-8 at s[*i], advancing *i.
** Internal text is well formed by construction; a stray byte decodes as
** itself + 0xDC00 so that nothing ever reads out of bounds. */
uint32_t ifs_decode(const char *s, size_t n, size_t *i);

/* Decodes the code point that ends just before s[*i], moving *i back. */
uint32_t ifs_decode_prev(const char *s, size_t *i);

/* Python's str.isspace(). */
int ifs_isspace(uint32_t cp);

/* The same as sorted, disjoint ranges of code points (the one definition
** of Python whitespace: ifs_isspace reads it, the regex's \s too). */
void ifs_space_table(const uint32_t (**ranges)[2], size_t *n);

/* len(s.split()) and len(s) in one pass. */
void ifs_count(const char *s, size_t n, size_t *words, size_t *chars);

/* len(s.split()) and len(s). */
size_t ifs_count_words(const char *s, size_t n);
size_t ifs_count_chars(const char *s, size_t n);

/* s.strip(): the bounds of s without Python whitespace at both ends. */
void ifs_strip(const char *s, size_t n, size_t *start, size_t *end);

/* Appends s.lower() (full mapping, final sigma) to out. */
ifs_status ifs_lower(const char *s, size_t n, ifs_buf *out);

/* The lowercase of one code point when it is one code point: every cp but
** U+0130 (whose lowercase is "i" U+0307); for U+03A3 the non-final sigma. */
uint32_t ifs_lower_char(uint32_t cp);

/* Every code point x with ifs_lower_char(x) == low (U+0130 aside): at most
** three (k: k, K and KELVIN SIGN); writes them to out, returns how many. */
size_t ifs_lower_preimages(uint32_t low, uint32_t out[3]);

/* The first occurrence of nd in h (memmem), or NULL; linear time. */
const char *ifs_find(const char *h, size_t hn, const char *nd, size_t nn);

/* 1 when s is pure ASCII (fast paths). */
int ifs_is_ascii(const char *s, size_t n);

/* 1 when s holds byte CC or CF, which lead U+0307 and the sigmas: a text
** with neither holds none of the characters a lowercase in context (final
** sigma, U+0130's dot) turns on. */
int ifs_may_meet_context(const char *s, size_t n);

/* Python's unicodedata.decimal(ch) or -1: the digits int() accepts. */
int ifs_decimal_value(uint32_t cp);

/* Python's str.isprintable() for one character (repr escapes the rest). */
int ifs_isprintable(uint32_t cp);

#endif
