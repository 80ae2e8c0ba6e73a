/*
** fuzz_json.c — libFuzzer target for the JSON reader (ext/ifs_json.c).
**
** On the internal form of the input:
**   ifs_json_parse() succeeds exactly when ifs_json_valid() says IFS_OK;
**   both agree with an independent validator written here from the
**   json.loads rules of docs/spec.md (iterative, so any depth);
**   the parsed tree is sane: INT literals are -?digits, strings are
**   well-formed internal UTF-8, object keys are unique strings and
**   ifs_json_get() finds each one's item.
** The same checks run on the fence-stripped span, as if_is_json uses it.
** On the input as given: when ifs_json_scan_flat() takes it as a flat
** object (a member "list" whose value is [1] taken as known, every other
** value a plain scalar), it is ASCII, json.loads reads it as an object of
** the keys the scan asked about, in their order, each once, whose values
** are those.
*/
#include "fuzz_common.h"
#include "ifs_eval.h"
#include "ifs_json.h"

/* ---- independent validator (CPython 3.11 json.loads, strict) ---- */

typedef struct vstack { char *k; size_t n, cap; } vstack;

static int vpush(vstack *v, char c) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 64;
    char *k = realloc(v->k, cap);
    if (!k) return 0;
    v->k = k;
    v->cap = cap;
  }
  v->k[v->n++] = c;
  return 1;
}

static size_t ws(const unsigned char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

static int word(const unsigned char *s, size_t n, size_t *i, const char *w) {
  size_t k = strlen(w);
  if (n - *i < k || memcmp(s + *i, w, k) != 0) return 0;
  *i += k;
  return 1;
}

static int hexd(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at s[*i] == '"'; 1 ok, 0 invalid. */
static int vstring(const unsigned char *s, size_t n, size_t *i) {
  size_t k = *i + 1;
  for (;;) {
    if (k >= n) return 0;
    unsigned char c = s[k];
    if (c == '"') { *i = k + 1; return 1; }
    if (c < 0x20) return 0;
    if (c != '\\') { k++; continue; }
    if (k + 1 >= n) return 0;
    unsigned char e = s[k + 1];
    if (e == 'u') {
      if (n - k < 6) return 0;
      for (int j = 2; j < 6; j++) if (!hexd(s[k + j])) return 0;
      k += 6;
    } else if (strchr("\"\\/bfnrt", e) && e) {
      k += 2;
    } else {
      return 0;
    }
  }
}

static int digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int vnumber(const unsigned char *s, size_t n, size_t *i) {
  size_t k = *i;
  if (k < n && s[k] == '-') k++;
  if (k < n && word(s, n, &k, "Infinity")) { *i = k; return s[*i - 9] == '-'; }
  size_t d0 = k;
  if (k >= n || !digit(s[k])) return 0;
  if (s[k] == '0') k++;
  else while (k < n && digit(s[k])) k++;
  size_t ndig = k - d0;
  int is_float = 0;
  if (k + 1 < n && s[k] == '.' && digit(s[k + 1])) {
    k++;
    while (k < n && digit(s[k])) k++;
    is_float = 1;
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    size_t e = k + 1;
    if (e < n && (s[e] == '+' || s[e] == '-')) e++;
    if (e < n && digit(s[e])) {
      while (e < n && digit(s[e])) e++;
      k = e;
      is_float = 1;
    }
  }
  if (!is_float && ndig > 4300) return 0;
  *i = k;
  return 1;
}

static int vscalar(const unsigned char *s, size_t n, size_t *i) {
  if (*i >= n) return 0;
  unsigned char c = s[*i];
  if (c == '"') return vstring(s, n, i);
  if (c == '-' || digit(c)) return vnumber(s, n, i);
  return word(s, n, i, "null") || word(s, n, i, "true") || word(s, n, i, "false") ||
         word(s, n, i, "NaN") || word(s, n, i, "Infinity");
}

/* Expects a key and ':' at s[*i] (whitespace skipped before). */
static int vkey(const unsigned char *s, size_t n, size_t *i) {
  if (*i >= n || s[*i] != '"' || !vstring(s, n, i)) return 0;
  *i = ws(s, n, *i);
  if (*i >= n || s[*i] != ':') return 0;
  (*i)++;
  return 1;
}

/* 1 valid, 0 invalid, -1 could not allocate. */
static int reference_valid(const unsigned char *s, size_t n) {
  vstack st = {0};
  size_t i = 0;
  int rc = 0;
  for (;;) {
    /* expect a value */
    i = ws(s, n, i);
    if (i >= n) goto done;
    if (s[i] == '[' || s[i] == '{') {
      char open = (char)s[i++];
      if (!vpush(&st, open)) { rc = -1; goto done; }
      i = ws(s, n, i);
      if (i < n && s[i] == (open == '{' ? '}' : ']')) { i++; st.n--; }
      else if (open == '{') { if (!vkey(s, n, &i)) goto done; continue; }
      else continue;
    } else if (!vscalar(s, n, &i)) {
      goto done;
    }
    /* after a value */
    for (;;) {
      i = ws(s, n, i);
      if (st.n == 0) { rc = i == n; goto done; }
      if (i >= n) goto done;
      char top = st.k[st.n - 1];
      unsigned char c = s[i++];
      if (c == ',') {
        if (top == '{') { i = ws(s, n, i); if (!vkey(s, n, &i)) goto done; }
        break;
      }
      if (c != (top == '{' ? '}' : ']')) goto done;
      st.n--;
    }
  }
done:
  free(st.k);
  return rc;
}

/* ---- the tree ---- */

static void check_tree(const ifs_jval *root, ifs_buf *tmp) {
  /* explicit stack of pending nodes */
  const ifs_jval **stack = NULL;
  size_t n = 0, cap = 0, visited = 0;
  #define PUSH(x) do { if (n == cap) { cap = cap ? cap * 2 : 64; \
      stack = realloc(stack, cap * sizeof *stack); fuzz_assert(stack); } stack[n++] = (x); } while (0)
  PUSH(root);
  while (n) {
    const ifs_jval *v = stack[--n];
    fuzz_assert(v);
    visited++;
    switch (v->type) {
      case IFS_JNULL: case IFS_JFALSE: case IFS_JTRUE: case IFS_JFLOAT: break;
      case IFS_JINT: {
        fuzz_assert(v->len > 0);
        size_t k = v->str[0] == '-';
        fuzz_assert(k < v->len);
        for (; k < v->len; k++) fuzz_assert(digit((unsigned char)v->str[k]));
        break;
      }
      case IFS_JSTR: {
        /* escapes may build surrogates: check it re-reads as internal text */
        size_t i = 0;
        while (i < v->len) { size_t at = i; (void)ifs_decode(v->str, v->len, &i); fuzz_assert(i > at); }
        ifs_buf_clear(tmp);
        fuzz_assert(ifs_to_external(v->str ? v->str : "", v->len, tmp) == IFS_OK);
        break;
      }
      case IFS_JARR:
        for (size_t k = 0; k < v->count; k++) PUSH(v->items[k]);
        break;
      case IFS_JOBJ:
        for (size_t k = 0; k < v->count; k++) {
          const ifs_jval *key = v->keys[k];
          fuzz_assert(key && key->type == IFS_JSTR);
          if (v->count <= 64) {
            for (size_t j = 0; j < k; j++)
              fuzz_assert(!(v->keys[j]->len == key->len &&
                            (key->len == 0 || memcmp(v->keys[j]->str, key->str, key->len) == 0)));
            fuzz_assert(ifs_json_get(v, key->str ? key->str : "", key->len) == v->items[k]);
          }
          PUSH(v->items[k]);
        }
        break;
      default:
        fuzz_fail("unknown node type");
    }
  }
  #undef PUSH
  free(stack);
  (void)visited;
}

static void check_span(const char *s, size_t n, ifs_buf *tmp) {
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *root = NULL;
  ifs_status rc = ifs_json_parse(s, n, &a, &root);
  ifs_status vrc = ifs_json_valid(s, n);
  int ref = reference_valid((const unsigned char *)s, n);
  fuzz_assert(rc == IFS_OK || rc == IFS_INVALID);
  fuzz_assert(vrc == IFS_OK || vrc == IFS_INVALID);
  fuzz_assert(rc == vrc);
  int valid = vrc == IFS_OK;
  if (ref >= 0 && ref != valid) {
    fprintf(stderr, "ifs_json_valid=%d, reference=%d on %zu bytes\n", valid, ref, n);
    fuzz_fail("JSON validity differs from the reference rules");
  }
  if (rc == IFS_OK) check_tree(root, tmp);
  ifs_arena_free(&a);
}

/* ifs_json_scan_flat()'s member: "list" takes [1]; asked keys in keys,
** '\0' after each. */
static size_t flat_member(void *arg, const char *key, size_t key_len, const char *s, size_t n) {
  ifs_buf *keys = arg;
  ifs_buf_append(keys, key, key_len);
  ifs_buf_append_char(keys, '\0');
  if (key_len == 4 && memcmp(key, "list", 4) == 0 && n >= 3 && memcmp(s, "[1]", 3) == 0)
    return 3;
  return 0;
}

/* Whether key[0..len) is among the first `before` bytes of keys. */
static int asked_before(const ifs_buf *keys, size_t before, const char *key, size_t len) {
  for (size_t at = 0; at < before; at += strlen(keys->p + at) + 1)
    if (strlen(keys->p + at) == len && memcmp(keys->p + at, key, len) == 0) return 1;
  return 0;
}

static void check_flat(const char *s, size_t n) {
  ifs_buf keys;
  ifs_buf_init(&keys);
  if (ifs_json_scan_flat(s, n, flat_member, &keys)) {
    for (size_t i = 0; i < n; i++) fuzz_assert((unsigned char)s[i] < 0x80);
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *root = NULL;
    fuzz_assert(ifs_json_parse(s, n, &a, &root) == IFS_OK && root->type == IFS_JOBJ);
    size_t k = 0;
    for (size_t at = 0; at < keys.len; at += strlen(keys.p + at) + 1) {
      size_t len = strlen(keys.p + at);
      if (asked_before(&keys, at, keys.p + at, len)) continue;
      fuzz_assert(k < root->count && root->keys[k]->len == len &&
                  memcmp(root->keys[k]->str, keys.p + at, len) == 0);
      const ifs_jval *v = root->items[k++];
      fuzz_assert(v->type != IFS_JOBJ && v->type != IFS_JFLOAT &&
                  (v->type != IFS_JARR || (v->count == 1 && len == 4)));
    }
    fuzz_assert(k == root->count);
    ifs_arena_free(&a);
  }
  ifs_buf_free(&keys);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ifs_buf in, tmp;
  ifs_buf_init(&in);
  ifs_buf_init(&tmp);
  fuzz_internal((const char *)data, size, &in);
  check_span(in.p, in.len, &tmp);
  check_flat((const char *)data, size);
  size_t a, b;
  ifs_strip_fences(in.p, in.len, &a, &b);
  fuzz_assert(a <= b && b <= in.len);
  if (a != 0 || b != in.len) check_span(in.p + a, b - a, &tmp);
  ifs_buf_free(&in);
  ifs_buf_free(&tmp);
  return 0;
}
