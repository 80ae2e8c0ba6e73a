-- phrase_lists.sql: long must_include / must_exclude lists in texts that
-- each row has its own (an id), read once (a plan used once: a long
-- list's set is kept by the connection, a short new one searched phrase by
-- phrase) and again (kept plans with one set of all their phrases): the
-- same scores and reasons both times, in answers with İ and Σ.
.nullvalue NULL
CREATE TABLE runs(id INTEGER PRIMARY KEY, response TEXT, constraints TEXT);
WITH RECURSIVE n(i) AS (VALUES (1) UNION ALL SELECT i + 1 FROM n WHERE i < 12),
refusal(list) AS (VALUES ('["I''m sorry", "As an AI", "I cannot", "I can''t help", "unethical",'
                          || ' "I won''t", "not able to", "apologize", "against my guidelines"]')),
answers(k, text) AS (VALUES
  (0, 'Sure! Here is the plan: first, gather data; then ANALYZE it.'),
  (1, 'I''m sorry, but as an AI I cannot do that.'),
  (2, 'İstanbul is large; ΟΔΥΣΣΕΥΣ sailed. Data analysis follows.'),
  (3, 'I apologize. The answer is 42, and it is not unethical.'))
INSERT INTO runs(id, response, constraints)
SELECT i, a.text,
       '{"id": ' || i || ', "must_include": ["data", "plan", "analyze", "first", "answer",'
       || ' "istanbul", "σ", "w' || i || '"' || CASE WHEN i % 3 = 0 THEN ', "then"' ELSE '' END
       || '], "must_exclude": ' || r.list || '}'
FROM n JOIN answers a ON a.k = i % 4, refusal r;
CREATE TEMP TABLE once AS SELECT id, if_score(response, constraints) AS s, if_reason(response, constraints) AS why FROM runs;
CREATE TEMP TABLE again AS SELECT id, if_score(response, constraints) AS s, if_reason(response, constraints) AS why FROM runs;
SELECT count(*) AS differing FROM once JOIN again USING (id) WHERE once.s IS NOT again.s OR once.why IS NOT again.why;
SELECT id, printf('%.4f', s), why FROM once ORDER BY id;
