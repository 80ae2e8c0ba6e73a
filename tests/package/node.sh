#!/bin/sh
# node.sh — the Node package as a user gets it (make test-node):
#   npm pack at the repository root; the tarball installed into a project
#   with better-sqlite3 (from npm, ^12: 13 needs Node 22), where its install
#   step builds the library; then require() and import (test_node.cjs,
#   test_node.mjs) and index.d.ts under tsc --strict (test_types.ts); then
#   node:sqlite (test_node_sqlite.cjs) under Node 22 from npm's
#   node-linux-<arch> package (Debian's Node has no node:sqlite).
# The project, build/node-app, keeps better-sqlite3 and typescript between
# runs (better-sqlite3 compiles SQLite from source, minutes); ifscore is
# installed afresh each time.
set -e
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
for c in node npm; do
  command -v $c >/dev/null 2>&1 || { echo "FAIL node: $c is missing (make deps installs it)"; exit 1; }
done
echo "== npm pack ($(node --version))"
mkdir -p build/package
rm -f build/package/ifscore-*.tgz
tarball=$(npm pack --silent --pack-destination build/package)
echo "ok   npm pack: $tarball"

app=build/node-app
mkdir -p $app
cd $app
[ -f package.json ] || npm init -y >/dev/null
npm_i() { npm install --no-audit --no-fund --loglevel=error "$@"; }
if ! node -e 'require("better-sqlite3"); require("typescript")' 2>/dev/null; then
  echo "== npm install better-sqlite3@^12 typescript@^5 (builds SQLite from source)"
  npm_i better-sqlite3@^12 typescript@^5
fi
echo "== npm install $tarball"
rm -rf node_modules/ifscore
npm_i "$ROOT/build/package/$tarball"
[ -f node_modules/ifscore/build/ifscore.so ] || { echo "FAIL npm install: no node_modules/ifscore/build/ifscore.so"; exit 1; }
echo "ok   npm install built node_modules/ifscore/build/ifscore.so"

version=$(cat "$ROOT/VERSION")
# the tests run from inside the project, where require('ifscore') finds it
cp "$ROOT"/tests/package/checks.cjs "$ROOT"/tests/package/test_node.cjs "$ROOT"/tests/package/test_node.mjs \
   "$ROOT"/tests/package/test_types.ts .
node test_node.cjs "$version"
node test_node.mjs "$version"
npx --no-install tsc --strict --noEmit --module node16 --moduleResolution node16 \
  --target es2022 test_types.ts 2>&1 || { echo "FAIL tsc on index.d.ts"; exit 1; }
echo "ok   index.d.ts: test_types.ts type-checks (tsc --strict)"

# Node's own node:sqlite loads extensions from Node 22.13 on; npm carries
# Node's release binaries as node-linux-<arch> (kept in build/node22)
NODE22_VERSION=22.23.5
n22="$ROOT/build/node22/$NODE22_VERSION"
if [ ! -x "$n22/package/bin/node" ]; then
  arch=$(node -p process.arch)
  echo "== npm pack node-linux-$arch@$NODE22_VERSION (Node 22, for node:sqlite)"
  rm -rf "$n22" && mkdir -p "$n22"
  (cd "$n22" && npm pack --silent "node-linux-$arch@$NODE22_VERSION" >/dev/null &&
     tar xzf node-linux-*.tgz && rm -f node-linux-*.tgz) ||
    { echo "FAIL could not fetch node-linux-$arch@$NODE22_VERSION from npm"; exit 1; }
fi
cp "$ROOT"/tests/package/test_node_sqlite.cjs .
"$n22/package/bin/node" --no-warnings test_node_sqlite.cjs "$version"
