#!/bin/sh
# SPDX-License-Identifier: MIT
# upstream_il2cpp.sh: upstream's own test programs against the IL2CPP
# drop-in build (extra/gc.c of the drop-in folder, Unity's define list),
# accounting off and then on (acc_on.c switches it on before main, as
# NO_GETENV builds read no GC_ACC_ENABLE).  The library is compiled with
# one define of Unity's list dropped, GC_DONT_REGISTER_MAIN_STATIC_DATA:
# upstream's tests keep objects in static data and do not register it.
# Programs: gctest and those that need no build option Unity lacks
# (disclaim, leak, smash, trace and staticroots tests need ENABLE_DISCLAIM,
# FIND_LEAK, GC_DEBUG or dynamic libraries).
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
out=tests/unity/upstream-il2cpp
mkdir -p "$out"
. "$srcdir/tests/il2cpp/unity_defs.sh"
defs=$(echo $unity_defs | sed 's/-DGC_DONT_REGISTER_MAIN_STATIC_DATA=1//')
up="$srcdir/bdwgc/upstream"
sh "$srcdir/unity/make-drop-in.sh" "$up" "$out/bdwgc" 6000 > /dev/null
# shellcheck disable=SC2086
$CC -c -O1 -w -o "$out/gc.o" -I "$out/bdwgc/include" $defs "$out/bdwgc/extra/gc.c"
n=0
for t in test huge_test middle realloc_test subthread_create threadkey_test \
         initsecondarythread; do
  for acc in off on; do
    extra=""
    [ "$acc" = on ] && extra="$srcdir/tests/unity/acc_on.c"
    # shellcheck disable=SC2086
    $CC -O1 -w -o "$out/$t-$acc" -I "$out/bdwgc/include" $defs \
      "$up/tests/$t.c" $extra "$out/gc.o" -lpthread -lz ${GCACC_EXTRA_LIBS:-}
    if ! "$out/$t-$acc" > "$out/$t-$acc.log" 2>&1; then
      echo "FAIL: upstream $t in the IL2CPP drop-in build, accounting $acc" >&2
      tail -20 "$out/$t-$acc.log" >&2
      exit 1
    fi
    n=$((n + 1))
  done
done
echo "upstream tests in the IL2CPP drop-in build: $n runs passed"
