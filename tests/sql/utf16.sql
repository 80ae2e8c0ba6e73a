-- utf16.sql: a database whose text is UTF-16 hands the functions UTF-16
-- values; they read them as the same UTF-8 text (answers equal to those of
-- a UTF-8 database), short texts on the page and long ones on overflow pages.
-- A BLOB is read as text the way SQLite converts it, here as UTF-16: row 7's
-- three bytes are not 'abc' (in a UTF-8 database they are).
.nullvalue NULL
PRAGMA encoding = 'UTF-16le';
PRAGMA encoding;
CREATE TABLE t(id INTEGER PRIMARY KEY, r, c);
INSERT INTO t(r, c) VALUES
  ('Größe café ΣΑΣ', '{"must_include": ["größe", "σας"], "max_words": 3}'),
  ('İstanbul', '{"must_include": "i̇stanbul", "max_chars": 8}'),
  (printf('%.*c', 5000, 'x') || ' Ünïcödé ' || printf('%.*c', 5000, 'y'),
   '{"must_include": ["ünïcödé", "zzz"], "max_chars": 10009, "regex": "Ü\\w+é"}'),
  ('{"k": "v"}', '{"must_be_json": true, "must_exclude": "K"}'),
  (12345, '{"must_include": 234}'),
  (1.5, '{"must_include": "1.5"}'),
  (x'616263', '{"must_include": "abc"}'),
  ('a' || char(0) || 'b', '{"max_chars": 3, "must_include": "a\u0000b"}');
SELECT id, if_score(r, c), if_reason(r, c), if_pass(r, c) FROM t;
SELECT id, if_eval(r, c) FROM t WHERE id IN (1, 2, 4);
SELECT id, seq, kind, label, ok FROM t, if_checks(t.r, t.c) WHERE id IN (1, 3);
SELECT if_lower(r), if_chars(r), if_words(r) FROM t WHERE id = 1;
SELECT if_chars(r), if_words(r), length(if_lower(r)) FROM t WHERE id = 3;
