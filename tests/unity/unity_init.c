/*
 * unity_init.c: linked into the fork's own test programs (gctest and
 * the rest) when tests/unity/fork_tests.sh runs them on Unity's fork.
 *
 * Before main, as il2cpp's GarbageCollector::Initialize would:
 *   - GC_INIT();
 *   - register the program's data segment as a root.  Unity's define set
 *     has GC_DONT_REGISTER_MAIN_STATIC_DATA (il2cpp registers its own
 *     roots), and gctest keeps objects in static data: unscanned, they
 *     are collected ("List reversal produced incorrect list").  This is
 *     exactly the range the collector itself would register without the
 *     define (Linux: __data_start to _end), so the library keeps Unity's
 *     exact define set;
 *   - with GCACC_UNITY_ACC, switch accounting on through the C API (the
 *     set has NO_GETENV: GC_ACC_ENABLE cannot be read), and start a dump
 *     to the file named by GCACC_UNITY_DUMP if it is set (the test
 *     program, unlike the collector, may read its environment).
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>

extern char __data_start[], _end[];

#ifdef GCACC_UNITY_ACC
/* The collector's DONT_USE_ATEXIT leaves the dump open at exit: close  */
/* it, so that its last records reach the file.                        */
static void gcacc_unity_stop(void)
{
  (void)GC_acc_dump_stop();
}
#endif

__attribute__((constructor)) static void gcacc_unity_init(void)
{
  GC_INIT();
  GC_add_roots(__data_start, _end);
#ifdef GCACC_UNITY_ACC
  {
    const char *dump = getenv("GCACC_UNITY_DUMP");

    if (GC_acc_enable(1) != GC_SUCCESS) {
      fprintf(stderr, "unity_init: GC_acc_enable(1) failed\n");
      exit(1);
    }
    if (dump != NULL && GC_acc_dump_start(dump) != GC_SUCCESS) {
      fprintf(stderr, "unity_init: GC_acc_dump_start(%s) failed\n", dump);
      exit(1);
    }
    if (dump != NULL) atexit(gcacc_unity_stop);
  }
#endif
}
