-- changes.sql: run-to-run changes (view case_changes), the stored checks and
-- kind_summary on the four fixture runs, after the regrade. The two later runs
-- have known regressions and fixes (tests/fixtures/make_fixtures.py):
--   gpt-4o-mini 20250611_091502 -> 20250618_101230: if-001 and if-003 regress,
--     if-007 is fixed, if-010 has no prediction (inconclusive)
--   llama 20250612_140233 -> 20250619_083015: if-006 regresses, if-001 and if-009
--     are fixed, if-010 is answered at last (inconclusive)
.nullvalue NULL
.read sql/schema.sql
.read tests/fixtures/import_runs.sql
.output /dev/null
.read sql/regrade.sql
.output
.headers on

-- every row: 12 ids in both runs of each model
SELECT * FROM case_changes ORDER BY model, to_run, id;
SELECT to_run, change, count(*) AS n FROM case_changes
GROUP BY to_run, change ORDER BY to_run, change;

-- the first run of a series has no predecessor
SELECT run_id FROM runs
WHERE run_id NOT IN (SELECT to_run FROM case_changes) ORDER BY run_id;

-- another dataset (or model) is another series: run 3 under another dataset
-- name pairs with nothing, and so does run 1 left alone on its dataset
.parameter set :results tests/fixtures/week2/eval_results_gpt-4o-mini.json
.parameter set :dataset_name if_dataset_v2
.read sql/import.sql
.headers on
SELECT run_id, dataset FROM runs ORDER BY run_id;
SELECT DISTINCT dataset, model, from_run, to_run FROM case_changes;
.parameter unset :dataset_name
.read sql/import.sql
.headers on

-- the same completed_at: run_id decides the order; a run with no completed_at
-- (julianday NULL) comes first
UPDATE runs SET completed_at = '2025-06-11T09:21:47.118204+00:00'
WHERE run_id = '20250618_101230';
SELECT DISTINCT from_run, to_run FROM case_changes WHERE model = 'gpt-4o-mini';
UPDATE runs SET completed_at = NULL WHERE run_id = '20250618_101230';
SELECT DISTINCT from_run, to_run FROM case_changes WHERE model = 'gpt-4o-mini';
-- the same instant written with another offset is the same time
UPDATE runs SET completed_at = '2025-06-11T11:21:47.118204+02:00'
WHERE run_id = '20250618_101230';
SELECT DISTINCT from_run, to_run FROM case_changes WHERE model = 'gpt-4o-mini';
UPDATE runs SET completed_at = '2025-06-18T10:19:02.004511+00:00'
WHERE run_id = '20250618_101230';

-- ids in one run only have no row: drop if-010 from the later gpt run
DELETE FROM cases WHERE run_id = '20250618_101230' AND id = 'if-010';
SELECT count(*) AS rows, sum(id = 'if-010') AS if_010 FROM case_changes
WHERE to_run = '20250618_101230';

-- the stored checks (re-import and regrade first: the DELETE above went)
.parameter set :results tests/fixtures/week2/eval_results_gpt-4o-mini.json
.read sql/import.sql
.output /dev/null
.read sql/regrade.sql
.output
.headers on
SELECT * FROM checks WHERE run_id = '20250619_083015' AND id IN ('if-006', 'if-010')
ORDER BY id, seq;
-- an inconclusive case has no checks; a case the regrade left alone has none
SELECT c.run_id, c.id, c.scored_by, count(k.seq) AS checks
FROM cases AS c LEFT JOIN checks AS k USING (run_id, id)
WHERE c.id IN ('if-010', 'if-011', 'if-012') GROUP BY c.run_id, c.id
ORDER BY c.run_id, c.id;

-- the checks agree with run_summary: every scored case of a run has checks, and
-- its score is the share of its checks that passed
SELECT s.run_id, s.scored_cases,
       (SELECT count(DISTINCT id) FROM checks AS k WHERE k.run_id = s.run_id) AS checked,
       (SELECT count(*) FROM cases AS c WHERE c.run_id = s.run_id AND c.score IS NOT NULL
          AND c.score <> (SELECT CAST(sum(ok) AS REAL) / count(*) FROM checks AS k
                          WHERE k.run_id = c.run_id AND k.id = c.id)) AS score_differs,
       s.pass_rate,
       round((SELECT avg(r >= 0.5) FROM (SELECT CAST(sum(ok) AS REAL) / count(*) AS r
              FROM checks AS k WHERE k.run_id = s.run_id GROUP BY id)), 4)
         AS pass_rate_from_checks
FROM run_summary AS s ORDER BY s.run_id;

-- kind_summary: checks per run and kind
SELECT * FROM kind_summary WHERE run_id = '20250619_083015' ORDER BY kind;
SELECT run_id, sum(checks) AS checks, sum(failed) AS failed FROM kind_summary
GROUP BY run_id ORDER BY run_id;

-- deleting a run deletes its cases and their checks
PRAGMA foreign_keys = ON;
DELETE FROM runs WHERE run_id = '20250612_140233';
SELECT run_id, count(*) AS checks FROM checks GROUP BY run_id ORDER BY run_id;
