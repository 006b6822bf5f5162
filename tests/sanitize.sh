#!/bin/sh
# SPDX-License-Identifier: MIT
# sanitize.sh: the reader under AddressSanitizer and UBSan (issue 25).
#
# Builds gcacc and the fuzz corpus's replay driver from tools/gcacc/ with
# $CC -fsanitize=address,undefined (any UB report is fatal), then replays:
#   - the fuzz corpus (tests/fuzz/corpus/dump_read) through the driver,
#     leaks detected;
#   - the hostile-input corpus against every command (tests/faults/
#     hostile.sh) and the escaping test (escape.sh) with the sanitized
#     gcacc: a sanitizer report exits 99, which those scripts fail on;
#   - big_dumps.sh at a smaller size (120 k sites: beyond the key cap),
#     without its address-space limit (ASan reserves terabytes);
#   - hostile_paths.sh and hostile_memory.sh (issue 38), without it too;
#   - tests/cli/delta.sh: delta records rebuilt, hostile ones refused.
# Run by `make check` (GCACC_TESTS) and on its own by `make
# check-sanitize`; from the build directory, srcdir and CC set.
set -u
: "${srcdir:=.}" "${CC:=cc}"
me=sanitize.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-san.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
r=$srcdir/tools/gcacc
# -I./tools/gcacc: the report's script as a C string (report_js.h), which
# the build makes in the build directory.
flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer -I$r -I./tools/gcacc -I$srcdir/accounting"

probe() { printf 'int main(void){return 0;}\n' >"$work/p.c" &&
          $CC -fsanitize=address,undefined "$work/p.c" -o "$work/p" \
            >/dev/null 2>&1 && "$work/p"; }
if ! probe; then
  echo "$me: error: $CC cannot build with -fsanitize=address,undefined" \
       "(libasan/libubsan missing?)" >&2
  exit 1
fi

# shellcheck disable=SC2086
$CC $flags -o "$work/gcacc" "$r"/*.c -ljansson -lz -lm ||
  { echo "$me: FAIL: building gcacc" >&2; exit 1; }
# shellcheck disable=SC2086
$CC $flags -o "$work/regression_driver" "$srcdir/tests/fuzz/regression_driver.c" \
  "$srcdir/tests/fuzz/fuzz_dump_read.c" "$r/dump_read.c" "$r/session.c" \
  "$r/util.c" "$r/emit.c" -ljansson -lz ||
  { echo "$me: FAIL: building the replay driver" >&2; exit 1; }

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
failed=0

ASAN_OPTIONS=detect_leaks=1:exitcode=99 \
  "$work/regression_driver" "$srcdir/tests/fuzz/corpus/dump_read" \
  || { echo "$me: FAIL: the fuzz corpus under ASan+UBSan" >&2; failed=1; }

# The commands: sanitizer reports are fatal (exit 99); leaks at exit are
# not looked for (a command frees what it must, not everything).
export ASAN_OPTIONS=detect_leaks=0:exitcode=99
for t in hostile escape; do
  GCACC_BIN=$work/gcacc sh "$srcdir/tests/faults/$t.sh" >"$work/$t.log" 2>&1 ||
    { echo "$me: FAIL: tests/faults/$t.sh under ASan+UBSan" >&2
      grep -E 'FAIL|ERROR|runtime error' "$work/$t.log" | head -20 >&2
      failed=1; }
  tail -1 "$work/$t.log" | sed "s/^/$me: /"
done
# Delta records rebuilt, and hostile ones refused (tests/cli/delta.sh).
GCACC_BIN=$work/gcacc sh "$srcdir/tests/cli/delta.sh" >"$work/delta.log" 2>&1 ||
  { echo "$me: FAIL: tests/cli/delta.sh under ASan+UBSan" >&2
    grep -E 'FAIL|ERROR|runtime error' "$work/delta.log" | head -20 >&2
    failed=1; }
tail -1 "$work/delta.log" | sed "s/^/$me: /"
GCACC_BIN=$work/gcacc GCACC_BIG_SITES=120000 GCACC_BIG_CLASSES=120000 \
  GCACC_BIG_VMEM_KB=unlimited GCACC_BIG_SECS=120 \
  sh "$srcdir/tests/faults/big_dumps.sh" >"$work/big.log" 2>&1 ||
  { echo "$me: FAIL: tests/faults/big_dumps.sh under ASan+UBSan" >&2
    grep -E 'FAIL|ERROR|runtime error' "$work/big.log" | head -20 >&2
    failed=1; }
tail -1 "$work/big.log" | sed "s/^/$me: /"
# Issue 38's inputs: the files a dump names, and records priced before
# jansson parses them (blanked in place), without the limit on address
# space.
GCACC_BIN=$work/gcacc GCACC_PATHS_VMEM_KB=unlimited GCACC_PATHS_SECS=120 \
  sh "$srcdir/tests/faults/hostile_paths.sh" >"$work/paths.log" 2>&1 ||
  { echo "$me: FAIL: tests/faults/hostile_paths.sh under ASan+UBSan" >&2
    grep -E 'FAIL|ERROR|runtime error' "$work/paths.log" | head -20 >&2
    failed=1; }
tail -1 "$work/paths.log" | sed "s/^/$me: /"
GCACC_BIN=$work/gcacc GCACC_MEM_VMEM_KB=unlimited GCACC_MEM_SECS=120 \
  GCACC_MEM_BLANK=16777216 \
  sh "$srcdir/tests/faults/hostile_memory.sh" >"$work/mem.log" 2>&1 ||
  { echo "$me: FAIL: tests/faults/hostile_memory.sh under ASan+UBSan" >&2
    grep -E 'FAIL|ERROR|runtime error' "$work/mem.log" | head -20 >&2
    failed=1; }
tail -1 "$work/mem.log" | sed "s/^/$me: /"
[ "$failed" -eq 0 ] && echo "$me: the reader is clean under ASan+UBSan"
exit "$failed"
