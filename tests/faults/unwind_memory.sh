#!/bin/sh
# SPDX-License-Identifier: MIT
# unwind_memory.sh: the unwinder's own OS memory is counted in the
# accounting's memory (acc_memory.unwind_bytes, in acc_memory_bytes), and
# its walks are in the records (unwind.walks, unwind.fell_back).
# tests/unit/test_nofp's `alloc` mode (x86-64 glibc 2.35+, else it skips)
# takes sampled stacks:
#  - under auto, by the cached unwind rules (unwind_cfi.c's 32 KiB rule
#    table, mapped at the first such stack, and the loaded modules' code
#    list): the records count walks, and unwind_bytes is larger than
#  - under GC_ACC_UNWIND=fp, by the frame-pointer walk: no rule table, no
#    walks by the rules, but the code list (its stopping rule), counted.
# In both, every record's acc_memory_bytes is the sum of acc_memory's
# parts.  Before unwind_bytes, the 32 KiB table and the code list were
# OS memory of ours that no figure showed.
set -u
prog=./tests/unit/test_nofp
me=unwind_memory.sh
command -v jq > /dev/null || { echo "SKIP: no jq"; exit 77; }
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-unwmem.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { fails=$((fails + 1)); echo "FAIL: $*"; }

# run NAME ENV...: test_nofp alloc under ENV; prints, from its dump's
# records: the largest unwind_bytes (-1: a record without it), the last
# record's unwind.walks and unwind.fell_back (0 when absent), and how
# many records' acc_memory_bytes is not the sum of acc_memory's parts.
run() {
  name=$1; shift
  env -u GC_ACC_UNWIND GC_ACC_PROFILE=sampled=4096 \
    GC_ACC_DUMP="$tmp/$name.gz" "$@" "$prog" alloc > "$tmp/out" 2>&1
  rc=$?
  [ "$rc" -eq 77 ] && { cat "$tmp/out"; exit 77; }
  [ "$rc" -eq 0 ] || { cat "$tmp/out"; echo "FAIL: $name: exit $rc"; exit 1; }
  gzip -dc "$tmp/$name.gz" | jq -s -r '
    [.[] | select(.acc_memory_bytes != null)] as $r
    | if ($r | length) == 0 then "none"
      else "\([$r[] | .acc_memory.unwind_bytes // -1] | max)"
        + " \($r[-1].unwind.walks // 0) \($r[-1].unwind.fell_back // 0)"
        + " \([$r[] | .acc_memory as $m
               | select(.acc_memory_bytes != ([$m | to_entries[]
                          | select(.key != "tags_in_use_bytes") | .value]
                        | add))] | length)" end'
}

set -- $(run auto)
[ "$1" = none ] && { echo "FAIL: auto: no record with acc_memory"; exit 1; }
a_bytes=$1 a_walks=$2 a_falls=$3 a_bad=$4
set -- $(run fp GC_ACC_UNWIND=fp)
[ "$1" = none ] && { echo "FAIL: fp: no record with acc_memory"; exit 1; }
f_bytes=$1 f_walks=$2 f_bad=$4
echo "$me: auto: unwind_bytes $a_bytes, walks $a_walks, fell back $a_falls;" \
     "fp: unwind_bytes $f_bytes, walks $f_walks"

[ "$a_bytes" -ge 0 ] || fail "auto: records without acc_memory.unwind_bytes"
[ "$f_bytes" -ge 0 ] || fail "fp: records without acc_memory.unwind_bytes"
[ "$a_walks" -gt 0 ] ||
  fail "auto: no walks by the cached rules in the records (unwind.walks)"
[ "$a_falls" -le "$a_walks" ] ||
  fail "auto: more walks fell back ($a_falls) than were made ($a_walks)"
[ "$f_walks" -eq 0 ] || fail "fp: $f_walks walks by the cached rules"
[ "$f_bytes" -gt 0 ] ||
  fail "fp: stacks taken by the frame-pointer walk, its code list not counted"
[ "$a_bytes" -gt "$f_bytes" ] ||
  fail "auto: unwind_bytes $a_bytes not above fp's $f_bytes (the rule table)"
[ "$a_bad" -eq 0 ] ||
  fail "auto: $a_bad records' acc_memory_bytes is not the sum of the parts"
[ "$f_bad" -eq 0 ] ||
  fail "fp: $f_bad records' acc_memory_bytes is not the sum of the parts"
[ "$fails" -eq 0 ]
