#!/bin/sh
# SPDX-License-Identifier: MIT
# retain.sh: why is it alive (issue 37) on Unity's fork: the truth tests
# of tests/retain/why.sh (a static list, a stack, a 10,000-deep chain, a
# cycle, precise and conservative references, a disappearing link) and
# of tests/retain/bound.sh (the walk's time bound), statics.sh (IL2CPP
# class statics as roots) and auto.sh (auto walks for what leaks names)
# with retainload, boundload, staticsload and autoload
# built against the fork's extra/gc.c as il2cpp builds it
# (Unity's define set), the dump started through the C API
# (unity_init.c).  The fork keeps its finalization queue in finalize.c's
# own static, which the one-file build puts in sight of retain.c.  auto.sh
# runs both halves here too: types, and callsites (trace stacks, which
# need the frame records bdwgc/patches-unity gives the allocation path).
set -eu
me=retain
. "$srcdir/tests/unity/unity_lib.sh"

unity_build gc
# Each program as 8.2.2's tests build theirs (AM_CFLAGS): with frame
# pointers, which the trace profile's stacks (auto's callsites) walk.
for p in retainload boundload staticsload autoload; do
  # shellcheck disable=SC2086
  $CC -O1 -g -w -fno-omit-frame-pointer -o "$OUT/$p" -I "$UNITY_SRC/include" \
    -I "$srcdir/include" $UNITY_DEFS -DGCACC_UNITY_ACC \
    "$srcdir/tests/retain/$p.c" "$srcdir/tests/unity/unity_init.c" \
    "$OUT/gc.o" -lpthread -lz
done
rc=0
STATICSLOAD="$OUT/staticsload" sh "$srcdir/tests/retain/statics.sh" || rc=1
RETAIN_UNITY=1 RETAINLOAD="$OUT/retainload" sh "$srcdir/tests/retain/why.sh" ||
  rc=1
RETAIN_UNITY=1 BOUNDLOAD="$OUT/boundload" sh "$srcdir/tests/retain/bound.sh" ||
  rc=1
RETAIN_UNITY=1 AUTOLOAD="$OUT/autoload" sh "$srcdir/tests/retain/auto.sh" ||
  rc=1
exit $rc
