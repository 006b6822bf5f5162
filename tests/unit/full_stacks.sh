#!/bin/sh
# SPDX-License-Identifier: MIT
# full_stacks.sh: the full profile has callsites (issue 33, item 6):
# README's cost table calls `full` "tags, sampled stacks", but `full`
# alone recorded none.  GC_ACC_PROFILE=full samples stacks (the header
# says stacks "sample", 524288 B, and the dump defines call stacks);
# GC_ACC_STACKS still chooses (off: none; all: every allocation), in
# either order of the settings (the profile is read first).  200
# collections of 64 KB each: some 24 samples expected at 512 KiB, none
# with a chance of e^-24.
set -u
prog=./tests/unit/collections
me=full_stacks.sh
command -v zcat >/dev/null 2>&1 || { echo "$me: SKIP: no zcat"; exit 77; }
[ -x "$prog" ] || { echo "$me: FAIL: $prog not built"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-full.XXXXXX") || exit 99
trap 'rm -rf "$t"' EXIT INT TERM
failed=0
fail() { echo "$me: FAIL: $*"; failed=1; }

# run NAME [VAR=VALUE...]: the dump's header "stacks" and the number of
# call stacks it defines, "MODE N".
run() {
  rm -f "$t/d.jsonl.gz"
  env -u GC_ACC_STACKS -u GC_ACC_TAGS "$@" GC_ACC_DUMP="$t/d.jsonl.gz" \
    "$prog" 200 > /dev/null || { echo "exit $?"; return; }
  m=$(zcat "$t/d.jsonl.gz" | head -1 | sed -n 's/.*"stacks":"\([a-z]*\)".*/\1/p')
  b=$(zcat "$t/d.jsonl.gz" | head -1 |
      sed -n 's/.*"stacks_sample_bytes":\([0-9]*\).*/\1/p')
  n=$(zcat "$t/d.jsonl.gz" | grep -o '"sites":\[\[[0-9]*' | wc -l)
  echo "$m $b $n"
}
check() {
  want=$1; shift
  got=$(run "$@")
  case $got in
    $want) ;;
    *) fail "$*: stacks, sample bytes, definitions '$got', expected '$want'" ;;
  esac
}
check 'sample 524288 [1-9]*' GC_ACC_PROFILE=full
check 'sample 524288 [1-9]*' GC_ACC_TAGS=1
check 'off 0 0' GC_ACC_PROFILE=full GC_ACC_STACKS=off
check 'all 0 [1-9]*' GC_ACC_PROFILE=full GC_ACC_STACKS=all
check 'sample 4096 [1-9]*' GC_ACC_PROFILE=full GC_ACC_STACKS=sample=4096
check 'all 0 [1-9]*' GC_ACC_PROFILE=trace
check 'samples 0 [1-9]*' GC_ACC_PROFILE=sampled=4096
check 'off 0 0' GC_ACC_PROFILE=off
[ "$failed" -eq 0 ] && echo "$me: full samples stacks; GC_ACC_STACKS chooses"
exit "$failed"
