#!/bin/sh
# SPDX-License-Identifier: MIT
# refresh-patches.sh [--stat]
#
# Without arguments: regenerates bdwgc/patches/*.patch from a git history
# kept in bdwgc/upstream (one commit per patch, made by you on top of the
# 'upstream' tag), so a refresh is mechanical:
#   cd bdwgc/upstream && git init && git add -A && git commit -m base &&
#   git tag upstream   # then edit, commit one change per patch, and run this
# With --stat: prints the lines each patch adds to and removes from upstream
# files (our own files, under accounting/, are not upstream's).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--stat" ]; then
  tot_a=0; tot_d=0
  for p in $(sed -e '/^#/d' -e '/^$/d' "$here/patches/series"); do
    set -- $(awk '/^\+\+\+ /{f=$2} /^--- /{next}
                  /^\+[^+]/||/^\+$/{a++} /^-[^-]/||/^-$/{d++}
                  END{print a+0, d+0}' "$here/patches/$p")
    printf '%-40s +%s -%s\n' "$p" "$1" "$2"
    tot_a=$((tot_a + $1)); tot_d=$((tot_d + $2))
  done
  echo "lines added to upstream files: $tot_a, removed: $tot_d"
  echo "hook lines (GC_ACC_ON_*): $(cat "$here"/patches/*.patch | grep -c '^+.*GC_ACC_ON_')"
  exit 0
fi
cd "$here/upstream"
git rev-parse -q --verify upstream >/dev/null ||
  { echo "refresh-patches.sh: error: no 'upstream' tag in bdwgc/upstream; see the comment at the top" >&2; exit 1; }
rm -f "$here"/patches/*.patch
git format-patch --no-signature -o "$here/patches" upstream..HEAD |
  xargs -n1 basename > "$here/patches/series"
cat "$here/patches/series"
