#!/bin/sh
# SPDX-License-Identifier: MIT
# estimates.sh: figures from a sampled object profile are marked as
# estimates in `gcacc diff` (issue 22's "profile": "sampled" header, until
# the collector writes it: hand-edited copies of two tests/cli/sameload
# dumps).  Checked: exact dumps show no "~" and "estimated": false; with
# either dump sampled, every type and callsite figure of the table is
# "~"-prefixed and no class or kind figure is, the note names the sample
# size (one size for both, each dump's, or which dump is exact), --json
# says "estimated": true and each session's, and the numbers are the
# dump's as they are (the collector scaled them: the reader must not
# scale again, stacks=sample or not).  top of a sampled dump whose rows
# carry no samples shows n 0 and no error.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/sameload
need jq

for m in a b; do
  GC_ACC_PROFILE=full GC_ACC_DUMP=$tmp/$m.gz $LOAD $m > /dev/null ||
    { echo "FAIL: sameload $m failed"; exit 1; }
done
# sampled IN OUT R [stacks]: IN with the header of a sampled profile,
# and the "samples" object its records carry (the reader trusts them).
sampled() {
  zcat "$1" | jq -c --argjson r "$3" --arg st "${4:-}" '
    if .record == "header" then .config.profile = "sampled"
      | .config.sample_bytes = $r
      | if $st != "" then .config.stacks = $st
          | .config.stacks_sample_bytes = 4096 else . end
    elif .record == "collection" or .record == "snapshot"
    then .samples = {taken: 0, dropped: 0, tracked: 0}
    else . end' | gzip > "$2"
}
sampled "$tmp/a.gz" "$tmp/as.gz" 524288
sampled "$tmp/b.gz" "$tmp/bs.gz" 524288
sampled "$tmp/b.gz" "$tmp/b64.gz" 65536 sample

# section FILE TITLE: the table under the line starting with TITLE.
section() {
  awk -v t="$2" 'index($0, t) == 1 { on = 1; getline; next }
    /^$/ { on = 0 } on' "$1"
}

$GCACC diff "$tmp/a.gz" "$tmp/b.gz" > "$tmp/exact"
check "exact: exit 0" test $? -eq 0
check "exact: no ~" sh -c "! grep -q '~' '$tmp/exact'"
$GCACC diff --json --top 0 "$tmp/a.gz" "$tmp/b.gz" > "$tmp/exact.json"
check "exact: \"estimated\": false" \
  test "$(jq .estimated "$tmp/exact.json")" = false

# note FILE: the note, its lines (at most 78 columns) joined.
note() { awk '/^~ / { on = 1 } /^$/ { on = 0 } on' "$1" | tr '\n' ' ' |
  sed 's/ $//'; }
$GCACC diff "$tmp/as.gz" "$tmp/bs.gz" > "$tmp/est"
check "sampled: exit 0" test $? -eq 0
check "note lines fit 80 columns" test "$(awk 'length > 80 && /~ figures|sampled alloc|bytes on average/' \
  "$tmp/est" | wc -l)" -eq 0
check "sampled: the note" test "$(note "$tmp/est")" = '~ figures by type and callsite are estimated from sampled allocations, one sample per 524288 bytes on average'
for t in "Per type" "Per callsite"; do
  section "$tmp/est" "$t" > "$tmp/rows"
  check "$t: rows" test -s "$tmp/rows"
  # Every figure of the row (the last four fields after the key) has ~
  # (a change within sampling noise in parentheses: "(~-1.2 KiB)").
  check "$t: every figure ~" test "$(awk '{ n = 0
    for (i = 1; i <= NF; i++) if ($i ~ /^\(?~/) n++; if (n != 4) print }' \
    "$tmp/rows" | wc -l)" -eq 0
done
for t in "Per size class" "Per kind"; do
  section "$tmp/est" "$t" > "$tmp/rows"
  check "$t: rows, no ~" sh -c "test -s '$tmp/rows' && ! grep -q '~' '$tmp/rows'"
done
$GCACC diff --json --top 0 "$tmp/as.gz" "$tmp/bs.gz" > "$tmp/est.json"
check "sampled: \"estimated\": true" \
  test "$(jq .estimated "$tmp/est.json")" = true
check "sampled: each session estimated, 524288" test "$(jq -c \
  '[.sessions[] | [.estimated, .sample_bytes]]' "$tmp/est.json")" = \
  '[[1,524288],[1,524288]]'
# (The noise columns differ: the exact dumps' changes have none.)
figs='[.types, .sites] | map(map(del(.live_change_noise_bytes,
  .live_change_significant)))'
check "sampled: the dumps' figures, not scaled again" test "$(jq -c \
  "$figs" "$tmp/est.json")" = "$(jq -c "$figs" "$tmp/exact.json")"

$GCACC diff "$tmp/a.gz" "$tmp/bs.gz" > "$tmp/one"
check "one sampled: the note names it" test "$(note "$tmp/one")" = "~ figures by type and callsite are estimated from sampled allocations (dump b: one sample per 524288 bytes on average; dump a's are exact)"
section "$tmp/one" "Per type" > "$tmp/rows"
check "one sampled: type figures ~" grep -q '~' "$tmp/rows"
section "$tmp/one" "Per size class" > "$tmp/rows"
check "one sampled: class figures exact" sh -c "! grep -q '~' '$tmp/rows'"
$GCACC diff --json --top 0 "$tmp/as.gz" "$tmp/b64.gz" > "$tmp/two.json"
$GCACC diff "$tmp/as.gz" "$tmp/b64.gz" > "$tmp/two"
check "two sizes: both in the note" test "$(note "$tmp/two")" = '~ figures by type and callsite are estimated from sampled allocations, one sample per 524288 bytes on average in dump a, per 65536 bytes in dump b'
sfigs='.sites | map(del(.live_change_noise_bytes, .live_change_significant))'
check "stacks=sample too: callsites not scaled again" test "$(jq -c \
  "$sfigs" "$tmp/two.json")" = "$(jq -c "$sfigs" "$tmp/exact.json")"
# top: a row's n is the samples behind it, none in these (exact rows
# under a sampled header: samples_* 0): n 0, no error ("-", null), no
# division by zero.
$GCACC top --group type -n 0 --json "$tmp/as.gz" > "$tmp/top.json"
check "top: no samples: samples_live 0, live_error null" test "$(jq -c \
  '[.top[] | [.samples_live, .live_error, .samples_alloc, .alloc_error]]
   | unique' "$tmp/top.json")" = '[[0,null,0,null]]'
$GCACC top --group type -n 0 "$tmp/as.gz" > "$tmp/top"
check "top: no samples: the error columns say -" test "$(awk 'NR > 2 &&
  /^ *[0-9]/ && !/  -  .*  -  / ' "$tmp/top" | wc -l)" -eq 0
check "top: no inf, no nan" sh -c "! grep -qiE 'inf|nan' '$tmp/top'"
$GCACC top --group type -n 0 "$tmp/a.gz" > "$tmp/top.exact"
check "top, exact dump: no n column" sh -c "! grep -q '^n: ' '$tmp/top.exact'"
$GCACC diff --csv "$tmp/as.gz" "$tmp/bs.gz" > "$tmp/est.csv"
check "CSV: the sessions say estimated" \
  grep -q '^dump,records,live_gc_no,live_bytes,estimated,sample_bytes$' \
  "$tmp/est.csv"
finish
