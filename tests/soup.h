/*
** soup.h — random texts for the unit tests: strings of pieces (sequences
** chosen to sit on some boundary) drawn with a small LCG, so that every run
** tests the same texts.  A piece "" stands for one NUL byte.
*/
#ifndef IFS_SOUP_H
#define IFS_SOUP_H

#include <stddef.h>
#include <string.h>

static inline unsigned soup_next(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 16;
}

/* Fills buf (capacity cap) with fewer than max_parts pieces; returns the length. */
static inline size_t soup_fill(char *buf, size_t cap, const char *const *pieces, size_t npieces,
                               unsigned max_parts, unsigned *seed) {
  size_t n = 0;
  unsigned parts = soup_next(seed) % max_parts;
  for (unsigned k = 0; k < parts; k++) {
    const char *p = pieces[soup_next(seed) % npieces];
    size_t len = p[0] ? strlen(p) : 1;
    if (n + len > cap) break;
    memcpy(buf + n, p, len);
    n += len;
  }
  return n;
}

#endif
