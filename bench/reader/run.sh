#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: the reader's throughput on a large synthetic dump.
#
#   run.sh GENDUMP GCACC WORKDIR
#
# GENDUMP writes WORKDIR/bench-dump.gz (GCACC_BENCH_RECORDS collection
# records, default 10,000, shaped like the writer's); then each command
# below is timed GCACC_BENCH_RUNS times (default 3) and the best run is
# reported as records/s and MB/s (compressed and uncompressed).
set -eu
gendump=$1 gcacc=$2 work=$3
records=${GCACC_BENCH_RECORDS:-10000}
runs=${GCACC_BENCH_RUNS:-3}
mkdir -p "$work"
dump=$work/bench-dump.gz
"$gendump" "$dump" "$records" > "$work/gendump.out"
cat "$work/gendump.out"
nrec=$(awk '{ print $2 }' "$work/gendump.out")
raw=$(awk '{ print $4 }' "$work/gendump.out")
comp=$(wc -c < "$dump")

now() { date +%s.%N; }

# bench LABEL CMD...: best of $runs, by wall-clock time; CPU time
# (user + sys) too when /usr/bin/time is there (a loaded machine inflates
# wall-clock time, not CPU time).
bench() {
  label=$1; shift
  best= bestcpu=
  i=0
  while [ "$i" -lt "$runs" ]; do
    t0=$(now)
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%U %S" -o "$work/bench.cpu" "$@" > /dev/null \
        2> "$work/bench.err" || { fail "$label"; return 0; }
    else
      "$@" > /dev/null 2> "$work/bench.err" || { fail "$label"; return 0; }
      echo "0 0" > "$work/bench.cpu"
    fi
    t1=$(now)
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" \
      'BEGIN { d = b - a; if (best == "" || d < best) print d; else print best }')
    bestcpu=$(awk -v best="$bestcpu" \
      '{ d = $1 + $2; if (best == "" || d < best) print d; else print best }' \
      "$work/bench.cpu")
    i=$((i + 1))
  done
  awk -v l="$label" -v s="$best" -v cpu="$bestcpu" -v n="$nrec" -v r="$raw" \
      -v c="$comp" 'BEGIN {
    printf "bench-reader: %-21s wall %6.3f s: %6.0f records/s, %5.1f MB/s uncompressed, %5.1f MB/s compressed\n",
      l, s, n / s, r / s / 1e6, c / s / 1e6
    if (cpu > 0)
      printf "bench-reader: %-21s  cpu %6.3f s: %6.0f records/s, %5.1f MB/s uncompressed, %5.1f MB/s compressed\n",
        "", cpu, n / cpu, r / cpu / 1e6, c / cpu / 1e6 }'
}
fail() {
  echo "bench-reader: $1: FAILED:" >&2
  sed 's/^/  /' "$work/bench.err" >&2
}

echo "bench-reader: $nrec records, $(awk -v r="$raw" 'BEGIN{printf "%.1f", r/1e6}') MB uncompressed," \
     "$(awk -v c="$comp" 'BEGIN{printf "%.1f", c/1e6}') MB compressed; best of $runs"
bench "zcat (baseline)" gzip -dc "$dump"
bench "gcacc summary" "$gcacc" summary --no-progress "$dump"
bench "gcacc timeline --csv" "$gcacc" timeline --csv --no-progress "$dump"
