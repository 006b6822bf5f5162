/* SPDX-License-Identifier: MIT */
/*
 * test_counters_lists.c: exact counts with objects left on free lists.
 *
 * A thread's allocations come from its own free lists, refilled a block
 * at a time, so at any moment some objects of a refill are handed out and
 * the rest still wait on the lists.  Every count must be exact whatever
 * the lists hold: read mid-run by another thread while a worker's lists
 * are part used, after a worker exits with part-used lists, and when a
 * refill finds the heap full and hands out a single object made by the
 * fallback allocation (its class can be a granule larger than its list's)
 * just before an allocation of another size.
 *
 * Sizes are mixed (16 to 380 bytes, the thread-local lists' range) and
 * drawn from a fixed seed; the heap is kept small so that refills often
 * meet a full heap.  Checked: objects, requested and granted bytes, in
 * total and in each size class's alloc_objs.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LIVE 512                /* objects each loop keeps alive         */

/* What a loop allocated: objects, requested and granted bytes, and    */
/* objects by granted size (16-byte steps, the classes below 2 KiB).  */
struct tally {
  unsigned long long objs, req, granted;
  unsigned long long by_size[2048 / 16 + 1];
};

static unsigned long long next_rand(unsigned long long *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (*s * 0x2545F4914F6CDD1DULL) >> 32;
}

/* n allocations of mixed sizes, added to t; keeps LIVE of them in keep. */
static void alloc_mixed(unsigned long long *seed, unsigned n, void **keep,
                        struct tally *t)
{
  unsigned i;

  for (i = 0; i < n; i++) {
    size_t lb = 16 + (size_t)(next_rand(seed) % 365);
    void *p = GC_malloc(lb);
    size_t sz;

    if (NULL == p) abort();
    sz = GC_size(p);
    t->objs++;
    t->req += lb;
    t->granted += sz;
    if (sz / 16 < sizeof(t->by_size) / sizeof(t->by_size[0]))
      t->by_size[sz / 16]++;
    keep[i % LIVE] = p;
  }
}

/* alloc_objs of GC_malloc's kind (1, normal) by granted size.         */
static unsigned long long cls_before[2048 / 16 + 1], cls_after[2048 / 16 + 1];

static void snap_classes(unsigned long long *c)
{
  size_t sz;

  for (sz = 16; sz <= 2048; sz += 16) {
    struct GC_acc_class_stats_s cs;

    memset(&cs, 0, sizeof(cs));
    CHECK_EQ(GC_acc_get_class_stats(1, GC_acc_size_class(sz), &cs,
                                    sizeof(cs)), sizeof(cs));
    c[sz / 16] = cs.alloc_objs;
  }
}

static struct GC_acc_stats_s before, after;

static void snap(struct GC_acc_stats_s *s)
{
  CHECK_EQ(GC_acc_get_stats(s, sizeof(*s)), sizeof(*s));
}

/* The counts grew by exactly t since the snapshots "before".          */
static void expect(const char *what, const struct tally *t)
{
  size_t sz;

  snap(&after);
  snap_classes(cls_after);
  if (!CHECK_EQ(after.allocs - before.allocs, t->objs))
    fprintf(stderr, "  %s: objects\n", what);
  if (!CHECK_EQ(after.alloc_req_bytes - before.alloc_req_bytes, t->req))
    fprintf(stderr, "  %s: requested bytes\n", what);
  if (!CHECK_EQ(after.alloc_granted_bytes - before.alloc_granted_bytes,
                t->granted))
    fprintf(stderr, "  %s: granted bytes\n", what);
  for (sz = 16; sz <= 2048; sz += 16) {
    if (!CHECK_EQ(cls_after[sz / 16] - cls_before[sz / 16],
                  t->by_size[sz / 16]))
      fprintf(stderr, "  %s: objects of %u bytes\n", what, (unsigned)sz);
  }
}

static void start(void)
{
  snap(&before);
  snap_classes(cls_before);
}

/* ---- a worker that stops mid-run, its lists part used ---------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static unsigned go_seq, done_seq, ready;
static struct tally worker_tally;

#define ROUNDS 6
#define PER_ROUND 7777          /* not a multiple of any refill          */

static void *worker(void *arg)
{
  unsigned long long seed = 0x1234567ULL;
  void **keep = (void **)GC_MALLOC_UNCOLLECTABLE(LIVE * sizeof(void *));
  unsigned r;

  (void)arg;
  if (NULL == keep) abort();
  pthread_mutex_lock(&mu);
  ready = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (r = 1; r <= ROUNDS; r++) {
    pthread_mutex_lock(&mu);
    while (go_seq < r) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    alloc_mixed(&seed, PER_ROUND, keep, &worker_tally);
    pthread_mutex_lock(&mu);
    done_seq = r;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  GC_FREE(keep);
  return NULL;                  /* exits with its lists part used        */
}

int main(void)
{
  static struct tally t;
  unsigned long long seed = 42;
  void **keep;
  pthread_t th;
  unsigned r;

  GC_set_free_space_divisor(20);  /* a small heap: refills meet it full */
  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  keep = (void **)GC_MALLOC_UNCOLLECTABLE(LIVE * sizeof(void *));
  CHECK(keep != NULL);

  /* This thread: mixed sizes through many refills and collections,    */
  /* read with its lists part used.                                      */
  start();
  memset(&t, 0, sizeof(t));
  alloc_mixed(&seed, 200000, keep, &t);
  expect("this thread, mixed sizes", &t);
  CHECK(after.collections > before.collections);

  /* A worker, read from this thread after each of its rounds (its      */
  /* lists part used, the worker waiting), and after it exits.  Counted */
  /* from when it is ready (its start and its table counted before).    */
  CHECK_EQ(pthread_create(&th, NULL, worker, NULL), 0);
  pthread_mutex_lock(&mu);
  while (!ready) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  start();
  for (r = 1; r <= ROUNDS; r++) {
    pthread_mutex_lock(&mu);
    go_seq = r;
    pthread_cond_broadcast(&cv);
    while (done_seq < r) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    expect("worker, read mid-run by another thread", &worker_tally);
  }
  CHECK_EQ(pthread_join(th, NULL), 0);
  expect("worker, after it exited", &worker_tally);
  keep[0] = NULL;
  GC_FREE(keep);
  return check_done("test_counters_lists");
}
