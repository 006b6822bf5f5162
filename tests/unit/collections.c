/* SPDX-License-Identifier: MIT */
/*
 * collections.c: N collections (argv[1], default 6), each after some
 * allocation, then prints GC_get_gc_no().  With argv[2] a dump path, the
 * dump is started by GC_acc_dump_start after GC_INIT (its precollection
 * comes before the dump); otherwise GC_ACC_DUMP starts it.  For
 * tests/unit/first_record.sh.
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 6, i, j;

  GC_INIT();
  if (argc > 2 && GC_acc_dump_start(argv[2]) != GC_SUCCESS) {
    fprintf(stderr, "collections: cannot start the dump %s\n", argv[2]);
    return 2;
  }
  for (i = 0; i < n; i++) {
    for (j = 0; j < 1000; j++) (void)GC_MALLOC(64);
    GC_gcollect();
  }
  printf("%lu\n", (unsigned long)GC_get_gc_no());
  return 0;
}
