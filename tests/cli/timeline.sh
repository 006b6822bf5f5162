#!/bin/sh
# SPDX-License-Identifier: MIT
# timeline.sh: `gcacc timeline` on the workload's dumps (tests/cli/
# workload.c): one row per collection record with the dump's own numbers,
# CSV and JSON agreeing, the table within 80 columns, snapshots' allocations
# folded into the next row, --frames, usage errors, a truncated dump.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump leak
d=$tmp/leak.gz
ncoll=$(zcat "$d" | grep -c '"record":"collection"')
nsnap=$(zcat "$d" | grep -c '"record":"snapshot"')
check_range "collections in the dump" "$ncoll" 50 100000
check_range "snapshots in the dump" "$nsnap" 20 20

# One row per collection record, in every format.
run "$GCACC" timeline --no-progress --csv "$d"
check_eq "timeline --csv exit" "$rc" 0
cp "$tmp/out" "$tmp/tl.csv"
hdr="gc_no,t_ns,heap_bytes,live_bytes,reserved_bytes,free_bytes"
hdr="$hdr,unmapped_bytes,frag_index,pause_ns,alloc_bytes"
check_eq "csv header" "$(head -1 "$tmp/tl.csv")" "$hdr"
check_eq "csv rows" "$(($(wc -l <"$tmp/tl.csv") - 1))" "$ncoll"
run "$GCACC" timeline --json "$d"
check_eq "timeline --json exit" "$rc" 0
cp "$tmp/out" "$tmp/tl.json"
check_eq "json rows" "$(jq '.timeline | length' "$tmp/tl.json")" "$ncoll"
run "$GCACC" timeline "$d"
check_eq "timeline exit" "$rc" 0
cp "$tmp/out" "$tmp/tl.txt"
check_eq "table rows" "$(($(wc -l <"$tmp/tl.txt") - 1))" "$ncoll"
check_width "timeline table" "$tmp/tl.txt"
check_eq "timeline stderr" "$(wc -c <"$tmp/err")" 0

# CSV and JSON carry the same numbers, every column.
jq -r '.timeline[] | [.gc_no, .t_ns, .heap_bytes, .live_bytes,
  .reserved_bytes, .free_bytes, .unmapped_bytes, .frag_index, .pause_ns,
  .alloc_bytes] | map(tostring) | join(",")' "$tmp/tl.json" >"$tmp/j.csv"
tail -n +2 "$tmp/tl.csv" >"$tmp/c.csv"
ok
cmp -s "$tmp/j.csv" "$tmp/c.csv" || {
  fail "csv and json differ"; diff "$tmp/c.csv" "$tmp/j.csv" | head; }

# The dump's own numbers: gc_no, heap, live (sum of the classes), reserved,
# free, unmapped, pause (mark_ns).
zcat "$d" | jq -r 'select(.record == "collection") | [.gc_no,
  .heap.heap_bytes, ([.classes[][3]] | add // 0),
  ([.classes[][4]] | add // 0), .heap.free_bytes, .heap.unmapped_bytes,
  .mark_ns] | map(tostring) | join(",")' >"$tmp/ref.csv"
awk -F, '{ print $1 "," $3 "," $4 "," $5 "," $6 "," $7 "," $9 }' \
  "$tmp/c.csv" >"$tmp/got.csv"
ok
cmp -s "$tmp/ref.csv" "$tmp/got.csv" || {
  fail "timeline differs from the dump"; diff "$tmp/ref.csv" "$tmp/got.csv" \
  | head; }
# Every granted byte of every record (snapshots included) is in some row:
# the dump ends with a collection.
ref=$(zcat "$d" | jq -s '[.[] | select(.record != "header") | .classes[][8]]
  | add')
got=$(awk -F, '{ s += $10 } END { printf "%d\n", s }' "$tmp/c.csv")
check_eq "alloc_bytes summed" "$got" "$ref"
# Known answer: the last row is the workload's last collection, with its
# kept 1000-byte objects live (and a little more).
kept=$(val leak kept_objs)
cb=$(val leak leak_class_bytes)
check_eq "last gc_no" "$(tail -1 "$tmp/c.csv" | cut -d, -f1)" \
  "$(val leak gc_no)"
check_range "last live_bytes" "$(tail -1 "$tmp/c.csv" | cut -d, -f4)" \
  $((kept * cb)) $((kept * cb + 4 * 1024 * 1024))
# Time runs forward from the session's start.
ok
awk -F, 'NR > 1 && $2 < prev { exit 1 } { prev = $2 }' "$tmp/c.csv" \
  || fail "t_ns goes backwards"

# --frames: the leak workload writes none.
run "$GCACC" timeline --frames "$d"
check_eq "--frames without frames: exit" "$rc" 2
check_grep "--frames message" "$tmp/err" "this dump has no frame records"
# ... and a dump that has them lists them.
{ zcat "$d"
  echo '{"record":"frame","frame":1000,"gc_no":3,"t_ns":5,"rows":[[1,2,3,48],[0,0,2,64]],"lost_objs":1,"lost_bytes":16}'
  echo '{"record":"frame","frame":1001,"gc_no":3,"t_ns":6,"rows":[],"lost_objs":0,"lost_bytes":0}'; } | gzip >"$tmp/frames.gz"
run "$GCACC" timeline --frames --csv "$tmp/frames.gz"
check_eq "--frames exit" "$rc" 0
check_eq "--frames rows" "$(tail -n +2 "$tmp/out" | cut -d, -f1,2,4- \
  | tr '\n' ' ')" "1000,3,5,112,1,16 1001,3,0,0,0,0 "

check_usage timeline
run "$GCACC" timeline -o "$tmp/o.csv" --csv "$d"
check_eq "-o exit" "$rc" 0
check_eq "-o file" "$(wc -l <"$tmp/o.csv")" "$((ncoll + 1))"
check_eq "-o stdout" "$(wc -c <"$tmp/out")" 0

# A truncated dump: the whole records before the cut, and a warning.
truncate_dump leak 50
run "$GCACC" timeline --csv "$tmp/leak-cut.gz"
check_eq "truncated: exit" "$rc" 0
check_grep "truncated: warning" "$tmp/err" "gcacc timeline: warning:"
check_range "truncated: rows" "$(($(wc -l <"$tmp/out") - 1))" 1 \
  $((ncoll - 1))
check_eq "truncated: a prefix" \
  "$(head -5 "$tmp/out" | cut -d, -f1,3,4)" \
  "$(head -5 "$tmp/tl.csv" | cut -d, -f1,3,4)"

finish
