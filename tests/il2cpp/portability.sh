#!/bin/sh
# SPDX-License-Identifier: MIT
# portability.sh: the drop-in folder's extra/gc.c, with Unity's define
# list and Unity's two include folders (`include`, `libatomic_ops/src`,
# the latter filled with the system's libatomic_ops headers, as a real
# installation ships them), compiles with no warning at all (-Wall
# -Wextra -Werror) for every target a player is built for here: gcc and
# clang, each for x86-64 Linux, aarch64 Linux, armhf Linux and x86-64
# Windows (mingw-w64, the dump included; tests/cross/windows.sh runs it);
# and clang in MSVC mode for x86-64 Windows, with Wine's headers.
# Compile only: gcc at -O1 (its flow warnings need the optimizer), clang
# -fsyntax-only (its warnings come from the front end).  A missing
# compiler is reported and skipped, unless GCACC_CROSS_REQUIRED=1
# (./build.sh check, whose set-up installs them): then it fails.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
me=portability
out=tests/il2cpp/$me
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$srcdir/tests/il2cpp/unity_defs.sh"
d=$out/bdwgc
sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" "$d" \
  > /dev/null
aoinc=""
for i in /usr/include /usr/local/include; do
  [ -f "$i/atomic_ops.h" ] && { aoinc=$i; break; }
done
[ -n "$aoinc" ] || { echo "FAIL: $me: no libatomic_ops headers (atomic_ops.h);" \
  "install libatomic-ops-dev" >&2; exit 1; }
mkdir -p "$d/libatomic_ops/src"
cp -R "$aoinc/atomic_ops.h" "$aoinc/atomic_ops" "$d/libatomic_ops/src/"

fails=0 ran=0 missing=""
# one NAME COMPILER... : compile extra/gc.c with COMPILER (and its flags).
one() {
  name=$1; shift
  printf '#include <stdio.h>\nint main(void) { return 0; }\n' > "$out/probe.c"
  if ! "$@" -c -o "$out/probe.o" "$out/probe.c" > /dev/null 2>&1; then
    missing="$missing $name"
    return 0
  fi
  ran=$((ran + 1))
  case $1 in
    clang*) mode="-fsyntax-only" ;;
    *) mode="-c -O1 -o $out/$name.o" ;;
  esac
  # shellcheck disable=SC2086
  if (cd "$d" && "$@" $mode -Wall -Wextra -Werror -I include \
        -I libatomic_ops/src $unity_defs '-DDEFAULT_GC_NAME="BDWGC"' \
        extra/gc.c) > "$out/$name.log" 2>&1; then
    echo "$me: $name: no warning"
  else
    echo "FAIL: $me: $name: warnings or errors:" >&2
    grep -E 'warning|error' "$out/$name.log" | head -20 >&2
    fails=$((fails + 1))
  fi
}
one gcc-x86_64 gcc
one gcc-aarch64 aarch64-linux-gnu-gcc
one gcc-armhf arm-linux-gnueabihf-gcc
one gcc-mingw64 x86_64-w64-mingw32-gcc
one clang-x86_64 clang --target=x86_64-linux-gnu
one clang-aarch64 clang --target=aarch64-linux-gnu
one clang-armhf clang --target=arm-linux-gnueabihf
one clang-mingw64 clang --target=x86_64-w64-mingw32
# clang in MSVC mode (clang-cl), as Unity's Windows player is built
# with MSVC: the MSVC target, with Wine's Windows and C runtime headers
# (libwine-dev) in place of the Windows SDK's, Unity's Windows defines
# (WIN32_THREADS, NOMINMAX; NO_CRT is in the list), and zlib where
# il2cpp ships it, beside bdwgc (external/zlib: the system's zlib.h
# here).  The dump code is compiled (issue 35).  Syntax only, at MSVC's
# default level (/W3), every warning an error but unused functions:
# without __GNUC__ bdwgc's GC_ATTR_UNUSED is empty, so the functions a
# configuration never calls warn (MSVC itself does not, below /W4).
winc=/usr/include/wine/wine
if [ -f "$winc/windows/windows.h" ] && [ -f "$winc/msvcrt/stdio.h" ] &&
   command -v clang > /dev/null 2>&1; then
  mkdir -p "$out/zlib"
  cp /usr/include/zlib.h /usr/include/zconf.h "$out/zlib/"
  ran=$((ran + 1))
  # shellcheck disable=SC2086
  if (cd "$d" && clang --driver-mode=cl --target=x86_64-pc-windows-msvc /Zs \
        /X -imsvc "$winc/msvcrt" -imsvc "$winc/windows" -I include \
        -I libatomic_ops/src $unity_defs -DWIN32_THREADS -DNOMINMAX \
        '-DDEFAULT_GC_NAME="BDWGC"' /W3 /WX -Wno-unused-function \
        extra/gc.c) > "$out/clang-cl.log" 2>&1; then
    echo "$me: clang-cl (MSVC mode, Wine's headers): no warning"
  else
    echo "FAIL: $me: clang-cl (MSVC mode): warnings or errors:" >&2
    grep -E 'warning|error' "$out/clang-cl.log" | head -20 >&2
    fails=$((fails + 1))
  fi
else
  missing="$missing clang-cl(libwine-dev)"
fi
if [ -n "$missing" ]; then
  if [ "${GCACC_CROSS_REQUIRED:-0}" = 1 ]; then
    echo "FAIL: $me: no working compiler for:$missing (GCACC_CROSS_REQUIRED=1;" \
         "tools/setup-cross.sh installs them)" >&2
    exit 1
  fi
  echo "$me: skipped, no working compiler for:$missing" \
       "(tools/setup-cross.sh installs them)"
fi
[ "$ran" -gt 0 ] || { echo "SKIP: $me: no compiler for any target"; exit 77; }
[ "$fails" -eq 0 ] || exit 1
echo "$me: $ran targets without a warning"
