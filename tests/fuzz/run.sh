#!/bin/sh
# run.sh — runs libFuzzer targets (make fuzz): each for FUZZ_SECONDS on its
# corpus build/fuzz/corpus/TARGET (grown in place), FUZZ_JOBS at a time.
#
#   FUZZ_SECONDS=600 FUZZ_JOBS=2 sh tests/fuzz/run.sh fuzz_json fuzz_eval
#
# A crash, leak, timeout (-timeout=30 s: a regex beating the match budget;
# one that spends its whole budget takes a second or two a search, and
# fuzz_eval searches each input eight times: warm, again, fresh, scores,
# the key variants)
# or broken invariant leaves build/fuzz/artifacts/TARGET-crash-*; copy it to
# tests/fuzz/regressions/TARGET/ so that make fuzz-replay keeps checking it.
# Logs: build/fuzz/logs/TARGET.log.  Exit 1 when any target failed.
cd "$(dirname "$0")/../.." || exit 1
SECS=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-2}
mkdir -p build/fuzz/artifacts build/fuzz/logs
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=tests/fuzz/known.supp
export UBSAN_OPTIONS
status=build/fuzz/logs/status.$$
: >"$status"

run_one() {
  t=$1
  dict=""
  [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
  mkdir -p "build/fuzz/corpus/$t"
  if "build/fuzz/$t" -max_total_time="$SECS" -timeout=30 -rss_limit_mb=2560 \
      -max_len=8192 -print_final_stats=1 $dict \
      -artifact_prefix="build/fuzz/artifacts/$t-" "build/fuzz/corpus/$t" \
      >"build/fuzz/logs/$t.log" 2>&1; then
    echo "ok   $t ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/logs/$t.log" | grep -o '[0-9]*$') runs in ${SECS}s)"
  else
    echo "FAIL $t: see build/fuzz/logs/$t.log"
    grep -m3 -E 'ERROR|invariant|SUMMARY|Test unit written' "build/fuzz/logs/$t.log"
    echo "$t" >>"$status"
  fi
}

running=0
for t in "$@"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
done
wait
failed=$(cat "$status")
rm -f "$status"
[ -z "$failed" ] || { echo "fuzz: failures in:" $failed; exit 1; }
echo "fuzz: $# targets, ${SECS}s each, no finding"
