"""oracle.py — the Python reference for ifscore, written from docs/spec.md.

evaluate(response, constraints) takes what SQLite hands the extension (bytes
or None for each argument) and returns (score or None, reason), following
docs/spec.md section 1 with the differences of section 2:

  * bytes are read with surrogateescape (an invalid byte is U+DC00+byte);
  * constraints that are not JSON, or not an object, get their own reason;
  * int() of +-Infinity and any exception from re are "invalid" checks;
  * deep nesting is never an error: where CPython's recursive json.loads or
    repr() raises RecursionError, an iterative parser / repr of our own
    gives the answer the grammar (and repr's definition) asks for.

The match-limit difference (catastrophic backtracking) cannot be predicted
here; the parity generator avoids such patterns.

encode_out(s) turns a result string into the bytes the extension writes.
The helpers words/chars/lower/is_json/search mirror the SQL helpers.
Standard library only; runs on /usr/bin/python3 (CPython 3.11).
"""

import codecs
import json
import math
import re
import sys
import warnings

sys.set_int_max_str_digits(4300)     # the contract's limit, whatever the env
warnings.simplefilter("ignore")      # re's FutureWarnings are not errors

EM = "\u2014"
R_NO_CONSTRAINTS = f"no constraints specified {EM} cannot score"
R_INVALID_JSON = f"invalid constraints JSON {EM} cannot score"
R_NOT_OBJECT = f"constraints must be a JSON object {EM} cannot score"
R_NO_CHECKS = f"no recognized constraints {EM} cannot score"


class InvalidJSON(Exception):
    """Raised where json.loads would raise (any error, not only decoding)."""


# ---------------------------------------------------------------- text I/O

def decode_in(b):
    """SQLite bytes -> str, Python's surrogateescape reading."""
    return b.decode("utf-8", "surrogateescape")


def _out_errors(exc):
    """Encode error handler: escaped bytes back raw, other surrogates as
    their 3-byte sequence (surrogatepass)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    parts = []
    for ch in exc.object[exc.start:exc.end]:
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:
            parts.append(bytes([cp - 0xDC00]))
        else:
            parts.append(ch.encode("utf-8", "surrogatepass"))
    return b"".join(parts), exc.end


codecs.register_error("ifscore_out", _out_errors)


def encode_out(s):
    """How a string the extension returns looks as bytes."""
    return s.encode("utf-8", "ifscore_out")


# ---------------------------------------------------- JSON: json.loads rules

_JSON_WS = " \t\n\r"
_HEX = "0123456789abcdefABCDEF"
_DIGITS = "0123456789"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f",
            "n": "\n", "r": "\r", "t": "\t"}


def _skip_ws(s, i):
    n = len(s)
    while i < n and s[i] in _JSON_WS:
        i += 1
    return i


def _scan_string(s, i):
    """s[i-1] was the opening quote.  Returns (value, index after quote)."""
    n = len(s)
    out = []
    while True:
        j = i
        while j < n and s[j] != '"' and s[j] != "\\" and ord(s[j]) >= 0x20:
            j += 1
        out.append(s[i:j])
        if j >= n or ord(s[j]) < 0x20:
            raise InvalidJSON("unterminated string or control character")
        if s[j] == '"':
            return "".join(out), j + 1
        j += 1                                   # past the backslash
        if j >= n:
            raise InvalidJSON("unterminated escape")
        esc = s[j]
        if esc != "u":
            if esc not in _ESCAPES:
                raise InvalidJSON("invalid escape")
            out.append(_ESCAPES[esc])
            i = j + 1
            continue
        cp = _hex4(s, j + 1)
        i = j + 5
        if 0xD800 <= cp <= 0xDBFF and s[i:i + 2] == "\\u" and i + 6 < n:
            low = _hex4(s, i + 2)
            if 0xDC00 <= low <= 0xDFFF:
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        out.append(chr(cp))


def _hex4(s, i):
    h = s[i:i + 4]
    if len(h) != 4 or any(c not in _HEX for c in h):
        raise InvalidJSON("invalid \\u escape")
    return int(h, 16)


def _scan_number(s, i):
    """A number starting at s[i] ('-' or a digit).  (value, end) or raise."""
    n = len(s)
    j = i
    if j < n and s[j] == "-":
        j += 1
    if j < n and s[j] == "0":
        j += 1
    elif j < n and "1" <= s[j] <= "9":
        while j < n and s[j] in _DIGITS:
            j += 1
    else:
        raise InvalidJSON("expecting value")
    is_float = False
    if j + 1 < n and s[j] == "." and s[j + 1] in _DIGITS:
        j += 2
        while j < n and s[j] in _DIGITS:
            j += 1
        is_float = True
    if j < n and s[j] in "eE":
        k = j + 1
        if k < n and s[k] in "+-":
            k += 1
        if k < n and s[k] in _DIGITS:
            while k < n and s[k] in _DIGITS:
                k += 1
            j = k
            is_float = True
    text = s[i:j]
    if is_float:
        return float(text), j
    try:
        return int(text), j
    except ValueError as e:                      # over 4300 digits
        raise InvalidJSON(str(e)) from None


_LITERALS = (("null", None), ("true", True), ("false", False),
             ("NaN", math.nan), ("Infinity", math.inf),
             ("-Infinity", -math.inf))


def _scan_scalar(s, i):
    """A value that is not an array or object, at s[i]: (value, end)."""
    if i >= len(s):
        raise InvalidJSON("expecting value")
    c = s[i]
    if c == '"':
        return _scan_string(s, i + 1)
    for word, value in _LITERALS:
        if s.startswith(word, i):
            return value, i + len(word)
    if c == "-" or c in _DIGITS:
        return _scan_number(s, i)
    raise InvalidJSON("expecting value")


def iter_json_loads(s):
    """json.loads(s) for a str, without recursion (any depth)."""
    if s.startswith("\ufeff"):
        raise InvalidJSON("BOM")
    n = len(s)
    # stack entries: [container, pending_key_or_None]
    stack = []
    i = _skip_ws(s, 0)
    result = None
    while True:
        # ---- parse one value at i
        if i < n and s[i] == "[":
            i = _skip_ws(s, i + 1)
            if i < n and s[i] == "]":
                value, i = [], i + 1
            else:
                stack.append([[], None])
                continue
        elif i < n and s[i] == "{":
            i = _skip_ws(s, i + 1)
            if i < n and s[i] == "}":
                value, i = {}, i + 1
            else:
                key, i = _object_key(s, i)
                stack.append([{}, key])
                continue
        else:
            value, i = _scan_scalar(s, i)
        # ---- attach the value, closing containers as they end
        while True:
            if not stack:
                result = value
                break
            top = stack[-1]
            if isinstance(top[0], list):
                top[0].append(value)
            else:
                top[0][top[1]] = value
            i = _skip_ws(s, i)
            if i < n and s[i] == ",":
                i = _skip_ws(s, i + 1)
                if isinstance(top[0], dict):
                    top[1], i = _object_key(s, i)
                break
            close = "]" if isinstance(top[0], list) else "}"
            if i < n and s[i] == close:
                i += 1
                value = stack.pop()[0]
                continue
            raise InvalidJSON("expecting , or close")
        if not stack:
            break
    i = _skip_ws(s, i)
    if i != n:
        raise InvalidJSON("extra data")
    return result


def _object_key(s, i):
    """A key and its colon at s[i]; returns (key, index of the value)."""
    if i >= len(s) or s[i] != '"':
        raise InvalidJSON("expecting property name")
    key, i = _scan_string(s, i + 1)
    i = _skip_ws(s, i)
    if i >= len(s) or s[i] != ":":
        raise InvalidJSON("expecting :")
    return key, _skip_ws(s, i + 1)


def json_loads(s):
    """json.loads with the contract's treatment of errors and depth."""
    try:
        return json.loads(s)
    except RecursionError:
        return iter_json_loads(s)
    except Exception as e:                       # JSONDecodeError, ValueError
        raise InvalidJSON(str(e)) from None


# --------------------------------------------------------- Python's str()

def _iter_repr(v):
    """repr() of nested lists/dicts without recursion; leaves via repr."""
    out = []
    # stack entries: a value to render, or a literal string to emit
    work = [v]
    while work:
        item = work.pop()
        if isinstance(item, _Lit):
            out.append(item.s)
        elif isinstance(item, list):
            parts = [_Lit("[")]
            for k, x in enumerate(item):
                if k:
                    parts.append(_Lit(", "))
                parts.append(x)
            parts.append(_Lit("]"))
            work.extend(reversed(parts))
        elif isinstance(item, dict):
            parts = [_Lit("{")]
            for k, (key, x) in enumerate(item.items()):
                if k:
                    parts.append(_Lit(", "))
                parts.append(_Lit(repr(key) + ": "))
                parts.append(x)
            parts.append(_Lit("}"))
            work.extend(reversed(parts))
        else:
            out.append(repr(item))
    return "".join(out)


class _Lit:
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s


def py_str(v):
    """str(v) of a parsed JSON value, any depth."""
    if isinstance(v, str):
        return v
    try:
        return str(v)
    except RecursionError:
        return _iter_repr(v)


def py_int(v):
    """int(v) as the reference applies it, or None where it raises."""
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return None


def as_list(v):
    """The needles of must_include / must_exclude."""
    if v is None:
        return []
    if isinstance(v, list):
        return [py_str(x) for x in v]
    return [py_str(v)]


# ------------------------------------------------------------ the checks

def strip_fences(s):
    """Code-fence stripping as docs/spec.md section 1 describes it."""
    t = s.strip()
    if t.startswith("```"):
        i = 3
        while i < len(t) and t[i] in _FENCE_TAG:
            i += 1
        while i < len(t) and t[i].isspace():
            i += 1
        t = t[i:]
        if t.endswith("```"):
            j = len(t) - 3
            while j > 0 and t[j - 1].isspace():
                j -= 1
            t = t[:j]
        t = t.strip()
    return t


_FENCE_TAG = frozenset("abcdefghijklmnopqrstuvwxyz"
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def is_json_str(s):
    try:
        json_loads(strip_fences(s))
        return True
    except InvalidJSON:
        return False


def regex_search_str(pattern, text):
    """True/False, or None where Python's re raises (invalid pattern)."""
    try:
        return re.search(pattern, text) is not None
    except Exception:                             # re.error, Overflow, ...
        return None


def checks_str(resp, C):
    """(inconclusive reason or None, [(kind, label, ok)]) for a parsed
    constraints value C, the checks in the reference's order."""
    if not C:
        return R_NO_CONSTRAINTS, []
    if not isinstance(C, dict):
        return R_NOT_OBJECT, []
    words = len(resp.split())
    chars = len(resp)
    checks = []
    for key, op, got in (("max_words", "<=", words), ("min_words", ">=", words),
                         ("max_chars", "<=", chars)):
        if key not in C:
            continue
        limit = py_int(C[key])
        if limit is None:
            checks.append((key, f"{key} (invalid value)", False))
        else:
            ok = got <= limit if op == "<=" else got >= limit
            checks.append((key, f"{key}{op}{limit} (got {got})", ok))
    if C.get("must_be_json"):
        checks.append(("must_be_json", "must_be_json", is_json_str(resp)))
    low = None
    for key, want in (("must_include", True), ("must_exclude", False)):
        for needle in as_list(C.get(key)):
            if low is None:
                low = resp.lower()
            checks.append((key, f"{key} '{needle}'",
                           (needle.lower() in low) == want))
    if C.get("regex"):
        pattern = py_str(C["regex"])
        found = regex_search_str(pattern, resp)
        if found is None:
            checks.append(("regex", f"regex /{pattern}/ (invalid pattern)",
                           False))
        else:
            checks.append(("regex", f"regex /{pattern}/", found))
    if not checks:
        return R_NO_CHECKS, []
    return None, checks


def summarize(inconclusive, checks):
    """(score or None, reason) from checks_str's result."""
    if inconclusive:
        return None, inconclusive
    passed = sum(1 for _, _, ok in checks if ok)
    total = len(checks)
    score = passed / total
    failed = [label for _, label, ok in checks if not ok]
    if not failed:
        return score, f"all {total} constraints satisfied"
    return score, f"{passed}/{total} satisfied; failed: " + "; ".join(failed)


def evaluate_str(resp, C):
    """The reference on a parsed constraints value C (resp: str)."""
    return summarize(*checks_str(resp, C))


def parse_args(response, constraints):
    """(resp str, parsed C or None, inconclusive reason or None)."""
    resp = "" if response is None else decode_in(response)
    if constraints is None:
        return resp, None, R_NO_CONSTRAINTS
    try:
        return resp, json_loads(decode_in(constraints)), None
    except InvalidJSON:
        return resp, None, R_INVALID_JSON


def result(response, constraints):
    """(score or None, reason, [(seq, kind, label, ok)]) in one evaluation:
    everything if_score, if_reason and if_checks show for one row."""
    resp, C, inconclusive = parse_args(response, constraints)
    if inconclusive:
        return None, inconclusive, []
    inconclusive, checks = checks_str(resp, C)
    score, reason = summarize(inconclusive, checks)
    return score, reason, [(k, kind, label, int(ok))
                           for k, (kind, label, ok) in enumerate(checks)]


def checks(response, constraints):
    """if_checks' rows: [(seq, kind, label str, ok int)], [] if inconclusive."""
    return result(response, constraints)[2]


def evaluate(response, constraints):
    """(score or None, reason str) for SQLite argument bytes (or None)."""
    return result(response, constraints)[:2]


# ------------------------------------------- mirrors of the SQL helpers

def words(b):
    return None if b is None else len(decode_in(b).split())


def chars(b):
    return None if b is None else len(decode_in(b))


def lower(b):
    """if_lower's result bytes."""
    return None if b is None else encode_out(decode_in(b).lower())


def is_json(b):
    return None if b is None else int(is_json_str(decode_in(b)))


def pass_of(score, threshold=0.5):
    """if_pass from a score: 1 / 0, None when inconclusive."""
    return None if score is None else int(score >= threshold)


def passes(response, constraints, threshold=0.5):
    return pass_of(evaluate(response, constraints)[0], threshold)


def eval_of(score, reason):
    """if_eval's value, as json.loads reads the object back.  The reason goes
    through json.dumps and json.loads as the whole object does: a lone high
    surrogate followed by a lone low one (a JSON \\uD8xx escape next to an
    escaped raw byte) comes back as the one character the pair encodes, as it
    does for Python's own json.dumps of the reference's dict."""
    reason = json.loads(json.dumps(reason))
    if score is None:
        return {"reason": reason}
    return {"score": score, "instruction_following": score, "reason": reason}


def eval_obj(response, constraints):
    return eval_of(*evaluate(response, constraints))


def search(b, pattern):
    """if_search: 1 match, 0 none, None for NULLs or a pattern re rejects."""
    if b is None or pattern is None:
        return None
    found = regex_search_str(decode_in(pattern), decode_in(b))
    return None if found is None else int(found)
