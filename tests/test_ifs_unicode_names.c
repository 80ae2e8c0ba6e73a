/* Unit tests for ext/ifs_unicode_names.c: each rule of unicodedata.lookup
** as re's \N{...} uses it (values from CPython 3.11.2, Unicode 14.0).
** tests/regex_diff.py checks every name against Python through re. */
#include "ifs_unicode_names.h"
#include "ifs_test.h"

/* The code point of n code points, -1 for IFS_INVALID. */
static int32_t look_cps(const uint32_t *name, size_t n) {
  uint32_t cp = 0xFFFFFFFF;
  ifs_status rc = ifs_uname_lookup(name, n, &cp);
  ck_assert(rc == IFS_OK || rc == IFS_INVALID);
  ck_assert(rc == IFS_OK || cp == 0xFFFFFFFF);    /* untouched when invalid */
  return rc == IFS_OK ? (int32_t)cp : -1;
}

/* The same for an ASCII C string. */
static int32_t look(const char *s) {
  uint32_t cps[256];
  size_t n = strlen(s);
  ck_assert_uint_le(n, 256);
  for (size_t i = 0; i < n; i++) cps[i] = (unsigned char)s[i];
  return look_cps(cps, n);
}

#define FOUND(name, cp) ck_assert_msg(look(name) == (cp), "%s: got %d want %d", \
                                      name, (int)look(name), (int)(cp))
#define MISSING(name) FOUND(name, -1)

START_TEST(table_names) {
  FOUND("EM DASH", 0x2014);
  FOUND("NO-BREAK SPACE", 0xA0);
  FOUND("SPACE", 0x20);
  FOUND("DIGIT ZERO", 0x30);
  FOUND("LATIN SMALL LETTER A", 0x61);
  FOUND("LATIN SMALL LETTER A WITH GRAVE", 0xE0);
  FOUND("LATIN SMALL LETTER SHARP S", 0xDF);
  FOUND("GREEK SMALL LETTER FINAL SIGMA", 0x3C2);
  FOUND("EMPTY SET", 0x2205);
  FOUND("BYZANTINE MUSICAL SYMBOL FHTORA SKLIRON CHROMA VASIS", 0x1D0C5);
  FOUND("TANGUT COMPONENT-768", 0x18AFF);
  FOUND("BRAILLE PATTERN DOTS-12345678", 0x28FF);
  FOUND("ARABIC LIGATURE UIGHUR KIRGHIZ YEH WITH HAMZA ABOVE WITH ALEF MAKSURA "
        "ISOLATED FORM", 0xFBF9);
  /* one of the longest names (88 characters, 15 words) */
  FOUND("BOX DRAWINGS LIGHT DIAGONAL UPPER CENTRE TO MIDDLE LEFT AND MIDDLE RIGHT "
        "TO LOWER CENTRE", 0x1FBA8);
}
END_TEST

START_TEST(any_letter_case) {
  FOUND("em dash", 0x2014);
  FOUND("Em Dash", 0x2014);
  FOUND("eM dAsH", 0x2014);
  FOUND("latin capital letter a", 0x41);
  FOUND("no-break space", 0xA0);
  FOUND("tangut component-768", 0x18AFF);
}
END_TEST

START_TEST(aliases) {
  FOUND("NBSP", 0xA0);
  FOUND("nbsp", 0xA0);
  FOUND("LINE FEED", 0x0A);
  FOUND("line feed", 0x0A);
  FOUND("ZWNJ", 0x200C);
  FOUND("ZWJ", 0x200D);
  FOUND("NULL", 0);
  FOUND("NUL", 0);
  FOUND("SP", 0x20);
  FOUND("END OF TRANSMISSION", 4);
  FOUND("BYTE ORDER MARK", 0xFEFF);
  FOUND("VS256", 0xE01EF);
}
END_TEST

START_TEST(hangul_syllables) {
  FOUND("HANGUL SYLLABLE GA", 0xAC00);
  FOUND("HANGUL SYLLABLE A", 0xC544);        /* leading IEUNG is empty */
  FOUND("HANGUL SYLLABLE HIH", 0xD7A3);
  FOUND("HANGUL SYLLABLE GAGG", 0xAC02);     /* the longest final */
  FOUND("HANGUL SYLLABLE SSANG", 0xC30D);
  MISSING("hangul syllable GA");             /* exact case only */
  MISSING("Hangul Syllable GA");
  MISSING("HANGUL SYLLABLE ga");
  MISSING("HANGUL SYLLABLE ");
  MISSING("HANGUL SYLLABLE");
  MISSING("HANGUL SYLLABLE GAX");
  MISSING("HANGUL SYLLABLE NGA");            /* N, then no vowel G...: greedy */
  MISSING("HANGUL SYLLABLE G");
  MISSING("HANGUL SYLLABLE  GA");
}
END_TEST

START_TEST(unified_ideographs) {
  FOUND("CJK UNIFIED IDEOGRAPH-4E00", 0x4E00);
  FOUND("CJK UNIFIED IDEOGRAPH-04E00", 0x4E00);   /* 5 digits, leading zero */
  FOUND("CJK UNIFIED IDEOGRAPH-3400", 0x3400);
  FOUND("CJK UNIFIED IDEOGRAPH-4DBF", 0x4DBF);
  FOUND("CJK UNIFIED IDEOGRAPH-9FFF", 0x9FFF);
  FOUND("CJK UNIFIED IDEOGRAPH-2A6DF", 0x2A6DF);
  FOUND("CJK UNIFIED IDEOGRAPH-3134A", 0x3134A);
  MISSING("CJK UNIFIED IDEOGRAPH-4DC0");
  MISSING("CJK UNIFIED IDEOGRAPH-2A6E0");
  MISSING("CJK UNIFIED IDEOGRAPH-3134B");
  MISSING("CJK UNIFIED IDEOGRAPH-4e00");     /* uppercase hex only */
  MISSING("cjk unified ideograph-4E00");     /* exact case only */
  MISSING("CJK UNIFIED IDEOGRAPH-4E0");
  MISSING("CJK UNIFIED IDEOGRAPH-004E00");
  MISSING("CJK UNIFIED IDEOGRAPH-");
  MISSING("CJK UNIFIED IDEOGRAPH-4E00 ");
}
END_TEST

START_TEST(hex_families) {
  FOUND("CJK COMPATIBILITY IDEOGRAPH-F900", 0xF900);
  FOUND("cjk compatibility ideograph-f900", 0xF900);   /* any case here */
  FOUND("CJK COMPATIBILITY IDEOGRAPH-2FA1D", 0x2FA1D);
  FOUND("KHITAN SMALL SCRIPT CHARACTER-18B00", 0x18B00);
  FOUND("KHITAN SMALL SCRIPT CHARACTER-18CD5", 0x18CD5);
  FOUND("NUSHU CHARACTER-1B170", 0x1B170);
  FOUND("nushu character-1b2fb", 0x1B2FB);
  MISSING("CJK COMPATIBILITY IDEOGRAPH-FA6E");     /* a gap */
  MISSING("CJK COMPATIBILITY IDEOGRAPH-0F900");    /* no leading zero */
  MISSING("NUSHU CHARACTER-1B2FC");
  MISSING("NUSHU CHARACTER-18B00");                /* another family's */
  MISSING("NUSHU CHARACTER-");
  MISSING("NUSHU CHARACTER-1B170G");
  MISSING("TANGUT IDEOGRAPH-17000");               /* unnamed in 3.11 */
}
END_TEST

START_TEST(named_sequences) {
  MISSING("LATIN CAPITAL LETTER A WITH MACRON AND GRAVE");
  MISSING("KEYCAP NUMBER SIGN");
  MISSING("keycap number sign");
}
END_TEST

START_TEST(unknown_names) {
  MISSING("");
  MISSING("A");
  MISSING("NOPE");
  MISSING("EM  DASH");
  MISSING(" EM DASH");
  MISSING("EM DASH ");
  MISSING("EM-DASH");
  MISSING("DASH EM");
  MISSING("EM");
  MISSING("EM DASH A");
  MISSING("LATIN SMALL LETTER");
  MISSING("EM\tDASH");
  MISSING("EM_DASH");
  MISSING("EM DASH\\");
  /* longer than any name */
  MISSING("BOX DRAWINGS LIGHT DIAGONAL UPPER CENTRE TO MIDDLE LEFT AND MIDDLE RIGHT "
          "TO LOWER CENTRES");
  char longname[200];
  memset(longname, 'A', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  MISSING(longname);
  /* not ASCII letters, digits, spaces, hyphens: U+0130, KELVIN SIGN, NUL,
  ** a surrogate (Python raises UnicodeEncodeError: also invalid) */
  const uint32_t dotted[] = { 'E', 'M', ' ', 'D', 'A', 'S', 'H', 0x130 };
  ck_assert_int_eq(look_cps(dotted, 8), -1);
  const uint32_t kelvin[] = { 'S', 'P', 'A', 'C', 0x212A };
  ck_assert_int_eq(look_cps(kelvin, 5), -1);
  const uint32_t nul[] = { 'E', 'M', 0, 'D', 'A', 'S', 'H' };
  ck_assert_int_eq(look_cps(nul, 7), -1);
  const uint32_t sur[] = { 'S', 'P', 0xDC80 };
  ck_assert_int_eq(look_cps(sur, 3), -1);
  const uint32_t sp[] = { 'S', 'P' };
  ck_assert_int_eq(look_cps(sp, 2), 0x20);
  ck_assert_int_eq(look_cps(sp, 0), -1);
}
END_TEST

static Suite *names_suite(void) {
  Suite *s = suite_create("ifs_unicode_names");
  TCase *tc = tcase_create("lookup");
  tcase_add_test(tc, table_names);
  tcase_add_test(tc, any_letter_case);
  tcase_add_test(tc, aliases);
  tcase_add_test(tc, hangul_syllables);
  tcase_add_test(tc, unified_ideographs);
  tcase_add_test(tc, hex_families);
  tcase_add_test(tc, named_sequences);
  tcase_add_test(tc, unknown_names);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(names_suite)
