-- sql/regrade.sql — rescores the instruction-following cases with the ifscore
-- extension, stores their checks in `checks`, then prints what changed and the
-- analytics: the runner's summary per run, each model run by run, the regressions
-- and fixes since each run's predecessor, failures per constraint kind, the most
-- failed checks and the worst cases.
--
--   sqlite3 -cmd ".load build/ifscore" -cmd ".mode box" runs.db < sql/regrade.sql
--
-- Needs the tables of sql/schema.sql (filled by sql/import.sql). The tables it
-- prints read only tables and views: copy any query into a notebook or a
-- dashboard, with or without the extension. Re-running the script is harmless:
-- it gives the same values and the same rows again.
--
-- Which cases it rescores: benchmark 'instruction_following', rescorable (the
-- import had a source of constraints for them), and not an empty response the
-- runner did not score (an agent failure — timeout, error, no prediction — not
-- an answer). The others keep what the runner wrote.

.bail on
.headers on
PRAGMA foreign_keys = ON;

-- ---- the regrade -----------------------------------------------------------
-- score, passed and reason from the extension (the three calls on one row share
-- one evaluation); runner_score / runner_passed / runner_reason keep what the
-- runner wrote. scored_by = 'regrade' marks the cases rescored (an import sets it
-- back to 'runner').
UPDATE cases
SET score     = if_score(agent_response, constraints),
    passed    = if_pass(agent_response, constraints),
    reason    = if_reason(agent_response, constraints),
    scored_by = 'regrade'
WHERE benchmark = 'instruction_following'
  AND rescorable
  AND NOT (coalesce(agent_response, '') = '' AND runner_score IS NULL);

-- One row per check of every rescored case, replacing the runs' earlier rows.
-- (No BEGIN/COMMIT or TEMP object here: the script also runs through a dqlite
-- shell, statement by statement. Should it stop in between, running it again
-- gives the full result.)
DELETE FROM checks WHERE run_id IN (SELECT run_id FROM cases WHERE scored_by = 'regrade');
INSERT INTO checks (run_id, id, seq, kind, label, ok)
  SELECT c.run_id, c.id, k.seq, k.kind, k.label, k.ok
  FROM cases AS c, if_checks(c.agent_response, c.constraints) AS k
  WHERE c.scored_by = 'regrade'
  ORDER BY c.run_id, c.id, k.seq;

.print
.print Changed by the regrade (NULL: inconclusive)
SELECT run_id, id,
       CASE WHEN runner_score IS NULL THEN 'NULL' ELSE printf('%.4f', runner_score) END
         AS runner_score,
       CASE WHEN score IS NULL THEN 'NULL' ELSE printf('%.4f', score) END AS score,
       reason
FROM cases
WHERE score IS NOT runner_score OR reason IS NOT runner_reason
ORDER BY run_id, ord;

-- ---- per run: the runner's summary, recomputed ------------------------------
.print
.print Summary per run (rates over scored cases; passed = score >= 0.5; runner_scored: cases left with the runner's score)
SELECT r.model, s.run_id, r.dataset, s.scored_cases AS scored,
       s.inconclusive_cases AS inconcl, s.mean_score, s.pass_rate,
       s.good_case_pass_rate AS good_pass, s.bad_case_pass_rate AS bad_pass,
       (SELECT count(*) FROM cases AS c
        WHERE c.run_id = s.run_id AND c.scored_by = 'runner') AS runner_scored
FROM run_summary AS s JOIN runs AS r USING (run_id)
ORDER BY r.completed_at, r.run_id;

-- ---- per model: run by run, with what changed since the previous run ---------
.print
.print Per model, run by run (changes: against the model's previous run on the dataset)
SELECT r.model, r.run_id, s.scored_cases AS scored, s.mean_score, s.pass_rate,
       (SELECT count(*) FROM case_changes AS x
        WHERE x.to_run = r.run_id AND x.change = 'regressed') AS regressed,
       (SELECT count(*) FROM case_changes AS x
        WHERE x.to_run = r.run_id AND x.change = 'fixed') AS fixed,
       coalesce((SELECT DISTINCT x.from_run FROM case_changes AS x
                 WHERE x.to_run = r.run_id), '') AS since
FROM runs AS r JOIN run_summary AS s USING (run_id)
ORDER BY r.model, r.completed_at, r.run_id;

.print
.print Regressions and fixes since the previous run
SELECT model, from_run, to_run, id, change,
       CASE WHEN from_score IS NULL THEN 'NULL' ELSE printf('%.4f', from_score) END
         AS from_score,
       CASE WHEN to_score IS NULL THEN 'NULL' ELSE printf('%.4f', to_score) END
         AS to_score,
       to_reason
FROM case_changes
WHERE change IN ('regressed', 'fixed')
ORDER BY model, to_run, change DESC, id;

-- ---- which constraint kinds does each run fail? -----------------------------
-- From the stored checks (kind_summary): the rescored cases only.
.print
.print Failure rate per constraint kind
SELECT r.model, k.run_id, k.kind, k.checks, k.failed,
       printf('%.0f%%', 100.0 * k.fail_rate) AS fail_rate
FROM kind_summary AS k JOIN runs AS r USING (run_id)
ORDER BY r.model, r.completed_at, k.run_id, k.fail_rate DESC, k.kind;

-- ---- the checks that fail most often ----------------------------------------
-- A limit's label without what the answer got ("max_words<=8", not
-- "max_words<=8 (got 11)"), so that its failures count together.
.print
.print Most failed checks
SELECT k.label, count(*) AS failures, count(DISTINCT k.run_id) AS runs,
       group_concat(DISTINCT r.model) AS models
FROM (SELECT run_id,
             CASE WHEN kind IN ('max_words', 'min_words', 'max_chars')
                       AND instr(label, ' (got ') > 0
                  THEN substr(label, 1, instr(label, ' (got ') - 1) ELSE label END AS label
      FROM checks WHERE NOT ok) AS k
JOIN runs AS r USING (run_id)
GROUP BY k.label
ORDER BY failures DESC, k.label
LIMIT 10;

-- ---- the worst cases, with the reasons ---------------------------------------
.print
.print Worst cases
SELECT r.model, c.run_id, c.id, printf('%.4f', c.score) AS score, c.reason
FROM cases AS c JOIN runs AS r USING (run_id)
WHERE c.score < 0.5
ORDER BY c.score, r.model, r.completed_at, c.id
LIMIT 10;
