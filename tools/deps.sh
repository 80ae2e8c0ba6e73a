#!/bin/sh
# Installs what building and testing ifscore needs on Debian, when missing.
#
#   sh tools/deps.sh install   (make deps, make test) everything the build
#                              and the test suites use: as root it runs
#                              apt-get, otherwise it prints the command and
#                              fails
#   sh tools/deps.sh demo      (make demo) the same for what the build and the
#                              demo use: the build's packages and the CLI
#   sh tools/deps.sh check     (any other make goal) only what building the
#                              library needs; names what is missing, never
#                              installs anything, never fails
#   sh tools/deps.sh PKG...    these Debian packages instead, as install does
#                              (make cluster)
set -e
MODE=${1:-install}
BUILD_PKGS="gcc make pkg-config libsqlite3-dev libpcre2-dev"
# tests: Check, the CLI, valgrind, Python packaging (venv, setuptools, wheel,
# apsw), sqlite-utils (docs examples), g++ (better-sqlite3 builds from source)
TEST_PKGS="sqlite3 check python3 valgrind python3-venv python3-setuptools python3-wheel
python3-apsw sqlite-utils g++"
case "$MODE" in
  install) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
  demo)    PKGS="$BUILD_PKGS sqlite3" ;;
  check)   PKGS="$BUILD_PKGS" ;;
  *)       MODE=packages; PKGS="$*" ;;
esac

missing=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do have_pkg "$p" || missing="$missing $p"; done
  # Node.js may come from elsewhere than Debian (with npm inside): only a
  # missing command counts
  if [ "$MODE" = install ]; then
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
  fi
elif [ "$MODE" = packages ]; then
  echo "deps: not a Debian system; these Debian packages or their equivalents are needed: $PKGS" >&2
  exit 0
else
  # Not Debian: check the tools and pkg-config modules directly.
  for c in cc make pkg-config; do
    command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
  done
  for m in sqlite3 libpcre2-8; do
    pkg-config --exists "$m" 2>/dev/null || missing="$missing $m"
  done
  if [ "$MODE" = demo ]; then
    command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
  fi
  if [ "$MODE" = install ]; then
    for c in sqlite3 python3 node npm; do
      command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
    done
    pkg-config --exists check 2>/dev/null || missing="$missing check"
  fi
fi

if [ "$MODE" = check ]; then
  [ -n "$missing" ] && echo "deps: building needs$missing (make deps installs them)" >&2
  exit 0
fi

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$@" >/dev/null
}
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing"
    apt_install $missing
  else
    echo "deps: missing$missing" >&2
    echo "deps: run:  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
  fi
fi
# Debian's own nodejs package comes without npm
if [ "$MODE" = install ] && ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing npm"
    apt_install npm
  else
    echo "deps: missing npm; run:  sudo apt-get install -y npm" >&2
    exit 1
  fi
fi
exit 0
