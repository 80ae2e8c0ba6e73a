-- demo/demo.sql — scores the bundled sample (demo/cases.sql) with the ifscore
-- extension and prints three tables: per model, failing cases, inconclusive cases.
-- Run by demo/run.sh from the repo root, which picks the output mode (.mode box
-- when the sqlite3 CLI has it); by hand:
--   sqlite3 build/demo.db -cmd '.mode box' < demo/demo.sql

.bail on
.headers on
.load build/ifscore

-- Score every case once; a TEMP view so build/demo.db stays readable without
-- the extension loaded.
CREATE TEMP VIEW scored AS
  SELECT model, prompt_id, constraints,
         if_score(response, constraints)  AS score,
         if_reason(response, constraints) AS reason
  FROM cases;

.print
.print Per model (pass = score >= 0.5; means and rates over scored cases only)
SELECT model, scored, inconclusive, mean_score, pass_rate
FROM (
  SELECT 0 AS is_total, model,
         count(score)                       AS scored,
         count(*) - count(score)            AS inconclusive,
         avg(score)                         AS mean,
         printf('%.3f', avg(score))         AS mean_score,
         printf('%.3f', avg(score >= 0.5))  AS pass_rate
  FROM scored GROUP BY model
  UNION ALL
  SELECT 1, 'all models', count(score), count(*) - count(score), avg(score),
         printf('%.3f', avg(score)), printf('%.3f', avg(score >= 0.5))
  FROM scored
)
ORDER BY is_total, mean DESC, model;

.print
.print Failing cases (score < 0.5), worst first
SELECT model, prompt_id AS prompt, printf('%.3f', score) AS score, reason
FROM scored
WHERE score < 0.5
ORDER BY scored.score, model, prompt_id;

.print
.print Inconclusive cases (no score: nothing to check)
SELECT model, prompt_id AS prompt, coalesce(constraints, 'NULL') AS constraints, reason
FROM scored
WHERE score IS NULL
ORDER BY model, prompt_id;
