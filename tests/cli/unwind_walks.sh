#!/bin/sh
# SPDX-License-Identifier: MIT
# unwind_walks.sh: `gcacc summary` says when sampled stacks fell back to
# the slow unwinder (the records' unwind.walks and unwind.fell_back:
# docs/dump-format.md, "Accounting memory"), and reads dumps without
# those keys (older dumps) as before.  A real dump of
# tests/unit/test_nofp's `alloc` mode (x86-64 glibc 2.35+, else it
# skips), whose stacks the cached rules walk, is read as written (no
# warning unless 5% fell back), then with its records' counts set to
# 1000 walks, 400 fell back (the warning, with both counts), to 1000
# and 10 (no warning: 1%), to 10 and 400 (more fallbacks than walks:
# not believed, no warning), and with the keys removed from every
# record (an older dump: no warning, the same figures).
. "${srcdir:-.}/tests/cli/cli_lib.sh"
need jq
prog=./tests/unit/test_nofp
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }

env -u GC_ACC_UNWIND GC_ACC_PROFILE=sampled=4096 GC_ACC_DUMP="$tmp/d.gz" \
  "$prog" alloc > "$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { cat "$tmp/out"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$tmp/out"; echo "FAIL: test_nofp alloc: exit $rc"; exit 1; }
walks=$(gzip -dc "$tmp/d.gz" | jq -s '[.[] | .unwind.walks // 0] | .[-1]')
falls=$(gzip -dc "$tmp/d.gz" | jq -s '[.[] | .unwind.fell_back // 0] | .[-1]')
check "the dump counts walks by the cached rules ($walks)" \
  test "$walks" -gt 0

# summary_of NAME WALKS FELL_BACK: the dump with every record's unwind
# counts set so (none: as written), summarized into $tmp/NAME.out and
# .err; fails the check if it fails.
summary_of() {
  gzip -dc "$tmp/d.gz" |
    jq -c --arg w "$2" --arg f "$3" 'if .unwind and $w != "" then
      .unwind = {walks: ($w | tonumber), fell_back: ($f | tonumber)}
      else . end' | gzip > "$tmp/$1.gz"
  check "summary of the $1 dump" \
    "$GCACC" summary "$tmp/$1.gz" > "$tmp/$1.out" 2> "$tmp/$1.err"
}
said() { grep -q 'fell back to the slow unwinder' "$tmp/$1.err"; }

summary_of real '' ''
if [ "$falls" -ge $((walks / 20)) ] && [ "$falls" -gt 0 ]; then
  check "as written ($walks walks, $falls fell back): the warning" said real
else
  check "as written ($walks walks, $falls fell back): no warning" \
    eval '! said real'
fi
summary_of many 1000 400
check "1000 walks, 400 fell back: the warning with both counts" \
  grep -q 'stacks: 1000 walks, 400 fell back to the slow unwinder (40.0%' \
  "$tmp/many.err"
summary_of few 1000 10
check "1000 walks, 10 fell back (1%): no warning" eval '! said few'
summary_of bad 10 400
check "more fallbacks than walks: not believed, no warning" eval '! said bad'

# An older dump: no unwind counts, no unwind_bytes in any record.
gzip -dc "$tmp/d.gz" |
  jq -c 'del(.unwind) | if .acc_memory then
           .acc_memory_bytes -= (.acc_memory.unwind_bytes // 0)
           | del(.acc_memory.unwind_bytes) else . end' |
  gzip > "$tmp/old.gz"
check "summary of an older dump" \
  "$GCACC" summary --json "$tmp/old.gz" > "$tmp/old.out" 2> "$tmp/old.err"
check "older dump: no warning" eval '! said old'
peak_now=$(gzip -dc "$tmp/d.gz" | jq -s '[.[] | .acc_memory_bytes // 0] | max')
peak_old=$(gzip -dc "$tmp/old.gz" | jq -s '[.[] | .acc_memory_bytes // 0] | max')
check "older dump: accounting memory peak as its records say ($peak_old)" \
  test "$(jq '.. | objects | select(has("acc_memory_peak_bytes"))
              | .acc_memory_peak_bytes' "$tmp/old.out" | head -1)" = "$peak_old"
check "the unwinder's bytes made the peak larger ($peak_old < $peak_now)" \
  test "$peak_old" -lt "$peak_now"
finish
