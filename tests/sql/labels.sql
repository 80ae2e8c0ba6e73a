-- labels.sql: each check's label in the reason: int() of every JSON type,
-- str() of needles and patterns (Python's repr rules), invalid values.
.nullvalue NULL
-- limits: int(value) with Python semantics
WITH t(v) AS (VALUES ('5'), ('5.9'), ('-0.5'), ('-3'), ('1e20'), ('1E2'), ('-0'), ('-0.0'), ('true'), ('false'),
  ('"7"'), ('" 7 "'), ('"\u00a07\u3000"'), ('"+7"'), ('"-7"'), ('"1_000"'), ('"١٢"'), ('"１２"'), ('"\ud835\udfd7"'),
  ('"1__0"'), ('"_1"'), ('"1_"'), ('"1e3"'), ('"5.0"'), ('""'), ('"0x10"'), ('"7\u200b"'), ('"00"'),
  ('null'), ('[]'), ('[5]'), ('{}'), ('NaN'), ('Infinity'), ('-Infinity'), ('1e400'), ('-1e400'), ('1e-400'),
  ('99999999999999999999999999'), ('-99999999999999999999999999'), ('18446744073709551616'),
  ('9223372036854775808'), ('-9223372036854775809'), ('123456789.987654321'), ('1.7976931348623157e308'))
SELECT v, if_reason('a b', '{"max_words": ' || v || ', "min_words": ' || v || ', "max_chars": ' || v || '}') FROM t;
SELECT length(if_reason('a', '{"max_words": ' || printf('%.*c', 4300, '7') || '}')),
       length(if_reason('a', '{"max_words": "' || printf('%.*c', 4300, '7') || '"}')),
       if_reason('a', '{"max_words": "' || printf('%.*c', 4301, '7') || '"}'),
       length(if_reason('a', '{"max_chars": ' || printf('%.*c', 4300, '7') || '.5}'));

-- needles: str() of each JSON type
WITH t(v) AS (VALUES ('"plain"'), ('""'), ('1'), ('-0'), ('1.0'), ('-0.0'), ('0.1'), ('1e16'), ('1e-5'), ('1e22'),
  ('123456789012345678'), ('123456789012345678.0'), ('1E400'), ('NaN'), ('true'), ('false'), ('null'),
  ('[1, "x", null, true, 1.5, {"a": null}]'), ('{"k": "v", "n": [1, {}]}'), ('["it''s"]'), ('["say \"hi\""]'),
  ('["both '' and \""]'), ('["back\\slash"]'), ('["tab\tnew\nline"]'), ('["\u0001\u001f\u007f\u0080\u00a0\u00ad"]'),
  ('["\ud800", "\udc80", "\ud83d\ude00"]'), ('["é", "\u2028", "\u0378"]'), ('[[], {}, [[]]]'), ('{"a": 1, "a": 2}'))
SELECT v, if_reason('1 -0 1.0 true none [1, ''x'', none] x', '{"must_include": ' || v || '}') FROM t;
SELECT if_reason('Hello', '{"must_exclude": ["he", "HELLO", "x", ""], "must_include": ["", "LL"]}');

-- case traps in needles: full lowercase on both sides
WITH t(r, n) AS (VALUES ('İstanbul', 'i̇stanbul'), ('İstanbul', 'istanbul'), ('istanbul', 'İstanbul'),
  ('ΟΔΥΣΣΕΥΣ', 'οδυσσευς'), ('ΟΔΥΣΣΕΥΣ', 'οδυσσευσ'), ('straße', 'STRASSE'), ('STRASSE', 'ß'), ('ﬁne', 'FI'),
  ('Ꭰ', 'ꭰ'), ('ꭰ', 'Ꭰ'), ('K', 'k'), ('ǅ', 'ǆ'))
SELECT r, n, if_reason(r, '{"must_include": "' || n || '"}') FROM t;

-- regex: str() of the value is the pattern
WITH t(v) AS (VALUES ('"\\d+"'), ('1'), ('1.5'), ('true'), ('[1, 2]'), ('["a|b"]'), ('{"a": 1}'), ('-3'), ('1e16'),
  ('NaN'), ('"(?<n>x)"'), ('"\\p{L}"'), ('"a{3,2}"'), ('"["'), ('"\\z"'), ('"\\Z"'))
SELECT v, if_reason('True 12 [1, 2] a|b', '{"regex": ' || v || '}') FROM t;

-- invalid values among valid ones
SELECT if_reason('a b c', '{"max_words": "three", "min_words": [], "max_chars": {}, "must_include": "a"}');
