-- arity.sql: a wrong number of arguments is refused when the statement is
-- prepared.
SELECT if_score('a');
SELECT 'not reached';
