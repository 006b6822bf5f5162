#!/bin/sh
# SPDX-License-Identifier: MIT
# alloc-ratios.sh: the allocation fast path of each build, side by side.
#
#   bench/alloc-ratios.sh [OUTDIR]          (default: _build/bench)
#
# Runs bench/allocloop (20 M small objects, none kept, 64 MB heap) for
# unpatched 8.2.2 and for gcacc with accounting off, counting, and
# counting with tags, interleaved round by round (BENCH_RUNS rounds,
# default 7), and prints the median time per object and its ratio to
# unpatched.  Unlike `make bench-instr` it sees what an allocation costs
# outside the instruction count: system calls, cache misses (this is how
# the free-block table's mmap calls were found, docs/design.md).
# Environment: BENCH_RUNS, BENCH_ALLOC_OBJECTS (default 20000000).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/alloc-ratios.sh "${1:-}"
runs=${BENCH_RUNS:-7}
objects=${BENCH_ALLOC_OBJECTS:-20000000}
want_count BENCH_RUNS "$runs"
want_count BENCH_ALLOC_OBJECTS "$objects"
for b in unpatched/allocloop patched/allocloop; do
  [ -x "$out/$b" ] || die "no $out/$b: run bench/build-variants.sh first"
done
unset_acc_env
configs="unpatched patched-off patched-count patched-tags"
tmp=$(mktemp "${TMPDIR:-/tmp}/gcacc-alloc.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM
r=1
while [ "$r" -le "$runs" ]; do
  for c in $configs; do
    case $c in
      unpatched) set -- "$out/unpatched/allocloop" ;;
      patched-off) set -- "$out/patched/allocloop" ;;
      patched-count) set -- env GC_ACC_ENABLE=1 GC_ACC_TAGS=0 "$out/patched/allocloop" ;;
      patched-tags) set -- env GC_ACC_ENABLE=1 GC_ACC_TAGS=1 "$out/patched/allocloop" ;;
    esac
    line=$(GC_INITIAL_HEAP_SIZE=64000000 "$@" -n "$objects") ||
      die "$c: allocloop failed"
    echo "$c $line" >> "$tmp"
  done
  r=$((r + 1))
done
awk -v configs="$configs" -v runs="$runs" "$bench_median_awk"'
{
  for (i = 2; i <= NF; i++) {
    split($i, kv, "=")
    if (kv[1] == "ns_per_object") v = kv[2]
    if (kv[1] == "collections") g = kv[2]
  }
  n[$1]++; t[$1, n[$1]] = v; colls[$1] = g
}
END {
  printf "allocloop: median of %d interleaved runs, ns per object (64 MB heap)\n", runs
  nc = split(configs, C, " ")
  for (i = 1; i <= nc; i++) {
    delete a
    for (r = 1; r <= n[C[i]]; r++) a[r] = t[C[i], r]
    m[C[i]] = median(a, n[C[i]])
    printf "  %-14s %7.2f ns  ratio %.3f  collections %s\n", C[i], m[C[i]], m[C[i]] / m[C[1]], colls[C[i]]
  }
}' "$tmp"
