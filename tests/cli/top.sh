#!/bin/sh
# SPDX-License-Identifier: MIT
# top.sh: `gcacc top` on the workload's dumps (tests/cli/workload.c): the
# leaking (kind, class) ranks first at the last collection with exactly
# the objects the workload keeps; --at, --peak and --session against the
# dump's own numbers; CSV and JSON agreeing; usage errors; a truncated dump.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump leak
d=$tmp/leak.gz
kept=$(val leak kept_objs)
cb=$(val leak leak_class_bytes)
cls=$(val leak leak_class)
label=$(size_label "$cb")
last=$(val leak gc_no)

# The last collection (the default), by live bytes.
run "$GCACC" top --by live --json "$d"
check_eq "top exit" "$rc" 0
cp "$tmp/out" "$tmp/top.json"
check_eq "at: mode" "$(jq -r '.at[0].mode' "$tmp/top.json")" last
check_eq "at: gc_no" "$(jq -r '.at[0].gc_no' "$tmp/top.json")" "$last"
check_eq "first: kind" "$(jq -r '.top[0].kind' "$tmp/top.json")" normal
check_eq "first: class" "$(jq -r '.top[0].class' "$tmp/top.json")" "$label"
# Exactly what the workload keeps (a few stale stack words could keep a
# dropped object or two).
objs=$(jq -r '.top[0].live_objs' "$tmp/top.json")
check_range "first: live_objs" "$objs" "$kept" $((kept + 8))
check_eq "first: live_bytes" "$(jq -r '.top[0].live_bytes' "$tmp/top.json")" \
  $((objs * cb))
nrows=$(zcat "$d" | tail -1 | jq '.classes | length')
[ "$nrows" -gt 10 ] && nrows=10
check_eq "rows (default -n 10)" "$(jq '.top | length' "$tmp/top.json")" \
  "$nrows"
# Against the dump's last record: the class's row, the share.
zcat "$d" | tail -1 >"$tmp/last.json"
check_eq "first: reserved_bytes" \
  "$(jq -r '.top[0].reserved_bytes' "$tmp/top.json")" \
  "$(jq -r ".classes[] | select(.[0] == 1 and .[1] == $cls) | .[4]" \
     "$tmp/last.json")"
total=$(jq '[.classes[][3]] | add' "$tmp/last.json")
check_eq "first: share" \
  "$(jq -r '.top[0].share * 1000000 | round' "$tmp/top.json")" \
  "$(awk -v a=$((objs * cb)) -v t="$total" \
     'BEGIN { printf "%d\n", a / t * 1000000 + 0.5 }')"
# Sorted by live bytes, descending.
ok
jq -e '[.top[].live_bytes] | . == (sort | reverse)' "$tmp/top.json" \
  >/dev/null || fail "not sorted by live_bytes"

# --at the last gc_no is the same view; the table fits 80 columns.
run "$GCACC" top --at "$last" --json "$d"
check_eq "--at: same rows" "$(jq -c .top "$tmp/out")" \
  "$(jq -c .top "$tmp/top.json")"
run "$GCACC" top "$d"
check_width "top table" "$tmp/out"
check_grep "top table title" "$tmp/out" "at gc $last"
# CSV and JSON: the same numbers.
run "$GCACC" top --csv -n 0 "$d"
tail -n +2 "$tmp/out" | cut -d, -f3-7 >"$tmp/c.csv"
run "$GCACC" top --json -n 0 "$d"
jq -r '.top[] | [.live_objs, .live_bytes, .reserved_bytes, .alloc_objs,
  .alloc_bytes] | map(tostring) | join(",")' "$tmp/out" >"$tmp/j.csv"
ok
cmp -s "$tmp/c.csv" "$tmp/j.csv" || fail "top: csv and json differ"
check_eq "-n 0: every row" "$(wc -l <"$tmp/c.csv")" \
  "$(jq '.classes | length' "$tmp/last.json")"
check_eq "-n 0: shares add up" \
  "$(jq '[.top[].share] | add * 1000 | round' "$tmp/out")" 1000
run "$GCACC" top -n 2 --csv "$d"
check_eq "-n 2" "$(($(wc -l <"$tmp/out") - 1))" 2

# --by count: live objects.  The 32-byte nodes are many but short-lived;
# the kept objects still lead.
run "$GCACC" top --by count --json "$d"
ok
jq -e '[.top[].live_objs] | . == (sort | reverse)' "$tmp/out" >/dev/null \
  || fail "--by count: not sorted by live_objs"

# --peak: the collection with the most live bytes, from the dump (the
# first of equals).
peak=$(zcat "$d" | jq -s -r '[.[] | select(.record == "collection"
  and .census == 1) | {g: .gc_no, l: ([.classes[][3]] | add // 0)}]
  | (map(.l) | max) as $m | map(select(.l == $m)) | .[0].g')
run "$GCACC" top --peak --json "$d"
check_eq "--peak: exit" "$rc" 0
check_eq "--peak: gc_no" "$(jq -r '.at[0].gc_no' "$tmp/out")" "$peak"

# --session --by alloc: allocations summed over every record.  The
# workload allocates 30 ring + 25 leaked objects per frame, 200 frames.
run "$GCACC" top --session --by alloc --json -n 0 "$d"
check_eq "--session: exit" "$rc" 0
cp "$tmp/out" "$tmp/sess.json"
row=".top[] | select(.kind == \"normal\" and .class == \"$label\")"
check_eq "--session: alloc_objs" "$(jq -r "$row | .alloc_objs" \
  "$tmp/sess.json")" 11000
check_eq "--session: alloc_bytes" "$(jq -r "$row | .alloc_bytes" \
  "$tmp/sess.json")" "$(zcat "$d" | jq -s "[.[] | .classes // [] | .[]
    | select(.[0] == 1 and .[1] == $cls) | .[8]] | add")"
check_eq "--session: live is the maximum" "$(jq -r "$row | .live_objs" \
  "$tmp/sess.json")" "$(zcat "$d" | jq -s "[.[] | .classes // [] | .[]
    | select(.[0] == 1 and .[1] == $cls) | .[2]] | max")"
ok
jq -e '[.top[].alloc_bytes] | . == (sort | reverse)' "$tmp/sess.json" \
  >/dev/null || fail "--session --by alloc: not sorted"

# Usage errors.
check_usage top
run "$GCACC" top --by size "$d"
check_eq "bad sort key: exit" "$rc" 2
check_eq "bad sort key: message" "$(cat "$tmp/err")" \
  "gcacc top: error: unknown sort key 'size'; expected live, alloc or count
see 'gcacc top --help'"
check_eq "bad sort key: stdout" "$(wc -c <"$tmp/out")" 0
run "$GCACC" top --peak --session "$d"
check_eq "two modes: exit" "$rc" 2
run "$GCACC" top -n many "$d"
check_eq "-n many: exit" "$rc" 2
run "$GCACC" top --at 999999 "$d"
check_eq "--at missing gc: exit" "$rc" 2
check_grep "--at missing gc: message" "$tmp/err" "no collection 999999"

# A truncated dump: still a view (of its last whole collection), warned.
truncate_dump leak 60
run "$GCACC" top --json "$tmp/leak-cut.gz"
check_eq "truncated: exit" "$rc" 0
check_grep "truncated: warning" "$tmp/err" "gcacc top: warning:"
check_eq "truncated: first" "$(jq -r '.top[0].kind + " " + .top[0].class' \
  "$tmp/out")" "normal $label"
check_range "truncated: gc_no" "$(jq -r '.at[0].gc_no' "$tmp/out")" 1 \
  $((last - 1))

finish
