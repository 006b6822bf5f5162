#!/bin/sh
# SPDX-License-Identifier: MIT
# statics.sh: IL2CPP class static fields as roots (issue 37), against
# what staticsload built (il2cpp-shaped, the il2cpp type mode):
#   - Game.Listener: 5 paths, each from the uncollectable block of
#     Game.World's static fields, named after that class (statics_of
#     and "class" in the record, "the static fields of Game.World" in
#     `gcacc why`): the block first, then through its word 1 the list's
#     first listener, each later step through word 2 (next), the i-th
#     path ending at the i-th listener (depths 2..6);
#   - Game.Entry: 5 paths from Game.Registry's static fields (a static
#     class with no instance, found through the entries' declaring
#     type): the block, then the entry in word SLOT.
# A stale stack copy may hold an object nearer: such a path is one step
# from a stack to one of the objects built.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${STATICSLOAD:-./tests/retain/staticsload}
need jq

$LOAD "$tmp/s.gz" > "$tmp/truth" ||
  { echo "FAIL: staticsload exited $?"; exit 1; }
val() { sed -n "s/^$1 //p" "$tmp/truth"; }
gzip -dc "$tmp/s.gz" > "$tmp/s.jsonl"
rec() { jq -c --arg t "$1" 'select(.record == "retain" and .request.type == $t)' \
  "$tmp/s.jsonl"; }

for t in Game.Listener Game.Entry; do
  rec "$t" > "$tmp/$t.json"
  check "one retain record for $t" test "$(wc -l < "$tmp/$t.json")" -eq 1
  check "$t: 5 found, not partial" test "$(jq -c '[.found, .partial]' \
    "$tmp/$t.json")" = "[5,0]"
done

# Each path: "kind class block first_ref later_refs last depth"
paths() {
  jq -r '.paths[] | [.root.kind, (.root.class // "-"), .steps[0][0],
    (.steps[1][5] // "-"), ([.steps[2:][] | .[5]] | unique | map(tostring)
    | join(",") | if . == "" then "-" else . end), .steps[-1][0], .depth] |
    map(tostring) | join(" ")' "$1"
}
stack_ok() {  # stack_ok DEPTH LAST: one step to an object built
  [ "$1" = 1 ] && grep -q " $2\$" "$tmp/truth"
}

# judge FILE OK: each path a stack's one step (stack_ok) or what OK
# (kind class block first_ref later_refs last depth) accepts; sets bad
# (neither) and whole (OK's).
judge() {
  bad=0; whole=0
  paths "$1" > "$tmp/got"
  while read -r k c b r1 rl last d; do
    if [ "$k" = stack ]; then
      stack_ok "$d" "$last" || bad=$((bad + 1))
    elif "$2" "$k" "$c" "$b" "$r1" "$rl" "$last" "$d"; then
      whole=$((whole + 1))
    else
      bad=$((bad + 1))
    fi
  done < "$tmp/got"
}
listener_ok() {  # from World's statics, word 1, then next (word 2)
  i=$(val listener | sed -n "s/^\([0-9]*\) $6\$/\1/p")
  [ "$1" = uncollectable ] && [ "$2" = Game.World ] &&
    [ "$3" = "$(val world_statics)" ] && [ "$4" = 1 ] && [ -n "$i" ] &&
    [ "$7" = $((i + 1)) ] && { [ "$i" = 1 ] || [ "$5" = 2 ]; }
}
entry_ok() {     # from Registry's statics, its word SLOT
  [ "$1" = uncollectable ] && [ "$2" = Game.Registry ] &&
    [ "$3" = "$(val registry_statics)" ] && [ "$7" = 2 ] &&
    val entry | grep -qx "$4 $6"
}

L=$tmp/Game.Listener.json
judge "$L" listener_ok
check "listener: every path from Game.World's static fields, or a stack" \
  test "$bad" = 0
check "listener: at least 3 from Game.World's static fields ($whole)" \
  test "$whole" -ge 3
check "listener: statics_of is Game.World's class" test "$(jq -r \
  '[.paths[].root | select(.kind == "uncollectable") | .class] | unique |
  .[]' "$L")" = Game.World

judge "$tmp/Game.Entry.json" entry_ok
check "entry: every path from Game.Registry's static fields, or a stack" \
  test "$bad" = 0
check "entry: at least 3 from Game.Registry's static fields ($whole)" \
  test "$whole" -ge 3

$GCACC why "$tmp/s.gz" > "$tmp/why.txt"
check "gcacc why names the class whose static fields hold them" test \
  "$(grep -c 'static fields of Game.World' "$tmp/why.txt")" -ge 3 -a \
  "$(grep -c 'static fields of Game.Registry' "$tmp/why.txt")" -ge 3
check "gcacc why --json: the root's class" test "$($GCACC why --json \
  "$tmp/s.gz" | jq -r '[.requests[].paths[].root.class // empty] | unique |
  join(" ")')" = "Game.Registry Game.World"
finish
