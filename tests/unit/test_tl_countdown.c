/* SPDX-License-Identifier: MIT */
/*
 * test_tl_countdown.c: the lists' countdowns of the copy of mode 1
 * (accounting/counters.c, "the lists' countdowns").
 *
 * A pop of the copy of mode 1 lowers one word of its list by 2^30 (one
 * object) plus its request; the due hook folds what the word counted
 * into the list's counts and sets the word again, to the list's next
 * sample point, or to a cap (GC_acc_test_tl_cap pops) when none falls
 * within it.  Checked, on one thread, each run from one list, with the
 * books exact after each run:
 *  - at one sample per 64 bytes (a sample every pop or two: the countdown
 *    due at nearly every pop), and per 4 KiB (every hundred or so);
 *  - with the profile switched to full and back while the list is part
 *    used (the word left as it was, the pops between counted by the
 *    flags' copy);
 *  - at one sample per 2^62 bytes, on a list not popped before, 2 * cap
 *    + 3 pops: the countdown runs out at the cap twice, and takes no
 *    sample there (a real one would come once in some 10^11 runs);
 *  - last, GC_acc_set_next_type's type taken by the next allocation only
 *    (a typed object, then an untyped one from another list), on this
 *    thread, whose first call switches mode 1 to the typed copy
 *    (tlflags.c, gca_tl_typed; GC_acc_test_tl_copy 3 before, 4 after),
 *    its lists' words part used, then on a new thread; the books exact
 *    across the switch, and after it: runs at each rate, with the full
 *    profile between, and on a new thread whose countdown is rarely due
 *    (its inline counts read by the sums: counters.c, "the countdown's
 *    promise").
 * A decode off by one (the sample point a pop early or late, the request
 * a byte off at each fold) changes the counts.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"
#include "countdown_runs.h"

#include <pthread.h>
#include <stdlib.h>

GC_API GC_word GC_CALL GC_acc_test_samples_taken(void);
GC_API GC_word GC_CALL GC_acc_test_tl_cap(void);
GC_API int GC_CALL GC_acc_test_copies(void);
GC_API int GC_CALL GC_acc_test_tl_copy(void);

/* GC_acc_set_next_type's type goes to the next allocation only: each */
/* of N rounds gives it (*arg, a type of its own) to a 32-byte object   */
/* (list 2), then allocates a 64-byte one (list 4) untyped, both        */
/* sampled often (one sample per 64 bytes: 39% and 63% of them), the    */
/* books exact.  The type's estimated bytes, once a collection counted  */
/* the samples, are the typed objects' (N * 32 = 64000, sd some 1800:   */
/* at most 84000); untyped samples taking the type would add some       */
/* 128000.                                                               */
static char type_t, type_u;

static void *typed_then_not(void *arg)
{
  struct GC_acc_group_stats_s st;
  struct GC_acc_stats_s b, a;
  unsigned long long req = 0;
  unsigned i;

  snap(&b);
  for (i = 0; i < 2000; i++) {
    GC_acc_set_next_type((GC_word)arg);
    sink = GC_MALLOC_ATOMIC(17 + i % 15);
    sink = GC_MALLOC_ATOMIC(49 + i % 15);
    req += 17 + i % 15 + 49 + i % 15;
  }
  snap(&a);
  CHECK_EQ(a.allocs - b.allocs, 4000);
  CHECK_EQ(a.alloc_req_bytes - b.alloc_req_bytes, req);
  CHECK_EQ(GC_acc_test_tl_copy(), 4);
  GC_gcollect();
  CHECK_EQ(GC_acc_get_type_stats((GC_word)arg, &st, sizeof(st)),
           sizeof(st));
  CHECK(st.alloc_bytes > 44000 && st.alloc_bytes < 84000);
  if (st.alloc_bytes <= 44000 || st.alloc_bytes >= 84000)
    fprintf(stderr, "  the type's estimated bytes: %lu\n",
            (unsigned long)st.alloc_bytes);
  return NULL;
}

/* The switch: the lists' words of lists 2 and 4 part used (their     */
/* pops then in the words, the typed copy's in the lists' counts: the  */
/* sums read both), then the first type set.                            */
static void *switch_thread(void *arg)
{
  run("lists 2 and 4 part used", 1, 53, 8);
  run("list 4 part used", 3, 29, 9);
  CHECK_EQ(GC_acc_test_tl_copy(), 3);
  return typed_then_not(&type_t);
}

/* A thread that pops only in the typed copy (its countdown rarely due  */
/* at 2^62 bytes a sample): exact books.                                 */
static void *typed_thread_runs(void *arg)
{
  run("a new thread, typed copy", 1, 20011, 10);
  run("a new thread, another list", 3, 3001, 11);
  return arg;
}

int main(void)
{
  GC_word cap, taken;
  pthread_t th;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  /* The copy of mode 1 runs (-1: a series without the copies).         */
  if (GC_acc_test_copies() < 0) {
    fprintf(stderr, "no copies of the fast paths: nothing to check\n");
    return 77;
  }
  CHECK_EQ(GC_acc_test_copies(), 1);
  cap = GC_acc_test_tl_cap();
  CHECK(cap > 1000);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 64), GC_SUCCESS);
  taken = GC_acc_test_samples_taken();
  run("one sample per 64 bytes", 1, 4000, 2);
  /* At 32 bytes an object, some 39% of the pops are samples (1574 of  */
  /* 4000, sd 31): at least 1000 (a bound 18 sd off: never missed).     */
  CHECK(GC_acc_test_samples_taken() - taken >= 1000);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  run("one sample per 4 KiB", 1, 100003, 3);
  run("part of a countdown", 1, 77, 4);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  run("full profile between", 1, 1001, 5);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  run("sampled again", 1, 30011, 6);
  /* A list not popped yet (its countdown first drawn at this rate),   */
  /* of one granule, in a heap with room for all its objects and no     */
  /* collection: a refill that finds no free block makes one object as  */
  /* a last attempt, whose pop is due (a fresh draw, no cap reached).   */
  GC_disable();
  CHECK(GC_expand_hp((size_t)(2 * cap + 64) * 16 + ((size_t)8 << 20)));
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED,
                              (size_t)1 << 62), GC_SUCCESS);
  taken = GC_acc_test_samples_taken();
  run("first pops", 0, 10, 0);
  run("across two caps", 0, 2 * (unsigned long)cap + 3, 1);
  CHECK_EQ(GC_acc_test_samples_taken(), taken);
  GC_enable();
  /* Last: a type set once, mode 1 runs the typed copy from then on.   */
  /* On new threads, whose countdowns are drawn at this rate (this      */
  /* one's was drawn at 2^62 bytes, and runs on until its next sample). */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 64), GC_SUCCESS);
  CHECK_EQ(pthread_create(&th, NULL, switch_thread, NULL), 0);
  CHECK_EQ(pthread_join(th, NULL), 0);
  CHECK_EQ(GC_acc_test_tl_copy(), 4);
  CHECK_EQ(GC_acc_test_copies(), 1);
  CHECK_EQ(pthread_create(&th, NULL, typed_then_not, &type_u), 0);
  CHECK_EQ(pthread_join(th, NULL), 0);
  run("after a type was set", 1, 10007, 7);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  run("typed, one sample per 4 KiB", 1, 30011, 12);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_tl_copy(), 2);
  run("typed, full profile between", 1, 1001, 13);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, (size_t)1 << 62),
           GC_SUCCESS);
  CHECK_EQ(GC_acc_test_tl_copy(), 4);
  run("typed, sampled again", 1, 30011, 14);
  CHECK_EQ(pthread_create(&th, NULL, typed_thread_runs, NULL), 0);
  CHECK_EQ(pthread_join(th, NULL), 0);
  CHECK_EQ(GC_acc_test_tl_copy(), 4);
  return check_done("test_tl_countdown");
}
