/* SPDX-License-Identifier: MIT */
/*
 * allocloop.c: the allocation fast path alone, timed in the process.
 *
 *   allocloop [-n OBJECTS]          (default 20000000)
 *
 * Allocates OBJECTS small objects (GC_malloc of 24 to 80 bytes, cycling
 * through 8 sizes) and keeps none, so every collection frees everything
 * and the collector's block allocator splits and merges free blocks all
 * the time.  Prints the time per object of the loop (after a warm-up of
 * 100,000 objects) and the number of collections.  Run it with
 * GC_INITIAL_HEAP_SIZE to fix the collection schedule.  bench/alloc-ratios.sh
 * compares the builds with it.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *volatile sink;

static double now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  long n = 20000000, i;
  double t0, t1;

  if (argc == 3 && strcmp(argv[1], "-n") == 0) {
    n = atol(argv[2]);
  } else if (argc != 1) {
    fprintf(stderr, "usage: allocloop [-n OBJECTS]\n");
    return 2;
  }
  if (n <= 0) {
    fprintf(stderr, "allocloop: -n wants a positive number\n");
    return 2;
  }
  GC_INIT();
  for (i = 0; i < 100000; i++) sink = GC_malloc(24);
  t0 = now_ns();
  for (i = 0; i < n; i++) sink = GC_malloc(24 + (size_t)(i & 7) * 8);
  t1 = now_ns();
  printf("allocloop objects=%ld ns_per_object=%.2f collections=%lu\n", n,
         (t1 - t0) / (double)n, (unsigned long)GC_get_gc_no());
  return 0;
}
