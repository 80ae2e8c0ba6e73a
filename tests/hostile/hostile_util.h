/*
** hostile_util.h — the small harness shared by tests/hostile/hostile.c and
** tests/hostile/threads.c: SQLite connections with the extension linked
** in statically (ext/ifscore.c built with -DSQLITE_CORE), statements run
** with bound arguments and their rows rendered to bytes without any
** allocation by SQLite (so a failing allocator only hits real work), and
** CHECK macros that count failures.
**
** Test programs may keep global state; the extension may not.
*/
#ifndef HOSTILE_UTIL_H
#define HOSTILE_UTIL_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sqlite3_ifscore_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

static int hu_failures;

/* 1: read TEXT columns through sqlite3_column_text (UTF-16 databases);
** 0: raw bytes through sqlite3_column_blob, which never allocates. */
static int hu_text_as_utf8;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
      hu_failures++; \
      fprintf(stderr, "  FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__); \
      fputc('\n', stderr); \
    } \
  } while (0)

/* ---- growable bytes (plain malloc: invisible to SQLite's accounting) ---- */

typedef struct hbuf { char *p; size_t n, cap; } hbuf;

static inline void hb_put(hbuf *b, const void *p, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) { fprintf(stderr, "test harness: out of memory\n"); exit(2); }
    b->p = q;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = 0;
}

static inline void hb_str(hbuf *b, const char *z) { hb_put(b, z, strlen(z)); }

static inline void hb_fmt(hbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  hb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* z repeated times, by doubling (the huge tests build 64 MB this way). */
static inline void hb_rep(hbuf *b, const char *z, size_t times) {
  size_t n = strlen(z), start = b->n, total = n * times;
  if (!times || !n) return;
  hb_put(b, z, n);
  while (b->n - start < total) {
    size_t chunk = b->n - start;
    if (chunk > total - (b->n - start)) chunk = total - (b->n - start);
    hb_put(b, NULL, 0);                       /* no-op: keeps b->p valid */
    if (b->n + chunk + 1 > b->cap) {          /* grow before copying from b */
      size_t cap = b->cap;
      while (cap < b->n + chunk + 1) cap *= 2;
      char *q = realloc(b->p, cap);
      if (!q) { fprintf(stderr, "test harness: out of memory\n"); exit(2); }
      b->p = q;
      b->cap = cap;
    }
    memcpy(b->p + b->n, b->p + start, chunk);
    b->n += chunk;
    b->p[b->n] = 0;
  }
}

static inline void hb_free(hbuf *b) { free(b->p); b->p = NULL; b->n = b->cap = 0; }

static inline int hb_eq(const hbuf *b, const char *p, size_t n) {
  return b->n == n && (n == 0 || memcmp(b->p, p, n) == 0);
}

/* ---- arguments ---- */

typedef struct harg {
  int type;            /* SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL, SQLITE_FLOAT */
  const char *p;
  size_t n;
  double d;
} harg;

#define A_TEXT(s) ((harg){SQLITE_TEXT, (s), sizeof(s) - 1, 0})
#define A_TEXTN(s, len) ((harg){SQLITE_TEXT, (s), (len), 0})
#define A_BLOBN(s, len) ((harg){SQLITE_BLOB, (s), (len), 0})
#define A_NULL ((harg){SQLITE_NULL, NULL, 0, 0})
#define A_REAL(x) ((harg){SQLITE_FLOAT, NULL, 0, (x)})

/* Binds args[i] to ?i+1, as many as the statement has parameters. */
static inline int hu_bind(sqlite3_stmt *st, const harg *args, int nargs) {
  int np = sqlite3_bind_parameter_count(st);
  for (int i = 0; i < nargs && i < np; i++) {
    int rc;
    const harg *a = &args[i];
    if (a->type == SQLITE_TEXT)
      rc = sqlite3_bind_text64(st, i + 1, a->p ? a->p : "", a->n, SQLITE_STATIC, SQLITE_UTF8);
    else if (a->type == SQLITE_BLOB)
      rc = sqlite3_bind_blob64(st, i + 1, a->p ? a->p : "", a->n, SQLITE_STATIC);
    else if (a->type == SQLITE_FLOAT)
      rc = sqlite3_bind_double(st, i + 1, a->d);
    else
      rc = sqlite3_bind_null(st, i + 1);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Appends the current row, columns joined by '|', without asking SQLite
** to convert (and so to allocate) anything. */
static inline void hu_render_row(sqlite3_stmt *st, hbuf *out) {
  int nc = sqlite3_column_count(st);
  for (int c = 0; c < nc; c++) {
    if (c) hb_put(out, "|", 1);
    switch (sqlite3_column_type(st, c)) {
      case SQLITE_NULL: hb_str(out, "NULL"); break;
      case SQLITE_INTEGER: hb_fmt(out, "%lld", (long long)sqlite3_column_int64(st, c)); break;
      case SQLITE_FLOAT: {      /* as the sqlite3 CLI shows it; no allocation */
        char tmp[64];
        sqlite3_snprintf(sizeof tmp, tmp, "%!.15g", sqlite3_column_double(st, c));
        hb_str(out, tmp);
        break;
      }
      case SQLITE_TEXT:
        if (hu_text_as_utf8) {
          const unsigned char *p = sqlite3_column_text(st, c);
          hb_put(out, p, (size_t)sqlite3_column_bytes(st, c));
          break;
        }
        /* fall through */
      default: {
        const void *p = sqlite3_column_blob(st, c);
        hb_put(out, p, (size_t)sqlite3_column_bytes(st, c));
      }
    }
  }
  hb_put(out, "\n", 1);
}

/* Steps st to the end, rendering rows into out; the final step code
** (SQLITE_DONE on success). */
static inline int hu_steps(sqlite3_stmt *st, hbuf *out) {
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) hu_render_row(st, out);
  return rc;
}

/* Runs sql with args; rows rendered into out (cleared first).  Returns
** SQLITE_OK, or the error code of prepare/bind/step. */
static inline int hu_run(sqlite3 *db, const char *sql, const harg *args, int nargs, hbuf *out) {
  sqlite3_stmt *st = NULL;
  out->n = 0;
  if (out->p) out->p[0] = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
  rc = hu_bind(st, args, nargs);
  if (rc == SQLITE_OK) rc = hu_steps(st, out);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static inline void hu_exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  CHECK(rc == SQLITE_OK, "exec [%.80s]: %s", sql, err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
}

/* A connection to path (":memory:" or a file) with the extension. */
static inline sqlite3 *hu_open(const char *path, int flags) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, flags ? flags : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_ifscore_init(db, NULL, NULL);
  if (rc != SQLITE_OK) {
    fprintf(stderr, "open %s: %s\n", path, sqlite3_errstr(rc));
    exit(2);
  }
  return db;
}

static inline double hu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double hu_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Shows at most 160 bytes of b, escaped, for failure messages. */
static inline const char *hu_show(const char *p, size_t n) {
  static char tmp[1024];   /* harness only */
  size_t o = 0;
  for (size_t i = 0; i < n && i < 160 && o + 8 < sizeof tmp; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') tmp[o++] = (char)c;
    else o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", c);
  }
  if (n > 160) o += (size_t)snprintf(tmp + o, sizeof tmp - o, "...(%zu bytes)", n);
  tmp[o] = 0;
  return tmp;
}

#endif
