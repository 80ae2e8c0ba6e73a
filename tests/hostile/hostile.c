/*
** hostile.c — hostile-input and fault tests of the ifscore extension
** (make test-hostile).  SQLite and the extension are linked into this
** program (ext/ifscore.c built with -DSQLITE_CORE), built with ASan+UBSan.
**
** Every SQL function goes through SQLite with exact expected values:
**   huge      responses of 64 MB and 80 MB
**   deep      JSON nested a million deep, closed and unclosed, as response
**             (must_be_json, if_is_json) and as constraints / needles /
**             patterns
**   needles   100,000 needles, 100,000 duplicate keys, 4300-digit numbers,
**             1e308, 1e400, Unicode digits
**   bytes     invalid UTF-8 and NUL bytes in every argument, BLOB/number
**             arguments
**   regex     catastrophic patterns end within about two seconds of CPU:
**             regular ones (case-insensitive ones too) with Python's
**             answer (the DFA), the others with "(match limit exceeded)"
**             (or the true answer), and the connection keeps working
**             afterwards
**   oom       every statement under a failing allocator
**             (SQLITE_CONFIG_MALLOC), failing the Nth allocation for every
**             N until the statement completes: SQLITE_NOMEM or the exact
**             answer, the same connection answers right afterwards, and
**             sqlite3_memory_used() is back to its baseline after close;
**             the same for the extension's registration
**   toobig    results over SQLITE_LIMIT_LENGTH give SQLITE_TOOBIG
**   close     a connection closed mid-statement (sqlite3_close -> BUSY,
**             sqlite3_close_v2 -> zombie) frees everything once finalized
**   schema    every function in generated columns, CHECK, an expression
**             index, a view (with if_checks) and a trigger, reopened with
**             trusted_schema=OFF; a UTF-16 database gives the same answers
**
** Tests listed in xfail[] are known, reported failures: they print XFAIL
** and do not fail the run; when one starts passing it prints XPASS and
** fails the run, so that it gets moved out of the list.
**
**   build/san/hostile [TEST...]      (no name: all)
*/
#include "hostile_util.h"
#include <unistd.h>

#define MB (1024u * 1024u)
#define EM_DASH "\xE2\x80\x94"
#define INVALID_JSON "invalid constraints JSON " EM_DASH " cannot score"

/* ---- the failing allocator ------------------------------------------ */

static sqlite3_mem_methods base_mem;
static long fail_at;        /* allocation number that fails; 0 = never */
static long alloc_count;
static int fail_sticky;     /* 1: every allocation after fail_at fails too */
static int fail_fired;

static int should_fail(void) {
  if (!fail_at) return 0;
  alloc_count++;
  if (alloc_count == fail_at || (fail_sticky && alloc_count > fail_at)) {
    fail_fired = 1;
    return 1;
  }
  return 0;
}

static void *fx_malloc(int n) { return should_fail() ? NULL : base_mem.xMalloc(n); }
static void *fx_realloc(void *p, int n) { return should_fail() ? NULL : base_mem.xRealloc(p, n); }

static void arm(long n, int sticky) {
  alloc_count = 0;
  fail_fired = 0;
  fail_sticky = sticky;
  fail_at = n;
}

static void disarm(void) { fail_at = 0; }

static void install_allocator(void) {
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base_mem);
  sqlite3_mem_methods m = base_mem;
  m.xMalloc = fx_malloc;
  m.xRealloc = fx_realloc;
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1) != SQLITE_OK) {
    fprintf(stderr, "cannot install the test allocator\n");
    exit(2);
  }
  sqlite3_initialize();
}

/* ---- expectations ---------------------------------------------------- */

/* One statement, one expected rendering (rows "a|b\n"). */
static void expect_rows(sqlite3 *db, const char *sql, const harg *args, int nargs,
                        const char *want, size_t wn, const char *what) {
  hbuf out = {0};
  int rc = hu_run(db, sql, args, nargs, &out);
  CHECK(rc == SQLITE_OK, "%s: %s (%s)", what, sqlite3_errstr(rc), sqlite3_errmsg(db));
  if (rc == SQLITE_OK && !hb_eq(&out, want, wn)) {
    hu_failures++;
    fprintf(stderr, "  FAIL %s\n    got  %s\n", what, hu_show(out.p ? out.p : "", out.n));
    fprintf(stderr, "    want %s\n", hu_show(want, wn));
  }
  hb_free(&out);
}

#define EXPECT0(db, sql, want, what) \
  expect_rows((db), (sql), NULL, 0, (want), strlen(want), (what))

#define EXPECT(db, sql, want, what, ...) do { \
    harg a_[] = {__VA_ARGS__}; \
    expect_rows((db), (sql), a_, (int)(sizeof a_ / sizeof a_[0]), (want), strlen(want), (what)); \
  } while (0)

static void expect_error(sqlite3 *db, const char *sql, const harg *args, int nargs,
                         int want_rc, const char *what) {
  hbuf out = {0};
  int rc = hu_run(db, sql, args, nargs, &out);
  CHECK(rc == want_rc, "%s: got %s, want %s", what, sqlite3_errstr(rc), sqlite3_errstr(want_rc));
  hb_free(&out);
}

/* Expected "reason\n" rows are often built: a helper for one text column. */
static void expect_buf(sqlite3 *db, const char *sql, const harg *args, int nargs,
                       const hbuf *want, const char *what) {
  expect_rows(db, sql, args, nargs, want->p ? want->p : "", want->n, what);
}

/* ---- huge responses -------------------------------------------------- */

static void test_huge(void) {
  sqlite3 *db = hu_open(":memory:", 0);
  const size_t words = 64 * MB / 5 + 1;            /* 67,108,865 bytes */
  hbuf r = {0};
  hb_rep(&r, "word ", words);
  harg resp = A_TEXTN(r.p, r.n);
  hbuf want = {0};

  hb_fmt(&want, "%zu|%zu\n", words, 5 * words);
  expect_buf(db, "SELECT if_words(?1), if_chars(?1)", &resp, 1, &want, "64MB words/chars");

  char cons[256];
  snprintf(cons, sizeof cons, "{\"max_words\": %zu}", words - 1);
  harg a2[] = {resp, A_TEXTN(cons, strlen(cons))};
  want.n = 0;
  hb_fmt(&want, "0.0|0/1 satisfied; failed: max_words<=%zu (got %zu)\n", words - 1, words);
  expect_buf(db, "SELECT printf('%.1f', if_score(?1, ?2)), if_reason(?1, ?2)", a2, 2, &want,
             "64MB max_words");

  snprintf(cons, sizeof cons,
           "{\"min_words\": %zu, \"max_chars\": %zu, \"must_include\": [\"WORD\", \"zebra\"],"
           " \"must_exclude\": \"xyz\", \"regex\": \"word $\", \"must_be_json\": true}",
           words, 5 * words);
  harg a3[] = {resp, A_TEXTN(cons, strlen(cons))};
  EXPECT(db, "SELECT if_reason(?1, ?2), if_pass(?1, ?2), if_pass(?1, ?2, 0.75)",
         "5/7 satisfied; failed: must_be_json; must_include 'zebra'|1|0\n", "64MB all kinds",
         a3[0], a3[1]);

  /* if_lower of 64 MB: ASCII lowercase text comes back unchanged */
  hbuf out = {0};
  int rc = hu_run(db, "SELECT if_lower(?1)", &resp, 1, &out);
  CHECK(rc == SQLITE_OK && out.n == r.n + 1 && memcmp(out.p, r.p, r.n) == 0, "64MB if_lower");

  /* the same bytes as a BLOB, with a bad byte and a NUL at the end */
  hb_put(&r, "\xff\x00Z", 3);
  harg blob = A_BLOBN(r.p, r.n);
  want.n = 0;
  hb_fmt(&want, "%zu|%zu|0\n", words + 1, 5 * words + 3);
  expect_buf(db, "SELECT if_words(?1), if_chars(?1), if_search(?1, '\\xff')",
             &blob, 1, &want, "64MB blob with bad bytes (\\xff is U+00FF, absent)");
  want.n = 0;
  hb_fmt(&want, "%zu|%zu|1\n", words + 1, 5 * words + 3);
  expect_buf(db, "SELECT if_words(?1), if_chars(?1), if_search(?1, '(?i)\\udcff\\x00z$')",
             &blob, 1, &want, "64MB blob: regex over escaped bytes");

  /* 64 MB of JSON for must_be_json */
  r.n = 0;
  hb_str(&r, "```json\n[");
  hb_rep(&r, "1,", 32 * MB);
  hb_str(&r, "1]\n```");
  harg json = A_TEXTN(r.p, r.n);
  EXPECT(db, "SELECT if_is_json(?1), if_score(?1, '{\"must_be_json\": 1}')", "1|1.0\n",
         "64MB JSON array", json);
  r.p[r.n - 5] = ',';    /* "1,\n```": trailing comma */
  EXPECT(db, "SELECT if_is_json(?1), if_score(?1, '{\"must_be_json\": 1}')", "0|0.0\n",
         "64MB JSON array, trailing comma", json);

  /* 80 MB: one long word and another */
  r.n = 0;
  hb_rep(&r, "xxxxxxxxxxxxxxxx", 5 * MB);
  hb_str(&r, " y");
  harg big = A_TEXTN(r.p, r.n);
  want.n = 0;
  hb_fmt(&want, "2|%zu|1|1.0\n", r.n);
  expect_buf(db, "SELECT if_words(?1), if_chars(?1), if_search(?1, 'x y$'),"
                 " if_score(?1, '{\"must_include\": \"X Y\"}')", &big, 1, &want, "80MB");
  hb_free(&out);
  hb_free(&want);
  hb_free(&r);
  sqlite3_close(db);
}

/* ---- deep JSON ---------------------------------------------------------- */

static void test_deep(void) {
  sqlite3 *db = hu_open(":memory:", 0);
  const size_t depth = 1000000;
  hbuf d = {0}, c = {0}, w = {0};
  hb_rep(&d, "[", depth);
  hb_rep(&d, "]", depth);
  harg deep = A_TEXTN(d.p, d.n);
  harg unclosed = A_TEXTN(d.p, d.n - 1);

  EXPECT(db, "SELECT if_is_json(?1), if_score(?1, '{\"must_be_json\": true}')", "1|1.0\n",
         "deep valid response", deep);
  EXPECT(db, "SELECT if_is_json(?1), if_reason(?1, '{\"must_be_json\": true}')",
         "0|0/1 satisfied; failed: must_be_json\n", "deep unclosed response", unclosed);

  /* as an unknown key's value: ignored; unclosed: invalid JSON */
  hb_str(&c, "{\"max_words\": 1, \"x\": ");
  hb_put(&c, d.p, d.n);
  hb_str(&c, "}");
  harg cons[] = {A_TEXT("hi"), A_TEXTN(c.p, c.n)};
  EXPECT(db, "SELECT if_reason(?1, ?2)", "all 1 constraints satisfied\n", "deep constraints",
         cons[0], cons[1]);
  cons[1].n = c.n - 2;      /* drop the last ']' and '}' */
  EXPECT(db, "SELECT if_reason(?1, ?2), if_score(?1, ?2) IS NULL", INVALID_JSON "|1\n",
         "deep unclosed constraints", cons[0], cons[1]);

  /* a million-deep list as must_include: its one element is the needle,
  ** str() of a list 999,999 deep */
  c.n = 0;
  hb_str(&c, "{\"must_include\": ");
  hb_put(&c, d.p, d.n);
  hb_str(&c, "}");
  cons[1] = A_TEXTN(c.p, c.n);
  hb_str(&w, "0/1 satisfied; failed: must_include '");
  hb_put(&w, d.p + 1, d.n - 2);
  hb_str(&w, "'\n");
  harg pair[] = {A_TEXT("hi"), cons[1]};
  expect_buf(db, "SELECT if_reason(?1, ?2)", pair, 2, &w, "deep needle, absent");
  harg pair2[] = {deep, cons[1]};
  EXPECT(db, "SELECT if_score(?1, ?2)", "1.0\n", "deep needle, present", pair2[0], pair2[1]);

  /* a million-deep object as a needle: {'a': {'a': ... 1}} */
  c.n = 0;
  hb_str(&c, "{\"must_exclude\": ");
  hb_rep(&c, "{\"a\":", depth);
  hb_str(&c, "1");
  hb_rep(&c, "}", depth);
  hb_str(&c, "}");
  hbuf r = {0};
  hb_str(&r, "<");
  hb_rep(&r, "{'a': ", depth);
  hb_str(&r, "1");
  hb_rep(&r, "}", depth);
  hb_str(&r, ">");
  harg pair3[] = {A_TEXTN(r.p, r.n), A_TEXTN(c.p, c.n)};
  w.n = 0;
  hb_str(&w, "0.0|1\n");
  expect_buf(db, "SELECT if_score(?1, ?2), length(if_reason(?1, ?2)) = length(?1) + 36",
             pair3, 2, &w, "deep object needle");

  /* as a pattern: str() gives "[[[...]]]", a set then 999,999 ']' */
  c.n = 0;
  hb_str(&c, "{\"regex\": ");
  hb_put(&c, d.p, d.n);
  hb_str(&c, "}");
  w.n = 0;
  hb_str(&w, "0/1 satisfied; failed: regex /");
  hb_put(&w, d.p, d.n);
  hb_str(&w, "/\n");
  harg pair4[] = {A_TEXT("[]]]"), A_TEXTN(c.p, c.n)};
  expect_buf(db, "SELECT if_reason(?1, ?2)", pair4, 2, &w, "deep pattern");

  /* deep value where a number is wanted */
  c.n = 0;
  hb_str(&c, "{\"max_words\": ");
  hb_put(&c, d.p, d.n);
  hb_str(&c, "}");
  harg pair5[] = {A_TEXT("hi"), A_TEXTN(c.p, c.n)};
  EXPECT(db, "SELECT if_reason(?1, ?2)", "0/1 satisfied; failed: max_words (invalid value)\n",
         "deep limit value", pair5[0], pair5[1]);
  EXPECT(db, "SELECT count(*), sum(ok) FROM if_checks(?1, ?2)", "1|0\n", "deep if_checks",
         pair5[0], pair5[1]);
  hb_free(&d);
  hb_free(&c);
  hb_free(&w);
  hb_free(&r);
  sqlite3_close(db);
}

/* ---- many needles, big numbers -------------------------------------------- */

static void test_needles(void) {
  sqlite3 *db = hu_open(":memory:", 0);
  const int n = 100000;
  hbuf resp = {0}, c = {0}, w = {0};
  /* even needles "n0".."n99" (repeating) are in the response, odd ones
  ** "m1", "m3"... are not: 50,000 pass, 50,000 fail */
  for (int i = 0; i < 100; i++) hb_fmt(&resp, "n%d. ", i);
  hb_str(&c, "{\"must_include\": [");
  for (int i = 0; i < n; i++)
    hb_fmt(&c, "%s\"%c%d\"", i ? ", " : "", i % 2 ? 'm' : 'n', i % 2 ? i : (i / 2) % 100);
  hb_str(&c, "]}");
  hb_fmt(&w, "0.5|%d/%d satisfied; failed: ", n / 2, n);
  for (int i = 1; i < n; i += 2) hb_fmt(&w, "%smust_include 'm%d'", i > 1 ? "; " : "", i);
  hb_str(&w, "\n");
  harg a[] = {A_TEXTN(resp.p, resp.n), A_TEXTN(c.p, c.n)};
  expect_buf(db, "SELECT if_score(?1, ?2), if_reason(?1, ?2)", a, 2, &w, "100k needles");
  EXPECT(db, "SELECT count(*), sum(ok), max(seq) FROM if_checks(?1, ?2)", "100000|50000|99999\n",
         "100k needles, if_checks", a[0], a[1]);

  /* the same as must_exclude: the other half fails */
  memcpy(c.p + 7, "exclude", 7);
  w.n = 0;
  hb_fmt(&w, "0.5|%d/%d satisfied; failed: ", n / 2, n);
  for (int i = 0; i < n; i += 2) hb_fmt(&w, "%smust_exclude 'n%d'", i ? "; " : "", (i / 2) % 100);
  hb_str(&w, "\n");
  expect_buf(db, "SELECT if_score(?1, ?2), if_reason(?1, ?2)", a, 2, &w, "100k excluded needles");

  /* 100,000 duplicate keys: the last one wins */
  c.n = 0;
  hb_str(&c, "{");
  for (int i = 0; i < n; i++) hb_fmt(&c, "%s\"max_words\": %d", i ? ", " : "", i);
  hb_str(&c, "}");
  harg dup[] = {A_TEXT("a b c"), A_TEXTN(c.p, c.n)};
  EXPECT(db, "SELECT if_reason(?1, ?2)", "all 1 constraints satisfied\n", "100k duplicate keys",
         dup[0], dup[1]);
  /* 100,000 distinct unknown keys around one known */
  c.n = 0;
  hb_str(&c, "{");
  for (int i = 0; i < n; i++) hb_fmt(&c, "\"k%d\": [%d], ", i, i);
  hb_str(&c, "\"min_words\": 4}");
  dup[1] = A_TEXTN(c.p, c.n);
  EXPECT(db, "SELECT if_reason(?1, ?2)", "0/1 satisfied; failed: min_words>=4 (got 3)\n",
         "100k unknown keys", dup[0], dup[1]);

  /* numbers: 4300 digits fine, 4301 invalid JSON / invalid value */
  c.n = 0;
  hb_str(&c, "{\"min_words\": ");
  hb_rep(&c, "9", 4300);
  hb_str(&c, "}");
  w.n = 0;
  hb_str(&w, "0/1 satisfied; failed: min_words>=");
  hb_rep(&w, "9", 4300);
  hb_str(&w, " (got 3)\n");
  harg num[] = {A_TEXT("a b c"), A_TEXTN(c.p, c.n)};
  expect_buf(db, "SELECT if_reason(?1, ?2)", num, 2, &w, "4300-digit limit");
  c.n = 0;
  hb_str(&c, "{\"min_words\": -");
  hb_rep(&c, "9", 4301);
  hb_str(&c, "}");
  num[1] = A_TEXTN(c.p, c.n);
  EXPECT(db, "SELECT if_reason(?1, ?2)", INVALID_JSON "\n", "4301-digit literal", num[0], num[1]);
  c.n = 0;
  hb_str(&c, "{\"max_words\": \"");
  hb_rep(&c, "9", 4301);
  hb_str(&c, "\", \"max_chars\": \" 0_0_");
  hb_rep(&c, "0", 4295);
  hb_str(&c, "7 \"}");
  num[1] = A_TEXTN(c.p, c.n);
  EXPECT(db, "SELECT if_reason(?1, ?2)",
         "1/2 satisfied; failed: max_words (invalid value)\n", "4301/4300-digit strings",
         num[0], num[1]);
  EXPECT0(db, "SELECT if_reason('one two', '{\"max_words\": 1e308, \"min_words\": 1e308}')",
         "1/2 satisfied; failed: min_words>=1000000000000000010979063629440455417404923096773118"
         "4633681068290315758540491149153716332897849468889906124966972117251561159028374314008"
         "8328307009198146046031271664502933027185697489699588559043338384466165001178426897626"
         "2129451776280911957867074581227839701717844151052918028932078732729748857154302231183"
         "36 (got 2)\n", "1e308");
  EXPECT0(db, "SELECT if_reason('a b c', '{\"max_words\": -1.5e300, \"min_words\": \"\\u0661\\u0662\","
             " \"max_chars\": 1e400}')",
         "0/3 satisfied; failed: max_words<=-150000000000000007875714038280663037305670287166223"
         "8732373781173267703686983362293679557062620671796065556665749325817265413784853040645"
         "8634671882771800604742725808013898637056067453506921821350890534298524561999176216785"
         "58451461320111979114170213741868888183230085264257173504208294580298189100810240"
         " (got 3); min_words>=12 (got 3); max_chars (invalid value)\n", "-1.5e300, Arabic digits, 1e400");
  hb_free(&resp);
  hb_free(&c);
  hb_free(&w);
  sqlite3_close(db);
}

/* ---- invalid UTF-8, NUL, odd argument types ------------------------------ */

static void test_bytes(void) {
  sqlite3 *db = hu_open(":memory:", 0);
  static const char nul3[] = "a\0b c";
  EXPECT(db, "SELECT if_chars(?1), if_words(?1), length(if_lower(?1))", "5|2|1\n",
         "NUL is a character (SQLite's length() stops at it)", A_TEXTN(nul3, 5));
  EXPECT(db, "SELECT if_chars(?1), if_words(?1), hex(if_lower(?1))", "5|2|6100622063\n",
         "NUL in a BLOB", A_BLOBN(nul3, 5));
  EXPECT0(db, "SELECT hex(if_lower(x'c4b0ff')), if_chars(x'eda080'), if_chars(x'f4908080'),"
             " if_chars(x'c080'), if_chars(x'e282'), if_chars(x'f8888080'), if_words(x'ff20fe')",
         "69CC87FF|3|4|2|2|4|2\n", "invalid UTF-8 counts one per byte");
  EXPECT0(db, "SELECT if_words(12345), if_chars(1.5), if_chars(-0.0), if_words(NULL) IS NULL,"
             " if_lower(NULL) IS NULL, if_is_json(NULL) IS NULL, if_search(NULL, 'x') IS NULL,"
             " if_search('x', NULL) IS NULL, if_is_json(12), if_is_json(x'5b315d')",
         "1|3|3|1|1|1|1|1|1|1\n", "numbers, NULL, BLOB arguments");

  static const char resp[] = "A\0\xff" "B \xc4\xb0";
  static const char cons[] = "{\"must_include\": [\"\\u0000\", \"i\\u0307\", \"\xff\", \"b\"],"
                             " \"must_exclude\": \"\\udcff\"}";
  harg rc2[] = {A_TEXTN(resp, sizeof resp - 1), A_TEXTN(cons, sizeof cons - 1)};
  EXPECT(db, "SELECT if_score(?1, ?2), if_reason(?1, ?2)",
         "0.8|4/5 satisfied; failed: must_exclude '\xff'\n",
         "bad bytes and NUL in needles", rc2[0], rc2[1]);
  harg rc2b[] = {A_BLOBN(resp, sizeof resp - 1), A_BLOBN(cons, sizeof cons - 1)};
  EXPECT(db, "SELECT if_score(?1, ?2), if_reason(?1, ?2)",
         "0.8|4/5 satisfied; failed: must_exclude '\xff'\n",
         "the same as BLOBs", rc2b[0], rc2b[1]);
  EXPECT(db, "SELECT json_valid(if_eval(?1, ?2)), if_eval(?1, ?2)",
         "1|{\"score\": 0.8, \"instruction_following\": 0.8, \"reason\": \"4/5 satisfied;"
         " failed: must_exclude '\\udcff'\"}\n",
         "if_eval escapes the byte as \\udcff", rc2[0], rc2[1]);
  EXPECT(db, "SELECT label FROM if_checks(?1, ?2) WHERE NOT ok", "must_exclude '\xff'\n",
         "if_checks label keeps the raw byte", rc2[0], rc2[1]);

  /* NUL and bad bytes outside JSON strings: invalid JSON */
  static const char c_nul[] = "{\"max_words\": 1\0}";
  static const char c_ff[] = "{\"max_words\": 1\xff}";
  static const char c_key[] = "{\"mu\0st_include\": \"a\"}";
  EXPECT(db, "SELECT if_reason('x', ?1)", INVALID_JSON "\n", "NUL after a value",
         A_TEXTN(c_nul, sizeof c_nul - 1));
  EXPECT(db, "SELECT if_reason('x', ?1)", INVALID_JSON "\n", "0xFF after a value",
         A_TEXTN(c_ff, sizeof c_ff - 1));
  EXPECT(db, "SELECT if_reason('x', ?1)", INVALID_JSON "\n", "raw NUL inside a key",
         A_TEXTN(c_key, sizeof c_key - 1));
  /* the expected text holds a NUL: compare by length */
  {
    static const char want[] = "0/1 satisfied; failed: must_include '\0'\n";
    harg none[1] = {A_NULL};
    expect_rows(db, "SELECT if_reason('x', '{\"must_include\": \"\\u0000\"}')", none, 0,
                want, sizeof want - 1, "escaped NUL needle, exact");
  }
  static const char two[] = "\xff\xfe";
  EXPECT(db, "SELECT if_score(?1, '{\"regex\": \"^..$\"}'), if_score(?1, '{\"regex\": \"\\\\udcff\"}'),"
             " if_search(?1, '\\udcfe$'), if_search(?1, '^\\w')",
         "1.0|1.0|1|0\n", "regex over escaped bytes", A_TEXTN(two, 2));
  /* NUL and bad bytes inside patterns, escaped or raw; NUL in a label */
  EXPECT0(db, "SELECT if_search(x'610062', 'a\\x00b'), if_search(x'610062', x'610062'),"
              " if_search(x'61ff', x'ff'), if_search('\xc3\xa9', x'ff'),"
              " if_search(x'61ff', '(?i)A\\udcff\\Z'), hex(label)"
              " FROM if_checks('x', '{\"must_include\": \"a\\u0000b\"}')",
          "1|1|1|0|1|6D7573745F696E636C756465202761006227\n", "NUL and bytes in patterns");
  /* overlong, surrogate, out-of-range and truncated sequences everywhere */
  static const char junk[] = "\xc0\xaf\xed\xa0\x80\xed\xbf\xbf\xf4\x90\x80\x80\xf0\x9f\x98\xe2\x82\x80";
  harg j3[] = {A_TEXTN(junk, sizeof junk - 1)};
  EXPECT(db, "SELECT if_chars(?1), if_words(?1), if_is_json(?1), if_search(?1, '\\x80'),"
             " if_score(?1, '{\"max_chars\": 16, \"must_include\": \"\\u00c0\"}')",
         "16|1|0|0|0.5\n", "junk bytes", j3[0]);
  sqlite3_close(db);
}

/* ---- catastrophic regexes ------------------------------------------------ */

typedef struct slow_case {
  const char *name;
  const char *pattern;     /* JSON-escaped */
  const char *unit;        /* the subject: unit x reps + tail */
  size_t reps;
  const char *tail;
  const char *alt_ok;      /* a second acceptable label suffix, or NULL */
  int exact;               /* regular (the DFA answers): alt_ok only */
} slow_case;

static const slow_case slow_cases[] = {
  /* regular patterns: the DFA gives Python's answer, in linear time */
  {"nested plus, short", "(a+)+$", "a", 30, "!", "", 1},
  {"nested plus, 100k", "(a+)+$", "a", 100000, "!", "", 1},
  {"nested plus, 64MB", "(a+)+$", "a", 64 * MB, "!", "", 1},
  {"alternation, y present", "(x|xx)+y", "x", 40, "zy", "", 1},
  {"alternation, 100k", "(x|xx)+y", "x", 100000, "zy", "", 1},
  {"alternation, no y", "(x|xx)+y", "x", 100000, "", "", 1},
  {"star of optional", "^(a|a?)+$", "a", 5000, "b", "", 1},
  {"nested groups", "((a*)*b)*c", "a", 20000, "", "", 1},
  {"runs", "(a+)+$", "aaaaaaaaaaaaaaaaaaaab", 400, "", "", 1},
  {"runs, 1 MB", "(a+)+$", "aaaaaaaaaaaaaaaaaaaab", 50000, "", "", 1},
  {"words and spaces", "^(\\\\w+\\\\s?)*$", "word ", 5000, "!", "", 1},
  {"polynomial runs", "a*a*a*a*c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 2000, "", "", 1},
  /* case-insensitive ones are regular too */
  {"words and spaces, caseless", "(?i)^(\\\\w+\\\\s?)*$", "word ", 5000, "!", "", 1},
  {"nested plus, caseless, 100k", "(?i)(a+)+$", "a", 100000, "!", "", 1},
  {"nested plus, caseless, 64MB", "(?i)(a+)+$", "a", 64 * MB, "!", "", 1},
  {"runs, caseless", "(?i)(a+)+$", "aaaaaaaaaaaaaaaaaaaab", 400, "", "", 1},
  {"polynomial runs, caseless", "(?i)a*a*a*a*c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 2000,
   "", "", 1},
  /* the others (back-references): PCRE2's budget, counted */
  {"case-insensitive backref", "(?i)(a+)+\\\\1$", "A", 3000, "!", NULL, 0},
  {"backref, 100k", "(a+)+\\\\1$", "a", 100000, "!", NULL, 0},
  {"backref, 64MB", "(a+)+\\\\1$", "a", 64 * MB, "!", NULL, 0},
  /* many start positions each under the per-position cap: the search's
  ** total budget stops them */
  {"runs under the budget", "(a+)+\\\\1c", "aaaaaaaaaaaaaaaaaaaab", 400, "c", NULL, 0},
  {"runs under the budget, 1 MB", "(a+)+\\\\1c", "aaaaaaaaaaaaaaaaaaaab", 50000, "c", NULL, 0},
  {"polynomial runs, backref", "(a*)a*a*a*\\\\1c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
   2000, "c", NULL, 0},
};

/* Known failures (none at present). */
static const char *const xfail[] = {
  NULL
};

static int is_xfail(const char *name) {
  for (int i = 0; xfail[i]; i++) if (strcmp(xfail[i], name) == 0) return 1;
  return 0;
}

static int xfail_seen, xpass_seen;

/* Runs one check group under a name that xfail[] may list. */
static void run_named(const char *name, void (*fn)(const void *), const void *arg) {
  int before = hu_failures;
  fn(arg);
  int failed = hu_failures > before;
  if (is_xfail(name)) {
    hu_failures = before;
    if (failed) { xfail_seen++; fprintf(stderr, "  XFAIL %s (known, reported)\n", name); }
    else { xpass_seen++; fprintf(stderr, "  XPASS %s: now passes, remove it from xfail[]\n", name); }
  }
}

static sqlite3 *slow_db;

static void one_slow(const void *p) {
  const slow_case *k = p;
  hbuf subj = {0}, cons = {0}, want = {0};
  hb_rep(&subj, k->unit, k->reps);
  hb_str(&subj, k->tail);
  hb_fmt(&cons, "{\"regex\": \"%s\"}", k->pattern);
  harg a[] = {A_TEXTN(subj.p, subj.n), A_TEXTN(cons.p, cons.n)};
  hbuf out = {0};
  /* CPU time of this process (other load on the machine does not count),
  ** less that of a plain pattern on the same subject: what is timed is the
  ** regex work, not reading 64 MB in an ASan build */
  harg plain[] = {a[0], A_TEXT("{\"regex\": \"\\\\A!\"}")};
  hbuf tmp = {0};
  double t0 = hu_cpu();
  hu_run(slow_db, "SELECT if_reason(?1, ?2)", plain, 2, &tmp);
  double base = hu_cpu() - t0;
  t0 = hu_cpu();
  int rc = hu_run(slow_db, "SELECT if_reason(?1, ?2)", a, 2, &out);
  double dt = hu_cpu() - t0 - base;
  hb_free(&tmp);
  /* the label is the pattern as str() gives it: JSON-unescape "\\\\" */
  hbuf pat = {0};
  for (const char *s = k->pattern; *s; s++) {
    if (s[0] == '\\' && s[1] == '\\') s++;
    hb_put(&pat, s, 1);
  }
  hb_fmt(&want, "0/1 satisfied; failed: regex /%s/ (match limit exceeded)\n", pat.p);
  int ok = !k->exact && rc == SQLITE_OK && hb_eq(&out, want.p, want.n);
  if (!ok && k->alt_ok) {
    want.n = 0;
    hb_fmt(&want, "0/1 satisfied; failed: regex /%s/%s\n", pat.p, k->alt_ok);
    ok = rc == SQLITE_OK && hb_eq(&out, want.p, want.n);
  }
  CHECK(ok, "regex %s: got [%s]", k->name, hu_show(out.p ? out.p : "", out.n));
  CHECK(dt < 2.5, "regex %s took %.2f s of CPU (limit: about 2 s)", k->name, dt);
  if (getenv("HOSTILE_VERBOSE")) printf("    regex %s: %.3f s CPU (+%.3f s plain)\n", k->name, dt, base);
  hb_free(&subj);
  hb_free(&cons);
  hb_free(&want);
  hb_free(&out);
  hb_free(&pat);
}

static void test_regex(void) {
  slow_db = hu_open(":memory:", 0);
  for (size_t i = 0; i < sizeof slow_cases / sizeof slow_cases[0]; i++) {
    char name[128];
    snprintf(name, sizeof name, "regex: %s", slow_cases[i].name);
    run_named(name, one_slow, &slow_cases[i]);
  }
  /* the connection (and its regex cache) still answers right */
  EXPECT0(slow_db, "SELECT if_search('aaa!', '(a+)+!$'), if_search('abc', 'b'), if_search('x', '(')"
                  " IS NULL, if_reason('Peace!', '{\"regex\": \"Peace!\\\\s*\\\\Z\"}')",
         "1|1|1|all 1 constraints satisfied\n", "after the limit");
  sqlite3_close(slow_db);
  slow_db = NULL;
}

/* ---- empty translations on a fresh connection (a fuzz finding) ---------- */

static void check_empty_patterns(const void *unused) {
  (void)unused;
  static const char *const sqls[] = {
    "SELECT if_reason('x', '{\"regex\": \"(?i)\"}')",
    "SELECT if_reason('x', '{\"regex\": \"(?x) \"}')",
  };
  for (int i = 0; i < 2; i++) {
    sqlite3 *db = hu_open(":memory:", 0);     /* fresh: empty cache */
    EXPECT0(db, sqls[i], "all 1 constraints satisfied\n", sqls[i]);
    sqlite3_close(db);
  }
  sqlite3 *db = hu_open(":memory:", 0);
  EXPECT0(db, "SELECT if_search('x', '')", "1\n", "if_search with an empty pattern, fresh");
  sqlite3_close(db);
}

static void test_fresh_regex(void) {
  run_named("regex: empty translation on a fresh connection", check_empty_patterns, NULL);
}

/* ---- the failing allocator -------------------------------------------------- */

typedef struct oom_stmt {
  const char *setup;       /* run before arming, or NULL */
  const char *sql;
  int nargs;
  harg args[3];
} oom_stmt;

static const char oom_resp[] = "Hello W\xc3\xb6rld \xc4\xb0stanbul \xff\x00 {\"a\": [1, 2]} \xce\xa3\xce\xa3.";
static const char oom_cons[] =
  "{\"max_words\": \"\xd9\xa1\xd9\xa2\", \"min_words\": 2.5, \"max_chars\": 1e20,"
  " \"must_be_json\": \"false\", \"must_include\": [\"hello\", \"I\xcc\x87stanbul\", 1.5, null,"
  " {\"k\": [\"v\", 2]}, \"\xff\"], \"must_exclude\": \"\xcf\x82.\","
  " \"regex\": \"(?i)(w)\\\\S+\\\\b.*\\\\1|^\\\\d\", \"x\": [[[[]]]]}";

#define OOM_ARGS {A_TEXTN(oom_resp, sizeof oom_resp - 1), A_TEXTN(oom_cons, sizeof oom_cons - 1), \
                  A_TEXT("(?i)stanbul\\s+\\W")}

static const oom_stmt oom_stmts[] = {
  {NULL, "SELECT if_score(?1, ?2), if_reason(?1, ?2), if_pass(?1, ?2), if_pass(?1, ?2, 0.9),"
         " if_eval(?1, ?2)", 3, OOM_ARGS},
  {NULL, "SELECT if_reason(?1, ?2) FROM (SELECT 1 UNION ALL SELECT 2)", 3, OOM_ARGS},
  {NULL, "SELECT if_words(?1), if_chars(?1), if_lower(?1), if_is_json(?1), if_search(?1, ?3),"
         " if_version(), if_is_json('```json\n' || ?2 || '\n```')", 3, OOM_ARGS},
  {NULL, "SELECT seq, kind, label, ok FROM if_checks(?1, ?2)", 3, OOM_ARGS},
  {NULL, "SELECT json_extract(if_eval(?1, ?2), '$.reason'), if_eval(?1, 'null')", 3, OOM_ARGS},
  {NULL, "WITH t(r, c) AS (VALUES ('a b', '{\"max_words\": 1}'), (?1, ?2), ('x', '[1]'),"
         " ('y', '{\"regex\": \"(\"}'), ('zz', '{\"regex\": \"z{2}$\", \"must_include\": \"Z\"}'),"
         " (?1, ?2)) SELECT if_score(r, c), if_reason(r, c) FROM t", 3, OOM_ARGS},
  {"CREATE TABLE x(r, c); INSERT INTO x VALUES ('Hello \xc4\xb0stanbul', '{\"must_include\":"
   " \"i\xcc\x87stanbul\", \"regex\": \"(?i)HELLO\\\\b\", \"max_chars\": \"15\"}');"
   " CREATE VIEW v AS SELECT if_reason(r, c) AS why, if_score(r, c) AS s,"
   " (SELECT count(*) FROM if_checks(x.r, x.c)) AS n, if_lower(r) AS low FROM x;"
   " PRAGMA trusted_schema = OFF;",
   "SELECT * FROM v", 0, {A_NULL}},
  /* a UTF-16 database: each text argument is converted to UTF-8 on the way
  ** in, an allocation that may fail as well (short text and overflow pages) */
  {"PRAGMA encoding = 'UTF-16le'; CREATE TABLE x(r, c); INSERT INTO x VALUES"
   " ('Hello \xc4\xb0stanbul W\xc3\xb6rld', '{\"must_include\": [\"i\xcc\x87stanbul\","
   " \"w\xc3\xb6rld\"], \"max_words\": 2}'), (printf('%.*c', 5000, 'y') || ' \xc3\x9c',"
   " '{\"must_include\": \"\xc3\xbc\", \"max_chars\": 5002}');",
   "SELECT if_score(r, c), if_reason(r, c), if_eval(r, c), if_words(r), if_chars(r) FROM x",
   0, {A_NULL}},
};

static long oom_runs;

/* One statement under allocation failure N (sticky or not).  Returns 1
** when the failure point was reached (so N+1 must be tried too). */
static int oom_once(const oom_stmt *s, const hbuf *want, long n, int sticky) {
  sqlite3_int64 base = sqlite3_memory_used();
  sqlite3 *db = hu_open(":memory:", 0);
  if (s->setup) {
    char *err = NULL;
    sqlite3_exec(db, s->setup, NULL, NULL, &err);
    sqlite3_free(err);
  }
  sqlite3_stmt *st = NULL;
  CHECK(sqlite3_prepare_v2(db, s->sql, -1, &st, NULL) == SQLITE_OK, "prepare %s", s->sql);
  hu_bind(st, s->args, s->nargs);
  hbuf out = {0};
  arm(n, sticky);
  int rc = hu_steps(st, &out);
  int fired = fail_fired;
  disarm();
  oom_runs++;
  if (!fired) {
    CHECK(rc == SQLITE_DONE && hb_eq(&out, want->p, want->n),
          "oom N=%ld: no failure yet the answer differs (%s)", n, sqlite3_errstr(rc));
  } else {
    CHECK(rc == SQLITE_NOMEM || (rc == SQLITE_DONE && hb_eq(&out, want->p, want->n)),
          "oom N=%ld%s: step gave %s (%s), rows [%s]", n, sticky ? " sticky" : "",
          sqlite3_errstr(rc), sqlite3_errmsg(db), hu_show(out.p ? out.p : "", out.n));
    /* the same connection must now answer right */
    sqlite3_reset(st);
    out.n = 0;
    rc = hu_steps(st, &out);
    CHECK(rc == SQLITE_DONE && hb_eq(&out, want->p, want->n),
          "oom N=%ld: the rerun after the failure is wrong (%s): [%s]", n,
          sqlite3_errstr(rc), hu_show(out.p ? out.p : "", out.n));
  }
  sqlite3_finalize(st);
  CHECK(sqlite3_close(db) == SQLITE_OK, "close after oom N=%ld", n);
  CHECK(sqlite3_memory_used() == base, "oom N=%ld: %lld bytes not freed after close", n,
        (long long)(sqlite3_memory_used() - base));
  hb_free(&out);
  return fired;
}

static void test_oom(void) {
  for (size_t i = 0; i < sizeof oom_stmts / sizeof oom_stmts[0]; i++) {
    const oom_stmt *s = &oom_stmts[i];
    /* the answer without failures */
    sqlite3 *db = hu_open(":memory:", 0);
    if (s->setup) hu_exec(db, s->setup);
    hbuf want = {0};
    int rc = hu_run(db, s->sql, s->args, s->nargs, &want);
    CHECK(rc == SQLITE_OK && want.n > 0, "oom statement %zu fails unarmed: %s", i,
          sqlite3_errmsg(db));
    sqlite3_close(db);
    if (getenv("HOSTILE_VERBOSE")) {        /* how many allocations one run makes */
      sqlite3 *d2 = hu_open(":memory:", 0);
      if (s->setup) hu_exec(d2, s->setup);
      hbuf o2 = {0};
      arm(1L << 40, 0);
      hu_run(d2, s->sql, s->args, s->nargs, &o2);
      printf("    statement %zu: %ld allocations unarmed\n", i, alloc_count);
      disarm();
      sqlite3_close(d2);
      hb_free(&o2);
    }
    int before = hu_failures;
    long n;
    for (n = 1; n < 100000 && hu_failures - before < 5; n++)
      if (!oom_once(s, &want, n, 0)) break;
    long single = n;
    for (n = 1; n < 100000 && hu_failures - before < 5; n++)
      if (!oom_once(s, &want, n, 1)) break;
    printf("    statement %zu: %ld allocations walked (x2 modes)\n", i, single - 1);
    hb_free(&want);
  }
  /* registration itself under every failure */
  for (long n = 1; n < 10000; n++) {
    sqlite3_int64 base = sqlite3_memory_used();
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
    arm(n, 0);
    int rc = sqlite3_ifscore_init(db, NULL, NULL);
    int fired = fail_fired;
    disarm();
    CHECK(rc == SQLITE_OK || rc == SQLITE_NOMEM, "init under oom N=%ld: %d", n, rc);
    if (rc == SQLITE_OK) {
      hbuf out = {0};
      harg none[1] = {A_NULL};
      int q = hu_run(db, "SELECT if_score('a', '{\"max_words\": 1}')", none, 0, &out);
      CHECK(q == SQLITE_OK && hb_eq(&out, "1.0\n", 4), "init N=%ld then query: %s", n,
            sqlite3_errmsg(db));
      hb_free(&out);
    }
    sqlite3_close(db);
    CHECK(sqlite3_memory_used() == base, "init oom N=%ld leaks %lld bytes", n,
          (long long)(sqlite3_memory_used() - base));
    if (!fired) { printf("    registration: %ld allocations walked\n", n - 1); break; }
  }
  printf("    %ld statement runs under a failing allocator\n", oom_runs);
}

/* ---- SQLITE_LIMIT_LENGTH ---------------------------------------------------- */

static void test_toobig(void) {
  sqlite3 *db = hu_open(":memory:", 0);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000);
  hbuf r = {0}, c = {0};
  hb_rep(&r, "\xc4\xb0", 450);                 /* 900 bytes, lower() 1350 */
  harg a = A_TEXTN(r.p, r.n);
  expect_error(db, "SELECT if_lower(?1)", &a, 1, SQLITE_TOOBIG, "if_lower over the limit");
  EXPECT(db, "SELECT if_chars(?1), if_words(?1), if_is_json(?1)", "450|1|0\n",
         "other helpers under the limit", a);
  hb_str(&c, "{\"must_include\": [");
  for (int i = 0; i < 80; i++) hb_str(&c, i ? ", \"aaaaaa\"" : "\"aaaaaa\"");
  hb_str(&c, "]}");                            /* 818 bytes; reason ~1,900 */
  harg p[] = {A_TEXT("x"), A_TEXTN(c.p, c.n)};
  expect_error(db, "SELECT if_reason(?1, ?2)", p, 2, SQLITE_TOOBIG, "if_reason over the limit");
  expect_error(db, "SELECT if_eval(?1, ?2)", p, 2, SQLITE_TOOBIG, "if_eval over the limit");
  EXPECT(db, "SELECT if_score(?1, ?2), if_pass(?1, ?2), (SELECT count(*) FROM if_checks(?1, ?2))",
         "0.0|0|80\n", "the numbers still work", p[0], p[1]);
  EXPECT0(db, "SELECT if_reason('x', '{\"max_words\": 1}')", "all 1 constraints satisfied\n",
         "and the connection after TOOBIG");
  expect_error(db, "SELECT if_words(?1 || ?1)", &a, 1, SQLITE_TOOBIG, "concatenated argument");
  /* bigger than the limit on the way in: SQLite refuses the binding */
  hb_rep(&r, "x", 200);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT if_words(?1)", -1, &st, NULL);
  CHECK(sqlite3_bind_text64(st, 1, r.p, r.n, SQLITE_STATIC, SQLITE_UTF8) == SQLITE_TOOBIG,
        "binding over the limit");
  sqlite3_finalize(st);
  hb_free(&r);
  hb_free(&c);
  sqlite3_close(db);
}

/* ---- closing mid-use --------------------------------------------------------- */

static void fill_corpus(sqlite3 *db, int rows) {
  hu_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, r TEXT, c TEXT)");
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO t(r, c) VALUES (?1, ?2)", -1, &st, NULL);
  for (int i = 0; i < rows; i++) {
    char r[128], c[256];
    snprintf(r, sizeof r, "Row %d says hello %d times \xc4\xb0 %s", i, i % 7, i % 3 ? "x" : "{}");
    snprintf(c, sizeof c, "{\"regex\": \"hello %d\\\\b|row\\\\s%d$\", \"must_include\": [\"ROW %d\"],"
             " \"max_words\": %d, \"must_be_json\": %d}", i % 7, i, i, i % 9, i % 2);
    sqlite3_bind_text(st, 1, r, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, c, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
}

static void test_close(void) {
  static const char *const sqls[] = {
    "SELECT if_score(r, c), if_reason(r, c), if_eval(r, c), if_search(r, c) FROM t",
    "SELECT t.id, k.label FROM t, if_checks(t.r, t.c) AS k",
  };
  for (int v2 = 0; v2 < 2; v2++) {
    for (int q = 0; q < 2; q++) {
      sqlite3_int64 base = sqlite3_memory_used();
      sqlite3 *db = hu_open(":memory:", 0);
      fill_corpus(db, 300);                  /* 300 patterns: the LRU overflows */
      sqlite3_stmt *st;
      CHECK(sqlite3_prepare_v2(db, sqls[q], -1, &st, NULL) == SQLITE_OK, "prepare");
      for (int i = 0; i < 120; i++) CHECK(sqlite3_step(st) == SQLITE_ROW, "step %d", i);
      if (v2) {
        CHECK(sqlite3_close_v2(db) == SQLITE_OK, "close_v2 mid-statement");
        CHECK(sqlite3_memory_used() > base, "a zombie keeps its memory until finalize");
        sqlite3_finalize(st);
      } else {
        CHECK(sqlite3_close(db) == SQLITE_BUSY, "close mid-statement is BUSY");
        CHECK(sqlite3_step(st) == SQLITE_ROW, "still usable after a refused close");
        sqlite3_finalize(st);
        CHECK(sqlite3_close(db) == SQLITE_OK, "close after finalize");
      }
      CHECK(sqlite3_memory_used() == base, "close%s mid-use (query %d): %lld bytes left",
            v2 ? "_v2" : "", q, (long long)(sqlite3_memory_used() - base));
    }
  }
}

/* ---- schema objects with trusted_schema = OFF; UTF-16 databases ------------ */

static void unsafe_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, 1);
}

static char db_path[256];

static void schema_create(const char *encoding) {
  unlink(db_path);
  sqlite3 *db = hu_open(db_path, 0);
  sqlite3_create_function(db, "unsafe_fn", 0, SQLITE_UTF8, NULL, unsafe_fn, NULL, NULL);
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA encoding = '%s'", encoding);
  hu_exec(db, sql);
  hu_exec(db,
    "CREATE TABLE t(id INTEGER PRIMARY KEY, r TEXT, c TEXT,"
    "  s REAL GENERATED ALWAYS AS (if_score(r, c)) VIRTUAL,"
    "  w INTEGER GENERATED ALWAYS AS (if_words(r)) STORED,"
    "  CHECK (if_chars(r) < 1000 AND if_is_json(c) AND if_search(c, '^\\{')));"
    "CREATE INDEX t_low ON t(if_lower(r));"
    "CREATE INDEX t_pass ON t(id) WHERE if_pass(r, c, 0.5);"
    "CREATE TABLE log(why TEXT);"
    "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN"
    "  INSERT INTO log VALUES (if_reason(new.r, new.c) || ' ' || (if_version() IS NOT NULL));"
    "END;"
    "CREATE VIEW v AS SELECT id, if_score(r, c) AS s, if_reason(r, c) AS why,"
    "  if_pass(r, c) AS p, if_eval(r, c) AS e, if_lower(r) AS low,"
    "  (SELECT group_concat(kind || ':' || ok, ',') FROM if_checks(t.r, t.c)) AS k FROM t;"
    "CREATE TABLE u(x); CREATE VIEW unsafe AS SELECT unsafe_fn() FROM u;");
  sqlite3_close(db);
}

static const char schema_want[] =
  "1|0.5|1/2 satisfied; failed: must_include 'z'|1|{\"score\": 0.5, \"instruction_following\":"
  " 0.5, \"reason\": \"1/2 satisfied; failed: must_include 'z'\"}|\xc5\x9f\xc3\xb6yle b\xc4\xb1r \xcf\x83\xce\xb5\xce\xb9\xcf\x81\xce\xac\xcf\x82|max_words:1,must_include:0\n"
  "2|1.0|all 1 constraints satisfied|1|{\"score\": 1.0, \"instruction_following\": 1.0,"
  " \"reason\": \"all 1 constraints satisfied\"}|{\"a\": 1}|must_be_json:1\n";

static void schema_use(const char *encoding) {
  sqlite3 *db = hu_open(db_path, 0);
  hu_text_as_utf8 = 1;
  hu_exec(db, "PRAGMA trusted_schema = OFF");
  sqlite3_create_function(db, "unsafe_fn", 0, SQLITE_UTF8, NULL, unsafe_fn, NULL, NULL);
  hbuf out = {0};
  harg none[1] = {A_NULL};
  /* control: a function that is not innocuous is refused here */
  int rc = hu_run(db, "SELECT * FROM unsafe", none, 0, &out);
  CHECK(rc == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "unsafe use"),
        "%s: trusted_schema=OFF not in effect (%s)", encoding, sqlite3_errmsg(db));
  hu_exec(db, "INSERT INTO t(r, c) VALUES ('\xc5\x9e\xc3\x96YLE B\xc4\xb1R \xce\xa3\xce\x95\xce\x99\xce\xa1\xce\x86\xce\xa3',"
              " '{\"max_words\": 9, \"must_include\": \"z\"}'),"
              " ('{\"a\": 1}', '{\"must_be_json\": true}')");
  EXPECT0(db, "SELECT * FROM v ORDER BY id", schema_want, encoding);
  EXPECT0(db, "SELECT id, s, w FROM t WHERE if_lower(r) = '{\"a\": 1}'", "2|1.0|2\n", "expression index");
  EXPECT0(db, "SELECT count(*) FROM t INDEXED BY t_pass WHERE if_pass(r, c, 0.5)", "2\n", "partial index");
  EXPECT0(db, "SELECT why FROM log ORDER BY rowid",
         "1/2 satisfied; failed: must_include 'z' 1\nall 1 constraints satisfied 1\n", "trigger");
  rc = hu_run(db, "INSERT INTO t(r, c) VALUES ('x', 'not json')", none, 0, &out);
  CHECK(rc == SQLITE_CONSTRAINT, "%s: CHECK with if_is_json", encoding);
  EXPECT0(db, "PRAGMA integrity_check", "ok\n", "integrity_check re-evaluates the index");
  hb_free(&out);
  hu_text_as_utf8 = 0;
  sqlite3_close(db);
}

static void test_schema(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(db_path, sizeof db_path, "%s/ifscore-hostile-%d.db", tmp ? tmp : "/tmp", (int)getpid());
  schema_create("UTF-8");
  schema_use("UTF-8");
  schema_create("UTF-16le");
  schema_use("UTF-16le");
  unlink(db_path);
}

/* ---- driver ----------------------------------------------------------------- */

typedef struct test { const char *name; void (*fn)(void); } test;

static const test tests[] = {
  {"bytes", test_bytes},
  {"needles", test_needles},
  {"deep", test_deep},
  {"huge", test_huge},
  {"regex", test_regex},
  {"fresh_regex", test_fresh_regex},
  {"toobig", test_toobig},
  {"close", test_close},
  {"schema", test_schema},
  {"oom", test_oom},
};

int main(int argc, char **argv) {
  install_allocator();
  /* one open/close first, so that lazily built globals are in the baseline */
  sqlite3_close(hu_open(":memory:", 0));
  int ran = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    int wanted = argc < 2;
    for (int k = 1; k < argc; k++) wanted |= strcmp(argv[k], tests[i].name) == 0;
    if (!wanted) continue;
    int before = hu_failures;
    sqlite3_int64 base = sqlite3_memory_used();
    double t0 = hu_now();
    tests[i].fn();
    CHECK(sqlite3_memory_used() == base, "%s: %lld bytes still allocated", tests[i].name,
          (long long)(sqlite3_memory_used() - base));
    printf("%s %s (%.1f s)\n", hu_failures == before ? "ok  " : "FAIL", tests[i].name,
           hu_now() - t0);
    fflush(stdout);
    ran++;
  }
  printf("hostile: %d tests, %d failed checks, %d known failures (xfail), %d unexpected passes\n",
         ran, hu_failures, xfail_seen, xpass_seen);
  return hu_failures || xpass_seen ? 1 : 0;
}
