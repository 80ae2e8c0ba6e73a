#!/bin/sh
# tests/prefetch.sh OBJDIR — the cache prefetches are in the compiled code.
#
# A prefetch changes no value, so nothing else fails when the compiler drops
# one: GCC judged a function that only prefetched to have no effect and
# removed its calls, and the plan-key prefetch was gone from the library
# with every test passing.  This reads the objects' machine code: the
# evaluator's plan_ahead (the row's plan, kept by its text or its lists,
# asked for before the response is read) and prefetch_next (the next row's),
# ifs_needle_set_prefetch_bytes (the set's) and found_entry (a list
# found cold by either find: its needles' text) must each hold a prefetch
# instruction.
set -eu
dir=${1:-build/werror}
OBJDUMP=${OBJDUMP:-objdump}
for obj in ifs_eval.o ifs_needle_set.o ifs_list_cache.o; do
  [ -f "$dir/$obj" ] || { echo "prefetch: FAIL: $dir/$obj not found" >&2; exit 1; }
done
command -v "$OBJDUMP" >/dev/null ||
  { echo "prefetch: FAIL: $OBJDUMP not found (Debian: apt-get install binutils)" >&2; exit 1; }
case "$($OBJDUMP -f "$dir/ifs_eval.o" | sed -n 's/.*file format //p')" in
  elf64-x86-64) insn='prefetch' ;;
  elf64-littleaarch64) insn='prfm' ;;
  *) echo "prefetch: skipped (objects neither x86-64 nor arm64 ELF)"; exit 0 ;;
esac

# count_in OBJ FUNCTION: prefetch instructions in FUNCTION's code
count_in() {
  $OBJDUMP -d --no-show-raw-insn "$dir/$1" |
    awk -v fn="<$2>:" -v insn="$insn" '
      $2 == fn { inside = 1; next }
      inside && /^$/ { inside = 0 }
      inside && $2 ~ "^" insn { n++ }
      END { print n + 0 }'
}

fail=0
for pair in ifs_eval.o:plan_ahead ifs_eval.o:prefetch_next \
            ifs_needle_set.o:ifs_needle_set_prefetch_bytes ifs_list_cache.o:found_entry; do
  obj=${pair%%:*} fn=${pair#*:}
  n=$(count_in "$obj" "$fn")
  if [ "$n" -eq 0 ]; then
    echo "prefetch: FAIL: $fn ($obj) holds no $insn instruction" >&2
    fail=1
  else
    echo "prefetch: $fn holds $n $insn instruction(s)"
  fi
done
exit $fail
