/*
** ifscore.c — the SQLite glue: registers the SQL functions of ifscore.
**
** Usage from the sqlite3 CLI:
**
**   .load build/ifscore
**   SELECT if_score('Hello world', '{"max_words": 5, "must_include": "hello"}');
**     -- 1.0
**   SELECT if_reason('Hello world', '{"max_words": 1}');
**     -- 0/1 satisfied; failed: max_words<=1 (got 2)
**   SELECT model, avg(if_score(response, constraints)) FROM runs GROUP BY model;
**
** Functions (SPEC.md section 3): if_score, if_reason, if_version, and the
** helpers if_words, if_chars, if_lower, if_is_json, if_search.  All are
** SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS.
**
** Each connection gets its own state (evaluator with its regex cache and
** scratch buffers), shared by its functions through a reference count and
** freed when the last of them is destroyed, i.e. when the connection closes.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "ifs_eval.h"
#include "ifs_json.h"
#include "ifs_regex.h"
#include "ifs_text.h"
#include <string.h>

#define IFSCORE_VERSION "0.1.0"

typedef struct ifs_conn {
  int refs;
  ifs_evaluator *ev;
  ifs_result res;
  ifs_buf in_a, in_b, out;   /* scratch for the helpers */
} ifs_conn;

static void conn_release(void *p) {
  ifs_conn *c = p;
  if (--c->refs > 0) return;
  ifs_evaluator_free(c->ev);
  ifs_result_free(&c->res);
  ifs_buf_free(&c->in_a);
  ifs_buf_free(&c->in_b);
  ifs_buf_free(&c->out);
  sqlite3_free(c);
}

/* The text of an argument as SQLite converts it; NULL for SQL NULL. */
static const char *arg_text(sqlite3_value *v, size_t *n) {
  const char *s = (const char *)sqlite3_value_text(v);
  *n = s ? (size_t)sqlite3_value_bytes(v) : 0;
  return s;
}

/* Internal form of an argument (a copy only when it is not valid UTF-8). */
static int arg_internal(sqlite3_value *v, ifs_buf *scratch, const char **s, size_t *n) {
  *s = arg_text(v, n);
  if (!*s) return sqlite3_value_type(v) == SQLITE_NULL ? IFS_OK : IFS_NOMEM;
  if (ifs_utf8_is_valid(*s, *n)) return IFS_OK;
  ifs_buf_clear(scratch);
  if (ifs_to_internal(*s, *n, scratch)) return IFS_NOMEM;
  *s = scratch->p;
  *n = scratch->len;
  return IFS_OK;
}

/* Evaluates (response, constraints) into c->res; 0 on success. */
static int evaluate_args(sqlite3_context *ctx, sqlite3_value **argv) {
  ifs_conn *c = sqlite3_user_data(ctx);
  size_t rn, cn;
  const char *resp = arg_text(argv[0], &rn);
  const char *cons = arg_text(argv[1], &cn);
  if ((!resp && sqlite3_value_type(argv[0]) != SQLITE_NULL) ||
      (!cons && sqlite3_value_type(argv[1]) != SQLITE_NULL) ||
      ifs_evaluate(c->ev, resp, rn, cons, cn, &c->res) != IFS_OK) {
    sqlite3_result_error_nomem(ctx);
    return 1;
  }
  return 0;
}

static void result_bytes(sqlite3_context *ctx, const char *p, size_t n) {
  sqlite3_result_text64(ctx, p ? p : "", n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static void fn_score(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (evaluate_args(ctx, argv)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  if (c->res.verdict == IFS_SCORED) sqlite3_result_double(ctx, c->res.score);
  else sqlite3_result_null(ctx);
}

static void fn_reason(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (evaluate_args(ctx, argv)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  result_bytes(ctx, c->res.reason.p, c->res.reason.len);
}

static void fn_version(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, IFSCORE_VERSION, -1, SQLITE_STATIC);
}

static void fn_words(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s;
  size_t n;
  if (arg_internal(argv[0], &c->in_a, &s, &n)) { sqlite3_result_error_nomem(ctx); return; }
  if (!s) return;
  sqlite3_result_int64(ctx, (sqlite3_int64)ifs_count_words(s, n));
}

static void fn_chars(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s;
  size_t n;
  if (arg_internal(argv[0], &c->in_a, &s, &n)) { sqlite3_result_error_nomem(ctx); return; }
  if (!s) return;
  sqlite3_result_int64(ctx, (sqlite3_int64)ifs_count_chars(s, n));
}

static void fn_lower(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s;
  size_t n;
  if (arg_internal(argv[0], &c->in_a, &s, &n)) { sqlite3_result_error_nomem(ctx); return; }
  if (!s) return;
  ifs_buf_clear(&c->in_b);
  ifs_buf_clear(&c->out);
  if (ifs_lower(s, n, &c->in_b) || ifs_to_external(c->in_b.p, c->in_b.len, &c->out)) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  result_bytes(ctx, c->out.p, c->out.len);
}

static void fn_is_json(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s;
  size_t n, a, b;
  if (arg_internal(argv[0], &c->in_a, &s, &n)) { sqlite3_result_error_nomem(ctx); return; }
  if (!s) return;
  ifs_strip_fences(s, n, &a, &b);
  int valid = ifs_json_valid(s + a, b - a);
  if (valid < 0) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_int(ctx, valid);
}

/* 1 match, 0 none, NULL for a pattern Python rejects or one that exceeds
** the match budget. */
static void fn_search(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s, *p;
  size_t sn, pn;
  if (arg_internal(argv[0], &c->in_a, &s, &sn) ||
      arg_internal(argv[1], &c->in_b, &p, &pn)) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!s || !p) return;
  int m = ifs_regex_search(ifs_evaluator_regex(c->ev), p, pn, s, sn);
  if (m == IFS_REGEX_NOMEM) sqlite3_result_error_nomem(ctx);
  else if (m == IFS_REGEX_MATCH || m == IFS_REGEX_NOMATCH) sqlite3_result_int(ctx, m);
}

typedef struct fn_def {
  const char *name;
  int nargs;
  void (*fn)(sqlite3_context *, int, sqlite3_value **);
} fn_def;

static const fn_def functions[] = {
  {"if_score", 2, fn_score},
  {"if_reason", 2, fn_reason},
  {"if_version", 0, fn_version},
  {"if_words", 1, fn_words},
  {"if_chars", 1, fn_chars},
  {"if_lower", 1, fn_lower},
  {"if_is_json", 1, fn_is_json},
  {"if_search", 2, fn_search},
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_ifscore_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  ifs_conn *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  ifs_result_init(&c->res);
  c->ev = ifs_evaluator_new();
  if (!c->ev) { sqlite3_free(c); return SQLITE_NOMEM; }
  c->refs = 1;   /* held by this function until registration is done */
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < sizeof functions / sizeof functions[0] && rc == SQLITE_OK; i++) {
    c->refs++;
    rc = sqlite3_create_function_v2(db, functions[i].name, functions[i].nargs, flags,
                                    c, functions[i].fn, NULL, NULL, conn_release);
    /* On failure SQLite has already called conn_release for this one. */
  }
  conn_release(c);
  return rc;
}
