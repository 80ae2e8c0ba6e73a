-- args.sql: argument handling: NULL, integers and reals converted to text
-- as SQLite converts them, BLOBs read as text, invalid UTF-8, NUL inside.
.nullvalue NULL
-- NULL response reads as ""
SELECT if_score(NULL, '{"max_words": 0}'), if_reason(NULL, '{"max_words": 0}');
SELECT if_score(NULL, '{"max_chars": -1}'), if_reason(NULL, '{"max_chars": -1}');
SELECT if_reason(NULL, '{"must_be_json": true, "must_include": "", "must_exclude": "x"}');
SELECT if_score(NULL, NULL), if_reason(NULL, NULL);

-- numbers as SQLite's text: 12345, 12.5, 1.0e+20, -3
SELECT if_reason(12345, '{"max_chars": 4}');
SELECT if_reason(12.5, '{"max_chars": 3, "must_include": "2.5"}');
SELECT if_reason(1e20, '{"must_include": "1.0E+20", "max_chars": 7}');
SELECT if_reason(-3, '{"must_be_json": true, "regex": "^-\\d\\Z"}');
SELECT if_words(1e20), if_chars(1e20), if_lower(1e20), if_chars(12.5), if_chars(12), if_words(-3);
SELECT if_is_json(12.5), if_is_json(1e20), if_search(1e20, 'e\+20'), if_search(123, 2);

-- constraints given as numbers: their text is JSON
SELECT if_reason('x', 5), if_reason('x', 0), if_reason('x', 0.0), if_reason('x', 1.5), if_reason('x', -0.0);

-- BLOB arguments are read as text
SELECT if_reason(x'48656C6C6F', x'7B226D7573745F696E636C756465223A202268656C6C6F227D');
SELECT if_reason(CAST('a b' AS BLOB), CAST('{"max_words": 1}' AS BLOB));

-- invalid UTF-8: one character per byte, not whitespace, unchanged by lower
SELECT if_chars(x'80ff'), if_words(x'80ff'), hex(if_lower(x'80ff')), if_chars(x'C3'), hex(if_lower(x'41C3'));
SELECT if_chars(x'EDA080'), hex(if_lower(x'EDA080')), if_chars(x'F09F98'), if_chars(x'F4908080'), if_chars(x'C0AF');
SELECT if_words(x'6120A0' || x'20' || x'62'), if_words(x'61C2A062'), if_chars(x'61C2A062');
SELECT hex(if_reason(x'80ff', '{"max_chars": 2, "must_include": "\udc80"}'));
SELECT hex(if_reason(x'80ff', '{"must_include": "' || x'ff' || '"}'));
SELECT hex(if_reason(x'41', x'7B226D7573745F696E636C756465223A2022' || x'C0' || x'227D'));
SELECT hex(if_reason(x'EDA080', '{"must_include": "\ud800"}'));
SELECT hex(if_reason(x'EDA080', '{"must_include": "\udced\udca0\udc80"}'));
SELECT hex(if_reason(CAST(x'80' AS TEXT), '{"must_exclude": "\udc80"}'));

-- NUL is an ordinary character (never strlen)
SELECT if_chars(x'610062'), if_words(x'610062'), hex(if_lower(x'410042')), if_chars('a' || char(0) || 'b');
SELECT if_chars(x'00'), if_words(x'00'), if_words(x'20' || x'00' || x'20'), if_is_json(x'00');
SELECT hex(if_reason(x'610062', '{"max_chars": 2, "must_include": "\u0000"}'));
SELECT hex(if_reason('ab', '{"must_include": "a\u0000"}'));
SELECT hex(if_reason(x'5B305D00', '{"must_be_json": true}')), if_is_json(x'5B305D'), if_is_json(x'5B305D00');
-- results with no NUL are handed over terminated, the others with their length
SELECT length(if_reason('ab', '{"must_include": "abc"}')), if_reason('ab', '{"must_include": "abc"}') || '|', hex(if_lower('AB')) || '|' || length(if_lower(x'410042'));
SELECT (SELECT hex(label) FROM if_checks('ab', '{"must_include": ["a\u0000", "b"]}') WHERE seq = 0), (SELECT label || '|' FROM if_checks('ab', '{"must_include": ["a\u0000", "b"]}') WHERE seq = 1), length(if_eval('ab', '{"must_include": "a\u0000"}'));
