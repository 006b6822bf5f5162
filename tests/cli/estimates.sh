#!/bin/sh
# estimates.sh: a sampled profile's figures by type and callsite are shown
# as estimates (issue 22's dumps: config.profile "sampled" with
# sample_bytes R, type and site rows already scaled by the collector,
# raw sample counts in the columns samples_live, samples_alloc,
# samples_freed appended to them).  Until the collector writes such
# dumps, the workload's typed dump is made one with jq: the header says
# profile=sampled, R = 512 KiB (and stacks=sample, which must then not
# scale again), and the rows gain the three columns.  Checked, each
# against the same view of the unedited dump:
#   - the figures are the dump's, not scaled again (--json numbers equal);
#   - text: type and callsite figures read "~12.3 MiB" / "~123", a note
#     line says they are estimated from sampled allocations, one sample
#     per 512.0 KiB; exact figures (size classes, heap) carry no "~";
#   - --json: "estimated": true, and the note in "notes"; false where
#     the view shows only exact figures, and in the exact dump;
#   - summary, top (type, site, class), leaks, timeline --frames, export
#     --csv/--jsonl, and the report (its note, "~" cells, the data's
#     "estimated").
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump typed
d=$tmp/typed.gz
s=$tmp/sampled.gz
zcat "$d" | jq -c '
  def more: map(. + [1, 2, 3]);
  if .record == "header" then
    .config.profile = "sampled" | .config.sample_bytes = 524288
    | .config.stacks = "sample" | .config.stacks_sample_bytes = 4096
    | .columns.type_rows += ["samples_live", "samples_alloc", "samples_freed"]
    | .columns.site_rows += ["samples_live", "samples_alloc", "samples_freed"]
  else (if has("type_rows") then .type_rows |= more else . end)
     | (if has("site_rows") then .site_rows |= more else . end) end' |
  gzip >"$s" || { echo "FAIL: jq: the sampled dump"; exit 1; }
note="note: Figures by type and callsite are estimated from sampled allocations (one sample per 512.0 KiB allocated on average)."

# summary
run "$GCACC" summary "$s"
check_eq "summary: exit" "$rc" 0
check_eq "summary: the note" "$(tail -1 "$tmp/out")" "$note"
run "$GCACC" summary --json "$s"
check_eq "summary --json: estimated" "$(jq .estimated "$tmp/out")" true
check_grep "summary --json: the note" "$tmp/out" "estimated from sampled"
run "$GCACC" summary --json "$d"
check_eq "summary --json, exact dump: estimated" "$(jq .estimated "$tmp/out")" \
  false
run "$GCACC" summary "$d"
check_eq "summary, exact dump: no note" "$(grep -c '^note:' "$tmp/out")" 0

# top: types and callsites estimated, the numbers the dump's own
for g in type site; do
  run "$GCACC" top --group "$g" --json -n 0 "$s"
  check_eq "top --group $g --json: exit" "$rc" 0
  check_eq "top --group $g --json: estimated" "$(jq .estimated "$tmp/out")" \
    true
  jq -c '.top' "$tmp/out" >"$tmp/est.json"
  run "$GCACC" top --group "$g" --json -n 0 "$d"
  check_eq "top --group $g: the same numbers (not scaled again)" \
    "$(cat "$tmp/est.json")" "$(jq -c '.top' "$tmp/out")"
  check_eq "top --group $g --json, exact dump: estimated" \
    "$(jq .estimated "$tmp/out")" false
  run "$GCACC" top --group "$g" -n 3 "$s"
  check_eq "top --group $g: the note" "$(tail -1 "$tmp/out")" "$note"
  check_range "top --group $g: rows with ~ live bytes" \
    "$(grep -cE '~[0-9.]+ (B|KiB|MiB)' "$tmp/out")" 1 3
  check_range "top --group $g: ~ counts" \
    "$(grep -cE '  ~[0-9]+ ' "$tmp/out")" 1 3
done
run "$GCACC" top --group class --json "$s"
check_eq "top --group class --json: estimated false" \
  "$(jq .estimated "$tmp/out")" false
run "$GCACC" top --group class "$s"
check_eq "top --group class: no ~" "$(grep -c '~' "$tmp/out")" 0
check_eq "top --group class: no note" "$(grep -c '^note:' "$tmp/out")" 0

# leaks: the leaking type and callsite, estimated
run "$GCACC" leaks "$s"
check_eq "leaks: exit (a leak)" "$rc" 1
check_grep "leaks: LeakNode" "$tmp/out" "LeakNode"
check_eq "leaks: the note" "$(tail -1 "$tmp/out")" "$note"
check_eq "leaks: ~ figures (type and callsite: start, end, growth, slope)" \
  "$(grep -cE '^  (start|end|growth|slope)_bytes +~[0-9.]+ (B|KiB|MiB)' \
     "$tmp/out")" 8
check_eq "leaks: the (kind, class) row exact" \
  "$(grep -cE '^  (start|end|growth|slope)_bytes +[0-9]' "$tmp/out")" 4
run "$GCACC" leaks --json "$s"
check_eq "leaks --json: estimated" "$(jq .estimated "$tmp/out")" true
jq -c '.leak_types' "$tmp/out" >"$tmp/est.json"
run "$GCACC" leaks --json "$d"
check_eq "leaks: the same numbers" "$(cat "$tmp/est.json")" \
  "$(jq -c '.leak_types' "$tmp/out")"

# timeline --frames: frame rows are by type and callsite
run "$GCACC" timeline --frames "$s"
check_eq "timeline --frames: the note" "$(tail -1 "$tmp/out")" "$note"
check_range "timeline --frames: ~ bytes" \
  "$(grep -cE '~[0-9.]+ (B|KiB|MiB)' "$tmp/out")" 100 100000
run "$GCACC" timeline --frames --json "$s"
check_eq "timeline --frames --json: estimated" "$(jq .estimated "$tmp/out")" \
  true
run "$GCACC" timeline "$s"
check_eq "timeline (heap figures): no ~" "$(grep -c '~' "$tmp/out")" 0

# exports: the estimated column
run "$GCACC" export --csv sites "$s"
check_eq "export --csv sites: estimated column" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "estimated") c = i; next }
              { print $c }' "$tmp/out" | sort -u)" 1
run "$GCACC" export --jsonl types "$s"
check_eq "export --jsonl types: estimated" \
  "$(jq -s '[.[].estimated] | unique' -c "$tmp/out")" '[true]'
run "$GCACC" export --csv classes "$s"
check_eq "export --csv classes: exact, no estimated column" \
  "$(head -1 "$tmp/out" | grep -c estimated)" 0

# report: the note, ~ cells, and the data's flag
run "$GCACC" report -o "$tmp/r.html" "$s"
check_eq "report: exit" "$rc" 0
check_range "report: notes (types, callsites, Frames, TopN)" \
  "$(grep -c 'class="estimate-note"' "$tmp/r.html")" 4 4
check_grep "report: the note's words" "$tmp/r.html" \
  "estimated from sampled allocations (one sample per 512.0 KiB"
check_range "report: ~ in the type rows" "$(grep 'class="type-row"' \
  "$tmp/r.html" | grep -c '<td>~')" 1 3
check_grep "report: the data says estimated" "$tmp/r.html" '{"estimated":true'
run "$GCACC" report -o "$tmp/x.html" "$d"
check_eq "report, exact dump: no note" \
  "$(grep -c 'class="estimate-note"' "$tmp/x.html")" 0
check_grep "report, exact dump: the data says exact" "$tmp/x.html" \
  '{"estimated":false'
finish
