"""regex_long.py — realistic constraint patterns on long answers, against CPython.

    /usr/bin/python3 tests/regex_long.py [--long] [--lib PATH] [--only SUBSTR] [--verbose]

The match budget may stop a search with "(match limit exceeded)" only where
Python's re is pathological: wherever CPython's re.search answers within
PY_LIMIT seconds of CPU on this machine, the extension must give Python's
answer.  This test puts that to work on the patterns people write in
constraints (case-insensitive ones, `.*` in the middle, look-arounds,
back-references, long repeats, and every pattern of the shared corpus) over
real answers joined into texts of 1 KB to 100 KB, single-line (newlines
made spaces) and multi-line.  The answers come from
../shared/data/ifeval_cases.jsonl when present, otherwise from the
repository's fixtures (tests/fixtures: the sample runs' answers and the
dataset's prompts), so the test runs anywhere.

For each pattern and layout the lengths go up until Python needs more than
PY_LIMIT s (longer texts would only be slower).  Each search is timed in
CPU seconds on both sides.  Fails (exit 1) on:
  - a different answer where Python answered within PY_LIMIT s (a label
    counts as a different answer);
  - an extension search taking more than EXT_MAX s of CPU.
Where Python took longer, the extension's answer (Python's, or the label)
is only counted.

--long: more lengths (to 1 MB), two text orders, and Python is given up to
5 s (answers it gives after PY_LIMIT are compared too: any answer the
extension gives there must be Python's or the label).  For manual runs.
"""

import json
import os
import random
import re
import signal
import sqlite3
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "..", "shared", "data", "ifeval_cases.jsonl")
FIXTURES = os.path.join(HERE, "fixtures")

PY_LIMIT = 1.0      # seconds of CPU: within it, Python's answer is the contract
EXT_MAX = 2.5       # seconds of CPU any extension search may take ("about 2 s")

# Patterns of the kinds constraints use.  The corpus's own patterns are added.
PATTERNS = [
    # case-insensitive
    r"(?i)the.*xyz", r"(?i)the.*sincerely", r"(?i)\w+.*regards", r"(?i)-.*k",
    r"(?i)\bbest regards\b", r"(?i)^.*\bconclusion\b.*$", r"(?i)(?:\w+\s+){50,}\w+$",
    r"(?i)\b(?:yes|no|maybe)\b.*\.$", r"(?i:in summary).*(?i:thank you)",
    r"(?i)^[^a-z]*$", r"(?i)\bP\.?S\.?\b", r"(?i)[aeiou]{4,}", r"(?i)\bstraße\b",
    # `.*` in the middle of a pattern
    r"\bthe\b.*sincerely", r"first.*second.*third", r"(?s)^.*\bsummary\b.*$",
    r"<<[^\n]+>>.*<<[^\n]+>>", r"\d+.*%.*\d+", r"\w+@\w+\.\w+.*zzz", r"^.*\bend\b.*$",
    r"(?s)\A.*\bqwerty\b.*\Z", r"[A-Z].*[a-z].*[0-9].*!{2}",
    # look-arounds
    r"\bthe\b.*(?=sincerely)", r"(?i)(?=.*apple)(?=.*banana)", r"(?i)^(?!.*\bvery\b)",
    r"(?<=\. )[A-Z][a-z]+", r"\b\w+(?=,)", r"(?s)^(?=.*\bdata\b)(?=.*\bmodel\b).*$",
    r"(?i)(?<!\w)ai(?!\w)", r"^(?:(?!foo).)*$", r"(?m)^(?!\s*$).+", r"(?s)^(?!.*\bxyzzy\b).*$",
    r"(?=.*\d)(?=.*[A-Z])(?=.*[a-z]).{8,}zz", r"\w+(?<!ing)\b\s+xyz",
    # back-references
    r"(\w+).*\1sincerely", r"\b(\w+)\s+\1\b", r"(?i)\b(\w+)\b.*\b\1\b\s*qq",
    r"([\"'])(?:(?!\1).)*\1", r"(\w)\1{2,}", r"(?i)(\w+) and \1", r"(\b\w{5,}\b).*\1.*\1.*zz",
    # long repeats
    r"(?:\w+\s+){50,}\w+$", r"^(?:\S+\s+){10,300}\S+$", r"(?s)^(?:[^\n]*\n){5,}",
    r"^(\w+\W+){100,}$", r"(?:[A-Z][^.!?]*[.!?]\s*){3,}", r"\w{20,}", r"(?:\b\w+\b\W*){200}zz",
    r"^(?:[^.]*\.){3,5}$", r"(?m)(^.*\n){3}", r"(?:.{80}\n){3}",
]

DEFAULT_LENGTHS = [1000, 3000, 10000, 15000, 20000, 30000, 50000, 100000]
LONG_LENGTHS = [1000, 3000, 10000, 15000, 20000, 30000, 50000, 70000, 100000, 300000, 1000000]


class Timeout(Exception):
    pass


def on_prof(signum, frame):
    raise Timeout()


def answers():
    """Real answers: the shared corpus's, or the fixtures' where it is absent."""
    if os.path.exists(CORPUS):
        rows = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
        out = [r["response"] for r in rows if isinstance(r.get("response"), str) and r["response"]]
        pats = sorted({r["constraints"]["regex"] for r in rows
                       if isinstance(r.get("constraints"), dict)
                       and isinstance(r["constraints"].get("regex"), str)})
        return out, pats, "shared corpus (%d answers)" % len(out)
    out, pats = [], set()
    for name in sorted(os.listdir(FIXTURES)):
        path = os.path.join(FIXTURES, name)
        if name.endswith(".json"):      # eval runs: the agents' answers
            for case in json.load(open(path, encoding="utf-8"))["cases"]:
                r = case.get("agent_response")
                if isinstance(r, str) and r:
                    out.append(r)
        elif name.endswith(".jsonl"):   # the dataset: its prompts and patterns
            for line in open(path, encoding="utf-8"):
                row = json.loads(line)
                if isinstance(row.get("input"), str):
                    out.append(row["input"])
                c = row.get("constraints")
                if isinstance(c, dict) and isinstance(c.get("regex"), str):
                    pats.add(c["regex"])
    return out, sorted(pats), "fixtures (%d texts; ../shared absent)" % len(out)


def make_text(base, n, multiline, seed):
    """Answers in a shuffled order joined to n characters."""
    rnd = random.Random(seed)
    order = base[:]
    rnd.shuffle(order)
    parts, size, i = [], 0, 0
    while size < n:
        a = order[i % len(order)]
        i += 1
        if not multiline:
            a = " ".join(a.split("\n"))
        parts.append(a)
        size += len(a) + 2
    text = ("\n\n" if multiline else "  ").join(parts)
    return text[:n]


def py_search(pat, text, limit):
    """(answer, seconds of CPU), answer None when Python took over `limit`."""
    cre = re.compile(pat)
    signal.setitimer(signal.ITIMER_PROF, limit)
    t0 = time.process_time()
    try:
        ans = 1 if cre.search(text) else 0
    except Timeout:
        ans = None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return ans, time.process_time() - t0


def ext_search(con, pat, text):
    """("1"/"0"/"limit", seconds of CPU)."""
    cons = json.dumps({"regex": pat})
    t0 = time.process_time()
    (reason,) = con.execute("SELECT if_reason(?, ?)", (text, cons)).fetchone()
    dt = time.process_time() - t0
    if reason == "all 1 constraints satisfied":
        return 1, dt
    if reason.endswith("(match limit exceeded)"):
        return "limit", dt
    if reason.startswith("0/1 satisfied; failed: regex /") and reason.endswith("/"):
        return 0, dt
    return "?" + reason, dt


def main():
    args = sys.argv[1:]
    long_mode = "--long" in args
    verbose = "--verbose" in args
    lib = os.path.join(ROOT, "build", "ifscore")
    only = None
    if "--lib" in args:
        lib = args[args.index("--lib") + 1]
    if "--only" in args:
        only = args[args.index("--only") + 1]
    base, corpus_pats, source = answers()
    pats = PATTERNS + [p for p in corpus_pats if p not in PATTERNS]
    if only:
        pats = [p for p in pats if only in p]
    lengths = LONG_LENGTHS if long_mode else DEFAULT_LENGTHS
    py_cap = 5.0 if long_mode else PY_LIMIT
    seeds = [1, 2] if long_mode else [1]

    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(lib)
    signal.signal(signal.SIGPROF, on_prof)

    n = answered = slow = slow_label = slow_answer = 0
    bad, too_slow = [], []
    ext_worst = (0.0, None)
    py_total = ext_total = 0.0
    texts = {}
    for seed in seeds:
        for multiline in (False, True):
            for length in lengths:
                texts[seed, multiline, length] = make_text(base, length, multiline, seed)
    for pat in pats:
        for seed in seeds:
            for multiline in (False, True):
                for length in lengths:
                    text = texts[seed, multiline, length]
                    want, pt = py_search(pat, text, py_cap)
                    have, et = ext_search(con, pat, text)
                    n += 1
                    py_total += pt
                    ext_total += et
                    if et > ext_worst[0]:
                        ext_worst = (et, (pat, length, multiline))
                    if et > EXT_MAX:
                        too_slow.append((pat, length, multiline, et))
                    within = want is not None and pt <= PY_LIMIT
                    if within:
                        answered += 1
                        if have != want:
                            bad.append((pat, length, multiline, want, pt, have, et))
                    else:
                        slow += 1
                        if have == "limit":
                            slow_label += 1
                        else:
                            slow_answer += 1
                            if want is not None and have != want:
                                bad.append((pat, length, multiline, want, pt, have, et))
                    if verbose:
                        print("  %-42a %7d %s python=%s %.3fs extension=%s %.3fs"
                              % (pat, length, "multi " if multiline else "single", want, pt,
                                 have, et), flush=True)
                    if want is None:
                        break      # longer texts: Python only slower
    print("regex_long: %s; %d patterns x %d lengths x %d layouts%s: %d searches"
          % (source, len(pats), len(lengths), 2 * len(seeds),
             " x 2 orders" if len(seeds) > 1 else "", n))
    print("regex_long: Python answered %d within %.0f s of CPU: %d disagreements; "
          "%d slower in Python: %d with the label, %d answered"
          % (answered, PY_LIMIT, len(bad), slow, slow_label, slow_answer))
    w, where = ext_worst
    print("regex_long: CPU python %.1f s, extension %.1f s; slowest extension search "
          "%.3f s (%a, %d chars, %s)" % (py_total, ext_total, w, where[0] if where else "",
                                         where[1] if where else 0,
                                         ("multi-line" if where and where[2] else "single-line")))
    for pat, length, ml, want, pt, have, et in bad[:30]:
        print("  MISMATCH %a on %d chars (%s): python=%s in %.3f s, extension=%s in %.3f s"
              % (pat, length, "multi-line" if ml else "single-line", want, pt, have, et))
    for pat, length, ml, et in too_slow[:30]:
        print("  TOO SLOW %a on %d chars (%s): extension %.2f s of CPU (max %.1f)"
              % (pat, length, "multi-line" if ml else "single-line", et, EXT_MAX))
    return 1 if bad or too_slow else 0


if __name__ == "__main__":
    sys.exit(main())
