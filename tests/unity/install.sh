#!/bin/sh
# SPDX-License-Identifier: MIT
# install.sh: tools/il2cpp-install.sh on the layouts a Unity installation
# has, built from the vendored fork tarballs as il2cpp/external/bdwgc:
#   b0c6-full    b0c6e4bc (4-argument heap sections, 2023.2.10+ and
#                6000) as its git archive (libatomic_ops/ empty);
#   b0c6-pruned  the same, only the names an editor ships
#                (unity-editor-bdwgc-files.txt), libatomic_ops/ filled
#                from the system's libatomic_ops headers;
#   6521-full, 6521-pruned  the same for 6521d4e6 (3-argument heap
#                sections, 2019.4 to 2023.2.7: 2021.3 and 2022.3).
# For each: install; the installed tree builds with Unity's defines (and
# libatomic_ops/src on the include path, as il2cpp's build has it),
# counts Unity's vector kind (test_vector) and passes the il2cpp-shaped
# harness (tests/il2cpp/gameload.sh: class names from word 0, live
# objects per class, frames, leaks, fragmentation, garbage in word 0),
# switched on through the API as a game without getenv does; a second
# install is a no-op; status names the era; uninstall leaves the tree
# byte-identical to the original (diff -r, and modes).  Then the
# refusals, each leaving the tree unchanged with nothing left over: a
# series whose hunk does not apply exactly; one file the series changes
# altered (the message says what was found, that our hunks would apply,
# and what else to do; --unverified then installs it, and uninstall
# restores it); a hunk's context altered (refused even with
# --unverified).  And
# bdwgc/patches-unity/known-forks agrees with the tarballs and the series.
set -eu
me=install
. "$srcdir/tests/unity/unity_lib.sh"
. "$srcdir/bdwgc/unity-forks.sh"
inst="$srcdir/tools/il2cpp-install.sh"
pu="$srcdir/bdwgc/patches-unity"
vendor=$(sh "$unity_sh" vendor) || {
  echo "SKIP: $me: the fork is not a tarball beside its vendor files"; exit 77; }
list="$vendor/unity-editor-bdwgc-files.txt"
for f in "$list" "$vendor/unity-bdwgc-6521d4e6.tar.gz"; do
  [ -f "$f" ] || { echo "SKIP: $me: no $f"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$OUT/l" "$OUT/x"
mkdir -p "$OUT/l" "$OUT/x"

# The table: for each vendored commit, the rows are the touched files'
# sums in the full tree; the files are exactly those the series touches.
uf_touched "$pu" > "$OUT/touched"
for c in b0c6e4bc 6521d4e6; do
  tar -xzf "$vendor/unity-bdwgc-$c.tar.gz" -C "$OUT/x"
  uf_found "$OUT/x/unity-bdwgc-$c" "$pu" | LC_ALL=C sort > "$OUT/x/$c.want"
  awk -v c="$c" 'substr($1, 1, 8) == c { print $4, $3 }' "$pu/known-forks" |
    LC_ALL=C sort > "$OUT/x/$c.have"
  diff "$OUT/x/$c.want" "$OUT/x/$c.have" ||
    fail "known-forks rows for $c are not the tarball's touched files"
done
echo "ok: known-forks holds exactly the touched files of both commits"

layout() { # name commit full|pruned
  d="$OUT/l/$1/il2cpp"
  mkdir -p "$d/external" "$d/libil2cpp"
  if [ "$3" = full ]; then
    cp -pR "$OUT/x/unity-bdwgc-$2" "$d/external/bdwgc"
  else
    mkdir "$d/external/bdwgc"
    (cd "$OUT/x/unity-bdwgc-$2" && grep -v '^libatomic_ops/' "$list" |
       while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
       tar -cf - -T -) | (cd "$d/external/bdwgc" && tar -xf -)
    # libatomic_ops/ as an editor ships it: filled in (its headers).
    sed -n 's|^libatomic_ops/src/||p' "$list" | while IFS= read -r f; do
      [ -f "/usr/include/$f" ] || continue
      mkdir -p "$d/external/bdwgc/libatomic_ops/src/$(dirname "$f")"
      cp "/usr/include/$f" "$d/external/bdwgc/libatomic_ops/src/$f"
    done
    [ "$(find "$d/external/bdwgc" -type f | wc -l)" -lt \
      "$(find "$OUT/x/unity-bdwgc-$2" -type f | wc -l)" ] ||
      fail "$1 is not pruned"
  fi
  cp -pR "$d/external/bdwgc" "$OUT/l/$1/orig"
}
same() { # name: the tree is the original, byte for byte, modes too
  o="$OUT/l/$1/orig" b="$OUT/l/$1/il2cpp/external/bdwgc"
  diff -r "$o" "$b" > /dev/null &&
    [ "$(cd "$o" && find . -exec stat -c '%a %n' {} + | sort)" = \
      "$(cd "$b" && find . -exec stat -c '%a %n' {} + | sort)" ] &&
    [ "$(ls -A "$OUT/l/$1/il2cpp/external")" = bdwgc ]
}
layout b0c6-full b0c6e4bc full
layout b0c6-pruned b0c6e4bc pruned
layout 6521-full 6521d4e6 full
layout 6521-pruned 6521d4e6 pruned
find "$OUT/l/b0c6-pruned/orig/libatomic_ops" -name atomic_ops.h | grep -q . ||
  echo "note: no system libatomic_ops headers to fill libatomic_ops/ with"

# The refusals first, on the pruned 2019-era layout.
# 1. A series whose last hunk does not apply exactly (the same files, so
#    the tree is known; patch's dry run refuses it).
mkdir -p "$OUT/badseries"
cp "$pu"/*.patch "$pu/series" "$pu/known-forks" "$OUT/badseries/"
printf -- '--- a/alloc.c\n+++ b/alloc.c\n@@ -1,1 +1,1 @@\n-no such line\n+x\n' \
  > "$OUT/badseries/bad.patch"
echo bad.patch >> "$OUT/badseries/series"
if GCACC_PATCHES_UNITY="$OUT/badseries" sh "$inst" install \
     "$OUT/l/6521-pruned/il2cpp" > "$OUT/bad.log" 2>&1; then
  fail "install with a bad patch succeeded"; fi
same 6521-pruned || fail "a failed install changed the tree or left files"
grep -q "does not apply exactly" "$OUT/bad.log" ||
  fail "the refusal does not say the series does not apply"
echo "ok: a series that does not apply leaves the tree as it was"
# 2. One file the series changes, altered outside any hunk.
b="$OUT/l/6521-pruned/il2cpp/external/bdwgc"
cp -p "$b/malloc.c" "$OUT/malloc.c.keep"
echo "/* changed */" >> "$b/malloc.c"
cp -p "$b/malloc.c" "$OUT/l/6521-pruned/orig/malloc.c"
if sh "$inst" install "$OUT/l/6521-pruned/il2cpp" > "$OUT/unknown.log" 2>&1
then fail "an unknown bdwgc was not refused"; fi
same 6521-pruned || fail "a refused install changed the tree or left files"
for w in "not a version of Unity's bdwgc fork this gcacc knows" \
         "found: bdwgc 7.7.0, 3-argument" "malloc.c: sha256" \
         "what you can do" "bdwgc/unity.sh" "make il2cpp-drop-in"; do
  grep -qF "$w" "$OUT/unknown.log" || fail "the refusal does not say '$w'"
done
[ "$(grep -c ': sha256\|: absent' "$OUT/unknown.log")" -eq 1 ] ||
  fail "the refusal names other files than malloc.c"
grep -qF "would apply to it exactly" "$OUT/unknown.log" &&
  grep -qF -- "install --unverified" "$OUT/unknown.log" ||
  fail "the refusal does not say the hunks apply and --unverified"
echo "ok: an altered bdwgc is refused:"; sed 's/^/  /' "$OUT/unknown.log"
#    --unverified installs it (every hunk applies exactly); uninstall
#    restores it byte for byte.
sh "$inst" install --unverified "$OUT/l/6521-pruned/il2cpp" > "$OUT/unv.log" ||
  fail "--unverified refused a tree our hunks apply to exactly"
grep -q GC_ACC_ON_ALLOC_FL "$b/vector_mlc.c" || fail "--unverified: series not applied"
sh "$inst" status "$OUT/l/6521-pruned/il2cpp" | grep -q "unknown version" ||
  fail "status does not say the version is unknown"
sh "$inst" uninstall "$OUT/l/6521-pruned/il2cpp" > /dev/null
same 6521-pruned || fail "uninstall after --unverified did not restore the tree"
echo "ok: --unverified installs it, uninstall restores it"
# 3. A line of a hunk's context changed: refused even with --unverified.
sed -i '0,/obj_link(op) = 0;/s//obj_link(op) = NULL;/' "$b/malloc.c"
cp -p "$b/malloc.c" "$OUT/l/6521-pruned/orig/malloc.c"
if sh "$inst" install --unverified "$OUT/l/6521-pruned/il2cpp" \
     > "$OUT/ctx.log" 2>&1; then
  fail "--unverified installed a tree our hunks do not apply to"; fi
same 6521-pruned || fail "a refused install changed the tree or left files"
grep -qF "do not apply to it exactly" "$OUT/ctx.log" ||
  fail "the refusal does not say the hunks do not apply"
! grep -qF -- "install --unverified" "$OUT/ctx.log" ||
  fail "the refusal offers --unverified where the hunks do not apply"
echo "ok: a changed hunk context is refused, even with --unverified"
cp -p "$OUT/malloc.c.keep" "$b/malloc.c"
cp -p "$OUT/malloc.c.keep" "$OUT/l/6521-pruned/orig/malloc.c"

# The harness, compiled once against the first layout's installed headers
# (the four differ only in the heap-section API, which it does not use).
for n in b0c6-full b0c6-pruned 6521-full 6521-pruned; do
  b="$OUT/l/$n/il2cpp/external/bdwgc"
  sh "$inst" install "$OUT/l/$n/il2cpp" > "$OUT/l/$n/install.log"
  [ -f "$b/accounting/gca_amalgam.c" ] && [ -f "$b/include/gc_accounting.h" ] ||
    fail "$n: accounting not installed"
  grep -q GC_ACC_ON_ALLOC_FL "$b/vector_mlc.c" || fail "$n: series not applied"
  diff -r "$OUT/l/$n/orig/libatomic_ops" "$b/libatomic_ops" ||
    fail "$n: libatomic_ops/ not kept"
  # shellcheck disable=SC2086
  $CC -c -O1 -g -fno-omit-frame-pointer -w -o "$OUT/l/$n/gc.o" \
    -I "$b/include" -I "$b/libatomic_ops/src" $UNITY_DEFS "$b/extra/gc.c" &
done
wait
b="$OUT/l/b0c6-full/il2cpp/external/bdwgc"
for h in test_vector:tests/unity/test_vector.c gameload:tests/il2cpp/gameload.c; do
  $CC -c -O1 -g -fno-omit-frame-pointer -w -o "$OUT/${h%%:*}.o" \
    -I "$srcdir/include" -I "$b/include" -DGC_THREADS "$srcdir/${h#*:}"
done
for n in b0c6-full b0c6-pruned 6521-full 6521-pruned; do
  b="$OUT/l/$n/il2cpp/external/bdwgc"
  [ -f "$OUT/l/$n/gc.o" ] || fail "$n: extra/gc.c does not build with Unity's defines"
  $CC -o "$OUT/l/$n/test_vector" "$OUT/test_vector.o" "$OUT/l/$n/gc.o" \
    -lpthread -lz
  $CC -o "$OUT/l/$n/gameload" "$OUT/gameload.o" "$OUT/l/$n/gc.o" \
    -lpthread -lz -ldl
  "$OUT/l/$n/test_vector" > "$OUT/l/$n/vector.log" ||
    { cat "$OUT/l/$n/vector.log"; fail "$n: test_vector"; }
  printf '#!/bin/sh\nexec "%s/gameload" "$1" --api "$GC_ACC_DUMP"\n' \
    "$(pwd)/$OUT/l/$n" > "$OUT/l/$n/gameload-api"
  chmod +x "$OUT/l/$n/gameload-api"
  GAMELOAD="$OUT/l/$n/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh" \
    > "$OUT/l/$n/gameload.log" 2>&1 ||
    { cat "$OUT/l/$n/gameload.log"; fail "$n: the il2cpp-shaped harness"; }
  era=3-argument; case $n in b0c6*) era=4-argument ;; esac
  cmp -s "$srcdir/LICENSE" "$b/LICENSE.gcacc" ||
    fail "$n: the installed tree has no LICENSE.gcacc (our MIT license)"
  sh "$inst" status "$OUT/l/$n/il2cpp" | grep -q "installed in" ||
    fail "$n: status does not say installed"
  grep -q "$era GC_foreach_heap_section" "$OUT/l/$n/install.log" ||
    fail "$n: install does not name the $era era"
  before=$(cd "$b" && find . -type f -exec sha256sum {} + | sort)
  sh "$inst" install "$OUT/l/$n/il2cpp" | grep -q 'nothing to do' ||
    fail "$n: second install was not a no-op"
  [ "$before" = "$(cd "$b" && find . -type f -exec sha256sum {} + | sort)" ] ||
    fail "$n: second install changed the tree"
  sh "$inst" uninstall "$OUT/l/$n/il2cpp" > /dev/null
  same "$n" || fail "$n: uninstall did not restore the original bytes"
  sh "$inst" uninstall "$OUT/l/$n/il2cpp" | grep -q 'nothing to do' ||
    fail "$n: second uninstall was not a no-op"
  echo "ok: $n: install, Unity's defines build, $(tail -1 "$OUT/l/$n/vector.log"), $(tail -1 "$OUT/l/$n/gameload.log"), uninstall restores it byte for byte"
done
rm -rf "$OUT/l" "$OUT/x"
echo "PASS: il2cpp-install.sh on four layouts"
