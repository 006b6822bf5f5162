/* SPDX-License-Identifier: MIT */
/*
 * test_profile_switch.c: the full profile tags every object, and the
 * sampled one samples at its rate, however often the profile changes
 * under threads that allocate.
 *
 * In the full profile a thread's thread-local pops are counted inline,
 * as in the sampled one, and reach the tag through a countdown kept
 * always due (counters.c, hooks.c): a thread's pops carry state over
 * from one profile to the next.  Four threads allocate small objects
 * (thread-local lists, pointer-holding and atomic) with an explicit type
 * per thread and phase while the main thread switches profiles between
 * phases:
 *   A full: every object carries its type's tag the moment it is made,
 *     and after a collection each type counts exactly its objects;
 *   B sampled at 4 KiB: each type's estimated allocated bytes within
 *     the bound of tests/stat_bound.h of the truth, from the thread's
 *     objects and the rate, that a right sampler passes but once in
 *     10^7 runs (about 1,000 samples a type: some 20%; a countdown left
 *     always due by the full profile would sample every object and
 *     overestimate some twentyfold, one never due would give nothing);
 *   C full again: as A;
 *   D the main thread switches among full, sampled and off 300 times
 *     while the threads allocate (nothing checked but survival);
 *   E full: as A.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"
#include "../stat_bound.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTHREADS 4
#define NOBJ 20000
#define SAMPLE_BYTES 4096
#define PHASES 5

static void *volatile keep[NTHREADS][NOBJ / 4];
static pthread_barrier_t bar;
static unsigned long untagged[NTHREADS], wrong[NTHREADS];
static double granted[NTHREADS];
static struct sb_sum sums[NTHREADS];    /* behind each thread's figure   */

/* The type of thread t's objects in phase ph.                           */
static GC_word type_of(int ph, int t)
{
  return (GC_word)(0x10000 * (ph + 1) + 0x100 * (t + 1));
}

static void alloc_phase(int ph, int t, int check)
{
  GC_word type = type_of(ph, t);
  int i;

  granted[t] = 0;
  memset(&sums[t], 0, sizeof(sums[t]));
  for (i = 0; i < NOBJ; i++) {
    size_t lb = 16 + (size_t)((i * 37 + t * 11) % 385);   /* 16..400 */
    void *p;

    GC_acc_set_next_type(type);
    p = (i & 1) ? GC_MALLOC(lb) : GC_MALLOC_ATOMIC(lb);
    if (NULL == p) {
      fprintf(stderr, "test_profile_switch: out of memory\n");
      exit(1);
    }
    granted[t] += (double)GC_size(p);
    sb_add(&sums[t], (double)GC_size(p), SAMPLE_BYTES);
    if (check) {
      GC_word c = 0;
      unsigned s = 0;

      if (!GC_acc_get_object_tag(p, &c, &s)) untagged[t]++;
      else if (c != type) wrong[t]++;
    }
    keep[t][i / 4] = i % 4 == 0 ? p : keep[t][i / 4];
  }
}

static void *worker(void *arg)
{
  int t = (int)(GC_word)arg, ph;

  for (ph = 0; ph < PHASES; ph++) {
    pthread_barrier_wait(&bar);         /* the profile is set            */
    alloc_phase(ph, t, 0 == ph || 2 == ph || 4 == ph);
    pthread_barrier_wait(&bar);         /* the phase is done             */
  }
  return NULL;
}

static struct GC_acc_group_stats_s type_stats(GC_word cookie)
{
  struct GC_acc_group_stats_s s;

  memset(&s, 0, sizeof(s));
  CHECK_EQ(GC_acc_get_type_stats(cookie, &s, sizeof(s)), sizeof(s));
  return s;
}

/* After a full phase: every object tagged with its type when made, and */
/* each type's count exact.                                              */
static void check_full(int ph)
{
  int t;

  GC_gcollect();
  for (t = 0; t < NTHREADS; t++) {
    struct GC_acc_group_stats_s s = type_stats(type_of(ph, t));

    if (!CHECK_EQ(untagged[t], 0) | !CHECK_EQ(wrong[t], 0))
      fprintf(stderr, "  phase %c, thread %d\n", 'A' + ph, t);
    if (!CHECK_EQ(s.alloc_objs, NOBJ))
      fprintf(stderr, "  phase %c, thread %d\n", 'A' + ph, t);
    untagged[t] = wrong[t] = 0;
  }
}

static void check_sampled(int ph)
{
  int t;

  GC_gcollect();
  for (t = 0; t < NTHREADS; t++) {
    struct GC_acc_group_stats_s s = type_stats(type_of(ph, t));
    /* The whole run's chance failure below 1e-7: a quarter a thread.   */
    double bound = sb_bound(&sums[t], SAMPLE_BYTES, 1e-7 / NTHREADS);

    if (!CHECK(fabs((double)s.alloc_bytes - granted[t]) <= bound))
      fprintf(stderr, "  phase %c, thread %d: estimated %lu bytes of "
              "%.0f (bound %.0f)\n", 'A' + ph, t,
              (unsigned long)s.alloc_bytes, granted[t], bound);
  }
}

static void set_profile(int profile)
{
  CHECK_EQ(GC_acc_set_profile(profile, SAMPLE_BYTES), GC_SUCCESS);
}

int main(void)
{
  pthread_t th[NTHREADS];
  struct timespec pause = { 0, 200000 };  /* 0.2 ms                     */
  static const int storm[3] = { GC_ACC_PROFILE_FULL, GC_ACC_PROFILE_SAMPLED,
                                GC_ACC_PROFILE_OFF };
  int t, i;

  unsetenv("GC_ACC_DUMP");
  GC_INIT();
  GC_TEST_ROOT(keep);
  if (GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0) == GC_UNIMPLEMENTED) {
    printf("test_profile_switch: skipped (accounting compiled out)\n");
    return 77;
  }
  GC_acc_enable(1);
  GC_allow_register_threads();
  pthread_barrier_init(&bar, NULL, NTHREADS + 1);
  for (t = 0; t < NTHREADS; t++)
    if (!CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(GC_word)t),
                  0))
      return check_done("test_profile_switch");

  set_profile(GC_ACC_PROFILE_FULL);                     /* A            */
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  check_full(0);

  set_profile(GC_ACC_PROFILE_SAMPLED);                  /* B            */
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  check_sampled(1);

  set_profile(GC_ACC_PROFILE_FULL);                     /* C            */
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  check_full(2);

  pthread_barrier_wait(&bar);                           /* D            */
  for (i = 0; i < 300; i++) {
    set_profile(storm[i % 3]);
    nanosleep(&pause, NULL);
  }
  pthread_barrier_wait(&bar);

  set_profile(GC_ACC_PROFILE_FULL);                     /* E            */
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  check_full(4);

  for (t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  return check_done("test_profile_switch");
}
