/*
** ifs_unicode_names.h — Unicode character names as CPython 3.11's re reads
** them in \N{NAME}: unicodedata.lookup(NAME), which must give one character.
**
** Accepted: every character name of Unicode 14.0 in any ASCII letter case
** (EM DASH, em dash), the aliases (NBSP, LINE FEED, ZWNJ, ...), HANGUL
** SYLLABLE and CJK UNIFIED IDEOGRAPH- names (exact case only: lookup builds
** those by rule).  Rejected: unknown names, named sequences (several
** characters), and anything not made of ASCII letters, digits, spaces and
** hyphens.  The table is ifs_unicode_names_table.h, generated from Python.
*/
#ifndef IFS_UNICODE_NAMES_H
#define IFS_UNICODE_NAMES_H

#include "ifs_common.h"

/* The code point \N{name} stands for, name being n code points: IFS_OK
** with *cp, or IFS_INVALID when re rejects the name ("undefined character
** name"). */
ifs_status ifs_uname_lookup(const uint32_t *name, size_t n, uint32_t *cp);

#endif
