#!/bin/sh
# run_valgrind.sh — make test-valgrind: the SQL tests under valgrind
# memcheck with the normal build (tests/sql/run.sh, VALGRIND=1: any error
# or leak, definite, indirect or possible, fails).
#
# First, a proof that the harness catches leaks: tests/sql/run.sh, copied
# into a scratch tree holding one small SQL test, runs against
# build/san/leak/ifscore.so (the extension plus one leaked malloc) and
# must fail; then against the real build/ifscore.so it must pass.
# Valgrind is installed when missing and this runs as root (CI).
SQLITE=${1:-sqlite3}
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
if ! command -v valgrind >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-valgrind: installing valgrind"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
  fi
  command -v valgrind >/dev/null 2>&1 || { echo "test-valgrind: valgrind is missing (apt-get install valgrind)"; exit 1; }
fi

# PCRE2's JIT code reads subjects with SIMD loads past their end: see the file
VALGRIND_OPTS="--suppressions=$ROOT/tests/hostile/valgrind.supp ${VALGRIND_OPTS:-}"
export VALGRIND_OPTS

scratch=$ROOT/build/san/vgproof
rm -rf "$scratch"
mkdir -p "$scratch/tests/sql"
cp tests/sql/run.sh "$scratch/tests/sql/run.sh"
cp tests/golden.sh "$scratch/tests/golden.sh"
cat >"$scratch/tests/sql/proof.sql" <<'SQL'
SELECT if_score('Hello world', '{"max_words": 5, "must_include": "hello"}');
SQL
printf '1.0\n' >"$scratch/tests/sql/proof.expected"

if VALGRIND=1 IFSCORE_LIB="$ROOT/build/san/leak/ifscore" sh "$scratch/tests/sql/run.sh" "$SQLITE" \
     >"$scratch/leak.out" 2>&1; then
  echo "test-valgrind: FAIL: the harness did not notice a planted leak:"
  cat "$scratch/leak.out"
  exit 1
fi
grep -q "definitely lost" "$scratch/leak.out" || {
  echo "test-valgrind: FAIL: the planted leak failed the run, but not as a leak:"
  cat "$scratch/leak.out"; exit 1; }
if ! VALGRIND=1 IFSCORE_LIB="$ROOT/build/ifscore" sh "$scratch/tests/sql/run.sh" "$SQLITE" \
     >"$scratch/clean.out" 2>&1; then
  echo "test-valgrind: FAIL: the control run (no planted leak) failed:"
  cat "$scratch/clean.out"
  exit 1
fi
echo "test-valgrind: the harness fails on a planted leak and passes without it"

VALGRIND=1 sh tests/sql/run.sh "$SQLITE"
