# golden.sh — the compare-and-report part of the golden-output runners
# (tests/sql/run.sh, tests/sql_analytics/run.sh), sourced by both.
#
#   golden_check NAME EXPECTED_FILE OUTPUT_FILE EXIT_STATUS [VALGRIND_LOG]
#   golden_report      prints "N passed, M failed"; false when any failed
#
# A case passes when its output equals the expected file byte for byte and
# the run neither crashed (status > 128) nor had valgrind errors (99).

golden_passed=0
golden_failed=0

golden_check() {
  g_name=$1 g_expected=$2 g_out=$3 g_rc=$4 g_log=${5:-}
  g_ok=1
  if [ ! -f "$g_expected" ]; then
    echo "FAIL $g_name: $g_expected is missing"
    g_ok=0
  elif ! cmp -s "$g_expected" "$g_out"; then
    echo "FAIL $g_name: output differs (- expected, + got)"
    diff -u "$g_expected" "$g_out" | sed -n '3,80p'
    g_ok=0
  fi
  if [ "$g_rc" -ge 99 ]; then
    echo "FAIL $g_name: exit status $g_rc"
    [ -n "$g_log" ] && [ -s "$g_log" ] && sed -n '1,60p' "$g_log"
    g_ok=0
  fi
  if [ $g_ok = 1 ]; then
    golden_passed=$((golden_passed + 1))
    echo "ok   $g_name"
  else
    golden_failed=$((golden_failed + 1))
  fi
}

golden_report() {
  echo "$golden_passed passed, $golden_failed failed"
  [ $golden_failed = 0 ]
}
