#!/bin/sh
# SPDX-License-Identifier: MIT
# unity-instr.sh: the accounting's cost on Unity's fork, in instructions.
#
#   bench/unity-instr.sh [OUTDIR]       (default: _build/bench/unity)
#
# Builds Unity's fork as il2cpp does (bdwgc/unity.sh: Unity's define set,
# extra/gc.c at -O2) three times, as Unity ships it (pristine), with our
# series and accounting, and with our series and -DGC_ACC_DISABLE, and
# runs gameloop built with -DGAMELOOP_KLASS
# (every object starts with a class pointer stored after allocation, as
# IL2CPP's objects do; bench/gameloop.c) under callgrind, ASLR off, once
# per configuration:
#   unity           the fork as Unity ships it (the base of the ratios)
#   compiled-out    our series, accounting compiled out (GC_ACC_DISABLE):
#                   what the series costs by itself
#   patched-off     our series and accounting compiled in, switched off
#   patched-dump    on, counting only (tags off), writing a dump
#   patched-sampled on, the default profile (sampled: types and sites
#                   of the samples only), types from word 0 as below,
#                   writing a dump
#   patched-types   on, types from word 0 (ptrfree and normal kinds, as
#                   IL2CPP's objects), writing a dump
# There is no getenv in the collector (NO_GETENV): accounting is switched
# on through the C API and the heap is grown to a fixed size first
# (GC_expand_hp), by tests/unity/unity_init.c, so every build makes the
# same collections (the colls column says so).  It prints the main
# thread's instructions and all threads' (the dump writer included), each
# as a ratio to unity, and the heap's drift apart (bench/README.md,
# "Drift"; cg_drift, bench/common.sh): "drift M", the millions of
# instructions (all threads) of the block allocator's extra visits over
# unity's, at unity's cost a visit, plus marking's difference, and "w/o",
# the all-thread ratio without them.  Two things of valgrind's and the
# dynamic linker's, not of the builds, made the builds mark different
# objects (docs/design.md, "Off against compiled out: what valgrind
# kept"): valgrind maps the client's memory from 64 MiB up, where the
# heap lies among the values of the collector's own sizes
# (GC_collect_at_heapsize, in the data segment unity_init.c registers,
# read as an address), and glibc's lazy-binding trampoline saves the
# registers, heap addresses left by GC_expand_hp among them, on the
# stack where the allocator's frames keep them or not, by the
# environment's size.  The runs map from 4 GiB up (--aspace-minaddr)
# and bind at load (LD_BIND_NOW=1): both builds then mark the same bytes
# in every collection, as natively.  Not part of `make check`.
#
# Environment: UNITY_INSTR_FRAMES (default 300), UNITY_INSTR_HEAP (bytes,
# default 64000000), UNITY_BDWGC_TARBALL (bdwgc/unity.sh).  Needs valgrind.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_name=bench/unity-instr.sh   # bench_setup wants OUTDIR made already
top=$(cd "$here/.." && pwd)
out=${1:-$top/_build/bench/unity}
frames=${UNITY_INSTR_FRAMES:-300}
heap=${UNITY_INSTR_HEAP:-64000000}
CC=${CC:-cc}
mkdir -p "$out"
command -v valgrind >/dev/null 2>&1 || die "needs valgrind"

src=$(sh "$top/bdwgc/unity.sh" tree)
pristine=$(sh "$top/bdwgc/unity.sh" pristine)
defs=$(sh "$top/bdwgc/unity.sh" defines)
# shellcheck disable=SC2086
$CC -c -O2 -w -o "$out/gc-pristine.o" -I "$pristine/include" $defs \
  "$pristine/extra/gc.c"
sh "$top/bdwgc/unity.sh" build "$out/compiled-out" -w -DGC_ACC_DISABLE
sh "$top/bdwgc/unity.sh" build "$out" -w
mk() { # exe gc-object include-dir [flags]
  exe=$1 obj=$2 inc=$3; shift 3
  # shellcheck disable=SC2086
  $CC -O2 -w -o "$out/$exe" -I "$inc" -I "$top/include" $defs \
    -DGAMELOOP_KLASS "$@" "$top/bench/gameloop.c" \
    "$top/tests/unity/unity_init.c" "$out/$obj" -lpthread -lz -lm
}
mk gameloop-unity gc-pristine.o "$pristine/include"
mk gameloop-compiled-out compiled-out/gc-unity.o "$src/include"
mk gameloop-patched gc-unity.o "$src/include"
mk gameloop-patched-acc gc-unity.o "$src/include" -DGCACC_UNITY_ACC

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-uinstr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
bench_norand

printf '%-16s %14s %7s %14s %7s %6s %8s %7s\n' configuration "main thread" ratio "all threads" ratio colls "drift M" "w/o"
base_main= base_all=
for c in unity compiled-out patched-off patched-dump patched-sampled \
    patched-types; do
  set --
  case $c in
    unity) prog=gameloop-unity ;;
    compiled-out) prog=gameloop-compiled-out ;;
    patched-off) prog=gameloop-patched ;;
    patched-dump) prog=gameloop-patched-acc
      set -- GCACC_UNITY_TAGS=0 GCACC_UNITY_DUMP="$tmp/d.gz" ;;
    patched-sampled) prog=gameloop-patched-acc
      set -- GCACC_UNITY_PROFILE=1 GCACC_UNITY_WORD0=1 \
        GCACC_UNITY_DUMP="$tmp/d.gz" ;;
    patched-types) prog=gameloop-patched-acc
      set -- GCACC_UNITY_TAGS=1 GCACC_UNITY_WORD0=1 GCACC_UNITY_DUMP="$tmp/d.gz" ;;
  esac
  rm -f "$tmp"/cg.out* "$tmp/d.gz"
  # shellcheck disable=SC2086
  env GCACC_UNITY_HEAP="$heap" $cg_native_env "$@" $norand \
    valgrind --tool=callgrind --separate-threads=yes $cg_native_opt \
    --callgrind-out-file="$tmp/cg.out" "$out/$prog" -f "$frames" \
    > "$tmp/stdout" 2> "$tmp/stderr" || {
      cat "$tmp/stderr" >&2; die "$c: the run failed (valgrind's output above)"; }
  cg_threads "$tmp/cg.out" "$c"
  cg_drift "$tmp/cg.out"
  colls=$(sed -n 's/.* collections=\([0-9]*\).*/\1/p' "$tmp/stdout")
  if [ -z "$base_main" ]; then
    base_main=$main base_all=$all
    base_nth=$nth_calls base_blk=$blk_ir base_mark=$mark_ir
  fi
  awk -v c="$c" -v m="$main" -v a="$all" -v bm="$base_main" -v ba="$base_all" \
      -v n="${colls:--}" -v t="$nth_calls" -v bt="$base_nth" \
      -v mk="$mark_ir" -v bb="$base_blk" -v bmk="$base_mark" "$bench_drift_awk"'BEGIN {
        printf "%-16s %14.0f %7.4f %14.0f %7.4f %6s", c, m, m / bm, a, a / ba, n
        d = drift(t, bt, bb, mk, bmk)
        printf " %8.2f %7.4f\n", d / 1e6, (a - d) / ba
        # Over 2 M, the builds kept different objects: the row reads the
        # layout, not the code (bench/README.md, "Drift").
        if (d > 2e6 || d < -2e6)
          printf "bench/unity-instr.sh: warning: %s drifted %.2f M from unity (its heap kept other objects): the ratio is not the code'"'"'s alone\n", c, d / 1e6 > "/dev/stderr" }'
done
echo "(callgrind, gameloop -DGAMELOOP_KLASS -f $frames, GC_expand_hp($heap), Unity's fork b0c6e4bc with Unity's defines${norand:+, ASLR off}; ratios to unity)"
