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
# full collections, the mark time, and the census in ms per GB of heap.
# census_ns is the census's time at the collection's end only: the
# blocks are counted earlier, on the collector's reclaim walk (the ride),
# and a dump's record is built after the census.  So what the pause
# really pays is measured too (censustime -a): each round collects the
# same heap once with accounting on and once off, timing the collection's
# end phase (GC_EVENT_RECLAIM_START to _END: the reclaim walk, the ride,
# the census, the record) in the collecting thread's CPU time, and "pays
# ms" is the median of the rounds' differences, "pays/GB" the same per
# GB of heap (issue 36's target: at most 0.5 ms per GB in the pause).
# The runs dump (GC_ACC_DUMP, a temporary file), as an always-on session
# does; BENCH_CENSUS_DUMP=0 leaves the dump out.  The other times are
# wall time: on a shared machine read them as a few tens of percent
# either way; "pays" moves by a few tenths of a ms.
# BENCH_CENSUS_FLAGS is passed on to censustime (e.g. -p: parallel
# markers, whose census sums each block's mark bytes); the "par" column
# says whether they ran.
# BENCH_CENSUS_INSTR=1 also counts the end phase's instructions, the
# measure that code placement and the machine's load do not move:
# censustime -r 3 under callgrind (ASLR off), counting inside
# GC_finish_collection only (the end phase, its hooks, the census and
# the record), once with accounting on in every collection and once
# with -a (on and off alternating); "on" and "off" are instructions a
# collection, "+" their difference and "+M/GB" the same in millions
# per GB of heap.  Needs valgrind; slow (the heap is built under it).

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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-census.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dump=
[ "${BENCH_CENSUS_DUMP:-1}" = 0 ] || dump=$tmp/d.gz

printf '%8s %12s %12s %10s %10s %10s %10s %10s %9s %4s\n' "live MB" \
  "heap bytes" "live bytes" "census ms" "mark ms" "census/GB" "reclaim ms" \
  "pays ms" "pays/GB" "par"
for m in $sizes; do
  rm -f "$tmp/d.gz"
  # shellcheck disable=SC2086
  line=$(env GC_ACC_ENABLE=1 ${dump:+GC_ACC_DUMP=$dump} "$prog" -m "$m" \
         -r "$rounds" -a ${BENCH_CENSUS_FLAGS:-}) ||
    die "censustime -m $m failed"
  echo "$line" | awk -v m="$m" '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%8d %12d %12d %10.3f %10.3f %10.3f %10.3f %10.3f %9.3f %4d\n",
      m, v["heap_bytes"], v["live_bytes"], v["census_ns"] / 1e6,
      v["mark_ns"] / 1e6, v["census_ms_per_gb"], v["reclaim_ns"] / 1e6,
      v["pause_ns"] / 1e6, v["pause_ms_per_gb"], v["parallel"] }'
done
echo "(bench/censustime.c -a, GC_ACC_ENABLE=1${dump:+, a dump}, medians of $rounds rounds each; pays: the end phase's CPU time with accounting on minus off, paired by round)"

[ "${BENCH_CENSUS_INSTR:-0}" != 0 ] || exit 0
command -v valgrind > /dev/null 2>&1 ||
  die "BENCH_CENSUS_INSTR=1 needs valgrind (callgrind)"
bench_norand
printf '%8s %12s %14s %14s %12s %8s %4s\n' "live MB" "heap bytes" \
  "end on" "end off" "end +" "+M/GB" "par"
for m in $sizes; do
  for ab in on ab; do
    rm -f "$tmp/d.gz" "$tmp/cg.$ab"
    # shellcheck disable=SC2086
    env GC_ACC_ENABLE=1 ${dump:+GC_ACC_DUMP=$dump} $norand valgrind \
      --tool=callgrind --collect-atstart=no \
      --toggle-collect=GC_finish_collection \
      --callgrind-out-file="$tmp/cg.$ab" "$prog" -m "$m" -r 3 \
      $([ "$ab" = ab ] && echo -a) ${BENCH_CENSUS_FLAGS:-} \
      > "$tmp/out.$ab" 2> "$tmp/err.$ab" ||
      die "censustime -m $m under callgrind failed: $(tail -3 "$tmp/err.$ab")"
  done
  on=$(cg_total "$tmp/cg.on")
  both=$(cg_total "$tmp/cg.ab")
  [ -n "$on" ] && [ -n "$both" ] || die "callgrind wrote no totals (-m $m)"
  [ "$on" -gt 0 ] ||
    die "callgrind counted nothing in GC_finish_collection (inlined in this build?)"
  awk -v m="$m" -v on="$on" -v both="$both" '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    gb = v["heap_bytes"] / 1073741824
    a = on / 3; b = (both - on) / 3
    printf "%8d %12d %14.0f %14.0f %12.0f %8.2f %4d\n", m, v["heap_bytes"],
      a, b, a - b, (gb > 0 ? (a - b) / 1e6 / gb : 0), v["parallel"] }' \
    "$tmp/out.on"
done
echo "(callgrind${norand:+, ASLR off}: instructions inside GC_finish_collection a collection, censustime -r 3, on: accounting on, off: the -a run's other collections)"
