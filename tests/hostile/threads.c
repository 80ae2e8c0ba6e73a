/*
** threads.c — several threads, each with its own connection, score the
** same corpus at once (make test-threads, built with -fsanitize=thread).
**
** The corpus (a temporary database file) is synthetic — responses x
** constraints covering every check kind, invalid bytes, NULs, deep JSON
** and more distinct patterns than the regex cache holds — plus the real
** rows of ../shared/data/ifeval_cases.jsonl when that file exists.  A view
** over it uses every function and if_checks; the threads read it with
** trusted_schema=OFF.  Each row's output is hashed on one thread first;
** then THREADS threads read the view in different orders, several rounds,
** on long-lived and on fresh connections, and every row must hash the same.
** Each thread also closes a connection mid-statement (close_v2 before
** finalize).  At the end sqlite3_memory_used() is back to its baseline.
**
**   build/tsan/threads [THREADS] [ROUNDS]
*/
#include "hostile_util.h"
#include <pthread.h>
#include <unistd.h>

#define MAX_ROWS 8192

static char db_path[256];
static int nrows;
static uint64_t base_hash[MAX_ROWS + 1];

static const char view_sql[] =
  "CREATE VIEW v AS SELECT id, if_score(r, c), if_reason(r, c), if_pass(r, c),"
  " if_pass(r, c, 0.8), if_eval(r, c),"
  " (SELECT group_concat(seq || kind || label || ok, '|') FROM if_checks(corpus.r, corpus.c)),"
  " if_words(r), if_chars(r), if_lower(r), if_is_json(r), if_search(r, p)"
  " FROM corpus";

static uint64_t fnv(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) { h ^= (unsigned char)p[i]; h *= 1099511628211ull; }
  return h;
}

/* ---- the corpus ---- */

static const char *const responses[] = {
  "Hello World, this is a short answer.",
  "```json\n{\"name\": \"Ann\", \"age\": 31}\n```",
  "\xc4\xb0stanbul \xce\xa3\xce\x9f\xce\xa6\xce\x9f\xce\xa3 stra\xc3\x9f" "e \xef\xac\x83 K\xe2\x84\xaa",
  "bad \xff\xfe bytes \xed\xa0\x80 and \xc0\xaf here",
  "one\ttwo\x1cthree\xc2\xa0" "four\xe2\x80\xa8" "five\xe3\x80\x80six\xe2\x80\x8bseven",
  "P.S. I am Dave.\n\nPeace!\n",
  "",
  "* bullet one\n* bullet two\n* bullet three\nSection 1\nSection 2",
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
  "The answer is 42. THE ANSWER IS 42! the answer is forty-two?",
};

static const char *const constraints[] = {
  "{\"max_words\": 5}", "{\"min_words\": \"\\u0661\\u0662\"}", "{\"max_chars\": 1e20}",
  "{\"must_be_json\": true}", "{\"must_be_json\": \"false\", \"max_words\": 100}",
  "{\"must_include\": [\"hello\", \"i\\u0307stanbul\", \"\\u03c3\\u03bf\\u03c6\\u03bf\\u03c2\"]}",
  "{\"must_exclude\": [\",\", \"\\udcff\", 1.0, null, {\"k\": [true]}]}",
  "{\"regex\": \"Peace!\\\\s*\\\\Z\"}", "{\"regex\": \"(?i)^the answer\"}",
  "{\"regex\": \"\\\\bbullet\\\\s+(one|two)\\\\b\", \"must_include\": \"Section\"}",
  "{\"regex\": \"(\"}", "{\"regex\": \"\\\\p{L}\"}", "[1]", "null", "{}", "{\"max_words\": 1,}",
  "{\"foo\": 1}", "{\"max_words\": NaN, \"min_words\": -Infinity, \"max_chars\": \"1_0\"}",
  "{\"regex\": \"(?i)(\\\\w)\\\\1\", \"must_exclude\": \"SS\"}",
  "{\"regex\": \"^.{3,}$\", \"max_chars\": 60, \"min_words\": 2}",
};

static int exec_ok(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) fprintf(stderr, "setup: %s\n", err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  return rc == SQLITE_OK;
}

/* The shared data file as one JSON array, or NULL. */
static char *shared_rows_as_array(void) {
  const char *path = getenv("IFSCORE_CORPUS");
  FILE *f = fopen(path ? path : "../shared/data/ifeval_cases.jsonl", "rb");
  if (!f) return NULL;
  hbuf b = {0};
  char line[1 << 16];
  int first = 1;
  hb_put(&b, "[", 1);
  /* lines longer than the buffer continue in the next fgets: join them */
  int at_start = 1;
  while (fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    int ends = n && line[n - 1] == '\n';
    if (ends) line[--n] = 0;
    if (at_start && n == 0) continue;
    if (at_start && !first) hb_put(&b, ",", 1);
    hb_put(&b, line, n);
    first = 0;
    at_start = ends;
  }
  fclose(f);
  hb_put(&b, "]", 1);
  return b.p;
}

static void make_corpus(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(db_path, sizeof db_path, "%s/ifscore-threads-%d.db", tmp ? tmp : "/tmp", (int)getpid());
  unlink(db_path);
  sqlite3 *db = hu_open(db_path, 0);
  exec_ok(db, "CREATE TABLE corpus(id INTEGER PRIMARY KEY, r, c, p)");
  exec_ok(db, view_sql);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO corpus(r, c, p) VALUES (?1, ?2, ?3)", -1, &st, NULL);
  const int nr = (int)(sizeof responses / sizeof *responses);
  const int nc = (int)(sizeof constraints / sizeof *constraints);
  exec_ok(db, "BEGIN");
  for (int i = 0; i < nr * nc * 2; i++) {
    const char *r = responses[i % nr], *c = constraints[(i / nr) % nc];
    char pat[64];
    snprintf(pat, sizeof pat, "(?i)%c\\w*|\\d{%d}|x%d", 'a' + i % 26, 1 + i % 3, i);  /* ~400 patterns */
    if (i % 7 == 3) sqlite3_bind_blob(st, 1, r, (int)strlen(r) + 1, SQLITE_STATIC);  /* with NUL */
    else sqlite3_bind_text(st, 1, r, -1, SQLITE_STATIC);
    if (i % 11 == 5) sqlite3_bind_null(st, 2);
    else sqlite3_bind_text(st, 2, c, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, pat, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  char *shared = shared_rows_as_array();
  if (shared) {
    sqlite3_prepare_v2(db, "INSERT INTO corpus(r, c, p) SELECT value ->> '$.response',"
                       " json(value -> '$.constraints'), value -> '$.constraints' ->> '$.regex'"
                       " FROM json_each(?1)", -1, &st, NULL);
    sqlite3_bind_text(st, 1, shared, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) fprintf(stderr, "shared corpus: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    free(shared);
  }
  exec_ok(db, "COMMIT");
  sqlite3_prepare_v2(db, "SELECT max(id) FROM corpus", -1, &st, NULL);
  sqlite3_step(st);
  nrows = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (nrows > MAX_ROWS) nrows = MAX_ROWS;
}

/* ---- reading ---- */

static sqlite3 *open_reader(void) {
  sqlite3 *db = hu_open(db_path, SQLITE_OPEN_READONLY);
  exec_ok(db, "PRAGMA trusted_schema = OFF");
  return db;
}

/* Reads the view in an order; mismatching rows counted (or hashes set). */
static int read_all(sqlite3 *db, const char *order, int record) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT * FROM v WHERE id <= %d ORDER BY %s", nrows, order);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  hbuf row = {0};
  int bad = 0, rc, seen = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int id = sqlite3_column_int(st, 0);
    row.n = 0;
    hu_render_row(st, &row);
    uint64_t h = fnv(row.p, row.n);
    if (record) base_hash[id] = h;
    else if (base_hash[id] != h) {
      if (bad++ < 3) fprintf(stderr, "  row %d differs from the single-threaded answer\n", id);
    }
    seen++;
  }
  if (rc != SQLITE_DONE) { fprintf(stderr, "step: %s\n", sqlite3_errmsg(db)); bad++; }
  if (seen != nrows) { fprintf(stderr, "saw %d rows of %d\n", seen, nrows); bad++; }
  sqlite3_finalize(st);
  hb_free(&row);
  return bad;
}

typedef struct worker { int index, rounds, bad; } worker;

static const char *const orders[] = {
  "id", "id DESC", "(id * 7919) % 1009, id", "4, id", "12 DESC, 2, id",
};

static void *work(void *arg) {
  worker *w = arg;
  sqlite3 *db = open_reader();
  for (int k = 0; k < w->rounds; k++)
    w->bad += read_all(db, orders[(w->index + k) % 5], 0);
  sqlite3_close(db);
  db = open_reader();                          /* a fresh connection, cold caches */
  w->bad += read_all(db, orders[(w->index + 2) % 5], 0);
  /* closed mid-statement: the zombie goes when the statement is finalized */
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT * FROM v ORDER BY id DESC", -1, &st, NULL);
  for (int i = 0; i < 25; i++) sqlite3_step(st);
  if (sqlite3_close_v2(db) != SQLITE_OK) w->bad++;
  sqlite3_finalize(st);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  int rounds = argc > 2 ? atoi(argv[2]) : 3;
  if (threads < 1 || threads > 64 || rounds < 1) { fprintf(stderr, "bad arguments\n"); return 2; }
  sqlite3_initialize();
  sqlite3_close(hu_open(":memory:", 0));
  sqlite3_int64 base = sqlite3_memory_used();
  double t0 = hu_now();
  make_corpus();
  sqlite3 *db = open_reader();
  int bad = read_all(db, "id", 1);
  sqlite3_close(db);
  CHECK(bad == 0, "the single-threaded pass failed");

  pthread_t tid[64];
  worker w[64];
  for (int i = 0; i < threads; i++) {
    w[i] = (worker){i, rounds, 0};
    CHECK(pthread_create(&tid[i], NULL, work, &w[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < threads; i++) {
    pthread_join(tid[i], NULL);
    CHECK(w[i].bad == 0, "thread %d: %d rows differ", i, w[i].bad);
  }
  unlink(db_path);
  CHECK(sqlite3_memory_used() == base, "%lld bytes still allocated after every close",
        (long long)(sqlite3_memory_used() - base));
  printf("threads: %d rows x %d threads x %d rounds (+1 fresh), %s (%.1f s)\n", nrows, threads,
         rounds, hu_failures ? "FAILED" : "all equal to the single-threaded answers",
         hu_now() - t0);
  return hu_failures ? 1 : 0;
}
