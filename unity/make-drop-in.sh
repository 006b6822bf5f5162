#!/bin/sh
# make-drop-in.sh: write a folder laid out like il2cpp's external/bdwgc.
#
#   unity/make-drop-in.sh TREE DEST [6000|2019]
#
# TREE is the patched bdwgc tree (bdwgc/upstream); DEST is created afresh.
# The era picks the heap-section API (docs/il2cpp.md): 6000 (default, the
# 4-argument callback of Unity 2023.2.10+ and 6000) or 2019 (the
# 3-argument one with GC_get_heap_section_count, Unity 2019.4 to
# 2023.2.7).  The folder's include/gcacc_il2cpp.h marks it an IL2CPP
# build (Unity's 7/7/0 stamp accepted, MANUAL_VDB and LARGE_CONFIG on),
# since Unity's build passes only its own defines.  `make il2cpp-drop-in`
# runs this.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 TREE DEST [6000|2019]" >&2; exit 2; }
tree=$1
dest=$2
era=${3:-6000}
case $era in
  6000|2019) ;;
  *) echo "make-drop-in.sh: era must be 6000 or 2019, not '$era'" >&2; exit 2;;
esac
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

era_line="/* #define GCACC_HEAP_SECTIONS_3ARG 1 */"
[ "$era" = 2019 ] && era_line="#define GCACC_HEAP_SECTIONS_3ARG 1"
rm -f "$dest/include/gcacc_il2cpp.h"
cat > "$dest/include/gcacc_il2cpp.h" <<EOT
/*
 * gcacc_il2cpp.h: this folder is gcacc's drop-in for il2cpp's
 * external/bdwgc (written by unity/make-drop-in.sh, era $era).
 * GCACC_IL2CPP: Unity's GC_VERSION 7/7/0 stamp is accepted, and
 * MANUAL_VDB and LARGE_CONFIG are on, as in Unity's fork.
 * GCACC_HEAP_SECTIONS_3ARG (the era switch, docs/il2cpp.md): defined
 * for Unity 2019.4 to 2023.2.7 (3-argument GC_foreach_heap_section
 * callback, GC_get_heap_section_count); left undefined for 2023.2.10+
 * and 6000 (4-argument callback, GC_heap_section_type).
 */
#ifndef GCACC_IL2CPP_H
#define GCACC_IL2CPP_H
#define GCACC_IL2CPP 1
$era_line
#endif
EOT

cat > "$dest/README.gcacc.md" <<EOT
# gcacc drop-in for il2cpp's bdwgc (era $era)

This folder replaces \`Editor/Data/il2cpp/external/bdwgc\` of a Unity
installation (the folder il2cpp builds its collector from): bdwgc 8.2.2
with gcacc's accounting and the Unity API il2cpp calls.  Keep the
installation's \`libatomic_ops/\` folder (il2cpp puts
\`external/bdwgc/libatomic_ops/src\` on the include path; the system's
libatomic_ops headers do as well).

- il2cpp compiles only \`extra/gc.c\`, which includes every collector
  source, \`accounting/\` and \`unity/\`; Unity's own defines are enough
  (\`include/gcacc_il2cpp.h\` marks the IL2CPP build).
- Era: \`include/gcacc_il2cpp.h\` defines \`GCACC_HEAP_SECTIONS_3ARG\` for
  Unity 2019.4 to 2023.2.7 and leaves it undefined for 2023.2.10+ and
  6000 (\`make il2cpp-drop-in IL2CPP_ERA=2019\` or \`6000\`, the default).
- Needs only libc, zlib (the accounting's dump writer) and libatomic_ops
  (headers).
- Accounting is off until \`GC_acc_enable(1)\` (\`include/gc_accounting.h\`);
  with NO_GETENV, as Unity builds, the GC_ACC_* environment variables are
  not read.
EOT
echo "make-drop-in.sh: wrote $dest (era $era)"
