#!/bin/sh
# SPDX-License-Identifier: MIT
# gcj_public.sh: GC_gcj_malloc, accounting off, costs no more than
# upstream's own function.
#
# The program calls GC_gcj_malloc itself (nothing inlines it, as GC_malloc
# inlines GC_malloc_kind's jump to its copy), so its jump through the
# pointer to the copy of the mode cost an instruction an object more than
# upstream's function, accounting off (0.5 M on gameloop-gcj, issue 36).
# Mode 0 now jumps to a fourth copy, gca_copy_gcj_malloc_offni
# (gca_hooks.h, GCA_COPY_EXTRA_gcj_malloc), without upstream's test of
# GC_incremental and its call of GC_core_gcj_malloc (tlflags.c leaves it
# once incremental collection may have started).  Checked here in the
# one-file libgc's object: that copy is there, shorter than the copy with
# the test, gca_copy_gcj_malloc_off.  x86-64 and gcc only.
set -eu
. "${srcdir:-.}/tests/gc_obj_lib.sh"
for d in GC_GCJ_SUPPORT THREAD_LOCAL_ALLOC; do
  gc_obj_has $d || { echo "SKIP: no $d in this build"; exit 77; }
done
res=$(objdump -d --no-show-raw-insn "$o" | awk '
  /<gca_copy_gcj_malloc_offni>:$/ { f = "ni"; next }
  /<gca_copy_gcj_malloc_off>:$/ { f = "off"; next }
  f && /^$/ { f = "" }
  f && /^ *[0-9a-f]+:/ && !/nop/ { n[f]++ }
  END {
    if (!n["ni"]) print "no gca_copy_gcj_malloc_offni"
    else if (!n["off"]) print "no gca_copy_gcj_malloc_off"
    else if (n["ni"] >= n["off"])
      printf "gca_copy_gcj_malloc_offni has %d instructions, the copy with the test %d", n["ni"], n["off"]
  }')
if [ -n "$res" ]; then
  echo "FAIL: GC_gcj_malloc's copies in $o: $res" >&2
  echo "  (want a copy without the test of GC_incremental for mode 0," \
       "gca_hooks.h GCA_COPY_EXTRA_gcj_malloc)" >&2
  exit 1
fi
echo "ok: GC_gcj_malloc has its copy without the test of GC_incremental"
