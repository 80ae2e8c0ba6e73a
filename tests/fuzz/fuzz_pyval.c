/*
** fuzz_pyval.c — libFuzzer target for Python's int()/str()/bool() of JSON
** values (ext/ifs_pyval.c).
**
** The input, in internal form, is parsed as JSON; when valid, every node
** (up to a bound) goes through ifs_py_truthy, ifs_py_int and ifs_py_str:
**   int() of an integer literal is the literal normalised;
**   int() of a float is the exact truncation (glibc's exact %.0f);
**   int() of a string agrees with a small reimplementation of CPython's
**   int(str) written here (Unicode spaces and Nd digits as ASCII, ASCII
**   whitespace stripped, sign, single underscores, at most 4300 digits);
**   int() output is always -?[1-9][0-9]* or 0 and compares right;
**   str() of a string is itself; str() of anything is well-formed text.
** The first 8 bytes, read as a double, also check repr(float): it reads
** back to the same double, has the fewest digits that do, is the nearest
** of that length, and is laid out as Python lays it out.
*/
#include <math.h>
#include "fuzz_common.h"
#include "ifs_json.h"
#include "ifs_pyval.h"

#define MAX_NODES 4096

/* ---- int() reference ---- */

/* 1 and the normalised digits in out, 0 when CPython raises. */
static int reference_int_of_str(const char *s, size_t n, ifs_buf *out) {
  ifs_buf a;
  ifs_buf_init(&a);
  size_t i = 0;
  while (i < n) {            /* _PyUnicode_TransformDecimalAndSpaceToASCII */
    uint32_t cp = ifs_decode(s, n, &i);
    int dv = ifs_decimal_value(cp);
    char c = dv >= 0 ? (char)('0' + dv) : cp < 0x80 ? (char)cp : ifs_isspace(cp) ? ' ' : '?';
    fuzz_assert(ifs_buf_append_char(&a, c) == IFS_OK);
  }
  const char *p = a.p ? a.p : "";
  size_t b = 0, e = a.len;
  #define ASPACE(c) ((c) == ' ' || ((c) >= '\t' && (c) <= '\r'))
  while (b < e && ASPACE(p[b])) b++;
  while (e > b && ASPACE(p[e - 1])) e--;
  #undef ASPACE
  int neg = 0, ok = 1;
  if (b < e && (p[b] == '+' || p[b] == '-')) neg = p[b++] == '-';
  size_t digits = 0;
  int prev_us = 0;
  ifs_buf_clear(out);
  for (size_t k = b; k < e && ok; k++) {
    if (p[k] >= '0' && p[k] <= '9') {
      digits++;
      prev_us = 0;
      if (out->len > 0 || p[k] != '0') fuzz_assert(ifs_buf_append_char(out, p[k]) == IFS_OK);
    } else if (p[k] == '_' && digits > 0 && !prev_us) {
      prev_us = 1;
    } else {
      ok = 0;
    }
  }
  if (digits == 0 || prev_us || digits > 4300) ok = 0;
  if (ok && out->len == 0) fuzz_assert(ifs_buf_append_char(out, '0') == IFS_OK);
  else if (ok && neg) {
    ifs_buf t;
    ifs_buf_init(&t);
    fuzz_assert(ifs_buf_append_char(&t, '-') == IFS_OK);
    fuzz_assert(ifs_buf_append(&t, out->p, out->len) == IFS_OK);
    ifs_buf_free(out);
    *out = t;
  }
  ifs_buf_free(&a);
  return ok;
}

static void check_int_text(const ifs_buf *b) {
  fuzz_assert(b->len > 0);
  size_t k = b->p[0] == '-';
  fuzz_assert(k < b->len);
  fuzz_assert(b->p[k] != '0' || (k == 0 && b->len == 1));
  for (size_t j = k; j < b->len; j++) fuzz_assert(b->p[j] >= '0' && b->p[j] <= '9');
  /* ifs_int_cmp against small counts */
  uint64_t v = 0;
  int small = !k && b->len <= 18;
  for (size_t j = 0; small && j < b->len; j++) v = v * 10 + (uint64_t)(b->p[j] - '0');
  uint64_t probes[3] = {0, 5, 1000000007ull};
  for (int t = 0; t < 3; t++) {
    int c = ifs_int_cmp(b->p, b->len, probes[t]);
    if (k) fuzz_assert(c < 0);
    else if (small) fuzz_assert(c == (v > probes[t]) - (v < probes[t]));
    else fuzz_assert(c > 0);
  }
}

static void check_int(const ifs_jval *v, ifs_buf *got, ifs_buf *want) {
  ifs_buf_clear(got);
  int rc = ifs_py_int(v, got);
  fuzz_assert(rc == IFS_OK || rc == IFS_INVALID);
  switch (v->type) {
    case IFS_JNULL: case IFS_JARR: case IFS_JOBJ:
      fuzz_assert(rc == IFS_INVALID);
      return;
    case IFS_JTRUE: case IFS_JFALSE:
      fuzz_assert(rc == IFS_OK && got->len == 1 && got->p[0] == (v->type == IFS_JTRUE ? '1' : '0'));
      return;
    case IFS_JINT: {
      fuzz_assert(rc == IFS_OK);
      check_int_text(got);
      size_t k = v->str[0] == '-';
      while (k + 1 < v->len && v->str[k] == '0') k++;
      int zero = v->len - k == 1 && v->str[k] == '0';
      size_t neg = !zero && v->str[0] == '-';
      fuzz_assert(got->len == neg + v->len - k);
      fuzz_assert(memcmp(got->p + neg, v->str + k, v->len - k) == 0);
      return;
    }
    case IFS_JFLOAT: {
      if (!isfinite(v->num)) { fuzz_assert(rc == IFS_INVALID); return; }
      fuzz_assert(rc == IFS_OK);
      check_int_text(got);
      char tmp[400];
      int n = snprintf(tmp, sizeof tmp, "%.0f", trunc(v->num));
      const char *t = strcmp(tmp, "-0") == 0 ? "0" : tmp;
      if (t != tmp) n = 1;
      fuzz_assert(got->len == (size_t)n && memcmp(got->p, t, (size_t)n) == 0);
      return;
    }
    case IFS_JSTR: {
      int ok = reference_int_of_str(v->str ? v->str : "", v->len, want);
      if (ok != (rc == IFS_OK)) {
        fprintf(stderr, "int(str): ext rc=%d, reference ok=%d\n", rc, ok);
        fuzz_fail("int(str) validity differs from the reference");
      }
      if (ok) {
        check_int_text(got);
        fuzz_assert(got->len == want->len && memcmp(got->p, want->p, got->len) == 0);
      }
      return;
    }
  }
}

static void check_str(const ifs_jval *v, ifs_buf *got) {
  ifs_buf_clear(got);
  fuzz_assert(ifs_py_str(v, got) == IFS_OK);
  const char *p = got->p ? got->p : "";
  size_t i = 0;
  while (i < got->len) { size_t at = i; (void)ifs_decode(p, got->len, &i); fuzz_assert(i > at); }
  if (v->type == IFS_JSTR)
    fuzz_assert(got->len == v->len && (v->len == 0 || memcmp(p, v->str, v->len) == 0));
  if (v->type == IFS_JARR) fuzz_assert(got->len >= 2 && p[0] == '[' && p[got->len - 1] == ']');
  if (v->type == IFS_JOBJ) fuzz_assert(got->len >= 2 && p[0] == '{' && p[got->len - 1] == '}');
}

/* ---- repr(float) ---- */

/* Significant digits and decimal exponent of the nearest k-digit decimal. */
static void nearest_digits(double d, int k, char *dig, int *exp10) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.*e", k - 1, fabs(d));
  size_t j = 0;
  for (const char *c = tmp; *c && *c != 'e'; c++) if (*c != '.') dig[j++] = *c;
  dig[j] = 0;
  *exp10 = atoi(strchr(tmp, 'e') + 1);
}

/* dig (k digits) x 10^exp10 moved one unit in the last place. */
static void step_digits(char *dig, int *exp10, int up) {
  int k = (int)strlen(dig), j = k - 1;
  if (up) {
    while (j >= 0 && dig[j] == '9') dig[j--] = '0';
    if (j >= 0) { dig[j]++; return; }
    dig[0] = '1';                   /* 99..9 -> 100..0, one decade up */
    (*exp10)++;
    return;
  }
  while (j >= 0 && dig[j] == '0') dig[j--] = '9';
  dig[j]--;                         /* dig[0] >= 1 since d != 0 */
  if (dig[0] == '0') {              /* 100..0 -> 99..9, one decade down */
    memset(dig, '9', (size_t)k);
    (*exp10)--;
  }
}

static double digits_to_double(int neg, const char *dig, int exp10) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%s%c.%se%d", neg ? "-" : "", dig[0], dig + 1, exp10);
  return strtod(tmp, NULL);
}

/* Python's layout of digits dig (no trailing zeros) with exponent x. */
static void python_layout(int neg, const char *dig, int x, char *out) {
  int nd = (int)strlen(dig);
  char *o = out;
  if (neg) *o++ = '-';
  if (x < -4 || x >= 16) {
    *o++ = dig[0];
    if (nd > 1) { *o++ = '.'; memcpy(o, dig + 1, (size_t)nd - 1); o += nd - 1; }
    o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
  } else if (x < 0) {
    *o++ = '0'; *o++ = '.';
    for (int k = 0; k < -x - 1; k++) *o++ = '0';
    memcpy(o, dig, (size_t)nd); o += nd;
  } else if (x >= nd - 1) {
    memcpy(o, dig, (size_t)nd); o += nd;
    for (int k = 0; k < x - (nd - 1); k++) *o++ = '0';
    *o++ = '.'; *o++ = '0';
  } else {
    memcpy(o, dig, (size_t)x + 1); o += x + 1;
    *o++ = '.';
    memcpy(o, dig + x + 1, (size_t)(nd - x - 1)); o += nd - x - 1;
  }
  *o = 0;
}

static void check_float_repr(double d) {
  ifs_buf got;
  ifs_buf_init(&got);
  fuzz_assert(ifs_py_float_repr(d, &got) == IFS_OK);
  char want[128];
  if (isnan(d)) strcpy(want, "nan");
  else if (isinf(d)) strcpy(want, d < 0 ? "-inf" : "inf");
  else if (d == 0) strcpy(want, signbit(d) ? "-0.0" : "0.0");
  else {
    char dig[40];
    int x = 0, k;
    for (k = 1; k <= 17; k++) {
      nearest_digits(d, k, dig, &x);
      double near = digits_to_double(signbit(d), dig, x);
      if (near == d) break;
      /* the k-digit neighbour on the other side of d may round-trip
      ** where the nearest does not (the gap below a power of two is
      ** half the gap above) */
      int up = fabs(near) < fabs(d);
      step_digits(dig, &x, up);
      if (digits_to_double(signbit(d), dig, x) == d) break;
    }
    fuzz_assert(k <= 17);
    size_t nd = strlen(dig);
    while (nd > 1 && dig[nd - 1] == '0') dig[--nd] = 0;
    python_layout(signbit(d) != 0, dig, x, want);
  }
  if (strlen(want) != got.len || memcmp(want, got.p, got.len) != 0) {
    fprintf(stderr, "repr(%a): got [%.*s] want [%s]\n", d, (int)got.len, got.p, want);
    fuzz_fail("float repr differs");
  }
  ifs_buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 8) {
    double d;
    memcpy(&d, data, 8);
    check_float_repr(d);
  }
  ifs_buf in, got, want;
  ifs_buf_init(&in);
  ifs_buf_init(&got);
  ifs_buf_init(&want);
  fuzz_internal((const char *)data, size, &in);
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *root;
  if (ifs_json_parse(in.p, in.len, &a, &root) == IFS_OK) {
    const ifs_jval *stack[MAX_NODES];
    size_t n = 0, seen = 0;
    stack[n++] = root;
    while (n && seen < MAX_NODES) {
      const ifs_jval *v = stack[--n];
      seen++;
      (void)ifs_py_truthy(v);
      check_int(v, &got, &want);
      check_str(v, &got);
      if (v->type == IFS_JFLOAT) check_float_repr(v->num);
      if (v->type == IFS_JARR || v->type == IFS_JOBJ)
        for (size_t k = 0; k < v->count && n < MAX_NODES; k++) stack[n++] = v->items[k];
    }
  }
  ifs_arena_free(&a);
  ifs_buf_free(&in);
  ifs_buf_free(&got);
  ifs_buf_free(&want);
  return 0;
}
