#!/usr/bin/python3
"""gen_regex_tables.py — writes ext/ifs_regex_tables.h from CPython 3.11.

The regex translator (ext/ifs_regex.c) reproduces Python's re module on
PCRE2.  The character data it needs is taken from the running Python, so
the C side answers exactly what Python's sre would:

  * the case table: every code point that sre considers cased
    (_sre.unicode_iscased), with sre's simple lowercase (_sre.unicode_tolower)
    and uppercase (first character of str.upper(), which is what
    _PyUnicode_ToUppercase returns), plus whether the point is a word
    character (str.isalnum() or '_'); an index of that table sorted by
    lowercase; and sre's extra case equivalences (re._casefix);
  * Python's \\w (str.isalnum() or '_') as ranges, for the DFA (ifs_redfa.c);
  * the runs of decimal digits (int() accepts any of them);
  * XID_Start / XID_Continue as str.isidentifier() sees them (group names).

It also checks the assumptions the C code makes (Python's \\w and \\d equal
PCRE2 10.42's UCP \\w and \\d, lowercase stays in the BMP, ...) and stops
if one fails.  Run by hand:
    /usr/bin/python3 tools/gen_regex_tables.py > ext/ifs_regex_tables.h
(tests/check_tables.py checks that the committed header is what it prints).
"""
import _sre
import ctypes
import sys
import unicodedata
from re._casefix import _EXTRA_CASES

MAXCP = 0x110000


def ranges(pred):
    out, start = [], None
    for c in range(MAXCP + 1):
        inside = c < MAXCP and pred(c)
        if inside and start is None:
            start = c
        elif not inside and start is not None:
            out.append((start, c - 1))
            start = None
    return out


def upper(c):
    return ord(chr(c).upper()[0])


def isword(c):
    return chr(c).isalnum() or c == 0x5F


def pcre2_set(pattern):
    """The code points (surrogates excluded) that PCRE2 matches."""
    lib = ctypes.CDLL("libpcre2-8.so.0")
    lib.pcre2_compile_8.restype = ctypes.c_void_p
    lib.pcre2_compile_8.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.c_uint32,
                                    ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(ctypes.c_size_t),
                                    ctypes.c_void_p]
    lib.pcre2_match_data_create_from_pattern_8.restype = ctypes.c_void_p
    lib.pcre2_match_data_create_from_pattern_8.argtypes = [ctypes.c_void_p,
                                                           ctypes.c_void_p]
    lib.pcre2_match_8.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                  ctypes.c_size_t, ctypes.c_size_t,
                                  ctypes.c_uint32, ctypes.c_void_p,
                                  ctypes.c_void_p]
    utf, ucp, anchored = 0x00080000, 0x00020000, 0x80000000
    err, off = ctypes.c_int(), ctypes.c_size_t()
    pat = pattern.encode()
    code = lib.pcre2_compile_8(pat, len(pat), utf | ucp | anchored,
                               ctypes.byref(err), ctypes.byref(off), None)
    assert code, pattern
    md = lib.pcre2_match_data_create_from_pattern_8(code, None)
    found = set()
    for c in range(MAXCP):
        if 0xD800 <= c <= 0xDFFF:
            continue
        b = chr(c).encode()
        if lib.pcre2_match_8(code, b, len(b), 0, 0, md, None) >= 0:
            found.add(c)
    return found


class Pcre2:
    """Just enough of libpcre2-8 through ctypes to ask what it matches."""

    def __init__(self):
        lib = ctypes.CDLL("libpcre2-8.so.0")
        lib.pcre2_compile_8.restype = ctypes.c_void_p
        lib.pcre2_compile_8.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_uint32,
                                        ctypes.POINTER(ctypes.c_int),
                                        ctypes.POINTER(ctypes.c_size_t),
                                        ctypes.c_void_p]
        lib.pcre2_match_data_create_8.restype = ctypes.c_void_p
        lib.pcre2_match_data_create_8.argtypes = [ctypes.c_uint32, ctypes.c_void_p]
        lib.pcre2_get_ovector_pointer_8.restype = ctypes.POINTER(ctypes.c_size_t)
        lib.pcre2_get_ovector_pointer_8.argtypes = [ctypes.c_void_p]
        lib.pcre2_match_8.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                      ctypes.c_size_t, ctypes.c_size_t,
                                      ctypes.c_uint32, ctypes.c_void_p,
                                      ctypes.c_void_p]
        lib.pcre2_code_free_8.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.md = lib.pcre2_match_data_create_8(1, None)

    def matches_in(self, pattern, chars):
        """The characters of `chars` that the pattern matches."""
        lib = self.lib
        err, off = ctypes.c_int(), ctypes.c_size_t()
        pat = pattern.encode()
        code = lib.pcre2_compile_8(pat, len(pat), 0x00080000 | 0x00020000,
                                   ctypes.byref(err), ctypes.byref(off), None)
        assert code, pattern
        subj = "".join(chars).encode()
        found, start = set(), 0
        while lib.pcre2_match_8(code, subj, len(subj), start, 0, self.md, None) >= 0:
            ov = lib.pcre2_get_ovector_pointer_8(self.md)
            found.add(subj[ov[0]:ov[1]].decode())
            start = ov[1]
        lib.pcre2_code_free_8(code)
        return {ord(c) for c in found}


def python_ignorecase_sets(cased):
    """For each cased c: the characters sre's (?i)c matches, in Unicode and
    in ASCII mode (re._compiler's LITERAL handling)."""
    lower = _sre.unicode_tolower
    by_lower = {}
    for x in range(MAXCP):
        by_lower.setdefault(lower(x), set()).add(x)
    uni, asc = {}, {}
    for c in cased:
        lo = lower(c)
        want = set()
        for f in (lo,) + _EXTRA_CASES.get(lo, ()):
            want |= by_lower.get(f, set())
        uni[c] = want
        if c < 128 and chr(c).isalpha():
            asc[c] = {c, ord(chr(c).swapcase())}
    return uni, asc


def pcre2_agreement(cased):
    """Which cased characters PCRE2's own caseless matching gets exactly as
    Python does: bit 1 in Unicode mode, bit 2 in ASCII mode."""
    pc = Pcre2()
    candidates = sorted(set(cased) | {c for c in range(MAXCP)
                                      if not 0xD800 <= c <= 0xDFFF and
                                      (chr(c).lower() != chr(c) or chr(c).upper() != chr(c)
                                       or chr(c).casefold() != chr(c))})
    cand_chars = [chr(c) for c in candidates]
    uni, asc = python_ignorecase_sets(cased)
    bits = {}
    for c in cased:
        got = pc.matches_in("(?i)\\x{%x}" % c, cand_chars)
        b = 0
        if got == uni[c]:
            b |= 2
        if c in asc and got == asc[c]:
            b |= 4
        bits[c] = b
    return bits


def check(cond, what):
    if not cond:
        sys.exit("gen_regex_tables: assumption failed: " + what)


def verify_assumptions(cased):
    nonsur = [c for c in range(MAXCP) if not 0xD800 <= c <= 0xDFFF]
    check({c for c in nonsur if isword(c)} == pcre2_set(r"\w"),
          "Python \\w == PCRE2 UCP \\w")
    check({c for c in nonsur if chr(c).isdecimal()} == pcre2_set(r"\d"),
          "Python \\d == PCRE2 UCP \\d")
    lower = _sre.unicode_tolower
    for c in range(MAXCP):
        check(_sre.unicode_iscased(c) == (lower(c) != c or upper(c) != c),
              "iscased == (lower != c or upper != c) at %x" % c)
    for c in cased:
        check((c < 0x10000) == (lower(c) < 0x10000), "lower keeps plane %x" % c)
        check(lower(c) == c or _sre.unicode_iscased(lower(c)),
              "lower of cased is cased %x" % c)
        check(isword(c) == isword(lower(c)), "\\w stable under lower %x" % c)
        check(not chr(c).isdecimal() and not chr(lower(c)).isdecimal(),
              "no cased digit %x" % c)
        check(not chr(c).isspace() and not chr(lower(c)).isspace(),
              "no cased space %x" % c)
    for k, vs in _EXTRA_CASES.items():
        check(all(k in _EXTRA_CASES[v] for v in vs), "fixes are symmetric")
        check(k < 0x10000 and all(v < 0x10000 for v in vs) and len(vs) <= 2,
              "fixes are BMP, at most 2")
        check(_sre.unicode_iscased(k) and all(_sre.unicode_iscased(v) for v in vs),
              "fixes are cased")
    for a, b in ranges(lambda c: chr(c).isdecimal()):
        check((b - a + 1) % 10 == 0 and unicodedata.decimal(chr(a)) == 0,
              "digit runs are blocks of ten from zero")
    check(all(ord(c) < 0x80 for c in "_") and "a".isidentifier(), "sanity")


def fmt_rows(items, per_line):
    lines = []
    for i in range(0, len(items), per_line):
        lines.append("  " + ", ".join(items[i:i + per_line]) + ",")
    return "\n".join(lines)


def range_table(name, rs):
    body = fmt_rows(["{0x%X, 0x%X}" % r for r in rs], 5)
    return ("static const uint32_t %s[%d][2] = {\n%s\n};\n"
            % (name, len(rs), body))


def main():
    cased = [c for c in range(MAXCP) if _sre.unicode_iscased(c)]
    verify_assumptions(cased)
    lower = _sre.unicode_tolower
    agree = pcre2_agreement(cased)
    case_rows = ["{0x%X, 0x%X, 0x%X, %d}" % (c, lower(c), upper(c),
                                              (1 if isword(c) else 0) | agree[c])
                 for c in cased]
    by_lower = sorted(range(len(cased)), key=lambda i: (lower(cased[i]), cased[i]))
    fixes = sorted(_EXTRA_CASES.items())
    fix_rows = ["{0x%X, 0x%X, 0x%X}" % (k, v[0], v[1] if len(v) > 1 else 0)
                for k, v in fixes]
    word = ranges(isword)
    digits = ranges(lambda c: chr(c).isdecimal())
    xid_start = ranges(lambda c: chr(c).isidentifier())
    xid_cont = ranges(lambda c: ("a" + chr(c)).isidentifier())

    out = []
    out.append("/*\n** ifs_regex_tables.h — character data for ifs_re_charset.c, "
               "generated by\n** tools/gen_regex_tables.py from Python's data "
               "(Unicode %s).  Do not edit.\n*/"
               % unicodedata.unidata_version)
    out.append("#ifndef IFS_REGEX_TABLES_H\n#define IFS_REGEX_TABLES_H\n"
               "#include <stdint.h>\n")
    out.append("/* Every code point sre calls cased: sre's lowercase, its "
               "uppercase, and\n** flags: 1 word character (no cased point is "
               "a digit or a space),\n** 2 PCRE2's caseless match of it is "
               "Python's (?i), 4 the same for (?ai). */")
    out.append("typedef struct { uint32_t cp, lower, upper; uint8_t flags; } "
               "ifs_re_case_ent;")
    out.append("static const ifs_re_case_ent ifs_re_case[%d] = {\n%s\n};\n"
               % (len(cased), fmt_rows(case_rows, 3)))
    out.append("/* Indices into ifs_re_case ordered by (lower, cp). */")
    out.append("static const uint16_t ifs_re_case_by_lower[%d] = {\n%s\n};\n"
               % (len(by_lower), fmt_rows([str(i) for i in by_lower], 12)))
    out.append("/* sre's extra equivalences (re._casefix): lowercase -> up to "
               "two other\n** lowercase characters with the same uppercase "
               "(0 = none). */")
    out.append("static const uint32_t ifs_re_fixes[%d][3] = {\n%s\n};\n"
               % (len(fix_rows), fmt_rows(fix_rows, 3)))
    out.append("/* Python's \\w in Unicode mode: str.isalnum() or '_'. */")
    out.append(range_table("ifs_re_word", word))
    out.append("/* Decimal digits (\\d, int()): runs of blocks of ten, each "
               "from digit zero. */")
    out.append(range_table("ifs_re_digit", digits))
    out.append("/* str.isidentifier(): first character, then the others. */")
    out.append(range_table("ifs_re_xid_start", xid_start))
    out.append(range_table("ifs_re_xid_continue", xid_cont))
    out.append("#endif")
    sys.stdout.write("\n".join(out) + "\n")
    print("tables: cased", len(cased), "word", len(word),
          "digit", len(digits),
          "xid", len(xid_start), len(xid_cont), file=sys.stderr)


if __name__ == "__main__":
    main()
