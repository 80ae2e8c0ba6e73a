#!/bin/sh
# demo/run.sh — `make demo`: rebuilds build/demo.db from demo/cases.sql and prints
# the scored tables of demo/demo.sql; then imports the bundled eval runs into
# build/runs.db, regrades them (printing the analytics) and writes the HTML
# report build/report.html. Usage: sh demo/run.sh [sqlite3-binary]
set -e
SQLITE=${1:-sqlite3}
cd "$(dirname "$0")/.."

if [ ! -f build/ifscore.so ]; then
  echo "demo: build/ifscore.so is missing; run 'make' first" >&2
  exit 1
fi

# Box tables need sqlite3 >= 3.33, wrapping long reasons >= 3.38; older CLIs
# fall back to plain columns.
version=$("$SQLITE" -version)
version=${version%% *}
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" -gt 3 ] || [ "$minor" -ge 38 ]; then
  mode="box --wrap 76 --wordwrap on"
elif [ "$minor" -ge 33 ]; then
  mode="box"
else
  mode="column"
fi

rm -f build/demo.db
"$SQLITE" -bail build/demo.db < demo/cases.sql
echo "ifscore demo: $("$SQLITE" build/demo.db \
  "SELECT count(*) || ' answers from ' || count(DISTINCT model) || ' models to '
          || count(DISTINCT prompt_id) || ' prompts' FROM cases") (build/demo.db)"
"$SQLITE" -bail -cmd ".mode $mode" build/demo.db < demo/demo.sql

# Eval runs: import the runner's results (four runs of two models), regrade them
# with the extension, print the analytics, write the report.
rm -f build/runs.db
"$SQLITE" -bail build/runs.db < sql/schema.sql
for f in tests/fixtures/eval_results_*.json tests/fixtures/week2/eval_results_*.json; do
  "$SQLITE" -bail -cmd ".parameter set :results $f" \
    -cmd ".parameter set :dataset tests/fixtures/if_dataset.jsonl" \
    build/runs.db < sql/import.sql
done
echo
echo "eval runs: $("$SQLITE" build/runs.db \
  "SELECT count(*) || ' cases of ' || count(DISTINCT run_id) || ' runs imported from tests/fixtures'
   FROM cases") (build/runs.db)"
"$SQLITE" -bail -cmd ".load build/ifscore" -cmd ".mode $mode" build/runs.db < sql/regrade.sql
"$SQLITE" -bail build/runs.db < sql/report.sql > build/report.html
echo
echo "report: build/report.html  (file://$(pwd)/build/report.html, written by sql/report.sql from build/runs.db)"
