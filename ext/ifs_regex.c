/*
** ifs_regex.c — CPython 3.11's re.search(pattern, text) on PCRE2.
**
** A Python pattern is parsed exactly as re/_parser.py parses it (same
** grammar, same errors, same tree rewrites: common-prefix factoring,
** alternations of characters turned into sets, non-capturing groups
** unpacked), checked as re/_compiler.py checks it (fixed-width look-behind,
** the template flag), and the tree is written out as a PCRE2 pattern in
** which nothing depends on PCRE2's own notion of case, space, line end or
** flags: case-insensitive characters and sets become explicit classes
** computed from sre's case tables (ifs_regex_tables.h, generated from
** Python), Python's \s becomes explicit ranges, `$` `^` `.` `\b` `\Z`
** become the PCRE2 constructs with Python's meaning, and every flag is
** applied by the translator.  Case-insensitive back-references, which
** PCRE2 cannot express with Python's rule (equal lowercase), use a callout.
**
** PCRE2 in UTF mode cannot hold a lone surrogate.  A subject that has none
** (the usual case) is matched with a translation in which the pattern's
** surrogates can never match; a subject that has some (invalid bytes read
** as U+DC80..U+DCFF) is rewritten with U+D800+k as base+k, base being the
** first of 14 private-use or unassigned 2048-blocks (U+10F800 first) the
** subject does not use, and matched with a translation that maps the
** pattern the same way.  Only a subject using all 14 blocks as well as
** surrogates would be ambiguous.
**
** Compiled patterns live in a per-connection LRU cache (invalid ones too);
** match data and JIT stack are reused.  A search has a budget of match
** steps for all its start positions together (PCRE2's own match limit
** restarts at each one), counted, not timed (a clock is only the last
** resort), and each start position a cap; the heap limit bounds memory.
** Catastrophic backtracking and quadratic searches end in
** IFS_REGEX_LIMIT (see search_budgeted).
** Two PCRE2 10.42 optimizer bugs and one JIT bug are avoided (see
** workaround_opts and emit_repeat).
**
** Not reproduced (see the report in tests/regex_diff.py's residuals):
** \N{NAME} (Python's name table is ~230 KB even compressed: rejected as
** invalid), CPython 3.11.2's own possessive-repeat capture bugs, repeats
** whose PCRE2 code exceeds its 64 KiB limit (IFS_REGEX_LIMIT unless the
** subject is shorter than the pattern's minimum length).
*/
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>
#include <time.h>
#include "ifs_regex.h"
#include "ifs_text.h"
#include "ifs_regex_tables.h"
#include "ifs_redfa.h"

/* ------------------------------------------------------------------ */
/* Constants of CPython's sre                                          */

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

/* ------------------------------------------------------------------ */
/* Decoding internal UTF-8                                             */

/* One code point at s[*i]; a byte that does not start a well-formed
** sequence (with surrogates allowed) reads as U+DC00+byte. */
static uint32_t decode_cp(const unsigned char *s, size_t n, size_t *i) {
  size_t k = *i;
  unsigned c = s[k];
  if (c < 0x80) { *i = k + 1; return c; }
  int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (c > 0xF4 || len == 0 || k + (size_t)len > n) goto stray;
  uint32_t cp = c & (0x3F >> (len - 1));
  for (int j = 1; j < len; j++) {
    unsigned d = s[k + j];
    if ((d & 0xC0) != 0x80) goto stray;
    cp = (cp << 6) | (d & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    goto stray;
  *i = k + (size_t)len;
  return cp;
stray:
  *i = k + 1;
  return 0xDC00 + c;
}

/* ------------------------------------------------------------------ */
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
  int err;              /* IFS_OK, IFS_INVALID, IFS_NOMEM */
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

static void *palloc(parser *p, size_t n) {
  void *r = ifs_arena_alloc(p->arena, n ? n : 1);
  if (!r) p->err = IFS_NOMEM;
  return r;
}

static void fail(parser *p) {
  if (!p->err) p->err = IFS_INVALID;
}

/* Python's RecursionError: `extra` frames above the current one. */
static int frames_ok(parser *p, int extra) {
  if (p->frames + extra > PY_FRAME_BUDGET) { fail(p); return 0; }
  return 1;
}

static seq *seq_new(parser *p) {
  seq *q = palloc(p, sizeof *q);
  if (q) memset(q, 0, sizeof *q);
  return q;
}

static size_t seq_len(const seq *q) { return q->n - q->off; }
static node *seq_at(const seq *q, size_t i) { return q->v[q->off + i]; }

static int seq_push(parser *p, seq *q, node *x) {
  if (q->n == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 4;
    node **v = palloc(p, cap * sizeof *v);
    if (!v) return 0;
    if (q->n) memcpy(v, q->v, q->n * sizeof *v);
    q->v = v;
    q->cap = cap;
  }
  q->v[q->n++] = x;
  return 1;
}

static node *node_new(parser *p, int kind) {
  node *x = palloc(p, sizeof *x);
  if (x) { memset(x, 0, sizeof *x); x->kind = (uint8_t)kind; }
  return x;
}

/* ------------------------------------------------------------------ */
/* Tokenizer (re._parser.Tokenizer)                                    */

static void tk_next(parser *p) {
  size_t i = p->index;
  if (i >= p->n) { p->has_next = 0; return; }
  uint32_t c = p->s[i];
  if (c == '\\') {
    if (i + 1 >= p->n) { p->has_next = 0; fail(p); return; }  /* bad escape */
    p->next_esc = 1;
    p->next_c = p->s[i + 1];
    p->index = i + 2;
  } else {
    p->next_esc = 0;
    p->next_c = c;
    p->index = i + 1;
  }
  p->has_next = 1;
}

/* next is the plain character ch */
static int tk_is(const parser *p, uint32_t ch) {
  return p->has_next && !p->next_esc && p->next_c == ch;
}

static int tk_is_digit(const parser *p) {
  return p->has_next && !p->next_esc && p->next_c >= '0' && p->next_c <= '9';
}

static int tk_match(parser *p, uint32_t ch) {
  if (!tk_is(p, ch)) return 0;
  tk_next(p);
  return 1;
}

typedef struct tok { int none, esc; uint32_t c; } tok;

static tok tk_get(parser *p) {
  tok t = { !p->has_next, p->next_esc, p->next_c };
  tk_next(p);
  return t;
}

static size_t tk_tell(const parser *p) {
  return p->has_next ? p->index - (p->next_esc ? 2 : 1) : p->index;
}

static void tk_seek(parser *p, size_t index) {
  p->index = index;
  tk_next(p);
}

static int is_plain(tok t, uint32_t ch) { return !t.none && !t.esc && t.c == ch; }

/* ------------------------------------------------------------------ */
/* Character properties from the generated tables                      */

static int in_ranges(const uint32_t (*r)[2], size_t n, uint32_t c) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c < r[mid][0]) hi = mid;
    else if (c > r[mid][1]) lo = mid + 1;
    else return 1;
  }
  return 0;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int py_isspace(uint32_t c) { return in_ranges(ifs_re_space, NELEM(ifs_re_space), c); }

/* unicodedata.decimal(c) or -1 */
static int py_decimal(uint32_t c) {
  size_t lo = 0, hi = NELEM(ifs_re_digit);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c < ifs_re_digit[mid][0]) hi = mid;
    else if (c > ifs_re_digit[mid][1]) lo = mid + 1;
    else return (int)((c - ifs_re_digit[mid][0]) % 10);
  }
  return -1;
}

static int py_isidentifier(const uint32_t *s, size_t n) {
  if (n == 0) return 0;
  if (!in_ranges(ifs_re_xid_start, NELEM(ifs_re_xid_start), s[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!in_ranges(ifs_re_xid_continue, NELEM(ifs_re_xid_continue), s[i])) return 0;
  return 1;
}

/* The case table entry of c, or NULL when sre calls c uncased. */
static const ifs_re_case_ent *case_ent(uint32_t c) {
  size_t lo = 0, hi = NELEM(ifs_re_case);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c < ifs_re_case[mid].cp) hi = mid;
    else if (c > ifs_re_case[mid].cp) lo = mid + 1;
    else return &ifs_re_case[mid];
  }
  return NULL;
}

static uint32_t uni_lower(uint32_t c) {
  const ifs_re_case_ent *e = case_ent(c);
  return e ? e->lower : c;
}

static uint32_t uni_upper(uint32_t c) {
  const ifs_re_case_ent *e = case_ent(c);
  return e ? e->upper : c;
}

static int ascii_iscased(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static uint32_t ascii_lower(uint32_t c) {
  return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* sre's lowercase in the given mode. */
static uint32_t mode_lower(int uni, uint32_t c) {
  return uni ? uni_lower(c) : ascii_lower(c);
}

static int mode_iscased(int uni, uint32_t c) {
  return uni ? case_ent(c) != NULL : ascii_iscased(c);
}

/* sre's extra equivalents of a lowercase character (up to 2). */
static int case_fixes(uint32_t lo, uint32_t out[2]) {
  size_t a = 0, b = NELEM(ifs_re_fixes);
  while (a < b) {
    size_t mid = (a + b) / 2;
    if (lo < ifs_re_fixes[mid][0]) b = mid;
    else if (lo > ifs_re_fixes[mid][0]) a = mid + 1;
    else {
      out[0] = ifs_re_fixes[mid][1];
      out[1] = ifs_re_fixes[mid][2];
      return out[1] ? 2 : 1;
    }
  }
  return 0;
}

/* Python word / digit / space for category tests at translate time. */
static int cat_word(int uni, uint32_t c) {
  if (!uni || c < 0x80)
    return c < 0x80 && (ascii_iscased(c) || (c >= '0' && c <= '9') || c == '_');
  const ifs_re_case_ent *e = case_ent(c);
  if (e) return e->flags & 1;
  return -1;   /* not needed: only cased points are asked */
}

static int cat_test(int uni, int cat, uint32_t c) {
  int r;
  switch (cat) {
  case C_DIGIT: case C_NOT_DIGIT:
    r = uni ? py_decimal(c) >= 0 : (c >= '0' && c <= '9');
    return cat == C_DIGIT ? r : !r;
  case C_SPACE: case C_NOT_SPACE:
    r = uni ? py_isspace(c)
            : (c == ' ' || (c >= '\t' && c <= '\r'));
    return cat == C_SPACE ? r : !r;
  default:
    r = cat_word(uni, c) == 1;
    return cat == C_WORD ? r : !r;
  }
}

/* ------------------------------------------------------------------ */
/* Group state (re._parser.State)                                      */

static name_ent *name_slot(parser *p, const uint32_t *s, size_t n) {
  size_t mask = p->names_cap - 1;
  size_t i = (size_t)ifs_hash_bytes(s, n * sizeof *s) & mask;
  for (;;) {
    name_ent *e = &p->names[i];
    if (!e->s) return e;
    if (e->n == n && memcmp(e->s, s, n * sizeof *s) == 0) return e;
    i = (i + 1) & mask;
  }
}

static int64_t name_get(parser *p, const uint32_t *s, size_t n) {
  if (!p->names_cap) return -1;
  name_ent *e = name_slot(p, s, n);
  return e->s ? (int64_t)e->gid : -1;
}

static int name_put(parser *p, const uint32_t *s, size_t n, uint32_t gid) {
  if (2 * (p->names_n + 1) > p->names_cap) {
    size_t cap = p->names_cap ? p->names_cap * 2 : 16;
    name_ent *old = p->names;
    size_t oldcap = p->names_cap;
    p->names = palloc(p, cap * sizeof *p->names);
    if (!p->names) return 0;
    memset(p->names, 0, cap * sizeof *p->names);
    p->names_cap = cap;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].s) *name_slot(p, old[i].s, old[i].n) = old[i];
  }
  name_ent *e = name_slot(p, s, n);
  e->s = s; e->n = n; e->gid = gid;
  p->names_n++;
  return 1;
}

/* state.opengroup(name): the new group number, or 0 on error. */
static uint32_t open_group(parser *p, const uint32_t *name, size_t nn) {
  uint32_t gid = p->ngroups;
  if (gid + 1 > MAXGROUPS) { fail(p); return 0; }
  if (gid >= p->gw_cap) {
    uint32_t cap = p->gw_cap ? p->gw_cap * 2 : 16;
    struct gw *g = palloc(p, cap * sizeof *g);
    if (!g) return 0;
    if (p->ngroups) memcpy(g, p->gw, p->ngroups * sizeof *g);
    p->gw = g;
    p->gw_cap = cap;
  }
  p->gw[gid].closed = 0;
  p->ngroups++;
  if (name) {
    if (name_get(p, name, nn) >= 0) { fail(p); return 0; }   /* redefinition */
    if (!name_put(p, name, nn, gid)) return 0;
  }
  return gid;
}

static int check_group(parser *p, uint64_t gid) {
  return gid < p->ngroups && p->gw[gid].closed;
}

/* state.checklookbehindgroup */
static int check_lookbehind_group(parser *p, uint64_t gid) {
  if (p->lookbehindgroups >= 0) {
    if (!check_group(p, gid)) { fail(p); return 0; }
    if (gid >= (uint64_t)p->lookbehindgroups) { fail(p); return 0; }
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Widths (SubPattern.getwidth)                                        */

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static void seq_width(parser *p, seq *q, uint64_t *plo, uint64_t *phi);

static void node_width(parser *p, node *x, uint64_t *lo, uint64_t *hi) {
  uint64_t i, j, l, h;
  switch (x->kind) {
  case N_BRANCH:
    i = MAXREPEAT - 1; j = 0;
    for (size_t k = 0; k < x->nalts; k++) {
      seq_width(p, x->alts[k], &l, &h);
      if (l < i) i = l;
      if (h > j) j = h;
    }
    *lo = sat_add(*lo, i); *hi = sat_add(*hi, j);
    break;
  case N_ATOMIC: case N_SUB:
    seq_width(p, x->a, &i, &j);
    *lo = sat_add(*lo, i); *hi = sat_add(*hi, j);
    break;
  case N_REPEAT:
    seq_width(p, x->a, &i, &j);
    *lo = sat_add(*lo, sat_mul(i, x->min));
    *hi = sat_add(*hi, sat_mul(j, x->max));
    break;
  case N_LIT: case N_NOTLIT: case N_ANY: case N_IN:
    *lo = sat_add(*lo, 1); *hi = sat_add(*hi, 1);
    break;
  case N_GROUPREF:
    *lo = sat_add(*lo, p->gw[x->c].lo); *hi = sat_add(*hi, p->gw[x->c].hi);
    break;
  case N_EXISTS:
    seq_width(p, x->a, &i, &j);
    if (x->b) {
      seq_width(p, x->b, &l, &h);
      if (l < i) i = l;
      if (h > j) j = h;
    } else {
      i = 0;
    }
    *lo = sat_add(*lo, i); *hi = sat_add(*hi, j);
    break;
  default:   /* anchors and assertions: no width */
    break;
  }
}

static void seq_width(parser *p, seq *q, uint64_t *plo, uint64_t *phi) {
  /* Python frames: each getwidth call one deeper; a call that computes
  ** (not cached) ends with min(), one more. */
  p->wdepth++;
  int peak = p->wdepth + !q->has_width;
  if (peak > p->wpeak) p->wpeak = peak;
  if (!q->has_width) {
    uint64_t lo = 0, hi = 0;
    for (size_t k = 0; k < seq_len(q); k++) node_width(p, seq_at(q, k), &lo, &hi);
    q->lo = lo < MAXREPEAT - 1 ? lo : MAXREPEAT - 1;
    q->hi = hi < MAXREPEAT ? hi : MAXREPEAT;
    q->has_width = 1;
  }
  p->wdepth--;
  *plo = q->lo;
  *phi = q->hi;
}

/* ------------------------------------------------------------------ */
/* Escapes (_escape, _class_escape)                                    */

/* An escape's meaning: a character, a category, an anchor or a group. */
typedef struct esc { int kind; uint32_t v; int shared; } esc;
enum { E_LIT, E_CAT, E_AT, E_REF };

static int is_hex(const parser *p) {
  if (!p->has_next || p->next_esc) return 0;
  uint32_t c = p->next_c;
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_oct(const parser *p) {
  return p->has_next && !p->next_esc && p->next_c >= '0' && p->next_c <= '7';
}

static uint32_t hexval(uint32_t c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* \x \u \U: exactly `digits` hex digits. */
static int hex_escape(parser *p, int digits, esc *out) {
  uint64_t v = 0;
  int k = 0;
  while (k < digits && is_hex(p)) {
    v = v * 16 + hexval(p->next_c);
    tk_next(p);
    k++;
  }
  if (k != digits || v > 0x10FFFF) { fail(p); return 0; }
  out->kind = E_LIT;
  out->v = (uint32_t)v;
  return 1;
}

static int escape_letter_ok(uint32_t c) {
  return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* \N{NAME}: unicodedata.lookup is not available in C; see the report. */
static int named_escape(parser *p, esc *out) {
  (void)out;
  if (!tk_match(p, '{')) { fail(p); return 0; }
  fail(p);
  return 0;
}

/* Shared by both escape flavours: category escapes. */
static int category_of(uint32_t c, int *cat) {
  switch (c) {
  case 'd': *cat = C_DIGIT; return 1;
  case 'D': *cat = C_NOT_DIGIT; return 1;
  case 's': *cat = C_SPACE; return 1;
  case 'S': *cat = C_NOT_SPACE; return 1;
  case 'w': *cat = C_WORD; return 1;
  case 'W': *cat = C_NOT_WORD; return 1;
  }
  return 0;
}

static int simple_escape(uint32_t c, uint32_t *v) {
  switch (c) {
  case 'a': *v = 7; return 1;
  case 'b': *v = 8; return 1;
  case 'f': *v = 12; return 1;
  case 'n': *v = 10; return 1;
  case 'r': *v = 13; return 1;
  case 't': *v = 9; return 1;
  case 'v': *v = 11; return 1;
  case '\\': *v = '\\'; return 1;
  }
  return 0;
}

/* _class_escape: c is the character after the backslash. */
static int class_escape(parser *p, uint32_t c, esc *out) {
  int cat;
  /* Python frames: _class_escape, then getwhile/match, then __next. */
  if (c && c < 128 && strchr("xuUN01234567", (int)c) && !frames_ok(p, 3)) return 0;
  out->shared = 1;
  if (simple_escape(c, &out->v)) { out->kind = E_LIT; return 1; }
  if (category_of(c, &cat)) { out->kind = E_CAT; out->v = (uint32_t)cat; return 1; }
  out->shared = 0;
  if (c == 'x') return hex_escape(p, 2, out);
  if (c == 'u') return hex_escape(p, 4, out);
  if (c == 'U') return hex_escape(p, 8, out);
  if (c == 'N') return named_escape(p, out);
  if (c >= '0' && c <= '7') {
    uint32_t v = c - '0';
    for (int k = 0; k < 2 && is_oct(p); k++) { v = v * 8 + (p->next_c - '0'); tk_next(p); }
    if (v > 0377) { fail(p); return 0; }
    out->kind = E_LIT; out->v = v;
    return 1;
  }
  if ((c >= '0' && c <= '9') || !escape_letter_ok(c)) { fail(p); return 0; }
  out->kind = E_LIT; out->v = c;
  return 1;
}

/* _escape: c is the character after the backslash. */
static int escape(parser *p, uint32_t c, esc *out) {
  int cat;
  /* Python frames: _escape, then getwhile/get/checkgroup, then __next or
  ** the groups property (one more for a look-behind's group check). */
  if (c && c < 128 && strchr("xuUN0123456789", (int)c) && !frames_ok(p, 3)) return 0;
  switch (c) {
  case 'A': out->kind = E_AT; out->v = AT_BEGINNING_STRING; return 1;
  case 'b': out->kind = E_AT; out->v = AT_BOUNDARY; return 1;
  case 'B': out->kind = E_AT; out->v = AT_NON_BOUNDARY; return 1;
  case 'Z': out->kind = E_AT; out->v = AT_END_STRING; return 1;
  }
  if (category_of(c, &cat)) { out->kind = E_CAT; out->v = (uint32_t)cat; return 1; }
  if (simple_escape(c, &out->v)) { out->kind = E_LIT; return 1; }
  if (c == 'x') return hex_escape(p, 2, out);
  if (c == 'u') return hex_escape(p, 4, out);
  if (c == 'U') return hex_escape(p, 8, out);
  if (c == 'N') return named_escape(p, out);
  if (c == '0') {
    uint32_t v = 0;
    for (int k = 0; k < 2 && is_oct(p); k++) { v = v * 8 + (p->next_c - '0'); tk_next(p); }
    out->kind = E_LIT; out->v = v;
    return 1;
  }
  if (c >= '1' && c <= '9') {
    uint32_t group = c - '0';
    if (tk_is_digit(p)) {
      uint32_t d2 = p->next_c;
      tk_next(p);
      if (c <= '7' && d2 <= '7' && is_oct(p)) {
        uint32_t v = ((c - '0') * 8 + (d2 - '0')) * 8 + (p->next_c - '0');
        tk_next(p);
        if (v > 0377) { fail(p); return 0; }
        out->kind = E_LIT; out->v = v;
        return 1;
      }
      group = group * 10 + (d2 - '0');
    }
    if (group < p->ngroups) {
      /* checklookbehindgroup -> checkgroup -> the groups property */
      if (p->lookbehindgroups >= 0 && !frames_ok(p, 4)) return 0;
      if (!check_group(p, group)) { fail(p); return 0; }
      if (!check_lookbehind_group(p, group)) return 0;
      out->kind = E_REF; out->v = group;
      return 1;
    }
    fail(p);
    return 0;
  }
  if (!escape_letter_ok(c)) { fail(p); return 0; }
  out->kind = E_LIT; out->v = c;
  return 1;
}

/* ------------------------------------------------------------------ */
/* The parser (_parse_sub, _parse, _parse_flags)                       */

/* source.getuntil(term): the tokens up to term, escapes kept as a
** backslash and the character (as Python's string would hold them). */
static int get_until(parser *p, uint32_t term, uint32_t **out, size_t *outn) {
  size_t cap = 0, n = 0;
  uint32_t *buf = NULL;
  for (;;) {
    tok t = tk_get(p);
    if (p->err) return 0;
    if (t.none) { fail(p); return 0; }
    if (!t.esc && t.c == term) {
      if (n == 0) { fail(p); return 0; }
      break;
    }
    if (n + 2 > cap) {
      size_t nc = cap ? cap * 2 : 16;
      uint32_t *nb = palloc(p, nc * sizeof *nb);
      if (!nb) return 0;
      if (n) memcpy(nb, buf, n * sizeof *nb);
      buf = nb;
      cap = nc;
    }
    if (t.esc) buf[n++] = '\\';
    buf[n++] = t.c;
  }
  *out = buf;
  *outn = n;
  return 1;
}

/* int(s) for a conditional group reference that is not an identifier:
** Python whitespace around, a sign, digits of any script with single
** underscores between them.  -1 when int() would raise or the value is
** negative; values past MAXGROUPS saturate. */
static int int_space(uint32_t c) {
  return c < 127 ? (c == ' ' || (c >= '\t' && c <= '\r')) : py_isspace(c);
}

static int64_t py_int(const uint32_t *s, size_t n) {
  size_t i = 0, j = n;
  while (i < j && int_space(s[i])) i++;
  while (j > i && int_space(s[j - 1])) j--;
  int neg = 0;
  if (i < j && (s[i] == '+' || s[i] == '-')) { neg = s[i] == '-'; i++; }
  if (i >= j || j - i > 5000) return -1;
  uint64_t v = 0;
  size_t ndig = 0;
  int prev_us = 1;   /* no leading underscore */
  for (; i < j; i++) {
    if (s[i] == '_') {
      if (prev_us) return -1;
      prev_us = 1;
      continue;
    }
    int d = py_decimal(s[i]);
    if (d < 0) return -1;
    prev_us = 0;
    ndig++;
    v = v > 1000000000000ull ? v : v * 10 + (uint64_t)d;
  }
  if (prev_us || ndig > 4300) return -1;
  if (neg && v) return -1;
  return (int64_t)(v > MAXGROUPS ? MAXGROUPS : v);
}

static int is_flag_char(tok t) {
  if (t.none || t.esc) return 0;
  switch (t.c) {
  case 'i': case 'L': case 'm': case 's': case 'x': case 'a': case 't': case 'u':
    return 1;
  }
  return 0;
}

static uint32_t flag_bit(uint32_t c) {
  switch (c) {
  case 'i': return F_IGNORECASE;
  case 'L': return F_LOCALE;
  case 'm': return F_MULTILINE;
  case 's': return F_DOTALL;
  case 'x': return F_VERBOSE;
  case 'a': return F_ASCII;
  case 't': return F_TEMPLATE;
  default: return F_UNICODE;
  }
}

/* _parse_flags: returns 1 for global flags (applied to state), 2 for
** scoped flags in *add / *del, 0 on error. */
static int parse_flags(parser *p, tok ch, uint32_t *add, uint32_t *del) {
  uint32_t a = 0, d = 0;
  if (!is_plain(ch, '-')) {
    for (;;) {
      uint32_t f = flag_bit(ch.c);
      if (ch.c == 'L') { fail(p); return 0; }   /* str pattern */
      a |= f;
      if ((f & TYPE_FLAGS) && (a & TYPE_FLAGS) != f) { fail(p); return 0; }
      ch = tk_get(p);
      if (p->err) return 0;
      if (ch.none) { fail(p); return 0; }
      if (is_plain(ch, ')') || is_plain(ch, '-') || is_plain(ch, ':')) break;
      if (!is_flag_char(ch)) { fail(p); return 0; }
    }
  }
  if (is_plain(ch, ')')) {
    p->flags |= a;
    return 1;
  }
  if (a & F_TEMPLATE) { fail(p); return 0; }
  if (is_plain(ch, '-')) {
    ch = tk_get(p);
    if (p->err) return 0;
    if (ch.none || !is_flag_char(ch)) { fail(p); return 0; }
    for (;;) {
      uint32_t f = flag_bit(ch.c);
      if (f & TYPE_FLAGS) { fail(p); return 0; }
      d |= f;
      ch = tk_get(p);
      if (p->err) return 0;
      if (ch.none) { fail(p); return 0; }
      if (is_plain(ch, ':')) break;
      if (!is_flag_char(ch)) { fail(p); return 0; }
    }
  }
  if (d & F_TEMPLATE) { fail(p); return 0; }
  if (a & d) { fail(p); return 0; }
  *add = a;
  *del = d;
  return 2;
}

static seq *parse_sub(parser *p, int verbose, int nested);
static seq *parse(parser *p, int verbose, int nested, int first);

static int setitem_eq(const setitem *x, const setitem *y) {
  return x->op == y->op && x->a == y->a && x->b == y->b;
}

/* Python's tuple equality of two items, as the prefix factoring uses it:
** only items without sub-patterns can be equal. */
static int node_eq(const node *x, const node *y) {
  if (x == y) return 1;
  if (x->kind != y->kind) return 0;
  switch (x->kind) {
  case N_LIT: case N_NOTLIT: case N_GROUPREF: return x->c == y->c;
  case N_ANY: return 1;
  case N_AT: return x->sub == y->sub;
  case N_IN:
    if (x->nset != y->nset) return 0;
    for (size_t i = 0; i < x->nset; i++)
      if (!setitem_eq(&x->set[i], &y->set[i])) return 0;
    return 1;
  }
  return 0;
}

/* _uniq: order-preserving de-duplication, in place (a hash set of
** indices for long lists). */
/* Python frames to find that two equal items are equal (dict.fromkeys
** compares tuples that are not the same object, then their parts). */
static int dup_cost(const setitem *x, const setitem *y) {
  if (x->shared && y->shared) return 0;
  if (x->op == S_RANGE) return 2 + (x->a > 256 || x->b > 256);
  return 1 + (x->a > 256);
}

static size_t uniq_items(parser *p, setitem *v, size_t n) {
  size_t m = 0;
  if (n <= 16) {
    for (size_t i = 0; i < n; i++) {
      size_t k = 0;
      while (k < m && !setitem_eq(&v[k], &v[i])) k++;
      if (k == m) v[m++] = v[i];
      else if (!frames_ok(p, 2 + dup_cost(&v[k], &v[i]))) return 0;
    }
    return m;
  }
  size_t cap = 32;
  while (cap < 2 * n) cap *= 2;
  size_t *slot = palloc(p, cap * sizeof *slot);
  if (!slot) return 0;
  for (size_t i = 0; i < cap; i++) slot[i] = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    uint64_t h = ((uint64_t)v[i].op * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)v[i].a << 21) ^ v[i].b;
    h *= 0xFF51AFD7ED558CCDull;
    size_t j = (size_t)(h >> 20) & (cap - 1);
    while (slot[j] != SIZE_MAX && !setitem_eq(&v[slot[j]], &v[i]))
      j = (j + 1) & (cap - 1);
    if (slot[j] != SIZE_MAX) {
      if (!frames_ok(p, 2 + dup_cost(&v[slot[j]], &v[i]))) return 0;
      continue;
    }
    v[m] = v[i];
    slot[j] = m++;
  }
  return m;
}

/* The alternation tail of _parse_sub: prefix factoring and sets. */
static seq *finish_alternation(parser *p, seq **items, size_t nitems) {
  seq *sp = seq_new(p);
  if (!sp || !frames_ok(p, 2)) return NULL;
  for (;;) {
    node *prefix = NULL;
    size_t k;
    for (k = 0; k < nitems; k++) {
      if (seq_len(items[k]) == 0) break;
      if (!prefix) prefix = seq_at(items[k], 0);
      else if (!node_eq(seq_at(items[k], 0), prefix)) break;
    }
    if (k < nitems) break;
    for (k = 0; k < nitems; k++) items[k]->off++;
    if (!seq_push(p, sp, prefix)) return NULL;
  }
  size_t total = 0, k;
  for (k = 0; k < nitems; k++) {
    if (seq_len(items[k]) != 1) break;
    node *x = seq_at(items[k], 0);
    if (x->kind == N_LIT) total++;
    else if (x->kind == N_IN && !(x->nset && x->set[0].op == S_NEGATE)) total += x->nset;
    else break;
  }
  if (k == nitems) {
    node *in = node_new(p, N_IN);
    if (!in) return NULL;
    in->set = palloc(p, total * sizeof *in->set);
    if (!in->set) return NULL;
    size_t m = 0;
    for (k = 0; k < nitems; k++) {
      node *x = seq_at(items[k], 0);
      if (x->kind == N_LIT) {
        in->set[m].op = S_LIT; in->set[m].a = x->c; in->set[m].b = 0;
        in->set[m++].shared = 0;
      } else {
        memcpy(in->set + m, x->set, x->nset * sizeof *x->set);
        m += x->nset;
      }
    }
    in->nset = uniq_items(p, in->set, m);
    if (!seq_push(p, sp, in)) return NULL;
    return sp;
  }
  node *br = node_new(p, N_BRANCH);
  if (!br) return NULL;
  br->alts = items;
  br->nalts = nitems;
  if (!seq_push(p, sp, br)) return NULL;
  return sp;
}

static int repeat_count(const uint32_t *d, size_t n, uint64_t *v) {
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    x = x * 10 + (d[i] - '0');
    if (x >= MAXREPEAT) return 0;   /* OverflowError */
  }
  *v = x;
  return 1;
}

/* A quantifier after the last item (the REPEAT_CHARS branch). */
static void parse_repeat(parser *p, seq *sp, uint32_t ch) {
  size_t here = tk_tell(p);
  uint64_t min = 0, max = MAXREPEAT;
  if (ch == '?') max = 1;
  else if (ch == '+') min = 1;
  else if (ch == '{') {
    if (tk_is(p, '}')) {
      node *x = node_new(p, N_LIT);
      if (x) { x->c = '{'; seq_push(p, sp, x); }
      return;
    }
    size_t lo0 = tk_tell(p), lon = 0, hi0 = 0, hin = 0;
    int comma = 0;
    while (tk_is_digit(p)) { tk_next(p); lon++; }
    if (tk_match(p, ',')) {
      comma = 1;
      hi0 = tk_tell(p);
      while (tk_is_digit(p)) { tk_next(p); hin++; }
    }
    if (!tk_match(p, '}')) {
      node *x = node_new(p, N_LIT);
      if (x) { x->c = '{'; seq_push(p, sp, x); }
      tk_seek(p, here);
      return;
    }
    if (!comma) { hi0 = lo0; hin = lon; }
    if (lon && !repeat_count(p->s + lo0, lon, &min)) { fail(p); return; }
    if (hin) {
      if (!repeat_count(p->s + hi0, hin, &max)) { fail(p); return; }
      if (max < min) { fail(p); return; }
    }
  }
  if (!frames_ok(p, 3)) return;
  size_t n = seq_len(sp);
  if (n == 0) { fail(p); return; }                 /* nothing to repeat */
  node *last = seq_at(sp, n - 1);
  if (last->kind == N_AT) { fail(p); return; }     /* nothing to repeat */
  if (last->kind == N_REPEAT) { fail(p); return; } /* multiple repeat */
  seq *body;
  if (last->kind == N_SUB && last->c == 0 && !last->addf && !last->delf) {
    body = last->a;
  } else {
    body = seq_new(p);
    if (!body || !seq_push(p, body, last)) return;
  }
  node *r = node_new(p, N_REPEAT);
  if (!r) return;
  r->sub = tk_match(p, '?') ? R_MIN : tk_match(p, '+') ? R_POSS : R_MAX;
  r->min = min;
  r->max = max;
  r->a = body;
  sp->v[sp->off + n - 1] = r;
}

/* A character set after '['. */
static void parse_class(parser *p, seq *sp) {
  size_t cap = 8, n = 0;
  setitem *set = palloc(p, cap * sizeof *set);
  if (!set) return;
  int negate = tk_match(p, '^');
  for (;;) {
    if (p->err) return;
    tok t = tk_get(p);
    if (p->err) return;
    if (t.none) { fail(p); return; }
    if (is_plain(t, ']') && n) break;
    esc c1, c2;
    if (t.esc) {
      if (!class_escape(p, t.c, &c1)) return;
    } else {
      c1.kind = E_LIT; c1.v = t.c; c1.shared = 0;
    }
    if (n + 2 > cap) {
      setitem *ns = palloc(p, 2 * cap * sizeof *ns);
      if (!ns) return;
      memcpy(ns, set, n * sizeof *ns);
      set = ns;
      cap *= 2;
    }
    if (tk_match(p, '-')) {
      tok that = tk_get(p);
      if (p->err) return;
      if (that.none) { fail(p); return; }
      if (is_plain(that, ']')) {
        set[n].op = c1.kind == E_CAT ? S_CAT : S_LIT; set[n].a = c1.v; set[n].b = 0;
        set[n++].shared = (uint8_t)c1.shared;
        set[n].op = S_LIT; set[n].a = '-'; set[n].b = 0; set[n++].shared = 0;
        break;
      }
      if (that.esc) {
        if (!class_escape(p, that.c, &c2)) return;
      } else {
        c2.kind = E_LIT; c2.v = that.c;
      }
      if (c1.kind != E_LIT || c2.kind != E_LIT || c2.v < c1.v) { fail(p); return; }
      set[n].op = S_RANGE; set[n].a = c1.v; set[n].b = c2.v; set[n++].shared = 0;
    } else {
      set[n].op = c1.kind == E_CAT ? S_CAT : S_LIT; set[n].a = c1.v; set[n].b = 0;
      set[n++].shared = (uint8_t)c1.shared;
    }
  }
  n = uniq_items(p, set, n);
  if (p->err) return;
  node *x;
  if (n == 1 && set[0].op == S_LIT) {
    x = node_new(p, negate ? N_NOTLIT : N_LIT);
    if (!x) return;
    x->c = set[0].a;
  } else {
    x = node_new(p, N_IN);
    if (!x) return;
    if (negate) {
      setitem *ns = palloc(p, (n + 1) * sizeof *ns);
      if (!ns) return;
      ns[0].op = S_NEGATE; ns[0].a = ns[0].b = 0; ns[0].shared = 1;
      memcpy(ns + 1, set, n * sizeof *ns);
      set = ns;
      n++;
    }
    x->set = set;
    x->nset = n;
  }
  seq_push(p, sp, x);
}

static node *cat_node(parser *p, uint32_t cat) {
  node *x = node_new(p, N_IN);
  if (!x) return NULL;
  x->set = palloc(p, sizeof *x->set);
  if (!x->set) return NULL;
  x->set[0].op = S_CAT; x->set[0].a = cat; x->set[0].b = 0; x->set[0].shared = 1;
  x->nset = 1;
  return x;
}

/* The conditional group after "(?(": returns the node or NULL. */
static node *parse_conditional(parser *p, int verbose, int nested) {
  uint32_t *name;
  size_t nn;
  if (!get_until(p, ')', &name, &nn)) return NULL;
  uint64_t gid;
  if (py_isidentifier(name, nn)) {
    int64_t g = name_get(p, name, nn);
    if (g < 0) { fail(p); return NULL; }
    gid = (uint64_t)g;
  } else {
    int64_t g = py_int(name, nn);
    if (g <= 0 || (uint64_t)g >= MAXGROUPS) { fail(p); return NULL; }
    gid = (uint64_t)g;
    if (gid > p->max_condref) p->max_condref = gid;
  }
  if (!check_lookbehind_group(p, gid)) return NULL;
  node *x = node_new(p, N_EXISTS);
  if (!x) return NULL;
  x->c = (uint32_t)gid;
  x->a = parse(p, verbose, nested + 1, 0);
  if (p->err) return NULL;
  if (tk_match(p, '|')) {
    x->b = parse(p, verbose, nested + 1, 0);
    if (p->err) return NULL;
    if (tk_is(p, '|')) { fail(p); return NULL; }
  }
  if (!tk_match(p, ')')) { fail(p); return NULL; }
  return x;
}

/* "(" has been read: a group, an extension, a comment or global flags. */
static void parse_group(parser *p, seq *sp, int *verbose, int nested, int first) {
  int capture = 1, atomic = 0;
  uint32_t *name = NULL;
  size_t nn = 0;
  uint32_t addf = 0, delf = 0;
  if (tk_match(p, '?')) {
    tok ch = tk_get(p);
    if (p->err) return;
    if (ch.none) { fail(p); return; }
    if (is_plain(ch, 'P')) {
      if (tk_match(p, '<')) {
        if (!get_until(p, '>', &name, &nn)) return;
        if (!py_isidentifier(name, nn)) { fail(p); return; }
      } else if (tk_match(p, '=')) {
        if (!get_until(p, ')', &name, &nn)) return;
        if (!py_isidentifier(name, nn)) { fail(p); return; }
        int64_t gid = name_get(p, name, nn);
        if (gid < 0 || !check_group(p, (uint64_t)gid)) { fail(p); return; }
        if (!check_lookbehind_group(p, (uint64_t)gid)) return;
        node *x = node_new(p, N_GROUPREF);
        if (x) { x->c = (uint32_t)gid; seq_push(p, sp, x); }
        return;
      } else {
        fail(p);
        return;
      }
    } else if (is_plain(ch, ':')) {
      capture = 0;
    } else if (is_plain(ch, '#')) {
      for (;;) {
        if (!p->has_next) { fail(p); return; }
        tok t = tk_get(p);
        if (p->err) return;
        if (is_plain(t, ')')) return;
      }
    } else if (is_plain(ch, '=') || is_plain(ch, '!') || is_plain(ch, '<')) {
      int dir = 1;
      int64_t saved = p->lookbehindgroups;
      if (is_plain(ch, '<')) {
        ch = tk_get(p);
        if (p->err) return;
        if (!is_plain(ch, '=') && !is_plain(ch, '!')) { fail(p); return; }
        dir = -1;
        if (saved < 0) p->lookbehindgroups = p->ngroups;
      }
      seq *sub = parse_sub(p, *verbose, nested + 1);
      if (p->err) return;
      if (dir < 0 && saved < 0) p->lookbehindgroups = -1;
      if (!tk_match(p, ')')) { fail(p); return; }
      node *x = node_new(p, N_ASSERT);
      if (!x) return;
      x->dir = (int8_t)dir;
      x->sub = is_plain(ch, '!');
      x->a = sub;
      seq_push(p, sp, x);
      return;
    } else if (is_plain(ch, '(')) {
      node *x = parse_conditional(p, *verbose, nested);
      if (x) seq_push(p, sp, x);
      return;
    } else if (is_plain(ch, '>')) {
      capture = 0;
      atomic = 1;
    } else if (is_flag_char(ch) || is_plain(ch, '-')) {
      if (!frames_ok(p, 3)) return;   /* _parse_flags -> get -> __next */
      int r = parse_flags(p, ch, &addf, &delf);
      if (!r) return;
      if (r == 1) {
        if (!first || seq_len(sp)) { fail(p); return; }
        *verbose = (p->flags & F_VERBOSE) != 0;
        return;
      }
      capture = 0;
    } else {
      fail(p);
      return;
    }
  }
  uint32_t gid = 0;
  if (capture) {
    gid = open_group(p, name, nn);
    if (!gid) return;
  }
  int sub_verbose = (*verbose || (addf & F_VERBOSE)) && !(delf & F_VERBOSE);
  seq *sub = parse_sub(p, sub_verbose, nested + 1);
  if (p->err) return;
  if (!tk_match(p, ')')) { fail(p); return; }
  if (capture) {
    /* closegroup -> getwidth -> the children's getwidth (cached or not) */
    p->wdepth = p->wpeak = 0;
    seq_width(p, sub, &p->gw[gid].lo, &p->gw[gid].hi);
    if (!frames_ok(p, 2 + p->wpeak)) return;
    p->gw[gid].closed = 1;
  }
  node *x = node_new(p, atomic ? N_ATOMIC : N_SUB);
  if (!x) return;
  x->c = gid;
  x->addf = addf;
  x->delf = delf;
  x->a = sub;
  seq_push(p, sp, x);
}

static int is_special(uint32_t c) {
  return c && c < 128 && strchr(".\\[{()*+?^$|", (int)c) != NULL;
}

/* _parse: one alternative, up to '|' or ')' or the end. */
static seq *parse(parser *p, int verbose, int nested, int first) {
  p->frames++;
  seq *sp = NULL;
  if (!frames_ok(p, 2)) goto done;
  sp = seq_new(p);
  if (!sp) goto done;
  while (!p->err && p->has_next) {
    if (tk_is(p, '|') || tk_is(p, ')')) break;
    tok t = tk_get(p);
    if (p->err) break;
    if (verbose && !t.esc) {
      if (t.c == ' ' || (t.c >= '\t' && t.c <= '\r')) continue;
      if (t.c == '#') {
        for (;;) {
          tok c = tk_get(p);
          if (p->err || c.none || is_plain(c, '\n')) break;
        }
        continue;
      }
    }
    if (t.esc) {
      esc e;
      if (!escape(p, t.c, &e)) break;
      node *x;
      if (e.kind == E_CAT) {
        x = cat_node(p, e.v);
      } else {
        x = node_new(p, e.kind == E_LIT ? N_LIT : e.kind == E_AT ? N_AT : N_GROUPREF);
        if (x) { if (e.kind == E_AT) x->sub = (uint8_t)e.v; else x->c = e.v; }
      }
      if (!x || !seq_push(p, sp, x)) break;
    } else if (!is_special(t.c)) {
      node *x = node_new(p, N_LIT);
      if (!x) break;
      x->c = t.c;
      if (!seq_push(p, sp, x)) break;
    } else if (t.c == '[') {
      parse_class(p, sp);
    } else if (t.c == '*' || t.c == '+' || t.c == '?' || t.c == '{') {
      parse_repeat(p, sp, t.c);
    } else if (t.c == '.') {
      node *x = node_new(p, N_ANY);
      if (!x || !seq_push(p, sp, x)) break;
    } else if (t.c == '(') {
      parse_group(p, sp, &verbose, nested, first);
    } else {   /* ^ $ */
      node *x = node_new(p, N_AT);
      if (!x) break;
      x->sub = t.c == '^' ? AT_BEGINNING : AT_END;
      if (!seq_push(p, sp, x)) break;
    }
  }
  if (p->err) goto done;
  /* Unpack non-capturing groups without flags. */
  size_t extra = 0, n = seq_len(sp);
  for (size_t i = 0; i < n; i++) {
    node *x = seq_at(sp, i);
    if (x->kind == N_SUB && !x->c && !x->addf && !x->delf) extra += seq_len(x->a);
  }
  if (extra) {
    node **v = palloc(p, (n + extra) * sizeof *v);
    if (!v) goto done;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      node *x = seq_at(sp, i);
      if (x->kind == N_SUB && !x->c && !x->addf && !x->delf) {
        for (size_t k = 0; k < seq_len(x->a); k++) v[m++] = seq_at(x->a, k);
      } else {
        v[m++] = x;
      }
    }
    sp->v = v;
    sp->off = 0;
    sp->n = m;
    sp->cap = n + extra;
  }
done:
  p->frames--;
  return p->err ? NULL : sp;
}

/* _parse_sub: alternatives separated by '|'. */
static seq *parse_sub(parser *p, int verbose, int nested) {
  p->frames++;
  seq *res = NULL;
  size_t cap = 4, n = 0;
  seq **items = palloc(p, cap * sizeof *items);
  if (!items) goto done;
  for (;;) {
    seq *it = parse(p, verbose, nested + 1, !nested && n == 0);
    if (!it) goto done;
    if (n == cap) {
      seq **ni = palloc(p, 2 * cap * sizeof *ni);
      if (!ni) goto done;
      memcpy(ni, items, n * sizeof *ni);
      items = ni;
      cap *= 2;
    }
    items[n++] = it;
    if (!tk_match(p, '|')) break;
    if (p->err) goto done;
    if (!nested) verbose = (p->flags & F_VERBOSE) != 0;
  }
  res = n == 1 ? items[0] : finish_alternation(p, items, n);
done:
  p->frames--;
  return p->err ? NULL : res;
}

/* re._parser.parse plus fix_flags and the final checks. */
static seq *parse_pattern(parser *p) {
  tk_next(p);
  seq *sp = parse_sub(p, 0, 0);
  if (p->err) return NULL;
  if (!(p->flags & F_ASCII)) p->flags |= F_UNICODE;
  else if (p->flags & F_UNICODE) { fail(p); return NULL; }
  if (p->has_next) { fail(p); return NULL; }         /* unbalanced ')' */
  if (p->max_condref && p->max_condref >= p->ngroups) { fail(p); return NULL; }
  /* re._compiler._compile_info: the whole pattern's width, first. */
  uint64_t lo, hi;
  p->wdepth = p->wpeak = 0;
  seq_width(p, sp, &lo, &hi);
  if (!frames_ok(p, 2 + p->wpeak)) return NULL;
  return sp;
}

/* ------------------------------------------------------------------ */
/* Emitting PCRE2 text                                                 */

#define MAX_OUT ((size_t)16 << 20)   /* larger translations: IFS_TOOBIG */

typedef struct emitter {
  parser *p;
  ifs_buf *out;
  uint32_t map_base;    /* 0, or the subject's surrogates are at map_base+k */
  int lookbehind;       /* inside a look-behind */
  int clevel;           /* Python frame of re._compiler._compile here */
  int err;
} emitter;

/* re._compiler's own recursion counts toward Python's limit too. */
static int cframes_ok(emitter *e, int need) {
  if (need > PY_FRAME_BUDGET) { e->err = IFS_INVALID; return 0; }
  return 1;
}

static void put(emitter *e, const char *z) {
  if (ifs_buf_append_str(e->out, z)) e->err = IFS_NOMEM;
  else if (e->out->len > MAX_OUT) e->err = IFS_TOOBIG;
}

static void put_u64(emitter *e, uint64_t v) {
  if (ifs_buf_append_u64(e->out, v)) e->err = IFS_NOMEM;
}

static int is_surrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

/* Where a remapped subject puts its surrogates: U+D800+k at base+k, in
** the first of these 2048-blocks (private use or unassigned, so no \w \d
** \s or case, like a surrogate) that the subject does not use. */
static const uint32_t MAP_BASES[] = {
  0x10F800, 0xFF800, 0xEF800, 0x4F800, 0x5F800, 0x6F800, 0x7F800, 0x8F800,
  0x9F800, 0xAF800, 0xBF800, 0xCF800, 0xDF800, 0x3F800
};
#define MAP_BLOCK 0x800u

/* A character that never matches, usable wherever a class is. */
#define NEVER "[^\\x{0}-\\x{10ffff}]"

/* One (non-surrogate) code point as a PCRE2 literal, in or out of a class. */
static void put_char(emitter *e, uint32_t c) {
  char tmp[16];
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
    tmp[0] = (char)c; tmp[1] = 0;
  } else if (c >= 0x20 && c < 0x7F) {
    tmp[0] = '\\'; tmp[1] = (char)c; tmp[2] = 0;
  } else {
    static const char hex[] = "0123456789abcdef";
    int k = 0, sh = 20;
    tmp[k++] = '\\'; tmp[k++] = 'x'; tmp[k++] = '{';
    while (sh > 0 && !(c >> sh)) sh -= 4;
    for (; sh >= 0; sh -= 4) tmp[k++] = hex[(c >> sh) & 15];
    tmp[k++] = '}'; tmp[k] = 0;
  }
  put(e, tmp);
}

/* Where a pattern character is in the subject PCRE2 sees, or -1 when it
** cannot be there: a surrogate in a subject without any, or (when the
** subject's surrogates are mapped) a real character of the block they
** went to, which the subject does not hold (the block was chosen so). */
static int64_t map_cp(const emitter *e, uint32_t c) {
  if (is_surrogate(c)) return e->map_base ? (int64_t)(e->map_base + (c - 0xD800)) : -1;
  if (e->map_base && c >= e->map_base && c < e->map_base + MAP_BLOCK) return -1;
  return c;
}

/* A sorted list of disjoint code point ranges. */
typedef struct rset { uint32_t (*r)[2]; size_t n, cap; int oom; } rset;

static void rs_free(rset *s) { ifs_free(s->r); s->r = NULL; s->n = s->cap = 0; }

static void rs_push(rset *s, uint32_t lo, uint32_t hi) {
  if (s->oom) return;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    uint32_t (*r)[2] = ifs_realloc(s->r, cap * sizeof *r);
    if (!r) { s->oom = 1; return; }
    s->r = r;
    s->cap = cap;
  }
  s->r[s->n][0] = lo;
  s->r[s->n][1] = hi;
  s->n++;
}

static int cmp_range(const void *a, const void *b) {
  const uint32_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Sorts and merges overlapping or adjacent ranges. */
static void rs_normalize(rset *s) {
  if (s->n < 2) return;
  qsort(s->r, s->n, sizeof *s->r, cmp_range);
  size_t m = 0;
  for (size_t i = 1; i < s->n; i++) {
    if (s->r[i][0] <= (uint64_t)s->r[m][1] + 1) {
      if (s->r[i][1] > s->r[m][1]) s->r[m][1] = s->r[i][1];
    } else {
      m++;
      s->r[m][0] = s->r[i][0];
      s->r[m][1] = s->r[i][1];
    }
  }
  s->n = m + 1;
}

static int rs_has(const rset *s, uint32_t c) {
  return in_ranges((const uint32_t (*)[2])s->r, s->n, c);
}

/* s minus d (both normalized), in one sweep. */
static void rs_subtract(rset *s, const rset *d) {
  rset out = {0};
  size_t j = 0;
  for (size_t i = 0; i < s->n; i++) {
    uint32_t lo = s->r[i][0], hi = s->r[i][1];
    while (j < d->n && d->r[j][1] < lo) j++;
    size_t k = j;
    while (k < d->n && d->r[k][0] <= hi) {
      if (d->r[k][0] > lo) rs_push(&out, lo, d->r[k][0] - 1);
      if (d->r[k][1] >= hi) { lo = 1; hi = 0; break; }
      lo = d->r[k][1] + 1;
      k++;
    }
    if (lo <= hi) rs_push(&out, lo, hi);
  }
  if (out.oom || s->oom) { rs_free(&out); s->oom = 1; return; }
  rs_free(s);
  *s = out;
}

/* Class items for [lo, hi] of Python code points; returns items written.
** Surrogates go where the subject has them (or nowhere); the block they
** went to is left out otherwise (see map_cp). */
static int put_range(emitter *e, uint32_t lo, uint32_t hi) {
  uint32_t parts[4][2];
  int np = 0;
  if (lo < 0xD800) { parts[np][0] = lo; parts[np][1] = hi < 0xD7FF ? hi : 0xD7FF; np++; }
  if (hi >= 0xD800 && lo <= 0xDFFF && e->map_base) {
    uint32_t a = lo > 0xD800 ? lo : 0xD800, b = hi < 0xDFFF ? hi : 0xDFFF;
    parts[np][0] = a - 0xD800 + e->map_base; parts[np][1] = b - 0xD800 + e->map_base; np++;
  }
  if (hi >= 0xE000) {
    uint32_t a = lo > 0xE000 ? lo : 0xE000, b = hi;
    uint32_t m0 = e->map_base, m1 = e->map_base + MAP_BLOCK - 1;
    if (!e->map_base || b < m0 || a > m1) {
      parts[np][0] = a; parts[np][1] = b; np++;
    } else {
      if (a < m0) { parts[np][0] = a; parts[np][1] = m0 - 1; np++; }
      if (b > m1) { parts[np][0] = m1 + 1; parts[np][1] = b; np++; }
    }
  }
  for (int i = 0; i < np; i++) {
    put_char(e, parts[i][0]);
    if (parts[i][1] != parts[i][0]) {
      if (parts[i][1] > parts[i][0] + 1) put(e, "-");
      put_char(e, parts[i][1]);
    }
  }
  return np;
}

static const uint32_t ascii_digit[][2] = { {0x30, 0x39} };
static const uint32_t ascii_word[][2] = { {0x30, 0x39}, {0x41, 0x5A}, {0x5F, 0x5F}, {0x61, 0x7A} };
static const uint32_t ascii_space[][2] = { {0x09, 0x0D}, {0x20, 0x20} };

/* Class items for a range table, or for its complement. */
static int put_table(emitter *e, const uint32_t (*t)[2], size_t n, int complement) {
  int items = 0;
  if (!complement) {
    for (size_t i = 0; i < n; i++) items += put_range(e, t[i][0], t[i][1]);
    return items;
  }
  uint32_t next = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i][0] > next) items += put_range(e, next, t[i][0] - 1);
    next = t[i][1] + 1;
  }
  if (next <= 0x10FFFF) items += put_range(e, next, 0x10FFFF);
  return items;
}

/* Class items for a category (PCRE2's UCP \d and \w are Python's). */
static int put_category(emitter *e, int cat, int uni) {
  int neg = cat == C_NOT_DIGIT || cat == C_NOT_SPACE || cat == C_NOT_WORD;
  switch (cat) {
  case C_DIGIT: case C_NOT_DIGIT:
    if (uni) { put(e, neg ? "\\D" : "\\d"); return 1; }
    return put_table(e, ascii_digit, NELEM(ascii_digit), neg);
  case C_WORD: case C_NOT_WORD:
    if (uni) { put(e, neg ? "\\W" : "\\w"); return 1; }
    return put_table(e, ascii_word, NELEM(ascii_word), neg);
  default:
    if (uni) return put_table(e, ifs_re_space, NELEM(ifs_re_space), neg);
    return put_table(e, ascii_space, NELEM(ascii_space), neg);
  }
}

/* Does sre's charmap for this set hold y?  (The BMP part of literals and
** ranges, lowered, plus sre's extra equivalents.) */
static int charmap_has1(const rset *plain, int uni, uint32_t y) {
  /* Some c in the BMP part of the set with lower(c) == y. */
  const ifs_re_case_ent *ye = uni ? case_ent(y) : NULL;
  if (uni) {
    if ((!ye || ye->lower == y) && y < 0x10000 && rs_has(plain, y)) return 1;
    /* the cased points whose lowercase is y */
    size_t lo = 0, hi = NELEM(ifs_re_case_by_lower);
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (ifs_re_case[ifs_re_case_by_lower[mid]].lower < y) lo = mid + 1; else hi = mid;
    }
    for (; lo < NELEM(ifs_re_case_by_lower); lo++) {
      const ifs_re_case_ent *c = &ifs_re_case[ifs_re_case_by_lower[lo]];
      if (c->lower != y) break;
      if (c->cp < 0x10000 && rs_has(plain, c->cp)) return 1;
    }
    return 0;
  }
  if (y >= 'A' && y <= 'Z') return 0;   /* no ASCII lowercase is upper */
  if (y < 0x10000 && rs_has(plain, y)) return 1;
  return y >= 'a' && y <= 'z' && rs_has(plain, y - 32);
}

static int charmap_has(const rset *plain, int uni, uint32_t y) {
  if (charmap_has1(plain, uni, y)) return 1;
  uint32_t fx[2];
  int nf = uni ? case_fixes(y, fx) : 0;
  for (int i = 0; i < nf; i++)
    if (charmap_has1(plain, uni, fx[i])) return 1;
  return 0;
}

/* sre's IN / IN_UNI_IGNORE / IN_IGNORE test of x, before negation. */
static int set_pred(const node *x, const rset *plain, int uni, int lowered, uint32_t ch) {
  uint32_t y = lowered ? mode_lower(uni, ch) : ch;
  if (lowered ? charmap_has(plain, uni, y) : (y < 0x10000 && rs_has(plain, y))) return 1;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_LIT && it->a >= 0x10000 && y == it->a) return 1;
    if (it->op == S_RANGE && it->b >= 0x10000) {
      if (it->a <= y && y <= it->b) return 1;
      if (lowered) {
        uint32_t u = uni_upper(y);
        if (it->a <= u && u <= it->b) return 1;
      }
    }
    if (it->op == S_CAT && cat_test(uni, (int)it->a, y)) return 1;
  }
  return 0;
}

static int range_has_cased(int uni, uint32_t a, uint32_t b) {
  if (!uni) return ascii_iscased(a) || ascii_iscased(b) || (a <= 'Z' && b >= 'A') ||
                   (a <= 'z' && b >= 'a');
  size_t lo = 0, hi = NELEM(ifs_re_case);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_re_case[mid].cp < a) lo = mid + 1; else hi = mid;
  }
  return lo < NELEM(ifs_re_case) && ifs_re_case[lo].cp <= b;
}

/* Writes the PCRE2 form of a set: "[...]", "[^...]", or with a guard for
** points that a category holds but the set must not. */
static void put_set_text(emitter *e, const rset *ranges, const node *x, int uni,
                         int negate, const rset *exclude) {
  if (exclude->n && !negate) {
    put(e, "(?:(?![");
    for (size_t i = 0; i < exclude->n; i++) put_range(e, exclude->r[i][0], exclude->r[i][1]);
    put(e, "])");
  } else if (exclude->n) {
    put(e, "(?:");
  }
  size_t mark = e->out->len;
  put(e, negate ? "[^" : "[");
  int items = 0;
  for (size_t i = 0; i < ranges->n; i++) items += put_range(e, ranges->r[i][0], ranges->r[i][1]);
  for (size_t i = 0; i < x->nset; i++)
    if (x->set[i].op == S_CAT) items += put_category(e, (int)x->set[i].a, uni);
  if (items) {
    put(e, "]");
  } else if (!e->err) {
    e->out->len = mark;   /* empty: nothing, or everything */
    e->out->p[mark] = 0;
    put(e, negate ? "(?s:.)" : NEVER);
  }
  if (exclude->n && negate) {
    put(e, "|[");
    for (size_t i = 0; i < exclude->n; i++) put_range(e, exclude->r[i][0], exclude->r[i][1]);
    put(e, "])");
  } else if (exclude->n) {
    put(e, ")");
  }
}

/* The first case-table entry at or after c. */
static size_t case_lower_bound(uint32_t c) {
  size_t lo = 0, hi = NELEM(ifs_re_case);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_re_case[mid].cp < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

static void add_preimages_only(int uni, uint32_t y, rset *out);

/* Adds y and the characters whose lowercase is y (sre's mode) to out. */
static void add_preimages(int uni, uint32_t y, rset *out) {
  rs_push(out, y, y);
  add_preimages_only(uni, y, out);
}

/* Adds the characters other than y whose lowercase is y. */
static void add_preimages_only(int uni, uint32_t y, rset *out) {
  if (!uni) {
    if (y >= 'a' && y <= 'z') rs_push(out, y - 32, y - 32);
    return;
  }
  size_t lo = 0, hi = NELEM(ifs_re_case_by_lower);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_re_case[ifs_re_case_by_lower[mid]].lower < y) lo = mid + 1; else hi = mid;
  }
  for (; lo < NELEM(ifs_re_case_by_lower); lo++) {
    const ifs_re_case_ent *ce = &ifs_re_case[ifs_re_case_by_lower[lo]];
    if (ce->lower != y) break;
    if (ce->cp != y) rs_push(out, ce->cp, ce->cp);
  }
}

/* Every character case-related to a cased member of the (BMP) set: the
** members, and all that lower to a member's lowercase or its extras. */
static void related_cased(const rset *plain, int uni, rset *out) {
  for (size_t i = 0; i < plain->n; i++) {
    for (size_t k = case_lower_bound(plain->r[i][0]);
         k < NELEM(ifs_re_case) && ifs_re_case[k].cp <= plain->r[i][1]; k++) {
      uint32_t c = ifs_re_case[k].cp, l = mode_lower(uni, c), fx[2];
      rs_push(out, c, c);
      add_preimages(uni, l, out);
      int nf = uni ? case_fixes(l, fx) : 0;
      for (int j = 0; j < nf; j++) add_preimages(uni, fx[j], out);
    }
  }
  rs_normalize(out);
}

/* Whether _optimize_charset builds a bitmap (more than two runs in its
** BMP character map, lowered under IGNORECASE) — that costs Python frames. */
static int set_needs_bitmap(const node *x, uint32_t flags) {
  int uni = (flags & F_UNICODE) != 0, icase = (flags & F_IGNORECASE) != 0;
  rset orig = {0}, low = {0};
  int r = 0;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if ((it->op == S_LIT || it->op == S_RANGE) && it->a < 0x10000) {
      uint32_t b = it->op == S_LIT ? it->a : it->b;
      rs_push(&orig, it->a, b < 0x10000 ? b : 0xFFFF);
      rs_push(&low, it->a, b < 0x10000 ? b : 0xFFFF);
    }
  }
  rs_normalize(&orig);
  rs_normalize(&low);
  if (icase) {
    rset gone = {0}, added = {0};   /* cased members lowered */
    for (size_t i = 0; i < orig.n; i++)
      for (size_t k = case_lower_bound(orig.r[i][0]);
           k < NELEM(ifs_re_case) && ifs_re_case[k].cp <= orig.r[i][1]; k++) {
        uint32_t c = ifs_re_case[k].cp, l = mode_lower(uni, c);
        if (l == c) continue;
        rs_push(&gone, c, c);
        rs_push(&added, l, l);
      }
    rs_normalize(&gone);
    rs_subtract(&low, &gone);
    for (size_t k = 0; k < added.n; k++) rs_push(&low, added.r[k][0], added.r[k][1]);
    if (gone.oom || added.oom) low.oom = 1;
    rs_free(&gone);
    rs_free(&added);
    rs_normalize(&low);
    for (size_t k = 0; uni && k < NELEM(ifs_re_fixes); k++)
      if (rs_has(&low, ifs_re_fixes[k][0])) {
        rs_push(&low, ifs_re_fixes[k][1], ifs_re_fixes[k][1]);
        if (ifs_re_fixes[k][2]) rs_push(&low, ifs_re_fixes[k][2], ifs_re_fixes[k][2]);
      }
    rs_normalize(&low);
  }
  r = low.n > 2;
  rs_free(&orig);
  rs_free(&low);
  return r;
}

/* An IN node under the given flags. */
static void emit_set(emitter *e, const node *x, uint32_t flags) {
  /* _compile -> _optimize_charset [-> _mk_bitmap -> its list comprehension] */
  if (!cframes_ok(e, e->clevel + (set_needs_bitmap(x, flags) ? 2 : 0))) return;
  int uni = (flags & F_UNICODE) != 0, icase = (flags & F_IGNORECASE) != 0;
  int negate = x->nset && x->set[0].op == S_NEGATE;
  rset plain = {0}, exclude = {0};
  int hascased = 0;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_LIT) {
      rs_push(&plain, it->a, it->a);
      if (icase && (it->a >= 0x10000 || mode_iscased(uni, it->a))) hascased = 1;
    } else if (it->op == S_RANGE) {
      rs_push(&plain, it->a, it->b);
      if (icase && (it->b >= 0x10000 || range_has_cased(uni, it->a, it->b))) hascased = 1;
    }
  }
  rs_normalize(&plain);
  if (hascased && !plain.oom) {
    /* Only cased points can answer differently from the plain set, and
    ** (categories being stable under lowercase) only those related to a
    ** cased member, unless a non-BMP item brings sre's upper() in. */
    rset cand = {0}, add = {0}, drop = {0};
    int nonbmp = 0;
    for (size_t i = 0; i < x->nset; i++)
      if ((x->set[i].op == S_LIT && x->set[i].a >= 0x10000) ||
          (x->set[i].op == S_RANGE && x->set[i].b >= 0x10000)) nonbmp = 1;
    if (nonbmp) rs_push(&cand, 0, 0x10FFFF);
    else related_cased(&plain, uni, &cand);
    for (size_t k = 0; k < NELEM(ifs_re_case); k++) {
      uint32_t c = ifs_re_case[k].cp;
      if (!rs_has(&cand, c)) continue;
      int want = set_pred(x, &plain, uni, 1, c);
      int have = set_pred(x, &plain, uni, 0, c);
      if (want == have) continue;
      if (want) { rs_push(&add, c, c); continue; }
      int in_cat = 0;
      for (size_t i = 0; i < x->nset; i++)
        if (x->set[i].op == S_CAT && cat_test(uni, (int)x->set[i].a, c)) in_cat = 1;
      rs_push(in_cat ? &exclude : &drop, c, c);
    }
    rs_normalize(&drop);
    rs_subtract(&plain, &drop);
    for (size_t i = 0; i < add.n; i++) rs_push(&plain, add.r[i][0], add.r[i][1]);
    if (add.oom || drop.oom) plain.oom = 1;
    if (cand.oom) plain.oom = 1;
    rs_free(&cand);
    rs_free(&add);
    rs_free(&drop);
    rs_normalize(&plain);
  }
  size_t ncat = 0;
  for (size_t i = 0; i < x->nset; i++) ncat += x->set[i].op == S_CAT;
  if (plain.oom || exclude.oom) {
    e->err = IFS_NOMEM;
  } else if (uni && ncat == 1 && plain.n == 0 && exclude.n == 0 &&
             x->set[x->nset - 1].op == S_CAT && x->set[x->nset - 1].a != C_SPACE &&
             x->set[x->nset - 1].a != C_NOT_SPACE) {
    /* [\d] is \d, [^\d] is \D (PCRE2's UCP \d \w are Python's) */
    static const char *const esc[] = { "\\d", "\\D", "", "", "\\w", "\\W" };
    int cat = (int)x->set[x->nset - 1].a;
    put(e, esc[negate ? cat ^ 1 : cat]);
  } else {
    put_set_text(e, &plain, x, uni, negate, &exclude);
  }
  rs_free(&plain);
  rs_free(&exclude);
}

/* The characters a case-insensitive literal c matches: {x : lower(x) in F}
** with F = {lower(c)} plus sre's extra equivalents. */
static void literal_class(int uni, uint32_t c, rset *out) {
  uint32_t f[3];
  int nf = 1;
  f[0] = mode_lower(uni, c);
  if (uni) nf += case_fixes(f[0], f + 1);
  for (int i = 0; i < nf; i++) {
    /* f[i] itself only when nothing maps it further (it is lowercase) */
    if (mode_lower(uni, f[i]) == f[i]) add_preimages(uni, f[i], out);
    else add_preimages_only(uni, f[i], out);
  }
  rs_normalize(out);
}

/* A case-insensitive literal that PCRE2's caseless matching gets exactly
** right (all but a handful: i, İ, ı, ΐ, ΰ, ...; k and s in ASCII mode). */
static int pcre2_caseless_ok(uint32_t flags, uint32_t c) {
  if (!(flags & F_IGNORECASE)) return 0;
  const ifs_re_case_ent *ce = case_ent(c);
  if (!ce) return 0;
  if (flags & F_UNICODE) return (ce->flags & 2) != 0;
  return c < 0x80 && (ce->flags & 4) != 0;
}

/* LITERAL / NOT_LITERAL under the given flags. */
static void emit_literal(emitter *e, uint32_t c, int negated, uint32_t flags) {
  int uni = (flags & F_UNICODE) != 0;
  if (!negated && pcre2_caseless_ok(flags, c)) {
    put(e, "(?i:");
    put_char(e, c);
    put(e, ")");
    return;
  }
  if ((flags & F_IGNORECASE) && mode_iscased(uni, c)) {
    rset s = {0};
    literal_class(uni, c, &s);
    if (s.oom) { e->err = IFS_NOMEM; rs_free(&s); return; }
    if (s.n == 1 && s.r[0][0] == s.r[0][1] && !negated) {
      put_char(e, s.r[0][0]);
    } else {
      put(e, negated ? "[^" : "[");
      for (size_t i = 0; i < s.n; i++) put_range(e, s.r[i][0], s.r[i][1]);
      put(e, "]");
    }
    rs_free(&s);
    return;
  }
  int64_t m = map_cp(e, c);
  if (m < 0) { put(e, negated ? "(?s:.)" : NEVER); return; }
  if (negated) { put(e, "[^"); put_char(e, (uint32_t)m); put(e, "]"); }
  else put_char(e, (uint32_t)m);
}

#define ASCII_W "[0-9A-Z_a-z]"

static void emit_at(emitter *e, int code, uint32_t flags) {
  int uni = (flags & F_UNICODE) != 0;
  switch (code) {
  case AT_BEGINNING: put(e, (flags & F_MULTILINE) ? "(?m:^)" : "\\A"); break;
  case AT_BEGINNING_STRING: put(e, "\\A"); break;
  case AT_END: put(e, (flags & F_MULTILINE) ? "(?m:$)" : "$"); break;
  case AT_END_STRING: put(e, "\\z"); break;
  case AT_BOUNDARY:
    put(e, uni ? "\\b" : "(?:(?<=" ASCII_W ")(?!" ASCII_W ")|(?<!" ASCII_W ")(?=" ASCII_W "))");
    break;
  default:   /* sre: no \B in an empty string */
    put(e, uni ? "(?:\\B(?!\\A\\z))"
               : "(?:(?!\\A\\z)(?:(?<=" ASCII_W ")(?=" ASCII_W ")|(?<!" ASCII_W ")(?!" ASCII_W ")))");
    break;
  }
}

static uint32_t combine_flags(uint32_t flags, uint32_t add, uint32_t del) {
  if (add & TYPE_FLAGS) flags &= ~(uint32_t)TYPE_FLAGS;
  return (flags | add) & ~del;
}

static void emit_seq(emitter *e, seq *q, uint32_t flags);
static void emit_node_inner(emitter *e, node *x, uint32_t flags);

#define PCRE2_MAXQ 65535u
/* SQLite's hard limit on the bytes of a value: no subject has more
** characters, so larger repeat counts of a non-empty item are decided. */
#define MAX_SUBJECT_CHARS 2147483647u

static void put_quant(emitter *e, uint64_t min, uint64_t max, int kind) {
  if (min == 1 && max == 1 && kind != R_POSS) return;
  if (min == 0 && max == MAXREPEAT) put(e, "*");
  else if (min == 1 && max == MAXREPEAT) put(e, "+");
  else if (min == 0 && max == 1) put(e, "?");
  else {
    put(e, "{"); put_u64(e, min);
    if (max != min) { put(e, ","); if (max != MAXREPEAT) put_u64(e, max); }
    put(e, "}");
  }
  if (kind == R_MIN) put(e, "?");
  else if (kind == R_POSS) put(e, "+");
}

/* body{n} for any n: nested groups of at most PCRE2_MAXQ repeats. */
static void put_exact(emitter *e, const char *body, size_t bn, uint64_t n) {
  if (n <= PCRE2_MAXQ) {
    if (ifs_buf_append(e->out, body, bn)) { e->err = IFS_NOMEM; return; }
    put_quant(e, n, n, R_MAX);
    return;
  }
  ifs_buf inner;
  ifs_buf_init(&inner);
  if (ifs_buf_append_str(&inner, "(?:") || ifs_buf_append(&inner, body, bn) ||
      ifs_buf_append_str(&inner, "{65535})")) {
    e->err = IFS_NOMEM;
  } else {
    put_exact(e, inner.p, inner.len, n / PCRE2_MAXQ);
    if (n % PCRE2_MAXQ) put_exact(e, body, bn, n % PCRE2_MAXQ);
  }
  ifs_buf_free(&inner);
}

/* body{0,n} for any n, greedy or lazy. */
static void put_upto(emitter *e, const char *body, size_t bn, uint64_t n, int kind) {
  if (n <= PCRE2_MAXQ) {
    if (ifs_buf_append(e->out, body, bn)) { e->err = IFS_NOMEM; return; }
    put_quant(e, 0, n, kind);
    return;
  }
  put(e, "(?:");
  if (ifs_buf_append(e->out, body, bn)) { e->err = IFS_NOMEM; return; }
  put(e, "{0,65535}");
  if (kind == R_MIN) put(e, "?");
  put(e, ")");
  uint64_t q = n / PCRE2_MAXQ, r = n % PCRE2_MAXQ;
  put_quant(e, 0, q, kind);   /* q < 65536 since n < 2^32 */
  if (r) put_upto(e, body, bn, r, kind);
}

/* A repeat whose counts may exceed PCRE2's limit of 65535. */
static void emit_big_repeat(emitter *e, const char *body, size_t bn,
                            uint64_t min, uint64_t max, int sub) {
  int kind = sub == R_POSS ? R_MAX : sub;
  if (sub == R_POSS) put(e, "(?>");
  if (min) put_exact(e, body, bn, min);
  if (max == MAXREPEAT) {
    if (ifs_buf_append(e->out, body, bn)) e->err = IFS_NOMEM;
    put_quant(e, 0, MAXREPEAT, kind);
  } else if (max > min) {
    put_upto(e, body, bn, max - min, kind);
  }
  if (sub == R_POSS) put(e, ")");
}

static int single_atom(const seq *q) {
  if (seq_len(q) != 1) return 0;
  switch (seq_at(q, 0)->kind) {
  case N_LIT: case N_NOTLIT: case N_ANY: case N_IN: case N_SUB: case N_ATOMIC: case N_BRANCH:
    return 1;
  }
  return 0;
}

/* A body of one character test (no group inside). */
static int simple_char_seq(const seq *q) {
  if (seq_len(q) != 1) return 0;
  int k = seq_at(q, 0)->kind;
  return k == N_LIT || k == N_NOTLIT || k == N_ANY || k == N_IN;
}

static void emit_repeat(emitter *e, node *x, uint32_t flags) {
  if (flags & F_TEMPLATE) { e->err = IFS_INVALID; return; }
  if (!cframes_ok(e, e->clevel + 1)) return;   /* _simple -> __len__ */
  uint64_t lo, hi;
  seq_width(e->p, x->a, &lo, &hi);
  if (hi == 0 && x->max != 0 && !(x->min == 1 && x->max == 1)) {
    /* A zero-width body matches at one place only: repeated, it is the
    ** body once (min >= 1) or optionally (min == 0).  This keeps PCRE2's
    ** look-behinds fixed-length and its code small. */
    put(e, x->sub == R_POSS ? "(?>" : "(?:");
    if (x->min == 0 && x->sub == R_MIN) put(e, "|");
    emit_seq(e, x->a, flags);
    if (x->min == 0 && x->sub != R_MIN) put(e, "|");
    put(e, ")");
    return;
  }
  uint64_t min = x->min, max = x->max;
  if (lo >= 1 && max != MAXREPEAT && max > MAX_SUBJECT_CHARS) max = MAXREPEAT;
  if (lo >= 1 && min > MAX_SUBJECT_CHARS) {
    put(e, "(?:" NEVER);             /* keeps the groups, never matches */
    emit_seq(e, x->a, flags);
    put(e, ")");
    return;
  }
  /* PCRE2 10.42's JIT mishandles a possessive quantifier on a group
  ** ((a)*+(?(1)a|b)$ fails on "ab"): write those as atomic groups. */
  int kind = x->sub;
  if (kind == R_POSS && !simple_char_seq(x->a)) {
    put(e, "(?>");
    kind = R_MAX;
  }
  size_t start = e->out->len;
  int wrap = !single_atom(x->a);
  if (wrap) put(e, "(?:");
  emit_seq(e, x->a, flags);
  if (wrap) put(e, ")");
  if (e->err) return;
  if (min <= PCRE2_MAXQ && (max <= PCRE2_MAXQ || max == MAXREPEAT)) {
    put_quant(e, min, max, kind);
    if (kind != x->sub) put(e, ")");
    return;
  }
  size_t bn = e->out->len - start;
  char *body = ifs_malloc(bn + 1);
  if (!body) { e->err = IFS_NOMEM; return; }
  memcpy(body, e->out->p + start, bn);
  e->out->len = start;
  emit_big_repeat(e, body, bn, min, max, kind);
  ifs_free(body);
  if (kind != x->sub) put(e, ")");
}

/* A back-reference.  Case-insensitively Python compares lowercase letter
** by letter, which PCRE2 cannot: a callout checks and a loop consumes. */
static void emit_groupref(emitter *e, uint32_t g, uint32_t flags) {
  if (!(flags & F_IGNORECASE)) {
    put(e, "\\g{"); put_u64(e, g); put(e, "}");
    return;
  }
  put(e, (flags & F_UNICODE) ? "(?:(?C'u" : "(?:(?C'a");
  put_u64(e, g);
  put(e, "')");
  struct gw *w = &e->p->gw[g];
  if (w->lo == w->hi && w->lo <= PCRE2_MAXQ) {
    if (w->lo) { put(e, "(?s:.){"); put_u64(e, w->lo); put(e, "}"); }
  } else {
    put(e, "(?:(?C'<')(?s:.))*+");
  }
  put(e, ")");
}

static void emit_node(emitter *e, node *x, uint32_t flags) {
  if (e->err) return;
  e->clevel++;          /* what _compile calls for this node, and the
                           node's own sub-patterns, are one frame deeper */
  emit_node_inner(e, x, flags);
  e->clevel--;
}

static void emit_node_inner(emitter *e, node *x, uint32_t flags) {
  switch (x->kind) {
  case N_LIT: emit_literal(e, x->c, 0, flags); break;
  case N_NOTLIT: emit_literal(e, x->c, 1, flags); break;
  case N_ANY: put(e, (flags & F_DOTALL) ? "(?s:.)" : "."); break;
  case N_IN: emit_set(e, x, flags); break;
  case N_AT: emit_at(e, x->sub, flags); break;
  case N_BRANCH:
    put(e, "(?:");
    for (size_t i = 0; i < x->nalts; i++) {
      if (i) put(e, "|");
      emit_seq(e, x->alts[i], flags);
    }
    put(e, ")");
    break;
  case N_SUB:
    put(e, x->c ? "(" : "(?:");
    emit_seq(e, x->a, combine_flags(flags, x->addf, x->delf));
    put(e, ")");
    break;
  case N_ATOMIC:
    put(e, "(?>");
    emit_seq(e, x->a, flags);
    put(e, ")");
    break;
  case N_REPEAT: emit_repeat(e, x, flags); break;
  case N_GROUPREF: emit_groupref(e, x->c, flags); break;
  case N_EXISTS:
    put(e, "(?("); put_u64(e, x->c); put(e, ")");
    emit_seq(e, x->a, flags);
    if (x->b) { put(e, "|"); emit_seq(e, x->b, flags); }
    put(e, ")");
    break;
  case N_ASSERT:
    if (x->dir < 0) {
      uint64_t lo, hi;
      e->p->wdepth = e->p->wpeak = 0;
      seq_width(e->p, x->a, &lo, &hi);
      if (!cframes_ok(e, e->clevel - 1 + e->p->wpeak)) return;
      /* _compiler: fixed width only; _sre's validator: below 2**31 */
      if (lo != hi || lo >= 0x80000000u) { e->err = IFS_INVALID; return; }
      put(e, x->sub ? "(?<!" : "(?<=");
      e->lookbehind++;
      emit_seq(e, x->a, flags);
      e->lookbehind--;
    } else {
      put(e, x->sub ? "(?!" : "(?=");
      emit_seq(e, x->a, flags);
    }
    put(e, ")");
    break;
  }
}

static int caseless_lit(const node *x, uint32_t flags) {
  return x->kind == N_LIT && pcre2_caseless_ok(flags, x->c);
}

static void emit_seq(emitter *e, seq *q, uint32_t flags) {
  size_t n = seq_len(q);
  for (size_t i = 0; i < n && !e->err; i++) {
    node *x = seq_at(q, i);
    if (caseless_lit(x, flags) && i + 1 < n && caseless_lit(seq_at(q, i + 1), flags)) {
      put(e, "(?i:");   /* a run of caseless letters in one group */
      for (; i < n && caseless_lit(seq_at(q, i), flags); i++) put_char(e, seq_at(q, i)->c);
      put(e, ")");
      i--;
      continue;
    }
    emit_node(e, x, flags);
  }
}

/* sre's search only starts where the pattern's "charset prefix" matches,
** and re._compiler compiles that charset with the pattern's global flags
** even when it comes from inside (?a:...) or (?u:...): Python's
** re.search(r'(?a:\W)', 'é') is None.  When the categories of the first
** set mean something else under the global flags, the same filter is
** prepended as a lookahead. */
static void emit_info_prefix(emitter *e, seq *root, uint32_t gflags) {
  uint64_t lo, hi;
  seq_width(e->p, root, &lo, &hi);
  if (lo == 0) return;                       /* no INFO charset at all */
  seq *q = root;
  uint32_t f = gflags;
  node *x;
  for (;;) {                                  /* _get_charset_prefix */
    if (seq_len(q) == 0) return;
    x = seq_at(q, 0);
    if (x->kind != N_SUB) break;
    f = combine_flags(f, x->addf, x->delf);
    q = x->a;
  }
  if (x->kind != N_IN) return;               /* literals mean the same */
  if ((f & F_UNICODE) == (gflags & F_UNICODE)) return;
  int has_cat = 0, icase = (f & F_IGNORECASE) != 0, uni = (f & F_UNICODE) != 0;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_CAT) has_cat = 1;
    if (icase && it->op == S_LIT && mode_iscased(uni, it->a)) return;
    if (icase && it->op == S_RANGE && (it->b > 0xFFFF || range_has_cased(uni, it->a, it->b)))
      return;
  }
  if (!has_cat) return;
  /* the literal prefix comes first: any leading uncased literal wins, but
  ** the first element here is a set, so there is none */
  put(e, "(?=");
  rset plain = {0}, none = {0};
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_LIT) rs_push(&plain, it->a, it->a);
    else if (it->op == S_RANGE) rs_push(&plain, it->a, it->b);
  }
  rs_normalize(&plain);
  if (plain.oom) e->err = IFS_NOMEM;
  else put_set_text(e, &plain, x, (gflags & F_UNICODE) != 0,
                    x->nset && x->set[0].op == S_NEGATE, &none);
  rs_free(&plain);
  put(e, ")");
}

/* ------------------------------------------------------------------ */
/* The DFA program of a regular pattern (ifs_redfa.h)                  */

/* A pattern with no back-reference, look-around, atomic group, possessive
** repeat or conditional and no case-insensitive character test compiles
** into a Thompson NFA for ifs_redfa (\b and \B all of one kind, ASCII or
** Unicode); anything else sets `bad` and the pattern stays with PCRE2
** alone.  Lazy and greedy repeats are alike here: only whether a match
** exists is asked. */
#define DP_MAX_INSTS 3000u
#define DP_MAX_SETS 200u

typedef struct dprog {
  parser *p;
  ifs_rd_inst *ins;
  size_t n, cap;
  rset sets[DP_MAX_SETS];
  const node *set_node[DP_MAX_SETS];   /* sets are shared by a node's copies */
  uint32_t set_flags[DP_MAX_SETS];
  size_t nsets;
  int word;             /* \b \B seen: 1 ASCII, 2 Unicode word characters */
  int bad, oom;
} dprog;

static uint32_t dp_emit(dprog *d, int op, int kind, uint32_t x, uint32_t y) {
  if (d->bad || d->oom) return 0;
  if (d->n == DP_MAX_INSTS) { d->bad = 1; return 0; }
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

/* s becomes its complement in [0, 0x10FFFF]. */
static void rs_complement(rset *s) {
  rs_normalize(s);
  rset out = {0};
  uint32_t next = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (s->r[i][0] > next) rs_push(&out, next, s->r[i][0] - 1);
    next = s->r[i][1] + 1;
  }
  if (next <= 0x10FFFF) rs_push(&out, next, 0x10FFFF);
  if (out.oom || s->oom) { rs_free(&out); s->oom = 1; return; }
  rs_free(s);
  *s = out;
}

static void rs_push_table(rset *s, const uint32_t (*t)[2], size_t n, int complement) {
  rset tmp = {0};
  for (size_t i = 0; i < n; i++) rs_push(&tmp, t[i][0], t[i][1]);
  if (complement) rs_complement(&tmp);
  for (size_t i = 0; i < tmp.n; i++) rs_push(s, tmp.r[i][0], tmp.r[i][1]);
  if (tmp.oom) s->oom = 1;
  rs_free(&tmp);
}

/* The code points a one-character node matches (not under IGNORECASE). */
static void dp_charset(const node *x, uint32_t flags, rset *s) {
  int uni = (flags & F_UNICODE) != 0;
  switch (x->kind) {
  case N_LIT: rs_push(s, x->c, x->c); break;
  case N_NOTLIT: rs_push(s, x->c, x->c); rs_complement(s); break;
  case N_ANY:
    if (flags & F_DOTALL) rs_push(s, 0, 0x10FFFF);
    else { rs_push(s, '\n', '\n'); rs_complement(s); }
    break;
  default: {   /* N_IN */
    int negate = x->nset && x->set[0].op == S_NEGATE;
    for (size_t i = 0; i < x->nset; i++) {
      const setitem *it = &x->set[i];
      int cat = (int)it->a, neg = cat == C_NOT_DIGIT || cat == C_NOT_SPACE || cat == C_NOT_WORD;
      if (it->op == S_LIT) rs_push(s, it->a, it->a);
      else if (it->op == S_RANGE) rs_push(s, it->a, it->b);
      else if (it->op != S_CAT) continue;
      else if (cat == C_DIGIT || cat == C_NOT_DIGIT)
        uni ? rs_push_table(s, ifs_re_digit, NELEM(ifs_re_digit), neg)
            : rs_push_table(s, ascii_digit, NELEM(ascii_digit), neg);
      else if (cat == C_SPACE || cat == C_NOT_SPACE)
        uni ? rs_push_table(s, ifs_re_space, NELEM(ifs_re_space), neg)
            : rs_push_table(s, ascii_space, NELEM(ascii_space), neg);
      else if (uni) rs_push_table(s, ifs_re_word, NELEM(ifs_re_word), neg);
      else rs_push_table(s, ascii_word, NELEM(ascii_word), neg);
    }
    rs_normalize(s);
    if (negate) rs_complement(s);
  }
  }
  rs_normalize(s);
}

static void dp_char(dprog *d, const node *x, uint32_t flags) {
  if ((flags & F_IGNORECASE) && x->kind != N_ANY) { d->bad = 1; return; }
  uint32_t key = flags & (F_UNICODE | F_DOTALL);
  size_t k;
  for (k = 0; k < d->nsets; k++)
    if (d->set_node[k] == x && d->set_flags[k] == key) break;
  if (k == d->nsets) {
    if (k == DP_MAX_SETS) { d->bad = 1; return; }
    rset s = {0};
    dp_charset(x, flags, &s);
    if (s.oom) { d->oom = 1; rs_free(&s); return; }
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

static void dp_seq(dprog *d, seq *q, uint32_t flags);

/* Points the y of every SPLIT in pcs[0..n) (or the x of a JMP) here. */
static void dp_patch(dprog *d, const uint32_t *pcs, size_t n) {
  for (size_t i = 0; i < n && !d->bad && !d->oom; i++) {
    ifs_rd_inst *in = &d->ins[pcs[i]];
    if (in->op == IFS_RD_SPLIT) in->y = (uint32_t)d->n; else in->x = (uint32_t)d->n;
  }
}

static void dp_branch(dprog *d, const node *x, uint32_t flags) {
  if (x->nalts > DP_MAX_INSTS) { d->bad = 1; return; }
  uint32_t *jmps = ifs_malloc((x->nalts ? x->nalts : 1) * sizeof *jmps);
  if (!jmps) { d->oom = 1; return; }
  size_t nj = 0;
  for (size_t i = 0; i < x->nalts && !d->bad && !d->oom; i++) {
    uint32_t split = 0;
    int last = i + 1 == x->nalts;
    if (!last) split = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->alts[i], flags);
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
  seq_width(d->p, x->a, &lo, &hi);
  if (hi == 0 && max != 0) { min = min ? 1 : 0; max = 1; }   /* as emit_repeat */
  if (lo >= 1 && max != MAXREPEAT && max > MAX_SUBJECT_CHARS) max = MAXREPEAT;
  if (min > DP_MAX_INSTS || (max != MAXREPEAT && max - min > DP_MAX_INSTS)) {
    d->bad = 1;
    return;
  }
  for (uint64_t i = 0; i < min && !d->bad && !d->oom; i++) dp_seq(d, x->a, flags);
  if (max == MAXREPEAT) {
    uint32_t loop = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->a, flags);
    dp_emit(d, IFS_RD_JMP, 0, loop, 0);
    dp_patch(d, &loop, 1);
    return;
  }
  size_t nopt = (size_t)(max - min);
  uint32_t *splits = ifs_malloc((nopt ? nopt : 1) * sizeof *splits);
  if (!splits) { d->oom = 1; return; }
  for (size_t i = 0; i < nopt && !d->bad && !d->oom; i++) {
    splits[i] = dp_emit(d, IFS_RD_SPLIT, 0, (uint32_t)d->n + 1, 0);
    dp_seq(d, x->a, flags);
  }
  dp_patch(d, splits, nopt);
  ifs_free(splits);
}

static void dp_node(dprog *d, const node *x, uint32_t flags) {
  switch (x->kind) {
  case N_LIT: case N_NOTLIT: case N_ANY: case N_IN: dp_char(d, x, flags); break;
  case N_AT: dp_at(d, x, flags); break;
  case N_BRANCH: dp_branch(d, x, flags); break;
  case N_SUB: dp_seq(d, x->a, combine_flags(flags, x->addf, x->delf)); break;
  case N_REPEAT: dp_repeat(d, x, flags); break;
  default: d->bad = 1; break;
  }
}

static void dp_seq(dprog *d, seq *q, uint32_t flags) {
  for (size_t i = 0; i < seq_len(q) && !d->bad && !d->oom; i++) dp_node(d, seq_at(q, i), flags);
}

/* The DFA of a parsed pattern, NULL when it has none (*rc stays IFS_OK)
** or memory ran out (*rc = IFS_NOMEM). */
static ifs_redfa *dfa_of(parser *p, seq *root, int *rc) {
  dprog d;
  memset(&d, 0, sizeof d);
  d.p = p;
  dp_seq(&d, root, p->flags);
  dp_emit(&d, IFS_RD_MATCH, 0, 0, 0);
  ifs_redfa *dfa = NULL;
  if (!d.bad && !d.oom) {
    ifs_rd_set views[DP_MAX_SETS];
    for (size_t i = 0; i < d.nsets; i++) {
      views[i].r = (const uint32_t (*)[2])d.sets[i].r;
      views[i].n = d.sets[i].n;
    }
    const node *first = seq_len(root) ? seq_at(root, 0) : NULL;
    int anchored = first && first->kind == N_AT &&
                   (first->sub == AT_BEGINNING_STRING ||
                    (first->sub == AT_BEGINNING && !(p->flags & F_MULTILINE)));
    ifs_rd_set uword = { ifs_re_word, NELEM(ifs_re_word) };
    int err;
    dfa = ifs_redfa_new(d.ins, d.n, views, d.nsets, d.word == 2 ? &uword : NULL, anchored,
                        &err);
    if (err == IFS_NOMEM) d.oom = 1;
  }
  if (d.oom) *rc = IFS_NOMEM;
  for (size_t i = 0; i < d.nsets; i++) rs_free(&d.sets[i]);
  ifs_free(d.ins);
  return dfa;
}

/* ------------------------------------------------------------------ */
/* Translation                                                         */

/* For a pattern that starts with an unbounded repeat of a one-character
** test X (`[^a-z]*\Z`, `\w+ing`), X written to `lead`: a search may skip
** the rest of X's run after a start position fails (see skip_run). */
static void emit_lead(emitter *e, seq *root, uint32_t flags, ifs_buf *lead) {
  if (seq_len(root) == 0) return;
  node *x = seq_at(root, 0);
  if (x->kind != N_REPEAT || x->max != MAXREPEAT || !simple_char_seq(x->a)) return;
  emitter le = *e;
  le.out = lead;
  le.clevel += 2;       /* inside the repeat's own frames */
  emit_seq(&le, x->a, flags);
  if (le.err == IFS_NOMEM) e->err = IFS_NOMEM;
  if (le.err) ifs_buf_clear(lead);
}

/* Parses and translates (appending to out); lead, when given, gets
** emit_lead's test. */
static int translate(const char *pat, size_t pn, uint32_t map_base, ifs_buf *out,
                     uint64_t *minwidth, ifs_buf *lead, ifs_redfa **dfa) {
  ifs_arena arena;
  ifs_arena_init(&arena);
  parser p;
  memset(&p, 0, sizeof p);
  p.arena = &arena;
  p.lookbehindgroups = -1;
  p.ngroups = 1;
  int rc = IFS_OK;
  uint32_t *cps = ifs_malloc((pn ? pn : 1) * sizeof *cps);
  if (!cps) { ifs_arena_free(&arena); return IFS_NOMEM; }
  size_t n = 0;
  for (size_t i = 0; i < pn;) cps[n++] = decode_cp((const unsigned char *)pat, pn, &i);
  p.s = cps;
  p.n = n;
  p.gw = palloc(&p, 16 * sizeof *p.gw);   /* group 0: never closed */
  if (!p.gw) { rc = IFS_NOMEM; goto done; }
  p.gw_cap = 16;
  p.gw[0].closed = 0;
  p.ngroups = 1;
  seq *root = parse_pattern(&p);
  if (p.err) { rc = p.err; goto done; }
  emitter e = { &p, out, map_base, 0, 2, 0 };   /* _code -> _compile: frame 2 */
  size_t before = out->len;
  emit_info_prefix(&e, root, p.flags);
  int prefixed = out->len != before;
  if (lead && !prefixed) emit_lead(&e, root, p.flags, lead);
  emit_seq(&e, root, p.flags);
  rc = e.err;
  /* Python's start-position filter (emit_info_prefix) is not in the NFA */
  if (rc == IFS_OK && dfa && !map_base && !prefixed) *dfa = dfa_of(&p, root, &rc);
  if (rc != IFS_INVALID && minwidth) {
    uint64_t hi;
    seq_width(&p, root, minwidth, &hi);
  }
done:
  ifs_free(cps);
  ifs_arena_free(&arena);
  return rc;
}

/* The translation for subjects without surrogates.  IFS_TOOBIG when the
** PCRE2 text would exceed MAX_OUT (search answers IFS_REGEX_LIMIT). */
int ifs_regex_translate(const char *pat, size_t pn, ifs_buf *out, uint32_t *opts) {
  if (opts) *opts = 0;
  return translate(pat, pn, 0, out, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* Compiled-pattern cache and matching                                 */

#define CACHE_SLOTS 64
#define COMPILE_OPTS (PCRE2_UTF | PCRE2_UCP | PCRE2_ALT_CIRCUMFLEX | PCRE2_NO_UTF_CHECK | \
                      PCRE2_USE_OFFSET_LIMIT)
/* The match budget.  PCRE2's match limit counts steps (backtracking
** points; the JIT and the interpreter each count their own way) and
** applies afresh at every start position, so a limit alone lets a search
** cost the limit times the number of start positions.  A search keeps its
** own account instead: every step it allows PCRE2, at any start position,
** is charged in advance to one budget of
**     BUDGET_BASE + BUDGET_PER_BYTE x subject bytes
** steps (and each character a case-insensitive back-reference compares is
** one step); when the next attempt could overrun it, the answer is
** IFS_REGEX_LIMIT.  It is counted work, not time: the same input gets the
** same answer on a fast or a loaded machine (with the same engine, JIT or
** interpreter); a clock is only the last resort (SEARCH_SECONDS).  How the
** steps are handed out: see search_budgeted.  Ordinary patterns take 1 to
** 3 steps at most start positions and a few thousand at the worst one of
** an ordinary answer; catastrophic ones take millions at each.
**
** One start position gets at most POS_LIMIT_BASE + 2 steps per byte (a
** loop of a capturing group takes a step or two per character), up to
** POS_LIMIT_MAX.  The interpreter (no JIT, or the JIT stack exhausted)
** takes 5 to 20 times as long per step, and its frames run out near 4
** million iterations of a loop (HEAP_LIMIT_KIB) anyway: its cap is a
** sixteenth of that, so that one position stays under a second there too. */
#define BUDGET_BASE 20000000u
#define BUDGET_PER_BYTE 16u
#define POS_LIMIT_BASE 20000000u
#define POS_LIMIT_PER_BYTE 2u
#define POS_LIMIT_MAX 400000000u
#define POS_INTERP_SHARE 16u
#define ESCALATE 4u                       /* growth of a start position's limit */
#define START_CALLOUT 255                 /* the probe code's first item: */
#define START_CALLOUT_TEXT "(?C255)"
#define ABORT_NEXT (-1000)                /* on_start's "the escalated position failed" */
#define TIME_UP (-1001)                   /* SEARCH_SECONDS have passed */
/* The steps are PCRE2's backtracking points: the characters that a
** repeat of one character or a look-ahead runs over are not counted
** ((?=a*c) over a long run of a's takes a step or two per start position,
** and quadratic time).  So a search also stops, as a last resort, after
** SEARCH_SECONDS on the monotonic clock (thread CPU time would take a
** system call per reading, 1.6 us here, against 30 ns).  The clock is
** read between chunks of start positions (subjects of CHUNK_MIN bytes or
** more) and every CLOCK_STARTS start positions of the probe code: never
** in the common case of a short subject. */
#define SEARCH_SECONDS 5.0
#define CHUNK_MIN 4096
#define CLOCK_STARTS 4096u
#define HEAP_LIMIT_KIB (512u * 1024u)     /* interpreter's backtracking frames */
#define JIT_STACK_MAX ((size_t)512 << 20) /* address space, touched on demand */
#define JIT_STACK_SMALL ((size_t)8 << 20)

typedef struct centry {
  char *key;            /* pattern bytes; NULL: slot free */
  size_t kn;
  uint64_t hash;
  uint32_t map_base;    /* translation for subjects with surrogates there */
  int status;           /* IFS_REGEX_INVALID / _LIMIT, or 0 with code */
  uint64_t minwidth;    /* Python's minimum match length, in characters */
  pcre2_code *code;
  pcre2_code *probe;    /* the same after (?C255), compiled when first needed */
  pcre2_code *run;      /* with probe, if it starts with X*: X*+, anchored */
  ifs_redfa *dfa;       /* regular patterns, strict UTF-8 subjects: see ifs_redfa.h */
  int jit_later;        /* code not JIT-compiled yet (the DFA answers first) */
  uint64_t used;        /* LRU clock */
} centry;

/* One search's state, shared with the callouts: the budget's account and
** where the probe code is. */
typedef struct search_state {
  size_t expect_end;    /* end of the last verified back-reference */
  uint64_t left;        /* steps of the budget not yet charged */
  uint64_t interp_max;  /* the interpreter's cap per start position */
  int fell_back;        /* the interpreter took over from the JIT */
  uint64_t per_start;   /* charged at each start position the probe code tries */
  size_t last_start;    /* the start position the probe code tried last */
  size_t stop_after;    /* the probe code gives up (ABORT_NEXT) beyond this */
  uint32_t starts;      /* start positions the probe code tried */
  double t0;            /* the clock at its first reading; < 0: none yet */
} search_state;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds since the search first asked. */
static double search_time(search_state *st) {
  double now = now_seconds();
  if (st->t0 < 0) st->t0 = now;
  return now - st->t0;
}

struct ifs_regex_cache {
  pcre2_general_context *gctx;
  pcre2_compile_context *cctx;
  pcre2_match_context *mctx;
  pcre2_match_data *md;
  pcre2_jit_stack *jstack;
  int no_jstack;        /* creating one failed: PCRE2's default stack */
  int use_dfa;          /* regular patterns go to ifs_redfa first (default) */
  centry ent[CACHE_SLOTS];
  uint64_t clock;
  ifs_buf pat;          /* translation scratch */
  ifs_buf subj;         /* remapped subject scratch */
  search_state st;
};

static void *gc_malloc(size_t n, void *data) { (void)data; return ifs_malloc(n); }
static void gc_free(void *p, void *data) { (void)data; ifs_free(p); }

/* The probe code's (?C255), at each start position it tries: charges the
** position's limit to the budget beforehand (PCRE2_ERROR_CALLOUT when it
** cannot), and notes where it is, so that a match-limit failure tells
** which position failed.  Past stop_after it ends the search instead;
** now and then it reads the clock (SEARCH_SECONDS). */
static int on_start(const pcre2_callout_block *cb, search_state *st) {
  st->last_start = cb->start_match;
  if (cb->start_match > st->stop_after) return ABORT_NEXT;
  if (st->left < st->per_start) return PCRE2_ERROR_CALLOUT;
  st->left -= st->per_start;
  if (++st->starts % CLOCK_STARTS == 0 && search_time(st) > SEARCH_SECONDS) return TIME_UP;
  return 0;
}

/* Python's lowercase comparison of a back-reference, letter by letter;
** each character compared is charged a step of the budget. */
static int on_callout(pcre2_callout_block *cb, void *data) {
  search_state *st = data;
  const char *tag = (const char *)cb->callout_string;
  if (!tag && cb->callout_number == START_CALLOUT) return on_start(cb, st);
  if (!tag || cb->callout_string_length < 1) return 1;
  if (tag[0] == '<') return cb->current_position < st->expect_end ? 0 : 1;
  int uni = tag[0] == 'u';
  uint64_t g = 0;
  for (size_t i = 1; i < cb->callout_string_length; i++) g = g * 10 + (uint64_t)(tag[i] - '0');
  if (g >= cb->capture_top) return 1;
  PCRE2_SIZE gs = cb->offset_vector[2 * g], ge = cb->offset_vector[2 * g + 1];
  if (gs == PCRE2_UNSET || ge == PCRE2_UNSET || ge < gs) return 1;
  const unsigned char *s = cb->subject;
  size_t n = cb->subject_length, i = gs, j = cb->current_position;
  while (i < ge) {
    if (j >= n) return 1;
    if (st->left == 0) return PCRE2_ERROR_CALLOUT;
    st->left--;
    uint32_t a = decode_cp(s, ge, &i), b = decode_cp(s, n, &j);
    if (a != b && mode_lower(uni, a) != mode_lower(uni, b)) return 1;
  }
  st->expect_end = j;
  return 0;
}

ifs_regex_cache *ifs_regex_cache_new(void) {
  ifs_regex_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->use_dfa = 1;
  ifs_buf_init(&c->pat);
  ifs_buf_init(&c->subj);
  c->gctx = pcre2_general_context_create(gc_malloc, gc_free, NULL);
  if (!c->gctx) goto fail;
  c->cctx = pcre2_compile_context_create(c->gctx);
  c->mctx = pcre2_match_context_create(c->gctx);
  c->md = pcre2_match_data_create(1, c->gctx);
  if (!c->cctx || !c->mctx || !c->md) goto fail;
  pcre2_set_newline(c->cctx, PCRE2_NEWLINE_LF);
  pcre2_set_bsr(c->cctx, PCRE2_BSR_UNICODE);
  pcre2_set_parens_nest_limit(c->cctx, 10000);
  pcre2_set_heap_limit(c->mctx, HEAP_LIMIT_KIB);
  pcre2_set_callout(c->mctx, on_callout, &c->st);
  return c;
fail:
  ifs_regex_cache_free(c);
  return NULL;
}

static void entry_clear(centry *e) {
  ifs_free(e->key);
  pcre2_code_free(e->code);
  pcre2_code_free(e->probe);
  pcre2_code_free(e->run);
  ifs_redfa_free(e->dfa);
  memset(e, 0, sizeof *e);
}

void ifs_regex_cache_free(ifs_regex_cache *c) {
  if (!c) return;
  for (int i = 0; i < CACHE_SLOTS; i++) entry_clear(&c->ent[i]);
  pcre2_jit_stack_free(c->jstack);
  pcre2_match_data_free(c->md);
  pcre2_match_context_free(c->mctx);
  pcre2_compile_context_free(c->cctx);
  pcre2_general_context_free(c->gctx);
  ifs_buf_free(&c->pat);
  ifs_buf_free(&c->subj);
  ifs_free(c);
}


/* Translates and compiles into a free (or the least recently used) slot.
** NULL only when memory ran out. */
/* Options that dodge two PCRE2 10.42 optimizer bugs, only where they can
** strike: (1) a first code unit taken from a lookahead is also counted
** as consumed ((?=a)a?a fails on "a"); (2) auto-possessification before
** an atomic group holding a repeated capture (a?(?>(c)*)a fails on "a"). */
static int has_text(const ifs_buf *b, const char *z) {
  size_t zn = strlen(z);
  for (size_t i = 0; i + zn <= b->len; i++)
    if (b->p[i] == z[0] && memcmp(b->p + i, z, zn) == 0) return 1;
  return 0;
}

static uint32_t workaround_opts(const ifs_buf *pat) {
  uint32_t o = 0;
  if (has_text(pat, "(?=")) o |= PCRE2_NO_START_OPTIMIZE;
  if (has_text(pat, "(?>")) o |= PCRE2_NO_AUTO_POSSESS;
  return o;
}

/* JIT-compiles code where the build allows (else it is interpreted). */
static void jit_compile(pcre2_code *code) {
#ifndef IFS_NO_JIT   /* the valgrind build: JIT code reads past subjects on purpose */
  if (code) (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
#else
  (void)code;
#endif
}

/* Compiles the translation in c->pat, and JIT-compiles it unless `later`
** (a pattern with a DFA, which PCRE2 may never need to run); NULL with
** *err set when PCRE2 refuses it. */
static pcre2_code *compile_pat(ifs_regex_cache *c, uint32_t opts, int later, int *err) {
  PCRE2_SIZE off;
  /* an empty translation leaves the buffer unallocated; PCRE2 wants a pointer */
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)(c->pat.p ? c->pat.p : ""), c->pat.len,
                                   COMPILE_OPTS | opts | workaround_opts(&c->pat), err, &off,
                                   c->cctx);
  if (!later) jit_compile(code);
  return code;
}

static centry *cache_fill(ifs_regex_cache *c, const char *pat, size_t pn,
                          uint64_t h, uint32_t map_base) {
  centry *slot = &c->ent[0];
  for (int i = 0; i < CACHE_SLOTS; i++) {
    if (!c->ent[i].key) { slot = &c->ent[i]; break; }
    if (c->ent[i].used < slot->used) slot = &c->ent[i];
  }
  entry_clear(slot);
  char *key = ifs_malloc(pn ? pn : 1);
  if (!key) return NULL;
  if (pn) memcpy(key, pat, pn);
  uint64_t minwidth = 0;
  ifs_buf_clear(&c->pat);
  ifs_redfa *dfa = NULL;
  int rc = translate(pat, pn, map_base, &c->pat, &minwidth, NULL, &dfa);
  if (c->pat.oom) rc = IFS_NOMEM;
  if (rc == IFS_NOMEM) { ifs_redfa_free(dfa); ifs_free(key); return NULL; }
  int status = rc == IFS_INVALID ? IFS_REGEX_INVALID : rc ? IFS_REGEX_LIMIT : 0;
  pcre2_code *code = NULL;
  if (!status) {
    int err;
    code = compile_pat(c, 0, dfa != NULL, &err);
    if (!code && err == PCRE2_ERROR_HEAP_FAILED) { ifs_redfa_free(dfa); ifs_free(key); return NULL; }
    if (!code) status = IFS_REGEX_LIMIT;   /* beyond PCRE2's sizes: see the report */
  }
  if (status) { ifs_redfa_free(dfa); dfa = NULL; }
  slot->minwidth = minwidth;
  slot->key = key;
  slot->kn = pn;
  slot->hash = h;
  slot->map_base = map_base;
  slot->status = status;
  slot->code = code;
  slot->dfa = dfa;
  slot->jit_later = dfa != NULL;
  return slot;
}

static centry *cache_get(ifs_regex_cache *c, const char *pat, size_t pn, uint32_t map_base) {
  uint64_t h = ifs_hash_bytes(pat, pn);
  centry *e = NULL;
  for (int i = 0; i < CACHE_SLOTS; i++) {
    centry *x = &c->ent[i];
    if (x->key && x->hash == h && x->kn == pn && x->map_base == map_base &&
        (pn == 0 || memcmp(x->key, pat, pn) == 0)) { e = x; break; }
  }
  if (!e) e = cache_fill(c, pat, pn, h, map_base);
  if (e) e->used = ++c->clock;
  return e;
}

/* 0 when the subject is strict UTF-8 (PCRE2 can take it as is); else,
** as it holds a surrogate or a byte that is not UTF-8, the base of the
** first block of MAP_BASES it does not use (see map_cp). */
static uint32_t subject_map_base(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  /* strict UTF-8 (the common case, checked word-at-a-time) has neither
  ** surrogates nor stray bytes: PCRE2 takes it as it is */
  if (ifs_utf8_is_valid(s, n)) return 0;
  int surrogates = 0;
  uint32_t used = 0;   /* bit k: the subject has a character of block k */
  while (i < n) {
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, u + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (u[i] < 0x80) { i++; continue; }
    uint32_t cp = decode_cp(u, n, &i);
    if (is_surrogate(cp)) surrogates = 1;
    else if (cp >= 0x3F800)
      for (size_t k = 0; k < NELEM(MAP_BASES); k++)
        if (cp - MAP_BASES[k] < MAP_BLOCK) used |= 1u << k;
  }
  if (!surrogates) return 0;
  for (size_t k = 0; k < NELEM(MAP_BASES); k++)
    if (!(used & (1u << k))) return MAP_BASES[k];
  return MAP_BASES[0];   /* every block taken: those characters collide */
}

/* Surrogates (and stray bytes, read as U+DC00+byte) to base+k. */
static int remap_subject(ifs_buf *out, const char *s, size_t n, uint32_t base) {
  ifs_buf_clear(out);
  if (ifs_buf_reserve(out, n + n / 2 + 8)) return IFS_NOMEM;
  for (size_t i = 0; i < n;) {
    size_t k = i;
    uint32_t cp = decode_cp((const unsigned char *)s, n, &k);
    int rc = is_surrogate(cp) ? ifs_buf_append_cp(out, base + (cp - 0xD800))
                              : ifs_buf_append(out, s + i, k - i);
    if (rc) return IFS_NOMEM;
    i = k;
  }
  return IFS_OK;
}

/* The entry's pattern after (?C255) (see on_start), and its run test
** (see skip_run), compiled the first time a search needs them.  NULL: *rc
** says why (PCRE2_ERROR_NOMEMORY, or PCRE2_ERROR_MATCHLIMIT for a
** translation PCRE2 takes only without the prefix). */
static pcre2_code *probe_code(ifs_regex_cache *c, centry *e, int *rc) {
  if (e->probe) return e->probe;
  ifs_buf lead;
  ifs_buf_init(&lead);
  ifs_buf_clear(&c->pat);
  ifs_buf_append_str(&c->pat, START_CALLOUT_TEXT);
  int tr = translate(e->key, e->kn, e->map_base, &c->pat, NULL, &lead, NULL);
  int err = 0, oom = c->pat.oom || lead.oom || tr == IFS_NOMEM;
  if (!oom && tr == IFS_OK) e->probe = compile_pat(c, 0, 0, &err);
  oom |= err == PCRE2_ERROR_HEAP_FAILED;
  if (e->probe && lead.len) {     /* without it, the search only skips less */
    ifs_buf_clear(&c->pat);
    ifs_buf_append(&c->pat, lead.p, lead.len);
    ifs_buf_append_str(&c->pat, "*+");
    if (!c->pat.oom) e->run = compile_pat(c, PCRE2_ANCHORED, 0, &err);
    if (!e->run && (c->pat.oom || err == PCRE2_ERROR_HEAP_FAILED)) {
      pcre2_code_free(e->probe);  /* all or nothing: the next search tries again */
      e->probe = NULL;
      oom = 1;
    }
  }
  ifs_buf_free(&lead);
  if (!e->probe) *rc = oom ? PCRE2_ERROR_NOMEMORY : PCRE2_ERROR_MATCHLIMIT;
  return e->probe;
}

/* One pcre2_match from start, over start positions up to offset limit
** `last`, each allowed `steps`; the interpreter takes over (within its
** cap) when the JIT stack runs out. */
static int match_once(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                      size_t start, size_t last, uint64_t steps) {
  pcre2_set_offset_limit(c->mctx, last);
  pcre2_set_match_limit(c->mctx, (uint32_t)steps);
  int rc = pcre2_match(code, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, c->md, c->mctx);
  if (rc != PCRE2_ERROR_JIT_STACKLIMIT) return rc;
  if (steps > c->st.interp_max) pcre2_set_match_limit(c->mctx, (uint32_t)c->st.interp_max);
  c->st.fell_back = 1;
  return pcre2_match(code, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                     c->md, c->mctx);
}

/* The plain code over every start position: in one call for a short
** subject or a single start position; otherwise in chunks of start
** positions (PCRE2's offset limit), growing while they are quick, so that
** the clock can be read in between. */
static int plain_search(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                        uint64_t steps, int one_call) {
  if (one_call || n < CHUNK_MIN) return match_once(c, code, s, n, 0, n, steps);
  uint32_t first = 0;
  pcre2_pattern_info(code, PCRE2_INFO_FIRSTCODETYPE, &first);
  int line_starts = first == 2;   /* tries only after a newline: keep it so */
  size_t start = 0, span = 256;
  double t = search_time(&c->st);
  for (;;) {
    size_t last = n - start > span ? start + span : n;
    int rc = match_once(c, code, s, n, start, last, steps);
    if (rc != PCRE2_ERROR_NOMATCH || last >= n) return rc;
    double now = search_time(&c->st);
    if (now > SEARCH_SECONDS) return TIME_UP;
    if (now - t < 0.005 && span < ((size_t)1 << 26)) span *= 2;
    else if (now - t > 0.02 && span > 16) span /= 2;
    t = now;
    start = last + 1;   /* the next character boundary, or line start */
    if (line_starts) {
      const char *nl = memchr(s + last, '\n', n - last);
      if (!nl) return PCRE2_ERROR_NOMATCH;
      start = (size_t)(nl - s) + 1;
    }
    while (start < n && ((unsigned char)s[start] & 0xC0) == 0x80) start++;
    if (start > n) return PCRE2_ERROR_NOMATCH;
  }
}

/* The plain code over its start positions, each allowed `steps`: as
** PCRE2 does not tell how many it tried, all `positions` it may try are
** charged beforehand (and again if the interpreter took over). */
static int reserved_pass(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                         uint64_t steps, uint64_t positions) {
  search_state *st = &c->st;
  uint64_t cost = steps * positions;
  if (st->left < cost) return PCRE2_ERROR_MATCHLIMIT;
  st->left -= cost;
  st->fell_back = 0;
  int rc = plain_search(c, code, s, n, steps, positions == 1);
  cost = (steps < st->interp_max ? steps : st->interp_max) * positions;
  if (st->fell_back) st->left = st->left > cost ? st->left - cost : 0;
  return rc;
}

/* Where the search goes on after start position p failed for good, the
** next position PCRE2 would try being `next`.  For a pattern X*R or X+R
** (X a one-character test, `run` = X*+), none of p+1 .. q can match
** either, q being the end of X's run from p: from each of them X stops at
** a subset of the places it stopped from p, and R there is the same test
** (no group holds X).  PCRE2's JIT spares itself that work within one
** call too; without this the probe code would try them all, which makes
** `[^a-z]*\Z` on a long run quadratic.  The runs scanned are disjoint,
** so the scans cost one pass over the subject at most.
** Returns n + 1 when no position is left. */
static size_t skip_run(ifs_regex_cache *c, pcre2_code *run, const char *s, size_t n,
                       size_t p, size_t next) {
  if (!run) return next;
  pcre2_set_offset_limit(c->mctx, p);
  pcre2_set_match_limit(c->mctx, POS_LIMIT_MAX);
  if (pcre2_match(run, (PCRE2_SPTR)s, n, p, PCRE2_NO_UTF_CHECK, c->md, c->mctx) < 0)
    return next;
  size_t q = pcre2_get_ovector_pointer(c->md)[1];
  if (q >= n) return n + 1;
  q++;
  while (q < n && ((unsigned char)s[q] & 0xC0) == 0x80) q++;
  return q > next ? q : next;
}

/* The probe code from the start of the subject, each start position
** charged `steps` (its limit) as it is tried.  A position that runs out
** of steps is tried again alone with ESCALATE times as many, and so on up
** to `posmax` or what the budget has left (on_start stops the search at
** the next position: ABORT_NEXT); once it has failed for good the search
** goes on past it (skip_run) with `steps` again. */
static int probe_pass(ifs_regex_cache *c, const centry *e, const char *s, size_t n,
                      uint64_t steps, uint64_t posmax) {
  search_state *st = &c->st;
  size_t start = 0;
  uint64_t limit = steps;
  st->stop_after = SIZE_MAX;
  for (;;) {
    if (search_time(st) > SEARCH_SECONDS) return TIME_UP;
    st->per_start = limit;
    st->last_start = SIZE_MAX;
    int rc = match_once(c, e->probe, s, n, start, n, limit);
    if (rc == ABORT_NEXT) {
      start = skip_run(c, e->run, s, n, st->stop_after, st->last_start);
      if (start > n) return PCRE2_ERROR_NOMATCH;
      limit = steps;
      st->stop_after = SIZE_MAX;
      continue;
    }
    if (rc != PCRE2_ERROR_MATCHLIMIT || st->last_start == SIZE_MAX) return rc;
    uint64_t cap = posmax < st->left ? posmax : st->left;
    uint64_t more = limit * ESCALATE;
    if (more > cap / ESCALATE) more = cap;   /* no step just short of the cap */
    if (more <= limit) return rc;            /* the position's cap, or the budget's */
    start = st->stop_after = st->last_start;
    limit = more;
  }
}

/* At most how many start positions PCRE2 tries, by its start-of-match
** information: those after a newline for a pattern that starts lines,
** those with its first code unit (an ASCII letter in either case, any
** character for a non-ASCII one), those whose byte its start bitmap
** admits; otherwise every one.  The JIT uses the same information.
** Counting stops once past `cap`. */
static uint64_t candidates(const pcre2_code *code, const char *s, size_t n, uint64_t cap) {
  uint32_t all = 0, type = 0, unit = 0;
  const uint8_t *bits = NULL;
  pcre2_pattern_info(code, PCRE2_INFO_ALLOPTIONS, &all);
  pcre2_pattern_info(code, PCRE2_INFO_FIRSTCODETYPE, &type);
  pcre2_pattern_info(code, PCRE2_INFO_FIRSTCODEUNIT, &unit);
  pcre2_pattern_info(code, PCRE2_INFO_FIRSTBITMAP, &bits);
  if ((all & PCRE2_NO_START_OPTIMIZE) || (type == 0 && !bits)) return (uint64_t)n + 1;
  uint8_t admit[256];
  for (int b = 0; b < 256; b++)
    admit[b] = type == 2   ? b == '\n'
             : type == 0   ? (bits[b >> 3] >> (b & 7)) & 1
             : unit >= 0x80 ? b >= 0xC0
                            : b == (int)unit || ((unit | 0x20) - 'a' < 26 && b == (int)(unit ^ 0x20));
  uint64_t k = type == 2;   /* the subject's start */
  for (size_t i = 0; i < n && k <= cap; i += 4096) {
    size_t end = n - i < 4096 ? n : i + 4096;
    for (size_t j = i; j < end; j++) k += admit[(unsigned char)s[j]];
  }
  return k;
}

/* re.search within the budget.  An anchored pattern has one start
** position: one call with the position's cap.  Otherwise one call gives
** every start position a quarter of its share of the budget (the common
** case ends there).  If a position needs more and PCRE2's start-of-match
** information rules most positions out, a second call gives the
** positions it leaves a quarter of their share.  If that is not enough
** either, the probe code goes over the subject again, charging each
** position it tries the first share and escalating those that need more:
** at least 7/16 of the budget is left for the escalations. */
static int search_budgeted(ifs_regex_cache *c, centry *e, const char *s, size_t n) {
  uint32_t all = 0;
  size_t jit = 0;
  pcre2_pattern_info(e->code, PCRE2_INFO_ALLOPTIONS, &all);
  pcre2_pattern_info(e->code, PCRE2_INFO_JITSIZE, &jit);
  uint64_t budget = BUDGET_BASE + BUDGET_PER_BYTE * (uint64_t)n;
  uint64_t jit_max = POS_LIMIT_BASE + POS_LIMIT_PER_BYTE * (uint64_t)n;
  if (jit_max > POS_LIMIT_MAX) jit_max = POS_LIMIT_MAX;
  uint64_t interp_max = jit_max / POS_INTERP_SHARE;
  uint64_t posmax = jit ? jit_max : interp_max;
  c->st.left = budget;
  c->st.interp_max = interp_max;
  c->st.starts = 0;
  c->st.t0 = -1;
  if (all & PCRE2_ANCHORED)
    return reserved_pass(c, e->code, s, n, posmax < budget ? posmax : budget, 1);
  uint64_t positions = (uint64_t)n + 1;
  uint64_t steps = budget / (4 * positions);
  if (steps > posmax) steps = posmax;
  int rc = reserved_pass(c, e->code, s, n, steps, positions);
  if (rc != PCRE2_ERROR_MATCHLIMIT || steps == posmax) return rc;
  uint64_t few = candidates(e->code, s, n, positions / 4);
  if (few && few <= positions / 4) {
    uint64_t more = budget / (4 * few);
    rc = reserved_pass(c, e->code, s, n, more < posmax ? more : posmax, few);
    if (rc != PCRE2_ERROR_MATCHLIMIT) return rc;
  }
  return probe_code(c, e, &rc) ? probe_pass(c, e, s, n, steps, posmax) : rc;
}

static int search(ifs_regex_cache *c, const char *pat, size_t pn,
                  const char *subj, size_t sn, uint32_t map_base);

void ifs_regex_use_dfa(ifs_regex_cache *c, int on) { c->use_dfa = on != 0; }

int ifs_regex_has_dfa(ifs_regex_cache *c, const char *pat, size_t pn) {
  centry *e = cache_get(c, pat, pn, 0);
  return e ? e->dfa != NULL : -1;
}

int ifs_regex_search(ifs_regex_cache *c, const char *pat, size_t pn,
                     const char *subj, size_t sn) {
  return search(c, pat, pn, subj, sn, subject_map_base(subj, sn));
}

int ifs_regex_search_utf8(ifs_regex_cache *c, const char *pat, size_t pn,
                          const char *subj, size_t sn) {
  return search(c, pat, pn, subj, sn, 0);   /* strict UTF-8: nothing to map */
}

static int search(ifs_regex_cache *c, const char *pat, size_t pn,
                  const char *subj, size_t sn, uint32_t map_base) {
  centry *e = cache_get(c, pat, pn, map_base);
  if (!e) return IFS_REGEX_NOMEM;
  if (e->status == IFS_REGEX_LIMIT && e->minwidth > sn) return IFS_REGEX_NOMATCH;
  if (e->status == IFS_REGEX_LIMIT && e->minwidth > ifs_count_chars(subj, sn))
    return IFS_REGEX_NOMATCH;   /* PCRE2 could not hold it, but too short */
  if (e->status) return e->status;
  if (e->dfa && c->use_dfa) {
    int rd = ifs_redfa_search(e->dfa, subj, sn);
    if (rd == IFS_REDFA_MATCH) return IFS_REGEX_MATCH;
    if (rd == IFS_REDFA_NOMATCH) return IFS_REGEX_NOMATCH;
    if (rd == IFS_REDFA_NOMEM) return IFS_REGEX_NOMEM;
  }                     /* IFS_REDFA_GAVEUP: PCRE2 answers */
  if (e->jit_later) {
    jit_compile(e->code);
    e->jit_later = 0;
  }
  if (map_base) {
    if (remap_subject(&c->subj, subj, sn, map_base)) return IFS_REGEX_NOMEM;
    subj = c->subj.p;
    sn = c->subj.len;
  }
  if (!c->jstack && !c->no_jstack) {
    /* Large address space first; without it, PCRE2's small default. */
    c->jstack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, c->gctx);
    if (!c->jstack) c->jstack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_SMALL, c->gctx);
    if (c->jstack) pcre2_jit_stack_assign(c->mctx, NULL, c->jstack);
    else c->no_jstack = 1;
  }
  c->st.expect_end = 0;
  int rc = search_budgeted(c, e, subj, sn);
  if (map_base && c->subj.cap > ((size_t)1 << 20)) ifs_buf_free(&c->subj);
  if (rc >= 0) return IFS_REGEX_MATCH;
  if (rc == PCRE2_ERROR_NOMATCH) return IFS_REGEX_NOMATCH;
  if (rc == PCRE2_ERROR_NOMEMORY) return IFS_REGEX_NOMEM;
  return IFS_REGEX_LIMIT;
}
