#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch_errors.sh: bdwgc/fetch.sh fails clearly.
#   - a tarball with the wrong sha256: names the file and both sums;
#   - a patch that does not apply: names the patch and shows the hunk;
#   - no source at all: names all three ways to supply the tarball.
# Works on a scratch copy of bdwgc/ (PIN, fetch.sh, patches), never on
# the real tree.
set -u
: "${srcdir:=.}"
cache=${GCACC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gcacc}
tarball="$cache/$(sed -n 's/^tarball=//p' "$srcdir/bdwgc/PIN")"
fails=0
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-fetchtest.XXXXXX")
trap 'rm -rf "$t"' EXIT

scratch() {
  rm -rf "$t/bdwgc" && mkdir -p "$t/bdwgc/patches"
  cp "$srcdir/bdwgc/PIN" "$srcdir/bdwgc/fetch.sh" "$t/bdwgc/"
  cp "$srcdir"/bdwgc/patches/* "$t/bdwgc/patches/"
}
expect() { # description, pattern, file
  if grep -q -- "$2" "$3"; then :; else
    echo "FAIL: $1: no '$2' in output:" >&2; sed 's/^/  | /' "$3" >&2
    fails=$((fails + 1))
  fi
}

# 1. wrong sha256
scratch
echo "not a tarball" > "$t/gc-wrong.tar.gz"
if BDWGC_TARBALL="$t/gc-wrong.tar.gz" GCACC_CACHE_DIR="$t/cache" \
   sh "$t/bdwgc/fetch.sh" > "$t/out1" 2>&1; then
  echo "FAIL: a wrong sha256 was accepted" >&2; fails=$((fails + 1))
fi
expect "wrong sha256" "sha256 mismatch" "$t/out1"
expect "wrong sha256" "gc-wrong.tar.gz" "$t/out1"

# 2. a patch that does not apply
if [ -f "$tarball" ]; then
  scratch
  p=$(sed -n '1p' "$t/bdwgc/patches/series")
  # Corrupt one context line of the first hunk touching malloc.c.
  awk 'BEGIN{d=0} /^\+\+\+ b\/malloc.c/{m=1} m && !d && /^ .*GC_bytes_allocd/ \
       {sub(/GC_bytes_allocd/, "GC_bytes_allocated"); d=1} {print}' \
    "$srcdir/bdwgc/patches/$p" > "$t/bdwgc/patches/$p"
  if BDWGC_TARBALL="$tarball" GCACC_CACHE_DIR="$t/cache" \
     sh "$t/bdwgc/fetch.sh" > "$t/out2" 2>&1; then
    echo "FAIL: a patch that does not apply was accepted" >&2
    fails=$((fails + 1))
  fi
  expect "bad patch" "$p does not apply" "$t/out2"
  expect "bad patch" "failing hunk #[0-9]* of malloc.c" "$t/out2"
  expect "bad patch" "GC_bytes_allocated" "$t/out2"
else
  echo "FAIL: no cached tarball at $tarball (configure puts it there)" >&2
  fails=$((fails + 1))
fi

# 3. no source at all: no BDWGC_TARBALL, empty cache, no apt-get on PATH.
scratch
mkdir -p "$t/bin"
for tool in sh sed awk cat cut grep tar gzip sha256sum mktemp rm mkdir mv cp \
            patch id dirname basename head tail printf; do
  w=$(command -v "$tool") && ln -sf "$w" "$t/bin/$tool"
done
if env -u BDWGC_TARBALL PATH="$t/bin" GCACC_CACHE_DIR="$t/empty" \
   sh "$t/bdwgc/fetch.sh" > "$t/out3" 2>&1; then
  echo "FAIL: fetch succeeded with no source" >&2; fails=$((fails + 1))
fi
expect "no source" "BDWGC_TARBALL=/path/to/" "$t/out3"
expect "no source" "put it in the cache" "$t/out3"
expect "no source" "Debian's source package" "$t/out3"

[ "$fails" -eq 0 ] && echo "fetch errors: 3 cases, all clear"
exit "$fails"
