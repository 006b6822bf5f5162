#!/bin/sh
# SPDX-License-Identifier: MIT
# table_limit.sh: GC_ACC_TABLE_LIMIT bounds the side tables.  The
# il2cpp-shaped game (tests/il2cpp/gameload.c) runs with a 64 KiB cap:
#   - tracing (GC_ACC_PROFILE=trace: a tag on every object, a stack on
#     every allocation), the tag tables and call-stack tables never pass
#     the cap in any record, the program exits 0, and one line on stderr
#     says the cap was reached;
#   - sampling one object in every 64 bytes, the samples' memory never
#     passes it and the records count the samples dropped.
# Without the cap the same runs go past it (so the check can fail).
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${GAMELOAD:-./tests/il2cpp/gameload}
need jq
cap=65536

# max FILE KEY: the largest acc_memory.KEY over the dump's records.
max() { gzip -dc "$1" | jq -s -r "[.[] | .acc_memory.$2 // 0] | max"; }

env -u GC_ACC_STACKS GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=trace \
  GC_ACC_DUMP=$tmp/free.gz $LOAD game > /dev/null 2>&1
check "without the cap, tag tables pass it" test "$(max "$tmp/free.gz" tags_bytes)" -gt $cap

env -u GC_ACC_STACKS GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=trace \
  GC_ACC_TABLE_LIMIT=64k GC_ACC_DUMP=$tmp/t.gz $LOAD game > /dev/null 2> "$tmp/err"
check "trace under the cap exits 0" test $? -eq 0
check "one line says the cap was reached" test \
  "$(grep -c 'GC_ACC_TABLE_LIMIT' "$tmp/err")" -eq 1
check "tag tables within the cap" test "$(max "$tmp/t.gz" tags_bytes)" -le $cap
check "call-stack tables within the cap" test "$(max "$tmp/t.gz" sites_bytes)" -le $cap
check "header says the cap" test \
  "$(gzip -dc "$tmp/t.gz" | head -1 | jq -r .config.table_limit)" -eq $cap

GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=sampled=64 GC_ACC_DUMP=$tmp/f2.gz \
  $LOAD game > /dev/null 2>&1
check "without the cap, samples pass it" test "$(max "$tmp/f2.gz" samples_bytes)" -gt $cap
GC_ACC_TYPES=il2cpp GC_ACC_PROFILE=sampled=64 GC_ACC_TABLE_LIMIT=64k \
  GC_ACC_DUMP=$tmp/s.gz $LOAD game > /dev/null 2> "$tmp/err2"
check "sampled under the cap exits 0" test $? -eq 0
check "samples within the cap" test "$(max "$tmp/s.gz" samples_bytes)" -le $cap
dropped=$(gzip -dc "$tmp/s.gz" | jq -r 'select(.samples) | .samples.dropped' | tail -1)
check "records count the samples dropped ($dropped)" test "${dropped:-0}" -gt 0
finish
