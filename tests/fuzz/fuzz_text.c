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
**   the vectorised validation and counting equal the byte loops;
**   the needle search without lowering (ext/ifs_needle.c) answers as
**   lower-then-find, the needle being the text's tail from a chosen
**   character on, recased.
** The raw bytes are also fed as if they were internal text (the header
** promises stray bytes never read out of bounds): no crash is the check.
*/
#include "fuzz_common.h"
#include "ifs_needle.h"
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
  fuzz_assert(ifs_is_ascii(in.p, in.len) == (chars == in.len));

  check_decode_prev(in.p, in.len);
  check_strip(in.p, in.len);
  check_lower(in.p, in.len, &low);
  check_needle(in.p, in.len);
  poke_raw(raw, size, &out);

  ifs_buf_free(&in);
  ifs_buf_free(&out);
  ifs_buf_free(&low);
  return 0;
}
