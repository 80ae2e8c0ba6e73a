#!/bin/sh
# run.sh — the analytics SQL tests, through the sqlite3 CLI: each
# tests/sql_analytics/NAME.sql runs as `sqlite3 -cmd ".load ..." :memory: < NAME.sql`
# and its output (stdout and stderr) must equal NAME.expected byte for byte.
#
#   sh tests/sql_analytics/run.sh [sqlite3-binary]
#   IFSCORE_LIB=path/to/ifscore sh tests/sql_analytics/run.sh   another build
#
# The scripts run in a scratch directory holding links to sql/, tests/ and the
# extension (./ifscore.so), so they can open file databases (`.open x.db`),
# reload the extension after reopening (`.load ./ifscore`) and read the SQL
# scripts and fixtures by their repository paths (sql/import.sql, tests/fixtures/).
# Closes with "N passed, M failed"; exits 1 when anything failed.

SQLITE=${1:-sqlite3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${IFSCORE_LIB:-build/ifscore}
case $LIB in /*) ;; *) LIB=$ROOT/$LIB ;; esac
if [ ! -f "$LIB.so" ]; then
  echo "sql_analytics: $LIB.so is missing; run make first"
  exit 1
fi

. "$ROOT/tests/golden.sh"
for t in "$ROOT"/tests/sql_analytics/*.sql; do
  name=$(basename "$t" .sql)
  work=$(mktemp -d) || exit 1
  ln -s "$ROOT/sql" "$work/sql"
  ln -s "$ROOT/tests" "$work/tests"
  ln -s "$LIB.so" "$work/ifscore.so"
  out=$work/$name.out
  # LC_ALL=C: the CLI must not re-encode anything it prints
  (cd "$work" && LC_ALL=C "$SQLITE" -cmd ".load ./ifscore" :memory: <"$t" >"$out" 2>&1)
  golden_check "$name" "${t%.sql}.expected" "$out" $?
  rm -rf "$work"
done
golden_report
