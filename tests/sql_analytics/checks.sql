-- checks.sql: if_checks(response, constraints) — a table-valued function with
-- one row per check in reason order (seq, kind, label, ok); no rows when the
-- evaluation is inconclusive; usable in joins.
.bail off
.nullvalue NULL
.headers on

-- every kind, keys given in reverse order: rows keep the reference's order
SELECT * FROM if_checks('Hello world',
  '{"regex": "w.rld$", "must_exclude": ["hello", "moon"], "must_include": "WORLD",
    "must_be_json": true, "max_chars": 5, "min_words": 2, "max_words": 1}');

-- invalid values and patterns are failed checks with their own labels
SELECT seq, kind, label, ok FROM if_checks('x',
  '{"max_words": "ten", "min_words": null, "max_chars": 1.9, "regex": "(?<n>x)"}');

-- inconclusive: no rows
SELECT count(*) AS rows_null FROM if_checks('x', NULL);
SELECT count(*) AS rows_empty FROM if_checks('x', '{}');
SELECT count(*) AS rows_unrecognized FROM if_checks('x', '{"tone": "formal"}');
SELECT count(*) AS rows_invalid FROM if_checks('x', '{');

-- the hidden argument columns, as a WHERE clause
SELECT kind, ok FROM if_checks
WHERE response = 'a b' AND constraints = '{"max_words": 1, "min_words": 1}';

-- in a join: which kinds fail most, per model
CREATE TABLE answers (model TEXT, prompt TEXT, response TEXT, constraints TEXT);
INSERT INTO answers VALUES
  ('m1', 'p1', 'one two three', '{"max_words": 2, "must_include": "two"}'),
  ('m1', 'p2', '{"a": 1}', '{"must_be_json": true, "max_chars": 5}'),
  ('m1', 'p3', 'anything', NULL),
  ('m2', 'p1', 'one two', '{"max_words": 2, "must_include": "two"}'),
  ('m2', 'p2', 'a: 1', '{"must_be_json": true, "max_chars": 5}'),
  ('m2', 'p3', 'anything', '{}');
SELECT a.model, k.kind, count(*) AS checks, sum(NOT k.ok) AS failed
FROM answers AS a, if_checks(a.response, a.constraints) AS k
GROUP BY a.model, k.kind ORDER BY a.model, k.kind;

-- the labels of the failures, and the reason they add up to
SELECT a.model, a.prompt, group_concat(k.label, '; ') AS failed,
       if_reason(a.response, a.constraints) AS reason
FROM answers AS a JOIN if_checks(a.response, a.constraints) AS k
WHERE NOT k.ok
GROUP BY a.model, a.prompt ORDER BY a.model, a.prompt;

-- a LEFT JOIN keeps the inconclusive answers
SELECT a.model, a.prompt, count(k.seq) AS checks
FROM answers AS a LEFT JOIN if_checks(a.response, a.constraints) AS k
GROUP BY a.model, a.prompt ORDER BY a.model, a.prompt;

-- a missing argument reads as NULL: inconclusive, no rows
SELECT count(*) AS rows_one_arg FROM if_checks('x');
SELECT count(*) AS rows_no_arg FROM if_checks;
