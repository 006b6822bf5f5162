#!/bin/sh
# SPDX-License-Identifier: MIT
# accuracy.sh: the sampled profile's estimate error at the default rate.
#
#   bench/accuracy.sh [OUTDIR]              (default: _build/bench)
#
# The sampled profile (GC_ACC_PROFILE=sampled, one Poisson sample per
# 512 KiB allocated on average) shows types and callsites as estimates,
# ~12.3 MiB.  How far off are they?  For each workload this runs the
# program once with exact per-object tags and a stack on every allocation
# (GC_ACC_PROFILE=trace: the full profile's exact types, and exact
# callsites), the truth, then BENCH_ACCURACY_RUNS times (default 5) with
# the sampled profile, each with the same arguments and the same fixed
# initial heap, so every run allocates the same objects and collects at
# the same points (checked: allocs=, bytes= and collections= must agree).
# The sampler seeds itself from the clock in every run (there is no seed
# setting), so the runs are independent draws.  bench/accuracy.py then
# compares the dumps' type and callsite rows as `gcacc export --jsonl`
# gives them: totals, and each row holding at least 5% of the exact live
# or allocated bytes or among the 10 largest by allocated bytes, with the
# error of every run, the expected number of samples (bytes / rate) and
# 1/sqrt of it (the error's expected size); live at the last census,
# allocated over the session; then a summary line per workload, and at
# the end the errors of every workload by expected samples: how far a
# figure made of n samples can be trusted.
#
# Workloads (the patched variant's programs, bench/build-variants.sh):
#   typed      gameloop-typed -f FRAMES: 2,000 explicit types, 5 callsites
#   klass      gameloop-klass -f FRAMES, GC_ACC_FIRST_WORD_TYPES=ptrfree,normal
#   gcj        gameloop-gcj -f FRAMES, GC_ACC_FIRST_WORD_TYPES=ptrfree
#              (objects with pointers typed by their gcj vtable)
#   manysites  manysites -r ROUNDS: 20,000 callsites and 2,000 types that
#              each allocate little: the case sampling cannot resolve
# Types are named by their cookies, addresses in the program, so every
# run has address-space randomization off (setarch -R) to name them alike.
#
# Environment: BENCH_ACCURACY_RUNS (sampled runs, default 5),
# BENCH_ACCURACY_WORKLOADS (default "typed klass gcj manysites"),
# BENCH_ACCURACY_FRAMES (gameloop's -f, default 3000: 3.7 GB granted,
# some 7,500 samples), BENCH_ACCURACY_ROUNDS (manysites' -r, default 100),
# BENCH_ACCURACY_HEAP (GC_INITIAL_HEAP_SIZE, default 64000000),
# BENCH_ACCURACY_RATE (a sample rate in bytes for GC_ACC_PROFILE=sampled=
# BYTES; default: the default rate), ACCURACY_SHARE and ACCURACY_TOP
# (bench/accuracy.py), GCACC (the reader; default the build's).  Needs
# python3.  The table also goes to OUTDIR/accuracy.txt.  About 3
# minutes in all on a two-core machine (24 runs, one at a time).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/accuracy.sh "${1:-}"
runs=${BENCH_ACCURACY_RUNS:-5}
workloads=${BENCH_ACCURACY_WORKLOADS:-typed klass gcj manysites}
frames=${BENCH_ACCURACY_FRAMES:-3000}
rounds=${BENCH_ACCURACY_ROUNDS:-100}
heap=${BENCH_ACCURACY_HEAP:-64000000}
rate=${BENCH_ACCURACY_RATE:-}
want_count BENCH_ACCURACY_RUNS "$runs"
want_count BENCH_ACCURACY_FRAMES "$frames"
want_count BENCH_ACCURACY_ROUNDS "$rounds"
want_count BENCH_ACCURACY_HEAP "$heap"
[ -z "$rate" ] || want_count BENCH_ACCURACY_RATE "$rate"
for w in $workloads; do
  case $w in
    typed|klass|gcj|manysites) ;;
    *) die "BENCH_ACCURACY_WORKLOADS: unknown workload $w (known: typed klass gcj manysites)" ;;
  esac
done
gcacc=${GCACC:-$out/../tools/gcacc/gcacc}
[ -x "$gcacc" ] || die "no $gcacc: build gcacc first (make), or set GCACC"
for b in gameloop-typed gameloop-klass gameloop-gcj manysites; do
  [ -x "$out/patched/$b" ] || die "no $out/patched/$b: run bench/build-variants.sh first"
done
command -v python3 > /dev/null || die "python3 is not installed"
norand="setarch $(uname -m) -R"
$norand true 2> /dev/null ||
  die "setarch -R fails here: types are named by address, and cannot be matched from run to run with address-space randomization on"

unset_acc_env

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-accuracy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# run NAME PROFILE: one run of the workload's program ($prog $args, with
# the environment in $wenv), its dump in $tmp/NAME.gz and its totals
# line in $tmp/NAME.out.
run() {
  if ! env GC_INITIAL_HEAP_SIZE="$heap" GC_ACC_PROFILE="$2" \
        GC_ACC_DUMP="$tmp/$1.gz" $wenv nice $norand "$prog" $args \
        > "$tmp/$1.out" 2> "$tmp/$1.err"; then
    cat "$tmp/$1.err" >&2
    die "$w: $1 run failed (its stderr above)"
  fi
}
# same NAME: NAME allocated what the exact run did, and collected as often.
same() {
  for k in allocs bytes collections; do
    a=$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" "$tmp/exact.out")
    b=$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" "$tmp/$1.out")
    [ -n "$a" ] && [ "$a" = "$b" ] ||
      die "$w: $1 run has $k=$b, the exact run $k=$a: not the same workload"
  done
}

: > "$tmp/table"
: > "$tmp/cells"
for w in $workloads; do
  case $w in
    typed) prog=gameloop-typed args="-f $frames" wenv= ;;
    klass) prog=gameloop-klass args="-f $frames" \
             wenv=GC_ACC_FIRST_WORD_TYPES=ptrfree,normal ;;
    gcj) prog=gameloop-gcj args="-f $frames" \
           wenv=GC_ACC_FIRST_WORD_TYPES=ptrfree ;;
    manysites) prog=manysites args="-r $rounds" wenv= ;;
  esac
  label="$prog $args${wenv:+ $wenv}"
  prog=$out/patched/$prog
  printf 'bench: %s: the exact run, then %d sampled\n' "$label" "$runs" >&2
  run exact trace
  set --
  i=1
  while [ "$i" -le "$runs" ]; do
    run "s$i" "sampled${rate:+=$rate}"
    same "s$i"
    set -- "$@" "$tmp/s$i.gz"
    i=$((i + 1))
  done
  sed -n 's/.* allocs=\([0-9]*\) bytes=\([0-9]*\).* collections=\([0-9]*\).*/(every run: allocs=\1 bytes=\2 collections=\3)/p' \
    "$tmp/exact.out" > "$tmp/what"
  ACCURACY_CELLS=$tmp/cells \
    python3 "$here/accuracy.py" "$gcacc" "$label" "$tmp/exact.gz" "$@" \
      > "$tmp/this" || die "$w: bench/accuracy.py failed"
  { cat "$tmp/this" "$tmp/what"; echo; } | tee -a "$tmp/table"
  rm -f "$tmp"/*.gz
done
python3 "$here/accuracy.py" --bins "$tmp/cells" > "$tmp/this" ||
  die "bench/accuracy.py --bins failed"
{ cat "$tmp/this"
  echo "(GC_INITIAL_HEAP_SIZE=$heap, ASLR off; exact: GC_ACC_PROFILE=trace; sampled: GC_ACC_PROFILE=sampled${rate:+=$rate})"
} | tee -a "$tmp/table"
cp "$tmp/table" "$out/accuracy.txt"
