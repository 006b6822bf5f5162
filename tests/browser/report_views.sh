#!/bin/sh
# SPDX-License-Identifier: MIT
# report_views.sh: the report's Frames and TopN views in real headless
# Chromium, on a long session with known answers: tests/browser/longload
# (5000 frames, two collections each: over 10,000 collections; 24 types,
# 10 callsites, the trace profile's exact figures; spikes of "Long.Spike" from spike_path() at frames it
# prints), symbolized.  Each view is rendered from a URL hash (the state
# the page keeps there) with --dump-dom and checked against figures
# computed here from the dump with jq and from `gcacc top --json`:
#   Frames  the heaviest frames listed first are the spike frames; the
#           default selection is the heaviest, its top type Long.Spike
#           with the bytes the dump's frame record gives it, its top
#           callsite spike_path; a range's bytes are the dump's sum;
#           the chart stacks by kind by default: its legend lists the
#           kinds of the dump's kind_rows, and the selected frame's kind
#           table their bytes (a spike frame has two kinds); #stack=types stacks by the top types
#           (legend: the session's largest type first); a dump without
#           kind_rows (written before them) stacks by type, with the
#           kind choice disabled and no kind table;
#   TopN    types by allocated bytes and callsites by live bytes as `gcacc
#           top` orders them, the filter, and the ascending sort; of a
#           sampled dump (sampled=4096): n and its error after live and
#           allocated objects, sortable, n as `gcacc top` gives it.
# Screenshots of both views must not be blank; the page must reference no
# URL; and the first paint is timed: the page's own mark when its script
# has drawn the views (data-ready-ms, since navigation started) and the
# wall time of a headless screenshot, both under generous bounds that
# only a pathological page (seconds per thousand frames) would pass.
# Chromium missing is a failure (tools/setup-debian.sh installs it).
# Files, screenshots and timings in tests/browser/report_views.out/.
# shellcheck disable=SC2015
set -u
: "${srcdir:=.}"
gcacc=./tools/gcacc/gcacc
load=./tests/browser/longload
out=tests/browser/report_views.out
frames=5000

. "$srcdir/tests/browser/browser_lib.sh"
need_tools jq zcat
for p in "$gcacc" "$load"; do
  [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
browser_setup "$out"

# The trace profile: exact figures per type, callsite and frame, and
# every allocation's stack.
GC_ACC_PROFILE=trace GC_ACC_DUMP="$abs/long.gz" "$load" "$frames" 2 \
  >"$abs/truth.txt" ||
  { echo "FAIL: longload"; exit 1; }
"$gcacc" symbolize "$abs/long.gz" >/dev/null || fail "gcacc symbolize"
zcat "$abs/long.gz" >"$abs/long.jsonl"
# The session's collections: the last record's gc_no (a loaded machine
# may drop a few records, which the dump counts).
ncoll=$(grep -c '"record":"collection"' "$abs/long.jsonl")
lastgc=$(grep '"record":"collection"' "$abs/long.jsonl" | tail -n 1 |
         jq .gc_no)
[ "${lastgc:-0}" -ge 10000 ] &&
  ok "the session has $lastgc collections ($ncoll records in the dump)" ||
  fail "the session has '$lastgc' collections, not 10,000 or more"

t0=$(date +%s%N)
"$gcacc" report -o "$abs/long.html" "$abs/long.gz" ||
  { echo "FAIL: gcacc report exited $?"; exit 1; }
t1=$(date +%s%N)
size=$(wc -c <"$abs/long.html" | tr -d ' ')
echo "report: $size bytes, written in $(((t1 - t0) / 1000000)) ms"
[ "$size" -lt 20000000 ] && ok "report size $size bytes" ||
  fail "report of $size bytes"
grep -Eiq 'https?://' "$abs/long.html" && fail "the page references a URL"
grep -Eiq '<script[^>]* src=|<link[ >]|<img[ >]|<iframe[ >]' \
  "$abs/long.html" && fail "the page loads something from elsewhere"

dom() {     # dom NAME HASH: the page rendered with #HASH, in NAME.dom.html
  run_chromium --virtual-time-budget=5000 --dump-dom \
    "file://$abs/long.html#$2" >"$abs/$1.dom.html" || true
  grep -q 'data-ready-ms=' "$abs/$1.dom.html" ||
    fail "$1: the page's script did not finish (see $abs/$1.dom.html)"
}
rows() {    # rows FILE CLASS NAME: NAME of every <tr class="CLASS">
  grep -o "<tr class=\"$2\"[^>]*" "$1" |
    sed -n "s/.* $3=\"\\([^\"]*\\)\".*/\\1/p"
}
cells() {   # cells FILE CLASS: the text of each such row, cells joined by |
  tr '\n' ' ' <"$1" | sed 's/<\/tr>/\n/g' | grep "<tr class=\"$2\"" |
    sed -e 's/<[^>]*>/|/g' -e 's/||*/|/g' -e 's/^|//'
}

# --- Frames ---------------------------------------------------------------
dom frames 'view=frames'
spikes=$(sed -n 's/^spike //p' "$abs/truth.txt" | sort -n | tr '\n' ' ')
nsp=$(echo "$spikes" | wc -w)
top=$(rows "$abs/frames.dom.html" heavy-row data-frame | head -n "$nsp" |
      sort -n | tr '\n' ' ')
check_eq "frames: the heaviest frames are the spikes" "$top" "$spikes"
first=$(rows "$abs/frames.dom.html" heavy-row data-frame | head -n 1)
check_eq "frames: the heaviest frame is selected" \
  "$(attr "$abs/frames.dom.html" '<p id="frame-sel"' data-lo)" "$first"
# The dump: Long.Spike's bytes in that frame (ids by the header's names).
want=$(jq -n -r --argjson f "$first" '
  def named($n): [$n, .] | transpose | map({key: .[0], value: .[1]})
    | from_entries;
  input.columns as $c
  | reduce (inputs | select(has("types")
                            or (.record == "frame" and .frame == $f))) as $r
      ({};
       .id = (.id // ([$r.types // [] | .[] | named($c.types)
                       | select(.name == "Long.Spike") | .type_id][0]))
       | if $r.record == "frame" and $r.frame == $f then
           . as $s | .bytes = ([$r.rows[] | named($c["frame.rows"])
                                | select(.type_id == $s.id) | .bytes] | add)
         else . end)
  | .bytes' "$abs/long.jsonl")
check_eq "frames: its top type" \
  "$(cells "$abs/frames.dom.html" ft-row | head -n 1 | cut -d'|' -f1)" \
  "Long.Spike"
check_eq "frames: Long.Spike's bytes in frame $first" \
  "$(rows "$abs/frames.dom.html" ft-row data-bytes | head -n 1)" "$want"
cells "$abs/frames.dom.html" fs-row | head -n 1 | grep -q 'spike_path' &&
  ok "frames: its top callsite is spike_path" ||
  fail "frames: top callsite '$(cells "$abs/frames.dom.html" fs-row |
        head -n 1)', not spike_path"
cols=$(attr "$abs/frames.dom.html" '<canvas id="frame-chart"' data-columns)
[ "${cols:-0}" -ge 100 ] && ok "frames: the chart has $cols columns" ||
  fail "frames: the chart has '$cols' columns"

# By kind: the default stacking, the dump's kinds, the frame's bytes.
check_eq "frames: stacked by kind by default" \
  "$(attr "$abs/frames.dom.html" '<canvas id="frame-chart"' data-stack)" kinds
legend_keys() {   # legend_keys FILE ATTR: the legend items' ATTR values
  grep -o "<li class=\"legend-item\"[^>]*" "$1" |
    sed -n "s/.* $2=\"\([^\"]*\)\".*/\1/p" | tr '\n' ' '
}
want=$(jq -r -n 'input.columns["frame.kind_rows"] as $c
  | ($c | index("kind")) as $k | ($c | index("bytes")) as $b
  | [inputs | select(.record == "frame") | .kind_rows[]
     | select(.[$b] > 0) | .[$k]] | unique | map(tostring) | join(" ")' \
  "$abs/long.jsonl")
check_eq "frames: the legend's kinds are the dump's" \
  "$(legend_keys "$abs/frames.dom.html" data-kind)" "$want "
want=$(jq -r -n --argjson f "$first" 'input.columns["frame.kind_rows"] as $c
  | ($c | index("kind")) as $k | ($c | index("bytes")) as $b
  | inputs | select(.record == "frame" and .frame == $f) | .kind_rows
  | sort_by(.[$k]) | map("\(.[$k]):\(.[$b])") | join(" ")' "$abs/long.jsonl")
got=$(grep -o '<tr class="fk-row"[^>]*' "$abs/frames.dom.html" |
  sed -n 's/.* data-kind="\([0-9]*\)".* data-bytes="\([0-9]*\)".*/\1:\2/p' |
  grep -v ':0$' | tr '\n' ' ')
check_eq "frames: frame $first's bytes per kind" "$got" "$want "
[ "$(echo "$want" | wc -w)" -ge 2 ] &&
  ok "frames: frame $first allocated two kinds (its pointer-free spike)" ||
  fail "frames: frame $first allocated one kind only: $want"
check_eq "frames: frame $first's bytes are its kinds' sum" \
  "$(attr "$abs/frames.dom.html" '<p id="frame-sel"' data-bytes)" \
  "$(echo "$want" | tr ' ' '\n' | awk -F: '{ s += $2 } END { print s }')"
dom bytype 'view=frames&stack=types'
check_eq "frames #stack=types: stacked by type" \
  "$(attr "$abs/bytype.dom.html" '<canvas id="frame-chart"' data-stack)" types
want=$(jq -r -n 'input.columns["frame.rows"] as $c
  | ($c | index("type_id")) as $t | ($c | index("bytes")) as $b
  | [inputs | select(.record == "frame") | .rows[] | {t: .[$t], b: .[$b]}]
  | group_by(.t) | map({t: .[0].t, b: (map(.b) | add)})
  | sort_by(-.b, .t) | .[0].t' "$abs/long.jsonl")
check_eq "frames #stack=types: the session's largest type first" \
  "$(legend_keys "$abs/bytype.dom.html" data-type | cut -d' ' -f1)" "$want"
# A dump written before kind_rows: stacked by type, no kind table.
jq -c 'if .record == "header" then del(.columns["frame.kind_rows"])
       else del(.kind_rows) end' "$abs/long.jsonl" | gzip >"$abs/old.gz"
"$gcacc" report -o "$abs/old.html" "$abs/old.gz" 2>"$abs/old.err" ||
  fail "gcacc report of a dump without kind_rows exited $?"
run_chromium --virtual-time-budget=5000 --dump-dom \
  "file://$abs/old.html#view=frames" >"$abs/old.dom.html" || true
check_eq "old dump: stacked by type" \
  "$(attr "$abs/old.dom.html" '<canvas id="frame-chart"' data-stack)" types
grep -q '<option value="kinds" disabled' "$abs/old.dom.html" &&
  ok "old dump: the kind choice is disabled" ||
  fail "old dump: the kind choice is not disabled"
check_eq "old dump: no kind rows" \
  "$(grep -c '<tr class="fk-row"' "$abs/old.dom.html")" 0
check_eq "old dump: the heaviest frame is still $first" \
  "$(attr "$abs/old.dom.html" '<p id="frame-sel"' data-lo)" "$first"
[ -s "$abs/old.err" ] && fail "old dump: the report warned: $(cat "$abs/old.err")"

# A range: its bytes are the dump's.
dom range 'view=frames&sel=100-199'
want=$(jq -n '[inputs | select(.record == "frame" and .frame >= 100
               and .frame <= 199) | .rows[][3]] | add' "$abs/long.jsonl")
check_eq "frames 100-199: the range" \
  "$(attr "$abs/range.dom.html" '<p id="frame-sel"' data-lo)-$(attr \
     "$abs/range.dom.html" '<p id="frame-sel"' data-hi)" "100-199"
check_eq "frames 100-199: bytes" \
  "$(attr "$abs/range.dom.html" '<p id="frame-sel"' data-bytes)" "$want"

# --- TopN -----------------------------------------------------------------
dom ttypes 'view=topn&table=types&sort=alloc_bytes'
"$gcacc" top --group type --by alloc --session -n 3 --json "$abs/long.gz" \
  >"$abs/top-types.json"
check_eq "topn types by allocated bytes: first three" \
  "$(rows "$abs/ttypes.dom.html" topn-row data-id | head -n 3 | tr '\n' ' ')" \
  "$(jq -r '.top[].id' "$abs/top-types.json" | tr '\n' ' ')"
check_eq "topn types: the first one's allocated bytes" \
  "$(rows "$abs/ttypes.dom.html" topn-row data-alloc-bytes | head -n 1)" \
  "$(jq -r '.top[0].alloc_bytes' "$abs/top-types.json")"
check_eq "topn types: sorted by" \
  "$(attr "$abs/ttypes.dom.html" '<table id="topn-table"' data-sort)" \
  alloc_bytes

dom tsites 'view=topn&table=sites&sort=live_bytes'
"$gcacc" top --group site --json -n 0 "$abs/long.gz" >"$abs/top-sites.json"
check_eq "topn callsites by live bytes: first" \
  "$(rows "$abs/tsites.dom.html" topn-row data-id | head -n 1)" \
  "$(jq -r '.top[0].id' "$abs/top-sites.json")"
"$gcacc" top --group site --session --json -n 0 "$abs/long.gz" \
  >"$abs/top-session.json"
check_eq "topn callsites: every callsite of the session listed" \
  "$(attr "$abs/tsites.dom.html" '<table id="topn-table"' data-matching)" \
  "$(jq '.top | length' "$abs/top-session.json")"
dom filter 'view=topn&table=sites&sort=alloc_bytes&q=spike_path'
check_eq "topn filter spike_path: rows" \
  "$(attr "$abs/filter.dom.html" '<table id="topn-table"' data-matching)" 1
cells "$abs/filter.dom.html" topn-row | grep -q 'spike_path' &&
  ok "topn filter: the row names spike_path" ||
  fail "topn filter: $(cells "$abs/filter.dom.html" topn-row)"
dom asc 'view=topn&table=types&sort=alloc_bytes&dir=asc'
a=$(rows "$abs/asc.dom.html" topn-row data-alloc-bytes | head -n 1)
z=$(rows "$abs/asc.dom.html" topn-row data-alloc-bytes | tail -n 1)
[ -n "$a" ] && [ "$a" -le "$z" ] && ok "topn ascending: $a .. $z" ||
  fail "topn ascending: first '$a', last '$z'"

# --- TopN of a sampled profile: the samples behind each estimate -------
# After live and allocated objects, n (samples_live, samples_alloc) with
# its relative error, about 1/sqrt(n); the exact dump's page has neither.
grep -q 'data-key="samples_' "$abs/long.html" &&
  fail "topn, exact dump: sample columns" || ok "topn, exact dump: no n"
GC_ACC_PROFILE=sampled=4096 GC_ACC_DUMP="$abs/sampled.gz" "$load" 1000 1 \
  >/dev/null || fail "longload (sampled)"
"$gcacc" report -o "$abs/sampled.html" "$abs/sampled.gz" ||
  fail "gcacc report (sampled)"
run_chromium --virtual-time-budget=5000 --dump-dom \
  "file://$abs/sampled.html#view=topn&table=types&sort=samples_live" \
  >"$abs/sampled.dom.html" || true
check_eq "topn, sampled: the n columns" "$(grep -o \
  'data-key="samples_[a-z]*"' "$abs/sampled.dom.html" | tr '\n' ' ')" \
  'data-key="samples_live" data-key="samples_alloc" '
check_eq "topn, sampled: sorted by" \
  "$(attr "$abs/sampled.dom.html" '<table id="topn-table"' data-sort)" \
  samples_live
id=$(rows "$abs/sampled.dom.html" topn-row data-id | head -n 1)
n=$(rows "$abs/sampled.dom.html" topn-row data-samples-live | head -n 1)
"$gcacc" top --group type --json -n 0 "$abs/sampled.gz" >"$abs/sampled.json"
check_eq "topn, sampled: the first row's n is top's" "$n" \
  "$(jq '[.top[].samples_live] | max' "$abs/sampled.json")"
check_eq "topn, sampled: type $id's n is top's" "$n" \
  "$(jq --argjson id "${id:-0}" '.top[] | select(.id == $id)
     | .samples_live' "$abs/sampled.json")"
e=$(LC_ALL=C awk -v n="${n:-0}" 'BEGIN { e = 100 / sqrt(n)
  printf(e >= 9.5 ? "%d (\302\261%.0f%%)" : "%d (\302\261%.1f%%)", n, e) }')
cells "$abs/sampled.dom.html" topn-row | head -n 1 | grep -qF "|$e|" &&
  ok "topn, sampled: the first row says $e" ||
  fail "topn, sampled: '$e' not in $(cells "$abs/sampled.dom.html" \
    topn-row | head -n 1)"

# --- an estimate beside an exact total (issue 34) -----------------------
# The Frames view's shares: a frame's type and callsite estimates over
# its exact bytes (kind_rows) once read 103.5%.  Frame 500's row bytes
# tripled with jq (estimates over the exact total, as sampling can give):
# every share is at most 100% (of the estimates' sum), and the cells say
# why.
bcol=$(zcat "$abs/sampled.gz" | head -n 1 |
  jq '.columns["frame.rows"] | index("bytes")')
zcat "$abs/sampled.gz" | jq -c --argjson b "${bcol:-3}" '
  if .record == "frame" and .frame == 500 then
    .rows |= map(.[$b] *= 3) else . end' | gzip > "$abs/over.gz"
"$gcacc" report -o "$abs/over.html" "$abs/over.gz" ||
  fail "gcacc report (over)"
run_chromium --virtual-time-budget=5000 --dump-dom \
  "file://$abs/over.html#view=frames&sel=500-500" >"$abs/over.dom.html" ||
  true
shares=$(cells "$abs/over.dom.html" ft-row | awk -F'|' '{ print $4 }')
[ -n "$shares" ] && ok "frames, estimates over exact: shares $(echo $shares)" ||
  fail "frames, estimates over exact: no type rows"
echo "$shares" | tr -d '~%' | awk '$1 > 100 { bad = 1 } END { exit bad }' &&
  ok "frames, estimates over exact: no share over 100%" ||
  fail "frames, estimates over exact: a share over 100%: $(echo $shares)"
grep -q 'title="The estimates add up to' "$abs/over.dom.html" &&
  ok "frames, estimates over exact: the cells say why" ||
  fail "frames, estimates over exact: no explanation on the cells"

# --- screenshots and timing ---------------------------------------------
for v in frames topn; do
  s0=$(date +%s%N)
  run_chromium --screenshot="$abs/$v.png" "file://$abs/long.html#view=$v" \
    >/dev/null || true
  s1=$(date +%s%N)
  ms=$(((s1 - s0) / 1000000))
  sz=$(wc -c <"$abs/$v.png" 2>/dev/null || echo 0)
  [ "$sz" -gt 20000 ] && ok "$v.png: $sz bytes, $ms ms to screenshot" ||
    fail "$v.png missing or blank ($sz bytes)"
  [ "$ms" -lt 60000 ] && ok "$v: screenshot in $ms ms" ||
    fail "$v: the screenshot took $ms ms"
done
# The page's own mark, in real time (no virtual time budget).
run_chromium --dump-dom "file://$abs/long.html#view=frames" \
  >"$abs/timing.dom.html" || true
ready=$(attr "$abs/timing.dom.html" '<html' data-ready-ms)
script=$(attr "$abs/timing.dom.html" '<html' data-script-ms)
echo "first paint: views drawn ${ready:-?} ms after navigation started," \
  "${script:-?} ms of it in the page's script"
[ -n "$ready" ] && [ "$ready" -lt 10000 ] &&
  ok "views drawn in $ready ms" || fail "views drawn in '$ready' ms"
[ -n "$script" ] && [ "$script" -lt 3000 ] &&
  ok "the script took $script ms" || fail "the script took '$script' ms"
echo "$size bytes; views drawn ${ready:-?} ms after navigation started" \
  "(${script:-?} ms in the script); $lastgc collections, $frames frames" \
  >"$abs/timing.txt"

echo "report_views.sh: $checks checks, $fails failed (files in $abs)"
[ "$fails" -eq 0 ]
