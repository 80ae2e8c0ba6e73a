-- sql/upgrade.sql — brings a database made by an older sql/schema.sql (before
-- runs.dataset) up to date, once; sql/schema.sql stops and names this script when
-- it finds such a database. Then run sql/schema.sql again for the new index, the
-- checks table and the views:
--
--   sqlite3 runs.db < sql/upgrade.sql && sqlite3 runs.db < sql/schema.sql
--
-- What it does, in one transaction (nothing changes on an error):
--   * adds runs.dataset and runs.results_file (NULL: the import did not record
--     them; importing a run again fills them) and cases.rescorable, cases.scored_by;
--   * a case is rescorable when it has constraints. One without them has no
--     source of constraints the older import could tell apart, so it gets the
--     runner's score, passed and reason back: an older regrade had called it
--     inconclusive;
--   * scored_by is 'regrade' where score or reason differs from the runner's;
--   * passed is score >= 0.5 (NULL with the score), as the import now writes it
--     (runner_passed keeps the runner's);
--   * stops, naming them, if a case id repeats within a run: sql/schema.sql's
--     unique index on (run_id, id) needs them gone (import the run again from a
--     file with unique ids, or delete the extra rows).

.bail on
.headers off
.mode list
PRAGMA foreign_keys = ON;
BEGIN;

-- Once only: a database already upgraded stops here, unchanged.
.once stderr
SELECT 'upgrade: this database is up to date already (runs has a dataset column):'
       || ' run sql/schema.sql'
WHERE EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'dataset');
DROP TABLE IF EXISTS temp.upgrade_done;
CREATE TEMP TABLE upgrade_done (
  done INTEGER CONSTRAINT "upgrade: nothing to do; nothing changed" CHECK (NOT done)
);
INSERT INTO upgrade_done
  SELECT EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'dataset');
DROP TABLE temp.upgrade_done;

.once stderr
SELECT 'upgrade: a case id repeats within a run (ids must be unique per run): '
       || group_concat(id || ' (run ' || run_id || ', ' || n || ' cases)', ', ')
FROM (SELECT run_id, id, count(*) AS n FROM cases
      GROUP BY run_id, id HAVING count(*) > 1 ORDER BY run_id, id LIMIT 10)
HAVING count(*) > 0;
DROP TABLE IF EXISTS temp.upgrade_check;
CREATE TEMP TABLE upgrade_check (
  n INTEGER CONSTRAINT "upgrade: a case id repeats within a run; nothing changed"
    CHECK (n = 0)
);
INSERT INTO upgrade_check
  SELECT count(*) FROM (SELECT 1 FROM cases GROUP BY run_id, id HAVING count(*) > 1);
DROP TABLE temp.upgrade_check;

ALTER TABLE runs ADD COLUMN dataset TEXT;
ALTER TABLE runs ADD COLUMN results_file TEXT;
ALTER TABLE cases ADD COLUMN rescorable INTEGER NOT NULL DEFAULT 1
  CHECK (rescorable IN (0, 1));
ALTER TABLE cases ADD COLUMN scored_by TEXT NOT NULL DEFAULT 'runner'
  CHECK (scored_by IN ('runner', 'regrade'));

UPDATE cases SET rescorable = 0 WHERE constraints IS NULL;
UPDATE cases SET score = runner_score, passed = runner_passed, reason = runner_reason
WHERE NOT rescorable;
UPDATE cases SET scored_by = 'regrade'
WHERE score IS NOT runner_score OR reason IS NOT runner_reason;
UPDATE cases SET passed = score >= 0.5;

COMMIT;
