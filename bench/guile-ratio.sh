#!/bin/sh
# SPDX-License-Identifier: MIT
# guile-ratio.sh: what accounting compiled in but off costs a real
# program: Guile 3.0 (Debian's guile-3.0, which links libgc.so.1) running
# bench/guile.scm on this build's libgc.so.1 (accounting compiled in, not
# enabled) and on the same sources configured with --disable-accounting
# (hooks compiled out, no -fno-omit-frame-pointer: as that option builds
# it), each under callgrind with ASLR off and one marker thread
# (GC_MARKERS=1), then natively BENCH_GUILE_WALL_RUNS times (default 5)
# for the wall ratio beside it (an indication only).
#
#   bench/guile-ratio.sh BUILDDIR [OUTDIR]    (make bench-guile)
#
# BUILDDIR is gcacc's build (its bdwgc/upstream/.libs/libgc.so.1 and
# config.status); the compiled-out library is built in OUTDIR/guile-off
# (default BUILDDIR/bench/guile-off), configured again only when its
# arguments change.  Prints instructions of all threads for both, their
# ratio and each run's collection count (Guile's gc-times: the
# accounting build's static data counts in the collector's root size,
# which paces collections, so the two may differ by one or two).
# Environment: BENCH_GUILE_ROUNDS (bench/guile.scm's rounds, default
# 1000), BENCH_GUILE_WALL_RUNS.  Needs guile-3.0 and valgrind.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
build=$(cd "${1:?usage: bench/guile-ratio.sh BUILDDIR [OUTDIR]}" && pwd)
mkdir -p "${2:-$build/bench}"
bench_setup bench/guile-ratio.sh "${2:-$build/bench}"
rounds=${BENCH_GUILE_ROUNDS:-1000}
runs=${BENCH_GUILE_WALL_RUNS:-5}
want_count BENCH_GUILE_ROUNDS "$rounds"
case $runs in ''|*[!0-9]*) die "BENCH_GUILE_WALL_RUNS=$runs: want a number" ;; esac
command -v guile-3.0 > /dev/null ||
  die "guile-3.0 is not installed (tools/setup-debian.sh installs it)"
command -v valgrind > /dev/null ||
  die "valgrind is not installed (Debian: apt-get install valgrind)"
on=$build/bdwgc/upstream/.libs
cfg=$build/bdwgc/upstream/config.status
[ -f "$on/libgc.so.1" ] || die "no $on/libgc.so.1: build first (make)"
[ -x "$cfg" ] || die "no $cfg: configure first"
case " $("$cfg" --config) " in
  *GC_ACC_DISABLE*) die "$build is configured with --disable-accounting: run this from an accounting build" ;;
esac

# The compiled-out library: the same configure arguments, as
# --disable-accounting gives them (configure.ac).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES 2> /dev/null || true
srcdir=
eval "set -- $("$cfg" --config)"
args=
for a in "$@"; do
  case $a in
    --cache-file=*|--disable-option-checking) continue ;;
    --srcdir=*) srcdir=${a#--srcdir=}; continue ;;
    CPPFLAGS=*) a="CPPFLAGS=${a#CPPFLAGS=} -DGC_ACC_DISABLE" ;;
    CFLAGS=*) a=$(printf '%s' "$a" | sed 's/ *-fno-omit-frame-pointer//g') ;;
  esac
  args="$args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
[ -n "$srcdir" ] || die "$cfg --config names no --srcdir"
case $srcdir in /*) ;; *) srcdir=$build/bdwgc/upstream/$srcdir ;; esac
srcdir=$(cd "$srcdir" && pwd)
off=$out/guile-off
stamp=$(printf '%s\n' "$srcdir" "$args" | sha256sum | cut -d' ' -f1)
if ! [ -f "$off/.bench-stamp" ] || [ "$(cat "$off/.bench-stamp")" != "$stamp" ]
then
  echo "bench: configuring guile-off (compiled out) in $off"
  rm -rf "$off"
  mkdir -p "$off"
  (cd "$off" && eval "\"$srcdir/configure\" $args" > configure.log 2>&1) ||
    { tail -20 "$off/configure.log" >&2; die "configure failed in $off"; }
  echo "$stamp" > "$off/.bench-stamp"
fi
(cd "$off" && make -j"${BENCH_JOBS:-2}" libgc.la > make.log 2>&1) ||
  { tail -20 "$off/make.log" >&2; die "make failed in $off"; }

unset_acc_env
unset LD_PRELOAD 2> /dev/null || true
bench_norand
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-guile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
scm=$here/guile.scm

printf '%-14s %14s %6s %9s  %s\n' row instructions colls "wall ms" library
for row in compiled-out off; do
  case $row in compiled-out) lib=$off/.libs ;; off) lib=$on ;; esac
  rm -f "$tmp"/cg.out*
  env LD_LIBRARY_PATH="$lib" GC_MARKERS=1 BENCH_GUILE_ROUNDS="$rounds" \
    $norand valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    guile-3.0 --no-auto-compile "$scm" > "$tmp/out.$row" 2> "$tmp/err" ||
    { cat "$tmp/err" >&2; die "$row: the run failed"; }
  ir=$(cg_total "$tmp/cg.out")
  colls=$(sed -n 2p "$tmp/out.$row")
  i=0
  : > "$tmp/wall"
  while [ "$i" -lt "$runs" ]; do
    t0=$(date +%s%N)
    env LD_LIBRARY_PATH="$lib" GC_MARKERS=1 BENCH_GUILE_ROUNDS="$rounds" \
      guile-3.0 --no-auto-compile "$scm" > /dev/null 2>&1 || die "$row: a native run failed"
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 )) >> "$tmp/wall"
    i=$((i + 1))
  done
  wall=$(awk "$bench_median_awk"'{ a[++n] = $1 } END { print n ? median(a, n) : "-" }' "$tmp/wall")
  eval "ir_$(echo $row | tr - _)=$ir wall_$(echo $row | tr - _)=$wall"
  printf '%-14s %14s %6s %9s  %s\n' "$row" "$ir" "$colls" "$wall" "$lib/libgc.so.1"
done
cmp -s "$tmp/out.off" "$tmp/out.compiled-out" ||
  echo "note: the two runs printed different results (collections differ?)"
awk -v a="$ir_off" -v b="$ir_compiled_out" -v wa="$wall_off" -v wb="$wall_compiled_out" 'BEGIN {
  printf "off / compiled-out: instructions %.4f", a / b
  if (wb + 0 > 0) printf ", wall %.3f (indication)", wa / wb
  printf "\n" }'
echo "(callgrind, guile-3.0 bench/guile.scm, BENCH_GUILE_ROUNDS=$rounds, GC_MARKERS=1${norand:+, ASLR off})"
