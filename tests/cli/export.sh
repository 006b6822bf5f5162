#!/bin/sh
# SPDX-License-Identifier: MIT
# export.sh: `gcacc export`: the Chrome trace is valid JSON with one
# counter event per collection record, folded lines have the
# `stack value` shape and add up to the live bytes, CSV has a header and
# one line per row of the dump.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/fragload
need jq

# Exact tags, no stacks (full samples stacks unless told): folded lines
# by kind and size class, which add up exactly.
GC_ACC_PROFILE=full GC_ACC_STACKS=off GC_ACC_DUMP=$tmp/f.gz $LOAD frag > /dev/null || { echo "fragload failed"; exit 1; }
GC_ACC_PROFILE=full GC_ACC_STACKS=off GC_ACC_DUMP=$tmp/b.gz $LOAD b > /dev/null || { echo "fragload b failed"; exit 1; }
gzip -dc "$tmp/b.gz" > "$tmp/b.jsonl"

check "--help exits 0" $GCACC export --help > /dev/null
$GCACC export "$tmp/b.gz" > /dev/null 2> "$tmp/err"
check "no mode exits 2" test $? -eq 2
check "no mode message" grep -q "^gcacc export: error: " "$tmp/err"
$GCACC export --csv bogus "$tmp/b.gz" > /dev/null 2>&1
check "unknown csv table exits 2" test $? -eq 2

# Chrome trace.
$GCACC export --chrome-trace "$tmp/b.gz" > "$tmp/t.json"
check "trace exits 0" test $? -eq 0
check "trace is JSON" jq -e '.traceEvents | type == "array"' "$tmp/t.json" > /dev/null
ncoll=$(grep -c '"record":"collection"' "$tmp/b.jsonl")
nc=$(jq '[.traceEvents[] | select(.ph == "C")] | length' "$tmp/t.json")
check "one counter per collection ($nc = $ncoll)" test "$nc" -eq "$ncoll"
nx=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "mark")] | length' "$tmp/t.json")
check "one mark event per collection" test "$nx" -eq "$ncoll"
ng=$(jq -s '[.[] | .grows // [] | length] | add' "$tmp/b.jsonl")
ni=$(jq '[.traceEvents[] | select(.ph == "i")] | length' "$tmp/t.json")
check "one instant event per growth ($ni = $ng)" test "$ni" -eq "$ng"
lastlive=$(jq -s '[.[] | select(.record == "collection")] | last
  | [.classes[][3]] | add' "$tmp/b.jsonl")
check "counter live_bytes" test "$(jq '[.traceEvents[] | select(.ph == "C")]
  | last | .args.live_bytes' "$tmp/t.json")" -eq "$lastlive"
$GCACC export --chrome-trace "$tmp/f.gz" | jq -e . > /dev/null
check "frag trace is JSON" test $? -eq 0

# Folded stacks.
$GCACC export --folded "$tmp/b.gz" > "$tmp/folded"
check "folded exits 0" test $? -eq 0
check "folded not empty" test -s "$tmp/folded"
check "folded line shape" test "$(grep -cvE '^[^ ]+ [0-9]+$' "$tmp/folded")" -eq 0
sum=$(awk '{ s += $2 } END { print s }' "$tmp/folded")
check "folded sums to the last live bytes ($sum = $lastlive)" test "$sum" -eq "$lastlive"
check "folded 512-byte class" grep -q '^normal;512B ' "$tmp/folded"
$GCACC export --folded --bytes alloc "$tmp/b.gz" > "$tmp/folded2"
check "folded alloc line shape" test "$(grep -cvE '^[^ ]+ [0-9]+$' "$tmp/folded2")" -eq 0
alloc=$(jq -s '[.[] | .classes // [] | .[][8]] | add' "$tmp/b.jsonl")
check "folded alloc sums to the session's granted bytes" test \
  "$(awk '{ s += $2 } END { print s }' "$tmp/folded2")" -eq "$alloc"

# CSV.
gzip -dc "$tmp/f.gz" > "$tmp/f.jsonl"
for t in classes grows freelists; do
  case $t in
    classes) want=$(jq -s '[.[] | .classes // [] | length] | add' "$tmp/f.jsonl") ;;
    grows) want=$(jq -s '[.[] | .grows // [] | length] | add' "$tmp/f.jsonl") ;;
    freelists) want=$(jq -s '[.[] | .freelists.lists // [] | length] | add' "$tmp/f.jsonl") ;;
  esac
  $GCACC export --csv $t "$tmp/f.gz" > "$tmp/$t.csv"
  check "csv $t exits 0" test $? -eq 0
  check "csv $t header" grep -q '^gc_no,seq,' "$tmp/$t.csv"
  rows=$(($(wc -l < "$tmp/$t.csv") - 1))
  check "csv $t rows ($rows = $want)" test "$rows" -eq "$want"
done
check "csv grows has the forced growth" test "$(awk -F, \
  'NR > 1 && $4 > 0 && $6 >= $4 && $7 < $4' "$tmp/grows.csv" | wc -l)" -ge 1
finish -q
