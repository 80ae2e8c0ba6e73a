-- deferred.sql: if_score leaves labels and the reason to be built when
-- if_reason or if_eval asks for the same row; when the connection has
-- evaluated something else in between (if_checks here), the row is
-- evaluated again.
.nullvalue NULL
CREATE TABLE t(id INTEGER PRIMARY KEY, r TEXT, c TEXT);
INSERT INTO t(r, c) VALUES
  ('I am sorry, I cannot help', '{"must_exclude": ["sorry", "cannot", "as an ai", "unable"], "max_words": 3, "regex": "^I"}'),
  ('Sure: here it is', '{"must_exclude": ["sorry", "cannot", "as an ai", "unable"], "max_words": 3, "regex": "^I"}'),
  ('x', '{"regex": "("}'),
  ('x', '[1]'),
  ('x', NULL);
SELECT id, if_score(r, c), if_reason(r, c), if_pass(r, c) FROM t;
SELECT id, if_score(r, c), (SELECT count(*) FROM if_checks('a b', '{"min_words": 3}')),
       if_reason(r, c) FROM t;
SELECT id, if_score(r, c), (SELECT group_concat(label, '|') FROM if_checks(r || '!', c)),
       if_eval(r, c) FROM t;
