-- Constraint patterns on long single-line answers, where CPython's re.search
-- answers in 0.01 to 0.5 s: each is regular (case-insensitive sets, a
-- look-ahead at the end, a look-behind at the start), so the DFA gives
-- Python's answer in one pass, never "(match limit exceeded)".
-- Expected answers from /usr/bin/python3 (3.11.2).
CREATE TEMP TABLE para(t TEXT);
INSERT INTO para VALUES ('The quick brown fox jumps over the lazy dog while the cat sleeps on a warm mat near the kitchen window. ');
CREATE TEMP VIEW doc(n, t) AS
  SELECT n, replace(hex(zeroblob(n)), '00', (SELECT t FROM para))
  FROM (SELECT 200 AS n UNION ALL SELECT 175 UNION ALL SELECT 123 UNION ALL SELECT 36);

-- 200 copies (20,800 characters)
SELECT if_reason(t, '{"regex": "(?i)the.*xyz"}') FROM doc WHERE n = 200;
SELECT if_search(t, '(?i)the.*xyz'), if_search(t || 'XYZ', '(?i)the.*xyz') FROM doc WHERE n = 200;
-- 8,000 dashes; the KELVIN SIGN is a k to sre
SELECT if_reason(replace(hex(zeroblob(8000)), '00', '-'), '{"regex": "(?i)-.*k"}');
SELECT if_search(replace(hex(zeroblob(8000)), '00', '-') || char(8490), '(?i)-.*k');
-- 123 copies (12,792 characters), 36 copies (3,744)
SELECT if_search(t, '(?i)the.*sincerely'), if_search(t || ' SINCERELY', '(?i)the.*sincerely')
FROM doc WHERE n = 123;
SELECT if_search(t, '(?i)\w+.*regards'), if_search(t || 'Regards', '(?i)\w+.*regards')
FROM doc WHERE n = 36;
-- a look-ahead at the end, a look-behind at the start: 175 copies (18,200)
SELECT if_reason(t, '{"regex": "\\bthe\\b.*(?=sincerely)"}') FROM doc WHERE n = 175;
SELECT if_search(t || 'sincerely', '\bthe\b.*(?=sincerely)'),
       if_search(t, '(?<=\. )[A-Z][a-z]+ \d'), if_search(t || 'Item 7', '(?<=\. )[A-Z][a-z]+ \d')
FROM doc WHERE n = 175;
-- 50 or more words to the end of the text: 5,016 characters of words
SELECT if_search(replace(hex(zeroblob(114)), '00', 'The quick brown fox jumps over the lazy dog ') || v,
                 '(?i)(?:\w+\s+){50,}\w+$')
FROM (SELECT '!' AS v UNION ALL SELECT 'end');
