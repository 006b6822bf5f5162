#!/bin/sh
# SPDX-License-Identifier: MIT
# frag.sh: `gcacc frag` on a planted pattern (tests/cli/fragload.c frag):
# the 16-block holes show up at free-list index 16 (count and bytes), the
# growth forced by a request larger than the largest free block is listed
# with free_bytes >= req_bytes, and table and JSON give the same numbers.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/fragload
need jq

GC_ACC_DUMP=$tmp/f.gz $LOAD frag > "$tmp/expect" || { echo "fragload failed"; exit 1; }
val() { sed -n "s/^$1 //p" "$tmp/expect"; }
before=$(val before_gc_no); after=$(val after_gc_no)
holes=$(val holes); hole=$(val hole_bytes); want=$(val want_bytes)
largest=$(val largest_free_bytes)

check "--help exits 0" $GCACC frag --help > /dev/null
$GCACC frag --bogus "$tmp/f.gz" 2> "$tmp/err" > /dev/null
check "bad option exits 2" test $? -eq 2
check "bad option message" grep -q "^gcacc frag: error: " "$tmp/err"
check "bad option hint" grep -q "^see 'gcacc frag --help'" "$tmp/err"
$GCACC frag --at 999999 "$tmp/f.gz" > /dev/null 2>&1
check "--at unknown gc_no exits 2" test $? -eq 2

$GCACC frag "$tmp/f.gz" > "$tmp/table"
check "frag exits 0" test $? -eq 0
check "table fits 80 columns" test "$(awk 'length > 80' "$tmp/table" | wc -l)" -eq 0
$GCACC frag --json "$tmp/f.gz" > "$tmp/all.json"
check "frag --json exits 0" test $? -eq 0
check "json keys" test "$(jq -c 'keys' "$tmp/all.json")" = \
  '["classes","collections","free_blocks","growth","growths_despite_free","kinds"]'

# The holes: index 16 gained exactly $holes blocks of 16 heap blocks.
blk() {        # blk GC_NO -> free blocks at index 16
  $GCACC frag --json --at "$1" "$tmp/f.gz" |
    jq '[.free_blocks[] | select(.fl_index == 16) | .blocks] | add // 0'
}
b0=$(blk "$before"); b1=$(blk "$after")
check "holes at index 16 ($b1 - $b0 = $holes)" test $((b1 - b0)) -eq "$holes"
$GCACC frag --json --at "$after" "$tmp/f.gz" > "$tmp/after.json"
by=$(jq '.free_blocks[] | select(.fl_index == 16) | .bytes' "$tmp/after.json")
check "index 16 bytes = blocks * hole size" test "$by" -eq $((b1 * hole))
check "index 16 labelled 16 blocks" test "$(jq -r \
  '.free_blocks[] | select(.fl_index == 16) | .size_blocks' \
  "$tmp/after.json")" = 16
check "largest free block" test "$(jq '.collections[0].largest_free_bytes' \
  "$tmp/after.json")" -eq "$largest"

# The growth although free_bytes >= req_bytes.
n=$(jq --argjson w "$want" --argjson l "$largest" '[.growths_despite_free[]
  | select(.req_bytes >= $w and .free_bytes >= .req_bytes
           and .largest_free_bytes == $l and .fits == "no")] | length' \
  "$tmp/all.json")
check "growth event listed ($n)" test "$n" -eq 1
check "growth summary counts it" test "$(jq \
  '.growth[0].growths_despite_free_fragmented' "$tmp/all.json")" -ge 1
check "largest request >= want" test "$(jq \
  '.growth[0].largest_request_bytes' "$tmp/all.json")" -ge "$want"

# Table and JSON agree: the index-16 row of the post-drop collection.
tb=$($GCACC frag --at "$after" "$tmp/f.gz" |
  awk '$1 == "'"$after"'" && $2 == 16 { print $6 }')
check "table shows the JSON's block count ($tb = $b1)" test "$tb" = "$b1"
check "table lists the growth" grep -q "^Growths although" "$tmp/table"
finish -q
