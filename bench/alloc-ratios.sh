#!/bin/sh
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
top=$(cd "$here/.." && pwd)
out=$(cd "${1:-$top/_build/bench}" && pwd)
runs=${BENCH_RUNS:-7}
objects=${BENCH_ALLOC_OBJECTS:-20000000}
die() { printf 'bench/alloc-ratios.sh: error: %s\n' "$*" >&2; exit 1; }
case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS=$runs: want a positive integer" ;; esac
case $objects in ''|*[!0-9]*|0) die "BENCH_ALLOC_OBJECTS=$objects: want a positive integer" ;; esac
for b in unpatched/allocloop patched/allocloop; do
  [ -x "$out/$b" ] || die "no $out/$b: run bench/build-variants.sh first"
done
for v in $(env | sed -n 's/^\(GC_ACC_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
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
awk -v configs="$configs" -v runs="$runs" '
function median(a, n,    i, j, t) {
  for (i = 2; i <= n; i++) {
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
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
