/*
** ifs_redfa.h — "does this pattern match anywhere?" by a lazily built DFA.
**
** Most patterns of an eval set are regular (no back-reference, look-around
** or atomic group), and a regex constraint only asks whether the pattern
** matches.  For those the answer is a property of the text's language, so
** a DFA answers it in one pass, with no backtracking, whatever the pattern
** (`(a+)+$` included).  ifs_re_nfa.c compiles such a pattern's tree into
** the small program below (a Thompson NFA over code points whose character
** tests are sets of code point ranges); this module partitions the code
** points into classes, builds DFA states as the text needs them, and runs
** over states that loop on most bytes sixteen bytes at a time.
**
** The subject must be strict UTF-8.  The state cache is bounded; when a
** search would pass the bound the answer is IFS_LIMIT and the caller asks
** the backtracking engine instead.
*/
#ifndef IFS_REDFA_H
#define IFS_REDFA_H

#include "ifs_common.h"

enum ifs_rd_op {
  IFS_RD_CHAR,     /* one character in set x, then the next instruction */
  IFS_RD_SPLIT,    /* go on at x and at y */
  IFS_RD_JMP,      /* go on at x */
  IFS_RD_ASSERT,   /* a zero-width test (kind), then the next instruction */
  IFS_RD_MATCH
};

enum ifs_rd_assert {   /* Python's meanings */
  IFS_RD_BOS,      /* \A, and ^ without MULTILINE: position 0 */
  IFS_RD_BOL,      /* ^ with MULTILINE: position 0 or just after a \n */
  IFS_RD_EOS,      /* \Z: the end */
  IFS_RD_EOS_NL,   /* $: the end, or just before a \n that ends the text */
  IFS_RD_EOL,      /* $ with MULTILINE: the end or just before any \n */
  IFS_RD_WORDB,    /* \b (never in an empty text); word characters: below */
  IFS_RD_NWORDB    /* \B (never in an empty text) */
};

typedef struct ifs_rd_inst { uint8_t op, kind; uint32_t x, y; } ifs_rd_inst;

/* Sorted, disjoint, non-adjacent ranges of code points. */
typedef struct ifs_rd_set { const uint32_t (*r)[2]; size_t n; } ifs_rd_set;

/* The largest program this engine takes: instructions and sets.  The NFA
** compiler (ifs_re_nfa.c) leaves larger patterns to PCRE2; ifs_redfa_new
** refuses them (IFS_LIMIT). */
#define IFS_REDFA_MAX_INSTS 3000u
#define IFS_REDFA_MAX_SETS 200u

typedef struct ifs_redfa ifs_redfa;

/* The program starts at instruction 0; `anchored` when it can only match
** at position 0 (it starts with \A); `word` the word characters of \b and
** \B (NULL: ASCII letters, digits and '_').  NULL with *err = IFS_NOMEM,
** or IFS_LIMIT when the program or its alphabet is beyond this engine's
** bounds (the caller keeps the backtracking engine alone). */
ifs_redfa *ifs_redfa_new(const ifs_rd_inst *ins, size_t nins, const ifs_rd_set *sets,
                         size_t nsets, const ifs_rd_set *word, int anchored,
                         ifs_status *err);
void ifs_redfa_free(ifs_redfa *d);

/* Whether the program matches somewhere in s (strict UTF-8): IFS_OK with
** *matched 1 or 0; IFS_LIMIT when the search needs more states or work than
** a DFA built for it alone may have (ask another engine); IFS_NOMEM.  Which
** of these, and the answer, depend on the program and s alone, not on the
** searches before. */
ifs_status ifs_redfa_search(ifs_redfa *d, const char *s, size_t n, int *matched);

/* The bytes the DFA holds now (its states grow with the searches). */
size_t ifs_redfa_bytes(const ifs_redfa *d);

#ifdef IFS_TESTING
/* Test hook: scans with the byte loop only (0) or SIMD where the CPU has it. */
void ifs_test_redfa_simd(ifs_redfa *d, int on);
#endif

#endif
