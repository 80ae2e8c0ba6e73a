/*
** ifs_re_parse.c — a Python pattern into its syntax tree, exactly as
** CPython 3.11's re/_parser.py parses it.
**
** Same grammar, same errors (every pattern Python rejects is IFS_INVALID),
** same tree rewrites: common-prefix factoring of alternations,
** alternations of characters turned into sets, non-capturing groups
** without flags unpacked.  The parser is a transcription of _parse_sub,
** _parse, _escape, _class_escape and _parse_flags over a tokenizer of code
** points; group state (numbers, names, widths for look-behinds and
** back-references) is re._parser.State's.  Python's own limits are
** reproduced as well: its recursion limit is a count of the frames
** Python would be using (frames_ok, PY_FRAME_BUDGET), so a pattern nested
** too deep is invalid here exactly when Python raises RecursionError.
** \N{NAME} looks the name up as unicodedata.lookup does
** (ifs_unicode_names.c, a table generated from Python).
**
** Entry points: ifs_re_parse (the pattern, as code points, into the tree
** of ifs_re_tree.h) and ifs_re_width (SubPattern.getwidth, which the
** later phases ask too).
*/
#include <string.h>
#include "ifs_re_tree.h"
#include "ifs_re_charset.h"
#include "ifs_text.h"
#include "ifs_unicode_names.h"

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

static void node_width(parser *p, node *x, uint64_t *lo, uint64_t *hi) {
  uint64_t i, j, l, h;
  switch (x->kind) {
  case N_BRANCH:
    i = MAXREPEAT - 1; j = 0;
    for (size_t k = 0; k < x->nalts; k++) {
      ifs_re_width(p, x->alts[k], &l, &h);
      if (l < i) i = l;
      if (h > j) j = h;
    }
    *lo = sat_add(*lo, i); *hi = sat_add(*hi, j);
    break;
  case N_ATOMIC: case N_SUB:
    ifs_re_width(p, x->a, &i, &j);
    *lo = sat_add(*lo, i); *hi = sat_add(*hi, j);
    break;
  case N_REPEAT:
    ifs_re_width(p, x->a, &i, &j);
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
    ifs_re_width(p, x->a, &i, &j);
    if (x->b) {
      ifs_re_width(p, x->b, &l, &h);
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

void ifs_re_width(parser *p, seq *q, uint64_t *plo, uint64_t *phi) {
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

static int get_until(parser *p, uint32_t term, uint32_t **out, size_t *outn);

/* \N{NAME}: unicodedata.lookup(NAME), which must be one character
** (ifs_unicode_names.h); a missing brace or name is an error as well. */
static int named_escape(parser *p, esc *out) {
  uint32_t *name;
  size_t n;
  if (!tk_match(p, '{')) { fail(p); return 0; }
  if (!get_until(p, '}', &name, &n)) return 0;
  if (ifs_uname_lookup(name, n, &out->v) != IFS_OK) { fail(p); return 0; }
  out->kind = E_LIT;
  return 1;
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
  return c < 127 ? (c == ' ' || (c >= '\t' && c <= '\r')) : ifs_isspace(c);
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
    int d = ifs_decimal_value(s[i]);
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
  if (ifs_re_py_isidentifier(name, nn)) {
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

/* What a group's opening said: whether it captures (by name when name is
** set) or is atomic, and the flags it sets and clears for its body. */
typedef struct group_head {
  int capture, atomic;
  uint32_t *name;
  size_t nn;
  uint32_t addf, delf;
} group_head;

/* "(?P" has been read: a named group's name ("(?P<name>", into g; 1) or a
** reference to a group ("(?P=name)", pushed; 0, as on an error). */
static int parse_named(parser *p, seq *sp, group_head *g) {
  if (tk_match(p, '<')) {
    if (!get_until(p, '>', &g->name, &g->nn)) return 0;
    if (!ifs_re_py_isidentifier(g->name, g->nn)) { fail(p); return 0; }
    return 1;
  }
  if (!tk_match(p, '=')) { fail(p); return 0; }
  uint32_t *name;
  size_t nn;
  if (!get_until(p, ')', &name, &nn)) return 0;
  if (!ifs_re_py_isidentifier(name, nn)) { fail(p); return 0; }
  int64_t gid = name_get(p, name, nn);
  if (gid < 0 || !check_group(p, (uint64_t)gid)) { fail(p); return 0; }
  if (!check_lookbehind_group(p, (uint64_t)gid)) return 0;
  node *x = node_new(p, N_GROUPREF);
  if (x) { x->c = (uint32_t)gid; seq_push(p, sp, x); }
  return 0;
}

/* "(?#" has been read: a comment, to the first ")". */
static void skip_comment(parser *p) {
  for (;;) {
    if (!p->has_next) { fail(p); return; }
    tok t = tk_get(p);
    if (p->err || is_plain(t, ')')) return;
  }
}

/* "(?=", "(?!" or "(?<" has been read (ch its last character): a lookahead
** or lookbehind assertion. */
static void parse_lookaround(parser *p, seq *sp, tok ch, int verbose, int nested) {
  int dir = 1;
  int64_t saved = p->lookbehindgroups;
  if (is_plain(ch, '<')) {
    ch = tk_get(p);
    if (p->err) return;
    if (!is_plain(ch, '=') && !is_plain(ch, '!')) { fail(p); return; }
    dir = -1;
    if (saved < 0) p->lookbehindgroups = p->ngroups;
  }
  seq *sub = parse_sub(p, verbose, nested + 1);
  if (p->err) return;
  if (dir < 0 && saved < 0) p->lookbehindgroups = -1;
  if (!tk_match(p, ')')) { fail(p); return; }
  node *x = node_new(p, N_ASSERT);
  if (!x) return;
  x->dir = (int8_t)dir;
  x->sub = is_plain(ch, '!');
  x->a = sub;
  seq_push(p, sp, x);
}

/* A group's body, to its ")", once its opening (g) has been read. */
static void parse_group_body(parser *p, seq *sp, int verbose, int nested, const group_head *g) {
  uint32_t gid = 0;
  if (g->capture) {
    gid = open_group(p, g->name, g->nn);
    if (!gid) return;
  }
  int sub_verbose = (verbose || (g->addf & F_VERBOSE)) && !(g->delf & F_VERBOSE);
  seq *sub = parse_sub(p, sub_verbose, nested + 1);
  if (p->err) return;
  if (!tk_match(p, ')')) { fail(p); return; }
  if (g->capture) {
    /* closegroup -> getwidth -> the children's getwidth (cached or not) */
    p->wdepth = p->wpeak = 0;
    ifs_re_width(p, sub, &p->gw[gid].lo, &p->gw[gid].hi);
    if (!frames_ok(p, 2 + p->wpeak)) return;
    p->gw[gid].closed = 1;
  }
  node *x = node_new(p, g->atomic ? N_ATOMIC : N_SUB);
  if (!x) return;
  x->c = gid;
  x->addf = g->addf;
  x->delf = g->delf;
  x->a = sub;
  seq_push(p, sp, x);
}

/* "(" has been read: a group, an extension, a comment or global flags
** (which set *verbose; only at the pattern's start). */
static void parse_group(parser *p, seq *sp, int *verbose, int nested, int first) {
  group_head g = {1, 0, NULL, 0, 0, 0};
  if (tk_match(p, '?')) {
    tok ch = tk_get(p);
    if (p->err) return;
    if (ch.none) { fail(p); return; }
    if (is_plain(ch, 'P')) {
      if (!parse_named(p, sp, &g)) return;
    } else if (is_plain(ch, ':')) {
      g.capture = 0;
    } else if (is_plain(ch, '#')) {
      skip_comment(p);
      return;
    } else if (is_plain(ch, '=') || is_plain(ch, '!') || is_plain(ch, '<')) {
      parse_lookaround(p, sp, ch, *verbose, nested);
      return;
    } else if (is_plain(ch, '(')) {
      node *x = parse_conditional(p, *verbose, nested);
      if (x) seq_push(p, sp, x);
      return;
    } else if (is_plain(ch, '>')) {
      g.capture = 0;
      g.atomic = 1;
    } else if (is_flag_char(ch) || is_plain(ch, '-')) {
      if (!frames_ok(p, 3)) return;   /* _parse_flags -> get -> __next */
      int r = parse_flags(p, ch, &g.addf, &g.delf);
      if (!r) return;
      if (r == 1) {   /* global flags */
        if (!first || seq_len(sp)) { fail(p); return; }
        *verbose = (p->flags & F_VERBOSE) != 0;
        return;
      }
      g.capture = 0;
    } else {
      fail(p);
      return;
    }
  }
  parse_group_body(p, sp, *verbose, nested, &g);
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
  ifs_re_width(p, sp, &lo, &hi);
  if (!frames_ok(p, 2 + p->wpeak)) return NULL;
  return sp;
}


seq *ifs_re_parse(parser *p, ifs_arena *arena, const uint32_t *s, size_t n) {
  memset(p, 0, sizeof *p);
  p->arena = arena;
  p->lookbehindgroups = -1;
  p->s = s;
  p->n = n;
  p->gw = palloc(p, 16 * sizeof *p->gw);   /* group 0: never closed */
  if (!p->gw) return NULL;
  p->gw_cap = 16;
  p->gw[0].closed = 0;
  p->ngroups = 1;
  return parse_pattern(p);
}
