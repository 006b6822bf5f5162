#!/bin/sh
# SPDX-License-Identifier: MIT
# one_folder.sh: one drop-in folder for every Unity version.
#   - unity/make-drop-in.sh, given the installation's external/bdwgc
#     (here a stand-in whose libatomic_ops/ is filled from the system's
#     headers, as an editor ships it), carries its libatomic_ops/ over
#     byte for byte, and extra/gc.c builds with Unity's defines and that
#     folder's libatomic_ops/src on the include path, as il2cpp builds it
#     (the compiler's dependency list shows it used);
#   - tests/unity/test_eras.cc, shaped like libil2cpp's BoehmGC.cpp of
#     both heap-section eras (3-argument callback plus
#     GC_get_heap_section_count; 4-argument typed callback), compiles in
#     one translation unit against that one folder's headers with g++
#     -Wall -Werror, links with the build and runs;
#   - the era argument of older versions is accepted and ignored, and
#     the folder written is the same.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
: "${CXX:=g++}"
command -v "$CXX" > /dev/null 2>&1 || { echo "SKIP: no C++ compiler ($CXX)"; exit 77; }
out=tests/unity/one-folder
rm -rf "$out"
mkdir -p "$out/inst/bdwgc"
. "$srcdir/tests/il2cpp/unity_defs.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The installation's folder: libatomic_ops/ with its headers and a file
# of its own (we must carry what we do not know, too).
lao="$out/inst/bdwgc/libatomic_ops"
mkdir -p "$lao/src"
[ -f /usr/include/atomic_ops.h ] || { echo "SKIP: no libatomic_ops headers"; exit 77; }
cp -pR /usr/include/atomic_ops.h /usr/include/atomic_ops "$lao/src/"
echo "the installation's own" > "$lao/COPYING"
chmod 640 "$lao/COPYING"

sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" "$out/bdwgc" \
  "$out/inst/bdwgc" > "$out/make.log"
d="$out/bdwgc"
diff -r "$lao" "$d/libatomic_ops" || fail "libatomic_ops/ not carried over"
[ "$(stat -c %a "$d/libatomic_ops/COPYING")" = 640 ] ||
  fail "libatomic_ops/ modes not kept"
grep -q "libatomic_ops/: [0-9]* files" "$out/make.log" ||
  fail "make-drop-in.sh does not say it carried libatomic_ops/"
echo "ok: libatomic_ops/ carried over ($(find "$d/libatomic_ops" -type f | wc -l) files)"

# Unity's build: extra/gc.c alone, Unity's defines, the folder's
# include/ and libatomic_ops/src.
# shellcheck disable=SC2086
$CC -c -O1 -w -MD -MF "$out/gc.d" -o "$out/gc.o" -I "$d/include" \
  -I "$d/libatomic_ops/src" $unity_defs '-DDEFAULT_GC_NAME="BDWGC"' \
  "$d/extra/gc.c"
grep -q "$d/libatomic_ops/src/atomic_ops.h" "$out/gc.d" ||
  fail "the build did not take the folder's libatomic_ops"

# Both eras from C++, one folder, no switch.
# shellcheck disable=SC2086
$CXX -Wall -Werror -O1 -c -o "$out/test_eras.o" -I "$d/include" \
  -I "$d/libatomic_ops/src" $unity_defs '-DDEFAULT_GC_NAME="BDWGC"' \
  "$srcdir/tests/unity/test_eras.cc"
$CXX -o "$out/test_eras" "$out/test_eras.o" "$out/gc.o" -lpthread -lz \
  ${GCACC_EXTRA_LIBS:-}
"$out/test_eras"

# An era argument of older versions: accepted, ignored.
sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" "$out/old" \
  2019 > /dev/null 2> "$out/old.log"
grep -q "no era to choose" "$out/old.log" || fail "no note on the era argument"
diff -r -x libatomic_ops -x README.gcacc.md "$d" "$out/old" ||
  fail "the era argument changed the folder"
echo "PASS: one drop-in folder for every Unity version"
