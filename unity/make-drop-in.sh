#!/bin/sh
# SPDX-License-Identifier: MIT
# make-drop-in.sh: write a folder laid out like il2cpp's external/bdwgc.
#
#   unity/make-drop-in.sh TREE DEST [BDWGC]
#
# TREE is the patched bdwgc tree (bdwgc/upstream); DEST is created afresh.
# One folder serves every Unity version: the heap-section API has both
# eras (gc_unity.h: in C++, as il2cpp's BoehmGC.cpp is, the 3-argument
# callback of Unity 2019.4 to 2023.2.7 and the 4-argument one of
# 2023.2.10+ and 6000 are overloads of GC_foreach_heap_section).
# BDWGC, the installation's own external/bdwgc (the folder DEST will
# replace): its libatomic_ops/, which we do not ship, is copied into DEST
# byte for byte.  An era argument (6000 or 2019) of older versions is
# accepted and ignored.  The folder's include/gcacc_il2cpp.h marks it an
# IL2CPP build (Unity's 7/7/0 stamp accepted, MANUAL_VDB and LARGE_CONFIG
# on), since Unity's build passes only its own defines.  `make
# il2cpp-drop-in` runs this (IL2CPP_BDWGC=... names BDWGC).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 TREE DEST [BDWGC]" >&2; exit 2; }
tree=$1
dest=$2
from=${3:-}
case $from in
  6000) from= ;;
  2019)
    echo "make-drop-in.sh: note: no era to choose any more (got '$from');" \
      "the folder serves both" >&2
    from= ;;
esac
if [ -n "$from" ]; then
  [ -d "$from" ] || { echo "make-drop-in.sh: $from: no such folder" \
    "(expected the installation's il2cpp/external/bdwgc)" >&2; exit 1; }
  case $(cd "$from" && pwd) in
    "$(mkdir -p "$dest" && cd "$dest" && pwd)")
      echo "make-drop-in.sh: $from is DEST itself: write the folder" \
        "elsewhere, then swap it in (docs/il2cpp.md)" >&2; exit 1 ;;
  esac
fi
[ -f "$tree/extra/gc.c" ] && [ -d "$tree/unity" ] ||
  { echo "make-drop-in.sh: $tree is not the patched bdwgc tree" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest/extra" "$dest/accounting" "$dest/unity"
# extra/gc.c includes every collector source by its path from there.
cp -L "$tree"/*.c "$dest/"
cp -L "$tree/extra/gc.c" "$dest/extra/"
cp -RL "$tree/include" "$dest/include"
cp -L "$tree"/accounting/*.c "$tree"/accounting/*.h "$dest/accounting/"
cp -L "$tree"/unity/*.c "$tree"/unity/*.h "$dest/unity/"
for f in README.QUICK LICENSE; do
  [ -f "$tree/$f" ] && cp -L "$tree/$f" "$dest/"
done
# Our own files' license (MIT), beside bdwgc's own above.
cp -L "$(cd "$(dirname "$0")/.." && pwd)/LICENSE" "$dest/LICENSE.gcacc"

# The installation's libatomic_ops/ (il2cpp puts its src/ on the
# include path; we ship none).
lao=none
if [ -n "$from" ] && [ -d "$from/libatomic_ops" ]; then
  cp -pR "$from/libatomic_ops" "$dest/libatomic_ops"
  lao="$(find "$dest/libatomic_ops" -type f | wc -l | tr -d ' ') files"
fi

rm -f "$dest/include/gcacc_il2cpp.h"
cat > "$dest/include/gcacc_il2cpp.h" <<EOT
/*
 * gcacc_il2cpp.h: this folder is gcacc's drop-in for il2cpp's
 * external/bdwgc (written by unity/make-drop-in.sh).
 * GCACC_IL2CPP: Unity's GC_VERSION 7/7/0 stamp is accepted, and
 * MANUAL_VDB and LARGE_CONFIG are on, as in Unity's fork.
 * Every Unity version: GC_foreach_heap_section takes the 3-argument
 * callback of Unity 2019.4 to 2023.2.7 and the 4-argument one of
 * 2023.2.10+ and 6000 (C++ overloads, gc_unity.h); a C client of the
 * 3-argument era defines GCACC_HEAP_SECTIONS_3ARG before gc.h.
 */
#ifndef GCACC_IL2CPP_H
#define GCACC_IL2CPP_H
#define GCACC_IL2CPP 1
#endif
EOT

cat > "$dest/README.gcacc.md" <<EOT
# gcacc drop-in for il2cpp's bdwgc

This folder replaces \`Editor/Data/il2cpp/external/bdwgc\` of a Unity
installation (the folder il2cpp builds its collector from): bdwgc 8.2.2
with gcacc's accounting and the Unity API il2cpp calls, for every Unity
version from 2019.4 to 6000 (both heap-section APIs are here).

- libatomic_ops: il2cpp puts \`external/bdwgc/libatomic_ops/src\` on the
  include path, and we do not ship it.  Written with the installation's
  folder (\`make il2cpp-drop-in IL2CPP_BDWGC=.../il2cpp/external/bdwgc\`),
  this folder carries a copy of its \`libatomic_ops/\` (here: $lao);
  otherwise copy it in by hand, or have the system's
  libatomic_ops headers on the include path.
- Put it in place with the original kept:
  \`mv bdwgc bdwgc.orig && cp -R /path/to/il2cpp-drop-in bdwgc\` (in
  \`il2cpp/external\`); to go back, swap the two again.
- Licenses: bdwgc's own (\`LICENSE\`, \`README.QUICK\`); gcacc's files
  (\`accounting/\`, \`unity/\`, \`include/gc_accounting.h\`, our hunks)
  are under the MIT license, \`LICENSE.gcacc\`.
- il2cpp compiles only \`extra/gc.c\`, which includes every collector
  source, \`accounting/\` and \`unity/\`; Unity's own defines are enough
  (\`include/gcacc_il2cpp.h\` marks the IL2CPP build).
- Needs only libc, zlib (the accounting's dump writer) and libatomic_ops
  (headers).  The zlib is il2cpp's own, \`external/zlib\` beside this
  folder (its calls are then \`il2cpp_z_*\`, which il2cpp's zlib defines):
  nothing is added to the player's link.  Elsewhere the system's
  \`<zlib.h>\` is taken (link \`-lz\`); \`GCACC_ZLIB_HEADER\` names another
  (\`-DGCACC_ZLIB_HEADER='"/path/zlib.h"'\`).
- Accounting is off until \`GC_acc_enable(1)\` (\`include/gc_accounting.h\`);
  with NO_GETENV, as Unity builds, the GC_ACC_* environment variables are
  not read.
EOT
echo "make-drop-in.sh: wrote $dest (libatomic_ops/: $lao)"
