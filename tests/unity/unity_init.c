/* SPDX-License-Identifier: MIT */
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
 *     program, unlike the collector, may read its environment);
 *   - for benchmarks (bench/unity-instr.sh), which need the same
 *     collections in every build and cannot set GC_INITIAL_HEAP_SIZE
 *     (NO_GETENV): GCACC_UNITY_HEAP=bytes grows the heap to that size
 *     first (GC_expand_hp), and with accounting, GCACC_UNITY_TAGS=0
 *     turns object tags off (counting only), GCACC_UNITY_PROFILE=n sets
 *     the profile GC_ACC_PROFILE_* n (GC_acc_set_profile, the default
 *     mean: 1 is the sampled profile, the default where the environment
 *     is read) and GCACC_UNITY_WORD0=1 types ptrfree and normal objects
 *     by word 0, as IL2CPP's are.
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
  const char *heap = getenv("GCACC_UNITY_HEAP");

  GC_INIT();
  GC_add_roots(__data_start, _end);
  if (heap != NULL && GC_expand_hp((size_t)strtoul(heap, NULL, 10)) == 0) {
    fprintf(stderr, "unity_init: GC_expand_hp(%s) failed\n", heap);
    exit(1);
  }
#ifdef GCACC_UNITY_ACC
  {
    const char *dump = getenv("GCACC_UNITY_DUMP");
    const char *tags = getenv("GCACC_UNITY_TAGS");
    const char *word0 = getenv("GCACC_UNITY_WORD0");
    const char *profile = getenv("GCACC_UNITY_PROFILE");

    if (tags != NULL && GC_acc_set_tags(atoi(tags)) != GC_SUCCESS) {
      fprintf(stderr, "unity_init: GC_acc_set_tags(%s) failed\n", tags);
      exit(1);
    }
    if (profile != NULL
        && GC_acc_set_profile(atoi(profile), 0) != GC_SUCCESS) {
      fprintf(stderr, "unity_init: GC_acc_set_profile(%s) failed\n",
              profile);
      exit(1);
    }
    if (word0 != NULL && atoi(word0) != 0)
      GC_acc_set_first_word_type_kinds((1u << 0) | (1u << 1));

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
