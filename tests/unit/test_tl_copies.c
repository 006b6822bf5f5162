/* SPDX-License-Identifier: MIT */
/*
 * test_tl_copies.c: accounting off runs upstream's own fast path, and
 * every pop is still counted once accounting goes on, in any thread.
 *
 * GC_malloc_kind, GC_gcj_malloc and GC_malloc_kind_global are made three
 * times (accounting/gca_hooks.h, GC_ACC_COPIES): upstream's code, which
 * reads no flag nor mode, and copies with the counts, which the public
 * functions jump to while accounting is on.  On Unity's fork (no
 * thread-local allocation) only GC_malloc_kind_global is, and every
 * object of GC_malloc passes through it: tests/unity/unit.sh runs this
 * test there with --copies, where a series without the copies fails.  Checked through the test
 * library's GC_acc_test_copies: the copies without the counts while off,
 * from the start, and again after GC_acc_enable(0); the others while on.
 * GC_generic_malloc is made three times as well: its copy of mode 1,
 * without the frame record, only while sampled stacks are taken by the
 * unwind tables (GC_acc_test_copy_large), across changes of the
 * unwinder and the profile.
 * And the counts across the switches: worker threads fill their free
 * lists while accounting is off, then allocate exactly N objects each
 * (mixed sizes, mostly of the thread-local lists, every eighth beyond
 * them) once it is on, then more once it is off again, then N more once
 * it is on again: the books grow by exactly the objects and requested
 * bytes allocated while on.
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
#include <string.h>

GC_API int GC_CALL GC_acc_test_copies(void);
GC_API int GC_CALL GC_acc_test_gcj_divert(void);
GC_API int GC_CALL GC_acc_test_copy_large(void);

/* GC_generic_malloc's copy in mode 1 (GC_ACC_PROFILE off or sampled):   */
/* the one without the frame record (1) only while sampled stacks are   */
/* taken by the unwind tables, the one with it (2) under the fp walk;  */
/* never another (3: not the one the mode and the unwinder pick).       */
static void check_copy_large_mode1(void)
{
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copy_large(), 2);
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_AUTO), GC_SUCCESS);
# ifdef GC_TEST_TABLE_WALK
    CHECK_EQ(GC_acc_test_copy_large(), 1);  /* auto: the table walk     */
# else
    CHECK(GC_acc_test_copy_large() == 1 || GC_acc_test_copy_large() == 2);
# endif
}

#define THREADS 3
#define N 20000                 /* objects a worker allocates in a phase */

static pthread_barrier_t bar;
static void *volatile sink[THREADS];

/* Mostly the thread-local lists' range (16 to 375 bytes), every      */
/* eighth larger (to 1 KiB, the global path of GC_malloc_kind_global).  */
static size_t size_of(unsigned i, unsigned t)
{
  unsigned r = i * 7u + t * 13u;

  return i % 8 == 7 ? 400 + (size_t)(r % 624u) : 16 + (size_t)(r % 360u);
}

/* Worker t's N objects (alloc_sized); returns their requested bytes. */
static unsigned long long phase(unsigned t)
{
  return alloc_sized(&sink[t], N, size_of, t);
}

static unsigned long long worker_req[THREADS];

static void *worker(void *arg)
{
  unsigned t = (unsigned)(size_t)arg;
  (void)phase(t);                       /* off: lists filled, uncounted */
  pthread_barrier_wait(&bar);           /* main turns accounting on     */
  pthread_barrier_wait(&bar);
  worker_req[t] = phase(t);             /* on: counted                  */
  pthread_barrier_wait(&bar);           /* main reads, turns it off     */
  pthread_barrier_wait(&bar);
  (void)phase(t);                       /* off: not counted             */
  pthread_barrier_wait(&bar);           /* main reads, turns it on      */
  pthread_barrier_wait(&bar);
  worker_req[t] += phase(t);            /* on again: counted            */
  pthread_barrier_wait(&bar);
  return NULL;
}

static void snap(struct GC_acc_stats_s *s)
{
  CHECK_EQ(GC_acc_get_stats(s, sizeof(*s)), sizeof(*s));
}

int main(int argc, char **argv)
{
  pthread_t th[THREADS];
  struct GC_acc_stats_s s0, s1, s2, s3;
  unsigned long long req = 0;
  unsigned t;

  GC_INIT();
  if (GC_acc_test_copies() < 0) {
    /* --copies: the series must make them (Unity's fork since issue 36). */
    if (argc > 1 && 0 == strcmp(argv[1], "--copies")) {
      fprintf(stderr, "FAIL: test_tl_copies: this series makes no copies"
                      " of the fast paths (GC_ACC_COPIES)\n");
      return 1;
    }
    printf("test_tl_copies: this series makes no copies\n");
    return 0;
  }
  if (argc > 1 && 0 == strcmp(argv[1], "--env")) {
    /* tests/copy_large_env.sh: on from the environment (GC_ACC_ENABLE,  */
    /* read before GC_ACC_UNWIND): the unwinder it names picks the copy. */
    const char *u = getenv("GC_ACC_UNWIND");

    CHECK(u != NULL);
    if (u != NULL && 0 == strcmp(u, "fp")) {
      CHECK_EQ(GC_acc_test_copy_large(), 2);
    } else {
      CHECK(GC_acc_test_copy_large() == 1 || GC_acc_test_copy_large() == 2);
    }
    return check_done("test_tl_copies --env");
  }
  CHECK_EQ(GC_acc_test_copies(), 0);    /* off from the start           */
  CHECK_EQ(GC_acc_test_copy_large(), 0);
  /* GC_gcj_malloc's public function runs upstream's body while off,    */
  /* and goes to the copies while on (gca_hooks.h, GC_ACC_GCJ_SLOW).    */
  if (GC_acc_test_gcj_divert() >= 0) CHECK_EQ(GC_acc_test_gcj_divert(), 0);
  CHECK_EQ(pthread_barrier_init(&bar, NULL, THREADS + 1), 0);
  for (t = 0; t < THREADS; t++)
    CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(size_t)t), 0);

  pthread_barrier_wait(&bar);
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copies(), 1);
  if (GC_acc_test_gcj_divert() >= 0) CHECK_EQ(GC_acc_test_gcj_divert(), 1);
  check_copy_large_mode1();
  snap(&s0);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);           /* the on phase is done         */
  snap(&s1);
  for (t = 0; t < THREADS; t++) req += worker_req[t];
  CHECK_EQ(s1.allocs - s0.allocs, (unsigned long long)THREADS * N);
  CHECK_EQ(s1.alloc_req_bytes - s0.alloc_req_bytes, req);

  CHECK_EQ(GC_acc_enable(0), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copies(), 0);
  CHECK_EQ(GC_acc_test_copy_large(), 0);
  /* The unwinder changed while off: the copy of mode 0 stays, and     */
  /* mode 1 then takes the one the unwinder asks for.                  */
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copy_large(), 0);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);           /* the off phase is done        */
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copies(), 1);
  CHECK_EQ(GC_acc_test_copy_large(), 2);        /* fp, from before      */
  check_copy_large_mode1();
  snap(&s2);
  CHECK_EQ(s2.allocs - s1.allocs, 0);   /* nothing counted while off    */
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);           /* the second on phase is done  */
  snap(&s3);
  req = 0;
  for (t = 0; t < THREADS; t++) req += worker_req[t];
  CHECK_EQ(s3.allocs - s2.allocs, (unsigned long long)THREADS * N);
  CHECK_EQ(s3.alloc_req_bytes - s0.alloc_req_bytes
           - (s2.alloc_req_bytes - s1.alloc_req_bytes), req);
  for (t = 0; t < THREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
  /* The full profile (tags: mode 2) takes its stacks as objects are    */
  /* made: the copy with the record whatever the unwinder.              */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_copy_large(), 2);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 0), GC_SUCCESS);
  check_copy_large_mode1();
  /* Off again, then incremental collection: upstream sends it to       */
  /* GC_core_gcj_malloc (the thread-local path is not safe with it), so  */
  /* GC_gcj_malloc's public function goes to the copies, which test      */
  /* GC_incremental, from GC_enable_incremental on (its hook), off or on. */
  CHECK_EQ(GC_acc_enable(0), GC_SUCCESS);
  if (GC_acc_test_gcj_divert() >= 0) {
    CHECK_EQ(GC_acc_test_gcj_divert(), 0);
    GC_enable_incremental();
    CHECK_EQ(GC_acc_test_gcj_divert(), 1);
    CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
    CHECK_EQ(GC_acc_enable(0), GC_SUCCESS);
    CHECK_EQ(GC_acc_test_gcj_divert(), 1);
  }
  return check_done("test_tl_copies");
}
