-- schema.sql: the functions in a view, a CHECK constraint, a generated
-- column and an index expression with trusted_schema off (they are
-- SQLITE_INNOCUOUS and SQLITE_DETERMINISTIC), and in aggregates.
.nullvalue NULL
PRAGMA trusted_schema = off;
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  response TEXT,
  constraints TEXT,
  words INTEGER GENERATED ALWAYS AS (if_words(response)) VIRTUAL,
  score REAL GENERATED ALWAYS AS (if_score(response, constraints)) STORED,
  CHECK (if_reason(response, constraints) IS NOT NULL)
);
CREATE INDEX runs_by_score ON runs(if_score(response, constraints));
CREATE INDEX runs_by_lower ON runs(if_lower(response)) WHERE if_is_json(response) = 0;
CREATE VIEW scored AS
  SELECT id, model, if_score(response, constraints) AS s, if_reason(response, constraints) AS r,
         if_chars(response) AS n, if_search(response, '\d') AS has_digit
  FROM runs;
INSERT INTO runs(model, response, constraints) VALUES
  ('a', 'Yes, 42 apples.', '{"max_words": 3, "must_include": "apples"}'),
  ('a', '{"answer": 42}', '{"must_be_json": true, "must_exclude": "apples"}'),
  ('a', 'no constraints here', NULL),
  ('b', 'ΟΔΥΣΣΕΥΣ went home', '{"must_include": "οδυσσευς", "min_words": 4}'),
  ('b', 'Peace!', '{"regex": "Peace!\\s*\\Z", "max_chars": 6}'),
  ('b', 'x', '[1]');
SELECT * FROM scored ORDER BY id;
SELECT id, words, score FROM runs ORDER BY id;
SELECT model, avg(if_score(response, constraints)), count(if_score(response, constraints)), count(*),
       sum(if_words(response)), group_concat(if_score(response, constraints), ',')
  FROM runs GROUP BY model ORDER BY model;
SELECT id FROM runs INDEXED BY runs_by_score WHERE if_score(response, constraints) >= 0.5 ORDER BY id;
SELECT id FROM runs INDEXED BY runs_by_lower WHERE if_lower(response) = 'peace!' AND if_is_json(response) = 0;
UPDATE runs SET response = 'No, 42.' WHERE id = 1;
SELECT id, words, score, if_reason(response, constraints) FROM runs WHERE id = 1;
PRAGMA integrity_check;

-- a CHECK that rejects low scores: OR IGNORE skips the failing row
CREATE TABLE graded(r TEXT, c TEXT, CHECK (if_score(r, c) >= 0.5));
INSERT OR IGNORE INTO graded VALUES ('one', '{"max_words": 1}'), ('one two', '{"max_words": 1}'),
  ('one two', '{"max_words": 2, "min_words": 9}');
SELECT r, if_score(r, c) FROM graded;

-- a generated column in an attached database
ATTACH ':memory:' AS aux;
CREATE TABLE aux.t(x TEXT, n INTEGER GENERATED ALWAYS AS (if_chars(x)));
INSERT INTO aux.t(x) VALUES ('héllo'), (NULL), (x'80ff');
SELECT quote(x), n FROM aux.t;
