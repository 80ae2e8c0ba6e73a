/*
** fuzz_regex.c — libFuzzer target for the Python-regex translator and
** matcher (ext/ifs_regex.c and its phases, ext/ifs_re_*.c).
**
** Input: PATTERN FUZZ_SEP SUBJECT (no separator: the pattern is matched
** against itself).  Both go to internal form.  Invariants:
**   ifs_regex_translate() returns OK, INVALID or LIMIT; a translation it
**   returns OK for compiles in PCRE2 with the extension's options, or fails
**   only for a size reason (anything else is a translator bug);
**   ifs_regex_search() is IFS_INVALID exactly when the translation is;
**   the answer is the same from a fresh cache and from a warm one;
**   a literal pattern (an escaped substring of the subject) always matches
**   (also when the subject holds escaped bytes and U+10F800..U+10FFFF);
**   the DFA (ext/ifs_redfa.c) answers as PCRE2 alone does, on the subject
**   and on the subject repeated (long texts take the SIMD scan), whenever
**   PCRE2 answers within its budget.
** Run with -timeout to flag patterns that beat the match budget.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include "fuzz_common.h"
#include "ifs_regex.h"

#define EXT_COMPILE_OPTS (PCRE2_UTF | PCRE2_UCP | PCRE2_ALT_CIRCUMFLEX | PCRE2_NO_UTF_CHECK)

static int size_error(int err) {
  return err == PCRE2_ERROR_PATTERN_TOO_LARGE ||
         err == PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP ||
         err == PCRE2_ERROR_HEAP_FAILED ||
         err == PCRE2_ERROR_PATTERN_STRING_TOO_LONG ||
         err == PCRE2_ERROR_TOO_MANY_CAPTURES ||
         err == PCRE2_ERROR_PATTERN_TOO_COMPLICATED ||
         err == PCRE2_ERROR_LOOKBEHIND_TOO_LONG;
}

static void check_translation(const char *pat, size_t pn, int *tr) {
  ifs_buf out;
  ifs_buf_init(&out);
  *tr = ifs_regex_translate(pat, pn, &out);
  fuzz_assert(*tr == IFS_OK || *tr == IFS_INVALID || *tr == IFS_LIMIT);
  if (*tr == IFS_OK) {
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    fuzz_assert(cc);
    pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    pcre2_set_bsr(cc, PCRE2_BSR_UNICODE);
    pcre2_set_parens_nest_limit(cc, 10000);
    int err = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(out.p ? out.p : ""), out.len,
                                     EXT_COMPILE_OPTS, &err, &off, cc);
    if (!code && !size_error(err)) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      fprintf(stderr, "translation of [%.*s] rejected by PCRE2 (%d: %s) at %zu: [%.*s]\n",
              (int)pn, pat, err, (char *)msg, (size_t)off, (int)out.len, out.p);
      fuzz_fail("translator produced a pattern PCRE2 rejects");
    }
    pcre2_code_free(code);
    pcre2_compile_context_free(cc);
  }
  ifs_buf_free(&out);
}

/* A search's outcome as one value: 0 no match, 1 match, or R_INVALID /
** R_LIMIT (memory does not run out here). */
enum { R_INVALID = 10 + IFS_INVALID, R_LIMIT = 10 + IFS_LIMIT };

static int search(ifs_regex_cache *c, const char *pat, size_t pn, const char *s, size_t sn) {
  int matched = -1;
  ifs_status st = ifs_regex_search(c, pat, pn, s, sn, &matched);
  fuzz_assert(st == IFS_OK || st == IFS_INVALID || st == IFS_LIMIT);
  if (st != IFS_OK) return 10 + (int)st;
  fuzz_assert(matched == 0 || matched == 1);
  return matched;
}

/* Python's re.escape for the characters that need it (ASCII non-alnum). */
static void escape_literal(const char *s, size_t n, ifs_buf *out) {
  ifs_buf_clear(out);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    int alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (c < 0x80 && !alnum) fuzz_assert(ifs_buf_append_char(out, '\\') == IFS_OK);
    fuzz_assert(ifs_buf_append_char(out, (char)c) == IFS_OK);
  }
}

/* A substring of s at code point boundaries chosen from seed bytes. */
static void pick_substring(const char *s, size_t n, unsigned seed, size_t *a, size_t *b) {
  size_t chars = ifs_count_chars(s, n);
  if (chars == 0) { *a = *b = 0; return; }
  size_t from = seed % chars, len = 1 + (seed >> 8) % 16;
  size_t i = 0, k = 0;
  while (k < from) { (void)ifs_decode(s, n, &i); k++; }
  *a = i;
  while (i < n && len--) (void)ifs_decode(s, n, &i);
  *b = i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_split sp = fuzz_split_input(data, size);
  ifs_buf pat, subj, lit;
  ifs_buf_init(&pat);
  ifs_buf_init(&subj);
  ifs_buf_init(&lit);
  fuzz_internal(sp.a, sp.an, &pat);
  if (sp.b) fuzz_internal(sp.b, sp.bn, &subj);
  else fuzz_internal(sp.a, sp.an, &subj);

  int tr;
  check_translation(pat.p, pat.len, &tr);

  ifs_regex_cache *warm = ifs_regex_cache_new();
  fuzz_assert(warm);
  int r1 = search(warm, pat.p, pat.len, subj.p, subj.len);
  fuzz_assert((r1 == R_INVALID) == (tr == IFS_INVALID));
  int r2 = search(warm, pat.p, pat.len, subj.p, subj.len);
  fuzz_assert(r1 == r2);
  /* the pattern against itself, then the first query again (the cache
  ** may now hold a second, remapped translation) */
  (void)search(warm, pat.p, pat.len, pat.p, pat.len);
  fuzz_assert(search(warm, pat.p, pat.len, subj.p, subj.len) == r1);

  /* the DFA against PCRE2 alone */
  ifs_regex_cache *plain = ifs_regex_cache_new();
  fuzz_assert(plain);
  ifs_test_regex_use_dfa(plain, 0);
  int rp = search(plain, pat.p, pat.len, subj.p, subj.len);
  if (rp != R_LIMIT && rp != r1) {
    fprintf(stderr, "dfa %d, pcre2 alone %d\n", r1, rp);
    fuzz_fail("the DFA and PCRE2 disagree");
  }
  ifs_buf longer;
  ifs_buf_init(&longer);
  unsigned reps = size ? 2 + data[size / 2] % 64 : 2;
  for (unsigned k = 0; k < reps && longer.len < 8192; k++)
    fuzz_assert(ifs_buf_append(&longer, subj.p, subj.len) == IFS_OK);
  int lw = search(warm, pat.p, pat.len, longer.p ? longer.p : "", longer.len);
  int lp = search(plain, pat.p, pat.len, longer.p ? longer.p : "", longer.len);
  if (lp != R_LIMIT && lp != lw) {
    fprintf(stderr, "repeated subject: dfa %d, pcre2 alone %d\n", lw, lp);
    fuzz_fail("the DFA and PCRE2 disagree");
  }
  ifs_buf_free(&longer);
  ifs_regex_cache_free(plain);

  size_t a, b;
  unsigned seed = size ? data[0] | (unsigned)data[size - 1] << 8 : 0;
  pick_substring(subj.p, subj.len, seed, &a, &b);
  escape_literal(subj.p + a, b - a, &lit);
  int rl = search(warm, lit.p ? lit.p : "", lit.len, subj.p, subj.len);
  if (rl != 1) {
    fprintf(stderr, "literal [%.*s] gave %d\n", (int)lit.len, lit.p, rl);
    fuzz_fail("an escaped substring of the subject does not match it");
  }
  ifs_regex_cache_free(warm);

  ifs_buf_free(&pat);
  ifs_buf_free(&subj);
  ifs_buf_free(&lit);
  return 0;
}
