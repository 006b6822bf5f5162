/*
 * dumpload.c: a program that writes a dump of a known size, for the
 * fault tests (tests/faults/dump_targets.sh).
 *
 *   dumpload RECORDS   allocates a little and writes RECORDS snapshot
 *                      records (GC_acc_record_now), a collection every
 *                      50, with the dump GC_ACC_DUMP names
 *
 * Linked with the test library, a static archive (no libtool wrapper
 * script between the test's ulimit and this program), prints "done RECORDS" when its work is
 * over, before exit stops the dump.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[64];

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000, i;
  int j;

  GC_INIT();
  for (i = 0; i < n; i++) {
    for (j = 0; j < 64; j++)
      keep[j] = GC_MALLOC((size_t)(16 + 16 * ((i + j) % 40)));
    if (i % 50 == 0) GC_gcollect();
    (void)GC_acc_record_now();
  }
  printf("done %ld\n", n);
  fflush(stdout);
  return 0;
}
