#!/bin/sh
# SPDX-License-Identifier: MIT
# stack_depth.sh: `gcacc summary` shows the call stacks' depth (median and
# largest frame count) and warns when most have one frame (issue 33).
# tests/unit/test_nofp's `alloc` mode allocates through a chain of three
# functions built without frame pointers (rbp zeroed in the middle one):
#  - trace (a stack on every allocation: the frame-pointer walk) gives
#    one-frame stacks: median 1, the warning;
#  - the sampled profile (auto: the unwind tables) gives the chain and
#    more: median at least 3, no warning.
set -eu
gcacc=${GCACC:-./tools/gcacc/gcacc}
prog=./tests/unit/test_nofp
me=stack_depth.sh
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || { echo "$me: SKIP: jq not installed"; exit 77; }
[ -x "$prog" ] || fail "$prog not built"
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-depth.XXXXXX")
trap 'rm -rf "$t"' EXIT INT TERM

env -u GC_ACC_UNWIND GC_ACC_PROFILE=trace GC_ACC_DUMP="$t/trace.jsonl.gz" \
  "$prog" alloc > "$t/out" 2>&1 || { rc=$?; cat "$t/out"
  [ "$rc" -eq 77 ] && exit 77; fail "trace run exit $rc"; }
"$gcacc" summary "$t/trace.jsonl.gz" > "$t/s1" 2> "$t/e1" ||
  fail "summary of the trace dump failed: $(cat "$t/e1")"
grep -q 'stack depth, median (frames) *1$' "$t/s1" ||
  fail "trace: median depth not 1: $(grep 'stack depth' "$t/s1")"
grep -q 'call stacks have one frame' "$t/e1" ||
  fail "trace: no warning of one-frame stacks: $(cat "$t/e1")"

env -u GC_ACC_UNWIND GC_ACC_PROFILE=sampled=4096 \
  GC_ACC_DUMP="$t/sampled.jsonl.gz" "$prog" alloc > "$t/out" 2>&1 ||
  fail "sampled run exit $?"
"$gcacc" summary --json "$t/sampled.jsonl.gz" > "$t/s2" 2> "$t/e2" ||
  fail "summary of the sampled dump failed: $(cat "$t/e2")"
med=$(jq -r '.. | objects | select(has("stack_depth_median"))
             | .stack_depth_median' "$t/s2" | head -1)
max=$(jq -r '.. | objects | select(has("stack_depth_max"))
             | .stack_depth_max' "$t/s2" | head -1)
[ -n "$med" ] && [ "$med" -ge 3 ] ||
  fail "sampled: median depth '$med', expected 3 or more"
[ "$max" -ge "$med" ] || fail "sampled: largest depth $max < median $med"
! grep -q 'one frame' "$t/e2" || fail "sampled: a warning: $(cat "$t/e2")"
echo "$me: trace median 1 (warned), sampled median $med, largest $max"
