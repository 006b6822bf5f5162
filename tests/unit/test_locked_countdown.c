/* SPDX-License-Identifier: MIT */
/*
 * test_locked_countdown.c: the rows' countdowns of GC_malloc_kind_global's
 * copy of mode 1 (accounting/counters_due.c, "the rows' countdowns").
 *
 * That copy counts each pop into one word of its lock-held row (kind,
 * granules), 2^30 an object plus its request; the due hook folds the
 * word into the row's counts, samples the object if it is one and sets
 * the word again, to the row's next sample point or to its cap
 * (GC_acc_test_locked_cap pops), in builds without thread-local
 * allocation (IL2CPP's: tests/unity/unit.sh runs this on Unity's fork;
 * elsewhere it skips).  Checked, the books exact after each run:
 *  - at one sample per 64 bytes (every pop a sample, or nearly) and per
 *    4 KiB, with the samples' count within 16 sd of its expectation
 *    (each pop a sample with probability 1 - exp(-size / rate));
 *  - the profile switched to full and back with rows part used;
 *  - a change of rate redraws every row: rows drawn at one sample per
 *    2^62 bytes (so at their cap), then one per 64 bytes: the next pops
 *    are samples (without the redraw, none for a cap's worth of pops);
 *  - at one per 2^62 bytes, 2 * cap + 3 pops of 2 KiB objects: the
 *    countdown runs out at its cap twice and takes no sample there; at
 *    one per GiB, draws past the cap taken as the cap;
 *  - two threads popping one row at once;
 *  - last, a type set: mode 1 runs the copy of mode 2 from then on
 *    (GC_acc_test_global_copy 2), the type goes to the next allocation
 *    only, and the books stay exact.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"
#include "countdown_runs.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

GC_API GC_word GC_CALL GC_acc_test_samples_decided(void);
GC_API GC_word GC_CALL GC_acc_test_locked_cap(GC_word lg);
GC_API int GC_CALL GC_acc_test_global_copy(void);
GC_API GC_word GC_CALL GC_acc_test_locked_draw(int k, GC_word lg);

/* run's n pops; the samples they took (or dropped, the table full:    */
/* the sampling's decisions).                                             */
static GC_word run_samples(const char *label, unsigned g, unsigned long n,
                           unsigned long seed)
{
  GC_word decided = GC_acc_test_samples_decided();

  run(label, g, n, seed);
  return GC_acc_test_samples_decided() - decided;
}

/* The samples of n pops of bytes each at one per rate: within 16 sd   */
/* of n * p (never missed by chance).                                   */
static void check_samples(const char *label, GC_word got, unsigned long n,
                          double bytes, double rate)
{
  double p = 1 - exp(-bytes / rate), m = n * p;
  double sd = sqrt(n * p * (1 - p)), lo = m - 16 * sd - 1,
         hi = m + 16 * sd + 1;

  if (!CHECK((double)got >= lo && (double)got <= hi))
    fprintf(stderr, "  %s: %lu samples, expected %.0f (%.0f to %.0f)\n",
            label, (unsigned long)got, m, lo, hi);
}

/* The rows redrawn at a change of rate: 100 pops at one sample per 64 */
/* bytes, all samples but some 1 in 30,000.  On a new thread: the pops  */
/* that refill the free list (one in six here) count down the thread's */
/* own countdown, which a change of rate redraws only when it runs out */
/* (this one's was drawn at 2^62 bytes a sample).                       */
static void *redrawn(void *arg)
{
  GC_word got = run_samples("redrawn at 64 bytes", 40, 100, 9);

  check_samples("redrawn at 64 bytes", got, 100, 656, 64);
  return arg;
}

static pthread_barrier_t bar;

/* Made (their own allocations done) before the counts are read, and   */
/* done before they are read again: three waits.                         */
static void *two_threads(void *arg)
{
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  pops(40, 50000, (unsigned long)(GC_word)arg);
  pthread_barrier_wait(&bar);
  return NULL;
}

/* A type for the next allocation: a 656-byte object typed, then a    */
/* 1008-byte one not, 2000 times, at one sample per 64 bytes (every   */
/* object a sample but some 1 in 30,000): the type's estimated bytes  */
/* are the typed objects' (1,312,000 to 1,344,000), where untyped ones */
/* taking it would add some 2,000,000.  On a new thread: this one's    */
/* own countdown (that of the copy of mode 2, which now runs) was      */
/* drawn at 2^62 bytes a sample, and runs on until its next sample.     */
static char type_t;

static void *typed(void *arg)
{
  struct GC_acc_stats_s b, a;
  struct GC_acc_group_stats_s st;
  unsigned long long req = 0;
  unsigned i;

  snap(&b);
  for (i = 0; i < 2000; i++) {
    GC_acc_set_next_type((GC_word)&type_t);
    sink = GC_MALLOC_ATOMIC(656 + i % 15);
    sink = GC_MALLOC_ATOMIC(1000 + i % 15);
    req += 656 + i % 15 + 1000 + i % 15;
  }
  snap(&a);
  CHECK_EQ(a.allocs - b.allocs, 4000);
  CHECK_EQ(a.alloc_req_bytes - b.alloc_req_bytes, req);
  CHECK_EQ(GC_acc_test_global_copy(), 2);
  GC_gcollect();
  CHECK_EQ(GC_acc_get_type_stats((GC_word)&type_t, &st, sizeof(st)),
           sizeof(st));
  if (!CHECK(st.alloc_bytes >= 1250000 && st.alloc_bytes <= 1400000))
    fprintf(stderr, "  the type's estimated bytes: %lu\n",
            (unsigned long)st.alloc_bytes);
  run("typed, after", 40, 10007, 11);
  return arg;
}

int main(void)
{
  struct GC_acc_stats_s b, a;
  unsigned long long req;
  GC_word cap, got;
  pthread_t th[2];
  unsigned i;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  /* The rows' words count only where GC_malloc_kind_global pops every */
  /* small object (no thread-local allocation: Unity's fork,             */
  /* tests/unity/unit.sh runs this there).                               */
  if (GC_acc_test_global_copy() < 0 || sizeof(void *) != 8
      || 0 == GC_acc_test_locked_cap(41)) {
    fprintf(stderr, "GC_malloc_kind_global's copy does not count in the"
            " rows' words here (thread-local allocation), or not a 64-bit"
            " target: nothing to check\n");
    return 77;
  }
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 64), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_global_copy(), 3);
  /* 656 to 670 bytes (41 granules): a sample at every pop but some 1  */
  /* in 30,000.                                                          */
  got = run_samples("one sample per 64 bytes", 40, 4000, 2);
  check_samples("one sample per 64 bytes", got, 4000, 656, 64);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  got = run_samples("one sample per 4 KiB", 40, 100003, 3);
  check_samples("one sample per 4 KiB", got, 100003, 656, 4096);
  got = run_samples("another row", 70, 20011, 4);
  check_samples("another row", got, 20011, 1136, 4096);
  run("part of a countdown", 40, 77, 5);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_global_copy(), 2);
  run("full profile between", 40, 1001, 6);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_global_copy(), 3);
  run("sampled again", 40, 30011, 7);

  /* Rows drawn at 2^62 bytes a sample (their caps), then at 64: every */
  /* row redrawn, the next pops samples.                                */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, (size_t)1 << 62),
           GC_SUCCESS);
  CHECK_EQ(run_samples("drawn at 2^62 bytes", 40, 10, 8), 0);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 64), GC_SUCCESS);
  CHECK_EQ(pthread_create(&th[0], NULL, redrawn, NULL), 0);
  CHECK_EQ(pthread_join(th[0], NULL), 0);

  /* Across two caps of the row of 127 granules (2032 to 2046 bytes).  */
  cap = GC_acc_test_locked_cap(127);
  CHECK(cap > 1000 && cap * 2 * 127 * 16 < ((GC_word)1 << 30));
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, (size_t)1 << 62),
           GC_SUCCESS);
  CHECK_EQ(run_samples("across two caps", 126,
                       2 * (unsigned long)cap + 3, 10), 0);
  /* Draws past a row's cap are taken as the cap (the requests' sum     */
  /* would pass 2^30 and borrow, were they not): 64 draws for 2 KiB      */
  /* objects at 1.75 GiB a sample, each 1 + E * 917,504 pops, a third of */
  /* them between the row's cap (262,143) and GCA_TL_CAP (1,342,177,     */
  /* where the draw itself says "none").                                 */
  {
    void *p = GC_MALLOC_ATOMIC(2040);
    GC_word lg = GC_size(p) / 16, d, below = 0;
    int tries;

    cap = GC_acc_test_locked_cap(lg);
    for (i = 0; i < 64; i++) {
      CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED,
                                  (size_t)7 << 28), GC_SUCCESS);
      /* Due: a draw (a pop that refills the free list, two objects a   */
      /* block, counts the thread's countdown instead).                  */
      for (d = 0, tries = 0; 0 == d && tries < 4; tries++) {
        sink = GC_MALLOC_ATOMIC(2040);
        d = GC_acc_test_locked_draw(0, lg);
      }
      if (!CHECK(d >= 1 && d <= cap))
        fprintf(stderr, "  a draw of %lu pops, the cap %lu\n",
                (unsigned long)d, (unsigned long)cap);
      below += d < cap;
    }
    /* Some 24 of the 64 below the cap (sd 3.9): at least 1.             */
    CHECK(below >= 1);
  }

  /* Two threads on one row at once.                                    */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  CHECK_EQ(pthread_barrier_init(&bar, NULL, 3), 0);
  req = 0;
  for (i = 0; i < 2; i++) {
    unsigned long j;

    for (j = 0; j < 50000; j++) req += 16 * 40 + 1 + (j * 7 + i) % 15;
    CHECK_EQ(pthread_create(&th[i], NULL, two_threads, (void *)(GC_word)i),
             0);
  }
  pthread_barrier_wait(&bar);
  snap(&b);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  snap(&a);
  for (i = 0; i < 2; i++) CHECK_EQ(pthread_join(th[i], NULL), 0);
  CHECK_EQ(a.allocs - b.allocs, 100000);
  CHECK_EQ(a.alloc_req_bytes - b.alloc_req_bytes, req);

  /* Last, a type set (on a new thread): mode 1 runs the copy of mode  */
  /* 2 from then on, here too.                                           */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 64), GC_SUCCESS);
  CHECK_EQ(pthread_create(&th[0], NULL, typed, NULL), 0);
  CHECK_EQ(pthread_join(th[0], NULL), 0);
  CHECK_EQ(GC_acc_test_global_copy(), 2);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 4096), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_global_copy(), 2);
  run("typed, one sample per 4 KiB", 40, 30011, 12);
  return check_done("test_locked_countdown");
}
