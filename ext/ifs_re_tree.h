/*
** ifs_re_tree.h — the syntax tree of a Python pattern, shared by the
** phases of the regex translator.
**
** The tree is re/_parser.py's: a pattern is a sequence (SubPattern) of
** nodes, a node is one of sre's opcodes (LITERAL, IN, BRANCH, SUBPATTERN,
** MAX_REPEAT, ...) with its arguments, and the rewrites Python makes while
** parsing (common prefixes factored out of alternations, alternations of
** characters turned into sets, non-capturing groups without flags
** unpacked) are already applied.  Nodes live in the parser's arena and are
** read-only once parsed, except for the widths each sequence caches.
**
** The phases, one file each (ifs_regex.c runs them):
**   ifs_re_parse.c    pattern text -> tree    ifs_re_parse, ifs_re_width
**   ifs_re_charset.c  code point sets, sre's character properties and
**                     case folding            (ifs_re_charset.h)
**   ifs_re_emit.c     tree -> PCRE2 pattern   ifs_re_emit (ifs_re_emit.h)
**   ifs_re_nfa.c      tree -> Thompson NFA -> ifs_redfa
**                                             ifs_re_compile_dfa (ifs_re_nfa.h)
**   ifs_regex.c       the public API: cache, budgeted search, callouts,
**                     surrogate remapping     (ifs_regex.h)
** The parser's state travels with the tree: the emitter and the NFA
** compiler read the groups' widths from it, and the emitter goes on
** counting Python's stack frames where re/_compiler.py would recurse.
** Internal to the regex modules: the short type names never reach the
** linker, the functions they share are prefixed ifs_re_ / ifs_rs_.
*/
#ifndef IFS_RE_TREE_H
#define IFS_RE_TREE_H

#include "ifs_common.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define MAXREPEAT 4294967295u    /* _sre.MAXREPEAT: also "unbounded" */
#define MAXGROUPS 1073741823u    /* _sre.MAXGROUPS */

enum {                           /* sre flag bits */
  F_TEMPLATE = 1, F_IGNORECASE = 2, F_LOCALE = 4, F_MULTILINE = 8,
  F_DOTALL = 16, F_UNICODE = 32, F_VERBOSE = 64, F_ASCII = 256
};
#define TYPE_FLAGS (F_ASCII | F_LOCALE | F_UNICODE)

/* Python's recursion limit, seen from the parser: re.search called from
** the third frame of the stack (module -> runner -> evaluator), as in the
** reference; the parser's first frame is the fifth above that. */
#ifndef PY_FRAME_BUDGET
#define PY_FRAME_BUDGET 993
#endif

/* SQLite's hard limit on the bytes of a value: no subject has more
** characters, so larger repeat counts of a non-empty item are decided. */
#define MAX_SUBJECT_CHARS 2147483647u

/* The tree (re/_parser.py's SubPattern lists)                         */

enum nkind {
  N_LIT, N_NOTLIT, N_ANY, N_IN, N_AT, N_BRANCH, N_SUB, N_ATOMIC,
  N_REPEAT, N_GROUPREF, N_EXISTS, N_ASSERT
};
enum at_code {
  AT_BEGINNING, AT_BEGINNING_STRING, AT_END, AT_END_STRING,
  AT_BOUNDARY, AT_NON_BOUNDARY
};
enum rep_kind { R_MAX, R_MIN, R_POSS };
enum set_op { S_LIT, S_RANGE, S_CAT, S_NEGATE };
enum cat_code { C_DIGIT, C_NOT_DIGIT, C_SPACE, C_NOT_SPACE, C_WORD, C_NOT_WORD };

/* An item of a set; `shared` when Python builds it as one shared tuple
** (ESCAPES and CATEGORIES entries), which matters for frame counting. */
typedef struct setitem { uint8_t op, shared; uint32_t a, b; } setitem;
typedef struct seq seq;
typedef struct node {
  uint8_t kind;
  uint8_t sub;          /* at_code, rep_kind, assert: 1 = negative */
  int8_t dir;           /* assert: 1 ahead, -1 behind */
  uint32_t c;           /* literal, group number */
  uint32_t addf, delf;  /* scoped flags of N_SUB */
  uint64_t min, max;    /* repeat bounds; max == MAXREPEAT: unbounded */
  setitem *set;         /* N_IN items, S_NEGATE first when negated */
  size_t nset;
  seq *a, *b;           /* body / yes, no */
  seq **alts;           /* N_BRANCH */
  size_t nalts;
} node;

struct seq {
  node **v;
  size_t off, n, cap;   /* live items v[off..n) */
  int has_width;
  uint64_t lo, hi;
};

typedef struct name_ent { const uint32_t *s; size_t n; uint32_t gid; } name_ent;

typedef struct parser {
  const uint32_t *s;    /* the pattern as code points */
  size_t n;
  /* Tokenizer: `next` is a character or a backslash pair, or none. */
  size_t index;         /* just after the next token */
  int has_next, next_esc;
  uint32_t next_c;
  ifs_status err;       /* IFS_OK, IFS_INVALID, IFS_NOMEM */
  ifs_arena *arena;
  /* State */
  uint32_t flags;
  uint32_t ngroups;     /* state.groups, group 0 included */
  struct gw { uint64_t lo, hi; int closed; } *gw;
  uint32_t gw_cap;
  name_ent *names;      /* open addressing, names_cap a power of two */
  size_t names_cap, names_n;
  int64_t lookbehindgroups;  /* -1: not inside a look-behind */
  uint64_t max_condref;      /* largest numeric conditional reference */
  int frames;                /* Python frames in use by the parser */
  int wdepth, wpeak;         /* getwidth recursion, for the same count */
} parser;

static inline size_t seq_len(const seq *q) { return q->n - q->off; }
static inline node *seq_at(const seq *q, size_t i) { return q->v[q->off + i]; }

/* The flags inside a (?add-del:...) group. */
static inline uint32_t combine_flags(uint32_t flags, uint32_t add, uint32_t del) {
  if (add & TYPE_FLAGS) flags &= ~(uint32_t)TYPE_FLAGS;
  return (flags | add) & ~del;
}

/* re._parser.parse plus fix_flags and the final checks, over the pattern
** as n code points (which must outlive the tree); nodes go to arena.  The
** tree, or NULL with p->err = IFS_INVALID (Python raises) or IFS_NOMEM. */
seq *ifs_re_parse(parser *p, ifs_arena *arena, const uint32_t *s, size_t n);

/* SubPattern.getwidth: the least and most characters q matches, capped
** as Python caps them (cached in q; counts the frames Python would use in
** p->wdepth / p->wpeak). */
void ifs_re_width(parser *p, seq *q, uint64_t *lo, uint64_t *hi);

#endif
