#!/bin/sh
# SPDX-License-Identifier: MIT
# retain_leak.sh: why is it alive (issue 37) on the il2cpp-shaped
# harness: its leak (Game.EventRecord, a list held by the static `g`'s
# leak_head) asked for through the environment alone
# (GC_ACC_RETAIN=type:Game.EventRecord, GC_ACC_TYPES=il2cpp):
#   - one retain record, 5 instances reached, not partial;
#   - every path ends at a Game.EventRecord and starts at static data
#     that `gcacc why` names `g`, at one offset (leak_head) for all;
#   - paths are 1..5 steps, each step after the first through one word
#     (the list's next field), every step a Game.EventRecord;
#   - GC_ACC_RETAIN=auto: at the dump's end, at most 3 type records
#     marked auto, one of them the leak's, its paths from g (and the
#     callsites the full profile samples, their paths to their own);
#   - GC_ACC_RETAIN=auto with callsites (GC_ACC_PROFILE=trace): the types
#     and, as `gcacc leaks` names them, the callsites: at most 3 of each,
#     one of them the leak's callsite (its stack through leak_function,
#     after symbolize), its paths from g to Game.EventRecord instances.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${GAMELOAD:-./tests/il2cpp/gameload}
need jq
need nm

GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=full GC_ACC_RETAIN_PAUSE=60000 GC_ACC_RETAIN=type:Game.EventRecord \
  GC_ACC_DUMP=$tmp/g.gz $LOAD game > "$tmp/expect" ||
  { echo "FAIL: gameload game exited $?"; exit 1; }
leak=$(sed -n 's/^leak_class //p' "$tmp/expect")
check "the harness names its leak ($leak)" test "$leak" = Game.EventRecord
$GCACC why --json "$tmp/g.gz" > "$tmp/why.json" 2> "$tmp/why.err"
check "gcacc why exits 0" test $? -eq 0
check "one request" test "$(jq '.requests | length' "$tmp/why.json")" = 1
R='.requests[0]'
check "for $leak" test "$(jq -r "$R.request.type" "$tmp/why.json")" = "$leak"
check "5 reached, not partial" test "$(jq -r "$R.found, $R.partial" \
  "$tmp/why.json" | tr '\n' ' ')" = "5 false "
check "depths 1..5" test "$(jq -c "[$R.paths[].depth]" "$tmp/why.json")" = \
  "[1,2,3,4,5]"
check "every root is static data named g" test "$(jq -r \
  "[$R.paths[].root | \"\(.kind) \(.symbol)\"] | unique | .[]" \
  "$tmp/why.json")" = "static g"
check "one offset in g for all (leak_head)" test "$(jq \
  "[$R.paths[].root.symbol_offset] | unique | length" "$tmp/why.json")" = 1
check "every step a $leak" test "$(jq -r "[$R.paths[].steps[].type] |
  unique | .[]" "$tmp/why.json")" = "$leak"
check "each later step through one word (next)" test "$(jq \
  "[$R.paths[].steps[1:][].ref_word] | unique | length" "$tmp/why.json")" = 1
check "the kind is named gcj" test "$(jq -r "[$R.paths[].steps[].kind] |
  unique | .[]" "$tmp/why.json")" = gcj

GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=full GC_ACC_RETAIN_PAUSE=60000 GC_ACC_RETAIN=auto \
  GC_ACC_DUMP=$tmp/a.gz $LOAD game > /dev/null ||
  { echo "FAIL: gameload game (auto) exited $?"; exit 1; }
$GCACC why --json "$tmp/a.gz" > "$tmp/auto.json" 2> "$tmp/auto.err"
check "auto: 1 to 3 type requests, all auto" test "$(jq '[.requests[] |
  select(.request.auto == 1 and .request.type)] | length' \
  "$tmp/auto.json")" -ge 1 -a \
  "$(jq '[.requests[] | select(.request.type)] | length' \
  "$tmp/auto.json")" -le 3 -a \
  "$(jq '[.requests[] | select(.request.auto != 1)] | length' \
  "$tmp/auto.json")" = 0
check "auto: the leak is among them" test "$(jq -r --arg l "$leak" \
  '[.requests[] | select(.request.type == $l)] | length' "$tmp/auto.json")" = 1
check "auto: the leak's paths from g" test "$(jq -r --arg l "$leak" \
  '[.requests[] | select(.request.type == $l) | .paths[].root.symbol] |
  unique | .[]' "$tmp/auto.json")" = g
check "auto: each callsite's paths end at instances of it" test "$(jq \
  '[.requests[] | select(.request.site) | .request.site as $s |
  .paths[].steps[-1].site | select(. != $s)] | length' "$tmp/auto.json")" = 0

GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=trace GC_ACC_RETAIN_PAUSE=60000 \
  GC_ACC_RETAIN=auto GC_ACC_DUMP=$tmp/s.gz $LOAD game > /dev/null ||
  { echo "FAIL: gameload game (auto, trace) exited $?"; exit 1; }
$GCACC symbolize "$tmp/s.gz" > /dev/null 2>&1
$GCACC why --json "$tmp/s.gz" > "$tmp/sites.json"
fn=$(sed -n 's/^leak_function //p' "$tmp/expect")
site=$($GCACC top --group site --json "$tmp/s.gz" | jq -r --arg f "$fn" \
  '[.top[] | select(.stack | split(" < ") | index($f))][0].id')
check "auto, trace: the leak's callsite is known ($site)" test -n "$site" -a \
  "$site" != null
check "auto, trace: 1 to 3 callsite requests, all auto" test "$(jq \
  '[.requests[] | select(.request.site and .request.auto == 1)] | length' \
  "$tmp/sites.json")" -ge 1 -a "$(jq '[.requests[] | select(.request.site)]
  | length' "$tmp/sites.json")" -le 3 -a "$(jq '[.requests[] |
  select(.request.type)] | length' "$tmp/sites.json")" -le 3
check "auto, trace: the leak's type among them" test "$(jq -r --arg l \
  "$leak" '[.requests[] | select(.request.type == $l)] | length' \
  "$tmp/sites.json")" = 1
S=".requests[] | select(.request.site == $site)"
check "auto, trace: the leak's callsite among them" test "$(jq "[$S] |
  length" "$tmp/sites.json")" = 1
check "auto, trace: its 5 paths end at $leak instances of that site" test \
  "$(jq -c "[$S | .found, ([.paths[].steps[-1] | [.type, .site]] | unique)]" \
  "$tmp/sites.json")" = "[5,[[\"$leak\",$site]]]"
check "auto, trace: its paths from g" test "$(jq -r "[$S | .paths[].root.symbol]
  | unique | .[]" "$tmp/sites.json")" = g
finish
