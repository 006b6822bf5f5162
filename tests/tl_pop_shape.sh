#!/bin/sh
# SPDX-License-Identifier: MIT
# tl_pop_shape.sh: the pop of the copy of mode 1 is three instructions.
#
# The copy of mode 1 of the thread-local fast paths (gca_copy_malloc_kind_cnt,
# gca_copy_gcj_malloc_cnt: gca_hooks.h, GCA_TL_COUNT_COPY_) counts a pop
# and counts its list's countdown down in one word: a lea of the request
# plus 2^30, an add of it to the list's word (in memory, no thread-local
# variable; the word holds the countdown negated) and a jns on its sign
# (gcc may put moves between) (counters.c, "the lists' countdowns").
# Before, the pop added to two words and subtracted from the thread's
# countdown (a %fs: operand).  Checked in the one-file libgc's object.
# x86-64 and gcc only.
set -eu
. "${srcdir:-.}/tests/gc_obj_lib.sh"
gc_obj_has THREAD_LOCAL_ALLOC ||
  { echo "SKIP: no THREAD_LOCAL_ALLOC in this build"; exit 77; }
fns=gca_copy_malloc_kind_cnt
if gc_obj_has GC_GCJ_SUPPORT; then fns="$fns gca_copy_gcj_malloc_cnt"; fi
rc=0
for fn in $fns; do
  res=$(objdump -d --no-show-raw-insn "$o" | awk -v fn="<$fn>:" '
    $NF == fn { f = 1; seen = 1; next }
    f && /^$/ { f = 0 }
    !f || !/^ *[0-9a-f]+:/ { next }
    { sub(/^ *[0-9a-f]+:[ \t]*/, ""); i++ }
    /%fs:/ && /^(sub|add)/ { printf "a thread-local %s; ", $0 }
    /^lea +0x40000000\(/ { lea = i; r = $0; sub(/.*,/, "", r) }
    /^add +%r[a-z0-9]+,0x[0-9a-f]+\(%r[a-z0-9]+\)$/ && lea && i - lea <= 3 {
      s = $0; sub(/^add +/, "", s); sub(/,.*/, "", s)
      if (s == r) { subi = i; next } }
    # gcc may schedule moves and the prefetch (no flags set) before the jns.
    subi && /^jns / { ok++; subi = 0; next }
    subi && !/^(mov|prefetch|lea)/ { subi = 0 }
    END {
      if (!seen) print "missing"
      else if (ok != 1) printf "no lea 0x40000000, add to memory, jns (%d)", ok
    }')
  if [ -n "$res" ]; then
    echo "FAIL: $fn in $o: $res" >&2
    rc=1
  else
    echo "ok: $fn pops with a lea, an add to its list's word and a jns"
  fi
done
exit $rc
