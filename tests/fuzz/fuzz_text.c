/*
** fuzz_text.c — libFuzzer target for the text layer (ext/ifs_text.c):
** ifs_to_internal / ifs_to_external, ifs_count_words, ifs_count_chars,
** ifs_lower, ifs_strip, ifs_decode / ifs_decode_prev.
**
** Invariants on the internal form of the input:
**   to_external(to_internal(raw)) == raw, byte for byte;
**   strictly valid UTF-8 is its own internal form;
**   escaped bytes appear exactly when the input is not valid UTF-8;
**   chars and words equal a plain decode loop with ifs_isspace;
**   decode_prev walks back over exactly what decode walked forward;
**   strip bounds hold no outer whitespace and only whitespace outside;
**   lower() never shrinks the character count, is well-formed internal
**   UTF-8, and is plain ASCII tolower on ASCII text;
**   the vectorised validation and counting (each loop) equal the byte loops;
**   the needle search without lowering (ext/ifs_needle.c) answers as
**   lower-then-find, the needle being the text's tail from a chosen
**   character on, recased;
**   a needle set (ext/ifs_needle_set.c) of slices of the text (recased,
**   some cut one byte short or with a byte changed) and fixed tricky
**   needles answers each as lower-then-find and as the one-needle search,
**   with each of its filter loops, on the text and on it less one byte
**   (a loop may reach the verification cap and leave a needle to the
**   caller where another decides it: their candidates differ, the byte
**   loop having no second stage).
** The raw bytes are also fed as if they were internal text (the header
** promises stray bytes never read out of bounds): no crash is the check.
*/
#include "fuzz_common.h"
#include "ifs_needle.h"
#include "ifs_needle_set.h"
#include "../ref_text.h"

/* Decoding loop over internal text: count code points and words. */
/* The reference counts, with the per-character tables poked on the way. */
static void reference_counts(const char *s, size_t n, size_t *chars, size_t *words) {
  ref_count(s, n, words, chars);
  for (size_t i = 0; i < n;) {
    uint32_t cp = ifs_decode(s, n, &i);
    (void)ifs_decimal_value(cp);
    (void)ifs_isprintable(cp);
  }
}

/* Well-formed internal UTF-8: every decode step consumes a full sequence
** and the code point is minimal-length and at most U+10FFFF. */
static int well_formed_internal(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t at = i;
    unsigned char c = (unsigned char)s[at];
    uint32_t cp = ifs_decode(s, n, &i);
    size_t len = i - at;
    if (c >= 0x80 && len == 1) return 0;      /* stray byte */
    if (cp > 0x10FFFF) return 0;
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
      return 0;
  }
  return 1;
}

static void check_decode_prev(const char *s, size_t n) {
  uint32_t fwd[64];
  size_t nf = 0, i = 0;
  while (i < n && nf < 64) fwd[nf++] = ifs_decode(s, n, &i);
  if (i != n) return;                          /* long text: skip */
  size_t j = n;
  while (nf > 0) {
    fuzz_assert(j > 0);
    uint32_t cp = ifs_decode_prev(s, &j);
    fuzz_assert(cp == fwd[--nf]);
  }
  fuzz_assert(j == 0);
}

static void check_strip(const char *s, size_t n) {
  size_t a, b;
  ifs_strip(s, n, &a, &b);
  fuzz_assert(a <= b && b <= n);
  size_t i = 0;
  while (i < a) fuzz_assert(ifs_isspace(ifs_decode(s, a, &i)));
  i = b;
  while (i < n) fuzz_assert(ifs_isspace(ifs_decode(s, n, &i)));
  if (a < b) {
    i = a;
    fuzz_assert(!ifs_isspace(ifs_decode(s, b, &i)));
    i = b;
    fuzz_assert(!ifs_isspace(ifs_decode_prev(s, &i)));
  } else {
    fuzz_assert(ifs_count_words(s, n) == 0);
  }
}

static void check_lower(const char *s, size_t n, ifs_buf *low) {
  ifs_buf_clear(low);
  fuzz_assert(ifs_lower(s, n, low) == IFS_OK);
  fuzz_assert(well_formed_internal(low->p ? low->p : "", low->len));
  fuzz_assert(ifs_count_chars(low->p ? low->p : "", low->len) >= ifs_count_chars(s, n));
  if (ifs_is_ascii(s, n)) {
    fuzz_assert(low->len == n);
    for (size_t i = 0; i < n; i++) {
      char c = s[i];
      char want = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
      fuzz_assert(low->p[i] == want);
    }
  }
}

/* A needle from the internal text s: the characters from the k-th on (k
** chosen by the text's first byte), up to 8 of them, every other one
** uppercased ASCII-wise; the short way must answer as the long way. */
static void check_needle(const char *s, size_t n) {
  if (n == 0) return;
  size_t skip = (unsigned char)s[0] % 16, i = 0, k = 0;
  while (i < n && k < skip) { (void)ifs_decode(s, n, &i); k++; }
  size_t start = i;
  for (k = 0; i < n && k < 8; k++) (void)ifs_decode(s, n, &i);
  ifs_buf nd, low, lt;
  ifs_buf_init(&nd);
  ifs_buf_init(&low);
  ifs_buf_init(&lt);
  fuzz_assert(ifs_buf_append(&nd, s + start, i - start) == IFS_OK || i == start);
  for (size_t j = 0; j < nd.len; j += 2)
    if (nd.p[j] >= 'a' && nd.p[j] <= 'z') nd.p[j] = (char)(nd.p[j] - 32);
  fuzz_assert(ifs_lower(nd.p ? nd.p : "", nd.len, &low) == IFS_OK);
  fuzz_assert(ifs_lower(s, n, &lt) == IFS_OK);
  ifs_scan sc;
  ifs_utf8_scan(s, n, &sc);
  if (low.len && sc.plain_lower) {
    int want = ifs_find(lt.p, lt.len, low.p, low.len) != NULL;
    ifs_needle x;
    ifs_needle_init(&x, low.p, low.len);
    int got = -1;
    ifs_status st = ifs_needle_find(&x, s, n, sc.ascii, &got);
    fuzz_assert(st == IFS_LIMIT || (st == IFS_OK && got == want));
    st = ifs_needle_find(&x, s, n, 0, &got);
    fuzz_assert(st == IFS_LIMIT || (st == IFS_OK && got == want));
    if (n > 1) {   /* and in the text without its first byte (a near miss) */
      ifs_buf_clear(&lt);
      fuzz_assert(ifs_lower(s + 1, n - 1, &lt) == IFS_OK);
      ifs_utf8_scan(s + 1, n - 1, &sc);
      if (sc.plain_lower && well_formed_internal(s + 1, n - 1)) {
        want = ifs_find(lt.p ? lt.p : "", lt.len, low.p, low.len) != NULL;
        st = ifs_needle_find(&x, s + 1, n - 1, sc.ascii, &got);
        fuzz_assert(st == IFS_LIMIT || (st == IFS_OK && got == want));
      }
    }
  }
  ifs_buf_free(&nd);
  ifs_buf_free(&low);
  ifs_buf_free(&lt);
}

/* Needles for a set: slices of s chosen by its bytes, then fixed ones; a
** quarter of the inputs get over 128 slices, a big set (shift-or). */
#define SET_MAX 180
static size_t set_needles(const char *s, size_t n, ifs_buf *all, ifs_span *span) {
  static const char *const fixed[] = {
    "k", "\xe2\x84\xaa", "s", "\xc5\xbf", "\xcf\x83\xcf\x82", "i\xcc\x87", "", "\xc3\x9f",
    "the ", "i'm sorry", "\xd0\xb2", "a", "aa", "aaa", "aaaa"};
  size_t k = 0, want = n ? 1 + (unsigned char)s[n / 2] % 32 : 4;
  if (n && ((unsigned char)s[0] & 3) == 3) want += 130;
  for (size_t t = 0; k < want && t < 3 * want; t++) {
    size_t at = n ? ((size_t)(unsigned char)s[(t * 7) % n] * 131 + t * 17) % n : 0;
    size_t len = n ? 1 + (unsigned char)s[(t * 13 + 5) % n] % 12 : 0;
    while (at < n && ((unsigned char)s[at] & 0xC0) == 0x80) at++;   /* whole characters */
    size_t end = at;
    while (end < n && end - at < len) {
      size_t j = end;
      (void)ifs_decode(s, n, &j);
      if (j - at > len) break;
      end = j;
    }
    span[k].at = all->len;
    fuzz_assert(end == at || ifs_buf_append(all, s + at, end - at) == IFS_OK);
    for (size_t i = span[k].at; i < all->len; i += 3)   /* recased */
      if (all->p[i] >= 'a' && all->p[i] <= 'z') all->p[i] = (char)(all->p[i] - 32);
    if (t % 5 == 4 && all->len > span[k].at) {   /* a character short */
      size_t j = all->len - span[k].at;
      (void)ifs_decode_prev(all->p + span[k].at, &j);
      all->len = span[k].at + j;
    }
    if (t % 7 == 6 && all->len > span[k].at) all->p[all->len - 1] ^= 1;  /* near miss */
    span[k].len = all->len - span[k].at;
    k++;
  }
  for (size_t f = 0; f < sizeof fixed / sizeof fixed[0] && k < SET_MAX; f++) {
    span[k].at = all->len;
    span[k].len = strlen(fixed[f]);
    fuzz_assert(ifs_buf_append(all, fixed[f], span[k].len) == IFS_OK);
    k++;
  }
  return k;
}

/* The filter loops: bytes, SSSE3 (or NEON), AVX2, AVX-512, AVX-512 VBMI
** (each the best below it that the CPU has). */
#define SET_LEVELS 5

/* The set's answers in s, for every filter loop, against lower-then-find
** and the one-needle search. */
static void check_set_in(const ifs_needle_set *set, const ifs_buf *low, const ifs_span *span,
                         size_t k, const char *s, size_t n) {
  ifs_scan sc;
  ifs_utf8_scan(s, n, &sc);
  if (!sc.plain_lower || !well_formed_internal(s, n)) return;
  ifs_buf lt;
  ifs_buf_init(&lt);
  fuzz_assert(ifs_lower(s, n, &lt) == IFS_OK);
  signed char got[SET_LEVELS][SET_MAX];
  for (int ascii = sc.ascii; ascii >= 0; ascii--) {
    for (int level = 0; level < SET_LEVELS; level++)
      ifs_test_needle_set_find_level(set, low->p, s, n, ascii, got[level], level);
    for (size_t i = 0; i < k; i++) {
      const char *nd = low->p + span[i].at;
      int want = span[i].len == 0 ||
                 (lt.len && ifs_find(lt.p, lt.len, nd, span[i].len) != NULL);
      for (int level = 0; level < SET_LEVELS; level++) {   /* -1: left to the caller */
        if (got[level][i] < 0 || got[level][i] == want) continue;
        fprintf(stderr, "set needle %zu [%.*s]: loop %d says %d, lower-then-find %d\n", i,
                (int)span[i].len, nd, level, got[level][i], want);
        fuzz_fail("needle set differs from needle.lower() in text.lower()");
      }
      if (span[i].len) {
        ifs_needle x;
        ifs_needle_init(&x, nd, span[i].len);
        int one = -1;
        if (ifs_needle_find(&x, s, n, ascii, &one) == IFS_OK) fuzz_assert(one == want);
      }
    }
  }
  ifs_buf_free(&lt);
}

static void check_needle_set(const char *s, size_t n) {
  ifs_buf raw, low;
  ifs_buf_init(&raw);
  ifs_buf_init(&low);
  fuzz_assert(ifs_buf_reserve(&raw, 1) == IFS_OK && ifs_buf_reserve(&low, 1) == IFS_OK);
  ifs_span rspan[SET_MAX], span[SET_MAX];
  size_t k = set_needles(s, n, &raw, rspan);
  for (size_t i = 0; i < k; i++) {   /* lowered, as the evaluator hands them over */
    span[i].at = low.len;
    fuzz_assert(ifs_lower(raw.p + rspan[i].at, rspan[i].len, &low) == IFS_OK);
    span[i].len = low.len - span[i].at;
  }
  ifs_needle_set *set;   /* some needles expected found: the exact pass, where it runs */
  size_t likely = n ? (unsigned char)s[0] % (k + 1) : 0;
  fuzz_assert(ifs_needle_set_new(NULL, low.p, span, k, likely, &set) == IFS_OK);
  check_set_in(set, &low, span, k, s, n);
  if (n > 1) check_set_in(set, &low, span, k, s + 1, n - 1);
  ifs_needle_set_free(set);
  ifs_buf_free(&raw);
  ifs_buf_free(&low);
}

/* Raw bytes handed over as if internal: must not crash or overread. */
static void poke_raw(const char *s, size_t n, ifs_buf *tmp) {
  (void)ifs_count_words(s, n);
  (void)ifs_count_chars(s, n);
  (void)ifs_has_escaped_bytes(s, n);
  size_t a, b;
  ifs_strip(s, n, &a, &b);
  fuzz_assert(a <= b && b <= n);
  ifs_buf_clear(tmp);
  fuzz_assert(ifs_lower(s, n, tmp) == IFS_OK);
  ifs_buf_clear(tmp);
  fuzz_assert(ifs_to_external(s, n, tmp) == IFS_OK);
  size_t i = 0, steps = 0;
  while (i < n) { size_t k = i; (void)ifs_decode(s, n, &i); fuzz_assert(i > k && i <= n); steps++; }
  i = n;
  while (i > 0) { size_t k = i; (void)ifs_decode_prev(s, &i); fuzz_assert(i < k); }
  (void)steps;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *raw = (const char *)data;
  ifs_buf in, out, low;
  ifs_buf_init(&in);
  ifs_buf_init(&out);
  ifs_buf_init(&low);

  fuzz_internal(raw, size, &in);
  int valid = ifs_utf8_is_valid(raw, size);
  fuzz_assert(valid == ifs_utf8_is_valid_bytes(raw, size));   /* vector = byte loop */
  ifs_scan sb;
  ifs_utf8_scan_bytes(raw, size, &sb);
  for (int level = 1; level <= 2; level++) {   /* SSSE3 and AVX2 loops */
    ifs_scan sv;
    ifs_test_utf8_scan_level(raw, size, &sv, level);
    fuzz_assert(sv.valid == valid && sv.ascii == sb.ascii && sv.plain_lower == sb.plain_lower);
  }
  if (valid) fuzz_assert(in.len == size && memcmp(in.p, raw, size) == 0);
  fuzz_assert(ifs_has_escaped_bytes(in.p, in.len) == !valid);
  fuzz_assert(well_formed_internal(in.p, in.len));

  fuzz_assert(ifs_to_external(in.p, in.len, &out) == IFS_OK);
  fuzz_assert(out.len == size && (size == 0 || memcmp(out.p, raw, size) == 0));

  size_t chars, words;
  reference_counts(in.p, in.len, &chars, &words);
  fuzz_assert(ifs_count_chars(in.p, in.len) == chars);
  fuzz_assert(ifs_count_words(in.p, in.len) == words);
  size_t w2, c2;
  ifs_count_bytes(in.p, in.len, &w2, &c2);
  fuzz_assert(w2 == words && c2 == chars);
  for (int level = 1; level <= 2; level++) {   /* SSSE3 and AVX2 loops */
    ifs_test_count_level(in.p, in.len, &w2, &c2, level);
    fuzz_assert(w2 == words && c2 == chars);
  }
  fuzz_assert(ifs_is_ascii(in.p, in.len) == (chars == in.len));

  check_decode_prev(in.p, in.len);
  check_strip(in.p, in.len);
  check_lower(in.p, in.len, &low);
  check_needle(in.p, in.len);
  check_needle_set(in.p, in.len);
  poke_raw(raw, size, &out);

  ifs_buf_free(&in);
  ifs_buf_free(&out);
  ifs_buf_free(&low);
  return 0;
}
