/*
** ifs_re_nfa.c — the syntax tree of a regular pattern compiled into a
** Thompson NFA over code points, which ifs_redfa.c turns into a DFA.
**
** A regex constraint only asks whether the pattern matches somewhere, and
** for a regular pattern that is a property of the text's language: lazy
** and greedy repeats are alike, captures do not matter, and a DFA answers
** in one pass whatever the pattern.  So a pattern with no back-reference,
** atomic group, possessive repeat or conditional compiles here into
** ifs_redfa's program (ifs_redfa.h): each one-character node a CHAR over
** the code point set it matches (ifs_re_charset.c; under IGNORECASE the
** set sre's case tables give, as the PCRE2 translation has it),
** alternations and repeats SPLITs and JMPs (counted repeats unrolled),
** anchors and \b \B zero-width ASSERTs with Python's meanings.
**
** Look-arounds are not regular in this program, with two exceptions that
** only the question "is there a match?" allows: a positive look-ahead at
** the very end of the pattern, X(?=Y), matches somewhere exactly when XY
** does, and a positive look-behind at its very start, (?<=Y)X, exactly
** when YX does; both are compiled as that concatenation (through groups
** and alternations that are themselves at the end or the start).
** Anything else, or a program past the DFA's bounds (IFS_REDFA_MAX_INSTS,
** IFS_REDFA_MAX_SETS), leaves the pattern to PCRE2 alone.
**
** Entry point: ifs_re_compile_dfa.
*/
#include <string.h>
#include "ifs_re_nfa.h"
#include "ifs_re_charset.h"

/* A regular pattern compiles into a Thompson NFA for ifs_redfa (\b and
** \B all of one kind, ASCII or Unicode); anything else sets `bad` and the
** pattern stays with PCRE2 alone. */
typedef struct dprog {
  parser *p;
  ifs_rd_inst *ins;
  size_t n, cap;
  rset sets[IFS_REDFA_MAX_SETS];
  const node *set_node[IFS_REDFA_MAX_SETS];   /* sets are shared by a node's copies */
  uint32_t set_flags[IFS_REDFA_MAX_SETS];
  size_t nsets;
  int word;             /* \b \B seen: 1 ASCII, 2 Unicode word characters */
  int bad, oom;
} dprog;

static uint32_t dp_emit(dprog *d, int op, int kind, uint32_t x, uint32_t y) {
  if (d->bad || d->oom) return 0;
  if (d->n == IFS_REDFA_MAX_INSTS) { d->bad = 1; return 0; }
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 64;
    ifs_rd_inst *v = ifs_realloc(d->ins, cap * sizeof *v);
    if (!v) { d->oom = 1; return 0; }
    d->ins = v;
    d->cap = cap;
  }
  ifs_rd_inst in = { (uint8_t)op, (uint8_t)kind, x, y };
  d->ins[d->n] = in;
  return (uint32_t)d->n++;
}

static void dp_char(dprog *d, const node *x, uint32_t flags) {
  uint32_t key = flags & (F_UNICODE | F_DOTALL | F_IGNORECASE);
  size_t k;
  for (k = 0; k < d->nsets; k++)
    if (d->set_node[k] == x && d->set_flags[k] == key) break;
  if (k == d->nsets) {
    if (k == IFS_REDFA_MAX_SETS) { d->bad = 1; return; }
    rset s = {0};
    ifs_re_node_set(x, flags, &s);
    if (s.oom) { d->oom = 1; ifs_rs_free(&s); return; }
    d->sets[k] = s;
    d->set_node[k] = x;
    d->set_flags[k] = key;
    d->nsets++;
  }
  dp_emit(d, IFS_RD_CHAR, 0, (uint32_t)k, 0);
}

static void dp_at(dprog *d, const node *x, uint32_t flags) {
  int ml = (flags & F_MULTILINE) != 0, uni = (flags & F_UNICODE) != 0, k;
  switch (x->sub) {
  case AT_BEGINNING: k = ml ? IFS_RD_BOL : IFS_RD_BOS; break;
  case AT_BEGINNING_STRING: k = IFS_RD_BOS; break;
  case AT_END: k = ml ? IFS_RD_EOL : IFS_RD_EOS_NL; break;
  case AT_END_STRING: k = IFS_RD_EOS; break;
  case AT_BOUNDARY: k = IFS_RD_WORDB; break;
  default: k = IFS_RD_NWORDB; break;
  }
  if (k == IFS_RD_WORDB || k == IFS_RD_NWORDB) {
    if (d->word && d->word != 1 + uni) { d->bad = 1; return; }   /* both kinds */
    d->word = 1 + uni;
  }
  dp_emit(d, IFS_RD_ASSERT, k, 0, 0);
}

/* Where a node is in the whole pattern: nothing before it (AT_HEAD),
** nothing after it (AT_TAIL). */
enum { AT_HEAD = 1, AT_TAIL = 2 };

static void dp_seq(dprog *d, seq *q, uint32_t flags, int edge);

/* Points the y of every SPLIT in pcs[0..n) (or the x of a JMP) here. */
static void dp_patch(dprog *d, const uint32_t *pcs, size_t n) {
  for (size_t i = 0; i < n && !d->bad && !d->oom; i++) {
    ifs_rd_inst *in = &d->ins[pcs[i]];
    if (in->op == IFS_RD_SPLIT) in->y = (uint32_t)d->n; else in->x = (uint32_t)d->n;
  }
}

static void dp_branch(dprog *d, const node *x, uint32_t flags, int edge) {
  if (x->nalts > IFS_REDFA_MAX_INSTS) { d->bad = 1; return; }
  uint32_t *jmps = ifs_malloc((x->nalts ? x->nalts : 1) * sizeof *jmps);
  if (!jmps) { d->oom = 1; return; }
  size_t nj = 0;
  for (size_t i = 0; i < x->nalts && !d->bad && !d->oom; i++) {
    uint32_t split = 0;
    int last = i + 1 == x->nalts;
    if (!last) split = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->alts[i], flags, edge);
    if (!last) {
      jmps[nj++] = dp_emit(d, IFS_RD_JMP, 0, 0, 0);
      dp_patch(d, &split, 1);
    }
  }
  dp_patch(d, jmps, nj);
  ifs_free(jmps);
}

static void dp_repeat(dprog *d, const node *x, uint32_t flags) {
  if (x->sub == R_POSS) { d->bad = 1; return; }
  uint64_t lo, hi, min = x->min, max = x->max;
  ifs_re_width(d->p, x->a, &lo, &hi);
  if (hi == 0 && max != 0) { min = min ? 1 : 0; max = 1; }   /* as emit_repeat */
  if (lo >= 1 && max != MAXREPEAT && max > MAX_SUBJECT_CHARS) max = MAXREPEAT;
  if (min > IFS_REDFA_MAX_INSTS || (max != MAXREPEAT && max - min > IFS_REDFA_MAX_INSTS)) {
    d->bad = 1;
    return;
  }
  for (uint64_t i = 0; i < min && !d->bad && !d->oom; i++) dp_seq(d, x->a, flags, 0);
  if (max == MAXREPEAT) {
    uint32_t loop = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->a, flags, 0);
    dp_emit(d, IFS_RD_JMP, 0, loop, 0);
    dp_patch(d, &loop, 1);
    return;
  }
  size_t nopt = (size_t)(max - min);
  uint32_t *splits = ifs_malloc((nopt ? nopt : 1) * sizeof *splits);
  if (!splits) { d->oom = 1; return; }
  for (size_t i = 0; i < nopt && !d->bad && !d->oom; i++) {
    splits[i] = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->a, flags, 0);
  }
  dp_patch(d, splits, nopt);
  ifs_free(splits);
}

/* A positive look-ahead at the end of the pattern, or look-behind at its
** start: its body, in place (see the top of this file). */
static void dp_assert(dprog *d, const node *x, uint32_t flags, int edge) {
  if (x->sub || !(edge & (x->dir > 0 ? AT_TAIL : AT_HEAD))) { d->bad = 1; return; }
  dp_seq(d, x->a, flags, edge);
}

static void dp_node(dprog *d, const node *x, uint32_t flags, int edge) {
  switch (x->kind) {
  case N_LIT: case N_NOTLIT: case N_ANY: case N_IN: dp_char(d, x, flags); break;
  case N_AT: dp_at(d, x, flags); break;
  case N_BRANCH: dp_branch(d, x, flags, edge); break;
  case N_SUB: dp_seq(d, x->a, combine_flags(flags, x->addf, x->delf), edge); break;
  case N_REPEAT: dp_repeat(d, x, flags); break;
  case N_ASSERT: dp_assert(d, x, flags, edge); break;
  default: d->bad = 1; break;
  }
}

static void dp_seq(dprog *d, seq *q, uint32_t flags, int edge) {
  size_t n = seq_len(q);
  for (size_t i = 0; i < n && !d->bad && !d->oom; i++)
    dp_node(d, seq_at(q, i), flags,
            (i == 0 ? edge & AT_HEAD : 0) | (i + 1 == n ? edge & AT_TAIL : 0));
}

/* The DFA of a parsed pattern, NULL when it has none (*rc stays IFS_OK)
** or memory ran out (*rc = IFS_NOMEM). */
ifs_redfa *ifs_re_compile_dfa(parser *p, seq *root, ifs_status *rc) {
  dprog d;   /* the set arrays are read up to nsets only: not cleared (9 KB) */
  d.p = p;
  d.ins = NULL;
  d.n = d.cap = d.nsets = 0;
  d.word = d.bad = d.oom = 0;
  dp_seq(&d, root, p->flags, AT_HEAD | AT_TAIL);
  dp_emit(&d, IFS_RD_MATCH, 0, 0, 0);
  ifs_redfa *dfa = NULL;
  if (!d.bad && !d.oom) {
    ifs_rd_set views[IFS_REDFA_MAX_SETS];
    for (size_t i = 0; i < d.nsets; i++) {
      views[i].r = (const uint32_t (*)[2])d.sets[i].r;
      views[i].n = d.sets[i].n;
    }
    const node *first = seq_len(root) ? seq_at(root, 0) : NULL;
    int anchored = first && first->kind == N_AT &&
                   (first->sub == AT_BEGINNING_STRING ||
                    (first->sub == AT_BEGINNING && !(p->flags & F_MULTILINE)));
    ifs_rd_set uword;
    ifs_re_cat_table(C_WORD, 1, &uword.r, &uword.n);
    ifs_status err;
    dfa = ifs_redfa_new(d.ins, d.n, views, d.nsets, d.word == 2 ? &uword : NULL, anchored,
                        &err);
    if (err == IFS_NOMEM) d.oom = 1;
  }
  if (d.oom) *rc = IFS_NOMEM;
  for (size_t i = 0; i < d.nsets; i++) ifs_rs_free(&d.sets[i]);
  ifs_free(d.ins);
  return dfa;
}

