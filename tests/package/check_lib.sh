#!/bin/sh
# check_lib.sh — what a user copying the library elsewhere relies on:
#   - it exports sqlite3_ifscore_init and nothing else (nm -D)
#   - PCRE2 linked in (static): no libpcre2 among its needs (readelf -d,
#     ldd); linked against the shared one (system): libpcre2-8 needed
#   - no text relocations (Debian's libpcre2-8.a is position-independent)
#   - the sqlite3 CLI loads it and if_version() is the VERSION file's
#
#   sh tests/package/check_lib.sh LIB static|system [sqlite3]
LIB=$1
MODE=$2
SQLITE=${3:-sqlite3}
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
ok()   { echo "ok   $LIB: $1"; pass=$((pass + 1)); }
bad()  { echo "FAIL $LIB: $1"; fail=$((fail + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi; }

[ -f "$LIB" ] || { echo "FAIL $LIB is missing"; echo "check_lib: 0 passed, 1 failed"; exit 1; }

exports=$(nm -D --defined-only "$LIB" | awk '{print $NF}' | sort | tr '\n' ' ')
check "exported symbols" "$exports" "sqlite3_ifscore_init "

needed=$(readelf -d "$LIB" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
lddout=$(ldd "$LIB")
if [ "$MODE" = static ]; then
  check "needed libraries (readelf -d)" "$needed" "libc.so.6 "
  case "$lddout" in
    *pcre2*) bad "ldd lists libpcre2: $lddout" ;;
    *) ok "ldd lists no libpcre2" ;;
  esac
else
  check "needed libraries (readelf -d)" "$needed" "libc.so.6 libpcre2-8.so.0 "
  case "$lddout" in
    *"libpcre2-8.so.0 => /"*) ok "ldd resolves libpcre2-8.so.0" ;;
    *) bad "ldd does not resolve libpcre2-8.so.0: $lddout" ;;
  esac
fi

if readelf -d "$LIB" | grep -q TEXTREL; then bad "has text relocations"; else ok "no text relocations"; fi

version=$(LC_ALL=C "$SQLITE" -bail -cmd ".load ${LIB%.so}" :memory: "SELECT if_version();" 2>&1)
check "if_version() is the VERSION file's" "$version" "$(cat VERSION)"

echo "check_lib $MODE: $pass passed, $fail failed"
[ "$fail" = 0 ]
