/*
 * env_probe.c: for tests/unit/env_warnings.sh.  Initializes the collector,
 * which reads the GC_ACC_* settings, allocates a little, and prints
 * whether accounting is on; a dump that GC_ACC_DUMP started is closed at
 * exit.  The warnings go to stderr through bdwgc's default warn proc.
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>

int main(void)
{
  int i;

  GC_INIT();
  for (i = 0; i < 1000; i++) (void)GC_MALLOC(32);
  printf("enabled %d\n", GC_acc_is_enabled());
  return 0;
}
