/* SPDX-License-Identifier: MIT */
/*
 * stackcost.c: what one callsite capture costs, in ns.
 *
 *   bench/stacks/stackcost [ITERATIONS]      (make bench-stacks)
 *
 * Calls GC_acc_capture_site from the bottom of a 24-deep call chain
 * (built with frame pointers), depth 16, and prints ns per call for:
 *   off             stacks off: the sampler's first test only
 *   sample-miss     sample=512k, an unsampled 64-byte allocation (the
 *                   common path of sampling: a countdown and a branch)
 *   all/fp          every call captures: frame-pointer walk + interning
 *                   (per-thread cache hit)
 *   all/libgcc      the same through _Unwind_Backtrace
 * and the same two captures at depth 64.  Captures resolve to one site,
 * so the numbers are unwinding + hashing + one cache probe: the steady
 * state of a program whose call sites are all known.
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(x) __asm__ __volatile__("" : "+r"(x) : : "memory")

static unsigned long iters = 2000000;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

NOINLINE static unsigned loop(size_t bytes)
{
  unsigned long i;
  unsigned acc = 0;

  for (i = 0; i < iters; i++) {
    unsigned r = GC_acc_capture_site(bytes);
    KEEP(r);
    acc += r;
  }
  return acc;
}

/* depth levels of real frames above the loop */
NOINLINE static unsigned chain(int depth, size_t bytes)
{
  unsigned r = depth > 0 ? chain(depth - 1, bytes) : loop(bytes);
  KEEP(r);
  return r;
}

static double measure(size_t bytes)
{
  double t0, t1;

  (void)chain(24, bytes);   /* warm: intern the site, fill caches */
  t0 = now();
  (void)chain(24, bytes);
  t1 = now();
  return (t1 - t0) / (double)iters;
}

int main(int argc, char **argv)
{
  if (argc > 1) iters = strtoul(argv[1], NULL, 10);
  GC_INIT();
  GC_acc_enable(1);
  GC_acc_set_stack_depth(16);

  GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0);
  printf("off                 %7.1f ns/call\n", measure(64));
  GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 524288);
  printf("sample=512k, 64 B   %7.1f ns/call (incl. 1 capture per ~8192)\n",
         measure(64));
  GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0);
  GC_acc_set_unwinder(GC_ACC_UNWIND_FP);
  printf("all, fp, depth 16   %7.1f ns/capture\n", measure(64));
  GC_acc_set_unwinder(GC_ACC_UNWIND_LIBGCC);
  printf("all, libgcc, d 16   %7.1f ns/capture\n", measure(64));
  GC_acc_set_stack_depth(64);
  GC_acc_set_unwinder(GC_ACC_UNWIND_FP);
  printf("all, fp, depth 64   %7.1f ns/capture (chain of 24 + main)\n",
         measure(64));
  GC_acc_set_unwinder(GC_ACC_UNWIND_LIBGCC);
  printf("all, libgcc, d 64   %7.1f ns/capture (chain of 24 + main)\n",
         measure(64));
  return 0;
}
