/*
** ifs_eval.c — the evaluator (see ifs_eval.h).
**
** Order of the checks, labels and reasons follow SPEC.md section 1 to the
** byte.  Work is done lazily: the response is lowercased only when a needle
** asks, words and chars counted only when a limit asks.
*/
#include "ifs_eval.h"
#include "ifs_json.h"
#include "ifs_pyval.h"
#include "ifs_text.h"
#include <string.h>

struct ifs_evaluator {
  ifs_regex_cache *regex;
  ifs_arena arena;        /* parsed constraints of the current row */
  ifs_buf resp_in;        /* response in internal form, when it differs */
  ifs_buf cons_in;        /* constraints in internal form, when they differ */
  ifs_buf resp_lower;     /* resp.lower(), when a needle asks */
  ifs_buf resp_lower_ascii; /* resp with A..Z lowered, for ASCII needles */
  ifs_buf value;          /* str() / int() of the value at hand */
  ifs_buf needle_lower;
  ifs_buf label;          /* the label being built, internal form */
};

/* What one row's evaluation knows about the response. */
typedef struct row {
  const char *resp;
  size_t rn;
  int have_counts, have_lower, have_lower_ascii;
  int ascii_lower_ok;     /* -1 unknown, else: no U+0130 / U+212A in resp */
  int strict_utf8;        /* resp arrived as strict UTF-8 (no surrogates) */
  size_t words, chars;
} row;

static const char *const kind_names[] = {
  "max_words", "min_words", "max_chars", "must_be_json",
  "must_include", "must_exclude", "regex"
};

const char *ifs_kind_name(ifs_kind k) { return kind_names[k]; }

ifs_evaluator *ifs_evaluator_new(void) {
  ifs_evaluator *ev = ifs_malloc(sizeof *ev);
  if (!ev) return NULL;
  memset(ev, 0, sizeof *ev);
  ifs_arena_init(&ev->arena);
  ev->regex = ifs_regex_cache_new();
  if (!ev->regex) { ifs_free(ev); return NULL; }
  return ev;
}

void ifs_evaluator_free(ifs_evaluator *ev) {
  if (!ev) return;
  ifs_regex_cache_free(ev->regex);
  ifs_arena_free(&ev->arena);
  ifs_buf_free(&ev->resp_in);
  ifs_buf_free(&ev->cons_in);
  ifs_buf_free(&ev->resp_lower);
  ifs_buf_free(&ev->resp_lower_ascii);
  ifs_buf_free(&ev->value);
  ifs_buf_free(&ev->needle_lower);
  ifs_buf_free(&ev->label);
  ifs_free(ev);
}

ifs_regex_cache *ifs_evaluator_regex(ifs_evaluator *ev) { return ev->regex; }

void ifs_result_init(ifs_result *r) {
  memset(r, 0, sizeof *r);
  ifs_buf_init(&r->labels);
  ifs_buf_init(&r->reason);
}

void ifs_result_free(ifs_result *r) {
  ifs_free(r->checks);
  ifs_buf_free(&r->labels);
  ifs_buf_free(&r->reason);
  ifs_result_init(r);
}

/* Internal form of raw bytes: the bytes themselves when valid UTF-8,
** else a converted copy in scratch. */
static int internal_form(const char *s, size_t n, ifs_buf *scratch,
                         const char **out, size_t *out_n) {
  if (ifs_utf8_is_valid(s, n)) { *out = s; *out_n = n; return IFS_OK; }
  ifs_buf_clear(scratch);
  if (ifs_to_internal(s, n, scratch)) return IFS_NOMEM;
  *out = scratch->p;
  *out_n = scratch->len;
  return IFS_OK;
}

/* Appends a check whose label is ev->label (internal form). */
static int add_check(ifs_evaluator *ev, ifs_result *r, ifs_kind kind, int ok) {
  if (r->total == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 8;
    ifs_check *c = ifs_realloc(r->checks, cap * sizeof *c);
    if (!c) return IFS_NOMEM;
    r->checks = c;
    r->cap = cap;
  }
  ifs_check *c = &r->checks[r->total++];
  c->kind = kind;
  c->ok = ok;
  c->label_at = r->labels.len;
  if (ifs_buf_append(&r->labels, ev->label.p, ev->label.len)) return IFS_NOMEM;
  c->label_len = r->labels.len - c->label_at;
  r->passed += ok != 0;
  return IFS_OK;
}

static void count_response(row *w) {
  if (w->have_counts) return;
  ifs_count(w->resp, w->rn, &w->words, &w->chars);
  w->have_counts = 1;
}

/* max_words / min_words / max_chars, when the key is present. */
static int check_limit(ifs_evaluator *ev, ifs_result *r, row *w,
                       const ifs_jval *obj, ifs_kind kind) {
  const char *key = kind_names[kind];
  const ifs_jval *v = ifs_json_get(obj, key, strlen(key));
  if (!v) return IFS_OK;
  ifs_buf *lb = &ev->label;
  ifs_buf_clear(lb);
  ifs_buf_clear(&ev->value);
  int rc = ifs_py_int(v, &ev->value);
  if (rc == IFS_NOMEM) return rc;
  if (rc == IFS_INVALID) {
    ifs_buf_append_str(lb, key);
    ifs_buf_append_str(lb, " (invalid value)");
    return lb->oom ? IFS_NOMEM : add_check(ev, r, kind, 0);
  }
  count_response(w);
  size_t got = kind == IFS_MAX_CHARS ? w->chars : w->words;
  int cmp = ifs_int_cmp(ev->value.p, ev->value.len, got);  /* limit vs got */
  int ok = kind == IFS_MIN_WORDS ? cmp <= 0 : cmp >= 0;
  ifs_buf_append_str(lb, key);
  ifs_buf_append_str(lb, kind == IFS_MIN_WORDS ? ">=" : "<=");
  ifs_buf_append(lb, ev->value.p, ev->value.len);
  ifs_buf_append_str(lb, " (got ");
  ifs_buf_append_u64(lb, got);
  ifs_buf_append_char(lb, ')');
  return lb->oom ? IFS_NOMEM : add_check(ev, r, kind, ok);
}

void ifs_strip_fences(const char *s, size_t n, size_t *start, size_t *end) {
  size_t a, b;
  ifs_strip(s, n, &a, &b);
  if (b - a >= 3 && memcmp(s + a, "```", 3) == 0) {
    /* re.sub(r"^```[a-zA-Z0-9]*\s*", "", t) */
    a += 3;
    while (a < b && ((s[a] >= 'a' && s[a] <= 'z') || (s[a] >= 'A' && s[a] <= 'Z') ||
                     (s[a] >= '0' && s[a] <= '9')))
      a++;
    while (a < b) {
      size_t j = a;
      if (!ifs_isspace(ifs_decode(s, b, &j))) break;
      a = j;
    }
    /* re.sub(r"\s*```$", "", t): the text ends unstripped only if empty */
    if (b - a >= 3 && memcmp(s + b - 3, "```", 3) == 0) {
      b -= 3;
      while (b > a) {
        size_t j = b;
        if (!ifs_isspace(ifs_decode_prev(s, &j))) break;
        b = j;
      }
    }
    size_t a2, b2;
    ifs_strip(s + a, b - a, &a2, &b2);
    b = a + b2;
    a = a + a2;
  }
  *start = a;
  *end = b;
}

static int check_json(ifs_evaluator *ev, ifs_result *r, row *w, const ifs_jval *obj) {
  const ifs_jval *v = ifs_json_get(obj, "must_be_json", 12);
  if (!v || !ifs_py_truthy(v)) return IFS_OK;
  size_t a, b;
  ifs_strip_fences(w->resp, w->rn, &a, &b);
  int valid = ifs_json_valid(w->resp + a, b - a);
  if (valid < 0) return IFS_NOMEM;
  ifs_buf_clear(&ev->label);
  if (ifs_buf_append_str(&ev->label, "must_be_json")) return IFS_NOMEM;
  return add_check(ev, r, IFS_MUST_BE_JSON, valid);
}

/* The lowered response to search a needle in: resp.lower() in general;
** for a pure-ASCII needle the much cheaper A..Z lowering gives the same
** answer, unless resp holds one of the two characters whose lowercase
** contains ASCII (U+0130 -> "i\u0307", U+212A -> "k"). */
static const ifs_buf *lowered_response(ifs_evaluator *ev, row *w, int ascii_needle) {
  if (ascii_needle && w->ascii_lower_ok < 0)
    w->ascii_lower_ok = !ifs_find(w->resp, w->rn, "\xC4\xB0", 2) &&
                        !ifs_find(w->resp, w->rn, "\xE2\x84\xAA", 3);
  if (ascii_needle && w->ascii_lower_ok) {
    if (!w->have_lower_ascii) {
      ifs_buf_clear(&ev->resp_lower_ascii);
      if (ifs_lower_ascii(w->resp, w->rn, &ev->resp_lower_ascii)) return NULL;
      w->have_lower_ascii = 1;
    }
    return &ev->resp_lower_ascii;
  }
  if (!w->have_lower) {
    ifs_buf_clear(&ev->resp_lower);
    if (ifs_lower(w->resp, w->rn, &ev->resp_lower)) return NULL;
    w->have_lower = 1;
  }
  return &ev->resp_lower;
}

/* One needle: `needle.lower() in resp.lower()`, label with str() as is. */
static int check_needle(ifs_evaluator *ev, ifs_result *r, row *w,
                        const ifs_jval *item, ifs_kind kind) {
  ifs_buf_clear(&ev->value);
  ifs_buf_clear(&ev->needle_lower);
  if (ifs_py_str(item, &ev->value)) return IFS_NOMEM;
  if (ifs_lower(ev->value.p, ev->value.len, &ev->needle_lower)) return IFS_NOMEM;
  const ifs_buf *nd = &ev->needle_lower;
  int found = 1;
  if (nd->len) {
    const ifs_buf *h = lowered_response(ev, w, ifs_is_ascii(nd->p, nd->len));
    if (!h) return IFS_NOMEM;
    found = ifs_find(h->p, h->len, nd->p, nd->len) != NULL;
  }
  ifs_buf *lb = &ev->label;
  ifs_buf_clear(lb);
  ifs_buf_append_str(lb, kind_names[kind]);
  ifs_buf_append_str(lb, " '");
  ifs_buf_append(lb, ev->value.p, ev->value.len);
  ifs_buf_append_char(lb, '\'');
  if (lb->oom) return IFS_NOMEM;
  return add_check(ev, r, kind, kind == IFS_MUST_INCLUDE ? found : !found);
}

/* _as_list(): null → none, array → each element, anything else → one. */
static int check_needles(ifs_evaluator *ev, ifs_result *r, row *w,
                         const ifs_jval *obj, ifs_kind kind) {
  const char *key = kind_names[kind];
  const ifs_jval *v = ifs_json_get(obj, key, strlen(key));
  if (!v || v->type == IFS_JNULL) return IFS_OK;
  if (v->type != IFS_JARR) return check_needle(ev, r, w, v, kind);
  for (size_t i = 0; i < v->count; i++) {
    int rc = check_needle(ev, r, w, v->items[i], kind);
    if (rc) return rc;
  }
  return IFS_OK;
}

static int check_regex(ifs_evaluator *ev, ifs_result *r, row *w, const ifs_jval *obj) {
  const ifs_jval *v = ifs_json_get(obj, "regex", 5);
  if (!v || !ifs_py_truthy(v)) return IFS_OK;
  ifs_buf_clear(&ev->value);
  if (ifs_py_str(v, &ev->value)) return IFS_NOMEM;
  int m = w->strict_utf8
              ? ifs_regex_search_utf8(ev->regex, ev->value.p, ev->value.len, w->resp, w->rn)
              : ifs_regex_search(ev->regex, ev->value.p, ev->value.len, w->resp, w->rn);
  if (m == IFS_REGEX_NOMEM) return IFS_NOMEM;
  ifs_buf *lb = &ev->label;
  ifs_buf_clear(lb);
  ifs_buf_append_str(lb, "regex /");
  ifs_buf_append(lb, ev->value.p, ev->value.len);
  ifs_buf_append_char(lb, '/');
  if (m == IFS_REGEX_INVALID) ifs_buf_append_str(lb, " (invalid pattern)");
  if (m == IFS_REGEX_LIMIT) ifs_buf_append_str(lb, " (match limit exceeded)");
  if (lb->oom) return IFS_NOMEM;
  return add_check(ev, r, IFS_REGEX, m == IFS_REGEX_MATCH);
}

static int run_checks(ifs_evaluator *ev, ifs_result *r, row *w, const ifs_jval *obj) {
  int rc = IFS_OK;
  for (int k = IFS_MAX_WORDS; k <= IFS_MAX_CHARS && !rc; k++)
    rc = check_limit(ev, r, w, obj, (ifs_kind)k);
  if (!rc) rc = check_json(ev, r, w, obj);
  if (!rc) rc = check_needles(ev, r, w, obj, IFS_MUST_INCLUDE);
  if (!rc) rc = check_needles(ev, r, w, obj, IFS_MUST_EXCLUDE);
  if (!rc) rc = check_regex(ev, r, w, obj);
  return rc;
}

static int build_reason(ifs_result *r) {
  ifs_buf *b = &r->reason;
  if (r->passed == r->total) {
    ifs_buf_append_str(b, "all ");
    ifs_buf_append_u64(b, r->total);
    ifs_buf_append_str(b, " constraints satisfied");
    return b->oom ? IFS_NOMEM : IFS_OK;
  }
  ifs_buf_append_u64(b, r->passed);
  ifs_buf_append_char(b, '/');
  ifs_buf_append_u64(b, r->total);
  ifs_buf_append_str(b, " satisfied; failed: ");
  int first = 1;
  for (size_t i = 0; i < r->total; i++) {
    const ifs_check *c = &r->checks[i];
    if (c->ok) continue;
    if (!first) ifs_buf_append_str(b, "; ");
    ifs_buf_append(b, r->labels.p + c->label_at, c->label_len);
    first = 0;
  }
  return b->oom ? IFS_NOMEM : IFS_OK;
}

static int inconclusive(ifs_result *r, ifs_verdict v) {
  static const char *const reasons[] = {
    [IFS_NO_CONSTRAINTS] = "no constraints specified \xE2\x80\x94 cannot score",
    [IFS_BAD_JSON] = "invalid constraints JSON \xE2\x80\x94 cannot score",
    [IFS_NOT_OBJECT] = "constraints must be a JSON object \xE2\x80\x94 cannot score",
    [IFS_NO_RECOGNIZED] = "no recognized constraints \xE2\x80\x94 cannot score",
  };
  r->verdict = v;
  return ifs_buf_append_str(&r->reason, reasons[v]);
}

static void result_reset(ifs_result *r) {
  r->verdict = IFS_SCORED;
  r->passed = r->total = 0;
  r->score = 0;
  ifs_buf_clear(&r->labels);
  ifs_buf_clear(&r->reason);
}

int ifs_evaluate(ifs_evaluator *ev, const char *resp, size_t rn,
                 const char *cons, size_t cn, ifs_result *r) {
  result_reset(r);
  if (!cons) return inconclusive(r, IFS_NO_CONSTRAINTS);
  const char *cons_in;
  size_t cons_n;
  if (internal_form(cons, cn, &ev->cons_in, &cons_in, &cons_n)) return IFS_NOMEM;
  ifs_arena_reset(&ev->arena);
  ifs_jval *c;
  int rc = ifs_json_parse(cons_in, cons_n, &ev->arena, &c);
  if (rc == IFS_NOMEM) return rc;
  if (rc != IFS_OK) return inconclusive(r, IFS_BAD_JSON);
  if (!ifs_py_truthy(c)) return inconclusive(r, IFS_NO_CONSTRAINTS);
  if (c->type != IFS_JOBJ) return inconclusive(r, IFS_NOT_OBJECT);

  row w = {0};
  w.ascii_lower_ok = -1;
  if (!resp) { resp = ""; rn = 0; }
  if (internal_form(resp, rn, &ev->resp_in, &w.resp, &w.rn)) return IFS_NOMEM;
  w.strict_utf8 = w.resp == resp;
  rc = run_checks(ev, r, &w, c);
  ifs_arena_reset(&ev->arena);
  if (rc) return rc;
  if (r->total == 0) return inconclusive(r, IFS_NO_RECOGNIZED);
  r->score = (double)r->passed / (double)r->total;
  return build_reason(r);
}
