"""regex_diff.py — differential test of the regex dialect against Python.

    /usr/bin/python3 tests/regex_diff.py [COUNT] [--seed N] [--show N]

Grows COUNT distinct random patterns (default 50000) from both dialects' grammars —
Python's re (valid and broken on purpose) and PCRE2/Perl constructs that
Python rejects — runs each on random subjects full of traps (Unicode
digits, the whitespace where the dialects differ, line ends, case pairs,
surrogates and invalid bytes), and compares build/ifscore.so with
CPython's re.search: through if_reason(response, '{"regex": pattern}'),
valid/invalid and match/no-match must agree.  The seed comes from the
clock unless given and is printed first.  Exit 1 on any disagreement.

Patterns nested around Python's recursion limit are included (re.search
is called from the third stack frame, as the reference does), and \\N{...}
escapes inside and outside sets: real names in any letter case, aliases,
Hangul syllables, CJK ideographs, named sequences and broken or bogus
names.  Before the random patterns, every name unicodedata.lookup knows
(and a wrong-case or broken variant of each) is tried as ^\\N{name}\\Z on
its character.  A search on which Python takes over 2 s, or on which sre
itself fails (SystemError), is skipped.  Documented residuals are counted,
not failed: an extension answer "match limit exceeded" (PCRE2's own size
limits, such as its 64 KiB code limit for large repeat counts of groups,
or the match budget; the extension calls no other PCRE2 refusal a limit:
a translation PCRE2 rejects for any other reason is a translator bug,
which the extension reports as an invalid pattern and this test as a
disagreement with Python), and possessive repeats of groups with
back-references or conditionals, or where Python's own answer for the
atomic spelling (?>(...)*) of the possessive group repeats equals the
extension's (CPython 3.11.2's possessive-group bugs, fixed in later 3.11
releases, are not reproduced).
"""

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import sys
import time
import unicodedata
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from gen_unicode_names import pua_names   # noqa: E402 (aliases, named sequences)

warnings.simplefilter("ignore")

# Characters on which the dialects disagree, or that sre folds specially.
TRAPS = (
    "\u0661\u0669\uff15\U0001D7D8\u0e53\u00b2\u2155"   # digits, non-decimal numbers
    "\x1c\x1d\x1e\x1f\x85\xa0\u200b\u2028\u2029\u3000\u180e\u1680\t\x0b\x0c\r"
    "\u017f\u212a\u00df\u1e9e\u0130\u0131\u00b5\u03bc\u039c\u03a3\u03c3\u03c2"
    "\u01c4\u01c5\u01c6\ufb05\ufb06\u0345\u03b9\u1fbe\u0390\u1fd3\u1c80\u0432"
    "\U00010400\U00010428\u0149\u02bc\u2126\u03c9\u00c5\u212b\u00e5"
    "\u00e9\u00c9\u00ff\u0178\u1e60\u1e61\u1e9b\u0434\u1c81"
    "_\u00aa\u00ba\u02b0\u0300\u0903\u2160\u2170\u24b6\u24d0"
    "\u012e\u015b\u015d\u0124\u015e\u017c\u0128\u0129\u012a\u012b\u013f\u015c"
    "\u017b\u017d\u0123\u0158\u0169"   # low byte of a metacharacter
)
PLAIN = "aAbBcCsSkKiIxyz019 _-.\n"
SPECIAL = ".^$*+?{}[]()|\\-,:=!<>#PpdwsbBAZz"

ASCII_ESC = "abfnrtvdDsSwWbBAZ"
BAD_ESC = "cCeEgGhHiIjJkKlLmoOpPqQRTXyYz"


NAMED = re.compile(r"\\N\{([^}]*)\}")
POSSESSIVE_GROUP = re.compile(r"\)(?:[*+?]|\{[0-9,]*\})\+")
QUANT = re.compile(r"(?:[*+?]|\{[0-9]*,?[0-9]*\})\+")


def atomic_spelling(p):
    """p with every possessive repeat of a group, (...)Q+, written as the
    atomic group (?>(...)Q) it means; None for verbose patterns (comments
    would need a real parser).  CPython 3.11.2 gets some possessive group
    repeats wrong (fixed in later 3.11 releases) but not their atomic
    spelling, so a disagreement that the atomic spelling removes is that
    bug, which the extension does not reproduce."""
    if re.search(r"\(\?[a-zA-Z]*x", p):
        return None
    opens, starts, ends = [], {}, {}
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":                       # a class: skip to its end
            j = i + 1
            if j < n and p[j] == "^":
                j += 1
            if j < n and p[j] == "]":
                j += 1
            while j < n and p[j] != "]":
                j += 2 if p[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            opens.append(i)
        elif c == ")" and opens:
            start = opens.pop()
            m = QUANT.match(p, i + 1)
            if m:
                starts[start] = starts.get(start, 0) + 1
                ends[m.end() - 1] = True   # the possessive '+'
        i += 1
    if not ends:
        return None
    out = []
    for k, c in enumerate(p):
        out.append("(?>" * starts.get(k, 0))
        out.append(")" if k in ends else c)
    return "".join(out)


def python_atomic(p, s):
    """re.search's answer (1/0) for the atomic spelling of p, or None."""
    q = atomic_spelling(p)
    if q is None:
        return None
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        return 1 if re.search(q, s.decode("utf-8", "surrogateescape")) else 0
    except Exception:                      # Timeout, re.error, sre errors
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class Names:
    """Character names for \\N{...}: those unicodedata.lookup knows, and
    near misses."""

    BOGUS = ["NOPE", "EM  DASH", " EM DASH", "EM DASH ", "EM-DASH", "EMDASH",
             "TANGUT IDEOGRAPH-17000", "CJK UNIFIED IDEOGRAPH-4e00",
             "cjk unified ideograph-4E00", "CJK UNIFIED IDEOGRAPH-4DC0",
             "HANGUL SYLLABLE ga", "hangul syllable GA", "HANGUL SYLLABLE NGA",
             "HANGUL SYLLABLE GAX", "NUSHU CHARACTER-01B170", "U+0041",
             "LATIN\\ SMALL LETTER A", "EM DASH\u00e9", "\u0130", "A" * 300]
    CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x2A6DF),
                  (0x2A700, 0x2B738), (0x2B740, 0x2B81D), (0x2B820, 0x2CEA1),
                  (0x2CEB0, 0x2EBE0), (0x30000, 0x3134A))

    def __init__(self):
        self.table, self.hangul, self.cjk = [], [], []
        for cp in range(0x110000):
            name = unicodedata.name(chr(cp), None)
            if name is None:
                continue
            if name.startswith("HANGUL SYLLABLE "):
                self.hangul.append(name)
            elif name.startswith("CJK UNIFIED IDEOGRAPH-"):
                self.cjk.append(name)
            else:
                self.table.append(name)
        aliases, self.sequences = pua_names()
        self.aliases = sorted(aliases)
        self.cased = [unicodedata.name(c) for c in TRAPS + PLAIN
                      if c.lower() != c.upper() and unicodedata.name(c, None)]

    def any_case(self, rnd, name):
        r = rnd.random()
        if r < 0.5:
            return name
        if r < 0.75:
            return name.lower()
        return "".join(c.swapcase() if rnd.random() < 0.5 else c for c in name)

    def broken(self, rnd, name):
        i = rnd.randrange(len(name) + 1)
        r = rnd.random()
        if r < 0.4:
            return name[:i] + name[i + 1:]
        if r < 0.7:
            return name[:i] + rnd.choice("AZ09 -") + name[i:]
        return name + rnd.choice(["S", " ", "-1", "0"])

    def real(self, rnd):
        """A \\N{...} escape that Python accepts."""
        name = rnd.choice(rnd.choice([self.table, self.cased, self.cased, self.aliases,
                                      self.hangul, self.cjk]))
        if not name.startswith(("HANGUL SYLLABLE ", "CJK UNIFIED IDEOGRAPH-")):
            name = self.any_case(rnd, name)
        return "\\N{" + name + "}"

    def pattern(self, rnd):
        """A valid pattern made of names, alone and in sets, to be matched."""
        items = []
        for _ in range(rnd.randint(1, 4)):
            r = rnd.random()
            if r < 0.5:
                item = self.real(rnd)
            else:
                body = [self.real(rnd) + ("-" + self.real(rnd) if rnd.random() < 0.2 else "")
                        for _ in range(rnd.randint(1, 3))]
                item = "[" + ("^" if rnd.random() < 0.2 else "") + "".join(body) + "]"
            if rnd.random() < 0.3:
                item += rnd.choice(["*", "+", "?", "{2}", "+?"])
            items.append(item)
        flags = rnd.choice(["", "", "(?i)", "(?i)", "(?a)", "(?ai)"])
        return flags + "".join(items)

    def pick(self, rnd):
        """A \\N{...} escape."""
        r = rnd.random()
        if r < 0.3:
            name = self.any_case(rnd, rnd.choice(self.table))
        elif r < 0.45:
            name = self.any_case(rnd, rnd.choice(self.cased))
        elif r < 0.55:
            name = self.any_case(rnd, rnd.choice(self.aliases))
        elif r < 0.62:
            name = rnd.choice(self.hangul)
        elif r < 0.69:
            name = rnd.choice(self.cjk)
        elif r < 0.74:
            name = self.any_case(rnd, rnd.choice(self.sequences))
        elif r < 0.84:
            name = self.broken(rnd, rnd.choice(rnd.choice([self.table, self.aliases,
                                                           self.hangul, self.cjk])))
        else:
            name = rnd.choice(self.BOGUS)
        return "\\N{" + name + "}"

    def every_name(self, rnd):
        """Every name of the table and every alias and Hangul syllable, each
        with a variant in another case or broken; a sample of the CJK
        ideographs, their ranges' ends; the named sequences; bogus names."""
        out = []
        for name in self.table + self.aliases + self.hangul + self.cjk[::97]:
            out.append(name)
            out.append(self.any_case(rnd, name) if rnd.random() < 0.7
                       else self.broken(rnd, name))
        for lo, hi in self.CJK_RANGES:
            for cp in (lo - 1, lo, hi, hi + 1):
                out += ["CJK UNIFIED IDEOGRAPH-%X" % cp, "CJK UNIFIED IDEOGRAPH-%05X" % cp,
                        "CJK UNIFIED IDEOGRAPH-%x" % cp]
        out += self.sequences + [name.lower() for name in self.sequences] + self.BOGUS
        return out


def check_every_name(con, names, rnd):
    """^\\N{name}\\Z on the character the name stands for: valid and matching
    exactly when Python's re compiles it.  Returns (patterns, valid ones,
    disagreements)."""
    cases, bad = [], []
    for name in names.every_name(rnd):
        pattern = "^\\N{%s}\\Z" % name
        try:
            re.compile(pattern)
            cases.append((pattern, unicodedata.lookup(name), 1))
        except Exception:                        # re.error, UnicodeEncodeError
            cases.append((pattern, "x", "invalid"))
    con.execute("CREATE TEMP TABLE names(id INTEGER PRIMARY KEY, r BLOB, c TEXT)")
    con.executemany("INSERT INTO names VALUES (?, ?, ?)",
                    [(i, s.encode("utf-8"), json.dumps({"regex": p}))
                     for i, (p, s, _) in enumerate(cases)])
    for i, reason in con.execute("SELECT id, if_reason(r, c) FROM names ORDER BY id"):
        have = ext_answer(reason.decode("utf-8", "surrogateescape"))
        if have != cases[i][2]:
            bad.append((cases[i][0], cases[i][2], have))
    con.execute("DROP TABLE names")
    return len(cases), sum(1 for c in cases if c[2] == 1), bad


class Gen:
    def __init__(self, rnd, charnames):
        self.r = rnd
        self.groups = 0
        self.names = []
        self.charnames = charnames

    def ch(self):
        r = self.r.random()
        if r < 0.45:
            return self.r.choice(PLAIN)
        if r < 0.85:
            return self.r.choice(TRAPS)
        if r < 0.9:
            return chr(self.r.choice([0xD800, 0xDBFF, 0xDC80, 0xDCFF, 0xDFFF, 0xD7FF, 0xE000, 0x10FFFF]))
        return chr(self.r.randrange(0x20, 0x3000))

    def lit(self):
        c = self.ch()
        if c in ".^$*+?{}[]()|\\" or (c in " #" and self.r.random() < 0.5):
            return "\\" + c
        return c

    def escape(self):
        r = self.r.random()
        if r < 0.35:
            return "\\" + self.r.choice(ASCII_ESC)
        if r < 0.45:
            return "\\x%02x" % self.r.choice([0x41, 0x61, 0x0a, 0x7f, 0xb5, 0xdf, 0xff, 0x1c])
        if r < 0.55:
            return "\\u%04x" % self.r.choice([0x017f, 0x212a, 0x0130, 0x0131, 0x03a3, 0xd800, 0xdc80, 0x2028, 0x00e9])
        if r < 0.6:
            return "\\U%08x" % self.r.choice([0x10400, 0x10428, 0x1d7d8, 0x41, 0x110000, 0x10ffff])
        if r < 0.7:
            return "\\" + self.r.choice(["0", "00", "07", "012", "101", "141", "377", "400", "8", "9", "1", "2", "10", "11", "19", "01", "08"])
        if r < 0.8:
            return "\\" + self.r.choice(BAD_ESC)
        if r < 0.83:
            return self.charnames.pick(self.r)
        if r < 0.85:
            return self.r.choice(["\\N", "\\N{}", "\\N{EM DASH", "\\N\\{EM DASH}", "\\x4", "\\u12", "\\U0001"])
        return "\\" + self.r.choice("-.]^&~ #/'\"\u00e9\u017f")

    def cls(self):
        parts = ["["]
        if self.r.random() < 0.3:
            parts.append("^")
        if self.r.random() < 0.15:
            parts.append("]")
        for _ in range(self.r.randint(0 if len(parts) > 1 else 1, 4)):
            r = self.r.random()
            if r < 0.35:
                c = self.ch()
                parts.append("\\" + c if c in "\\]" else c)
            elif r < 0.55:
                a, b = sorted([self.ch(), self.ch()])
                if self.r.random() < 0.1:
                    a, b = b, a
                a = "\\" + a if a in "\\]^-[" else a
                b = "\\" + b if b in "\\]^-[" else b
                parts.append(a + "-" + b)
            elif r < 0.75:
                parts.append("\\" + self.r.choice("dDwWsSbntx" if self.r.random() < 0.9 else "ABZpP8"))
                if parts[-1] == "\\x":
                    parts[-1] = "\\x41"
            elif r < 0.82:
                parts.append(self.r.choice(["a-z", "A-Z", "0-9", "\\d-z", "a-\\w", "[:alpha:]", "--", "&&", "~~", "||", "\\ud7ff-\\ue000", "\\udc80-\\udcff", "\\U00010000-\\U0010ffff", "\\x00-\\uffff", "\u0100-\u017f", "\u0370-\u03ff", "\u0400-\u04ff"]))
            elif r < 0.86:
                a = self.charnames.pick(self.r)
                if self.r.random() < 0.3:
                    a += "-" + self.charnames.pick(self.r)
                parts.append(a)
            else:
                parts.append(self.r.choice("-^[&.$ "))
        if self.r.random() < 0.95:
            parts.append("]")
        return "".join(parts)

    def quant(self):
        r = self.r.random()
        if r < 0.45:
            q = self.r.choice("*+?")
        elif r < 0.8:
            a = self.r.randint(0, 3)
            b = a + self.r.randint(0, 3)
            q = self.r.choice(["{%d}" % a, "{%d,}" % a, "{,%d}" % b, "{%d,%d}" % (a, b), "{%d,%d}" % (b, a), "{,}", "{}", "{x}", "{1,2", "{ 1}", "{4294967295}", "{4294967294}", "{70000}", "{0,70000}"])
        else:
            q = self.r.choice(["**", "*?", "+?", "??", "*+", "++", "?+", "{1,2}?", "{2}+", "*??", "+*"])
        if self.r.random() < 0.2:
            q += self.r.choice("?+")
        return q

    def group(self, depth):
        r = self.r.random()
        inner = self.alt(depth + 1)
        if r < 0.3:
            self.groups += 1
            return "(" + inner + ")"
        if r < 0.45:
            return "(?:" + inner + ")"
        if r < 0.55:
            self.groups += 1
            name = self.r.choice(["n", "g1", "_x", "\u00e9t\u00e9", "1n", "a-b", "", "\u0661"])
            self.names.append(name)
            return "(?P<%s>%s)" % (name, inner)
        if r < 0.68:
            return "(" + self.r.choice(["?=", "?!", "?<=", "?<!"]) + inner + ")"
        if r < 0.72:
            return "(?>" + inner + ")"
        if r < 0.82:
            fl = self.r.choice(["i", "m", "s", "x", "a", "u", "-i", "i-s", "ia", "L", "t", "-a", "au", "ii", "i-i", "-", ""])
            return "(?" + fl + ":" + inner + ")"
        if r < 0.9:
            ref = self.r.choice([str(self.r.randint(0, self.groups + 1))] + self.names + ["x", " 1 ", "+1", "-1", "1_0", "\u0661"])
            no = "|" + self.alt(depth + 1) if self.r.random() < 0.6 else ""
            if self.r.random() < 0.05:
                no += "|x"
            return "(?(" + ref + ")" + inner + no + ")"
        if r < 0.95:
            return "(?#" + self.r.choice(["c", "a)b", "\\)", "x(y", ""]) + ")"
        return "(" + self.r.choice(["?P", "?P<n", "?<n>", "?'n'", "?|", "*FAIL", "?R", "?1", "?&n", "?C", "?", "?P>n"]) + inner + ")"

    def atom(self, depth):
        r = self.r.random()
        if r < 0.35:
            return self.lit()
        if r < 0.5:
            return self.escape()
        if r < 0.6:
            return self.cls()
        if r < 0.66:
            return self.r.choice([".", "^", "$"])
        if r < 0.71 and self.groups:
            return self.r.choice(["\\%d" % self.r.randint(1, self.groups + 1)] + ["(?P=%s)" % n for n in self.names])
        if r < 0.9 and depth < 4:
            return self.group(depth)
        return self.lit()

    def seq(self, depth):
        out = []
        for _ in range(self.r.randint(0, 4)):
            a = self.atom(depth)
            if self.r.random() < 0.3:
                a += self.quant()
            out.append(a)
        return "".join(out)

    def alt(self, depth):
        parts = [self.seq(depth)]
        while self.r.random() < 0.25:
            parts.append(self.seq(depth))
        return "|".join(parts)

    def pattern(self):
        self.groups = 0
        self.names = []
        p = ""
        if self.r.random() < 0.3:
            p += "(?" + "".join(self.r.sample("imsxauLt", self.r.randint(1, 2))) + ")"
        body = self.alt(0)
        if "x" in p and self.r.random() < 0.7:
            body = " ".join(body) + self.r.choice(["", " # comment", "#x\n"])
        p += body
        if self.r.random() < 0.05:
            p += self.r.choice(["(?i)", "(?x)", "\\", ")", "("])
        return p


PCRE_SNIPPETS = [
    r"\p{L}", r"\P{Lu}", r"\pL", r"\h", r"\H", r"\R", r"\K", r"\Qa.b\E", r"\e", r"\cA",
    r"\G", r"\X", r"\C", r"\o{101}", r"\g{1}", r"\g1", r"\g<1>", r"\k<n>", r"\k'n'",
    r"\k{n}", r"(?<n>x)", r"(?'n'x)", r"(?|a|b)", r"(*FAIL)", r"(*SKIP)", r"(?R)", r"(?1)",
    r"(?&n)", r"(?C1)", r"[[:alpha:]]", r"[[:^digit:]]", r"\z", r"a(?i)b", r"(?U)a*",
    r"(?J)", r"(?n)", r"(?^)", r"\x{41}", r"\N{U+0041}", r"\u{41}", r"a{,}", r"(?-x)",
    r"[\p{L}]", r"\b{wb}", r"(?=a)*", r"(?<=a+)", r"(?<=a|bc)", r"(?<=\d{2})", r"\l", r"\L",
    r"\U", r"\u", r"(?*a)", r"(*pla:a)", r"(?x)a #b", r"[a-\d]", r"[\w-z]", r"\8", r"\0",
]


def pcre_pattern(rnd, gen):
    parts = []
    for _ in range(rnd.randint(1, 3)):
        if rnd.random() < 0.5:
            parts.append(rnd.choice(PCRE_SNIPPETS))
        else:
            parts.append(gen.seq(1))
    return "".join(parts)


def mutate(rnd, p):
    p = list(p)
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        pos = rnd.randint(0, len(p))
        if op < 0.5:
            p.insert(pos, rnd.choice(SPECIAL))
        elif p and op < 0.8:
            del p[min(pos, len(p) - 1)]
        else:
            p.insert(pos, rnd.choice(TRAPS))
    return "".join(p)


def subject_bytes(rnd, pattern):
    """Random subject bytes (as SQLite would hold them)."""
    chars = [c for c in pattern if c not in "\\()[]{}?*+|^$"] or ["a"]
    named = []                               # what \N{...} names, mostly
    for m in NAMED.finditer(pattern):
        try:
            named += unicodedata.lookup(m.group(1))
        except (KeyError, UnicodeEncodeError):     # a surrogate in the name
            pass
    if named and rnd.random() < 0.8:
        chars = named
    out = []
    for _ in range(rnd.randint(0, 12)):
        r = rnd.random()
        if r < 0.4:
            c = rnd.choice(chars)
            if rnd.random() < 0.3:
                c = rnd.choice([c.upper(), c.lower(), c.swapcase()])
            out.append(c)
        elif r < 0.7:
            out.append(rnd.choice(TRAPS))
        elif r < 0.9:
            out.append(rnd.choice(PLAIN))
        else:
            out.append(chr(rnd.choice([0xDC80, 0xDCFF, 0xDCED, 0xDCA0])))   # invalid bytes
    s = "".join(out)
    if rnd.random() < 0.2:
        s += "\n"
    if rnd.random() < 0.05:
        s = ""
    return b"".join(c.encode("utf-8", "surrogateescape") if not 0xD800 <= ord(c) <= 0xDFFF
                    or 0xDC80 <= ord(c) <= 0xDCFF else c.encode("utf-8", "surrogatepass")
                    for c in s)


DEEP = {   # nesting constructs, and the depth where Python 3.11 gives up
    "(%s)": 494, "(?:%s)": 494, "(?=%s)": 494, "(?<=%s)": 494, "(?>%s)": 494,
    "(?i:%s)": 494, "(a|%s)": 494, "(?P<n%%d>%s)": 494,
}
INNER = ["a", r"\x41", r"\101", "[a-c\\d]", "[\\x41]", "a*", "a{2}", "a{x", "(?#x)", ""]


def deep_cases():
    """Patterns nested around Python's recursion limit (RecursionError is
    an invalid pattern)."""
    out = []
    for shape, limit in DEEP.items():
        for inner in INNER:
            for d in range(limit - 1, limit + 2):
                p = inner
                for k in range(d):
                    p = shape.replace("%%d", str(k)) % p if "%%d" in shape else shape % p
                out.append((p, b"aaa"))
    for d in (987, 988, 989, 990):
        out.append(("(a)" + "(?(1)" * d + "a" + ")" * d, b"aa"))
    return out


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def ext_answer(reason):
    if reason == "all 1 constraints satisfied":
        return 1
    if reason.endswith("/ (invalid pattern)"):
        return "invalid"
    if reason.endswith("/ (match limit exceeded)"):
        return "limit"
    if reason.startswith("0/1 satisfied; failed: regex /"):
        return 0
    return "?" + reason


def run(count, seed, show):
    rnd = random.Random(seed)
    con = sqlite3.connect(":memory:")
    con.text_factory = bytes
    con.enable_load_extension(True)
    con.load_extension(os.path.join(ROOT, "build", "ifscore"))
    signal.signal(signal.SIGALRM, on_alarm)
    t0 = time.time()
    names = Names()
    gen = Gen(rnd, names)
    ntried, nvalid, name_bad = check_every_name(con, names, random.Random(seed))
    print("regex_diff: every character name: %d patterns (%d valid), %d disagreements; %.1fs"
          % (ntried, nvalid, len(name_bad), time.time() - t0), flush=True)
    for p, want, have in name_bad[:show]:
        print("  MISMATCH pattern=%a python=%s extension=%s" % (p, want, have))
    cases = deep_cases()
    distinct = set()
    while len(distinct) < count:
        r = rnd.random()
        if r < 0.05:
            p = names.pattern(rnd)
        elif r < 0.7:
            p = gen.pattern()
        elif r < 0.85:
            p = pcre_pattern(rnd, gen)
        else:
            p = mutate(rnd, gen.pattern())
        if not p:
            p = "a"
        # what the reference sees after json.loads (surrogate pairs join)
        p = json.loads(json.dumps(p))
        distinct.add(p)
        for _ in range(rnd.randint(1, 4)):
            cases.append((p, subject_bytes(rnd, p)))
    t0 = time.time()
    expected = []
    skipped = set()
    for p, s in cases:
        if p in skipped:
            expected.append(None)
            continue
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        try:
            # re.search from the third frame (module, main, run), as the
            # reference calls it: Python's recursion limit depends on it.
            try:
                compiled = re.compile(p)
            except Timeout:
                raise
            except Exception:
                compiled = None
            if compiled is None:
                want = "invalid"
            else:
                try:
                    want = 1 if compiled.search(s.decode("utf-8", "surrogateescape")) else 0
                except Timeout:
                    raise
                except Exception:       # sre's own internal errors (SystemError)
                    want = None
                    skipped.add(p)
            expected.append(want)
        except Timeout:
            skipped.add(p)
            expected.append(None)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    t1 = time.time()
    con.execute("CREATE TEMP TABLE t(id INTEGER PRIMARY KEY, r BLOB, c TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)",
                    [(i, s, json.dumps({"regex": p})) for i, (p, s) in enumerate(cases)])
    got = [None] * len(cases)
    for i, reason in con.execute("SELECT id, if_reason(r, c) FROM t ORDER BY id"):
        got[i] = ext_answer(reason.decode("utf-8", "surrogateescape"))
    t2 = time.time()
    bad = []
    residual = {"limit": 0, "possessive": 0}
    stats = {"invalid": 0, 1: 0, 0: 0}
    for (p, s), want, have in zip(cases, expected, got):
        if want is None:
            continue
        stats[want] += 1
        if want == have:
            continue
        if have == "limit":
            residual["limit"] += 1      # PCRE2's size limits or the match budget
        elif POSSESSIVE_GROUP.search(p) and re.search(r"\\[1-9]|\(\?\(|\(\?P=", p):
            residual["possessive"] += 1  # CPython 3.11.2's possessive-group capture bug
        elif POSSESSIVE_GROUP.search(p) and python_atomic(p, s) == have:
            residual["possessive"] += 1  # the same bug: Python's atomic spelling agrees
        else:
            bad.append((p, s, want, have))
    limits = residual["limit"]
    npat = len({p for p, _ in cases})
    print("regex_diff: %d patterns, %d searches (%d invalid, %d match, %d no match), "
          "%d skipped (slow in Python, or sre failed), %d limit; python %.1fs, extension %.1fs"
          % (npat, len(cases), stats["invalid"], stats[1], stats[0], len(skipped),
             limits, t1 - t0, t2 - t1))
    seen = set()
    shown = 0
    for p, s, want, have in bad:
        if p in seen:
            continue
        seen.add(p)
        if shown < show:
            print("  MISMATCH pattern=%a subject=%a python=%s extension=%s" % (p, s, want, have))
            shown += 1
    named = [(p, want) for (p, _), want in zip(cases, expected) if want is not None and "\\N" in p]
    print("regex_diff: %d searches with \\N (%d invalid, %d match, %d no match)"
          % (len(named), sum(1 for _, w in named if w == "invalid"),
             sum(1 for _, w in named if w == 1), sum(1 for _, w in named if w == 0)))
    print("regex_diff: documented residuals: %d over PCRE2's "
          "limits (Python answered), %d possessive group repeats "
          "(CPython 3.11.2 bug)" % (residual["limit"], residual["possessive"]))
    print("regex_diff: %d disagreements (%d patterns)" % (len(bad) + len(name_bad),
                                                          len(seen) + len(name_bad)))
    return 1 if bad or name_bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("count", nargs="?", type=int, default=50000,
                    help="distinct random patterns to grow (default 50000)")
    ap.add_argument("--seed", type=int, help="the random seed (default: from the clock)")
    ap.add_argument("--show", type=int, default=30, help="disagreements to print (default 30)")
    args = ap.parse_args()
    count, seed, show = args.count, args.seed, args.show
    if seed is None:
        seed = int(time.time() * 1000) % 1000000007
    print("regex_diff: seed %d" % seed, flush=True)
    sys.setrecursionlimit(1000)
    return run(count, seed, show)


if __name__ == "__main__":
    sys.exit(main())
