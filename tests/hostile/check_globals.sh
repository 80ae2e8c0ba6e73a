#!/bin/sh
# check_globals.sh — "no global mutable state": lists the objects (data
# symbols) that the extension's object files place in writable sections
# (.data, .bss, common) and fails on any but sqlite3_api, the pointer that
# SQLITE_EXTENSION_INIT1 requires (written once per load, with the same
# value).  Read-only data, .rodata and .data.rel.ro (RELRO), is fine.
#
#   sh tests/hostile/check_globals.sh build/obj/*.o
status=0
for o in "$@"; do
  found=$(objdump -t "$o" | awk '
    $3 == "O" || $2 == "O" {
      sec = ""
      for (i = 1; i <= NF; i++) if ($i ~ /^(\.data|\.bss|\*COM\*)/) sec = $i
      if (sec == "" || sec ~ /^\.data\.rel\.ro/) next
      name = $NF
      if (name != "sqlite3_api") print sec " " name
    }')
  if [ -n "$found" ]; then
    echo "FAIL $o has writable globals:"
    echo "$found" | sed 's/^/    /'
    status=1
  fi
done
[ $status = 0 ] && echo "ok   no writable globals in $# objects (sqlite3_api aside)"
exit $status
