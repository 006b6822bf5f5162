#!/bin/sh
# SPDX-License-Identifier: MIT
# bound.sh: a retention walk against its time bound (issue 37), with
# boundload (64 MB of 128-byte objects in lists side by side, a Leak at
# the end of each of the last 5 lists, 66 references from the root):
#   - a bound of 2 ms: the record says timed out and partial, its bound
#     2 ms; the walk stopped well short of the heap (fewer than half the
#     objects visited: breadth first then depth first for 2 ms reach a
#     small part of 2 million objects even at 10 ns an object), and the
#     world was stopped for at most a second (a walk that ignored its
#     clock would have gone on over the whole heap; a second leaves room
#     for a loaded machine's scheduling);
#   - no bound (60 s): all 5 found, not partial, and each path true to
#     what boundload built: from the static `heads` to its array, then
#     through the array's word LIST to the list's head, each later step
#     through word 1 (next), ending at that list's leak (or, from a stale
#     stack copy of a node of the list, that node on along the list); a
#     path found depth first (after one
#     marking's time breadth first) is marked not shortest, one found
#     breadth first is the shortest (66 steps here).
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${BOUNDLOAD:-./tests/retain/boundload}
need jq

run() {  # run NAME PAUSE_MS
  if [ -n "${RETAIN_UNITY:-}" ]; then
    GCACC_UNITY_DUMP=$tmp/$1.gz $LOAD 64 "$2" > "$tmp/$1.truth"
  else
    GC_ACC_DUMP=$tmp/$1.gz $LOAD 64 "$2" > "$tmp/$1.truth"
  fi || { echo "FAIL: boundload 64 $2 exited $?"; exit 1; }
  gzip -dc "$tmp/$1.gz" | jq -c 'select(.record == "retain")' > "$tmp/$1.json"
  check "$1: one retain record" test "$(wc -l < "$tmp/$1.json")" -eq 1
}

run bound 2
R=$tmp/bound.json
nodes=$(sed -n 's/^nodes //p' "$tmp/bound.truth")
check "bound: timed out and partial, its bound 2 ms" test \
  "$(jq -c '[.timed_out, .partial, .time_cap_ns]' "$R")" = "[1,1,2000000]"
check "bound: fewer than half the $nodes objects visited ($(jq .visited "$R"))" \
  test "$(jq .visited "$R")" -lt $((nodes / 2))
check "bound: the world stopped under a second ($(jq .walk_ns "$R") ns)" \
  test "$(jq .walk_ns "$R")" -lt 1000000000

run free 60000
F=$tmp/free.json
t=$tmp/free.truth
hv=$(sed -n 's/^heads_var //p' "$t")
ha=$(sed -n 's/^heads_array //p' "$t")
len=$(sed -n 's/^list_len //p' "$t")
check "free: 5 found, not partial" test "$(jq -c '[.found, .partial]' "$F")" \
  = "[5,0]"
# Each path: "kind addr depth first_addr list_word later_words last shortest"
jq -r '.paths[] | [.root.kind, (.root.addr // "-"), .depth, .steps[0][0],
  (.steps[1][5] // "-"), ([.steps[2:][] | .[5]] | unique | map(tostring) |
  join(",") | if . == "" then "-" else . end), .steps[-1][0], .shortest] |
  map(tostring) | join(" ")' "$F" > "$tmp/paths"
bad=0
while read -r k a d first lw later last sh; do
  if [ "$k" = stack ]; then    # a stale copy of a node of the list
    grep -q "^leak [0-9]* $last\$" "$t" && { [ "$d" = 1 ] ||
      { [ "$d" -le $((len + 1)) ] && { [ "$d" = 2 ] || [ "$later" = 1 ]; } &&
        [ "$lw" = 1 ]; }; } || bad=$((bad + 1))
    continue
  fi
  list=$(sed -n "s/^leak \\([0-9]*\\) $last\$/\\1/p" "$t")
  [ "$k" = static ] && [ "$a" = "$hv" ] && [ "$first" = "$ha" ] &&
    [ -n "$list" ] && [ "$lw" = "$list" ] && [ "$later" = 1 ] &&
    [ "$d" = $((len + 2)) ] || bad=$((bad + 1))
done < "$tmp/paths"
check "free: every path true to what boundload built" test "$bad" = 0
check "free: breadth first paths marked shortest, depth first ones not" \
  test "$(jq -c '[.depth_first, ([.paths[].shortest] | unique)]' "$F" |
  grep -c -E '^\[0,\[1\]\]$|^\[1,')" = 1
finish
