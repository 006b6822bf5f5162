#!/bin/sh
# SPDX-License-Identifier: MIT
# leaks_evidence.sh: `gcacc leaks` says how strong its evidence is
# (issue 34): a leak is growth that goes on while the program repeats
# the same work, not a program building its data once.  On the
# workload (tests/cli/workload.c):
#   - keep, keep-frames (build-then-keep, no churn, without and with frame
#     markers): the growing classes reported as weak evidence, "little
#     churn", exit 0;
#   - load, load-frames (the leak mode's frames, keeping more only for the
#     first 3/4 of the session: a loading phase that stops): weak, "growth
#     stops", exit 0;
#   - leak (no markers, churn) and typed (frame markers): strong, exit 1,
#     with the reason; the evidence table says what the session showed.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

for m in keep keep-frames load load-frames leak typed; do make_dump "$m"; done
cb=$(val leak leak_class_bytes)
label=$(size_label "$cb")

# weak MODE REASON: every row weak for REASON, the leaking class among
# them, exit 0, and the table says so.
weak() {
  run "$GCACC" leaks --json "$tmp/$1.gz"
  check_eq "$1: exit" "$rc" 0
  cp "$tmp/out" "$tmp/$1.json"
  check_eq "$1: the class reported" "$(jq -r --arg c "$label" \
    '[.leaks[] | select(.class == $c)] | length' "$tmp/$1.json")" 1
  check_eq "$1: every row weak, $2" "$(jq -r \
    '[.leaks[] | .level + " " + .reason] | unique | join(",")' \
    "$tmp/$1.json")" "weak $2"
  run "$GCACC" leaks "$tmp/$1.gz"
  check_eq "$1 table: exit" "$rc" 0
  check_grep "$1 table: weak evidence" "$tmp/out" \
    "weak evidence, not counted as a leak (size classes):"
  check_grep "$1 table: the reason" "$tmp/out" "  $2:"
  check_grep "$1 table: no leak" "$tmp/out" "no (kind, class) leaks over"
  check_width "$1 table" "$tmp/out"
  run "$GCACC" leaks --csv "$tmp/$1.gz"
  check_eq "$1 --csv: exit" "$rc" 0
  check_eq "$1 --csv: level and reason" \
    "$(sed -n 1p "$tmp/out" | cut -d, -f8-)" "level,reason"
}
weak keep "little churn"
weak keep-frames "little churn"
weak load "growth stops"
weak load-frames "growth stops"
# The evidence: no churn in keep (allocated = kept, within 10%), the
# markers seen; load churns (the leak mode's work).
check_range "keep: churn about 1 (x1000)" \
  "$(jq '.evidence[0].churn * 1000 | floor' "$tmp/keep.json")" 900 1100
check_eq "keep: no frame markers" "$(jq '.evidence[0].frames' \
  "$tmp/keep.json")" 0
check_eq "keep-frames: the markers" "$(jq '.evidence[0] | [.frames,
  .framed] | map(tostring) | join(" ")' -r "$tmp/keep-frames.json")" "200 1"
check_range "load: churn over 4 (x1000)" \
  "$(jq '.evidence[0].churn * 1000 | floor' "$tmp/load.json")" 4000 1000000

# The leaks found: strong, exit 1.
run "$GCACC" leaks --json "$tmp/leak.gz"
check_eq "leak: exit" "$rc" 1
check_eq "leak: strong, by churn" "$(jq -r '.leaks[] | [.class, .level,
  .reason] | join(",")' "$tmp/out")" "$label,strong,churn"
check_eq "leak: the evidence, no markers" \
  "$(jq '.evidence[0] | .frames + .framed' "$tmp/out")" 0
run "$GCACC" leaks "$tmp/leak.gz"
check_grep "leak table: the evidence" "$tmp/out" \
  "evidence: allocated "
run "$GCACC" leaks --json "$tmp/typed.gz"
check_eq "typed: exit" "$rc" 1
check_eq "typed: strong by frame markers" "$(jq -r '[.leaks[], .leak_types[],
  .leak_sites[] | .level + " " + .reason] | unique | join(",")' \
  "$tmp/out")" "strong frame markers"
check_eq "typed: LeakNode" "$(jq -r '[.leak_types[].type] | join(",")' \
  "$tmp/out")" LeakNode

finish
