/*
** test_ifs_needle_set.c — unit tests of ext/ifs_needle_set.c: a set of
** needles searched for in one pass must answer, for every needle, as
** `needle.lower() in text.lower()` computed the long way (ifs_lower, then
** ifs_find) and as the one-needle search (ifs_needle_find) does, whichever
** filter loop runs (byte loop, SSSE3, AVX2, AVX-512; where the CPU lacks
** one, the best below it runs in its place).
*/
#include "ifs_needle_set.h"
#include "ifs_needle.h"
#include "ifs_test.h"
#include "soup.h"
#include "ifs_text.h"
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define MAX_NEEDLES 1200
#define LEVELS 5   /* filter loops: bytes, SSSE3 (or NEON), AVX2, AVX-512, AVX-512 VBMI */

/* Needles as given (before lowering), their lowercase, and all of these
** end to end (the text the set reads them from). */
typedef struct needles {
  size_t k;
  const char *raw[MAX_NEEDLES];
  size_t raw_len[MAX_NEEDLES];
  ifs_buf low[MAX_NEEDLES];
  ifs_buf all;
} needles;

static void needles_lower(needles *v) {
  for (size_t i = 0; i < v->k; i++) {
    ifs_buf_init(&v->low[i]);
    ck_assert_int_eq(ifs_lower(v->raw[i], v->raw_len[i], &v->low[i]), IFS_OK);
  }
}

static void needles_free(needles *v) {
  for (size_t i = 0; i < v->k; i++) ifs_buf_free(&v->low[i]);
  ifs_buf_free(&v->all);
}

/* The set of v's lowered needles, laid end to end in v->all, the first
** likely of them expected found: all (a must_include list's), none (a
** must_exclude list's: none decided by the exact pass), or some (a set of
** both lists). */
static ifs_needle_set *set_built(needles *v, size_t likely) {
  static ifs_span span[MAX_NEEDLES];
  ifs_buf_free(&v->all);   /* (a set built before) */
  ck_assert_int_eq(ifs_buf_reserve(&v->all, 1), IFS_OK);
  for (size_t i = 0; i < v->k; i++) {
    span[i].at = v->all.len;
    span[i].len = v->low[i].len;
    ck_assert_int_eq(ifs_buf_append(&v->all, v->low[i].p ? v->low[i].p : "", v->low[i].len), IFS_OK);
  }
  ifs_needle_set *s;
  ck_assert_int_eq(ifs_needle_set_new(NULL, v->all.p, span, v->k, likely, &s), IFS_OK);
  return s;
}

static ifs_needle_set *set_of(needles *v) { return set_built(v, v->k); }

/* The long way, for one needle. */
static int long_way(const ifs_buf *lt, const ifs_buf *ln) {
  return ln->len == 0 || (lt->len && ifs_find(lt->p, lt->len, ln->p, ln->len) != NULL);
}

/* The one-needle search, or -1 when it defers. */
static int one_way(const ifs_buf *ln, const char *text, size_t n, int ascii) {
  if (ln->len == 0) return 1;
  ifs_needle nd;
  ifs_needle_init(&nd, ln->p, ln->len);
  int found;
  return ifs_needle_find(&nd, text, n, ascii, &found) == IFS_OK ? found : -1;
}

/* Checks every needle of v in text, with every filter loop; returns how
** many answers the set decided, and adds to *asked how many it was asked
** for.  Texts with U+0130 or U+03A3 are the caller's (the evaluator lowers
** them), so they are skipped. */
static size_t check_text(const ifs_needle_set *s, const needles *v, const char *text, size_t n,
                         size_t *asked) {
  ifs_scan sc;
  ifs_utf8_scan(text, n, &sc);
  if (!sc.plain_lower) return 0;
  *asked += v->k * (1 + (size_t)sc.ascii);
  ifs_buf lt;
  ifs_buf_init(&lt);
  ck_assert_int_eq(ifs_lower(text, n, &lt), IFS_OK);
  static signed char got[LEVELS][MAX_NEEDLES];
  size_t decided = 0;
  for (int as = sc.ascii; as >= 0; as--) {   /* ASCII text both ways */
    for (int level = 0; level < LEVELS; level++)
      ifs_test_needle_set_find_level(s, v->all.p, text, n, as, got[level], level);
    if (ifs_test_needle_set_big(s))   /* a loop letting more through would answer alike */
      for (int level = 1; level < LEVELS; level++)
        ck_assert_uint_eq(ifs_test_needle_set_shift_or_seen(s, v->all.p, text, n, as, got[level], level),
                          ifs_test_needle_set_shift_or_seen(s, v->all.p, text, n, as, got[0], 0));
    for (size_t i = 0; i < v->k; i++) {
      int want = long_way(&lt, &v->low[i]);
      for (int level = 1; level < LEVELS; level++)
        ck_assert_msg(got[level][i] == got[0][i], "needle %zu: loop %d says %d, the byte loop %d",
                      i, level, got[level][i], got[0][i]);
      if (got[0][i] < 0) continue;
      decided++;
      ck_assert_msg(got[0][i] == want, "needle %zu [%.*s] in [%.*s] (ascii %d): set %d, want %d",
                    i, (int)v->raw_len[i], v->raw[i], (int)n, text, as, got[0][i], want);
      int one = one_way(&v->low[i], text, n, as);
      ck_assert(one < 0 || one == want);
    }
  }
  ifs_buf_free(&lt);
  return decided;
}


/* Answers CPython 3.11 gives for needle.lower() in text.lower(). */
typedef struct known {
  const char *t;
  size_t tn;
  const char *nd[8];
  int found[8];
} known;

static const known knowns[] = {
  {LIT("I'm sorry, but as an AI I cannot"),
   {"i'M SORRY", "as an ai", "cannot", "can not", "SORRY, BUT", "i", "zz", ""},
   {1, 1, 1, 0, 1, 1, 0, 1}},
  {LIT("\xe2\x84\xaa" "elvin and K\xe2\x84\xaa"),                 /* KELVIN SIGN */
   {"kelvin", "kk", "k", "ELV", "\xe2\x84\xaa"}, {1, 1, 1, 1, 1}},
  {LIT("\xce\x91\xcf\x83 \xcf\x82 \xcf\x83\xcf\x82"),             /* sigma forms */
   {"\xcf\x83\xcf\x82", "\xcf\x82", "\xcf\x83 ", "\xce\xa3\xcf\x82", "\xcf\x83"}, {1, 1, 1, 1, 1}},
  {LIT("i\xcc\x87stanbul ISTANBUL"),                                /* U+0130 lowered */
   {"\xc4\xb0stanbul", "istanbul", "i\xcc\x87s", "\xc4\xb0"}, {1, 1, 1, 1}},
  {LIT("\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2 \xd0\xbc\xd0\xb8\xd1\x80"),
   {"\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82",
    "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd0\x9c",
    "\xd0\xbc\xd0\xb8\xd1\x80!", "\xd0\x92\xd0\x95\xd0\xa2"}, {1, 1, 0, 1}},
  {LIT("Stra\xe1\xba\x9e" "e x\xe2\x84\xa6y \xe2\x84\xab"),        /* capital sharp s, OHM, ANGSTROM */
   {"stra\xc3\x9f" "e", "strasse", "\xcf\x89", "\xc3\xa5", "xw"}, {1, 0, 1, 1, 0}},
  {LIT("a`b x\0y [Z]"),          /* bytes that differ from a needle's in bit 5 only */
   {"a@b", "a`b", "x y", "{z}", "[z]", "A`B"}, {0, 1, 0, 0, 1, 1}},
  /* non-ASCII heads: the two cases differ in a lead byte's bit 0 and a
  ** continuation byte's bits 0, 4 or 5 (A: a with macron, Armenian, Cyrillic
  ** er and yo, omega); DZHE (D0 8F) differs from ya (D1 8F) in just those bits
  ** but is no form of it, nor is Georgian capital DA (E1 B2 AB) of da */
  {LIT("\xd0\x8f\xd0\x8f \xc4\x80\xc4\x81 \xd4\xb1\xd5\x81 \xd0\xa0\xd0\x81 \xe1\x83\xab "
       "\xd1\xa0\xd1\xa1"),
   {"\xd1\x8f\xd1\x8f", "\xc4\x81\xc4\x80", "\xd5\xa1\xd5\xb1", "\xd1\x80\xd1\x91",
    "\xe1\xb2\xab\xe1\xb2\xab", "\xd1\xa1\xd1\xa1", "\xd1\x9f\xd1\x9f", "\xd0\xb0\xd0\xb0"},
   {0, 1, 1, 1, 0, 1, 1, 0}},
  /* long heads across scripts, and a caseless one (Gujarati) */
  {LIT("\xd0\x8f\xd0\x8f \xc4\x80\xc4\x81 \xd4\xb1\xd5\x81 \xd0\xa0 "
       "\xe0\xaa\x97\xe0\xab\x81\xe0\xaa\x9c\xe0\xaa\xb0\xe0\xaa\xbe\xe0\xaa\xa4\xe0\xab\x80"),
   {"\xc4\x81 \xd5\xa1", "\xd4\xb1\xd5\x81 \xd0\xa0",
    "\xe0\xaa\x97\xe0\xab\x81\xe0\xaa\x9c\xe0\xaa\xb0\xe0\xaa\xbe\xe0\xaa\xa4\xe0\xab\x80",
    "\xe0\xaa\x97\xe0\xab\x81\xe0\xaa\x9c\xe0\xaa\xb0\xe0\xaa\xbe\xe0\xaa\xa4\xe0\xab\x81",
    "\xd1\x8f\xd1\x8f \xc4\x81", "\xd0\x9f\xd0\x9f \xc4\x81"},
   {1, 1, 1, 0, 0, 0}},
};

START_TEST(test_known_answers) {
  const known *c = &knowns[_i];
  needles v = {0};
  while (v.k < 8 && c->nd[v.k]) {
    v.raw[v.k] = c->nd[v.k];
    v.raw_len[v.k] = strlen(c->nd[v.k]);
    v.k++;
  }
  needles_lower(&v);
  ifs_needle_set *s = set_of(&v);
  signed char got[8];
  ifs_scan sc;
  ifs_utf8_scan(c->t, c->tn, &sc);
  ck_assert(sc.plain_lower);
  for (int level = 0; level < LEVELS; level++) {
    ifs_test_needle_set_find_level(s, v.all.p, c->t, c->tn, sc.ascii, got, level);
    for (size_t i = 0; i < v.k; i++)
      ck_assert_msg(got[i] == c->found[i], "case %d needle %zu level %d: %d", _i, i, level, got[i]);
  }
  size_t asked = 0;
  ck_assert_uint_eq(check_text(s, &v, c->t, c->tn, &asked), asked);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

static const char *const pieces[] = {
  "a", "A", "k", "K", "\xe2\x84\xaa", "s", "S", "\xc5\xbf", "\xc3\xa5", "\xc3\x85",
  "\xe2\x84\xab", "\xc3\x9f", "\xe1\xba\x9e", "\xd0\xb6", "\xd0\x96", "\xd1\x8b", "\xd0\xab",
  "\xcf\x89", "\xce\xa9", "\xe2\x84\xa6", "\xc7\x84", "\xc7\x85", "\xc7\x86", " ", "\0",
  "\xed\xb2\xb6", "\xe2\x82\xb6", "\xf0\x90\x90\x80", "\xf0\x90\x90\xa8", "i", "I",
  "\xcc\x87", "\xc4\xb0", "\xce\xa3", "\xcf\x83", "\xcf\x82", "@", "`", "[", "{", "ab", "the "};
#define NPIECES (sizeof pieces / sizeof pieces[0])

/* A needle: a slice of the text (on character bounds, recased) or pieces. */
static size_t make_needle(char *nd, const char *text, size_t tn, unsigned *seed) {
  size_t nn = 0;
  if (soup_next(seed) % 3 && tn) {
    size_t a = soup_next(seed) % tn, len = soup_next(seed) % 14;
    while (a < tn && (text[a] & 0xC0) == 0x80) a++;
    size_t b = a;
    while (b < tn && b - a < len) {
      size_t j = b;
      (void)ifs_decode(text, tn, &j);
      if (j - a > len) break;
      b = j;
    }
    nn = b - a;
    memcpy(nd, text + a, nn);
    for (size_t i = 0; i < nn; i++)
      if (soup_next(seed) % 2 && nd[i] >= 'a' && nd[i] <= 'z') nd[i] = (char)(nd[i] - 32);
    if (nn && soup_next(seed) % 4 == 0) nd[nn - 1] ^= 1;   /* a near miss */
  } else {
    nn = soup_fill(nd, 40, pieces, NPIECES, 5, seed);
  }
  return nn;
}

/* Random texts and sets of kmin to kmin + kspan - 1 needles, many of them
** overlapping slices of the text: every answer the set gives is the long
** way's, with the exact pass and without it, and a set is big (searched
** by shift-or) past 128 needles. */
static void check_random_sets(unsigned seed, int iters, size_t kmin, size_t kspan) {
  static char text[400], store[400][48];
  size_t decided = 0, asked = 0;
  for (int iter = 0; iter < iters; iter++) {
    size_t tn = soup_fill(text, sizeof text, pieces, NPIECES, 120, &seed);
    needles v = {0};
    v.k = kmin + soup_next(&seed) % kspan;
    for (size_t i = 0; i < v.k; i++) {
      v.raw[i] = store[i];
      v.raw_len[i] = make_needle(store[i], text, tn, &seed);
    }
    needles_lower(&v);
    const size_t likely[] = {v.k, 0, v.k / 2};
    for (size_t form = 0; form < sizeof likely / sizeof likely[0]; form++) {
      ifs_needle_set *s = set_built(&v, likely[form]);
      ck_assert_int_eq(ifs_test_needle_set_big(s), v.k > 128);
      decided += check_text(s, &v, text, tn, &asked);
      ifs_needle_set_free(s);
    }
    needles_free(&v);
  }
  ck_assert_uint_gt(asked, 10000);
  ck_assert_uint_gt(decided, asked * 9 / 10);   /* few give up */
}

START_TEST(test_random_sets) {
  check_random_sets(1234 + (unsigned)_i, 4000, 1, 40);
}
END_TEST

START_TEST(test_random_big_sets) {
  check_random_sets(4321 + (unsigned)_i, 300, 129, 272);
}
END_TEST

/* Needles 0 .. placed - 1 of v (in set s) put at each position from
** from to to of an n-byte text of filler: every loop finds each, and the
** set decides every needle as the long way does.  ascii: the needles are
** ASCII. */
static void check_positions(const ifs_needle_set *s, const needles *v, size_t placed, int ascii,
                            size_t n, size_t from, size_t to) {
  static const char filler[] = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do "
                               "eiusmod tempor incididunt ut labore et dolore magna aliqua. ";
  static char text[1024];
  ck_assert_uint_le(n, sizeof text);
  size_t asked = 0, decided = 0;
  for (size_t i = 0; i < placed; i++) {
    for (size_t at = from; at < to && at + v->raw_len[i] <= n; at++) {
      for (size_t b = 0; b < n; b++) text[b] = filler[b % (sizeof filler - 1)];
      memcpy(text + at, v->raw[i], v->raw_len[i]);
      decided += check_text(s, v, text, n, &asked);
      static signed char got[MAX_NEEDLES];
      for (int level = 0; level < LEVELS; level++) {
        ifs_test_needle_set_find_level(s, v->all.p, text, n, ascii, got, level);
        ck_assert_msg(got[i] == 1, "%s at %zu: loop %d says %d", v->raw[i], at, level, got[i]);
      }
    }
  }
  ck_assert_uint_eq(decided, asked);
}

/* The same at every position of a 100-byte text. */
static void check_every_position(const ifs_needle_set *s, const needles *v, size_t placed,
                                 int ascii) {
  check_positions(s, v, placed, ascii, 100, 0, 100);
}

/* A big set's needles found at every position of a text, by the shift-or
** search: at the start (where the state holds no byte before), at the end,
** across the SSE2 loop's batches of candidates,
** needles shorter than a prefix, needles with k or a letter not ASCII in
** the bytes after the prefix, and one whose only form here is KELVIN SIGN. */
START_TEST(test_big_set_positions) {
  static const char *const placed[] = {
    "refuse", "I can't help with that", "ok", "x", "Kelvin scale", "\xe2\x84\xaa" "elvin",
    "na\xc3\xafve plan", "\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2", "thanks",
    "as a language model"};
  enum { PLACED = sizeof placed / sizeof placed[0], K = 200 };
  static char store[K][16];
  needles v = {0};
  v.k = K;
  for (size_t i = 0; i < K; i++) {
    if (i < PLACED) {
      v.raw[i] = placed[i];
      v.raw_len[i] = strlen(placed[i]);
    } else {   /* absent ones: "qz" words */
      v.raw_len[i] = (size_t)snprintf(store[i], sizeof store[i], "qz%c%cword", 'a' + (int)(i % 26),
                                      'a' + (int)(i / 26));
      v.raw[i] = store[i];
    }
  }
  needles_lower(&v);
  ifs_needle_set *s = set_of(&v);
  ck_assert(ifs_test_needle_set_big(s));
  check_every_position(s, &v, PLACED, 0);
  /* where the SSE2 loop's queue of candidates ends and starts again (every
  ** 256 bytes), and the text's end past it */
  check_positions(s, &v, PLACED, 0, 600, 230, 280);
  check_positions(s, &v, PLACED, 0, 600, 490, 600);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* A big set's buckets keep families of literals apart: four families of
** 36 phrases, each a stem of six letters and two vowels, share the bytes
** "df" in the middle; a text mixing one family's start with another's end
** ("bqdfwmae") would pass a bucket holding both, and passes none: no
** candidate, every level.  Each phrase's literal is found where the text
** holds it. */
START_TEST(test_big_set_families) {
  static const char *const stems[] = {"bqdfgh", "jqdfwm", "vzdfgx", "pydfwz"};
  static const char vowels[] = "aeiouy";
  enum { K = 4 * 36 };
  static char store[K][9];
  needles v = {0};
  v.k = K;
  for (size_t i = 0; i < K; i++) {
    snprintf(store[i], sizeof store[i], "%s%c%c", stems[i / 36], vowels[i % 36 / 6],
             vowels[i % 6]);
    v.raw[i] = store[i];
    v.raw_len[i] = 8;
  }
  needles_lower(&v);
  ifs_needle_set *s = set_of(&v);
  ck_assert(ifs_test_needle_set_big(s));
  static const char mixed[] = "bqdfwmae jqdfghio vzdfwzua pydfgxee bqdfgxoo vzdfghyy";
  signed char got[K];
  for (int level = 0; level < LEVELS; level++) {
    ck_assert_uint_eq(ifs_test_needle_set_shift_or_seen(s, v.all.p, mixed, sizeof mixed - 1, 1,
                                                        got, level), 0);
    for (size_t i = 0; i < K; i++) ck_assert_int_eq(got[i], 0);
  }
  static const char held[] = "xx bqdfghae jqdfwmyy vzdfgxio pydfwzuu";
  ck_assert_uint_ne(ifs_test_needle_set_shift_or_seen(s, v.all.p, held, sizeof held - 1, 1, got, 2),
                    0);
  for (size_t i = 0; i < K; i++) {
    int want = !strcmp(store[i], "bqdfghae") || !strcmp(store[i], "jqdfwmyy") ||
               !strcmp(store[i], "vzdfgxio") || !strcmp(store[i], "pydfwzuu");
    ck_assert_msg(got[i] == want, "%s: %d", store[i], got[i]);
  }
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* English-like text and a refusal list: ASCII and non-ASCII texts (a curly
** quote makes the text non-ASCII), lists from 1 to 1,000 phrases. */
START_TEST(test_phrase_lists) {
  static const char *const words[] = {
    "I", "I'm", "sorry", "as", "an", "AI", "language", "model", "cannot", "can't", "help",
    "with", "that", "the", "answer", "is", "here", "\xe2\x80\x99", "ok", "not", "able",
    "to", "provide", "illegal", "unethical", "Kelvin", "\xe2\x84\xaa", "apologize", "my"};
  unsigned seed = 99;
  static char text[3000];
  static char store[MAX_NEEDLES][64];
  size_t sizes[] = {1, 2, 5, 16, 17, 60, 200, 1000};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    for (int iter = 0; iter < 30; iter++) {
      size_t tn = 0;
      while (tn < sizeof text - 40) {
        const char *w = words[soup_next(&seed) % (sizeof words / sizeof words[0])];
        memcpy(text + tn, w, strlen(w));
        tn += strlen(w);
        text[tn++] = soup_next(&seed) % 9 ? ' ' : '.';
      }
      needles v = {0};
      v.k = sizes[si];
      for (size_t i = 0; i < v.k; i++) {
        size_t nn = 0, nw = 1 + soup_next(&seed) % 3;
        for (size_t w = 0; w < nw; w++) {
          const char *x = words[soup_next(&seed) % (sizeof words / sizeof words[0])];
          if (nn) store[i][nn++] = ' ';
          memcpy(store[i] + nn, x, strlen(x));
          nn += strlen(x);
        }
        v.raw[i] = store[i];
        v.raw_len[i] = nn;
      }
      needles_lower(&v);
      ifs_needle_set *s = set_of(&v);
      ck_assert_int_eq(ifs_test_needle_set_big(s), v.k > 128);
      size_t asked = 0;
      ck_assert_uint_eq(check_text(s, &v, text, tn, &asked), asked);   /* none gives up */
      ifs_needle_set_free(s);
      needles_free(&v);
    }
  }
}
END_TEST

/* Set s of v's needles searched in text (ASCII) gives up: it finds none
** there, and leaves some undecided. */
static void check_gives_up(const ifs_needle_set *s, const needles *v, const char *text, size_t n,
                           signed char *got) {
  ifs_needle_set_find(s, v->all.p, text, n, 1, got);
  size_t undecided = 0;
  for (size_t i = 0; i < v->k; i++) {
    ck_assert_int_le(got[i], 0);
    undecided += got[i] < 0;
  }
  ck_assert_uint_gt(undecided, 0);
}

/* Every position a candidate for many needles sharing a prefix: the set
** gives up (leaves needles undecided) instead of going quadratic, and what
** it did decide is right. */
START_TEST(test_adversarial_gives_up) {
  size_t n = 1 << 18;
  char *text = malloc(n);
  ck_assert_ptr_nonnull(text);
  memset(text, 'a', n);
  static char store[64][300];
  needles v = {0};
  v.k = 64;
  for (size_t i = 0; i < v.k; i++) {
    memset(store[i], 'A', 200);
    store[i][100] = (char)('b' + i % 20);
    v.raw[i] = store[i];
    v.raw_len[i] = 200 + i % 3;
  }
  needles_lower(&v);
  ifs_needle_set *s = set_of(&v);
  signed char got[64];
  check_gives_up(s, &v, text, n, got);
  ifs_needle_set_find(s, v.all.p, store[5], v.raw_len[5], 1, got);   /* found at 0, before the cap */
  ck_assert_int_eq(got[5], 1);
  for (size_t i = 0; i < v.k; i++)   /* a shorter needle may be in it too */
    ck_assert(got[i] < 0 || got[i] == (v.raw_len[i] <= v.raw_len[5] &&
                                       memcmp(store[i], store[5], v.raw_len[i]) == 0));
  ifs_needle_set_free(s);
  needles_free(&v);
  free(text);
}
END_TEST

/* The same in a big set: 64 needles of a's whose e is at a different
** place in each (their literals are eight a's: e is commoner than a) give
** up among 200, and what the set decided is right. */
START_TEST(test_adversarial_big_gives_up) {
  size_t n = 1 << 16;
  char *text = malloc(n);
  ck_assert_ptr_nonnull(text);
  memset(text, 'a', n);
  static char store[200][300];
  needles v = {0};
  v.k = 200;
  for (size_t i = 0; i < v.k; i++) {
    if (i < 64) {
      memset(store[i], 'A', 200);
      store[i][100 + i % 50] = 'E';
      v.raw_len[i] = 200 + i % 3;
    } else {
      v.raw_len[i] = (size_t)snprintf(store[i], 300, "qz%zu", i);
    }
    v.raw[i] = store[i];
  }
  needles_lower(&v);
  ifs_needle_set *s = set_of(&v);
  ck_assert(ifs_test_needle_set_big(s));
  signed char got[200];
  check_gives_up(s, &v, text, n, got);
  memcpy(text, "QZ150", 5);   /* found before the cap */
  ifs_needle_set_find(s, v.all.p, text, n, 1, got);
  ck_assert_int_eq(got[150], 1);
  ck_assert_int_eq(got[151], -1);
  ifs_needle_set_free(s);
  needles_free(&v);
  free(text);
}
END_TEST

/* A failing allocator: IFS_NOMEM and no set, never a half-built one;
** once every allocation it makes succeeds, the set. */
START_TEST(test_out_of_memory) {
  static const ifs_span span[] = {{0, 5}, {5, 8}, {13, 1}};
  const char *text = "sorryas an aik";
  long fail = 1;
  for (;; fail++) {
    ifs_needle_set *s;
    ifs_test_fail_nth(fail);
    ifs_status st = ifs_needle_set_new(NULL, text, span, 3, 2, &s);   /* (k: prefixes made) */
    ifs_test_fail_nth(0);
    if (st == IFS_OK) {
      signed char got[3];
      ifs_needle_set_find(s, text, "I'm sorry", 9, 1, got);
      ck_assert_int_eq(got[0], 1);
      ck_assert_int_eq(got[1], 0);
      ifs_needle_set_free(s);
      break;
    }
    ck_assert_int_eq(st, IFS_NOMEM);
    ck_assert_ptr_null(s);
  }
  ck_assert_int_eq(fail, 4);   /* its three allocations, each failed once */
}
END_TEST

/* Past its bounds, IFS_LIMIT and no set, whatever memory there is. */
START_TEST(test_past_bounds) {
  ifs_needle_set *s;
  static const ifs_span span[] = {{0, 5}};
  ck_assert_int_eq(ifs_needle_set_new(NULL, "sorry", span, IFS_NEEDLE_SET_MAX + 1, 0, &s), IFS_LIMIT);
  ck_assert_ptr_null(s);
#if SIZE_MAX > UINT32_MAX
  static const ifs_span far[] = {{0, 5}, {(size_t)UINT32_MAX + 1, 1}};
  ck_assert_int_eq(ifs_needle_set_new(NULL, "sorry", far, 2, 2, &s), IFS_LIMIT);
  ck_assert_ptr_null(s);
#endif
}
END_TEST

/* The four bytes a needle's prefix is: in a set whose second tables test
** the bytes after it, the window English text holds least with them, four
** of them where it can; in a big set, the window whose eight bytes from it
** are the rarest (a byte not ASCII, or k, after the four as a common one;
** a window across two words counted rarer).
** Exact windows of the table in the tree: a change of the table or the
** costs shows here. */
START_TEST(test_prefix_choice) {
  static const struct {
    const char *low;
    int big;
    size_t skip;
  } cases[] = {
    {"moreover", 0, 0},              /* "more": "reov" would leave two bytes free */
    {"in conclusion", 0, 5},         /* "nclu", not "in c" */
    {"not ethical", 0, 2},           /* "t et", not "not " */
    {"as a language model", 0, 8},   /* "guag" */
    {"tapestry", 0, 0},              /* "tape", with "stry" after it */
    {"ok quiz jazz", 0, 0},          /* not past a k: it may be KELVIN SIGN (3 bytes) */
    {"akindness", 0, 1},             /* (a window may start at one) */
    {"caf\xc3\xa9 quiz jazz", 0, 0},  /* nor past a character that is not ASCII */
    {"zebra", 0, 0},                 /* the first four, then "a" */
    {"abc", 0, 0},                   /* shorter than a prefix */
    {"tapestry", 1, 0},              /* a big set: all eight bytes */
    {"quantum leap", 1, 4},          /* "tum leap", across the words, before "quantum " */
    {"important small", 1, 7},       /* "nt small", not "importan" */
    {"important  small", 1, 0},      /* no word boundary: "importan" */
    {"ab cdefgh", 1, 0},             /* "ab cdefg": a space two bytes in ("b cdefgh" alone: 1) */
    {"it is not ethical", 1, 7},     /* "ot ethic", across the words */
    {"i cannot help with that", 1, 9},    /* "help wit": p and w are rarer than a, n, t */
    {"okquiz jazz", 1, 1},           /* "kquiz ja": at a k, not past it ("quiz jaz") */
    {"abc", 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t got = ifs_test_needle_set_prefix_skip(cases[i].low, strlen(cases[i].low), cases[i].big);
    ck_assert_msg(got == cases[i].skip, "%s (big %d): skip %zu, expected %zu", cases[i].low,
                  cases[i].big, got, cases[i].skip);
  }
}
END_TEST

/* The k needles words[i] of len[i] bytes (len NULL: strlen), lowered, in
** *v. */
static void needles_of(needles *v, const char *const *words, const size_t *len, size_t k) {
  *v = (needles){0};
  v->k = k;
  for (size_t i = 0; i < k; i++) {
    v->raw[i] = words[i];
    v->raw_len[i] = len ? len[i] : strlen(words[i]);
  }
  needles_lower(v);
}

/* The first k of thirteen words a refusal list holds, lowered, in *v. */
static void refusal_words(needles *v, size_t k) {
  static const char *const words[] = {"apology", "refuse", "cannot", "unable", "sorry",
                                      "policy", "ethical", "harmful", "illegal", "assist",
                                      "decline", "violate", "guideline"};
  ck_assert_uint_le(k, sizeof words / sizeof words[0]);
  needles_of(v, words, NULL, k);
}

/* A set of at most twelve prefixes is narrow (eight buckets, 32 positions
** a step in the AVX2 loop, 64 with half the shuffles in the AVX-512 one):
** each of its words is found at every position of a text, by every loop,
** across the steps' seams and in the tail.  A set of thirteen is not. */
START_TEST(test_narrow_sets) {
  for (size_t k = 10; k <= 13; k += 3) {
    needles v;
    refusal_words(&v, k);
    ifs_needle_set *s = set_built(&v, 0);   /* none expected found: no exact pass */
    ck_assert_uint_eq(ifs_test_needle_set_exact(s), 0);
    ck_assert_int_eq(ifs_test_needle_set_narrow(s), k <= 12);
    check_every_position(s, &v, k, 1);
    ifs_needle_set_free(s);
    needles_free(&v);
  }
}
END_TEST

/* Each word of a narrow set and of a wide one found where it ends a text,
** or nearly, for every text length from 60 to 200 bytes: the vector loops'
** last steps (the AVX-512 loop's read the end by masked loads) see every
** length of the text's end and every place across their seams. */
START_TEST(test_text_ends) {
  for (size_t k = 10; k <= 13; k += 3) {
    needles v;
    refusal_words(&v, k);
    ifs_needle_set *s = set_built(&v, 0);
    for (size_t n = 60; n <= 200; n++) check_positions(s, &v, k, 1, n, n - 16, n);
    ifs_needle_set_free(s);
    needles_free(&v);
  }
}
END_TEST

/* The exact pass (AVX-512 VBMI) decides needles expected found that are
** ASCII in their first eight bytes, with no NUL or DEL there: in a set of
** those alone, up to sixteen (past eight, two to a bucket); each of them
** is found at every position of a text and where it ends a text of every
** length from 60 to 200 bytes (its last step reads the end by masked
** loads), and the filter finds the rest.  In such a set, it also takes a
** needle whose characters not ASCII in those bytes have each every form
** (the characters lowering to it) of their own length in UTF-8. */
START_TEST(test_exact_pass) {
  needles v;
  refusal_words(&v, 13);   /* all: apology, refuse, cannot alone, the others two to a bucket */
  ifs_needle_set *s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? 13 : 0);
  check_every_position(s, &v, 13, 1);
  for (size_t n = 60; n <= 200; n++) check_positions(s, &v, 13, 1, n, n - 16, n);
  ifs_needle_set_free(s);
  needles_free(&v);
  /* kelvin and ok (k), guideline (nine bytes), hi-fi and café fit, and
  ** ten bytes with omega last; two hold NUL or DEL, the others a
  ** character of another length lowering to omega (OHM SIGN), to a with
  ** ring (ANGSTROM SIGN) or to sharp s (its capital) */
  static const char *const misfits[] = {
    "kelvin", "guideline", "caf\xc3\xa9", "a\0b", "x\x7fy", "ok", "hi-fi",
    "abcdefgh\xcf\x89", "abcdefg\xcf\x89", "\xc3\xa5r", "stra\xc3\x9f" "e"};
  static const size_t misfit_len[] = {6, 9, 5, 3, 3, 2, 5, 10, 9, 3, 7};
  needles_of(&v, misfits, misfit_len, 11);
  s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? 6 : 0);
  check_every_position(s, &v, 11, 0);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* A set whose needles the exact pass decides, all of them, is asked for
** ahead without the filter's part (its tables: half a kilobyte and more),
** which its search never reads: its hot bytes (header, answers, needles,
** and the exact pass's part, whose nibble tables take 256 bytes where
** byte tables took a kilobyte) are at most 768, the set a kilobyte more.
** With one needle left for the filter (a must_exclude list's, or every
** needle where there is no exact pass), they are the whole set. */
START_TEST(test_hot_bytes) {
  needles v;
  refusal_words(&v, 10);
  ifs_needle_set *s = set_of(&v);
  size_t bytes = ifs_needle_set_bytes(s), hot = ifs_needle_set_hot_bytes(s);
  if (ifs_test_needle_set_exact_runs(v.k, 1)) {
    ck_assert_uint_eq(ifs_test_needle_set_exact(s), 10);
    ck_assert_uint_le(hot, 768);
    ck_assert_uint_ge(bytes, hot + 1024);
  } else {
    ck_assert_uint_eq(hot, bytes);
  }
  ifs_needle_set_free(s);
  s = set_built(&v, 9);   /* the tenth is the filter's */
  ck_assert_uint_eq(ifs_needle_set_hot_bytes(s), ifs_needle_set_bytes(s));
  check_every_position(s, &v, 10, 1);
  ifs_needle_set_free(s);
  needles_free(&v);
  ck_assert_uint_eq(ifs_needle_set_hot_bytes(NULL), 0);
}
END_TEST

/* Needle i's answer from set s in text (ascii: it is ASCII), the same from
** every filter loop; every needle's checked against the long way. */
static int answer_of(const ifs_needle_set *s, const needles *v, const char *text, int ascii,
                     size_t i) {
  static signed char got[LEVELS][MAX_NEEDLES];
  size_t n = strlen(text), asked = 0;
  ck_assert_uint_eq(check_text(s, v, text, n, &asked), asked);
  for (int level = 0; level < LEVELS; level++)
    ifs_test_needle_set_find_level(s, v->all.p, text, n, ascii, got[level], level);
  for (int level = 1; level < LEVELS; level++) ck_assert_int_eq(got[level][i], got[0][i]);
  return got[0][i];
}

/* What the exact pass lets through is searched for again: a mix of the
** two words of a bucket (zebra and delve: "debra"), the first eight bytes
** of a long word alone ("guidelin"), and, in text not ASCII, the absence
** of a word holding k (KELVIN SIGN lowers to k).  In a set of both lists
** (needles not expected found after), the pass takes none of those. */
START_TEST(test_exact_pass_searches_again) {
  static const char *const words[] = {"alpha", "bravo", "charlie", "tango", "echo",
                                      "foxtrot", "golf", "zebra", "delve", "guideline", "kelvin"};
  enum { ZEBRA = 7, DELVE = 8, GUIDELINE = 9, KELVIN = 10, K = 11 };
  needles v;
  needles_of(&v, words, NULL, K);
  ifs_needle_set *s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? K : 0);
  ck_assert_int_eq(answer_of(s, &v, "a debra, the zelve", 1, ZEBRA), 0);
  ck_assert_int_eq(answer_of(s, &v, "a debra, the zelve", 1, DELVE), 0);
  ck_assert_int_eq(answer_of(s, &v, "a ZEBRA", 1, ZEBRA), 1);
  ck_assert_int_eq(answer_of(s, &v, "a ZEBRA", 1, DELVE), 0);
  ck_assert_int_eq(answer_of(s, &v, "the guidelin", 1, GUIDELINE), 0);
  ck_assert_int_eq(answer_of(s, &v, "the guidelinx, guideLINES", 1, GUIDELINE), 1);
  ck_assert_int_eq(answer_of(s, &v, "\xe2\x84\xaa" "ELVIN", 0, KELVIN), 1);
  ck_assert_int_eq(answer_of(s, &v, "caf\xc3\xa9 kelvi", 0, KELVIN), 0);
  ck_assert_int_eq(answer_of(s, &v, "caf\xc3\xa9 KELVIN", 0, KELVIN), 1);
  ifs_needle_set_free(s);
  s = set_built(&v, K - 1);   /* one not expected found: alpha .. zebra alone */
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 0) ? 8 : 0);
  ck_assert_int_eq(answer_of(s, &v, "a debra, the zelve", 1, ZEBRA), 0);
  ck_assert_int_eq(answer_of(s, &v, "\xe2\x84\xaa" "ELVIN", 0, KELVIN), 1);
  ifs_needle_set_free(s);
  needles_free(&v);
  static const char *const mixed[] = {"guideline", "kelvin", "sorry", "refuse"};
  needles_of(&v, mixed, NULL, 4);
  s = set_built(&v, 3);   /* of the three expected found, sorry alone */
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 0) ? 1 : 0);
  ck_assert_int_eq(answer_of(s, &v, "\xe2\x84\xaa" "ELVIN: sorry, the guidelin", 0, 0), 0);
  ck_assert_int_eq(answer_of(s, &v, "\xe2\x84\xaa" "ELVIN: sorry, the guidelin", 0, 1), 1);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* A bucket the exact pass lets through is verified where it matches (a
** needle there costs no search); a needle found leaves its bucket to the
** other, whose match then decides when it is a word of letters alone.  Past
** the checks (sixteen and one for each 64 bytes), the needles left are
** searched for from the match not verified; a needle holding k in text not
** ASCII, which KELVIN SIGN (three bytes, not k's one) lowers to, from the
** text's start.
** In order, five words alone, then the pairs (foxtrot, golf), (zebra,
** delve) and (guideline, kilometers). */
START_TEST(test_exact_pass_verified_where_matched) {
  static const char *const words[] = {"alpha", "bravo", "charlie", "tango", "echo", "foxtrot",
                                      "golf", "zebra", "delve", "guideline", "kilometers"};
  enum { ZEBRA = 7, DELVE = 8, GUIDELINE = 9, KILOMETERS = 10, K = 11 };
  needles v;
  needles_of(&v, words, NULL, K);
  ifs_needle_set *s = set_of(&v);
  if (!ifs_test_needle_set_exact_runs(v.k, 1)) {   /* (no exact pass to test) */
    ifs_needle_set_free(s);
    needles_free(&v);
    return;
  }
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), K);
  static signed char got[MAX_NEEDLES];
  /* guideline found where its bucket matched, kilometers verified at its
  ** bucket's matches after that: no search */
  static char text[400];
  for (size_t at = 0; at <= 150; at++) {   /* across the loop's steps of 64 */
    memset(text, '.', at);
    memcpy(text + at, "GuideLine", 10);
    size_t n = at + 9;
    ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, n, 1, got), 0);
    ck_assert_int_eq(got[GUIDELINE], 1);
    ck_assert_int_eq(got[KILOMETERS], 0);
  }
  ck_assert_int_eq(answer_of(s, &v, "the guidelines", 1, GUIDELINE), 1);
  /* delve, then zebra at each distance (in the same step or a later one):
  ** zebra found by its bucket's match once delve is; not a mix of the two
  ** before or after delve */
  for (size_t at = 0; at <= 130; at += 13)
    for (size_t d = 5; d <= 140; d++) {
      memset(text, '.', sizeof text);
      memcpy(text + at, "delve", 5);
      memcpy(text + at + d, "ZEBRA", 5);
      size_t n = at + d + 5 + at % 7;
      ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, n, 1, got), 0);
      ck_assert_int_eq(got[DELVE], 1);
      ck_assert_int_eq(got[ZEBRA], 1);
      text[at + d + 1] = 'x';   /* zebrx: after delve, only zebra matches the bucket */
      ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, n, 1, got), 0);
      ck_assert_int_eq(got[ZEBRA], 0);
      memcpy(text + at + d, "zelve", 5);   /* a mix, after delve: nothing */
      ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, n, 1, got), 0);
      ck_assert_int_eq(got[DELVE], 1);
      ck_assert_int_eq(got[ZEBRA], 0);
      memcpy(text + at, "zelve", 5);   /* a mix, then delve: the mix's match forgotten */
      memcpy(text + at + d, "delve", 5);
      ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, n, 1, got), 0);
      ck_assert_int_eq(got[DELVE], 1);
      ck_assert_int_eq(got[ZEBRA], 0);
    }
  /* a mix first ("zelve"), then delve: both verified, no search */
  const char *mix = "a zelve, then a delve";
  ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, mix, strlen(mix), 1, got), 0);
  ck_assert_int_eq(got[ZEBRA], 0);
  ck_assert_int_eq(got[DELVE], 1);
  ck_assert_int_eq(answer_of(s, &v, mix, 1, DELVE), 1);
  /* 60 mixes in 360 bytes: 16 + 5 checks, then both searched for from the
  ** 22nd mix (byte 126); zebra at the end */
  memset(text, 0, sizeof text);
  for (size_t i = 0; i < 60; i++) memcpy(text + 6 * i, "zelve ", 6);
  memcpy(text + 360, "zebra", 5);
  ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, text, 365, 1, got),
                    2 * (365 - 126));
  ck_assert_int_eq(got[ZEBRA], 1);
  ck_assert_int_eq(got[DELVE], 0);
  ck_assert_int_eq(answer_of(s, &v, text, 1, ZEBRA), 1);
  /* the first bytes of guideline, not it, then the word */
  ck_assert_int_eq(answer_of(s, &v, "guidelinx, guidelin, guideline", 1, GUIDELINE), 1);
  ck_assert_int_eq(answer_of(s, &v, "guidelinx, guidelin, guidelin", 1, GUIDELINE), 0);
  /* kilometers in KELVIN SIGN, and the first bytes of kilometer: it is
  ** searched for from the start, guideline not at all */
  const char *kelvin = "\xe2\x84\xaa" "ILOMETERS, caf\xc3\xa9, kilometer.";
  ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, kelvin, strlen(kelvin), 0, got),
                    strlen(kelvin));
  ck_assert_int_eq(got[KILOMETERS], 1);
  ck_assert_int_eq(got[GUIDELINE], 0);
  ck_assert_int_eq(answer_of(s, &v, kelvin, 0, KILOMETERS), 1);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* A byte not ASCII is read by its low five bits, which no letter's fold
** has: U+00A1 (C2 A1) would otherwise read as "B!", its bytes' low seven
** bits, and let "b!" through; nor do the bytes past a text's end (NUL) let
** a needle through.  Texts short (the last step alone) and long (the loop
** over text that is not ASCII). */
START_TEST(test_exact_pass_bytes) {
  static const char *const words[] = {"b!", "ab", "!b", "zz", "xyz"};
  needles v;
  needles_of(&v, words, NULL, 5);
  ifs_needle_set *s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? 5 : 0);
  static char text[300];
  for (size_t n = 2; n <= 280; n += 2) {
    for (size_t i = 0; i + 1 < n; i += 2) memcpy(text + i, "\xc2\xa1", 2);   /* U+00A1 */
    size_t asked = 0;
    ck_assert_uint_eq(check_text(s, &v, text, n, &asked), asked);
    static signed char got[MAX_NEEDLES];
    ifs_needle_set_find(s, v.all.p, text, n, 0, got);
    for (size_t i = 0; i < v.k; i++) ck_assert_int_eq(got[i], 0);
    memcpy(text + n - 2, "B!", 2);   /* "b!" at the end, and "!b" across U+00A1's bytes: no */
    ifs_needle_set_find(s, v.all.p, text, n, 0, got);
    ck_assert_int_eq(got[0], 1);
    ck_assert_int_eq(got[2], 0);
  }
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* The exact pass reads each ASCII byte folded to six bits, a letter's two
** cases alike; any other byte is folded alike with one more (space with
** NUL, a digit with a control character, - with CR, @ with a backquote,
** _ with DEL; a byte not ASCII with a character below @), so a needle
** with one is verified where its bucket matches.  Each needle's partner text alone
** finds nothing, and a partner before the needle does not hide it; in
** texts of 4,100 bytes, which the pass folds 2,048 at a time, each needle
** is found at every position across the seams of those chunks. */
START_TEST(test_exact_pass_folded_bytes) {
  static const char *const words[] = {"a b", "x1", "q@", "w_", "e-f", "z)", "u*", "it's"};
  static const char *const partners[] = {"a\0b", "x\x11", "q`", "w\x7f", "e\rf",
                                         "z\xc9\x91" /* U+0251: C9 as ) */, "u\n", "it\x07s"};
  static const size_t partner_len[] = {3, 2, 2, 2, 3, 3, 2, 4};
  enum { K = sizeof words / sizeof words[0], N = 4100 };
  needles v;
  needles_of(&v, words, NULL, K);
  ifs_needle_set *s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? K : 0);
  static char text[N];
  static signed char got[MAX_NEEDLES];
  for (size_t i = 0; i < K; i++) {
    memcpy(text, "the ", 4);
    memcpy(text + 4, partners[i], partner_len[i]);
    size_t n = 4 + partner_len[i];
    ifs_needle_set_find(s, v.all.p, text, n, 0, got);
    ck_assert_msg(got[i] == 0, "%s: partner alone says %d", words[i], got[i]);
    size_t asked = 0;
    ck_assert_uint_eq(check_text(s, &v, text, n, &asked), asked);
    memcpy(text + n, words[i], strlen(words[i]));   /* then the needle itself */
    n += strlen(words[i]);
    ifs_needle_set_find(s, v.all.p, text, n, 0, got);
    ck_assert_msg(got[i] == 1, "%s: after its partner says %d", words[i], got[i]);
  }
  static const size_t seams[][2] = {{0, 8}, {2030, 2060}, {4070, N}};
  for (size_t i = 0; i < K; i++) {
    size_t len = strlen(words[i]), asked = 0, decided = 0;
    for (size_t r = 0; r < 3; r++)
      for (size_t at = seams[r][0]; at < seams[r][1] && at + len <= N; at++) {
        for (size_t b = 0; b < N; b++) text[b] = "Lorem ipsum, dolor sit amet. "[b % 29];
        memcpy(text + at, words[i], len);
        decided += check_text(s, &v, text, N, &asked);
        ifs_needle_set_find(s, v.all.p, text, N, 1, got);
        ck_assert_msg(got[i] == 1, "%s at %zu of %d: %d", words[i], at, N, got[i]);
      }
    ck_assert_uint_eq(decided, asked);
  }
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* Needles not ASCII in the exact pass (a set of words expected found): a
** character is matched by the bytes of its forms, each read by its low
** five bits, and verified where its bucket matches.  Ten such words (and
** zebra) fit: Cyrillic, Chinese and Greek, a letter with a diacritic, dz
** with caron (three forms), Deseret (four bytes), omega past the eighth
** byte; four do not (sharp s, OHM SIGN, ANGSTROM SIGN).  Each word found
** at every position, at a text's end, in each of its forms; a mix of the
** two words of a bucket (the two Han characters' bytes, with epsilon's
** second byte in the first) is verified and not found, with no search; in ASCII text the bytes that read as the
** Cyrillic word's do not make it found, nor do they in text not ASCII. */
START_TEST(test_exact_pass_wide) {
  static const char *const words[] = {
    "zebra",
    "\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2",                 /* PRIVET */
    "\xd0\x9c\xd0\xb8\xd1\x80",                                         /* Mir */
    "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\xe7\xac\xa6",                 /* four Han */
    "\xe6\x97\xa5\xe6\x9c\xac",                                         /* two Han */
    "\xce\x95\xce\x9b\xce\x9b\xce\x97\xce\x9d\xce\x99\xce\x9a\xce\x86", /* ELLINIKA */
    "CAF\xc3\x89",
    "\xc7\x85" "emal",                                                  /* U+01C5 */
    "\xf0\x90\x90\x80\xf0\x90\x90\x81",                                 /* Deseret */
    "na\xc3\xafve", "abcdefgh\xcf\x89",
    "stra\xc3\x9f" "e", "\xcf\x89mega", "\xc3\xa5r", "abcdefg\xcf\x89"};
  enum { ZEBRA, PRIVET, HAN2 = 4, GREEK, DZ = 7, K = sizeof words / sizeof words[0] };
  needles v;
  needles_of(&v, words, NULL, K);
  ifs_needle_set *s = set_of(&v);
  ck_assert_uint_eq(ifs_test_needle_set_exact(s), ifs_test_needle_set_exact_runs(v.k, 1) ? 11 : 0);
  check_every_position(s, &v, K, 0);
  for (size_t n = 60; n <= 200; n++) check_positions(s, &v, K, 0, n, n - 16, n);
  static const char *const forms[] = {
    "\xc7\x84" "EMAL", "\xc7\x86" "emal", "\xd0\xbf\xd0\xa0\xd0\xb8\xd0\x92\xd0\xb5\xd0\xa2",
    "STRA\xe1\xba\x9e" "E", "\xe2\x84\xa6" "MEGA", "\xe2\x84\xab" "R", "ABCDEFG\xe2\x84\xa6"};
  static const size_t form_of[] = {DZ, DZ, PRIVET, 11, 12, 13, 14};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    ck_assert_msg(answer_of(s, &v, forms[i], 0, form_of[i]) == 1, "%s", forms[i]);
  static signed char got[MAX_NEEDLES];
  const char *mix = "\xc3\xa9 \xe6\xb5\xa5\xe6\x9c\xac";   /* U+6D65, then the second Han */
  ck_assert_int_eq(answer_of(s, &v, mix, 0, GREEK), 0);
  ck_assert_int_eq(answer_of(s, &v, mix, 0, HAN2), 0);
  if (ifs_test_needle_set_exact_runs(v.k, 1))
    ck_assert_uint_eq(ifs_test_needle_set_searched_again(s, v.all.p, mix, strlen(mix), 0, got), 0);
  /* privet's bytes, each read by its low five bits: "0?1 0802" */
  ck_assert_int_eq(answer_of(s, &v, "at 0?1 0802 zebra", 1, PRIVET), 0);
  ck_assert_int_eq(answer_of(s, &v, "at 0?1 0802 zebra", 1, ZEBRA), 1);
  ck_assert_int_eq(answer_of(s, &v, "\xc3\xa9 0?1 0802", 0, PRIVET), 0);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

/* A set the exact pass decides whole, with two words not ASCII sharing a
** bucket: the folds kept for them, which the pass reads as soon as the
** other word of the bucket is found (the bucket's tables made again), are
** in the hot bytes asked for ahead, not after the filter's part. */
START_TEST(test_hot_bytes_hold_folds) {
  static const char *const words[] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2",   /* PRIVET */
    "\xd0\x9c\xd0\xb8\xd1\x80"};                         /* Mir */
  enum { K = sizeof words / sizeof words[0] };
  needles v;
  needles_of(&v, words, NULL, K);
  ifs_needle_set *s = set_of(&v);
  size_t bytes = ifs_needle_set_bytes(s), hot = ifs_needle_set_hot_bytes(s);
  if (ifs_test_needle_set_exact_runs(v.k, 1)) {
    ck_assert_uint_eq(ifs_test_needle_set_exact(s), K);
    size_t end = ifs_test_needle_set_folds_end(s);
    ck_assert_uint_gt(end, 0);
    ck_assert_uint_le(end, hot);
    ck_assert_uint_ge(bytes, hot + 1024);
  } else {
    ck_assert_uint_eq(ifs_test_needle_set_folds_end(s), 0);
    ck_assert_uint_eq(hot, bytes);
  }
  check_every_position(s, &v, K, 0);
  /* PRIVET found, Mir's tables made again (from its folds), Mir found too */
  ck_assert_int_eq(answer_of(s, &v, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xbc\xd0\xb8\xd1\x80", 0, K - 1), 1);
  ifs_needle_set_free(s);
  needles_free(&v);
}
END_TEST

static Suite *needle_set_suite(void) {
  Suite *s = suite_create("ifs_needle_set");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_known_answers, 0, sizeof knowns / sizeof knowns[0]);
  tcase_add_loop_test(tc, test_random_sets, 0, 4);
  tcase_add_loop_test(tc, test_random_big_sets, 0, 2);
  tcase_add_test(tc, test_exact_pass);
  tcase_add_test(tc, test_exact_pass_bytes);
  tcase_add_test(tc, test_exact_pass_folded_bytes);
  tcase_add_test(tc, test_exact_pass_wide);
  tcase_add_test(tc, test_exact_pass_searches_again);
  tcase_add_test(tc, test_exact_pass_verified_where_matched);
  tcase_add_test(tc, test_hot_bytes);
  tcase_add_test(tc, test_hot_bytes_hold_folds);
  tcase_add_test(tc, test_big_set_positions);
  tcase_add_test(tc, test_big_set_families);
  tcase_add_test(tc, test_phrase_lists);
  tcase_add_test(tc, test_prefix_choice);
  tcase_add_test(tc, test_narrow_sets);
  tcase_add_test(tc, test_text_ends);
  tcase_add_test(tc, test_adversarial_gives_up);
  tcase_add_test(tc, test_adversarial_big_gives_up);
  tcase_add_test(tc, test_out_of_memory);
  tcase_add_test(tc, test_past_bounds);
  suite_add_tcase(s, tc);
  return s;
}

/* New blocks come filled with a pattern, not zeros, so that a field the
** builder forgets to set shows (glibc's M_PERTURB). */
static Suite *perturbed_suite(void) {
#if defined(__GLIBC__)
  mallopt(M_PERTURB, 0xA5);
#endif
  return needle_set_suite();
}

IFS_TEST_MAIN(perturbed_suite)
