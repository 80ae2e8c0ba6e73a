/*
** test_ifs_json.c — the JSON reader against CPython 3.11 json.loads.
** Expected values were produced with /usr/bin/python3 (json.loads) and
** hard-coded; values are shown through a small canonical dump (below).
*/
#include "ifs_test.h"
#include "ifs_json.h"
#include "soup.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Canonical dump: null/true/false, i:<literal>, f:<%.17g>, s:"<bytes,
** \xhh outside printable ASCII>", [a,b], {k:v}.  Recursive: test values
** are shallow. */
static void dump(const ifs_jval *v, ifs_buf *b) {
  char tmp[64];
  switch (v->type) {
    case IFS_JNULL: ifs_buf_append_str(b, "null"); break;
    case IFS_JTRUE: ifs_buf_append_str(b, "true"); break;
    case IFS_JFALSE: ifs_buf_append_str(b, "false"); break;
    case IFS_JINT:
      ifs_buf_append_str(b, "i:");
      ifs_buf_append(b, v->str, v->len);
      break;
    case IFS_JFLOAT:
      if (isnan(v->num)) snprintf(tmp, sizeof tmp, "f:nan");
      else if (isinf(v->num)) snprintf(tmp, sizeof tmp, v->num > 0 ? "f:inf" : "f:-inf");
      else snprintf(tmp, sizeof tmp, "f:%.17g", v->num);
      ifs_buf_append_str(b, tmp);
      break;
    case IFS_JSTR:
      ifs_buf_append_str(b, "s:\"");
      for (size_t i = 0; i < v->len; i++) {
        unsigned char c = (unsigned char)v->str[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ifs_buf_append_char(b, (char)c);
        else { snprintf(tmp, sizeof tmp, "\\x%02x", c); ifs_buf_append_str(b, tmp); }
      }
      ifs_buf_append_char(b, '"');
      break;
    case IFS_JARR:
      ifs_buf_append_char(b, '[');
      for (size_t i = 0; i < v->count; i++) {
        if (i) ifs_buf_append_char(b, ',');
        dump(v->items[i], b);
      }
      ifs_buf_append_char(b, ']');
      break;
    case IFS_JOBJ:
      ifs_buf_append_char(b, '{');
      for (size_t i = 0; i < v->count; i++) {
        if (i) ifs_buf_append_char(b, ',');
        dump(v->keys[i], b);
        ifs_buf_append_char(b, ':');
        dump(v->items[i], b);
      }
      ifs_buf_append_char(b, '}');
      break;
  }
}

/* Parses s[0..n) and checks the dump (or IFS_INVALID when want is NULL). */
static void check_parse(const char *s, size_t n, const char *want) {
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v = NULL;
  int rc = ifs_json_parse(s, n, &a, &v);
  if (!want) {
    ck_assert_msg(rc == IFS_INVALID, "parse of [%.*s] gave %d, want invalid", (int)n, s, rc);
  } else {
    ck_assert_msg(rc == IFS_OK, "parse of [%.*s] gave %d", (int)n, s, rc);
    ifs_buf b;
    ifs_buf_init(&b);
    dump(v, &b);
    ck_assert_buf_eq(&b, want);
    ifs_buf_free(&b);
  }
  ifs_arena_free(&a);
}

/* ---- accept/reject, both entry points ---- */

typedef struct vcase { const char *s; size_t n; int valid; } vcase;
#define T(lit, v) { lit, sizeof lit - 1, v }

static const vcase valid_cases[] = {
  T("1", 1),
  T("-1", 1),
  T("0", 1),
  T("-0", 1),
  T("01", 0),
  T("-01", 0),
  T("00", 0),
  T("+1", 0),
  T(".5", 0),
  T("1.", 0),
  T("1.e5", 0),
  T("-", 0),
  T("--1", 0),
  T("1e", 0),
  T("1e+", 0),
  T("1E-", 0),
  T("1e5", 1),
  T("1E+5", 1),
  T("1.5e-3", 1),
  T("-0.0", 1),
  T("0.0e0", 1),
  T("1 ", 1),
  T(" 1", 1),
  T("\t\015\n 1 \n", 1),
  T("\0141", 0),
  T("1\014", 0),
  T("\0131", 0),
  T(" ", 0),
  T("", 0),
  T("NaN", 1),
  T("-NaN", 0),
  T("nan", 0),
  T("Infinity", 1),
  T("-Infinity", 1),
  T("+Infinity", 0),
  T("infinity", 0),
  T("Inf", 0),
  T("NaNx", 0),
  T("true", 1),
  T("false", 1),
  T("null", 1),
  T("True", 0),
  T("nul", 0),
  T("nulll", 0),
  T("truefalse", 0),
  T("true false", 0),
  T("\"\"", 1),
  T("\"abc\"", 1),
  T("\"a", 0),
  T("\"\\\"", 0),
  T("\"\\\\\"", 1),
  T("\"\\/\"", 1),
  T("\"\\b\\f\\n\\r\\t\"", 1),
  T("\"\\x41\"", 0),
  T("\"\\U0041\"", 0),
  T("\"\\u004\"", 0),
  T("\"\\u004g\"", 0),
  T("\"\\uABCD\"", 1),
  T("\"\\uabcd\"", 1),
  T("\"\\ud800\"", 1),
  T("\"\\udc00\\ud800\"", 1),
  T("\"\\ud800\\udc00\"", 1),
  T("\"\\ud800\\u12\"", 0),
  T("\"\\u0000\"", 1),
  T("\"\000\"", 0),
  T("\"\037\"", 0),
  T("\"\177\"", 1),
  T("\"\t\"", 0),
  T("\"\n\"", 0),
  T("\"\303\251\"", 1),
  T("\"\360\237\230\200\"", 1),
  T("\"\355\262\200\"", 1),
  T("\355\262\200", 0),
  T("\357\273\2771", 0),
  T("\357\273\277\"\"", 0),
  T("1\302\240", 0),
  T("\343\200\2001", 0),
  T("\"a\"\355\262\200", 0),
  T("[]", 1),
  T("{}", 1),
  T("[ ]", 1),
  T("{ }", 1),
  T("[1,]", 0),
  T("[,1]", 0),
  T("[1,,2]", 0),
  T("[1 2]", 0),
  T("[1,2]", 1),
  T("[\"a\":1]", 0),
  T("{\"a\":1}", 1),
  T("{\"a\":1,}", 0),
  T("{\"a\" 1}", 0),
  T("{\"a\":}", 0),
  T("{a:1}", 0),
  T("{'a':1}", 0),
  T("{1:1}", 0),
  T("{\"a\":1,\"a\":2}", 1),
  T("{\"a\":[1,{\"b\":null}]}", 1),
  T("[[[]]]", 1),
  T("[[[]]", 0),
  T("[]]", 0),
  T("{]", 0),
  T("[}", 0),
  T("{\"a\":1]", 0),
  T("[1}", 0),
  T("[1]x", 0),
  T("[1] [2]", 0),
  T("{} {}", 0),
  T("\"a\" \"b\"", 0),
  T("1 2", 0),
  T("[1,2]//c", 0),
  T("/*c*/1", 0),
  T("[true,false,null,NaN,Infinity,-Infinity]", 1),
};

START_TEST(test_validity) {
  for (size_t k = 0; k < sizeof valid_cases / sizeof valid_cases[0]; k++) {
    const vcase *c = &valid_cases[k];
    ck_assert_msg(ifs_json_valid(c->s, c->n) == (c->valid ? IFS_OK : IFS_INVALID),
                  "valid([%.*s]) != %d",
                  (int)c->n, c->s, c->valid);
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *v;
    int rc = ifs_json_parse(c->s, c->n, &a, &v);
    ck_assert_msg(rc == (c->valid ? IFS_OK : IFS_INVALID), "parse([%.*s]) = %d",
                  (int)c->n, c->s, rc);
    ifs_arena_free(&a);
  }
}
END_TEST

/* ---- parsed values ---- */

typedef struct pcase { const char *s; size_t n; const char *want; } pcase;
#define P(lit, w) { lit, sizeof lit - 1, w }

static const pcase parse_cases[] = {
  P("0",
    "i:0"),
  P("-0",
    "i:-0"),
  P("123",
    "i:123"),
  P("-9223372036854775809",
    "i:-9223372036854775809"),
  P("123456789012345678901234567890",
    "i:123456789012345678901234567890"),
  P("0.0",
    "f:0"),
  P("-0.0",
    "f:-0"),
  P("1.5",
    "f:1.5"),
  P("1e5",
    "f:100000"),
  P("1E+5",
    "f:100000"),
  P("1e-5",
    "f:1.0000000000000001e-05"),
  P("2.5E-3",
    "f:0.0025000000000000001"),
  P("0.1",
    "f:0.10000000000000001"),
  P("1e400",
    "f:inf"),
  P("-1e400",
    "f:-inf"),
  P("1e-400",
    "f:0"),
  P("-1e-400",
    "f:-0"),
  P("NaN",
    "f:nan"),
  P("Infinity",
    "f:inf"),
  P("-Infinity",
    "f:-inf"),
  P("9007199254740993.0",
    "f:9007199254740992"),
  P("1e99999999999999999999999",
    "f:inf"),
  P("-1e-99999999999999999999",
    "f:-0"),
  P("0e99999999999999999999",
    "f:0"),
  P("123456789012345678901234567890e-30",
    "f:0.12345678901234568"),
  P("2.2250738585072011e-308",
    "f:2.2250738585072009e-308"),
  P("4.9406564584124654e-324",
    "f:4.9406564584124654e-324"),
  P("2.4703282292062327e-324",
    "f:0"),
  P("2.4703282292062328e-324",
    "f:4.9406564584124654e-324"),
  P("1.7976931348623158e308",
    "f:1.7976931348623157e+308"),
  P("1.7976931348623159e308",
    "f:inf"),
  P("7e22",
    "f:7.0000000000000004e+22"),
  P("true",
    "true"),
  P("false",
    "false"),
  P("null",
    "null"),
  P("\"\"",
    "s:\"\""),
  P("\"abc\"",
    "s:\"abc\""),
  P(" \"a b\" ",
    "s:\"a b\""),
  P("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
    "s:\"\\x22\\x5c/\\x08\\x0c\\x0a\\x0d\\x09\""),
  P("\"\\u0041\\u00e9\\u20AC\"",
    "s:\"A\\xc3\\xa9\\xe2\\x82\\xac\""),
  P("\"\\u0000x\\u0000\"",
    "s:\"\\x00x\\x00\""),
  P("\"\\ud83d\\ude00\"",
    "s:\"\\xf0\\x9f\\x98\\x80\""),
  P("\"\\uD83D\\uDE00\"",
    "s:\"\\xf0\\x9f\\x98\\x80\""),
  P("\"\\ud800\"",
    "s:\"\\xed\\xa0\\x80\""),
  P("\"\\udfff\"",
    "s:\"\\xed\\xbf\\xbf\""),
  P("\"\\udc00\\ud800\"",
    "s:\"\\xed\\xb0\\x80\\xed\\xa0\\x80\""),
  P("\"\\ud800\\u0041\"",
    "s:\"\\xed\\xa0\\x80A\""),
  P("\"\\ud800\\ud800\\udc00\"",
    "s:\"\\xed\\xa0\\x80\\xf0\\x90\\x80\\x80\""),
  P("\"\\ud800x\\udc00\"",
    "s:\"\\xed\\xa0\\x80x\\xed\\xb0\\x80\""),
  P("\"\\ud800\\\\udc00\"",
    "s:\"\\xed\\xa0\\x80\\x5cudc00\""),
  P("\"\\uDBFF\\uDFFF\"",
    "s:\"\\xf4\\x8f\\xbf\\xbf\""),
  P("\"\\ud800\\udc00\"",
    "s:\"\\xf0\\x90\\x80\\x80\""),
  P("\"\303\251\360\237\230\200\177\"",
    "s:\"\\xc3\\xa9\\xf0\\x9f\\x98\\x80\\x7f\""),
  P("\"\355\262\200\355\263\277\"",
    "s:\"\\xed\\xb2\\x80\\xed\\xb3\\xbf\""),
  P("\"\\ud83d\355\262\200\"",
    "s:\"\\xed\\xa0\\xbd\\xed\\xb2\\x80\""),
  P("[]",
    "[]"),
  P("{}",
    "{}"),
  P("[1,\"a\",null,[true,[]],{}]",
    "[i:1,s:\"a\",null,[true,[]],{}]"),
  P("{\"a\":1,\"b\":[2,3],\"c\":{\"d\":\"e\"}}",
    "{s:\"a\":i:1,s:\"b\":[i:2,i:3],s:\"c\":{s:\"d\":s:\"e\"}}"),
  P("{\"a\":1,\"b\":2,\"a\":3}",
    "{s:\"a\":i:3,s:\"b\":i:2}"),
  P("{\"a\":1,\"a\":{\"x\":1},\"b\":2,\"a\":[]}",
    "{s:\"a\":[],s:\"b\":i:2}"),
  P("{\"\":1,\"\":2}",
    "{s:\"\":i:2}"),
  P("{\"k\":1,\"\\u006b\":2}",
    "{s:\"k\":i:2}"),
  P("{\"\\ud83d\\ude00\":1,\"\360\237\230\200\":2}",
    "{s:\"\\xf0\\x9f\\x98\\x80\":i:2}"),
  P("{\"\\ud800\":1,\"\\ud800\\udc00\":2,\"\360\220\200\200\":3}",
    "{s:\"\\xed\\xa0\\x80\":i:1,s:\"\\xf0\\x90\\x80\\x80\":i:3}"),
  P(" [ 1 , 2 ] ",
    "[i:1,i:2]"),
  P("{ \"a\" : 1 , \"b\" : 2 }",
    "{s:\"a\":i:1,s:\"b\":i:2}"),
};

START_TEST(test_values) {
  for (size_t k = 0; k < sizeof parse_cases / sizeof parse_cases[0]; k++)
    check_parse(parse_cases[k].s, parse_cases[k].n, parse_cases[k].want);
}
END_TEST

/* Builds text from pieces into a heap buffer (freed by the caller). */
static char *repeat(const char *pre, const char *unit, size_t times, const char *post,
                    size_t *n) {
  size_t lp = strlen(pre), lu = strlen(unit), lq = strlen(post);
  char *s = malloc(lp + lu * times + lq + 1);
  ck_assert_ptr_nonnull(s);
  memcpy(s, pre, lp);
  for (size_t i = 0; i < times; i++) memcpy(s + lp + i * lu, unit, lu);
  memcpy(s + lp + lu * times, post, lq + 1);
  *n = lp + lu * times + lq;
  return s;
}

/* 2^-1075 exactly, half the smallest subnormal: 752 significant digits */
static const char half_min_subnormal[] =
  "2470328229206232720882843964341106861825299013071623822127928412503377"
  "5363510437593264991818081799618989828234772285886546332835517796989819"
  "9387398005390939063150356595155702263922908583924491051844359318028499"
  "3653615250031937045767824921936562366986365848075700158576926990370631"
  "1928279558551332927834338409351978015531246597263579574622766465272827"
  "2200563740064854999770965994704540208281662262378573934507363390079677"
  "6193057750674017632467360096895134053553745851666113422376667860416215"
  "9680461914467291840300530057530849048765391711386591646239524912623653"
  "8818796362393732804238910186723484976682350898633885879256283027559956"
  "5752445550725518931369083625477918694866799496832404970582102851318545"
  "1396213837722826145437693412532098591327667236328125";

static void check_float(const char *s, double want) {
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(s, strlen(s), &a, &v), IFS_OK);
  ck_assert_int_eq(v->type, IFS_JFLOAT);
  ck_assert_msg(memcmp(&v->num, &want, sizeof want) == 0, "%.40s: got %a want %a", s,
                v->num, want);
  ifs_arena_free(&a);
}

/* float(text) is correctly rounded, also past 800 significant digits
** (where the reader keeps a sticky digit) and with huge exponents. */
START_TEST(test_float_rounding) {
  size_t n;
  char *s = repeat("9007199254740993.", "0", 1000, "1", &n);
  check_float(s, 0x1.0000000000001p+53);         /* above the halfway point */
  free(s);
  s = repeat("9007199254740993", "0", 1000, "e-1000", &n);
  check_float(s, 0x1p+53);                       /* exactly halfway: even */
  free(s);
  s = repeat("0.", "0", 1000, "1e1001", &n);
  check_float(s, 1.0);
  free(s);
  s = repeat("-", "1", 300, ".5", &n);
  check_float(s, -1.1111111111111112e+299);
  free(s);
  s = repeat("", "1", 400, ".0", &n);
  check_float(s, INFINITY);
  free(s);
  s = repeat("0.", "0", 100000, "1", &n);        /* 1e-100001 */
  check_float(s, 0.0);
  free(s);
  /* exactly halfway rounds to even (0), anything above to 5e-324, even
  ** when the excess is a digit far past the 800 kept ones */
  char *h = malloc(sizeof half_min_subnormal + 400);
  snprintf(h, sizeof half_min_subnormal + 400, "0.%se-323", half_min_subnormal);
  check_float(h, 0.0);
  snprintf(h, sizeof half_min_subnormal + 400, "-0.%s%0200de-323", half_min_subnormal, 1);
  check_float(h, -0x0.0000000000001p-1022);
  snprintf(h, sizeof half_min_subnormal + 400, "0.%s%0200de-323", half_min_subnormal, 0);
  check_float(h, 0.0);
  free(h);
  check_float("2.4703282292062327e-324", 0.0);
  check_float("-0.0", -0.0);
  check_float("-0e5", -0.0);
  check_float("-1e-400", -0.0);
  check_float("1e-400", 0.0);
  check_float("1e400", INFINITY);
  check_float("-1E+400", -INFINITY);
  check_float("1e999999999999999999999999999", INFINITY);
  check_float("0e999999999999999999999999999", 0.0);
  check_float("1.7976931348623158e308", 0x1.fffffffffffffp+1023);
  check_float("1.7976931348623159e308", INFINITY);
  check_float("2.2250738585072011e-308", 0x0.fffffffffffffp-1022);
  check_float("0.1", 0.1);
  check_float("5e-324", 0x0.0000000000001p-1022);
  check_float("123456789012345678901234567890e-30", 0x1.f9add3746f65fp-4);
  check_float("-Infinity", -INFINITY);
  check_float("Infinity", INFINITY);
}
END_TEST

/* An integer literal is kept as written; more than 4300 digits (the sign
** not counted) is invalid as int() raises; floats have no such limit. */
START_TEST(test_int_digit_limit) {
  size_t n;
  char *s = repeat("", "7", 4300, "", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(s, n, &a, &v), IFS_OK);
  ck_assert_int_eq(v->type, IFS_JINT);
  ck_assert_uint_eq(v->len, 4300);
  ck_assert(memcmp(v->str, s, n) == 0);
  ifs_arena_free(&a);
  free(s);
  s = repeat("-", "7", 4300, "", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  free(s);
  s = repeat("", "7", 4301, "", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  check_parse(s, n, NULL);
  free(s);
  s = repeat("[-", "7", 4301, "]", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  check_parse(s, n, NULL);
  free(s);
  s = repeat("{\"a\":", "1", 4301, "}", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  free(s);
  s = repeat("", "7", 4301, ".0", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  free(s);
  s = repeat("", "7", 4301, "e0", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  free(s);
}
END_TEST

/* NUL bytes: an escaped one is a character, a raw one invalid. */
START_TEST(test_nul) {
  static const char nul_esc[] = "[\"a\\u0000b\"]";
  check_parse(nul_esc, sizeof nul_esc - 1, "[s:\"a\\x00b\"]");
  static const char nul_raw[] = "\"a\0b\"";
  check_parse(nul_raw, sizeof nul_raw - 1, NULL);
  ck_assert_int_eq(ifs_json_valid(nul_raw, sizeof nul_raw - 1), IFS_INVALID);
  static const char nul_after[] = "1\0";
  ck_assert_int_eq(ifs_json_valid(nul_after, sizeof nul_after - 1), IFS_INVALID);
  ck_assert_int_eq(ifs_json_valid("1", 1), IFS_OK);
  ck_assert_int_eq(ifs_json_valid(NULL, 0), IFS_INVALID);
}
END_TEST

/* Every byte as each of a \uXXXX escape's four digits, the others 0:
** json.loads takes 0-9, a-f and A-F alone, and the digit's value lands in
** its place (a lone code point, surrogates too, in up to three bytes). */
START_TEST(test_hex_escapes) {
  for (unsigned place = 0; place < 4; place++) {
    for (unsigned b = 0; b < 256; b++) {
      char in[] = "\"\\u0000\"";
      in[3 + place] = (char)b;
      int value = b >= '0' && b <= '9' ? (int)b - '0'
                : b >= 'a' && b <= 'f' ? (int)b - 'a' + 10
                : b >= 'A' && b <= 'F' ? (int)b - 'A' + 10 : -1;
      ifs_arena a;
      ifs_arena_init(&a);
      ifs_jval *v = NULL;
      ifs_status rc = ifs_json_parse(in, sizeof in - 1, &a, &v);
      ck_assert_msg((rc == IFS_OK) == (value >= 0), "byte 0x%02x as digit %u", b, place);
      ck_assert_int_eq(ifs_json_valid(in, sizeof in - 1), rc);
      if (value >= 0) {
        uint32_t cp = (uint32_t)value << (4 * (3 - place));
        unsigned char want[3];
        size_t wn;
        if (cp < 0x80) {
          want[0] = (unsigned char)cp;
          wn = 1;
        } else if (cp < 0x800) {
          want[0] = (unsigned char)(0xC0 | cp >> 6);
          want[1] = (unsigned char)(0x80 | (cp & 0x3F));
          wn = 2;
        } else {
          want[0] = (unsigned char)(0xE0 | cp >> 12);
          want[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
          want[2] = (unsigned char)(0x80 | (cp & 0x3F));
          wn = 3;
        }
        ck_assert_uint_eq(v->len, wn);
        ck_assert_msg(memcmp(v->str, want, wn) == 0, "byte 0x%02x as digit %u", b, place);
      }
      ifs_arena_free(&a);
    }
  }
}
END_TEST

/* Strings of every length and alignment, against a model: the vector,
** word and byte scans must stop at the same quote, backslash or control
** character.  Each piece is its bytes in the literal, what they decode
** to, and whether a string holding it is valid. */
typedef struct { const char *raw; size_t raw_n; const char *dec; size_t dec_n; int ok; } str_piece;

START_TEST(test_string_scan) {
  static const str_piece pieces[] = {
    {LIT("a"), LIT("a"), 1}, {LIT("Hello world "), LIT("Hello world "), 1},
    {LIT(" "), LIT(" "), 1}, {LIT("\x7f"), LIT("\x7f"), 1}, {LIT("\xc3\xa9"), LIT("\xc3\xa9"), 1},
    {LIT("\xe2\x82\xac"), LIT("\xe2\x82\xac"), 1}, {LIT("\\n"), LIT("\n"), 1},
    {LIT("\\\""), LIT("\""), 1}, {LIT("\\\\"), LIT("\\"), 1},
    {LIT("\\u00e9"), LIT("\xc3\xa9"), 1}, {LIT("!#[]{}:,0123456789"), LIT("!#[]{}:,0123456789"), 1},
    {LIT("\x1f"), LIT(""), 0}, {LIT("\0"), LIT(""), 0}, {LIT("\n"), LIT(""), 0},
    {LIT("\t"), LIT(""), 0}, {LIT("\x01"), LIT(""), 0}};
  enum { NP = sizeof pieces / sizeof pieces[0] };
  unsigned seed = 99;
  int bad = -1;
  for (int iter = 0; iter < 20000 && bad < 0; iter++) {
    ifs_buf in, want[2];
    ifs_buf_init(&in);
    int ok = 1;
    for (unsigned lead = soup_next(&seed) % 17; lead; lead--) ifs_buf_append_char(&in, ' ');
    ifs_buf_append_char(&in, '[');
    for (int k = 0; k < 2; k++) {
      ifs_buf_init(&want[k]);
      if (k) ifs_buf_append_char(&in, ',');
      ifs_buf_append_char(&in, '"');
      /* mostly valid strings: a control character in one piece of 40 */
      for (unsigned parts = soup_next(&seed) % 12; parts; parts--) {
        unsigned r = soup_next(&seed) % 40;
        const str_piece *pc = &pieces[r < NP ? r : soup_next(&seed) % 11];
        ifs_buf_append(&in, pc->raw, pc->raw_n);
        ifs_buf_append(&want[k], pc->dec, pc->dec_n);
        ok &= pc->ok;
      }
      ifs_buf_append_char(&in, '"');
    }
    ifs_buf_append_char(&in, ']');
    if ((ifs_json_valid(in.p, in.len) == IFS_OK) != ok) bad = iter;
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *v = NULL;
    ifs_status rc = ifs_json_parse(in.p, in.len, &a, &v);
    if ((rc == IFS_OK) != ok) bad = iter;
    for (int k = 0; rc == IFS_OK && k < 2; k++)
      if (v->items[k]->len != want[k].len ||
          (want[k].len && memcmp(v->items[k]->str, want[k].p, want[k].len) != 0))
        bad = iter;
    ifs_arena_free(&a);
    ifs_buf_free(&in);
    ifs_buf_free(&want[0]);
    ifs_buf_free(&want[1]);
  }
  ck_assert_msg(bad < 0, "string case %d", bad);
}
END_TEST

/* Duplicate keys: first position, last value — also past the small-object
** path (more than 16 pairs) where the reader sorts. */
START_TEST(test_duplicates_large) {
  ifs_buf in;
  ifs_buf_init(&in);
  ifs_buf_append_char(&in, '{');
  for (int i = 0; i < 100; i++) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s\"k%d\":%d", i ? "," : "", i % 7, i);
    ifs_buf_append_str(&in, tmp);
  }
  ifs_buf_append_char(&in, '}');
  check_parse(in.p, in.len,
              "{s:\"k0\":i:98,s:\"k1\":i:99,s:\"k2\":i:93,s:\"k3\":i:94,"
              "s:\"k4\":i:95,s:\"k5\":i:96,s:\"k6\":i:97}");
  ifs_buf_free(&in);

  /* Pseudo-random keys, checked against a naive dict() model. */
  for (int m = 17; m <= 2000; m = m * 3 + 1) {
    ifs_buf_init(&in);
    ifs_buf_append_char(&in, '{');
    unsigned x = 12345u + (unsigned)m;
    int *key = malloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < m; i++) {
      x = x * 1103515245u + 12345u;
      key[i] = (int)((x >> 8) % (unsigned)(m / 4 + 1));
      char tmp[48];
      snprintf(tmp, sizeof tmp, "%s\"%d\":%d", i ? "," : "", key[i], i);
      ifs_buf_append_str(&in, tmp);
    }
    ifs_buf_append_char(&in, '}');
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *v;
    ck_assert_int_eq(ifs_json_parse(in.p, in.len, &a, &v), IFS_OK);
    size_t out = 0;
    for (int i = 0; i < m; i++) {
      int first = 1, last = i;
      for (int j = 0; j < m; j++) {
        if (key[j] != key[i]) continue;
        if (j < i) first = 0;
        last = j;
      }
      if (!first) continue;
      char want[16];
      snprintf(want, sizeof want, "%d", key[i]);
      ck_assert_uint_lt(out, v->count);
      ck_assert_uint_eq(v->keys[out]->len, strlen(want));
      ck_assert(memcmp(v->keys[out]->str, want, strlen(want)) == 0);
      snprintf(want, sizeof want, "%d", last);
      ck_assert_uint_eq(v->items[out]->len, strlen(want));
      ck_assert(memcmp(v->items[out]->str, want, strlen(want)) == 0);
      out++;
    }
    ck_assert_uint_eq(out, v->count);
    ifs_arena_free(&a);
    free(key);
    ifs_buf_free(&in);
  }
}
END_TEST

/* 100,000 pairs of one key and 100,000 distinct keys stay fast. */
START_TEST(test_big_containers) {
  ifs_buf in;
  ifs_buf_init(&in);
  ifs_buf_append_char(&in, '{');
  for (int i = 0; i < 100000; i++) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s\"same\":%d", i ? "," : "", i);
    ifs_buf_append_str(&in, tmp);
  }
  ifs_buf_append_char(&in, '}');
  check_parse(in.p, in.len, "{s:\"same\":i:99999}");
  ifs_buf_clear(&in);
  ifs_buf_append_char(&in, '{');
  for (int i = 0; i < 100000; i++) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s\"%d\":%d", i ? "," : "", 99999 - i, i);
    ifs_buf_append_str(&in, tmp);
  }
  ifs_buf_append_char(&in, '}');
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(in.p, in.len, &a, &v), IFS_OK);
  ck_assert_uint_eq(v->count, 100000);
  ck_assert(v->keys[0]->len == 5 && memcmp(v->keys[0]->str, "99999", 5) == 0);
  ck_assert(v->keys[99999]->len == 1 && v->keys[99999]->str[0] == '0');
  const ifs_jval *g = ifs_json_get(v, "12345", 5);
  ck_assert_ptr_nonnull(g);
  ck_assert(g->len == 5 && memcmp(g->str, "87654", 5) == 0);
  ifs_arena_free(&a);
  ifs_buf_clear(&in);
  ifs_buf_append_char(&in, '[');
  for (int i = 0; i < 100000; i++) ifs_buf_append_str(&in, i ? ",[1.5,\"x\"]" : "[1.5,\"x\"]");
  ifs_buf_append_char(&in, ']');
  ifs_arena_init(&a);
  ck_assert_int_eq(ifs_json_parse(in.p, in.len, &a, &v), IFS_OK);
  ck_assert_uint_eq(v->count, 100000);
  ck_assert_int_eq(v->items[77777]->items[1]->type, IFS_JSTR);
  ifs_arena_free(&a);
  ifs_buf_free(&in);
}
END_TEST

/* 64 MB inputs: a string and a flat array. */
START_TEST(test_large_input) {
  size_t n;
  char *s = repeat("\"", "abcdefgh", 8u << 20, "\"", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(s, n, &a, &v), IFS_OK);
  ck_assert_uint_eq(v->len, 64u << 20);
  ifs_arena_free(&a);
  s[n - 1] = ' ';
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  free(s);
  s = repeat("[0", ",-1", 22u << 20, "]", &n);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_OK);
  s[n - 1] = ',';
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  free(s);
}
END_TEST

/* Nesting a million deep, valid, unclosed and mismatched: no recursion. */
START_TEST(test_deep_nesting) {
  const size_t depth = 1000000;
  size_t n, n2;
  char *open = repeat("", "[", depth, "", &n);
  char *s = malloc(2 * depth + 16);
  memcpy(s, open, depth);
  memset(s + depth, ']', depth);
  ck_assert_int_eq(ifs_json_valid(s, 2 * depth), IFS_OK);
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(s, 2 * depth, &a, &v), IFS_OK);
  size_t d = 0;
  const ifs_jval *w = v;
  while (w->type == IFS_JARR && w->count == 1) { w = w->items[0]; d++; }
  ck_assert_uint_eq(d, depth - 1);
  ck_assert(w->type == IFS_JARR && w->count == 0);
  ifs_arena_free(&a);
  ck_assert_int_eq(ifs_json_valid(s, 2 * depth - 1), IFS_INVALID);      /* one unclosed */
  check_parse(s, 2 * depth - 1, NULL);
  ck_assert_int_eq(ifs_json_valid(s, depth), IFS_INVALID);              /* all unclosed */
  check_parse(s, depth, NULL);
  s[depth] = '}';                                             /* mismatched */
  ck_assert_int_eq(ifs_json_valid(s, 2 * depth), IFS_INVALID);
  check_parse(s, 2 * depth, NULL);
  free(s);
  free(open);
  /* objects: {"a":{"a":...1...}} */
  char *objs = repeat("", "{\"a\":", depth, "1", &n);
  char *closes = repeat("", "}", depth, "", &n2);
  s = malloc(n + n2 + 1);
  memcpy(s, objs, n);
  memcpy(s + n, closes, n2);
  ck_assert_int_eq(ifs_json_valid(s, n + n2), IFS_OK);
  ifs_arena_init(&a);
  ck_assert_int_eq(ifs_json_parse(s, n + n2, &a, &v), IFS_OK);
  for (d = 0, w = v; w->type == IFS_JOBJ; d++) w = ifs_json_get(w, "a", 1);
  ck_assert_uint_eq(d, depth);
  ck_assert(w->type == IFS_JINT && w->len == 1 && w->str[0] == '1');
  ifs_arena_free(&a);
  ck_assert_int_eq(ifs_json_valid(s, n + n2 - 1), IFS_INVALID);
  ck_assert_int_eq(ifs_json_valid(s, n), IFS_INVALID);
  free(s);
  free(objs);
  free(closes);
}
END_TEST

/* A caller's known arrays: asked for each array that is a value of the
** top-level object (with its key), never for one deeper or in a top-level
** array; a known one is not read (its bytes are its value's text), the
** rest of the document is read as ever; arrays read have their text. */
typedef struct known_log {
  const char *text;   /* the array the caller knows */
  ifs_buf asked;      /* the keys asked about, '|' after each */
} known_log;

static size_t knows(void *arg, const char *key, size_t key_len, const char *s, size_t n) {
  known_log *k = arg;
  ifs_buf_append(&k->asked, key, key_len);
  ifs_buf_append_char(&k->asked, '|');
  size_t len = strlen(k->text);
  return len <= n && memcmp(s, k->text, len) == 0 ? len : 0;
}

static int parse_with(const char *doc, known_log *k, ifs_arena *a, ifs_jval **v) {
  ifs_buf_clear(&k->asked);
  return ifs_json_parse_known(doc, strlen(doc), a, knows, k, v);
}

START_TEST(test_known_arrays) {
  ifs_arena a;
  ifs_arena_init(&a);
  known_log k = {"[\"x\", 1]", {0}};
  ifs_buf_init(&k.asked);
  ifs_jval *v;
  const char *doc = "{\"a\": [\"x\", 1], \"b\": [[\"x\", 1]], \"a\\u0062\" : [\"x\",1] , \"c\": 2}";
  ck_assert_int_eq(parse_with(doc, &k, &a, &v), IFS_OK);
  ck_assert_buf_eq(&k.asked, "a|b|ab|");
  ck_assert_uint_eq(v->count, 4);
  const ifs_jval *x = ifs_json_get(v, "a", 1);
  ck_assert(x->type == IFS_JARR && x->known && x->count == 0);
  ck_assert_int_eq((int)x->len, 8);
  ck_assert(x->str == doc + 6);
  x = ifs_json_get(v, "b", 1);   /* read: its text is its own, '[' to ']' */
  ck_assert(!x->known && x->count == 1 && x->items[0]->type == IFS_JARR);
  ck_assert_int_eq((int)x->len, 10);
  ck_assert(x->str == doc + 21);
  ck_assert_ptr_null(x->items[0]->str);   /* deeper: no text */
  x = ifs_json_get(v, "ab", 2);
  ck_assert(!x->known && x->count == 2 && x->len == 7);
  ck_assert(ifs_json_get(v, "c", 1)->type == IFS_JINT);
  /* the last of a key's values wins, known or not */
  ck_assert_int_eq(parse_with("{\"a\": [\"x\", 1], \"a\": []}", &k, &a, &v), IFS_OK);
  ck_assert(!v->items[0]->known && v->items[0]->count == 0 && v->items[0]->len == 2);
  ck_assert_int_eq(parse_with("{\"a\": [], \"a\": [\"x\", 1]}", &k, &a, &v), IFS_OK);
  ck_assert(v->items[0]->known);
  /* a top-level array's items are not asked about */
  ck_assert_int_eq(parse_with("[[\"x\", 1]]", &k, &a, &v), IFS_OK);
  ck_assert_uint_eq(k.asked.len, 0);
  ck_assert(!v->items[0]->known && v->items[0]->str == NULL);
  /* what follows a known array is read as ever */
  ck_assert_int_eq(parse_with("{\"a\": [\"x\", 1]]", &k, &a, &v), IFS_INVALID);
  ck_assert_int_eq(parse_with("{\"a\": [\"x\", 1], }", &k, &a, &v), IFS_INVALID);
  ck_assert_int_eq(parse_with("{\"a\": [\"x\", 1]", &k, &a, &v), IFS_INVALID);
  ck_assert_int_eq(parse_with("{\"a\": [\"x\", 1]} x", &k, &a, &v), IFS_INVALID);
  ifs_buf_free(&k.asked);
  ifs_arena_free(&a);
}
END_TEST

/* Flat objects (ifs_json_scan_flat): a member the caller takes (an array
** it knows, under key "list"), refuses (key "stop") or leaves to the scan
** (a plain scalar); the keys it was asked about, '|' after each. */
static size_t flat_member(void *arg, const char *key, size_t key_len, const char *s, size_t n) {
  known_log *k = arg;
  ifs_buf_append(&k->asked, key, key_len);
  ifs_buf_append_char(&k->asked, '|');
  if (key_len == 4 && memcmp(key, "stop", 4) == 0) return IFS_JSON_NOT_FLAT;
  if (key_len != 4 || memcmp(key, "list", 4) != 0) return 0;
  size_t len = strlen(k->text);
  return len <= n && memcmp(s, k->text, len) == 0 ? len : 0;
}

static const vcase flat_cases[] = {
  T("{\"a\": 1}", 1),
  T(" \t\r\n{ \"a\" : \"x y\" , \"b\":-12,\"c\":true,\"d\":false,\"e\":null}  ", 1),
  T("{\"\": 0, \"b\": -0, \"c\": \"\"}", 1),
  T("{\"a\": 123456789012345678}", 1),          /* 18 digits */
  T("{\"list\": [\"x\", 1], \"a\": 2}", 1),
  T("{\"a\": 2, \"list\" :[\"x\", 1]}", 1),
  T("{\"a\": 1, \"a\": 2}", 1),
  T("{\"a\": 1234567890123456789}", 0),         /* 19 digits */
  T("{}", 0),
  T("{ }", 0),
  T("{\"a\": 01}", 0),
  T("{\"a\": 00}", 0),
  T("{\"a\": -}", 0),
  T("{\"a\": 1.5}", 0),
  T("{\"a\": 1e5}", 0),
  T("{\"a\": NaN}", 0),
  T("{\"a\": truex}", 0),
  T("{\"a\": \"\\u0041\"}", 0),                 /* escapes are the full reader's */
  T("{\"a\\u0062\": 1}", 0),
  T("{\"a\": \"\xc3\xa9\"}", 0),                /* past ASCII */
  T("{\"\xc3\xa9\": 1}", 0),
  T("{\"a\": \"x\ty\"}", 0),                    /* a control character */
  T("{\"a\": \"\x7f\"}", 0),
  T("{\"a\0\": 1}", 0),
  T("{\"a\": 1,}", 0),
  T("{\"a\": 1} x", 0),
  T("{\"a\": 1}}", 0),
  T("{\"a\" 1}", 0),
  T("{\"a\": 1 \"b\": 2}", 0),
  T("{\"a\": 1", 0),
  T("{\"a\":", 0),
  T("{\"a", 0),
  T("{\"a\": [1]}", 0),                         /* an array not taken */
  T("{\"a\": {\"b\": 1}}", 0),
  T("{\"list\": [\"x\", 1]]}", 0),
  T("{\"stop\": 1}", 0),
  T("{\"a\": 1, \"stop\": 1}", 0),
  T("[1]", 0),
  T("\"a\"", 0),
  T("", 0),
};

/* A flat object's members as the full reader reads it: for each key, '|'
** after it, in order of first appearance (dict order). */
static void full_keys(const ifs_jval *v, ifs_buf *b) {
  for (size_t i = 0; i < v->count; i++) {
    ifs_buf_append(b, v->keys[i]->str, v->keys[i]->len);
    ifs_buf_append_char(b, '|');
  }
}

/* Asked keys, less repeats (the full reader keeps a key once). */
static void first_keys(const ifs_buf *asked, ifs_buf *out) {
  ifs_buf_clear(out);
  for (size_t at = 0; at < asked->len;) {
    const char *bar = memchr(asked->p + at, '|', asked->len - at);
    size_t len = (size_t)(bar - asked->p) - at + 1, seen = 0;
    for (size_t j = 0; j + len <= out->len && !seen; j++)
      seen = (j == 0 || out->p[j - 1] == '|') && memcmp(out->p + j, asked->p + at, len) == 0;
    if (!seen) ifs_buf_append(out, asked->p + at, len);
    at += len;
  }
}

/* What the scan accepts, json.loads accepts, as an object of the keys it
** was asked about, whose values are the array taken or plain scalars. */
static void check_flat_agrees(const char *s, size_t n, known_log *k, ifs_buf *want,
                              ifs_buf *got) {
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(s, n, &a, &v), IFS_OK);
  ck_assert_int_eq(v->type, IFS_JOBJ);
  first_keys(&k->asked, want);
  ifs_buf_clear(got);
  full_keys(v, got);
  ck_assert_msg(want->len == got->len && memcmp(want->p, got->p, got->len) == 0,
                "[%.*s]: keys %.*s, not %.*s", (int)n, s, (int)got->len, got->p,
                (int)want->len, want->p);
  for (size_t i = 0; i < v->count; i++) {
    const ifs_jval *x = v->items[i];
    if (x->type == IFS_JARR) ck_assert(v->keys[i]->len == 4 && x->count == 2);
    else ck_assert(x->type <= IFS_JINT || x->type == IFS_JSTR);
  }
  ifs_arena_free(&a);
}

START_TEST(test_flat_objects) {
  known_log k = {"[\"x\", 1]", {0}};
  ifs_buf_init(&k.asked);
  ifs_buf want, got;
  ifs_buf_init(&want);
  ifs_buf_init(&got);
  for (size_t i = 0; i < sizeof flat_cases / sizeof flat_cases[0]; i++) {
    const vcase *c = &flat_cases[i];
    ifs_buf_clear(&k.asked);
    int flat = ifs_json_scan_flat(c->s, c->n, flat_member, &k);
    ck_assert_msg(flat == c->valid, "flat([%.*s]) = %d", (int)c->n, c->s, flat);
    if (flat) check_flat_agrees(c->s, c->n, &k, &want, &got);
  }
  ifs_buf_clear(&k.asked);
  ck_assert(ifs_json_scan_flat("{\"a\": 1, \"list\": [\"x\", 1], \"b\": \"q\"}", 36, flat_member, &k));
  ck_assert_buf_eq(&k.asked, "a|list|b|");
  /* every byte changed, at every place, of flat objects: whatever the scan
  ** still takes, json.loads reads the same way */
  static const char *const seeds[] = {
    "{\"a\": 1, \"list\": [\"x\", 1], \"b\": \"q r\", \"c\": null}",
    " {\"id\" : -10 ,\"t\":true, \"f\" :false}\n",
  };
  static const char alphabet[] = "{}[]\":, \t\n\r\\-0123456789.eEtrufalsnxq\x01\x7f\xc3\xa9";
  char buf[96];
  size_t flats = 0;
  for (size_t sd = 0; sd < sizeof seeds / sizeof *seeds; sd++) {
    size_t n = strlen(seeds[sd]);
    for (size_t at = 0; at < n; at++)
      for (size_t c = 0; c < sizeof alphabet - 1; c++) {
        memcpy(buf, seeds[sd], n);
        buf[at] = alphabet[c];
        ifs_buf_clear(&k.asked);
        if (!ifs_json_scan_flat(buf, n, flat_member, &k)) continue;
        flats++;
        check_flat_agrees(buf, n, &k, &want, &got);
      }
  }
  ck_assert_uint_gt(flats, 100);
  ifs_buf_free(&want);
  ifs_buf_free(&got);
  ifs_buf_free(&k.asked);
}
END_TEST

/* A plain string's bytes, eight at a time and one by one: in a key or a
** value of every length to 24, every byte at every place is taken when
** printable ASCII (not '"' or '\\'), else the object is not flat; a
** string the input's end cuts off is not taken. */
START_TEST(test_flat_string_bytes) {
  known_log k = {"[]", {0}};
  ifs_buf_init(&k.asked);
  ifs_buf text;
  ifs_buf_init(&text);
  for (int in_value = 0; in_value < 2; in_value++)
    for (size_t len = 1; len <= 24; len++)
      for (size_t at = 0; at < len; at++)
        for (unsigned b = 0; b < 256; b++) {
          char str[24];
          memset(str, 'k', len);
          str[at] = (char)b;
          ifs_buf_clear(&text);
          ifs_buf_append_str(&text, in_value ? "{\"key\": \"" : "{\"");
          ifs_buf_append(&text, str, len);
          ifs_buf_append_str(&text, in_value ? "\"}" : "\": \"value of a key\"}");
          int plain = b >= 0x20 && b < 0x7F && b != '"' && b != '\\';
          ifs_buf_clear(&k.asked);
          ck_assert_msg(ifs_json_scan_flat(text.p, text.len, flat_member, &k) == plain,
                        "byte %02x at %zu of %zu (%s)", b, at, len, in_value ? "value" : "key");
        }
  /* a string cut off by the input's end, and one ended by it */
  for (size_t len = 0; len <= 24; len++)
    for (int closed = 0; closed < 2; closed++) {
      ifs_buf_clear(&text);
      ifs_buf_append_str(&text, "{\"key\": \"");
      for (size_t j = 0; j < len; j++) ifs_buf_append_char(&text, 'k');
      if (closed) ifs_buf_append_char(&text, '"');
      char *exact = malloc(text.len);   /* a read past its end, the sanitizers see */
      ck_assert_ptr_nonnull(exact);
      memcpy(exact, text.p, text.len);
      ck_assert(!ifs_json_scan_flat(exact, text.len, flat_member, &k));
      free(exact);
      ifs_buf_append_str(&text, closed ? "}" : "\"}");
      ck_assert(ifs_json_scan_flat(text.p, text.len, flat_member, &k));
    }
  ifs_buf_free(&text);
  ifs_buf_free(&k.asked);
}
END_TEST

START_TEST(test_get) {
  static const char doc[] = "{\"a\":1,\"max_words\":2,\"a\\u0000\":3,\"\":4,\"a\":5}";
  ifs_arena a;
  ifs_arena_init(&a);
  ifs_jval *v;
  ck_assert_int_eq(ifs_json_parse(doc, sizeof doc - 1, &a, &v), IFS_OK);
  ck_assert_uint_eq(v->count, 4);
  const ifs_jval *g = ifs_json_get(v, "a", 1);
  ck_assert(g && g->type == IFS_JINT && g->str[0] == '5');
  g = ifs_json_get(v, "max_words", 9);
  ck_assert(g && g->str[0] == '2');
  g = ifs_json_get(v, "a\0", 2);
  ck_assert(g && g->str[0] == '3');
  g = ifs_json_get(v, "", 0);
  ck_assert(g && g->str[0] == '4');
  ck_assert_ptr_null(ifs_json_get(v, "max_word", 8));
  ck_assert_ptr_null(ifs_json_get(v->items[0], "a", 1));   /* not an object */
  ck_assert_ptr_null(ifs_json_get(NULL, "a", 1));
  ifs_arena_free(&a);
}
END_TEST

/* Every allocation of a parse may fail: IFS_NOMEM, nothing leaks (run the
** binary under valgrind with CK_FORK=no), and the next try succeeds. */
static void check_nomem_walk(const char *s, size_t n, const char *want) {
  for (long k = 1;; k++) {
    ifs_arena a;
    ifs_arena_init(&a);
    ifs_jval *v = NULL;
    ifs_test_fail_nth(k);
    int rc = ifs_json_parse(s, n, &a, &v);
    ifs_test_fail_nth(0);
    if (rc == IFS_OK) {
      ifs_buf b;
      ifs_buf_init(&b);
      dump(v, &b);
      ck_assert_buf_eq(&b, want);
      ifs_buf_free(&b);
      ifs_arena_free(&a);
      ck_assert_int_gt(k, 1);
      break;
    }
    ck_assert_int_eq(rc, IFS_NOMEM);
    ifs_arena_free(&a);
  }
}

START_TEST(test_nomem) {
  static const char small[] = "{\"a\":[1,2.5,\"x\\ny\"],\"b\":{},\"a\":null}";
  check_nomem_walk(small, sizeof small - 1, "{s:\"a\":null,s:\"b\":{}}");
  ifs_buf in;
  ifs_buf_init(&in);
  ifs_buf_append_char(&in, '{');
  for (int i = 0; i < 40; i++) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s\"k%d\":[%d]", i ? "," : "", i % 3, i);
    ifs_buf_append_str(&in, tmp);
  }
  ifs_buf_append_char(&in, '}');
  check_nomem_walk(in.p, in.len, "{s:\"k0\":[i:39],s:\"k1\":[i:37],s:\"k2\":[i:38]}");
  ifs_buf_free(&in);
  size_t n;
  char *s = repeat("", "[", 5000, "", &n);
  char *deep = malloc(2 * n);
  memcpy(deep, s, n);
  memset(deep + n, ']', n);
  for (long k = 1;; k++) {   /* validation grows its bit stack past 4096 */
    ifs_test_fail_nth(k);
    ifs_status r = ifs_json_valid(deep, 2 * n);
    ifs_test_fail_nth(0);
    if (r == IFS_OK) break;
    ck_assert_int_eq(r, IFS_NOMEM);
  }
  ifs_arena a;
  for (long k = 1;; k++) {
    ifs_arena_init(&a);
    ifs_jval *v;
    ifs_test_fail_nth(k);
    int rc = ifs_json_parse(deep, 2 * n, &a, &v);
    ifs_test_fail_nth(0);
    ifs_arena_free(&a);
    if (rc == IFS_OK) break;
    ck_assert_int_eq(rc, IFS_NOMEM);
  }
  free(deep);
  free(s);
}
END_TEST

static Suite *json_suite(void) {
  Suite *s = suite_create("ifs_json");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_validity);
  tcase_add_test(tc, test_values);
  tcase_add_test(tc, test_float_rounding);
  tcase_add_test(tc, test_int_digit_limit);
  tcase_add_test(tc, test_nul);
  tcase_add_test(tc, test_hex_escapes);
  tcase_add_test(tc, test_string_scan);
  tcase_add_test(tc, test_duplicates_large);
  tcase_add_test(tc, test_big_containers);
  tcase_add_test(tc, test_large_input);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_get);
  tcase_add_test(tc, test_known_arrays);
  tcase_add_test(tc, test_flat_objects);
  tcase_add_test(tc, test_flat_string_bytes);
  tcase_add_test(tc, test_nomem);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(json_suite)
