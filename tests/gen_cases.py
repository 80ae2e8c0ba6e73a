"""gen_cases.py — an adversarial case generator for the ifscore parity test.

generate(rng, n) returns n (response, constraints) pairs, each bytes or None
(None stands for SQL NULL), built to hit the places where a C port of the
reference goes wrong: Unicode case and whitespace traps, invalid UTF-8,
every JSON type in every constraint key, odd numbers, invalid and non-object
constraint JSON, code fences, deep nesting, needles with case traps, and a
broad (not exotic) set of Python regexes, valid and invalid.

The generator decides nothing about the expected outcome; the oracle does.
Real responses from ../shared/data/ifeval_cases.jsonl serve as bases when
that file is present (never required).  Patterns that backtrack
catastrophically are never produced (the match limit is tested apart).
"""

import json
import os
import re

from oracle import encode_out

SHARED_CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "shared", "data", "ifeval_cases.jsonl")

KNOWN_KEYS = ["max_words", "min_words", "max_chars", "must_be_json",
              "must_include", "must_exclude", "regex"]
UNKNOWN_KEYS = ["input", "Max_words", "MAX_WORDS", "max_words ", " regex",
                "maxwords", "must_include_all", "", "constraints", "regex\x00",
                "mu\u0073t_include", "m\u0430x_words", "score", "Regex",
                "must-include", "min_word", "max_char"]

# ------------------------------------------------------------ alphabets

PY_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
             + "".join(chr(c) for c in range(0x2000, 0x200B))
             + "\u2028\u2029\u202f\u205f\u3000")
NOT_SPACES = "\u200b\u180e\ufeff\u2060\u200c\u200d\x00\x7f\x1b\u00ad"

ASCII_WORDS = ("the quick brown fox jumps over a lazy dog JSON regex Python "
               "SQLite answer yes no maybe Hello World P.S. P.P.S *highlight* "
               "[placeholder] <<title>> Section 1 - bullet I am Dave. Peace! "
               "my answer is yes, you, and thanks. don't can't it's 42 3.14 "
               "1,000 ``` {} [] \"quoted\" 'single' a\\b tab\there").split(" ")

TRAP_WORDS = [
    "\u0130stanbul", "ISTANBUL", "istanbul", "\u0130", "i\u0307", "\u0131",
    "I", "i", "\u0130\u0307", "\u0130\u0130", "D\u0130YARBAKIR",
    # final sigma in its contexts (case-ignorables: ' . : U+00AD U+0301
    # U+0345 U+02B0 U+200D U+E0001, cased: Greek letters, U+02B0, U+0345)
    "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3", "\u03a3", "\u03c3",
    "\u03c2", "\u0391\u03a3", "\u0391\u03a3'", "\u0391\u03a3\u0301\u0392",
    "\u0391\u00ad\u03a3\u00ad", "\u0391\u03a3\u0345", "\u02b0\u03a3",
    "\u03a3\u0391", "1\u03a3", "\u03a3.", "\u0391\u03a3.\u0392",
    "\u0391\u03a3:\u0392", "\u0391\u03a3\u200d", "\u0391\u03a3\U000e0001",
    "\u03a3\u03a3\u03a3", "a'\u03a3'", "\u0391\u03a3\u0345\u0391",
    "\u0345\u03a3", "\u03a3\u0345", "A\u03a3\u2019s", "\u03a3\u00ad",
    "\u1f08\u03a3", "\u03a3\U00010400", "\u0391\u03a3\udc80",
    "\u0391\udcff\u03a3", "\u03a3\udced\udca0\udc80", "\u0130\u0301",
    # German, ligatures, titlecase, Cherokee, Georgian, Armenian, Cyrillic
    "STRASSE", "stra\u00dfe", "STRA\u1e9eE", "\u1e9e", "\u00df",
    "\ufb01nance", "\ufb02ow", "\ufb03", "\ufb06", "\u01c5emal", "\u01c4EMAL",
    "\u01c6", "\u13a0", "\uab70", "\u13e3\u13b3\u13a9", "\u13f8", "\u13f0",
    "\u1c9b\u1c90\u1ca0", "\u10db\u10d0\u10e0", "\u10a0\u10a1", "\u2d00",
    "\u0531\u0550\u0531\u0544", "\u0561\u0580\u0561\u0574", "\u0587",
    "\u0414\u041e\u0411\u0420\u041e", "\u0401\u0436\u0438\u043a", "\u04c0",
    "\u04cf", "\u0390", "\u2126", "\u212a", "\u212b", "\u03f4", "\u2c6f",
    "\ua7b4", "\u1f88", "\u1fbc", "\u0386", "\u01f0", "\u0149", "\u216b",
    "\u24b6", "\U00010400\U00010401", "\U00010428", "\U000104b0",
    "\U0001e900", "\U0001d400", "\U0001f600", "\U0001f44d\U0001f3fd",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f1eb\U0001f1f7",
    "e\u0301", "\u00e9", "\u0644\u0627", "\u05e9\u05dc\u05d5\u05dd",
    # digits of other scripts (int() and \d take them)
    "\u0663", "\u0661\u0662", "\uff11\uff12", "\u07c0", "\u06f1",
    "\u09e6", "\U0001d7ce", "\u00b2", "\u2167",
    # odd ones
    "\x00", "a\x00b", "\ufeff", "\u200b", "\ufffd", "\U0010ffff", "\u0085",
]

# invalid UTF-8: lone continuation bytes, truncated sequences, surrogates,
# overlongs, code points past U+10FFFF, bytes that never occur
BAD_BYTES = [b"\x80", b"\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
             b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xb2\x80", b"\xc0\xaf",
             b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xf5", b"\xfe", b"\xc2",
             b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf8\x88\x80\x80\x80",
             b"\xc1\xbf", b"\xef\xbf", b"\xcc", b"\xce"]

CORPUS_PATTERNS = [
    r"(?im)^\s*P\.P\.S", r"(?im)^\s*P\.S\.",
    r"(?m)(^[ \t]*[*-][ \t].*\n?){3}", r"(?m)(^[ \t]*[*-][ \t].*\n?){1}",
    r'(?s)^\s*".*"\s*$', r"(\*[^\n*]+\*.*?){3}",
    r"(\*[^\n*]+\*.*?){1}", r"(\[[^\]]+\].*?){2}", r"(\[[^\]]+\].*?){5}",
    r"<<[^\n]+>>", r"Call\ me\ at\ 631\-481\-4867\s*\Z",
    r"Does\ this\ make\ sense\?\s*\Z", r"My answer is (yes|no|maybe)",
    r"Peace!\s*\Z", r"\*\*\*", r"\b[A-Z]{2,}\b", r"^[^A-Z]*\Z",
    r"^[^a-z]*\Z", r"in\ India\.\s*\Z", r"your\ love,\ and\ thanks\.\s*\Z",
    r"Is\ there\ anything\ else\ I\ can\ help\ with\?\s*\Z",
]

TEMPLATE_PATTERNS = [
    r"\A", r"\Z", r"^", r"$", r"\A\s*\Z", r"^\s*$", r"\s", r"\S+", r"\d+",
    r"\D", r"\w+", r"\W", r"\bthe\b", r"\Bhe", r"(?m)^\w", r"(?m)\.$",
    r"(?i)HELLO", r"(?i)the\b", r"(?s)^.*$", r"^.*$", r".+\n.+",
    r"(?s)\{.*\}", r"x{,3}", r"a{2,}", r"\d{2,4}", r"[A-Z]{2,}", r"[^a-z]*\Z",
    r"[aeiou]{3}", r"(yes|no|maybe)", r"(cat|dog)s?", r"[\u0400-\u04ff]+",
    r"[\u03b1-\u03c9]", r"\s{2,}", r"\n\n", r"[.!?]\s*\Z", r"^#+ ",
    r"\*\*[^*]+\*\*", r"\[[^\]]*\]", r'"[^"]*"', r"\t", r"\x1c", r"\s\Z",
    r"\S\Z", r"\n\Z", r"x$", r"\.$", r"(?m)^$", r"(?i)[a-z]+", r"\d\Z",
    r"\A\d", r"^\W", r"\w\Z", r"\b\w{5}\b", r"[0-9]", r"[\d\s]+",
    r"[^\s]+", r"[\w.]+@[\w.]+", r"(?:ab)+", r"(a|b)*c", r"colou?r",
    r"\.", r"\\", r"\$", r"\^", r"[$^]", r"a|", r"|", r"()", r"(?:)",
    r"\u0130", r"\u03c3", r"\xdf", r"[\u00e0-\u00ff]", r"\U0001F600",
    r"\x00", r"\0", r"\x80", r"[\x00-\x1f]", r"\v", r"\f",
    r"(?m)(^.*$\n?){2}", r"^(?:\S+\s+){2,}\S+$", r"(?x) a b c  # comment",
    r"(?a)\w+", r"(?i)\u0130", r"(?i)i", r"(?i)\u03c3", r"(?i)\u03a3",
    r"(?i)stra\u00dfe", r"(?i)k", r"(?i)\u212a", r"(?i)\u0131",
    r"(?i)[a-z]{3}", r"(?i)\u0401", r"(?i)\u0451", r"(?<=a)b", r"(?<!a)b",
    r"(?=\w)\W?", r"(?!x).", r"(?P<n>a)(?P=n)", r"(a)\1", r"a*?b",
    r"\d+?\d", r"[-a]", r"[a-]", r"[]a]", r"[^]a]", r"[\]]", r"{", r"}",
    r"a{", r"a{1", r"a{,}", r"{1,2}", r"x{0}", r"x{2}",
]

# Python's re rejects these (some PCRE2 accepts): always "invalid pattern"
INVALID_PATTERNS = [
    r"(?<n>x)", r"\p{L}", r"\h", r"a(?i)b", r"(", r"*a", r"a{3,2}", r"[z-a]",
    r"\z", r"x{4294967296}", r"x{99999999999}", r"(?P<n>a)(?P<n>b)", r")",
    r"[", r"a**", r"+", r"?", r"\k<n>", r"(?P=n)", r"\1", r"(a)\2", r"\c",
    r"\e", r"\u12", r"\U0011FFFF", r"\x", r"(?<=a+)b", r"(?z)", r"(?",
    r"\Q", r"\E", r"[\d-z]", r"(?i", r"(?#unterminated", r"\8", r"\N",
    r"\N{NOT A NAME}", r"(?P<1>x)", r"a{,3}{", r"\g<0>", r"(?<=a|bc)x",
    r"x++)", r"\X", r"\R", r"\K", r"\G", r"\Y",
]

INT_FORMS = ["plain"] * 8 + ["rfloat", "rfloat", "float", "exp", "string", "ustring",
             "bool", "null", "special", "array", "object", "bigint", "neg"]

DIGIT_SETS = [range(0x30, 0x3A), range(0x660, 0x66A), range(0xFF10, 0xFF1A),
              range(0x6F0, 0x6FA), range(0x966, 0x970), range(0x1D7CE, 0x1D7D8),
              range(0x7C0, 0x7CA)]


# ---------------------------------------------------------- JSON writing

class Raw:
    """Literal JSON text, written as is."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Obj:
    """A JSON object as a list of (key, value) pairs (duplicates allowed)."""
    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n",
          "\r": "\\r", "\t": "\\t"}


def _uesc(rng, cp):
    h = "%04x" % cp
    return "\\u" + (h.upper() if rng.random() < 0.3 else h)


def jstr(rng, s, mode=None):
    """A JSON string literal for s, escapes chosen at random."""
    mode = mode or rng.choice(["raw", "raw", "raw", "ascii", "mixed"])
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if ch in _SHORT and (cp >= 0x20 or rng.random() < 0.7):
            out.append(_SHORT[ch])
        elif cp < 0x20:
            out.append(_uesc(rng, cp))
        elif 0xD800 <= cp <= 0xDFFF and not (0xDC80 <= cp <= 0xDCFF
                                             and rng.random() < 0.5):
            out.append(_uesc(rng, cp))       # lone surrogate: escape
        elif ch == "/" and rng.random() < 0.3:
            out.append("\\/")
        elif (mode == "ascii" and cp > 0x7E) or (mode == "mixed"
                                                 and rng.random() < 0.3):
            if cp > 0xFFFF:
                v = cp - 0x10000
                out.append(_uesc(rng, 0xD800 + (v >> 10)))
                out.append(_uesc(rng, 0xDC00 + (v & 0x3FF)))
            else:
                out.append(_uesc(rng, cp))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _ws(rng):
    r = rng.random()
    if r < 0.6:
        return ""
    return rng.choice([" ", " ", "\n", "\t", "\r\n", "  ", "\n  "])


def jdump(rng, v):
    """JSON text of v (None/bool/int/float/str/list/Obj/dict/Raw)."""
    if isinstance(v, Raw):
        return v.text
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "NaN"
        if v in (float("inf"), float("-inf")):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, str):
        return jstr(rng, v)
    if isinstance(v, list):
        items = [_ws(rng) + jdump(rng, x) + _ws(rng) for x in v]
        return "[" + ",".join(items) + "]" if items else "[" + _ws(rng) + "]"
    if isinstance(v, dict):
        v = Obj(list(v.items()))
    if isinstance(v, Obj):
        items = [_ws(rng) + (k.text if isinstance(k, Raw) else jstr(rng, k))
                 + _ws(rng) + ":" + _ws(rng) + jdump(rng, x) + _ws(rng)
                 for k, x in v.pairs]
        return "{" + ",".join(items) + "}" if items else "{" + _ws(rng) + "}"
    raise TypeError(type(v))


def to_bytes(s):
    """Text -> bytes: U+DC80..U+DCFF become raw bytes, other surrogates
    their 3-byte form (so both kinds of odd input reach the extension)."""
    return encode_out(s)


def dec(b):
    return b.decode("utf-8", "surrogateescape")


# ------------------------------------------------------------- corpus

def load_corpus(path=SHARED_CORPUS):
    """(responses, patterns, constraints) from the shared corpus, or None."""
    try:
        with open(path, encoding="utf-8", errors="surrogatepass") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except OSError:
        return None
    responses = [r.get("response") or "" for r in rows]
    patterns = sorted({r["constraints"]["regex"] for r in rows
                       if isinstance(r.get("constraints"), dict)
                       and isinstance(r["constraints"].get("regex"), str)})
    constraints = [r.get("constraints") for r in rows]
    return {"responses": responses, "patterns": patterns,
            "constraints": constraints}


# ------------------------------------------------------------ responses

def rand_cp(rng):
    r = rng.random()
    if r < 0.3:
        return chr(rng.randrange(0x20, 0x7F))
    if r < 0.5:
        return chr(rng.randrange(0xA0, 0x600))
    if r < 0.7:
        return chr(rng.randrange(0x1000, 0x3100))
    if r < 0.8:
        return rng.choice(PY_SPACES + NOT_SPACES)
    if r < 0.9:
        return chr(rng.randrange(0x10000, 0x20000))
    if r < 0.95:
        return chr(rng.randrange(0xD800, 0xE000))   # becomes odd bytes
    return chr(rng.randrange(0x110000))


def rand_word(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(ASCII_WORDS)
    if r < 0.85:
        return rng.choice(TRAP_WORDS)
    if r < 0.95:
        return "".join(rand_cp(rng) for _ in range(rng.randrange(1, 6)))
    return str(rng.choice([0, -1, 12, 10 ** 20, 3.5, 1e16]))


def rand_sep(rng):
    r = rng.random()
    if r < 0.7:
        return " "
    if r < 0.85:
        return rng.choice(["\n", "\n\n", "  ", "\t", " \n", "\r\n", "\r"])
    if r < 0.95:
        return rng.choice(PY_SPACES)
    return rng.choice(NOT_SPACES)     # glues two words into one


def word_text(rng, nwords):
    parts = []
    for k in range(nwords):
        if k:
            parts.append(rand_sep(rng))
        parts.append(rand_word(rng))
    if rng.random() < 0.2:
        parts.insert(0, rng.choice(PY_SPACES + NOT_SPACES))
    if rng.random() < 0.3:
        parts.append(rng.choice(["\n", " ", "\n\n", "\u3000", "\x85", "."]))
    return "".join(parts)


def rand_json_value(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.45:
        return rng.choice([
            None, True, False, 0, -0.0, 1, -17, 10 ** 30, 3.25, 1e-7, 1e300,
            float("nan"), float("inf"), float("-inf"), "", "text",
            "\u0130\u03a3", "line\nbreak", "q\"uote", "back\\slash",
            "\x00\x1f", "\ud800", "\udc80", "\ud83d\ude00", "\U0001f600",
            Raw("-0"), Raw("1E2"), Raw("1e+2"), Raw("0.0e-0"), Raw("1" * 30),
            Raw("-1.5e-3"), Raw("1e400")])
    if r < 0.75:
        return [rand_json_value(rng, depth + 1)
                for _ in range(rng.randrange(0, 4))]
    return Obj([(rng.choice(["a", "b", "", "\u00e9", "a"]),
                 rand_json_value(rng, depth + 1))
                for _ in range(rng.randrange(0, 4))])


def json_text(rng):
    """JSON-ish response text: valid JSON, often fenced, sometimes broken."""
    t = jdump(rng, rand_json_value(rng))
    r = rng.random()
    if r < 0.25:
        t = rng.choice([
            "NaN", "-Infinity", "Infinity", "nan", "-0", "1.", ".5", "+1",
            "01", "1e5", "1E+5", "1e", "[1,]", "{'a': 1}", '{"a":1,}',
            '"\t"', '"\\ud800"', '"\\u12"', "[1] [2]", "\ufeff{}", "{}\ufeff",
            '{"a" : 1}', "[\x0c1]", "[\xa01]", "//c\n1", "true", "tru",
            "null", "None", '"a"', "'a'", "", " ", "[" * 5 + "]" * 5,
            "1" * 4300, "1" * 4301, "-" + "1" * 4300, "1" * 4301 + ".0",
            "1" * 4301 + "e0", '{"a":1, "a":2}', '"\udc80"', '["\x85"]',
            '[1,\n2]', '[1,\r\n2]', "[1\u20282]", '"\\/"', '"\\x"',
            '"\\ud800\\udc00"', '"\\uDBFF\\uDFFF"', '"\\udc00\\ud800"',
            '"```"', '{"code": "```js\\nx\\n```"}', '["`", "``", "```json"]'])
    fence = rng.random()
    if fence < 0.4:
        tag = rng.choice(["json", "JSON", "", "", "js0n", "json5", "jsonc",
                          "json_", " json", "json-x", "\u00e9", "Json"])
        lead = rng.choice(["\n", "", " ", "\t", "\n\n", "\u3000", "\u2003",
                           "\x85", "\u200b", "\r\n"])
        trail = rng.choice(["\n", "", " ", "\u00a0", "\u2029", "\u200b"])
        t = "```" + tag + lead + t + trail + "```"
    elif fence < 0.5:
        t = rng.choice([
            "```" + t, t + "```", "``" + t + "``", "````" + t + "````",
            "~~~" + t + "~~~", "```json\n" + t + "\n```\ntrailing",
            "Here:\n```json\n" + t + "\n```", "```json\n" + t + "\n``` ```",
            "```json\n```" + t + "```\n```", "```\n```", "```", "``````",
            "```json", "```json```", "``` ```", "```\n" + t + "\n````"])
    if rng.random() < 0.3:
        t = rng.choice(["", " ", "\n", "\u3000", "\x1c", "\u00a0", "\ufeff"]) \
            + t + rng.choice(["", " ", "\n", "\u2028", "\u200b", "\x85"])
    return t


def corpus_text(rng, corpus):
    t = rng.choice(corpus["responses"])
    r = rng.random()
    if r < 0.15 and t:
        a = rng.randrange(len(t))
        t = t[a:a + rng.randrange(1, 400)]
    elif r < 0.35:
        pos = rng.randrange(len(t) + 1)
        t = t[:pos] + rand_sep(rng) + rand_word(rng) + rand_sep(rng) + t[pos:]
    return t


def response_text(rng, corpus, long_ok=True):
    r = rng.random()
    if corpus and r < 0.3:
        return corpus_text(rng, corpus)
    if r < 0.65:
        return word_text(rng, rng.choice([0, 1, 2, 3, 5, 8, 13, 30, 80, 200]))
    if r < 0.75:
        return json_text(rng)
    if r < 0.85:
        return "".join(rand_cp(rng) for _ in range(rng.randrange(0, 60)))
    if r < 0.9:
        return rng.choice(["", " ", "\n", "\t \n", PY_SPACES, NOT_SPACES,
                           "\x00", "\u200b\u200b", "\u03a3", "\u0130",
                           "a", "\n\n\n", "x\n"])
    if long_ok and r < 0.93:
        return long_text(rng, corpus)
    return word_text(rng, rng.randrange(1, 40))


def long_text(rng, corpus):
    target = rng.randrange(5000, 50000)
    parts, size = [], 0
    while size < target:
        if corpus and rng.random() < 0.6:
            p = rng.choice(corpus["responses"])
        else:
            p = word_text(rng, 100)
        parts.append(p)
        parts.append(rand_sep(rng))
        size += len(p) + 1
    return "".join(parts)


def inject_bad_bytes(rng, b):
    """Splices invalid UTF-8 into b (possibly inside a multibyte char)."""
    for _ in range(rng.randrange(1, 4)):
        pos = rng.randrange(len(b) + 1)
        b = b[:pos] + rng.choice(BAD_BYTES) + b[pos:]
    return b


# --------------------------------------------------------- needle values

def case_variant(rng, s):
    f = rng.choice(["same", "same", "upper", "lower", "swapcase", "title",
                    "casefold", "turkish"])
    if f == "same":
        return s
    if f == "turkish":
        return s.replace("i", "\u0130").replace("I", "\u0131")
    return getattr(s, f)()


def substring(rng, text):
    if not text:
        return ""
    a = rng.randrange(len(text))
    return text[a:a + rng.choice([1, 2, 3, 5, 10, 30])]


def rand_needle_str(rng, text):
    r = rng.random()
    if r < 0.45 and text:
        return case_variant(rng, substring(rng, text))
    if r < 0.7:
        return case_variant(rng, rand_word(rng))
    if r < 0.78:
        return ""
    if r < 0.9:
        return rng.choice(["i\u0307", "\u0130", "\u03c2", "\u03c3", "ss",
                           "\u00df", "fi", "\ufb01", "\u01c6", "\u13a0",
                           "\uab70", "\u10d0", "\u1c90", "\x00", "\udc80",
                           "\udcff", "\ud800", "\udced\udca0\udc80",
                           "\ud83d", "\ude00", "'", "\\", '"', ",", "\n",
                           " ", "\u200b", "\ufeff", "\u2014", "k", "\u212a"])
    return "".join(rand_cp(rng) for _ in range(rng.randrange(1, 4)))


def rand_needle_value(rng, text):
    r = rng.random()
    if r < 0.55:
        return rand_needle_str(rng, text)
    if r < 0.8:
        items = []
        for _ in range(rng.choice([0, 1, 2, 3, 5])):
            if rng.random() < 0.8:
                items.append(rand_needle_str(rng, text))
            else:
                items.append(rand_scalar(rng))
        return items
    return rand_scalar(rng)


def rand_scalar(rng):
    if rng.random() < 0.25:
        return Raw(rand_float_text(rng))
    return rng.choice([
        None, True, False, 0, 1, -1, 12, 10 ** 20, 2 ** 64, 1.0, 0.1, -0.0,
        0.5, 1e16, 1e-5, 1e22, 123456789012345678.0, float("nan"),
        float("inf"), float("-inf"), 5e-324, 1.7976931348623157e308, [], {},
        ["x", 1], {"a": None}, {"k": "v'q\"\\\n\x00\ud800\u00e9\U0001f600"},
        [["nested", [1.5, True]], {"d": {"e": []}}], "str", "it's",
        'say "hi"', "tab\there", "\x7f\x80\x9f\xa0\xad", "\u0378\ue000",
        "\u2028", Raw("1E2"), Raw("-0"), Raw("1e400"), Raw("0.30000000000000004"),
        Raw("9007199254740993.0"), Raw("1e-400"), Raw("-1e-400"),
        Raw("2.5e-320"), Raw("1" * 25 + ".5"), Raw("123456789.123456789")])


def rand_float_text(rng):
    """A random JSON number with a fraction and/or exponent: exercises
    decimal -> double rounding, int() of the double and repr()."""
    r = rng.random()
    if r < 0.3:
        return repr(rng.uniform(-1e6, 1e6))
    if r < 0.5:
        x = rng.getrandbits(64) / (1 << rng.randrange(0, 64))
        return repr(x if rng.random() < 0.8 else -x)
    mant = str(rng.randrange(1, 10 ** rng.randrange(1, 25)))
    frac = str(rng.randrange(10 ** rng.randrange(1, 25)))
    text = rng.choice(["-", ""]) + mant
    if rng.random() < 0.7:
        text += "." + frac
    if rng.random() < 0.6 or "." not in text:
        text += rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + str(
            rng.choice([rng.randrange(0, 30), rng.randrange(280, 330)]))
    return text


# ------------------------------------------------------------ limits

def to_digits(rng, s):
    """s (ASCII decimal, maybe signed) in another script's digits."""
    ds = rng.choice(DIGIT_SETS)
    return "".join(chr(ds[ord(c) - 48]) if c.isdigit() else c for c in s)


def limit_value(rng, base):
    """A limit near base, in one of many JSON forms."""
    n = max(0, base + rng.choice([-2, -1, 0, 0, 0, 1, 2, 5, -base]))
    form = rng.choice(INT_FORMS)
    if form == "plain":
        return n
    if form == "neg":
        return rng.choice([-n, -1, Raw("-0"), -(10 ** 25)])
    if form == "float":
        return rng.choice([float(n), n + 0.9, n + 0.5, n - 0.5, n + 1e-7,
                           -0.5, 5.9, 1e20, 1e-7, -0.0, float(2 ** 63),
                           float(2 ** 64), 1e308, Raw("%d.%s" % (n, "9" * 20))])
    if form == "exp":
        return Raw(rng.choice(["%dE0" % n, "%de+0" % n, "%d.0e-0" % n,
                               "1e1", "1E2", "1e400", "-1e400", "1e-400",
                               "0e0", "10e-1", "%d0e-1" % n]))
    if form == "string":
        return rng.choice([str(n), " %d " % n, "\u00a0%d\u3000" % n,
                           "\t%d\n" % n, "+%d" % n, "-%d" % n,
                           "%d_0" % n, "1_000", "1__000", "_1", "1_",
                           "1e3", "%d.0" % n, "", " ", "0x10", "0o7", "0b1",
                           "%d\u200b" % n, "\ufeff%d" % n, "0%d" % n,
                           "00", "-0", "+-1", "\x1c%d\x1f" % n, "%d\x85" % n,
                           "\u0661\u0662", "\uff11\uff12", "1" * 4300,
                           "1" * 4301, "1_" * 2150 + "1", "-" + "9" * 4300,
                           "%d \u0663" % n, "inf", "nan", "True"])
    if form == "ustring":
        t = "".join(to_digits(rng, c) for c in str(n))     # mixed scripts
        return rng.choice(["", " ", rng.choice(PY_SPACES)]) + t + rng.choice(
            ["", " ", rng.choice(PY_SPACES), rng.choice(NOT_SPACES)])
    if form == "rfloat":
        return Raw(rand_float_text(rng))
    if form == "bool":
        return rng.choice([True, False])
    if form == "null":
        return None
    if form == "special":
        return rng.choice([float("nan"), float("inf"), float("-inf")])
    if form == "array":
        return rng.choice([[], [n], [1, 2], ["5"]])
    if form == "object":
        return rng.choice([{}, {"n": n}])
    if form == "bigint":
        return rng.choice([2 ** 63, 2 ** 64, 2 ** 64 + 1, -(2 ** 63) - 1,
                           10 ** 30, Raw("9" * 4300), Raw("-" + "9" * 4300),
                           Raw("9" * 4301), Raw("0" * 2), Raw("1" * 4299 + "0")])
    raise AssertionError(form)


# ------------------------------------------------------------- patterns

def rand_pattern(rng, text, corpus):
    r = rng.random()
    if r < 0.2:
        pool = corpus["patterns"] if corpus and rng.random() < 0.6 \
            else CORPUS_PATTERNS
        return rng.choice(pool)
    if r < 0.45:
        return rng.choice(TEMPLATE_PATTERNS)
    if r < 0.6 and text:
        return re.escape(case_variant(rng, substring(rng, text)))
    if r < 0.7 and text:
        tail = text.rstrip()[-rng.randrange(1, 20):]
        return re.escape(tail) + rng.choice([r"\s*\Z", r"\Z", r"$", ""])
    if r < 0.8:
        return rng.choice(INVALID_PATTERNS)
    if r < 0.9:
        w = rand_word(rng)
        return rng.choice(["(?i)", "", "^", r"\b"]) + re.escape(w) \
            + rng.choice(["", "$", r"\Z", r"\b", "+", "?", "{1,2}"])
    return rng.choice([1, 0, 1.5, True, False, None, [1, 2], ["a|b"], "",
                       {"a": 1}, -3, 1e16, [], {}, float("nan"),
                       "(?i)\u0130", "\u00df", "[\u0130]", "\udc80",
                       "\x00", "a\x00b", "\u200b", "[^\u200b]"])


# ---------------------------------------------------------- constraints

def value_for(rng, key, text, words, chars, corpus):
    if key == "max_words" or key == "min_words":
        return limit_value(rng, words)
    if key == "max_chars":
        return limit_value(rng, chars)
    if key == "must_be_json":
        return rng.choice([True, True, True, False, None, 0, 1, "false", "",
                           float("nan"), [], {}, [0], 0.0, -0.0, "x", 2,
                           Raw("0e0"), Raw("-0"), Raw("1e-400")])
    if key in ("must_include", "must_exclude"):
        return rand_needle_value(rng, text)
    if key == "regex":
        return rand_pattern(rng, text, corpus)
    return rand_json_value(rng)


def key_text(rng, key):
    r = rng.random()
    if r < 0.92:
        return jstr(rng, key, "raw")
    return jstr(rng, key, rng.choice(["mixed", "ascii"]) if r < 0.97 else
                "raw").replace("_", rng.choice(["_", "\\u005f", "\\u005F"]))


def constraints_obj(rng, text, corpus):
    words, chars = len(text.split()), len(text)
    nkeys = rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 7])
    keys = rng.sample(KNOWN_KEYS, min(nkeys, len(KNOWN_KEYS)))
    if rng.random() < 0.2:
        keys.append(rng.choice(UNKNOWN_KEYS))
    if rng.random() < 0.05:
        keys = [rng.choice(UNKNOWN_KEYS)]
    if rng.random() < 0.08:
        keys.append(rng.choice(keys))               # duplicate key
    rng.shuffle(keys)
    pairs = [(Raw(key_text(rng, k)), value_for(rng, k, text, words, chars,
                                               corpus)) for k in keys]
    return Obj(pairs)


def constraints_text(rng, text, corpus):
    t = jdump(rng, constraints_obj(rng, text, corpus))
    if rng.random() < 0.2:
        t = rng.choice([" ", "\n", "\t", "\r\n", ""]) + t \
            + rng.choice([" ", "\n", "\t\r\n", ""])
    return t


def break_json(rng, t):
    """A constraints text mutated toward invalid JSON (the oracle judges)."""
    m = rng.randrange(24)
    if m == 0 and t.endswith("}"):
        return t[:-1] + "," + "}"
    if m == 1:
        return "\ufeff" + t
    if m == 2:
        return t.replace('"', "'")
    if m == 3:
        return t.replace('"', '"\\q', 1)
    if m == 4 and t.endswith("}"):
        return t[:-1] + rng.choice([',"max_words": 012}', ',"max_words":+1}',
                                    ',"max_words":.5}', ',"max_words":1.}',
                                    ',"max_words":1e}', ',"max_words":-}',
                                    ',"max_words":0x10}', ',"a":1_000}',
                                    ',"a":--1}', ',"a":nan}', ',"a":-NaN}',
                                    ',"a":infinity}', ',"a":+Infinity}',
                                    ',"a":True}', ',"a":None}', ',"a":}',
                                    ',"a"}', ',a:1}', ',"a" 1}', ',,}',
                                    ',"a":1 "b":2}', ',"a":' + "1" * 4301 + '}',
                                    ',"a":"\\u12"}', ',"a":"\\uZZZZ"}',
                                    ',"a":"\\ud800\\u"}', ',"a":[1,]}'])
    if m == 5:
        return t.replace('"', '"' + rng.choice(["\x01", "\t", "\n", "\x00",
                                                "\x1f", "\r"]), 1)
    if m == 6:
        pos = rng.randrange(len(t) + 1)
        return t[:pos] + rng.choice(["\udc80", "\udcff", "\udcc3",
                                     "\ud800"]) + t[pos:]
    if m == 7:
        return t.replace('"', '"' + rng.choice(["\udc80", "\udcfe"]), 1)
    if m == 8 and len(t) > 1:
        return t[:rng.randrange(len(t))]
    if m == 9:
        return t + rng.choice([" {}", "x", "\x00", " 1", "\u00a0", "\x0c",
                               "\ufeff", "}", "]", ",", "//"])
    if m == 10:
        return rng.choice(["// c\n", "/* c */", "#", "\x0b", "\x0c", "\u00a0",
                           "\u3000", "\x85"]) + t
    if m == 11:
        return t.replace("true", "True").replace("null", "None")
    if m == 12:
        return t.replace(" ", rng.choice(["\u00a0", "\x0c", "\x0b", "\x1c"]))
    if m == 13:
        return t.replace(":", "", 1)
    if m == 14:
        return t.replace(",", "", 1)
    if m == 15:
        pos = rng.randrange(len(t) + 1)
        return t[:pos] + chr(rng.randrange(0x20, 0x7F)) + t[pos:]
    if m == 16 and t:
        pos = rng.randrange(len(t))
        return t[:pos] + t[pos + 1:]
    return rng.choice([
        "", "  ", "\n", "{", "}", "{\"a\"}", "{\"a\":}", "[1,]", "{\"a\":1,}",
        "{'max_words': 5}", "{max_words: 5}", "{\"max_words\": 5,}",
        "\ufeff{\"max_words\": 5}", "{\"max_words\": 05}",
        "{\"must_include\": \"a\tb\"}", "{\"regex\": \"\\d\"}",
        "{\"regex\": \"\\\\d\"} x", "{\"max_words\": 1}{}",
        "\x80{\"max_words\": 1}", "{\"max_words\"\x80: 1}", "nul", "tru",
        "{\"a\":\"\\ud800\\udc0\"}", "[" * 3000, "{\"a\":" * 2000,
        "{\"a\":[" + "1," * 10 + "]}", "{\"max_words\": 1e}", "{\"a\":-}",
        "{\"a\":\"\\x41\"}", "{\"a\":\"\\U0041\"}", "{\"a\":'\"'}",
        "{\"a\" :: 1}", "{\"a\":1}}", "{{}}", "{\"a\":1]", "[}"])


NON_OBJECTS = ["null", "false", "0", "0.0", "-0", "-0.0", '""', "[]", "{}",
               " {} ", "0e0", "1e-400", "-1e-400", "[1]", '"max_words"', "5",
               "true", "NaN", "-Infinity", "Infinity", '"false"', "[{}]",
               "[[]]", "[null]", '"{}"', '" "', "1", "-1", "0.5", '"\\u0000"',
               "[\n]", "{\n}", "\t{\r\n}\t", '[{"max_words": 5}]',
               '"{\\"max_words\\": 5}"', "0E-5", "-0e+0", "[] ", "00", "-"]


# ---------------------------------------------------------------- deep

def deep_text(rng):
    d = rng.choice([2, 500, 998, 999, 1000, 1001, 1500, 3000, 20000, 60000])
    kind = rng.randrange(6)
    if kind == 0:
        return "[" * d + rng.choice(["", "1", '"x"', "{}"]) + "]" * d
    if kind == 1:
        return '{"a":' * d + "1" + "}" * d
    if kind == 2:
        return '[{"a":' * d + "null" + "}]" * d
    if kind == 3:
        return "[" * d + "]" * (d - 1)               # unclosed
    if kind == 4:
        return "[" * d + "1,]" + "]" * (d - 1)        # trailing comma deep
    return "[" * d + "]" * d + rng.choice([",", "x", " ", "]"])


def deep_case(rng, corpus):
    r = rng.random()
    dt = deep_text(rng)
    if r < 0.35:
        resp = dt
        if rng.random() < 0.3:
            resp = "```json\n" + resp + "\n```"
        cons = '{"must_be_json": true' + rng.choice(
            ["", ', "max_chars": 10', ', "must_include": "[["',
             ', "regex": "\\\\[{3}"']) + "}"
        return resp, cons
    text = word_text(rng, rng.randrange(0, 10))
    key = rng.choice(["must_include", "must_exclude", "max_words", "regex",
                      "must_be_json", "unknown", "must_include"])
    if key == "regex" and len(dt) > 5000:
        dt = "[" * 1500 + "1" + "]" * 1500
    cons = "{" + jstr(rng, key) + ":" + dt + "}"
    if rng.random() < 0.3:
        cons = '{"max_words": 3, ' + cons[1:]
    return text, cons


# ------------------------------------------------------------ one case

def one_case(rng, corpus):
    r = rng.random()
    if r < 0.01:
        resp, cons = deep_case(rng, corpus)
        return to_bytes(resp), to_bytes(cons)
    if r < 0.03:
        text = long_text(rng, corpus)
    else:
        text = response_text(rng, corpus, long_ok=False)
    resp = to_bytes(text)
    if rng.random() < 0.1:
        resp = inject_bad_bytes(rng, resp)
    text = dec(resp)
    r = rng.random()
    if r < 0.04:
        cons = None if rng.random() < 0.3 else to_bytes(rng.choice(NON_OBJECTS))
    elif r < 0.11:
        cons = to_bytes(break_json(rng, constraints_text(rng, text, corpus)))
    elif r < 0.2 and corpus:
        c = dict(rng.choice(corpus["constraints"]) or {})
        if rng.random() < 0.5 and c:
            k = rng.choice(KNOWN_KEYS)
            c[k] = value_for(rng, k, text, len(text.split()), len(text),
                             corpus)
        cons = to_bytes(jdump(rng, c))
    elif r < 0.3:
        obj = constraints_obj(rng, text, corpus)
        obj.pairs.append((Raw('"must_be_json"'), True))
        cons = to_bytes(jdump(rng, obj))
        if rng.random() < 0.7:
            resp = to_bytes(json_text(rng))
    else:
        cons = to_bytes(constraints_text(rng, text, corpus))
    if rng.random() < 0.02:
        resp = None
    return resp, cons


def generate(rng, n, corpus=None):
    """n adversarial (response, constraints) pairs, bytes or None each.
    corpus: load_corpus()'s result, False for none, None to load it here."""
    if corpus is None:
        corpus = load_corpus()
    return [one_case(rng, corpus or None) for _ in range(n)]


if __name__ == "__main__":
    import random
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    for resp, cons in generate(random.Random(seed), 20):
        print(repr(resp[:120] if resp else resp), repr(cons[:200]
                                                       if cons else cons))
