#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_drift.sh: cg_drift (bench/common.sh), which make bench-instr and
# make bench-anchors read the heap's drift from, on callgrind files made
# here with known counts: self costs only (a cost line after calls= is
# the call's inclusive cost), names compressed as callgrind writes them
# ("fn=(7) name" once, then "fn=(7)"; cfn= shares the ids), recursion
# ('2) and clone (.constprop.0) suffixes folded, and every thread's file
# summed.
set -eu
: "${srcdir:=.}"
. "$srcdir/bench/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/cg.out-01" <<'CG'
# callgrind format
version: 1
positions: line
events: Ir
summary: 100000

ob=(1) /prog
fl=(1) allchblk.c
fn=(10) GC_allochblk
10 50
cfn=(11) GC_allochblk_nth
calls=3 700
11 9000
+1 5
fn=(11)
700 30
+2 7
fl=(2) mark.c
fn=(20) GC_mark_from
5 400
cfn=(21) GC_push_contents_hdr.constprop.0
calls=2 80
6 333
fn=(21)
80 20
fn=(22) GC_header_cache_miss'2
1 3
fn=(23) GC_mark_some
1 1000
cfn=(20)
calls=1 5
2 733
totals: 100000
CG
cat > "$tmp/cg.out-02" <<'CG'
# callgrind format
version: 1
positions: line
events: Ir
fl=(1) allchblk.c
fn=(5) GC_allochblk_nth
1 100
fn=(6) GC_mark_local
1 60
fn=(7) GC_freehblk
1 999
fn=(8) caller
1 1
cfn=(5)
calls=4 1
2 100
totals: 1160
CG

cg_drift "$tmp/cg.out"
# nth: 3 + 4 calls; blk: allochblk 50 + 5, nth 30 + 7 + 100;
# mark: mark_from 400, push_contents_hdr 20, cache miss 3, mark_local 60.
want="7 192 483"
got="$nth_calls $blk_ir $mark_ir"
if [ "$got" != "$want" ]; then
  echo "FAIL: cg_drift read '$got' (calls, block allocator, marking), want '$want'" >&2
  exit 1
fi
echo "cg_drift: $got"

# drift(), the one formula every bench script prints its drift with:
# visits 7 over the base's 5 at 100 instructions for 5 visits, and
# marking 483 over 400: 2 * 100 / 5 + 83.  Without the base's visits,
# marking alone.
got=$(awk "$bench_drift_awk"'BEGIN { print drift(7, 5, 100, 483, 400), drift(7, 0, 100, 483, 400), drift(3, 5, 100, 400, 483) }')
want="123 83 -123"
if [ "$got" != "$want" ]; then
  echo "FAIL: drift() gave '$got', want '$want'" >&2
  exit 1
fi
# No bench script keeps a copy of the formula of its own.
copies=$(grep -l 'bb / bt' "$srcdir"/bench/*.sh | grep -v '/common\.sh$' || true)
if [ -n "$copies" ]; then
  echo "FAIL: a copy of the drift formula outside bench/common.sh:" $copies >&2
  exit 1
fi
echo "drift(): $got"
