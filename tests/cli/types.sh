#!/bin/sh
# SPDX-License-Identifier: MIT
# types.sh: the type and callsite views on the workload's `typed` dump
# (tests/cli/workload.c): three call paths with three explicit types, one
# of them (typed_leak, LeakNode) keeping its objects forever.  top ranks
# the leaking type and callsite first (the callsite's innermost frame
# inside typed_leak by nm and the dump's module map, or by name once
# symbolized); leaks finds that type and callsite and nothing else;
# timeline --frames has one row per frame with the objects the workload
# allocates per frame; summary counts accounting memory, types and sites;
# report has the top-types and top-sites tables.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump typed
d=$tmp/typed.gz
frames=$(val typed frames)
fobjs=$(val typed frame_objs)
ltype=$(val typed leak_type)
lfunc=$(val typed leak_func)

# top: the default group of a typed dump is type; LeakNode first.
run "$GCACC" top --json "$d"
check_eq "top (default group): exit" "$rc" 0
check_eq "top (default group): first" "$(jq -r '.top[0].type' "$tmp/out")" \
  "$ltype"
run "$GCACC" top --group type --by live --json "$d"
check_eq "top --group type: first" "$(jq -r '.top[0].type' "$tmp/out")" \
  "$ltype"
check_eq "top --group type: LeakNode live_objs" \
  "$(jq -r '.top[0].live_objs' "$tmp/out")" "$(val typed leaked_objs)"
run "$GCACC" top --group type --session --json "$d"
check_eq "top --group type --session: first" \
  "$(jq -r '.top[0].type' "$tmp/out")" "$ltype"
run "$GCACC" top --group class --json "$d"
check_eq "top --group class: columns" "$(jq -r '.top[0] | has("kind")' \
  "$tmp/out")" true
run "$GCACC" top --group nonsense "$d"
check_eq "top --group nonsense: exit" "$rc" 2

# top --group site, raw: module+offset inside typed_leak (nm).
run "$GCACC" top --group site --json "$d"
check_eq "top --group site: exit" "$rc" 0
site=$(jq -r '.top[0].id' "$tmp/out")
frame0=$(jq -r '.top[0].stack' "$tmp/out" | sed 's/ < .*//')
exe=$(zcat "$d" | head -1 | jq -r '.modules[0].path')
mod=$(basename "$exe")
off=$(printf '%s\n' "$frame0" | sed -n "s/^$mod+0x\\([0-9a-f]*\\)\$/\\1/p")
ok
if [ -z "$off" ]; then
  fail "top --group site: '$frame0' is not $mod+0x..."
elif command -v nm >/dev/null 2>&1; then
  # typed_leak's [start, start + size) from the symbol table.
  range=$(nm -S "$exe" | awk -v f="$lfunc" '$4 == f { print $1, $2 }')
  if [ -z "$range" ]; then
    fail "nm: no $lfunc in $exe"
  else
    set -- $range
    in=0
    [ $((0x$off)) -ge $((0x$1)) ] && [ $((0x$off)) -lt $((0x$1 + 0x$2)) ] \
      && in=1
    check_eq "top --group site: $frame0 in $lfunc" "$in" 1
  fi
fi

# --symbolize: the name, through DUMP.symbols.
if command -v addr2line >/dev/null 2>&1; then
  run "$GCACC" top --group site --symbolize --json "$d"
  check_eq "--symbolize: exit" "$rc" 0
  check_eq "--symbolize: first" "$(jq -r '.top[0].stack' "$tmp/out" \
    | sed 's/ < .*//')" "$lfunc"
  check_eq "--symbolize: cache" "$(test -s "$d.symbols" && echo yes)" yes
  run "$GCACC" top --group site -n 1 "$d"
  check_grep "cached names in the table" "$tmp/out" "$lfunc"
fi

# leaks: the leaking type and callsite, nothing else.
run "$GCACC" leaks --json "$d"
check_eq "leaks: exit" "$rc" 1
check_eq "leaks: types" "$(jq -r '[.leak_types[].type] | join(",")' \
  "$tmp/out")" "$ltype"
check_eq "leaks: sites" "$(jq -r '[.leak_sites[].id] | join(",")' \
  "$tmp/out")" "$site"
check_range "leaks: LeakNode old share at the end (%)" \
  "$(jq -r '.leak_types[0].old_end * 100 | floor' "$tmp/out")" 50 100
if [ -s "$d.symbols" ]; then
  run "$GCACC" leaks "$d"
  check_grep "leaks table: the stack" "$tmp/out" "$lfunc"
fi

# timeline --frames: one row per frame, the known objects per frame
# (a stray untyped object or two may land in a frame).
run "$GCACC" timeline --frames --csv "$d"
check_eq "--frames: exit" "$rc" 0
tail -n +2 "$tmp/out" >"$tmp/frames.csv"
check_eq "--frames: rows" "$(wc -l <"$tmp/frames.csv")" "$frames"
check_eq "--frames: numbered" "$(cut -d, -f1 "$tmp/frames.csv" | tail -1)" \
  $((frames - 1))
check_eq "--frames: objs out of range" "$(awk -F, -v n="$fobjs" \
  '$4 < n || $4 > n + 4' "$tmp/frames.csv" | wc -l)" 0
check_range "--frames: frames with exactly $fobjs" "$(awk -F, -v n="$fobjs" \
  '$4 == n' "$tmp/frames.csv" | wc -l)" $((frames * 9 / 10)) "$frames"
run "$GCACC" timeline --frames --json "$d"
check_eq "--frames --json: rows" "$(jq '.frames | length' "$tmp/out")" \
  "$frames"

# summary: accounting memory, types and sites.
run "$GCACC" summary --json "$d"
check_eq "summary: exit" "$rc" 0
check_range "summary: acc_memory_peak_bytes > 0" \
  "$(jq -r '.summary[0].acc_memory_peak_bytes' "$tmp/out")" 1 1000000000
check_eq "summary: types" "$(jq -r '.summary[0].types' "$tmp/out")" 3
check_range "summary: sites" "$(jq -r '.summary[0].sites' "$tmp/out")" 3 10

# report: the tables at the peak.
run "$GCACC" report -o "$tmp/r.html" "$d"
check_eq "report: exit" "$rc" 0
check_grep "report: top-types" "$tmp/r.html" 'id="top-types"'
check_grep "report: top-sites" "$tmp/r.html" 'id="top-sites"'
check_eq "report: first type" "$(grep -m1 'class="type-row"' "$tmp/r.html" \
  | sed 's/.*data-label="\([^"]*\)".*/\1/')" "$ltype"
check_eq "report: first site" "$(grep -m1 'class="site-row"' "$tmp/r.html" \
  | sed 's/.*data-id="\([0-9]*\)".*/\1/')" "$site"

finish
