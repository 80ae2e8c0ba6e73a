/*
** fuzz_common.h — helpers shared by the libFuzzer targets of tests/fuzz/.
**
** Every target reads its input the way the extension does: raw bytes,
** turned into internal UTF-8 by ifs_to_internal() (surrogateescape).
** Targets that need two texts split the input at the first FUZZ_SEP; a
** human can write a regression input in an editor.  A violated invariant
** calls fuzz_fail(), which prints why and aborts, so libFuzzer (or the
** replay driver) saves and reports the input.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ifs_common.h"
#include "ifs_text.h"

#define FUZZ_SEP "\n~~~~\n"
#define FUZZ_SEP_LEN 6

static inline void fuzz_fail_at(const char *file, int line, const char *what) {
  fprintf(stderr, "fuzz invariant violated at %s:%d: %s\n", file, line, what);
  abort();
}
#define fuzz_fail(what) fuzz_fail_at(__FILE__, __LINE__, (what))
#define fuzz_assert(cond) do { if (!(cond)) fuzz_fail(#cond); } while (0)

/* Two views of one input; b is NULL when the input has no separator. */
typedef struct fuzz_split {
  const char *a, *b;
  size_t an, bn;
} fuzz_split;

static inline fuzz_split fuzz_split_input(const uint8_t *data, size_t size) {
  fuzz_split s = {(const char *)data, NULL, size, 0};
  const char *sep = size >= FUZZ_SEP_LEN
      ? memmem(data, size, FUZZ_SEP, FUZZ_SEP_LEN) : NULL;
  if (sep) {
    s.an = (size_t)(sep - (const char *)data);
    s.b = sep + FUZZ_SEP_LEN;
    s.bn = size - s.an - FUZZ_SEP_LEN;
  }
  return s;
}

/* Internal form of raw bytes in b (cleared first); aborts on OOM, which
** cannot happen with the plain allocator below libFuzzer's rss limit. */
static inline void fuzz_internal(const char *s, size_t n, ifs_buf *b) {
  ifs_buf_clear(b);
  if (ifs_to_internal(s, n, b) != IFS_OK) fuzz_fail("ifs_to_internal: NOMEM");
  if (!b->p) {             /* empty input: keep a valid pointer */
    if (ifs_buf_reserve(b, 1) != IFS_OK) fuzz_fail("reserve: NOMEM");
  }
}

#endif
