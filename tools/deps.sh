#!/bin/sh
# Installs what building and testing ifscore needs on Debian, when missing.
# As root it runs apt-get; otherwise it prints the one command to run.
#   sh tools/deps.sh            what make and make test need
#   sh tools/deps.sh PKG...     these Debian packages instead (make cluster)
set -e
PKGS="gcc make pkg-config sqlite3 libsqlite3-dev libpcre2-dev check python3 valgrind"
[ $# -gt 0 ] && PKGS="$*"
missing=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do have_pkg "$p" || missing="$missing $p"; done
elif [ $# -gt 0 ]; then
  echo "deps: not a Debian system; these Debian packages or their equivalents are needed: $*" >&2
  exit 0
else
  # Not Debian: check the tools and pkg-config modules directly.
  for c in cc make pkg-config sqlite3 python3; do
    command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
  done
  for m in sqlite3 libpcre2-8 check; do
    pkg-config --exists "$m" 2>/dev/null || missing="$missing $m"
  done
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $missing >/dev/null
  exit 0
fi
echo "deps: missing$missing" >&2
echo "deps: run:  sudo apt-get update && sudo apt-get install -y$missing" >&2
exit 1
