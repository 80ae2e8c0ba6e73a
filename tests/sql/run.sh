#!/bin/sh
# run.sh — the SQL tests: each tests/sql/NAME.sql runs in the sqlite3 CLI
# (`sqlite3 -bail :memory:` with `.load build/ifscore` first) and its output
# (stdout and stderr) must equal tests/sql/NAME.expected byte for byte.
#
#   sh tests/sql/run.sh [sqlite3-binary]        (make sqltest)
#   VALGRIND=1 IFSCORE_LIB=build/nojit/ifscore sh tests/sql/run.sh
#                                               each run under valgrind;
#                                               any error or leak fails
#   IFSCORE_LIB=path/to/ifscore sh tests/sql/run.sh   another build (no .so)
#
# Prints a diff for each mismatch and closes with "N passed, M failed";
# exits 1 when anything failed.

SQLITE=${1:-sqlite3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1

LIB=${IFSCORE_LIB:-build/ifscore}
if [ ! -f "$LIB.so" ]; then
  echo "sqltest: $LIB.so is missing; run make first"
  exit 1
fi

VG=""
if [ "${VALGRIND:-0}" = 1 ]; then
  VG="valgrind -q --error-exitcode=99 --leak-check=full"
  VG="$VG --errors-for-leak-kinds=definite,indirect,possible"
  # PCRE2's JIT code reads past the subject with SIMD loads, which valgrind
  # reports (PCRE2 built without --enable-valgrind): use the build without
  # JIT, build/nojit/ifscore (make sqltest-valgrind does).
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

. tests/golden.sh
for t in tests/sql/*.sql; do
  name=$(basename "$t" .sql)
  out=$tmp/$name.out
  vglog=$tmp/$name.vg
  # LC_ALL=C: the CLI must not re-encode anything it prints
  if [ -n "$VG" ]; then
    LC_ALL=C $VG --log-file="$vglog" "$SQLITE" -bail -cmd ".load $LIB" \
      :memory: <"$t" >"$out" 2>&1
  else
    LC_ALL=C "$SQLITE" -bail -cmd ".load $LIB" :memory: <"$t" >"$out" 2>&1
  fi
  golden_check "$name" "tests/sql/$name.expected" "$out" $? "$vglog"
done
golden_report
