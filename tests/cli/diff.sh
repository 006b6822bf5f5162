#!/bin/sh
# SPDX-License-Identifier: MIT
# diff.sh: `gcacc diff` on two runs of one workload (tests/cli/fragload.c
# a and b) where b keeps 3000 more 512-byte objects: that class ranks
# first with the expected change, and --threshold exits 1 below the
# change and 0 above it (bytes and percent).
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/fragload
need jq

GC_ACC_PROFILE=full GC_ACC_DUMP=$tmp/a.gz $LOAD a > /dev/null || { echo "fragload a failed"; exit 1; }
GC_ACC_PROFILE=full GC_ACC_DUMP=$tmp/b.gz $LOAD b > "$tmp/expect" || { echo "fragload b failed"; exit 1; }
cls=$(sed -n 's/^extra_class //p' "$tmp/expect")
extra=$(sed -n 's/^extra_live_bytes //p' "$tmp/expect")

check "--help exits 0" $GCACC diff --help > /dev/null
$GCACC diff "$tmp/a.gz" 2> "$tmp/err" > /dev/null
check "one dump exits 2" test $? -eq 2
check "usage hint" grep -q "^see 'gcacc diff --help'" "$tmp/err"
$GCACC diff --threshold x "$tmp/a.gz" "$tmp/b.gz" > /dev/null 2>&1
check "bad threshold exits 2" test $? -eq 2

$GCACC diff --json "$tmp/a.gz" "$tmp/b.gz" > "$tmp/d.json"
check "diff exits 0 without a threshold" test $? -eq 0
check "changed class first" test "$(jq -c '.classes[0] | [.kind, .class]' \
  "$tmp/d.json")" = "[1,$cls]"
ch=$(jq '.classes[0].live_change_bytes' "$tmp/d.json")
check "live change >= $extra ($ch)" test "$ch" -ge "$extra"
check "live change < $extra + 64 KiB ($ch)" test "$ch" -lt $((extra + 65536))
check "alloc change >= $extra" test "$(jq '.classes[0].alloc_change_bytes' \
  "$tmp/d.json")" -ge "$extra"
check "kind row normal first" test "$(jq '.kinds[0].kind' "$tmp/d.json")" -eq 1

$GCACC diff "$tmp/a.gz" "$tmp/b.gz" > "$tmp/table"
check "table fits 80 columns" test "$(awk 'length > 80' "$tmp/table" | wc -l)" -eq 0
check "table first class row" test "$(awk '/^Per size class/ { getline; getline;
  print $1, $2, $3, $8; exit }' "$tmp/table")" = "normal 512 B +1.5"

$GCACC diff --threshold $((extra / 2)) "$tmp/a.gz" "$tmp/b.gz" > /dev/null 2> "$tmp/err"
check "threshold below the change exits 1" test $? -eq 1
check "threshold message names the class" grep -q "normal 512 B" "$tmp/err"
$GCACC diff --threshold $((extra * 4)) "$tmp/a.gz" "$tmp/b.gz" > /dev/null
check "threshold above the change exits 0" test $? -eq 0
$GCACC diff --threshold 100% "$tmp/a.gz" "$tmp/b.gz" > /dev/null 2>&1
check "100% of a's live exits 1" test $? -eq 1
$GCACC diff --threshold 5000% "$tmp/a.gz" "$tmp/b.gz" > /dev/null
check "5000% of a's live exits 0" test $? -eq 0
$GCACC diff --threshold 1k "$tmp/a.gz" "$tmp/a.gz" > /dev/null
check "a dump against itself exits 0" test $? -eq 0
finish -q
