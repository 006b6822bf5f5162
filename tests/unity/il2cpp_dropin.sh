#!/bin/sh
# SPDX-License-Identifier: MIT
# il2cpp_dropin.sh: the Unity API in il2cpp's build mode.  Writes the
# drop-in folder (unity/make-drop-in.sh), compiles its extra/gc.c with
# exactly Unity's defines (tests/il2cpp/unity_defs.sh: 7/7/0 stamp,
# NO_GETENV, no MANUAL_VDB or LARGE_CONFIG passed), and runs the Unity
# API tests against it: the link test (every GC_* entry point il2cpp
# uses, Unity's signatures) in both heap-section eras, the behaviour
# tests (GC_deinit's reset, which only IL2CPP's build mode has, among
# them), how the dump ends without atexit (test_dump_end: GC_deinit, or
# an exit with neither), the heap-section test in both eras.  Then a
# write-barrier-validation build (IL2CPP_ENABLE_WRITE_BARRIER_VALIDATION=1),
# linked with a program that defines GC_malloc and the rest itself, as
# il2cpp's does.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
out=tests/unity/il2cpp
mkdir -p "$out"
. "$srcdir/tests/il2cpp/unity_defs.sh"
t="$srcdir/tests/unity"

build() { # dest extra-defines...
  d=$1
  shift
  sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" "$d" > /dev/null
  # shellcheck disable=SC2086
  $CC -c -O1 -w -o "$d.o" -I "$d/include" $unity_defs \
    '-DDEFAULT_GC_NAME="BDWGC"' "$@" "$d/extra/gc.c"
}
run() { # object include-dir test [cflags...]
  o=$1 inc=$2 name=$3
  shift 3
  $CC -O1 -o "$out/$name-$(basename "$o" .o)" -I "$srcdir/include" \
    -I "$inc" -DGC_THREADS "$@" "$t/$name.c" "$o" -lpthread -lz \
    ${GCACC_EXTRA_LIBS:-}
  "$out/$name-$(basename "$o" .o)"
}

build "$out/bdwgc-6000"
for n in test_link_il2cpp test_time_limit test_heap_sections \
         test_ephemeron test_gcj_vector test_custom_push test_incremental \
         test_deinit; do
  run "$out/bdwgc-6000.o" "$out/bdwgc-6000/include" "$n"
done

# How the dump ends in this build, which has no atexit (Unity passes
# DONT_USE_ATEXIT): GC_deinit writes the rest and the gzip trailer; an
# exit with neither GC_deinit nor a stop leaves no trailer (no handler
# ran) and a file that reads to its last whole record, every record the
# program made before it waited one writer period's worth (bounded, and
# the wait is reported).
$CC -O1 -o "$out/test_dump_end" -I "$out/bdwgc-6000/include" -DGC_THREADS \
  "$t/test_dump_end.c" "$out/bdwgc-6000.o" -lpthread -lz \
  ${GCACC_EXTRA_LIBS:-}
dumps() { # DUMP -> the collection records a reader gets, trailer or not
  { gzip -dc "$1" 2> /dev/null || true; } | grep -c '^{"record":"collection"' || true
}
rm -f "$out/end-deinit.gz" "$out/end-exit.gz"
"$out/test_dump_end" deinit "$out/end-deinit.gz" > "$out/end-deinit.out"
gzip -t "$out/end-deinit.gz" || {
  echo "FAIL: GC_deinit left the dump without its gzip trailer" >&2; exit 1; }
want=$(sed -n 's/^collections //p' "$out/end-deinit.out")
got=$(dumps "$out/end-deinit.gz")
[ "$got" = "$want" ] || {
  echo "FAIL: GC_deinit: $got collection records in the dump, $want made" >&2
  exit 1; }
"$out/test_dump_end" exit "$out/end-exit.gz" > "$out/end-exit.out"
if gzip -t "$out/end-exit.gz" 2> /dev/null; then
  echo "FAIL: a DONT_USE_ATEXIT build ended its dump at exit (an atexit" \
       "handler ran)" >&2
  exit 1
fi
want=$(sed -n 's/^collections //p' "$out/end-exit.out")
got=$(dumps "$out/end-exit.gz")
[ "$got" = "$want" ] || {
  echo "FAIL: exit without stop: $got collection records read, $want made" >&2
  exit 1; }
[ "$( { gzip -dc "$out/end-exit.gz" 2> /dev/null || true; } | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ] || {
  echo "FAIL: exit without stop: the dump does not end with a whole record" >&2
  exit 1; }
echo "dump end: GC_deinit closes it; an exit leaves $got records readable" \
     "($(sed -n 's/^latency_ms //p' "$out/end-exit.out") ms after the last)"

# Heap sections: a block in use is USED for the bytes holding objects
# (not, as in Unity's fork, its first object only; unit.sh runs the same
# program on the fork), and every live object lies in a USED range.
$CC -O1 -o "$out/test_heap_rule" -I "$out/bdwgc-6000/include" -DGC_THREADS \
  "$t/test_heap_rule.c" "$out/bdwgc-6000.o" -lpthread -lz \
  ${GCACC_EXTRA_LIBS:-}
"$out/test_heap_rule" ours

# The 3-argument era from the same folder and object: a C client says so
# with GCACC_HEAP_SECTIONS_3ARG (C++ needs nothing: one_folder.sh).
for n in test_link_il2cpp test_heap_sections; do
  run "$out/bdwgc-6000.o" "$out/bdwgc-6000/include" "$n" \
    -DGCACC_HEAP_SECTIONS_3ARG
done

build "$out/bdwgc-wbv" -DIL2CPP_ENABLE_WRITE_BARRIER_VALIDATION=1
for s in GC_malloc GC_malloc_atomic GC_malloc_uncollectable GC_free \
         GC_gcj_malloc GC_gcj_vector_malloc GC_dirty_inner; do
  if nm --defined-only "$out/bdwgc-wbv.o" | grep -q " $s\$"; then
    echo "FAIL: the validation build still defines $s" >&2
    exit 1
  fi
done
run "$out/bdwgc-wbv.o" "$out/bdwgc-wbv/include" test_wbv
echo "il2cpp drop-in: both eras and the validation build pass"
