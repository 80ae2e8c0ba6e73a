/*
** ifs_re_charset.c — code point sets, sre's character properties and its
** case folding.
**
** Python's re decides character tests with its own tables, which PCRE2
** does not share: \d is unicodedata.decimal, \s str.isspace, \w
** str.isalnum or '_'; under IGNORECASE sre compares lowercase (its own
** lower(), plus re._casefix's extra equivalents such as s/ſ and k/K), and
** a set's BMP literals and ranges go through a lowered charmap while its
** non-BMP items are tested as written (set_pred).  This file holds that
** knowledge, read from the generated tables (ifs_regex_tables.h, included
** here only), and turns it into explicit code point sets: the emitter
** writes them as PCRE2 classes, the NFA compiler hands them to the DFA.
**
** Entry points: ifs_re_node_set (what a one-character node matches),
** ifs_re_set_folded (an IN node under the pattern's flags),
** ifs_re_literal_class (a case-insensitive literal), the properties
** ifs_re_py_* and ifs_re_mode_*, and the set operations ifs_rs_*.
*/
#include <stdlib.h>
#include "ifs_re_charset.h"
#include "ifs_regex_tables.h"
#include "ifs_text.h"

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

int ifs_re_py_isidentifier(const uint32_t *s, size_t n) {
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
uint32_t ifs_re_mode_lower(int uni, uint32_t c) {
  return uni ? uni_lower(c) : ascii_lower(c);
}

int ifs_re_mode_iscased(int uni, uint32_t c) {
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
    r = uni ? ifs_decimal_value(c) >= 0 : (c >= '0' && c <= '9');
    return cat == C_DIGIT ? r : !r;
  case C_SPACE: case C_NOT_SPACE:
    r = uni ? ifs_isspace(c)
            : (c == ' ' || (c >= '\t' && c <= '\r'));
    return cat == C_SPACE ? r : !r;
  default:
    r = cat_word(uni, c) == 1;
    return cat == C_WORD ? r : !r;
  }
}


/* ------------------------------------------------------------------ */
/* Category tables                                                     */

static const uint32_t ascii_digit[][2] = { {0x30, 0x39} };
static const uint32_t ascii_word[][2] = { {0x30, 0x39}, {0x41, 0x5A}, {0x5F, 0x5F}, {0x61, 0x7A} };
static const uint32_t ascii_space[][2] = { {0x09, 0x0D}, {0x20, 0x20} };

void ifs_re_cat_table(int cat, int uni, const uint32_t (**t)[2], size_t *n) {
  switch (cat) {
  case C_DIGIT: case C_NOT_DIGIT:
    if (uni) { *t = ifs_re_digit; *n = NELEM(ifs_re_digit); }
    else { *t = ascii_digit; *n = NELEM(ascii_digit); }
    break;
  case C_SPACE: case C_NOT_SPACE:
    if (uni) ifs_space_table(t, n);
    else { *t = ascii_space; *n = NELEM(ascii_space); }
    break;
  default:
    if (uni) { *t = ifs_re_word; *n = NELEM(ifs_re_word); }
    else { *t = ascii_word; *n = NELEM(ascii_word); }
    break;
  }
}

/* ------------------------------------------------------------------ */
/* Sets of code point ranges                                           */

void ifs_rs_free(rset *s) { ifs_free(s->r); s->r = NULL; s->n = s->cap = 0; }

void ifs_rs_push(rset *s, uint32_t lo, uint32_t hi) {
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
void ifs_rs_normalize(rset *s) {
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

int ifs_rs_has(const rset *s, uint32_t c) {
  return in_ranges((const uint32_t (*)[2])s->r, s->n, c);
}

/* s minus d (both normalized), in one sweep. */
void ifs_rs_subtract(rset *s, const rset *d) {
  rset out = {0};
  size_t j = 0;
  for (size_t i = 0; i < s->n; i++) {
    uint32_t lo = s->r[i][0], hi = s->r[i][1];
    while (j < d->n && d->r[j][1] < lo) j++;
    size_t k = j;
    while (k < d->n && d->r[k][0] <= hi) {
      if (d->r[k][0] > lo) ifs_rs_push(&out, lo, d->r[k][0] - 1);
      if (d->r[k][1] >= hi) { lo = 1; hi = 0; break; }
      lo = d->r[k][1] + 1;
      k++;
    }
    if (lo <= hi) ifs_rs_push(&out, lo, hi);
  }
  if (out.oom || s->oom) { ifs_rs_free(&out); s->oom = 1; return; }
  ifs_rs_free(s);
  *s = out;
}

/* s becomes its complement in [0, 0x10FFFF]. */
void ifs_rs_complement(rset *s) {
  ifs_rs_normalize(s);
  rset out = {0};
  uint32_t next = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (s->r[i][0] > next) ifs_rs_push(&out, next, s->r[i][0] - 1);
    next = s->r[i][1] + 1;
  }
  if (next <= 0x10FFFF) ifs_rs_push(&out, next, 0x10FFFF);
  if (out.oom || s->oom) { ifs_rs_free(&out); s->oom = 1; return; }
  ifs_rs_free(s);
  *s = out;
}

static void rs_push_table(rset *s, const uint32_t (*t)[2], size_t n, int complement) {
  rset tmp = {0};
  for (size_t i = 0; i < n; i++) ifs_rs_push(&tmp, t[i][0], t[i][1]);
  if (complement) ifs_rs_complement(&tmp);
  for (size_t i = 0; i < tmp.n; i++) ifs_rs_push(s, tmp.r[i][0], tmp.r[i][1]);
  if (tmp.oom) s->oom = 1;
  ifs_rs_free(&tmp);
}

/* ------------------------------------------------------------------ */
/* sre's case-insensitive sets and literals                           */

/* Does sre's charmap for this set hold y?  (The BMP part of literals and
** ranges, lowered, plus sre's extra equivalents.) */
static int charmap_has1(const rset *plain, int uni, uint32_t y) {
  /* Some c in the BMP part of the set with lower(c) == y. */
  const ifs_re_case_ent *ye = uni ? case_ent(y) : NULL;
  if (uni) {
    if ((!ye || ye->lower == y) && y < 0x10000 && ifs_rs_has(plain, y)) return 1;
    /* the cased points whose lowercase is y */
    size_t lo = 0, hi = NELEM(ifs_re_case_by_lower);
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (ifs_re_case[ifs_re_case_by_lower[mid]].lower < y) lo = mid + 1; else hi = mid;
    }
    for (; lo < NELEM(ifs_re_case_by_lower); lo++) {
      const ifs_re_case_ent *c = &ifs_re_case[ifs_re_case_by_lower[lo]];
      if (c->lower != y) break;
      if (c->cp < 0x10000 && ifs_rs_has(plain, c->cp)) return 1;
    }
    return 0;
  }
  if (y >= 'A' && y <= 'Z') return 0;   /* no ASCII lowercase is upper */
  if (y < 0x10000 && ifs_rs_has(plain, y)) return 1;
  return y >= 'a' && y <= 'z' && ifs_rs_has(plain, y - 32);
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
  uint32_t y = lowered ? ifs_re_mode_lower(uni, ch) : ch;
  if (lowered ? charmap_has(plain, uni, y) : (y < 0x10000 && ifs_rs_has(plain, y))) return 1;
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

int ifs_re_range_has_cased(int uni, uint32_t a, uint32_t b) {
  if (!uni) return ascii_iscased(a) || ascii_iscased(b) || (a <= 'Z' && b >= 'A') ||
                   (a <= 'z' && b >= 'a');
  size_t lo = 0, hi = NELEM(ifs_re_case);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ifs_re_case[mid].cp < a) lo = mid + 1; else hi = mid;
  }
  return lo < NELEM(ifs_re_case) && ifs_re_case[lo].cp <= b;
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
  ifs_rs_push(out, y, y);
  add_preimages_only(uni, y, out);
}

/* Adds the characters other than y whose lowercase is y. */
static void add_preimages_only(int uni, uint32_t y, rset *out) {
  if (!uni) {
    if (y >= 'a' && y <= 'z') ifs_rs_push(out, y - 32, y - 32);
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
    if (ce->cp != y) ifs_rs_push(out, ce->cp, ce->cp);
  }
}

/* Every character case-related to a cased member of the (BMP) set: the
** members, and all that lower to a member's lowercase or its extras. */
static void related_cased(const rset *plain, int uni, rset *out) {
  for (size_t i = 0; i < plain->n; i++) {
    for (size_t k = case_lower_bound(plain->r[i][0]);
         k < NELEM(ifs_re_case) && ifs_re_case[k].cp <= plain->r[i][1]; k++) {
      uint32_t c = ifs_re_case[k].cp, l = ifs_re_mode_lower(uni, c), fx[2];
      ifs_rs_push(out, c, c);
      add_preimages(uni, l, out);
      int nf = uni ? case_fixes(l, fx) : 0;
      for (int j = 0; j < nf; j++) add_preimages(uni, fx[j], out);
    }
  }
  ifs_rs_normalize(out);
}

/* Whether _optimize_charset builds a bitmap (more than two runs in its
** BMP character map, lowered under IGNORECASE) — that costs Python frames. */
int ifs_re_set_needs_bitmap(const node *x, uint32_t flags) {
  int uni = (flags & F_UNICODE) != 0, icase = (flags & F_IGNORECASE) != 0;
  rset orig = {0}, low = {0};
  int r = 0;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if ((it->op == S_LIT || it->op == S_RANGE) && it->a < 0x10000) {
      uint32_t b = it->op == S_LIT ? it->a : it->b;
      ifs_rs_push(&orig, it->a, b < 0x10000 ? b : 0xFFFF);
      ifs_rs_push(&low, it->a, b < 0x10000 ? b : 0xFFFF);
    }
  }
  ifs_rs_normalize(&orig);
  ifs_rs_normalize(&low);
  if (icase) {
    rset gone = {0}, added = {0};   /* cased members lowered */
    for (size_t i = 0; i < orig.n; i++)
      for (size_t k = case_lower_bound(orig.r[i][0]);
           k < NELEM(ifs_re_case) && ifs_re_case[k].cp <= orig.r[i][1]; k++) {
        uint32_t c = ifs_re_case[k].cp, l = ifs_re_mode_lower(uni, c);
        if (l == c) continue;
        ifs_rs_push(&gone, c, c);
        ifs_rs_push(&added, l, l);
      }
    ifs_rs_normalize(&gone);
    ifs_rs_subtract(&low, &gone);
    for (size_t k = 0; k < added.n; k++) ifs_rs_push(&low, added.r[k][0], added.r[k][1]);
    if (gone.oom || added.oom) low.oom = 1;
    ifs_rs_free(&gone);
    ifs_rs_free(&added);
    ifs_rs_normalize(&low);
    for (size_t k = 0; uni && k < NELEM(ifs_re_fixes); k++)
      if (ifs_rs_has(&low, ifs_re_fixes[k][0])) {
        ifs_rs_push(&low, ifs_re_fixes[k][1], ifs_re_fixes[k][1]);
        if (ifs_re_fixes[k][2]) ifs_rs_push(&low, ifs_re_fixes[k][2], ifs_re_fixes[k][2]);
      }
    ifs_rs_normalize(&low);
  }
  r = low.n > 2;
  ifs_rs_free(&orig);
  ifs_rs_free(&low);
  return r;
}

/* The code points of an IN node under the given flags (see the header). */
void ifs_re_set_folded(const node *x, uint32_t flags, rset *out_plain, rset *out_exclude) {
  int uni = (flags & F_UNICODE) != 0, icase = (flags & F_IGNORECASE) != 0;
  rset plain = {0}, exclude = {0};
  int hascased = 0;
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    if (it->op == S_LIT) {
      ifs_rs_push(&plain, it->a, it->a);
      if (icase && (it->a >= 0x10000 || ifs_re_mode_iscased(uni, it->a))) hascased = 1;
    } else if (it->op == S_RANGE) {
      ifs_rs_push(&plain, it->a, it->b);
      if (icase && (it->b >= 0x10000 || ifs_re_range_has_cased(uni, it->a, it->b))) hascased = 1;
    }
  }
  ifs_rs_normalize(&plain);
  if (hascased && !plain.oom) {
    /* Only cased points can answer differently from the plain set, and
    ** (categories being stable under lowercase) only those related to a
    ** cased member, unless a non-BMP item brings sre's upper() in. */
    rset cand = {0}, add = {0}, drop = {0};
    int nonbmp = 0;
    for (size_t i = 0; i < x->nset; i++)
      if ((x->set[i].op == S_LIT && x->set[i].a >= 0x10000) ||
          (x->set[i].op == S_RANGE && x->set[i].b >= 0x10000)) nonbmp = 1;
    if (nonbmp) ifs_rs_push(&cand, 0, 0x10FFFF);
    else related_cased(&plain, uni, &cand);
    for (size_t k = 0; k < NELEM(ifs_re_case); k++) {
      uint32_t c = ifs_re_case[k].cp;
      if (!ifs_rs_has(&cand, c)) continue;
      int want = set_pred(x, &plain, uni, 1, c);
      int have = set_pred(x, &plain, uni, 0, c);
      if (want == have) continue;
      if (want) { ifs_rs_push(&add, c, c); continue; }
      int in_cat = 0;
      for (size_t i = 0; i < x->nset; i++)
        if (x->set[i].op == S_CAT && cat_test(uni, (int)x->set[i].a, c)) in_cat = 1;
      ifs_rs_push(in_cat ? &exclude : &drop, c, c);
    }
    ifs_rs_normalize(&drop);
    ifs_rs_subtract(&plain, &drop);
    for (size_t i = 0; i < add.n; i++) ifs_rs_push(&plain, add.r[i][0], add.r[i][1]);
    if (add.oom || drop.oom) plain.oom = 1;
    if (cand.oom) plain.oom = 1;
    ifs_rs_free(&cand);
    ifs_rs_free(&add);
    ifs_rs_free(&drop);
    ifs_rs_normalize(&plain);
  }
  *out_plain = plain;
  *out_exclude = exclude;
}

/* The characters a case-insensitive literal c matches: {x : lower(x) in F}
** with F = {lower(c)} plus sre's extra equivalents. */
void ifs_re_literal_class(int uni, uint32_t c, rset *out) {
  uint32_t f[3];
  int nf = 1;
  f[0] = ifs_re_mode_lower(uni, c);
  if (uni) nf += case_fixes(f[0], f + 1);
  for (int i = 0; i < nf; i++) {
    /* f[i] itself only when nothing maps it further (it is lowercase) */
    if (ifs_re_mode_lower(uni, f[i]) == f[i]) add_preimages(uni, f[i], out);
    else add_preimages_only(uni, f[i], out);
  }
  ifs_rs_normalize(out);
}

/* A case-insensitive literal that PCRE2's caseless matching gets exactly
** right (all but a handful: i, İ, ı, ΐ, ΰ, ...; k and s in ASCII mode). */
int ifs_re_pcre2_caseless_ok(uint32_t flags, uint32_t c) {
  if (!(flags & F_IGNORECASE)) return 0;
  const ifs_re_case_ent *ce = case_ent(c);
  if (!ce) return 0;
  if (flags & F_UNICODE) return (ce->flags & 2) != 0;
  return c < 0x80 && (ce->flags & 4) != 0;
}

/* The categories of an IN node, added to s. */
static void push_categories(const node *x, int uni, rset *s) {
  for (size_t i = 0; i < x->nset; i++) {
    const setitem *it = &x->set[i];
    int cat = (int)it->a, neg = cat == C_NOT_DIGIT || cat == C_NOT_SPACE || cat == C_NOT_WORD;
    if (it->op != S_CAT) continue;
    const uint32_t (*t)[2];
    size_t n;
    ifs_re_cat_table(cat, uni, &t, &n);
    rs_push_table(s, t, n, neg);
  }
}

/* The code points a one-character node matches under `flags`.  Under
** IGNORECASE these are exactly what the PCRE2 translation matches: a
** cased literal is ifs_re_literal_class, a set ifs_re_set_folded's
** points and its categories less its exclusions. */
void ifs_re_node_set(const node *x, uint32_t flags, rset *s) {
  int uni = (flags & F_UNICODE) != 0, icase = (flags & F_IGNORECASE) != 0;
  switch (x->kind) {
  case N_LIT: case N_NOTLIT:
    if (icase && ifs_re_mode_iscased(uni, x->c)) ifs_re_literal_class(uni, x->c, s);
    else ifs_rs_push(s, x->c, x->c);
    if (x->kind == N_NOTLIT) ifs_rs_complement(s);
    break;
  case N_ANY:
    if (flags & F_DOTALL) ifs_rs_push(s, 0, 0x10FFFF);
    else { ifs_rs_push(s, '\n', '\n'); ifs_rs_complement(s); }
    break;
  default: {   /* N_IN */
    int negate = x->nset && x->set[0].op == S_NEGATE;
    rset plain = {0}, exclude = {0};
    if (icase) {
      ifs_re_set_folded(x, flags, &plain, &exclude);
    } else {
      for (size_t i = 0; i < x->nset; i++) {
        const setitem *it = &x->set[i];
        if (it->op == S_LIT) ifs_rs_push(&plain, it->a, it->a);
        else if (it->op == S_RANGE) ifs_rs_push(&plain, it->a, it->b);
      }
    }
    for (size_t i = 0; i < plain.n; i++) ifs_rs_push(s, plain.r[i][0], plain.r[i][1]);
    push_categories(x, uni, s);
    ifs_rs_normalize(s);
    ifs_rs_normalize(&exclude);
    ifs_rs_subtract(s, &exclude);
    if (plain.oom || exclude.oom) s->oom = 1;
    ifs_rs_free(&plain);
    ifs_rs_free(&exclude);
    if (negate) ifs_rs_complement(s);
  }
  }
  ifs_rs_normalize(s);
}
