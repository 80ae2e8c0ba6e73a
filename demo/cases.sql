-- demo/cases.sql — the bundled sample for `make demo`: four models answering the
-- same ten instruction-following prompts, plus three prompts without usable
-- constraints. Constraints use the schema of the instruction_following benchmark
-- (max_words, min_words, max_chars, must_be_json, must_include, must_exclude, regex);
-- a NULL or constraint-less prompt is scored inconclusive, not failed.
-- The answers are written for the demo, in each model's usual style.

CREATE TABLE prompts (
  prompt_id   TEXT PRIMARY KEY,
  input       TEXT NOT NULL,
  constraints TEXT               -- a JSON object, or NULL
);

CREATE TABLE answers (
  model     TEXT NOT NULL,
  prompt_id TEXT NOT NULL REFERENCES prompts(prompt_id),
  response  TEXT,
  PRIMARY KEY (model, prompt_id)
);

-- One row per (model, prompt): what the scoring queries read.
CREATE VIEW cases AS
  SELECT a.model, a.prompt_id, p.input, p.constraints, a.response
  FROM answers AS a JOIN prompts AS p USING (prompt_id);

BEGIN;

INSERT INTO prompts VALUES
('haiku',
 'Write a haiku about autumn rain: three lines, nothing else.',
 '{"min_words": 5, "max_words": 17, "regex": "^[^\\n]+\\n[^\\n]+\\n[^\\n]+$"}'),
('user-json',
 'Invent a user profile for a test fixture. Reply with a JSON object with the keys name, email and age, and nothing else.',
 '{"must_be_json": true, "must_include": ["\"name\"", "\"email\"", "\"age\""]}'),
('tweet',
 'Write a tweet (280 characters max) announcing the launch of Lumen 2.0. Include the hashtag #lumen2 and keep it calm: no "!!".',
 '{"max_chars": 280, "must_include": "#lumen2", "must_exclude": "!!"}'),
('resume-fr',
 'Résume en français, en 10 à 30 mots, le paragraphe sur la transition énergétique. N''emploie pas le mot « très ».',
 '{"min_words": 10, "max_words": 30, "must_include": "énergie", "must_exclude": "très"}'),
('sky-blue',
 'Explain to a curious 12-year-old why the sky is blue. Use at least 40 words and mention Rayleigh scattering.',
 '{"min_words": 40, "must_include": "Rayleigh scattering"}'),
('apollo-date',
 'On what date did Apollo 11 land on the Moon? Answer with the date only, in ISO 8601 format (YYYY-MM-DD).',
 '{"max_words": 3, "regex": "^\\d{4}-\\d{2}-\\d{2}$"}'),
('sql-query',
 'Write a SQLite query returning the 5 most recent rows of orders(id, customer, created_at). Only the query, no explanation.',
 '{"max_words": 40, "must_include": "ORDER BY created_at DESC", "must_exclude": ["DELETE", "DROP"], "regex": "(?i)\\blimit\\s+5\\b"}'),
('subject-line',
 'Suggest an email subject line reminding the team of Friday''s 10:00 design review. At most 8 words and 60 characters; do not use the word "urgent".',
 '{"max_words": 8, "max_chars": 60, "must_exclude": "urgent"}'),
('ticket-json',
 'Classify this support ticket: "I was charged twice for my March invoice." Reply with JSON only: {"category": ..., "priority": "low" | "medium" | "high"}.',
 '{"must_be_json": true, "max_chars": 200, "regex": "\"priority\":\\s*\"(low|medium|high)\""}'),
('cities-json',
 'List the cities mentioned in "We flew from Lisbon to Porto, then took the train to Coimbra." as a JSON array of strings.',
 '{"must_be_json": true, "must_include": ["Lisbon", "Porto", "Coimbra"]}'),
-- Inconclusive: no constraints at all, an empty object, only keys the scorer ignores.
('octopus-fact',
 'Tell me a fun fact about octopuses.',
 NULL),
('shop-names',
 'Brainstorm names for a small coffee shop near a university.',
 '{}'),
('exec-update',
 'Write a two-sentence project status update for the executive team.',
 '{"tone": "formal", "language": "en"}');

-- gpt-4o
INSERT INTO answers VALUES
('gpt-4o', 'haiku',
'Cold rain on the eaves
maple leaves drift in puddles
the kettle whistles'),
('gpt-4o', 'user-json',
'{"name": "Maya Patel", "email": "maya.patel@example.com", "age": 34}'),
('gpt-4o', 'tweet',
'Lumen 2.0 is here. Faster sync, offline mode and a cleaner editor, shaped by a year of your feedback. Update today and tell us what you think. #Lumen2'),
('gpt-4o', 'resume-fr',
'La transition énergétique remplace les énergies fossiles par des sources renouvelables afin de réduire les émissions et de sécuriser l''approvisionnement.'),
('gpt-4o', 'sky-blue',
'Sunlight looks white, but it is really a mix of all colors. When it hits the tiny gas molecules in the air, blue light gets bounced around much more than red light, because its waves are shorter. This is called Rayleigh scattering, and it sends blue light toward your eyes from every part of the sky.'),
('gpt-4o', 'apollo-date',
'1969-07-20 (20:17 UTC)'),
('gpt-4o', 'sql-query',
'SELECT id, customer, created_at
FROM orders
ORDER BY created_at DESC
LIMIT 5;'),
('gpt-4o', 'subject-line',
'Reminder: Design review Friday at 10:00'),
('gpt-4o', 'ticket-json',
'{"category": "billing", "priority": "high"}'),
('gpt-4o', 'cities-json',
'["Lisbon", "Porto", "Coimbra"]'),
('gpt-4o', 'octopus-fact',
'Octopuses have three hearts and blue blood: two hearts pump blood through the gills, and the third pumps it to the rest of the body.');

-- claude-3-5-sonnet
INSERT INTO answers VALUES
('claude-3-5-sonnet', 'haiku',
'Soft rain on red leaves
the garden exhales slowly —
autumn settles in'),
('claude-3-5-sonnet', 'user-json',
'```json
{
  "name": "Jonas Berg",
  "email": "jonas.berg@example.org",
  "age": 41
}
```'),
('claude-3-5-sonnet', 'tweet',
'Meet Lumen 2.0: offline mode, sync up to 3x faster, and a redesigned editor that stays out of your way. Available now on every platform. #Lumen2'),
('claude-3-5-sonnet', 'resume-fr',
'La transition énergétique vise à passer des combustibles fossiles aux énergies renouvelables. Elle est très coûteuse à court terme, mais essentielle pour le climat.'),
('claude-3-5-sonnet', 'sky-blue',
'Sunlight contains every color of the rainbow. As it travels through the atmosphere, it bumps into nitrogen and oxygen molecules that are much smaller than the light''s wavelength. Those molecules scatter short, blue wavelengths far more strongly than long, red ones, an effect called Rayleigh scattering. So wherever you look, scattered blue light reaches your eyes, and the whole sky glows blue.'),
('claude-3-5-sonnet', 'apollo-date',
'1969-07-20
'),
('claude-3-5-sonnet', 'sql-query',
'```sql
SELECT *
FROM orders
ORDER BY created_at DESC
LIMIT 5;
```'),
('claude-3-5-sonnet', 'subject-line',
'Friday 10:00 — Design Review Reminder'),
('claude-3-5-sonnet', 'ticket-json',
'{"category": "billing", "priority": "medium"}'),
('claude-3-5-sonnet', 'cities-json',
'["Lisbon", "Porto", "Coimbra"]'),
('claude-3-5-sonnet', 'shop-names',
'A few ideas: The Study Break, Bean There, Footnotes Coffee, The Daily Grind, and Office Hours.');

-- llama-3.1-70b
INSERT INTO answers VALUES
('llama-3.1-70b', 'haiku',
'Here is a haiku about autumn rain:

Gray skies weep softly
Crimson leaves dance on wet ground
Nature''s gentle sigh'),
('llama-3.1-70b', 'user-json',
'{"name": "John Doe", "email": "john.doe@example.com", "age": 30}

Note: this is fictional data for testing purposes.'),
('llama-3.1-70b', 'tweet',
'BIG NEWS!! Lumen 2.0 is finally here with offline mode and faster sync. Go check it out now!! #Lumen2'),
('llama-3.1-70b', 'resume-fr',
'The energy transition means moving from fossil fuels to renewable sources in order to cut emissions and secure supply.'),
('llama-3.1-70b', 'sky-blue',
'The sky is blue because of Rayleigh Scattering. Blue light has a shorter wavelength, so the air scatters it more than other colors.'),
('llama-3.1-70b', 'apollo-date',
'Apollo 11 landed on the Moon on 1969-07-20.'),
('llama-3.1-70b', 'sql-query',
'Here is the query:

SELECT * FROM orders ORDER BY created_at DESC LIMIT 5;

This query selects all columns from the orders table, sorts the rows by created_at in descending order so that the newest orders come first, and then returns only the first 5 rows.'),
('llama-3.1-70b', 'subject-line',
'URGENT: Don''t forget the design review this Friday at 10:00 AM'),
('llama-3.1-70b', 'ticket-json',
'{"category": "Billing", "priority": "High"}'),
('llama-3.1-70b', 'cities-json',
'["Lisbon", "Porto", "Coimbra",]'),
('llama-3.1-70b', 'exec-update',
'The migration to the new billing platform is on track for the June 30 cutover. We have resolved the two open data-quality issues and are now in final user acceptance testing.');

-- mistral-large
INSERT INTO answers VALUES
('mistral-large', 'haiku',
'**Autumn Rain**

Pattering softly,
the rain combs the amber leaves —
the year exhales slow.'),
('mistral-large', 'user-json',
'{''name'': ''Lucie Martin'', ''email'': ''lucie.martin@example.fr'', ''age'': 29}'),
('mistral-large', 'tweet',
'We are thrilled to announce that Lumen 2.0 is now available to everyone. This release brings a redesigned editor, offline mode so you can keep working anywhere, sync that is up to three times faster, and dozens of small improvements suggested by our community. Thank you for building it with us. #Lumen2'),
('mistral-large', 'resume-fr',
'Très bien. La transition énergétique remplace peu à peu le charbon, le pétrole et le gaz par l''énergie solaire, éolienne et hydraulique pour limiter le réchauffement climatique.'),
('mistral-large', 'sky-blue',
'When sunlight enters the atmosphere, it collides with gas molecules. These molecules scatter shorter wavelengths, like blue and violet, much more than longer ones like red. Lord Rayleigh explained this in the 1870s. Our eyes are more sensitive to blue than violet, so the sky looks blue.'),
('mistral-large', 'apollo-date',
'July 20, 1969'),
('mistral-large', 'sql-query',
'SELECT * FROM orders ORDER BY id DESC LIMIT 5;'),
('mistral-large', 'subject-line',
'Subject: Reminder – Design Review on Friday at 10:00'),
('mistral-large', 'ticket-json',
'```json
{"category": "billing", "priority": "high", "summary": "Customer was charged twice for the March invoice and asks for a refund of the duplicate payment."}
```
Let me know if you need anything else!'),
('mistral-large', 'cities-json',
'["Lisbon", "Porto"]'),
('mistral-large', 'exec-update',
'Status: the billing migration remains on schedule for the June 30 cutover. All critical defects are closed and user acceptance testing started this week.');

COMMIT;
