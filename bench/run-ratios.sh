#!/bin/sh
# run-ratios.sh: time gcacc against unpatched bdwgc 8.2.2, side by side.
#
#   bench/run-ratios.sh [OUTDIR]            (default: _build/bench)
#
# Needs the variants bench/build-variants.sh builds into OUTDIR.  For each
# workload (gameloop, upstream's gctest) it runs five configurations,
# interleaved round by round (A B C D E, then B C D E A, ...: drift in the
# machine's speed falls on all of them alike), BENCH_RUNS times (default 7):
#
#   unpatched     pristine bdwgc 8.2.2
#   compiled-out  gcacc built with -DGC_ACC_DISABLE (hooks compiled out)
#   patched-off   gcacc, accounting compiled in but not switched on
#   patched-count gcacc with GC_ACC_ENABLE=1 only (counting, no dump)
#   patched-on    gcacc with GC_ACC_ENABLE=1 GC_ACC_DUMP=<tmp>/<w>-%p.gz
#                 (counters, census and dump, as far as the build has them)
#
# Each run goes through OUTDIR/runone (wall time, the child's peak RSS).
# Prints, per (workload, configuration), the median wall time and peak RSS,
# their ratios to unpatched, the spread of the wall times ((max-min)/median)
# and, for patched-on, the compressed dump bytes per collection record
# ("n/a" when no dump was written); then the targets.  Raw numbers go to
# OUTDIR/results.txt.  Exits 0 even when a target is missed (the numbers are
# noisy; read them), 1 when a run fails or a variant is missing.
#
# Environment: BENCH_RUNS (default 7), BENCH_WORKLOADS (default
# "gameloop gctest"), BENCH_GAMELOOP_ARGS (e.g. "-t 1": one worker thread).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$(cd "${1:-$top/_build/bench}" && pwd)
runs=${BENCH_RUNS:-7}
workloads=${BENCH_WORKLOADS:-gameloop gctest}
gl_args=${BENCH_GAMELOOP_ARGS:-}
configs="unpatched compiled-out patched-off patched-count patched-on"

die() { printf 'bench/run-ratios.sh: error: %s\n' "$*" >&2; exit 1; }
case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS=$runs: want a positive integer" ;; esac
[ -x "$out/runone" ] || die "no $out/runone: run bench/build-variants.sh first"
for v in unpatched compiled-out patched; do
  for w in $workloads; do
    [ -x "$out/$v/$w" ] || die "no $out/$v/$w: run bench/build-variants.sh first"
  done
done

# No accounting setting may leak in from the caller's environment.
for v in $(env | sed -n 's/^\(GC_ACC_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
results="$out/results.txt"
: > "$results.tmp"
cpus=$(nproc 2>/dev/null || echo '?')

# run W CONFIG ROUND: one measured run, appended to results.tmp as
#   workload config round wall_ns rss_kib status dump_bytes collections cpu_ns
run() {
  w=$1 c=$2 r=$3
  case $c in
    patched-*) bin="$out/patched/$w" ;;
    *)         bin="$out/$c/$w" ;;
  esac
  args=""
  [ "$w" = gameloop ] && args=$gl_args
  rm -rf "$tmp/dump" && mkdir "$tmp/dump"
  # gctest chdirs nowhere and forks; every process writes its own %p file.
  # shellcheck disable=SC2086
  if [ "$c" = patched-count ]; then
    line=$(cd "$tmp" && GC_ACC_ENABLE=1 \
             "$out/runone" -o "$tmp/out" "$bin" $args)
  elif [ "$c" = patched-on ]; then
    line=$(cd "$tmp" && GC_ACC_ENABLE=1 GC_ACC_DUMP="$tmp/dump/$w-%p.gz" \
             "$out/runone" -o "$tmp/out" "$bin" $args)
  else
    line=$(cd "$tmp" && "$out/runone" -o "$tmp/out" "$bin" $args)
  fi
  set -- $line
  status=$3
  if [ "$status" != 0 ]; then
    printf 'bench: %s %s round %s exited with %s (>128: signal %s)%s\n' \
      "$w" "$c" "$r" "$status" "$((status - 128))" \
      "$([ -s "$tmp/out" ] && echo '; its output ends:')" >&2
    tail -5 "$tmp/out" | sed 's/^/  /' >&2
  fi
  dbytes=0 colls=0
  for f in "$tmp"/dump/*; do
    [ -f "$f" ] || continue
    dbytes=$((dbytes + $(wc -c < "$f")))
    n=$(zcat "$f" 2>/dev/null | grep -c '"record": *"collection"' || true)
    colls=$((colls + ${n:-0}))
  done
  echo "$w $c $r $1 $2 $status $dbytes $colls $4" >> "$results.tmp"
}

start=$(date +%s)
for w in $workloads; do
  r=1
  while [ "$r" -le "$runs" ]; do
    printf 'bench: %s round %d/%d\n' "$w" "$r" "$runs" >&2
    # Rotate the order each round: round r starts with config r-1 (mod 5).
    set -- $configs
    i=0
    while [ "$i" -lt $(( (r - 1) % $# )) ]; do
      first=$1; shift; set -- "$@" "$first"; i=$((i + 1))
    done
    for c in "$@"; do run "$w" "$c" "$r"; done
    r=$((r + 1))
  done
done
elapsed=$(( $(date +%s) - start ))
{ echo "# gcacc bench $(date -u +%Y-%m-%dT%H:%M:%SZ) runs=$runs cpus=$cpus"
  echo "# workload config round wall_ns rss_kib status dump_bytes collections cpu_ns"
  cat "$results.tmp"; } > "$results"
rm -f "$results.tmp"

# ---- the table ------------------------------------------------------------
awk -v runs="$runs" -v cpus="$cpus" -v elapsed="$elapsed" \
    -v workloads="$workloads" -v configs="$configs" '
function median(a, n,    i, j, t) {
  for (i = 2; i <= n; i++) {          # insertion sort; n is small
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  if (n == 0) return ""
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^#/ { next }
{
  k = $1 SUBSEP $2
  if ($6 != 0) { failed[k]++; anyfail = 1; next }
  n[k]++
  wall[k, n[k]] = $4; rss[k, n[k]] = $5; cpu[k, n[k]] = $9
  if ($8 > 0) { nd[k]++; dpc[k, nd[k]] = $7 / $8 }
}
END {
  nw = split(workloads, W, " "); nc = split(configs, C, " ")
  printf "gcacc vs unpatched bdwgc 8.2.2: median of %d interleaved runs, %s CPUs, %d s\n\n", runs, cpus, elapsed
  printf "%-9s %-13s %9s %7s %6s %6s %9s %6s %9s %6s %9s\n", "", "", "wall ms", "spread", "ratio", "best", "CPU ms", "ratio", "peak RSS", "ratio", "dump"
  printf "%-9s %-13s %9s %7s %6s %6s %9s %6s %9s %6s %9s\n", "workload", "variant", "median", "", "", "ratio", "median", "", "KiB", "", "B/coll"
  for (i = 1; i <= nw; i++) {
    for (j = 1; j <= nc; j++) {
      k = W[i] SUBSEP C[j]; m = n[k] + 0
      delete a; delete b; delete d; delete u
      lo = hi = ""
      for (r = 1; r <= m; r++) {
        a[r] = wall[k, r]; b[r] = rss[k, r]; u[r] = cpu[k, r]
        if (lo == "" || a[r] < lo) lo = a[r]
        if (hi == "" || a[r] > hi) hi = a[r]
      }
      for (r = 1; r <= nd[k]; r++) d[r] = dpc[k, r]
      mw[k] = median(a, m); mr[k] = median(b, m); mu[k] = median(u, m)
      mn[k] = lo
      md = (nd[k] > 0) ? sprintf("%.0f", median(d, nd[k])) : "n/a"
      if (C[j] != "patched-on") md = "-"
      sp[k] = (m > 0 && mw[k] > 0) ? (hi - lo) / mw[k] : 0
      base = W[i] SUBSEP "unpatched"
      note = failed[k] ? sprintf("  (%d runs FAILED)", failed[k]) : ""
      if (m == 0) {
        printf "%-9s %-13s %9s %7s %6s %6s %9s %6s %9s %6s %9s%s\n", W[i], C[j], "-", "-", "-", "-", "-", "-", "-", "-", md, note
        continue
      }
      rw[k] = (mw[base] > 0) ? mw[k] / mw[base] : 0
      rn[k] = (mn[base] > 0) ? mn[k] / mn[base] : 0
      ru[k] = (mu[base] > 0) ? mu[k] / mu[base] : 0
      rr[k] = (mr[base] > 0) ? mr[k] / mr[base] : 0
      printf "%-9s %-13s %9.1f %6.1f%% %6.3f %6.3f %9.1f %6.3f %9d %6.3f %9s%s\n", W[i], C[j], mw[k] / 1e6, 100 * sp[k], rw[k], rn[k], mu[k] / 1e6, ru[k], mr[k], rr[k], md, note
    }
  }
  printf "\ntargets (ratios vs unpatched: median, then best-of-runs; noise = half the larger spread):\n"
  for (i = 1; i <= nw; i++) {
    base = W[i] SUBSEP "unpatched"
    check(W[i], "compiled-out", "wall", rw, rn, 1.01, base)
    check(W[i], "patched-off", "wall", rw, rn, 1.01, base)
    check(W[i], "patched-on", "wall", rw, rn, 1.03, base)
    check(W[i], "patched-on", "RSS", rr, rr, 1.03, "")
  }
  if (anyfail) exit 1
}
function verdict(ratio, target, noise) {
  if (ratio <= target) return "ok"
  if (ratio - 1 <= noise) return "over (within noise)"
  return "OVER"
}
function check(w, c, what, med, best, target, base,    k, noise) {
  k = w SUBSEP c
  if (!(k in med)) { printf "  %-9s %-13s %-4s no data\n", w, c, what; return }
  noise = 0
  if (base != "") noise = (sp[base] > sp[k] ? sp[base] : sp[k]) / 2
  if (what == "RSS")
    printf "  %-9s %-13s %-4s %.3f <= %.2f  %s\n", w, c, what, med[k], target, verdict(med[k], target, 0)
  else
    printf "  %-9s %-13s %-4s %.3f <= %.2f  %s; best-of %.3f  %s  (noise %.1f%%)\n", w, c, what, med[k], target, verdict(med[k], target, noise), best[k], verdict(best[k], target, noise), 100 * noise
}' "$results" || { echo "bench: some runs failed (see above and $results)" >&2; exit 1; }
echo
echo "raw results: $results"
