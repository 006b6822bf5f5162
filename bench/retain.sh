#!/bin/sh
# SPDX-License-Identifier: MIT
# retain.sh: what a retention request costs (issue 37), from the dump's
# own figures: for each live heap size (BENCH_RETAIN_MB, default
# "100 1024") and case (near: the instances 2 to 6 references from a
# root; far: the one instance is the last object a breadth-first walk
# reaches, so the walk covers the live heap), the request's pause
# (world stopped), the objects it visited, its peak memory and whether
# it stopped at the cap; beside them the same collection's mark time and
# the previous collection's (no request).  near and far run with the
# defaults (64 MiB, a pause of twice the marking); full is far with
# GC_ACC_RETAIN_MEMORY=2G and GC_ACC_RETAIN_PAUSE=60000 (the whole heap).
# BENCH_RETAIN_CASES="near far full" chooses.
set -u
LOAD=${1:-./bench/retainheap}
command -v jq > /dev/null 2>&1 || { echo "bench-retain: needs jq"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-retain.XXXXXX")
trap 'rm -rf "$t"' EXIT
printf '%-8s %-5s %-6s %10s %10s %10s %9s %8s %9s %12s %12s\n' live case \
  cap pause_ms walk_ms visited mem_MiB partial timed_out mark_ms mark0_ms
for mb in ${BENCH_RETAIN_MB:-100 1024}; do
  for c in ${BENCH_RETAIN_CASES:-near far full}; do
    case $c in
      full) cap=2G; pause=60000; mode=far ;;
      *) cap=64M; pause=0; mode=$c ;;
    esac
    GC_ACC_PROFILE=full GC_ACC_RETAIN_MEMORY=$cap GC_ACC_RETAIN_PAUSE=$pause \
      GC_ACC_DUMP=$t/d.gz \
      "$LOAD" "$mb" "$mode" > "$t/out" || { echo "retainheap $mb $mode failed"; continue; }
    gzip -dc "$t/d.gz" > "$t/d.jsonl"
    r=$(jq -c 'select(.record == "retain")' "$t/d.jsonl")
    g=$(echo "$r" | jq .gc_no)
    mark=$(jq -r --argjson g "$g" 'select(.record == "collection" and
      .gc_no == $g) | .mark_ns' "$t/d.jsonl" | head -n 1)
    mark0=$(jq -r --argjson g "$g" 'select(.record == "collection" and
      .gc_no == $g - 1) | .mark_ns' "$t/d.jsonl" | head -n 1)
    echo "$r" | jq -r --arg mb "${mb}MB" --arg c "$c" --arg cap "$cap" \
      --arg m "${mark:-0}" --arg m0 "${mark0:-0}" '[$mb, $c, $cap,
      (.pause_ns / 1e6 * 10 | floor / 10), (.walk_ns / 1e6 * 10 | floor / 10),
      .visited, (.memory_bytes / 1048576 * 10 | floor / 10), .partial,
      .timed_out,
      (($m | tonumber) / 1e6 * 10 | floor / 10),
      (($m0 | tonumber) / 1e6 * 10 | floor / 10)] | @tsv' |
      awk -F '\t' '{ printf "%-8s %-5s %-6s %10s %10s %10s %9s %8s %9s %12s %12s\n",
        $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'
  done
done
