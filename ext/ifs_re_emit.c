/*
** ifs_re_emit.c — the syntax tree written out as a PCRE2 pattern that
** means what Python's re means.
**
** Nothing in the output depends on PCRE2's own notion of case, space, line
** end or flags: case-insensitive characters and sets become explicit
** classes computed from sre's case tables (ifs_re_charset.c), Python's \s
** becomes explicit ranges, `$` `^` `.` `\b` `\Z` become the PCRE2
** constructs with Python's meaning, and every flag is applied here rather
** than passed on.  Case-insensitive back-references, which PCRE2 cannot
** express with Python's rule (equal lowercase), become a callout that
** ifs_regex.c answers.  What re/_compiler.py checks is checked here too
** (fixed-width look-behind, the template flag, its own recursion depth),
** and repeat counts beyond PCRE2's 65535 are written as nested groups.
** Two PCRE2 10.42 bugs are avoided in the text (see emit_repeat; the
** others are compile options, ifs_regex.c's workaround_opts).
**
** Surrogates: PCRE2 in UTF mode cannot hold one.  For a subject without
** any (map_base 0) the pattern's surrogates become tests that never match;
** for a remapped subject (see ifs_regex.c) they are written at
** map_base+k, and the real characters of that block are left out.
**
** Entry point: ifs_re_emit.
*/
#include <string.h>
#include "ifs_re_emit.h"
#include "ifs_re_charset.h"

/* ------------------------------------------------------------------ */
/* Emitting PCRE2 text                                                 */

#define MAX_OUT ((size_t)16 << 20)   /* larger translations: IFS_LIMIT */

typedef struct emitter {
  parser *p;
  ifs_buf *out;
  uint32_t map_base;    /* 0, or the subject's surrogates are at map_base+k */
  int lookbehind;       /* inside a look-behind */
  int clevel;           /* Python frame of re._compiler._compile here */
  ifs_status err;       /* the first failure, sticky: IFS_INVALID, IFS_NOMEM, IFS_LIMIT */
} emitter;

/* re._compiler's own recursion counts toward Python's limit too. */
static int cframes_ok(emitter *e, int need) {
  if (need > PY_FRAME_BUDGET) { e->err = IFS_INVALID; return 0; }
  return 1;
}

static void put(emitter *e, const char *z) {
  if (ifs_buf_append_str(e->out, z)) e->err = IFS_NOMEM;
  else if (e->out->len > MAX_OUT) e->err = IFS_LIMIT;
}

static void put_u64(emitter *e, uint64_t v) {
  if (ifs_buf_append_u64(e->out, v)) e->err = IFS_NOMEM;
}

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
  if (uni && cat != C_SPACE && cat != C_NOT_SPACE) {
    static const char *const esc[] = { "\\d", "\\D", "", "", "\\w", "\\W" };
    put(e, esc[cat]);
    return 1;
  }
  const uint32_t (*t)[2];
  size_t n;
  ifs_re_cat_table(cat, uni, &t, &n);
  return put_table(e, t, n, neg);
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

/* An IN node under the given flags. */
static void emit_set(emitter *e, const node *x, uint32_t flags) {
  /* _compile -> _optimize_charset [-> _mk_bitmap -> its list comprehension] */
  if (!cframes_ok(e, e->clevel + (ifs_re_set_needs_bitmap(x, flags) ? 2 : 0))) return;
  int uni = (flags & F_UNICODE) != 0;
  int negate = x->nset && x->set[0].op == S_NEGATE;
  rset plain, exclude;
  ifs_re_set_folded(x, flags, &plain, &exclude);
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
  ifs_rs_free(&plain);
  ifs_rs_free(&exclude);
}

/* LITERAL / NOT_LITERAL under the given flags. */
static void emit_literal(emitter *e, uint32_t c, int negated, uint32_t flags) {
  int uni = (flags & F_UNICODE) != 0;
  if (!negated && ifs_re_pcre2_caseless_ok(flags, c)) {
    put(e, "(?i:");
    put_char(e, c);
    put(e, ")");
    return;
  }
  if ((flags & F_IGNORECASE) && ifs_re_mode_iscased(uni, c)) {
    rset s = {0};
    ifs_re_literal_class(uni, c, &s);
    if (s.oom) { e->err = IFS_NOMEM; ifs_rs_free(&s); return; }
    if (s.n == 1 && s.r[0][0] == s.r[0][1] && !negated) {
      put_char(e, s.r[0][0]);
    } else {
      put(e, negated ? "[^" : "[");
      for (size_t i = 0; i < s.n; i++) put_range(e, s.r[i][0], s.r[i][1]);
      put(e, "]");
    }
    ifs_rs_free(&s);
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

static void emit_seq(emitter *e, seq *q, uint32_t flags);
static void emit_node_inner(emitter *e, node *x, uint32_t flags);

#define PCRE2_MAXQ 65535u

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
  ifs_re_width(e->p, x->a, &lo, &hi);
  if (x->max == 0 && e->lookbehind && lo != hi) {
    /* Repeated zero times, a body of varying width is still one PCRE2
    ** refuses in a look-behind ((?<=(?:a|bc){0})x): it goes, for its
    ** groups, into a look-ahead that never holds, beside an empty branch. */
    put(e, "(?:(?=" NEVER);
    emit_seq(e, x->a, flags);
    put(e, ")|)");
    return;
  }
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
      ifs_re_width(e->p, x->a, &lo, &hi);
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
  return x->kind == N_LIT && ifs_re_pcre2_caseless_ok(flags, x->c);
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
  ifs_re_width(e->p, root, &lo, &hi);
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
    if (icase && it->op == S_LIT && ifs_re_mode_iscased(uni, it->a)) return;
    if (icase && it->op == S_RANGE && (it->b > 0xFFFF || ifs_re_range_has_cased(uni, it->a, it->b)))
      return;
  }
  if (!has_cat) return;
  /* the literal prefix comes first: any leading uncased literal wins, but
  ** the first element here is a set, so there is none */
  put(e, "(?=");
  rset plain = {0}, none = {0};
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_LIT) ifs_rs_push(&plain, it->a, it->a);
    else if (it->op == S_RANGE) ifs_rs_push(&plain, it->a, it->b);
  }
  ifs_rs_normalize(&plain);
  if (plain.oom) e->err = IFS_NOMEM;
  else put_set_text(e, &plain, x, (gflags & F_UNICODE) != 0,
                    x->nset && x->set[0].op == S_NEGATE, &none);
  ifs_rs_free(&plain);
  put(e, ")");
}

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

ifs_status ifs_re_emit(parser *p, seq *root, uint32_t map_base, ifs_buf *out, ifs_buf *lead,
                int *prefixed) {
  emitter e = { p, out, map_base, 0, 2, 0 };   /* _code -> _compile: frame 2 */
  size_t before = out->len;
  emit_info_prefix(&e, root, p->flags);
  *prefixed = out->len != before;
  if (lead && !*prefixed) emit_lead(&e, root, p->flags, lead);
  emit_seq(&e, root, p->flags);
  return e.err;
}
