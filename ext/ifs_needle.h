/*
** ifs_needle.h — `needle.lower() in text.lower()` without lowering the text.
**
** Python's str.lower() maps each character on its own, except U+0130
** (lowercase "i" + U+0307, two characters) and U+03A3 (final or non-final
** sigma, by context).  In a text free of those two, lowering is a map f of
** code points, and the needle is in text.lower() exactly when some run of
** the text's characters maps under f onto the lowered needle.  The search
** looks for that run directly: it scans 32 bytes at a time (16 without
** AVX2) for the bytes such a run must hold (the last byte of any character
** that lowers to the needle's first character, and likewise for the
** second) and verifies each candidate by decoding.  In ASCII text, and for
** a needle of ASCII without k in any text (only KELVIN SIGN lowers into
** ASCII from outside it), a match is the needle's own bytes, letters in
** either case: there the needle's first, middle and last bytes filter, and
** bytes are compared.
** Texts that hold U+0130 or U+03A3 are for the caller to lower
** (ifs_utf8_scan tells).
*/
#ifndef IFS_NEEDLE_H
#define IFS_NEEDLE_H

#include "ifs_common.h"

/* Byte values a position may hold, as (byte | fold) == want tests, so that a
** letter's two cases cost one comparison. */
typedef struct ifs_byteset {
  int n;
  unsigned char fold[4], want[4];
} ifs_byteset;

typedef struct ifs_needle {
  const char *low;          /* needle.lower(), internal UTF-8 (not owned) */
  size_t len;
  ifs_byteset first;        /* last byte of a character lowering to char 1 */
  ifs_byteset second;       /* a byte of char 2's source, second_at after it */
  size_t second_at;         /* 0: no second filter (one-character needle) */
  int ascii;                /* the lowered needle is pure ASCII; then, */
  ifs_byteset ascii_first;  /* in ASCII text, its first byte's sources */
  ifs_byteset ascii_last;   /* and its last byte's */
  int plain;                /* ASCII without k: in any text, a match is the
                            ** needle's own bytes, letters in either case */
} ifs_needle;

/* Prepares a search for low[0..len) (already lowercased, len > 0); low must
** outlive the needle. */
void ifs_needle_init(ifs_needle *nd, const char *low, size_t len);

/* For a text (internal UTF-8) with neither U+0130 nor U+03A3, ascii when
** it is pure ASCII: IFS_OK with *found = 1 when the needle is in
** text.lower(), 0 when not; IFS_LIMIT when candidates were so many that
** verifying them would turn quadratic (then lower the text and use
** ifs_find, which is linear). */
ifs_status ifs_needle_find(const ifs_needle *nd, const char *text, size_t n, int ascii,
                           int *found);

/* 1 when the characters of text from the one holding byte p on lower to
** low[0..len) (a lowered needle, low_ascii when it is pure ASCII), in a
** text as for ifs_needle_find; *work grows by the characters compared. */
int ifs_needle_at(const char *low, size_t len, int low_ascii, const char *text, size_t n,
                  size_t p, size_t *work);

#endif
