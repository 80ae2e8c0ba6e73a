"""analytics.py — tests of the analytics surface of ifscore: if_pass, if_eval
and if_checks against the Python oracle, the SQL scripts of sql/ and the
run_summary view against the eval runner's formula.

    /usr/bin/python3 tests/analytics.py [--seed N] [--count N] [--show N]
                                        [--ext build/ifscore] [--sqlite sqlite3]
                                        [--only group,...]

Groups (each assertion counts once in the closing "N passed, M failed"; exit 1
on any failure):

  parity      if_pass (default and explicit thresholds), if_eval (parsed as JSON,
              keys in order, the number written as Python's repr) and if_checks
              (row by row: seq, kind, label, ok) against tests/oracle.py, on the
              cases of tests/gen_cases.py (a new seed per run unless --seed), the
              shared corpus and the fixtures; arguments as BLOB and as TEXT.
  threshold   if_pass's threshold: a non-number is an SQL error.
  trusted     every function with PRAGMA trusted_schema = off in views, generated
              columns, CHECK constraints, index expressions, a partial index and
              a trigger, after reopening the database; a non-innocuous function
              in a view fails there (the control).
  subtype     if_eval's JSON subtype: ->>, json_extract, json_type, json_each,
              json_object / json_array / json_group_array nesting it as an object.
  rounding    run_summary's round(x, 4) against Python's round on tie values,
              their neighbours and random doubles (pure SQL, no extension).
  summary     run_summary against the runner's formula on random runs.
  scripts     sql/import.sql through the sqlite3 CLI on the fixtures: every column
              against the files, idempotence, JSON array / JSONL / CRLF datasets,
              no dataset (the runner's scores kept), cases with their own
              constraints; sql/regrade.sql: every score against the oracle, and
              run_summary against the runner's formula over the same data.
  errors      each way the import stops: the exact message, exit 1, the database
              unchanged; schema.sql on an older database, and sql/upgrade.sql.
  memory      sql/import.sql on a 13 MB results file and a 13 MB JSONL dataset:
              every case imported, and SQLite's peak heap (.stats) at most 6
              times the larger file.
  regrade     the four fixture runs regraded: `checks` row by row against the
              oracle, case_changes against pairs computed here (the known
              regressions and fixes), every table the regrade prints against
              values computed here, agreeing with run_summary.
  report      sql/report.sql without the extension: every figure on the page
              against the views (tests/report_check.py), escaping, empty and
              crowded databases.
  render      the page in headless Chromium: layout checks, build/report.png,
              build/report-full.png, build/report.pdf (tests/report_check.py).

IFSCORE_NO_REGEX=1 skips cases with a regex (for a build with a stub regex).
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_cases     # noqa: E402
import oracle        # noqa: E402
import report_check  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
RESULTS = [os.path.join(FIXTURES, f) for f in
           ("eval_results_gpt-4o-mini.json", "eval_results_llama-3.1-8b.json",
            "week2/eval_results_gpt-4o-mini.json", "week2/eval_results_llama-3.1-8b.json")]
DATASET = os.path.join(FIXTURES, "if_dataset.jsonl")
SCHEMA = os.path.join(ROOT, "sql", "schema.sql")
IMPORT = os.path.join(ROOT, "sql", "import.sql")
REGRADE = os.path.join(ROOT, "sql", "regrade.sql")
UPGRADE = os.path.join(ROOT, "sql", "upgrade.sql")
REPORT = os.path.join(ROOT, "sql", "report.sql")
PASS_THRESHOLD = 0.5
NO_DATASET_NOTE = ("import: no :dataset, and %d of %d cases carry no constraints: they keep"
                   " the runner's scores and sql/regrade.sql leaves them alone\n")
NO_REGEX = os.environ.get("IFSCORE_NO_REGEX") == "1"


# ------------------------------------------------------------------ tally

class Tally:
    def __init__(self, show):
        self.passed = 0
        self.failed = 0
        self.show = show
        self.shown = {}

    def check(self, group, ok, what=""):
        if ok:
            self.passed += 1
            return True
        self.failed += 1
        n = self.shown.get(group, 0)
        if n < self.show:
            print(f"FAIL [{group}] {what}")
        self.shown[group] = n + 1
        return False

    def same(self, group, expected, got, what=""):
        return self.check(group, same(expected, got),
                          f"{what}\n    expected {short(expected)}\n    got      {short(got)}")


def same(e, g):
    """Exact equality: floats bit for bit, types included (1 is not 1.0)."""
    if isinstance(e, float) and isinstance(g, float):
        return struct.pack("<d", e) == struct.pack("<d", g) or e == g == 0.0 and \
            math.copysign(1, e) == math.copysign(1, g)
    if isinstance(e, (list, tuple)) and isinstance(g, (list, tuple)):
        return len(e) == len(g) and all(same(x, y) for x, y in zip(e, g))
    if isinstance(e, dict) and isinstance(g, dict):
        return list(e) == list(g) and all(same(e[k], g[k]) for k in e)
    return type(e) is type(g) and e == g


def short(v, limit=400):
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + "..."


# ------------------------------------------------------------ connections

def connect(ext, path=":memory:"):
    con = sqlite3.connect(path)
    con.enable_load_extension(True)
    con.load_extension(ext)
    con.enable_load_extension(False)
    con.text_factory = bytes
    return con


# ------------------------------------------------ the oracle's check list

def spec_checks(resp_b, cons_b):
    """[(kind, label, ok)] as docs/spec.md section 1 builds them, from the
    oracle's primitives; [] when inconclusive."""
    resp = "" if resp_b is None else oracle.decode_in(resp_b)
    if cons_b is None:
        return []
    try:
        C = oracle.json_loads(oracle.decode_in(cons_b))
    except oracle.InvalidJSON:
        return []
    if not C or not isinstance(C, dict):
        return []
    words, chars = len(resp.split()), len(resp)
    out = []
    for key, op, got in (("max_words", "<=", words), ("min_words", ">=", words),
                         ("max_chars", "<=", chars)):
        if key in C:
            limit = oracle.py_int(C[key])
            if limit is None:
                out.append((key, f"{key} (invalid value)", False))
            else:
                out.append((key, f"{key}{op}{limit} (got {got})",
                            got <= limit if op == "<=" else got >= limit))
    if C.get("must_be_json"):
        out.append(("must_be_json", "must_be_json", oracle.is_json_str(resp)))
    for key, want in (("must_include", True), ("must_exclude", False)):
        for needle in oracle.as_list(C.get(key)):
            out.append((key, f"{key} '{needle}'",
                        (needle.lower() in resp.lower()) == want))
    if C.get("regex"):
        pattern = oracle.py_str(C["regex"])
        found = oracle.regex_search_str(pattern, resp)
        if found is None:
            out.append(("regex", f"regex /{pattern}/ (invalid pattern)", False))
        else:
            out.append(("regex", f"regex /{pattern}/", found))
    return out


def reason_of(checks):
    passed = sum(1 for _, _, ok in checks if ok)
    failed = [label for _, label, ok in checks if not ok]
    if not failed:
        return f"all {len(checks)} constraints satisfied"
    return f"{passed}/{len(checks)} satisfied; failed: " + "; ".join(failed)


def pass_of(score, threshold=PASS_THRESHOLD):
    return None if score is None else int(score >= threshold)


def eval_of(score, reason):
    if score is None:
        return {"reason": reason}
    return {"score": score, "instruction_following": score, "reason": reason}


# ------------------------------------------------------------ case sources

def corpus_cases():
    path = gen_cases.SHARED_CORPUS
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                resp, cons = row.get("response"), row.get("constraints")
                out.append((None if resp is None else gen_cases.to_bytes(resp),
                            None if cons is None else gen_cases.to_bytes(
                                json.dumps(cons, ensure_ascii=False))))
    return out


def fixture_cases():
    by_id = {}
    with open(DATASET, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                by_id[d["id"]] = d
    out = []
    for path in RESULTS:
        with open(path, encoding="utf-8") as f:
            for c in json.load(f)["cases"]:
                cons = by_id[c["id"]]["constraints"]
                out.append((c["agent_response"].encode(),
                            None if cons is None else json.dumps(cons).encode()))
    return out


HAND_CASES = [
    (None, None), (b"", None), (None, b"{}"), (b"x", b"null"), (b"x", b"[1]"),
    (b"x", b"{"), (b"x", b'"max_words"'), (b"a b c", b'{"max_words": 2}'),
    (b"a b", b'{"max_words": 2, "min_words": 3}'),
    (b"Hello world", b'{"max_words": 5, "must_include": "hello"}'),
    (b"Hello world", b'{"must_include": ["x", "hello", "", 1, null, true, 1.5]}'),
    (b"\xff\xfe bad bytes", b'{"max_chars": 3, "must_include": "\\udcff"}'),
    (b'```json\n{"a": 1}\n```', b'{"must_be_json": "false"}'),
    (b"tab\there", b'{"max_words": "\xd9\xa1\xd9\xa2", "max_chars": 1e20}'),
    (b"x", b'{"max_words": null, "min_words": [], "max_chars": "1e3"}'),
    (b"quote \" and \\ back\nslash", b'{"must_exclude": "\\"", "max_chars": -1}'),
    (b"ctrl \x01\x1f\x7f", b'{"must_include": "\\u0001"}'),
    (b"NUL\x00inside", b'{"must_include": "\\u0000", "max_chars": 10}'),
    (b"x", b'{"tone": "formal"}'),
    (b"x" * 5000, b'{"max_chars": 4999}'),
]
REGEX_HAND = [
    (b"2024-01-02", b'{"regex": "^\\\\d{4}-\\\\d{2}-\\\\d{2}$"}'),
    (b"abc", b'{"regex": "[", "max_words": 1}'),
    (b"abc", b'{"regex": "(?<n>x)"}'),
]


def all_cases(rng, count):
    cases = gen_cases.generate(rng, count) + corpus_cases() + fixture_cases() + HAND_CASES
    if NO_REGEX:
        return [(r, c) for r, c in cases if c is None or b"regex" not in c]
    return cases + REGEX_HAND


# ------------------------------------------------------------------ parity

THRESHOLDS = [0.0, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0, -1.0, 1.5, 5e-324,
              0.49999999999999994, 0.5000000000000001, 0.6666666666666667]

PARITY_QUERY = """
SELECT id, if_pass(r, c), if_eval(r, c), {extra}
FROM (SELECT id, CASE WHEN astext THEN CAST(r0 AS TEXT) ELSE r0 END AS r,
                 CASE WHEN astext THEN CAST(c0 AS TEXT) ELSE c0 END AS c FROM pcases)
ORDER BY id
"""

CHECKS_QUERY = """
SELECT a.id, k.seq, k.kind, k.label, k.ok
FROM (SELECT id, CASE WHEN astext THEN CAST(r0 AS TEXT) ELSE r0 END AS r,
                 CASE WHEN astext THEN CAST(c0 AS TEXT) ELSE c0 END AS c FROM pcases) AS a,
     if_checks(a.r, a.c) AS k
ORDER BY a.id, k.seq
"""

EVAL_NUMBER = re.compile(rb'^\{"score": ([^,]+), "instruction_following": ([^,]+), ')


def test_parity(t, ext, cases):
    con = connect(ext)
    con.execute("CREATE TEMP TABLE pcases (id INTEGER PRIMARY KEY, r0 BLOB, c0 BLOB,"
                " astext INTEGER)")
    con.executemany("INSERT INTO pcases VALUES (?, ?, ?, ?)",
                    [(i, r, c, i % 2) for i, (r, c) in enumerate(cases)])
    extra = ", ".join(f"if_pass(r, c, {t_!r})" for t_ in THRESHOLDS)
    got_checks = {}
    for i, seq, kind, label, ok in con.execute(CHECKS_QUERY):
        got_checks.setdefault(i, []).append((seq, kind, label, ok))
    for row in con.execute(PARITY_QUERY.format(extra=extra)):
        i, got_pass, got_eval, got_thr = row[0], row[1], row[2], row[3:]
        resp, cons = cases[i]
        score, reason = oracle.evaluate(resp, cons)
        what = f"case {i}: response={short(resp, 200)} constraints={short(cons, 200)}"
        checks = spec_checks(resp, cons)
        # the test's own check list must explain the oracle's reason
        if checks:
            t.check("oracle", reason_of(checks) == reason and
                    score == sum(ok for _, _, ok in checks) / len(checks),
                    f"{what}: the SPEC check list disagrees with the oracle")
        else:
            t.check("oracle", score is None, f"{what}: no checks but a score")
        if hasattr(oracle, "checks"):
            t.check("oracle", [(k, l, int(o)) for k, l, o in checks] ==
                    [(k, l, o) for _, k, l, o in oracle.checks(resp, cons)],
                    f"{what}: oracle.checks differs from the SPEC check list")
        t.same("if_pass", pass_of(score), got_pass, f"{what}: if_pass(r, c)")
        for thr, g in zip(THRESHOLDS, got_thr):
            t.same("if_pass", pass_of(score, thr), g, f"{what}: if_pass(r, c, {thr!r})")
        try:
            parsed = json.loads(got_eval.decode("utf-8"))
        except (ValueError, AttributeError) as e:
            t.check("if_eval", False, f"{what}: if_eval is not UTF-8 JSON ({e}): "
                    f"{short(got_eval)}")
        else:
            t.same("if_eval", eval_of(score, reason), parsed, f"{what}: if_eval")
            if score is not None:
                m = EVAL_NUMBER.match(got_eval)
                t.check("if_eval", m is not None and
                        m.group(1) == m.group(2) == repr(score).encode(),
                        f"{what}: if_eval numbers are not repr({score!r}): "
                        f"{short(got_eval, 120)}")
        want = [(k, kind.encode(), oracle.encode_out(label), int(ok))
                for k, (kind, label, ok) in enumerate(checks)]
        t.same("if_checks", want, got_checks.get(i, []), f"{what}: if_checks rows")
    con.close()


# --------------------------------------------------------------- threshold

def test_threshold(t, ext):
    con = connect(ext)
    r, c = b"a b c", b'{"max_words": 2, "min_words": 1}'     # score 0.5
    for bad in (None, "abc", "", "0.5abc", b"\x00", b"0.5"):
        try:
            con.execute("SELECT if_pass(?, ?, ?)", (r, c, bad)).fetchone()
        except sqlite3.OperationalError as e:
            t.check("threshold", "threshold" in str(e),
                    f"if_pass(.., {bad!r}): unexpected message {e}")
        else:
            t.check("threshold", False, f"if_pass(.., {bad!r}) is not an error")
    # also when the evaluation is inconclusive
    try:
        con.execute("SELECT if_pass('x', NULL, 'abc')").fetchone()
        t.check("threshold", False, "if_pass('x', NULL, 'abc') is not an error")
    except sqlite3.OperationalError:
        t.check("threshold", True)
    cases = [("0.5", 1), ("0.75", 0), (1, 0), (0, 1), ("1e-3", 1), (0.5, 1),
             (0.5000000000000001, 0)]
    for thr, want in cases:
        got = con.execute("SELECT if_pass(?, ?, ?)", (r, c, thr)).fetchone()[0]
        t.same("threshold", want, got, f"if_pass(score 0.5, {thr!r})")
    t.same("threshold", (1, 1, None, None),
           con.execute("SELECT if_pass(?, ?), if_pass(?, ?, 0.5), if_pass('x', '{}'),"
                       " if_pass('x', '{}', 2)", (r, c, r, c)).fetchone(), "defaults")
    con.close()


# ---------------------------------------------------------------- trusted

# Only ifscore's functions (and json_each, an innocuous table-valued function).
TRUSTED_SCHEMA = """
CREATE TABLE t (
  r TEXT, c TEXT,
  s   REAL    GENERATED ALWAYS AS (if_score(r, c)) VIRTUAL,
  why TEXT    GENERATED ALWAYS AS (if_reason(r, c)) STORED,
  p   INTEGER GENERATED ALWAYS AS (if_pass(r, c)) VIRTUAL,
  p75 INTEGER GENERATED ALWAYS AS (if_pass(r, c, 0.75)) STORED,
  e   TEXT    GENERATED ALWAYS AS (if_eval(r, c)) STORED,
  CHECK (if_reason(r, c) IS NOT NULL),
  CHECK (if_score(r, c) IS NULL OR if_score(r, c) BETWEEN 0 AND 1),
  CHECK (if_pass(r, c) IS if_pass(r, c, 0.5)),
  CHECK (if_eval(r, c) LIKE '{%}')
);
CREATE INDEX t_score ON t (if_score(r, c));
CREATE INDEX t_pass ON t (if_pass(r, c), if_pass(r, c, 1.0));
CREATE INDEX t_reason ON t (if_reason(r, c));
CREATE INDEX t_eval ON t (if_eval(r, c));
CREATE INDEX t_passing ON t (r) WHERE if_pass(r, c) = 1;
CREATE TABLE gate_pass (r TEXT, c TEXT, CHECK (if_pass(r, c) = 1));
CREATE TABLE gate_eval (r TEXT, c TEXT, CHECK (if_eval(r, c) NOT LIKE '{"reason"%'));
CREATE TABLE gate_score (r TEXT, c TEXT, CHECK (if_score(r, c) >= 0.5));
CREATE TABLE gate_reason (r TEXT, c TEXT, CHECK (if_reason(r, c) NOT LIKE '%cannot score'));
CREATE VIEW v AS
  SELECT rowid AS id, if_score(r, c) AS s, if_reason(r, c) AS why, if_pass(r, c) AS p,
         if_pass(r, c, 0.75) AS p75, if_eval(r, c) AS e FROM t;
CREATE VIEW v_checks AS
  SELECT t.rowid AS id, k.seq, k.kind, k.label, k.ok FROM t, if_checks(t.r, t.c) AS k;
CREATE VIEW v_keys AS
  SELECT rowid AS id,
         (SELECT group_concat(key) FROM json_each(if_eval(t.r, t.c))) AS keys FROM t;
CREATE TABLE log (id INTEGER, seq INTEGER, kind TEXT, ok INTEGER);
CREATE TRIGGER t_checks AFTER INSERT ON t BEGIN
  INSERT INTO log SELECT NEW.rowid, seq, kind, ok FROM if_checks(NEW.r, NEW.c);
END;
"""

# JSON1 around if_eval in the schema: SQLite's own JSON functions are not
# innocuous in some versions (3.40), which then refuse these with
# trusted_schema off whatever the extension does.
TRUSTED_JSON_SCHEMA = """
CREATE TABLE tj (
  r TEXT, c TEXT,
  er TEXT GENERATED ALWAYS AS (if_eval(r, c) ->> '$.reason') VIRTUAL,
  CHECK (json_valid(if_eval(r, c)))
);
CREATE INDEX tj_reason ON tj (if_eval(r, c) ->> '$.reason');
CREATE TABLE gate_json (r TEXT, c TEXT, CHECK (if_eval(r, c) ->> '$.score' >= 0.5));
CREATE VIEW v_json AS
  SELECT rowid AS id, json_object('e', if_eval(r, c)) AS wrapped,
         if_eval(r, c) ->> '$.score' AS es FROM tj;
"""

TRUSTED_ROWS = [
    ("Hello world", '{"max_words": 5, "must_include": "hello"}'),
    ("Hello world", '{"max_words": 1, "must_include": ["x", "world"]}'),
    ("one two three", '{"min_words": 4, "max_chars": 5, "must_exclude": "two"}'),
    ('```json\n{"a": 1}\n```', '{"must_be_json": true}'),
    ("anything", None),
    ("anything", '{"tone": "formal"}'),
]


def json1_innocuous(tmp):
    """Whether this SQLite lets its JSON functions run from a schema with
    trusted_schema off."""
    path = os.path.join(tmp, "probe.db")
    con = sqlite3.connect(path)
    con.execute("CREATE VIEW probe AS SELECT json_valid('{}') AS ok")
    con.commit()
    con.close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA trusted_schema = off")
    try:
        return con.execute("SELECT ok FROM probe").fetchone() == (1,)
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()


def reopen(ext, path, trusted):
    con = connect(ext, path)
    con.create_function("py_same", 1, lambda s: s, deterministic=True)
    con.execute(f"PRAGMA trusted_schema = {'on' if trusted else 'off'}")
    return con


def test_trusted(t, ext, tmp):
    path = os.path.join(tmp, "trusted.db")
    con = connect(ext, path)
    con.executescript(TRUSTED_SCHEMA)
    with open(SCHEMA, encoding="utf-8") as f:
        con.executescript(f.read())
    con.create_function("py_same", 1, lambda s: s, deterministic=True)
    con.execute("CREATE VIEW v_control AS SELECT py_same(r) FROM t")
    con.commit()
    con.close()

    con = reopen(ext, path, False)
    t.same("trusted", [(0,)], con.execute("PRAGMA trusted_schema").fetchall(), "pragma")
    con.executemany("INSERT INTO t (r, c) VALUES (?, ?)", TRUSTED_ROWS)
    con.commit()
    expected = {}
    for i, (r, c) in enumerate(TRUSTED_ROWS, 1):
        rb, cb = r.encode(), None if c is None else c.encode()
        score, reason = oracle.evaluate(rb, cb)
        expected[i] = (score, reason, spec_checks(rb, cb))
    for row in con.execute("SELECT rowid, s, why, p, p75, e FROM t"):
        i, s, why, p, p75, e = row
        score, reason, _ = expected[i]
        t.same("trusted", (score, reason.encode(), pass_of(score), pass_of(score, 0.75),
                           eval_of(score, reason)),
               (s, why, p, p75, json.loads(e)), f"generated columns of row {i}")
    for row in con.execute("SELECT id, s, why, p, p75, e FROM v"):
        i, s, why, p, p75, e = row
        score, reason, _ = expected[i]
        t.same("trusted", (score, reason.encode(), pass_of(score), pass_of(score, 0.75),
                           eval_of(score, reason)),
               (s, why, p, p75, json.loads(e)), f"view v, row {i}")
    got = {}
    for i, seq, kind, label, ok in con.execute("SELECT * FROM v_checks ORDER BY id, seq"):
        got.setdefault(i, []).append((seq, kind.decode(), label.decode(), ok))
    logged = {}
    for i, seq, kind, ok in con.execute("SELECT * FROM log ORDER BY id, seq"):
        logged.setdefault(i, []).append((seq, kind.decode(), ok))
    for i, (score, reason, checks) in expected.items():
        want = [(k, kind, label, int(ok)) for k, (kind, label, ok) in enumerate(checks)]
        t.same("trusted", want, got.get(i, []), f"view v_checks, row {i}")
        t.same("trusted", [(k, kind, ok) for k, kind, _, ok in want], logged.get(i, []),
               f"trigger with if_checks, row {i}")
    for i, keys in con.execute("SELECT * FROM v_keys"):
        score, reason, _ = expected[i]
        t.same("trusted", ",".join(eval_of(score, reason)).encode(), keys,
               f"view v_keys (json_each over if_eval), row {i}")
    # the indexes are used and agree with the table
    for index, where in (("t_score", "if_score(r, c) > 0.4"),
                         ("t_eval", "if_eval(r, c) = 'x'"),
                         ("t_reason", "if_reason(r, c) = 'x'"),
                         ("t_pass", "if_pass(r, c) = 0")):
        plan = " ".join(str(r[-1]) for r in con.execute(
            f"EXPLAIN QUERY PLAN SELECT r FROM t WHERE {where}"))
        t.check("trusted", index in plan, f"index {index} not used for {where}: {plan}")
    want = sorted(r for i, (r, _) in enumerate(TRUSTED_ROWS, 1)
                  if pass_of(expected[i][0]) == 1)
    got = sorted(r.decode() for (r,) in con.execute(
        "SELECT r FROM t INDEXED BY t_passing WHERE if_pass(r, c) = 1 AND r > ''"))
    t.same("trusted", want, got, "partial index t_passing")
    t.same("trusted", [(b"ok",)], con.execute("PRAGMA integrity_check").fetchall(),
           "integrity_check (recomputes every index expression)")
    # CHECK constraints accept and reject through the functions
    for table in ("gate_pass", "gate_eval", "gate_score", "gate_reason"):
        con.execute(f"INSERT INTO {table} VALUES ('Hello world', '{{\"max_words\": 5}}')")
        try:
            con.execute(f"INSERT INTO {table} VALUES ('Hello world', ?)",
                        ("{}" if table in ("gate_reason", "gate_eval") else
                         '{"max_words": 1}',))
            t.check("trusted", False, f"CHECK of {table} did not reject")
        except sqlite3.IntegrityError as e:
            t.check("trusted", "CHECK constraint failed" in str(e), f"{table}: {e}")
    # run_summary (sql/schema.sql) is pure SQL
    con.execute("INSERT INTO runs (run_id) VALUES ('r')")
    con.execute("INSERT INTO cases (run_id, ord, id, score, expected_behavior)"
                " SELECT 'r', rowid, rowid, s, 'good' FROM t")
    scores = [{"score": expected[i][0], "expected_behavior": "good"}
              for i in sorted(expected)]
    t.same("trusted", (b"r",) + runner_summary(scores),
           con.execute("SELECT * FROM run_summary").fetchone(), "run_summary")
    con.execute("UPDATE t SET r = r || ' more'")
    t.same("trusted", [(b"ok",)], con.execute("PRAGMA integrity_check").fetchall(),
           "integrity_check after UPDATE")
    # the control: a function that is not innocuous is refused in a view
    try:
        con.execute("SELECT * FROM v_control").fetchall()
        t.check("trusted", False, "control: py_same() accepted in a view")
    except sqlite3.OperationalError as e:
        t.check("trusted", "unsafe use of py_same" in str(e), f"control: {e}")
    con.close()
    test_trusted_json(t, ext, tmp)


def test_trusted_json(t, ext, tmp):
    path = os.path.join(tmp, "trusted_json.db")
    con = connect(ext, path)
    con.executescript(TRUSTED_JSON_SCHEMA)
    con.commit()
    con.close()
    strict = json1_innocuous(tmp)
    if not strict:
        print(f"  note: SQLite {sqlite3.sqlite_version}'s JSON1 functions are not "
              "innocuous: JSON1 around if_eval in a schema is tested with "
              "trusted_schema on")
        con = reopen(ext, path, False)
        try:
            con.execute("SELECT * FROM v_json").fetchall()
            t.check("trusted", False, "JSON1 in a view ran with trusted_schema off")
        except sqlite3.DatabaseError as e:     # "malformed database schema (tj)"
            t.check("trusted", re.search(r"unsafe use of (json|->)", str(e)) is not None,
                    f"refused for another reason than JSON1: {e}")
        con.close()
    con = reopen(ext, path, not strict)
    con.executemany("INSERT INTO tj (r, c) VALUES (?, ?)", TRUSTED_ROWS)
    for i, er, wrapped, es in con.execute(
            "SELECT tj.rowid, er, wrapped, es FROM tj JOIN v_json ON id = tj.rowid"):
        r, c = TRUSTED_ROWS[i - 1]
        score, reason = oracle.evaluate(r.encode(), None if c is None else c.encode())
        t.same("trusted", (reason, {"e": eval_of(score, reason)}, score),
               (er.decode(), json.loads(wrapped), es), f"JSON1 generated column and view, row {i}")
    plan = " ".join(str(r[-1]) for r in con.execute(
        "EXPLAIN QUERY PLAN SELECT r FROM tj WHERE if_eval(r, c) ->> '$.reason' = 'x'"))
    t.check("trusted", "tj_reason" in plan, f"index tj_reason not used: {plan}")
    t.same("trusted", [(b"ok",)], con.execute("PRAGMA integrity_check").fetchall(),
           "integrity_check with JSON1 index")
    con.execute("INSERT INTO gate_json VALUES ('a', '{\"max_words\": 1}')")
    try:
        con.execute("INSERT INTO gate_json VALUES ('a b', '{\"max_words\": 1}')")
        t.check("trusted", False, "CHECK of gate_json did not reject")
    except sqlite3.IntegrityError:
        t.check("trusted", True)
    con.close()


# ---------------------------------------------------------------- subtype

def test_subtype(t, ext):
    con = connect(ext)
    con.text_factory = str
    rows = [("Hello world", '{"max_words": 1, "must_include": "hello"}'),
            ("x", None), ("x", '{"a": 1}'), ("tab\tand \"quotes\"\n", '{"must_include": "\\""}')]
    for r, c in rows:
        score, reason = oracle.evaluate(r.encode(), None if c is None else c.encode())
        want = eval_of(score, reason)
        q = con.execute(
            "SELECT if_eval(?1, ?2) ->> '$.reason', json_extract(if_eval(?1, ?2), '$.score'),"
            " if_eval(?1, ?2) -> '$.instruction_following', json_type(if_eval(?1, ?2)),"
            " json_valid(if_eval(?1, ?2)), json_object('e', if_eval(?1, ?2)),"
            " json_array(if_eval(?1, ?2), 1), json_set('{}', '$.e', if_eval(?1, ?2)),"
            " json_insert(if_eval(?1, ?2), '$.x', 1)", (r, c)).fetchone()
        what = f"if_eval({r!r}, {c!r})"
        t.same("subtype", reason, q[0], f"{what} ->> '$.reason'")
        t.same("subtype", score, q[1], f"json_extract({what}, '$.score')")
        t.same("subtype", None if score is None else repr(score), q[2],
               f"{what} -> '$.instruction_following'")
        t.same("subtype", ("object", 1), (q[3], q[4]), f"json_type / json_valid of {what}")
        t.same("subtype", {"e": want}, json.loads(q[5]), f"json_object('e', {what})")
        t.same("subtype", [want, 1], json.loads(q[6]), f"json_array({what}, 1)")
        t.same("subtype", {"e": want}, json.loads(q[7]), f"json_set('{{}}', '$.e', {what})")
        t.same("subtype", dict(want, x=1), json.loads(q[8]), f"json_insert({what}, '$.x', 1)")
        each = con.execute("SELECT key, value, type FROM json_each(if_eval(?, ?))",
                           (r, c)).fetchall()
        t.same("subtype", [(k, v, "real" if isinstance(v, float) else "text")
                           for k, v in want.items()], each, f"json_each({what})")
    got = con.execute("SELECT json_group_array(if_eval(r, c)) FROM (SELECT 'a b' AS r,"
                      " '{\"max_words\": 1}' AS c UNION ALL SELECT 'a', '{}')").fetchone()[0]
    t.same("subtype", [eval_of(0.0, "0/1 satisfied; failed: max_words<=1 (got 2)"),
                       eval_of(None, oracle.R_NO_CONSTRAINTS)], json.loads(got),
           "json_group_array(if_eval(...))")
    con.close()


# --------------------------------------------------------------- rounding

def tie_values():
    vals = set()
    for k in range(0, 20001):
        vals.add(k / 20000)                    # x.xxxx5 and x.xxxx0 (nearest double)
        b = (2 * k + 1) / 20000
        vals.add(math.nextafter(b, 0.0))
        vals.add(math.nextafter(b, 2.0))
    vals.update(k / 32 for k in range(33))
    vals.update(k / 2 ** 14 for k in range(2 ** 14 + 1))
    vals.update([0.12345, 0.00005, 0.00015, 2.675, 1.00005, 0.5, 5e-324, 1e-300,
                 0.99995, 0.999949999999, 1 / 3, 2 / 3, 0.1 + 0.2])
    return vals


def test_rounding(t, rng):
    con = sqlite3.connect(":memory:")          # pure SQL: no extension
    with open(SCHEMA, encoding="utf-8") as f:
        con.executescript(f.read())
    vals = sorted(tie_values())
    vals += [rng.random() for _ in range(30000)]
    vals += [rng.uniform(0, 10 ** rng.randrange(0, 11)) for _ in range(20000)]
    vals += [-rng.random() for _ in range(2000)] + [-k / 20000 for k in range(0, 2001)]
    vals += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(63)))[0]
             for _ in range(20000)]
    vals = [v for v in vals if math.isfinite(v) and abs(v) < 2 ** 53 / 10000]
    con.executemany("INSERT INTO runs (run_id) VALUES (?)",
                    [(f"r{i}",) for i in range(len(vals))])
    con.executemany("INSERT INTO cases (run_id, ord, id, score) VALUES (?, 0, 'c', ?)",
                    [(f"r{i}", v) for i, v in enumerate(vals)])
    got = dict(con.execute("SELECT run_id, mean_score FROM run_summary"))
    bad = [(v, round(v, 4), got[f"r{i}"]) for i, v in enumerate(vals)
           if not same(round(v, 4) + 0.0, got[f"r{i}"] + 0.0)]
    t.check("rounding", not bad, f"{len(bad)} of {len(vals)} values differ, e.g. "
            + ", ".join(f"round({v!r}, 4) = {w!r}, view {g!r}" for v, w, g in bad[:5]))
    t.check("rounding", len(got) == len(vals), "a run is missing from run_summary")
    # SQLite's own round() and printf would not do (the reason for the view's code)
    sqlite_round = con.execute("SELECT round(0.03125, 4), printf('%.4f', 0.03125)").fetchone()
    t.check("rounding", round(0.03125, 4) == 0.0312 and sqlite_round != (0.0312, "0.0312"),
            f"SQLite's round/printf now round ties to even: {sqlite_round}")
    con.close()


# ---------------------------------------------------------------- summary

def runner_summary(cases):
    """The runner's summary over cases (dicts with score, expected_behavior) in
    the order of its cases[] array."""
    scored = [c for c in cases if isinstance(c["score"], (int, float))]
    for c in scored:
        c["passed"] = c["score"] >= PASS_THRESHOLD
    mean = sum(c["score"] for c in scored) / len(scored) if scored else None
    pass_rate = sum(1 for c in scored if c["passed"]) / len(scored) if scored else None
    good = [c for c in scored if c["expected_behavior"] == "good"]
    bad = [c for c in scored if c["expected_behavior"] == "bad"]
    return (len(scored), len(cases) - len(scored),
            round(mean, 4) if mean is not None else None,
            round(pass_rate, 4) if pass_rate is not None else None,
            round(sum(1 for c in good if c["passed"]) / len(good), 4) if good else None,
            round(sum(1 for c in bad if c["passed"]) / len(bad), 4) if bad else None)


def random_score(rng):
    k = rng.randrange(9)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([0.0, 1.0, 0.5, 0.49999999999999994, 0.25])
    if k == 2:
        return rng.random()
    b = rng.randrange(1, 13)
    return rng.randrange(b + 1) / b


ORDER_SENSITIVE = [
    [0.42857142857142855, 0.0, 0.5, 0.5714285714285714, 0.0, 1.0, 1.0, 0.25],
    [1.0, 1.0, 0.16666666666666666, 1.0, 1.0, 0.0, 0.75, 0.8333333333333334],
    [0.6, 0.0, 1.0, 0.8, 1.0, 0.5, 0.25, 0.5],
    [0.6, 0.0, 0.0, 0.0, 0.25, 0.5, 0.16666666666666666, 0.3333333333333333],
    [1.0, 1.0, 0.5, 0.3333333333333333, 0.25, 0.6, 0.6666666666666666, 0.0],
]


def test_summary(t, rng):
    con = sqlite3.connect(":memory:")
    with open(SCHEMA, encoding="utf-8") as f:
        con.executescript(f.read())
    runs = {}
    for i in range(400):
        n = rng.choice([0, 1, 2, 3, 5, 8, 20, 60, 200])
        runs[f"run{i}"] = [{"score": random_score(rng),
                            "expected_behavior": rng.choice(
                                ["good", "good", "bad", "Good", "BAD", None, "neutral", ""])}
                           for _ in range(n)]
    con.executemany("INSERT INTO runs (run_id) VALUES (?)", [(r,) for r in runs])
    rows = [(r, k, f"c{k}", c["score"], c["expected_behavior"])
            for r, cs in runs.items() for k, c in enumerate(cs)]
    rng.shuffle(rows)                          # insertion order is not the order
    con.executemany("INSERT INTO cases (run_id, ord, id, score, expected_behavior)"
                    " VALUES (?, ?, ?, ?, ?)", rows)
    got = {r[0]: r[1:] for r in con.execute("SELECT * FROM run_summary")}
    for run_id, cases in runs.items():
        t.same("summary", runner_summary(cases), got.get(run_id), f"run_summary of {run_id}")
    # The order matters: the sum is Python 3.11's, left to right in cases[]
    # order. In these runs another order (or a compensated sum, as in Python
    # 3.12+ and SQLite 3.43+) rounds the mean the other way.
    for k, xs in enumerate(ORDER_SENSITIVE):
        forward = round(sum(xs) / len(xs), 4)
        other = {round(sum(reversed(xs)) / len(xs), 4), round(math.fsum(xs) / len(xs), 4)}
        t.check("summary", other - {forward}, f"ORDER_SENSITIVE[{k}] is not order sensitive")
        run_id = f"order{k}"
        con.execute("INSERT INTO runs (run_id) VALUES (?)", (run_id,))
        con.executemany("INSERT INTO cases (run_id, ord, id, score) VALUES (?, ?, 'c' || ?2, ?)",
                        [(run_id, j, x) for j, x in reversed(list(enumerate(xs)))])
        got = con.execute("SELECT mean_score FROM run_summary WHERE run_id = ?",
                          (run_id,)).fetchone()[0]
        t.same("summary", forward, got, f"mean of {xs} in cases[] order")
    con.close()


# ---------------------------------------------------------------- scripts

def cli(sqlite, db, script, params=(), ext=None, check=True, cmds=()):
    """The CLI running script on db; cmds: dot-commands to run first."""
    args = [sqlite, "-bail"]
    if ext:
        args += ["-cmd", f".load {ext}"]
    for c in cmds:
        args += ["-cmd", c]
    for name, value in params:
        args += ["-cmd", f".parameter set {name} {value}"]
    args.append(db)
    with open(script, encoding="utf-8") as f:
        p = subprocess.run(args, stdin=f, capture_output=True, cwd=ROOT)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} < {script}: exit {p.returncode}\n"
                           f"{p.stderr.decode(errors='replace')}")
    return p


def import_run(sqlite, db, results, dataset=DATASET, dataset_name=None, check=True):
    params = [(":results", results)]
    if dataset is not None:
        params.append((":dataset", dataset))
    if dataset_name is not None:
        params.append((":dataset_name", dataset_name))
    return cli(sqlite, db, IMPORT, params, check=check)


def fresh_db(sqlite, path):
    if os.path.exists(path):
        os.remove(path)
    cli(sqlite, path, SCHEMA)


def dump(path, with_rowids=True, without=()):
    """The database as SQL text (and rowids); `without`: (table, column) pairs
    set to NULL first, in a copy."""
    if without:
        copy = path + ".copy"
        shutil.copyfile(path, copy)
        con = sqlite3.connect(copy)
        for table, column in without:
            con.execute(f"UPDATE {table} SET {column} = NULL")
        con.commit()
        out = dump(copy, with_rowids)
        con.close()
        os.remove(copy)
        return out
    con = sqlite3.connect(path)
    out = list(con.iterdump())
    if with_rowids:
        out += con.execute("SELECT rowid, run_id, ord FROM cases ORDER BY rowid").fetchall()
        out += con.execute("SELECT rowid, run_id FROM runs ORDER BY rowid").fetchall()
    con.close()
    return out


def parsed_cases(path):
    """The cases of a database with constraints parsed."""
    cases = read_db(path)[1]
    for c in cases.values():
        if c["constraints"] is not None:
            c["constraints"] = json.loads(c["constraints"])
    return cases


def load_dataset(path):
    by_id = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                by_id[d["id"]] = d
    return by_id


def expected_rows(results_paths, dataset_by_id):
    """What import.sql must write, computed from the files in Python."""
    runs, cases = {}, {}
    for path in results_paths:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        runs[run["run_id"]] = (run["completed_at"], run["agent_endpoint"],
                               run.get("model", run["agent_endpoint"]), run["pipeline"],
                               run["total_cases"], run["summary"],
                               os.path.basename(DATASET), path)
        for k, c in enumerate(run["cases"]):
            d = dataset_by_id.get(c["id"], {})
            cons = d.get("constraints")
            score = c["score"]
            passed = None if score is None else int(score >= 0.5)
            runner_passed = None if c["passed"] is None else int(c["passed"])
            cases[(run["run_id"], k)] = {
                "id": c["id"], "benchmark": c["benchmark"], "input": c["input"],
                "expected_behavior": c["expected_behavior"],
                "agent_response": c["agent_response"],
                "constraints": None if cons is None else cons,
                "score": score, "passed": passed, "reason": c["reason"],
                "runner_score": score, "runner_passed": runner_passed,
                "runner_reason": c["reason"], "source": c.get("source"),
                "notes": c.get("notes"), "rescorable": 1, "scored_by": "runner",
            }
    return runs, cases


CASE_COLUMNS = ["id", "benchmark", "input", "expected_behavior", "agent_response",
                "constraints", "score", "passed", "reason", "runner_score",
                "runner_passed", "runner_reason", "source", "notes", "rescorable",
                "scored_by"]


def read_db(path):
    con = sqlite3.connect(path)
    runs = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, completed_at, agent_endpoint, model, pipeline, total_cases, summary,"
        " dataset, results_file FROM runs")}
    cases = {}
    for row in con.execute(f"SELECT run_id, ord, {', '.join(CASE_COLUMNS)} FROM cases"):
        cases[(row[0], row[1])] = dict(zip(CASE_COLUMNS, row[2:]))
    summary = {r[0]: r[1:] for r in con.execute("SELECT * FROM run_summary")}
    con.close()
    return runs, cases, summary


def as_summary_tuple(s):
    return (s["scored_cases"], s["inconclusive_cases"], s["mean_score"], s["pass_rate"],
            s["good_case_pass_rate"], s["bad_case_pass_rate"])


def test_scripts(t, ext, sqlite, tmp):
    if shutil.which(sqlite) is None:
        t.check("scripts", False, f"no sqlite3 CLI '{sqlite}'")
        return
    db = os.path.join(tmp, "runs.db")
    fresh_db(sqlite, db)
    for path in RESULTS:
        import_run(sqlite, db, path)
    by_id = load_dataset(DATASET)
    want_runs, want_cases = expected_rows(RESULTS, by_id)
    runs, cases, summary = read_db(db)
    t.same("scripts", sorted(want_runs), sorted(runs), "imported run ids")
    for run_id, w in want_runs.items():
        g = runs.get(run_id)
        t.same("scripts", w[:5] + w[6:], g and g[:5] + g[6:], f"runs row {run_id}")
        t.same("scripts", w[5], g and json.loads(g[5]), f"runs.summary of {run_id}")
        # the file's summary was written by the runner: the view agrees before regrading
        t.same("scripts", as_summary_tuple(w[5]), summary.get(run_id),
               f"run_summary of {run_id} = the file's summary")
    t.same("scripts", sorted(want_cases), sorted(cases), "imported case keys")
    for key, w in want_cases.items():
        g = dict(cases.get(key, {}))
        if g.get("constraints") is not None:         # None stays SQL NULL, not 'null'
            g["constraints"] = ("parsed", json.loads(g["constraints"]))
        w = dict(w, constraints=None if w["constraints"] is None
                 else ("parsed", w["constraints"]))
        for col in CASE_COLUMNS:
            t.same("scripts", w[col], g.get(col), f"cases {key} column {col}")
    # the view against the runner's formula computed here over the same data
    for run_id in want_runs:
        rows = [want_cases[k] for k in sorted(want_cases) if k[0] == run_id]
        t.same("scripts", runner_summary([dict(r) for r in rows]), summary[run_id],
               f"run_summary of {run_id} = runner formula (as imported)")

    # idempotence: again, and after another run, gives the same database
    before = dump(db)
    import_run(sqlite, db, RESULTS[0])
    t.same("scripts", before, dump(db), "importing run 1 again changes nothing")
    import_run(sqlite, db, RESULTS[1])
    import_run(sqlite, db, RESULTS[0])
    t.same("scripts", before, dump(db), "importing 1, 2, 1 again changes nothing")

    # dataset forms: JSON array (pretty), JSON array (one line), CRLF JSONL with
    # blank lines, a results file holding both runs as an array
    rows = [json.loads(line) for line in open(DATASET, encoding="utf-8") if line.strip()]
    forms = {
        "array.json": json.dumps(rows, indent=2, ensure_ascii=False),
        "array1.json": json.dumps(rows, ensure_ascii=False),
        "bom.jsonl": "\ufeff" + "\n".join(json.dumps(r, ensure_ascii=False) for r in rows),
        "crlf.jsonl": "\r\n".join([""] + [json.dumps(r, ensure_ascii=False) + "  "
                                           for r in rows] + ["", ""]),
        "dup.jsonl": "\n".join(json.dumps(dict(r, constraints={"max_words": 1}))
                               for r in rows) + "\n" +
                     "\n".join(json.dumps(r, ensure_ascii=False) for r in rows),
    }
    for name, text in forms.items():
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        other = os.path.join(tmp, "other.db")
        fresh_db(sqlite, other)
        for r in RESULTS:
            import_run(sqlite, other, r, path, os.path.basename(DATASET))
        t.same("scripts", before, dump(other), f"dataset as {name} gives the same database")
    # \u escapes stay escapes in the stored JSON text: the same values, parsed
    path = os.path.join(tmp, "ascii.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in rows))
    fresh_db(sqlite, other)
    for r in RESULTS:
        import_run(sqlite, other, r, path)
    t.same("scripts", parsed_cases(db), parsed_cases(other),
           "dataset with \\u escapes gives the same values")
    both = os.path.join(tmp, "both.json")
    with open(both, "w", encoding="utf-8") as f:
        json.dump([json.load(open(p, encoding="utf-8")) for p in RESULTS], f)
    other = os.path.join(tmp, "other.db")
    fresh_db(sqlite, other)
    import_run(sqlite, other, both)
    t.same("scripts", dump(db, False, [("runs", "results_file")]),
           dump(other, False, [("runs", "results_file")]),
           "one results file with all the runs gives the same rows")
    t.same("scripts", [(both,)] * len(RESULTS),
           sqlite3.connect(other).execute("SELECT results_file FROM runs").fetchall(),
           "runs.results_file: the :results path as given")
    with open(both, "w", encoding="utf-8-sig") as f:   # a byte order mark first
        json.dump([json.load(open(p, encoding="utf-8")) for p in RESULTS], f)
    fresh_db(sqlite, other)
    import_run(sqlite, other, both)
    t.same("scripts", dump(db, False, [("runs", "results_file")]),
           dump(other, False, [("runs", "results_file")]),
           "results with a byte order mark give the same rows")
    # a file of no runs: said, nothing changed
    before_empty = dump(other)
    empty = os.path.join(tmp, "empty.json")
    with open(empty, "w", encoding="utf-8") as f:
        f.write("[]")
    p = import_run(sqlite, other, empty)
    t.same("scripts", (f"import: {empty} holds no runs: nothing to import\n", before_empty),
           (p.stderr.decode(), dump(other)), "results of no runs: the note, nothing changed")
    # a shorter version of a run replaces the longer one
    short_run = json.load(open(RESULTS[0], encoding="utf-8"))
    short_run["cases"] = short_run["cases"][:4]
    short_path = os.path.join(tmp, "short.json")
    with open(short_path, "w", encoding="utf-8") as f:
        json.dump(short_run, f)
    import_run(sqlite, other, short_path)
    n = sqlite3.connect(other).execute("SELECT count(*) FROM cases WHERE run_id = ?",
                                       (short_run["run_id"],)).fetchone()[0]
    t.same("scripts", 4, n, "re-import of a shorter run leaves only its cases")
    # without a dataset the cases have no source of constraints (these carry
    # none): the import says so, marks them not rescorable, and the regrade
    # keeps the runner's scores instead of calling them inconclusive
    fresh_db(sqlite, other)
    p = import_run(sqlite, other, RESULTS[0], None)
    t.same("scripts", NO_DATASET_NOTE % (12, 12), p.stderr.decode(),
           "import without :dataset: the note on stderr")
    con = sqlite3.connect(other)
    t.same("scripts", (12, 0, 0, None), con.execute(
        "SELECT count(*), count(constraints), sum(rescorable), (SELECT dataset FROM runs)"
        " FROM cases").fetchone(), "import without :dataset: no constraints, not rescorable")
    cli(sqlite, other, REGRADE, ext=ext)
    t.same("scripts", (12, 12, 10, 0), con.execute(
        "SELECT count(*), sum(score IS runner_score AND passed IS runner_passed"
        " AND reason IS runner_reason AND scored_by = 'runner'), count(score),"
        " (SELECT count(*) FROM checks) FROM cases").fetchone(),
        "the regrade keeps the runner's scores of cases without constraints")
    con.close()
    # :dataset_name without :dataset names the run's dataset
    import_run(sqlite, other, RESULTS[0], None, "'if-cases v2'")   # quoted: a space
    t.same("scripts", [("if-cases v2",)], sqlite3.connect(other).execute(
        "SELECT dataset FROM runs").fetchall(), ":dataset_name without :dataset")
    # cases carrying their own constraints (key "constraints", or
    # "metadata": {"constraints": ...}) are rescorable without a dataset
    own = json.load(open(RESULTS[1], encoding="utf-8"))
    by_id = load_dataset(DATASET)
    for k, c in enumerate(own["cases"]):
        if k % 2:
            c["constraints"] = by_id[c["id"]]["constraints"]
        else:
            c["metadata"] = {"constraints": by_id[c["id"]]["constraints"]}
    own_path = os.path.join(tmp, "own.json")
    with open(own_path, "w", encoding="utf-8") as f:
        json.dump(own, f)
    fresh_db(sqlite, other)
    p = import_run(sqlite, other, own_path, None)
    t.same("scripts", b"", p.stderr, "cases with their own constraints: no note")
    cli(sqlite, other, REGRADE, ext=ext)
    got = sqlite3.connect(other).execute(
        "SELECT rescorable, score, reason FROM cases ORDER BY ord").fetchall()
    for k, c in enumerate(own["cases"]):
        cons = by_id[c["id"]]["constraints"]
        if c["agent_response"] == "" and c["score"] is None:
            want = (1, None, c["reason"])
        else:
            want = (1,) + oracle.evaluate(c["agent_response"].encode(),
                                          None if cons is None else json.dumps(cons).encode())
        t.same("scripts", want, got[k], f"own constraints, case {c['id']}")

    # cases without an agent_response key (answers under another key) are not
    # graded as empty answers: the import says so and the regrade leaves them
    renamed = json.load(open(RESULTS[0], encoding="utf-8"))
    for c in renamed["cases"][3:]:
        c["response"] = c.pop("agent_response")
    renamed["cases"][5]["agent_response"] = None   # JSON null: an empty answer
    renamed_path = os.path.join(tmp, "renamed.json")
    with open(renamed_path, "w", encoding="utf-8") as f:
        json.dump(renamed, f)
    fresh_db(sqlite, other)
    p = import_run(sqlite, other, renamed_path)
    t.same("scripts", f"import: 8 of 12 cases of {renamed_path} have no agent_response: they"
           " keep the runner's scores and sql/regrade.sql leaves them alone (if-005, if-004,"
           " if-006, ...)\n", p.stderr.decode(), "import: the note on cases without agent_response")
    cli(sqlite, other, REGRADE, ext=ext)
    con = sqlite3.connect(other)
    t.same("scripts", [(k < 3 or k == 5, "runner" if 3 <= k != 5 else "regrade")
                       for k in range(12)],
           [(bool(r), s) for r, s in con.execute(
               "SELECT rescorable, scored_by FROM cases ORDER BY ord")],
           "without agent_response: not rescorable, the runner's scores kept")
    cons = load_dataset(DATASET)[renamed["cases"][5]["id"]]["constraints"]
    t.same("scripts", oracle.evaluate(b"", json.dumps(cons).encode()),
           con.execute("SELECT score, reason FROM cases WHERE ord = 5").fetchone(),
           "agent_response null: scored as an empty answer")
    con.close()
    def import_variant(name, change):
        """RESULTS[0] changed by change(run), written to NAME.json and imported
        into a new NAME.db: the run, the two paths and the CLI's process."""
        run = json.load(open(RESULTS[0], encoding="utf-8"))
        change(run)
        path, db_path = (os.path.join(tmp, name + ext) for ext in (".json", ".db"))
        with open(path, "w", encoding="utf-8") as f:
            json.dump(run, f)
        fresh_db(sqlite, db_path)
        return run, path, db_path, import_run(sqlite, db_path, path)

    # a response holding \u0000, which SQLite's JSON functions end at, is not
    # graded by its start: the runner's score stays, and the import says so
    nul, nul_path, nul_db, p = import_variant("nul", lambda r: (
        r.update(run_id="nul"),
        r["cases"][7].update(agent_response="Short\u0000 and then the rest of the answer")))
    t.same("scripts", f"import: 1 of 12 cases of {nul_path} have \\u0000 in agent_response,"
           " where SQLite's JSON functions end it: they keep the runner's scores and"
           " sql/regrade.sql leaves them alone (if-009)\n", p.stderr.decode(),
           "a response holding \\u0000: the note")
    cli(sqlite, nul_db, REGRADE, ext=ext)
    t.same("scripts", (0, "runner", nul["cases"][7]["score"]), sqlite3.connect(nul_db).execute(
        "SELECT rescorable, scored_by, score FROM cases WHERE ord = 7").fetchone(),
        "a response holding \\u0000: not rescorable, the runner's score kept")
    # a completed_at SQLite cannot read, and scores outside 0..1: said
    _, odd_path, _, p = import_variant("odd", lambda r: (
        r.update(run_id="odd", completed_at="2025-06-10T09:00:00-0500"),
        r["cases"][3].update(score=7.5), r["cases"][6].update(score=-1)))
    t.same("scripts", "import: run odd's completed_at 2025-06-10T09:00:00-0500 is not a time"
           " SQLite reads (ISO 8601, such as 2025-06-11T09:21:47+00:00): run-to-run changes and"
           " the report do not place it by when it ran\n"
           f"import: 2 of 12 cases of {odd_path} have a score outside 0..1 (the first: if-005,"
           " 7.5): pass rates count score >= 0.5 and the report draws 0 to 1\n",
           p.stderr.decode(), "an unreadable completed_at and odd scores: the notes")
    # importing a regraded run again undoes its regrade, and says so
    p = import_run(sqlite, other, renamed_path)
    t.same("scripts", f"import: 8 of 12 cases of {renamed_path} have no agent_response: they"
           " keep the runner's scores and sql/regrade.sql leaves them alone (if-005, if-004,"
           " if-006, ...)\n"
           "import: the regrade of run 20250611_091502 is undone: its scores are the runner's"
           " until sql/regrade.sql runs again\n", p.stderr.decode(),
           "import of a regraded run: the note")
    # a run_id stored for another model is replaced only with :replace, which says so
    clash = dict(json.load(open(RESULTS[0], encoding="utf-8")), model="phi-3-mini")
    clash_path = os.path.join(tmp, "clash.json")
    with open(clash_path, "w", encoding="utf-8") as f:
        json.dump(clash, f)
    p = cli(sqlite, other, IMPORT, [(":results", clash_path), (":dataset", DATASET),
                                    (":replace", "1")])
    t.same("scripts", "import: replacing the stored run of another model: 20250611_091502"
           f" (phi-3-mini here, gpt-4o-mini from {renamed_path})\n", p.stderr.decode(),
           ":replace: the note")
    t.same("scripts", [("20250611_091502", "phi-3-mini", clash_path, 12, 12)],
           sqlite3.connect(other).execute(
               "SELECT run_id, model, results_file, (SELECT count(*) FROM cases),"
               " (SELECT sum(rescorable) FROM cases) FROM runs").fetchall(),
           ":replace: the run replaced, every case rescorable again")
    # a model's run on a dataset name its other runs do not have is compared
    # with none of them: the import says so, until the name is the same
    fresh_db(sqlite, other)
    import_run(sqlite, other, RESULTS[0])
    copy = os.path.join(tmp, "if_dataset_copy.jsonl")
    shutil.copyfile(DATASET, copy)
    p = import_run(sqlite, other, RESULTS[2], copy)
    t.same("scripts", "import: run 20250618_101230 is the first of gpt-4o-mini on the dataset"
           " if_dataset_copy.jsonl, its other runs are on if_dataset.jsonl (run-to-run changes"
           " compare runs of one dataset; :dataset_name names it)\n", p.stderr.decode(),
           "a dataset renamed: the note")
    p = import_run(sqlite, other, RESULTS[2], copy, "if_dataset.jsonl")
    t.same("scripts", b"", p.stderr, "the same dataset name: no note")
    # ... and without one, likewise
    p = import_run(sqlite, other, RESULTS[2], None)
    t.same("scripts", NO_DATASET_NOTE % (12, 12) +
           "import: run 20250618_101230 is the first of gpt-4o-mini without a"
           " dataset name, its other runs are on if_dataset.jsonl (run-to-run changes compare"
           " runs of one dataset; :dataset_name names it)\n", p.stderr.decode(),
           "a run without a dataset name: the note")
    # a new version of the dataset under the same name: the cases whose
    # constraints changed are counted against the model's other run
    v2 = os.path.join(tmp, "v2")
    os.makedirs(v2, exist_ok=True)
    rows = [json.loads(line) for line in open(DATASET, encoding="utf-8") if line.strip()]
    rows[0]["constraints"] = {"max_words": 1}
    rows[3]["constraints"] = {"max_words": 2, "must_include": ["x"]}
    rows[5]["constraints"] = json.dumps(rows[5]["constraints"])   # a string of JSON
    with open(os.path.join(v2, "if_dataset.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in rows))
    p = import_run(sqlite, other, RESULTS[2], os.path.join(v2, "if_dataset.jsonl"))
    t.same("scripts", "import: 3 cases of run 20250618_101230 on if_dataset.jsonl have other"
           " constraints than in run 20250611_091502 (a change between them may be the"
           " dataset's, not the model's)\n"
           f"import: 1 of 12 cases of {RESULTS[2]} have constraints that are a JSON string,"
           " not an object: the regrade will call them inconclusive (constraints must be a"
           " JSON object)\n", p.stderr.decode(), "a new version of a dataset: the notes")
    t.same("scripts", [(1,)], sqlite3.connect(other).execute(
        "SELECT count(DISTINCT to_run) FROM case_changes").fetchall(),
        "the same dataset name: the runs compared")
    # passed is score >= 0.5 whatever the file's "passed" says (missing, as in
    # the older quality_score files, a number, or at odds with the score);
    # runner_passed is the file's, when it is true or false
    first = json.load(open(RESULTS[0], encoding="utf-8"))
    written = [(1.0, 1), (1.0, None), (0.75, True), (0.25, True), (None, True), (0.5, False)]
    later = [0.0, 0.0, 0.25, 1.0, 1.0, 0.5]
    first["cases"] = first["cases"][:len(written)]
    second = json.loads(json.dumps(first))
    second.update(run_id="r-later", completed_at="2025-06-30T00:00:00+00:00")
    for c, (score, passed), d, new_score in zip(first["cases"], written, second["cases"], later):
        for x in (c, d):
            x.pop("passed")
            x.pop("score")
        c["quality_score"] = score            # the runner's older name
        if passed is not None:
            c["passed"] = passed
        d["score"] = new_score
    paths = []
    for k, run in enumerate((first, second)):
        paths.append(os.path.join(tmp, f"passed{k}.json"))
        with open(paths[-1], "w", encoding="utf-8") as f:
            json.dump(run, f)
    fresh_db(sqlite, other)
    for path in paths:
        import_run(sqlite, other, path)
    con = sqlite3.connect(other)
    t.same("scripts", [(1.0, 1, None), (1.0, 1, None), (0.75, 1, 1), (0.25, 0, 1),
                       (None, None, 1), (0.5, 1, 0)],
           con.execute("SELECT score, passed, runner_passed FROM cases WHERE run_id = ?"
                       " ORDER BY ord", (first["run_id"],)).fetchall(),
           "passed from the score; runner_passed as written when a JSON boolean")
    t.same("scripts", ["regressed", "regressed", "regressed", "fixed", "inconclusive",
                       "unchanged"],
           [r[0] for r in con.execute(
               "SELECT x.change FROM case_changes AS x JOIN cases AS c"
               " ON c.run_id = x.to_run AND c.id = x.id ORDER BY c.ord")],
           "run-to-run changes from the scores, not the file's passed")
    con.close()

    # the regrade, through the CLI with the extension
    p = cli(sqlite, db, REGRADE, ext=ext)
    t.check("scripts", b"Failure rate per constraint kind" in p.stdout,
            "regrade.sql printed its tables")
    runs, cases, summary = read_db(db)
    regraded = {}
    for key, w in want_cases.items():
        g = cases[key]
        cons = w["constraints"]
        skip = w["agent_response"] == "" and w["runner_score"] is None
        if skip:
            score, reason = w["score"], w["reason"]
        else:
            score, reason = oracle.evaluate(
                w["agent_response"].encode(),
                None if cons is None else json.dumps(cons).encode())
        t.same("scripts", (score, pass_of(score) if not skip else w["passed"], reason,
                           w["runner_score"], w["runner_passed"], w["runner_reason"],
                           "runner" if skip else "regrade"),
               (g["score"], g["passed"], g["reason"], g["runner_score"],
                g["runner_passed"], g["runner_reason"], g["scored_by"]),
               f"regraded case {key}")
        regraded[key] = {"score": score, "expected_behavior": w["expected_behavior"]}
    changed = sum(1 for k, w in want_cases.items() if regraded[k]["score"] != w["score"])
    t.check("scripts", changed >= 1, "the regrade changed no score (fixture lost its point)")
    for run_id in want_runs:
        rows = [regraded[k] for k in sorted(regraded) if k[0] == run_id]
        t.same("scripts", runner_summary(rows), summary[run_id],
               f"run_summary of {run_id} after regrade = runner formula")
    again = dump(db)
    cli(sqlite, db, REGRADE, ext=ext)
    t.same("scripts", again, dump(db), "regrading twice changes nothing")


# ----------------------------------------------------------------- errors

def error_text(stderr):
    """stderr with the CLI's line numbers taken out (they move when the script
    is edited; the messages are what a user reads)."""
    return re.sub(r"near line \d+:", "near line N:", stderr.decode())


def test_import_errors(t, sqlite, tmp):
    """Each way the import stops: the exact message, exit status 1, and the
    database exactly as before. Every failing check says what it found before
    the import stops on the first."""
    db = os.path.join(tmp, "errors.db")
    fresh_db(sqlite, db)
    import_run(sqlite, db, RESULTS[0])
    before = dump(db)
    run1 = json.load(open(RESULTS[0], encoding="utf-8"))
    rows = [json.loads(line) for line in open(DATASET, encoding="utf-8") if line.strip()]

    def write(name, obj=None, text=None):
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if text is not None else json.dumps(obj))
        return path

    def variant(change):
        run = json.loads(json.dumps(run1))
        change(run)
        return run

    nine = write("nine.jsonl", text="\n".join(json.dumps(r) for r in rows[:9]))
    eleven = write("eleven.jsonl", text="\n".join(json.dumps(r) for r in rows
                                                  if r["id"] != "if-004"))
    many = write("many.json", variant(lambda r: r["cases"].extend(
        dict(r["cases"][0], id=f"x-{k:02d}") for k in range(12))))
    dup = write("dup.json", variant(lambda r: [c.update(id="if-003") for c in r["cases"][3:5]]))
    dup2 = write("dup2.json", variant(lambda r: [c.update(id=i) for c, i in zip(
        r["cases"][6:], ["unknown"] * 3 + ["if-001"] * 2)]))
    noid = write("noid.json", variant(lambda r: r["cases"][2].pop("id")))
    noids = write("noids.json", variant(lambda r: [r["cases"][k].pop("id") for k in (9, 4)]))
    norun = write("norun.json", variant(lambda r: r.pop("run_id")))
    norun2 = write("norun2.json", [run1, variant(lambda r: r.pop("run_id"))])
    twice = write("twice.json", [run1, variant(lambda r: r["cases"].pop())])
    nocases = write("nocases.json", [variant(lambda r: r.update(results=r.pop("cases"))),
                                     variant(lambda r: r.update(run_id="r2", cases={}))])
    other = write("other.json", variant(lambda r: r.update(model="phi-3-mini")))
    lines = [json.dumps(r) for r in rows]
    badline = write("badline.jsonl", text="\n".join(lines[:6] + [lines[6][:-2]] + lines[7:]))
    control = write("control.jsonl", text="\n".join(lines[:2] + [lines[2] + "\x01"] + lines[3:]))
    ds_noid = write("ds_noid.jsonl", text="\n".join(
        lines[:3] + ["", json.dumps({k: v for k, v in rows[3].items() if k != "id"})] + lines[4:]))
    ds_noid_array = write("ds_noid.json", [{k: v for k, v in r.items() if k != "id" or i != 5}
                                           for i, r in enumerate(rows)])
    nul_id = write("nul_id.json", variant(lambda r: r["cases"][4].update(id="if-004\u0000x")))
    odd_id = write("odd_id.json", variant(lambda r: r["cases"][4].update(id=True)))
    nan = write("nan.json", variant(lambda r: r["cases"][2].update(score=float("nan"))))
    utf16 = os.path.join(tmp, "utf16.json")
    with open(utf16, "w", encoding="utf-16") as f:
        json.dump(run1, f)
    two = write("two.jsonl", text="\n".join(lines[:3] + [lines[3] + ", " + lines[4]] + lines[5:]))
    odd_case = write("odd_case.json", variant(lambda r: r["cases"].insert(1, "b")))
    odd_run = write("odd_run.json", [run1, "x"])
    odd_file = write("odd_file.json", "just a string")
    odd_ds = write("odd_ds.json", rows[:2] + [7] + rows[2:])
    dup_key = write("dup_key.json", text=json.dumps(run1).replace(
        '"score": 1.0,', '"score": 0.0, "score": 1.0,', 1))
    ds_nul_id = write("ds_nul_id.jsonl", text="\n".join(
        lines[:2] + [json.dumps(dict(rows[2], id=rows[2]["id"] + "\u0000"))] + lines[3:]))
    ds_odd_id = write("ds_odd_id.jsonl", text="\n".join(
        lines[:2] + [json.dumps(dict(rows[2], id=2.5))] + lines[3:]))
    missing = os.path.join(tmp, "absent.json")
    def stop(check):   # the CHECK constraint that stops the import, as the CLI says it
        return f"Runtime error near line N: CHECK constraint failed: import: {check} (19)\n"
    stop_not_json = stop("the :dataset file is neither JSON nor JSONL")
    stop_dataset_id = stop("a dataset case has no id")
    stop_missing = ("Runtime error near line N: CHECK constraint failed: import: cases missing"
                    " from the :dataset file; nothing imported (19)\n")
    stop_repeat = ("Runtime error near line N: CHECK constraint failed: import: a case id"
                   " repeats within a run; nothing imported (19)\n")
    cases = [
        ("no :results", None, DATASET,
         'import: :results is not set (-cmd ".parameter set :results FILE")\n'
         "Runtime error near line N: CHECK constraint failed: import: set :results to a"
         " readable eval_results.json (19)\n"),
        ("unreadable :results", missing, DATASET,
         f"import: cannot read the :results file {missing}\n"
         "Runtime error near line N: CHECK constraint failed: import: set :results to a"
         " readable eval_results.json (19)\n"),
        ("unreadable :dataset", RESULTS[0], missing,
         f"import: cannot read the :dataset file {missing}\n"
         "Runtime error near line N: CHECK constraint failed: import: cannot read the"
         " :dataset file (19)\n"),
        ("results not JSON", DATASET, DATASET,
         f"import: the :results file {DATASET} is not valid JSON\n"
         "Runtime error near line N: CHECK constraint failed: import: the :results file is"
         " not valid JSON (19)\n"),
        ("both files unreadable: the results named", missing, missing + ".jsonl",
         f"import: cannot read the :results file {missing}\n"
         "Runtime error near line N: CHECK constraint failed: import: set :results to a"
         " readable eval_results.json (19)\n"),
        ("three ids missing from the dataset", RESULTS[0], nine,
         f"import: 3 case ids of {RESULTS[0]} are not in the :dataset file {nine}:"
         " if-010, if-012, if-011\n" + stop_missing),
        ("one id missing from the dataset", RESULTS[0], eleven,
         f"import: 1 case id of {RESULTS[0]} is not in the :dataset file {eleven}:"
         " if-004\n" + stop_missing),
        ("fifteen ids missing: ten named", many, nine,
         f"import: 15 case ids of {many} are not in the :dataset file {nine}: if-010,"
         " if-012, if-011, x-00, x-01, x-02, x-03, x-04, x-05, x-06 and 5 more\n"
         + stop_missing),
        ("a repeated id", dup, DATASET,
         f"import: a case id repeats within a run in {dup} (ids must be unique per run):"
         " if-003 (run 20250611_091502, 3 cases)\n" + stop_repeat),
        ("two repeated ids", dup2, DATASET,
         f"import: a case id repeats within a run in {dup2} (ids must be unique per run):"
         " if-001 (run 20250611_091502, 3 cases), unknown (run 20250611_091502, 3 cases)\n"
         f"import: 1 case id of {dup2} is not in the :dataset file {DATASET}: unknown\n"
         + stop_repeat),
        ("a case without id", noid, DATASET,
         f"import: a case of {noid} has no id: cases[2] of run 20250611_091502\n"
         "Runtime error near line N: CHECK constraint failed: import: a case has no id"
         " (19)\n"),
        ("two cases without id", noids, DATASET,
         f"import: 2 cases of {noids} have no id: the first, cases[4] of run 20250611_091502\n"
         "Runtime error near line N: CHECK constraint failed: import: a case has no id"
         " (19)\n"),
        ("a run without run_id", norun, DATASET,
         f"import: {norun} has no run_id\n"
         "Runtime error near line N: CHECK constraint failed: import: a run has no run_id"
         " (19)\n"),
        ("the second run without run_id", norun2, DATASET,
         f"import: the run at [1] of {norun2} has no run_id\n"
         "Runtime error near line N: CHECK constraint failed: import: a run has no run_id"
         " (19)\n"),
        ("a run_id twice in the file", twice, DATASET,
         f"import: a run_id names several runs of {twice}: 20250611_091502 (2 runs)\n"
         "Runtime error near line N: CHECK constraint failed: import: a run_id names several"
         " runs of the file; nothing imported (19)\n"),
        ("runs without a cases array", nocases, DATASET,
         f"import: 2 runs of {nocases} have no cases array: 20250611_091502, r2\n"
         "Runtime error near line N: CHECK constraint failed: import: a run has no cases"
         " array; nothing imported (19)\n"),
        ("a stored run_id of another model", other, DATASET,
         f"import: a run of {other} would replace the stored run of another model:"
         f" 20250611_091502 (phi-3-mini here, gpt-4o-mini from {RESULTS[0]})\n"
         "Runtime error near line N: CHECK constraint failed: import: a run_id is stored for"
         " another model; nothing imported (to replace that run:"
         ' -cmd ".parameter set :replace 1") (19)\n'),
        ("a dataset line that is not JSON", RESULTS[0], badline,
         f"import: line 7 of the :dataset file {badline} is not valid JSON\n" + stop_not_json),
        ("a dataset line with a control character", RESULTS[0], control,
         f"import: the :dataset file {control} is neither JSON nor JSONL\n" + stop_not_json),
        ("a dataset line without id", RESULTS[0], ds_noid,
         f"import: the :dataset case on line 5 of {ds_noid} has no id\n" + stop_dataset_id),
        ("a dataset array element without id", RESULTS[0], ds_noid_array,
         f"import: the :dataset case at [5] of {ds_noid_array} has no id\n" + stop_dataset_id),
        ("NaN in the results", nan, DATASET,
         f"import: the :results file {nan} is not valid JSON (it holds NaN or Infinity, which"
         " Python writes for non-finite floats and JSON has not: write null)\n"
         + stop("the :results file is not valid JSON")),
        ("results in UTF-16", utf16, DATASET,
         f"import: the :results file {utf16} is UTF-16: convert it to UTF-8"
         " (iconv -f UTF-16 -t UTF-8)\n" + stop("the :results file is not valid JSON")),
        ("a dataset line holding two values", RESULTS[0], two,
         f"import: line 4 of the :dataset file {two} holds more than one JSON value\n"
         + stop_not_json),
        ("a case that is not an object", odd_case, DATASET,
         f"import: a case of {odd_case} is not an object: cases[1] of run 20250611_091502\n"
         + stop("a case is not an object; nothing imported")),
        ("a run that is not an object", odd_run, DATASET,
         f"import: the run at [1] of {odd_run} is not an object\n" + stop("a run has no run_id")),
        ("results neither a run nor runs", odd_file, DATASET,
         f"import: {odd_file} holds neither a run object nor an array of them\n"
         + stop("a run has no run_id")),
        ("a dataset case that is not an object", RESULTS[0], odd_ds,
         f"import: the :dataset case at [2] of {odd_ds} is not an object\n" + stop_dataset_id),
        ("a key twice in a case", dup_key, DATASET,
         'import: cases[0] of run 20250611_091502 has the key "score" twice: JSON readers'
         " differ on which counts (Python's the last, SQLite's the first)\n"
         + stop("a key appears twice in one object; nothing imported")),
        ("an id holding \\u0000", nul_id, DATASET,
         "import: 1 id holds \\u0000, which SQLite's JSON functions end a string at:"
         " cases[4] of run 20250611_091502\n" + stop("an id holds \\u0000; nothing imported")),
        ("an id that is true", odd_id, DATASET,   # (read as 1 by SQLite: not in the dataset)
         f"import: 1 case id of {odd_id} is not in the :dataset file {DATASET}: 1\n"
         "import: 1 id is neither a JSON string nor an integer, which SQLite and Python's"
         " runner read differently: cases[4] of run 20250611_091502 has true\n"
         + stop("an id is neither a string nor an integer; nothing imported")),
        ("a dataset id that is 2.5", RESULTS[0], ds_odd_id,
         f"import: 1 case id of {RESULTS[0]} is not in the :dataset file {ds_odd_id}: if-003\n"
         "import: 1 id is neither a JSON string nor an integer, which SQLite and Python's"
         " runner read differently: the :dataset case on line 3 has 2.5\n"
         + stop("an id is neither a string nor an integer; nothing imported")),
        ("a dataset id holding \\u0000", RESULTS[0], ds_nul_id,
         "import: 1 id holds \\u0000, which SQLite's JSON functions end a string at:"
         " the :dataset case on line 3\n" + stop("an id holds \\u0000; nothing imported")),
    ]
    for what, results, dataset, message in cases:
        params = ([] if results is None else [(":results", results)]) + \
                 [(":dataset", dataset)]
        p = cli(sqlite, db, IMPORT, params, check=False)
        t.same("errors", (1, message, b""), (p.returncode, error_text(p.stderr), p.stdout),
               f"import error: {what}")
        t.same("errors", before, dump(db), f"a failed import changes nothing: {what}")

    # a file longer than SQLite's longest string (here a limit lowered to 4,000
    # bytes, below the results file): readfile()'s error, whose line is that of
    # the statement below the comment that explains it
    p = cli(sqlite, db, IMPORT, [(":results", RESULTS[0]), (":dataset", DATASET)],
            check=False, cmds=[".limit length 4000"])
    t.same("errors", (1, "Runtime error near line N: string or blob too big (18)\n"),
           (p.returncode, error_text(p.stderr)), "import error: a file past SQLite's longest string")
    t.same("errors", before, dump(db), "a failed import changes nothing: a file too long")
    at = re.search(rb"near line (\d+)", p.stderr)
    script = open(IMPORT, encoding="utf-8").read().split("\n")
    t.check("errors", at is not None and "readfile(:results)" in script[int(at.group(1))]
            and any('"string or blob too big" here' in line
                    for line in script[int(at.group(1)) - 5:int(at.group(1))]),
            f"the line the CLI names, and the comment above it: {p.stderr!r}")

    # a database without the schema (a mistyped path opens a new, empty one)
    bare = os.path.join(tmp, "bare.db")
    if os.path.exists(bare):
        os.remove(bare)
    p = import_run(sqlite, bare, RESULTS[0], check=False)
    t.same("errors", (1, "Runtime error near line N: CHECK constraint failed: import: this"
                      " database has no runs table: create the tables first (sqlite3 DB <"
                      " sql/schema.sql) (19)\n", b""),
           (p.returncode, error_text(p.stderr), p.stdout), "import into a database without the schema")
    con = sqlite3.connect(bare)
    t.same("errors", [], con.execute("SELECT name FROM sqlite_schema").fetchall(),
           "an import into a database without the schema creates nothing")
    con.close()

    # a database made by the schema before runs.dataset: schema.sql stops and
    # names the upgrade; sql/upgrade.sql then brings it up to date, giving the
    # runner's scores back to the cases an older regrade made inconclusive
    old = os.path.join(tmp, "old.db")
    if os.path.exists(old):
        os.remove(old)
    con = sqlite3.connect(old)
    con.executescript(OLD_SCHEMA)
    con.execute("INSERT INTO runs (run_id, model) VALUES ('r1', 'm')")
    con.executemany(
        "INSERT INTO cases (run_id, ord, id, constraints, score, passed, reason,"
        " runner_score, runner_passed, runner_reason) VALUES ('r1', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(0, "a", '{"max_words": 1}', 1.0, None, "all 1 constraints satisfied",   # no passed
          0.0, 0, "0/1 satisfied; failed: max_words<=1 (got 2)"),
         (1, "b", None, None, None, "no constraints specified — cannot score",
          1.0, 1, "all 2 constraints satisfied")])
    con.commit()
    con.close()
    p = cli(sqlite, old, SCHEMA, check=False)
    t.same("errors", (1, "Runtime error near line N: CHECK constraint failed: schema: this"
                      " database was made by an older sql/schema.sql (runs has no dataset"
                      " column): upgrade it once with sql/upgrade.sql, then run"
                      " sql/schema.sql again (19)\n"),
           (p.returncode, error_text(p.stderr)), "schema.sql on an older database")
    p = cli(sqlite, old, UPGRADE, check=False)
    t.same("errors", (0, b""), (p.returncode, p.stderr), "upgrade.sql")
    p = cli(sqlite, old, SCHEMA, check=False)
    t.same("errors", (0, b""), (p.returncode, p.stderr), "schema.sql after upgrade.sql")
    con = sqlite3.connect(old)
    t.same("errors", [("a", 1, 1.0, 1, "regrade"), ("b", 0, 1.0, 1, "runner")], con.execute(
        "SELECT id, rescorable, score, passed, scored_by FROM cases ORDER BY ord").fetchall(),
        "upgrade.sql: rescorable, scored_by, the runner's score back, passed from it")
    t.same("errors", [("case_changes",), ("kind_summary",), ("run_summary",)], con.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name").fetchall(),
        "schema.sql after upgrade.sql: the views")
    con.close()
    upgraded = dump(old)
    p = cli(sqlite, old, UPGRADE, check=False)
    t.same("errors", (1, "upgrade: this database is up to date already (runs has a dataset"
                      " column): run sql/schema.sql\nRuntime error near line N: CHECK"
                      " constraint failed: upgrade: nothing to do; nothing changed (19)\n"),
           (p.returncode, error_text(p.stderr)), "upgrade.sql run twice: says so")
    t.same("errors", upgraded, dump(old), "upgrade.sql run twice: nothing changed")


# The schema before runs.dataset, for the upgrade test.
OLD_SCHEMA = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY NOT NULL, completed_at TEXT,
  agent_endpoint TEXT, model TEXT, pipeline TEXT, total_cases INTEGER, summary TEXT);
CREATE TABLE cases (run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  ord INTEGER NOT NULL, id TEXT NOT NULL, benchmark TEXT, input TEXT,
  expected_behavior TEXT, agent_response TEXT, constraints TEXT, score REAL,
  passed INTEGER, reason TEXT, runner_score REAL, runner_passed INTEGER,
  runner_reason TEXT, source TEXT, notes TEXT, PRIMARY KEY (run_id, ord));
"""


# ---------------------------------------------------------------- memory

def peak_heap_mb(sqlite, script, params, db):
    """(SQLite's peak heap in MB, exit status) of the CLI running script: the
    high-water mark that `.stats on` prints after each statement (the JSON
    parses, readfile() and the copies of values are all on that heap)."""
    p = cli(sqlite, db, script, params, check=False, cmds=[".stats on"])
    highs = re.findall(rb"Memory Used: +\d+ \(max (\d+)\) bytes", p.stdout)
    return (max(int(h) for h in highs) / 2 ** 20 if highs else None), p.returncode


def test_import_memory(t, sqlite, tmp):
    """The import holds a few copies of a file's text, not one per JSON
    function that reads it (SQLite keeps each one's parse to the statement's
    end): a 4,000-case run and its JSONL dataset, 13 MB each."""
    rng = random.Random(7)
    words = "the model answers each question with a short paragraph and a list".split()

    def text(n):
        return " ".join(rng.choice(words) for _ in range(n))
    results, dataset = os.path.join(tmp, "big_results.json"), os.path.join(tmp, "big.jsonl")
    cases = [{"id": f"case-{i}", "agent_response": text(600), "score": 1.0, "passed": True,
              "reason": "ok"} for i in range(4000)]
    with open(results, "w", encoding="utf-8") as f:
        json.dump({"run_id": "big", "model": "m", "completed_at": "2025-01-01T00:00:00Z",
                   "cases": cases}, f)
    with open(dataset, "w", encoding="utf-8") as f:
        for i in range(4000):
            f.write(json.dumps({"id": f"case-{i}", "constraints": {"max_words": 500},
                                "input": text(600)}) + "\n")
    db = os.path.join(tmp, "big.db")
    fresh_db(sqlite, db)
    peak, code = peak_heap_mb(sqlite, IMPORT, [(":results", results), (":dataset", dataset)], db)
    t.same("memory", 0, code, "the import's exit status")
    con = sqlite3.connect(db)
    t.same("memory", [(4000, 4000, 600 * 4000)],
           con.execute("SELECT count(*), count(input), sum(length(agent_response)"
                       " - length(replace(agent_response, ' ', '')) + 1) FROM cases").fetchall(),
           "cases, inputs and words imported")
    con.close()
    size = max(os.path.getsize(results), os.path.getsize(dataset)) / 2 ** 20
    t.check("memory", peak is not None and peak <= 6 * size,
            f"the import's peak memory: {peak} MB (None: no .stats read), more than 6 times"
            f" the larger file ({size:.1f} MB)")


# ---------------------------------------------------------------- regrade

def sections(stdout):
    """The regrade's printed tables (.mode tabs, headers on): title -> rows."""
    out = {}
    for block in stdout.decode().split("\n\n"):
        lines = block.strip("\n").split("\n")
        if len(lines) >= 2:
            out[lines[0]] = [line.split("\t") for line in lines[2:]]
    return out


def f4(x):
    return "NULL" if x is None else "%.4f" % x


def percent0(failed, checks):
    """printf('%.0f%%', 100.0 * failed / checks): halves away from zero."""
    return "%d%%" % ((200 * failed + checks) // (2 * checks))


def expected_changes(runs, scores):
    """case_changes computed here: runs {run_id: (completed_at, model)},
    scores {(run_id, id): (score, passed, reason, ord)} after the regrade."""
    rows = []
    by_model = {}
    for run_id, (when, model) in runs.items():
        by_model.setdefault(model, []).append((when, run_id))
    for model, series in by_model.items():
        series.sort()
        for (_, prev), (_, cur) in zip(series, series[1:]):
            for (r, cid), (score, passed, reason, _) in scores.items():
                if r != cur or (prev, cid) not in scores:
                    continue
                fs, fp, fr, _ = scores[(prev, cid)]
                change = ("unchanged" if fp == passed else
                          "inconclusive" if fp is None or passed is None else
                          "regressed" if fp == 1 else "fixed")
                rows.append(("if_dataset.jsonl", model, prev, cur, cid, fs, score, fp,
                             passed, fr, reason, change))
    return sorted(rows, key=lambda r: (r[1], r[3], r[4]))


def test_regrade(t, ext, sqlite, tmp):
    """sql/regrade.sql on the four fixture runs: the stored checks against the
    oracle, case_changes against the pairs computed here, and every printed
    table against values computed here or the views."""
    db = os.path.join(tmp, "regrade.db")
    fresh_db(sqlite, db)
    for path in RESULTS:
        import_run(sqlite, db, path)
    by_id = load_dataset(DATASET)
    p = subprocess.run([sqlite, "-bail", "-cmd", f".load {ext}", "-cmd", ".mode tabs", db],
                       stdin=open(REGRADE, encoding="utf-8"), capture_output=True, cwd=ROOT)
    t.same("regrade", (0, b""), (p.returncode, p.stderr), "regrade.sql runs")
    printed = sections(p.stdout)
    con = sqlite3.connect(db)
    runs, scores, want_checks = {}, {}, []
    kept = {}                                   # run -> cases left as the runner scored them
    kinds = {}                                  # (model, run, kind) -> [checks, failed]
    for path in RESULTS:
        run = json.load(open(path, encoding="utf-8"))
        runs[run["run_id"]] = (run["completed_at"], run["model"])
        for k, c in enumerate(run["cases"]):
            cons = by_id[c["id"]]["constraints"]
            cons_b = None if cons is None else json.dumps(cons).encode()
            kept.setdefault(run["run_id"], 0)
            if c["agent_response"] == "" and c["score"] is None:
                score, reason, checks = c["score"], c["reason"], []
                kept[run["run_id"]] += 1
            else:
                score, reason, checks = oracle.result(c["agent_response"].encode(), cons_b)
            scores[(run["run_id"], c["id"])] = (score, pass_of(score), reason, k)
            for seq, kind, label, ok in checks:
                want_checks.append((run["run_id"], c["id"], seq, kind, label, ok))
                n = kinds.setdefault((run["model"], run["run_id"], kind), [0, 0])
                n[0] += 1
                n[1] += 1 - ok
    got_checks = con.execute("SELECT run_id, id, seq, kind, label, ok FROM checks"
                             " ORDER BY run_id, id, seq").fetchall()
    t.same("regrade", sorted(want_checks), got_checks, "checks: one row per check (oracle)")
    t.check("regrade", len(got_checks) == 130, f"checks: {len(got_checks)} rows, not 130")

    # case_changes, every row and column
    want = expected_changes(runs, scores)
    got = con.execute("SELECT * FROM case_changes ORDER BY model, to_run, id").fetchall()
    t.same("regrade", want, got, "case_changes")
    known = {("20250618_101230", "regressed"): ["if-001", "if-003"],
             ("20250618_101230", "fixed"): ["if-007"],
             ("20250618_101230", "inconclusive"): ["if-010"],
             ("20250619_083015", "regressed"): ["if-006"],
             ("20250619_083015", "fixed"): ["if-001", "if-009"],
             ("20250619_083015", "inconclusive"): ["if-010"]}
    for (run_id, change), ids in known.items():
        t.same("regrade", ids, [r[0] for r in con.execute(
            "SELECT id FROM case_changes WHERE to_run = ? AND change = ? ORDER BY id",
            (run_id, change))], f"case_changes: {change} in {run_id}")

    # the printed tables
    summary = {r[0]: r[1:] for r in con.execute("SELECT * FROM run_summary")}
    order = sorted(runs, key=lambda r: runs[r][0])

    def txt(v):
        return "" if v is None else str(v)
    t.same("regrade", [[runs[r][1], r, "if_dataset.jsonl"] + [txt(v) for v in summary[r]]
                       + [str(kept[r])] for r in order],
           printed.get("Summary per run (rates over scored cases; passed = score >= 0.5;"
                       " runner_scored: cases left with the runner's score)"),
           "printed: Summary per run = run_summary")
    per_model = []
    for r in sorted(runs, key=lambda r: (runs[r][1], runs[r][0])):
        ch = [x for x in want if x[3] == r]
        prev = ch[0][2] if ch else ""
        per_model.append([runs[r][1], r, str(summary[r][0]), txt(summary[r][2]),
                          txt(summary[r][3]),
                          str(sum(1 for x in ch if x[11] == "regressed")),
                          str(sum(1 for x in ch if x[11] == "fixed")), prev])
    t.same("regrade", per_model, printed.get(
        "Per model, run by run (changes: against the model's previous run on the dataset)"),
        "printed: Per model, run by run")
    t.same("regrade", [[x[1], x[2], x[3], x[4], x[11], f4(x[5]), f4(x[6]), x[10]]
                       for x in sorted((x for x in want if x[11] in ("regressed", "fixed")),
                                       key=lambda x: (x[1], x[3], x[11] != "regressed", x[4]))],
           printed.get("Regressions and fixes since the previous run"),
           "printed: Regressions and fixes")
    kind_rows = sorted(((m, r, k, n[0], n[1]) for (m, r, k), n in kinds.items()),
                       key=lambda x: (x[0], runs[x[1]][0], x[1], -x[4] / x[3], x[2]))
    t.same("regrade", [[m, r, k, str(c), str(f), percent0(f, c)] for m, r, k, c, f in kind_rows],
           printed.get("Failure rate per constraint kind"),
           "printed: Failure rate per constraint kind (no unscored case counted)")
    # ... and they agree with run_summary: the cases with checks are the scored
    # cases, and a case's score is the share of its checks that passed
    for r in runs:
        ids = {cid for (rr, cid, *_rest) in want_checks if rr == r}
        t.same("regrade", summary[r][0], len(ids), f"checked cases = scored_cases in {r}")
        rates = [sum(c[5] for c in want_checks if c[0] == r and c[1] == i) /
                 sum(1 for c in want_checks if c[0] == r and c[1] == i) for i in sorted(ids)]
        t.same("regrade", summary[r][3], round(sum(x >= 0.5 for x in rates) / len(rates), 4),
               f"pass rate from the checks = run_summary.pass_rate in {r}")
    worst = sorted(((runs[r][1], r, cid, sc[0], sc[2], runs[r][0]) for (r, cid), sc in
                    scores.items() if sc[0] is not None and sc[0] < 0.5),
                   key=lambda x: (x[3], x[0], x[5], x[2]))[:10]
    t.same("regrade", [[m, r, cid, "%.4f" % sc, reason] for m, r, cid, sc, reason, _ in worst],
           printed.get("Worst cases"), "printed: Worst cases (with run_id)")
    # the most failed checks, a limit's together whatever the answers got
    fails = {}
    for r, cid, seq, kind, label, ok in want_checks:
        if kind in ("max_words", "min_words", "max_chars") and " (got " in label:
            label = label[:label.index(" (got ")]
        if not ok:
            fails.setdefault(label, []).append(r)
    top = sorted(fails.items(), key=lambda x: (-len(x[1]), x[0].encode()))[:10]
    t.same("regrade", [[label, str(len(rs)), str(len(set(rs))), sorted({runs[r][1] for r in rs})]
                       for label, rs in top],
           [x[:3] + [sorted(x[3].split(","))] for x in printed.get("Most failed checks", [])],
           "printed: Most failed checks (a limit's failures counted together)")
    t.same("regrade", True, any(len(set(rs)) > 1 and label.startswith("max_chars<=")
                                for label, rs in top),
           "a limit failed with different counts is one row of the most failed checks")
    t.same("regrade", [["20250611_091502", "if-002", "0.7500", "1.0000",
                        "all 4 constraints satisfied"]],
           printed.get("Changed by the regrade (NULL: inconclusive)"),
           "printed: Changed by the regrade")
    con.close()

    # a NULL score prints as NULL, not 0.0000: a dataset whose if-001 has no
    # recognized constraint makes the runner's 1.0 inconclusive
    rows = [json.loads(line) for line in open(DATASET, encoding="utf-8") if line.strip()]
    for r in rows:
        if r["id"] == "if-001":
            r["constraints"] = {"tone": "formal"}
    path = os.path.join(tmp, "tone.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in rows))
    fresh_db(sqlite, db)
    import_run(sqlite, db, RESULTS[0], path)
    p = subprocess.run([sqlite, "-bail", "-cmd", f".load {ext}", "-cmd", ".mode tabs", db],
                       stdin=open(REGRADE, encoding="utf-8"), capture_output=True, cwd=ROOT)
    t.same("regrade", [["20250611_091502", "if-001", "1.0000", "NULL",
                        "no recognized constraints — cannot score"],
                       ["20250611_091502", "if-002", "0.7500", "1.0000",
                        "all 4 constraints satisfied"]],
           sections(p.stdout).get("Changed by the regrade (NULL: inconclusive)"),
           "printed: a NULL score is NULL")


# ------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--ext", default=os.environ.get("IFSCORE_EXT", "build/ifscore"))
    ap.add_argument("--sqlite", default=os.environ.get("SQLITE", "sqlite3"))
    ap.add_argument("--only", default="", help="comma-separated groups to run")
    args = ap.parse_args()
    ext = args.ext if os.path.isabs(args.ext) else os.path.join(ROOT, args.ext)
    if not os.path.exists(ext + ".so") and not os.path.exists(ext):
        sys.exit(f"analytics: {ext}.so is missing; run make first")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10 ** 9)
    print(f"analytics: seed {seed}, extension {ext}")
    rng = random.Random(seed)
    t = Tally(args.show)
    with tempfile.TemporaryDirectory(prefix="ifscore-analytics-") as tmp:
        for name, run in (
                ("parity", lambda: test_parity(t, ext, all_cases(rng, args.count))),
                ("threshold", lambda: test_threshold(t, ext)),
                ("trusted", lambda: test_trusted(t, ext, tmp)),
                ("subtype", lambda: test_subtype(t, ext)),
                ("rounding", lambda: test_rounding(t, rng)),
                ("summary", lambda: test_summary(t, rng)),
                ("scripts", lambda: test_scripts(t, ext, args.sqlite, tmp)),
                ("errors", lambda: test_import_errors(t, args.sqlite, tmp)),
                ("memory", lambda: test_import_memory(t, args.sqlite, tmp)),
                ("regrade", lambda: test_regrade(t, ext, args.sqlite, tmp)),
                ("report", lambda: report_check.test_report(
                    t, sys.modules[__name__], args.sqlite, ext, tmp)),
                ("render", lambda: report_check.test_render(
                    t, sys.modules[__name__], args.sqlite, ext, tmp))):
            if args.only and name not in args.only.split(","):
                continue
            before = (t.passed, t.failed)
            try:
                run()
            except Exception as e:             # a crash is a failure, not the end
                t.check(name, False, f"{type(e).__name__}: {e}")
            print(f"  {name:10} {t.passed - before[0]} passed, {t.failed - before[1]} failed")
    print(f"{t.passed} passed, {t.failed} failed")
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
