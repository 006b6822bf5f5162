#!/bin/sh
# SPDX-License-Identifier: MIT
# fork_tests.sh: Unity's fork, with our accounting, passes its own tests.
#
# The fork's extra/gc.c with our series is built exactly as il2cpp builds
# it (bdwgc/unity.sh: Unity's define set), and the fork's own test
# programs that apply to that build run against it twice: accounting off,
# then on with a dump (through the C API, tests/unity/unity_init.c: the
# set has NO_GETENV).  The programs are compiled with the same defines as
# the library (fewer makes gctest fail, ../shared/IL2CPP.md section 5) and
# register their data segment as a root, which Unity's
# GC_DONT_REGISTER_MAIN_STATIC_DATA leaves to the embedder (unity_init.c).
# Not run: leaktest, smashtest, tracetest, threadleaktest (they need
# FIND_LEAK, GC_DEBUG or KEEP_BACK_PTRS; the set has NO_DEBUGGING),
# staticrootstest (shared libraries; the set has IGNORE_DYNAMIC_LOADING),
# test_cpp and disclaim tests (C++ / ENABLE_DISCLAIM, not in il2cpp's
# build).
set -eu
me=fork_tests
. "$srcdir/tests/unity/unity_lib.sh"

unity_build gc
progs="gctest:test.c hugetest:huge_test.c middletest:middle.c
  realloc_test:realloc_test.c threadkey_test:threadkey_test.c
  subthreadcreate_test:subthread_create.c
  initsecondarythread_test:initsecondarythread.c
  test_atomic_ops:test_atomic_ops.c"
fails=0
for mode in off on; do
  flag=
  [ "$mode" = on ] && flag=-DGCACC_UNITY_ACC
  for pc in $progs; do
    p=${pc%%:*}; c=${pc#*:}
    exe="$OUT/$p-$mode"
    # shellcheck disable=SC2086
    $CC -O1 -w -o "$exe" -I "$UNITY_SRC/include" -I "$srcdir/include" \
      $UNITY_DEFS $flag "$UNITY_SRC/tests/$c" "$srcdir/tests/unity/unity_init.c" \
      "$OUT/gc.o" -lpthread -lz
    dump="$OUT/$p-$mode.jsonl.gz"
    rm -f "$dump"
    if [ "$mode" = on ]; then
      GCACC_UNITY_DUMP=$dump "$exe" > "$OUT/$p-$mode.log" 2>&1 || rc=$?
    else
      "$exe" > "$OUT/$p-$mode.log" 2>&1 || rc=$?
    fi
    if [ "${rc:-0}" -ne 0 ]; then
      echo "FAIL: $p, accounting $mode, exit ${rc}:" >&2
      tail -5 "$OUT/$p-$mode.log" >&2
      fails=$((fails + 1)); rc=0; continue
    fi
    if [ "$mode" = on ]; then
      # The dump: the header and at least one more record, or, for a
      # program that never collects, the header.
      n=$(gzip -dc "$dump" | wc -l)
      if [ "$n" -lt 1 ] || ! gzip -dc "$dump" | head -1 | grep -q '"bdwgc_version":"7.7.0"'; then
        echo "FAIL: $p, accounting on: no dump of the fork ($n lines)" >&2
        fails=$((fails + 1)); continue
      fi
      echo "ok: $p, accounting on ($n dump lines)"
    else
      echo "ok: $p, accounting off"
    fi
  done
done
grep -q 'Collector appears to work' "$OUT/gctest-on.log" || {
  echo "FAIL: gctest did not say it works" >&2; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] || { echo "FAIL: $fails of the fork's tests" >&2; exit 1; }
echo "PASS: the fork's own tests, accounting off and on"
