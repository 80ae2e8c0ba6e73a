-- helpers.sql: if_words, if_chars, if_lower, if_is_json, if_search with
-- Python semantics, and NULL in, NULL out.
.nullvalue NULL
SELECT if_words(NULL), if_chars(NULL), if_lower(NULL), if_is_json(NULL), if_search(NULL, 'x'), if_search('x', NULL);
SELECT if_words(''), if_chars(''), quote(if_lower('')), if_is_json(''), if_search('', ''), if_search('', '^$');
SELECT typeof(if_words('a')), typeof(if_chars('a')), typeof(if_lower('a')), typeof(if_is_json('1')), typeof(if_search('a', 'a'));

-- words: Python's str.split(); whitespace is str.isspace()
SELECT if_words('  one two  three '), if_words(char(9, 10, 11, 12, 13)), if_words('a' || char(10) || 'b');
WITH t(cp) AS (VALUES (9), (10), (11), (12), (13), (28), (29), (30), (31), (32), (133), (160),
  (5760), (8192), (8202), (8232), (8233), (8239), (8287), (12288),
  (8203), (6158), (65279), (8288), (0), (127), (173))
SELECT cp, if_words('a' || char(cp) || 'b') FROM t;

-- chars: code points
SELECT if_chars('héllo'), if_chars('😀'), if_chars('e' || char(769)), if_chars('👨‍👩‍👧'), if_chars(char(1114111));

-- lower: str.lower(), full mapping, final sigma
SELECT if_lower('HeLLo WORLD'), if_lower('İSTANBUL'), hex(if_lower('İ')), if_chars(if_lower('İ'));
SELECT if_lower('ΟΔΥΣΣΕΥΣ'), if_lower('Σ'), if_lower('ΑΣ'), if_lower('ΣΑ'), if_lower('ΑΣ Α'), if_lower('ΑΣΑ');
SELECT if_lower('ΑΣ''' ), if_lower('ΑΣ' || char(769)), if_lower('Α' || char(173) || 'Σ'), if_lower('ΑΣ.Β'), if_lower('ΑΣ' || char(837) || 'Α'), if_lower(char(688) || 'Σ');
SELECT if_lower('1Σ'), if_lower('ΣΣΣ'), if_lower('ΑΣ' || char(8205)), if_lower('ΑΣ:Β'), if_lower('Σ.');
SELECT if_lower('STRASSE'), if_lower('STRAẞE'), if_lower('ǄEMAL'), if_lower('ǅ'), if_lower('ﬁ'), if_lower('ᏣᎳᎩ'), if_lower('ꭰ');
SELECT if_lower('ᲛᲐᲠ'), if_lower('ႠႡ'), if_lower('ԱՐԱՄ'), if_lower('ДОБРО Ё'), if_lower('Ӏ'), if_lower('ΩKÅ'), if_lower('𐐀𐐁'), if_lower('Ⅻ Ⓐ');

-- is_json: json.loads rules after fence stripping
WITH t(s) AS (VALUES ('{"a": 1}'), ('[1, 2]'), ('"x"'), ('1'), ('-0'), ('1.5e3'), ('null'), ('true'),
  ('NaN'), ('-Infinity'), ('Infinity'), ('  {"a": 1}  '), ('{"a": 1, "a": 2}'), ('"\ud800"'),
  ('[1,]'), ('{''a'': 1}'), ('01'), ('+1'), ('.5'), ('1.'), ('1e'), ('nan'), ('"a'), ('"' || char(9) || '"'),
  ('[1] [2]'), (''), ('   '), ('// c'), ('```json' || char(10) || '{"a": 1}' || char(10) || '```'),
  ('```' || char(10) || '[1]' || char(10) || '```'), ('```JSON [1]```'), ('```json5' || char(10) || '1```'),
  ('``` json' || char(10) || '1' || char(10) || '```'), ('```json' || char(12288) || '1' || char(8195) || '```'),
  ('```json' || char(10) || '1'), ('1' || char(10) || '```'), ('``json 1``'), ('```json```'), ('```'),
  ('```json' || char(10) || '1' || char(10) || '```' || char(10) || 'more'), (char(65279) || '1'), ('1' || char(160)),
  ('[' || char(12) || '1]'), ('[1' || char(160) || ']'), (printf('%.*c', 4300, '9')), (printf('%.*c', 4301, '9')),
  ('-' || printf('%.*c', 4300, '9')), (printf('%.*c', 4301, '9') || '.0'),
  (printf('%.*c', 5000, '[') || printf('%.*c', 5000, ']')), (printf('%.*c', 5000, '[') || printf('%.*c', 4999, ']')))
SELECT substr(quote(s), 1, 40), if_is_json(s) FROM t;

-- search: Python's re.search; NULL for a pattern Python rejects
WITH t(s, p) AS (VALUES ('abc', 'B'), ('abc', '(?i)B'), ('abc', 'b'), ('a' || char(10), 'a$'), ('a' || char(10), 'a\Z'),
  ('ab', 'b\Z'), ('x' || char(10) || 'y', '^y'), ('x' || char(10) || 'y', '(?m)^y'), ('a' || char(10) || 'b', 'a.b'),
  ('a' || char(10) || 'b', '(?s)a.b'), (char(28), '\s'), (char(133), '\s'), (char(8203), '\s'), ('aaaa', '^a{,3}$'),
  ('aaa', '^a{,3}$'), ('١٢', '^\d+$'), ('é', '^\w$'), ('x é', '\bé\b'), ('ΣΑ', '(?i)σα'), ('k', '\u212a'),
  ('x', 'a{3,2}'), ('x', '\p{L}'), ('x', '(?<n>x)'), ('x', '\h'), ('ab', 'a(?i)b'), ('x', '('), ('x', '*a'),
  ('x', '[z-a]'), ('x', '\z'), ('x', 'x{4294967296}'), ('x', ''), ('', 'x*'), ('(', '\('), ('a{', 'a{'),
  ('My answer is maybe.', 'My answer is (yes|no|maybe)'), ('THE END', '\b[A-Z]{2,}\b'), ('no caps', '^[^A-Z]*\Z'))
SELECT quote(s), p, if_search(s, p) FROM t;
SELECT if_search(x'80', '\x80'), if_search(x'80', x'80'), if_search('a' || char(0) || 'b', 'a\x00b'), if_search('ab', 'a' || char(0));
