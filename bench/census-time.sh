#!/bin/sh
# SPDX-License-Identifier: MIT
# census-time.sh: the census's time against the heap's size.
#
#   bench/census-time.sh [OUTDIR]            (default: _build/bench)
#
# Runs bench/censustime.c (patched/censustime, from bench/build-variants.sh)
# with the default profile (GC_ACC_ENABLE=1) at each live size of
# BENCH_CENSUS_MB (default "12 130": heaps of about 22 and 181 MB;
# `make bench-census-big` adds 1300, a heap of about 1.8 GB, and needs
# some 2 GB of memory), natively (time, not instructions), and prints per
# size the heap, the median census time of BENCH_CENSUS_ROUNDS (default 7)
# full collections, the mark time, and the census in ms per GB of heap
# (issue 36's target: at most 0.5 ms per GB in the pause).  Wall time on a
# shared machine: read the figures as a few tens of percent either way.
# census_ns is the census's time at the collection's end only: the
# blocks are counted earlier, on the collector's reclaim walk, whose
# share cannot be timed apart (docs/design.md, issue 36).
# BENCH_CENSUS_FLAGS is passed on to censustime (e.g. -p: parallel
# markers, whose census sums each block's mark bytes); the "par" column
# says whether they ran.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/census-time.sh "${1:-}"
sizes=${BENCH_CENSUS_MB:-12 130}
rounds=${BENCH_CENSUS_ROUNDS:-7}
want_count BENCH_CENSUS_ROUNDS "$rounds"
for m in $sizes; do want_count BENCH_CENSUS_MB "$m"; done
prog=$out/patched/censustime
[ -x "$prog" ] || die "no $prog: run bench/build-variants.sh first"
unset_acc_env

printf '%8s %12s %12s %12s %12s %10s %4s\n' "live MB" "heap bytes" \
  "live bytes" "census ms" "mark ms" "ms per GB" "par"
for m in $sizes; do
  # shellcheck disable=SC2086
  line=$(GC_ACC_ENABLE=1 "$prog" -m "$m" -r "$rounds" \
         ${BENCH_CENSUS_FLAGS:-}) ||
    die "censustime -m $m failed"
  echo "$line" | awk -v m="$m" '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%8d %12d %12d %12.3f %12.3f %10.3f %4d\n", m, v["heap_bytes"],
      v["live_bytes"], v["census_ns"] / 1e6, v["mark_ns"] / 1e6,
      v["census_ms_per_gb"], v["parallel"] }'
done
echo "(bench/censustime.c, GC_ACC_ENABLE=1, medians of $rounds full collections each)"
