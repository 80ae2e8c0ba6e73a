/*
** ifs_json.c — a JSON reader with CPython 3.11 json.loads rules (see
** ifs_json.h).
**
** One iterative state machine serves both entry points: ifs_json_valid()
** only scans (nesting kept as a bit stack, no allocation below 4096
** levels), ifs_json_parse() also builds values in the caller's arena,
** keeping pending children on a stack (in the arena too) until their
** container closes.  ifs_json_parse_known() also asks its caller, at each
** array that is a value of the top-level object, whether it knows that
** array's text, and takes one it knows as it is, unread.
** Nothing recurses, so nesting depth is limited by memory only.
** Apart from the machine, ifs_json_scan_flat() reads only the simplest
** objects (a constraints text of lists and an id), without building values.
*/
#include "ifs_json.h"
#include "ifs_simd.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT_DIGIT_LIMIT 4300   /* CPython's default int_max_str_digits */
#define SMALL_OBJECT 16        /* objects up to this many pairs dedupe in O(n^2) */
#define FLOAT_KEEP_DIGITS 800  /* > 767 significant digits decide any rounding */

/* ---- the nesting bit stack: bit 1 = object, 0 = array ---- */

typedef struct kind_stack {
  uint64_t local[64];
  uint64_t *bits;
  size_t cap_bits;
  size_t depth;
} kind_stack;

static void kinds_init(kind_stack *k) {
  k->bits = k->local;
  k->cap_bits = sizeof k->local * 8;
  k->depth = 0;
}

static void kinds_free(kind_stack *k) {
  if (k->bits != k->local) ifs_free(k->bits);
}

static ifs_status kinds_push(kind_stack *k, int is_obj) {
  if (k->depth == k->cap_bits) {
    size_t words = k->cap_bits / 64;
    if (words > SIZE_MAX / 16) return IFS_NOMEM;
    uint64_t *nb;
    if (k->bits == k->local) {
      nb = ifs_malloc(words * 2 * sizeof *nb);
      if (nb) memcpy(nb, k->local, sizeof k->local);
    } else {
      nb = ifs_realloc(k->bits, words * 2 * sizeof *nb);
    }
    if (!nb) return IFS_NOMEM;
    k->bits = nb;
    k->cap_bits *= 2;
  }
  uint64_t mask = (uint64_t)1 << (k->depth % 64);
  if (is_obj) k->bits[k->depth / 64] |= mask;
  else k->bits[k->depth / 64] &= ~mask;
  k->depth++;
  return IFS_OK;
}

static int kinds_top_is_obj(const kind_stack *k) {
  size_t d = k->depth - 1;
  return (int)((k->bits[d / 64] >> (d % 64)) & 1);
}

/* ---- the parser state ---- */

typedef struct jparser {
  const unsigned char *s;
  size_t n, i;
  ifs_arena *a;          /* NULL: validate only */
  kind_stack kinds;
  ifs_jval **vals;       /* finished values waiting for their container */
  size_t nvals, capvals;
  size_t *bases;         /* per open container: its first index in vals */
  size_t nbases, capbases;
  ifs_jval *vals_local[32];   /* the stacks' first rooms: a constraints text */
  size_t bases_local[8];      /* needs no more */
  ifs_jval *lit[3];      /* shared null/false/true nodes of this parse */
  size_t list_at;        /* the '[' of the open array at depth 2 */
  ifs_json_known_fn known;
  void *known_arg;
} jparser;

/* Doubles a stack of the parse (only parsing builds stacks).  They start in
** the parser and move to the caller's arena, as the values are, when they
** outgrow it: a constraints text is parsed per row when its plan is not
** cached, and allocating its stacks was a large part of its cost.  An
** outgrown array stays in the arena until it is reset. */
static ifs_status grow(jparser *p, void **stack, size_t *cap, size_t used, size_t elem) {
  size_t nc = *cap ? *cap * 2 : 32;
  if (nc > SIZE_MAX / 2 / elem) return IFS_NOMEM;
  void *np = ifs_arena_alloc(p->a, nc * elem);
  if (!np) return IFS_NOMEM;
  if (used) memcpy(np, *stack, used * elem);
  *stack = np;
  *cap = nc;
  return IFS_OK;
}

static ifs_status push_val(jparser *p, ifs_jval *v) {
  if (p->nvals == p->capvals &&
      grow(p, (void **)&p->vals, &p->capvals, p->nvals, sizeof *p->vals))
    return IFS_NOMEM;
  p->vals[p->nvals++] = v;
  return IFS_OK;
}

static ifs_jval *new_node(jparser *p, ifs_jtype t) {
  ifs_jval *v = ifs_arena_alloc(p->a, sizeof *v);
  if (v) {
    v->type = t;
    v->known = 0;
    v->str = NULL;
    v->len = v->count = 0;
    v->num = 0;
    v->items = v->keys = NULL;
  }
  return v;
}

/* ---- lexical scanning, shared by both modes ---- */

static void skip_ws(jparser *p) {
  while (p->i < p->n) {
    unsigned char c = p->s[p->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->i++;
  }
}

/* Each byte's value as a hex digit, plus one (0: not a digit).  A table,
** not comparisons: Python's json.dumps escapes every character past ASCII
** as \uXXXX, and a branch on whether each digit is a letter is a coin
** toss. */
static const unsigned char hex_plus_one[256] = {
  ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
  ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
  ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int hex_value(unsigned char c) { return hex_plus_one[c] - 1; }

/* The index of the first '"', '\\' or control character in s[i..n), or n:
** sixteen bytes at a time with vectors (most strings of a constraints text
** end within the first sixteen, one predictable step), then eight at a
** time where words are little-endian, then bytes. */
static size_t plain_run(const unsigned char *s, size_t n, size_t i) {
#if IFS_V16
  const ifs_v16 quote = ifs_v16_splat('"'), backslash = ifs_v16_splat('\\'),
                high3 = ifs_v16_splat(0xE0), zero = ifs_v16_splat(0);
  for (; i + 16 <= n; i += 16) {
    ifs_v16 x = ifs_v16_load(s + i);
    /* a control character is one whose top three bits are clear */
    ifs_v16 hit = ifs_v16_or(ifs_v16_or(ifs_v16_eq(x, quote), ifs_v16_eq(x, backslash)),
                             ifs_v16_eq(ifs_v16_and(x, high3), zero));
    uint64_t m = ifs_v16_bits(hit);
    if (m) return i + ifs_v16_first(m);
  }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    /* a byte is flagged when it is zero in q or b, or below 0x20 in w */
    uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
    hit &= highs;
    if (hit) return i + (size_t)__builtin_ctzll(hit) / 8;
  }
#endif
  while (i < n && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20) i++;
  return i;
}

/* Scans the string literal whose '"' is at s[i]: *end is just past the
** closing quote, *has_esc tells whether any backslash occurs. */
static ifs_status scan_string(const unsigned char *s, size_t n, size_t i,
                              size_t *end, int *has_esc) {
  i++;
  for (;;) {
    i = plain_run(s, n, i);
    if (i >= n || s[i] < 0x20) return IFS_INVALID;
    if (s[i] == '"') break;
    *has_esc = 1;
    if (++i >= n) return IFS_INVALID;
    unsigned char c = s[i];
    if (c == 'u') {
      if (n - i <= 4) return IFS_INVALID;
      if ((hex_value(s[i + 1]) | hex_value(s[i + 2]) | hex_value(s[i + 3]) |
           hex_value(s[i + 4])) < 0)
        return IFS_INVALID;
      i += 5;
    } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' ||
               c == 'n' || c == 'r' || c == 't') {
      i++;
    } else {
      return IFS_INVALID;
    }
  }
  *end = i + 1;
  return IFS_OK;
}

static uint32_t hex4(const unsigned char *s) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) v = v << 4 | (uint32_t)hex_value(s[k]);
  return v;
}


/* Decodes the already validated body s[0..n) (between the quotes) into
** out, which has room for n bytes: no escape grows the text.  A high
** surrogate escape directly followed by a low one joins, as CPython does. */
static size_t decode_string(const unsigned char *s, size_t n, unsigned char *out) {
  size_t i = 0, o = 0;
  while (i < n) {
    if (s[i] != '\\') {   /* the run up to the next escape, at once */
      const unsigned char *esc = memchr(s + i, '\\', n - i);
      size_t run = esc ? (size_t)(esc - s) - i : n - i;
      memcpy(out + o, s + i, run);
      o += run;
      i += run;
      continue;
    }
    unsigned char c = s[i + 1];
    i += 2;
    switch (c) {
      case 'b': out[o++] = '\b'; break;
      case 'f': out[o++] = '\f'; break;
      case 'n': out[o++] = '\n'; break;
      case 'r': out[o++] = '\r'; break;
      case 't': out[o++] = '\t'; break;
      case 'u': {
        uint32_t cp = hex4(s + i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && n - i >= 6 && s[i] == '\\' &&
            s[i + 1] == 'u') {
          uint32_t lo = hex4(s + i + 2);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        o += ifs_utf8_put(out + o, cp);
        break;
      }
      default: out[o++] = c; break;   /* " \ / */
    }
  }
  return o;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Scans the number at s[i] ('-' or a digit) the way CPython's scanner
** does; an integer literal of more than 4300 digits is invalid. */
static ifs_status scan_number(const unsigned char *s, size_t n, size_t i,
                              size_t *end, int *is_float) {
  size_t digits_at = i + (s[i] == '-');
  i = digits_at;
  if (i >= n) return IFS_INVALID;
  if (s[i] == '0') i++;
  else if (s[i] >= '1' && s[i] <= '9') { while (i < n && is_digit(s[i])) i++; }
  else return IFS_INVALID;
  size_t int_digits = i - digits_at;
  *is_float = 0;
  if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
    i += 2;
    while (i < n && is_digit(s[i])) i++;
    *is_float = 1;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (j < n && is_digit(s[j])) {
      while (j < n && is_digit(s[j])) j++;
      i = j;
      *is_float = 1;
    }
  }
  if (!*is_float && int_digits > INT_DIGIT_LIMIT) return IFS_INVALID;
  *end = i;
  return IFS_OK;
}

/* float(text) for a scanned float literal.  strtod gets a radix-free form
** ("123e-2", locale independent) with at most FLOAT_KEEP_DIGITS significant
** digits plus a sticky '1' standing for any nonzero digits dropped, which
** keeps the rounding exact. */
static double float_value(const unsigned char *s, size_t start, size_t end) {
  char buf[FLOAT_KEEP_DIGITS + 48];
  size_t o = 0, i = start, kept = 0, total = 0;
  long long frac_digits = 0, exp10 = 0;
  int sticky = 0, in_frac = 0;
  if (s[i] == '-') buf[o++] = s[i++];
  for (; i < end && s[i] != 'e' && s[i] != 'E'; i++) {
    if (s[i] == '.') { in_frac = 1; continue; }
    if (in_frac) frac_digits++;
    if (total == 0 && s[i] == '0') continue;   /* leading zero */
    total++;
    if (kept < FLOAT_KEEP_DIGITS) { buf[o++] = (char)s[i]; kept++; }
    else if (s[i] != '0') sticky = 1;
  }
  if (i < end) {
    int neg = 0;
    i++;
    if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
    for (; i < end; i++)
      if (exp10 < 100000000000000000LL) exp10 = exp10 * 10 + (s[i] - '0');
    if (neg) exp10 = -exp10;
  }
  if (kept == 0) buf[o++] = '0';
  exp10 += (long long)(total - kept) - frac_digits;
  if (sticky) { buf[o++] = '1'; exp10--; }
  /* the exponent (at most 20 characters) fits in the 48 spare bytes */
  snprintf(buf + o, sizeof buf - o, "e%lld", exp10);
  return strtod(buf, NULL);
}

static int match_word(jparser *p, const char *w) {
  size_t len = strlen(w);
  if (p->n - p->i < len || memcmp(p->s + p->i, w, len) != 0) return 0;
  p->i += len;
  return 1;
}

/* ---- building values (parse mode only) ---- */

static ifs_status emit_literal(jparser *p, ifs_jtype t) {
  if (!p->a) return IFS_OK;
  if (!p->lit[t] && !(p->lit[t] = new_node(p, t))) return IFS_NOMEM;
  return push_val(p, p->lit[t]);
}

static ifs_status emit_float(jparser *p, double d) {
  if (!p->a) return IFS_OK;
  ifs_jval *v = new_node(p, IFS_JFLOAT);
  if (!v) return IFS_NOMEM;
  v->num = d;
  return push_val(p, v);
}

static ifs_status emit_string(jparser *p, size_t start, size_t end, int has_esc) {
  if (!p->a) return IFS_OK;
  ifs_jval *v = new_node(p, IFS_JSTR);
  if (!v) return IFS_NOMEM;
  const unsigned char *body = p->s + start + 1;
  size_t blen = end - start - 2;
  if (!has_esc) {
    v->str = (const char *)body;
    v->len = blen;
  } else {
    unsigned char *out = ifs_arena_alloc(p->a, blen);
    if (!out) return IFS_NOMEM;
    v->str = (const char *)out;
    v->len = decode_string(body, blen, out);
  }
  return push_val(p, v);
}

static int key_cmp(const ifs_jval *x, const ifs_jval *y) {
  size_t m = x->len < y->len ? x->len : y->len;
  int c = m ? memcmp(x->str, y->str, m) : 0;
  if (c) return c;
  return (x->len > y->len) - (x->len < y->len);
}

static int key_eq(const ifs_jval *x, const ifs_jval *y) {
  return x->len == y->len && (x->len == 0 || memcmp(x->str, y->str, x->len) == 0);
}

/* Stable bottom-up merge sort of pair indices by key (guaranteed
** O(m log m) whatever the keys, unlike a hash table under collisions). */
static void sort_pairs(ifs_jval **kv, size_t *idx, size_t *tmp, size_t m) {
  for (size_t w = 1; w < m; w *= 2) {
    for (size_t lo = 0; lo < m; lo += 2 * w) {
      size_t mid = lo + w < m ? lo + w : m;
      size_t hi = lo + 2 * w < m ? lo + 2 * w : m;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi)
        tmp[o++] = key_cmp(kv[2 * idx[b]], kv[2 * idx[a]]) < 0 ? idx[b++] : idx[a++];
      while (a < mid) tmp[o++] = idx[a++];
      while (b < hi) tmp[o++] = idx[b++];
    }
    memcpy(idx, tmp, m * sizeof *idx);
  }
}

/* Fills obj from m key/value pairs kv[0..2m): each key once, where it first
** occurs, with the value of its last occurrence (what dict() does). */
static ifs_status fill_object(ifs_jval *obj, ifs_jval **kv, size_t m) {
  size_t count = 0;
  if (m <= SMALL_OBJECT) {
    for (size_t k = 0; k < m; k++) {
      size_t j = 0;
      while (j < count && !key_eq(obj->keys[j], kv[2 * k])) j++;
      if (j == count) obj->keys[count++] = kv[2 * k];
      obj->items[j] = kv[2 * k + 1];
    }
    obj->count = count;
    return IFS_OK;
  }
  size_t *idx = ifs_malloc(2 * m * sizeof *idx);
  if (!idx) return IFS_NOMEM;
  size_t *tmp = idx + m;
  for (size_t k = 0; k < m; k++) idx[k] = k;
  sort_pairs(kv, idx, tmp, m);
  /* tmp[k] becomes the pair whose value key k keeps, or SIZE_MAX */
  for (size_t k = 0; k < m; k++) tmp[k] = SIZE_MAX;
  for (size_t g = 0; g < m;) {
    size_t h = g + 1;
    while (h < m && key_eq(kv[2 * idx[g]], kv[2 * idx[h]])) h++;
    tmp[idx[g]] = idx[h - 1];    /* stable: first and last occurrence */
    g = h;
  }
  for (size_t k = 0; k < m; k++) {
    if (tmp[k] == SIZE_MAX) continue;
    obj->keys[count] = kv[2 * k];
    obj->items[count++] = kv[2 * tmp[k] + 1];
  }
  obj->count = count;
  ifs_free(idx);
  return IFS_OK;
}

/* A top-level object's value, the nesting a caller's lists are at. */
static int at_top_value(const jparser *p) {
  return p->kinds.depth == 1 && kinds_top_is_obj(&p->kinds);
}

static ifs_status open_container(jparser *p, int is_obj) {
  if (p->known && !is_obj && at_top_value(p)) p->list_at = p->i - 1;
  if (kinds_push(&p->kinds, is_obj)) return IFS_NOMEM;
  if (!p->a) return IFS_OK;
  if (p->nbases == p->capbases &&
      grow(p, (void **)&p->bases, &p->capbases, p->nbases, sizeof *p->bases))
    return IFS_NOMEM;
  p->bases[p->nbases++] = p->nvals;
  return IFS_OK;
}

static ifs_status close_container(jparser *p) {
  int is_obj = kinds_top_is_obj(&p->kinds);
  p->kinds.depth--;
  if (!p->a) return IFS_OK;
  size_t base = p->bases[--p->nbases];
  size_t cnt = p->nvals - base;
  ifs_jval *v = new_node(p, is_obj ? IFS_JOBJ : IFS_JARR);
  if (!v) return IFS_NOMEM;
  /* an empty container has no children to copy */
  ifs_jval **kids = cnt ? p->vals + base : NULL;
  if (!is_obj) {
    if (cnt) {
      v->items = ifs_arena_alloc(p->a, cnt * sizeof *v->items);
      if (!v->items) return IFS_NOMEM;
      memcpy(v->items, kids, cnt * sizeof *v->items);
    }
    v->count = cnt;
    if (p->known && at_top_value(p)) {
      v->str = (const char *)p->s + p->list_at;
      v->len = p->i - p->list_at;
    }
  } else if (cnt) {
    size_t m = cnt / 2;
    v->keys = ifs_arena_alloc(p->a, m * sizeof *v->keys);
    v->items = ifs_arena_alloc(p->a, m * sizeof *v->items);
    if (!v->keys || !v->items) return IFS_NOMEM;
    if (fill_object(v, kids, m)) return IFS_NOMEM;
  }
  p->nvals = base;
  return push_val(p, v);
}

/* ---- the state machine ---- */

/* An array the caller knows at s[i] (a top-level object's value), taken
** whole (*taken = 1). */
static ifs_status take_known(jparser *p, int *taken) {
  *taken = 0;
  if (!p->a || !at_top_value(p)) return IFS_OK;
  const ifs_jval *key = p->vals[p->nvals - 1];
  size_t len = p->known(p->known_arg, key->str, key->len, (const char *)p->s + p->i,
                        p->n - p->i);
  if (len == 0) return IFS_OK;
  ifs_jval *v = new_node(p, IFS_JARR);
  if (!v) return IFS_NOMEM;
  v->known = 1;
  v->str = (const char *)p->s + p->i;
  v->len = len;
  p->i += len;
  *taken = 1;
  return push_val(p, v);
}

/* A scalar at s[i] (i < n), emitted. */
static ifs_status read_scalar(jparser *p) {
  const unsigned char *s = p->s;
  size_t start = p->i, end;
  unsigned char c = s[start];
  ifs_status rc;
  int flag = 0;
  if (c == '"') {
    if ((rc = scan_string(s, p->n, start, &end, &flag))) return rc;
    p->i = end;
    return emit_string(p, start, end, flag);
  }
  if (c == '-' || is_digit(c)) {
    if (c == '-' && p->n - start > 1 && s[start + 1] == 'I') {
      p->i++;
      return match_word(p, "Infinity") ? emit_float(p, -HUGE_VAL) : IFS_INVALID;
    }
    if ((rc = scan_number(s, p->n, start, &end, &flag))) return rc;
    p->i = end;
    if (!p->a) return IFS_OK;
    if (flag) return emit_float(p, float_value(s, start, end));
    ifs_jval *v = new_node(p, IFS_JINT);
    if (!v) return IFS_NOMEM;
    v->str = (const char *)s + start;
    v->len = end - start;
    return push_val(p, v);
  }
  if (match_word(p, "null")) return emit_literal(p, IFS_JNULL);
  if (match_word(p, "true")) return emit_literal(p, IFS_JTRUE);
  if (match_word(p, "false")) return emit_literal(p, IFS_JFALSE);
  if (match_word(p, "NaN")) return emit_float(p, NAN);
  if (match_word(p, "Infinity")) return emit_float(p, HUGE_VAL);
  return IFS_INVALID;
}

/* An object key and its ':' (leading whitespace already skipped). */
static ifs_status read_key(jparser *p) {
  if (p->i >= p->n || p->s[p->i] != '"') return IFS_INVALID;
  ifs_status rc = read_scalar(p);
  if (rc) return rc;
  skip_ws(p);
  if (p->i >= p->n || p->s[p->i] != ':') return IFS_INVALID;
  p->i++;
  return IFS_OK;
}

/* After a value: closes containers, consumes ',' and keys.  *want_value is
** set when another value must follow, cleared at the end of the input. */
static ifs_status after_value(jparser *p, int *want_value) {
  for (;;) {
    skip_ws(p);
    if (p->kinds.depth == 0) {
      *want_value = 0;
      return p->i == p->n ? IFS_OK : IFS_INVALID;
    }
    if (p->i >= p->n) return IFS_INVALID;
    unsigned char c = p->s[p->i++];
    int is_obj = kinds_top_is_obj(&p->kinds);
    if (c == ',') {
      *want_value = 1;
      if (!is_obj) return IFS_OK;
      skip_ws(p);
      return read_key(p);
    }
    if (c != (is_obj ? '}' : ']')) return IFS_INVALID;
    ifs_status rc = close_container(p);
    if (rc) return rc;
  }
}

static ifs_status run(jparser *p) {
  int want_value = 1;
  ifs_status rc;
  while (want_value) {
    skip_ws(p);
    if (p->i >= p->n) return IFS_INVALID;
    unsigned char c = p->s[p->i];
    int taken = 0;
    if (c == '[' && p->known && (rc = take_known(p, &taken))) return rc;
    if (taken) {
      /* a value, as a scalar is: what follows it is read as ever */
    } else if (c == '[' || c == '{') {
      int is_obj = c == '{';
      p->i++;
      if ((rc = open_container(p, is_obj))) return rc;
      skip_ws(p);
      if (p->i < p->n && p->s[p->i] == (is_obj ? '}' : ']')) {
        p->i++;
        if ((rc = close_container(p))) return rc;
      } else {
        if (is_obj && (rc = read_key(p))) return rc;
        continue;
      }
    } else if ((rc = read_scalar(p))) {
      return rc;
    }
    if ((rc = after_value(p, &want_value))) return rc;
  }
  return IFS_OK;
}

/* Field by field: the nesting stack's local words need no clearing. */
static void parser_init(jparser *p, const char *s, size_t n, ifs_arena *a) {
  p->s = (const unsigned char *)s;
  p->n = n;
  p->i = 0;
  p->a = a;
  kinds_init(&p->kinds);
  p->vals = p->vals_local;
  p->nvals = 0;
  p->capvals = sizeof p->vals_local / sizeof p->vals_local[0];
  p->bases = p->bases_local;
  p->nbases = 0;
  p->capbases = sizeof p->bases_local / sizeof p->bases_local[0];
  p->lit[0] = p->lit[1] = p->lit[2] = NULL;
  p->list_at = 0;
  p->known = NULL;
  p->known_arg = NULL;
}

static void parser_free(jparser *p) {
  kinds_free(&p->kinds);   /* vals and bases are the arena's */
}

ifs_status ifs_json_parse(const char *s, size_t n, ifs_arena *a, ifs_jval **out) {
  return ifs_json_parse_known(s, n, a, NULL, NULL, out);
}

ifs_status ifs_json_parse_known(const char *s, size_t n, ifs_arena *a, ifs_json_known_fn known,
                                void *arg, ifs_jval **out) {
  jparser p;
  parser_init(&p, s, n, a);
  p.known = known;
  p.known_arg = arg;
  ifs_status rc = run(&p);
  if (rc == IFS_OK) *out = p.vals[0];
  parser_free(&p);
  return rc;
}

/* ---- flat objects ---- */

static size_t flat_ws(const unsigned char *s, size_t n, size_t i) {
  while (i < n && s[i] <= ' ' && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  return i;
}

#if IFS_V16
/* The bytes of the sixteen at p that end a plain string or may not be in
** one ('"', '\\', outside printable ASCII), as ifs_v16_bits. */
static uint64_t flat_stops16(const unsigned char *p) {
  ifs_v16 x = ifs_v16_load(p);
  ifs_v16 ends = ifs_v16_or(ifs_v16_eq(x, ifs_v16_splat('"')), ifs_v16_eq(x, ifs_v16_splat('\\')));
  return ifs_v16_bits(ifs_v16_or(ends, ifs_v16_unprintable(x)));
}
#endif

/* The end of a string at s[i] ('"') of printable ASCII without escapes
** (its value is its bytes), or 0 for any other.  With vectors, sixteen
** bytes a step (a key or an id ends in the first); the last step takes
** the input's last sixteen bytes, less those before i. */
static size_t flat_string(const unsigned char *s, size_t n, size_t i) {
  i++;
#if IFS_V16
  if (n >= 16) {
    for (; i < n; i += 16) {
      uint64_t stops = n - i >= 16 ? flat_stops16(s + i)
                                   : flat_stops16(s + n - 16) >> (16 - (n - i)) * IFS_V16_STRIDE;
      if (!stops) continue;
      i += ifs_v16_first(stops);
      return s[i] == '"' ? i + 1 : 0;
    }
    return 0;
  }
#endif
  for (; i < n && s[i] >= 0x20 && s[i] < 0x7F && s[i] != '\\'; i++)
    if (s[i] == '"') return i + 1;
  return 0;
}

/* The end of a plain scalar at s[i]: such a string, an integer of at most
** 18 digits, true, false or null; or 0.  The scan then wants ',', '}' or
** whitespace, so that 01 (which ends after the 0), 1.5 and 1e5 are not
** plain. */
static size_t flat_scalar(const unsigned char *s, size_t n, size_t i) {
  if (s[i] == '"') return flat_string(s, n, i);
  size_t at = i + (s[i] == '-'), j = at;
  if (at < n && s[at] == '0') return at + 1;
  while (j < n && j - at <= 18 && is_digit(s[j])) j++;
  if (j > at) return j - at <= 18 ? j : 0;
  static const char *const words[] = {"true", "false", "null"};
  for (int w = 0; w < 3; w++) {
    size_t len = strlen(words[w]);
    if (n - i >= len && memcmp(s + i, words[w], len) == 0) return i + len;
  }
  return 0;
}

int ifs_json_scan_flat(const char *text, size_t n, ifs_json_member_fn member, void *arg) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i = flat_ws(s, n, 0);
  if (i >= n || s[i] != '{') return 0;
  i = flat_ws(s, n, i + 1);
  if (i < n && s[i] == '}') return 0;   /* {}: no member */
  for (;;) {
    size_t key_end = i < n && s[i] == '"' ? flat_string(s, n, i) : 0;
    if (!key_end) return 0;
    size_t at = flat_ws(s, n, key_end);
    if (at >= n || s[at] != ':') return 0;
    at = flat_ws(s, n, at + 1);
    if (at >= n) return 0;
    size_t took = member(arg, text + i + 1, key_end - i - 2, text + at, n - at);
    if (took == IFS_JSON_NOT_FLAT) return 0;
    size_t end = took ? at + took : flat_scalar(s, n, at);
    if (!end) return 0;
    i = flat_ws(s, n, end);
    if (i >= n) return 0;
    if (s[i] == '}') return flat_ws(s, n, i + 1) == n;
    if (s[i] != ',') return 0;
    i = flat_ws(s, n, i + 1);
  }
}

ifs_status ifs_json_valid(const char *s, size_t n) {
  jparser p;
  parser_init(&p, s, n, NULL);
  ifs_status rc = run(&p);
  parser_free(&p);
  return rc;
}

const ifs_jval *ifs_json_get(const ifs_jval *obj, const char *key, size_t len) {
  if (!obj || obj->type != IFS_JOBJ) return NULL;
  for (size_t k = 0; k < obj->count; k++) {
    const ifs_jval *kv = obj->keys[k];
    if (kv->len == len && (len == 0 || memcmp(kv->str, key, len) == 0))
      return obj->items[k];
  }
  return NULL;
}
