-- errors.sql: an SQL error only where a number is required (if_pass's
-- threshold); -bail stops at it, so it comes last.
.nullvalue NULL
SELECT if_pass('a', '{"max_words": 1}', 0.5);
SELECT if_pass('a', '{"max_words": 1}', 'abc');
SELECT 'not reached';
