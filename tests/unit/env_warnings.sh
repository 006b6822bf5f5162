#!/bin/sh
# SPDX-License-Identifier: MIT
# env_warnings.sh: what docs/environment.md says bad values do.
#
# "A bad value gives one warning naming the variable and the value
# (GC Warning: gcacc: ignoring NAME=VALUE: ...; default kept) and the
# setting is left as it was": each malformed value below gives exactly
# that one warning, word for word; with all of them at once and a dump,
# the header's config shows the defaults; good values give no warning
# and show in the header.  GC_ACC_DUMP turns accounting on, whatever
# GC_ACC_ENABLE says, once its file is open; a file that cannot be
# opened, or whose header cannot be written, gives one warning.  The
# probe (env_probe.c) initializes the collector and prints "enabled 0|1".
#
# Issue 38: every number a setting writes into the dump header is one
# the reader can read (a JSON integer of at most 2^63 - 1): a value
# beyond (env or API) is refused with one warning naming the setting,
# the value and the range, and a dump written with each setting at its
# largest accepted value is read by gcacc (exit 0), its header showing
# those values.
set -u
prog=${1:-tests/unit/env_probe}
GCACC=${GCACC_BIN:-./tools/gcacc/gcacc}
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-env.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0
n=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# run VAR=VALUE...: the probe with exactly these GC_ACC_* settings;
# stdout in $t/out, its gcacc warnings in $t/warn.
run() {
  n=$((n + 1))
  env -u GC_ACC_ENABLE -u GC_ACC_TAGS -u GC_ACC_DUMP -u GC_ACC_DUMP_BUFFER \
      -u GC_ACC_STACKS -u GC_ACC_STACK_DEPTH -u GC_ACC_UNWIND \
      -u GC_ACC_FIRST_WORD_TYPES -u GC_ACC_TYPES -u GC_ACC_PROFILE \
      -u GC_ACC_TABLE_LIMIT "$@" "$prog" > "$t/out" 2> "$t/err" ||
    fail "$prog exited $? with $*"
  grep 'gcacc' "$t/err" > "$t/warn" || :
}

# header FILE KEY: the dump header's config.KEY, as written (jq would
# read an integer above 2^53 as a double).
header() {
  gzip -dc "$1" | head -1 | jq -e ".config | has(\"$2\")" > /dev/null &&
    gzip -dc "$1" | head -1 | grep -o "\"$2\":[^,}]*" | head -1 | cut -d: -f2-
}

# This build's limits, from a header: the largest byte count a setting
# takes (2^63 - 1, the reader's largest integer, or a 32-bit word's
# largest) and the kinds the collector can have.
run GC_ACC_DUMP="$t/limits.jsonl.gz"
wb=$(header "$t/limits.jsonl.gz" word_bytes)
nk=$(header "$t/limits.jsonl.gz" max_obj_kinds)
case $wb in
  8) max=9223372036854775807 ;;
  4) max=4294967295 ;;
  *) echo "FAIL: no word_bytes in a dump header ($wb)" >&2; exit 1 ;;
esac
[ "$nk" -gt 32 ] 2>/dev/null && nk=32
kinds_max=$(printf '0x%x' $(( nk >= 32 ? 4294967295 : (1 << nk) - 1 )))
size_msg='expected a size in bytes from 4096 to 1G, with an optional k, M or G suffix'
stacks_msg="expected off, all or sample=BYTES (BYTES from 1 to $max, with an optional k, M or G suffix)"
profile_msg="expected off, sampled, sampled=BYTES (BYTES from 1 to $max, with an optional k, M or G suffix), full or trace"
limit_msg="expected a size in bytes from 64k to $max, with an optional k, M or G suffix"
kinds_msg="expected kinds (ptrfree, normal, uncollectable, atomic_uncollectable or numbers 0 to $((nk - 1)), comma-separated) or a mask 0x0 to $kinds_max"

# One bad value at a time: name, value, what the warning says was expected.
while IFS='|' read -r name value expected; do
  [ -n "$name" ] || continue
  run "$name=$value"
  want="GC Warning: gcacc: ignoring $name=$value: $expected; default kept"
  if [ "$(cat "$t/warn")" != "$want" ]; then
    fail "$name=$value: wanted the one warning"
    echo "  wanted: $want" >&2
    sed 's/^/  got:    /' "$t/warn" >&2
  fi
  grep -qx 'enabled 0' "$t/out" || fail "$name=$value: accounting went on"
done <<EOF
GC_ACC_ENABLE|2|expected 0 or 1
GC_ACC_ENABLE|yes|expected 0 or 1
GC_ACC_TAGS||expected 0 or 1
GC_ACC_TAGS|01|expected 0 or 1
GC_ACC_DUMP||expected a file name
GC_ACC_DUMP_BUFFER|4095|$size_msg
GC_ACC_DUMP_BUFFER|12q|$size_msg
GC_ACC_DUMP_BUFFER|k|$size_msg
GC_ACC_DUMP_BUFFER|99999999999999999999999|$size_msg
GC_ACC_DUMP_BUFFER|17179869184G|$size_msg
GC_ACC_STACKS|on|$stacks_msg
GC_ACC_STACKS|sample=|$stacks_msg
GC_ACC_STACKS|sample=0|$stacks_msg
GC_ACC_STACKS|sample=4x|$stacks_msg
GC_ACC_STACK_DEPTH|0|expected a stack depth from 1 to 64
GC_ACC_STACK_DEPTH|65|expected a stack depth from 1 to 64
GC_ACC_STACK_DEPTH|16 |expected a stack depth from 1 to 64
GC_ACC_UNWIND|dwarf|expected auto, fp or libgcc
GC_ACC_UNWIND|FP|expected auto, fp or libgcc
GC_ACC_FIRST_WORD_TYPES|normal,bogus|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|normal,,ptrfree|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|0x|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|0x1g|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|0x123456789|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|99|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|normal,|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|0,|$kinds_msg
GC_ACC_DUMP_EXIT_WAIT|60001|expected milliseconds from 0 to 60000
GC_ACC_DUMP_EXIT_WAIT|-1|expected milliseconds from 0 to 60000
GC_ACC_DUMP_EXIT_WAIT||expected milliseconds from 0 to 60000
GC_ACC_DUMP_EXIT_WAIT|5x|expected milliseconds from 0 to 60000
GC_ACC_TYPES|IL2CPP|expected cookies or il2cpp
GC_ACC_TYPES||expected cookies or il2cpp
GC_ACC_PROFILE|sample|$profile_msg
GC_ACC_PROFILE|sampled=0|$profile_msg
GC_ACC_PROFILE|sampled=|$profile_msg
GC_ACC_PROFILE|sampled=99999999999999999999999|$profile_msg
GC_ACC_PROFILE|Full|$profile_msg
GC_ACC_PROFILE||$profile_msg
GC_ACC_TABLE_LIMIT|1000|$limit_msg
GC_ACC_TABLE_LIMIT|64k1|$limit_msg
GC_ACC_TABLE_LIMIT|-1|$limit_msg
GC_ACC_TABLE_LIMIT|18446744073709551600|$limit_msg
GC_ACC_TABLE_LIMIT|$((max / 1024 + 1))k|$limit_msg
GC_ACC_PROFILE|sampled=9223372036854775808|$profile_msg
GC_ACC_PROFILE|sampled=$((max / 1073741824 + 1))G|$profile_msg
GC_ACC_STACKS|sample=9223372036854775808|$stacks_msg
GC_ACC_STACKS|sample=18446744073709551615|$stacks_msg
GC_ACC_DUMP_BUFFER|2G|$size_msg
GC_ACC_DUMP_BUFFER|1000G|$size_msg
GC_ACC_DUMP_BUFFER|1073741825|$size_msg
GC_ACC_FIRST_WORD_TYPES|0xffffffff|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|$(printf '0x%x' $(( (kinds_max + 1) & 4294967295 )))|$kinds_msg
GC_ACC_FIRST_WORD_TYPES|$nk|$kinds_msg
EOF

# All bad at once, with a dump: one warning each, and the defaults.
run GC_ACC_DUMP="$t/bad.jsonl.gz" GC_ACC_TAGS=2 GC_ACC_DUMP_BUFFER=4095 \
    GC_ACC_FIRST_WORD_TYPES=bogus GC_ACC_STACKS=sample=0 \
    GC_ACC_STACK_DEPTH=65 GC_ACC_UNWIND=dwarf GC_ACC_TYPES=mono
[ "$(wc -l < "$t/warn")" -eq 7 ] ||
  { fail "seven bad values gave $(wc -l < "$t/warn") warnings:"; cat "$t/warn" >&2; }
grep -qx 'enabled 1' "$t/out" || fail "GC_ACC_DUMP did not turn accounting on"
for kv in dump_buffer=67108864 stacks='"samples"' stacks_sample_bytes=0 \
          stacks_depth=16 unwind='"auto"' type_mode='"cookies"'; do
  got=$(header "$t/bad.jsonl.gz" "${kv%%=*}")
  [ "$got" = "${kv#*=}" ] ||
    fail "bad values: header config.${kv%%=*} is $got, not the default ${kv#*=}"
done

# Good values: no warning, and the header shows them.
run GC_ACC_ENABLE=0 GC_ACC_DUMP="$t/good-%p.jsonl.gz" GC_ACC_TAGS=0 \
    GC_ACC_DUMP_BUFFER=16M GC_ACC_FIRST_WORD_TYPES=ptrfree,normal \
    GC_ACC_STACKS=sample=512k GC_ACC_STACK_DEPTH=64 GC_ACC_UNWIND=libgcc \
    GC_ACC_TYPES=il2cpp
[ -s "$t/warn" ] && { fail "good values gave warnings:"; cat "$t/warn" >&2; }
grep -qx 'enabled 1' "$t/out" ||
  fail "GC_ACC_DUMP with GC_ACC_ENABLE=0 did not turn accounting on"
good=
for f in "$t"/good-*.jsonl.gz; do [ -e "$f" ] && good=$f; done
if [ -z "$good" ]; then
  fail "GC_ACC_DUMP=good-%p.jsonl.gz wrote no dump"
else
  for kv in dump_buffer=16777216 stacks='"sample"' \
            stacks_sample_bytes=524288 stacks_depth=64 unwind='"libgcc"' \
            type_mode='"il2cpp"' dump="\"$good\""; do
    got=$(header "$good" "${kv%%=*}")
    [ "$got" = "${kv#*=}" ] ||
      fail "good values: header config.${kv%%=*} is $got, not ${kv#*=}"
  done
fi
for v in 0x3 0,1 atomic_uncollectable; do
  run GC_ACC_FIRST_WORD_TYPES=$v
  [ -s "$t/warn" ] && { fail "GC_ACC_FIRST_WORD_TYPES=$v warned:"; cat "$t/warn" >&2; }
done
run GC_ACC_ENABLE=1
grep -qx 'enabled 1' "$t/out" || fail "GC_ACC_ENABLE=1 left accounting off"

# A dump that cannot be opened, or whose header cannot be written: one
# warning, no dump, and accounting on only if GC_ACC_ENABLE=1 says so.
for case in "open|$t/none/x.gz|0" "open|$t|1" "write|/dev/full|0"; do
  what=${case%%|*}; rest=${case#*|}; path=${rest%|*}; on=${rest#*|}
  if [ "$on" = 1 ]; then run GC_ACC_DUMP="$path" GC_ACC_ENABLE=1
  else run GC_ACC_DUMP="$path"; fi
  if [ "$(wc -l < "$t/warn")" -ne 1 ] ||
     ! grep -q "^GC Warning: gcacc: cannot $what dump file $path: .*; dumping off\$" "$t/warn"
  then
    fail "GC_ACC_DUMP=$path: wanted one 'cannot $what dump file' warning"
    sed 's/^/  got: /' "$t/warn" >&2
  fi
  grep -qx "enabled $on" "$t/out" ||
    fail "GC_ACC_DUMP=$path (GC_ACC_ENABLE=$on): not 'enabled $on'"
done

# A buffer GC_ACC_DUMP_BUFFER fixed that cannot be allocated (1G under a
# 900 MB address-space limit): the one warning names the setting, so
# that it can be lowered (it said "cannot set up dump file").
n=$((n + 1))
( ulimit -v 900000 && exec env -u GC_ACC_PROFILE GC_ACC_DUMP_BUFFER=1G \
    GC_ACC_DUMP="$t/big.jsonl.gz" "$prog" ) > "$t/out" 2> "$t/err"
grep gcacc "$t/err" > "$t/warn" || :
[ "$(wc -l < "$t/warn")" -eq 1 ] &&
  grep -q "^GC Warning: gcacc: cannot allocate the buffer GC_ACC_DUMP_BUFFER (GC_acc_set_dump_buffer_size) sets for dump file $t/big.jsonl.gz: .*; dumping off\$" "$t/warn" ||
  { fail "GC_ACC_DUMP_BUFFER=1G out of memory: wanted one warning naming it:"
    cat "$t/warn" >&2; }

# The C API's setters refuse what the environment refuses.
"$prog" setters > "$t/out" 2>&1 || { fail "setters:"; cat "$t/out" >&2; }
n=$((n + 1))

# readable FILE WHAT: gcacc reads the dump (every command exits 2 on a
# header it cannot read).
readable() {
  "$GCACC" summary "$1" > "$t/summary" 2>&1 ||
    { fail "$2: gcacc summary exited $?:"; sed 's/^/  | /' "$t/summary" >&2; }
}
# config FILE WHAT KEY=VALUE...: the header's config says so.
config() {
  f=$1 what=$2; shift 2
  for kv in "$@"; do
    got=$(header "$f" "${kv%%=*}")
    [ "$got" = "${kv#*=}" ] ||
      fail "$what: header config.${kv%%=*} is $got, not ${kv#*=}"
  done
}

# Each refused extreme with a dump: the one warning, and a dump the
# reader reads (before issue 38's fix: accepted, and a header gcacc
# refused, every command exiting 2).
for kv in GC_ACC_TABLE_LIMIT=18446744073709551600 \
          GC_ACC_PROFILE=sampled=9223372036854775808 \
          GC_ACC_STACKS=sample=9223372036854775808 \
          GC_ACC_DUMP_BUFFER=1000G GC_ACC_FIRST_WORD_TYPES=0xffffffff; do
  case $kv in GC_ACC_PROFILE=*) p=sampled ;; *) p=full ;; esac
  run GC_ACC_PROFILE=$p "$kv" GC_ACC_DUMP="$t/x.jsonl.gz"
  [ "$(wc -l < "$t/warn")" -eq 1 ] &&
    grep -q "^GC Warning: gcacc: ignoring $kv: expected .* to [0-9a-fxG]*[,)]" "$t/warn" ||
    { fail "$kv with a dump: wanted one warning naming it and its range:"
      cat "$t/warn" >&2; }
  readable "$t/x.jsonl.gz" "$kv"
done

# Every setting at its largest: no warning, the header shows each value
# and gcacc reads it.  Twice: the sampled profile's rate, and (under
# full, where the stacks' sampler applies) the stacks' rate.
run GC_ACC_DUMP="$t/max1.jsonl.gz" GC_ACC_TABLE_LIMIT=$max \
    GC_ACC_PROFILE=sampled=$max GC_ACC_DUMP_BUFFER=1G \
    GC_ACC_DUMP_EXIT_WAIT=60000 GC_ACC_STACK_DEPTH=64 \
    GC_ACC_FIRST_WORD_TYPES=$kinds_max
[ -s "$t/warn" ] && { fail "largest values gave warnings:"; cat "$t/warn" >&2; }
config "$t/max1.jsonl.gz" "largest values" table_limit=$max \
  sample_bytes=$max dump_buffer=1073741824 dump_exit_wait_ms=60000 \
  stacks_depth=64 first_word_types=$((kinds_max))
readable "$t/max1.jsonl.gz" "largest values"
run GC_ACC_DUMP="$t/max2.jsonl.gz" GC_ACC_PROFILE=full \
    GC_ACC_STACKS=sample=$max
[ -s "$t/warn" ] && { fail "largest stacks rate warned:"; cat "$t/warn" >&2; }
config "$t/max2.jsonl.gz" "largest stacks rate" stacks='"sample"' \
  stacks_sample_bytes=$max
readable "$t/max2.jsonl.gz" "largest stacks rate"

# The same through the API (builds without getenv): each extreme
# refused, GC_ERROR and one warning naming the function, the value and
# the range; the largest values taken, and the dump read.
for mode in sampled full; do
  n=$((n + 1))
  "$prog" api "$t/api-$mode.jsonl.gz" "$mode" "$kinds_max" \
    > "$t/out" 2> "$t/err" || fail "api $mode exited $?"
  grep -q '^api ok$' "$t/out" || { fail "api $mode:"; cat "$t/out" >&2; }
  grep gcacc "$t/err" > "$t/warn" || :
  want=4
  [ "$wb" = 8 ] && want=8
  [ "$(wc -l < "$t/warn")" -eq "$want" ] ||
    { fail "api $mode: $want refused values gave $(wc -l < "$t/warn") warnings:"
      cat "$t/warn" >&2; }
  while IFS='|' read -r fn value; do
    [ "$wb" = 8 ] || case $value in 9*|18*) continue ;; esac
    grep -q "^GC Warning: gcacc: $fn($value) refused: expected .* [0-9]*; setting kept\$" "$t/warn" ||
      fail "api $mode: no warning for $fn($value)"
  done <<EOF
GC_acc_set_table_limit|18446744073709551600
GC_acc_set_table_limit|9223372036854775808
GC_acc_set_profile|9223372036854775808
GC_acc_set_stacks|18446744073709551600
GC_acc_set_dump_buffer_size|1073741825
GC_acc_set_first_word_type_kinds|4294967295
GC_acc_set_stack_depth|65
GC_acc_set_dump_exit_wait|60001
EOF
  readable "$t/api-$mode.jsonl.gz" "api $mode"
  config "$t/api-$mode.jsonl.gz" "api $mode" table_limit=$max \
    dump_buffer=1073741824 dump_exit_wait_ms=60000 stacks_depth=64 \
    first_word_types=$((kinds_max))
done
config "$t/api-sampled.jsonl.gz" "api sampled" sample_bytes=$max \
  stacks='"samples"'
config "$t/api-full.jsonl.gz" "api full" stacks='"sample"' \
  stacks_sample_bytes=$max

# GC_ACC_STACKS=all (or sample=) under the sampled profile, which takes
# the stack of each sample and of no other object: the header says so
# ("samples"), and one warning tells the setting has no effect.
for v in all sample=64k; do
  run GC_ACC_DUMP="$t/st.jsonl.gz" GC_ACC_STACKS=$v
  config "$t/st.jsonl.gz" "GC_ACC_STACKS=$v, sampled" stacks='"samples"'
  grep -q "^GC Warning: gcacc: GC_ACC_STACKS=${v%%=*} has no effect under the sampled profile" "$t/warn" &&
    [ "$(wc -l < "$t/warn")" -eq 1 ] ||
    { fail "GC_ACC_STACKS=$v, sampled: wanted one warning:"; cat "$t/warn" >&2; }
done
run GC_ACC_DUMP="$t/st.jsonl.gz" GC_ACC_STACKS=all GC_ACC_PROFILE=full
config "$t/st.jsonl.gz" "GC_ACC_STACKS=all, full" stacks='"all"'
[ -s "$t/warn" ] && { fail "GC_ACC_STACKS=all, full warned:"; cat "$t/warn" >&2; }

[ "$fails" -eq 0 ] &&
  echo "env warnings: $n runs, each bad value one warning, defaults kept"
exit "$fails"
