#!/bin/sh
# SPDX-License-Identifier: MIT
# tl_no_record.sh: the thread-local fast path keeps no frame record.
#
# In gcc's one-file build (extra/gc.c) only the allocation paths that
# can stand below a hook taking a stack keep frame records
# (GCA_FRAME_RECORDS_BEGIN in accounting/gca_hooks.h).  GC_malloc_kind,
# every small allocation's path, reaches the hooks by tail calls only,
# so it needs none, and a record there costs every allocation a push, a
# move and a pop with accounting off (docs/design.md, "The thread-local
# path without a record").  This reads the built libgc.so.1 (x86-64):
# the regions must be in effect (GC_generic_malloc_many has a record,
# GC_mark_from none), and then GC_malloc_kind must have none.  Other
# targets, compilers and builds with frame pointers everywhere (clang,
# one object per file) are skipped (77), saying why.
set -eu
lib=bdwgc/upstream/.libs/libgc.so.1
skip() { echo "SKIP: $*"; exit 77; }
[ "$(uname -m)" = x86_64 ] || skip "not x86-64"
command -v objdump > /dev/null 2>&1 || skip "no objdump (binutils)"
[ -f "$lib" ] || skip "no $lib (static-only build)"
# has_record FUNCTION: its code sets up a frame pointer (mov %rsp,%rbp).
has_record() {
  code=$(objdump -d --no-show-raw-insn --disassemble="$1" "$lib") || {
    echo "FAIL: objdump cannot disassemble $1 in $lib" >&2; exit 1; }
  case $code in
    *"<$1>:"*) ;;
    *) echo "FAIL: no function $1 in $lib" >&2; exit 1 ;;
  esac
  printf '%s\n' "$code" | grep -q 'mov *%rsp,%rbp'
}
has_record GC_mark_from && skip "frame pointers everywhere (not gcc's one-file build)"
has_record GC_generic_malloc_many ||
  skip "no frame-record regions in this build (accounting compiled out?)"
if has_record GC_malloc_kind; then
  echo "FAIL: GC_malloc_kind keeps a frame record (thread_local_alloc.c" >&2
  echo "  inside a GCA_FRAME_RECORDS region of extra/gc.c?)" >&2
  exit 1
fi
echo "GC_malloc_kind: no frame record; GC_generic_malloc_many: one; GC_mark_from: none"
