#!/bin/sh
# SPDX-License-Identifier: MIT
# amalgam.sh: the accounting builds and counts inside IL2CPP's build mode.
#
# IL2CPP compiles bdwgc as the one file extra/gc.c, with Unity's define set
# (shared/IL2CPP.md section 3, tests/il2cpp/unity_defs.sh): the 7/7/0
# version stamp, no getenv, no thread-local allocation, no parallel
# marking.  This writes the drop-in folder (unity/make-drop-in.sh, which
# marks it an IL2CPP build, so manual VDB and LARGE_CONFIG come on without
# being passed), compiles its extra/gc.c with exactly Unity's defines,
# links our counter test against it, and runs it, so a hook that relies
# on one build mode's paths fails here.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
out=tests/il2cpp
mkdir -p "$out"
. "$srcdir/tests/il2cpp/unity_defs.sh"
sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" \
  "$out/bdwgc" 6000 > /dev/null
up="$out/bdwgc"
il2cpp_defs=$unity_defs
# shellcheck disable=SC2086
$CC -c -O1 -w -o "$out/gc-il2cpp.o" -I "$up/include" $il2cpp_defs \
  '-DDEFAULT_GC_NAME="BDWGC"' "$up/extra/gc.c"
# The amalgamation must not export our internals: only GC_acc_* is public.
if nm -g --defined-only "$out/gc-il2cpp.o" | grep -q ' gca_'; then
  echo "FAIL: internal gca_* symbols are global in extra/gc.c" >&2
  nm -g --defined-only "$out/gc-il2cpp.o" | grep ' gca_' >&2
  exit 1
fi
nm -g --defined-only "$out/gc-il2cpp.o" | grep -q ' GC_acc_get_stats$' || {
  echo "FAIL: GC_acc_get_stats missing from extra/gc.c" >&2; exit 1; }
# The collector side needs bdwgc, libatomic_ops and zlib only: IL2CPP's
# tree ships zlib but no jansson (tests/collector_deps.sh checks libgc).
if nm -u "$out/gc-il2cpp.o" | grep -q ' json_'; then
  echo "FAIL: IL2CPP's extra/gc.c needs jansson:" >&2
  nm -u "$out/gc-il2cpp.o" | grep ' json_' >&2
  exit 1
fi
# shellcheck disable=SC2086
$CC -O1 -o "$out/test_counters-il2cpp" -I "$srcdir/include" -I "$up/include" \
  -DGC_THREADS "$srcdir/tests/unit/test_counters.c" "$out/gc-il2cpp.o" \
  -lpthread -lz ${GCACC_EXTRA_LIBS:-}
"$out/test_counters-il2cpp"
# Once more with upstream's assertions (GC_ASSERTIONS), which also check
# the counting hooks' assumptions (docs/hooks.md: a small object's class
# is GC_size_map[lb] at every GC_ACC_ON_ALLOC site) on the global path
# every IL2CPP allocation takes.
# This build also takes the dump writer's portable wait (a condition
# variable with a timeout), which systems without futexes use, so that
# the dump's ring test runs that path too.  It keeps frame
# pointers, as an embedder must for callsites with the default unwinder
# (accounting/unwind.c), so that the types and callsites tests run on it.
# shellcheck disable=SC2086
$CC -c -O1 -fno-omit-frame-pointer -w -o "$out/gc-il2cpp-assert.o" \
  -I "$up/include" $il2cpp_defs \
  -DGC_ASSERTIONS -DGCA_DUMP_NO_FUTEX -DGCA_TEST_API \
  "$up/extra/gc.c"
# shellcheck disable=SC2086
$CC -O1 -o "$out/test_counters-il2cpp-assert" -I "$srcdir/include" \
  -I "$up/include" -DGC_THREADS "$srcdir/tests/unit/test_counters.c" \
  "$out/gc-il2cpp-assert.o" -lpthread -lz -ljansson ${GCACC_EXTRA_LIBS:-}
"$out/test_counters-il2cpp-assert"
# It reads its dump back with the reader's parser (tools/gcacc/dump_read.c,
# which takes the dump's columns from accounting/gca_fields.h).
# shellcheck disable=SC2086
$CC -O1 -o "$out/test_dump_ring-il2cpp-assert" -I "$srcdir/include" \
  -I "$up/include" -I "$srcdir/tools/gcacc" -I "$srcdir/accounting" \
  -DGC_THREADS "$srcdir/tests/unit/test_dump_ring.c" \
  "$srcdir/tools/gcacc/dump_read.c" \
  "$out/gc-il2cpp-assert.o" -lpthread -lz -ljansson ${GCACC_EXTRA_LIBS:-}
"$out/test_dump_ring-il2cpp-assert"
# The exactness tests (census, free-block books, types and callsites)
# in IL2CPP's build mode: every object through the global path, roots
# registered by hand (GC_DONT_REGISTER_MAIN_STATIC_DATA), the collector's
# code inside a larger module (callsites tell its frames by address span).
# test_locked_countdown: GC_malloc_kind_global's pops counted in the
# rows' words, which only builds without thread-local allocation do.
for t in test_frag_churn test_census test_frag test_types test_types_gcj \
    test_locked_countdown; do
  # shellcheck disable=SC2086
  $CC -O1 -fno-omit-frame-pointer -rdynamic -o "$out/$t-il2cpp-assert" \
    -I "$srcdir/include" -I "$up/include" -DGC_THREADS \
    "$srcdir/tests/unit/$t.c" "$out/gc-il2cpp-assert.o" \
    -lpthread -lz -ljansson -ldl -lm ${GCACC_EXTRA_LIBS:-}
  "$out/$t-il2cpp-assert"
done
# The il2cpp-shaped harness (tests/il2cpp/gameload.sh's checks) on this
# build, where there is no getenv: a wrapper turns the test's settings
# into the API calls a game makes (gameload --api: GC_acc_set_type_mode,
# GC_acc_set_stacks, GC_acc_dump_start).  The harness registers its own
# roots (GC_DONT_REGISTER_MAIN_STATIC_DATA stays defined).
# shellcheck disable=SC2086
$CC -O1 -g -fno-omit-frame-pointer -o "$out/gameload-il2cpp-assert" \
  -I "$srcdir/include" -I "$up/include" -DGC_THREADS \
  "$srcdir/tests/il2cpp/gameload.c" "$out/gc-il2cpp-assert.o" \
  -lpthread -lz -ldl ${GCACC_EXTRA_LIBS:-}
cat > "$out/gameload-api" <<EOF
#!/bin/sh
exec "$(pwd)/$out/gameload-il2cpp-assert" "\$1" --api "\$GC_ACC_DUMP"
EOF
chmod +x "$out/gameload-api"
GAMELOAD="$out/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh"
