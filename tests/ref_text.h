/*
** ref_text.h — the plain models the unit tests and the fuzz targets hold
** the fast loops to, on internal UTF-8: len(s.split()) and len(s) (decode
** each character, ask ifs_isspace, count), and s.lower() for text without
** U+03A3 (decode each character, map it alone).
*/
#ifndef IFS_REF_TEXT_H
#define IFS_REF_TEXT_H

#include "ifs_text.h"

static inline void ref_count(const char *s, size_t n, size_t *words, size_t *chars) {
  size_t i = 0;
  int in_word = 0;
  *words = *chars = 0;
  while (i < n) {
    uint32_t cp = ifs_decode(s, n, &i);
    (*chars)++;
    if (ifs_isspace(cp)) in_word = 0;
    else if (!in_word) { in_word = 1; (*words)++; }
  }
}

/* s.lower() of text holding no U+03A3 (whose lowercase depends on its
** neighbours), appended to out: each character decoded and mapped alone,
** U+0130 to "i" and U+0307, a character that maps to itself (or bytes
** ifs_decode reads as one) copied as it is. */
static inline ifs_status ref_lower_no_sigma(const char *s, size_t n, ifs_buf *out) {
  size_t i = 0;
  while (i < n) {
    size_t at = i;
    uint32_t cp = ifs_decode(s, n, &i);
    uint32_t low = ifs_lower_char(cp);
    unsigned char b[4];
    ifs_status rc;
    if (cp == 0x130) rc = ifs_buf_append(out, "i\xCC\x87", 3);
    else if (low == cp) rc = ifs_buf_append(out, s + at, i - at);
    else rc = ifs_buf_append(out, (const char *)b, ifs_utf8_put(b, low));
    if (rc) return rc;
  }
  return IFS_OK;
}

#endif
