#!/usr/bin/python3
"""bench.py — `make bench`: ifscore against SQLite's own scans and the Python
reference, side by side in one process, on eval rows.

Data: ../shared/data/ifeval_cases.jsonl (1,623 real answers with their
constraints) when present, else rows from bench/gen_rows.py (realistic
generated answers and constraints, a fixed seed); --data chooses.  The
first line says which.  Each query runs --runs times and the median of
its CPU time is reported, as seconds, rows/s and ratios: absolute times on a
shared machine mean little, ratios measured side by side do.

Sections:
  1. the table (cases replicated to --rows rows): if_score against a
     length() scan, the three functions together, the Python UDF;
  2. two shapes with their goals: phrase lists (50 must_exclude + 10
     must_include on every row) and one constraints text per row (every
     row's text distinct, each run on texts the connection has not seen),
     and the two together (each case's 10 with the 50, every text
     distinct), with the lowest and highest ratio of their runs beside the
     median, and what SQLite alone takes to hand a function each row's two
     texts (texts);
  3. focused variants (where the time goes);
  4. how cost grows with rows, response length, needles per row and
     distinct constraint texts: a table each, every point in a process of
     its own so that its peak memory is its own; --svg-dir gets a chart each;
  5. with --compare LIB, this build against another, each loaded twice in
     this process, the four connections taken in turn for --rounds rounds:
     each build's ratio to the length() scan, the median of their ratio
     round by round, and of this build's two copies' ratio (the noise).

--quick runs a small version of everything (make bench-smoke).
"""
import argparse
import json
import math
import os
import platform
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gen_rows  # noqa: E402
import oracle  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "data", "ifeval_cases.jsonl")

# A refusal detector's list (phrases such lists are made of).
REFUSAL = [
    "I'm sorry", "Sorry", "I am sorry", "I apologize", "As an", "As an AI", "I'm an",
    "I'm just", "As a language model", "As an Assistant", "I cannot", "I do not", "Hello!",
    "is illegal and unethical", "I'm really sorry", "OpenAI", "unethical", "not ethical",
    "illegal", "not legal", "My apologies", "but I cannot",
    "If you have any other non-malicious requests", "I'm not able to provide",
    "I am really sorry", "I cannot create", "I cannot support", "I can't provide",
    "I can't assist", "I am unable", "I'm unable", "I must decline", "against my programming",
    "content policy", "I'm afraid", "cannot comply", "I must respectfully",
    "I'm not comfortable", "I'd rather not", "As a responsible", "I'm programmed",
    "ethical guidelines", "I would advise against", "please consult a professional",
    "I do not feel comfortable", "I won't be able", "harmful", "I can not", "not appropriate",
    "my guidelines"]
assert len(REFUSAL) == 50

FILLER = ["tapestry", "delve", "moreover", "in conclusion", "furthermore", "quantum",
          "synergy", "paradigm", "leverage", "zebra"]


# ---------------------------------------------------------------- data

def base_cases(kind):
    """(cases, what they are): (response, constraints text) pairs."""
    if kind == "auto":
        kind = "shared" if os.path.exists(CORPUS) else "generated"
    if kind == "shared":
        cases = []
        with open(CORPUS, encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                cases.append((d["response"], json.dumps(d["constraints"])))
        return cases, f"the shared corpus ({len(cases):,} real answers, ../shared/data)"
    cases = gen_rows.cases(2000, seed=1)
    return cases, (f"generated eval rows ({len(cases):,} cases, bench/gen_rows.py seed 1;"
                   f" ../shared is absent or --data generated)")


def replicate(cases, n):
    return [cases[i % len(cases)] for i in range(max(n, 1))]


def keywords(resp, rng, n):
    words = [w.strip(".,!?*:;\"'()[]") for w in resp.split()]
    words = [w for w in words if len(w) > 3 and w.isalpha()]
    return [rng.choice(words) for _ in range(n)] if words else []


def phrase_constraints(cases, seed=5):
    """Each case: 10 must_include (5 words of its answer, 5 that are rarely
    there) and the 50 phrases of a refusal detector to exclude."""
    rng = random.Random(seed)
    out = []
    for resp, _ in cases:
        inc = keywords(resp, rng, 5)
        inc += rng.sample(FILLER, 10 - len(inc))
        out.append(json.dumps({"must_include": inc, "must_exclude": REFUSAL}))
    return out


SHARED_PHRASES = json.dumps({"must_include": ["however", "important", "example", "moreover",
                                              "in conclusion", "furthermore", "tapestry",
                                              "delve", "quantum", "the answer"],
                             "must_exclude": REFUSAL})


def phrase_tables(rows, cases):
    """The two phrase-list shapes, (name, rows): the one list on every row,
    and each case's own 10 with the shared refusal list."""
    phr = phrase_constraints(cases)
    return (("phrase lists: 50 + 10 phrases, one list", [(r, SHARED_PHRASES) for r, _ in rows]),
            ("phrase lists: 50 + 10, each case its 10 to include",
             [(resp, phr[i % len(cases)]) for i, (resp, _) in enumerate(rows)]))


def own_texts(rows, tag):
    """Each row's own constraints, made distinct from every other row's (and
    from those of any other tag): its case's keys and an id."""
    out = []
    for i, (resp, c) in enumerate(rows):
        try:
            d = json.loads(c)
        except ValueError:
            d = None
        if isinstance(d, dict):
            d["case_id"] = f"{tag}-{i}"
            out.append((resp, json.dumps(d)))
        else:
            out.append((resp, c))
    return out


def needle_list(k, seed=11):
    """k phrases to exclude, as a blocklist has them: the refusal list, then
    refusal-like phrases, word pairs and made-up names (mostly absent)."""
    rng = random.Random(seed)
    out = list(REFUSAL[:k])
    verbs = "help assist provide create write share discuss answer generate support".split()
    nouns = "request policy content topic question task information advice opinion".split()
    syllables = "ka lo mi ru ven tor quil zan bex dra fen gol pry sto wix yul".split()
    while len(out) < k:
        kind = rng.random()
        if kind < 0.3:
            p = f"I {rng.choice(['cannot', 'can not', 'will not', 'am not able to'])} {rng.choice(verbs)}"
        elif kind < 0.5:
            p = f"this {rng.choice(nouns)} {rng.choice(['violates', 'is against', 'goes beyond'])}"
        elif kind < 0.75:
            p = " ".join(rng.sample(gen_rows.ENGLISH, 2))
        else:
            p = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).title()
        if p not in out:
            out.append(p)
    return out


# ---------------------------------------------------------------- timing

def connect(lib):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(lib)
    return con


def make_table(con, name, rows):
    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.execute(f"CREATE TABLE {name}(id INTEGER PRIMARY KEY, response TEXT, constraints TEXT)")
    con.executemany(f"INSERT INTO {name}(response, constraints) VALUES (?, ?)", rows)


def warm(con, sql):
    """Runs a query twice: a constraints text's plan is kept the second time
    the connection sees it (as a regrade's second pass would find it)."""
    for _ in range(2):
        con.execute(sql).fetchall()


def timed(con, sql, runs):
    """Median CPU seconds of the query (the process's own time: what other
    processes on a shared machine take while it waits is not counted)."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        con.execute(sql).fetchall()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def texts_query(table):
    """What SQLite takes to hand a function both texts of each row: SQLite reads
    each whole out of the row (a text in overflow pages is copied together),
    and length() of it as a BLOB is its byte count, with no copy to end it
    with a NUL (which unicode() would make of a text from overflow pages)."""
    return (f"SELECT sum(length(CAST(response AS BLOB)) + length(CAST(constraints AS BLOB)))"
            f" FROM {table}")


def score_vs_length(con, table, runs, spread=None, texts=None):
    """(if_score seconds, length() seconds): medians, alternating; each run's
    ratio is appended to spread when given, and the ratio of texts_query()'s
    time to the scan's to texts."""
    ts, tl = [], []
    for _ in range(runs):
        ts.append(timed(con, f"SELECT sum(if_score(response, constraints)) FROM {table}", 1))
        tl.append(timed(con, f"SELECT sum(length(response)) FROM {table}", 1))
        if texts is not None:
            texts.append(timed(con, texts_query(table), 1) / max(tl[-1], 1e-9))
    if spread is not None:
        spread.extend(a / b for a, b in zip(ts, tl) if b > 0)
    return statistics.median(ts), statistics.median(tl)


def fmt_spread(ratios):
    """The lowest and highest ratio of the runs: how much the machine moved."""
    return f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"


def mbytes(rows):
    return sum(len(r.encode("utf-8", "surrogatepass")) for r, _ in rows) / 1e6


def fmt_rate(n, t):
    return f"{n / t:,.0f}" if t > 0 else "-"


def goal_line(name, ratio, goal):
    return f"ratio: {name} (goal <= {goal:.2f}): {ratio:.2f} {'met' if ratio <= goal else 'NOT met'}"


def py_score(resp, cons):
    return oracle.evaluate(None if resp is None else resp.encode("utf-8", "surrogatepass"),
                           None if cons is None else cons.encode("utf-8", "surrogatepass"))[0]


# ---------------------------------------------------------------- sections

def main_table(con, rows, args):
    make_table(con, "cases", rows)
    n = len(rows)
    q = {
        "floor: LIKE '%zzz%' scan": "SELECT count(*) FROM cases WHERE response LIKE '%zzz%'",
        "sum(length(response))": "SELECT sum(length(response)) FROM cases",
        "if_score": "SELECT sum(if_score(response, constraints)) FROM cases",
        "if_score+if_reason+if_pass": "SELECT sum(if_score(response, constraints)),"
            " sum(length(if_reason(response, constraints))),"
            " sum(if_pass(response, constraints)) FROM cases",
    }
    warm(con, q["if_score"])
    runs = {k: [] for k in q}
    for _ in range(args.runs):   # the queries in turn, so that drift hits all alike
        for k, v in q.items():
            runs[k].append(timed(con, v, 1))
    t = {k: statistics.median(v) for k, v in runs.items()}
    con.create_function("py_score", 2, py_score, deterministic=True)
    t["Python reference (UDF)"] = timed(
        con, "SELECT sum(py_score(response, constraints)) FROM cases", args.py_runs)
    base = t["if_score"]
    print(f"{'query':34} {'seconds':>9} {'rows/s':>13} {'vs if_score':>12}")
    for k in t:
        print(f"{k:34} {t[k]:9.4f} {fmt_rate(n, t[k]):>13} {t[k] / base:11.2f}x")
    print()
    py, ln, three = t["Python reference (UDF)"], t["sum(length(response))"], t["if_score+if_reason+if_pass"]
    print(f"ratio: if_score vs Python UDF (goal >= 10x faster): {py / base:.2f}"
          f" {'met' if py >= 10 * base else 'NOT met'}")
    print(goal_line("if_score time / length() scan time", base / ln, 1.0))
    print(goal_line("3 functions / if_score alone", three / base, 1.5))


def shapes(con, rows, cases, args):
    """The shapes with goals: phrase lists (one list on every row, and each
    case's own must_include with the shared refusal list) and one
    constraints text per row.  Beside each, under texts, what SQLite alone
    takes to hand a function the row's two texts (texts_query()), as a
    ratio to the same scan: the part of if_score's ratio no extension can
    take away."""
    n = len(rows)
    print(f"{'shape':52} {'rows':>7} {'if_score s':>11} {'length() s':>11} {'ratio':>7}"
          f" {'runs':>10} {'texts':>6} {'rows/s':>12}")
    goals = []
    for name, table in phrase_tables(rows, cases):
        make_table(con, "v", table)
        warm(con, "SELECT sum(if_score(response, constraints)) FROM v")
        spread, texts = [], []
        ts, tl = score_vs_length(con, "v", args.runs, spread, texts)
        print(f"{name:52} {n:7,} {ts:11.4f} {tl:11.4f} {ts / tl:6.2f}x {fmt_spread(spread):>10}"
              f" {statistics.median(texts):6.2f} {fmt_rate(n, ts):>12}")
        goals.append((name + " / length() scan", ts / tl))
    # every run on texts this connection has not seen: a table of its own per run
    per_case = phrase_tables(rows, cases)[1][1]
    score = "SELECT sum(if_score(response, constraints)) FROM own"
    for name, table in (("one constraints text per row, all distinct", rows),
                        ("the same with each case's 10 + the 50 phrases", per_case)):
        ts_all, tl_all, texts, again = [], [], [], []
        for run in range(args.runs):
            make_table(con, "own", own_texts(table, f"run{run}"))
            ts_all.append(timed(con, score, 1))
            tl_all.append(timed(con, "SELECT sum(length(response)) FROM own", 1))
            texts.append(timed(con, texts_query("own"), 1) / max(tl_all[-1], 1e-9))
            again.append(timed(con, score, 1))   # its texts come back (a second query)
        tl = statistics.median(tl_all)
        for label, ts_runs, goal in ((name, ts_all, True),
                                     ("  the same, each table read again", again, False)):
            ts = statistics.median(ts_runs)
            spread = [a / b for a, b in zip(ts_runs, tl_all) if b > 0]
            tx = f"{statistics.median(texts):.2f}" if goal else ""
            print(f"{label:52} {n:7,} {ts:11.4f} {tl:11.4f} {ts / tl:6.2f}x {fmt_spread(spread):>10}"
                  f" {tx:>6} {fmt_rate(n, ts):>12}")
            if goal:
                goals.append((name + " / length() scan", ts / tl))
    print()
    for g, r in goals:
        print(goal_line(g, r, 1.0))


def only_keys(c, pred):
    try:
        d = json.loads(c)
    except ValueError:
        return c
    return json.dumps({k: v for k, v in d.items() if pred(k)}) if isinstance(d, dict) else c


def variants(con, rows, args):
    out = [
        ("own regex only", [(r, only_keys(c, lambda k: k == "regex")) for r, c in rows],
         "each row's own regex check, nothing else"),
        ("all but regex", [(r, only_keys(c, lambda k: k != "regex")) for r, c in rows],
         "each row's checks less its regex"),
        ("json only", [(r, '{"must_be_json": true}') for r, _ in rows],
         "fence stripping + JSON validation"),
        ("long responses", [(" ".join(r for r, _ in rows[i:i + 60]), c)
                            for i, (_, c) in enumerate(rows[:len(rows) // 60])],
         "rows of ~60 answers each"),
        ("5 shared constraints", [(r, rows[i % 5][1]) for i, (r, _) in enumerate(rows)],
         "many rows, few constraint texts"),
    ]
    print(f"{'focused variant':22} {'rows':>7} {'if_score s':>11} {'length() s':>11}"
          f" {'ratio':>7} {'rows/s':>12}  stresses")
    for name, vrows, what in out:
        make_table(con, "v", vrows)
        warm(con, "SELECT sum(if_score(response, constraints)) FROM v")
        ts, tl = score_vs_length(con, "v", args.runs)
        print(f"{name:22} {len(vrows):7,} {ts:11.4f} {tl:11.4f} {ts / tl:6.2f}x"
              f" {fmt_rate(len(vrows), ts):>12}  {what}")


# ---------------------------------------------------------------- compare

SCORE = "SELECT sum(if_score(response, constraints)) FROM v"
THREE = ("SELECT sum(if_score(response, constraints)), sum(length(if_reason(response,"
         " constraints))), sum(if_pass(response, constraints)) FROM v")
LENGTH = "SELECT sum(length(response)) FROM v"


# Each build is loaded twice, in connections THIS and OTHER: a connection's
# place in the process moves its times by a few percent (with one connection
# a build, one change measured 0.967 with its build first and 1.054 with it
# second), and the two copies of this build, compared with each other, show
# how far that goes.  Halfway, the builds swap places (new connections): the
# four places together still favoured one pair, by about 5% on each case its
# own list in one hour (a change measured 1.003 with its build in THIS and
# 0.911 with it in OTHER), which the swap cancels.
THIS, OTHER = (0, 3), (1, 2)


def compare_round(cons, order, query, ratios):
    """One round: each connection's query time over its length() scan, in turn."""
    for i in order:
        ts = timed(cons[i], query, 1)
        ratios[i].append(ts / max(timed(cons[i], LENGTH, 1), 1e-9))


def rotated(r):
    """The four connections' order in round r: each goes first in turn."""
    return [(r + k) % 4 for k in range(4)]


def add_rounds(results, name, ratios, this_at, other_at):
    """Adds a half's rounds of shape name to results: each build's ratio
    each round (the geometric mean of its two connections), and this
    build's two connections' ratio to each other."""
    def build(pair):
        return [math.sqrt(x * y) for x, y in zip(ratios[pair[0]], ratios[pair[1]])]
    acc = results.setdefault(name, {"this": [], "other": [], "same": []})
    acc["this"] += build(this_at)
    acc["other"] += build(other_at)
    acc["same"] += [x / y for x, y in zip(ratios[this_at[0]], ratios[this_at[1]])]


def compare_line(name, acc):
    this, other = acc["this"], acc["other"]
    paired = [t / o for t, o in zip(this, other)]
    faster = sum(p < 1 for p in paired)
    print(f"{name:52} {statistics.median(this):6.2f}x {statistics.median(other):6.2f}x"
          f" {statistics.median(paired):10.3f} {statistics.median(acc['same']):9.3f}"
          f" {faster:4} of {len(paired)}")


def compare_half(rows, cases, args, places, rounds, half, results):
    """Rounds with this build in connections places[0] and the other in
    places[1], four new connections; each shape's rounds go to results."""
    libs = [None] * 4
    for i in places[0]:
        libs[i] = args.lib
    for i in places[1]:
        libs[i] = args.compare
    cons = [connect(lib) for lib in libs]
    for name, table, query in (
            ("if_score, the eval rows", rows, SCORE),
            ("if_score+if_reason+if_pass, the eval rows", rows, THREE),
            *((name, table, SCORE) for name, table in phrase_tables(rows, cases))):
        for con in cons:
            make_table(con, "v", table)
            warm(con, query)
        ratios = [[] for _ in cons]
        for r in range(rounds):
            compare_round(cons, rotated(r), query, ratios)
        add_rounds(results, name, ratios, *places)
    per_case = phrase_tables(rows, cases)[1][1]
    for name, base, name_again in (
            ("one constraints text per row, all distinct", rows,
             "  all distinct, each table read again"),
            ("the same with each case's 10 + the 50 phrases", per_case,
             "  each case's lists, each table read again")):
        ratios = [[] for _ in cons]   # texts no connection has seen, every round
        again = [[] for _ in cons]    # and the same table read again
        for r in range(rounds):
            for i in rotated(r):
                make_table(cons[i], "v", own_texts(base, f"half{half}-round{r}-{i}"))
                compare_round(cons, (i,), SCORE, ratios)
                compare_round(cons, (i,), SCORE, again)
        add_rounds(results, name, ratios, *places)
        add_rounds(results, name_again, again, *places)
    for con in cons:
        con.close()


def compare(rows, cases, args):
    """This build against another (--compare LIB), each loaded in two
    connections of this process, the four taken in turn round by round (each
    first in turn), the builds' places swapped halfway: per shape, each
    build's median ratio to the length() scan; the median over the rounds
    of this build's ratio over the other's (each the geometric mean of its
    two connections), from which the machine's drift and the connections'
    places mostly cancel out; and of this build's two connections' ratio to
    each other, how far two copies of one build differ (the noise a
    difference must stand above)."""
    print(f"compare: this build ({os.path.relpath(args.lib, ROOT)}) against {args.compare},"
          f" {args.rounds} rounds, each build in two connections, the four in turn,"
          f" the builds' places swapped halfway")
    print(f"{'shape':52} {'this':>7} {'other':>7} {'this/other':>10} {'this/this':>9}"
          f" {'faster':>9}")
    results = {}
    first = (args.rounds + 1) // 2
    for half, (places, rounds) in enumerate((((THIS, OTHER), first),
                                             ((OTHER, THIS), args.rounds - first))):
        if rounds:
            compare_half(rows, cases, args, places, rounds, half, results)
    for name, acc in results.items():
        compare_line(name, acc)


# ---------------------------------------------------------------- sweeps

def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak():
    """Resident set size now, and the peak counted from here on (Linux resets
    VmHWM when 5 is written to clear_refs; elsewhere it stays the process's)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return status_kb("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_kb():
    return status_kb("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def point(kind, value, args):
    """One sweep point, in a process of its own: prints its figures as JSON."""
    cases, _ = base_cases(args.data)
    con = connect(args.lib)
    runs = args.runs
    if kind == "rows":
        make_table(con, "m", cases)
        b = len(cases)
        nbytes = sum(len(cases[x % b][0].encode("utf-8", "surrogatepass")) + len(str(x))
                     for x in range(value))
        gen = (f"WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < {value - 1})"
               f" SELECT sum({{}}) FROM i JOIN m ON m.id = 1 + x % {b}")
        q_score = gen.format("if_score(m.response || x, m.constraints)")
        q_len = gen.format("length(m.response || x)")
        warm(con, q_score.replace(f"x < {value - 1}", f"x < {b - 1}"))
        rows = value
        runs = 1 if value >= 100000 else runs
    else:
        if kind == "length":
            text = "\n\n".join(r for r, _ in cases)
            while len(text) < value:
                text += "\n\n" + text
            total = max(value, args.sweep_bytes)
            table, at = [], 0
            for i in range(max(1, total // value)):
                piece = text[at:at + value]
                at = (at + value) % max(1, len(text) - value)
                table.append((piece, cases[i % len(cases)][1]))
        elif kind == "needles":
            cons = json.dumps({"must_exclude": needle_list(value)})
            # past a thousand phrases, fewer rows: each holds its copy of the list
            n = args.sweep_rows if value <= 1000 else max(100, args.sweep_rows * 1000 // value)
            table = [(r, cons) for r, _ in replicate(cases, n)]
        elif kind == "distinct":
            n = args.sweep_rows
            d = n if value == 0 else value
            table = [(cases[i % len(cases)][0],
                      json.dumps({"max_words": 300 + i % d, "must_include": ["data"],
                                  "must_exclude": [","], "regex": r"(\*[^\n*]+\*.*?){2}"}))
                     for i in range(n)]
        elif kind == "patterns":   # an end phrase per case, the cases in rotation
            table = [(r, json.dumps({"regex": rf"Is there anything else I can help with {i % value}\?\s*\Z"}))
                     for i, (r, _) in enumerate(replicate(cases, args.sweep_rows))]
        else:
            raise SystemExit(f"bench: unknown sweep {kind}")
        make_table(con, "t", table)
        rows = len(table)
        nbytes = mbytes(table) * 1e6
        q_score = "SELECT sum(if_score(response, constraints)) FROM t"
        q_len = "SELECT sum(length(response)) FROM t"
        if kind != "distinct":   # distinct texts: every run as the first
            warm(con, q_score)
    before = reset_peak()
    ts, tl = [], []
    for run in range(runs):
        if kind == "distinct" and run:   # a fresh connection sees them all anew
            con.close()
            con = connect(args.lib)
            make_table(con, "t", table)
        ts.append(timed(con, q_score, 1))
        tl.append(timed(con, q_len, 1))
    peak = peak_kb()
    print(json.dumps({"rows": rows, "bytes": nbytes, "score": statistics.median(ts),
                      "length": statistics.median(tl), "peak_kb": peak, "before_kb": before}))


def short(v, unit=""):
    """1000 -> 1k, 2000000 -> 2M (chart and table labels)."""
    for div, suffix in ((1_000_000, "M"), (1000, "k")):
        if v >= div and v % div == 0:
            return f"{v // div}{suffix}{unit}"
    return f"{v}{unit}"


SWEEPS = {
    # kind: (title, x label, values, quick values, label of a value)
    "rows": ("rows (responses made distinct: response || n)", "rows",
             [1000, 10000, 100000, 1000000, 2000000], [1000, 10000], short),
    "length": ("response length (rows of one length, same total bytes)", "bytes per response",
               [100, 1000, 10000, 100000, 1000000, 16000000], [100, 10000, 100000],
               lambda v: short(v, "B").replace("kB", " kB").replace("MB", " MB")
               if v >= 1000 else f"{v} B"),
    "needles": ("needles per row (must_exclude phrases)", "needles per row",
                [1, 10, 100, 1000, 3000, 10000], [1, 10, 100], short),
    "distinct": ("distinct constraint texts (the same checks, a different limit)",
                 "distinct constraint texts", [1, 10, 100, 1000, 0], [1, 100, 0], None),
    "patterns": ("regexes in rotation (each row's one of them, the table read again)",
                 "distinct regexes", [1, 10, 65, 300, 1000, 4000], [1, 65], short),
}


def run_sweep(kind, args, out):
    title, xlabel, values, quick, label = SWEEPS[kind]
    values = quick if args.quick else values
    if kind == "distinct":
        label = lambda v: f"all {short(args.sweep_rows)}" if v == 0 else short(v)  # noqa: E731
    print(f"cost with {title}")
    print(f"{xlabel:>26} {'rows':>9} {'MB':>8} {'if_score s':>11} {'length() s':>11}"
          f" {'ratio':>6} {'ns/B score':>10} {'ns/B len':>9} {'peak MB':>8} {'+MB':>5}")
    pts = []
    for v in values:
        cmd = [sys.executable, os.path.abspath(__file__), "--point", kind, str(v),
               "--lib", args.lib, "--data", args.data, "--runs", str(args.runs),
               "--sweep-rows", str(args.sweep_rows), "--sweep-bytes", str(args.sweep_bytes)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stdout + res.stderr)
            raise SystemExit(f"bench: sweep point {kind}={v} failed")
        p = json.loads(res.stdout.strip().splitlines()[-1])
        p["x"] = v if not (kind == "distinct" and v == 0) else p["rows"]
        p["label"] = label(v)
        pts.append(p)
        print(f"{p['label']:>26} {p['rows']:9,} {p['bytes'] / 1e6:8.1f} {p['score']:11.4f}"
              f" {p['length']:11.4f} {p['score'] / p['length']:5.2f}x"
              f" {p['score'] / p['bytes'] * 1e9:10.2f} {p['length'] / p['bytes'] * 1e9:9.2f}"
              f" {p['peak_kb'] / 1024:8.0f} {(p['peak_kb'] - p['before_kb']) / 1024:5.0f}",
              flush=True)
    out[kind] = {"title": title, "xlabel": xlabel, "points": pts}


# ---------------------------------------------------------------- charts

def svg_chart(sweep):
    """A line chart (log x) of ns per byte for if_score and length()."""
    pts = sweep["points"]
    W, H, L, R, T, B = 560, 300, 64, 150, 36, 48
    xs = [p["x"] for p in pts]
    ys = [[p["score"] / p["bytes"] * 1e9 for p in pts], [p["length"] / p["bytes"] * 1e9 for p in pts]]
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))
    if lx1 == lx0:
        lx1 = lx0 + 1
    ymax = max(max(y) for y in ys) * 1.15 or 1
    step = 10 ** math.floor(math.log10(ymax / 4))
    for m in (1, 2, 5, 10):
        if ymax / (m * step) <= 6:
            step *= m
            break

    def px(x):
        return L + (math.log10(x) - lx0) / (lx1 - lx0) * (W - L - R)

    def py(y):
        return H - B - y / ymax * (H - T - B)

    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{L}" y="20" font-size="13" font-weight="bold">cost per byte by '
         f'{sweep["xlabel"]}</text>']
    y = 0.0
    while y <= ymax:
        e.append(f'<line x1="{L}" y1="{py(y):.1f}" x2="{W - R}" y2="{py(y):.1f}" stroke="#ddd"/>')
        e.append(f'<text x="{L - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
        y += step
    for p in pts:
        e.append(f'<line x1="{px(p["x"]):.1f}" y1="{H - B}" x2="{px(p["x"]):.1f}" y2="{H - B + 4}" stroke="#333"/>')
        e.append(f'<text x="{px(p["x"]):.1f}" y="{H - B + 17}" text-anchor="middle">{p["label"]}</text>')
    e.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="#333"/>')
    e.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="#333"/>')
    e.append(f'<text x="{(L + W - R) / 2}" y="{H - 10}" text-anchor="middle">{sweep["xlabel"]}'
             f' (log scale)</text>')
    e.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
             f'transform="rotate(-90 16 {(T + H - B) / 2})">ns per response byte</text>')
    for (name, color), yv in zip((("if_score", "#1f6fb4"), ("length() scan", "#d9822b")), ys):
        path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in zip(xs, yv))
        e.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, v in zip(xs, yv):
            e.append(f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="3" fill="{color}"/>')
    for i, (name, color) in enumerate((("if_score", "#1f6fb4"), ("length() scan", "#d9822b"))):
        e.append(f'<line x1="{W - R + 16}" y1="{T + 10 + 18 * i}" x2="{W - R + 36}" '
                 f'y2="{T + 10 + 18 * i}" stroke="{color}" stroke-width="2"/>')
        e.append(f'<text x="{W - R + 42}" y="{T + 14 + 18 * i}">{name}</text>')
    e.append("</svg>")
    return "\n".join(e) + "\n"


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--py-runs", type=int, default=1)
    ap.add_argument("--data", choices=["auto", "shared", "generated"], default="auto")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "ifscore"))
    ap.add_argument("--svg-dir", default=os.path.join(ROOT, "build", "bench"),
                    help="where the sweep charts go ('' for none)")
    ap.add_argument("--json", default="", help="also write the sweep figures here")
    ap.add_argument("--sections", default="main,shapes,variants,sweeps",
                    help="of main,shapes,variants,sweeps,compare (compare: with --compare)")
    ap.add_argument("--compare", default="",
                    help="another build of the library to compare with, in turn (section compare)")
    ap.add_argument("--rounds", type=int, default=12, help="rounds of the compare section")
    ap.add_argument("--sweeps", default="rows,length,needles,distinct,patterns")
    ap.add_argument("--sweep-rows", type=int, default=10000)
    ap.add_argument("--sweep-bytes", type=int, default=32_000_000)
    ap.add_argument("--quick", action="store_true", help="a small run of everything (smoke test)")
    ap.add_argument("--point", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.rows, args.runs, args.sweep_rows, args.sweep_bytes = 3000, 1, 2000, 2_000_000
        args.rounds = 2
    if args.point:
        point(args.point[0], int(args.point[1]), args)
        return

    cases, source = base_cases(args.data)
    rows = replicate(cases, args.rows)
    t0 = time.perf_counter()
    print(f"bench: {len(rows):,} rows from {source}, {mbytes(rows):.1f} MB of responses;"
          f" median of {args.runs} runs; {platform.machine()}, {os.cpu_count()} cores,"
          f" SQLite {sqlite3.sqlite_version}, Python {platform.python_version()}")
    sections = args.sections.split(",")
    if args.compare and "compare" not in sections:
        sections.append("compare")
    if "compare" in sections and not args.compare:
        ap.error("the compare section needs --compare LIB")
    con = connect(args.lib)
    if "main" in sections:
        print()
        main_table(con, rows, args)
    if "shapes" in sections:
        print()
        shapes(con, rows, cases, args)
    if "variants" in sections:
        print()
        variants(con, rows, args)
    con.close()
    if "compare" in sections:
        print()
        compare(rows, cases, args)
    sweeps = {}
    if "sweeps" in sections:
        for kind in args.sweeps.split(","):
            print()
            run_sweep(kind, args, sweeps)
        if args.svg_dir:
            os.makedirs(args.svg_dir, exist_ok=True)
            for kind, sw in sweeps.items():
                with open(os.path.join(args.svg_dir, f"bench-{kind}.svg"), "w") as f:
                    f.write(svg_chart(sw))
            print(f"\ncharts: {', '.join(f'bench-{k}.svg' for k in sweeps)} in"
                  f" {os.path.relpath(args.svg_dir, ROOT)}/")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(sweeps, f, indent=1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\nbench: peak RSS {peak / 1024:.0f} MB in the main process;"
          f" {time.perf_counter() - t0:.0f} s in all")


if __name__ == "__main__":
    main()
