#!/bin/sh
# SPDX-License-Identifier: MIT
# static_data.sh: accounting keeps its tables out of static data.
#
# A libgc's static data (.data and .bss) is a root set: the collector
# scans it, and adds its size (GC_root_size) to the bytes it expects to
# scan when it paces its collections.  Large accounting tables there
# would make a patched build collect on another schedule than upstream's,
# accounting on or off (see docs/design.md).  So they come from the OS
# when first used; this checks that the static data of all accounting
# sources together stays small (the limit below), compiling each alone
# as the per-file build does.  The limit was 64 KiB; with the heap
# growths and the free-block books in gca_tables it is 12 KiB (about 18
# KiB before that move: the test failed then).
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
limit=12288
up_src="$srcdir/bdwgc/upstream"
up_build=bdwgc/upstream
command -v size > /dev/null 2>&1 || {
  echo "FAIL: 'size' (binutils) is needed to read object sizes" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0
report=""
for f in "$srcdir"/accounting/*.c; do
  case $f in */gca_amalgam.c) continue ;; esac
  o="$tmp/$(basename "$f" .c).o"
  if ! $CC -c -O2 -DHAVE_CONFIG_H -I "$up_build/include" -I "$up_src/include" \
       "$f" -o "$o" 2> "$tmp/err"; then
    echo "FAIL: $f does not compile on its own:" >&2
    sed 's/^/  | /' "$tmp/err" | head -20 >&2
    exit 1
  fi
  b=$(size -A "$o" | awk '$1 ~ /^\.(data|bss)($|\.)/ {s += $2} END {print s + 0}')
  total=$((total + b))
  report="$report $(basename "$f")=$b"
done
echo "accounting static data: $total bytes (limit $limit):$report"
if [ "$total" -gt "$limit" ]; then
  echo "FAIL: accounting's static data is $total bytes, over $limit;" \
       "large tables belong in OS memory (gca_os_alloc)" >&2
  exit 1
fi
