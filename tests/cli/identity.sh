#!/bin/sh
# SPDX-License-Identifier: MIT
# identity.sh: `gcacc diff` pairs one program's types and callsites across
# two processes (issue 23), though address-space randomisation moves every
# address.  tests/cli/sameload runs three times, as three processes: a1
# and a2 the same workload, b the same plus EXTRA_N objects of one class
# from one more call path.  Its types have no names but their addresses
# (gcj vtables in the executable's data and malloc'd, explicit cookies);
# the reader must match them by module + offset, or by their place among
# the heap's such addresses, never by raw address.  Checked: no raw
# address in any key, every type once (no class split into a + and a -
# row), every type and callsite of a1 against a2 unchanged within the
# collector's conservative slack, the expected keys (also without the
# binary on disk), b's class and call path first with the change b made,
# a threshold that the old pairing (by address) crossed.  Skips when the runs' addresses are equal
# (randomisation off: nothing to tell apart).
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=./tests/cli/sameload
need jq
need addr2line

for r in a1 a2 b; do
  GC_ACC_PROFILE=full GC_ACC_DUMP=$tmp/$r.gz $LOAD "$(echo "$r" | cut -c1)" > "$tmp/$r.out" ||
    { echo "FAIL: sameload $r failed"; exit 1; }
done
addrs() { awk '$1 ~ /vtable$|^cookie$/ { print $2 }' "$1"; }
if [ "$(addrs "$tmp/a1.out")" = "$(addrs "$tmp/a2.out")" ]; then
  echo "SKIP: the two runs' addresses are equal (address-space" \
       "randomisation off): nothing to pair"
  exit 77
fi

# Every address either run printed, as the collector writes cookies.
addrs "$tmp/a1.out" > "$tmp/raw"
addrs "$tmp/a2.out" >> "$tmp/raw"
addrs "$tmp/b.out" >> "$tmp/raw"

$GCACC diff --json --top 0 "$tmp/a1.gz" "$tmp/a2.gz" > "$tmp/d.json"
check "diff a1 a2 exits 0" test $? -eq 0
check "not estimated" test "$(jq .estimated "$tmp/d.json")" = false
jq -r '.types[].type, .sites[].stack' "$tmp/d.json" > "$tmp/keys"
check "no raw address in a type or callsite key" \
  test "$(grep -c -F -f "$tmp/raw" "$tmp/keys")" -eq 0
# Types: each defined once in a1; "(no type)" (the arrays that keep the
# objects) besides.
ndef=$(zcat "$tmp/a1.gz" | jq -s '[.[] | .types // [] | .[][0]] | unique
  | length')
nrows=$(jq '[.types[] | select(.type != "(no type)")] | length' "$tmp/d.json")
check "one row per type ($nrows rows, $ndef types defined)" \
  test "$nrows" -eq "$ndef"
check "type keys unique" test "$(jq '[.types[].type] | unique | length' \
  "$tmp/d.json")" -eq "$(jq '.types | length' "$tmp/d.json")"
# Unchanged within the collector's slack (a conservative collector may
# keep a few more or fewer dead objects): 2 KiB or 3%.
jq -r '(.types[] | [.type, .live_a_bytes, .live_b_bytes]),
       (.sites[] | [.stack, .live_a_bytes, .live_b_bytes]) | @tsv' \
  "$tmp/d.json" | awk -F'\t' '{ d = $3 - $2; if (d < 0) d = -d;
    if (d > 2048 && d * 100 > 3 * $2) print }' > "$tmp/moved"
check "a1 and a2: every type and callsite unchanged" test ! -s "$tmp/moved"
[ -s "$tmp/moved" ] && sed 's/^/  | /' "$tmp/moved"
nsite=$(jq '[.sites[] | select(.live_a_bytes > 0)] | length' "$tmp/d.json")
check "callsites with live bytes paired ($nsite)" test "$nsite" -ge 9

# The expected keys: static vtables and cookies at module + offset (the
# executable's base from a1's header), heap vtables from the lowest.
base=$(zcat "$tmp/a1.gz" | head -n 1 |
  jq -r '.modules[] | select(.path | endswith("/sameload")) | .base')
hmin=$(awk '$1 == "heap_vtable" { print $2 }' "$tmp/a1.out" | sort | head -n 1)
exp_key() {     # exp_key KIND ADDR: the key diff should print
  case $1 in
    static_vtable) printf 'gcj vtable sameload+0x%x' $(($2 - base)) ;;
    cookie) printf 'type sameload+0x%x' $(($2 - base)) ;;
    heap_vtable) printf 'gcj vtable heap1+0x%x' $(($2 - hmin)) ;;
  esac
}
while read -r kind addr n sz; do
  case $kind in static_vtable|heap_vtable|cookie) ;; *) continue ;; esac
  key=$(exp_key "$kind" "$addr")
  live=$(jq --arg k "$key" '[.types[] | select(.type == $k)
    | .live_a_bytes] | add // 0' "$tmp/d.json")
  check "$kind $key: at least $n x $sz live ($live)" \
    test "$live" -ge $((n * sz))
done < "$tmp/a1.out"
check "the named type by its name" test "$(jq '[.types[]
  | select(.type == "Named.Thing")] | length' "$tmp/d.json")" -eq 1

# Without the binary (moved, rebuilt: no image extent to tell the heap
# from the image), the same keys: an address in the image is at the same
# offset in both runs, a heap one is not.
for r in a1 a2; do
  zcat "$tmp/$r.gz" | jq -c 'if .record == "header" then .modules |=
    map(.path |= sub(".*/sameload$"; "/nonexistent/sameload")) else . end' |
    gzip > "$tmp/$r-nobin.gz"
done
$GCACC diff --json --top 0 "$tmp/a1-nobin.gz" "$tmp/a2-nobin.gz" \
  > "$tmp/dn.json" 2>/dev/null
check "without the binary: the same type keys" test \
  "$(jq -c '[.types[].type] | sort' "$tmp/dn.json")" = \
  "$(jq -c '[.types[].type] | sort' "$tmp/d.json")"

# The old pairing (by raw address) split each class into a + and a -
# row of its whole size: over 16 KiB.  Paired, nothing is.
$GCACC diff --threshold 16k "$tmp/a1.gz" "$tmp/a2.gz" > "$tmp/table" \
  2> "$tmp/err"
check "threshold 16k: a1 against a2 exits 0" test $? -eq 0
awk '/^Per type/ { on = 1; getline; next } /^$/ { on = 0 }
  on { sub(/ +[-+0-9.]+ [KMG]?i?B.*$/, ""); print }' "$tmp/table" |
  sort | uniq -d > "$tmp/twice"
check "the table names no type twice" test ! -s "$tmp/twice"

# b: its extra objects of heap class 1, from grow_extra, first.
n=$(sed -n 's/^extra_objs //p' "$tmp/b.out")
sz=$(sed -n 's/^extra_bytes //p' "$tmp/b.out")
key=$(exp_key heap_vtable "$(sed -n 's/^extra_vtable //p' "$tmp/a1.out")")
$GCACC symbolize "$tmp/a1.gz" > /dev/null 2>&1
$GCACC symbolize "$tmp/b.gz" > /dev/null 2>&1
$GCACC diff --json "$tmp/a1.gz" "$tmp/b.gz" > "$tmp/db.json"
check "diff a1 b exits 0" test $? -eq 0
check "b's class first ($key)" \
  test "$(jq -r '.types[0].type' "$tmp/db.json")" = "$key"
ch=$(jq '.types[0].live_change_bytes' "$tmp/db.json")
check "its change is b's $n x $sz bytes ($ch)" \
  test "$ch" -ge $((n * sz)) -a "$ch" -le $((n * (sz + 32)))
check "the other classes unchanged" test "$(jq --arg k "$key" '[.types[]
  | select(.type != $k and .type != "(no type)")
  | .live_change_bytes | if . < 0 then -. else . end
  | select(. > 2048)] | length' "$tmp/db.json")" -eq 0
check "b's call path first, by function name" \
  sh -c "jq -r '.sites[0].stack' '$tmp/db.json' | grep -q '< grow_extra <'"
# The path holds the objects and the array that keeps them (n words).
sch=$(jq '.sites[0].live_change_bytes' "$tmp/db.json")
check "its change: the objects and their array ($sch)" \
  test "$sch" -ge $((ch + n * 8)) -a "$sch" -le $((ch + n * 8 + 4096))
finish
