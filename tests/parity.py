"""parity.py — the extension against the Python oracle, case by case.

    /usr/bin/python3 tests/parity.py [--seed N] [--count N] [--show N]
                                     [--lib PATH] [--cli 'SQLITE3 COMMAND']

Loads build/ifscore.so into an in-memory SQLite connection and, for every
case, compares if_score (exact float, NULL <-> None) and if_reason (bytes)
with tests/oracle.py, plus the helpers if_words, if_chars, if_lower,
if_is_json and if_search on the same inputs.  Arguments go in as BLOBs or,
for every other row, as TEXT with the same bytes (CAST), NULL for None.

Groups: "generated" (tests/gen_cases.py, a new seed per run unless --seed),
"twins" (consecutive near-identical rows, against a stale per-row memo),
"lists" (texts that differ but share long lists' JSON, against a list
copied wrongly from an earlier text),
"corpus" (every case of ../shared/data/ifeval_cases.jsonl when present) and
"fresh" (edge cases and the first generated ones, each on a new connection).
With --cli the extension runs in that sqlite3 CLI instead (make test-arm64:
the arm64 build in the arm64 CLI under qemu), the cases and its answers
passing through database files.
Closes with "N passed, M failed"; exit 1 on any mismatch.
"""

import argparse
import json
import os
import random
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_cases  # noqa: E402
import oracle     # noqa: E402

FIELDS = ("score", "reason", "pass", "eval", "words", "chars", "lower",
          "is_json", "search", "checks")

# if_search patterns for rows whose constraints carry no string regex
SEARCH_PATTERNS = [r"\s", r"\w+", r"^\S", r"\d\Z", r"(?i)i", r"[", r"\p{L}",
                   r"\bthe\b", r"$", r"\A\s*\Z", "\u03c3", r"(?m)^$"]


def search_pattern(case_index, cons):
    """A pattern for if_search: the case's own string regex when it has
    one, else one from a small fixed list."""
    if cons is not None:
        try:
            c = oracle.json_loads(oracle.decode_in(cons))
        except oracle.InvalidJSON:
            c = None
        if isinstance(c, dict) and isinstance(c.get("regex"), str):
            return oracle.encode_out(c["regex"])
    return SEARCH_PATTERNS[case_index % len(SEARCH_PATTERNS)].encode()


def expected(resp, cons, pat):
    score, reason, checks = oracle.result(resp, cons)
    checks = [(k, kind.encode(), oracle.encode_out(label), ok)
              for k, kind, label, ok in checks]
    return (score, oracle.encode_out(reason), oracle.pass_of(score),
            oracle.eval_of(score, reason), oracle.words(resp),
            oracle.chars(resp), oracle.lower(resp), oracle.is_json(resp),
            oracle.search(resp, pat), checks)


# Every other row passes TEXT (same bytes) instead of BLOB.
ARGS = """
SELECT id,
       CASE WHEN astext THEN CAST(r0 AS TEXT) ELSE r0 END AS r,
       CASE WHEN astext THEN CAST(c0 AS TEXT) ELSE c0 END AS c,
       CASE WHEN astext THEN CAST(p0 AS TEXT) ELSE p0 END AS p
FROM cases
"""

QUERY = f"""
SELECT id, if_score(r, c), if_reason(r, c), if_pass(r, c), if_eval(r, c),
       if_words(r), if_chars(r), if_lower(r), if_is_json(r), if_search(r, p)
FROM ({ARGS}) ORDER BY id
"""

CHECKS_QUERY = f"""
SELECT a.id, k.seq, k.kind, k.label, k.ok
FROM ({ARGS}) AS a, if_checks(a.r, a.c) AS k ORDER BY a.id, k.seq
"""


def read_eval(b):
    """if_eval's text as a dict (json.loads), or the raw bytes if it is
    not valid UTF-8 JSON."""
    try:
        return json.loads(b.decode("utf-8"))
    except (ValueError, AttributeError):
        return b


def patterns(cases):
    """if_search's pattern of each case: a case is (response, constraints)
    or (response, constraints, pattern)."""
    return [case[2] if len(case) > 2 else search_pattern(i, case[1])
            for i, case in enumerate(cases)]


def insert_cases(con, table, cases, pats):
    con.execute(f"CREATE TABLE {table}(id INTEGER PRIMARY KEY, r0 BLOB, "
                "c0 BLOB, p0 BLOB, astext INTEGER)")
    con.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)",
                    [(i, case[0], case[1], pats[i], i % 2)
                     for i, case in enumerate(cases)])


def compare(cases, pats, results, checks):
    """The extension's rows (QUERY's, CHECKS_QUERY's) against the oracle;
    returns (matched, mismatches)."""
    rows = {}
    for i, seq, kind, label, ok in checks:
        rows.setdefault(i, []).append((seq, kind, label, ok))
    matched, bad = 0, []
    for row in results:
        i = row[0]
        got = row[1:4] + (read_eval(row[4]),) + row[5:] + (rows.get(i, []),)
        resp, cons = cases[i][:2]
        exp = expected(resp, cons, pats[i])
        diff = [f for f, e, g in zip(FIELDS, exp, got)
                if not same(e, g)]
        if diff:
            bad.append((i, resp, cons, pats[i], diff, exp, got))
        else:
            matched += 1
    if len(results) != len(cases):
        sys.exit(f"parity: {len(results)} result rows for {len(cases)} cases")
    return matched, bad


def run_group(con, cases):
    """Runs cases through the extension; returns (matched, mismatches)."""
    con.execute("DROP TABLE IF EXISTS temp.cases")
    pats = patterns(cases)
    insert_cases(con, "temp.cases", cases, pats)
    checks = con.execute(CHECKS_QUERY).fetchall()
    results = con.execute(QUERY).fetchall()
    con.execute("DROP TABLE temp.cases")
    return compare(cases, pats, results, checks)


def run_cli(cli, lib, groups):
    """Every group through a sqlite3 CLI (e.g. another machine's build run
    under an emulator), in one process: each case list goes into a database
    file written here, the CLI stores the query results next to it, and they
    are read back here.  A group whose name is "fresh" gets a new connection
    (.open) per case.  Returns [(matched, mismatches)] per group."""
    with tempfile.TemporaryDirectory() as tmp:
        script, plan = [], []
        for g, (name, cases) in enumerate(groups):
            pats = patterns(cases)
            parts = [[(i, c)] for i, c in enumerate(cases)] \
                if name == "fresh" else [list(enumerate(cases))]
            files = []
            for k, part in enumerate(parts):
                db = os.path.join(tmp, f"g{g}_{k}.db")
                con = sqlite3.connect(db)
                con.execute("PRAGMA journal_mode=OFF")
                insert_cases(con, "cases", [c for _, c in part],
                             [pats[i] for i, _ in part])
                con.commit()
                con.close()
                script += [f".open {db}", f".load {lib}",
                           "PRAGMA synchronous=OFF;",
                           f"CREATE TABLE res AS {QUERY};",
                           f"CREATE TABLE chk AS {CHECKS_QUERY};"]
                files.append((db, [i for i, _ in part]))
            plan.append((cases, pats, files))
        out = subprocess.run(cli + ["-bail", ":memory:"],
                             input="\n".join(script + [".quit", ""]).encode(),
                             capture_output=True, check=False)
        if out.returncode != 0 or out.stdout or out.stderr:
            sys.exit(f"parity: {' '.join(cli)} failed ({out.returncode}): "
                     f"{(out.stdout + out.stderr).decode(errors='replace')[:2000]}")
        answers = []
        for cases, pats, files in plan:
            results, checks = [], []
            for db, ids in files:   # ids: the cases' indexes in the group
                con = sqlite3.connect(db)
                con.text_factory = bytes
                results += [(ids[r[0]],) + r[1:] for r in
                            con.execute("SELECT * FROM res ORDER BY 1")]
                checks += [(ids[r[0]],) + r[1:] for r in
                           con.execute("SELECT * FROM chk ORDER BY 1, 2")]
                con.close()
            answers.append(compare(cases, pats, results, checks))
        return answers


def same(e, g):
    if e is None or g is None:
        return e is None and g is None
    if isinstance(e, float):
        return isinstance(g, float) and e == g
    if isinstance(e, dict):      # if_eval: same keys in the same order
        return isinstance(g, dict) and list(e) == list(g) and all(
            same(e[k], g[k]) for k in e)
    if isinstance(e, list):
        return isinstance(g, list) and len(e) == len(g) and all(
            same(x, y) for x, y in zip(e, g))
    if isinstance(e, tuple):
        return isinstance(g, tuple) and len(e) == len(g) and all(
            same(x, y) for x, y in zip(e, g))
    return type(e) is type(g) and e == g


def twins(rng, cases, n):
    """Pairs of consecutive rows that differ a little (one byte, NULL vs
    empty, key order), so that a cache keyed wrongly shows."""
    out = []
    for resp, cons in rng.sample(cases, min(n, len(cases))):
        out.append((resp, cons))
        r = rng.randrange(5)
        if r == 0 and resp:
            k = rng.randrange(len(resp))
            out.append((resp[:k] + bytes([resp[k] ^ 0x20]) + resp[k + 1:],
                        cons))
        elif r == 1:
            out.append((None if resp else b"", cons))
        elif r == 2:
            out.append((resp, None if cons else b""))
        elif r == 3 and cons:
            out.append((resp, cons + b" "))
            out.append((resp, cons))
        else:
            out.append((resp, b'{"max_words": 3}'))
    return out


LIST_PIECES = ["I'm sorry", "As an AI", "\u0130", "\u03a3", "K", "\u212a", "SS",
               "\u00df", "i\u0307", "\u00c9t\u00e9", "x", " ", "Ok"]


def shared_lists(rng, cases, n):
    """Rows with constraints texts of their own that share long lists, each
    list's JSON the same bytes in every text that has it, under either
    needle key or another, or beside a short list of the text's own; items
    from the cases' responses and from letters whose lowercase is not one to
    one, with numbers and null; lists of 200 and 400 are big sets, searched by
    shift-or.  Each text comes back about three times (its plan kept, then
    used), and there are more long lists than the list cache holds (shared
    lists replaced)."""
    def item(resp):
        r = rng.random()
        if r < 0.1:
            return rng.choice([1.0, None, True, 7, {"k": "v"}])
        if r < 0.5 and resp:
            text = resp.decode("utf-8", "replace")
            k = rng.randrange(len(text))
            return text[k:k + rng.randrange(1, 12)]
        return "".join(rng.choice(LIST_PIECES) for _ in range(rng.randrange(1, 4)))

    def dumps(items):
        return json.dumps(items, ensure_ascii=rng.random() < 0.5)
    resps = [r for r, _ in cases if r]
    lists = [dumps([item(rng.choice(resps)) for _ in range(k)])
             for k in (8, 9, 31, 32, 50, 60, 200, 400) * 2]
    texts = []
    for i in range(max(1, n // 3)):
        keys = rng.sample(["must_include", "must_exclude", "regex", "other"], rng.randrange(1, 4))
        parts = [f'"id": {i}'] + [
            f'"{k}": ' + (dumps([item(rng.choice(resps)) for _ in range(rng.randrange(4, 8))])
                          if rng.random() < 0.3 else rng.choice(lists[:8] if i % 4 else lists))
            for k in keys]
        rng.shuffle(parts)
        texts.append(("{" + ", ".join(parts) + "}").encode())
    return [(rng.choice(resps), rng.choice(texts)) for _ in range(n)]


# Edge cases run each on a brand-new connection (state-dependent bugs).
FRESH_EDGES = [(b"", b"", b""), (b"x", b"", b""), (None, None, None),
               (b"", None, b"x*"), (None, b"{}", b"^"), (b"x", b"{}", None),
               (b"", b'{"regex": "x*"}', b"()"), (b"x", b'{"max_words": 0}', b"$"),
               (b"\x80", b'{"must_include": "\\udc80"}', b"\x80"),
               (b"```", b"[]", b"`"), (b"a", b'{"regex": "a|"}', b"|")]


def run_fresh(lib, cases):
    """Each case alone on a new connection; returns (matched, mismatches)."""
    matched, bad = 0, []
    for case in cases:
        con = connect(lib)
        m, b = run_group(con, [case])
        con.close()
        matched += m
        bad.extend(b)
    return matched, bad


def corpus_cases(path):
    cases = []
    with open(path, encoding="utf-8", errors="surrogatepass") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            resp = row.get("response")
            cons = row.get("constraints")
            cases.append((None if resp is None else gen_cases.to_bytes(resp),
                          None if cons is None else gen_cases.to_bytes(
                              json.dumps(cons, ensure_ascii=False))))
    return cases


def short(b, limit=300):
    if b is None:
        return "None"
    s = repr(b)
    return s if len(s) <= limit else s[:limit] + f"...<{len(b)} bytes>"


def report(group, bad, show):
    for i, resp, cons, pat, diff, exp, got in bad[:show]:
        print(f"--- {group} case {i}: differs in {', '.join(diff)}")
        print(f"    response    = {short(resp)}")
        print(f"    constraints = {short(cons)}")
        if "search" in diff:
            print(f"    pattern     = {short(pat)}")
        for f in diff:
            k = FIELDS.index(f)
            print(f"    {f}: expected {short(exp[k], 600)}")
            print(f"    {' ' * len(f)}  got      {short(got[k], 600)}")


def connect(lib):
    if not os.path.exists(lib + ".so"):
        sys.exit(f"parity: {lib}.so is missing; run make first")
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(lib)
    con.enable_load_extension(False)
    con.text_factory = bytes
    return con


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=25000)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--corpus", default=gen_cases.SHARED_CORPUS)
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "ifscore"),
                    help="the extension, without .so (default build/ifscore)")
    ap.add_argument("--cli", default=None,
                    help="run the extension in this sqlite3 CLI command "
                         "(split as a shell would) instead of in this "
                         "Python, e.g. another architecture's under qemu")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % 10 ** 9
    also = f" --lib {args.lib} --cli '{args.cli}'" if args.cli else ""
    print(f"parity: seed {seed} (rerun: python3 tests/parity.py --seed {seed}"
          f" --count {args.count}{also})")
    t0 = time.time()
    if not os.path.exists(args.lib + ".so"):
        sys.exit(f"parity: {args.lib}.so is missing; run make first")
    corpus = gen_cases.load_corpus(args.corpus)
    rng = random.Random(seed)
    generated = gen_cases.generate(rng, args.count, corpus or False)
    groups = [("generated", generated), ("twins", twins(rng, generated, 2000)),
              ("lists", shared_lists(rng, generated, min(3000, args.count)))]
    if corpus:
        groups.append(("corpus", corpus_cases(args.corpus)))
    else:
        print(f"corpus: {os.path.normpath(args.corpus)} absent, skipped")
    groups.append(("fresh", FRESH_EDGES + generated[:150]))
    if args.cli:
        answers = run_cli(shlex.split(args.cli), args.lib, groups)
    else:
        con = connect(args.lib)
        answers = [run_fresh(args.lib, cases) if name == "fresh" else
                   run_group(con, cases) for name, cases in groups]
        con.close()
    passed = failed = 0
    shown = 0
    for (name, cases), (matched, bad) in zip(groups, answers):
        print(f"{name}: {matched}/{len(cases)} matched")
        if bad:
            fields = {}
            for b in bad:
                for f in b[4]:
                    fields[f] = fields.get(f, 0) + 1
            print("  differing: " + ", ".join(f"{f} {n}" for f, n in
                                              sorted(fields.items())))
        if bad and shown < args.show:
            report(name, bad, args.show - shown)
            shown += min(len(bad), args.show - shown)
        passed += matched
        failed += len(bad)
    print(f"time: {time.time() - t0:.1f}s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
