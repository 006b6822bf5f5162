#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh: a bounded libFuzzer run of tests/fuzz/fuzz_dump_read.c (the
# reader's record parser) under AddressSanitizer and UBSan.
#
# Builds the target with clang -fsanitize=fuzzer,address,undefined from the
# reader's own sources, first replays the committed corpus, then fuzzes a
# COPY of it (the source tree is never written) for GCACC_FUZZ_SECONDS
# (default 20).  Fails on any crash, leak or UB report and prints the path
# of the crashing input; add it to tests/fuzz/corpus/dump_read/ once fixed.
#
#   GCACC_FUZZ_SECONDS=N   fuzzing time (0: replay the corpus only)
#   CLANG=...              the compiler (default: clang, else clang-14)
set -eu
: "${srcdir:=.}"
here=$srcdir/tests/fuzz
reader=$srcdir/tools/gcacc
secs=${GCACC_FUZZ_SECONDS:-20}
me=fuzz.sh

clang=${CLANG:-}
if [ -z "$clang" ]; then
  for c in clang clang-14; do
    if command -v "$c" >/dev/null 2>&1; then clang=$c; break; fi
  done
fi
if [ -z "$clang" ]; then
  echo "$me: error: clang not found; install Debian's 'clang' and" \
       "'libclang-rt-14-dev' (tools/setup-debian.sh)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Does libFuzzer's runtime link at all?
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
  > "$work/probe.c"
if ! "$clang" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" \
     >"$work/probe.log" 2>&1; then
  echo "$me: error: '$clang -fsanitize=fuzzer' does not link: libFuzzer's" \
       "runtime is missing; install Debian's 'libclang-rt-14-dev'" \
       "(tools/setup-debian.sh)" >&2
  sed 's/^/  /' "$work/probe.log" >&2
  exit 1
fi

"$clang" -g -O1 -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -I"$reader" -I"$srcdir/accounting" -o "$work/fuzz_dump_read" \
  "$here/fuzz_dump_read.c" "$reader/dump_read.c" "$reader/session.c" \
  "$reader/util.c" "$reader/emit.c" -ljansson -lz

cp -R "$here/corpus/dump_read" "$work/corpus"
mkdir "$work/artifacts" "$work/new"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The committed inputs, one by one (names the one that fails).
for f in "$work"/corpus/*; do
  if ! "$work/fuzz_dump_read" "$f" >"$work/replay.log" 2>&1; then
    cat "$work/replay.log" >&2
    echo "$me: FAIL: corpus input crashes: $here/corpus/dump_read/${f##*/}" >&2
    exit 1
  fi
done
n=$(ls "$work/corpus" | wc -l)
echo "$me: $n corpus inputs replayed under ASan+UBSan"
[ "$secs" -gt 0 ] || exit 0

# New inputs go to $work/new; the corpus copy is read-only to the fuzzer.
if ! "$work/fuzz_dump_read" -max_total_time="$secs" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
     -artifact_prefix="$work/artifacts/" \
     "$work/new" "$work/corpus" >"$work/fuzz.log" 2>&1; then
  tail -60 "$work/fuzz.log" >&2
  keep=${GCACC_FUZZ_KEEP:-${TMPDIR:-/tmp}}
  for a in "$work"/artifacts/*; do
    [ -e "$a" ] || continue
    cp "$a" "$keep/" && echo "$me: FAIL: crashing input: $keep/${a##*/}" >&2
  done
  exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|#[0-9]+.*DONE)' "$work/fuzz.log" \
  | sed "s/^/$me: /"
echo "$me: ${secs}s of fuzzing, no crash ($(ls "$work/new" | wc -l) new inputs)"
