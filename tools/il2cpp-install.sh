#!/bin/sh
# il2cpp-install.sh: add gcacc's accounting to the bdwgc of an il2cpp tree.
#
#   tools/il2cpp-install.sh install   IL2CPP_DIR
#   tools/il2cpp-install.sh uninstall IL2CPP_DIR
#   tools/il2cpp-install.sh status    IL2CPP_DIR
#
# IL2CPP_DIR is the il2cpp folder of a Unity installation or of an il2cpp
# build: the one holding external/bdwgc and libil2cpp (in a Unity
# installation, Editor/Data/il2cpp on Linux and Windows,
# Unity.app/Contents/il2cpp on macOS).
#
# install checks that external/bdwgc is Unity's fork this project knows
# (bdwgc/PIN-unity: version 7.7.0, and the sha256 of its files' manifest,
# the libatomic_ops submodule aside), refusing anything else with what it
# expected; builds the patched tree beside it (bdwgc/patches-unity, and
# accounting/ and include/gc_accounting.h copied in: il2cpp compiles only
# extra/gc.c, which includes them); then swaps the two folders, the
# original kept as external/bdwgc.gcacc-orig.  Every step before the swap
# works on copies, and the swap is two renames (the first undone if the
# second fails): a failing step leaves the tree as it was.  A second
# install is a no-op.  uninstall puts the original back, after checking
# that the backup is still byte for byte the fork it was; the tree is then
# exactly as before install.
#
# Exit status: 0 done (or nothing to do), 1 refused or failed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
pin_file="$top/bdwgc/PIN-unity"
patches=${GCACC_PATCHES_UNITY:-$top/bdwgc/patches-unity}  # tests override

die() {
  printf 'il2cpp-install: error: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
say() { printf 'il2cpp-install: %s\n' "$*"; }
pin() { sed -n "s/^$1=//p" "$pin_file"; }

# The manifest of a bdwgc tree: every file's sha256 and path, sorted,
# libatomic_ops/ (a submodule, empty in some copies) and our marker aside.
manifest() {
  (cd "$1" && find . -type f ! -path './libatomic_ops/*' \
      ! -name .gcacc-installed -print | LC_ALL=C sort |
    while IFS= read -r f; do sha256sum "$f"; done)
}
manifest_sum() { manifest "$1" | sha256sum | cut -d' ' -f1; }

[ $# -eq 2 ] || die "usage: tools/il2cpp-install.sh install|uninstall|status IL2CPP_DIR"
cmd=$1
il2cpp=$2
[ -d "$il2cpp" ] || die "$il2cpp: no such folder"
ext="$il2cpp/external"
bdwgc="$ext/bdwgc"
orig="$ext/bdwgc.gcacc-orig"
marker="$bdwgc/.gcacc-installed"
[ -d "$bdwgc" ] || die "$il2cpp has no external/bdwgc" \
  "expected the il2cpp folder (holding external/bdwgc and libil2cpp)"

want_tree=$(pin tree_sha256)
want_commit=$(pin commit)
version=$(pin version)

is_known_fork() { # dir -> 0 if it is the pinned fork, byte for byte
  grep -q "GC_TMP_VERSION_MINOR 7" "$1/include/gc_version.h" 2>/dev/null &&
    [ "$(manifest_sum "$1")" = "$want_tree" ]
}

# Installed: the marker holds the manifest sum of the installed tree.
installed_state() { # -> none | ok | modified
  if [ ! -f "$marker" ]; then echo none
  elif [ -d "$orig" ] && [ "$(cat "$marker")" = "$(manifest_sum "$bdwgc")" ]
  then echo ok
  else echo modified
  fi
}

case $cmd in
status)
  case $(installed_state) in
    ok) say "installed in $bdwgc (original in $orig)" ;;
    modified) say "installed in $bdwgc, but changed since (or the backup is gone)" ;;
    none) if is_known_fork "$bdwgc"; then say "not installed; $bdwgc is Unity's fork $want_commit"
          else say "not installed; $bdwgc is not the fork this gcacc knows"; fi ;;
  esac ;;

install)
  case $(installed_state) in
    ok) say "already installed in $bdwgc; nothing to do"; exit 0 ;;
    modified) die "$bdwgc has gcacc installed but was changed since (or $orig is gone)" \
      "restore it by hand from $orig, or reinstall Unity's il2cpp" ;;
  esac
  [ ! -e "$orig" ] || die "$orig already exists" \
    "a backup from an earlier install: move it away, or uninstall first"
  is_known_fork "$bdwgc" || die "$bdwgc is not the bdwgc this gcacc knows" \
    "expected Unity's bdwgc fork $version at commit $want_commit" \
    "(file manifest sha256 $want_tree, bdwgc/PIN-unity)" \
    "got manifest sha256 $(manifest_sum "$bdwgc")"
  new="$ext/.bdwgc.gcacc-new.$$"
  trap 'rm -rf "$new"' EXIT INT TERM
  cp -pR "$bdwgc" "$new"
  sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$patches/series" | while read -r p; do
    out=$(cd "$new" && patch -p1 --forward --batch --no-backup-if-mismatch \
            -r - < "$patches/$p" 2>&1) || {
      printf '%s\n' "$out" | sed 's/^/  patch: /' >&2
      die "$p does not apply; $bdwgc is unchanged"; }
  done
  # Our sources as real files (il2cpp's tree must stand alone).
  mkdir "$new/accounting"
  cp -p "$top"/accounting/*.c "$top"/accounting/*.h "$new/accounting/"
  cp -p "$top/include/gc_accounting.h" "$new/include/gc_accounting.h"
  manifest_sum "$new" > "$new/.gcacc-installed"
  # The swap: two renames, the first undone if the second fails.
  mv "$bdwgc" "$orig" || die "cannot move $bdwgc aside; it is unchanged"
  if ! mv "$new" "$bdwgc"; then
    mv "$orig" "$bdwgc"
    die "cannot put the patched tree in place; $bdwgc is unchanged"
  fi
  trap - EXIT INT TERM
  say "installed gcacc's accounting in $bdwgc (original kept in $orig)"
  say "switch it on from the game after GC_INIT (no getenv in il2cpp's build):"
  say "  GC_acc_enable(1); GC_acc_dump_start(\"/path/session-%p.jsonl.gz\");"
  ;;

uninstall)
  case $(installed_state) in
    none) if [ -e "$orig" ]; then
            die "$bdwgc has no gcacc marker but $orig exists" "check both by hand"
          fi
          say "not installed in $bdwgc; nothing to do"; exit 0 ;;
  esac
  is_known_fork "$orig" || die "$orig is no longer the original fork" \
    "it was changed since install; not restoring it"
  gone="$ext/.bdwgc.gcacc-removed.$$"
  mv "$bdwgc" "$gone" || die "cannot move $bdwgc aside; nothing changed"
  if ! mv "$orig" "$bdwgc"; then
    mv "$gone" "$bdwgc"
    die "cannot restore $orig; nothing changed"
  fi
  rm -rf "$gone"
  say "restored the original $bdwgc"
  ;;

*) die "unknown command '$cmd'" "usage: tools/il2cpp-install.sh install|uninstall|status IL2CPP_DIR" ;;
esac
