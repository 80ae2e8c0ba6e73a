-- inconclusive.sql: the four inconclusive reasons (score NULL), byte-exact
-- em dash, for NULL, falsy, invalid, non-object and unrecognised constraints.
.nullvalue NULL
SELECT if_score('x', NULL), if_reason('x', NULL);
SELECT hex(if_reason('x', NULL));
SELECT hex(if_reason('x', '{'));
SELECT hex(if_reason('x', '[1]'));
SELECT hex(if_reason('x', '{"unknown": 1}'));

-- falsy: no constraints specified
WITH t(c) AS (VALUES
  ('null'), ('false'), ('0'), ('0.0'), ('-0'), ('-0.0'), ('""'), ('[]'), ('{}'),
  (' {} '), ('1e-400'), ('0e0'), (char(9) || '{' || char(10) || '}' || char(13)))
SELECT substr(quote(c), 1, 40), if_score('x', c), if_reason('x', c) FROM t;

-- not valid JSON text
WITH t(c) AS (VALUES
  (''), (' '), ('{'), ('{"max_words": 3,}'), ('{''max_words'': 3}'), ('{max_words: 3}'),
  ('{"max_words": 03}'), ('{"max_words": +3}'), ('{"max_words": .5}'), ('{"max_words": 1.}'),
  ('{"a": "\x"}'), ('{"a": "' || char(9) || '"}'), ('{"a": 1} x'), ('{"a": 1}{}'),
  ('// c' || char(10) || '{}'), ('{"a": nan}'), ('{"a": True}'), ('{"a":' || char(12) || '1}'),
  ('{"a":' || char(160) || '1}'), (char(65279) || '{"max_words": 3}'),
  ('{"a": "\ud800\u12"}'), ('{"a": ' || printf('%.*c', 4301, '1') || '}'))
SELECT substr(quote(c), 1, 40), if_score('x', c), if_reason('x', c) FROM t;
SELECT if_reason('x', x'80'), if_reason('x', x'7B2261223A3180207D'), if_reason('x', x'EFBBBF7B7D');

-- truthy but not an object
WITH t(c) AS (VALUES
  ('[1]'), ('"max_words"'), ('5'), ('true'), ('NaN'), ('-Infinity'), ('Infinity'),
  ('"false"'), ('[{}]'), ('[[]]'), ('[null]'), ('" "'), ('-1'), ('0.5'), ('[{"max_words": 5}]'))
SELECT substr(quote(c), 1, 40), if_score('x', c), if_reason('x', c) FROM t;

-- an object that produces no check
WITH t(c) AS (VALUES
  ('{"Max_words": 3}'), ('{"max_words ": 3}'), ('{"must_include": null}'), ('{"must_include": []}'),
  ('{"must_exclude": []}'), ('{"regex": ""}'), ('{"regex": false}'), ('{"regex": 0}'),
  ('{"regex": []}'), ('{"regex": null}'), ('{"must_be_json": false}'), ('{"must_be_json": 0.0}'),
  ('{"must_be_json": ""}'), ('{"must_be_json": {}}'), ('{"unknown": 1, "input": "x"}'),
  ('{"": 1}'))
SELECT substr(quote(c), 1, 40), if_score('x', c), if_reason('x', c) FROM t;

-- inconclusive whatever the response
SELECT if_reason(NULL, '[]'), if_reason(x'80', 'x'), if_reason('', '"a"'), if_reason(12, '{"score": 1}');
