#!/bin/sh
# What make test-arm64 needs on Debian (x86-64 host), installed when missing:
# the aarch64 cross compiler, qemu-user, and the :arm64 libraries the
# build links (PCRE2, SQLite, Check) and the arm64 sqlite3 CLI runs on.
# As root it adds the arm64 architecture and runs apt-get; otherwise it
# prints the exact commands and fails.
#
#   sh tools/deps-arm64.sh CLI_DIR
#
# The arm64 sqlite3 *program* is never installed (sqlite3:arm64 would
# replace the host's CLI): its package is downloaded and unpacked into
# CLI_DIR (CLI_DIR/usr/bin/sqlite3, run under qemu).
set -e
CLI_DIR=${1:?usage: sh tools/deps-arm64.sh CLI_DIR}
# libc6-dev:arm64 for the multiarch headers the :arm64 -dev packages pull
# in; libsqlite3-0, libreadline8 and zlib1g :arm64 for the CLI
PKGS="gcc-aarch64-linux-gnu libc6-dev:arm64 libpcre2-dev:arm64 libsqlite3-dev:arm64
check:arm64 libsqlite3-0:arm64 libreadline8:arm64 zlib1g:arm64"

if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "deps-arm64: make test-arm64 needs Debian (dpkg, apt-get, multiarch)" >&2
  exit 1
fi
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
has_arch=0
dpkg --print-foreign-architectures | grep -qx arm64 && has_arch=1
missing=""
for p in $PKGS; do have_pkg "$p" || missing="$missing $p"; done
# either qemu package gives qemu-aarch64 (qemu-user-static: -static)
command -v qemu-aarch64 >/dev/null 2>&1 || command -v qemu-aarch64-static >/dev/null 2>&1 ||
  missing="$missing qemu-user"

if [ $has_arch = 0 ] || [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "deps-arm64: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    [ $has_arch = 1 ] || dpkg --add-architecture arm64
    apt-get update -qq
    # the :arm64 libraries must match the host's versions of the same
    # packages (multiarch): apt-get may upgrade a few host libraries
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    cmd="sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing"
    [ $has_arch = 1 ] || cmd="sudo dpkg --add-architecture arm64 && $cmd"
    echo "deps-arm64: missing${missing:- the arm64 architecture}" >&2
    echo "deps-arm64: run:  $cmd" >&2
    exit 1
  fi
fi

# The CLI of the same version as the installed libsqlite3-0:arm64.
if [ ! -x "$CLI_DIR/usr/bin/sqlite3" ]; then
  ver=$(dpkg-query -W -f='${Version}' libsqlite3-0:arm64)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT INT TERM
  (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "sqlite3:arm64=$ver" >/dev/null)
  mkdir -p "$CLI_DIR"
  dpkg-deb -x "$tmp"/sqlite3_*_arm64.deb "$CLI_DIR"
  echo "deps-arm64: sqlite3 $ver (arm64) unpacked in $CLI_DIR"
fi
