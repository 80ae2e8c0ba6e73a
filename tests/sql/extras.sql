-- extras.sql: if_pass, if_eval and the table-valued if_checks.
.nullvalue NULL
-- if_pass: score >= threshold (default 0.5), NULL when inconclusive
SELECT if_pass('a b', '{"max_words": 1, "min_words": 1}'), if_pass('a b', '{"max_words": 1, "min_words": 1}', 0.75),
       if_pass('a b', '{"max_words": 1, "min_words": 1}', 0.5), if_pass('a b', '{"max_words": 1}'),
       if_pass('a b', '{"max_words": 1}', 0), if_pass('a b', '{"max_words": 9}', 1), if_pass('a', NULL),
       if_pass('a', '[1]', 0), if_pass('a b', '{"max_words": 1, "min_words": 1}', '0.5'),
       if_pass('a', '{"max_words": 1}', 2), if_pass('a', '{"max_words": 1}', -1);

-- if_eval: the reference's dict as JSON (reason only when inconclusive)
SELECT if_eval('a b', '{"max_words": 1, "min_words": 1}');
SELECT if_eval('a', '{"max_words": 1}');
SELECT if_eval('a', NULL);
SELECT if_eval('x', '{"must_include": ["say \"hi\"", "back\\slash", "new\nline", "\ud800"]}');
SELECT if_eval(x'80', '{"must_include": "\u00e9"}');
SELECT if_eval('a', '{"must_include": ["a", "b", "c"]}') ->> '$.score', if_eval('a', '[]') ->> '$.reason';
SELECT json_extract(if_eval('a b', '{"max_words": 1, "min_words": 1}'), '$.instruction_following'),
       json_valid(if_eval(x'80ff', '{"must_include": "\udc80"}')), json_array(if_eval('a', '{"max_words": 1}'));
SELECT json_extract(if_eval(x'80ff', '{"must_include": "\udc80"}'), '$.reason') = if_reason(x'80ff', '{"must_include": "\udc80"}');

-- if_checks: one row per check, in reason order; none when inconclusive
SELECT * FROM if_checks('Hello world', '{"regex": "x", "must_exclude": "o", "must_include": ["z", "hello"], "must_be_json": 1, "max_chars": 3, "min_words": 1, "max_words": 1}');
SELECT count(*) FROM if_checks('x', NULL);
SELECT count(*) FROM if_checks('x', '[1]');
SELECT count(*) FROM if_checks('x', '{"unknown": 1}');
SELECT seq, kind, label, ok FROM if_checks(NULL, '{"max_chars": 0, "max_words": "x"}');
SELECT seq, kind, hex(label), ok FROM if_checks(x'80', '{"must_include": "' || x'80' || '"}');
CREATE TABLE answers(id INTEGER PRIMARY KEY, response TEXT, constraints TEXT);
INSERT INTO answers(response, constraints) VALUES ('Yes', '{"must_include": "yes", "max_words": 1}'),
  ('No way', '{"must_include": "yes", "max_words": 1}'), ('?', NULL);
SELECT a.id, c.seq, c.kind, c.ok FROM answers AS a, if_checks(a.response, a.constraints) AS c ORDER BY a.id, c.seq;
SELECT c.kind, sum(NOT c.ok) FROM answers AS a, if_checks(a.response, a.constraints) AS c GROUP BY c.kind ORDER BY c.kind;
SELECT a.id, (SELECT count(*) FROM if_checks(a.response, a.constraints) WHERE ok) FROM answers AS a ORDER BY a.id;
