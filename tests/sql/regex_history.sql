-- regex_history.sql: a row's answer does not depend on the rows scored
-- before it on the connection (if_score is deterministic, and an index on it
-- must hold). (a+)+$|x[xy]{16}z on long random texts of x and y needs more
-- states than the DFA holds, so those rows go to PCRE2; the last row, which
-- the DFA answers alone, it answers the same after them. Python:
-- re.search('(a+)+$|x[xy]{16}z', 'a' * 30 + '!\nx' + 'y' * 16 + 'z') matches.
.nullvalue NULL
CREATE TABLE t (id INTEGER PRIMARY KEY, r TEXT);
WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4)
INSERT INTO t (r)
  SELECT replace(replace(replace(replace(replace(replace(replace(replace(
         replace(replace(replace(replace(replace(replace(replace(replace(
           hex(randomblob(50000)), '0', 'x'), '1', 'y'), '2', 'x'), '3', 'y'),
           '4', 'x'), '5', 'y'), '6', 'x'), '7', 'y'), '8', 'x'), '9', 'y'),
           'A', 'x'), 'B', 'y'), 'C', 'x'), 'D', 'y'), 'E', 'x'), 'F', 'y')
  FROM n;
INSERT INTO t (r) VALUES (printf('%.30c', 'a') || '!' || char(10) || 'x' || printf('%.16c', 'y') || 'z');
CREATE TABLE c (k TEXT);
INSERT INTO c VALUES ('{"regex": "(a+)+$|x[xy]{16}z"}');

-- alone, on a fresh connection's first search of the pattern
SELECT id, if_score(r, k), if_reason(r, k) FROM t, c WHERE id = 5;
-- after the long rows, three times over
SELECT count(*), sum(if_score(r, k)) FROM t, c WHERE id < 5;
SELECT count(*), sum(if_score(r, k)) FROM t, c WHERE id < 5;
SELECT count(*), sum(if_score(r, k)) FROM t, c WHERE id < 5;
SELECT id, if_score(r, k), if_reason(r, k) FROM t, c WHERE id = 5;
-- an index on the score, built over all rows in order, finds the row
CREATE INDEX t_score ON t (if_score(r, '{"regex": "(a+)+$|x[xy]{16}z"}'));
SELECT id FROM t WHERE if_score(r, '{"regex": "(a+)+$|x[xy]{16}z"}') = 1.0;
DELETE FROM t WHERE id = 5;
SELECT count(*) FROM t;
PRAGMA integrity_check;
