#!/bin/sh
# SPDX-License-Identifier: MIT
# retain-instr.sh: a retention request's cost in markings of
# instructions (issue 37's gate): retainheap MB near|far under callgrind
# (ASLR off, one marker thread, bounds lifted): what the request's
# collection's marking took more than the baseline collection's (it
# records parents: GC_mark_some, inclusive, in the part callgrind dumps
# after the second GC_gcollect, less the same in the part before it)
# plus the walk's instructions (gca_retain_walk, inclusive), over the
# baseline collection's marking.  The program runs through libtool
# (LIBTOOL, by default ./libtool).  The walk's breadth-first part ends
# at a quarter of the objects marked (or one marking's time, which
# callgrind's slowdown makes the later); a build whose marking does not
# record goes on depth first past it, and its whole walk's figure moves
# between runs; see docs/design.md "Why is it alive".
# BENCH_RETAIN_MB (default 100) and
# BENCH_RETAIN_CASES (default "near far") choose.
set -u
LOAD=${1:-./bench/retainheap}
command -v valgrind > /dev/null 2>&1 || { echo "bench-retain-instr: needs valgrind"; exit 1; }
command -v callgrind_annotate > /dev/null 2>&1 || { echo "bench-retain-instr: needs callgrind_annotate"; exit 1; }
norand="setarch $(uname -m) -R"
$norand true 2> /dev/null || norand=
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-rinstr.XXXXXX")
trap 'rm -rf "$t"' EXIT
# The inclusive count of the function whose name ends the pattern.
incl() {
  callgrind_annotate --inclusive=yes "$1" 2> /dev/null |
    awk -v f="$2" 'index($0, f) { gsub(",", "", $1); print $1; exit }'
}
printf '%-6s %-5s %14s %14s %14s %9s\n' live case marking recording walk markings
for mb in ${BENCH_RETAIN_MB:-100}; do
  for c in ${BENCH_RETAIN_CASES:-near far}; do
    rm -f "$t"/cg.out*
    GC_MARKERS=1 GC_ACC_PROFILE=full GC_ACC_RETAIN_MEMORY=2G \
      GC_ACC_RETAIN_PAUSE=60000 GC_ACC_DUMP=$t/d.gz \
      $norand ${LIBTOOL:-./libtool} --mode=execute valgrind --tool=callgrind \
      --dump-before=GC_gcollect --callgrind-out-file="$t/cg.out" \
      "$LOAD" "$mb" "$c" > /dev/null 2>&1 || true
    m=$(incl "$t/cg.out.2" 'mark.c:GC_mark_some')
    mr=$(incl "$t/cg.out" 'mark.c:GC_mark_some')
    w=$(incl "$t/cg.out" 'retain.c:gca_retain_walk')
    if [ -z "$m" ] || [ -z "$mr" ] || [ -z "$w" ]; then
      echo "bench-retain-instr: retainheap $mb $c: no counts"; continue
    fi
    r=$((mr - m))
    printf '%-6s %-5s %14s %14s %14s %9s\n' "${mb}MB" "$c" "$m" "$r" "$w" \
      "$(awk -v w="$w" -v r="$r" -v m="$m" 'BEGIN { printf "%.3f", (r + w) / m }')"
  done
done
