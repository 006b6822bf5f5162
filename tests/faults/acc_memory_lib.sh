# SPDX-License-Identifier: MIT
# acc_memory_lib.sh: the bound on accounting's own memory, in one place
# for the tests that hold it (sourced: tests/faults/acc_memory.sh, the C
# test programs; tests/real/real_programs.sh, Guile and ECL).  In a run
# that writes a dump, the peak of the records' acc_memory_bytes is at
# most the larger of 10% of their peak heap.heap_bytes and
# acc_memory_floor.
#
# The floor is what a program with a heap of a few hundred KB keeps
# whatever its heap: some 20 to 30 KiB of tables (the locked rows, 2 KiB
# a kind, the row index and the rows of the pairs in use), 10 KiB of
# callsite tables, a page or two of counters a thread (threads8: 64 KiB
# for its eight), and the type tables' first pages.  It was 512 KiB
# while every kind took some 30 KiB of rows (issue 33, item 4; Guile's
# alloc.scm, 2.9 MB, read 16.6% under full), and is now below 10% of
# that heap: alloc.scm is held to 10%.
acc_memory_floor=262144

# acc_memory_limit HEAP: prints the bound for a peak heap of HEAP bytes.
acc_memory_limit() {
  if [ "$(($1 / 10))" -gt "$acc_memory_floor" ]; then
    echo "$(($1 / 10))"
  else
    echo "$acc_memory_floor"
  fi
}
