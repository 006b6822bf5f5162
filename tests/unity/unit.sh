#!/bin/sh
# SPDX-License-Identifier: MIT
# unit.sh: our accounting's unit tests, and the vector test, on Unity's fork.
#
# The same tests tests/il2cpp/amalgam.sh runs on patched 8.2.2 in IL2CPP's
# build mode, run here against Unity's own fork built by bdwgc/unity.sh
# with Unity's exact define set: test_counters on the plain build, then
# with upstream's assertions (GC_ASSERTIONS checks each counting hook's
# size-class and kind assumptions, docs/hooks.md) test_counters,
# test_dump_ring, test_census, test_frag, test_frag_churn, test_types,
# test_types_gcj, test_tl_copies (GC_malloc_kind_global made in
# copies: none with hooks while off), and tests/unity/test_vector
# (Unity's gcj-vector kind counted and typed by class); before them, the
# counting copy's saved registers (objdump) and inline parity against
# the fork compiled with -DGC_ACC_DISABLE (tests/inline_parity.sh
# --compare); tests/unity/test_heap_rule records the
# fork's own heap-section figures (a small-object block USED for its
# first object only, docs/il2cpp.md); tests/unit/test_stale_context, the
# saved registers' context cleared.  The collector object must not need
# jansson (nm -u: no json_*) nor export our internals.  The tests register
# their roots by hand (Unity's GC_DONT_REGISTER_MAIN_STATIC_DATA).
set -eu
me=unit
. "$srcdir/tests/unity/unity_lib.sh"

unity_build gc
if nm -u "$OUT/gc.o" | grep -q ' json_'; then
  echo "FAIL: Unity's extra/gc.c needs jansson:" >&2
  nm -u "$OUT/gc.o" | grep ' json_' >&2
  exit 1
fi
if nm -g --defined-only "$OUT/gc.o" | grep -q ' gca_'; then
  echo "FAIL: internal gca_* symbols are global in Unity's extra/gc.c" >&2
  exit 1
fi
echo "ok: nm -u of Unity's extra/gc.c object: no json_* symbol"
# The copy of GC_malloc_kind_global that counts (mode 1, the default
# profile) is every GC_malloc's path here: the pop's count keeps no
# callee-saved register for the object across the sample hook's call
# (GCA_LOCKED_POP, gca_hooks.h; it pushed %rbx, a push, a pop and a move
# an object, before).  x86-64 and gcc only: which registers is theirs.
case $(uname -m) in x86_64) cnt_check=1 ;; *) cnt_check= ;; esac
case ${CC:-cc} in *clang*) cnt_check= ;; esac
# fn_asm NAME: the instructions of function NAME in the fork's gc.o
# (status 1 unless there is exactly one).
fn_asm() {
  objdump -d --no-show-raw-insn "$OUT/gc.o" | awk -v fn="<$1>:" '
    $NF == fn { f = 1; n++; next }
    f && /^$/ { f = 0 }
    f { print }
    END { exit n == 1 ? 0 : 1 }'
}
# code_check NAME PROG WANT OK: awk PROG reads function NAME's
# instructions and prints what is wrong with them, nothing if right.
code_check() {
  if asm=$(fn_asm "$1"); then bad=$(printf '%s\n' "$asm" | awk "$2")
  else bad="missing"; fi
  [ -z "$bad" ] || { echo "FAIL: $1: $bad ($3)" >&2; exit 1; }
  echo "ok: $4"
}
if [ -n "$cnt_check" ] && command -v objdump > /dev/null 2>&1; then
  code_check gca_copy_malloc_kind_global_cnt \
    '/push/ && !/%rbp/ { printf "saves %s ", $NF }' \
    "the counting copy should keep the object in a scratch register" \
    "the counting copy of GC_malloc_kind_global saves no register but %rbp"
  # Mode 1's large objects, counted inline in GC_generic_malloc's copy
  # of mode 1 (GCA_LARGE_COUNT): one thread-local word, the countdown
  # (whether GC_generic_malloc_many makes the object is asked in the due
  # hook only), and the row from a base per kind and a bsr (no multiply
  # of the kind by its rows, nor of the row by its size: two imuls
  # before), in a frame without a record (the copy runs only while the
  # table walk takes sampled stacks: accounting/tlflags.c).
  code_check gca_copy_generic_malloc_cnt \
    '/%fs:/ { tls++ } /imul/ { mul++ } /bsr/ { b++ }
     /mov +%rsp,%rbp/ { rec++ }
     END { if (tls != 1 || mul != 0 || b != 1 || rec)
             printf "%d thread-local accesses, %d multiplies, %d bsr, %d records",
                    tls, mul, b, rec }' \
    "want 1 thread-local access, the countdown, a bsr, no multiply, no frame record" \
    "GC_generic_malloc's copy of mode 1 counts with one thread-local word and a bsr, multiplies nothing, keeps no record"
  # Its copy of mode 0 is upstream's code: no count, no mode read; the
  # public function only jumps to the copy of the mode.
  code_check gca_copy_generic_malloc_off \
    '/%fs:|bsr|gca_tl_mode|gca_hook/ { printf "%s ", $0 }' \
    "want upstream's code, with no hook" \
    "GC_generic_malloc's copy of mode 0 has no count, no mode read"
  code_check GC_generic_malloc \
    'NF && !/nop/ { n++; if (!/jmp +\*/) bad = 1 } END { if (n != 1 || bad) printf "%d instructions", n }' \
    "want one jump through gca_copy_generic_malloc" \
    "GC_generic_malloc jumps to the copy of the mode"
  # GC_generic_malloc_inner's large objects (GC_core_gcj_malloc's):
  # counted inline as well (GC_ACC_ON_ALLOC_LARGE_LB, the row's bsr),
  # not by a call of gca_hook_alloc, which found the blocks in the header.
  code_check GC_generic_malloc_inner '/bsr/ { b++ } END { if (!b) print "no bsr" }' \
    "want its large count inline, GC_ACC_ON_ALLOC_LARGE_LB" \
    "GC_generic_malloc_inner counts its large objects inline"
fi
# Inline parity on the fork (tests/inline_parity.sh): accounting compiled
# in keeps out of line no collector function that the fork compiled
# with our series and -DGC_ACC_DISABLE inlines (GC_malloc_kind_global's
# copies, the pragma regions and the hooks on the global path).
unity_build gc-g -w -g
unity_build gc-off -w -DGC_ACC_DISABLE
rc=0
sh "$srcdir/tests/inline_parity.sh" --compare "$OUT/gc-g.o" "$OUT/gc-off.o" ||
  rc=$?
case $rc in
  0) ;;
  77) echo "(inline parity on Unity's fork skipped)" ;;
  *) exit 1 ;;
esac
inc="-I $srcdir/include -I $UNITY_SRC/include -DGC_THREADS"
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_counters" $inc "$srcdir/tests/unit/test_counters.c" \
  "$OUT/gc.o" -lpthread -lz
"$OUT/test_counters"
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_vector" $inc "$srcdir/tests/unity/test_vector.c" \
  "$OUT/gc.o" -lpthread -lz
"$OUT/test_vector"
# The fork's own heap-section figures: a block of small objects is USED
# for its first object only (il2cpp_dropin.sh runs the same on ours).
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_heap_rule" $inc "$srcdir/tests/unity/test_heap_rule.c" \
  "$OUT/gc.o" -lpthread -lz
"$OUT/test_heap_rule" fork
# The saved registers do not hold what an earlier call left on the stack
# (bdwgc/patches-unity/0005-clear-register-context.patch).
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_stale_context" $inc \
  "$srcdir/tests/unit/test_stale_context.c" "$OUT/gc.o" -lpthread -lz
"$OUT/test_stale_context"
# GC_deinit ends the dump on the fork too (its GC_ACC_ON_DEINIT hook,
# docs/hooks.md): the queued records and the gzip trailer, as
# il2cpp_dropin.sh checks on ours.  Unity's defines include
# DONT_USE_ATEXIT, so nothing else would.
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_dump_end" $inc "$srcdir/tests/unity/test_dump_end.c" \
  "$OUT/gc.o" -lpthread -lz
rm -f "$OUT/end-deinit.gz"
"$OUT/test_dump_end" deinit "$OUT/end-deinit.gz" > "$OUT/end-deinit.out"
gzip -t "$OUT/end-deinit.gz" || {
  echo "FAIL: GC_deinit on Unity's fork left the dump without its trailer" >&2
  exit 1; }
want=$(sed -n 's/^collections //p' "$OUT/end-deinit.out")
got=$(gzip -dc "$OUT/end-deinit.gz" | grep -c '^{"record":"collection"' || true)
[ "$got" = "$want" ] || {
  echo "FAIL: GC_deinit on Unity's fork: $got collection records, $want made" >&2
  exit 1; }
echo "ok: GC_deinit on Unity's fork ends the dump ($got collection records)"

# With assertions, the dump's portable wait,
# test entry points and frame pointers (as amalgam.sh does).
UNITY_CFLAGS=-O1 unity_build gc-assert -fno-omit-frame-pointer -w \
  -DGC_ASSERTIONS -DGCA_DUMP_NO_FUTEX -DGCA_TEST_API
for t in unit/test_counters unit/test_dump_ring unit/test_frag_churn \
         unit/test_census unit/test_frag unit/test_types unit/test_types_gcj \
         unit/test_tl_copies unit/test_locked_countdown unity/test_vector; do
  n=${t#*/}
  # test_dump_ring reads its dumps back through the reader's parser;
  # test_tl_copies must find GC_malloc_kind_global made in copies (the
  # one with no hooks while off: every GC_malloc here goes through it).
  reader= args=
  case $n in
    test_dump_ring)
      reader="-I $srcdir/tools/gcacc -I $srcdir/accounting $srcdir/tools/gcacc/dump_read.c" ;;
    test_tl_copies) args=--copies ;;
  esac
  # shellcheck disable=SC2086
  $CC -O1 -w -fno-omit-frame-pointer -rdynamic -o "$OUT/$n-assert" $inc \
    "$srcdir/tests/$t.c" $reader "$OUT/gc-assert.o" -lpthread -lz -ljansson -ldl \
    -lm
  # shellcheck disable=SC2086
  "$OUT/$n-assert" $args
done

# The il2cpp-shaped harness (tests/il2cpp/gameload.sh's checks: classes
# named from word 0, live objects per class, frames, the leak, the
# fragmentation, garbage in word 0) on Unity's fork, switched on through
# the API as a game does (no getenv there), as amalgam.sh does on 8.2.2.
# shellcheck disable=SC2086
$CC -O1 -g -fno-omit-frame-pointer -o "$OUT/gameload" $inc \
  "$srcdir/tests/il2cpp/gameload.c" "$OUT/gc-assert.o" -lpthread -lz -ldl
printf '#!/bin/sh\nexec "%s/gameload" "$1" --api "$GC_ACC_DUMP"\n' "$(pwd)/$OUT" \
  > "$OUT/gameload-api"
chmod +x "$OUT/gameload-api"
GAMELOAD="$OUT/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh"
echo "PASS: accounting unit tests on Unity's fork"
