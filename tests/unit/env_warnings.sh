#!/bin/sh
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
set -u
prog=${1:-tests/unit/env_probe}
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

size_msg='expected a size in bytes, at least 4096, with an optional k, M or G suffix'
stacks_msg='expected off, all or sample=BYTES (BYTES at least 1, with an optional k, M or G suffix)'
profile_msg='expected off, sampled, sampled=BYTES (BYTES at least 1, with an optional k, M or G suffix), full or trace'
limit_msg='expected a size in bytes, at least 64k, with an optional k, M or G suffix'
kinds_msg='expected kinds (ptrfree, normal, uncollectable, atomic_uncollectable or numbers, comma-separated) or a mask 0x...'

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
GC_ACC_UNWIND|dwarf|expected fp or libgcc
GC_ACC_UNWIND|FP|expected fp or libgcc
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
EOF

# header FILE KEY: the dump header's config.KEY.
header() { gzip -dc "$1" | head -1 | jq -c ".config.$2"; }

# All bad at once, with a dump: one warning each, and the defaults.
run GC_ACC_DUMP="$t/bad.jsonl.gz" GC_ACC_TAGS=2 GC_ACC_DUMP_BUFFER=4095 \
    GC_ACC_FIRST_WORD_TYPES=bogus GC_ACC_STACKS=sample=0 \
    GC_ACC_STACK_DEPTH=65 GC_ACC_UNWIND=dwarf GC_ACC_TYPES=mono
[ "$(wc -l < "$t/warn")" -eq 7 ] ||
  { fail "seven bad values gave $(wc -l < "$t/warn") warnings:"; cat "$t/warn" >&2; }
grep -qx 'enabled 1' "$t/out" || fail "GC_ACC_DUMP did not turn accounting on"
for kv in dump_buffer=67108864 stacks='"off"' stacks_sample_bytes=0 \
          stacks_depth=16 unwind='"fp"' type_mode='"cookies"'; do
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

# The C API's setters refuse what the environment refuses.
"$prog" setters > "$t/out" 2>&1 || { fail "setters:"; cat "$t/out" >&2; }
n=$((n + 1))

[ "$fails" -eq 0 ] &&
  echo "env warnings: $n runs, each bad value one warning, defaults kept"
exit "$fails"
