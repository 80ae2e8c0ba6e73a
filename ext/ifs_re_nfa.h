/*
** ifs_re_nfa.h — the syntax tree (ifs_re_tree.h) of a regular pattern
** compiled into the NFA program of ifs_redfa.h; see ifs_re_nfa.c.
*/
#ifndef IFS_RE_NFA_H
#define IFS_RE_NFA_H

#include "ifs_re_tree.h"
#include "ifs_redfa.h"

/* The DFA of a parsed pattern (root, p), NULL when it has none (*rc stays
** IFS_OK: the pattern is not regular, or beyond the program's bounds) or
** memory ran out (*rc = IFS_NOMEM).  Only for strict UTF-8 subjects, and
** only when the emitter wrote no start-position filter (see ifs_regex.c). */
ifs_redfa *ifs_re_compile_dfa(parser *p, seq *root, ifs_status *rc);

#endif
