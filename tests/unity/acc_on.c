/* SPDX-License-Identifier: MIT */
/*
 * acc_on.c: linked into upstream's test programs by upstream_il2cpp.sh to
 * run them with accounting on in a NO_GETENV build (where GC_ACC_ENABLE=1
 * is not read): switches accounting on before main, and at exit fails the
 * program if it is no longer on (and prints what it counted).
 */
#include "gc.h"
#include "gc_accounting.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static void report(void)
{
  struct GC_acc_stats_s s;
  if (!GC_acc_is_enabled() || GC_acc_get_stats(&s, sizeof(s)) != sizeof(s)) {
    fprintf(stderr, "accounting was not on\n"); exit(1);
  }
  printf("accounting: %lu allocations counted\n", (unsigned long)s.allocs);
}
__attribute__((constructor)) static void on(void)
{
  if (GC_acc_enable(1) != GC_SUCCESS) { fprintf(stderr, "GC_acc_enable failed\n"); exit(1); }
  atexit(report);
}
