-- sql/schema.sql — tables for eval runs and the run_summary view.
--
-- Mirrors the eval runner's eval_results.json: one row in `runs` per file (run_id,
-- completed_at, agent_endpoint, pipeline, total_cases, summary) and one row in
-- `cases` per element of its cases[] array, plus the constraints of the dataset
-- the run used (sql/import.sql fills both; sql/regrade.sql rescores them).
--
--   sqlite3 runs.db < sql/schema.sql          -- idempotent: IF NOT EXISTS everywhere
--
-- Pure SQL: needs SQLite >= 3.25, not the ifscore extension. No function in the
-- schema, so it also works with PRAGMA trusted_schema = off (the JSON1 functions
-- are not innocuous in some SQLite versions, 3.40 among them).
--
-- run_summary gives exactly the runner's summary, from the current scores:
--   scored_cases        cases whose score is a number (score IS NOT NULL)
--   inconclusive_cases  the other cases of the run
--   mean_score          sum(score) / scored_cases
--   pass_rate           count(score >= 0.5) / scored_cases
--   good_case_pass_rate the same over scored cases whose expected_behavior = 'good'
--   bad_case_pass_rate  the same over scored cases whose expected_behavior = 'bad'
-- NULL where there is nothing to rate (no scored case, no scored 'good' case, ...).
--
-- "Exactly" means the same doubles as the runner's Python (CPython 3.11):
--   * 'good' and 'bad' are recognised as the runner does, with `==`: the exact,
--     case-sensitive strings 'good' and 'bad'. Any other expected_behavior ('Good',
--     'adversarial', NULL) counts in the overall rates only.
--   * the sum is Python 3.11's sum(): IEEE additions left to right in the order of
--     the file's cases[] (column `ord`), starting from 0. SQLite's own sum()/avg()
--     guarantee no order and, from SQLite 3.43, use compensated summation, so the
--     view adds with a recursive CTE instead. (Python >= 3.12's sum() is compensated
--     too and can differ from 3.11 in the last bit of the mean.)
--   * values are rounded like Python's round(x, 4): the exact binary value of x is
--     rounded to 4 decimals, ties to even, and the result is the double nearest to
--     that decimal. SQLite's round() and printf('%.4f') round some values the other
--     way (round(0.03125, 4) is 0.0312 in Python, printf gives 0.0313). The view
--     decides the rounding exactly: p = |x|*10000 in double, and when p lies exactly
--     halfway between two integers, the sign of the product's rounding error
--     (Dekker's exact product, with a Veltkamp split of x) tells whether the exact
--     value is above, below or on the tie. Valid for |x| < 2^53/10000 on IEEE-754
--     doubles (every platform SQLite runs on today, not x87 extended precision).

PRAGMA foreign_keys = ON;

CREATE TABLE IF NOT EXISTS runs (
  run_id         TEXT PRIMARY KEY NOT NULL,
  completed_at   TEXT,     -- ISO 8601, as the runner wrote it
  agent_endpoint TEXT,     -- the agent under test
  model          TEXT,     -- the file's "model" when present, else agent_endpoint
  pipeline       TEXT,     -- e.g. instruction_following.yaml
  total_cases    INTEGER,  -- the runner's total_cases: the size of its dataset
  summary        TEXT      -- the runner's own summary object, verbatim (JSON)
);

CREATE TABLE IF NOT EXISTS cases (
  run_id            TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  ord               INTEGER NOT NULL CHECK (ord >= 0),  -- 0-based position in cases[]
  id                TEXT NOT NULL,   -- the dataset case id
  benchmark         TEXT,   -- e.g. instruction_following (see sql/import.sql)
  input             TEXT,   -- the prompt
  expected_behavior TEXT,   -- 'good' / 'bad' as the runner compares them, or other
  agent_response    TEXT,
  constraints       TEXT,   -- JSON from the dataset case; NULL when it has none
  score             REAL,   -- current score: NULL = inconclusive
  passed            INTEGER CHECK (passed IN (0, 1)),   -- score >= 0.5, NULL if inconclusive
  reason            TEXT,
  runner_score      REAL,   -- score, passed and reason as the runner wrote them;
  runner_passed     INTEGER CHECK (runner_passed IN (0, 1)),  -- import sets them,
  runner_reason     TEXT,   -- regrade leaves them alone
  source            TEXT,   -- optional fields of the runner's case
  notes             TEXT,
  PRIMARY KEY (run_id, ord)
);

-- One case across runs (ids may repeat inside a run: the runner writes 'unknown'
-- for predictions without an id, so (run_id, id) is not unique).
CREATE INDEX IF NOT EXISTS cases_by_id ON cases (id, run_id);
-- Regrade and per-benchmark analytics.
CREATE INDEX IF NOT EXISTS cases_by_benchmark ON cases (benchmark, run_id);
-- Worst cases first.
CREATE INDEX IF NOT EXISTS cases_by_score ON cases (run_id, score);

CREATE VIEW IF NOT EXISTS run_summary (
  run_id, scored_cases, inconclusive_cases, mean_score, pass_rate,
  good_case_pass_rate, bad_case_pass_rate
) AS
WITH RECURSIVE
  -- Python's sum(): 0, then one addition per scored case in cases[] order.
  running (run_id, ord, total) AS (
    SELECT run_id, -1, 0.0 FROM runs
    UNION ALL
    SELECT r.run_id, c.ord, r.total + c.score
    FROM running AS r
    JOIN cases AS c
      ON c.run_id = r.run_id
     AND c.ord = (SELECT min(n.ord) FROM cases AS n
                  WHERE n.run_id = r.run_id AND n.ord > r.ord AND n.score IS NOT NULL)
  ),
  -- the total after the last scored case (SQLite's bare column beside max())
  sums (run_id, total, last_ord) AS (
    SELECT run_id, total, max(ord) FROM running GROUP BY run_id
  ),
  counts AS (
    SELECT ru.run_id,
           count(c.run_id)                                            AS cases,
           count(c.score)                                             AS scored,
           count(CASE WHEN c.score >= 0.5 THEN 1 END)                 AS passed,
           count(CASE WHEN c.expected_behavior = 'good' THEN c.score END) AS good,
           count(CASE WHEN c.expected_behavior = 'good' AND c.score >= 0.5 THEN 1 END)
                                                                      AS good_passed,
           count(CASE WHEN c.expected_behavior = 'bad' THEN c.score END) AS bad,
           count(CASE WHEN c.expected_behavior = 'bad' AND c.score >= 0.5 THEN 1 END)
                                                                      AS bad_passed
    FROM runs AS ru LEFT JOIN cases AS c ON c.run_id = ru.run_id
    GROUP BY ru.run_id
  ),
  -- The unrounded values, one row per (run, metric); x is NULL when nothing to rate.
  metric (run_id, name, x) AS (
    SELECT k.run_id, 'mean', CASE WHEN k.scored > 0 THEN s.total / k.scored END
      FROM counts AS k JOIN sums AS s ON s.run_id = k.run_id
    UNION ALL
    SELECT run_id, 'pass', CASE WHEN scored > 0 THEN CAST(passed AS REAL) / scored END
      FROM counts
    UNION ALL
    SELECT run_id, 'good', CASE WHEN good > 0 THEN CAST(good_passed AS REAL) / good END
      FROM counts
    UNION ALL
    SELECT run_id, 'bad', CASE WHEN bad > 0 THEN CAST(bad_passed AS REAL) / bad END
      FROM counts
  ),
  -- round(x, 4), step 1: p = |x| * 10^4 rounded, and a Veltkamp split of |x|
  -- (hi holds the top 26 bits, so hi * 10000 is exact).
  r1 AS (
    SELECT run_id, name, x, abs(x) AS ax, abs(x) * 10000.0 AS p,
           abs(x) * 134217729.0 AS split
    FROM metric WHERE x IS NOT NULL
  ),
  r2 AS (
    SELECT run_id, name, x, ax, p, CAST(p AS INTEGER) AS k,
           split - (split - ax) AS hi
    FROM r1
  ),
  -- err = |x| * 10000 - p exactly (Dekker); only its sign matters, and only when
  -- p is exactly k + 0.5.
  r3 AS (
    SELECT run_id, name, x, k, p - k AS frac,
           (hi * 10000.0 - p) + (ax - hi) * 10000.0 AS err
    FROM r2
  ),
  r4 AS (
    SELECT run_id, name, x,
           CASE WHEN frac > 0.5 THEN k + 1
                WHEN frac < 0.5 THEN k
                WHEN err > 0.0 THEN k + 1
                WHEN err < 0.0 THEN k
                ELSE k + (k % 2)          -- an exact tie: to even
           END AS units
    FROM r3
  ),
  rounded (run_id, name, y) AS (
    SELECT run_id, name,
           CASE WHEN x < 0 THEN -(units / 10000.0) ELSE units / 10000.0 END
    FROM r4
  )
SELECT k.run_id, k.scored, k.cases - k.scored,
       max(CASE r.name WHEN 'mean' THEN r.y END),
       max(CASE r.name WHEN 'pass' THEN r.y END),
       max(CASE r.name WHEN 'good' THEN r.y END),
       max(CASE r.name WHEN 'bad' THEN r.y END)
FROM counts AS k LEFT JOIN rounded AS r ON r.run_id = k.run_id
GROUP BY k.run_id;
