/*
** ifs_unicode_names.c — unicodedata.lookup for re's \N{NAME} (see
** ifs_unicode_names.h); entry point ifs_uname_lookup.
**
** CPython's lookup tries two rules before its name table, both with exact
** case: "HANGUL SYLLABLE " followed by the longest matching short name of
** a leading consonant, then of a vowel, then of a final (CPython's greedy
** find_syllable: nothing else is tried), and "CJK UNIFIED IDEOGRAPH-"
** followed by exactly 4 or 5 hex digits in uppercase naming a unified
** ideograph.  Everything else is compared with the table in any ASCII
** letter case, aliases included; a named sequence is found but is not one
** character, which re reports as an undefined name, so the table leaves
** them out.
**
** The table (generated, 211 KB of constant data) keeps names made of a
** prefix and the code point in hex (CJK COMPATIBILITY IDEOGRAPH-, KHITAN
** SMALL SCRIPT CHARACTER-, NUSHU CHARACTER-) as ranges, and the other
** 33,117 names as words: a sorted lexicon of 13,478 words, front-coded in
** blocks of 16, and the names as sequences of word numbers, sorted by
** those sequences and front-coded by words in blocks of 32 whose first
** name is complete.  A lookup uppercases the name, finds each word's
** number (binary search over the lexicon blocks, then a scan of one
** block), then the name (binary search over the name blocks, then a scan
** of one): a few microseconds, no allocation, no state.
**
** A name record: one byte (words shared with the previous name << 4 | new
** words), each new word as one byte below 0x80 (an index into the 128
** most written words) or two (0x80 | high 7 bits, low 8 bits of its
** number), then the code point: 3 bytes big-endian at a block start, else
** the difference from the previous name's as zigzag LEB128.
*/
#include "ifs_unicode_names.h"
#include <string.h>
#include "ifs_unicode_names_table.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SBASE 0xAC00u

static const char HANGUL[] = "HANGUL SYLLABLE ";
static const char CJK[] = "CJK UNIFIED IDEOGRAPH-";

static int has_prefix(const char *s, size_t n, const char *pre, size_t k) {
  return n >= k && memcmp(s, pre, k) == 0;
}

static int in_ranges(uint32_t cp, const uint32_t (*r)[2], size_t nr) {
  for (size_t i = 0; i < nr; i++)
    if (cp >= r[i][0] && cp <= r[i][1]) return 1;
  return 0;
}

/* ---- the rules --------------------------------------------------- */

/* CPython's find_syllable: the index of the longest short name of the
** table (count rows of `width` chars) that s starts with, the first of
** equal lengths; -1 when none does. */
static int jamo(const char *s, size_t n, const char *tab, size_t width,
                size_t count, size_t *len) {
  int pos = -1;
  size_t best = 0;
  for (size_t i = 0; i < count; i++) {
    const char *t = tab + i * width;
    size_t k = strlen(t);
    if (pos >= 0 && k <= best) continue;
    if (k <= n && memcmp(s, t, k) == 0) { best = k; pos = (int)i; }
  }
  *len = best;
  return pos;
}

static int32_t hangul(const char *s, size_t n) {
  size_t a, b, c;
  int l = jamo(s, n, ifs_un_lead[0], sizeof ifs_un_lead[0], NELEM(ifs_un_lead), &a);
  int v = jamo(s + a, n - a, ifs_un_vowel[0], sizeof ifs_un_vowel[0],
               NELEM(ifs_un_vowel), &b);
  int t = jamo(s + a + b, n - a - b, ifs_un_final[0], sizeof ifs_un_final[0],
               NELEM(ifs_un_final), &c);
  if (l < 0 || v < 0 || t < 0 || a + b + c != n) return -1;
  return (int32_t)(SBASE + ((uint32_t)l * NELEM(ifs_un_vowel) + (uint32_t)v)
                               * NELEM(ifs_un_final) + (uint32_t)t);
}

static int hex_digit(char c) {     /* uppercase only */
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int32_t unified_ideograph(const char *s, size_t n) {
  uint32_t v = 0;
  if (n != 4 && n != 5) return -1;
  for (size_t i = 0; i < n; i++) {
    int d = hex_digit(s[i]);
    if (d < 0) return -1;
    v = v * 16 + (uint32_t)d;
  }
  return in_ranges(v, ifs_un_cjk, NELEM(ifs_un_cjk)) ? (int32_t)v : -1;
}

/* A prefix family: up (uppercased) is a family prefix and "%X" of one of
** its code points; -1 otherwise. */
static int32_t hex_family(const char *up, size_t n) {
  for (size_t f = 0; f < NELEM(ifs_un_hexfam); f++) {
    size_t k = strlen(ifs_un_hexfam[f]);
    if (!has_prefix(up, n, ifs_un_hexfam[f], k)) continue;
    if (n - k < 1 || n - k > 6 || up[k] == '0') return -1;
    uint32_t v = 0;
    for (size_t i = k; i < n; i++) {
      int d = hex_digit(up[i]);
      if (d < 0) return -1;
      v = v * 16 + (uint32_t)d;
    }
    for (size_t i = 0; i < NELEM(ifs_un_hexfam_cp); i++)
      if (ifs_un_hexfam_cp[i][2] == f && v >= ifs_un_hexfam_cp[i][0] &&
          v <= ifs_un_hexfam_cp[i][1])
        return (int32_t)v;
    return -1;
  }
  return -1;
}

/* ---- the lexicon ------------------------------------------------- */

static int is_word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* The entry at *pos (a shared-length letter, then characters): the word
** rebuilt in buf (which holds the previous word), its length returned. */
static size_t lex_entry(size_t *pos, char *buf) {
  size_t p = *pos, len = (size_t)(ifs_un_lex[p++] - 'a');
  while (is_word_char(ifs_un_lex[p])) buf[len++] = ifs_un_lex[p++];
  *pos = p;
  return len;
}

static int cmp_bytes(const char *a, size_t na, const char *b, size_t nb) {
  int c = memcmp(a, b, na < nb ? na : nb);
  if (c) return c;
  return na < nb ? -1 : na > nb;
}

/* The number of word w (n bytes, uppercase) in the lexicon, or -1. */
static int word_number(const char *w, size_t n) {
  char buf[IFS_UN_MAXWORDLEN];
  size_t lo = 0, hi = NELEM(ifs_un_lex_start), pos, len;
  if (n > IFS_UN_MAXWORDLEN) return -1;
  while (hi - lo > 1) {             /* the last block whose first word <= w */
    size_t mid = (lo + hi) / 2;
    pos = ifs_un_lex_start[mid];
    len = lex_entry(&pos, buf);
    if (cmp_bytes(buf, len, w, n) <= 0) lo = mid; else hi = mid;
  }
  pos = ifs_un_lex_start[lo];
  for (size_t i = lo * IFS_UN_LEX_BLOCK; i < IFS_UN_NWORDS &&
                                         i < (lo + 1) * IFS_UN_LEX_BLOCK; i++) {
    len = lex_entry(&pos, buf);
    int c = cmp_bytes(buf, len, w, n);
    if (c == 0) return (int)i;
    if (c > 0) break;
  }
  return -1;
}

/* ---- the names --------------------------------------------------- */

typedef struct name_rec {
  uint16_t w[IFS_UN_MAXWORDS];
  int nw;
  uint32_t cp;
} name_rec;

/* Reads the record at p over r (which holds the previous record). */
static const uint8_t *name_entry(const uint8_t *p, int block_start, name_rec *r) {
  int h = *p++;
  r->nw = h >> 4;
  for (int k = h & 15; k > 0; k--) {
    unsigned b = *p++;
    r->w[r->nw++] = b < 0x80 ? ifs_un_freq[b] : (uint16_t)((b & 0x7F) << 8 | *p++);
  }
  if (block_start) {
    r->cp = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return p + 3;
  }
  uint32_t z = 0;
  int shift = 0;
  unsigned b;
  do {
    b = *p++;
    z |= (uint32_t)(b & 0x7F) << shift;
    shift += 7;
  } while (b & 0x80);
  r->cp = z & 1 ? r->cp - ((z + 1) >> 1) : r->cp + (z >> 1);
  return p;
}

static int cmp_words(const name_rec *r, const uint16_t *q, int nq) {
  for (int i = 0; i < r->nw && i < nq; i++)
    if (r->w[i] != q[i]) return r->w[i] < q[i] ? -1 : 1;
  return r->nw < nq ? -1 : r->nw > nq;
}

static int32_t table_lookup(const uint16_t *q, int nq) {
  size_t lo = 0, hi = NELEM(ifs_un_name_start);
  name_rec r;
  while (hi - lo > 1) {             /* the last block whose first name <= q */
    size_t mid = (lo + hi) / 2;
    name_entry(ifs_un_names + ifs_un_name_start[mid], 1, &r);
    if (cmp_words(&r, q, nq) <= 0) lo = mid; else hi = mid;
  }
  const uint8_t *p = ifs_un_names + ifs_un_name_start[lo];
  for (size_t i = lo * IFS_UN_NAME_BLOCK; i < IFS_UN_NNAMES &&
                                          i < (lo + 1) * IFS_UN_NAME_BLOCK; i++) {
    p = name_entry(p, i == lo * IFS_UN_NAME_BLOCK, &r);
    int c = cmp_words(&r, q, nq);
    if (c == 0) return (int32_t)r.cp;
    if (c > 0) break;
  }
  return -1;
}

/* up: the name uppercased; words separated by single spaces. */
static int32_t words_lookup(const char *up, size_t n) {
  uint16_t q[IFS_UN_MAXWORDS];
  int nq = 0;
  size_t start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && up[i] != ' ') continue;
    if (i == start || nq == IFS_UN_MAXWORDS) return -1;
    int w = word_number(up + start, i - start);
    if (w < 0) return -1;
    q[nq++] = (uint16_t)w;
    start = i + 1;
  }
  return table_lookup(q, nq);
}

/* ---- the entry point ---------------------------------------------- */

/* The code point, or -1. */
static int32_t lookup(const uint32_t *name, size_t n) {
  char raw[IFS_UN_MAXLEN], up[IFS_UN_MAXLEN];
  if (n == 0 || n > IFS_UN_MAXLEN) return -1;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = name[i];
    int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && !(c >= '0' && c <= '9') && c != ' ' && c != '-') return -1;
    raw[i] = (char)c;
    up[i] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
  }
  if (has_prefix(raw, n, HANGUL, sizeof HANGUL - 1))
    return hangul(raw + sizeof HANGUL - 1, n - (sizeof HANGUL - 1));
  if (has_prefix(raw, n, CJK, sizeof CJK - 1))
    return unified_ideograph(raw + sizeof CJK - 1, n - (sizeof CJK - 1));
  int32_t cp = hex_family(up, n);
  return cp >= 0 ? cp : words_lookup(up, n);
}

ifs_status ifs_uname_lookup(const uint32_t *name, size_t n, uint32_t *cp) {
  int32_t v = lookup(name, n);
  if (v < 0) return IFS_INVALID;
  *cp = (uint32_t)v;
  return IFS_OK;
}
