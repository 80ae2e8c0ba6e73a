-- sql/schema.sql — tables for eval runs, the checks the regrade stored, and the
-- views run_summary, case_changes and kind_summary.
--
-- Mirrors the eval runner's eval_results.json: one row in `runs` per file (run_id,
-- completed_at, agent_endpoint, pipeline, total_cases, summary, and the dataset it
-- was scored on) and one row in `cases` per element of its cases[] array, plus the
-- constraints of the dataset the run used. sql/import.sql fills both;
-- sql/regrade.sql rescores the cases and fills `checks` (one row per check);
-- sql/report.sql turns it all into an HTML page.
--
--   sqlite3 runs.db < sql/schema.sql          -- idempotent: IF NOT EXISTS everywhere
--
-- A database made by an older version of this file (no runs.dataset column) is
-- upgraded once with sql/upgrade.sql; this script fails there and says so. It
-- has no CLI dot-command: any SQLite client can run it (Python's executescript).
--
-- Pure SQL: needs SQLite >= 3.25, not the ifscore extension. No JSON function in
-- the schema, so it also works with PRAGMA trusted_schema = off (the JSON1
-- functions are not innocuous in some SQLite versions, 3.40 among them).
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
  summary        TEXT,     -- the runner's own summary object, verbatim (JSON)
  dataset        TEXT,     -- the dataset it was scored on: import's :dataset_name,
                           -- else the :dataset file's name; NULL when neither
  results_file   TEXT      -- the :results path it was imported from, as given
);

CREATE TABLE IF NOT EXISTS cases (
  run_id            TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  ord               INTEGER NOT NULL CHECK (ord >= 0),  -- 0-based position in cases[]
  id                TEXT NOT NULL,   -- the dataset case id, unique within the run
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
  -- 0 when the import had no source of constraints for the case (no dataset,
  -- none in the case): the regrade keeps the runner's score instead of calling
  -- the case inconclusive. 1 otherwise, and for rows inserted by other means.
  rescorable        INTEGER NOT NULL DEFAULT 1 CHECK (rescorable IN (0, 1)),
  -- who wrote score/passed/reason: 'runner' (the import) or 'regrade'
  scored_by         TEXT NOT NULL DEFAULT 'runner' CHECK (scored_by IN ('runner', 'regrade')),
  PRIMARY KEY (run_id, ord)
);

-- ---- a database made before runs.dataset: stop, name the upgrade -----------
-- Plain SQL with no TEMP object, so that any client runs this file (Python's
-- executescript, a dqlite shell): the CHECK's failure names the upgrade, and
-- the CLI with -bail, executescript and the like stop there.
DROP TABLE IF EXISTS ifscore_schema_check;
CREATE TABLE ifscore_schema_check (
  current INTEGER CONSTRAINT "schema: this database was made by an older sql/schema.sql (runs has no dataset column): upgrade it once with sql/upgrade.sql, then run sql/schema.sql again"
    CHECK (current)
);
INSERT INTO ifscore_schema_check
  SELECT EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'dataset');
DROP TABLE ifscore_schema_check;

-- One case across runs.
CREATE INDEX IF NOT EXISTS cases_by_id ON cases (id, run_id);
-- A case id names one case of a run: run-to-run changes pair cases by id, and
-- `checks` refers to them by it. (The runner writes 'unknown' for predictions
-- without an id; sql/import.sql stops on a repeated id and names it.)
CREATE UNIQUE INDEX IF NOT EXISTS cases_by_run_and_id ON cases (run_id, id);
-- Regrade and per-benchmark analytics.
CREATE INDEX IF NOT EXISTS cases_by_benchmark ON cases (benchmark, run_id);
-- Worst cases first.
CREATE INDEX IF NOT EXISTS cases_by_score ON cases (run_id, score);
-- Run-to-run pairing: the runs of one dataset and model in time order.
CREATE INDEX IF NOT EXISTS runs_by_series ON runs (dataset, model, completed_at);

-- One row per check of every case sql/regrade.sql rescored: if_checks' rows
-- (seq, kind, label, ok) stored as plain rows, for dashboards and tools that
-- cannot load the extension. A regrade replaces a run's rows; an import of the
-- run deletes them (its scores are the runner's again). An inconclusive case
-- has no checks.
CREATE TABLE IF NOT EXISTS checks (
  run_id TEXT NOT NULL,
  id     TEXT NOT NULL,
  seq    INTEGER NOT NULL CHECK (seq >= 0),  -- 0-based, in the reason's order
  kind   TEXT NOT NULL,     -- max_words, min_words, max_chars, must_be_json,
                            -- must_include, must_exclude, regex
  label  TEXT NOT NULL,     -- as in the reason: "max_words<=8 (got 13)"
  ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
  PRIMARY KEY (run_id, id, seq),
  FOREIGN KEY (run_id, id) REFERENCES cases (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS checks_by_kind ON checks (kind, run_id);

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

-- case_changes: each run against the previous run of the same dataset and the same
-- model, one row per case id present in both runs. "Previous" is by completed_at
-- read as a time (julianday), then as text, then by run_id; runs with no dataset
-- (or no model) recorded pair with each other (NULLs are equal here). change:
--   regressed     passed 1 -> 0
--   fixed         passed 0 -> 1
--   unchanged     the same passed value on both sides (NULL and NULL included)
--   inconclusive  passed is NULL on one side only
-- The first run of a dataset and model has no row; nor have ids of one run only.
CREATE VIEW IF NOT EXISTS case_changes (
  dataset, model, from_run, to_run, id, from_score, to_score, from_passed, to_passed,
  from_reason, to_reason, change
) AS
WITH series (run_id, dataset, model, prev_run) AS (
  SELECT run_id, dataset, model,
         lag(run_id) OVER (PARTITION BY dataset, model
                           ORDER BY julianday(completed_at), completed_at, run_id)
  FROM runs
)
SELECT s.dataset, s.model, s.prev_run, s.run_id, t.id, f.score, t.score,
       f.passed, t.passed, f.reason, t.reason,
       CASE WHEN f.passed IS t.passed THEN 'unchanged'
            WHEN f.passed IS NULL OR t.passed IS NULL THEN 'inconclusive'
            WHEN f.passed = 1 THEN 'regressed'
            ELSE 'fixed'
       END
FROM series AS s
JOIN cases AS t ON t.run_id = s.run_id
JOIN cases AS f ON f.run_id = s.prev_run AND f.id = t.id;

-- kind_summary: the stored checks per run and constraint kind, what the regrade
-- and the report show as "failure rate per constraint kind". Counts only the
-- cases the regrade rescored (the ones with rows in checks).
--   checks     checks of that kind        failed     those not ok
--   cases      cases with such a check    fail_rate  failed / checks (unrounded)
CREATE VIEW IF NOT EXISTS kind_summary (run_id, kind, checks, failed, cases, fail_rate) AS
SELECT run_id, kind, count(*), count(*) - sum(ok), count(DISTINCT id),
       CAST(count(*) - sum(ok) AS REAL) / count(*)
FROM checks
GROUP BY run_id, kind;
