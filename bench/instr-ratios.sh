#!/bin/sh
# SPDX-License-Identifier: MIT
# instr-ratios.sh: gcacc against unpatched bdwgc 8.2.2 in instructions.
#
#   bench/instr-ratios.sh [OUTDIR]          (default: _build/bench)
#
# Wall time on a shared machine moves by several percent from run to run,
# more than the 1-3% the always-on targets are about.  Instruction counts
# hardly do: this runs gameloop once per configuration under valgrind's
# callgrind, with address-space randomization off (setarch -R) and a fixed
# initial heap, so that every build makes the same collections; repeated
# runs of one binary have agreed to within 0.2% (unpatched within 0.01%;
# the patched rows' threads interleave differently from run to run).  It
# prints, per configuration, the
# instructions of the main thread (what the program waits for) and of all
# threads (the dump's writer thread included), each as a ratio to
# unpatched, and the number of collections.
#
# The configurations are run-ratios.sh's gameloop eight (unpatched,
# compiled-out, patched-off, patched-count, patched-dump, patched-sampled,
# patched-full, patched-trace): patched-count and patched-dump run the
# profile off (counters, census, dump), patched-sampled the default
# sampled profile (types and callsites from one sample per 512 KiB, a
# stack each), patched-full per-object tags with sampled stacks
# (GC_ACC_PROFILE=full GC_ACC_STACKS=sample=524288) and patched-trace a
# stack on every allocation (GC_ACC_PROFILE=trace).  Instructions are not
# time (a cache miss costs hundreds of instructions' worth): read them
# next to `make bench`, not instead of it.
#
# Two more workloads, run only when named, each with ratios to its own
# unpatched row: gameloop-klass (a class pointer in word 0 of every
# object, as IL2CPP; types from word 0), BENCH_INSTR_CONFIGS="klass-
# unpatched klass-off klass-dump klass-sampled klass-full klass-trace";
# and gameloop-gcj (every object with pointers made by GC_gcj_malloc, as
# IL2CPP makes them: gcj-kind objects dominate), "gcj-unpatched gcj-off
# gcj-dump gcj-sampled gcj-full gcj-trace"; klass-compiled-out and
# gcj-compiled-out run them on the collector with accounting compiled
# out (the off rows' base).  `make bench-instr` runs all
# three workloads, then each a second time at the density at which the
# tags issue measured and issue 22 stated its full and trace targets:
# names written by snprintf (gameloop -S), some 1,400 more instructions
# a frame's entity, 985 M instead of 568 M for unpatched's 300 frames
# ("snprintf-unpatched ... snprintf-trace", "snprintf-klass-...",
# "snprintf-gcj-..."; docs/design.md, "Two densities").  Every row runs with the same fixed initial heap, so
# every build makes the same collections (the colls column shows it):
# builds are compared at equal collection counts.
#
# With BENCH_INSTR_BUILD=notl it compares the builds without thread-local
# allocation (unpatched-notl, patched-notl: every object through the
# global path, as in il2cpp), all but compiled-out.
#
# The last two columns take the heap's drift apart (bench/README.md,
# "Drift"): "drift M", the block allocator's extra visits of free lists
# (calls of GC_allochblk_nth over the workload's first row's, at that
# row's instructions a visit with GC_allochblk's) plus marking's whole
# difference, in millions of instructions, all threads; "w/o", the
# all-thread ratio without it.  A stale word on the collecting stack
# retains an object in one build and not another: not code of ours.
#
# Beside each row's instructions it prints wall time as a secondary
# figure: the same command run natively BENCH_INSTR_WALL_RUNS times
# (default 5; 0: none), the median elapsed time's ratio to the
# workload's unpatched row, and the main thread's CPU time over
# unpatched's per object allocated, in ns.  Runs of a few hundred
# milliseconds on a shared machine: read them as a few percent either
# way.  Last, with klass-dump and klass-sampled4k (the sampled profile at
# one sample per 4 KiB) both run, the cost of one sample: their
# difference in instructions and in the main thread's CPU time over the
# samples taken (the dump's count, as of the last collection's record:
# the samples after it cost too but are not counted, so the figure is a
# little high).
#
# Environment: BENCH_INSTR_FRAMES (default 300), BENCH_INSTR_PASSES
# (gameloop's -w: passes of work that allocates nothing in every frame,
# default 0), BENCH_INSTR_HEAP (bytes,
# default 64000000), BENCH_INSTR_CONFIGS (a subset, in that order),
# BENCH_INSTR_BUILD (tl, the default, or notl).
# Under callgrind the runs map memory from 4 GiB up and bind symbols at
# load (cg_native_env, cg_native_opt: bench/common.sh), so that every
# build marks what it marks natively.
# Needs valgrind and the variants bench/build-variants.sh builds.  About a
# minute a configuration.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/instr-ratios.sh "${1:-}"
frames=${BENCH_INSTR_FRAMES:-300}
passes=${BENCH_INSTR_PASSES:-0}
heap=${BENCH_INSTR_HEAP:-64000000}
wall_runs=${BENCH_INSTR_WALL_RUNS:-5}
bench_build BENCH_INSTR_BUILD "${BENCH_INSTR_BUILD:-}"
all_configs=$(bench_configs "unpatched compiled-out patched-off patched-count patched-dump patched-sampled patched-full patched-trace")
klass_configs=$(bench_configs "klass-unpatched klass-compiled-out klass-off klass-dump klass-sampled klass-full klass-trace klass-sampled4k" klass-)
gcj_configs=$(bench_configs "gcj-unpatched gcj-compiled-out gcj-off gcj-dump gcj-sampled gcj-full gcj-trace" gcj-)
# Each workload again with gameloop -S (names by snprintf: the density
# of issue 22's targets), in the rows that the targets are about.
snp_configs=
for w in "" klass- gcj-; do
  for r in unpatched dump sampled full trace; do
    snp_configs="$snp_configs snprintf-$w$r"
  done
done
known="$all_configs $klass_configs $gcj_configs$snp_configs"
configs=${BENCH_INSTR_CONFIGS:-$known}

want_count BENCH_INSTR_FRAMES "$frames"
case $passes in ''|*[!0-9]*) die "BENCH_INSTR_PASSES=$passes: want a number of passes (0 or more)" ;; esac
case $heap in ''|*[!0-9]*|0) die "BENCH_INSTR_HEAP=$heap: want a size in bytes" ;; esac
case $wall_runs in ''|*[!0-9]*) die "BENCH_INSTR_WALL_RUNS=$wall_runs: want a number of runs (0 or more)" ;; esac
for c in $configs; do
  case " $known " in
    *" $c "*) ;;
    *) die "BENCH_INSTR_CONFIGS: unknown configuration $c (known: $known)" ;;
  esac
done
command -v valgrind > /dev/null ||
  die "valgrind is not installed (Debian: apt-get install valgrind)"
for b in unpatched$sfx/gameloop patched$sfx/gameloop patched$sfx/gameloop-typed \
         unpatched$sfx/gameloop-klass patched$sfx/gameloop-klass \
         unpatched$sfx/gameloop-gcj patched$sfx/gameloop-gcj; do
  [ -x "$out/$b" ] || die "no $out/$b: run bench/build-variants.sh first"
done
bench_norand

unset_acc_env

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-instr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# field NAME FILE: the value of NAME= on gameloop's line in FILE.
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2"; }
# median of the numbers on standard input, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# samples FILE: the most samples taken any record of dump FILE says.
samples() {
  gzip -dc "$1" 2> /dev/null |
    sed -n 's/.*"samples":{"taken":\([0-9]*\).*/\1/p' | sort -n | tail -n 1
}

# Each workload's rows are ratios to its unpatched row, or to its
# compiled-out row when that is not run, or else to its first: those
# rows run first, whatever order BENCH_INSTR_CONFIGS gives.
ordered=
for pass in unpatched compiled-out other; do
  for c in $configs; do
    case $c in
      *unpatched) p=unpatched ;;
      *compiled-out) p=compiled-out ;;
      *) p=other ;;
    esac
    [ "$p" != "$pass" ] || ordered="$ordered $c"
  done
done
configs=$ordered

printf '%-24s %14s %7s %14s %7s %6s %8s %6s %7s %8s %7s\n' configuration "main thread" ratio "all threads" ratio colls "wall ms" ratio "ns/obj" "drift M" "w/o"
for c in $configs; do
  # A klass or gcj configuration is its gameloop row run on gameloop-klass
  # or gameloop-gcj, with types from word 0 where that row has types; a
  # snprintf one is its row with gameloop's -S.
  names=
  case $c in
    snprintf-*) names=-S c0=${c#snprintf-} ;;
    *) c0=$c ;;
  esac
  case $c0 in
    klass-unpatched|klass-compiled-out) row=${c0#klass-} prog=gameloop-klass ;;
    klass-*) row=patched-${c0#klass-} prog=gameloop-klass ;;
    gcj-unpatched|gcj-compiled-out) row=${c0#gcj-} prog=gameloop-gcj ;;
    gcj-*) row=patched-${c0#gcj-} prog=gameloop-gcj ;;
    unpatched|compiled-out|patched-*) row=$c0 prog=gameloop ;;
    *) row=patched-$c0 prog=gameloop ;;
  esac
  # The workload, which its rows' base is kept under (base_*_<key>).
  key=$(printf '%s%s' "$names" "$prog" | tr -c 'a-zA-Z0-9\n' '_')
  dir=patched$sfx
  set --
  case $row in
    unpatched) dir=unpatched$sfx ;;
    compiled-out) dir=compiled-out ;;
    patched-off) ;;
    patched-count) set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=off ;;
    patched-dump) set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=off GC_ACC_DUMP="$tmp/d.gz" ;;
    patched-sampled)
      set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=sampled GC_ACC_DUMP="$tmp/d.gz" ;;
    patched-sampled4k)
      set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=sampled=4096 \
             GC_ACC_DUMP="$tmp/d.gz" ;;
    patched-full)
      set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=full GC_ACC_DUMP="$tmp/d.gz" \
             GC_ACC_STACKS=sample=524288 ;;
    patched-trace)
      set -- GC_ACC_ENABLE=1 GC_ACC_PROFILE=trace GC_ACC_DUMP="$tmp/d.gz" \
             GC_ACC_STACKS=all ;;
  esac
  # Types: from word 0 in klass and gcj (gcj objects by their vtable,
  # ptrfree ones by their class), given explicitly by gameloop-typed in
  # the full profile's gameloop rows.  The sampled row runs plain
  # gameloop (stacks on samples, no types): gameloop-typed calls
  # GC_acc_set_next_type for every object, which unpatched never does.
  case $row in
    patched-sampled*|patched-full|patched-trace)
      case $prog in
        gameloop-klass) set -- "$@" GC_ACC_FIRST_WORD_TYPES=ptrfree,normal ;;
        gameloop-gcj) set -- "$@" GC_ACC_FIRST_WORD_TYPES=ptrfree ;;
        *) case $row in patched-sampled*) ;; *) prog=gameloop-typed ;; esac ;;
      esac ;;
  esac
  prog=$out/$dir/$prog
  rm -f "$tmp"/cg.out* "$tmp/d.gz"
  # env first: setarch execs valgrind with the environment as it is.
  if ! env GC_INITIAL_HEAP_SIZE="$heap" $cg_native_env "$@" $norand \
        valgrind --tool=callgrind --separate-threads=yes $cg_native_opt \
        --callgrind-out-file="$tmp/cg.out" "$prog" -f "$frames" -w "$passes" $names \
        > "$tmp/stdout" 2> "$tmp/stderr"; then
    cat "$tmp/stderr" >&2
    die "$c: the run failed (valgrind's output above)"
  fi
  cg_threads "$tmp/cg.out" "$c"
  cg_drift "$tmp/cg.out"
  colls=$(field collections "$tmp/stdout")
  allocs=$(field allocs "$tmp/stdout")
  taken=
  [ -f "$tmp/d.gz" ] && taken=$(samples "$tmp/d.gz")
  # The same command natively, for wall and CPU time.
  : > "$tmp/wall"; : > "$tmp/cpu"
  r=0
  while [ "$r" -lt "$wall_runs" ]; do
    r=$((r + 1))
    rm -f "$tmp/d.gz"
    env GC_INITIAL_HEAP_SIZE="$heap" "$@" $norand "$prog" -f "$frames" \
        -w "$passes" $names > "$tmp/wstdout" 2> "$tmp/stderr" ||
      die "$c: the native run failed: $(cat "$tmp/stderr")"
    field elapsed_ns "$tmp/wstdout" >> "$tmp/wall"
    field main_cpu_ns "$tmp/wstdout" >> "$tmp/cpu"
  done
  wall=$(median < "$tmp/wall"); cpu=$(median < "$tmp/cpu")
  # The workload's first row is its base (ordered above).
  eval "seen=\${base_main_$key:-}"
  if [ -z "$seen" ]; then
    eval "base_main_$key=\$main base_all_$key=\$all base_wall_$key=\$wall" \
         "base_cpu_$key=\$cpu base_nth_$key=\$nth_calls" \
         "base_blk_$key=\$blk_ir base_mark_$key=\$mark_ir"
  fi
  eval "base_main=\$base_main_$key base_all=\$base_all_$key" \
       "base_wall=\$base_wall_$key base_cpu=\$base_cpu_$key" \
       "base_nth=\$base_nth_$key base_blk=\$base_blk_$key" \
       "base_mark=\$base_mark_$key"
  case $c in
    klass-dump) dump_main=$main dump_cpu=$cpu ;;
    klass-sampled4k) s4_main=$main s4_cpu=$cpu s4_taken=$taken ;;
  esac
  awk -v c="$c" -v m="$main" -v a="$all" -v bm="$base_main" -v ba="$base_all" \
      -v n="${colls:--}" -v w="${wall:-}" -v bw="${base_wall:-}" \
      -v u="${cpu:-}" -v bu="${base_cpu:-}" -v o="${allocs:-0}" \
      -v t="$nth_calls" -v bt="$base_nth" -v mk="$mark_ir" \
      -v bb="$base_blk" -v bmk="$base_mark" "$bench_drift_awk"'BEGIN {
        printf "%-24s %14.0f %7.4f %14.0f %7.4f %6s", c, m, m / bm, a, a / ba, n
        if (w != "" && bw > 0 && o > 0)
          printf " %8.1f %6.3f %7.1f", w / 1e6, w / bw, (u - bu) / o
        else
          printf " %8s %6s %7s", "-", "-", "-"
        d = drift(t, bt, bb, mk, bmk)
        printf " %8.2f %7.4f\n", d / 1e6, (a - d) / ba }'
done
if [ -n "${s4_main:-}" ] && [ -n "${dump_main:-}" ] && [ "${s4_taken:-0}" -gt 0 ]; then
  awk -v im="$s4_main" -v id="$dump_main" -v um="${s4_cpu:-}" \
      -v ud="${dump_cpu:-}" -v n="$s4_taken" 'BEGIN {
    printf "one sample (klass-sampled4k over klass-dump, %d samples): %.0f instructions", n, (im - id) / n
    if (um != "" && ud != "") printf ", %.0f ns of the main thread'"'"'s CPU", (um - ud) / n
    printf "\n" }'
fi
echo "(callgrind, gameloop -f $frames -w $passes (snprintf-: with -S), GC_INITIAL_HEAP_SIZE=$heap${norand:+, ASLR off}${sfx:+, builds without thread-local allocation}; ratios to each workload's unpatched row, else its compiled-out row; wall ms: median of $wall_runs native runs, ns/obj: main thread's CPU over unpatched's per object)"
