#!/bin/sh
# SPDX-License-Identifier: MIT
# typed.sh: types and call stacks through the reader, on two runs of
# tests/cli/typedload.c (a and b; b keeps 2500 more "Widget" objects
# from hoard_widgets(), and uses other cookies for the same type names):
# `symbolize` with no addresses resolves the dump's sites and fills the
# cache; `diff` ranks the Widget type and the hoard_widgets callsite
# first; `export --folded` has hoard_widgets' stack with the live bytes
# the dump's site rows give.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/typedload
need jq
need addr2line

GC_ACC_DUMP=$tmp/a.gz $LOAD a > /dev/null || { echo "typedload a failed"; exit 1; }
GC_ACC_DUMP=$tmp/b.gz $LOAD b > "$tmp/expect" || { echo "typedload b failed"; exit 1; }
gzip -dc "$tmp/b.gz" > "$tmp/b.jsonl"
fn=$(sed -n 's/^extra_function //p' "$tmp/expect")
ty=$(sed -n 's/^extra_type //p' "$tmp/expect")
n=$(sed -n 's/^extra_objs //p' "$tmp/expect")
nsites=$(jq -s '[.[] | .sites // [] | .[]] | length' "$tmp/b.jsonl")
check "b defines call stacks ($nsites)" test "$nsites" -ge 3

# symbolize, no addresses: every distinct return address of the sites.
naddr=$(jq -s '[.[] | .sites // [] | .[] | .[1:][]] | unique | length' \
  "$tmp/b.jsonl")
$GCACC symbolize "$tmp/b.gz" > "$tmp/sym" 2> "$tmp/symerr"
check "symbolize exits 0" test $? -eq 0
check "one line per distinct address ($naddr)" test \
  "$(grep -c '^0x' "$tmp/sym")" -eq "$naddr"
check "symbolize names $fn" grep -q " $fn .*typedload\.c:[0-9]*\$" "$tmp/sym"
check "cache written" grep -q "	$fn	" "$tmp/b.gz.symbols"
GCACC_SYMBOLIZE_STATS=1 $GCACC symbolize "$tmp/b.gz" > /dev/null 2> "$tmp/symerr2"
check "second run from the cache" grep -q "$naddr distinct addresses, $naddr from the cache" \
  "$tmp/symerr2"
$GCACC symbolize --sites "$tmp/b.gz" > "$tmp/sites"
check "--sites one header per site" test "$(grep -c '^site ' "$tmp/sites")" -eq "$nsites"
# The sites whose stack runs through hoard_widgets.
ids=$(awk -v f="$fn" '/^site / { id = $2 } $3 == f { print id }' "$tmp/sites" |
  sort -u | tr '\n' ' ')
check "sites through $fn found ($ids)" test -n "$ids"
idjson=$(echo "$ids" | jq -R 'split(" ") | map(select(. != "") | tonumber)')
# Their live bytes at the last census: the last row each has.
want=$(jq -s --argjson ids "$idjson" '[.[] | select(.record == "collection")
  | .site_rows // [] | .[] | select(.[0] as $i | $ids | index($i))]
  | group_by(.[0]) | map(last | .[2]) | add' "$tmp/b.jsonl")
check "hoard sites hold at least $n objects' bytes ($want)" test "$want" -ge $((n * 200))

# export --folded with real stacks.
$GCACC export --folded "$tmp/b.gz" > "$tmp/folded"
check "folded exits 0" test $? -eq 0
check "folded line shape" test "$(grep -cvE '^[^ ]+ [0-9]+$' "$tmp/folded")" -eq 0
check "folded outermost first" grep -q "main;run;$fn;make_typed \|main;$fn;make_typed " "$tmp/folded"
got=$(grep ";$fn;" "$tmp/folded" | awk '{ s += $2 } END { print s + 0 }')
check "folded $fn value = the dump's live bytes ($got = $want)" test "$got" -eq "$want"
$GCACC export --folded --bytes alloc "$tmp/b.gz" > "$tmp/folded2"
check "folded alloc has $fn" grep -q ";$fn;" "$tmp/folded2"
$GCACC export --folded --group type "$tmp/b.gz" > "$tmp/folded3" 2> /dev/null
check "folded --group type names $ty" grep -q "^$ty " "$tmp/folded3"
check "folded --group type: no spaces in frames" grep -q "^Gadget_part " "$tmp/folded3"

# diff: types by name (cookies differ), callsites by symbolized stack.
$GCACC symbolize "$tmp/a.gz" > /dev/null 2>&1
$GCACC diff --json "$tmp/a.gz" "$tmp/b.gz" > "$tmp/d.json"
check "diff exits 0" test $? -eq 0
check "changed type first" test "$(jq -r '.types[0].type' "$tmp/d.json")" = "$ty"
ch=$(jq '.types[0].live_change_bytes' "$tmp/d.json")
check "type live change >= $n * 200 ($ch)" test "$ch" -ge $((n * 200))
check "type live change < $n * 256 ($ch)" test "$ch" -lt $((n * 256))
check "Gadget part unchanged" test "$(jq '.types[] | select(.type == "Gadget part")
  | .live_change_bytes' "$tmp/d.json")" -eq 0
check "changed callsite first" sh -c "jq -r '.sites[0].stack' '$tmp/d.json' |
  grep -q '< $fn <'"
check "callsite change = the dump's ($want)" test \
  "$(jq '.sites[0].live_change_bytes' "$tmp/d.json")" -eq "$want"
check "classes still there" test "$(jq '.classes | length' "$tmp/d.json")" -gt 0
$GCACC diff "$tmp/a.gz" "$tmp/b.gz" > "$tmp/table"
check "table has the type rows" grep -q "^Per type" "$tmp/table"
check "table fits 80 columns" test "$(awk 'length > 80' "$tmp/table" | wc -l)" -eq 0
$GCACC diff --threshold $((n * 100)) "$tmp/a.gz" "$tmp/b.gz" > /dev/null 2> "$tmp/err"
check "threshold below the change exits 1" test $? -eq 1
check "threshold names the callsite or type" grep -q "$fn\|type $ty" "$tmp/err"
$GCACC diff --threshold 1k "$tmp/b.gz" "$tmp/b.gz" > /dev/null
check "a dump against itself exits 0" test $? -eq 0
finish -q
