-- tests/cluster/cases.sql — one more run for the cluster test, beside the
-- fixtures' runs: cases whose regraded score and reason the test states
-- literally (tests/cluster/run.sh, "regraded cases"). The runner's scores here
-- are not what ifscore gives, so the regrade has something to change; one
-- response holds ';' and a newline, which the dqlite shell must not cut.
-- Loaded into a local database by the sqlite3 CLI, then copied to the cluster.

INSERT INTO runs (run_id, completed_at, agent_endpoint, model, pipeline, total_cases)
VALUES ('cluster-check', '2025-06-12T10:00:00+00:00', 'http://127.0.0.1:8000/agent',
        'check-model', 'instruction_following.yaml', 6);

INSERT INTO cases (run_id, ord, id, benchmark, expected_behavior, agent_response,
                   constraints, score, passed, reason,
                   runner_score, runner_passed, runner_reason)
VALUES
  ('cluster-check', 0, 'paris', 'instruction_following', 'good',
   'Paris is the capital of France.',
   '{"max_words": 10, "must_include": "Paris"}',
   0.0, 0, 'stale', 0.0, 0, 'stale'),
  ('cluster-check', 1, 'recipe', 'instruction_following', 'good',
   'Step 1; mix.' || char(10) || 'Step 2; bake.',
   '{"max_words": 3, "must_include": ["mix", "fry"], "must_exclude": "burn"}',
   1.0, 1, 'stale', 1.0, 1, 'stale'),
  ('cluster-check', 2, 'json', 'instruction_following', 'bad',
   '{"name": "Zoë", "age": 7}',
   '{"must_be_json": true, "max_chars": 20, "regex": "\"age\": [0-9]+"}',
   NULL, NULL, NULL, NULL, NULL, NULL),
  ('cluster-check', 3, 'none', 'instruction_following', 'good',
   'no constraints here', NULL,
   0.25, 0, 'stale', 0.25, 0, 'stale'),
  ('cluster-check', 4, 'german', 'instruction_following', 'good',
   'Ja, gerne. Das Treffen ist am Montag.',
   '{"min_words": 8, "regex": "^Ja"}',
   1.0, 1, 'stale', 1.0, 1, 'stale'),
  ('cluster-check', 5, 'timeout', 'instruction_following', 'good',
   '', '{"max_words": 10}',
   NULL, NULL, 'agent timed out', NULL, NULL, 'agent timed out');
