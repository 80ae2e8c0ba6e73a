/*
** ref_text.h — the plain model of len(s.split()) and len(s) on internal
** UTF-8 that the unit tests and the fuzz targets hold the fast loops to:
** decode each character, ask ifs_isspace, count.
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

#endif
