#!/bin/sh
# install.sh: tools/il2cpp-install.sh on a copy of the fork laid out as
# il2cpp/external/bdwgc.  install; the installed tree builds with Unity's
# defines, counts (test_vector) and names IL2CPP's classes (the harness
# of tests/il2cpp/gameload.sh); a second install is a no-op;
# uninstall leaves the tree byte-identical to the original (diff -r, and
# modes); a failing patch leaves the tree as it was; an unknown bdwgc
# (the fork with one file changed) is refused, saying what was expected.
set -eu
me=install
. "$srcdir/tests/unity/unity_lib.sh"
inst="$srcdir/tools/il2cpp-install.sh"
pristine=$(sh "$unity_sh" pristine)
rm -rf "$OUT/il2cpp" "$OUT/orig"
mkdir -p "$OUT/il2cpp/external" "$OUT/il2cpp/libil2cpp"
cp -pR "$pristine" "$OUT/il2cpp/external/bdwgc"
cp -pR "$pristine" "$OUT/orig"
b="$OUT/il2cpp/external/bdwgc"
same() { # the tree is the original, byte for byte, modes too
  diff -r "$OUT/orig" "$b" > /dev/null &&
    [ "$(cd "$OUT/orig" && find . -exec stat -c '%a %n' {} + | sort)" = \
      "$(cd "$b" && find . -exec stat -c '%a %n' {} + | sort)" ]
}
fail() { echo "FAIL: $*" >&2; exit 1; }

# A patch that does not apply: refused, tree unchanged, nothing left over.
mkdir -p "$OUT/badseries"
printf 'bad.patch\n' > "$OUT/badseries/series"
printf -- '--- a/alloc.c\n+++ b/alloc.c\n@@ -1,1 +1,1 @@\n-no such line\n+x\n' \
  > "$OUT/badseries/bad.patch"
if GCACC_PATCHES_UNITY="$OUT/badseries" sh "$inst" install "$OUT/il2cpp" \
     > "$OUT/bad.log" 2>&1; then fail "install with a bad patch succeeded"; fi
same || fail "a failed install changed the tree"
[ "$(ls -A "$OUT/il2cpp/external")" = bdwgc ] || fail "a failed install left files"
echo "ok: a failing install leaves the tree as it was"

sh "$inst" install "$OUT/il2cpp"
[ -f "$b/accounting/gca_amalgam.c" ] && [ -f "$b/include/gc_accounting.h" ] ||
  fail "accounting not installed"
grep -q GC_ACC_ON_ALLOC_FL "$b/vector_mlc.c" || fail "series not applied"
# shellcheck disable=SC2086
$CC -c -O1 -w -o "$OUT/gc.o" -I "$b/include" $UNITY_DEFS "$b/extra/gc.c"
# shellcheck disable=SC2086
$CC -O1 -w -o "$OUT/test_vector" -I "$srcdir/include" -I "$b/include" \
  -DGC_THREADS "$srcdir/tests/unity/test_vector.c" "$OUT/gc.o" -lpthread -lz
"$OUT/test_vector"
# The il2cpp-shaped harness on the installed tree (gameload.sh's checks:
# IL2CPP class names from word 0, live objects per class, frames, the
# leak and its function, the fragmentation, garbage in word 0), switched
# on through the API as a game without getenv does.
# shellcheck disable=SC2086
$CC -O1 -g -fno-omit-frame-pointer -w -c -o "$OUT/gc-fp.o" -I "$b/include" \
  $UNITY_DEFS "$b/extra/gc.c"
$CC -O1 -g -fno-omit-frame-pointer -w -o "$OUT/gameload" -I "$srcdir/include" \
  -I "$b/include" -DGC_THREADS "$srcdir/tests/il2cpp/gameload.c" \
  "$OUT/gc-fp.o" -lpthread -lz -ldl
printf '#!/bin/sh\nexec "%s/gameload" "$1" --api "$GC_ACC_DUMP"\n' \
  "$(pwd)/$OUT" > "$OUT/gameload-api"
chmod +x "$OUT/gameload-api"
GAMELOAD="$OUT/gameload-api" sh "$srcdir/tests/il2cpp/gameload.sh" ||
  fail "the il2cpp-shaped harness on the installed tree"
before=$(cd "$b" && find . -type f -exec sha256sum {} + | sort)
sh "$inst" install "$OUT/il2cpp" | grep -q 'nothing to do' ||
  fail "second install was not a no-op"
[ "$before" = "$(cd "$b" && find . -type f -exec sha256sum {} + | sort)" ] ||
  fail "second install changed the tree"
echo "ok: install, build, second install a no-op"

sh "$inst" uninstall "$OUT/il2cpp"
same || fail "uninstall did not restore the original bytes"
[ "$(ls -A "$OUT/il2cpp/external")" = bdwgc ] || fail "uninstall left files"
sh "$inst" uninstall "$OUT/il2cpp" | grep -q 'nothing to do' ||
  fail "second uninstall was not a no-op"
echo "ok: uninstall restores the original, byte for byte"

echo "/* changed */" >> "$b/malloc.c"
if sh "$inst" install "$OUT/il2cpp" > "$OUT/unknown.log" 2>&1; then
  fail "an unknown bdwgc was not refused"; fi
grep -q "expected Unity's bdwgc fork" "$OUT/unknown.log" ||
  fail "the refusal does not say what was expected"
echo "ok: an unknown bdwgc is refused:"; sed 's/^/  /' "$OUT/unknown.log"
rm -rf "$OUT/il2cpp" "$OUT/orig"
echo "PASS: il2cpp-install.sh"
