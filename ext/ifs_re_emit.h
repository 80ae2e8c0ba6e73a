/*
** ifs_re_emit.h — the syntax tree (ifs_re_tree.h) written out as a PCRE2
** pattern with Python's meaning; see ifs_re_emit.c.
*/
#ifndef IFS_RE_EMIT_H
#define IFS_RE_EMIT_H

#include "ifs_re_tree.h"

/* The size of the block a remapped subject's surrogates go to: U+D800+k
** becomes map_base+k (ifs_regex.c picks map_base, a block the subject
** does not use; the emitter maps the pattern's surrogates the same way). */
#define MAP_BLOCK 0x800u

/* Appends the PCRE2 form of the parsed pattern (root, p) to out, for
** subjects whose surrogates are at map_base+k (0: subjects without any).
** *prefixed: a start-position filter was written first (see
** emit_info_prefix).  lead, when given, gets the one-character test X of
** a pattern that starts with X* or X+ (for the search's skip_run), unless
** prefixed.  IFS_OK, IFS_INVALID (re._compiler would raise), IFS_LIMIT
** (over 16 MB of PCRE2 text) or IFS_NOMEM. */
ifs_status ifs_re_emit(parser *p, seq *root, uint32_t map_base, ifs_buf *out, ifs_buf *lead,
                int *prefixed);

#endif
