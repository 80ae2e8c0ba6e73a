#!/usr/bin/python3
"""bench.py — `make bench`: ifscore against the Python reference and SQLite's
own scans, side by side in one process, on one table.

The table is ../shared/data/ifeval_cases.jsonl replicated to --rows rows (or,
where ../shared is absent, cases from tests/gen_cases.py with a fixed seed).
Each query runs --runs times; the median is reported, as time, rows/s and
ratios, because absolute times on shared machines mean little.

Goals: if_score >= 10x the Python UDF; if_score no slower than
sum(length(response)); if_score+if_reason+if_pass <= 1.5x if_score alone.
"""
import argparse
import json
import os
import platform
import random
import resource
import sqlite3
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import gen_cases  # noqa: E402
import oracle  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "data", "ifeval_cases.jsonl")


def load_rows(n):
    """(response, constraints) text pairs, replicated to n rows."""
    base = []
    if os.path.exists(CORPUS):
        with open(CORPUS, encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                base.append((d["response"], json.dumps(d["constraints"])))
        source = f"shared corpus ({len(base)} cases)"
    else:
        rng = random.Random(1)
        for resp, cons in gen_cases.generate(rng, 2000):
            if resp is None or cons is None:
                continue
            base.append((resp.decode("utf-8", "replace"), cons.decode("utf-8", "replace")))
        source = f"generated cases ({len(base)}, seed 1; ../shared absent)"
    rows = [base[i % len(base)] for i in range(max(n, len(base)))]
    return rows, source


def py_score(resp, cons):
    return oracle.evaluate(None if resp is None else resp.encode("utf-8", "surrogatepass"),
                           None if cons is None else cons.encode("utf-8", "surrogatepass"))[0]


def timed(con, sql, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        con.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def make_table(con, name, rows):
    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.execute(f"CREATE TABLE {name}(id INTEGER PRIMARY KEY, response TEXT, constraints TEXT)")
    con.executemany(f"INSERT INTO {name}(response, constraints) VALUES (?, ?)", rows)


def only_keys(c, pred):
    """The constraints text with only the keys pred accepts (as is when it is
    not a JSON object)."""
    try:
        d = json.loads(c)
    except ValueError:
        return c
    if not isinstance(d, dict):
        return c
    return json.dumps({k: v for k, v in d.items() if pred(k)})


def variants(rows, rng):
    """The focused tables: (name, rows, what it stresses)."""
    regexes = [json.loads(c).get("regex") for _, c in rows[:2000]]
    regexes = [r for r in regexes if r] or [r"\bthe\b"]
    words = "the and of to in is that for it as with was on be by this are".split()
    needles = [w + s for w in words for s in ("", "s", "ing")][:48]
    out = []
    out.append(("regex only", [(r, json.dumps({"regex": rng.choice(regexes)}))
                               for r, _ in rows], "one Python regex per row"))
    out.append(("own regex only", [(r, only_keys(c, lambda k: k == "regex")) for r, c in rows],
                "each row's own regex check, nothing else"))
    out.append(("all but regex", [(r, only_keys(c, lambda k: k != "regex")) for r, c in rows],
                "each row's checks less its regex"))
    out.append(("48 needles", [(r, json.dumps({"must_include": needles[:24],
                                                "must_exclude": needles[24:]}))
                               for r, _ in rows], "include/exclude, many needles"))
    out.append(("json only", [(r, '{"must_be_json": true}') for r, _ in rows],
                "fence stripping + JSON validation"))
    long_rows = [(" ".join(r for r, _ in rows[i:i + 60]), c)
                 for i, (_, c) in enumerate(rows[:len(rows) // 60])]
    out.append(("long responses", long_rows, f"{len(long_rows)} rows of ~60 responses each"))
    shared = [c for _, c in rows[:5]]
    out.append(("5 shared constraints", [(r, shared[i % 5]) for i, (r, _) in enumerate(rows)],
                "many rows, few constraint texts"))
    out.append(("own constraints", [(r, c[:-1] + f', "row": {i}}}' if c.endswith("}") and c != "{}" else c)
                                    for i, (r, c) in enumerate(rows)],
                "every row its own constraint text"))
    return out


def fmt_rate(n, t):
    return f"{n / t:,.0f}" if t > 0 else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--py-runs", type=int, default=1)
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "ifscore"))
    ap.add_argument("--mem-rows", type=int, default=2_000_000,
                    help="rows of the memory-flatness check (0 skips it)")
    args = ap.parse_args()

    rows, source = load_rows(args.rows)
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(args.lib)
    con.create_function("py_score", 2, py_score, deterministic=True)
    make_table(con, "cases", rows)
    n = len(rows)
    mb = sum(len(r.encode("utf-8", "surrogatepass")) for r, _ in rows) / 1e6
    print(f"bench: {n:,} rows from {source}, {mb:.1f} MB of responses;"
          f" median of {args.runs} runs; {platform.machine()}, {os.cpu_count()} cores,"
          f" SQLite {sqlite3.sqlite_version}, Python {platform.python_version()}")

    q = {
        "floor: LIKE '%zzz%' scan": "SELECT count(*) FROM cases WHERE response LIKE '%zzz%'",
        "sum(length(response))": "SELECT sum(length(response)) FROM cases",
        "if_score": "SELECT sum(if_score(response, constraints)) FROM cases",
        "if_score+if_reason+if_pass": "SELECT sum(if_score(response, constraints)),"
            " sum(length(if_reason(response, constraints))),"
            " sum(if_pass(response, constraints)) FROM cases",
    }
    t = {k: timed(con, v, args.runs) for k, v in q.items()}
    t["Python reference (UDF)"] = timed(
        con, "SELECT sum(py_score(response, constraints)) FROM cases", args.py_runs)
    base = t["if_score"]
    print()
    print(f"{'query':34} {'seconds':>9} {'rows/s':>13} {'vs if_score':>12}")
    for k in ["floor: LIKE '%zzz%' scan", "sum(length(response))", "if_score",
              "if_score+if_reason+if_pass", "Python reference (UDF)"]:
        print(f"{k:34} {t[k]:9.4f} {fmt_rate(n, t[k]):>13} {t[k] / base:11.2f}x")
    print()
    goals = [
        ("if_score vs Python UDF (goal >= 10x faster)",
         t["Python reference (UDF)"] / base, t["Python reference (UDF)"] / base >= 10),
        ("if_score time / length() scan time (goal <= 1.00)",
         base / t["sum(length(response))"], base <= t["sum(length(response))"]),
        ("3 functions / if_score alone (goal <= 1.50)",
         t["if_score+if_reason+if_pass"] / base, t["if_score+if_reason+if_pass"] <= 1.5 * base),
    ]
    for name, ratio, ok in goals:
        print(f"ratio: {name}: {ratio:.2f} {'met' if ok else 'NOT met'}")

    print()
    print(f"{'focused variant':22} {'rows':>7} {'if_score s':>11} {'length() s':>11}"
          f" {'ratio':>7} {'rows/s':>12}  stresses")
    rng = random.Random(7)
    for name, vrows, what in variants(rows, rng):
        make_table(con, "v", vrows)
        ts = timed(con, "SELECT sum(if_score(response, constraints)) FROM v", args.runs)
        tl = timed(con, "SELECT sum(length(response)) FROM v", args.runs)
        print(f"{name:22} {len(vrows):7,} {ts:11.4f} {tl:11.4f} {ts / tl:6.2f}x"
              f" {fmt_rate(len(vrows), ts):>12}  {what}")

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print()
    print(f"memory: peak RSS {rss0 / 1024:.0f} MB after the runs above")
    if args.mem_rows:
        sample = rows[:50]
        con.execute("DROP TABLE IF EXISTS v")
        make_table(con, "m", sample)
        for k in (args.mem_rows // 4, args.mem_rows):
            sql = (f"WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i"
                   f" WHERE x < {k}) SELECT sum(if_score(m.response || x, m.constraints))"
                   f" FROM i JOIN m ON m.id = 1 + x % {len(sample)}")
            t0 = time.perf_counter()
            con.execute(sql).fetchall()
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(f"memory: {k:,} distinct rows scored in {time.perf_counter() - t0:.1f}s,"
                  f" peak RSS {rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
