#!/bin/sh
# run.sh — the arm64 build's tests under qemu-user (make test-arm64).
#
#   sh tests/arm64/run.sh BUILD CLI_DIR UNIT_BIN...
#
# BUILD is the arm64 build's folder (BUILD/ifscore.so, BUILD/tests/...),
# CLI_DIR holds Debian's arm64 sqlite3 CLI (CLI_DIR/usr/bin/sqlite3).  Runs,
# each arm64 program under `qemu-aarch64 -L /` (the :arm64 libraries are
# installed in the host's multiarch folders), after checking that the
# library is AArch64's and exports sqlite3_ifscore_init alone:
#   1. every unit test (Check), ARM64_JOBS at a time; on arm64 the vector
#      kernels they compare with the byte loops are the NEON ones
#   2. the SQL tests (tests/sql) in the arm64 CLI with the arm64 extension
#   3. ARM64_PARITY_COUNT generated parity cases (and their twins, the fresh
#      edge cases and, where ../shared is present, the corpus) in the arm64
#      CLI, against the Python oracle run here (tests/parity.py --cli)
# Environment: PYTHON, ARM64_JOBS (2), ARM64_PARITY_COUNT (500).
set -e
BUILD=${1:?usage: run.sh BUILD CLI_DIR UNIT_BIN...}
CLI_DIR=${2:?usage: run.sh BUILD CLI_DIR UNIT_BIN...}
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PYTHON=${PYTHON:-/usr/bin/python3}
JOBS=${ARM64_JOBS:-2}
COUNT=${ARM64_PARITY_COUNT:-500}

QEMU=$(command -v qemu-aarch64 || command -v qemu-aarch64-static) || {
  echo "test-arm64: qemu-aarch64 not found (Debian: qemu-user)" >&2; exit 1; }
# the library is arm64's, and stands alone as on x86-64: PCRE2 linked in,
# sqlite3_ifscore_init its only export (ld-linux-aarch64.so.1 is needed for
# __stack_chk_guard, which glibc keeps in the loader on arm64)
LIB="$BUILD/ifscore.so"
case "$(readelf -h "$LIB" 2>/dev/null)" in
  *AArch64*) ;;
  *) echo "test-arm64: $LIB is not an AArch64 library" >&2; exit 1 ;;
esac
exports=$(readelf --dyn-syms -W "$LIB" |
  awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' | sort | tr '\n' ' ')
needed=$(readelf -d "$LIB" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
if [ "$exports" != "sqlite3_ifscore_init " ] ||
   [ "$needed" != "ld-linux-aarch64.so.1 libc.so.6 " ]; then
  echo "test-arm64: $LIB exports '$exports' and needs '$needed'" >&2; exit 1
fi
echo "== $LIB: AArch64, exports sqlite3_ifscore_init alone, needs $needed"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# the arm64 CLI as one command, for tests/sql/run.sh and parity.py (kept:
# a failing parity seed reruns with it)
CLI="$CLI_DIR/sqlite3"
cat >"$CLI" <<EOF
#!/bin/sh
exec "$QEMU" -L / "$ROOT/$CLI_DIR/usr/bin/sqlite3" "\$@"
EOF
chmod +x "$CLI"
start=$(date +%s)

echo "== unit tests under qemu ($JOBS at a time)"
# each test's output is kept and printed whole; a failure's name is
# written to fail; Check's timeouts, the tests' bounds in CPU seconds and
# the regex search's last-resort clock are stretched for the emulator
# (about ten times slower than the host): counted work still decides
export QEMU tmp
for t in "$@"; do echo "$t"; done |
  xargs -P "$JOBS" -n 1 sh -c '
    log="$tmp/$(basename "$1").log"
    CK_TIMEOUT_MULTIPLIER=10 IFS_TEST_SLOWDOWN=10 "$QEMU" -L / "$1" >"$log" 2>&1 || echo "$1" >>"$tmp/fail"' sh
for t in "$@"; do echo "== $t"; cat "$tmp/$(basename "$t").log"; done
if [ -s "$tmp/fail" ]; then
  echo "test-arm64: unit tests failed under qemu:" $(cat "$tmp/fail") >&2
  exit 1
fi

echo "== SQL tests in the arm64 sqlite3 CLI"
IFSCORE_LIB="$BUILD/ifscore" sh tests/sql/run.sh "$CLI"

echo "== parity sample in the arm64 sqlite3 CLI"
"$PYTHON" tests/parity.py --count "$COUNT" --lib "$BUILD/ifscore" --cli "$CLI"

echo "test-arm64: unit, SQL and parity passed under qemu-aarch64 in $(( $(date +%s) - start ))s"
