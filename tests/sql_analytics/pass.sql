-- pass.sql: if_pass(response, constraints [, threshold]) — 1 when the score is
-- >= threshold (default 0.5), 0 below, NULL when inconclusive whatever the
-- threshold; a threshold that is not a number is an SQL error.
.bail off
.nullvalue NULL
.headers on

-- score 0.5: 'a b c' fails max_words<=2, passes min_words>=1
SELECT if_score('a b c', '{"max_words": 2, "min_words": 1}') AS score,
       if_pass('a b c', '{"max_words": 2, "min_words": 1}') AS dflt,
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 0.5) AS "0.5",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 0.5000000000000001) AS "0.5+ulp",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 0.49999999999999994) AS "0.5-ulp",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 0) AS "0",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 1) AS "1",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', -1) AS "-1",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', 1e999) AS "inf",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', -1e999) AS "-inf";

-- score 1/3, compared exactly as doubles
SELECT if_score('a b', '{"max_words": 1, "min_words": 1, "max_chars": 1}') AS score,
       if_pass('a b', '{"max_words": 1, "min_words": 1, "max_chars": 1}') AS dflt,
       if_pass('a b', '{"max_words": 1, "min_words": 1, "max_chars": 1}', 1.0 / 3) AS third,
       if_pass('a b', '{"max_words": 1, "min_words": 1, "max_chars": 1}',
               0.33333333333333337) AS "third+ulp";

-- a threshold from a column, per row
WITH t(th) AS (VALUES (0.0), (0.25), (0.5), (0.75), (1.0))
SELECT th, if_pass('Hello world', '{"must_include": ["hello", "moon", "world", "sun"]}', th)
         AS pass
FROM t;

-- inconclusive: NULL whatever the threshold
SELECT if_pass('x', NULL) AS no_constraints, if_pass('x', '{}', 0) AS empty,
       if_pass('x', '{"tone": "formal"}', 0.1) AS unrecognized,
       if_pass('x', 'not json', -1) AS invalid, if_pass('x', '[1]', 0) AS not_object;

-- text that SQLite reads as a number is a number
SELECT if_pass('a b c', '{"max_words": 2, "min_words": 1}', '0.75') AS "'0.75'",
       if_pass('a b c', '{"max_words": 2, "min_words": 1}', '0.25') AS "'0.25'";

-- not a number: an error naming what it got, also when the evaluation is
-- inconclusive (text past 40 bytes cut where a character starts)
SELECT if_pass('a b c', '{"max_words": 2}', NULL);
SELECT if_pass('a b c', '{"max_words": 2}', 'high');
SELECT if_pass('a b c', '{"max_words": 2}', '');
SELECT if_pass('a b c', '{"max_words": 2}', x'00');
SELECT if_pass('a b c', '{"max_words": 2}', x'0001');
SELECT if_pass('x', NULL, 'high');
SELECT if_pass('x', NULL, 'a' || replace(hex(zeroblob(25)), '00', 'é'));
SELECT if_pass('x', NULL, replace(hex(zeroblob(20)), '00', 'é'));

-- arity
SELECT if_pass('x');
SELECT if_pass('x', '{}', 0.5, 1);
