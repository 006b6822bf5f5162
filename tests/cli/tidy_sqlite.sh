#!/bin/sh
# SPDX-License-Identifier: MIT
# tidy_sqlite.sh: `gcacc export --csv TABLE` loads into sqlite3 (Debian's
# client, not ours) and SQL over it gives gcacc's own answers; `--jsonl`
# gives the same rows with jq.  On the workload's typed dump (two kinds,
# three types, three callsites, frame records):
#   - live bytes per kind at the last collection with a census (records
#     and classes joined) = `gcacc top --group class --json`, per kind;
#   - allocated granted bytes over the session = `gcacc summary --json`;
#   - the top callsite and type by allocated bytes (rows summed: they are
#     deltas) = `gcacc top --group site|type --by alloc --session --json`;
#   - live bytes per type at the last collection (each type's last row)
#     = `gcacc top --group type --json`;
#   - bytes allocated in frames = `gcacc timeline --frames --json`.
# Every table has one header line naming the header's columns and one
# line per row of the dump (counted with jq); a dump whose header moved
# the columns exports the same; bad tables and options exit 2 with a
# message.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"
need sqlite3 "sqlite3 not installed (tools/setup-debian.sh installs it)"

# Exact figures (the workload's typed mode runs the trace profile):
# every frame has rows.
make_dump typed
d=$tmp/typed.gz
zcat "$d" >"$tmp/typed.jsonl"

for t in records classes kinds grows freelists types sites frames; do
  run "$GCACC" export --csv "$t" "$d"
  check_eq "csv $t: exit" "$rc" 0
  cp "$tmp/out" "$tmp/$t.csv"
  run "$GCACC" export --jsonl "$t" "$d"
  check_eq "jsonl $t: exit" "$rc" 0
  cp "$tmp/out" "$tmp/$t.jsonl"
done

# Rows: one per row of the dump; header lines: the header's names.
rows() {  # rows KEY-PATH RECORD-SELECTOR
  jq -n "[inputs | select($2) | ($1 // []) | length] | add // 0" \
    "$tmp/typed.jsonl"
}
coll='.record == "collection" or .record == "snapshot"'
for spec in "records:[1]:$coll" "classes:.classes:$coll" \
            "kinds:.kinds:$coll" "grows:.grows:$coll" \
            "freelists:.freelists.lists:$coll" \
            "types:.type_rows:$coll" "sites:.site_rows:$coll" \
            "frames:.rows:.record == \"frame\""; do
  t=${spec%%:*} rest=${spec#*:}
  want=$(rows "${rest%%:*}" "${rest#*:}")
  check_eq "csv $t: rows" "$(($(wc -l <"$tmp/$t.csv") - 1))" "$want"
  check_eq "jsonl $t: rows" "$(wc -l <"$tmp/$t.jsonl" | tr -d ' ')" "$want"
done
check_range "the dump has site rows" "$(($(wc -l <"$tmp/sites.csv") - 1))" \
  1 1000000
hcols() {  # hcols KEY: the header's column names, comma-joined
  head -1 "$tmp/typed.jsonl" | jq -r --arg k "$1" '.columns[$k] | join(",")'
}
check_eq "csv classes: header line" "$(head -1 "$tmp/classes.csv")" \
  "gc_no,seq,$(hcols classes)"
check_eq "csv sites: header line" "$(head -1 "$tmp/sites.csv")" \
  "gc_no,seq,$(hcols site_rows),stack,estimated"
check_eq "csv frames: header line" "$(head -1 "$tmp/frames.csv")" \
  "frame,gc_no,t_ns,$(hcols frame.rows),type,estimated"
check_eq "jsonl types: names" \
  "$(head -1 "$tmp/types.jsonl" | jq -r 'keys_unsorted | join(",")')" \
  "gc_no,seq,$(hcols type_rows),cookie,name,estimated"

# Into sqlite3.  .import makes TEXT columns from the header line: the
# queries cast, as anyone importing a CSV does.
db=$tmp/dump.db
for t in records classes types sites frames; do
  sqlite3 "$db" ".import --csv $tmp/$t.csv $t" ||
    { fail "sqlite3 .import $t"; finish; }
done
q() { sqlite3 -separator ' ' "$db" "$1"; }

last=$(q "SELECT MAX(CAST(seq AS INTEGER)) FROM records
          WHERE record = 'collection' AND CAST(census AS INTEGER) = 1")
check_range "sql: last census record" "$last" 1 1000000
q "SELECT CASE CAST(kind AS INTEGER) WHEN 0 THEN 'ptrfree'
         WHEN 1 THEN 'normal' WHEN 2 THEN 'uncollectable'
         WHEN 3 THEN 'atomic-uncollectable' ELSE 'kind ' || kind END,
       SUM(CAST(live_bytes AS INTEGER))
     FROM classes WHERE CAST(seq AS INTEGER) = $last
     GROUP BY kind HAVING SUM(CAST(live_bytes AS INTEGER)) > 0
     ORDER BY 1" >"$tmp/sql_kinds"
check_range "sql: kinds with live bytes" "$(wc -l <"$tmp/sql_kinds")" 2 8
run "$GCACC" top --group class -n 0 --json "$d"
check_eq "top --group class: exit" "$rc" 0
jq -r '[.top[] | {kind, live_bytes}] | group_by(.kind)[]
       | [.[0].kind, (map(.live_bytes) | add)] | select(.[1] > 0)
       | "\(.[0]) \(.[1])"' "$tmp/out" | sort >"$tmp/top_kinds"
check_eq "sql = top: live bytes per kind at the last collection" \
  "$(cat "$tmp/sql_kinds")" "$(cat "$tmp/top_kinds")"
check_eq "sql = top: that collection" \
  "$(q "SELECT gc_no FROM records WHERE CAST(seq AS INTEGER) = $last")" \
  "$(jq -r '.at[0].gc_no' "$tmp/out")"

run "$GCACC" summary --json "$d"
check_eq "summary: exit" "$rc" 0
check_eq "sql = summary: granted bytes allocated" \
  "$(q "SELECT SUM(CAST(alloc_granted_bytes AS INTEGER)) FROM classes")" \
  "$(jq -r '.summary[0].allocated_granted_bytes' "$tmp/out")"
check_eq "sql = summary: collections" \
  "$(q "SELECT COUNT(*) FROM records WHERE record = 'collection'")" \
  "$(jq -r '.summary[0].collections' "$tmp/out")"

# Top callsite and type by bytes allocated over the session.
for g in site type; do
  tbl=${g}s
  q "SELECT ${g}_id, SUM(CAST(alloc_bytes AS INTEGER)) AS a FROM $tbl
     GROUP BY ${g}_id ORDER BY a DESC, CAST(${g}_id AS INTEGER) LIMIT 1" \
    >"$tmp/sql_top"
  run "$GCACC" top --group "$g" --by alloc --session -n 1 --json "$d"
  check_eq "top --group $g: exit" "$rc" 0
  check_eq "sql = top: the $g allocating most" "$(cat "$tmp/sql_top")" \
    "$(jq -r '.top[0] | "\(.id) \(.alloc_bytes)"' "$tmp/out")"
  # jq over --jsonl: the same answer from the named fields.
  check_eq "jsonl = top: the $g allocating most" \
    "$(jq -rs --arg k "${g}_id" 'group_by(.[$k])
        | map({id: .[0][$k], a: (map(.alloc_bytes) | add)})
        | sort_by(-.a, .id) | .[0] | "\(.id) \(.a)"' "$tmp/$tbl.jsonl")" \
    "$(cat "$tmp/sql_top")"
  [ "$g" = site ] || continue
  check_eq "sql = top: the top callsite's stack" \
    "$(q "SELECT stack FROM sites
          WHERE site_id = '$(cut -d' ' -f1 "$tmp/sql_top")' LIMIT 1")" \
    "$(jq -r '.top[0].stack' "$tmp/out")"
done

# Live bytes per type at the last collection: each type's last row.
q "SELECT name, live_bytes FROM types t
   WHERE CAST(seq AS INTEGER) = (SELECT MAX(CAST(seq AS INTEGER)) FROM types
                                 WHERE type_id = t.type_id)
     AND CAST(live_bytes AS INTEGER) > 0 ORDER BY name" >"$tmp/sql_types"
run "$GCACC" top --group type -n 0 --json "$d"
check_eq "sql = top: live bytes per type" "$(cat "$tmp/sql_types")" \
  "$(jq -r '.top[] | select(.live_bytes > 0) | "\(.type) \(.live_bytes)"' \
     "$tmp/out" | sort)"
check_range "sql: types live at the end" "$(wc -l <"$tmp/sql_types")" 2 3

# Frames: bytes per frame summed = timeline --frames.
run "$GCACC" timeline --frames --json "$d"
check_eq "sql = timeline --frames: bytes in frames" \
  "$(q "SELECT SUM(CAST(bytes AS INTEGER)) FROM frames")" \
  "$(jq '[.frames[].bytes] | add' "$tmp/out")"
check_eq "sql = timeline --frames: frames that allocated" \
  "$(q "SELECT COUNT(DISTINCT frame) FROM frames")" \
  "$(jq '[.frames[] | select(.objs > 0)] | length' "$tmp/out")"
check_eq "csv: estimated is 0 in an exact dump" \
  "$(q "SELECT DISTINCT estimated FROM sites")" 0
# The sampled profile (the default; a sample per 4 KiB here, so that
# this short run has many): its type and callsite rows are estimates,
# and say so.
GC_ACC_PROFILE=sampled=4096 GC_ACC_DUMP="$tmp/sampled.gz" \
  ./tests/browser/longload 300 1 >/dev/null || fail "longload, sampled"
run "$GCACC" export --csv sites "$tmp/sampled.gz"
check_range "csv: a sampled dump's callsite rows" \
  "$(($(wc -l <"$tmp/out") - 1))" 10 100000
sqlite3 "$db" ".import --csv $tmp/out sampled" || fail "sqlite3 .import"
check_eq "csv: estimated is 1 in a sampled dump" \
  "$(q "SELECT DISTINCT estimated FROM sampled")" 1

# Columns moved: the header names one more in front of every row of
# classes, type, site and frame rows (a newer writer's order); each
# table exports exactly as before, every column found by its name.
zcat "$d" | jq -c '
  def front: map([7] + .);
  if .record == "header" then
    .columns |= with_entries(if .key == "classes" or .key == "type_rows"
      or .key == "site_rows" or .key == "frame.rows"
      then .value |= ["x_front"] + . else . end)
  elif .record == "frame" then .rows |= front
  else (if has("classes") then .classes |= front else . end)
     | (if has("type_rows") then .type_rows |= front else . end)
     | (if has("site_rows") then .site_rows |= front else . end) end' |
  gzip >"$tmp/front.gz"
for t in classes types sites frames; do
  run "$GCACC" export --csv "$t" "$tmp/front.gz"
  check_eq "moved: $t exit" "$rc" 0
  ok
  cmp -s "$tmp/out" "$tmp/$t.csv" ||
    { fail "moved: $t differs"; diff "$tmp/$t.csv" "$tmp/out" | head -5; }
done

# Bad input: a clear message, exit 2.
run "$GCACC" export --csv nosuch "$d"
check_eq "unknown table: exit" "$rc" 2
check_grep "unknown table: message" "$tmp/err" \
  "unknown table 'nosuch': records, classes"
run "$GCACC" export --jsonl
check_eq "--jsonl without a table: exit" "$rc" 2
check_grep "--jsonl without a table: message" "$tmp/err" \
  "--jsonl needs a table"
run "$GCACC" export --csv classes --folded "$d"
check_eq "--csv with --folded: exit" "$rc" 2
run "$GCACC" export --csv classes --help
check_eq "--csv --help: exit" "$rc" 0
check_grep "--csv --help: tables listed" "$tmp/out" "frames"
finish
