-- sql/regrade.sql — rescores every instruction-following case with the ifscore
-- extension (one UPDATE), then prints the analytics examples: what the regrade
-- changed, the runner's summary per run, score and pass rate per model, failures
-- per constraint kind (if_checks), the most failed checks and the worst cases.
--
--   sqlite3 -cmd ".load build/ifscore" -cmd ".mode box" runs.db < sql/regrade.sql
--
-- Needs the tables of sql/schema.sql (filled by sql/import.sql). Each query below
-- stands alone: copy it into a notebook or a dashboard that loads the extension.
-- Re-running the script is harmless: the UPDATE gives the same values again.

.bail on
.headers on

-- ---- the regrade -----------------------------------------------------------
-- score, passed and reason from the extension; runner_score / runner_passed /
-- runner_reason keep what the runner wrote. The three calls on one row share one
-- evaluation. An empty response the runner did not score is an agent failure
-- (timeout, error, no prediction), not an answer: it stays as the runner left it.
UPDATE cases
SET score  = if_score(agent_response, constraints),
    passed = if_pass(agent_response, constraints),
    reason = if_reason(agent_response, constraints)
WHERE benchmark = 'instruction_following'
  AND NOT (coalesce(agent_response, '') = '' AND runner_score IS NULL);

.print
.print Changed by the regrade
SELECT run_id, id,
       printf('%.4f', runner_score) AS runner_score,
       printf('%.4f', score)        AS score,
       reason
FROM cases
WHERE score IS NOT runner_score OR reason IS NOT runner_reason
ORDER BY run_id, ord;

-- ---- per run: the runner's summary, recomputed ------------------------------
.print
.print Summary per run (rates over scored cases; passed = score >= 0.5)
SELECT r.model, s.run_id, s.scored_cases AS scored, s.inconclusive_cases AS inconcl,
       s.mean_score, s.pass_rate, s.good_case_pass_rate AS good_pass,
       s.bad_case_pass_rate AS bad_pass
FROM run_summary AS s JOIN runs AS r USING (run_id)
ORDER BY r.completed_at;

-- ---- per model: every run of the model together ----------------------------
.print
.print Per model (all runs)
SELECT r.model,
       count(DISTINCT r.run_id)                         AS runs,
       count(c.score)                                   AS scored,
       printf('%.3f', avg(c.score))                     AS mean_score,
       printf('%.3f', avg(c.score >= 0.5))              AS pass_rate,
       printf('%.3f', avg(CASE WHEN c.expected_behavior = 'bad'
                               THEN c.score >= 0.5 END)) AS bad_pass_rate
FROM runs AS r JOIN cases AS c USING (run_id)
WHERE c.benchmark = 'instruction_following'
GROUP BY r.model
ORDER BY avg(c.score) DESC;

-- ---- which constraint kinds does each model fail? ---------------------------
-- if_checks gives one row per check: seq, kind, label, ok.
.print
.print Failure rate per constraint kind
SELECT r.model, k.kind,
       count(*)                       AS checks,
       sum(NOT k.ok)                  AS failed,
       printf('%.0f%%', 100.0 * avg(NOT k.ok)) AS fail_rate
FROM runs AS r
JOIN cases AS c USING (run_id),
     if_checks(c.agent_response, c.constraints) AS k
WHERE c.benchmark = 'instruction_following'
GROUP BY r.model, k.kind
ORDER BY r.model, avg(NOT k.ok) DESC, k.kind;

-- ---- the checks that fail most often ----------------------------------------
.print
.print Most failed checks
SELECT k.label, count(*) AS failures, group_concat(DISTINCT r.model) AS models
FROM runs AS r
JOIN cases AS c USING (run_id),
     if_checks(c.agent_response, c.constraints) AS k
WHERE c.benchmark = 'instruction_following' AND NOT k.ok
GROUP BY k.label
ORDER BY failures DESC, k.label
LIMIT 10;

-- ---- the worst cases, with the reference's reasons --------------------------
.print
.print Worst cases
SELECT r.model, c.id, printf('%.3f', c.score) AS score, c.reason
FROM cases AS c JOIN runs AS r USING (run_id)
WHERE c.benchmark = 'instruction_following' AND c.score < 0.5
ORDER BY c.score, r.model, c.id
LIMIT 10;
