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
**   SELECT if_pass(response, constraints, 0.75) FROM cases;    -- 1, 0 or NULL
**   SELECT if_eval(response, constraints) ->> '$.reason' FROM cases;
**   SELECT kind, count(*) FROM cases, if_checks(cases.response, cases.constraints)
**    WHERE NOT ok GROUP BY kind;
**
** Functions (docs/spec.md section 3): if_score, if_reason, if_pass, if_eval,
** if_version, the helpers if_words, if_chars, if_lower, if_is_json,
** if_search, and the table-valued if_checks.  All functions are
** SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS and if_checks is
** an innocuous eponymous virtual table.
**
** if_score, if_reason, if_pass and if_eval on the same row share one
** evaluation: the connection remembers the last (response, constraints)
** pair and its result (ifs_memo.h).
**
** Each connection gets its own state (evaluator with its regex cache and
** scratch buffers), shared by its functions through a reference count and
** freed when the last of them is destroyed, i.e. when the connection closes.
**
** Entry point: sqlite3_ifscore_init().
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "ifs_eval.h"
#include "ifs_json.h"
#include "ifs_memo.h"
#include "ifs_pyval.h"
#include "ifs_regex.h"
#include "ifs_text.h"
#include <limits.h>
#include <string.h>

/* if_version(): the build defines IFS_VERSION from the VERSION file
** (the amalgamation carries it at its top). */
#ifndef IFS_VERSION
#error "IFS_VERSION is not defined: build with make, which takes it from the VERSION file"
#endif

#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000   /* older headers; ignored there */
#endif
#define JSON_SUBTYPE 74                     /* 'J', what JSON1 looks for */

typedef struct ifs_conn {
  int refs;
  ifs_evaluator *ev;
  ifs_result res;            /* the result for memo's arguments */
  ifs_memo last;             /* the last row evaluated on this connection */
  ifs_buf in_a, in_b, out;   /* scratch for the helpers */
  ifs_repr_cache reprs;      /* if_eval's scores, printed */
} ifs_conn;

static void conn_release(void *p) {
  ifs_conn *c = p;
  if (--c->refs > 0) return;
  ifs_evaluator_free(c->ev);
  ifs_result_free(&c->res);
  ifs_memo_free(&c->last);
  ifs_buf_free(&c->in_a);
  ifs_buf_free(&c->in_b);
  ifs_buf_free(&c->out);
  sqlite3_free(c);
}

/* The text of an argument as SQLite converts it; NULL for SQL NULL.
** IFS_NOMEM when SQLite could not produce the text.  A TEXT value is read
** by its byte count first, which turns UTF-16 into UTF-8 in place, and
** then by its blob pointer: sqlite3_value_text would copy a text that came
** from overflow pages again, only to end it with a NUL no one here reads.
** A count of 0 (an empty text, or a conversion that ran out of memory)
** goes the long way, which tells the two apart. */
static ifs_status arg_text(sqlite3_value *v, const char **s, size_t *n) {
  if (sqlite3_value_type(v) == SQLITE_TEXT) {
    int bytes = sqlite3_value_bytes(v);
    if (bytes > 0) {
      *s = (const char *)sqlite3_value_blob(v);
      *n = (size_t)bytes;
      return *s ? IFS_OK : IFS_NOMEM;
    }
  }
  *s = (const char *)sqlite3_value_text(v);
  *n = *s ? (size_t)sqlite3_value_bytes(v) : 0;
  return !*s && sqlite3_value_type(v) != SQLITE_NULL ? IFS_NOMEM : IFS_OK;
}

/* Internal form of an argument (a copy only when it is not valid UTF-8). */
static ifs_status arg_internal(sqlite3_value *v, ifs_buf *scratch, const char **s, size_t *n) {
  if (arg_text(v, s, n)) return IFS_NOMEM;
  if (!*s || ifs_utf8_is_valid(*s, *n)) return IFS_OK;
  ifs_buf_clear(scratch);
  if (ifs_to_internal(*s, *n, scratch)) return IFS_NOMEM;
  *s = scratch->p;
  *n = scratch->len;
  return IFS_OK;
}

/* Evaluates (argv[0], argv[1]) into c->res, or reuses the memo; with its
** reason when explain is set (a score needs none).  0 on success, else
** the SQL error is already set. */
static int evaluate_args(sqlite3_context *ctx, sqlite3_value **argv, int explain) {
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *resp, *cons;
  size_t rn, cn;
  if (arg_text(argv[0], &resp, &rn) || arg_text(argv[1], &cons, &cn)) {
    sqlite3_result_error_nomem(ctx);
    return 1;
  }
  if (ifs_memo_hit(&c->last, resp, rn, cons, cn)) {
    /* the reason can be built while the evaluator has done nothing since
    ** (if_checks uses it too); else the row is evaluated again */
    ifs_status rc = explain ? ifs_result_reason(c->ev, &c->res) : IFS_OK;
    if (rc == IFS_OK) return 0;
    if (rc == IFS_NOMEM) {
      sqlite3_result_error_nomem(ctx);
      return 1;
    }
  }
  ifs_memo_forget(&c->last);
  ifs_status rc = ifs_evaluate_scores(c->ev, resp, rn, cons, cn, &c->res);
  if (rc == IFS_OK && explain) rc = ifs_result_reason(c->ev, &c->res);
  if (rc != IFS_OK || ifs_memo_store(&c->last, resp, rn, cons, cn) != IFS_OK) {
    ifs_memo_forget(&c->last);
    sqlite3_result_error_nomem(ctx);
    return 1;
  }
  return 0;
}

/* Hands SQLite a copy of text.  When p[n] may be read (terminated: p is
** an ifs_buf's whole text), is a NUL and the only one, the length goes as
** -1: SQLite then marks the copy terminated, so whatever reads the result
** as text (length(), LIKE, Python's fetch) does not copy it again to add
** the NUL. */
static void result_bytes(sqlite3_context *ctx, const char *p, size_t n, int terminated) {
  if (terminated && p && n < INT_MAX && p[n] == 0 && !memchr(p, 0, n)) {
    sqlite3_result_text(ctx, p, -1, SQLITE_TRANSIENT);
    return;
  }
  sqlite3_result_text64(ctx, p ? p : "", n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* Returns internal UTF-8 as the bytes Python would write (escaped input
** bytes back to themselves); scratch holds the copy when one is needed.
** terminated: as for result_bytes. */
static void result_internal(sqlite3_context *ctx, const char *p, size_t n, int terminated,
                            ifs_buf *scratch) {
  if (!p || !ifs_has_escaped_bytes(p, n)) { result_bytes(ctx, p, n, terminated); return; }
  ifs_buf_clear(scratch);
  if (ifs_to_external(p, n, scratch)) { sqlite3_result_error_nomem(ctx); return; }
  result_bytes(ctx, scratch->p, scratch->len, 1);
}

static void fn_score(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (evaluate_args(ctx, argv, 0)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  if (c->res.verdict == IFS_SCORED) sqlite3_result_double(ctx, c->res.score);
  else sqlite3_result_null(ctx);
}

static void fn_reason(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (evaluate_args(ctx, argv, 1)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  result_internal(ctx, c->res.reason.p, c->res.reason.len, 1, &c->out);
}

/* The error for a threshold that is not a number, naming what it got (text
** cut to its first 40 bytes, at a character's start). */
static void threshold_error(sqlite3_context *ctx, sqlite3_value *v) {
  char *msg;
  if (sqlite3_value_type(v) == SQLITE_NULL) {
    msg = sqlite3_mprintf("if_pass: threshold must be a number, got NULL");
  } else if (sqlite3_value_type(v) == SQLITE_BLOB) {
    int n = sqlite3_value_bytes(v);
    msg = sqlite3_mprintf("if_pass: threshold must be a number, got a blob of %d byte%s", n,
                          n == 1 ? "" : "s");
  } else {
    const unsigned char *t = sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v), cut = n > 40 ? 40 : n;
    if (!t) { sqlite3_result_error_nomem(ctx); return; }
    while (cut < n && cut > 0 && (t[cut] & 0xC0) == 0x80) cut--;
    msg = sqlite3_mprintf("if_pass: threshold must be a number, got the text '%.*s'%s", cut,
                          (const char *)t, cut < n ? "..." : "");
  }
  if (!msg) { sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_error(ctx, msg, -1);
  sqlite3_free(msg);
}

/* if_pass(response, constraints [, threshold]): 1 / 0 / NULL. */
static void fn_pass(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  double threshold = 0.5;
  if (argc == 3) {
    int t = sqlite3_value_numeric_type(argv[2]);
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      threshold_error(ctx, argv[2]);
      return;
    }
    threshold = sqlite3_value_double(argv[2]);
  }
  if (evaluate_args(ctx, argv, 0)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  if (c->res.verdict == IFS_SCORED) sqlite3_result_int(ctx, c->res.score >= threshold);
  else sqlite3_result_null(ctx);
}

/* Appends internal text as a JSON string literal; surrogates (Python's
** lone surrogates, escaped input bytes among them) become \uXXXX escapes,
** so the object is valid JSON and parses back to the reference's string.
** Characters that need no escape go out in runs: plain ASCII without a
** look-up, any other character as ifs_decode reads it (a stray byte reads
** as a surrogate, and is escaped). */
static int append_json_string(ifs_buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  ifs_buf_append_char(out, '"');
  size_t plain = 0, i = 0;   /* s[plain..i) goes out as it is */
  while (i < n) {
    unsigned char b = (unsigned char)s[i];
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') { i++; continue; }
    size_t at = i;
    uint32_t cp = ifs_decode(s, n, &i);
    if (cp >= 0x20 && cp != '"' && cp != '\\' && (cp < 0xD800 || cp > 0xDFFF)) continue;
    ifs_buf_append(out, s + plain, at - plain);
    plain = i;
    if (cp == '"' || cp == '\\') {
      char esc[2] = {'\\', (char)cp};
      ifs_buf_append(out, esc, 2);
    } else {
      char esc[6] = {'\\', 'u', hex[cp >> 12], hex[(cp >> 8) & 15],
                     hex[(cp >> 4) & 15], hex[cp & 15]};
      ifs_buf_append(out, esc, 6);
    }
  }
  ifs_buf_append(out, s + plain, n - plain);
  return ifs_buf_append_char(out, '"');
}

/* if_eval: the reference's return value as a JSON object. */
static void fn_eval(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (evaluate_args(ctx, argv, 1)) return;
  ifs_conn *c = sqlite3_user_data(ctx);
  ifs_buf *out = &c->out;
  ifs_buf_clear(out);
  ifs_buf_append_char(out, '{');
  if (c->res.verdict == IFS_SCORED) {
    ifs_buf_append_str(out, "\"score\": ");
    size_t at = out->len;
    ifs_py_float_repr_cached(&c->reprs, c->res.score, out);
    size_t n = out->len - at;
    ifs_buf_append_str(out, ", \"instruction_following\": ");
    ifs_buf_reserve(out, n);
    if (!out->oom) ifs_buf_append(out, out->p + at, n);
    ifs_buf_append_str(out, ", ");
  }
  ifs_buf_append_str(out, "\"reason\": ");
  append_json_string(out, c->res.reason.p, c->res.reason.len);
  if (ifs_buf_append_char(out, '}')) { sqlite3_result_error_nomem(ctx); return; }
  result_bytes(ctx, out->p, out->len, 1);
  sqlite3_result_subtype(ctx, JSON_SUBTYPE);
}

static void fn_version(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, IFS_VERSION, -1, SQLITE_STATIC);
}

/* Reads the one text argument of a helper in internal form; 0 with *s NULL
** for SQL NULL, 1 when an error was set. */
static int helper_arg(sqlite3_context *ctx, sqlite3_value *v, const char **s, size_t *n) {
  ifs_conn *c = sqlite3_user_data(ctx);
  if (arg_internal(v, &c->in_a, s, n)) { sqlite3_result_error_nomem(ctx); return 1; }
  return 0;
}

static void fn_words(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *s;
  size_t n;
  if (helper_arg(ctx, argv[0], &s, &n) || !s) return;
  sqlite3_result_int64(ctx, (sqlite3_int64)ifs_count_words(s, n));
}

static void fn_chars(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *s;
  size_t n;
  if (helper_arg(ctx, argv[0], &s, &n) || !s) return;
  sqlite3_result_int64(ctx, (sqlite3_int64)ifs_count_chars(s, n));
}

static void fn_lower(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ifs_conn *c = sqlite3_user_data(ctx);
  const char *s;
  size_t n;
  if (helper_arg(ctx, argv[0], &s, &n) || !s) return;
  ifs_buf_clear(&c->in_b);
  if (ifs_lower(s, n, &c->in_b)) { sqlite3_result_error_nomem(ctx); return; }
  result_internal(ctx, c->in_b.p, c->in_b.len, 1, &c->out);
}

static void fn_is_json(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *s;
  size_t n, a, b;
  if (helper_arg(ctx, argv[0], &s, &n) || !s) return;
  ifs_strip_fences(s, n, &a, &b);
  ifs_status rc = ifs_json_valid(s + a, b - a);
  if (rc == IFS_NOMEM) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_int(ctx, rc == IFS_OK);
}

/* 1 match, 0 none, NULL for a pattern Python rejects or one that exceeds
** the match budget (the evaluator labels that "(match limit exceeded)"). */
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
  /* arg_internal hands back SQLite's own text only when it is strict UTF-8 */
  ifs_regex_cache *rc = ifs_evaluator_regex(c->ev);
  int matched;
  ifs_status st = s != c->in_a.p ? ifs_regex_search_utf8(rc, p, pn, s, sn, &matched)
                                 : ifs_regex_search(rc, p, pn, s, sn, &matched);
  if (st == IFS_NOMEM) sqlite3_result_error_nomem(ctx);
  else if (st == IFS_OK) sqlite3_result_int(ctx, matched);
}

/* ---- if_checks: one row per check --------------------------------- */

enum { COL_SEQ, COL_KIND, COL_LABEL, COL_OK, COL_RESPONSE, COL_CONSTRAINTS };

typedef struct checks_vtab {
  sqlite3_vtab base;
  ifs_conn *conn;
} checks_vtab;

typedef struct checks_cursor {
  sqlite3_vtab_cursor base;
  ifs_result res;
  size_t row;
  sqlite3_value *args[2];   /* the call's arguments, shown in the hidden columns */
} checks_cursor;

static void cursor_drop_args(checks_cursor *c) {
  for (int j = 0; j < 2; j++) {
    sqlite3_value_free(c->args[j]);
    c->args[j] = NULL;
  }
}

static int checks_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                          sqlite3_vtab **out, char **err) {
  (void)argc; (void)argv; (void)err;
  int rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(seq INTEGER, kind TEXT, label TEXT, ok INTEGER,"
      " response HIDDEN, constraints HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  checks_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->conn = aux;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &v->base;
  return SQLITE_OK;
}

static int checks_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* Both hidden columns must be bound by equality (the call's arguments);
** idxNum bit 1 = response given, bit 2 = constraints given. */
static int checks_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  int slot[2] = {-1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (k->iColumn < COL_RESPONSE || k->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!k->usable) return SQLITE_CONSTRAINT;
    slot[k->iColumn - COL_RESPONSE] = i;
  }
  int argi = 0;
  info->idxNum = 0;
  for (int j = 0; j < 2; j++) {
    if (slot[j] < 0) continue;
    info->aConstraintUsage[slot[j]].argvIndex = ++argi;
    info->aConstraintUsage[slot[j]].omit = 1;
    info->idxNum |= 1 << j;
  }
  info->estimatedCost = info->idxNum == 3 ? 10.0 : 1e12;
  info->estimatedRows = 8;
  return SQLITE_OK;
}

static int checks_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  checks_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  ifs_result_init(&cur->res);
  *out = &cur->base;
  return SQLITE_OK;
}

static int checks_close(sqlite3_vtab_cursor *cur) {
  checks_cursor *c = (checks_cursor *)cur;
  ifs_result_free(&c->res);
  cursor_drop_args(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int checks_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                         int argc, sqlite3_value **argv) {
  (void)idxStr; (void)argc;
  checks_cursor *c = (checks_cursor *)cur;
  ifs_conn *conn = ((checks_vtab *)cur->pVtab)->conn;
  const char *resp = NULL, *cons = NULL;
  size_t rn = 0, cn = 0;
  int k = 0;
  cursor_drop_args(c);
  for (int j = 0; j < 2; j++) {
    if (!(idxNum & (1 << j))) continue;
    c->args[j] = sqlite3_value_dup(argv[k++]);
    if (!c->args[j]) return SQLITE_NOMEM;
  }
  if (c->args[0] && arg_text(c->args[0], &resp, &rn)) return SQLITE_NOMEM;
  if (c->args[1] && arg_text(c->args[1], &cons, &cn)) return SQLITE_NOMEM;
  c->row = 0;
  if (ifs_evaluate(conn->ev, resp, rn, cons, cn, &c->res) != IFS_OK) return SQLITE_NOMEM;
  if (c->res.verdict != IFS_SCORED) c->res.total = 0;
  return SQLITE_OK;
}

static int checks_next(sqlite3_vtab_cursor *cur) {
  ((checks_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int checks_eof(sqlite3_vtab_cursor *cur) {
  checks_cursor *c = (checks_cursor *)cur;
  return c->row >= c->res.total;
}

static int checks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  checks_cursor *c = (checks_cursor *)cur;
  const ifs_check *k = &c->res.checks[c->row];
  switch (col) {
    case COL_SEQ: sqlite3_result_int64(ctx, (sqlite3_int64)c->row); break;
    case COL_KIND: sqlite3_result_text(ctx, ifs_kind_name(k->kind), -1, SQLITE_STATIC); break;
    case COL_LABEL:
      result_internal(ctx, c->res.labels.p + k->label_at, k->label_len, 0,
                      &((checks_vtab *)cur->pVtab)->conn->out);
      break;
    case COL_OK: sqlite3_result_int(ctx, k->ok != 0); break;
    case COL_RESPONSE:
    case COL_CONSTRAINTS:
      if (c->args[col - COL_RESPONSE]) sqlite3_result_value(ctx, c->args[col - COL_RESPONSE]);
      break;
    default: break;
  }
  return SQLITE_OK;
}

static int checks_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((checks_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module checks_module = {
  .iVersion = 0,
  .xCreate = NULL,           /* eponymous only */
  .xConnect = checks_connect,
  .xBestIndex = checks_best_index,
  .xDisconnect = checks_disconnect,
  .xDestroy = checks_disconnect,
  .xOpen = checks_open,
  .xClose = checks_close,
  .xFilter = checks_filter,
  .xNext = checks_next,
  .xEof = checks_eof,
  .xColumn = checks_column,
  .xRowid = checks_rowid,
};

/* ---- registration --------------------------------------------------- */

typedef struct fn_def {
  const char *name;
  int nargs;
  int extra_flags;
  void (*fn)(sqlite3_context *, int, sqlite3_value **);
} fn_def;

static const fn_def functions[] = {
  {"if_score", 2, 0, fn_score},
  {"if_reason", 2, 0, fn_reason},
  {"if_pass", 2, 0, fn_pass},
  {"if_pass", 3, 0, fn_pass},
  {"if_eval", 2, SQLITE_RESULT_SUBTYPE, fn_eval},
  {"if_version", 0, 0, fn_version},
  {"if_words", 1, 0, fn_words},
  {"if_chars", 1, 0, fn_chars},
  {"if_lower", 1, 0, fn_lower},
  {"if_is_json", 1, 0, fn_is_json},
  {"if_search", 2, 0, fn_search},
};

/* The library's one exported symbol: the rest of the core is built with
** hidden visibility, so that two copies in one process cannot clash. */
#ifdef _WIN32
__declspec(dllexport)
#elif defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int sqlite3_ifscore_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  ifs_conn *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  ifs_memo_init(&c->last);
  ifs_result_init(&c->res);
  c->ev = ifs_evaluator_new();
  if (!c->ev) { sqlite3_free(c); return SQLITE_NOMEM; }
  c->refs = 1;   /* held by this function until registration is done */
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < sizeof functions / sizeof functions[0] && rc == SQLITE_OK; i++) {
    const fn_def *f = &functions[i];
    c->refs++;   /* on failure SQLite calls conn_release itself */
    rc = sqlite3_create_function_v2(db, f->name, f->nargs, flags | f->extra_flags,
                                    c, f->fn, NULL, NULL, conn_release);
  }
  if (rc == SQLITE_OK) {
    c->refs++;
    rc = sqlite3_create_module_v2(db, "if_checks", &checks_module, c, conn_release);
  }
  conn_release(c);
  return rc;
}
