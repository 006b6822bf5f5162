#!/bin/sh
# SPDX-License-Identifier: MIT
# anchor-ratios.sh: our default profile beside jemalloc's and tcmalloc's
# sampled heap profiles, on one loop, in instructions per allocation.
#
#   bench/anchor-ratios.sh [OUTDIR]          (default: _build/bench)
#
# bench/anchorloop.c (5,000,000 allocations of 16 to 512 bytes, 65,536
# live) runs once per row under callgrind (ASLR off), and each profiler is
# compared with its own allocator without profiling:
#
#   jemalloc       Debian's libjemalloc2 (5.3, built with profiling:
#                  config.prof), LD_PRELOADed into anchorloop-malloc;
#                  profiled: MALLOC_CONF=prof:true,lg_prof_sample:19 (one
#                  sample per 512 KiB, jemalloc's default rate)
#   tcmalloc       Debian's libgoogle-perftools4 (libtcmalloc.so.4);
#                  profiled: TCMALLOC_SAMPLE_PARAMETER=524288
#   gcacc          anchorloop on bench/build-variants.sh's compiled-out
#                  collector (hooks compiled out, same flags) against
#                  patched/ with accounting compiled in but off and with
#                  the default profile (GC_ACC_ENABLE=1, sampled, with a
#                  dump), both at the same fixed initial heap, so every
#                  build makes the same collections (colls column)
#
# glibc's malloc and unpatched bdwgc are printed for reference.  Columns:
# instructions of all threads (the dump's writer thread included) and of
# the main thread, per allocation, and the profiled row's difference from
# its base per allocation ("+/alloc", all threads) and ratio; for a
# collector row against a collector, the heap's drift (bench/README.md,
# "Drift": the block allocator's extra visits at the base's price a
# visit, and marking's difference) per allocation, and +/alloc and the
# ratio without it.  The runs map memory from 4 GiB up and bind symbols
# at load (cg_native_env, cg_native_opt: bench/common.sh), so that every
# build marks what it marks natively.
#
# Environment: BENCH_ANCHOR_ALLOCS (default 5000000), BENCH_ANCHOR_LIVE
# (65536), BENCH_ANCHOR_HEAP (GC_INITIAL_HEAP_SIZE for the collector rows,
# default 32000000: 34 collections), BENCH_ANCHOR_CONFIGS (a subset of the rows),
# BENCH_ANCHOR_LIBDIR (where libjemalloc.so.2 and libtcmalloc.so.4 are;
# default: found with ldconfig -p).  Needs valgrind; rows whose library is
# missing are skipped with a note (tools/setup-debian.sh installs them).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/anchor-ratios.sh "${1:-}"
allocs=${BENCH_ANCHOR_ALLOCS:-5000000}
live=${BENCH_ANCHOR_LIVE:-65536}
heap=${BENCH_ANCHOR_HEAP:-32000000}
want_count BENCH_ANCHOR_ALLOCS "$allocs"
want_count BENCH_ANCHOR_LIVE "$live"
want_count BENCH_ANCHOR_HEAP "$heap"
known="glibc jemalloc jemalloc-prof tcmalloc tcmalloc-sampled unpatched compiled-out gcacc-off gcacc-default"
configs=${BENCH_ANCHOR_CONFIGS:-$known}
for c in $configs; do
  case " $known " in
    *" $c "*) ;;
    *) die "BENCH_ANCHOR_CONFIGS: unknown row $c (known: $known)" ;;
  esac
done
command -v valgrind > /dev/null ||
  die "valgrind is not installed (Debian: apt-get install valgrind)"
for b in anchorloop-malloc unpatched/anchorloop patched/anchorloop compiled-out/anchorloop; do
  [ -x "$out/$b" ] || die "no $out/$b: run bench/build-variants.sh first"
done

# lib NAME: the path of shared library NAME, or nothing.
lib() {
  if [ -n "${BENCH_ANCHOR_LIBDIR:-}" ]; then
    [ -f "$BENCH_ANCHOR_LIBDIR/$1" ] && echo "$BENCH_ANCHOR_LIBDIR/$1"
    return 0
  fi
  ldconfig -p 2> /dev/null | awk -v n="$1" '$1 == n { print $NF; exit }'
}
jemalloc=$(lib libjemalloc.so.2)
tcmalloc=$(lib libtcmalloc.so.4)

bench_norand
unset_acc_env
unset MALLOC_CONF TCMALLOC_SAMPLE_PARAMETER LD_PRELOAD 2> /dev/null || true

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-anchor.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

printf '%-17s %14s %9s %14s %9s %6s %8s %7s %7s %8s %7s  %s\n' row \
  "all threads" "/alloc" "main thread" "/alloc" colls "+/alloc" ratio \
  "drift" "w/o" "ratio" "against"
for c in $configs; do
  prog=$out/anchorloop-malloc base=
  set --
  case $c in
    glibc) ;;
    jemalloc|jemalloc-prof)
      if [ -z "$jemalloc" ]; then
        printf '%-17s skipped: no libjemalloc.so.2 (Debian: libjemalloc2)\n' "$c"
        continue
      fi
      set -- LD_PRELOAD="$jemalloc"
      [ "$c" = jemalloc-prof ] &&
        set -- "$@" MALLOC_CONF=prof:true,lg_prof_sample:19 base=jemalloc ;;
    tcmalloc|tcmalloc-sampled)
      if [ -z "$tcmalloc" ]; then
        printf '%-17s skipped: no libtcmalloc.so.4 (Debian: libgoogle-perftools4)\n' "$c"
        continue
      fi
      set -- LD_PRELOAD="$tcmalloc"
      [ "$c" = tcmalloc-sampled ] &&
        set -- "$@" TCMALLOC_SAMPLE_PARAMETER=524288 base=tcmalloc ;;
    unpatched) prog=$out/unpatched/anchorloop ;;
    compiled-out) prog=$out/compiled-out/anchorloop ;;
    gcacc-off) prog=$out/patched/anchorloop base=compiled-out ;;
    gcacc-default)
      prog=$out/patched/anchorloop base=compiled-out
      set -- GC_ACC_ENABLE=1 GC_ACC_DUMP="$tmp/d.gz" ;;
  esac
  # base= rode along in "$@" to keep one case; take it out again.
  n=$#
  while [ "$n" -gt 0 ]; do
    a=$1; shift; n=$((n - 1))
    case $a in base=*) base=${a#base=} ;; *) set -- "$@" "$a" ;; esac
  done
  rm -f "$tmp"/cg.out* "$tmp/d.gz"
  # env first: setarch execs valgrind with the environment as it is; the
  # preloaded allocator loads into valgrind's launcher too (harmless), and
  # callgrind replaces no allocator, so the program runs on it.
  if ! env GC_INITIAL_HEAP_SIZE="$heap" $cg_native_env "$@" $norand valgrind \
        --tool=callgrind --separate-threads=yes $cg_native_opt \
        --callgrind-out-file="$tmp/cg.out" "$prog" -n "$allocs" -l "$live" \
        > "$tmp/stdout" 2> "$tmp/stderr"; then
    cat "$tmp/stderr" >&2
    die "$c: the run failed (valgrind's output above)"
  fi
  cg_threads "$tmp/cg.out" "$c"
  cg_drift "$tmp/cg.out"
  colls=$(sed -n 's/.* collections=\([0-9]*\).*/\1/p' "$tmp/stdout")
  v=$(echo "$c" | tr - _)
  eval "all_$v=$all nth_$v=$nth_calls blk_$v=$blk_ir mark_$v=$mark_ir"
  ball= bnth= bblk= bmark=
  if [ -n "$base" ]; then
    v=$(echo "$base" | tr - _)
    eval "ball=\${all_$v:-} bnth=\${nth_$v:-} bblk=\${blk_$v:-} bmark=\${mark_$v:-}"
  fi
  awk -v c="$c" -v a="$all" -v m="$main" -v n="$allocs" -v k="${colls:--}" \
      -v b="$ball" -v bn="${base:-}" -v t="$nth_calls" -v bt="$bnth" \
      -v bb="$bblk" -v mk="$mark_ir" -v bmk="$bmark" "$bench_drift_awk"'BEGIN {
    printf "%-17s %14.0f %9.1f %14.0f %9.1f %6s", c, a, a / n, m, m / n, k
    if (b == "") { printf " %8s %7s %7s %8s %7s  %s\n", "-", "-", "-", "-", "-", "-"; exit }
    printf " %8.1f %7.4f", (a - b) / n, a / b
    # The heap'"'"'s drift, for a collector against a collector.
    if (bt > 0) {
      d = drift(t, bt, bb, mk, bmk)
      printf " %7.1f %8.1f %7.4f  %s\n", d / n, (a - d - b) / n, (a - d) / b, bn
    } else printf " %7s %8s %7s  %s\n", "-", "-", "-", bn }'
done
echo "(callgrind, anchorloop -n $allocs -l $live${norand:+, ASLR off}; collector rows with GC_INITIAL_HEAP_SIZE=$heap; +/alloc and ratio: all threads against the row named)"
