/* SPDX-License-Identifier: MIT */
/*
 * test_tables_memory.c: the table block (the locked allocations' rows,
 * 2 KiB a kind, and the (kind, class) -> row index, sized for every
 * kind there could be) counts in the accounting memory by the pages in
 * memory, and reading the counts touches only the parts of kinds that
 * exist; the rows themselves are made for the pairs in use only.
 *
 * After a collection, GC_acc_get_stats and GC_acc_get_class_stats (of
 * every kind, also kinds that do not exist) make the API's sum: the
 * accounting memory grows by the locked rows' pages it reads first
 * (before the block was counted: no growth) and by less than 96 KiB
 * (before, the sum zeroed the rows of all 16 kinds and read the locked
 * counts of all: some 150 KiB).  A kind that does not exist reads
 * zeros.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <stdio.h>
#include <unistd.h>

int main(void)
{
  struct GC_acc_stats_s st;
  struct GC_acc_class_stats_s cs;
  GC_word m0, m1;
  long ps = sysconf(_SC_PAGESIZE);
  int i, k;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  for (i = 0; i < 10000; i++) {
    CHECK(GC_MALLOC(16) != NULL);
    CHECK(GC_MALLOC_ATOMIC(48) != NULL);
  }
  GC_gcollect();
  m0 = GC_acc_get_memory_bytes();
  CHECK(GC_acc_get_stats(&st, sizeof(st)) == sizeof(st));
  CHECK(st.allocs >= 20000);
  for (k = 0; k < 16; k++)
    CHECK(GC_acc_get_class_stats(k, 1, &cs, sizeof(cs)) == sizeof(cs));
  CHECK(GC_acc_get_class_stats(15, 1, &cs, sizeof(cs)) == sizeof(cs));
  CHECK_EQ(cs.alloc_objs, 0);
  CHECK_EQ(cs.live_objs, 0);
  m1 = GC_acc_get_memory_bytes();
  printf("accounting memory %lu before the API's sums, %lu after\n",
         (unsigned long)m0, (unsigned long)m1);
  CHECK(m1 > m0);
  if (4096 == ps) CHECK(m1 - m0 < 96 * 1024);
  return check_done("test_tables_memory");
}
