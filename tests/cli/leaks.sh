#!/bin/sh
# SPDX-License-Identifier: MIT
# leaks.sh: `gcacc leaks` on the workload's dumps (tests/cli/workload.c):
# on `leak` exactly the leaking (kind, class) is reported, exit 1; on
# `steady` (the same churn and sawtooth cache, no leak) nothing, exit 0;
# --min-collections, usage errors, a truncated dump.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump leak
make_dump steady
leaked=$(val leak leaked_objs)
kept=$(val leak kept_objs)
cb=$(val leak leak_class_bytes)
label=$(size_label "$cb")

run "$GCACC" leaks --json "$tmp/leak.gz"
check_eq "leak: exit" "$rc" 1
cp "$tmp/out" "$tmp/leak.json"
check_eq "leak: one row" "$(jq '.leaks | length' "$tmp/leak.json")" 1
check_eq "leak: the class" \
  "$(jq -r '.leaks[0].kind + " " + .leaks[0].class' "$tmp/leak.json")" \
  "normal $label"
# The last window's lowest: at least the ring and 90% of the leak (the
# last window is the last tenth of the collections); at most all kept.
check_range "leak: end_bytes" "$(jq -r '.leaks[0].end_bytes' \
  "$tmp/leak.json")" $(((leaked * 85 / 100 + kept - leaked) * cb)) \
  $(((kept + 8) * cb))
check_range "leak: growth_bytes" "$(jq -r '.leaks[0].growth_bytes' \
  "$tmp/leak.json")" $((leaked * 70 / 100 * cb)) $((leaked * cb))
check_range "leak: slope_bytes" "$(jq -r '.leaks[0].slope_bytes' \
  "$tmp/leak.json")" 1 $((leaked * cb))
check_range "leak: rises" "$(jq -r '.leaks[0].rises' "$tmp/leak.json")" 7 9
run "$GCACC" leaks --csv "$tmp/leak.gz"
check_eq "leak --csv: exit" "$rc" 1
check_eq "leak --csv: same numbers" \
  "$(tail -n +2 "$tmp/out" | cut -d, -f3-7)" \
  "$(jq -r '.leaks[0] | [.start_bytes, .end_bytes, .growth_bytes,
     .slope_bytes, .rises] | map(tostring) | join(",")' "$tmp/leak.json")"
run "$GCACC" leaks "$tmp/leak.gz"
check_eq "leak table: exit" "$rc" 1
check_grep "leak table" "$tmp/out" "$label"
check_width "leaks table" "$tmp/out"

run "$GCACC" leaks --json "$tmp/steady.gz"
check_eq "steady: exit" "$rc" 0
check_eq "steady: no rows" "$(jq '.leaks | length' "$tmp/out")" 0
run "$GCACC" leaks "$tmp/steady.gz"
check_eq "steady table: exit" "$rc" 0
check_grep "steady table" "$tmp/out" "no (kind, class) grows steadily"
check_eq "steady: stderr" "$(wc -c <"$tmp/err")" 0

# Too few collections for a verdict: a warning, nothing reported.
run "$GCACC" leaks --min-collections 100000 "$tmp/leak.gz"
check_eq "--min-collections: exit" "$rc" 0
check_grep "--min-collections: warning" "$tmp/err" "no verdict"
run "$GCACC" leaks --min-collections 2 "$tmp/leak.gz"
check_eq "--min-collections 2: exit" "$rc" 2
run "$GCACC" leaks - <"$tmp/leak.gz"
check_eq "standard input: exit" "$rc" 2
# An output that cannot be written: exit 2 with the error, as every view
# (not 0 as if nothing leaked).
run "$GCACC" leaks -o "$tmp/no-such-dir/leaks.txt" "$tmp/leak.gz"
check_eq "unwritable -o: exit" "$rc" 2
check_grep "unwritable -o: message" "$tmp/err" "cannot write"
check_usage leaks

# A truncated dump: the first 60% still shows the leak, with a warning
# (once, not once per pass).
truncate_dump leak 60
run "$GCACC" leaks --json "$tmp/leak-cut.gz"
check_eq "truncated: exit" "$rc" 1
check_eq "truncated: one warning" "$(grep -c 'gcacc leaks: warning:' \
  "$tmp/err")" 1
check_eq "truncated: the class" \
  "$(jq -r '.leaks[] | .kind + " " + .class' "$tmp/out")" "normal $label"

finish
