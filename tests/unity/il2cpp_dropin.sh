#!/bin/sh
# il2cpp_dropin.sh: the Unity API in il2cpp's build mode.  Writes the
# drop-in folder (unity/make-drop-in.sh), compiles its extra/gc.c with
# exactly Unity's defines (tests/il2cpp/unity_defs.sh: 7/7/0 stamp,
# NO_GETENV, no MANUAL_VDB or LARGE_CONFIG passed), and runs the Unity
# API tests against it: the link test (every GC_* entry point il2cpp
# uses, Unity's signatures) in both heap-section eras, the behaviour
# tests (GC_deinit's reset, which only IL2CPP's build mode has, among
# them), the heap-section test in both eras.  Then a write-barrier-
# validation build (IL2CPP_ENABLE_WRITE_BARRIER_VALIDATION=1), linked
# with a program that defines GC_malloc and the rest itself, as
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
