-- eval.sql: if_eval(response, constraints) — the reference's return value as a
-- JSON object ({"score", "instruction_following", "reason"}, only "reason" when
-- inconclusive) with SQLite's JSON subtype, so JSON1 nests it as an object.
.bail off
.nullvalue NULL

SELECT if_eval('Hello world', '{"max_words": 5, "must_include": "hello"}');
SELECT if_eval('Hello world', '{"max_words": 1, "must_include": ["x", "world"]}');
SELECT if_eval('a b', '{"max_words": 1, "min_words": 1, "max_chars": 1}');
SELECT if_eval('x', NULL);
SELECT if_eval('x', '{"tone": "formal"}');
SELECT if_eval('x', 'not json');
-- quotes, backslashes and control characters are escaped in the reason
SELECT if_eval('say "hi"', '{"must_include": ["\"hi\"", "a\\b", "tab\there"]}');

.headers on
-- ->>, ->, json_extract, json_type on the result
SELECT if_eval('Hello world', '{"max_words": 1}') ->> '$.reason' AS reason,
       if_eval('Hello world', '{"max_words": 1}') ->> '$.score' AS score,
       if_eval('Hello world', '{"max_words": 1}') -> '$.instruction_following' AS instr,
       json_extract(if_eval('x', '{}'), '$.score') AS no_score,
       json_type(if_eval('x', '{}')) AS type,
       json_type(if_eval('x', '{"max_words": 1}'), '$.score') AS score_type;

-- json_each over it: one row per key, in order
SELECT key, value, type FROM json_each(if_eval('a b', '{"min_words": 3}'));

-- the subtype: JSON1 nests the object instead of quoting it as a string
SELECT json_object('case', 'c1', 'eval', if_eval('a b', '{"min_words": 3}')) AS nested;
SELECT json_array(if_eval('a', '{"max_words": 1}'), if_eval('a', NULL)) AS array;
SELECT json_group_array(if_eval(r, c)) AS grouped
FROM (SELECT 'a b' AS r, '{"max_words": 1}' AS c UNION ALL SELECT 'a', '{"x": 1}');
SELECT json_set('{"id": 7}', '$.eval', if_eval('a', '{"max_words": 1}')) AS set_;
-- a plain string with the same text is quoted: the subtype made the difference
SELECT json_object('eval', '{"reason": "x"}') AS quoted;
