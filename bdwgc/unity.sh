#!/bin/sh
# SPDX-License-Identifier: MIT
# unity.sh: Unity's bdwgc fork with our accounting, built as IL2CPP builds it.
#
#   bdwgc/unity.sh tree              unpack, check, patch, link (idempotent)
#   bdwgc/unity.sh defines           print Unity's define set, one per line
#   bdwgc/unity.sh build OUT [CFLAGS...]
#                                    the tree, then OUT/gc-unity.o: the
#                                    fork's extra/gc.c, Unity's defines plus
#                                    CFLAGS (e.g. -DGC_ACC_DISABLE)
#   bdwgc/unity.sh pristine          print the unpatched tree's path (for
#                                    baselines: the fork as Unity ships it)
#
# The fork comes from the first of:
#   1. UNITY_BDWGC_TARBALL: a tarball or a folder holding the fork's tree,
#      such as the external/bdwgc of a Unity installation's il2cpp folder.
#      The pinned tarball (bdwgc/PIN-unity) is taken by its sha256; any
#      other tarball or folder must be a version of the fork we know: the
#      files the series changes as at one commit of
#      bdwgc/patches-unity/known-forks (bdwgc/unity-forks.sh), the other
#      files anything (a pruned copy is fine), and the series must apply
#      without fuzz;
#   2. ../shared/vendor/<tarball> beside the project (the tests' copy).
# It is unpacked into bdwgc/unity/ (ignored by git): pristine/ as it came,
# src/ with bdwgc/patches-unity/series applied and our accounting/ and
# include/gc_accounting.h linked in, as bdwgc/fetch.sh does for 8.2.2.
# Nothing is redone when src/ was made from the same inputs.
#
#   bdwgc/unity.sh vendor            print the folder of the tests' copies
#                                    (the pinned tarball's folder), or exit 3
#
# Exit status: 0 done; 3 no fork found (tests skip on it); 1 any other
# error, said on stderr with what to do.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dest="$here/unity"
series="$here/patches-unity/series"
. "$here/unity-forks.sh"

die() {
  printf 'bdwgc/unity.sh: error: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
say() { printf 'bdwgc/unity.sh: %s\n' "$*" >&2; }

pin() {
  v=$(sed -n "s/^$1=//p" "$here/PIN-unity")
  [ -n "$v" ] || die "bdwgc/PIN-unity has no '$1=' line"
  printf '%s' "$v"
}
tarball=$(pin tarball)
tartop=$(pin top)
sha256=$(pin sha256)

# Unity's define set (../shared/IL2CPP.md section 3): the core set, the
# non-WebGL set and the Bee scripts' extras, less what does not apply to
# a Linux build (NO_CRT: MSVC's C runtime; NOMINMAX, WIN32_THREADS).
# MANUAL_VDB and LARGE_CONFIG are not passed: the fork's gcconfig.h forces
# them.  VERIFY_UNITY_DEFINES makes the fork's own alloc.c check the set.
unity_defines() {
  cat <<'EOF'
-DALL_INTERIOR_POINTERS=1
-DGC_GCJ_SUPPORT=1
-DJAVA_FINALIZATION=1
-DNO_EXECUTE_PERMISSION=1
-DGC_NO_THREADS_DISCOVERY=1
-DIGNORE_DYNAMIC_LOADING=1
-DGC_DONT_REGISTER_MAIN_STATIC_DATA=1
-DGC_VERSION_MAJOR=7
-DGC_VERSION_MINOR=7
-DGC_VERSION_MICRO=0
-DGC_THREADS=1
-DUSE_MMAP=1
-DUSE_MUNMAP=1
-DNO_DEBUGGING=1
-DDONT_USE_ATEXIT=1
-DNO_GETENV=1
-DHAVE_BDWGC_GC
-DHAVE_BOEHM_GC
-DDEFAULT_GC_NAME="BDWGC"
-DVERIFY_UNITY_DEFINES=1
EOF
}

inputs_sum() { # what src/ is made from: the pin, the series, its patches
  { cat "$here/PIN-unity" "$series" "$here/unity-forks.sh" \
        "$here/patches-unity/known-forks"
    sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$series" | while read -r p; do
      cat "$here/patches-unity/$p" 2>/dev/null || echo "missing $p"
    done
    printf 'source %s\n' "$1"
    # a folder changes in place: its files the series touches count too
    [ ! -d "$1" ] || uf_found "$1" "$here/patches-unity"
  } | sha256sum | cut -d' ' -f1
}

find_source() { # -> path of a tarball or folder, or exit 3
  if [ -n "${UNITY_BDWGC_TARBALL:-}" ]; then
    [ -e "$UNITY_BDWGC_TARBALL" ] || die \
      "UNITY_BDWGC_TARBALL=$UNITY_BDWGC_TARBALL: no such file or folder" \
      "point it at $tarball (sha256 $sha256) or at the fork's folder" \
      "(il2cpp/external/bdwgc of a Unity installation), or unset it"
    printf '%s' "$UNITY_BDWGC_TARBALL"
    return
  fi
  v="$top/../shared/vendor/$tarball"
  if [ -f "$v" ]; then printf '%s' "$(cd "$(dirname "$v")" && pwd)/$tarball"
    return; fi
  printf 'bdwgc/unity.sh: no Unity bdwgc fork: neither UNITY_BDWGC_TARBALL nor %s\n' \
    "../shared/vendor/$tarball" >&2
  exit 3
}

make_tree() {
  src=$(find_source)
  want=$(inputs_sum "$src")
  if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$want" ] &&
     [ -d "$dest/src" ]; then
    return 0
  fi
  command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found"
  work=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-unity.XXXXXX")
  trap 'rm -rf "$work"' EXIT INT TERM
  if [ -f "$src" ] && [ "$(uf_sha256 "$src")" = "$sha256" ]; then
    tar -xzf "$src" -C "$work" || die "cannot unpack $src"
    [ -f "$work/$tartop/vector_mlc.c" ] || die "$src does not unpack to $tartop/"
    mv "$work/$tartop" "$work/pristine"
  else
    if [ -d "$src" ]; then
      mkdir "$work/pristine"
      (cd "$src" && tar -cf - --exclude=.git .) | (cd "$work/pristine" && tar -xf -)
    else
      mkdir "$work/x"
      tar -xzf "$src" -C "$work/x" 2>/dev/null ||
        tar -xf "$src" -C "$work/x" 2>/dev/null ||
        die "cannot unpack $src" "expected a tarball or a folder of Unity's bdwgc fork"
      set -- "$work"/x/*
      { [ $# -eq 1 ] && [ -d "$1" ]; } || die "$src does not unpack to one folder"
      mv "$1" "$work/pristine"
    fi
    # Not the pinned tarball: the fork in a version we know?
    uf_found "$work/pristine" "$here/patches-unity" > "$work/found"
    [ -n "$(uf_match "$work/found" "$here/patches-unity/known-forks")" ] || {
      say "error: $src is not a version of Unity's bdwgc fork this gcacc knows"
      printf '  found: %s\n' "$(uf_describe "$work/pristine")" >&2
      echo "  these files the series changes differ from every known commit:" >&2
      uf_report "$work/found" "$here/patches-unity/known-forks" | sed 's/^/  /' >&2
      printf '  %s\n' "known: bdwgc/patches-unity/known-forks (other files may differ or be absent)" \
        "use a copy of the fork at a known commit (the pinned $tarball:" \
        "sha256 $sha256), or make il2cpp-drop-in for gcacc's own" \
        "collector (docs/il2cpp.md)" >&2
      exit 1; }
  fi
  cp -R "$work/pristine" "$work/src"
  uf_apply "$work/src" "$here/patches-unity" ||
    die "bdwgc/patches-unity does not apply exactly to $src"
  rm -rf "$dest/src" "$dest/pristine"
  mkdir -p "$dest"
  mv "$work/src" "$dest/src"
  mv "$work/pristine" "$dest/pristine"
  # Our sources enter the tree by link, as bdwgc/fetch.sh does for 8.2.2.
  ln -s ../../../accounting "$dest/src/accounting"
  ln -s ../../../../include/gc_accounting.h "$dest/src/include/gc_accounting.h"
  printf '%s\n' "$want" > "$dest/.stamp"
  say "Unity's fork ($src) unpacked and patched in bdwgc/unity/src"
}

# One run at a time on bdwgc/unity/ (tests may run in parallel).
locked() {
  mkdir -p "$dest"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$dest/.lock"
    flock 9
  fi
  make_tree
}

cmd=${1:-tree}
case $cmd in
  tree) locked; printf '%s\n' "$dest/src" ;;
  pristine) locked; printf '%s\n' "$dest/pristine" ;;
  vendor) s=$(find_source); [ -f "$s" ] || exit 3
    printf '%s\n' "$(cd "$(dirname "$s")" && pwd)" ;;
  defines) unity_defines ;;
  build)
    [ $# -ge 2 ] || die "usage: bdwgc/unity.sh build OUT [CFLAGS...]"
    out=$2; shift 2
    locked
    mkdir -p "$out"
    # shellcheck disable=SC2046
    ${CC:-cc} -c ${UNITY_CFLAGS:--O2} -o "$out/gc-unity.o" \
      -I "$dest/src/include" $(unity_defines) "$@" "$dest/src/extra/gc.c" ||
      die "the fork's extra/gc.c does not compile with Unity's defines"
    ;;
  *) die "unknown command '$cmd'" "usage: bdwgc/unity.sh tree|defines|build OUT [CFLAGS...]|pristine|vendor" ;;
esac
