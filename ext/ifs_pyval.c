/*
** ifs_pyval.c — Python's bool(), int() and str() of parsed JSON values
** (see ifs_pyval.h), byte for byte as CPython 3.11 prints them.
**
** float repr: the shortest digit string that reads back as the same double
** (the nearest one among those of that length), as Python's repr does; the
** digits come from the C library's correctly rounded printf/strtod, always
** in a radix-free form so that the locale never matters.  int() of a float
** uses a small exact base-1e9 multiplication instead of the C library.
**
** Entry points: ifs_py_str(), ifs_py_int(), ifs_py_truthy(),
** ifs_py_float_repr() (and its cache), ifs_int_cmp().
*/
#include "ifs_pyval.h"
#include "ifs_text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT_DIGIT_LIMIT 4300   /* CPython's default int_max_str_digits */

/* ---- truthiness ---- */

/* 1 when the decimal text (optional sign) has a nonzero digit. */
static int int_text_nonzero(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] >= '1' && s[i] <= '9') return 1;
  return 0;
}

int ifs_py_truthy(const ifs_jval *v) {
  switch (v->type) {
    case IFS_JNULL: case IFS_JFALSE: return 0;
    case IFS_JTRUE: return 1;
    case IFS_JINT: return int_text_nonzero(v->str, v->len);
    case IFS_JFLOAT: return v->num != 0.0;   /* NaN != 0 */
    case IFS_JSTR: return v->len != 0;
    case IFS_JARR: case IFS_JOBJ: return v->count != 0;
  }
  return 0;
}

/* ---- int() ---- */

/* Appends the decimal text s (optional sign, digits) normalised: no '+',
** no leading zeros, and no '-' on zero. */
static ifs_status append_int_text(const char *s, size_t n, ifs_buf *out) {
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  while (i < n && s[i] == '0') i++;
  if (i == n) return ifs_buf_append_char(out, '0');
  if (neg && ifs_buf_append_char(out, '-')) return IFS_NOMEM;
  return ifs_buf_append(out, s + i, n - i);
}

/* Appends the exact decimal value of trunc(d), d finite, from the bits of
** d (no libm): |d| = m * 2^e with a 53-bit integer m. */
static ifs_status append_truncated(double d, ifs_buf *out) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  int biased = (int)(bits >> 52 & 0x7FF);
  uint64_t m = bits & ((1ull << 52) - 1);
  if (biased < 1023) return ifs_buf_append_char(out, '0');   /* |d| < 1 */
  m |= 1ull << 52;
  int e = biased - 1075;
  if ((bits >> 63) && ifs_buf_append_char(out, '-')) return IFS_NOMEM;
  if (e <= 0) return ifs_buf_append_u64(out, m >> -e);
  /* multiply out in base 1e9 (2^1024 has 309 digits: 40 limbs are plenty) */
  uint32_t limb[40];
  size_t nl = 0;
  while (m) { limb[nl++] = (uint32_t)(m % 1000000000u); m /= 1000000000u; }
  while (e > 0) {
    int sh = e < 29 ? e : 29;
    uint64_t carry = 0;
    for (size_t k = 0; k < nl; k++) {
      uint64_t x = ((uint64_t)limb[k] << sh) + carry;
      limb[k] = (uint32_t)(x % 1000000000u);
      carry = x / 1000000000u;
    }
    while (carry) { limb[nl++] = (uint32_t)(carry % 1000000000u); carry /= 1000000000u; }
    e -= sh;
  }
  char tmp[16];
  if (ifs_buf_append_u64(out, limb[nl - 1])) return IFS_NOMEM;
  for (size_t k = nl - 1; k-- > 0;) {
    snprintf(tmp, sizeof tmp, "%09u", (unsigned)limb[k]);
    if (ifs_buf_append(out, tmp, 9)) return IFS_NOMEM;
  }
  return IFS_OK;
}

/* The whitespace int() strips: str.isspace() except U+001C..U+001F, which
** CPython keeps as ASCII and then does not skip (int('\x1c5') raises). */
static int int_space(uint32_t cp) {
  return ifs_isspace(cp) && !(cp >= 0x1C && cp <= 0x1F);
}

/* int(s, 10) for a str, CPython's rules. */
static ifs_status append_int_of_string(const char *s, size_t n, ifs_buf *out) {
  size_t a = 0, b = n, i;
  while (a < b) {
    i = a;
    if (!int_space(ifs_decode(s, b, &i))) break;
    a = i;
  }
  while (b > a) {
    i = b;
    if (!int_space(ifs_decode_prev(s, &i))) break;
    b = i;
  }
  int neg = 0;
  if (a < b && (s[a] == '+' || s[a] == '-')) neg = s[a++] == '-';
  size_t mark = out->len, digits = 0;
  int after_underscore = 0, rc = IFS_OK;
  if (neg) rc = ifs_buf_append_char(out, '-');
  for (i = a; i < b && rc == IFS_OK;) {
    uint32_t cp = ifs_decode(s, b, &i);
    int dv = ifs_decimal_value(cp);
    if (dv >= 0) {
      after_underscore = 0;
      if (++digits > INT_DIGIT_LIMIT) rc = IFS_INVALID;
      else if (out->len > mark + (size_t)neg || dv != 0)   /* no leading zeros */
        rc = ifs_buf_append_char(out, (char)('0' + dv));
    } else if (cp == '_' && digits > 0 && !after_underscore) {
      after_underscore = 1;
    } else {
      rc = IFS_INVALID;
    }
  }
  if (rc == IFS_OK && (digits == 0 || after_underscore)) rc = IFS_INVALID;
  if (rc == IFS_OK && out->len == mark + (size_t)neg) {
    out->len = mark;           /* all zeros: "0", never "-0" */
    rc = ifs_buf_append_char(out, '0');
  }
  if (rc != IFS_OK) {
    if (out->len > mark) out->len = mark;
    if (out->p) out->p[out->len] = 0;
  }
  return rc;
}

ifs_status ifs_py_int(const ifs_jval *v, ifs_buf *out) {
  switch (v->type) {
    case IFS_JINT: return append_int_text(v->str, v->len, out);
    case IFS_JTRUE: return ifs_buf_append_char(out, '1');
    case IFS_JFALSE: return ifs_buf_append_char(out, '0');
    case IFS_JFLOAT:
      if (!isfinite(v->num)) return IFS_INVALID;
      return append_truncated(v->num, out);
    case IFS_JSTR: return append_int_of_string(v->str, v->len, out);
    default: return IFS_INVALID;
  }
}

int ifs_int_cmp(const char *dec, size_t n, uint64_t count) {
  size_t i = 0;
  int neg = 0;
  if (i < n && (dec[i] == '-' || dec[i] == '+')) neg = dec[i++] == '-';
  while (i < n && dec[i] == '0') i++;
  if (i == n) return count == 0 ? 0 : -1;   /* zero */
  if (neg) return -1;
  char tmp[24];   /* count in decimal, written from the end (per row: no printf) */
  size_t at = sizeof tmp;
  do { tmp[--at] = (char)('0' + count % 10); count /= 10; } while (count);
  size_t len = n - i, tl = sizeof tmp - at;
  if (len != tl) return len < tl ? -1 : 1;
  int c = memcmp(dec + i, tmp + at, len);
  return (c > 0) - (c < 0);
}

/* ---- repr(float) ---- */

/* Shortest digits: significant digits in dig[0..*nd), value 0.d1d2.. x
** 10^(exp+1), i.e. d1.d2.. x 10^exp. */
typedef struct short_digits {
  char dig[24];
  int nd;
  int exp;
} short_digits;

/* strtod of digits x 10^(exp - nd + 1) — radix free, locale independent. */
static double digits_value(const short_digits *sd) {
  char buf[48];
  memcpy(buf, sd->dig, (size_t)sd->nd);
  snprintf(buf + sd->nd, sizeof buf - (size_t)sd->nd, "e%d", sd->exp - sd->nd + 1);
  return strtod(buf, NULL);
}

/* The nearest p-digit decimal of x > 0 (correctly rounded by printf). */
static void nearest_digits(double x, int p, short_digits *sd) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*e", p - 1, x);
  const char *c = buf;
  sd->nd = 0;
  while (*c && *c != 'e') {      /* digits, skipping the radix whatever it is */
    if (*c >= '0' && *c <= '9') sd->dig[sd->nd++] = *c;
    c++;
  }
  sd->exp = *c ? atoi(c + 1) : 0;
}

/* Moves sd one unit in its last digit up or down, staying at nd digits
** (999 + 1 = 100 one decade up, 100 - 1 = 999 one decade down). */
static void step_digits(short_digits *sd, int up) {
  int k = sd->nd - 1;
  if (up) {
    while (k >= 0 && sd->dig[k] == '9') sd->dig[k--] = '0';
    if (k >= 0) { sd->dig[k]++; return; }
    sd->dig[0] = '1';
    sd->exp++;
  } else {
    while (k >= 0 && sd->dig[k] == '0') sd->dig[k--] = '9';
    sd->dig[k]--;
    if (sd->dig[0] == '0') {
      memmove(sd->dig, sd->dig + 1, (size_t)sd->nd - 1);
      sd->dig[sd->nd - 1] = '9';
      sd->exp--;
    }
  }
}

/* Whether p digits can name x > 0: the nearest p-digit decimal, or, when it
** misses, its neighbour on the other side of x (x a power of two: the
** interval below is half as wide); the digits in *sd when they can. */
static int digits_name(double x, int p, short_digits *sd) {
  nearest_digits(x, p, sd);
  double r = digits_value(sd);
  if (r == x) return 1;
  short_digits other = *sd;
  step_digits(&other, r < x);
  if (digits_value(&other) != x) return 0;
  *sd = other;
  return 1;
}

/* Fewest digits past three that name x: 15 name every double written with
** 15 or fewer, 16 or 17 the others (17 always can; 2/3 needs 16).  If p
** digits can name x, so can p + 1 (the
** p-digit decimal that does lies between x and the nearest (p + 1)-digit
** decimal on its side, which is then the nearest or its neighbour), so
** below 15 the fewest are found by bisection.  Each try is a printf and a
** strtod or two; trying every count from one took 16 tries for 2/3. */
static void fewest_digits_past_three(double x, short_digits *sd) {
  if (!digits_name(x, 15, sd)) {
    if (!digits_name(x, 16, sd)) nearest_digits(x, 17, sd);
    return;
  }
  int lo = 3, hi = 15;   /* lo cannot, hi can: sd holds hi's digits */
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    short_digits t;
    if (digits_name(x, mid, &t)) { hi = mid; *sd = t; }
    else lo = mid;
  }
}

/* Shortest round-tripping digits of x > 0, finite: one to three digits
** first (0.5, 0.75, 0.125, the commonest scores), then the rest. */
static void shortest_digits(double x, short_digits *sd) {
  int p = 1;
  while (p <= 3 && !digits_name(x, p, sd)) p++;
  if (p > 3) fewest_digits_past_three(x, sd);
  while (sd->nd > 1 && sd->dig[sd->nd - 1] == '0') sd->nd--;
}

ifs_status ifs_py_float_repr(double d, ifs_buf *out) {
  if (isnan(d)) return ifs_buf_append_str(out, "nan");
  if (isinf(d)) return ifs_buf_append_str(out, d < 0 ? "-inf" : "inf");
  if (signbit(d) && ifs_buf_append_char(out, '-')) return IFS_NOMEM;
  if (d == 0) return ifs_buf_append_str(out, "0.0");
  short_digits sd;
  shortest_digits(d < 0 ? -d : d, &sd);
  char buf[64];
  size_t o = 0;
  if (sd.exp < -4 || sd.exp >= 16) {
    buf[o++] = sd.dig[0];
    if (sd.nd > 1) {
      buf[o++] = '.';
      memcpy(buf + o, sd.dig + 1, (size_t)sd.nd - 1);
      o += (size_t)sd.nd - 1;
    }
    o += (size_t)snprintf(buf + o, sizeof buf - o, "e%c%02d", sd.exp < 0 ? '-' : '+',
                          abs(sd.exp));
  } else if (sd.exp < 0) {
    buf[o++] = '0';
    buf[o++] = '.';
    for (int k = -1; k > sd.exp; k--) buf[o++] = '0';
    memcpy(buf + o, sd.dig, (size_t)sd.nd);
    o += (size_t)sd.nd;
  } else {
    for (int k = 0; k <= sd.exp; k++) buf[o++] = k < sd.nd ? sd.dig[k] : '0';
    buf[o++] = '.';
    if (sd.nd > sd.exp + 1) {
      memcpy(buf + o, sd.dig + sd.exp + 1, (size_t)(sd.nd - sd.exp - 1));
      o += (size_t)(sd.nd - sd.exp - 1);
    } else {
      buf[o++] = '0';
    }
  }
  return ifs_buf_append(out, buf, o);
}

ifs_status ifs_py_float_repr_cached(ifs_repr_cache *cache, double d, ifs_buf *out) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  /* the product's top bits: a short fraction's low bits are all zero */
  unsigned slot = (unsigned)((bits * 0x9E3779B97F4A7C15ull) >> (64 - IFS_REPR_SLOT_BITS));
  if (cache->len[slot] && cache->bits[slot] == bits)
    return ifs_buf_append(out, cache->text[slot], cache->len[slot]);
  size_t at = out->len;
  if (ifs_py_float_repr(d, out)) return IFS_NOMEM;
  size_t n = out->len - at;
  if (n <= sizeof cache->text[slot]) {
    memcpy(cache->text[slot], out->p + at, n);
    cache->len[slot] = (unsigned char)n;
    cache->bits[slot] = bits;
  }
  return IFS_OK;
}

/* ---- str() and repr() ---- */

static const char hexdig[] = "0123456789abcdef";

static ifs_status append_escape(ifs_buf *out, char kind, uint32_t cp, int width) {
  char buf[12];
  size_t o = 0;
  buf[o++] = '\\';
  buf[o++] = kind;
  for (int k = width - 1; k >= 0; k--) buf[o++] = hexdig[(cp >> (4 * k)) & 0xF];
  return ifs_buf_append(out, buf, o);
}

/* repr(str): quoted with ' (or " when only ' occurs), escaped as CPython's
** unicode_repr does. */
static ifs_status append_str_repr(const char *s, size_t n, ifs_buf *out) {
  int has_sq = n && memchr(s, '\'', n) != NULL;
  int has_dq = n && memchr(s, '"', n) != NULL;
  char quote = has_sq && !has_dq ? '"' : '\'';
  if (ifs_buf_append_char(out, quote)) return IFS_NOMEM;
  size_t i = 0, run = 0;   /* s[run..i) is pending literal text */
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != (unsigned char)quote) { i++; continue; }
    size_t at = i;
    uint32_t cp = ifs_decode(s, n, &i);
    if (cp >= 0x80 && ifs_isprintable(cp)) continue;
    if (ifs_buf_append(out, s + run, at - run)) return IFS_NOMEM;
    run = i;
    ifs_status rc;
    if (cp == '\\' || cp == (uint32_t)quote) {
      char e[2] = {'\\', (char)cp};
      rc = ifs_buf_append(out, e, 2);
    } else if (cp == '\t') rc = ifs_buf_append_str(out, "\\t");
    else if (cp == '\n') rc = ifs_buf_append_str(out, "\\n");
    else if (cp == '\r') rc = ifs_buf_append_str(out, "\\r");
    else if (cp < 0x100) rc = append_escape(out, 'x', cp, 2);
    else if (cp < 0x10000) rc = append_escape(out, 'u', cp, 4);
    else rc = append_escape(out, 'U', cp, 8);
    if (rc) return IFS_NOMEM;
  }
  if (ifs_buf_append(out, s + run, n - run)) return IFS_NOMEM;
  return ifs_buf_append_char(out, quote);
}

/* str() of a non-container; strings quoted (repr) when inside a container. */
static ifs_status append_scalar(const ifs_jval *v, int quoted, ifs_buf *out) {
  switch (v->type) {
    case IFS_JNULL: return ifs_buf_append_str(out, "None");
    case IFS_JFALSE: return ifs_buf_append_str(out, "False");
    case IFS_JTRUE: return ifs_buf_append_str(out, "True");
    case IFS_JINT: return append_int_text(v->str, v->len, out);
    case IFS_JFLOAT: return ifs_py_float_repr(v->num, out);
    case IFS_JSTR:
      return quoted ? append_str_repr(v->str, v->len, out)
                    : ifs_buf_append(out, v->str, v->len);
    default: return IFS_OK;
  }
}

static int is_container(const ifs_jval *v) {
  return v->type == IFS_JARR || v->type == IFS_JOBJ;
}

typedef struct walk_frame {
  const ifs_jval *v;
  size_t next;
} walk_frame;

/* repr of lists and dicts with an explicit stack of open containers. */
static ifs_status append_container(const ifs_jval *root, ifs_buf *out) {
  walk_frame local[32], *stack = local;
  size_t depth = 0, cap = sizeof local / sizeof local[0];
  ifs_status rc = IFS_OK;
  const ifs_jval *open = root;
  while (rc == IFS_OK) {
    if (open) {
      if (depth == cap) {
        walk_frame *ns = cap > SIZE_MAX / 2 / sizeof *ns ? NULL
                       : stack == local ? ifs_malloc(2 * cap * sizeof *ns)
                       : ifs_realloc(stack, 2 * cap * sizeof *ns);
        if (!ns) { rc = IFS_NOMEM; break; }
        if (stack == local) memcpy(ns, local, sizeof local);
        stack = ns;
        cap *= 2;
      }
      stack[depth].v = open;
      stack[depth++].next = 0;
      rc = ifs_buf_append_char(out, open->type == IFS_JOBJ ? '{' : '[');
      open = NULL;
      continue;
    }
    if (depth == 0) break;
    walk_frame *f = &stack[depth - 1];
    const ifs_jval *v = f->v;
    if (f->next == v->count) {
      rc = ifs_buf_append_char(out, v->type == IFS_JOBJ ? '}' : ']');
      depth--;
      continue;
    }
    size_t k = f->next++;
    if (k && (rc = ifs_buf_append(out, ", ", 2))) break;
    if (v->type == IFS_JOBJ) {
      if ((rc = append_str_repr(v->keys[k]->str, v->keys[k]->len, out))) break;
      if ((rc = ifs_buf_append(out, ": ", 2))) break;
    }
    const ifs_jval *child = v->items[k];
    if (is_container(child)) open = child;
    else rc = append_scalar(child, 1, out);
  }
  if (stack != local) ifs_free(stack);
  return rc;
}

ifs_status ifs_py_str(const ifs_jval *v, ifs_buf *out) {
  if (is_container(v)) return append_container(v, out);
  return append_scalar(v, 0, out);
}
