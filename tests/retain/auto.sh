#!/bin/sh
# SPDX-License-Identifier: MIT
# auto.sh: GC_ACC_RETAIN=auto walks for what `gcacc leaks` names (issue
# 37), on autoload (its truth: one steady leak, T.Steady, beside a
# one-off step, a spike dropped, and a late burst that grew most between
# the first census and the last).  With the full profile and with trace
# (callsites): the types (callsites) auto asked for, in order, are the
# first 3 that `gcacc leaks` names on the same dump, T.Steady (its
# callsite, in grow_steady) among them, and none of the others; the
# paths start at the static `steady`.  The same on Unity's fork
# (tests/unity/retain.sh).
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${AUTOLOAD:-./tests/retain/autoload}
need jq

run() {   # profile, dump
  if [ -n "${RETAIN_UNITY:-}" ]; then
    GCACC_UNITY_DUMP=$2 GCACC_UNITY_HEAP=67108864 $LOAD "$1"
  else
    GC_ACC_DUMP=$2 $LOAD "$1"
  fi > "$tmp/truth.$1" || { echo "FAIL: autoload $1 exited $?"; exit 1; }
}

run full "$tmp/a.gz"
$GCACC leaks --json "$tmp/a.gz" > "$tmp/leaks.json"
$GCACC why --json "$tmp/a.gz" > "$tmp/why.json"
named=$(jq -c '[.leak_types[:3][].type]' "$tmp/leaks.json")
asked=$(jq -c '[.requests[] | select(.request.auto == 1) | .request.type]' \
  "$tmp/why.json")
check "leaks names T.Steady ($named)" test "$(jq '[.leak_types[] |
  select(.type == "T.Steady")] | length' "$tmp/leaks.json")" = 1
check "auto asks for what leaks names ($asked, leaks $named)" \
  test "$asked" = "$named"
check "auto: not the step, the spike or the late burst" test "$(jq '[.requests[] |
  select(.request.type == ("T.Step", "T.Spike", "T.Late"))] | length' \
  "$tmp/why.json")" = 0
root=$(sed -n 's/^steady_root //p' "$tmp/truth.full")
check "auto: T.Steady's paths from steady ($root)" test "$(jq -r '[.requests[] |
  select(.request.type == "T.Steady") | .paths[].root.addr] | unique | .[]' \
  "$tmp/why.json")" = "$root"

run trace "$tmp/s.gz"
$GCACC symbolize "$tmp/s.gz" > /dev/null 2>&1
$GCACC leaks --json "$tmp/s.gz" > "$tmp/sleaks.json"
$GCACC why --json "$tmp/s.gz" > "$tmp/swhy.json"
named=$(jq -c '[.leak_sites[:3][].id]' "$tmp/sleaks.json")
asked=$(jq -c '[.requests[] | select(.request.auto == 1 and .request.site)
  | .request.site]' "$tmp/swhy.json")
check "trace: leaks names a callsite ($named)" test "$named" != "[]"
check "trace: auto asks for the callsites leaks names ($asked, leaks $named)" \
  test "$asked" = "$named"
check "trace: the callsite is grow_steady's" test "$(jq -r '.leak_sites[0].stack' \
  "$tmp/sleaks.json" | grep -c grow_steady)" = 1
check "trace: the types as with full" test "$(jq -c '[.requests[] |
  select(.request.auto == 1 and .request.type) | .request.type]' \
  "$tmp/swhy.json")" = "$(jq -c '[.leak_types[:3][].type]' "$tmp/sleaks.json")"
finish
