#!/bin/sh
# SPDX-License-Identifier: MIT
# run-ratios.sh: time gcacc against unpatched bdwgc 8.2.2, side by side.
#
#   bench/run-ratios.sh [OUTDIR]            (default: _build/bench)
#
# Needs the variants bench/build-variants.sh builds into OUTDIR.  For each
# timed workload it runs its configurations interleaved round by round
# (A B C ..., then B C ... A, ...: drift in the machine's speed falls on all
# of them alike), BENCH_RUNS times (default 7):
#
#   unpatched             pristine bdwgc 8.2.2
#   compiled-out          gcacc built with -DGC_ACC_DISABLE (hooks compiled out)
#   patched-off           gcacc, accounting compiled in but not switched on
#   patched-count         GC_ACC_ENABLE=1 GC_ACC_TAGS=0 (counters, census)
#   patched-dump          GC_ACC_DUMP=<tmp> GC_ACC_TAGS=0 (issue 3's
#                         always-on mode: counters, census, dump; no tags)
#   patched-full gameloop-typed, GC_ACC_DUMP GC_ACC_TAGS=1
#                         GC_ACC_STACKS=sample=524288 (gameloop only)
#   patched-trace    gameloop-typed, GC_ACC_DUMP GC_ACC_TAGS=1
#                         GC_ACC_STACKS=all (gameloop only)
#
# klass (gameloop-klass: a class pointer in word 0 of every object, as
# IL2CPP's objects) gets unpatched, patched-dump, and full and
# trace with GC_ACC_FIRST_WORD_TYPES=ptrfree,normal: the types come
# from word 0, as gcacc in IL2CPP would take them.
#
# gamework is gameloop with -w BENCH_GAMEWORK_PASSES (default 200) passes
# of work that allocates nothing in every frame, so that allocation is
# about a quarter of the loop's time rather than all of it (as in a
# game's frame, which spends most of its time elsewhere); it gets the
# first five configurations, like gctest.  The target verdicts are
# printed for each workload: gameloop is the allocation-bound extreme.
#
# gameloop gets all seven; gctest the first five (its rounds: BENCH_RUNS, or
# 3 with BENCH_QUICK=1), plus one untimed run of patched-trace for the
# side-table memory.  Then "manysites" (20,000 live callsites, 2,000 types,
# GC_ACC_STACKS=all) is run twice, with BENCH_MANYSITES_ROUNDS (default
# "3 13") rounds, for the dump bytes per collection record and the
# side-table memory.
#
# Each run goes through OUTDIR/runone (wall time, CPU time, the child's peak
# RSS); every dump is read by bench/dumpstats.py (python3).  Prints the
# table, the dump and memory section and the targets.  Raw numbers go to
# OUTDIR/results.txt.  Exits 0 even when a target is missed (the numbers are
# noisy; read them), 1 when a run fails or a variant is missing.
#
# With BENCH_BUILD=notl it times the builds without thread-local
# allocation instead (unpatched-notl, patched-notl: every object through
# the global path, as in il2cpp); they have no compiled-out row.
#
# Environment: BENCH_RUNS (default 7), BENCH_QUICK=1 (3 gctest rounds),
# BENCH_WORKLOADS (default "gameloop gamework klass gctest manysites"),
# BENCH_GAMEWORK_PASSES (gamework's -w, default 200),
# BENCH_GAMELOOP_ARGS (e.g. "-t 1": one worker thread),
# BENCH_MANYSITES_ROUNDS (two round counts, default "3 13"),
# BENCH_BUILD (tl, the default, or notl), BENCH_CONFIGS (a subset of the
# configurations above; unpatched always runs).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_setup bench/run-ratios.sh "${1:-}"
runs=${BENCH_RUNS:-7}
workloads=${BENCH_WORKLOADS:-gameloop gamework klass gctest manysites}
gw_passes=${BENCH_GAMEWORK_PASSES:-200}
gl_args=${BENCH_GAMELOOP_ARGS:-}
# BENCH_GAMELOOP_HEAP=BYTES: gameloop runs start with that heap
# (GC_INITIAL_HEAP_SIZE), so every build collects on the same schedule.
gl_heap=${BENCH_GAMELOOP_HEAP:-}
ms_rounds=${BENCH_MANYSITES_ROUNDS:-3 13}
bench_build BENCH_BUILD "${BENCH_BUILD:-}"
configs_gameloop=$(bench_configs "unpatched compiled-out patched-off patched-count patched-dump patched-sampled patched-full patched-trace")
configs_gctest=$(bench_configs "unpatched compiled-out patched-off patched-count patched-dump patched-sampled")
configs_gamework=$configs_gctest
configs_klass="unpatched patched-dump patched-sampled patched-full patched-trace"
# BENCH_CONFIGS: time only these configurations (unpatched always runs
# first, as every ratio's base), e.g. "patched-dump" alone for many rounds.
if [ -n "${BENCH_CONFIGS:-}" ]; then
  for c in $BENCH_CONFIGS; do
    case " $configs_gameloop " in
      *" $c "*) ;;
      *) die "BENCH_CONFIGS: unknown configuration $c (known: $configs_gameloop)" ;;
    esac
  done
  pick() {
    picked=unpatched
    for c in $1; do
      case " $BENCH_CONFIGS " in *" $c "*) [ "$c" != unpatched ] && picked="$picked $c" ;; esac
    done
    echo "$picked"
  }
  configs_gameloop=$(pick "$configs_gameloop")
  configs_gctest=$(pick "$configs_gctest")
  configs_gamework=$(pick "$configs_gamework")
  configs_klass=$(pick "$configs_klass")
fi
sample_bytes=524288

want_count BENCH_RUNS "$runs"
want_count BENCH_GAMEWORK_PASSES "$gw_passes"
gctest_runs=$runs
if [ "${BENCH_QUICK:-0}" = 1 ] && [ "$runs" -gt 3 ]; then gctest_runs=3; fi
[ -x "$out/runone" ] || die "no $out/runone: run bench/build-variants.sh first"
command -v python3 > /dev/null || die "python3 is needed to read the dumps"
co=
[ -z "$sfx" ] && co=compiled-out
for w in $workloads; do
  case $w in
    gameloop) need="unpatched$sfx/gameloop ${co:+$co/gameloop} patched$sfx/gameloop patched$sfx/gameloop-typed" ;;
    gamework) need="unpatched$sfx/gameloop ${co:+$co/gameloop} patched$sfx/gameloop" ;;
    klass)    need="unpatched$sfx/gameloop-klass patched$sfx/gameloop-klass" ;;
    gctest)   need="unpatched$sfx/gctest ${co:+$co/gctest} patched$sfx/gctest" ;;
    manysites) need="patched$sfx/manysites" ;;
    *) die "BENCH_WORKLOADS: unknown workload $w (gameloop, gamework, klass, gctest, manysites)" ;;
  esac
  for b in $need; do
    [ -x "$out/$b" ] || die "no $out/$b: run bench/build-variants.sh first"
  done
done
set -- $ms_rounds
[ $# -eq 2 ] && [ "$1" -ge 1 ] 2>/dev/null && [ "$2" -gt "$1" ] 2>/dev/null ||
  die "BENCH_MANYSITES_ROUNDS=$ms_rounds: want two round counts, the second larger"

# No accounting setting may leak in from the caller's environment.
unset_acc_env

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
results="$out/results.txt"
: > "$results.tmp"
cpus=$(nproc 2>/dev/null || echo '?')

# run W CONFIG ROUND [ARGS...]: one measured run, appended to results.tmp as
#   workload config round wall_ns rss_kib status dump_bytes collections
#   cpu_ns stats
# where stats is dumpstats.py's key=value line ("-" without a dump).
run() {
  w=$1 c=$2 r=$3
  shift 3
  prog=$w
  first_word=
  case $w.$c in
    manysites.sampled) c_env=sampled-big ;;
    manysites.*) c_env=trace ;;
    *.patched-trace-mem) c_env=patched-trace ;;
    *) c_env=$c ;;
  esac
  case $w.$c in
    gameloop.patched-full|gameloop.patched-trace)
      prog=gameloop-typed ;;
    klass.patched-full|klass.patched-trace)
      prog=gameloop-klass first_word=ptrfree,normal ;;
    klass.*) prog=gameloop-klass ;;
    gamework.*) prog=gameloop ;;
  esac
  case $c in
    unpatched) bin="$out/unpatched$sfx/$prog" ;;
    compiled-out) bin="$out/compiled-out/$prog" ;;
    *) bin="$out/patched$sfx/$prog" ;;
  esac
  case $w in
    gameloop|klass) set -- $gl_args "$@" ;;
    gamework) set -- $gl_args -w "$gw_passes" "$@" ;;
  esac
  if [ -n "$gl_heap" ]; then
    case $w in
      gameloop|gamework|klass) export GC_INITIAL_HEAP_SIZE="$gl_heap" ;;
      *) unset GC_INITIAL_HEAP_SIZE ;;
    esac
  fi
  rm -rf "$tmp/dump" && mkdir "$tmp/dump"
  dump="$tmp/dump/$w-%p.gz"
  # gctest chdirs nowhere and forks; every process writes its own %p file.
  # shellcheck disable=SC2086
  case $c_env in
    patched-count)
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_TAGS=0 \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    patched-dump)
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_TAGS=0 GC_ACC_DUMP="$dump" \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    patched-sampled)   # the default profile
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_PROFILE=sampled \
               GC_ACC_DUMP="$dump" \
               env ${first_word:+GC_ACC_FIRST_WORD_TYPES=$first_word} \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    patched-full)
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_TAGS=1 GC_ACC_DUMP="$dump" \
               GC_ACC_STACKS=sample=$sample_bytes \
               env ${first_word:+GC_ACC_FIRST_WORD_TYPES=$first_word} \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    patched-trace)
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_TAGS=1 GC_ACC_DUMP="$dump" \
               GC_ACC_STACKS=all \
               env ${first_word:+GC_ACC_FIRST_WORD_TYPES=$first_word} \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    sampled-big)   # manysites in the default profile
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_PROFILE=sampled \
               GC_ACC_DUMP="$dump" GC_ACC_DUMP_BUFFER=64M \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    trace)   # manysites: records of 20,000 rows need a larger buffer
      line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_TAGS=1 GC_ACC_DUMP="$dump" \
               GC_ACC_STACKS=all GC_ACC_DUMP_BUFFER=64M \
               "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
    *)
      line=$(cd "$tmp" && "$out/runone" -o "$tmp/out" "$bin" "$@") ;;
  esac
  set -- $line
  status=$3
  if [ "$status" != 0 ]; then
    printf 'bench: %s %s round %s exited with %s (>128: signal %s)%s\n' \
      "$w" "$c" "$r" "$status" "$((status - 128))" \
      "$([ -s "$tmp/out" ] && echo '; its output ends:')" >&2
    tail -5 "$tmp/out" | sed 's/^/  /' >&2
  fi
  dbytes=0 colls=0 stats=-
  if ls "$tmp"/dump/* > /dev/null 2>&1; then
    stats=$(python3 "$here/dumpstats.py" "$tmp"/dump/*) || stats=-
    dbytes=$(printf '%s\n' "$stats" | sed -n 's/.*,bytes=\([0-9]*\).*/\1/p')
    colls=$(printf '%s\n' "$stats" | sed -n 's/.*colls=\([0-9]*\).*/\1/p')
  fi
  # gameloop says how many collections it made, with or without a dump.
  # And how many objects it allocated (for the cost per allocation).
  gcolls=- allocs=-
  case $w in
    gameloop|gamework|klass)
      if [ -s "$tmp/out" ]; then
        gcolls=$(sed -n 's/.* collections=\([0-9]*\) .*/\1/p' "$tmp/out" | tail -1)
        allocs=$(sed -n 's/.* allocs=\([0-9]*\) .*/\1/p' "$tmp/out" | tail -1)
      fi ;;
  esac
  echo "$w $c $r $1 $2 $status ${dbytes:-0} ${colls:-0} $4 $stats ${gcolls:--} ${allocs:--}" >> "$results.tmp"
}

# rounds W N CONFIGS...: N interleaved rounds, rotating the order.
rounds() {
  w=$1 n=$2
  shift 2
  cfgs=$*
  r=1
  while [ "$r" -le "$n" ]; do
    printf 'bench: %s round %d/%d\n' "$w" "$r" "$n" >&2
    set -- $cfgs
    i=0
    while [ "$i" -lt $(( (r - 1) % $# )) ]; do
      first=$1; shift; set -- "$@" "$first"; i=$((i + 1))
    done
    for c in "$@"; do run "$w" "$c" "$r"; done
    r=$((r + 1))
  done
}

start=$(date +%s)
timed=""
co=
[ -z "$sfx" ] && co=compiled-out
for w in $workloads; do
  case $w in
    gameloop)
      timed="$timed gameloop"
      rounds gameloop "$runs" $configs_gameloop ;;
    gamework)
      timed="$timed gamework"
      rounds gamework "$runs" $configs_gamework ;;
    klass)
      timed="$timed klass"
      rounds klass "$runs" $configs_klass ;;
    gctest)
      timed="$timed gctest"
      rounds gctest "$gctest_runs" $configs_gctest
      case " ${BENCH_CONFIGS:-patched-trace} " in
        *" patched-trace "*)
          printf 'bench: gctest patched-trace (memory only, 1 run)\n' >&2
          run gctest patched-trace-mem 1 ;;
      esac ;;
    manysites)
      set -- $ms_rounds
      printf 'bench: manysites, %s and %s rounds\n' "$1" "$2" >&2
      run manysites short 1 -r "$1"
      run manysites long 1 -r "$2"
      run manysites sampled 1 -r "$2" ;;
  esac
done
elapsed=$(( $(date +%s) - start ))
{ echo "# gcacc bench $(date -u +%Y-%m-%dT%H:%M:%SZ) runs=$runs gctest_runs=$gctest_runs cpus=$cpus"
  echo "# workload config round wall_ns rss_kib status dump_bytes collections cpu_ns dumpstats gc_collections allocs"
  cat "$results.tmp"; } > "$results"
rm -f "$results.tmp"

# ---- the table ------------------------------------------------------------
awk -v runs="$runs" -v gruns="$gctest_runs" -v cpus="$cpus" \
    -v elapsed="$elapsed" -v workloads="$timed" -v glheap="$gl_heap" \
    -v cfg_gameloop="$configs_gameloop" -v cfg_gctest="$configs_gctest" \
    -v cfg_gamework="$configs_gamework" -v gwpasses="$gw_passes" \
    -v cfg_klass="$configs_klass" -v ms_long="${ms_rounds#* }" \
    -v notl="${sfx:+1}" -v subset="${BENCH_CONFIGS:+1}" \
    "$bench_median_awk"'
# stat(s, key): a field of a dumpstats line ("" if absent or "-").
function stat(s, key,    n, f, i, kv) {
  n = split(s, f, ",")
  for (i = 1; i <= n; i++) {
    split(f[i], kv, "=")
    if (kv[1] == key) return kv[2] == "-" ? "" : kv[2]
  }
  return ""
}
/^#/ { next }
{
  k = $1 SUBSEP $2
  st[k] = $10                        # the dump stats of the last run
  if ($6 != 0) { failed[k]++; anyfail = 1; next }
  n[k]++
  wall[k, n[k]] = $4; rss[k, n[k]] = $5; cpu[k, n[k]] = $9
  wround[k, $3] = $4; if ($3 + 0 > maxround) maxround = $3 + 0
  if ($8 > 0) { nd[k]++; dpc[k, nd[k]] = $7 / $8 }
  if ($11 != "" && $11 != "-") { nco[k]++; co[k, nco[k]] = $11 }
  if ($12 != "" && $12 != "-") allocs[k, $3] = $12
  if ((x = stat($10, "peak_ratio")) != "") { np[k]++; pk[k, np[k]] = x }
  if ((x = stat($10, "census_share")) != "") {
    ncs[k]++; cs[k, ncs[k]] = x; cp90[k, ncs[k]] = stat($10, "census_share_p90")
  }
  if (stat($10, "tagrecs") + 0 > 0) tagged[k] = 1
  dropped[k] += stat($10, "dropped")
}
END {
  nw = split(workloads, W, " ")
  printf "gcacc vs unpatched bdwgc 8.2.2%s: median of %d interleaved runs (gctest %d), %s CPUs, %d s\n", notl ? ", both built without thread-local allocation (as il2cpp)" : "", runs, gruns, cpus, elapsed
  if (glheap != "") printf "gameloop runs with GC_INITIAL_HEAP_SIZE=%s (BENCH_GAMELOOP_HEAP)\n", glheap
  if (index(" " workloads " ", " gamework ")) printf "gamework: gameloop -w %s (passes of work that allocates nothing in every frame)\n", gwpasses
  printf "\n"
  printf "%-9s %-21s %9s %7s %6s %6s %6s %9s %6s %9s %6s %8s %7s %6s\n", "", "", "wall ms", "spread", "ratio", "best", "paired", "CPU ms", "ratio", "peak RSS", "ratio", "dump", "acc mem", "colls"
  printf "%-9s %-21s %9s %7s %6s %6s %6s %9s %6s %9s %6s %8s %7s %6s\n", "workload", "variant", "median", "", "", "ratio", "ratio", "median", "", "KiB", "", "B/coll", "%heap", "median"
  for (i = 1; i <= nw; i++) {
    nc = split(configs(W[i]), C, " ")
    if (W[i] == "gctest") C[++nc] = "patched-trace-mem"
    for (j = 1; j <= nc; j++) {
      k = W[i] SUBSEP C[j]; m = n[k] + 0
      delete a; delete b; delete d; delete u; delete e
      lo = hi = ""
      for (r = 1; r <= m; r++) {
        a[r] = wall[k, r]; b[r] = rss[k, r]; u[r] = cpu[k, r]
        if (lo == "" || a[r] < lo) lo = a[r]
        if (hi == "" || a[r] > hi) hi = a[r]
      }
      for (r = 1; r <= nd[k]; r++) d[r] = dpc[k, r]
      for (r = 1; r <= np[k]; r++) e[r] = pk[k, r]
      delete g; for (r = 1; r <= nco[k]; r++) g[r] = co[k, r]
      mco = (nco[k] > 0) ? sprintf("%.0f", median(g, nco[k])) : "-"
      mw[k] = median(a, m); mr[k] = median(b, m); mu[k] = median(u, m)
      mn[k] = lo
      md = (nd[k] > 0) ? sprintf("%.0f", median(d, nd[k])) : "-"
      if (np[k] > 0) { mp[k] = median(e, np[k]); macc = sprintf("%.1f", 100 * mp[k]) } else macc = "-"
      if (ncs[k] > 0) {
        delete e; for (r = 1; r <= ncs[k]; r++) e[r] = cs[k, r]; mcs[k] = median(e, ncs[k])
        delete e; for (r = 1; r <= ncs[k]; r++) e[r] = cp90[k, r]; mcp[k] = median(e, ncs[k])
      }
      sp[k] = (m > 0 && mw[k] > 0) ? (hi - lo) / mw[k] : 0
      base = W[i] SUBSEP "unpatched"
      note = failed[k] ? sprintf("  (%d runs FAILED)", failed[k]) : ""
      if (C[j] == "patched-trace-mem") note = note "  (1 run, for memory)"
      if (dropped[k] > 0) note = note sprintf("  (%d records dropped in all: buffer full)", dropped[k])
      if ((C[j] == "patched-count" || C[j] == "patched-dump") && tagged[k]) note = note "  (tags were on: GC_ACC_TAGS=0 ignored)"
      if (m == 0) {
        if (!failed[k]) continue
        printf "%-9s %-21s %9s %7s %6s %6s %6s %9s %6s %9s %6s %8s %7s %6s%s\n", W[i], C[j], "-", "-", "-", "-", "-", "-", "-", "-", "-", md, macc, mco, note
        continue
      }
      rw[k] = (mw[base] > 0) ? mw[k] / mw[base] : 0
      rn[k] = (mn[base] > 0) ? mn[k] / mn[base] : 0
      ru[k] = (mu[base] > 0) ? mu[k] / mu[base] : 0
      rr[k] = (mr[base] > 0) ? mr[k] / mr[base] : 0
      # Paired: the median over rounds of the wall time of this row over
      # the unpatched run of the same round (the two ran minutes apart at
      # most, so slow drift in the speed of the machine cancels out).
      delete pr; npr = 0
      for (r = 1; r <= maxround; r++)
        if (((k, r) in wround) && ((base, r) in wround) && wround[base, r] > 0)
          pr[++npr] = wround[k, r] / wround[base, r]
      rp[k] = (npr > 0) ? median(pr, npr) : 0   # sorts pr
      # A 95% confidence interval for that median, from order statistics
      # (distribution-free: the per-round ratios need not be normal).
      ci_k = median_ci_rank(npr)
      if (ci_k > 0) { plo[k] = pr[ci_k]; phi[k] = pr[npr + 1 - ci_k] }
      printf "%-9s %-21s %9.1f %6.1f%% %6.3f %6.3f %6.3f %9.1f %6.3f %9d %6.3f %8s %7s %6s%s\n", W[i], C[j], mw[k] / 1e6, 100 * sp[k], rw[k], rn[k], rp[k], mu[k] / 1e6, ru[k], mr[k], rr[k], md, macc, mco, note
    }
  }

  # ---- manysites: dump bytes per record, side tables -------------------
  ks = "manysites" SUBSEP "short"; kl = "manysites" SUBSEP "long"
  if ((ks in st) || (kl in st)) {
    printf "\nmanysites (GC_ACC_STACKS=all, one run each; %s):\n", (failed[ks] || failed[kl]) ? "FAILED" : "ok"
    for (t = 1; t <= 2; t++) {
      k = (t == 1) ? ks : kl; s = st[k]
      per = (stat(s, "colls") > 0) ? stat(s, "bytes") / stat(s, "colls") : 0
      printf "  %-5s %s collection records, %s B compressed (%.0f B/record), %s B raw; %s sites, %s types defined; %s site rows, %s type rows a record; %s dropped\n", (t == 1) ? "short" : "long", stat(s, "colls"), stat(s, "bytes"), per, stat(s, "raw"), stat(s, "sites"), stat(s, "types"), stat(s, "siterows"), stat(s, "typerows"), stat(s, "dropped")
    }
    dc = stat(st[kl], "colls") - stat(st[ks], "colls")
    if (dc > 0) {
      ms_steady = (stat(st[kl], "bytes") - stat(st[ks], "bytes")) / dc
      printf "  steady state (long - short, sites already defined): %.0f B compressed, %.0f B raw per collection record\n", ms_steady, (stat(st[kl], "raw") - stat(st[ks], "raw")) / dc
    }
    k = "manysites" SUBSEP "sampled"
    if (k in st) {
      s = st[k]
      printf "  sampled (the default profile, %s rounds): %s collection records, %s B compressed, %s sites, %s types defined (its memory: below)\n", ms_long, stat(s, "colls"), stat(s, "bytes"), stat(s, "sites"), stat(s, "types")
    }
    s = st[kl]
    printf "  side tables: %s B at the heap peak of %s B (%.1f%%); max over records %.1f%%; max %s B\n", stat(s, "acc_at_peak"), stat(s, "heap_peak"), 100 * stat(s, "peak_ratio"), 100 * stat(s, "max_ratio"), stat(s, "acc_max")
  }

  # ---- gameloop, gamework, klass: what each configuration costs per object ----
  hdr = 0
  for (i = 1; i <= nw; i++) {
    if (W[i] != "gameloop" && W[i] != "gamework" && W[i] != "klass") continue
    base = W[i] SUBSEP "unpatched"
    if (!(base in mw)) continue
    nc = split(configs(W[i]), C, " ")
    for (j = 1; j <= nc; j++) {
      k = W[i] SUBSEP C[j]
      if (C[j] == "unpatched" || !(k in mw)) continue
      delete pr; npr = 0
      for (r = 1; r <= maxround; r++)
        if (((k, r) in wround) && ((base, r) in wround) && ((k, r) in allocs) && allocs[k, r] > 0)
          pr[++npr] = (wround[k, r] - wround[base, r]) / allocs[k, r]
      if (npr == 0) continue
      if (!hdr) {
        printf "\nwall time over unpatched per object allocated (paired: the median over rounds of (this run - unpatched run) / objects; multiply by a program'"'"'s allocations to estimate its cost):\n"
        hdr = 1
      }
      m = median(pr, npr); ci_k = median_ci_rank(npr)
      if (ci_k > 0)
        printf "  %-9s %-21s %7.1f ns  (95%% interval %.1f to %.1f ns)\n", W[i], C[j], m, pr[ci_k], pr[npr + 1 - ci_k]
      else
        printf "  %-9s %-21s %7.1f ns  (interval: needs 6 rounds or more)\n", W[i], C[j], m
    }
  }

  printf "\ntargets (ratios vs unpatched: median, best-of-runs, and paired (median of per-round ratios); noise = half the larger spread):\n"
  for (i = 1; i <= nw; i++) {
    base = W[i] SUBSEP "unpatched"
    if (W[i] != "klass") {        # klass has neither row
      if (!notl) check(W[i], "compiled-out", "wall", rw, rn, 1.01, base)
      check(W[i], "patched-off", "wall", rw, rn, 1.01, base)
    }
    check(W[i], "patched-dump", "wall", rw, rn, 1.03, base)
    check(W[i], "patched-dump", "RSS", rr, rr, 1.03, "")
    if (W[i] == "gamework")     # issue 22: the default profile
      check(W[i], "patched-sampled", "wall", rw, rn, 1.03, base)
    if (W[i] == "gameloop" || W[i] == "klass") {
      check(W[i], "patched-full", "wall", rw, rn, 1.05, base)
      check(W[i], "patched-trace", "wall", rw, rn, 1.50, base)
    }
  }
  printf "census share of marking (patched-dump: per run, the sum of census_ns over the sum of mark_ns, and the 90th percentile of the per-collection shares; medians over the runs, each judged against the target):\n"
  for (i = 1; i <= nw; i++) censuscheck(W[i], "patched-dump")
  printf "side-table memory at its peak over the peak heap (the side tables GC_ACC_TABLE_LIMIT caps: tags, callsites, samples; last run), then all accounting memory (acc_memory_bytes: type and pair rows, record buffers and counters too):\n"
  for (i = 1; i <= nw; i++)
    if (W[i] != "manysites") memcheck(W[i], "patched-sampled", 0.02)
  memcheck("manysites", "sampled", 0.02)
  memcheck("gameloop", "patched-full", 0.10)
  memcheck("gameloop", "patched-trace", 0.10)
  printf "side-table memory of the stress cases (stacks on every allocation; the most acc_memory_bytes of any record, against the cap GC_ACC_TABLE_LIMIT, 256 MiB by default):\n"
  capcheck("gctest", "patched-trace-mem")
  capcheck("manysites", "long")
  if (anyfail) exit 1
}
# configs(w): the configurations timed for workload w.
function configs(w) {
  return w == "gameloop" ? cfg_gameloop : w == "gamework" ? cfg_gamework \
         : w == "klass" ? cfg_klass : cfg_gctest
}
# median_ci_rank(n): the largest k with P(Binomial(n, 1/2) < k) <= 0.025,
# so that [x(k), x(n+1-k)] of n sorted values covers their median with at
# least 95% probability; 0 when n is too small (below 6) for any such k.
function median_ci_rank(n,    k, c, t) {
  t = 0.5 ^ n; c = t            # t = P(B = k - 1), c = P(B < k)
  if (c > 0.025) return 0
  for (k = 1; ; k++) {
    t = t * (n - k + 1) / k     # P(B = k)
    if (c + t > 0.025) return k
    c += t
  }
}
# What the confidence interval [lo, hi] of a ratio says of a target.
function ci_verdict(lo, hi, target) {
  if (hi <= target) return "met"
  if (lo > target) return "MISSED"
  return "undecided"
}
function verdict(ratio, target, noise) {
  if (ratio <= target) return "ok"
  if (ratio - 1 <= noise) return "over (within noise)"
  return "OVER"
}
function check(w, c, what, med, best, target, base,    k, noise) {
  k = w SUBSEP c
  if (!(k in med)) {
    if (!subset) printf "  %-9s %-21s %-4s no data\n", w, c, what
    return
  }
  noise = 0
  if (base != "") noise = (sp[base] > sp[k] ? sp[base] : sp[k]) / 2
  if (what == "RSS")
    printf "  %-9s %-21s %-4s %.3f <= %.2f  %s\n", w, c, what, med[k], target, verdict(med[k], target, 0)
  else
    printf "  %-9s %-21s %-4s %.3f <= %.2f  %s; best-of %.3f  %s; paired %.3f  %s  (noise %.1f%%)\n", w, c, what, med[k], target, verdict(med[k], target, noise), best[k], verdict(best[k], target, noise), rp[k], verdict(rp[k], target, noise), 100 * noise
  if (what != "RSS") {
    if (k in plo)
      printf "  %-9s %-21s      paired 95%% interval [%.3f, %.3f]: target %s\n", "", "", plo[k], phi[k], ci_verdict(plo[k], phi[k], target)
    else
      printf "  %-9s %-21s      paired 95%% interval: needs 6 rounds or more\n", "", ""
  }
}
function censuscheck(w, c,    k, p, x) {
  k = w SUBSEP c
  if (!(k in st)) return
  if (!(k in mcs)) { printf "  %-9s %-21s no data\n", w, c; return }
  p = mcs[k]; x = mcp[k]
  printf "  %-9s %-21s sum %5.1f%% <= 10%%  %s; p90 of collections %5.1f%% <= 10%%  %s  (%d runs)\n", w, c, 100 * p, (p <= 0.10) ? "ok" : "OVER", 100 * x, (x <= 0.10) ? "ok" : "OVER", ncs[k]
}
function memcheck(w, c, target,    k, p, a) {
  k = w SUBSEP c
  if (!(k in st)) return
  p = stat(st[k], "side_ratio"); a = stat(st[k], "acc_ratio")
  if (p == "" || p == "-") { printf "  %-9s %-21s no data\n", w, c; return }
  printf "  %-9s %-21s %5.2f%% <= %g%%  %s  (%s B; all accounting memory %s B, %.2f%%)\n", w, c, 100 * p, 100 * target, (p <= target) ? "ok" : "OVER", stat(st[k], "side_max"), stat(st[k], "acc_max"), 100 * a
}
function capcheck(w, c,    k, a, cap) {
  k = w SUBSEP c
  if (!(k in st)) return
  a = stat(st[k], "acc_max"); cap = 268435456
  if (a == "") { printf "  %-9s %-21s no data\n", w, c; return }
  printf "  %-9s %-21s %.1f MiB <= %.0f MiB  %s  (%.0f%% of the heap at its peak)\n", w, c, a / 1048576, cap / 1048576, (a <= cap) ? "ok" : "OVER", 100 * stat(st[k], "peak_ratio")
}' "$results" || { echo "bench: some runs failed (see above and $results)" >&2; exit 1; }
echo
echo "raw results: $results"
