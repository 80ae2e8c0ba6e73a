-- sql/import.sql — loads an eval runner's eval_results.json, and the dataset it ran
-- on, into the tables of sql/schema.sql. A script for the sqlite3 CLI (>= 3.38):
-- it reads the files with the CLI's readfile() and parses them with JSON1.
--
-- The two paths are CLI parameters, set with .parameter before the script runs:
--
--   sqlite3 runs.db < sql/schema.sql
--   sqlite3 -cmd ".parameter set :results output/eval_results.json" \
--           -cmd ".parameter set :dataset datasets/if_cases.jsonl" \
--           runs.db < sql/import.sql
--
--   :results  eval_results.json: one run object, or a JSON array of run objects.
--   :dataset  the dataset the run was scored on: a JSON array of case objects or a
--             JSONL file (one case object per line, blank lines allowed), each with
--             "id" and "constraints". Every case of the results must have its row
--             there: the import stops, changes nothing and names the missing ids
--             (up to 10) otherwise. Leave it unset when the cases carry their own
--             "constraints" (or "metadata": {"constraints": ...}).
--   :dataset_name  optional: the name stored in runs.dataset; by default the
--             :dataset file's name without its directory (if_cases.jsonl).
--   :replace  optional: set (to 1) to let a run replace a stored run of another
--             model that has its run_id. Without it the import stops and names
--             both (runner ids are timestamps: two models started in the same
--             second share one). A run of the same model is always replaced.
--
-- Without :dataset, a case that carries no constraints has no source of them: it
-- keeps the runner's score and is marked rescorable = 0, so sql/regrade.sql leaves
-- it alone (it does not turn it inconclusive); the import says how many on stderr.
-- So does a case without an "agent_response" key (JSON null is an empty answer).
-- A case id that repeats within a run stops the import, naming the id; so does
-- an id that is neither a JSON string nor an integer (true, 1.5, an object); so does
-- a run without run_id or cases array, a run_id twice in the file, or a case or
-- dataset case without id, naming where it is.
--
-- .parameter reads its value as an SQL literal when it can: a path such as 1e5
-- or null must be quoted inside the argument, as must a path with spaces:
--   -cmd ".parameter set :results \"'1e5'\""   -cmd ".parameter set :results 'my runs.json'"
-- Paths are relative to the CLI's working directory.
--
-- What goes where:
--   runs   run_id, completed_at, agent_endpoint, pipeline, total_cases, summary
--          (verbatim JSON), model = the file's "model" if present, else the endpoint,
--          dataset (see :dataset_name), results_file = :results as given.
--   cases  one row per element of cases[], ord = its 0-based position. score,
--          passed and reason are copied twice: into score/passed/reason (which
--          sql/regrade.sql rewrites) and runner_score/runner_passed/runner_reason
--          (which it keeps). The keys "score" / "reason" are read, or the
--          runner's older names "quality_score" / "judge_reason" when absent; a
--          score that is not a JSON number (or boolean, which Python counts as
--          one) is NULL, i.e. inconclusive, as in the runner's summary. passed
--          is score >= 0.5 (NULL with the score), as the runner's summary and
--          run-to-run changes count; runner_passed is the file's "passed" (a
--          JSON true or false, else NULL).
--          constraints: the dataset case with the same id (the last one when the
--          id repeats, as the runner does), else the case's own constraints, as
--          JSON text; SQL NULL for none or JSON null (both score as "no
--          constraints specified").
--          input, expected_behavior: the case's, else the dataset case's.
--          benchmark: the case's "benchmark", else the dataset case's, else the
--          run's, else the pipeline file name without directory and .yaml/.yml
--          (instruction_following.yaml -> instruction_following).
--          rescorable: 1 when the case has an "agent_response" key and the
--          dataset has the case or the case has its own "constraints" key;
--          scored_by = 'runner'.
--
-- Idempotent: importing a file again gives the same database (rows are upserted
-- on their keys, so even rowids stay put), and resets the cases of its runs to
-- what the file says: score/passed/reason lose any regrade, and the run's rows
-- in `checks` are deleted. Cases the file no longer has at the same position
-- (from an earlier version of the run) are deleted.
-- Everything happens in one transaction; on any error (.bail) nothing changes.
-- Errors are the last line on stderr; the line before names the file, the line,
-- the run or the ids that are the problem. Notes (cases left to the runner's
-- scores, runs whose regrade an import undid) go to stderr too. The script sets
-- .mode list and .headers off.

.bail on
.headers off
.mode list
PRAGMA foreign_keys = ON;
BEGIN;

-- ---- the database and the files ----------------------------------------------

-- The tables of sql/schema.sql: a database without them (made by a mistyped
-- path, which the CLI opens as a new, empty database) stops the import here.
DROP TABLE IF EXISTS temp.import_schema;
CREATE TEMP TABLE import_schema (
  runs INTEGER
    CONSTRAINT "import: this database has no runs table: create the tables first (sqlite3 DB < sql/schema.sql)"
    CHECK (runs)
);
INSERT INTO import_schema
  SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'runs';

-- The checks call no function (JSON1 may not be innocuous, see sql/schema.sql):
-- parses is computed by the INSERT: the results are JSON; the dataset JSON, or
-- JSONL (each line L, as [L], JSON holding at most one value: a raw newline
-- cannot occur inside a JSON value). A byte order mark at the start goes.
DROP TABLE IF EXISTS temp.import_file;
CREATE TEMP TABLE import_file (
  kind TEXT PRIMARY KEY,
  path TEXT,
  body TEXT,
  is_json INTEGER,        -- body is one JSON value
  top    TEXT,            -- and its first character ('[' an array, '{' an object)
  parses INTEGER,         -- it is JSON, or (a dataset) JSONL
  bad_line INTEGER,       -- a dataset that does not parse: its first line that is not
  bad_why TEXT            -- one JSON value, and why
);
-- One step at a time, so that each holds one copy of a file's text more: SQLite
-- evaluates a subquery's column where it is used, and a JSON function keeps its
-- parse of a text until the statement ends.
-- "string or blob too big" here: the file is longer than SQLite's longest string
-- (SQLITE_MAX_LENGTH, 1,000,000,000 bytes unless built otherwise), which
-- readfile() cannot return: split the runs into smaller files.
INSERT INTO import_file (kind, path, body)
  SELECT 'results', :results, CAST(readfile(:results) AS TEXT);
INSERT INTO import_file (kind, path, body)
  SELECT 'dataset', :dataset, CAST(readfile(:dataset) AS TEXT) WHERE :dataset IS NOT NULL;
UPDATE import_file SET body = substr(body, 2) WHERE substr(body, 1, 1) = char(65279);
UPDATE import_file SET is_json = json_valid(body);
UPDATE import_file SET top = substr(ltrim(body, ' ' || char(9, 10, 13)), 1, 1) WHERE is_json;
-- A dataset that is neither an array nor an object may be JSONL: each line L
-- becomes [L], the lines an array of those ([[L1],[L2],[]] for a blank third
-- line), kept if that is JSON and no line holds two values. (A table of its
-- own, so that no update rewrites the file's text.)
DROP TABLE IF EXISTS temp.import_jsonl;
CREATE TEMP TABLE import_jsonl (lines TEXT);
INSERT INTO import_jsonl
  SELECT '[[' || replace(body, char(10), '],[') || ']]' FROM import_file
  WHERE kind = 'dataset' AND body IS NOT NULL AND top IS NOT '[' AND top IS NOT '{';
DELETE FROM import_jsonl WHERE NOT json_valid(lines);
DELETE FROM import_jsonl
WHERE EXISTS (SELECT 1 FROM json_each(lines) AS e WHERE json_array_length(e.value) > 1);
UPDATE import_file
SET parses = is_json OR (kind = 'dataset' AND EXISTS (SELECT 1 FROM import_jsonl));
-- The lines as a JSON array of strings (quotes, backslashes, tabs and carriage
-- returns escaped; another control character leaves the line unknown).
UPDATE import_file SET (bad_line, bad_why) = (
  WITH quoted (lines) AS (
    SELECT '["' || replace(replace(replace(replace(replace(body, '\', '\\'), '"', '\"'),
                                           char(9), '\t'), char(13), '\r'),
                           char(10), '","') || '"]'),
  valid (lines) AS (SELECT lines FROM quoted WHERE json_valid(lines))
  SELECT e.key + 1, CASE WHEN json_valid('[' || e.value || ']')
                         THEN 'holds more than one JSON value' ELSE 'is not valid JSON' END
  FROM valid, json_each(valid.lines) AS e
  WHERE NOT json_valid('[' || e.value || ']') OR json_array_length('[' || e.value || ']') > 1
  ORDER BY e.key LIMIT 1)
WHERE kind = 'dataset' AND body IS NOT NULL AND NOT parses;

-- A file that cannot be used: the line before the error names it.
.once stderr
SELECT CASE WHEN path IS NULL THEN 'import: :results is not set'
                                   || ' (-cmd ".parameter set :results FILE")'
            WHEN body IS NULL THEN 'import: cannot read the :' || kind || ' file ' || path
            WHEN hex(substr(readfile(path), 1, 2)) IN ('FFFE', 'FEFF')
              THEN 'import: the :' || kind || ' file ' || path || ' is UTF-16: convert it'
                   || ' to UTF-8 (iconv -f UTF-16 -t UTF-8)'
            WHEN kind = 'results' THEN 'import: the :results file ' || path
                   || ' is not valid JSON'
                   || CASE WHEN body GLOB '*[:,[]NaN*' OR body GLOB '*[:,[] NaN*'
                                OR body GLOB '*[:,[]Infinity*' OR body GLOB '*[:,[] Infinity*'
                                OR body GLOB '*[:,[]-Infinity*' OR body GLOB '*[:,[] -Infinity*'
                           THEN ' (it holds NaN or Infinity, which Python writes for'
                                || ' non-finite floats and JSON has not: write null)'
                           ELSE '' END
            WHEN bad_line IS NOT NULL THEN 'import: line ' || bad_line || ' of the :dataset file '
                                           || path || ' ' || bad_why
            ELSE 'import: the :dataset file ' || path || ' is neither JSON nor JSONL' END
FROM import_file
WHERE body IS NULL OR NOT parses
ORDER BY rowid LIMIT 1;
DROP TABLE IF EXISTS temp.import_file_check;
CREATE TEMP TABLE import_file_check (
  kind TEXT,
  readable INTEGER,
  parses INTEGER,
  CONSTRAINT "import: set :results to a readable eval_results.json"
    CHECK (kind <> 'results' OR readable),
  CONSTRAINT "import: the :results file is not valid JSON"
    CHECK (kind <> 'results' OR parses),
  CONSTRAINT "import: cannot read the :dataset file"
    CHECK (kind <> 'dataset' OR readable),
  CONSTRAINT "import: the :dataset file is neither JSON nor JSONL"
    CHECK (kind <> 'dataset' OR parses)
);
INSERT INTO import_file_check
  SELECT kind, body IS NOT NULL, parses FROM import_file ORDER BY rowid;

-- ---- the dataset: ord, id, the case object -------------------------------

DROP TABLE IF EXISTS temp.import_dataset;
CREATE TEMP TABLE import_dataset (
  ord   INTEGER PRIMARY KEY,  -- the array's index, or the line's (from 0)
  id    TEXT,
  value TEXT,
  place TEXT                  -- for messages: 'at [3]', 'on line 4'; NULL: the one object
);
-- A JSON array, a single object, or JSONL (import_jsonl). Every value is
-- JSON text (json_each gives an element that is a string as its text).
INSERT INTO import_dataset (ord, id, value, place)
  WITH src AS (SELECT body, top FROM import_file WHERE kind = 'dataset'),
  item (ord, value, place) AS (
    SELECT e.key, CASE WHEN e.type = 'text' THEN json_quote(e.value) ELSE e.value END,
           'at [' || e.key || ']'
    FROM src, json_each(src.body) AS e WHERE src.top = '['
    UNION ALL
    SELECT 0, src.body, NULL FROM src WHERE src.top = '{'
    UNION ALL
    SELECT e.key, e.value -> '$[0]', 'on line ' || (e.key + 1)
    FROM import_jsonl, json_each(import_jsonl.lines) AS e
    WHERE json_array_length(e.value) > 0
  )
  SELECT ord, CAST(value ->> '$.id' AS TEXT), value, place FROM item;

-- The case the runner would use for each id: the last one.
DROP TABLE IF EXISTS temp.import_dataset_by_id;
CREATE TEMP TABLE import_dataset_by_id (id TEXT PRIMARY KEY, value TEXT);
INSERT INTO import_dataset_by_id
  SELECT id, value FROM (
    SELECT id, value, row_number() OVER (PARTITION BY id ORDER BY ord DESC) AS k
    FROM import_dataset WHERE id IS NOT NULL)
  WHERE k = 1;

-- ---- the runs ------------------------------------------------------------

DROP TABLE IF EXISTS temp.import_run;
CREATE TEMP TABLE import_run (
  pos    INTEGER,         -- its index in the file's array; NULL for a lone run object
  run_id TEXT,
  value  TEXT,
  model  TEXT,            -- runs.model: the file's "model", else its endpoint
  dataset TEXT,           -- runs.dataset: :dataset_name, else the :dataset file's name
  benchmark TEXT,         -- the fallback for its cases
  head   TEXT             -- value without its cases, whose keys the columns above are
);
-- A statement keeps each JSON function's parse of a text until it ends, so the
-- runs are split out and their keys read in steps: only one function at a time
-- reads a whole file or run.
INSERT INTO import_run (pos, value)
  SELECT e.key, CASE WHEN e.type = 'text' THEN json_quote(e.value) ELSE e.value END
  FROM import_file AS f, json_each(f.body) AS e
  WHERE f.kind = 'results' AND f.top = '['
  UNION ALL
  SELECT NULL, body FROM import_file WHERE kind = 'results' AND top IS NOT '[';
UPDATE import_run SET head = json_remove(value, '$.cases');
UPDATE import_run SET (run_id, model, dataset, benchmark) = (
  SELECT CAST(head ->> '$.run_id' AS TEXT),
         coalesce(head ->> '$.model', head ->> '$.agent_endpoint'),
         (SELECT coalesce(CAST(:dataset_name AS TEXT),
                          substr(p, length(rtrim(p, replace(p, '/', ''))) + 1))
          FROM (SELECT replace(path, '\', '/') AS p FROM import_file
                WHERE kind = 'dataset'
                UNION ALL SELECT NULL
                WHERE NOT EXISTS (SELECT 1 FROM import_file WHERE kind = 'dataset'))),
         coalesce(head ->> '$.benchmark',
                  CASE WHEN file LIKE '%.yaml' THEN substr(file, 1, length(file) - 5)
                       WHEN file LIKE '%.yml'  THEN substr(file, 1, length(file) - 4)
                       ELSE file END)
  FROM (SELECT substr(pipeline, length(rtrim(pipeline, replace(pipeline, '/', ''))) + 1)
                 AS file
        FROM (SELECT head ->> '$.pipeline' AS pipeline)));

-- ---- checks on the runs and the dataset's ids ------------------------------
-- Each failing check prints what it found to stderr (.once stderr); then a
-- CHECK constraint of a check table stops the script (.bail on) inside the open
-- transaction, so nothing changes.

.once stderr
SELECT 'import: ' || :results || ' holds no runs: nothing to import'
WHERE NOT EXISTS (SELECT 1 FROM import_run);

.once stderr
SELECT 'import: ' || CASE WHEN pos IS NULL AND json_type(value) IS NOT 'object'
                            THEN :results || ' holds neither a run object nor an array of them'
                          WHEN pos IS NULL THEN :results || ' has no run_id'
                          ELSE 'the run at [' || pos || '] of ' || :results
                               || CASE WHEN json_type(value) IS NOT 'object'
                                       THEN ' is not an object' ELSE ' has no run_id' END END
FROM import_run WHERE run_id IS NULL ORDER BY pos LIMIT 1;

-- A run_id names one run: within the file, and against the runs stored (runner
-- ids are timestamps: two models started in the same second share one), unless
-- :replace is set.
DROP TABLE IF EXISTS temp.import_run_twice;
CREATE TEMP TABLE import_run_twice AS
  SELECT run_id, count(*) AS n FROM import_run
  WHERE run_id IS NOT NULL GROUP BY run_id HAVING count(*) > 1;
.once stderr
SELECT 'import: a run_id names several runs of ' || :results || ': '
       || group_concat(run_id || ' (' || n || ' runs)', ', ')
FROM (SELECT * FROM import_run_twice ORDER BY run_id) HAVING count(*) > 0;

DROP TABLE IF EXISTS temp.import_clash;
CREATE TEMP TABLE import_clash AS
  SELECT i.pos, i.run_id, i.model, r.model AS stored_model, r.results_file AS stored_file
  FROM import_run AS i JOIN main.runs AS r ON r.run_id = i.run_id
  WHERE r.model IS NOT i.model;
.once stderr
SELECT 'import: ' || CASE WHEN :replace IS NOT NULL THEN 'replacing the stored '
                          WHEN count(*) = 1 THEN 'a run of ' || :results
                                                 || ' would replace the stored '
                          ELSE count(*) || ' runs of ' || :results
                               || ' would replace the stored ' END
       || CASE count(*) WHEN 1 THEN 'run' ELSE 'runs' END || ' of another model: '
       || group_concat(run_id || ' (' || coalesce(model, 'no model') || ' here, '
                       || coalesce(stored_model, 'no model') || ' from '
                       || coalesce(stored_file, '?') || ')', ', ')
FROM (SELECT * FROM import_clash ORDER BY pos) HAVING count(*) > 0;

.once stderr
SELECT 'import: ' || CASE count(*) WHEN 1 THEN 'a run' ELSE count(*) || ' runs' END
       || ' of ' || :results || ' ' || CASE count(*) WHEN 1 THEN 'has' ELSE 'have' END
       || ' no cases array: ' || group_concat(run_id, ', ')
FROM (SELECT * FROM import_run   -- (one without run_id is named above)
      WHERE run_id IS NOT NULL AND json_type(value, '$.cases') IS NOT 'array'
      ORDER BY pos)
HAVING count(*) > 0;

.once stderr
SELECT 'import: the :dataset case ' || coalesce(d.place || ' of ', 'in ') || :dataset
       || CASE WHEN json_type(d.value) IS NOT 'object' THEN ' is not an object'
               ELSE ' has no id' END
FROM import_dataset AS d WHERE d.id IS NULL ORDER BY d.ord LIMIT 1;

-- A case is an object (json_each gives one that is a string as its text, which
-- the JSON functions would then fail on).
DROP TABLE IF EXISTS temp.import_odd_case;
CREATE TEMP TABLE import_odd_case AS
  SELECT r.pos, r.run_id, e.key AS ord
  FROM import_run AS r, json_each(r.value, '$.cases') AS e
  WHERE json_type(r.value, '$.cases') = 'array' AND e.type <> 'object';
.once stderr
SELECT 'import: ' || CASE count(*) WHEN 1 THEN 'a case of ' ELSE count(*) || ' cases of ' END
       || :results || CASE count(*) WHEN 1 THEN ' is' ELSE ' are' END || ' not an object: '
       || (SELECT 'cases[' || ord || '] of run ' || coalesce(run_id, '[' || pos || ']')
           FROM import_odd_case ORDER BY pos, ord LIMIT 1)
       || CASE WHEN count(*) > 1 THEN ', ...' ELSE '' END
FROM import_odd_case HAVING count(*) > 0;

DROP TABLE IF EXISTS temp.import_run_check;
CREATE TEMP TABLE import_run_check (
  no_run_id INTEGER
    CONSTRAINT "import: a run has no run_id" CHECK (no_run_id = 0),
  twice INTEGER
    CONSTRAINT "import: a run_id names several runs of the file; nothing imported"
    CHECK (twice = 0),
  clash INTEGER
    CONSTRAINT "import: a run_id is stored for another model; nothing imported (to replace that run: -cmd "".parameter set :replace 1"")"
    CHECK (clash = 0),
  no_cases INTEGER
    CONSTRAINT "import: a run has no cases array; nothing imported" CHECK (no_cases = 0),
  odd_cases INTEGER
    CONSTRAINT "import: a case is not an object; nothing imported" CHECK (odd_cases = 0),
  dataset_no_id INTEGER
    CONSTRAINT "import: a dataset case has no id" CHECK (dataset_no_id = 0)
);
INSERT INTO import_run_check
  SELECT (SELECT count(*) FROM import_run WHERE run_id IS NULL),
         (SELECT count(*) FROM import_run_twice),
         (SELECT count(*) FROM import_clash WHERE :replace IS NULL),
         (SELECT count(*) FROM import_run WHERE json_type(value, '$.cases') IS NOT 'array'),
         (SELECT count(*) FROM import_odd_case),
         (SELECT count(*) FROM import_dataset WHERE id IS NULL);

-- ---- the cases -----------------------------------------------------------

.once stderr
SELECT 'import: ' || CASE n WHEN 1 THEN 'a case of ' ELSE n || ' cases of ' END || :results
       || CASE n WHEN 1 THEN ' has' ELSE ' have' END || ' no id: '
       || CASE n WHEN 1 THEN '' ELSE 'the first, ' END
       || 'cases[' || ord || '] of run ' || run_id
FROM (SELECT r.run_id, e.key AS ord, count(*) OVER () AS n
      FROM import_run AS r, json_each(r.value, '$.cases') AS e
      WHERE e.value ->> '$.id' IS NULL ORDER BY r.pos, e.key LIMIT 1);

DROP TABLE IF EXISTS temp.import_case;
CREATE TEMP TABLE import_case (
  run_id TEXT NOT NULL,
  ord    INTEGER NOT NULL,
  id     TEXT CONSTRAINT "import: a case has no id" CHECK (id IS NOT NULL),
  value  TEXT,
  score_key TEXT,         -- '$.score', or '$.quality_score' when there is no score
  reason_key TEXT,
  constraints TEXT,       -- JSON: the dataset case's, else the case's own; NULL: none
  has_source INTEGER,     -- the dataset has the case or the case its own constraints key
  answer TEXT,            -- why the answer cannot be rescored: 'absent' (no
                          -- agent_response key), 'nul' (it holds \u0000); NULL: it can
  PRIMARY KEY (run_id, ord)
);
INSERT INTO import_case
  SELECT r.run_id, e.key, CAST(e.value ->> '$.id' AS TEXT), e.value,
         CASE WHEN json_type(e.value, '$.score') IS NULL
                   AND json_type(e.value, '$.quality_score') IS NOT NULL
              THEN '$.quality_score' ELSE '$.score' END,
         CASE WHEN json_type(e.value, '$.reason') IS NULL
                   AND json_type(e.value, '$.judge_reason') IS NOT NULL
              THEN '$.judge_reason' ELSE '$.reason' END,
         nullif(coalesce(d.value -> '$.constraints', e.value -> '$.constraints',
                         e.value -> '$.metadata.constraints'), 'null'),
         d.id IS NOT NULL OR json_type(e.value, '$.constraints') IS NOT NULL
           OR json_type(e.value, '$.metadata.constraints') IS NOT NULL,
         CASE WHEN json_type(e.value, '$.agent_response') IS NULL THEN 'absent'
              WHEN instr(e.value -> '$.agent_response', '\u0000') > 0 THEN 'nul' END
  FROM import_run AS r, json_each(r.value, '$.cases') AS e
  LEFT JOIN import_dataset_by_id AS d ON d.id = CAST(e.value ->> '$.id' AS TEXT);

-- ---- checks on the cases: nothing is written before they pass --------------

-- A case id names one case of a run.
DROP TABLE IF EXISTS temp.import_repeat;
CREATE TEMP TABLE import_repeat AS
  SELECT run_id, id, count(*) AS n, min(ord) AS first
  FROM import_case GROUP BY run_id, id HAVING count(*) > 1;
.once stderr
SELECT 'import: a case id repeats within a run in ' || :results
       || ' (ids must be unique per run): '
       || (SELECT group_concat(id || ' (run ' || run_id || ', ' || n || ' cases)', ', ')
           FROM (SELECT * FROM import_repeat ORDER BY run_id, first LIMIT 10))
       || CASE WHEN count(*) > 10 THEN ' and ' || (count(*) - 10) || ' more' ELSE '' END
FROM import_repeat HAVING count(*) > 0;

-- With :dataset, every case has its row there.
DROP TABLE IF EXISTS temp.import_missing;
CREATE TEMP TABLE import_missing AS
  SELECT c.id, min(c.run_id || char(31) || printf('%010d', c.ord)) AS first
  FROM import_case AS c
  WHERE EXISTS (SELECT 1 FROM import_file WHERE kind = 'dataset')
    AND NOT EXISTS (SELECT 1 FROM import_dataset_by_id AS d WHERE d.id = c.id)
  GROUP BY c.id;
.once stderr
SELECT 'import: ' || count(*) || CASE count(*) WHEN 1 THEN ' case id' ELSE ' case ids' END
       || ' of ' || :results || CASE count(*) WHEN 1 THEN ' is' ELSE ' are' END
       || ' not in the :dataset file ' || :dataset || ': '
       || (SELECT group_concat(id, ', ')
           FROM (SELECT id FROM import_missing ORDER BY first LIMIT 10))
       || CASE WHEN count(*) > 10 THEN ' and ' || (count(*) - 10) || ' more' ELSE '' END
FROM import_missing HAVING count(*) > 0;

-- A key twice in one object: Python's json reads the last, SQLite's the first,
-- so the import would not see what the runner saw.
DROP TABLE IF EXISTS temp.import_twice_key;
CREATE TEMP TABLE import_twice_key AS
  SELECT 'cases[' || c.ord || '] of run ' || c.run_id AS place, e.key
  FROM import_case AS c, json_each(c.value) AS e
  GROUP BY c.run_id, c.ord, e.key HAVING count(*) > 1
  UNION ALL
  SELECT 'run ' || i.run_id, e.key FROM import_run AS i, json_each(i.value) AS e
  GROUP BY i.run_id, e.key HAVING count(*) > 1
  UNION ALL
  SELECT 'the :dataset case ' || d.id, e.key FROM import_dataset AS d, json_each(d.value) AS e
  WHERE json_type(d.value) = 'object'
  GROUP BY d.ord, e.key HAVING count(*) > 1;
.once stderr
SELECT 'import: ' || place || ' has the key "' || key || '" twice: JSON readers differ on'
       || ' which counts (Python''s the last, SQLite''s the first)'
       || CASE WHEN (SELECT count(*) FROM import_twice_key) > 1
               THEN '; and ' || ((SELECT count(*) FROM import_twice_key) - 1) || ' more'
               ELSE '' END
FROM import_twice_key LIMIT 1;

-- SQLite's JSON functions (3.40) end a string at a \u0000 escape: an id holding
-- one would be read as its start, and could take another case's constraints.
DROP TABLE IF EXISTS temp.import_nul_id;
CREATE TEMP TABLE import_nul_id AS
  SELECT 'cases[' || ord || '] of run ' || run_id AS place FROM import_case
  WHERE instr(value -> '$.id', '\u0000') > 0
  UNION ALL
  SELECT 'the :dataset case ' || coalesce(place, 'in ' || :dataset) FROM import_dataset
  WHERE instr(value -> '$.id', '\u0000') > 0;
.once stderr
SELECT 'import: ' || count(*) || CASE count(*) WHEN 1 THEN ' id holds' ELSE ' ids hold' END
       || ' \u0000, which SQLite''s JSON functions end a string at: '
       || (SELECT group_concat(place, ', ') FROM (SELECT place FROM import_nul_id LIMIT 3))
       || CASE WHEN count(*) > 3 THEN ', ...' ELSE '' END
FROM import_nul_id HAVING count(*) > 0;

-- An id is a JSON string or integer: SQLite reads true as 1 and 1.0 as '1.0',
-- where Python's runner takes both for 1, and an object or array names nothing.
DROP TABLE IF EXISTS temp.import_odd_id;
CREATE TEMP TABLE import_odd_id AS
  SELECT 'cases[' || ord || '] of run ' || run_id || ' has ' || substr(value -> '$.id', 1, 40)
         AS place FROM import_case
  WHERE json_type(value, '$.id') NOT IN ('text', 'integer')
  UNION ALL
  SELECT 'the :dataset case ' || coalesce(place, 'in ' || :dataset) || ' has '
         || substr(value -> '$.id', 1, 40) FROM import_dataset
  WHERE json_type(value, '$.id') NOT IN ('text', 'integer');
.once stderr
SELECT 'import: ' || count(*) || CASE count(*) WHEN 1 THEN ' id is' ELSE ' ids are' END
       || ' neither a JSON string nor an integer, which SQLite and Python''s runner'
       || ' read differently: '
       || (SELECT group_concat(place, ', ') FROM (SELECT place FROM import_odd_id LIMIT 3))
       || CASE WHEN count(*) > 3 THEN ', ...' ELSE '' END
FROM import_odd_id HAVING count(*) > 0;

DROP TABLE IF EXISTS temp.import_check;
CREATE TEMP TABLE import_check (
  twice_key INTEGER
    CONSTRAINT "import: a key appears twice in one object; nothing imported"
    CHECK (twice_key = 0),
  nul_id INTEGER
    CONSTRAINT "import: an id holds \u0000; nothing imported"
    CHECK (nul_id = 0),
  odd_id INTEGER
    CONSTRAINT "import: an id is neither a string nor an integer; nothing imported"
    CHECK (odd_id = 0),
  repeated INTEGER
    CONSTRAINT "import: a case id repeats within a run; nothing imported"
    CHECK (repeated = 0),
  missing INTEGER
    CONSTRAINT "import: cases missing from the :dataset file; nothing imported"
    CHECK (missing = 0)
);
INSERT INTO import_check
  SELECT (SELECT count(*) FROM import_twice_key), (SELECT count(*) FROM import_nul_id),
         (SELECT count(*) FROM import_odd_id), (SELECT count(*) FROM import_repeat),
         (SELECT count(*) FROM import_missing);

-- Without any source of constraints a case keeps the runner's score: say so.
.once stderr
SELECT 'import: no :dataset, and ' || count(*) || ' of '
       || (SELECT count(*) FROM import_case) || ' cases carry no constraints:'
       || ' they keep the runner''s scores and sql/regrade.sql leaves them alone'
FROM import_case
WHERE NOT EXISTS (SELECT 1 FROM import_file WHERE kind = 'dataset') AND NOT has_source
HAVING count(*) > 0;

-- Nor is a case without an agent_response key rescored (a results file whose
-- answers are under another key would be graded as empty answers), nor one
-- whose response holds \u0000 (SQLite's JSON functions end the string there,
-- and the regrade would grade its start): say so.
.once stderr
SELECT 'import: ' || count(*) || ' of ' || (SELECT count(*) FROM import_case)
       || ' cases of ' || :results
       || CASE c.answer WHEN 'absent' THEN ' have no agent_response'
               ELSE ' have \u0000 in agent_response, where SQLite''s JSON functions end it' END
       || ': they keep the runner''s scores and sql/regrade.sql leaves them alone ('
       || (SELECT group_concat(id, ', ') FROM
            (SELECT x.id FROM import_case AS x JOIN import_run AS r USING (run_id)
             WHERE x.answer = c.answer ORDER BY r.pos, x.ord LIMIT 3))
       || CASE WHEN count(*) > 3 THEN ', ...)' ELSE ')' END
FROM import_case AS c WHERE c.answer IS NOT NULL GROUP BY c.answer ORDER BY c.answer;

-- Run-to-run changes pair a model's runs on one dataset name: a run stored
-- under a name none of the model's other runs has, while they have another
-- (a dataset renamed or copied, or a new one), is compared with none: say so.
.once stderr
SELECT 'import: ' || group_concat('run ' || i.run_id || ' is the first of ' || i.model
                                  || coalesce(' on the dataset ' || i.dataset,
                                              ' without a dataset name')
                                  || ', its other runs are on '
                                  || (SELECT group_concat(coalesce(d, '(no dataset name)'), ', ')
                                      FROM (SELECT DISTINCT r.dataset AS d FROM main.runs AS r
                                            WHERE r.model IS i.model AND r.run_id <> i.run_id
                                            ORDER BY 1)), '; ')
       || ' (run-to-run changes compare runs of one dataset; :dataset_name names it)'
FROM import_run AS i
WHERE EXISTS (SELECT 1 FROM main.runs AS r WHERE r.model IS i.model AND r.run_id <> i.run_id)
  AND NOT EXISTS (SELECT 1 FROM main.runs AS r
                  WHERE r.model IS i.model AND r.run_id <> i.run_id AND r.dataset IS i.dataset)
HAVING count(*) > 0;

-- Runs paired by a dataset name should have been scored on the same constraints:
-- where a case's differ from the model's latest other run on that name (a new
-- version of the dataset under the same file name), a change between the two
-- may be the dataset's, not the model's. Say so.
.once stderr
SELECT 'import: ' || group_concat(n || CASE n WHEN 1 THEN ' case' ELSE ' cases' END
                                  || ' of run ' || run_id || ' on ' || dataset
                                  || ' have other constraints than in run ' || prev, '; ')
       || ' (a change between them may be the dataset''s, not the model''s)'
FROM (
  SELECT i.run_id, i.dataset, pc.run_id AS prev, count(*) AS n
  FROM import_run AS i
  JOIN import_case AS c ON c.run_id = i.run_id
  JOIN main.cases AS pc
    ON pc.run_id = (SELECT r.run_id FROM main.runs AS r
                    WHERE r.model IS i.model AND r.dataset = i.dataset AND r.run_id <> i.run_id
                    ORDER BY julianday(r.completed_at) DESC, r.completed_at DESC, r.run_id DESC
                    LIMIT 1)
   AND pc.id = c.id
  WHERE pc.constraints IS NOT c.constraints
  GROUP BY i.run_id, pc.run_id ORDER BY min(i.pos))
HAVING count(*) > 0;

-- Constraints that are a JSON string (JSON text inside a string, say) score as
-- no constraints object: say so before a regrade calls every such case
-- inconclusive.
.once stderr
SELECT 'import: ' || count(*) || ' of ' || (SELECT count(*) FROM import_case) || ' cases of '
       || :results || ' have constraints that are a JSON string, not an object: the regrade'
       || ' will call them inconclusive (constraints must be a JSON object)'
FROM import_case WHERE json_type(constraints) = 'text'
HAVING count(*) > 0;

-- A run whose completed_at SQLite cannot read as a time sorts before every run
-- that has one (a number, read as a Julian day, after them): run-to-run changes
-- and the report would put it in the wrong place. Say so.
.once stderr
SELECT 'import: ' || group_concat('run ' || run_id || CASE
         WHEN at IS NULL THEN ' has no completed_at'
         ELSE '''s completed_at ' || at || ' is not a time SQLite reads' END, '; ')
       || ' (ISO 8601, such as 2025-06-11T09:21:47+00:00): run-to-run changes and the'
       || ' report do not place it by when it ran'
FROM (SELECT run_id, head ->> '$.completed_at' AS at FROM import_run
      WHERE json_type(head, '$.completed_at') IS NOT 'text'
         OR julianday(head ->> '$.completed_at') IS NULL
      ORDER BY pos)
HAVING count(*) > 0;

-- Scores outside 0..1: the pass rate counts score >= 0.5 and the charts draw 0
-- to 1, so a runner's other scale (0..10) or a non-finite score would mislead.
.once stderr
SELECT 'import: ' || count(*) || ' of ' || (SELECT count(*) FROM import_case)
       || ' cases of ' || :results || ' have a score outside 0..1 (the first: '
       || (SELECT id || ', ' || (c.value -> c.score_key) FROM import_case AS c
           JOIN import_run AS r USING (run_id)
           WHERE json_type(c.value, c.score_key) IN ('integer', 'real')
             AND NOT (c.value ->> c.score_key BETWEEN 0 AND 1)
           ORDER BY r.pos, c.ord LIMIT 1)
       || '): pass rates count score >= 0.5 and the report draws 0 to 1'
FROM import_case AS c
WHERE json_type(c.value, c.score_key) IN ('integer', 'real')
  AND NOT (c.value ->> c.score_key BETWEEN 0 AND 1)
HAVING count(*) > 0;

-- A run the regrade had rescored gets the runner's scores back: say so.
.once stderr
SELECT 'import: the regrade of ' || CASE count(*) WHEN 1 THEN 'run ' ELSE 'runs ' END
       || group_concat(run_id, ', ') || ' is undone: '
       || CASE count(*) WHEN 1 THEN 'its' ELSE 'their' END
       || ' scores are the runner''s until sql/regrade.sql runs again'
FROM (SELECT i.run_id FROM import_run AS i
      WHERE EXISTS (SELECT 1 FROM main.cases AS c
                    WHERE c.run_id = i.run_id AND c.scored_by = 'regrade')
      ORDER BY i.pos)
HAVING count(*) > 0;

-- ---- the runs ---------------------------------------------------------------

INSERT INTO runs (run_id, completed_at, agent_endpoint, model, pipeline, total_cases,
                  summary, dataset, results_file)
  SELECT run_id, head ->> '$.completed_at', head ->> '$.agent_endpoint', model,
         head ->> '$.pipeline', head ->> '$.total_cases', head -> '$.summary', dataset,
         CAST(:results AS TEXT)
  FROM import_run WHERE true
  ON CONFLICT (run_id) DO UPDATE SET
    completed_at   = excluded.completed_at,
    agent_endpoint = excluded.agent_endpoint,
    model          = excluded.model,
    pipeline       = excluded.pipeline,
    total_cases    = excluded.total_cases,
    summary        = excluded.summary,
    dataset        = excluded.dataset,
    results_file   = excluded.results_file;

-- Its scores are the runner's again: the stored checks of a regrade go.
DELETE FROM checks WHERE run_id IN (SELECT run_id FROM import_run);
-- Cases the file no longer has at the same position go first, so that the upsert
-- below never gives an id to a row while another row of the run still holds it.
DELETE FROM cases
WHERE run_id IN (SELECT run_id FROM import_run)
  AND NOT EXISTS (SELECT 1 FROM import_case AS c
                  WHERE c.run_id = cases.run_id AND c.ord = cases.ord AND c.id = cases.id);

INSERT INTO cases (run_id, ord, id, benchmark, input, expected_behavior, agent_response,
                   constraints, score, passed, reason,
                   runner_score, runner_passed, runner_reason, source, notes,
                   rescorable, scored_by)
  SELECT run_id, ord, id, benchmark, input, expected_behavior, agent_response,
         constraints, score, score >= 0.5, reason, score, runner_passed, reason, source,
         notes, rescorable, 'runner'
  FROM (
    SELECT c.run_id, c.ord, c.id,
           coalesce(c.value ->> '$.benchmark', d.value ->> '$.benchmark', r.benchmark)
             AS benchmark,
           coalesce(c.value ->> '$.input', d.value ->> '$.input') AS input,
           coalesce(c.value ->> '$.expected_behavior', d.value ->> '$.expected_behavior')
             AS expected_behavior,
           c.value ->> '$.agent_response' AS agent_response,
           c.constraints,
           CASE WHEN json_type(c.value, c.score_key) IN ('integer', 'real', 'true', 'false')
                THEN c.value ->> c.score_key END AS score,
           CASE json_type(c.value, '$.passed') WHEN 'true' THEN 1 WHEN 'false' THEN 0 END
             AS runner_passed,
           c.value ->> c.reason_key AS reason,
           coalesce(c.value ->> '$.source', d.value ->> '$.source') AS source,
           coalesce(c.value ->> '$.notes', d.value ->> '$.notes') AS notes,
           c.has_source AND c.answer IS NULL AS rescorable
    FROM import_case AS c
    JOIN import_run AS r ON r.run_id = c.run_id
    LEFT JOIN import_dataset_by_id AS d ON d.id = c.id
  ) WHERE true
  ON CONFLICT (run_id, ord) DO UPDATE SET
    id                = excluded.id,
    benchmark         = excluded.benchmark,
    input             = excluded.input,
    expected_behavior = excluded.expected_behavior,
    agent_response    = excluded.agent_response,
    constraints       = excluded.constraints,
    score             = excluded.score,
    passed            = excluded.passed,
    reason            = excluded.reason,
    runner_score      = excluded.runner_score,
    runner_passed     = excluded.runner_passed,
    runner_reason     = excluded.runner_reason,
    source            = excluded.source,
    notes             = excluded.notes,
    rescorable        = excluded.rescorable,
    scored_by         = excluded.scored_by;

COMMIT;

DROP TABLE temp.import_check;
DROP TABLE temp.import_nul_id;
DROP TABLE temp.import_odd_id;
DROP TABLE temp.import_twice_key;
DROP TABLE temp.import_missing;
DROP TABLE temp.import_repeat;
DROP TABLE temp.import_run_check;
DROP TABLE temp.import_odd_case;
DROP TABLE temp.import_clash;
DROP TABLE temp.import_run_twice;
DROP TABLE temp.import_case;
DROP TABLE temp.import_run;
DROP TABLE temp.import_dataset_by_id;
DROP TABLE temp.import_dataset;
DROP TABLE temp.import_file;
DROP TABLE temp.import_jsonl;
DROP TABLE temp.import_file_check;
DROP TABLE temp.import_schema;
