#!/bin/sh
# amalgamation.sh — build/amalgamation/ifscore.c builds with the one command
# its header and docs/install.md give, with no output; the library exports
# the entry point alone; it passes the SQL tests (tests/sql).
#
#   sh tests/package/amalgamation.sh [sqlite3]     (make test-amalgamation)
SQLITE=${1:-sqlite3}
cd "$(dirname "$0")/../.." || exit 1
dir=build/amalgamation
[ -f $dir/ifscore.c ] || { echo "amalgamation: $dir/ifscore.c is missing (make amalgamation)"; exit 1; }
rm -f $dir/ifscore.so $dir/cc.log
# a renamed reserved word (an attribute taken for a static's name) leaves cc
# parsing a file it cannot make sense of, for minutes
if grep -n '^#define __' $dir/ifscore.c; then
  echo "FAIL amalgamation: tools/amalgamate.py renamed a reserved identifier (above)"
  echo "amalgamation: 0 passed, 1 failed"
  exit 1
fi
# the command exactly as documented, in the file's own directory
(cd $dir && cc -O2 -fPIC -shared ifscore.c $(pkg-config --cflags --libs libpcre2-8) -o ifscore.so) \
  >$dir/cc.log 2>&1
rc=$?
if [ $rc != 0 ] || [ -s $dir/cc.log ]; then
  echo "FAIL amalgamation: cc exited $rc and printed:"
  cat $dir/cc.log
  echo "amalgamation: 0 passed, 1 failed"
  exit 1
fi
echo "ok   amalgamation: cc -O2 -fPIC -shared ifscore.c ... built it, printing nothing"
exports=$(nm -D --defined-only $dir/ifscore.so | awk '{print $NF}' | tr '\n' ' ')
if [ "$exports" != "sqlite3_ifscore_init " ]; then
  echo "FAIL amalgamation: exports '$exports', want only sqlite3_ifscore_init"
  exit 1
fi
echo "ok   amalgamation: exports sqlite3_ifscore_init alone"
IFSCORE_LIB=$dir/ifscore sh tests/sql/run.sh "$SQLITE"
