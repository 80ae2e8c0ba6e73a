-- pipeline.sql: the scripts of sql/ end to end on the fixtures, as a user runs
-- them in the sqlite3 CLI: schema, import of four eval runs (one twice), regrade,
-- summaries. tests/analytics.py checks the same against the files and the
-- Python oracle; this shows the CLI route and its output.
.nullvalue NULL
.read sql/schema.sql
.read tests/fixtures/import_runs.sql
.headers on

SELECT run_id, model, pipeline, total_cases, dataset, results_file, count(*) AS cases,
       count(constraints) AS with_constraints, count(score) AS scored,
       sum(rescorable) AS rescorable, group_concat(DISTINCT scored_by) AS scored_by
FROM runs JOIN cases USING (run_id) GROUP BY run_id;

-- as imported, the view gives the runner's own summary
SELECT * FROM run_summary;
SELECT s.run_id,
       s.scored_cases = r.summary ->> '$.scored_cases'
       AND s.inconclusive_cases = r.summary ->> '$.inconclusive_cases'
       AND s.mean_score IS r.summary ->> '$.mean_score'
       AND s.pass_rate IS r.summary ->> '$.pass_rate'
       AND s.good_case_pass_rate IS r.summary ->> '$.good_case_pass_rate'
       AND s.bad_case_pass_rate IS r.summary ->> '$.bad_case_pass_rate' AS same_as_file
FROM run_summary AS s JOIN runs AS r USING (run_id);

-- importing again changes nothing, rowids included (import.sql sets .headers off)
CREATE TEMP TABLE snapshot AS SELECT rowid AS rid, * FROM cases;
.parameter set :results tests/fixtures/eval_results_gpt-4o-mini.json
.read sql/import.sql
.headers on
SELECT (SELECT count(*) FROM (SELECT rowid, * FROM cases EXCEPT SELECT * FROM snapshot))
     + (SELECT count(*) FROM (SELECT * FROM snapshot EXCEPT SELECT rowid, * FROM cases))
       AS differences_after_reimport;

-- a case without constraints and one without a prediction
SELECT run_id, id, constraints, agent_response, score, reason FROM cases
WHERE id IN ('if-011', 'if-012') ORDER BY run_id, ord;

.read sql/regrade.sql

-- after the regrade: the runner's columns are kept beside the new ones
SELECT run_id, id, runner_score, score, runner_reason, reason FROM cases
WHERE score IS NOT runner_score OR reason IS NOT runner_reason;
SELECT * FROM run_summary;
SELECT run_id, scored_by, count(*) AS cases FROM cases GROUP BY run_id, scored_by;

-- the stored checks: one row per check of each rescored case
SELECT run_id, count(*) AS checks, count(DISTINCT id) AS cases, sum(ok) AS ok
FROM checks GROUP BY run_id;

-- regrading again gives the same rows
CREATE TEMP TABLE checks_before AS SELECT * FROM checks;
CREATE TEMP TABLE cases_before AS SELECT * FROM cases;
.output /dev/null
.read sql/regrade.sql
.output
.headers on
SELECT (SELECT count(*) FROM (SELECT * FROM checks EXCEPT SELECT * FROM checks_before))
     + (SELECT count(*) FROM (SELECT * FROM checks_before EXCEPT SELECT * FROM checks))
     + (SELECT count(*) FROM (SELECT * FROM cases EXCEPT SELECT * FROM cases_before))
     + (SELECT count(*) FROM checks) - (SELECT count(*) FROM checks_before)
       AS differences_after_regrading_again;

-- importing a run again gives it the runner's scores back and drops its checks
.parameter set :results tests/fixtures/eval_results_gpt-4o-mini.json
.read sql/import.sql
.headers on
SELECT run_id, count(*) AS checks FROM checks GROUP BY run_id;
SELECT id, runner_score, score, scored_by FROM cases
WHERE run_id = '20250611_091502' AND id = 'if-002';
