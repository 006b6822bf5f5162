#!/bin/sh
# SPDX-License-Identifier: MIT
# estimates_views.sh: a sampled profile's figures by type and callsite are shown
# as estimates (docs/dump-format.md, "The sampled profile": the header's
# config.profile "sampled" with sample_bytes R; type and site rows
# already scaled by the collector, sample counts in samples_*).  A long
# session (tests/browser/longload: 24 types, 10 callsites, a leak of
# "Long.Leak" from leak_path(), frames), twice: sampled
# (GC_ACC_PROFILE=sampled=4096, so that its leak has samples enough to be
# found) and exact (GC_ACC_PROFILE=trace).  Checked:
#   - the figures are the dump's, not scaled again: top's live bytes per
#     type and callsite are the dump's last rows (jq), also when the
#     header also says stacks=sample (a copy edited so);
#   - text: type and callsite figures read "~12.3 MiB" / "~123", a note
#     says they are estimated from sampled allocations, one sample per
#     4.0 KiB; exact figures (size classes, heap) carry no "~";
#   - --json: "estimated": true, and the note in "notes"; false where
#     the view shows only exact figures, and for the exact dump;
#   - top --group type|site: n (samples_live, samples_alloc: the dump's
#     last rows, the last census's, summed over --session) and the
#     plus-minus error (1/sqrt(n); none for 0) in text, --json, --csv,
#     and the footnote; none of it for the exact dump;
#   - summary, top (type, site, class), leaks, timeline --frames, export
#     --csv/--jsonl, and the report (its notes, "~" cells, the data's
#     "estimated");
#   - a dump whose program switched to an exact profile after the header
#     was written (it says "sampled") is exact: its records say so.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

LOAD=./tests/browser/longload
[ -x "$LOAD" ] || { echo "FAIL: $LOAD not built"; exit 1; }
d=$tmp/exact.gz
s=$tmp/sampled.gz
GC_ACC_PROFILE=trace GC_ACC_DUMP="$d" "$LOAD" 1000 1 >"$tmp/exact.out" ||
  { echo "FAIL: longload (trace)"; exit 1; }
GC_ACC_PROFILE=sampled=4096 GC_ACC_DUMP="$s" "$LOAD" 1000 1 \
  >"$tmp/sampled.out" || { echo "FAIL: longload (sampled)"; exit 1; }
check_eq "the sampled dump says so" "$(zcat "$s" | head -1 |
  jq -c '[.config.profile, .config.sample_bytes]')" '["sampled",4096]'
check_eq "the exact dump says so" "$(zcat "$d" | head -1 |
  jq -r '.config.profile')" trace
note="note: figures by type and callsite are estimated from sampled allocations"
note2="      (one sample per 4.0 KiB allocated on average)"
# The last row of every type and site: "id live_bytes", by header names.
last_rows() {
  zcat "$1" | jq -r -n --arg t "$2" '
    def named($n): [$n, .] | transpose | map({key: .[0], value: .[1]})
      | from_entries;
    input.columns[$t] as $c
    | reduce (inputs | select(.record == "collection") | .[$t][]?
              | named($c)) as $r
        ({}; .[($r.type_id // $r.site_id | tostring)] = $r.live_bytes)
    | to_entries[] | select(.value > 0) | "\(.key) \(.value)"' | sort
}

# A program that switches profile after its dump started (the workload's
# typed mode sets the trace profile by API; GC_ACC_DUMP started the dump
# sampled): the header says "sampled", its records (no "samples") are
# exact, and the records win.
GC_ACC_DUMP="$tmp/switched.gz" "$WORKLOAD" typed >/dev/null ||
  { echo "FAIL: workload typed"; exit 1; }
if [ "$(zcat "$tmp/switched.gz" | head -1 | jq -r .config.profile)" = sampled ]
then
  for v in "summary --json" "top --group type --json" \
           "timeline --frames --json" "leaks --json"; do
    # shellcheck disable=SC2086
    run "$GCACC" $v "$tmp/switched.gz"
    check_eq "switched to trace: $v: estimated" "$(jq .estimated "$tmp/out")" \
      false
  done
  run "$GCACC" export --jsonl types "$tmp/switched.gz"
  check_eq "switched to trace: export --jsonl types: estimated" \
    "$(jq -s -c '[.[].estimated] | unique' "$tmp/out")" '[false]'
fi

# summary
run "$GCACC" summary "$s"
check_eq "summary: exit" "$rc" 0
check_eq "summary: the note" "$(tail -2 "$tmp/out" | head -1)" "$note"
check_eq "summary: the sample distance" "$(tail -1 "$tmp/out")" "$note2"
run "$GCACC" summary --json "$s"
check_eq "summary --json: estimated" "$(jq .estimated "$tmp/out")" true
check_grep "summary --json: the note" "$tmp/out" "estimated from sampled"
run "$GCACC" summary --json "$d"
check_eq "summary --json, exact dump: estimated" "$(jq .estimated "$tmp/out")" \
  false
run "$GCACC" summary "$d"
check_eq "summary, exact dump: no note" "$(grep -c '^note:' "$tmp/out")" 0

# top: types and callsites estimated, the numbers the dump's own
zcat "$s" | jq -c 'if .record == "header" then .config.stacks = "sample"
  | .config.stacks_sample_bytes = 4096 else . end' | gzip >"$tmp/both.gz"
for g in type site; do
  run "$GCACC" top --group "$g" --json -n 0 "$s"
  check_eq "top --group $g --json: exit" "$rc" 0
  check_eq "top --group $g --json: estimated" "$(jq .estimated "$tmp/out")" \
    true
  jq -r '.top[] | select(.live_bytes > 0) | "\(.id) \(.live_bytes)"' \
    "$tmp/out" | sort >"$tmp/top_live"
  check_range "top --group $g: rows live" "$(wc -l <"$tmp/top_live")" 2 40
  check_eq "top --group $g: live bytes are the dump's (not scaled again)" \
    "$(cat "$tmp/top_live")" "$(last_rows "$s" "${g}_rows")"
  jq -c '.top' "$tmp/out" >"$tmp/est.json"
  run "$GCACC" top --group "$g" --json -n 0 "$tmp/both.gz"
  check_eq "top --group $g: stacks=sample too: not scaled" \
    "$(jq -c '.top' "$tmp/out")" "$(cat "$tmp/est.json")"
  run "$GCACC" top --group "$g" --json -n 0 "$d"
  check_eq "top --group $g --json, exact dump: estimated" \
    "$(jq .estimated "$tmp/out")" false
  run "$GCACC" top --group "$g" -n 3 "$s"
  check_eq "top --group $g: the note" "$(tail -2 "$tmp/out" | head -1)" \
    "$note"
  check_range "top --group $g: ~ live bytes" \
    "$(grep -cE '~[0-9.]+ (B|KiB|MiB)' "$tmp/out")" 1 10
  check_range "top --group $g: ~ counts" "$(grep -cE ' ~[0-9]+( |$)' \
    "$tmp/out")" 1 10
  run "$GCACC" top --group "$g" -n 3 "$d"
  check_eq "top --group $g, exact dump: no ~" "$(grep -c '~' "$tmp/out")" 0
done
# top: the samples behind each estimate (n) and its error (about
# 1/sqrt(n)), as the dump's samples_* columns give them.
# rows_of DUMP TABLE COL WHICH [GC]: "id value" of column COL (by header
# name) of every id's last row (WHICH=last), of the rows of the last
# census collection (census), or summed over the session (sum), up to
# collection GC (default: all); nonzero only.
rows_of() {
  zcat "$1" | jq -r -n --arg t "$2" --arg c "$3" --arg w "$4" \
    --argjson g "${5:-1e18}" '
    def named($n): [$n, .] | transpose | map({key: .[0], value: .[1]})
      | from_entries;
    input.columns[$t] as $h
    | [inputs | select(.record == "collection" and .census == 1
                       and .gc_no <= $g)] as $r
    | (if $w == "census" then [$r[-1] | .[$t][]?] else [$r[] | .[$t][]?] end)
    | map(named($h))
    | reduce .[] as $x ({}; ($x.type_id // $x.site_id | tostring) as $k
        | .[$k] = (if $w == "sum" then (.[$k] // 0) + $x[$c]
                   else $x[$c] end))
    | to_entries[] | select(.value > 0) | "\(.key) \(.value)"' | sort
}
# err N: the plus-minus cell of N samples, as top prints it
err() {
  LC_ALL=C awk -v n="$1" 'BEGIN { e = 100 / sqrt(n)
    printf(e >= 9.5 ? "\302\261%.0f%%\n" : "\302\261%.1f%%\n", e) }'
}
# pm_field ROW: the first plus-minus cell of a table row (live's), and
# with "n", the field before it (its n)
pm_field() {
  echo "$1" | LC_ALL=C awk -v want="${2:-}" '{ for (i = 2; i <= NF; i++)
    if (index($i, "\302\261") == 1) {
      print (want == "n" ? $(i - 1) : $i); exit } }'
}
pm=$(printf '\302\261')
foot="n: samples behind the ~figure before it (1 per 4.0 KiB); $pm: about 1/sqrt(n)"
for g in type site; do
  run "$GCACC" top --group "$g" --json -n 0 "$s"
  jq -r '.top[] | select(.samples_live > 0) | "\(.id) \(.samples_live)"' \
    "$tmp/out" | sort >"$tmp/n_live"
  check_range "top --group $g: rows with live samples" \
    "$(wc -l <"$tmp/n_live")" 2 40
  check_eq "top --group $g: samples_live is the dump's" \
    "$(cat "$tmp/n_live")" "$(rows_of "$s" "${g}_rows" samples_live last)"
  check_eq "top --group $g: samples_alloc is the last census's" \
    "$(jq -r '.top[] | select(.samples_alloc > 0)
       | "\(.id) \(.samples_alloc)"' "$tmp/out" | sort)" \
    "$(rows_of "$s" "${g}_rows" samples_alloc census)"
  check_eq "top --group $g: live_error is 1/sqrt(samples_live), null at 0" \
    "$(jq '[.top[] | if .samples_live == 0 then .live_error == null
       else (.live_error - 1 / (.samples_live | sqrt) | fabs) < 1e-5 end]
       | all' "$tmp/out")" true
  check_eq "top --group $g: alloc_error null iff no samples" \
    "$(jq '[.top[] | (.alloc_error == null) == (.samples_alloc == 0)] | all' \
       "$tmp/out")" true
  run "$GCACC" top --group "$g" --json -n 0 --session "$s"
  check_eq "top --group $g --session: samples_alloc summed" \
    "$(jq -r '.top[] | select(.samples_alloc > 0)
       | "\(.id) \(.samples_alloc)"' "$tmp/out" | sort)" \
    "$(rows_of "$s" "${g}_rows" samples_alloc sum)"
  run "$GCACC" top --group "$g" --csv -n 3 "$s"
  check_grep "top --group $g --csv: the sample columns" "$tmp/out" \
    "live_bytes,samples_live,live_error,alloc_objs,alloc_bytes,samples_alloc,alloc_error,"
  # The text table: n and the plus-minus after live and alloc; the top
  # row's live n is the JSON's, its error printed as err() says.
  run "$GCACC" top --group "$g" -n 3 "$s"
  cp "$tmp/out" "$tmp/table"
  check_eq "top --group $g: n and $pm columns" \
    "$(sed -n 2p "$tmp/table" | LC_ALL=C awk '{ for (i = 1; i <= NF; i++)
       if ($i == "n" || $i == "\302\261") printf "%s ", $i; print "" }')" \
    "n $pm n $pm "
  check_eq "top --group $g: the footnote" "$(tail -3 "$tmp/table" | head -1)" \
    "$foot"
  row=$(sed -n 3p "$tmp/table")
  n=$(pm_field "$row" n)
  run "$GCACC" top --group "$g" --json -n 3 "$s"
  check_eq "top --group $g: the top row's n" "$n" \
    "$(jq --argjson id "$(echo "$row" | awk '{ print $1 }')" \
       '.top[] | select(.id == $id) | .samples_live' "$tmp/out")"
  check_eq "top --group $g: the top row's $pm" "$(pm_field "$row")" \
    "$(err "$n")"
  run "$GCACC" top --group "$g" -n 3 "$d"
  check_eq "top --group $g, exact dump: no n, no $pm, no footnote" \
    "$(grep -cE "$pm|^n: | n " "$tmp/out")" 0
  run "$GCACC" top --group "$g" --json -n 0 "$d"
  check_eq "top --group $g --json, exact dump: no sample fields" \
    "$(jq '[.top[] | has("samples_live") or has("live_error")] | any' \
       "$tmp/out")" false
done
run "$GCACC" top --group class --json "$s"
check_eq "top --group class --json: estimated false" \
  "$(jq .estimated "$tmp/out")" false
run "$GCACC" top --group class "$s"
check_eq "top --group class: no ~" "$(grep -c '~' "$tmp/out")" 0
check_eq "top --group class: no note" "$(grep -c '^note:' "$tmp/out")" 0

# leaks: the leaking type and callsite, estimated; size classes exact
run "$GCACC" leaks "$s"
check_eq "leaks: exit (a leak)" "$rc" 1
check_grep "leaks: Long.Leak" "$tmp/out" "Long.Leak"
check_eq "leaks: the note" "$(tail -2 "$tmp/out" | head -1)" "$note"
sed -n '/^leaking types/,$p' "$tmp/out" >"$tmp/groups"
sed -n '1,/^leaking types/p' "$tmp/out" >"$tmp/classes"
check_range "leaks: ~ figures of types and callsites" \
  "$(grep -cE '~[0-9.]+ (B|KiB|MiB)' "$tmp/groups")" 4 100
check_eq "leaks: no ~ for size classes" "$(grep -c '~' "$tmp/classes")" 0
run "$GCACC" leaks --json "$s"
check_eq "leaks --json: estimated" "$(jq .estimated "$tmp/out")" true
check_eq "leaks --json: the leaking type" \
  "$(jq -r '.leak_types[0].type' "$tmp/out")" Long.Leak
run "$GCACC" leaks --json "$d"
check_eq "leaks --json, exact dump: estimated" "$(jq .estimated "$tmp/out")" \
  false
check_eq "leaks --json, exact dump: the leaking type" \
  "$(jq -r '.leak_types[0].type' "$tmp/out")" Long.Leak

# timeline --frames sums the frames' kind rows, exact from the counters
# in every profile: no ~, no note, and the sums are the kind rows'.
run "$GCACC" timeline --frames "$s"
check_eq "timeline --frames: no note" "$(grep -c '^note:' "$tmp/out")" 0
check_eq "timeline --frames: no ~" "$(grep -c '~' "$tmp/out")" 0
run "$GCACC" timeline --frames --json "$s"
check_eq "timeline --frames --json: estimated" "$(jq .estimated "$tmp/out")" \
  false
check_eq "timeline --frames --json: bytes = the kind rows'" \
  "$(jq '[.frames[].bytes] | add' "$tmp/out")" \
  "$(zcat "$s" | jq -n '[inputs | select(.record == "frame")
     | .kind_rows[][2]] | add')"
run "$GCACC" timeline "$s"
check_eq "timeline (heap figures): no ~" "$(grep -c '~' "$tmp/out")" 0

# exports: the estimated column
# csv_col NAME: the distinct values of column NAME of $tmp/out's CSV.
csv_col() {
  awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i
                               next }
                     { print $c }' "$tmp/out" | sort -u
}
run "$GCACC" export --csv sites "$s"
check_eq "export --csv sites: estimated column" "$(csv_col estimated)" 1
run "$GCACC" export --jsonl types "$s"
check_eq "export --jsonl types: estimated" \
  "$(jq -s '[.[].estimated] | unique' -c "$tmp/out")" '[true]'
run "$GCACC" export --csv sites "$d"
check_eq "export --csv sites, exact dump: estimated 0" "$(csv_col estimated)" 0
run "$GCACC" export --csv classes "$s"
check_eq "export --csv classes: exact, no estimated column" \
  "$(head -1 "$tmp/out" | grep -c estimated)" 0

# report: the note, ~ cells, and the data's flag
run "$GCACC" report -o "$tmp/r.html" "$s"
check_eq "report: exit" "$rc" 0
check_range "report: notes (types, callsites, Frames, TopN)" \
  "$(grep -c 'class="estimate-note"' "$tmp/r.html")" 4 4
check_grep "report: the note's words" "$tmp/r.html" \
  "estimated from sampled allocations (one sample per 4.0 KiB"
check_range "report: ~ in the type rows" "$(grep 'class="type-row"' \
  "$tmp/r.html" | grep -c '<td>~')" 1 30
check_grep "report: the data says estimated" "$tmp/r.html" '{"estimated":true'
# The top types and callsites at the peak: n and its error after live
# and allocated bytes, the dump's samples up to that collection.
for g in type site; do
  tid=top-${g}s
  peak=$(sed -n "s/.*<table id=\"$tid\" data-gc-no=\"\([0-9]*\)\".*/\1/p" \
    "$tmp/r.html")
  grep "class=\"$g-row\"" "$tmp/r.html" >"$tmp/rrows"
  check_eq "report: top ${g}s: n, $pm headers" "$(grep -A1 "<table id=\"$tid\"" \
    "$tmp/r.html" | tail -1 | grep -o '>n</th>\|>&plusmn;</th>' | tr -d '\n')" \
    '>n</th>>&plusmn;</th>>n</th>>&plusmn;</th>'
  check_eq "report: top ${g}s: samples live are the dump's at gc $peak" \
    "$(sed 's/.* data-id="\([0-9]*\)".* data-samples-live="\([0-9]*\)".*/\1 \2/' \
       "$tmp/rrows" | awk '$2 > 0' | sort)" \
    "$(rows_of "$s" "${g}_rows" samples_live last "$peak")"
  n=$(head -1 "$tmp/rrows" | sed 's/.*data-samples-live="\([0-9]*\)".*/\1/')
  check_grep "report: top ${g}s: the first row's n and $pm" "$tmp/rrows" \
    "<td class=\"samples\">$n</td><td>$(err "$n")</td>"
done
run "$GCACC" report -o "$tmp/x.html" "$d"
check_eq "report, exact dump: no n, no $pm" \
  "$(grep -c 'data-samples-live\|&plusmn;' "$tmp/x.html")" 0
check_eq "report, exact dump: no note" \
  "$(grep -c 'class="estimate-note"' "$tmp/x.html")" 0
check_grep "report, exact dump: the data says exact" "$tmp/x.html" \
  '{"estimated":false'
finish
