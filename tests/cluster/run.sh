#!/bin/sh
# tests/cluster/run.sh — ifscore on a three-node dqlite cluster (make test-cluster).
#
#   sh tests/cluster/run.sh [build/ifscore-node]
#
# Three ifscore-node processes on 127.0.0.1 (three free ports, nothing else is
# ever addressed), the dqlite shell as the only client:
#   1. the cluster forms: three voters; the examples of docs/scaling-out.md
#      marked for this test print what the page shows;
#   2. sql/schema.sql runs through the shell (cluster/dqlite_sql.py);
#   3. the fixtures' eval runs and tests/cluster/eval_results_check.json,
#      imported into a local database with sql/import.sql, are copied in
#      (dqlite_sql.py --copy) and read back;
#   4. sql/regrade.sql runs through the shell: every table must equal, byte for
#      byte, that of the same regrade done locally by the sqlite3 CLI with
#      build/ifscore.so, and the cases of eval_results_check.json have the
#      values written below;
#   5. the leader is killed with SIGKILL; another node must become leader with
#      every score intact, answer if_score, and regrade again;
#   6. the killed node starts again from its directory and must catch up: its
#      own copy of the database (the shell's .dump of that node) must hold the
#      regrade done while it was down and a write made after it came back;
#   7. every node stops on SIGTERM with status 0.
# Every process started here is stopped by its pid on exit, whatever happens;
# every wait has a deadline and every client call a timeout.
# Closes with "test-cluster: N passed, M failed"; exits 1 on any failure.

set -u
NODE=${1:-build/ifscore-node}
SQLITE=${SQLITE:-sqlite3}
PYTHON=${PYTHON:-/usr/bin/python3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
for f in "$NODE" build/ifscore.so; do
  [ -f "$f" ] || { echo "test-cluster: $f is missing; run make cluster first"; exit 1; }
done
command -v dqlite >/dev/null 2>&1 ||
  { echo "test-cluster: the dqlite shell is missing (Debian package go-dqlite)"; exit 1; }

mkdir -p build/cluster && WORK=$(mktemp -d "$ROOT/build/cluster/test.XXXXXX") || exit 1
CALL_TIMEOUT=30     # seconds, any one dqlite shell call
WAIT=60             # seconds, any one wait (election, catch-up, startup)
passed=0
PID1="" PID2="" PID3=""

# ---- teardown ---------------------------------------------------------------

stop_pid() {   # stop_pid PID: SIGTERM, then SIGKILL after 10 s
  kill -0 "$1" 2>/dev/null || return 0
  kill -TERM "$1" 2>/dev/null
  i=0
  while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -0 "$1" 2>/dev/null && { echo "test-cluster: pid $1 ignored SIGTERM: SIGKILL"; kill -KILL "$1"; }
  wait "$1" 2>/dev/null
  return 0
}
cleanup() {
  status=$?
  trap - EXIT INT TERM
  for p in $PID1 $PID2 $PID3; do stop_pid "$p"; done
  if [ "$status" = 0 ]; then
    rm -rf "$WORK"
  else
    for log in "$WORK"/node*.log; do
      [ -f "$log" ] || continue
      echo "---- last lines of $log"
      tail -n 15 "$log"
    done
    echo "test-cluster: $passed passed, 1 failed (files kept in ${WORK#$ROOT/})"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*"; exit 1; }
ok() { passed=$((passed + 1)); echo "ok $passed - $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# ---- the cluster --------------------------------------------------------------

# Three free ports on 127.0.0.1, below the kernel's range for outgoing
# connections (32768 and up), so that no client connection takes the port of
# a node while it is down.
PORTS=$("$PYTHON" -c '
import random, socket
ports = []
while len(ports) < 3:
    port = random.randrange(20000, 32000)
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    if port not in ports:
        ports.append(port)
print(*ports)') || fail "no free ports"
set -- $PORTS
ADDR1=127.0.0.1:$1 ADDR2=127.0.0.1:$2 ADDR3=127.0.0.1:$3
SERVERS=$ADDR1,$ADDR2,$ADDR3

dq() { timeout "$CALL_TIMEOUT" dqlite -s "$SERVERS" runs "$@"; }
addr_of() { eval echo "\$ADDR$1"; }
pid_of() { eval echo "\$PID$1"; }

start_node() {   # start_node N [--join ADDR]: starts node N, waits until it is ready
  n=$1; shift
  log=$WORK/node$n.log
  : >"$log"
  "$NODE" --db "$(addr_of "$n")" --dir "$WORK/node$n" "$@" 2>>"$log" &
  eval "PID$n=$!"
  t0=$(now)
  i=0
  until grep -q ': ready ' "$log"; do
    kill -0 "$(pid_of "$n")" 2>/dev/null || fail "node $n exited while starting"
    [ $i -lt $((WAIT * 10)) ] || fail "node $n not ready after ${WAIT}s"
    sleep 0.1; i=$((i + 1))
  done
  echo "   node $n ($(addr_of "$n"), pid $(pid_of "$n")) ready in $(since "$t0")"
}

wait_for() {     # wait_for WHAT COMMAND...: retries COMMAND until it succeeds
  what=$1; shift
  t0=$(now)
  i=0
  until "$@"; do
    [ $i -lt $((WAIT * 2)) ] || fail "$what: not after ${WAIT}s"
    sleep 0.5; i=$((i + 1))
  done
  echo "   $what after $(since "$t0")"
}

three_voters() { [ "$(dq .cluster 2>/dev/null | grep -c '|voter$')" = 3 ]; }

t_start=$(now)
start_node 1
start_node 2 --join "$ADDR1"
start_node 3 --join "$ADDR1"
wait_for "three voters" three_voters
ok "three nodes on 127.0.0.1 form a cluster of three voters"

# ---- the examples of docs/scaling-out.md ------------------------------------

# The blocks after a "make test-cluster runs this block" line are norun for the
# documentation check (no cluster there); here they run, as written but for
# the addresses, through that same checker, which compares their output with
# the page's. The copy's links are unlinked: they are checked on the page
# itself, and lead nowhere from build/.
PAGE=docs/scaling-out.md
marked=$(grep -c '^<!-- make test-cluster runs this block -->$' "$PAGE")
[ "$marked" -gt 0 ] || fail "$PAGE: no block marked for make test-cluster"
awk -v a1="$ADDR1" -v a2="$ADDR2" -v a3="$ADDR3" '
  /^<!-- make test-cluster runs this block -->$/ { marked = 1; print; next }
  /^```/ { fenced = !fenced }
  marked && /^```sh norun$/ { $0 = "```sh"; marked = 0 }
  !fenced { gsub(/\]\([^)]*\)/, "]") }
  { gsub(/127\.0\.0\.1:9001/, a1); gsub(/127\.0\.0\.1:9002/, a2)
    gsub(/127\.0\.0\.1:9003/, a3); print }' "$PAGE" >"$WORK/scaling-out.md"
[ "$(grep -c '^```sh$' "$WORK/scaling-out.md")" -ge "$marked" ] ||
  fail "$PAGE: a marked block is not a \`\`\`sh norun block"
"$PYTHON" tests/docs/check_docs.py --root "$ROOT" "$WORK/scaling-out.md" >"$WORK/doctest.out" 2>&1 ||
  { cat "$WORK/doctest.out"; fail "the examples of $PAGE"; }
ok "the $marked cluster examples of $PAGE print what the page shows"

# ---- schema and cases -------------------------------------------------------

# The local reference (sqlite3 CLI): the schema, the fixtures' runs and
# tests/cluster/eval_results_check.json (a run whose cases carry their own
# constraints, with scores the regrade must change, and ';' and a newline in a
# response), imported by sql/import.sql; then a copy regraded by sql/regrade.sql.
LOCAL=$WORK/local.db
"$SQLITE" -bail "$LOCAL" <sql/schema.sql || fail "sql/schema.sql locally"
for f in tests/fixtures/eval_results_*.json; do
  "$SQLITE" -bail -cmd ".parameter set :results $f" \
    -cmd ".parameter set :dataset tests/fixtures/if_dataset.jsonl" \
    "$LOCAL" <sql/import.sql || fail "sql/import.sql $f locally"
done
"$SQLITE" -bail -cmd ".parameter set :results tests/cluster/eval_results_check.json" \
  "$LOCAL" <sql/import.sql 2>"$WORK/import-check.err" ||
  { cat "$WORK/import-check.err"; fail "sql/import.sql tests/cluster/eval_results_check.json locally"; }
cp "$LOCAL" "$WORK/regraded.db"
"$SQLITE" -bail -cmd ".load build/ifscore" "$WORK/regraded.db" <sql/regrade.sql \
  >"$WORK/regrade-local.out" || fail "sql/regrade.sql locally"

# Every table as text the shell and the sqlite3 CLI print alike: one query per
# table, one line per row, quote() on each column (it writes a real so that it
# reads back as the same double), rows in text order.
"$SQLITE" -bail "$LOCAL" "SELECT 'SELECT ''' || m.name || ': '' || ' ||
    group_concat('quote(\"' || p.name || '\")', ' || ''|'' || ') ||
    ' AS r FROM \"' || m.name || '\" ORDER BY r'
  FROM sqlite_master AS m, pragma_table_info(m.name) AS p
  WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
  GROUP BY m.name ORDER BY m.name" >"$WORK/table-queries.txt" || fail "listing the tables"
every_table() {   # every_table DB-COMMAND...: each table's query, in turn
  while IFS= read -r query; do "$@" "$query" || return 1; done <"$WORK/table-queries.txt"
}
every_table "$SQLITE" -bail "$LOCAL" >"$WORK/imported.txt"
every_table "$SQLITE" -bail "$WORK/regraded.db" >"$WORK/expected.txt"
cmp -s "$WORK/imported.txt" "$WORK/expected.txt" && fail "the regrade changes nothing: no test"
TABLES="SELECT type || ' ' || name FROM sqlite_master
  WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
"$SQLITE" -bail "$LOCAL" "$TABLES" >"$WORK/tables.txt"

same() {   # same WHAT EXPECTED-FILE ACTUAL-FILE
  cmp -s "$2" "$3" && return 0
  diff "$2" "$3" | head -n 20
  fail "$1"
}

command=$("$PYTHON" cluster/dqlite_sql.py sql/schema.sql) || fail "dqlite_sql.py sql/schema.sql"
dq "$command" || fail "sql/schema.sql through the dqlite shell"
dq "$TABLES" >"$WORK/tables-cluster.txt" || fail "listing the cluster's tables"
same "the cluster's tables and views differ from sql/schema.sql's" \
  "$WORK/tables.txt" "$WORK/tables-cluster.txt"
ok "sql/schema.sql runs through the dqlite shell: $(wc -l <"$WORK/tables.txt") tables, views and indexes"

copy_in() {   # the runs and cases of the local database, through the shell
  "$PYTHON" cluster/dqlite_sql.py --copy "$LOCAL" runs cases >"$WORK/copy.txt" ||
    fail "dqlite_sql.py --copy"
  while IFS= read -r command; do
    dq "$command" || fail "copying the cases through the dqlite shell"
  done <"$WORK/copy.txt"
}
copy_in
every_table dq >"$WORK/imported-cluster.txt" || fail "reading the tables back"
same "the tables read back differ from those copied" "$WORK/imported.txt" "$WORK/imported-cluster.txt"
ncases=$("$SQLITE" "$LOCAL" "SELECT count(*) FROM cases")
ok "$ncases cases of $("$SQLITE" "$LOCAL" "SELECT count(*) FROM runs") runs copied in, every table read back byte for byte"

# ---- the regrade --------------------------------------------------------------

# The cases of tests/cluster/eval_results_check.json after a regrade:
# id|score|passed|reason ('timeout', an empty response the runner did not
# score, keeps what the runner wrote).
cat >"$WORK/checked.txt" <<'EOF'
paris|1.0|1|'all 2 constraints satisfied'
recipe|0.5|1|'2/4 satisfied; failed: max_words<=3 (got 6); must_include ''fry'''
json|6.66666666666666629659e-01|1|'2/3 satisfied; failed: max_chars<=20 (got 25)'
none|NULL|NULL|'no constraints specified — cannot score'
german|0.5|1|'1/2 satisfied; failed: min_words>=8 (got 7)'
timeout|NULL|NULL|'agent timed out'
EOF
CHECKED="SELECT id || '|' || quote(score) || '|' || quote(passed) || '|' || quote(reason)
  FROM cases WHERE run_id = 'cluster-check' ORDER BY ord"

regrade() {   # regrade NAME: sql/regrade.sql through the shell, then the checks
  dq "$REGRADE" >"$WORK/regrade-$1.out" || fail "sql/regrade.sql through the dqlite shell"
  every_table dq >"$WORK/$1.txt" || fail "reading the regraded tables"
  same "the cluster's regrade differs from the local one" "$WORK/expected.txt" "$WORK/$1.txt"
  dq "$CHECKED" >"$WORK/checked-$1.txt" || fail "reading the checked cases"
  same "regraded cases: scores or reasons not the expected ones" \
    "$WORK/checked.txt" "$WORK/checked-$1.txt"
}

REGRADE=$("$PYTHON" cluster/dqlite_sql.py sql/regrade.sql) ||
  fail "dqlite_sql.py sql/regrade.sql"
regrade regraded
ok "sql/regrade.sql through the cluster: every table equals the local regrade's (all $ncases scores, passes and reasons), and the checked cases have their exact values"

# ---- the leader killed ------------------------------------------------------

old_leader=$(dq .leader) || fail "asking for the leader"
killed=""
for n in 1 2 3; do [ "$(addr_of "$n")" = "$old_leader" ] && killed=$n; done
[ -n "$killed" ] || fail "the leader '$old_leader' is none of the three nodes"
kill -KILL "$(pid_of "$killed")"
wait "$(pid_of "$killed")" 2>/dev/null
eval "PID$killed="
echo "   killed the leader, node $killed ($old_leader), with SIGKILL"

new_leader_elected() {
  new_leader=$(dq .leader 2>/dev/null) && [ -n "$new_leader" ] && [ "$new_leader" != "$old_leader" ]
}
wait_for "a new leader" new_leader_elected
ok "a new leader is elected: $new_leader"

every_table dq >"$WORK/after-kill.txt" || fail "reading the tables from the new leader"
same "scores lost or changed with the old leader" "$WORK/expected.txt" "$WORK/after-kill.txt"
answer=$(dq "SELECT if_score('Paris is the capital of France.', '{\"max_words\": 3}') || '|' ||
  if_reason('Paris is the capital of France.', '{\"max_words\": 3}')") || fail "if_score on the new leader"
[ "$answer" = "0.0|0/1 satisfied; failed: max_words<=3 (got 6)" ] ||
  fail "if_score on the new leader: got '$answer'"
ok "every score intact on the new leader, which answers if_score"

# The imported cases copied in again (back to the runner's scores), then the
# regrade again: writes that need the functions, on the new leader, while
# node $killed is down.
copy_in
dq "$CHECKED" >"$WORK/reset.txt" || fail "reading the reset cases"
cmp -s "$WORK/checked.txt" "$WORK/reset.txt" && fail "the copy did not reset the scores"
regrade regraded-again
ok "sql/regrade.sql again through the new leader, same exact results"

# ---- the killed node back ---------------------------------------------------

start_node "$killed"
dq "CREATE TABLE after_restart (score REAL, reason TEXT)" || fail "a write after the restart"
dq "INSERT INTO after_restart SELECT if_score(agent_response, constraints),
  if_reason(agent_response, constraints) FROM cases WHERE run_id = 'cluster-check' AND id = 'recipe'" ||
  fail "a write after the restart"
echo "0.5|2/4 satisfied; failed: max_words<=3 (got 6); must_include 'fry'" >"$WORK/after-restart.txt"

caught_up() {   # node $killed's own copy (.dump of that node) holds everything
  dump=$WORK/dump
  rm -rf "$dump" && mkdir "$dump" || return 1
  (cd "$dump" && timeout "$CALL_TIMEOUT" dqlite -s "$SERVERS" runs ".dump $(addr_of "$killed") runs") \
    >/dev/null 2>&1 || return 1
  every_table "$SQLITE" "$dump/runs" >"$WORK/caught-up.txt" 2>/dev/null &&
    cmp -s "$WORK/expected.txt" "$WORK/caught-up.txt" &&
    "$SQLITE" "$dump/runs" "SELECT score || '|' || reason FROM after_restart" \
      >"$WORK/caught-up-2.txt" 2>/dev/null &&
    cmp -s "$WORK/after-restart.txt" "$WORK/caught-up-2.txt"
}
wait_for "node $killed caught up" caught_up
wait_for "three voters again" three_voters
ok "node $killed restarted and caught up: its own copy has the regrade made while it was down and the write made after"

# ---- clean stop -------------------------------------------------------------

for n in 1 2 3; do
  p=$(pid_of "$n")
  t0=$(now)
  kill -TERM "$p"
  i=0
  while kill -0 "$p" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
  kill -0 "$p" 2>/dev/null && fail "node $n still running 15 s after SIGTERM"
  wait "$p"; rc=$?
  eval "PID$n="
  [ "$rc" = 0 ] || fail "node $n exited with status $rc on SIGTERM"
  echo "   node $n stopped in $(since "$t0")"
done
ok "every node stops on SIGTERM with status 0"

echo "test-cluster: $passed passed, 0 failed ($(since "$t_start"))"
