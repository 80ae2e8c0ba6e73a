#!/bin/sh
# run_tsan.sh — make test-threads: runs tests/hostile/threads.c built with
# ThreadSanitizer.  Some kernels randomise mmap more than TSan's memory
# layout allows ("unexpected memory mapping"); the run is then repeated
# with address randomisation off for this process (setarch -R), and if
# TSan still cannot start (a container may forbid that too) the ASan build
# of the same program runs instead, with a warning: the answers are still
# checked, only the race detector is missing.
#
#   sh tests/hostile/run_tsan.sh TSAN_BINARY [FALLBACK_BINARY] 
TSAN_BIN=${1:-build/tsan/threads}
FALLBACK=${2:-}
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT INT TERM

tsan_cannot_start() {
  grep -q "unexpected memory mapping\|ThreadSanitizer: failed\|FATAL: ThreadSanitizer" "$log" &&
    ! grep -q "WARNING: ThreadSanitizer: data race\|WARNING: ThreadSanitizer:" "$log"
}

"$TSAN_BIN" >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ] && tsan_cannot_start && command -v setarch >/dev/null 2>&1; then
  echo "test-threads: TSan cannot map its shadow memory here; retrying with setarch -R"
  setarch "$(uname -m)" -R "$TSAN_BIN" >"$log" 2>&1
  rc=$?
fi
if [ $rc -ne 0 ] && tsan_cannot_start && [ -n "$FALLBACK" ]; then
  cat "$log"
  echo "test-threads: WARNING: ThreadSanitizer cannot run on this system;"
  echo "test-threads: running the ASan build instead (answers checked, races not)"
  "$FALLBACK" >"$log" 2>&1
  rc=$?
fi
cat "$log"
exit $rc
