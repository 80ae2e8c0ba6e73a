/*
** test_ifs_needle.c — unit tests of ext/ifs_needle.c: the search without
** lowering must answer as `needle.lower() in text.lower()` computed the
** long way (ifs_lower, then ifs_find), which test_ifs_text.c checks
** against CPython's own values.
*/
#include "ifs_needle.h"
#include "ifs_test.h"
#include "soup.h"
#include "ifs_text.h"
#include <stdlib.h>


/* The long way: 1 when lower(nd) is in lower(text). */
static int long_way(const char *text, size_t tn, const char *nd, size_t nn) {
  ifs_buf lt, ln;
  ifs_buf_init(&lt);
  ifs_buf_init(&ln);
  ck_assert_int_eq(ifs_lower(text, tn, &lt), IFS_OK);
  ck_assert_int_eq(ifs_lower(nd, nn, &ln), IFS_OK);
  int found = ln.len == 0 || ifs_find(lt.p, lt.len, ln.p, ln.len) != NULL;
  ifs_buf_free(&lt);
  ifs_buf_free(&ln);
  return found;
}

/* ifs_needle_find as one value: 1 found, 0 not, -1 IFS_LIMIT. */
static int needle_find(const ifs_needle *nd, const char *text, size_t n, int ascii) {
  int found = -1;
  ifs_status st = ifs_needle_find(nd, text, n, ascii, &found);
  if (st == IFS_LIMIT) return -1;
  ck_assert_int_eq(st, IFS_OK);
  return found;
}

/* The short way, or -1 when it defers (text with U+0130 / U+03A3, or the
** verification cap).  ASCII text is searched both ways (the byte compare
** for ASCII text, and the general one), which must agree. */
static int short_way(const char *text, size_t tn, const char *nd, size_t nn) {
  ifs_buf ln;
  ifs_buf_init(&ln);
  ck_assert_int_eq(ifs_lower(nd, nn, &ln), IFS_OK);
  int found = -1;
  ifs_scan sc;
  ifs_utf8_scan(text, tn, &sc);
  if (ln.len == 0) found = 1;
  else if (sc.plain_lower) {
    ifs_needle n;
    ifs_needle_init(&n, ln.p, ln.len);
    found = needle_find(&n, text, tn, sc.ascii);
    if (sc.ascii) ck_assert_int_eq(needle_find(&n, text, tn, 0), found);
  }
  ifs_buf_free(&ln);
  return found;
}

typedef struct { const char *t; size_t tn; const char *nd; size_t nn; int found; } needle_case;

/* Expected values from CPython 3.11: needle.lower() in text.lower(). */
static const needle_case cases[] = {
  {LIT("Hello World"), LIT("WORLD"), 1},
  {LIT("Hello World"), LIT("worlds"), 0},
  {LIT("\xe2\x84\xaa" "elvin"), LIT("kelvin"), 1},             /* KELVIN SIGN -> k */
  {LIT("kelvin"), LIT("\xe2\x84\xaa" "ELVIN"), 1},
  {LIT("x\xe2\x84\xaby"), LIT("\xc3\xa5"), 1},                 /* ANGSTROM SIGN -> a-ring */
  {LIT("Stra\xe1\xba\x9e" "e"), LIT("STRASSE"), 0},            /* capital sharp s -> sharp s */
  {LIT("Stra\xe1\xba\x9e" "e"), LIT("stra\xc3\x9f" "e"), 1},
  {LIT("\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2"), LIT("\xd0\xb2\xd0\xb5\xd1\x82"), 1},
  {LIT("\xd0\x9f\xd1\x80\xd0\xb8"), LIT("\xd0\x98"), 1},
  {LIT("\xd0\x9f\xd1\x80\xd0\xb8"), LIT("\xd0\x99"), 0},
  {LIT("\xc7\x85"), LIT("\xc7\x84"), 1},                       /* Dz titlecase */
  {LIT("\xcf\xb4x"), LIT("\xce\xb8X"), 1},                     /* theta symbol */
  {LIT("\xe2\x82\xb6"), LIT("\xed\xb2\xb6"), 0},               /* a byte inside a character */
  {LIT("a\xed\xb2\xb6"), LIT("\xed\xb2\xb6"), 1},              /* an escaped byte */
  {LIT("a\0B"), LIT("\0b"), 1},
  {LIT("\xf0\x90\x90\x80"), LIT("\xf0\x90\x90\xa8"), 1},       /* Deseret */
  {LIT("ab"), LIT("abc"), 0},
  {LIT("plain ascii text"), LIT("\xd0\x96"), 0},            /* non-ASCII needle, ASCII text */
  {LIT("ASCII TEXT, LONGER THAN SIXTEEN BYTES"), LIT("than sixteen"), 1},
  {LIT("ASCII TEXT, LONGER THAN SIXTEEN BYTES"), LIT("than sixteen!"), 0},
  /* ASCII needles in text that is not ASCII */
  {LIT("\xc2\xabThe Answer\xc2\xbb is here"), LIT("the answer"), 1},
  {LIT("CAF\xc3\x89 caf"), LIT("cafe"), 0},
  {LIT("ab\xc3\xa9" "cd abcd"), LIT("ABCD"), 1},
  {LIT("ab\xc3\xa9" "cd ab cd"), LIT("abcd"), 0},
  {LIT("O\xe2\x84\xaa \xe2\x80\x9c"), LIT("ok"), 1},             /* k: KELVIN SIGN */
  {LIT("\xe2\x80\x9cok\xe2\x80\x9d"), LIT("OK"), 1},
};

START_TEST(test_known_answers) {
  const needle_case *c = &cases[_i];
  ck_assert_int_eq(long_way(c->t, c->tn, c->nd, c->nn), c->found);
  ck_assert_int_eq(short_way(c->t, c->tn, c->nd, c->nn), c->found);
}
END_TEST

/* Random texts and needles over characters where lowering is tricky; the
** needle is often cut out of the text, then recased, so that most cases
** are near misses or hits. */
START_TEST(test_random_matches_long_way) {
  static const char *const pieces[] = {
    "a", "A", "k", "K", "\xe2\x84\xaa", "s", "S", "\xc5\xbf", "\xc3\xa5", "\xc3\x85",
    "\xe2\x84\xab", "\xc3\x9f", "\xe1\xba\x9e", "\xd0\xb6", "\xd0\x96", "\xd1\x8b", "\xd0\xab",
    "\xcf\x89", "\xce\xa9", "\xe2\x84\xa6", "\xc7\x84", "\xc7\x85", "\xc7\x86", " ", "\0",
    "\xed\xb2\xb6", "\xe2\x82\xb6", "\xf0\x90\x90\x80", "\xf0\x90\x90\xa8", "i", "I",
    "\xcc\x87", "\xc4\xb0", "\xce\xa3", "\xcf\x83", "\xcf\x82"};
  unsigned seed = 4242;
  char text[200], nd[40];
  int decided = 0;
  for (int iter = 0; iter < 200000; iter++) {
    size_t nn = 0;
    size_t tn = soup_fill(text, sizeof text, pieces, sizeof pieces / sizeof pieces[0], 40, &seed);
    seed = seed * 1103515245u + 12345u;
    if ((seed >> 16) % 2 && tn) {   /* a slice of the text, on byte offsets */
      seed = seed * 1103515245u + 12345u;
      size_t a = (seed >> 16) % tn;
      seed = seed * 1103515245u + 12345u;
      nn = (seed >> 16) % 12;
      if (a + nn > tn) nn = tn - a;
      memcpy(nd, text + a, nn);
      /* keep it well formed: trim partial characters at both ends */
      size_t s0 = 0;
      while (s0 < nn && ((unsigned char)nd[s0] & 0xC0) == 0x80) s0++;
      memmove(nd, nd + s0, nn - s0);
      nn -= s0;
      size_t j = 0, good = 0;
      while (j < nn) {
        size_t k = j;
        uint32_t cp = ifs_decode(nd, nn, &k);
        if (cp >= 0xDC00 && cp <= 0xDCFF && k == j + 1) break;
        good = j = k;
      }
      nn = good;
    } else {
      int parts2 = (int)(seed >> 20) % 4;
      for (int k = 0; k < parts2; k++) {
        seed = seed * 1103515245u + 12345u;
        const char *p = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
        size_t len = p[0] ? strlen(p) : 1;
        memcpy(nd + nn, p, len);
        nn += len;
      }
    }
    int want = long_way(text, tn, nd, nn);
    int got = short_way(text, tn, nd, nn);
    if (got >= 0) {
      decided++;
      ck_assert_msg(got == want, "iteration %d: got %d, want %d", iter, got, want);
    }
  }
  ck_assert_int_gt(decided, 100000);   /* most cases take the short way */
}
END_TEST

/* Only KELVIN SIGN lowers into ASCII from outside it, and to k: so a
** needle of ASCII without k (plain) is matched by its own bytes alone, in
** any text, and is searched for that way. */
START_TEST(test_plain_needles) {
  for (uint32_t cp = 0x80; cp < 0x110000; cp++)
    ck_assert(ifs_lower_char(cp) >= 0x80 || (cp == 0x212A && ifs_lower_char(cp) == 'k'));
  static const struct { const char *low; size_t len; int plain; } plain[] = {
    {LIT("the answer"), 1}, {LIT("a\0b"), 1}, {LIT("ok"), 0}, {LIT("caf\xc3\xa9"), 0}};
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    ifs_needle nd;
    ifs_needle_init(&nd, plain[i].low, plain[i].len);
    ck_assert_int_eq(nd.plain, plain[i].plain);
  }
  /* at every position of a text that is not ASCII, across the 32-byte
  ** blocks and the tail; and with a character that is not ASCII inside */
  static const char filler[] =
      "\xc3\xa9t\xc3\xa9 th\xc3\xa9 answer, the ansver: the answe \xe2\x80\x94 l'\xc3\xa9t\xc3\xa9 "
      "\xd0\xb4\xd0\xb0 the answe, THE ANSWE? \xc2\xabthe\xc2\xa0" "answer\xc2\xbb, "
      "an answer's end: \xe2\x80\xa6 \xd0\xb4\xd0\xb0";
  _Static_assert(sizeof filler > 100, "a text of 100 bytes");
  char text[100];
  for (size_t at = 0; at + 10 <= sizeof text; at++) {
    for (int cut = 0; cut < 2; cut++) {
      memcpy(text, filler, sizeof text);
      memcpy(text + at, "The ANSWER", 10);
      if (cut) text[at + 4] = (char)0xC3;   /* a lead byte where the A was */
      int want = long_way(text, sizeof text, "the answer", 10);
      ck_assert_int_eq(want, !cut);
      ck_assert_int_eq(short_way(text, sizeof text, "the answer", 10), want);
    }
  }
}
END_TEST

/* The byte-at-a-time compare of an ASCII needle at p (what the
** eight-bytes-a-step loop must agree with, to the byte it stops at): 1 or
** 0, or -1 at a non-ASCII byte; *i where it stopped. */
static int ref_ascii_prefix(const char *low, size_t len, const char *h, size_t n, size_t p,
                            size_t *i) {
  if (n - p < len) return 0;
  for (*i = 0; *i < len; ++*i) {
    unsigned char c = (unsigned char)h[p + *i];
    if (c >= 0x80) return -1;
    if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
    if (c != (unsigned char)low[*i]) return 0;
  }
  return 1;
}

/* 1 when text from p, lowered, starts with low (the long way). */
static int lowered_starts_with(const char *text, size_t tn, size_t p, const char *low,
                               size_t len) {
  ifs_buf lt;
  ifs_buf_init(&lt);
  ck_assert_int_eq(ifs_lower(text + p, tn - p, &lt), IFS_OK);
  int yes = lt.len >= len && memcmp(lt.p, low, len) == 0;
  ifs_buf_free(&lt);
  return yes;
}

/* ASCII needles of up to forty bytes at a position of their own recased
** copy, often with one byte changed (a letter, a byte 0x20 away from one,
** KELVIN SIGN, another non-ASCII letter): the answer, and the work counted,
** are those of the byte-at-a-time compare, wherever the change falls in
** the eight-byte steps. */
START_TEST(test_ascii_compare_in_steps) {
  static const char *const swaps[] = {"A", "Z", "q", "@", "[", "`", "{", "\x01", "\x7f",
                                      "\xe2\x84\xaa", "\xc3\xa9", "K"};
  static const char alphabet[] = "abcdkmxyz@[`{ 09-";
  unsigned seed = 99;
  char low[48], text[128];
  int decided[3] = {0, 0, 0};
  for (int iter = 0; iter < 100000; iter++) {
    size_t len = 1 + (size_t)(soup_next(&seed) % 40), pre = soup_next(&seed) % 5, tn = pre;
    memset(text, '.', pre);
    for (size_t j = 0; j < len; j++) {
      low[j] = alphabet[soup_next(&seed) % (sizeof alphabet - 1)];
      char c = low[j];
      text[tn++] = (char)(c >= 'a' && c <= 'z' && soup_next(&seed) % 2 ? c - 32 : c);
    }
    if (soup_next(&seed) % 4) {   /* one byte changed, or a character put in its place */
      const char *sw = swaps[soup_next(&seed) % (sizeof swaps / sizeof swaps[0])];
      size_t at = pre + soup_next(&seed) % len, sl = strlen(sw);
      memmove(text + at + sl, text + at + 1, tn - at - 1);
      memcpy(text + at, sw, sl);
      tn += sl - 1;
    }
    if (soup_next(&seed) % 8 == 0) tn = pre + soup_next(&seed) % (tn - pre + 1);   /* cut short */
    size_t i = 0, work = 0;
    int want = ref_ascii_prefix(low, len, text, tn, pre, &i);
    int got = ifs_needle_at(low, len, 1, text, tn, pre, &work);
    decided[want + 1]++;
    if (want >= 0) {
      ck_assert_msg(got == want && work == i + 1, "iteration %d: got %d (work %zu), want %d (%zu)",
                    iter, got, work, want, i + 1);
    } else {
      ck_assert_int_eq(got, lowered_starts_with(text, tn, pre, low, len));
      ck_assert_uint_ge(work, i + 1);
    }
  }
  for (int r = 0; r < 3; r++) ck_assert_int_gt(decided[r], 5000);   /* -1, 0 and 1 all met */
}
END_TEST

/* Every position a candidate, every verification long: the cap hands the
** text over to the linear long way instead of going quadratic. */
START_TEST(test_adversarial_defers) {
  size_t n = 1 << 20;
  char *text = malloc(n);
  ck_assert_ptr_nonnull(text);
  memset(text, 'a', n);
  char nd[200];   /* A..A b A..A: the bytes that filter (first, middle, last) match everywhere */
  memset(nd, 'A', sizeof nd);
  nd[150] = 'b';
  ifs_needle x;
  ifs_buf ln;
  ifs_buf_init(&ln);
  ck_assert_int_eq(ifs_lower(nd, sizeof nd, &ln), IFS_OK);
  ifs_needle_init(&x, ln.p, ln.len);
  ck_assert_int_eq(needle_find(&x, text, n, 1), -1);
  ck_assert_int_eq(needle_find(&x, text, n, 0), -1);
  memcpy(text, nd, sizeof nd);   /* the needle itself, uppercase: found at once */
  ck_assert_int_eq(needle_find(&x, text, sizeof nd, 1), 1);
  ifs_buf_free(&ln);
  free(text);
}
END_TEST

/* An ASCII needle at every place of texts of every length to 200, among
** decoys (copies of it with its second byte changed, which its first,
** middle and last bytes let through): found wherever it is, however the
** AVX2 loop's steps of 64 and 32 positions and its last step, which ends
** where the text does, divide the text (or, in a text too short for a step,
** the 16-byte and byte loops); not found in the decoys alone. */
START_TEST(test_ascii_every_place) {
  static const char *const needles[] = {"a", "ab", "the", "tapestry", "in conclusion",
                                        "please consult a professional",
                                        "abcdefghijklmnopqrstuvwxyz0123456789-=;,"};
  char text[200];
  for (size_t k = 0; k < sizeof needles / sizeof needles[0]; k++) {
    const char *low = needles[k];
    size_t len = strlen(low);
    ifs_needle nd;
    ifs_needle_init(&nd, low, len);
    for (size_t n = len; n <= sizeof text; n++) {
      for (size_t i = 0; i < n; i++) {   /* decoys, or dots for a needle of three or less */
        text[i] = len > 3 ? low[i % len] : '.';
        if (len > 3 && i % len == 1) text[i] = '#';
      }
      ck_assert_int_eq(needle_find(&nd, text, n, 1), 0);
      ck_assert_int_eq(needle_find(&nd, text, n, 0), 0);
      for (size_t p = 0; p + len <= n; p++) {
        char keep[64];
        memcpy(keep, text + p, len);
        for (size_t i = 0; i < len; i++)   /* the needle, uppercased */
          text[p + i] = (char)(low[i] >= 'a' && low[i] <= 'z' ? low[i] - 32 : low[i]);
        ck_assert_msg(needle_find(&nd, text, n, 1) == 1 && needle_find(&nd, text, n, 0) == 1,
                      "\"%s\" at %zu of %zu bytes not found", low, p, n);
        memcpy(text + p, keep, len);
      }
    }
  }
}
END_TEST

/* The decoding search (a needle with k, which KELVIN SIGN lowers to, or
** not ASCII, in text that is not ASCII) at every place of texts of every
** length to 160, with a decoy (the needle with its last character changed)
** before or after it: found wherever it is, however the vector loops'
** steps (32 and 16 bytes) and the byte loop after them divide the text;
** not with the decoy alone. */
START_TEST(test_decoding_every_place) {
  static const char *const needles[] = {"k", "ok", "kelvin", "\xcf\x89mega",
                                        "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"};
  char text[160], decoy[32];
  for (size_t k = 0; k < sizeof needles / sizeof needles[0]; k++) {
    const char *low = needles[k];
    size_t len = strlen(low), dn = 0;
    ifs_needle nd;
    ifs_needle_init(&nd, low, len);
    if (len >= 3) {   /* the last character made '#' */
      dn = len;
      while (dn > 0 && ((unsigned char)low[dn - 1] & 0xC0) == 0x80) dn--;
      memcpy(decoy, low, dn - 1);
      decoy[dn - 1] = '#';
    }
    for (size_t n = len; n <= sizeof text; n++) {
      for (size_t p = 0; p + len <= n; p++) {
        memset(text, '.', n);
        if (dn && p + len + 3 + dn <= n) memcpy(text + p + len + 3, decoy, dn);
        else if (dn && p >= dn + 1) memcpy(text, decoy, dn);
        ck_assert_int_eq(needle_find(&nd, text, n, 0), 0);
        memcpy(text + p, low, len);
        ck_assert_msg(needle_find(&nd, text, n, 0) == 1, "needle %zu at %zu of %zu bytes not found",
                      k, p, n);
      }
    }
  }
}
END_TEST

static Suite *needle_suite(void) {
  Suite *s = suite_create("ifs_needle");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_known_answers, 0, sizeof cases / sizeof cases[0]);
  tcase_add_test(tc, test_random_matches_long_way);
  tcase_add_test(tc, test_plain_needles);
  tcase_add_test(tc, test_ascii_compare_in_steps);
  tcase_add_test(tc, test_adversarial_defers);
  tcase_add_test(tc, test_ascii_every_place);
  tcase_add_test(tc, test_decoding_every_place);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(needle_suite)
