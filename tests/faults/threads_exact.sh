#!/bin/sh
# SPDX-License-Identifier: MIT
# threads_exact.sh: records' allocation deltas never wrap, and add up.
#
# Runs tests/faults/threads8 (eight threads allocating through the
# thread-local, global, large, uncollectable, gcj and GC_malloc_many
# paths while the main thread collects and snapshots) RUNS times with a
# dump open.  In every dump: no delta of any class row (alloc_objs,
# alloc_req_bytes, alloc_granted_bytes) nor of allocd_since_prev_bytes is
# a wrapped difference (2^63 or more); the deltas summed over all records
# equal the collector's own cumulative counts read after the last
# record; the per-kind sums are at least what the program allocated.
# Columns are found through the header's names.  Before the fix about
# one dump in four held a class row whose alloc_req_bytes delta was
# 2^64 - 8.
set -eu
: "${RUNS:=12}"
prog=tests/faults/threads8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
i=0
while [ "$i" -lt "$RUNS" ]; do
  i=$((i + 1))
  "$prog" "$tmp/d.gz" > "$tmp/out" || { echo "FAIL: run $i: threads8 exited $?" >&2; fails=$((fails + 1)); continue; }
  zcat "$tmp/d.gz" 2>/dev/null | jq -s -r '
    (.[0].columns.classes) as $c
    | ($c | index("kind")) as $k
    | ($c | index("alloc_objs")) as $o
    | ($c | index("alloc_req_bytes")) as $r
    | ($c | index("alloc_granted_bytes")) as $g
    | [.[1:][] | select(.record == "collection" or .record == "snapshot")] as $recs
    | ([$recs[] | .classes[] | select(.[$o] >= 9.2e18 or .[$r] >= 9.2e18 or .[$g] >= 9.2e18)] | length) as $wrapped
    | ([$recs[] | select(.heap.allocd_since_prev_bytes >= 9.2e18)] | length) as $wrapped_heap
    | "wrapped \($wrapped + $wrapped_heap)",
      "sum_objs \([$recs[] | .classes[] | .[$o]] | add)",
      "sum_req \([$recs[] | .classes[] | .[$r]] | add)",
      "sum_granted \([$recs[] | .classes[] | .[$g]] | add)",
      (["ptrfree", "normal", "uncollectable", "uncollectable-atomic", "gcj"] as $names
       | [$recs[] | .classes[]] | group_by(.[$k])[]
       | "kind_objs \(.[0][$k]) \(map(.[$o]) | add)")' > "$tmp/dump" || {
    echo "FAIL: run $i: the dump does not read" >&2; fails=$((fails + 1)); continue; }
  get() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
  w=$(get wrapped "$tmp/dump")
  if [ "$w" != 0 ]; then
    echo "FAIL: run $i: $w record rows hold a wrapped (negative) delta" >&2
    fails=$((fails + 1))
  fi
  for f in objs req granted; do
    s=$(get "sum_$f" "$tmp/dump"); a=$(get "acc_$f" "$tmp/out")
    if [ "$s" != "$a" ]; then
      echo "FAIL: run $i: the records' $f deltas sum to $s, the collector counted $a" >&2
      fails=$((fails + 1))
    fi
  done
  # Kinds 0 ptrfree, 1 normal, 2 uncollectable; gcj is the first kind
  # made at run time: the program's own counts are a floor (the
  # collector's and the threads' own allocations add to them).
  for pair in "0 ptrfree" "1 normal" "2 uncollectable"; do
    set -- $pair
    s=$(awk -v k="$1" '$1 == "kind_objs" && $2 == k {print $3}' "$tmp/dump")
    p=$(awk -v k="$2" '$1 == "objs" && $2 == k {print $3}' "$tmp/out")
    if [ "${s:-0}" -lt "$p" ]; then
      echo "FAIL: run $i: kind $2: the records count ${s:-0} objects, the program made $p" >&2
      fails=$((fails + 1))
    fi
  done
done
[ "$fails" -eq 0 ] && echo "threads_exact: $RUNS dumps of 8 allocating threads, no wrapped delta, deltas sum to the collector's totals"
exit "$fails"
