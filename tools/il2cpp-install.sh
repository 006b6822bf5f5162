#!/bin/sh
# SPDX-License-Identifier: MIT
# il2cpp-install.sh: add gcacc's accounting to the bdwgc of an il2cpp tree.
#
#   tools/il2cpp-install.sh install [--unverified] IL2CPP_DIR
#   tools/il2cpp-install.sh uninstall IL2CPP_DIR
#   tools/il2cpp-install.sh status    IL2CPP_DIR
#
# IL2CPP_DIR is the il2cpp folder of a Unity installation or of an il2cpp
# build: the one holding external/bdwgc and libil2cpp (in a Unity
# installation, Editor/Data/il2cpp on Linux and Windows,
# Unity.app/Contents/il2cpp on macOS).
#
# install checks that external/bdwgc is Unity's fork in a version this
# gcacc knows: every file bdwgc/patches-unity/series changes must match
# one known commit (bdwgc/patches-unity/known-forks: b0c6e4bc, the
# 4-argument heap-section era of 2023.2.10+ and 6000, and 6521d4e6, the
# 3-argument era of 2019.4 to 2023.2.7, so 2021.3 and 2022.3); the other
# files may be anything or absent (an installation ships a pruned copy,
# libatomic_ops/ filled in or empty).  Anything else is refused, saying
# what was found (and whether our hunks would apply to it exactly) and
# what else to do; --unverified installs such a tree anyway when every
# hunk applies exactly (no fuzz), at the user's risk.  It then copies the tree beside
# the original, applies the series there (each patch first with
# --dry-run, no fuzz allowed), copies accounting/ and
# include/gc_accounting.h in (il2cpp compiles only extra/gc.c, which
# includes them), and swaps the two folders, the original kept as
# external/bdwgc.gcacc-orig.  Every step before the swap works on copies,
# and the swap is two renames (the first undone if the second fails): a
# failing step leaves the tree as it was.  A second install is a no-op.
# The marker external/bdwgc/.gcacc-installed records the manifest sums
# of both trees (every file's sha256 and path, libatomic_ops/ included);
# uninstall puts the original back after checking that the backup is
# still byte for byte what it was; the tree is then exactly as before.
#
# Exit status: 0 done (or nothing to do), 1 refused or failed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
patches=${GCACC_PATCHES_UNITY:-$top/bdwgc/patches-unity}  # tests override
table=$patches/known-forks
. "$top/bdwgc/unity-forks.sh"

die() {
  printf 'il2cpp-install: error: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
say() { printf 'il2cpp-install: %s\n' "$*"; }

# The manifest of a bdwgc tree: every file's sha256 and path, sorted,
# our marker aside (libatomic_ops/ included: it is restored too).
manifest() {
  # shellcheck disable=SC2086
  (cd "$1" && find . -type f ! -name .gcacc-installed -print | LC_ALL=C sort |
    tr '\n' '\0' | xargs -0 $uf_sha)
}
# shellcheck disable=SC2086
manifest_sum() { manifest "$1" | $uf_sha | cut -d' ' -f1; }

usage="usage: tools/il2cpp-install.sh install [--unverified]|uninstall|status IL2CPP_DIR"
unverified=
if [ $# -eq 3 ] && [ "$1" = install ] && [ "$2" = --unverified ]; then
  unverified=1
  set -- "$1" "$3"
fi
[ $# -eq 2 ] || die "$usage"
cmd=$1
il2cpp=$2
[ -d "$il2cpp" ] || die "$il2cpp: no such folder"
ext="$il2cpp/external"
bdwgc="$ext/bdwgc"
orig="$ext/bdwgc.gcacc-orig"
marker="$bdwgc/.gcacc-installed"
[ -d "$bdwgc" ] || die "$il2cpp has no external/bdwgc" \
  "expected the il2cpp folder (holding external/bdwgc and libil2cpp)"

# known_fork DIR: "commit era" lines of the known commits DIR's touched
# files match (none: not known); the files' sums are left in $work/found.
work=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-install.XXXXXX")
new="$ext/.bdwgc.gcacc-new.$$"
trap 'rm -rf "$work" "$new"' EXIT INT TERM
known_fork() {
  uf_found "$1" "$patches" > "$work/found"
  uf_match "$work/found" "$table"
}
commits_of() { # "commit era" lines -> "b0c6e4bc and 6521d4e6"
  awk '{ printf "%s%s", (NR > 1 ? " and " : ""), substr($1, 1, 8) }'
}
mark() { sed -n "s/^$1 //p" "$marker"; }

# Installed: the marker holds the manifest sums of both trees.
installed_state() { # -> none | ok | modified
  if [ ! -f "$marker" ]; then echo none
  elif [ -d "$orig" ] && [ "$(mark installed)" = "$(manifest_sum "$bdwgc")" ]
  then echo ok
  else echo modified
  fi
}

case $cmd in
status)
  case $(installed_state) in
    ok) if [ "$(mark commit)" = "unverified " ]; then
          say "installed in $bdwgc (an unknown version of Unity's fork, --unverified;" \
            "original in $orig)"
        else
          say "installed in $bdwgc (Unity's fork, our files as at $(mark commit |
            tr ' ' '\n' | sed '/^$/d' | commits_of); original in $orig)"
        fi ;;
    modified) say "installed in $bdwgc, but changed since (or the backup is gone)" ;;
    none) k=$(known_fork "$bdwgc")
          if [ -n "$k" ]; then
            say "not installed; $bdwgc is Unity's fork, our files as at $(printf '%s\n' "$k" |
              commits_of) ($(uf_describe "$bdwgc"))"
          else say "not installed; $bdwgc is not a version of Unity's fork this gcacc knows"
          fi ;;
  esac ;;

install)
  case $(installed_state) in
    ok) say "already installed in $bdwgc; nothing to do"; exit 0 ;;
    modified) die "$bdwgc has gcacc installed but was changed since (or $orig is gone)" \
      "restore it by hand from $orig, or reinstall Unity's il2cpp" ;;
  esac
  [ ! -e "$orig" ] || die "$orig already exists" \
    "a backup from an earlier install: move it away, or uninstall first"
  k=$(known_fork "$bdwgc")
  if [ -z "$k" ]; then
    # Would our hunks apply exactly?  Tried on a copy of the files.
    exact=no
    if ! grep -q ' -$' "$work/found"; then
      mkdir "$work/try"
      cut -d' ' -f1 "$work/found" | while IFS= read -r f; do
        mkdir -p "$work/try/$(dirname "$f")"; cp -p "$bdwgc/$f" "$work/try/$f"
      done
      uf_apply "$work/try" "$patches" 2> "$work/try.log" && exact=yes
    fi
    if [ -n "$unverified" ] && [ $exact = yes ]; then
      say "warning: $bdwgc is not a version of Unity's fork this gcacc knows;" \
        "installing anyway (--unverified): every hunk applies exactly"
      uf_report "$work/found" "$table"
      k="unverified -"
    fi
  fi
  if [ -z "$k" ]; then
    # What was found, file by file, and what else there is to do.
    {
      printf 'il2cpp-install: error: %s is not a version of Unity'"'"'s bdwgc fork this gcacc knows; it is unchanged\n' "$bdwgc"
      printf '  found: %s\n' "$(uf_describe "$bdwgc")"
      printf '  of the %s files bdwgc/patches-unity changes, these differ from every known commit:\n' \
        "$(wc -l < "$work/found" | tr -d ' ')"
      uf_report "$work/found" "$table" | sed 's/^/  /'
      printf '  known: %s (bdwgc/patches-unity/known-forks; other files may differ or be absent)\n' \
        "$(awk '!/^#/ && NF >= 4 && !s[$1]++ { printf "%s%s (era %s)", (n++ ? ", " : ""), substr($1, 1, 8), $2 }' "$table")"
      if [ $exact = yes ]; then
        printf '  our hunks would apply to it exactly (dry run, no fuzz), but this version is untested\n'
      elif [ -f "$work/try.log" ]; then
        printf '  our hunks do not apply to it exactly:\n'
        sed 's/^/  /' "$work/try.log"
      fi
      printf '  what you can do:\n'
      printf '  - restore the installation'"'"'s own external/bdwgc (reinstall its IL2CPP module) and install again;\n'
      printf '  - build Unity'"'"'s fork with gcacc from a known copy of your era: UNITY_BDWGC_TARBALL=/path/to/the/fork bdwgc/unity.sh tree\n'
      printf '    (a tarball of a known commit, or a folder), then copy bdwgc/unity/src over external/bdwgc by hand (docs/il2cpp.md);\n'
      printf '  - or replace external/bdwgc with gcacc'"'"'s own collector: make il2cpp-drop-in (docs/il2cpp.md, "The drop-in folder")'
      if [ $exact = yes ]; then
        printf ';\n  - or install it anyway, at your own risk: tools/il2cpp-install.sh install --unverified %s\n' "$il2cpp"
      else printf '.\n'; fi
    } >&2
    exit 1
  fi
  cp -pR "$bdwgc" "$new"
  uf_apply "$new" "$patches" 2> "$work/patch.log" || {
    sed 's/^/  /' "$work/patch.log" >&2
    die "the series does not apply exactly to $bdwgc; it is unchanged" \
      "found: $(uf_describe "$bdwgc")"; }
  # Our sources as real files (il2cpp's tree must stand alone).
  mkdir "$new/accounting"
  cp -p "$top"/accounting/*.c "$top"/accounting/*.h "$new/accounting/"
  cp -p "$top/include/gc_accounting.h" "$new/include/gc_accounting.h"
  cp -p "$top/LICENSE" "$new/LICENSE.gcacc"     # our files' (MIT)
  { printf 'installed %s\n' "$(manifest_sum "$new")"
    printf 'original %s\n' "$(manifest_sum "$bdwgc")"
    printf 'commit %s\n' "$(printf '%s\n' "$k" | awk '{ print $1 }' | tr '\n' ' ')"
  } > "$new/.gcacc-installed"
  # The swap: two renames, the first undone if the second fails.
  mv "$bdwgc" "$orig" || die "cannot move $bdwgc aside; it is unchanged"
  if ! mv "$new" "$bdwgc"; then
    mv "$orig" "$bdwgc"
    die "cannot put the patched tree in place; $bdwgc is unchanged"
  fi
  if [ "$k" = "unverified -" ]; then what="an unknown version of Unity's fork"
  else what="Unity's fork, our files as at $(printf '%s\n' "$k" | commits_of)"; fi
  say "installed gcacc's accounting in $bdwgc ($what;" \
      "$(uf_describe "$bdwgc"); original kept in $orig)"
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
  { [ -d "$orig" ] && [ "$(mark original)" = "$(manifest_sum "$orig")" ]; } ||
    die "$orig is no longer the original bdwgc (or is gone)" \
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

*) die "unknown command '$cmd'" "$usage" ;;
esac
