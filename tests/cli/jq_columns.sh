#!/bin/sh
# SPDX-License-Identifier: MIT
# jq_columns.sh: the dump read with jq and nothing but the header's column
# names (docs/dump-format.md, "Columns": no row position is written down
# here) gives gcacc's numbers.  On the workload's leak dump (two kinds):
# live bytes per kind at the last collection with a census against `gcacc
# top --group class --json` summed per kind, their total against top's
# total and `gcacc timeline --json` at that collection, and allocations
# summed over every record against `gcacc summary --json`.  On the typed
# dump (every stack captured): the callsite and the type that allocated
# the most bytes over the session (their rows' alloc_bytes deltas summed)
# against `gcacc top --group site|type --by alloc --session --json`.  The
# same jq on a copy whose rows have a column inserted in front (the
# header naming it) gives the same answers.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump leak
d=$tmp/leak.gz

# Rows as objects keyed by the header's names; the last census.
named='def named($names): [$names, .] | transpose
         | map({key: .[0], value: .[1]}) | from_entries;
       def klabel: if . == 0 then "ptrfree" elif . == 1 then "normal"
         elif . == 2 then "uncollectable"
         elif . == 3 then "atomic-uncollectable" else "kind \(.)" end;'
per_kind="$named"'
  input.columns.classes as $cols
  | last(inputs | select(.record == "collection" and .census == 1))
  | {gc_no, kinds: ([.classes[] | named($cols)] | group_by(.kind)
      | map({kind: (.[0].kind | klabel),
             live_bytes: (map(.live_bytes) | add)}))}'
alloc="$named"'
  input.columns.classes as $cols
  | [inputs | select(.record == "collection" or .record == "snapshot")
     | .classes[]? | named($cols)]
  | {allocated_objs: (map(.alloc_objs) | add),
     allocated_req_bytes: (map(.alloc_req_bytes) | add),
     allocated_granted_bytes: (map(.alloc_granted_bytes) | add)}'

zcat "$d" | jq -c -n "$per_kind" >"$tmp/jq.json" ||
  { echo "FAIL: jq on the dump"; exit 1; }
gc=$(jq -r .gc_no "$tmp/jq.json")
nk=$(jq '.kinds | length' "$tmp/jq.json")
check_range "jq: kinds with live bytes" "$nk" 2 8
total=$(jq '[.kinds[].live_bytes] | add' "$tmp/jq.json")
check_range "jq: live bytes" "$total" 1 1000000000000

# top: the same collection, its total, and per kind the sum of its rows.
run "$GCACC" top --group class -n 0 --json "$d"
check_eq "top exit" "$rc" 0
cp "$tmp/out" "$tmp/top.json"
check_eq "top: gc_no" "$(jq -r '.at[0].gc_no' "$tmp/top.json")" "$gc"
check_eq "top: total live" "$(jq -r '.at[0].total_live_bytes' \
  "$tmp/top.json")" "$total"
check_eq "top: live bytes per kind" \
  "$(jq -c '[.top | group_by(.kind)[]
             | {kind: .[0].kind, live_bytes: (map(.live_bytes) | add)}]
            | map(select(.live_bytes > 0)) | sort_by(.kind)' \
     "$tmp/top.json")" \
  "$(jq -c '.kinds | map(select(.live_bytes > 0)) | sort_by(.kind)' \
     "$tmp/jq.json")"

# timeline: live bytes of that collection.
run "$GCACC" timeline --json "$d"
check_eq "timeline exit" "$rc" 0
check_eq "timeline: live at gc $gc" \
  "$(jq -r --argjson g "$gc" '.timeline[] | select(.gc_no == $g)
                               | .live_bytes' "$tmp/out")" "$total"

# summary: allocations over the session.
run "$GCACC" summary --json "$d"
check_eq "summary exit" "$rc" 0
zcat "$d" | jq -c -n "$alloc" >"$tmp/alloc.json"
for k in allocated_objs allocated_req_bytes allocated_granted_bytes; do
  check_eq "summary: $k" "$(jq -r ".summary[0].$k" "$tmp/out")" \
    "$(jq -r ".$k" "$tmp/alloc.json")"
done

# The callsite and the type allocating the most bytes: their rows are
# written when they change, alloc_bytes a delta, so summed over records.
make_dump typed
top_by_alloc='def named($names): [$names, .] | transpose
    | map({key: .[0], value: .[1]}) | from_entries;
  input.columns[$t] as $cols
  | [inputs | select(.record == "collection") | .[$t][]? | named($cols)]
  | group_by(.[$id])
  | map({id: .[0][$id], alloc_bytes: (map(.alloc_bytes) | add)})
  | sort_by(-.alloc_bytes, .id) | .[0] | "\(.id) \(.alloc_bytes)"'
for g in site type; do
  zcat "$tmp/typed.gz" | jq -r -n --arg t "${g}_rows" --arg id "${g}_id" \
    "$top_by_alloc" >"$tmp/jq_top" || { fail "jq: top $g"; continue; }
  check_range "jq: the $g allocating most, bytes" \
    "$(cut -d' ' -f2 "$tmp/jq_top")" 1 1000000000000
  run "$GCACC" top --group "$g" --by alloc --session -n 1 --json \
    "$tmp/typed.gz"
  check_eq "top --group $g exit" "$rc" 0
  check_eq "top: the $g allocating most" \
    "$(jq -r '.top[0] | "\(.id) \(.alloc_bytes)"' "$tmp/out")" \
    "$(cat "$tmp/jq_top")"
done

# Positions moved: a column in front of every classes row, named first in
# the header.  The program reads the same numbers.
zcat "$d" | jq -c 'if .record == "header"
                   then .columns.classes = ["x_front"] + .columns.classes
                   elif has("classes") then .classes |= map([-1] + .)
                   else . end' | gzip >"$tmp/front.gz"
check_eq "jq: columns moved" "$(zcat "$tmp/front.gz" | jq -c -n "$per_kind")" \
  "$(cat "$tmp/jq.json")"
check_eq "jq: allocations, columns moved" \
  "$(zcat "$tmp/front.gz" | jq -c -n "$alloc")" "$(cat "$tmp/alloc.json")"

finish
