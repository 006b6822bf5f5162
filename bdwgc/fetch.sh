#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch.sh: turn the pinned bdwgc release into the patched tree we build.
#
#   bdwgc/fetch.sh [--force | --if-changed]
#
# Obtains the release tarball named in bdwgc/PIN, from the first of:
#   1. the file named by BDWGC_TARBALL (an error if it is set but unusable);
#   2. the local cache, GCACC_CACHE_DIR (default ~/.cache/gcacc);
#   3. Debian's source package (bdwgc/PIN: debian_source), downloaded with
#      apt-get through a private apt configuration whose deb-src entries are
#      derived from this machine's own deb entries (system files untouched).
# It checks the sha256 from bdwgc/PIN, unpacks into bdwgc/upstream/ (ignored
# by git), applies bdwgc/patches/series in order, links our accounting/ and
# unity/ sources and public headers into the tree, and regenerates upstream's
# autotools files.  Nothing is redone when the tree is already patched from
# the same pin and patches (bdwgc/upstream/.gcacc-stamp); --force redoes it,
# and --if-changed says nothing when there is nothing to do (every `make`).
#
# Errors say what failed, where, and what to do; the exit status is 1.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dest="$here/upstream"
series="$here/patches/series"

die() {
  printf 'bdwgc/fetch.sh: error: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
say() { printf 'bdwgc/fetch.sh: %s\n' "$*"; }

pin() {
  v=$(sed -n "s/^$1=//p" "$here/PIN")
  [ -n "$v" ] || die "bdwgc/PIN has no '$1=' line"
  printf '%s' "$v"
}

version=$(pin version)
tarball=$(pin tarball)
sha256=$(pin sha256)
debian_source=$(pin debian_source)
debian_orig=$(pin debian_orig)

command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found" \
  "install coreutils"

# The stamp records what the tree was made from; same inputs, nothing to do.
inputs_sum() {
  { cat "$here/PIN" "$series"
    sed -e '/^#/d' -e '/^$/d' "$series" | while read -r p; do
      cat "$here/patches/$p" 2>/dev/null || echo "missing $p"
    done
  } | sha256sum | cut -d' ' -f1
}
want_stamp=$(inputs_sum)
if [ "${1:-}" != "--force" ] && [ -f "$dest/.gcacc-stamp" ] &&
   [ "$(cat "$dest/.gcacc-stamp")" = "$want_stamp" ]; then
  [ "${1:-}" = "--if-changed" ] ||
    say "bdwgc $version already unpacked and patched in bdwgc/upstream"
  exit 0
fi

check_sum() { # file -> 0 when it is the pinned tarball
  [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha256" ]
}

cache_dir=${GCACC_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gcacc}
cached="$cache_dir/$tarball"
work=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# ---- 1. a tarball the user names ----------------------------------------
src=""
if [ -n "${BDWGC_TARBALL:-}" ]; then
  [ -r "$BDWGC_TARBALL" ] || die "BDWGC_TARBALL=$BDWGC_TARBALL: no such readable file" \
    "point BDWGC_TARBALL at $tarball (sha256 $sha256), or unset it"
  check_sum "$BDWGC_TARBALL" || die \
    "BDWGC_TARBALL=$BDWGC_TARBALL: sha256 mismatch" \
    "expected $sha256 ($tarball, from bdwgc/PIN)" \
    "got      $(sha256sum "$BDWGC_TARBALL" | cut -d' ' -f1)" \
    "use the bdwgc $version release tarball, or unset BDWGC_TARBALL"
  src=$BDWGC_TARBALL
  say "using BDWGC_TARBALL=$src"
fi

# ---- 2. the cache --------------------------------------------------------
if [ -z "$src" ] && [ -f "$cached" ]; then
  if check_sum "$cached"; then
    src=$cached
    say "using cached $src"
  else
    say "warning: cached $cached has the wrong sha256; ignoring it"
  fi
fi

# ---- 3. Debian's source package through a private apt configuration -----
apt_fetch() {
  command -v apt-get >/dev/null 2>&1 || return 1
  a="$work/apt"
  mkdir -p "$a/sources.list.d" "$a/lists/partial" "$a/cache/archives/partial" \
           "$a/dl"
  : > "$a/sources.list"
  # One-line format: turn each 'deb' entry into 'deb-src'.
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$a/sources.list"
  done
  # deb822 format: the same entries with Types: deb-src.
  n=0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    sed 's/^Types:.*/Types: deb-src/' "$f" > "$a/sources.list.d/src$n.sources"
  done
  set -- -o Dir::Etc::SourceList="$a/sources.list" \
         -o Dir::Etc::SourceParts="$a/sources.list.d" \
         -o Dir::State::Lists="$a/lists" \
         -o Dir::Cache="$a/cache" \
         -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)"
  say "downloading Debian source package '$debian_source' (apt-get source)"
  apt-get "$@" -q update > "$a/update.log" 2>&1 || {
    sed 's/^/  apt: /' "$a/update.log" | tail -5 >&2; return 1; }
  (cd "$a/dl" && apt-get "$@" -q source --download-only "$debian_source") \
    > "$a/source.log" 2>&1 || {
    sed 's/^/  apt: /' "$a/source.log" | tail -5 >&2; return 1; }
  [ -f "$a/dl/$debian_orig" ] || {
    printf '  apt: the source package has no %s (Debian moved on?)\n' \
      "$debian_orig" >&2; return 1; }
  if ! check_sum "$a/dl/$debian_orig"; then
    die "Debian's $debian_orig: sha256 mismatch" \
      "expected $sha256 (bdwgc/PIN)" \
      "got      $(sha256sum "$a/dl/$debian_orig" | cut -d' ' -f1)" \
      "supply the bdwgc $version release tarball with BDWGC_TARBALL=/path/$tarball"
  fi
  src="$a/dl/$debian_orig"
}

if [ -z "$src" ]; then
  apt_fetch || die "cannot obtain $tarball (bdwgc $version)" \
    "supply it in one of three ways:" \
    "  1. BDWGC_TARBALL=/path/to/$tarball ./configure" \
    "  2. put it in the cache: $cached" \
    "  3. let apt fetch Debian's source package '$debian_source' (needs apt-get" \
    "     and a reachable Debian mirror in /etc/apt/sources.list*)" \
    "the tarball must have sha256 $sha256"
fi

# Keep a verified copy in the cache for the next tree (and for the tests
# and benchmarks, which build pristine and patched variants from it).
if [ "$src" != "$cached" ]; then
  mkdir -p "$cache_dir" 2>/dev/null && cp "$src" "$cached.tmp.$$" 2>/dev/null &&
    mv "$cached.tmp.$$" "$cached" || rm -f "$cached.tmp.$$"
fi

# ---- unpack and patch ----------------------------------------------------
mkdir "$work/tree"
tar -xzf "$src" -C "$work/tree" || die "cannot unpack $src"
root="$work/tree/gc-$version"
[ -f "$root/allchblk.c" ] || die "$src does not unpack to gc-$version/"

[ -f "$series" ] || die "no patch series: $series"
sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$series" | while read -r p; do
  pf="$here/patches/$p"
  [ -f "$pf" ] || die "bdwgc/patches/series names $p, which does not exist"
  if ! out=$(cd "$root" && patch -p1 --forward --batch --no-backup-if-mismatch \
               -r - < "$pf" 2>&1); then
    printf '%s\n' "$out" | sed 's/^/  patch: /' >&2
    # Show the first failing hunk from the patch file itself.
    file=$(printf '%s\n' "$out" | awk '/^patching file /{f=$3}
                                       /FAILED/{print f; exit}')
    hunk=$(printf '%s\n' "$out" | sed -n 's/^Hunk #\([0-9]*\) FAILED.*/\1/p' |
           head -1)
    if [ -n "$hunk" ]; then
      printf '  failing hunk #%s of %s in %s:\n' "$hunk" "$file" "$p" >&2
      awk -v want="$file" -v n="$hunk" '
        /^\+\+\+ /{ cur=$2; sub(/^b\//, "", cur); k=0; next }
        /^@@ /{ if (cur == want) k++; }
        /^diff --git /{ if (show) exit }
        { if (cur == want && k == n) { show=1; print "    " $0 } else if (show) exit }
      ' "$pf" >&2
    fi
    die "patch bdwgc/patches/$p does not apply to bdwgc $version" \
      "refresh it against gc-$version (see bdwgc/refresh-patches.sh)"
  fi
  say "applied $p"
done

rm -rf "$dest"
mv "$root" "$dest"

# Our sources enter upstream's tree by link, so both of upstream's build
# modes (separate objects, or the one-file extra/gc.c) can reach them.
ln -s ../../accounting "$dest/accounting"
ln -s ../../../include/gc_accounting.h "$dest/include/gc_accounting.h"
# The Unity API (patch 0003 includes it): sources and public headers.
ln -s ../../unity "$dest/unity"
for h in gc_unity.h gc_vector.h gcacc_il2cpp.h; do
  ln -s "../../../unity/$h" "$dest/include/$h"
done

# The series edits Makefile.am: regenerate upstream's build files.
command -v autoreconf >/dev/null 2>&1 || die "autoreconf not found" \
  "install autoconf, automake and libtool (tools/setup-debian.sh does)"
(cd "$dest" && autoreconf -fi > "$work/autoreconf.log" 2>&1) || {
  grep -v 'obsolete\|autoupdate\|expanded from\|the top level' \
    "$work/autoreconf.log" | sed 's/^/  autoreconf: /' >&2
  rm -rf "$dest"
  die "autoreconf failed in the patched bdwgc tree"
}

printf '%s\n' "$want_stamp" > "$dest/.gcacc-stamp"
say "bdwgc $version unpacked and patched in bdwgc/upstream"
