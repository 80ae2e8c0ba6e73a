"""report_check.py — tests of sql/report.sql, run by tests/analytics.py (groups
`report` and `render`):

  report   the page from the four fixture runs, written by the sqlite3 CLI without
           the extension, parsed: every figure it shows (tables, cards, chart
           points, bars and bins, their positions on the axes) against the views
           and tables it is computed from; the regressions and fixes against
           case_changes with both reasons; the worst cases; nothing fetched from
           elsewhere; hostile text escaped; an empty database and one never
           regraded; the same page twice.
  render   the same page in headless Chromium (Debian's chromium): no horizontal
           overflow at 1366 and 800 pixels wide, no two labels of a chart
           overlapping and none outside its chart, no table cell overflowing
           (a planted overlap proves the check can fail); screenshots kept in
           build/report.png (1366x768, a laptop screen) and build/report-full.png
           (the whole page), and the printed page in build/report.pdf.
"""

import html
import html.parser
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import tempfile
import zlib

VOID = {"meta", "col", "br", "img", "link", "input", "hr", "source", "wbr", "area",
        "base", "embed", "param", "track"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag=None, cls=None, **attrs):
        """Descendants (depth first) with this tag, class and attributes."""
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if (tag is None or c.tag == tag) and \
                   (cls is None or cls in c.attrs.get("class", "").split()) and \
                   all(c.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                    out.append(c)
                out += c.all(tag, cls, **attrs)
        return out

    def one(self, tag=None, cls=None, **attrs):
        found = self.all(tag, cls, **attrs)
        if len(found) != 1:
            raise AssertionError(f"{len(found)} <{tag} class={cls} {attrs}>, not 1")
        return found[0]


class Parser(html.parser.HTMLParser):
    """A tree of the page; an end tag that closes nothing open is an error (the
    report writes well-formed markup)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root
        self.errors = []

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.cur.tag != tag:
            self.errors.append(f"</{tag}> closes <{self.cur.tag}>")
            return
        self.cur = self.cur.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(page):
    p = Parser()
    p.feed(page)
    p.close()
    if p.cur is not p.root:
        p.errors.append(f"<{p.cur.tag}> never closed")
    return p.root, p.errors


# ------------------------------------------------------------- formatting

def pct(v):
    """A rate of the view (4 decimals) as the page shows it: 0.6667 -> 66.67%."""
    if v is None:
        return "—"
    s = ("%.2f" % (100 * v)).rstrip("0").rstrip(".")
    return s + "%"


def f4(v):
    return "—" if v is None else "%.4f" % v


def tenths_pct(failed, checks):
    """failed / checks as a percentage to one decimal, halves up."""
    t = (2000 * failed + checks) // (2 * checks)
    return f"{t // 10}" + (f".{t % 10}" if t % 10 else "") + "%"


def num(s):
    return float(s)


# ------------------------------------------------------------------ build

def write_report(sqlite, db, root, ext=None):
    args = [sqlite, "-bail"]
    if ext:
        args += ["-cmd", f".load {ext}"]
    with open(os.path.join(root, "sql", "report.sql"), encoding="utf-8") as f:
        return subprocess.run(args + [db], stdin=f, capture_output=True, cwd=root)


def fixture_db(analytics, sqlite, ext, path, regrade=True):
    analytics.fresh_db(sqlite, path)
    for r in analytics.RESULTS:
        analytics.import_run(sqlite, path, r)
    if regrade:
        analytics.cli(sqlite, path, analytics.REGRADE, ext=ext)


MANY_MODELS = ["gpt-4o-mini", "meta-llama/Llama-3.1-70B-Instruct-Turbo",
               "claude-3-5-haiku-20241022"]


def many_db(analytics, sqlite, ext, tmp):
    """14 runs of 3 models (one with a long name) on 2 datasets, made from the
    fixture runs, four a day (one with a mean score above 1): crowded charts,
    six series."""
    path = os.path.join(tmp, "many.db")
    analytics.fresh_db(sqlite, path)
    for i in range(14):
        run = json.load(open(analytics.RESULTS[i % 4], encoding="utf-8"))
        run["run_id"] = f"run-{i:02d}" + "-x" * (i % 3)
        run["completed_at"] = f"2025-07-{i // 4 + 1:02d}T{10 + i % 4 * 2:02d}:00:00+00:00"
        run["model"] = MANY_MODELS[i % 3]
        if i == 0:   # a runner's score off the 0..1 scale, which the regrade keeps
            run["cases"][1]["score"] = 30.0
            del run["cases"][1]["agent_response"]
        results = os.path.join(tmp, f"many-{i}.json")
        with open(results, "w", encoding="utf-8") as f:
            json.dump(run, f)
        analytics.import_run(sqlite, path, results,
                             dataset_name="if_dataset.jsonl" if i % 5 else "other.jsonl")
    analytics.cli(sqlite, path, analytics.REGRADE, ext=ext)
    return path


def changes_db(analytics, sqlite, ext, tmp):
    """Two runs of one model over 130 cases of their own constraints, the second
    flipping every verdict (86 regressed, 44 fixed): more changed cases than the
    page lists."""
    path = os.path.join(tmp, "changes.db")
    analytics.fresh_db(sqlite, path)
    for k in range(2):
        cases = [{"id": f"c{i:03d}", "constraints": {"max_words": 3},
                  "agent_response": "a b" if (i % 3 != 0) != (k == 1) else "a b c d",
                  "score": 1.0, "benchmark": "instruction_following"} for i in range(130)]
        run = {"run_id": f"changes-{k}", "model": "m", "agent_endpoint": "http://m",
               "completed_at": f"2025-08-0{k + 1}T10:00:00+00:00", "cases": cases}
        results = os.path.join(tmp, f"changes-{k}.json")
        with open(results, "w", encoding="utf-8") as f:
            json.dump(run, f)
        analytics.import_run(sqlite, path, results, dataset=None)
    analytics.cli(sqlite, path, analytics.REGRADE, ext=ext)
    return path


def long_db(analytics, sqlite, ext, tmp):
    """Three runs with long unbroken model names and run ids, one id holding a
    right-to-left override: text that must wrap rather than widen the page."""
    path = os.path.join(tmp, "long.db")
    analytics.fresh_db(sqlite, path)
    model = "meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo-" + "x" * 40
    for k, (i, run_id) in enumerate(((0, "run_2025_06_11_" + "long_identifier_" * 4),
                                     (2, "run_2025_06_18_" + "long_identifier_" * 4),
                                     (1, "run-3\u202e-rtl"))):
        run = json.load(open(analytics.RESULTS[i], encoding="utf-8"))
        run.update(run_id=run_id, model=model if k < 2 else "m2")
        results = os.path.join(tmp, f"long-{k}.json")
        with open(results, "w", encoding="utf-8") as f:
            json.dump(run, f)
        analytics.import_run(sqlite, path, results)
    analytics.cli(sqlite, path, analytics.REGRADE, ext=ext)
    return path


# ------------------------------------------------------------------ report

def axis(svg, cls, attr):
    """{value: position} of a chart's tick labels (class tick-y or tick-x):
    the labels sit 4 units below a horizontal grid line, on a vertical one."""
    out = {}
    for t in svg.all("text", cls):
        pos = num(t.attrs[attr]) - (4 if attr == "y" else 0)
        out[float(t.attrs["data-v"])] = pos
    return out


def scale(ticks, v):
    lo, hi = min(ticks), max(ticks)
    return ticks[lo] + (ticks[hi] - ticks[lo]) * (v - lo) / (hi - lo)


def near(a, b, tol=0.11):
    """Coordinates are written with one decimal, and so are the ticks they are
    measured against."""
    return abs(a - b) <= tol


def check_page_is_self_contained(t, g, root, page):
    external = [n.tag for n in root.all() if n.tag in
                ("script", "link", "img", "iframe", "object", "embed", "image", "use",
                 "audio", "video", "source", "base", "form", "frame")]
    t.same(g, [], external, "no element that loads or runs anything")
    t.same(g, [], [(n.tag, k) for n in root.all() for k in n.attrs
                   if k in ("src", "href", "xlink:href", "srcset", "action", "background",
                            "poster", "data") or k.startswith("on")],
           "no attribute that fetches or runs anything")
    style = "".join(n.text() for n in root.all("style"))
    t.same(g, [], re.findall(r"url\(|@import|@font-face", style), "the style fetches nothing")
    t.same(g, [], re.findall(r"style=\"[^\"]*url\(", page), "no url() in style attributes")


def check_report(t, g, analytics, page, db):
    """Every figure on the page against the database it was written from."""
    root, errors = parse(page)
    t.same(g, [], errors, "the page is well-formed")
    check_page_is_self_contained(t, g, root, page)
    con = sqlite3.connect(db)
    runs = {r[0]: r for r in con.execute(
        "SELECT run_id, model, dataset, completed_at, agent_endpoint, pipeline, results_file,"
        " total_cases FROM runs")}
    summary = {r[0]: r[1:] for r in con.execute("SELECT * FROM run_summary")}
    order = sorted(runs, key=lambda r: (runs[r][3] is not None, runs[r][3] or "", r))
    # each run's day and time of completion as SQLite reads them, and its short id
    slot_of = {r[0]: (r[1], r[2], r[0] if len(r[0]) <= 18 else r[0][:17] + "…")
               for r in con.execute(
                   "SELECT run_id, coalesce(date(completed_at), substr(completed_at, 1, 10), ''),"
                   " strftime('%H:%M', completed_at) FROM runs")}
    def key(r):              # a series: a model on a dataset, in the page's order
        model, dataset = runs[r][1], runs[r][2]
        return (model if model is not None else "(no model)", dataset is not None,
                dataset or "")
    latest = {}
    for r in order:
        latest[key(r)] = r
    changes = con.execute("SELECT * FROM case_changes").fetchall()
    prev = {x[3]: x[2] for x in changes}

    def count(run_id, change):
        return sum(1 for x in changes if x[3] == run_id and x[11] == change)

    # the summary table
    table = root.one("table", id="runs-summary")
    got_rows = [tr.attrs["data-run"] for tr in table.all("tr") if "data-run" in tr.attrs]
    t.same(g, order, got_rows, "summary: one row per run, in time order")
    for r in order:
        tr = table.one("tr", data_run=r)
        cells = {td.attrs["data-k"]: td.text() for td in tr.all("td") if "data-k" in td.attrs}
        s = summary[r]
        n_cases = con.execute("SELECT count(*) FROM cases WHERE run_id = ?", (r,)).fetchone()[0]
        want = {"cases": str(n_cases), "scored_cases": str(s[0]),
                "inconclusive_cases": str(s[1]), "mean_score": f4(s[2]),
                "pass_rate": pct(s[3]), "good_case_pass_rate": pct(s[4]),
                "bad_case_pass_rate": pct(s[5]),
                "regressed": str(count(r, "regressed")) if r in prev else "—",
                "fixed": str(count(r, "fixed")) if r in prev else "—"}
        t.same(g, want, cells, f"summary row {r} = run_summary, case_changes")

    # the cards: the latest run of each model
    cards = root.one("section", id="latest").all("div", cls="kpi")
    t.same(g, sorted(latest.values()), sorted(c.attrs["data-run"] for c in cards),
           "cards: the latest run of each model")
    for card in cards:
        r = card.attrs["data-run"]
        got = {n.attrs["data-k"]: n.text() for n in card.all() if "data-k" in n.attrs}
        want = {"pass_rate": pct(summary[r][3]), "mean_score": f4(summary[r][2])}
        if r in prev:
            want.update(regressed=f"{count(r, 'regressed')} regressed",
                        fixed=f"{count(r, 'fixed')} fixed")
            if summary[prev[r]][0] != summary[r][0]:   # scored cases, before and now
                want.update(prev_scored=f"({summary[prev[r]][0]} before)")
        t.same(g, sorted(want.items()), sorted(got.items()), f"card of {r}")
        if r in prev and summary[r][3] is not None and summary[prev[r]][3] is not None:
            d = 100 * (summary[r][3] - summary[prev[r]][3])
            arrow = "▲" if d > 0 else "▼" if d < 0 else "±"
            delta = card.one("span", cls="delta").text()
            t.same(g, f"{arrow} " + ("%.2f" % abs(d)).rstrip("0").rstrip(".") + " pts", delta,
                   f"card of {r}: change of pass rate")

    # line charts: a point per run at its value on the y axis
    for chart, k, label in (("chart-pass-rate", 3, pct), ("chart-mean-score", 2, f4)):
        svg = root.one("figure", id=chart).one("svg")
        ticks = axis(svg, "tick-y", "y")
        t.same(g, [0.0, 0.25, 0.5, 0.75, 1.0], sorted(ticks), f"{chart}: y ticks")
        points = {p.attrs["data-run"]: p for p in svg.all("g", cls="point")}
        t.same(g, sorted(r for r in order if summary[r][k] is not None), sorted(points),
               f"{chart}: a point per run with a value")
        xs = []
        for r in order:
            if r not in points:
                continue
            p = points[r]
            v = summary[r][k]
            c = p.one("circle")
            t.same(g, v, float(p.attrs["data-v"]), f"{chart}: value of {r}")
            t.check(g, near(num(c.attrs["cy"]), scale(ticks, min(max(v, 0.0), 1.0))),
                    f"{chart}: point of {r} at y={c.attrs['cy']}, "
                    f"the axis puts {v} at {scale(ticks, v):.2f}")
            # values are written on the chart while there is room: up to 12 runs
            t.same(g, [label(v)] if len(order) <= 12 else [],
                   [x.text() for x in p.all("text", cls="value")], f"{chart}: label of {r}")
            xs.append(num(c.attrs["cx"]))
        t.check(g, xs == sorted(xs) and len(set(xs)) == len(xs),
                f"{chart}: runs left to right in time order: {xs}")
        lines = svg.all("polyline")
        t.same(g, len(latest), len(lines), f"{chart}: a line per model and dataset")
        # the x axis: every k-th run labelled, by its day, or by its time where
        # the run labelled before it has the same day (its run id without a day)
        every = max(1, (len(order) * 84 + 527) // 528)
        want = []
        for i in range(0, len(order), every):
            day, hm, short = slot_of[order[i]]
            if day == "":
                want.append(short)
            elif hm is not None and i >= every and slot_of[order[i - every]][0] == day:
                want.append(hm)
            else:
                want.append(day)
        t.same(g, want, [x.text() for x in svg.all("text", cls="slot")],
               f"{chart}: x-axis labels")

    # failure rate per constraint kind: bars of the latest rescored run per model
    kind_runs = {}
    for r in order:
        if con.execute("SELECT 1 FROM checks WHERE run_id = ?", (r,)).fetchone():
            kind_runs[key(r)] = r
    figure = root.one("figure", id="chart-kinds")
    if not kind_runs:
        t.same(g, [], figure.all("svg"), "kinds chart: no chart without stored checks")
    else:
        check_kinds(t, g, con, figure.one("svg"), kind_runs)

    # score distribution of the latest run of each model
    svg = root.one("figure", id="chart-scores").one("svg")
    ticks = axis(svg, "tick-y", "y")
    want = {}
    for r in latest.values():
        for (score,) in con.execute("SELECT score FROM cases WHERE run_id = ?", (r,)):
            b = 10 if score is None else 9 if score >= 1 else 0 if score < 0 else int(score * 10)
            want[(r, b)] = want.get((r, b), 0) + 1
    bins = svg.all("g", cls="bin")
    got = {(b.attrs["data-run"], int(b.attrs["data-bin"])): int(b.attrs["data-n"])
           for b in bins}
    t.same(g, sorted(want.items()), sorted(got.items()),
           "score chart: cases per bin (the non-empty ones)")
    base = ticks[0.0]
    for b in bins:
        rect, n = b.one("rect"), int(b.attrs["data-n"])
        t.check(g, near(num(rect.attrs["y"]) + num(rect.attrs["height"]), base) and
                near(num(rect.attrs["y"]), scale(ticks, n)),
                f"score chart: bar of {n} in bin {b.attrs['data-bin']} "
                f"({b.attrs['data-run']}) from y={rect.attrs['y']}, the axis gives "
                f"{scale(ticks, n):.2f}")
        # a count is written above its bar when it fits (6.5 units a digit)
        t.same(g, [str(n)] if len(str(n)) * 6.5 <= num(rect.attrs["width"]) + 1 else [],
               [x.text() for x in b.all("text")], "score chart: count label")

    # regressions and fixes: each run against its predecessor, both reasons
    section = root.one("section", id="changes")
    tables = section.all("table", cls="changes")
    pairs = sorted({(x[2], x[3]) for x in changes if x[11] != "unchanged"})
    t.same(g, pairs, sorted((tb.attrs["data-from"], tb.attrs["data-to"]) for tb in tables),
           "changes: a table per run whose cases changed")
    cases = {(r[0], r[1]): r for r in con.execute(
        "SELECT run_id, id, agent_response FROM cases")}
    for tb in tables:
        a, b = tb.attrs["data-from"], tb.attrs["data-to"]
        want = [(x[4], x[11], f"{f4(x[5])} → {f4(x[6])}", x[9], x[10], cases[(b, x[4])][2])
                for x in sorted((x for x in changes if x[3] == b and x[11] != "unchanged"),
                                key=lambda x: (["regressed", "fixed", "inconclusive"]
                                               .index(x[11]), cases_ord(con, b, x[4])))]
        more = [p.text() for p in section.all("p", cls="more") if p.attrs.get("data-to") == b]
        t.same(g, [f"The first 100 of {len(want)} changed cases; all are in the view"
                   f" case_changes (to_run = '{b}')."] if len(want) > 100 else [], more,
               f"changes {a} -> {b}: past 100 changed cases, where the rest are")
        want = want[:100]
        got = []
        for tr in tb.all("tr"):
            if "data-id" not in tr.attrs:
                continue
            tds = tr.all("td")
            resp = tr.all("div", cls="resp")
            got.append((tr.attrs["data-id"], tr.attrs["data-change"], tds[2].text(),
                        tr.one("td", cls="reason-from").text(),
                        tr.one("div", cls="reason-to").text(),
                        resp[0].text() if resp else ""))
        t.same(g, want, got, f"changes {a} -> {b}: rows = case_changes, both reasons")
    heads = [c.text() for c in section.all("span", cls="counts")]
    want_heads = [f"{count(r, 'regressed')} regressed · {count(r, 'fixed')} fixed · "
                  f"{count(r, 'inconclusive')} inconclusive · {count(r, 'unchanged')} unchanged"
                  for r in reversed(order) if r in prev]
    t.same(g, want_heads, heads, "changes: counts per run, latest first")

    # worst cases: lowest scores under 0.5 in the latest runs, with the reason
    rows = []
    series = {m: i for i, m in enumerate(sorted(latest))}
    for m, r in latest.items():
        for ord_, cid, score, reason, resp in con.execute(
                "SELECT ord, id, score, reason, agent_response FROM cases"
                " WHERE run_id = ? AND score < 0.5", (r,)):
            rows.append((score, series[m], ord_, r, cid, reason, resp))
    rows.sort()
    want = [(r, cid, f4(score), reason, resp) for score, _, _, r, cid, reason, resp in rows[:12]]
    got = [(tr.attrs["data-run"], tr.attrs["data-id"], tr.all("td")[3].text(),
            tr.one("div", cls="reason").text(), tr.one("div", cls="resp").text())
           for tr in root.one("table", id="worst-cases").all("tr") if "data-run" in tr.attrs]
    t.same(g, want, got, "worst cases")

    # inconclusive counts and where each run came from
    table = root.one("table", id="inconclusive-counts")
    for r in order:
        tr = table.one("tr", data_run=r)
        got = {td.attrs["data-k"]: td.text() for td in tr.all("td") if "data-k" in td.attrs}
        rescored = con.execute("SELECT count(*) FROM cases WHERE run_id = ? AND"
                               " scored_by = 'regrade'", (r,)).fetchone()[0]
        n, fixed = con.execute("SELECT count(*), sum(NOT rescorable) FROM cases"
                               " WHERE run_id = ?", (r,)).fetchone()
        t.same(g, {"inconclusive_cases": str(summary[r][1]), "rescored": str(rescored),
                   "kept": str(n - rescored) + (f"{fixed} not rescorable" if fixed else "")},
               got, f"inconclusive counts of {r}")
        reasons = [d.text() for d in tr.all("td")[3].all("div")]
        want = sorted(((c, reason) for reason, c in con.execute(
            "SELECT reason, count(*) FROM cases WHERE run_id = ? AND score IS NULL"
            " GROUP BY reason", (r,))), key=lambda x: (-x[0], x[1]))
        t.same(g, [f"{c} × {reason}" for c, reason in want], reasons,
               f"inconclusive reasons of {r}")
    table = root.one("table", id="runs-provenance")
    for r in order:
        tds = [td.text() for td in table.one("tr", data_run=r).all("td")]
        _, model, dataset, _, endpoint, pipeline, results_file, total = runs[r]
        shown = [r, model, dataset, endpoint, pipeline, results_file, total]
        t.same(g, ["—" if x is None else str(x) for x in shown],   # (none: a dash)
               tds[:1] + tds[2:], f"where {r} came from")
    con.close()
    return root


def check_kinds(t, g, con, svg, kind_runs):
    ticks = axis(svg, "tick-x", "x")
    want = {(r, k): (c, f) for r in kind_runs.values() for (k, c, f) in con.execute(
        "SELECT kind, checks, failed FROM kind_summary WHERE run_id = ?", (r,))}
    bars = svg.all("g", cls="bar")
    got = {(b.attrs["data-run"], b.attrs["data-kind"]):
           (int(b.attrs["data-checks"]), int(b.attrs["data-failed"])) for b in bars}
    t.same(g, sorted(want.items()), sorted(got.items()),
           "kinds chart: a bar per kind_summary row of the latest runs")
    for b in bars:
        c, f = int(b.attrs["data-checks"]), int(b.attrs["data-failed"])
        rect = b.one("rect")
        w = max(scale(ticks, f / c) - ticks[0.0], 1.5)
        t.check(g, near(num(rect.attrs["width"]), w),
                f"kinds chart: bar {b.attrs['data-kind']} of {b.attrs['data-run']} is "
                f"{rect.attrs['width']} wide, the axis gives {w:.2f}")
        t.same(g, f"{tenths_pct(f, c)} ({f}/{c})", b.one("text").text(),
               f"kinds chart: label of {b.attrs['data-kind']} in {b.attrs['data-run']}")


def cases_ord(con, run_id, cid):
    return con.execute("SELECT ord FROM cases WHERE run_id = ? AND id = ?",
                       (run_id, cid)).fetchone()[0]


HOSTILE_MODEL = "<img src=x onerror=alert(1)> & \"m\" 'q'"
HOSTILE_RESPONSE = "</td></tr></table><script>alert('x')</script> & <b>bold</b> end"


def test_report(t, analytics, sqlite, ext, tmp):
    g = "report"
    root_dir = analytics.ROOT
    db = os.path.join(tmp, "report.db")
    fixture_db(analytics, sqlite, ext, db)
    p = write_report(sqlite, db, root_dir)           # no extension loaded
    t.same(g, (0, b""), (p.returncode, p.stderr), "report.sql runs without the extension")
    page = p.stdout.decode()
    check_report(t, g, analytics, page, db)
    t.same(g, page, write_report(sqlite, db, root_dir).stdout.decode(), "the same page twice")
    t.same(g, page, write_report(sqlite, db, root_dir, ext).stdout.decode(),
           "the same page with the extension loaded")
    t.check(g, "if-003" in page and "&lt;b&gt;cleaner&lt;/b&gt;" in page,
            "the fixture's markup in a response is escaped")

    # many runs, models and datasets
    many = many_db(analytics, sqlite, ext, tmp)
    p = write_report(sqlite, many, root_dir)
    t.same(g, (0, b""), (p.returncode, p.stderr), "report of 14 runs")
    check_report(t, g, analytics, p.stdout.decode(), many)

    # more changed cases than the page lists
    changed = changes_db(analytics, sqlite, ext, tmp)
    p = write_report(sqlite, changed, root_dir)
    t.same(g, (0, b""), (p.returncode, p.stderr), "report of 130 changed cases")
    root = check_report(t, g, analytics, p.stdout.decode(), changed)
    t.same(g, ["The first 100 of 130 changed cases; all are in the view case_changes"
               " (to_run = 'changes-1')."],
           [x.text() for x in root.all("p", cls="more")], "130 changed cases: the first 100 listed")
    t.same(g, (100, ["86 regressed · 44 fixed · 0 inconclusive · 0 unchanged"]),
           (len(root.one("table", cls="changes").all("tr")) - 1,
            [x.text() for x in root.all("span", cls="counts")]),
           "130 changed cases: 100 rows, the counts of all")

    # an empty database, and runs never regraded (no stored checks)
    empty = os.path.join(tmp, "empty.db")
    analytics.fresh_db(sqlite, empty)
    p = write_report(sqlite, empty, root_dir)
    root, errors = parse(p.stdout.decode())
    t.same(g, (0, b"", []), (p.returncode, p.stderr, errors), "report of an empty database")
    t.check(g, "No runs in this database yet" in root.text(), "empty database: says so")
    bare = os.path.join(tmp, "bare.db")   # no schema: a mistyped path
    if os.path.exists(bare):
        os.remove(bare)
    p = write_report(sqlite, bare, root_dir)
    t.same(g, (1, b"", "Runtime error near line N: CHECK constraint failed: report: this"
                      " database has no runs table (is the path right?): make the tables"
                      " with sql/schema.sql and fill them with sql/import.sql (19)\n"),
           (p.returncode, p.stdout, analytics.error_text(p.stderr)),
           "report of a database without the schema: stops, says what it needs")
    raw = os.path.join(tmp, "raw.db")
    fixture_db(analytics, sqlite, ext, raw, regrade=False)
    p = write_report(sqlite, raw, root_dir)
    t.same(g, (0, b""), (p.returncode, p.stderr), "report of runs never regraded")
    root = check_report(t, g, analytics, p.stdout.decode(), raw)
    t.check(g, "No stored checks yet" in root.one("figure", id="chart-kinds").text(),
            "runs never regraded: the kinds chart says there are no stored checks")

    # hostile text everywhere the page shows text
    run = json.load(open(analytics.RESULTS[0], encoding="utf-8"))
    run["run_id"] = "r<1>&\"'"
    run["model"] = HOSTILE_MODEL
    run["agent_endpoint"] = "http://x/?a=1&b=<2>"
    run["completed_at"] = "<not a time>"
    run["total_cases"] = "<em>bold</em>"   # text where a number belongs
    run["cases"][0]["agent_response"] = HOSTILE_RESPONSE
    run["cases"][0]["score"] = 0.0
    run["cases"][0]["reason"] = "bad </td> & \"quoted\""
    path = os.path.join(tmp, "hostile.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(run, f)
    hostile = os.path.join(tmp, "hostile.db")
    analytics.fresh_db(sqlite, hostile)
    analytics.import_run(sqlite, hostile, path, dataset_name="'<ds> & co'")
    con = sqlite3.connect(hostile)       # a NUL in a text would end the CLI's output
    con.execute("UPDATE cases SET reason = reason || char(0) || ' tail' WHERE ord = 0")
    con.commit()
    con.close()
    p = write_report(sqlite, hostile, root_dir)
    t.same(g, (0, b""), (p.returncode, p.stderr), "report of hostile text")
    page = p.stdout.decode()
    root, errors = parse(page)
    t.same(g, [], errors, "hostile text: the page is well-formed")
    check_page_is_self_contained(t, g, root, page)
    t.same(g, [], [n.tag for n in root.all() if n.tag in ("script", "img")
                   or n.text() == "bold"], "hostile text: no element made from the data")
    text = root.text()
    for s in (HOSTILE_MODEL, HOSTILE_RESPONSE, run["run_id"], "bad </td> & \"quoted\"",
              "<ds> & co", "http://x/?a=1&b=<2>", "<not a time>", "<em>bold</em>",
              "Where each run came from"):
        t.check(g, s in text, f"hostile text shown as text: {s!r}")
    t.same(g, 1, len(root.one("table", id="runs-summary").all("tr", data_run=run["run_id"])),
           "hostile text: the run's attribute round-trips")


# ------------------------------------------------------------------ render

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--disable-extensions", "--mute-audio"]

# Measures the laid-out page and writes the findings into <body data-check>.
LAYOUT_CHECK = """<script>
(function () {
  var out = {width: innerWidth, scrollWidth: document.documentElement.scrollWidth,
             height: document.documentElement.scrollHeight, overlaps: [], outside: [],
             cells: [], charts: 0};
  function hit(a, b) {
    return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
           a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  }
  document.querySelectorAll('svg.chart').forEach(function (svg, i) {
    out.charts++;
    var box = svg.getBoundingClientRect(), id = svg.closest('figure').id;
    var texts = Array.prototype.slice.call(svg.querySelectorAll('text'))
      .map(function (t) { return [t.textContent, t.getBoundingClientRect()]; });
    texts.forEach(function (a, j) {
      var r = a[1];
      if (r.left < box.left - 1 || r.right > box.right + 1 ||
          r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.outside.push(id + ': ' + a[0]);
      texts.slice(j + 1).forEach(function (b) {
        if (hit(r, b[1])) out.overlaps.push(id + ': ' + a[0] + ' / ' + b[0]);
      });
    });
  });
  document.querySelectorAll('td, th').forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1)
      out.cells.push(c.closest('table').id + ': ' + c.textContent.slice(0, 40));
  });
  document.body.setAttribute('data-check', JSON.stringify(out));
})();
</script>"""


def chromium(args, tmp):
    exe = shutil.which("chromium")
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    try:
        return subprocess.run([exe] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}"] + args,
                              capture_output=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def layout(page, width, height, tmp):
    """The layout findings of a page at width x height."""
    path = os.path.join(tmp, f"layout-{width}.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", LAYOUT_CHECK + "</body>"))
    p = chromium([f"--window-size={width},{height}", "--dump-dom", "file://" + path], tmp)
    m = re.search(r'data-check="([^"]*)"', p.stdout.decode())
    if not m:
        raise RuntimeError(f"chromium --dump-dom gave no findings (exit {p.returncode}): "
                           f"{p.stderr.decode()[-500:]}")
    return json.loads(html.unescape(m.group(1)))


def png_info(path):
    """(width, height, distinct bytes in the pixel data) of a PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    idat, k = b"", 8
    while k < len(data):
        n, kind = struct.unpack(">I4s", data[k:k + 8])
        if kind == b"IDAT":
            idat += data[k + 8:k + 8 + n]
        k += 12 + n
    return w, h, len(set(zlib.decompress(idat)))


def test_render(t, analytics, sqlite, ext, tmp):
    g = "render"
    if shutil.which("chromium") is None:
        t.check(g, False, "chromium is not installed: sh tools/deps.sh chromium "
                          "(or apt-get install chromium)")
        return
    build = os.path.join(analytics.ROOT, "build")
    os.makedirs(build, exist_ok=True)
    db = os.path.join(tmp, "render.db")
    fixture_db(analytics, sqlite, ext, db)
    page = write_report(sqlite, db, analytics.ROOT).stdout.decode()
    html_path = os.path.join(build, "report-test.html")
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(page)

    many = write_report(sqlite, many_db(analytics, sqlite, ext, tmp), analytics.ROOT)
    long = write_report(sqlite, long_db(analytics, sqlite, ext, tmp), analytics.ROOT)
    for width, height, what, text in ((1366, 768, "", page), (800, 1000, "", page),
                                      (1366, 768, " (14 runs)", many.stdout.decode()),
                                      (800, 1000, " (14 runs)", many.stdout.decode()),
                                      (1366, 768, " (long names)", long.stdout.decode()),
                                      (800, 1000, " (long names)", long.stdout.decode())):
        width_ = f"{width}px{what}"
        got = layout(text, width, height, tmp)
        t.same(g, 4, got["charts"], f"{width_}: four charts laid out")
        t.check(g, got["scrollWidth"] <= got["width"],
                f"{width_}: no horizontal scrolling ({got['scrollWidth']} > {got['width']})")
        t.same(g, [], got["overlaps"], f"{width_}: no chart labels overlap")
        t.same(g, [], got["outside"], f"{width_}: no chart label outside its chart")
        t.same(g, [], got["cells"], f"{width_}: no table cell overflows")
        if width == 1366 and not what:
            full_height = got["height"]
    # the check can fail: a label planted on a point's value label
    m = re.search(r'<text class="value" x="([^"]+)" y="([^"]+)"[^>]*>[^<]*</text>', page)
    planted = page[:m.end()] + (f'<text class="value" x="{m.group(1)}" y="{m.group(2)}" '
                                f'text-anchor="middle">planted</text>') + page[m.end():]
    got = layout(planted, 1366, 768, tmp)
    t.check(g, any("planted" in o for o in got["overlaps"]),
            f"the layout check finds a planted overlap: {got['overlaps']}")

    shots = [("report.png", 1366, 768), ("report-full.png", 1366, full_height)]
    for name, w, h in shots:
        out = os.path.join(build, name)
        if os.path.exists(out):
            os.remove(out)
        p = chromium([f"--window-size={w},{h}", f"--screenshot={out}", "file://" + html_path],
                     tmp)
        ok = os.path.exists(out)
        t.check(g, ok, f"chromium wrote {out} (exit {p.returncode}) "
                       f"{p.stderr.decode()[-300:]}")
        if ok:
            pw, ph, distinct = png_info(out)
            t.same(g, (w, h), (pw, ph), f"{name}: size")
            t.check(g, distinct > 50, f"{name}: not blank ({distinct} distinct bytes)")
    pdf = os.path.join(build, "report.pdf")
    if os.path.exists(pdf):
        os.remove(pdf)
    p = chromium(["--no-pdf-header-footer", f"--print-to-pdf={pdf}", "file://" + html_path],
                 tmp)
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    t.check(g, data.startswith(b"%PDF") and 1 <= pages <= 8,
            f"the printed page: {pages} A4 pages in {pdf}")
    print(f"  render: {os.path.relpath(html_path, analytics.ROOT)} -> build/report.png, "
          f"build/report-full.png (1366x{full_height}), build/report.pdf ({pages} pages)")
