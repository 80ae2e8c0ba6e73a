/*
** fuzz_eval.c — libFuzzer target for the whole evaluator (ext/ifs_eval.c
** and everything below it) on (response, constraints) pairs.
**
** Input: RESPONSE FUZZ_SEP CONSTRAINTS, raw bytes as SQLite hands them;
** without a separator the whole input is the constraints and the response
** is SQL NULL.  Invariants:
**   ifs_evaluate() returns IFS_OK; the result is self-consistent (score =
**   passed/total, labels inside the label buffer, the reason built from
**   them in docs/spec.md's wording, or one of the four inconclusive reasons);
**   the same pair evaluated again on the warm evaluator (its plan kept
**   the second time, used from the cache the third), and on a fresh one,
**   gives the same result byte for byte; so does a scores-only evaluation
**   explained afterwards, which can no longer be explained once the
**   evaluator has evaluated another row;
**   every must_include / must_exclude check agrees with
**   needle.lower() in response.lower() recomputed here with the full
**   lowercase mapping (the evaluator takes ASCII shortcuts);
**   every word/char limit label's "(got N)" is ifs_count_words/_chars;
**   the constraints object with an unknown key put first (another text
**   with the same lists: its lists are copied from the list cache, by
**   their JSON) gives the same result, each time it is compiled; so do,
**   when it has eight checks or more, ten such texts (different keys),
**   each seen twice: its lists are found in so many texts that the later
**   texts' kept plans share them with the list cache (the warm evaluator
**   shares from its first plan kept, not once its plans hold 4 MB).
*/
#include "fuzz_common.h"
#include "ifs_eval.h"
#include "ifs_json.h"
#include "ifs_pyval.h"

#define WARM "{\"regex\": \"a|b\", \"must_include\": \"x\"}"
#define DASH " \xE2\x80\x94 cannot score"

static int buf_eq(const ifs_buf *a, const ifs_buf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

static int starts_with(const ifs_buf *b, const char *z) {
  size_t n = strlen(z);
  return b->len >= n && memcmp(b->p, z, n) == 0;
}

static int ends_with(const ifs_buf *b, const char *z) {
  size_t n = strlen(z);
  return b->len >= n && memcmp(b->p + b->len - n, z, n) == 0;
}

static void check_consistent(const ifs_result *r) {
  const ifs_buf *why = &r->reason;
  switch (r->verdict) {
    case IFS_SCORED: {
      fuzz_assert(r->total > 0 && r->passed <= r->total);
      fuzz_assert(r->score == (double)r->passed / (double)r->total);
      size_t ok = 0;
      for (size_t i = 0; i < r->total; i++) {
        const ifs_check *c = &r->checks[i];
        fuzz_assert(c->kind >= IFS_MAX_WORDS && c->kind <= IFS_REGEX);
        fuzz_assert(c->label_at <= r->labels.len && c->label_len <= r->labels.len - c->label_at);
        if (i) fuzz_assert(c->kind >= r->checks[i - 1].kind);   /* fixed order */
        ok += c->ok != 0;
      }
      fuzz_assert(ok == r->passed);
      char head[64];
      if (r->passed == r->total) {
        snprintf(head, sizeof head, "all %zu constraints satisfied", r->total);
        fuzz_assert(why->len == strlen(head) && memcmp(why->p, head, why->len) == 0);
      } else {
        snprintf(head, sizeof head, "%zu/%zu satisfied; failed: ", r->passed, r->total);
        fuzz_assert(starts_with(why, head));
        size_t at = strlen(head);
        int first = 1;
        for (size_t i = 0; i < r->total; i++) {
          const ifs_check *c = &r->checks[i];
          if (c->ok) continue;
          if (!first) { fuzz_assert(why->len - at >= 2 && memcmp(why->p + at, "; ", 2) == 0); at += 2; }
          first = 0;
          fuzz_assert(why->len - at >= c->label_len);
          fuzz_assert(memcmp(why->p + at, r->labels.p + c->label_at, c->label_len) == 0);
          at += c->label_len;
        }
        fuzz_assert(at == why->len);
      }
      break;
    }
    case IFS_NO_CONSTRAINTS:
      fuzz_assert(starts_with(why, "no constraints specified") && ends_with(why, DASH)); break;
    case IFS_BAD_JSON:
      fuzz_assert(starts_with(why, "invalid constraints JSON") && ends_with(why, DASH)); break;
    case IFS_NOT_OBJECT:
      fuzz_assert(starts_with(why, "constraints must be a JSON object") && ends_with(why, DASH)); break;
    case IFS_NO_RECOGNIZED:
      fuzz_assert(starts_with(why, "no recognized constraints") && ends_with(why, DASH)); break;
    default:
      fuzz_fail("unknown verdict");
  }
}

static void check_same(const ifs_result *a, const ifs_result *b) {
  fuzz_assert(a->verdict == b->verdict && a->passed == b->passed && a->total == b->total);
  fuzz_assert(buf_eq(&a->reason, &b->reason));
  fuzz_assert(a->verdict != IFS_SCORED || a->score == b->score);
  for (size_t i = 0; a->verdict == IFS_SCORED && i < a->total; i++) {
    fuzz_assert(a->checks[i].kind == b->checks[i].kind && a->checks[i].ok == b->checks[i].ok);
    fuzz_assert(a->checks[i].label_len == b->checks[i].label_len);
    fuzz_assert(memcmp(a->labels.p + a->checks[i].label_at, b->labels.p + b->checks[i].label_at,
                       a->checks[i].label_len) == 0);
  }
}

/* The index of the first check of a kind, and how many there are. */
static size_t first_of(const ifs_result *r, ifs_kind k, size_t *count) {
  size_t i = 0;
  while (i < r->total && r->checks[i].kind != k) i++;
  size_t j = i;
  while (j < r->total && r->checks[j].kind == k) j++;
  *count = j - i;
  return i;
}

/* Recomputes needle checks with the full lowercase mapping. */
static void check_needles(const ifs_result *r, const ifs_jval *obj, const char *resp,
                          size_t rn, ifs_kind kind) {
  const char *key = ifs_kind_name(kind);
  const ifs_jval *v = ifs_json_get(obj, key, strlen(key));
  size_t cnt, at = first_of(r, kind, &cnt);
  size_t want = !v || v->type == IFS_JNULL ? 0 : v->type == IFS_JARR ? v->count : 1;
  fuzz_assert(cnt == want);
  if (!cnt) return;
  ifs_buf low, str, nlow;
  ifs_buf_init(&low);
  ifs_buf_init(&str);
  ifs_buf_init(&nlow);
  fuzz_assert(ifs_lower(resp, rn, &low) == IFS_OK);
  for (size_t k = 0; k < cnt; k++) {
    const ifs_jval *item = v->type == IFS_JARR ? v->items[k] : v;
    ifs_buf_clear(&str);
    ifs_buf_clear(&nlow);
    fuzz_assert(ifs_py_str(item, &str) == IFS_OK);
    fuzz_assert(ifs_lower(str.p ? str.p : "", str.len, &nlow) == IFS_OK);
    int found = nlow.len == 0 ||
        (low.len >= nlow.len && memmem(low.p, low.len, nlow.p, nlow.len) != NULL);
    int ok = kind == IFS_MUST_INCLUDE ? found : !found;
    if ((r->checks[at + k].ok != 0) != ok) {
      fprintf(stderr, "%s needle [%.*s]: evaluator %d, full lowering %d\n", key,
              (int)str.len, str.p, r->checks[at + k].ok, ok);
      fuzz_fail("needle check differs from needle.lower() in resp.lower()");
    }
  }
  ifs_buf_free(&low);
  ifs_buf_free(&str);
  ifs_buf_free(&nlow);
}

/* "(got N)" of the limit checks against the plain counters. */
static void check_counts(const ifs_result *r, const char *resp, size_t rn) {
  size_t words = ifs_count_words(resp, rn), chars = ifs_count_chars(resp, rn);
  for (size_t i = 0; i < r->total; i++) {
    const ifs_check *c = &r->checks[i];
    if (c->kind > IFS_MAX_CHARS) break;
    const char *l = r->labels.p + c->label_at;
    if (c->label_len >= 16 && memcmp(l + c->label_len - 16, " (invalid value)", 16) == 0) continue;
    char tail[48];
    snprintf(tail, sizeof tail, " (got %zu)", c->kind == IFS_MAX_CHARS ? chars : words);
    size_t tn = strlen(tail);
    fuzz_assert(c->label_len > tn && memcmp(l + c->label_len - tn, tail, tn) == 0);
  }
}

/* cons as another text with the same keys and values: unknown key number
** n put first in its object; 0 when cons is not an object with a first key. */
static int with_unknown_key(const char *cons, size_t cn, int n, ifs_buf *out) {
  size_t i = 0;
  while (i < cn && strchr(" \t\n\r", cons[i]) && cons[i]) i++;
  if (i >= cn || cons[i] != '{') return 0;
  size_t j = i + 1;
  while (j < cn && strchr(" \t\n\r", cons[j]) && cons[j]) j++;
  if (j >= cn || cons[j] != '"') return 0;
  ifs_buf_clear(out);
  ifs_buf_append(out, cons, i + 1);
  ifs_buf_append_str(out, "\"fuzz other text ");
  ifs_buf_append_u64(out, (uint64_t)n);
  ifs_buf_append_str(out, "\": 0, ");
  ifs_buf_append(out, cons + i + 1, cn - i - 1);
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_split sp = fuzz_split_input(data, size);
  const char *resp = sp.b ? sp.a : NULL, *cons = sp.b ? sp.b : sp.a;
  size_t rn = sp.b ? sp.an : 0, cn = sp.b ? sp.bn : sp.an;

  ifs_evaluator *ev = ifs_evaluator_new(), *fresh = ifs_evaluator_new();
  fuzz_assert(ev && fresh);
  ifs_test_evaluator_share_from(ev, 0);
  ifs_result r1, r2, r3;
  ifs_result_init(&r1);
  ifs_result_init(&r2);
  ifs_result_init(&r3);

  fuzz_assert(ifs_evaluate(ev, resp, rn, cons, cn, &r1) == IFS_OK);
  check_consistent(&r1);
  fuzz_assert(ifs_evaluate(ev, resp, rn, cons, cn, &r2) == IFS_OK);
  check_same(&r1, &r2);
  /* warm the fresh evaluator with something else first */
  fuzz_assert(ifs_evaluate(fresh, cons, cn, WARM, strlen(WARM), &r3) == IFS_OK);
  fuzz_assert(ifs_evaluate(fresh, resp, rn, cons, cn, &r3) == IFS_OK);
  check_same(&r1, &r3);
  fuzz_assert(ifs_evaluate_scores(ev, resp, rn, cons, cn, &r2) == IFS_OK);
  fuzz_assert(r2.verdict == r1.verdict && r2.passed == r1.passed && r2.total == r1.total);
  fuzz_assert(ifs_result_checks(ev, &r2) == IFS_OK);
  for (size_t i = 0; r1.verdict == IFS_SCORED && i < r1.total; i++)
    fuzz_assert(r2.checks[i].kind == r1.checks[i].kind && r2.checks[i].ok == r1.checks[i].ok);
  fuzz_assert(ifs_result_explain(ev, &r2) == IFS_OK);
  check_same(&r1, &r2);
  fuzz_assert(ifs_evaluate_scores(ev, resp, rn, cons, cn, &r2) == IFS_OK);
  fuzz_assert(ifs_evaluate(ev, resp, rn, NULL, 0, &r3) == IFS_OK);
  fuzz_assert(r3.verdict == IFS_NO_CONSTRAINTS);
  fuzz_assert(ifs_result_explain(ev, &r2) == IFS_INVALID);
  ifs_buf other;
  ifs_buf_init(&other);
  if (with_unknown_key(cons, cn, 0, &other))
    for (int k = 0; k < 3; k++) {   /* first seen, kept, from the plan cache */
      fuzz_assert(ifs_evaluate(ev, resp, rn, other.p, other.len, &r3) == IFS_OK);
      check_same(&r1, &r3);
    }
  for (int n = 1; n <= 10 && r1.verdict == IFS_SCORED && r1.total >= 8; n++) {
    if (!with_unknown_key(cons, cn, n, &other)) break;
    for (int k = 0; k < 2 + (n == 10); k++) {   /* kept the second time */
      fuzz_assert(ifs_evaluate(ev, resp, rn, other.p, other.len, &r3) == IFS_OK);
      check_same(&r1, &r3);
    }
  }
  ifs_buf_free(&other);

  if (r1.verdict == IFS_SCORED) {
    ifs_buf ri, ci;
    ifs_buf_init(&ri);
    ifs_buf_init(&ci);
    fuzz_internal(resp ? resp : "", rn, &ri);
    fuzz_internal(cons, cn, &ci);
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *obj;
    fuzz_assert(ifs_json_parse(ci.p, ci.len, &a, &obj) == IFS_OK && obj->type == IFS_JOBJ);
    check_needles(&r1, obj, ri.p, ri.len, IFS_MUST_INCLUDE);
    check_needles(&r1, obj, ri.p, ri.len, IFS_MUST_EXCLUDE);
    check_counts(&r1, ri.p, ri.len);
    ifs_arena_free(&a);
    ifs_buf_free(&ri);
    ifs_buf_free(&ci);
  }

  ifs_result_free(&r1);
  ifs_result_free(&r2);
  ifs_result_free(&r3);
  ifs_evaluator_free(ev);
  ifs_evaluator_free(fresh);
  return 0;
}
