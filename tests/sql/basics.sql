-- basics.sql: if_version, one check of each kind passing and failing, the
-- fixed check order, exact scores, the reason's wording.
.nullvalue NULL
SELECT typeof(if_version()), if_version();

-- max_words / min_words / max_chars
SELECT if_score('one two three', '{"max_words": 3}'), if_reason('one two three', '{"max_words": 3}');
SELECT if_score('one two three', '{"max_words": 2}'), if_reason('one two three', '{"max_words": 2}');
SELECT if_score('one two three', '{"min_words": 3}'), if_reason('one two three', '{"min_words": 3}');
SELECT if_score('one two three', '{"min_words": 4}'), if_reason('one two three', '{"min_words": 4}');
SELECT if_score('héllo', '{"max_chars": 5}'), if_reason('héllo', '{"max_chars": 5}');
SELECT if_score('héllo', '{"max_chars": 4}'), if_reason('héllo', '{"max_chars": 4}');

-- must_be_json
SELECT if_score('{"a": [1, 2]}', '{"must_be_json": true}'), if_reason('{"a": [1, 2]}', '{"must_be_json": true}');
SELECT if_score('{"a": [1, 2],}', '{"must_be_json": true}'), if_reason('{"a": [1, 2],}', '{"must_be_json": true}');

-- must_include / must_exclude (case-insensitive, one check per needle)
SELECT if_score('Hello World', '{"must_include": "hello"}'), if_reason('Hello World', '{"must_include": "hello"}');
SELECT if_score('Hello World', '{"must_include": ["hello", "planet"]}'), if_reason('Hello World', '{"must_include": ["hello", "planet"]}');
SELECT if_score('Hello World', '{"must_exclude": "WORLD"}'), if_reason('Hello World', '{"must_exclude": "WORLD"}');
SELECT if_score('Hello World', '{"must_exclude": ["moon"]}'), if_reason('Hello World', '{"must_exclude": ["moon"]}');

-- regex (Python's re.search), valid and invalid
SELECT if_score('Peace!', '{"regex": "Peace!\\s*\\Z"}'), if_reason('Peace!', '{"regex": "Peace!\\s*\\Z"}');
SELECT if_score('Peace!' || char(10) || 'later', '{"regex": "Peace!\\s*\\Z"}'), if_reason('Peace!' || char(10) || 'later', '{"regex": "Peace!\\s*\\Z"}');
SELECT if_score('x', '{"regex": "(?<n>x)"}'), if_reason('x', '{"regex": "(?<n>x)"}');

-- every kind at once, keys in reverse order: checks keep the fixed order
SELECT if_reason('Hello world', '{"regex": "x", "must_exclude": "o", "must_include": "z", "must_be_json": 1, "max_chars": 3, "min_words": 9, "max_words": 1}');
SELECT if_reason('{"k": "Hello"}', '{"regex": "k", "must_exclude": "zzz", "must_include": "HELLO", "must_be_json": 1, "max_chars": 14, "min_words": 2, "max_words": 2}');

-- exact IEEE scores
SELECT if_score('a b', '{"max_words": 5, "min_words": 3, "must_include": "a"}') = 2.0 / 3;
SELECT if_score('a b', '{"max_words": 1, "min_words": 3, "must_include": "a"}') = 1.0 / 3;
SELECT if_score('a', '{"must_include": ["a", "b", "c", "d", "e", "f", "g"]}') = 1.0 / 7;
SELECT printf('%.17g', if_score('a', '{"must_include": ["a", "a", "b", "c", "d", "e", "f", "g", "h", "i"]}'));
SELECT typeof(if_score('a', '{"max_words": 1}')), typeof(if_reason('a', '{"max_words": 1}'));

-- the same row evaluated twice in one statement, and different rows in turn
WITH t(r, c) AS (VALUES
  ('a b c', '{"max_words": 2}'), ('a b c', '{"max_words": 3}'), ('a b c', '{"max_words": 2}'),
  ('a b c ', '{"max_words": 2}'), (NULL, '{"max_words": 2}'), ('', '{"max_words": 2}'))
SELECT if_score(r, c), if_reason(r, c), if_score(r, c) FROM t;
