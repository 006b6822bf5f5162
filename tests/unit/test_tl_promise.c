/* SPDX-License-Identifier: MIT */
/*
 * test_tl_promise.c: exact counts from the copy of mode 1 of the
 * thread-local fast paths, which reads no flag (accounting/counters.c,
 * "the countdown's promise").
 *
 * In mode 1 (accounting on, tags off: the sampled profile, or counts
 * alone) a pop is counted inline, into the thread's own lists' counts,
 * whenever the thread's sample countdown is not due, and by the hook when
 * it is.  The sums see the inline counts only once the thread linked them,
 * so a thread must do that before its countdown is first not due: when a
 * draw made on the global path comes before any pop, and when a thread
 * that allocated unregistered (no lists, a countdown drawn) registers and
 * gets lists.  Checked with the books read by another thread while the
 * workers wait, after each phase of exactly N objects per thread (mixed
 * sizes and kinds, mostly the thread-local lists', every eighth beyond
 * them):
 *  - under the sampled profile at its default rate, and at 256 bytes (most
 *    pops then reach the hook), the full profile (the flags' copy), the
 *    profile off (counts alone) and the sampled one again, switched while
 *    the workers wait with part-used lists;
 *  - a thread that allocates before it registers, then from its lists;
 *  - after the workers exit, the totals unchanged (their inline counts
 *    folded into their records, none lost, none twice);
 *  - a countdown made due only to send a pop to the hook takes no sample:
 *    the late thread again, at one sample per 2^62 bytes (a real one
 *    would come once in some 10^13 runs), its first objects on new lists
 *    from the global path (the test library counts the samples).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <pthread.h>
#include <stdlib.h>

GC_API GC_word GC_CALL GC_acc_test_samples_taken(void);

#define THREADS 3
#define N 20000                 /* objects a worker allocates in a phase */
#define PHASES 5

static pthread_barrier_t bar;
static void *volatile sink[THREADS + 1];
static unsigned long long worker_req[THREADS + 1];

static size_t size_of(unsigned i, unsigned t)
{
  unsigned r = i * 11u + t * 5u;

  return i % 8 == 7 ? 400 + (size_t)(r % 624u) : (size_t)(r % 376u);
}

/* Worker t's N objects (alloc_sized); returns their requested bytes. */
static unsigned long long phase(unsigned t)
{
  return alloc_sized(&sink[t], N, size_of, t);
}

static void *worker(void *arg)
{
  unsigned t = (unsigned)(size_t)arg, p;

  for (p = 0; p < PHASES; p++) {
    pthread_barrier_wait(&bar);         /* main set the profile         */
    worker_req[t] = phase(t);
    pthread_barrier_wait(&bar);         /* main reads                   */
  }
  return NULL;
}

static void snap(struct GC_acc_stats_s *s)
{
  CHECK_EQ(GC_acc_get_stats(s, sizeof(*s)), sizeof(*s));
}

/* A thread the collector does not know yet: its first objects come from */
/* the global path (it has no lists), which draws its countdown; then it */
/* registers, and its lists' pops must be counted.                       */
static struct GC_acc_stats_s late_a, late_b, late_c;
static void *late(void *arg)
{
  struct GC_stack_base sb;
  unsigned i;

  (void)arg;
  for (i = 0; i < 64; i++) sink[THREADS] = GC_MALLOC(24 + i % 200);
  snap(&late_a);
  CHECK_EQ(GC_get_stack_base(&sb), GC_SUCCESS);
  /* Registering allocates the collector's own record of the thread.    */
  CHECK_EQ(GC_register_my_thread(&sb), GC_SUCCESS);
  snap(&late_b);
  worker_req[THREADS] = phase(THREADS);
  snap(&late_c);                        /* read by itself, lists part-used */
  CHECK_EQ(GC_unregister_my_thread(), GC_SUCCESS);
  return NULL;
}

int main(void)
{
  static const struct { int profile; size_t bytes; } ph[PHASES] = {
    { GC_ACC_PROFILE_SAMPLED, 0 }, { GC_ACC_PROFILE_SAMPLED, 256 },
    { GC_ACC_PROFILE_FULL, 0 }, { GC_ACC_PROFILE_OFF, 0 },
    { GC_ACC_PROFILE_SAMPLED, 0 }
  };
  pthread_t th[THREADS], lt;
  struct GC_acc_stats_s s0, s1;
  unsigned t, p;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(pthread_barrier_init(&bar, NULL, THREADS + 1), 0);
  for (t = 0; t < THREADS; t++)
    CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(size_t)t), 0);
  for (p = 0; p < PHASES; p++) {
    unsigned long long req = 0;

    CHECK_EQ(GC_acc_set_profile(ph[p].profile, ph[p].bytes), GC_SUCCESS);
    snap(&s0);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);         /* the workers' phase is done   */
    snap(&s1);
    for (t = 0; t < THREADS; t++) req += worker_req[t];
    if (!CHECK_EQ(s1.allocs - s0.allocs, (unsigned long long)THREADS * N)
        | !CHECK_EQ(s1.alloc_req_bytes - s0.alloc_req_bytes, req))
      fprintf(stderr, "  in phase %u (profile %d, %lu bytes)\n", p,
              ph[p].profile, (unsigned long)ph[p].bytes);
  }
  snap(&s0);
  for (t = 0; t < THREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
  snap(&s1);
  CHECK_EQ(s1.allocs, s0.allocs);       /* their exits lost nothing     */
  CHECK_EQ(s1.alloc_req_bytes, s0.alloc_req_bytes);

  /* The late thread, under the sampled profile.                         */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 0), GC_SUCCESS);
  GC_allow_register_threads();
  snap(&s0);
# undef pthread_create                  /* a thread the collector does  */
# undef pthread_join                    /* not start                    */
  CHECK_EQ(pthread_create(&lt, NULL, late, NULL), 0);
  CHECK_EQ(pthread_join(lt, NULL), 0);
  snap(&s1);
  CHECK_EQ(late_a.allocs - s0.allocs, 64);
  CHECK_EQ(late_c.allocs - late_b.allocs, N);
  CHECK_EQ(late_c.alloc_req_bytes - late_b.alloc_req_bytes,
           worker_req[THREADS]);
  CHECK_EQ(s1.allocs, late_c.allocs);
  CHECK_EQ(s1.alloc_req_bytes, late_c.alloc_req_bytes);

  /* No sample from a forced countdown (64-bit targets: a 32-bit mean   */
  /* is too small to rule out a real sample).                            */
  if (sizeof(size_t) >= 8) {
    GC_word taken;

    CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED,
                                ((size_t)-1 >> 2) + 1), GC_SUCCESS);
    taken = GC_acc_test_samples_taken();

    CHECK_EQ(pthread_create(&lt, NULL, late, NULL), 0);
    CHECK_EQ(pthread_join(lt, NULL), 0);
    CHECK_EQ(GC_acc_test_samples_taken() - taken, 0);
  }
  return check_done("test_tl_promise");
}
