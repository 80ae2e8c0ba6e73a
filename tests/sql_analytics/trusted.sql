-- trusted.sql: every function in a view, a generated column, a CHECK
-- constraint, an index expression and a trigger of a database that is then
-- reopened with PRAGMA trusted_schema = off (which refuses any function not
-- registered SQLITE_INNOCUOUS there).
.bail off
.nullvalue NULL
.open trusted.db
.load ./ifscore
CREATE TABLE answers (
  response TEXT, constraints TEXT,
  score  REAL    GENERATED ALWAYS AS (if_score(response, constraints)) VIRTUAL,
  reason TEXT    GENERATED ALWAYS AS (if_reason(response, constraints)) STORED,
  passed INTEGER GENERATED ALWAYS AS (if_pass(response, constraints)) VIRTUAL,
  strict INTEGER GENERATED ALWAYS AS (if_pass(response, constraints, 0.75)) STORED,
  result TEXT    GENERATED ALWAYS AS (if_eval(response, constraints)) STORED,
  CHECK (if_reason(response, constraints) NOT LIKE 'invalid constraints JSON%'),
  CHECK (if_pass(response, constraints, 0.1) IS NOT 0),
  CHECK (if_eval(response, constraints) LIKE '{%}'),
  CHECK (if_score(response, constraints) IS NULL OR if_score(response, constraints) <= 1)
);
CREATE INDEX answers_score ON answers (if_score(response, constraints));
CREATE INDEX answers_pass ON answers (if_pass(response, constraints), if_pass(response, constraints, 1));
CREATE INDEX answers_reason ON answers (if_reason(response, constraints));
CREATE INDEX answers_eval ON answers (if_eval(response, constraints));
CREATE INDEX answers_failing ON answers (response) WHERE if_pass(response, constraints) = 0;
CREATE VIEW scored AS
  SELECT rowid AS id, if_score(response, constraints) AS score,
         if_pass(response, constraints) AS passed,
         if_pass(response, constraints, 0.75) AS strict,
         if_reason(response, constraints) AS reason,
         if_eval(response, constraints) AS result
  FROM answers;
CREATE VIEW failures AS
  SELECT a.rowid AS id, k.seq, k.kind, k.label
  FROM answers AS a, if_checks(a.response, a.constraints) AS k WHERE NOT k.ok;
CREATE TABLE failure_log (id INTEGER, kind TEXT);
CREATE TRIGGER log_failures AFTER INSERT ON answers BEGIN
  INSERT INTO failure_log
    SELECT NEW.rowid, kind FROM if_checks(NEW.response, NEW.constraints) WHERE NOT ok;
END;

-- reopen: the schema is read again, now untrusted
.open trusted.db
.load ./ifscore
PRAGMA trusted_schema = off;
.headers on
PRAGMA trusted_schema;
INSERT INTO answers (response, constraints) VALUES
  ('Hello world', '{"max_words": 5, "must_include": "hello"}'),
  ('Hello world', '{"max_words": 1, "must_include": ["x", "world"]}'),
  ('one two three four', '{"min_words": 4, "max_chars": 5, "must_exclude": "two"}'),
  ('anything', NULL);
SELECT rowid, score, passed, strict, reason, result FROM answers;
SELECT * FROM scored;
SELECT * FROM failures;
SELECT * FROM failure_log;
-- the CHECK constraints run the functions
INSERT INTO answers (response, constraints) VALUES ('x', '{');
INSERT INTO answers (response, constraints) VALUES ('x', '{"max_words": 0}');
-- the indexes are used, and hold what the functions compute
EXPLAIN QUERY PLAN SELECT rowid FROM answers WHERE if_score(response, constraints) < 0.5;
EXPLAIN QUERY PLAN SELECT rowid FROM answers WHERE if_eval(response, constraints) = '';
SELECT rowid FROM answers WHERE if_score(response, constraints) < 0.5;
SELECT response FROM answers INDEXED BY answers_failing
WHERE if_pass(response, constraints) = 0 AND response > '';
UPDATE answers SET response = response || ' again';
PRAGMA integrity_check;
-- the control: the same database refuses a function that is not innocuous
-- (the CLI's own shell_escape_crnl)
CREATE VIEW control AS SELECT shell_escape_crnl(response) FROM answers;
SELECT * FROM control;
