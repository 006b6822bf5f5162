#!/bin/sh
# SPDX-License-Identifier: MIT
# why.sh: why is it alive (issue 37), against what retainload built (its
# stdout), one request per scenario:
#   - T.Static: 5 paths, depths 1..5, from the static list_head (its
#     address, and `gcacc why` names it list_head), each step the next
#     list node (word 1);
#   - the same list asked for by its callsite: 5 instances of that site,
#     the list's nodes among them (where stacks are told apart);
#   - T.Stack: one path of one step from the main thread's stack;
#   - T.Thread: one path of one step from another thread's stack;
#   - T.Deep: five chains, at least three whole: 10,000 steps from their
#     slot of chain_heads, every step the next word-1 link, ending at the
#     target (the others a tail of their chain, held nearer); those past
#     the breadth-first part from the marking's recorded parents;
#   - T.CycC: five cycles' A, B, C, each from its static slot;
#   - T.Precise: the reference from the typed holder's word 1 is precise;
#     T.Cons: from the plain holder's word 2, conservative;
#   - T.Fin: five held by the finalization queue (or a stale stack copy);
#   - T.Weak (only a disappearing link): found 0, no path;
#   - `gcacc why --json` and --csv carry the same paths; --type filters.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${RETAINLOAD:-./tests/retain/retainload}
need jq

# On Unity's fork (tests/unity/retain.sh: NO_GETENV) the program starts
# its dump itself (tests/unity/unity_init.c) and maps one heap section.
if [ -n "${RETAIN_UNITY:-}" ]; then
  GCACC_UNITY_DUMP=$tmp/r.gz GCACC_UNITY_HEAP=67108864 $LOAD > "$tmp/truth"
else
  GC_ACC_DUMP=$tmp/r.gz $LOAD > "$tmp/truth"
fi || { echo "FAIL: retainload exited $?"; exit 1; }
val() { sed -n "s/^$1 //p" "$tmp/truth"; }
gzip -dc "$tmp/r.gz" > "$tmp/r.jsonl"
# The retain record of a type, one line.
rec() { jq -c --arg t "$1" 'select(.record == "retain" and .request.type == $t)' \
  "$tmp/r.jsonl"; }
hex() { printf '0x%x' "$1"; }
for t in T.Static T.Stack T.Thread T.Deep T.CycC T.Precise T.Cons T.Fin T.Weak; do
  rec "$t" > "$tmp/$t.json"
  check "one retain record for $t" test "$(wc -l < "$tmp/$t.json")" -eq 1
  check "$t: not partial, not timed out" test "$(jq -c '[.partial,
    .timed_out]' "$tmp/$t.json")" = "[0,0]"
done

# T.Static: the list's first five nodes, shortest first.
S=$tmp/T.Static.json
check "static: 5 found" test "$(jq .found "$S")" = 5
check "static: depths 1..5" test "$(jq -c '[.paths[].depth]' "$S")" = "[1,2,3,4,5]"
check "static: every root is list_head" test "$(jq -r '[.paths[].root |
  select(.kind == "static") | .addr] | unique | .[]' "$S")" = \
  "$(hex "$(val static_root)")"
i=1
for a in $(val static_obj | awk '{ print $2 }'); do
  check "static: path $i ends at node $i" test "$(jq -r --argjson i $i \
    '.paths[$i - 1].steps[-1][0]' "$S")" = "$(hex "$a")"
  i=$((i + 1))
done
check "static: each step after the first is word 1" test "$(jq -r \
  '[.paths[].steps[1:][] | .[5]] | unique | .[]' "$S")" = 1

# The same list asked for by its callsite: the same paths.
jq -c --argjson s "$(val static_site)" 'select(.record == "retain" and
  .request.site == $s)' "$tmp/r.jsonl" > "$tmp/site.json"
check "site: one record for the list's callsite" test \
  "$(wc -l < "$tmp/site.json")" -eq 1
check "site: 5 found, each of that callsite" test "$(jq -c --argjson s \
  "$(val static_site)" '[.found, ([.paths[].steps[-1][4]] | unique)]' \
  "$tmp/site.json")" = "[5,[$(val static_site)]]"
# (On Unity's fork, built without frame pointers, every allocation has
# one stack: the site's instances are then any objects.)
[ -n "${RETAIN_UNITY:-}" ] ||
check "site: the list's paths among them" test "$(jq -c \
  '[.paths[] | select(.root.kind == "static") | .steps[-1][0]]' \
  "$tmp/site.json" | jq -r '.[]' | grep -c -F -f /dev/stdin "$S")" -ge 1
check "site: gcacc why --site keeps them" test "$($GCACC why --json --site \
  "$(val static_site)" "$tmp/r.gz" | jq '[.requests[].paths[]] | length')" -ge 5

# T.Stack: the main thread's stack, one step.
K=$tmp/T.Stack.json
check "stack: root is a stack" test "$(jq -r '.paths[0].root.kind' "$K")" = stack
check "stack: the main thread's" test "$(jq -r '.paths[0].root.main' "$K")" = 1
check "stack: one step, the object" test "$(jq -r '.paths[0].steps |
  length, .[0][0]' "$K" | tr '\n' ' ')" = "1 $(hex "$(val stack_obj)") "

# T.Thread: another thread's stack.
T=$tmp/T.Thread.json
check "thread: one path, one step, the object" test "$(jq -r '.found,
  (.paths[0].steps | length), .paths[0].steps[0][0]' "$T" | tr '\n' ' ')" = \
  "1 1 $(hex "$(val thread_obj)") "
check "thread: from a stack, not the main thread's nor the collector's" \
  test "$(jq -c '.paths[0].root | [.kind, .main, .collecting]' "$T")" = \
  '["stack",0,0]'

# T.Deep: five chains, each whole from its slot of chain_heads: DEEP_N
# steps, the head first, the target last, every later step through word
# 1, no object twice.  A stale stack copy (or the collector's own note of
# its last mapping, static data) may hold a chain nearer: such a path is
# the chain's tail, from a stack or static data.  At least 3 whole.
D=$tmp/T.Deep.json
n=$(val deep_n)
check "deep: 5 found" test "$(jq .found "$D")" = 5
jq -r '.paths[] | [.root.kind, (.root.addr // "-"), .depth, (.steps | length),
  .steps[0][0], .steps[-1][0], ([.steps[1:][] | .[5]] | unique | map(tostring)
  | join(",") | if . == "" then "-" else . end),
  (.steps | map(.[0]) | unique | length)] | join(" ")' "$D" \
  > "$tmp/deep.got"
val deep | while read -r slot head target; do
  echo "static $(hex "$slot") $n $n $(hex "$head") $(hex "$target") 1 $n"
done > "$tmp/deep.want"
val deep | while read -r slot head target; do hex "$target"; echo; done \
  > "$tmp/deep.targets"
whole=$(grep -c -x -F -f "$tmp/deep.want" "$tmp/deep.got")
check "deep: at least 3 whole chains of $n steps ($whole)" test "$whole" -ge 3
check "deep: every other path a chain's tail from a stack or static data" \
  test "$(grep -v -x -F -f "$tmp/deep.want" "$tmp/deep.got" |
  while read -r k a d l first last words uniq; do
    [ "$d" = "$l" ] && [ "$d" -lt "$n" ] && [ "$uniq" = "$d" ] &&
    { [ "$k" = stack ] || [ "$k" = static ]; } &&
    { [ "$d" = 1 ] || [ "$words" = 1 ]; } &&
    grep -qx "$last" "$tmp/deep.targets" || echo bad
  done | wc -l)" = 0
deep_whole=$([ "$whole" -ge 1 ] && echo 1 || echo 0)
# Breadth first for a quarter of the objects marked at most (issue 37's
# cost): the chains' far ends come from the parents the collection's
# marking recorded, not a second traversal, and are told not shortest.
check "deep: paths past the breadth-first part from the marking's parents" \
  test "$(jq -c '[.from_marking, .depth_first,
  ([.paths[] | select(.shortest == 0)] | length > 0)]' "$D")" = '[1,1,true]'
check "deep: the walk visited under half the heap's objects" \
  test "$(jq .visited "$D")" -lt "$(( $(val deep_n) * 5 / 2 ))"

# T.CycC: five cycles, each A -> B -> C from its slot of `cycles`; a
# stale stack copy of a C may hold it nearer (a true root, one step).
C=$tmp/T.CycC.json
check "cycle: 5 found" test "$(jq .found "$C")" = 5
jq -r '.paths[] | [.root.kind, .root.addr // "-", (.steps[][0])] | join(" ")' \
  "$C" > "$tmp/cyc.got"
val cycle | while read -r slot a b c; do
  echo "static $(hex "$slot") $(hex "$a") $(hex "$b") $(hex "$c")"
done > "$tmp/cyc.want"
val cycle | while read -r slot a b c; do
  echo "$(hex "$c")"
done > "$tmp/cyc.c"
check "cycle: each path a cycle's A, B, C from its slot, or a stack's C" \
  test "$(while read -r k addr rest; do
    if [ "$k" = stack ]; then grep -qx "$rest" "$tmp/cyc.c" && echo ok
    else grep -qx "$k $addr $rest" "$tmp/cyc.want" && echo ok; fi
  done < "$tmp/cyc.got" | grep -c ok)" = 5
check "cycle: at least 3 whole" test "$(grep -c '^static' "$tmp/cyc.got")" -ge 3

# Precise and conservative references: five objects from each holder;
# a stale copy of one on the stack may hold it nearer (a stack root, one
# step); every other path is holder -> object through one of the words
# that hold them, precise from the typed holder, conservative from the
# plain one.
holder_paths() {  # file holder objs... : paths through the holder, checked
  f=$1; h=$2; shift 2
  jq -c '.paths[] | [.root.kind, (.steps | map(.[0])), (.steps[-1][5:7])]' \
    "$f" > "$tmp/hp"
  good=0
  while read -r line; do
    for o in "$@"; do
      case $line in
        "[\"stack\",[\"$(hex "$o")\"],"*) good=$((good + 0)) ;;
        *"[\"$(hex "$h")\",\"$(hex "$o")\"]"*) good=$((good + 1)) ;;
      esac
    done
  done < "$tmp/hp"
  echo "$good"
}
P=$tmp/T.Precise.json
check "precise: 5 found" test "$(jq .found "$P")" = 5
check "precise: at least 4 through the typed holder" test \
  "$(holder_paths "$P" "$(val precise_holder)" $(val precise_obj))" -ge 4
check "precise: every path a stack root or holder -> object" test \
  "$(jq '[.paths[] | select(.root.kind == "stack" and .depth == 1
    or .depth == 2)] | length' "$P")" = 5
check "precise: through the holder, words 1..5, not conservative" test \
  "$(jq -c '[.paths[] | select(.depth == 2) | .steps[1][5:7] |
  select(.[0] < 1 or .[0] > 5 or .[1] != 0)] | length' "$P")" = 0
N=$tmp/T.Cons.json
check "conservative: 5 found" test "$(jq .found "$N")" = 5
check "conservative: at least 4 through the plain holder" test \
  "$(holder_paths "$N" "$(val cons_holder)" $(val cons_obj))" -ge 4
check "conservative: every path a stack root or holder -> object" test \
  "$(jq '[.paths[] | select(.root.kind == "stack" and .depth == 1
    or .depth == 2)] | length' "$N")" = 5
check "conservative: through the holder, words 2..6, conservative" test \
  "$(jq -c '[.paths[] | select(.depth == 2) | .steps[1][5:7] |
  select(.[0] < 2 or .[0] > 6 or .[1] != 1)] | length' "$N")" = 0

# Finalizer and disappearing link.
F=$tmp/T.Fin.json
check "finalizer: 5 found" test "$(jq .found "$F")" = 5
# The queue is a list of the collector's entries, each holding its
# object: an object's path is the entries before its own, then it (a
# stale stack copy of an entry or object may start it nearer).
check "finalizer: each from the queue or a stack" test "$(jq '[.paths[] |
  select(.root.kind == "finalizer" or .root.kind == "stack")] | length' \
  "$F")" = 5
check "finalizer: untyped queue entries, then the object" test "$(jq -c \
  '[.paths[] | (.steps[:-1][][3]), .steps[-1][3]] | unique' "$F")" = \
  '["0x0","0x710a"]'
check "finalizer: at least 3 from the queue" test "$(jq '[.paths[] |
  select(.root.kind == "finalizer")] | length' "$F")" -ge 3
check "disappearing link: not held" test "$(jq -r '.found, (.paths | length)' \
  "$tmp/T.Weak.json" | tr '\n' ' ')" = "0 0 "

# gcacc why: names the static, and the same paths in JSON and CSV.
$GCACC why "$tmp/r.gz" > "$tmp/why.txt" 2> "$tmp/why.err"
check "why exits 0" test $? -eq 0
check "why names list_head" grep -q '(list_head+0)' "$tmp/why.txt"
[ "$deep_whole" = 1 ] &&
  check "why names chain_heads" grep -q '(chain_heads+' "$tmp/why.txt"
check "why says the finalization queue" grep -q 'finalization queue' "$tmp/why.txt"
$GCACC why --json --type T.Deep "$tmp/r.gz" > "$tmp/why.json"
check "why --json --type: one request" test "$(jq '.requests | length' \
  "$tmp/why.json")" = 1
[ "$deep_whole" = 1 ] &&
  check "why --json: a deep path from chain_heads, $n steps" test "$(jq -r \
    '[.requests[0].paths[] | select(.root.symbol == "chain_heads") |
    .steps | length] | unique | .[]' "$tmp/why.json")" = "$n"
check "why --json: the last steps' type" test "$(jq -r \
  '[.requests[0].paths[].steps[-1].type] | unique | .[]' "$tmp/why.json")" = T.Deep
$GCACC why --csv --type T.Static "$tmp/r.gz" > "$tmp/why.csv"
check "why --csv: 15 steps for the 5 static paths" test \
  "$(($(wc -l < "$tmp/why.csv") - 1))" -eq 15
check "why --csv: header" test "$(head -1 "$tmp/why.csv")" = \
  "gc_no,request,path,depth,root,step,addr,kind,bytes,type,site,ref_word,conservative"

# Hostile retain records (nothing read from a dump is trusted): wrong
# types everywhere, a name with control characters, a root that is not
# an object; read without a crash, a warning for the malformed one, the
# name escaped.
head -n 1 "$tmp/r.jsonl" > "$tmp/h.jsonl"
cat >> "$tmp/h.jsonl" <<'EOR'
{"record":"retain","request":5,"paths":"x"}
{"record":"retain","gc_no":"x","request":{"type":"A\u0001\nB"},"found":"y","paths":[{"steps":[["zz",1],[1,2,3,4,5,6,7],["0x10",-5,-1,"0x1",0,9,1]],"root":7},5,{"steps":[]},{"steps":[[]],"root":{"kind":{"a":1},"addr":"0xffffffffffffffffff"}}],"names":[[1,2],"q",["0x1","N\u0007"]]}
EOR
gzip -c "$tmp/h.jsonl" > "$tmp/h.gz"
for f in "" --json --csv; do
  $GCACC why $f "$tmp/h.gz" > "$tmp/h.out" 2> "$tmp/h.err"
  check "hostile records ($f): exit 0" test $? -eq 0
  check "hostile records ($f): no raw control character" test \
    "$(tr -d '\n\t' < "$tmp/h.out" | LC_ALL=C grep -c '[[:cntrl:]]')" = 0
done
check "hostile records: the malformed one warned" grep -q 'retain record' \
  "$tmp/h.err"

finish
