#!/bin/sh
# SPDX-License-Identifier: MIT
# player_layout.sh: the collector builds and links as in a Unity player,
# inside a fake il2cpp installation laid out like a real one:
#   il2cpp/external/bdwgc    the drop-in folder (unity/make-drop-in.sh),
#                            libatomic_ops/src filled with the system's
#                            libatomic_ops headers, as Unity ships it
#   il2cpp/external/zlib     il2cpp's own zlib (Z_PREFIX: il2cpp_z_*),
#                            from ../shared/vendor/il2cpp-zlib.tar.gz
# extra/gc.c is compiled with Unity's define list and only Unity's two
# include folders (`include`, `libatomic_ops/src`); il2cpp's zlib .c
# files are compiled; the il2cpp-shaped harness (tests/il2cpp/gameload.c)
# is linked with -Wl,--no-undefined and no -lz (a player has no system
# zlib), runs with a dump, and gcacc reads the dump (gameload.sh: exact
# counts and named classes).  The collector must reference zlib only as
# il2cpp_z_* (nm).  When Unity's fork is at hand (bdwgc/unity.sh vendor:
# its tarballs, both eras, and the editor's file list), each era's fork,
# pruned as an editor ships it, gets our books from
# tools/il2cpp-install.sh and is checked the same way.
# Without il2cpp's zlib (IL2CPP_ZLIB_TARBALL: the tarball or an
# il2cpp/external/zlib folder) the test is skipped.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
me=player_layout
top=$(cd "$srcdir" && pwd)
vendor="$top/../shared/vendor"
ztar=${IL2CPP_ZLIB_TARBALL:-$vendor/il2cpp-zlib.tar.gz}
zsha=ab0b529ce23089eef45e4d98cd9075a6a5210342109705b02168b9129a411bd3
if [ ! -e "$ztar" ]; then
  echo "SKIP: $me: no il2cpp zlib (set IL2CPP_ZLIB_TARBALL, or put" \
       "il2cpp-zlib.tar.gz in ../shared/vendor)"
  exit 77
fi
fail() { echo "FAIL: $me: $*" >&2; exit 1; }
out=tests/unity/$me
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# libatomic_ops: the system's headers, copied in as Unity ships them.
aoinc=""
for d in /usr/include /usr/local/include; do
  [ -f "$d/atomic_ops.h" ] && { aoinc=$d; break; }
done
[ -n "$aoinc" ] || fail "no libatomic_ops headers (atomic_ops.h); install libatomic-ops-dev"

# install_zlib DEST: il2cpp's zlib as DEST (il2cpp/external/zlib).
install_zlib() {
  if [ -d "$ztar" ]; then
    cp -R "$ztar" "$1"
  else
    got=$(sha256sum "$ztar" | cut -d' ' -f1)
    [ "$got" = "$zsha" ] || fail "$ztar: sha256 $got, expected $zsha"
    mkdir "$1.t"
    tar -xzf "$ztar" -C "$1.t"
    mv "$1.t/il2cpp-zlib" "$1"
    rmdir "$1.t"
  fi
  grep -q '^#define Z_PREFIX' "$1/zconf.h" ||
    fail "$1/zconf.h does not define Z_PREFIX: not il2cpp's zlib"
}
# layout DIR: the rest of a fake installation around DIR/external/bdwgc.
layout() {
  mkdir -p "$1/external/bdwgc/libatomic_ops/src"
  cp -R "$aoinc/atomic_ops.h" "$aoinc/atomic_ops" \
    "$1/external/bdwgc/libatomic_ops/src/"
  install_zlib "$1/external/zlib"
}
# zlib_objects DIR: il2cpp's zlib compiled, as the player's build does.
zlib_objects() {
  mkdir -p "$1/obj/zlib"
  for zc in "$1"/external/zlib/*.c; do
    $CC -c -O1 -w -o "$1/obj/zlib/$(basename "$zc" .c).o" "$zc"
  done
}
# check_nm OBJ: zlib referenced as il2cpp_z_deflate* only.
check_nm() {
  nm -u "$1" | awk '{ print $NF }' |
    grep -E -i 'deflate|inflate|zlib|crc32|adler32|^gz|^z_|compress' \
    > "$1.zsyms" || true
  if grep -v '^il2cpp_z_' "$1.zsyms" > "$1.bad"; then
    fail "$1 references zlib without il2cpp's prefix: $(tr '\n' ' ' < "$1.bad")"
  fi
  for s in il2cpp_z_deflate il2cpp_z_deflateInit2_ il2cpp_z_deflateEnd; do
    grep -qx "$s" "$1.zsyms" || fail "$1 does not call $s"
  done
}
# link_game OBJDIR GC_O INCLUDE: the harness, as a player links.
link_game() {
  $CC -O1 -g -fno-omit-frame-pointer -o "$1/gameload" \
    -I "$3" -DGC_THREADS \
    "$srcdir/tests/il2cpp/gameload.c" "$2" "$1"/obj/zlib/*.o \
    -Wl,--no-undefined -lpthread -ldl ${GCACC_EXTRA_LIBS:-}
  if command -v readelf > /dev/null 2>&1 &&
     readelf -d "$1/gameload" | grep -q 'NEEDED.*libz\.'; then
    fail "$1/gameload needs the system's libz"
  fi
  cat > "$1/gameload-api" <<EOF
#!/bin/sh
exec "$1/gameload" "\$1" --api "\$GC_ACC_DUMP"
EOF
  chmod +x "$1/gameload-api"
}

. "$srcdir/tests/il2cpp/unity_defs.sh"

# ---- the drop-in folder ------------------------------------------------
d=$out/dropin/il2cpp
mkdir -p "$d/external"
sh "$srcdir/unity/make-drop-in.sh" "$srcdir/bdwgc/upstream" \
  "$d/external/bdwgc" > /dev/null
layout "$d"
mkdir -p "$d/obj"
# shellcheck disable=SC2086
(cd "$d/external/bdwgc" &&
  $CC -c -O1 -fno-omit-frame-pointer -w -o "$d/obj/gc.o" -I include -I libatomic_ops/src \
    $unity_defs '-DDEFAULT_GC_NAME="BDWGC"' extra/gc.c) ||
  fail "the drop-in's extra/gc.c does not compile in il2cpp's layout"
check_nm "$d/obj/gc.o"
zlib_objects "$d"
link_game "$d" "$d/obj/gc.o" "$d/external/bdwgc/include"
GAMELOAD="$d/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh"
echo "$me: the drop-in links il2cpp's zlib (il2cpp_z_*) and its dump reads"
# Another layout: zlib elsewhere, named by GCACC_ZLIB_HEADER.
mv "$d/external/zlib" "$out/elsewhere-zlib"
# shellcheck disable=SC2086
(cd "$d/external/bdwgc" &&
  $CC -c -O0 -w -o "$d/obj/gc-override.o" -I include -I libatomic_ops/src \
    $unity_defs '-DDEFAULT_GC_NAME="BDWGC"' \
    "-DGCACC_ZLIB_HEADER=\"$out/elsewhere-zlib/zlib.h\"" extra/gc.c) ||
  fail "GCACC_ZLIB_HEADER naming il2cpp's zlib.h elsewhere does not compile"
check_nm "$d/obj/gc-override.o"

# ---- Unity's fork, installed by tools/il2cpp-install.sh ------------------
# Both API eras, as an editor ships them (pruned to the names in
# unity-editor-bdwgc-files.txt, libatomic_ops/src filled in), beside
# il2cpp's zlib; the installer adds our books, with no other step.
vendor=$(sh "$srcdir/bdwgc/unity.sh" vendor 2> /dev/null) || vendor=""
list="$vendor/unity-editor-bdwgc-files.txt"
if [ -z "$vendor" ] || [ ! -f "$list" ]; then
  echo "$me: Unity's fork or its file list not at hand (UNITY_BDWGC_TARBALL" \
       "or ../shared/vendor): the installed layouts skipped"
  exit 0
fi
mkdir -p "$out/x"
for c in b0c6e4bc 6521d4e6; do
  tb="$vendor/unity-bdwgc-$c.tar.gz"
  [ -f "$tb" ] || { echo "$me: no $tb: that era skipped"; continue; }
  tar -xzf "$tb" -C "$out/x"
  f=$out/fork-$c/il2cpp
  mkdir -p "$f/external/bdwgc" "$f/libil2cpp"
  (cd "$out/x/unity-bdwgc-$c" && grep -v '^libatomic_ops/' "$list" |
     while IFS= read -r p; do [ -f "$p" ] && printf '%s\n' "$p"; done |
     tar -cf - -T -) | (cd "$f/external/bdwgc" && tar -xf -)
  layout "$f"
  sh "$top/tools/il2cpp-install.sh" install "$f" > "$out/install-$c.log" 2>&1 ||
    { cat "$out/install-$c.log" >&2; fail "the installer refused the $c layout"; }
  mkdir -p "$f/obj"
  # shellcheck disable=SC2046
  (cd "$f/external/bdwgc" &&
    $CC -c -O1 -fno-omit-frame-pointer -w -o "$f/obj/gc.o" -I include \
      -I libatomic_ops/src $(sh "$top/bdwgc/unity.sh" defines) extra/gc.c) ||
    fail "the installed fork $c does not compile in il2cpp's layout"
  check_nm "$f/obj/gc.o"
  zlib_objects "$f"
  link_game "$f" "$f/obj/gc.o" "$f/external/bdwgc/include"
  GAMELOAD="$f/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh"
  echo "$me: Unity's fork $c, installed, links il2cpp's zlib and its dump reads"
done
