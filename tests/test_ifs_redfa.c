/* Unit tests for ext/ifs_redfa.c: programs written by hand, Python's
** assertion semantics, the SIMD scan against the byte loop, the state
** bound, bad programs and allocation failure. */
#include "ifs_redfa.h"
#include "ifs_test.h"
#include "soup.h"
#include <stdlib.h>

/* A small program builder: sets are given as "lo-hi,lo-hi" code points. */
typedef struct prog {
  ifs_rd_inst ins[64];
  size_t n;
  uint32_t ranges[16][8][2];
  ifs_rd_set sets[16];
  size_t nsets;
} prog;

static uint32_t set_of(prog *p, const uint32_t (*r)[2], size_t n) {
  memcpy(p->ranges[p->nsets], r, n * sizeof *r);
  p->sets[p->nsets].r = (const uint32_t (*)[2])p->ranges[p->nsets];
  p->sets[p->nsets].n = n;
  return (uint32_t)p->nsets++;
}

static uint32_t ch(prog *p, uint32_t lo, uint32_t hi) {
  uint32_t r[1][2] = { { lo, hi } };
  return set_of(p, (const uint32_t (*)[2])r, 1);
}

static void op(prog *p, int o, int kind, uint32_t x, uint32_t y) {
  ifs_rd_inst in = { (uint8_t)o, (uint8_t)kind, x, y };
  p->ins[p->n++] = in;
}

static void lit(prog *p, uint32_t c) { op(p, IFS_RD_CHAR, 0, ch(p, c, c), 0); }
static void assertion(prog *p, int kind) { op(p, IFS_RD_ASSERT, kind, 0, 0); }

static ifs_redfa *make(prog *p, int anchored) {
  op(p, IFS_RD_MATCH, 0, 0, 0);
  ifs_status err;
  ifs_redfa *d = ifs_redfa_new(p->ins, p->n, p->sets, p->nsets, NULL, anchored, &err);
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(err, IFS_OK);
  return d;
}

/* A search's outcome as one value: 0 no match, 1 match, or the failure
** status out of their way. */
enum { GAVEUP = 10 + IFS_LIMIT, NOMEM = 10 + IFS_NOMEM };

static int search_n(ifs_redfa *d, const char *s, size_t n) {
  int matched = -1;
  ifs_status st = ifs_redfa_search(d, s, n, &matched);
  if (st != IFS_OK) return 10 + (int)st;
  ck_assert(matched == 0 || matched == 1);
  return matched;
}

static int search(ifs_redfa *d, const char *s) { return search_n(d, s, strlen(s)); }

/* Python: re.search('a$', s) and friends, answers from /usr/bin/python3. */
START_TEST(assertions) {
  /* 'a' then an end assertion: a$, (?m)a$, a\Z */
  static const struct { int kind; const char *text; int want; } ends[] = {
    { IFS_RD_EOS_NL, "a", 1 }, { IFS_RD_EOS_NL, "a\n", 1 }, { IFS_RD_EOS_NL, "a\n\n", 0 },
    { IFS_RD_EOS_NL, "ba", 1 }, { IFS_RD_EOS_NL, "ab", 0 }, { IFS_RD_EOS_NL, "a\nb", 0 },
    { IFS_RD_EOS_NL, "", 0 }, { IFS_RD_EOL, "a\nb", 1 }, { IFS_RD_EOL, "ab\n", 0 },
    { IFS_RD_EOS, "ba", 1 }, { IFS_RD_EOS, "a\n", 0 },
  };
  prog p;
  ifs_redfa *d;
  for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
    memset(&p, 0, sizeof p);
    lit(&p, 'a');
    assertion(&p, ends[k].kind);
    d = make(&p, 0);
    ck_assert_msg(search(d, ends[k].text) == ends[k].want, "case %zu", k);
    ifs_redfa_free(d);
  }

  memset(&p, 0, sizeof p);                            /* (?m)^b */
  assertion(&p, IFS_RD_BOL);
  lit(&p, 'b');
  d = make(&p, 0);
  ck_assert_int_eq(search(d, "a\nb"), 1);
  ck_assert_int_eq(search(d, "ab"), 0);
  ck_assert_int_eq(search(d, "b"), 1);
  ifs_redfa_free(d);

  memset(&p, 0, sizeof p);                            /* ^b, anchored or not */
  assertion(&p, IFS_RD_BOS);
  lit(&p, 'b');
  for (int anchored = 0; anchored < 2; anchored++) {
    d = make(&p, anchored);
    ck_assert_int_eq(search(d, "b"), 1);
    ck_assert_int_eq(search(d, "ab"), 0);
    ck_assert_int_eq(search(d, "a\nb"), 0);
    ifs_redfa_free(d);
    p.n--;   /* drop the MATCH that make() added */
  }

  memset(&p, 0, sizeof p);                            /* (?a)\bfoo\b */
  assertion(&p, IFS_RD_WORDB);
  lit(&p, 'f'); lit(&p, 'o'); lit(&p, 'o');
  assertion(&p, IFS_RD_WORDB);
  d = make(&p, 0);
  ck_assert_int_eq(search(d, "a foo."), 1);
  ck_assert_int_eq(search(d, "foo"), 1);
  ck_assert_int_eq(search(d, "afoo"), 0);
  ck_assert_int_eq(search(d, "foo_"), 0);
  ck_assert_int_eq(search(d, "\xc3\xa9" "foo\xc3\xa9"), 1);   /* é is not an ASCII word */
  ifs_redfa_free(d);

  /* the caller's word characters: here letters a-z and U+0400..U+04FF */
  memset(&p, 0, sizeof p);
  assertion(&p, IFS_RD_WORDB);
  lit(&p, 'x');
  op(&p, IFS_RD_MATCH, 0, 0, 0);
  uint32_t wr[2][2] = { { 'a', 'z' }, { 0x400, 0x4FF } };
  ifs_rd_set word = { (const uint32_t (*)[2])wr, 2 };
  ifs_status err;
  d = ifs_redfa_new(p.ins, p.n, p.sets, p.nsets, &word, 0, &err);
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(search(d, "1x"), 1);                /* '1' is not a word here */
  ck_assert_int_eq(search(d, "ax"), 0);
  ck_assert_int_eq(search(d, "\xd0\xafx"), 0);        /* Я is */
  ck_assert_int_eq(search(d, "\xc3\xa9x"), 1);        /* é is not */
  ifs_redfa_free(d);

  /* \b and \B match nowhere in "" (sre), \B elsewhere as usual */
  for (int k = IFS_RD_WORDB; k <= IFS_RD_NWORDB; k++) {
    memset(&p, 0, sizeof p);
    assertion(&p, k);
    d = make(&p, 0);
    ck_assert_int_eq(search(d, ""), 0);
    ck_assert_int_eq(search(d, "ab"), 1);
    ck_assert_int_eq(search(d, " "), k == IFS_RD_NWORDB);
    ck_assert_int_eq(search(d, "a"), k == IFS_RD_WORDB);
    ifs_redfa_free(d);
  }
}
END_TEST

/* Two-, three- and four-byte characters find their classes. */
START_TEST(non_ascii) {
  prog p = {0};
  op(&p, IFS_RD_CHAR, 0, ch(&p, 0x400, 0x4FF), 0);     /* Cyrillic */
  op(&p, IFS_RD_CHAR, 0, ch(&p, 0x20AC, 0x20AC), 0);   /* € */
  op(&p, IFS_RD_CHAR, 0, ch(&p, 0x1F600, 0x1F64F), 0); /* emoticons */
  ifs_redfa *d = make(&p, 0);
  ck_assert_int_eq(search(d, "x\xd0\xaf\xe2\x82\xac\xf0\x9f\x98\x80y"), 1);
  ck_assert_int_eq(search(d, "x\xd0\xaf\xe2\x82\xac\xf0\x9f\x99\x90y"), 0);   /* U+1F650 */
  ck_assert_int_eq(search(d, "\xd0\xaf\xe2\x82\xad\xf0\x9f\x98\x80"), 0);     /* U+20AD */
  ck_assert_int_eq(search(d, "\xd3\xbf\xe2\x82\xac\xf0\x9f\x98\x80"), 1);     /* U+04FF */
  /* a cut character is not the DFA's to answer */
  ck_assert_int_eq(search_n(d, "\xd0\xaf\xe2\x82", 4), GAVEUP);
  ifs_redfa_free(d);
}
END_TEST

/* The SSSE3 scan stops where the byte loop does, on random texts. */
START_TEST(simd_scan_agrees) {
  static const char *const pieces[] = {
    "a", "b", "A", "Z", "*", "\n", " ", "\t", "x", "\xc3\xa9", "\xd0\xaf", "\xe2\x82\xac",
    "\xf0\x9f\x98\x80", "", "0", "~", "\x7f", "abcdefghijklmnop", "*AB*", "aaaaaaaaaaaaaaaaa"
  };
  prog a = {0};                                        /* ^[^A-Z]*\Z */
  assertion(&a, IFS_RD_BOS);
  op(&a, IFS_RD_SPLIT, 0, 2, 4);
  uint32_t notupper[2][2] = { { 0, 'A' - 1 }, { 'Z' + 1, 0x10FFFF } };
  op(&a, IFS_RD_CHAR, 0, set_of(&a, (const uint32_t (*)[2])notupper, 2), 0);
  op(&a, IFS_RD_JMP, 0, 1, 0);
  assertion(&a, IFS_RD_EOS);
  prog b = {0};                                        /* \*[^\n*]+\*.*?\*\Z */
  uint32_t notstar[3][2] = { { 0, '\n' - 1 }, { '\n' + 1, '*' - 1 }, { '*' + 1, 0x10FFFF } };
  uint32_t notnl[2][2] = { { 0, '\n' - 1 }, { '\n' + 1, 0x10FFFF } };
  lit(&b, '*');
  uint32_t ns = set_of(&b, (const uint32_t (*)[2])notstar, 3);
  op(&b, IFS_RD_CHAR, 0, ns, 0);                       /* 1 */
  op(&b, IFS_RD_SPLIT, 0, 1, 3);                       /* 2 */
  lit(&b, '*');                                        /* 3 */
  op(&b, IFS_RD_SPLIT, 0, 7, 5);                       /* 4 */
  op(&b, IFS_RD_CHAR, 0, set_of(&b, (const uint32_t (*)[2])notnl, 2), 0);   /* 5 */
  op(&b, IFS_RD_JMP, 0, 4, 0);                         /* 6 */
  lit(&b, '*');                                        /* 7 */
  assertion(&b, IFS_RD_EOS);
  ifs_redfa *da = make(&a, 1), *db = make(&b, 0);
  ifs_redfa *d[2] = { da, db };
  char buf[4096];
  unsigned seed = 7;
  int answers[2][2] = { { 0 } };
  for (int i = 0; i < 20000; i++) {
    size_t n = soup_fill(buf, sizeof buf, pieces, sizeof pieces / sizeof *pieces, 200, &seed);
    for (int k = 0; k < 2; k++) {
      ifs_test_redfa_simd(d[k], 1);
      int x = search_n(d[k], buf, n);
      ifs_test_redfa_simd(d[k], 0);
      int y = search_n(d[k], buf, n);
      ck_assert_msg(x == y, "text %d, program %d: simd %d, bytes %d", i, k, x, y);
      ck_assert(x == 0 || x == 1);
      answers[k][x]++;
    }
  }
  /* both answers are common: the texts mean something to both programs */
  for (int k = 0; k < 2; k++) ck_assert(answers[k][0] > 200 && answers[k][1] > 200);
  ifs_redfa_free(da);
  ifs_redfa_free(db);
}
END_TEST

/* (?a)\b[A-Z][A-Z]\b against a direct reading, on random texts: the
** search skips from idle state to idle state (here to capitals) and must
** land in the state that the character before says. */
static int is_word_byte(const char *s, size_t n, size_t i) {
  if (i >= n) return 0;
  unsigned char c = (unsigned char)s[i];
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int boundary(const char *s, size_t n, size_t i) {
  if (n == 0) return 0;
  return is_word_byte(s, n, i) != (i > 0 && is_word_byte(s, n, i - 1));
}

START_TEST(idle_skip_agrees) {
  static const char *const pieces[] = {
    "A", "B", "ab", " ", "\n", "_", "9", "\xd0\xaf", "\xc3\xa9", "\xe2\x82\xac", ".", "AB",
    "ABC", "the quick brown fox ", "x", "\xf0\x9f\x98\x80"
  };
  prog p = {0};
  assertion(&p, IFS_RD_WORDB);
  op(&p, IFS_RD_CHAR, 0, ch(&p, 'A', 'Z'), 0);
  op(&p, IFS_RD_CHAR, 0, ch(&p, 'A', 'Z'), 0);
  assertion(&p, IFS_RD_WORDB);
  ifs_redfa *d = make(&p, 0);
  char buf[2048];
  unsigned seed = 99;
  int answers[2] = { 0, 0 };
  for (int i = 0; i < 20000; i++) {
    size_t n = soup_fill(buf, sizeof buf, pieces, sizeof pieces / sizeof *pieces, 120, &seed);
    int want = 0;
    for (size_t k = 0; k + 2 <= n && !want; k++)
      want = boundary(buf, n, k) && buf[k] >= 'A' && buf[k] <= 'Z' && buf[k + 1] >= 'A' &&
             buf[k + 1] <= 'Z' && boundary(buf, n, k + 2);
    for (int simd = 0; simd < 2; simd++) {
      ifs_test_redfa_simd(d, simd);
      int got = search_n(d, buf, n);
      ck_assert_msg(got == want, "text %d (%.*s) simd %d: got %d want %d", i, (int)n, buf, simd,
                    got, want);
    }
    answers[want]++;
  }
  ck_assert(answers[0] > 1000 && answers[1] > 1000);
  ifs_redfa_free(d);
}
END_TEST

/* (a|b)*a(a|b){18}c: 2^19 states on a text of a and b.  The DFA gives up
** on that text every time, never answers wrong, and after it answers what
** a new DFA would: a short text, and a text that needs few states. */
START_TEST(state_bound) {
  prog p = {0};
  uint32_t ab = ch(&p, 'a', 'b');
  op(&p, IFS_RD_SPLIT, 0, 1, 3);
  op(&p, IFS_RD_CHAR, 0, ab, 0);
  op(&p, IFS_RD_JMP, 0, 0, 0);
  lit(&p, 'a');
  for (int i = 0; i < 18; i++) op(&p, IFS_RD_CHAR, 0, ab, 0);
  lit(&p, 'c');
  ifs_redfa *d = make(&p, 0);
  size_t n = 1 << 20;
  char *s = malloc(n);
  unsigned seed = 1;
  for (size_t i = 0; i < n; i++) s[i] = (soup_next(&seed) & 1) ? 'a' : 'b';
  int gaveups = 0;
  for (int i = 0; i < 8; i++) {
    int r = search_n(d, s, n);
    ck_assert(r == GAVEUP);
    gaveups++;
  }
  ck_assert_int_eq(gaveups, 8);
  ck_assert_int_eq(search(d, "c"), 0);
  char few[32] = "xx";
  memset(few + 2, 'a', 19);
  strcpy(few + 21, "c");
  ck_assert_int_eq(search(d, few), 1);
  free(s);
  ifs_redfa_free(d);
  /* the same program answers a text that needs few states */
  p.n--;
  d = make(&p, 0);
  char t[32] = "xx";
  memset(t + 2, 'a', 19);
  strcpy(t + 21, "c");
  ck_assert_int_eq(search(d, t), 1);       /* xx a{19} c */
  ck_assert_int_eq(search(d, t + 1), 1);
  ck_assert_int_eq(search(d, t + 3), 0);   /* a{18} c */
  ifs_redfa_free(d);
}
END_TEST

/* Whether a search is answered or given up, and its answer, depend on the
** program and the text alone, not on what earlier searches built: each text
** gets the same result from a new DFA and from one that has searched the
** others before it (in three orders: as made, reversed, and those a new DFA
** gives up on first, many times over), whose states fill the table and
** whose rows were built by other searches.  a(a|b){17}c|(b|c)*bb((a|b)*c){3}:
** more states than the table holds on long texts of a and b, few on
** others. */
START_TEST(answers_independent_of_history) {
  prog p = {0};
  uint32_t ab = ch(&p, 'a', 'b'), bc = ch(&p, 'b', 'c');
  op(&p, IFS_RD_SPLIT, 0, 1, 21);
  lit(&p, 'a');                                              /* 1 */
  for (int i = 0; i < 17; i++) op(&p, IFS_RD_CHAR, 0, ab, 0);  /* 2..18 */
  lit(&p, 'c');                                              /* 19 */
  op(&p, IFS_RD_JMP, 0, 38, 0);                              /* 20: to MATCH */
  op(&p, IFS_RD_SPLIT, 0, 22, 24);                           /* 21: (b|c)* */
  op(&p, IFS_RD_CHAR, 0, bc, 0);                             /* 22 */
  op(&p, IFS_RD_JMP, 0, 21, 0);                              /* 23 */
  lit(&p, 'b');                                              /* 24 */
  lit(&p, 'b');                                              /* 25 */
  for (int k = 0; k < 3; k++) {                              /* ((a|b)*c){3}: 26..37 */
    int at = p.n;
    op(&p, IFS_RD_SPLIT, 0, (uint32_t)at + 1, (uint32_t)at + 3);
    op(&p, IFS_RD_CHAR, 0, ab, 0);
    op(&p, IFS_RD_JMP, 0, (uint32_t)at, 0);
    lit(&p, 'c');
  }
  ifs_redfa_free(make(&p, 0));   /* (appends MATCH, at 38) */
  ck_assert_uint_eq(p.n, 39);
  enum { TEXTS = 24 };
  static char text[TEXTS][1 << 16];
  size_t len[TEXTS];
  unsigned seed = 7;
  for (int t = 0; t < TEXTS; t++) {
    len[t] = (size_t)1 << (6 + t % 11);   /* 64 bytes to 64 KB */
    for (size_t i = 0; i < len[t]; i++) text[t][i] = "abc"[soup_next(&seed) % (t % 3 + 1)];
  }
  ifs_status err;
  int fresh[TEXTS];
  for (int t = 0; t < TEXTS; t++) {
    ifs_redfa *d = ifs_redfa_new(p.ins, p.n, p.sets, p.nsets, NULL, 0, &err);
    ck_assert_ptr_nonnull(d);
    fresh[t] = search_n(d, text[t], len[t]);
    ifs_redfa_free(d);
  }
  int answered = 0, gave_up = 0;
  for (int t = 0; t < TEXTS; t++) {
    answered += fresh[t] == 0 || fresh[t] == 1;
    gave_up += fresh[t] == GAVEUP;
  }
  ck_assert_int_gt(answered, 0);
  ck_assert_int_gt(gave_up, 0);   /* the test covers both */
  int seq[3 * TEXTS], ns = 0;
  for (int order = 0; order < 3; order++) {
    ns = 0;
    if (order < 2) {
      for (int k = 0; k < TEXTS; k++) seq[ns++] = order ? TEXTS - 1 - k : k;
    } else {
      for (int r = 0; r < 3; r++)
        for (int t = 0; t < TEXTS; t++)
          if (fresh[t] == GAVEUP) seq[ns++] = t;
      for (int t = 0; t < TEXTS; t++)
        if (fresh[t] != GAVEUP) seq[ns++] = t;
    }
    ifs_redfa *d = ifs_redfa_new(p.ins, p.n, p.sets, p.nsets, NULL, 0, &err);
    ck_assert_ptr_nonnull(d);
    for (int k = 0; k < ns; k++)
      ck_assert_msg(search_n(d, text[seq[k]], len[seq[k]]) == fresh[seq[k]],
                    "text %d (order %d, search %d)", seq[k], order, k);
    ifs_redfa_free(d);
  }
}
END_TEST

/* Programs out of bounds are refused with IFS_LIMIT. */
START_TEST(bad_programs) {
  ifs_status err;
  ifs_rd_inst jump_out[] = { { IFS_RD_JMP, 0, 5, 0 }, { IFS_RD_MATCH, 0, 0, 0 } };
  ck_assert_ptr_null(ifs_redfa_new(jump_out, 2, NULL, 0, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
  ifs_rd_inst no_match[] = { { IFS_RD_JMP, 0, 0, 0 } };
  ck_assert_ptr_null(ifs_redfa_new(no_match, 1, NULL, 0, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
  ifs_rd_inst no_set[] = { { IFS_RD_CHAR, 0, 0, 0 }, { IFS_RD_MATCH, 0, 0, 0 } };
  ck_assert_ptr_null(ifs_redfa_new(no_set, 2, NULL, 0, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
  /* more sets than IFS_REDFA_MAX_SETS, or instructions than _INSTS */
  enum { NS = IFS_REDFA_MAX_SETS + 1, NI = IFS_REDFA_MAX_INSTS + 1 };
  static uint32_t r[NS][1][2];
  static ifs_rd_set sets[NS];
  static ifs_rd_inst ins[NI];
  for (int i = 0; i < NS; i++) {   /* distinct singletons */
    r[i][0][0] = r[i][0][1] = 0x100 + 2 * (uint32_t)i;
    sets[i].r = (const uint32_t (*)[2])r[i];
    sets[i].n = 1;
  }
  for (int i = 0; i < NI; i++) {
    ifs_rd_inst in = { IFS_RD_CHAR, 0, (uint32_t)(i % (NS - 1)), 0 };
    ins[i] = in;
  }
  ifs_rd_inst m = { IFS_RD_MATCH, 0, 0, 0 };
  ins[NS] = m;
  ck_assert_ptr_null(ifs_redfa_new(ins, NS + 1, sets, NS, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
  /* as many as the bound: they fit */
  ins[NS - 1] = m;
  ifs_redfa *d = ifs_redfa_new(ins, NS, sets, NS - 1, NULL, 0, &err);
  ck_assert_ptr_nonnull(d);
  ifs_redfa_free(d);
  ins[NS - 1] = ins[0];
  ins[NI - 1] = m;
  ck_assert_ptr_null(ifs_redfa_new(ins, NI, sets, NS - 1, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
  d = ifs_redfa_new(ins + 1, NI - 1, sets, NS - 1, NULL, 0, &err);
  ck_assert_ptr_nonnull(d);
  ifs_redfa_free(d);
  /* within both bounds, but overlapping sets make more classes than the
  ** alphabet holds (IFS_REDFA_MAX_SETS sets, each overlapping the next) */
  for (int i = 0; i < NS - 1; i++) {
    r[i][0][0] = 0x100 + 3 * (uint32_t)i;
    r[i][0][1] = 0x100 + 3 * (uint32_t)i + 4;
  }
  ins[NS - 1] = m;
  ck_assert_ptr_null(ifs_redfa_new(ins, NS, sets, NS - 1, NULL, 0, &err));
  ck_assert_int_eq(err, IFS_LIMIT);
}
END_TEST

/* Allocation failure at every step of making and searching: NULL /
** NOMEM or the right answer, and the DFA answers right after. */
START_TEST(alloc_failure) {
  prog p = {0};
  lit(&p, '*');
  uint32_t notstar[2][2] = { { 0, '*' - 1 }, { '*' + 1, 0x10FFFF } };
  uint32_t ns = set_of(&p, (const uint32_t (*)[2])notstar, 2);
  op(&p, IFS_RD_CHAR, 0, ns, 0);
  op(&p, IFS_RD_SPLIT, 0, 1, 3);
  lit(&p, '*');
  for (int i = 0; i < 6; i++) op(&p, IFS_RD_CHAR, 0, ch(&p, 'a' + (uint32_t)i, 'z'), 0);
  op(&p, IFS_RD_MATCH, 0, 0, 0);
  const char *text = "x *ab* *abc*\xd0\xaf *bcdefgh* tail";
  int done = 0;
  for (long k = 1; k < 500 && !done; k++) {
    ifs_test_fail_nth(k);
    ifs_status err;
    ifs_redfa *d = ifs_redfa_new(p.ins, p.n, p.sets, p.nsets, NULL, 0, &err);
    if (!d) {
      ck_assert_int_eq(err, IFS_NOMEM);
      ifs_test_fail_nth(0);
      continue;
    }
    int r = search(d, text);
    ck_assert_msg(r == 1 || r == NOMEM, "at %ld: %d", k, r);
    done = r == 1 && ifs_test_alloc_count < k;
    ifs_test_fail_nth(0);
    ck_assert_int_eq(search(d, text), 1);
    ck_assert_int_eq(search(d, "*ab* *abcde"), 0);
    ifs_redfa_free(d);
  }
  ck_assert_msg(done, "never completed");
}
END_TEST

static Suite *redfa_suite(void) {
  Suite *s = suite_create("ifs_redfa");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, assertions);
  tcase_add_test(tc, non_ascii);
  tcase_add_test(tc, simd_scan_agrees);
  tcase_add_test(tc, idle_skip_agrees);
  tcase_add_test(tc, state_bound);
  tcase_add_test(tc, answers_independent_of_history);
  tcase_add_test(tc, bad_programs);
  tcase_add_test(tc, alloc_failure);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(redfa_suite)
