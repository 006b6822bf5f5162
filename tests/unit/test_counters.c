/* SPDX-License-Identifier: MIT */
/*
 * test_counters.c: every allocation path is counted exactly once.
 *
 * Allocates known numbers of objects through each public allocation entry
 * point and checks the accounting totals grew by exactly that many objects
 * and requested bytes, and that each GC_gcollect adds exactly one
 * collection.  Runs with accounting switched on through the C API.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_typed.h"
#include "gc_inline.h"
#include "gc_accounting.h"
#include "../check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct GC_acc_stats_s before, after;

static void snap(struct GC_acc_stats_s *s)
{
  CHECK_EQ(GC_acc_get_stats(s, sizeof(*s)), sizeof(*s));
}

static void *volatile sink;
static const char *mode = "";

/* The bytes the collector granted the object p: its slot, or whole     */
/* heap blocks (4096 bytes, bdwgc's default HBLKSIZE) for a large one.  */
static unsigned long long granted_of(void *p)
{
  size_t sz = GC_size(p);

  return sz <= 2048 ? sz : (sz + 4095) & ~(size_t)4095;
}

/* Allocate n objects with stmt (which leaves each in sink), check      */
/* exactly n allocations, their requested bytes and their granted bytes.*/
#define EXPECT_ALLOCS(label, n, req, stmt)                                \
  do {                                                                    \
    unsigned i_;                                                          \
    unsigned long long granted_ = 0;                                      \
    snap(&before);                                                        \
    for (i_ = 0; i_ < (n); i_++) {                                        \
      stmt;                                                               \
      granted_ += granted_of((void *)sink);                               \
    }                                                                     \
    snap(&after);                                                         \
    if (!CHECK_EQ(after.allocs - before.allocs, (n)))                     \
      fprintf(stderr, "  path: %s%s\n", label, mode);                     \
    if (!CHECK_EQ(after.alloc_req_bytes - before.alloc_req_bytes,         \
                  (unsigned long long)(n) * (req)))                       \
      fprintf(stderr, "  path: %s%s (requested bytes)\n", label, mode);   \
    if (!CHECK_EQ(after.alloc_granted_bytes - before.alloc_granted_bytes, \
                  granted_))                                              \
      fprintf(stderr, "  path: %s%s (granted bytes)\n", label, mode);     \
  } while (0)

struct vtable { void *dummy; GC_word descr; };
static struct vtable vt = { NULL, 0 };

/* A second thread that allocates on its own thread-local lists when   */
/* told to, so switching modes is seen by a thread other than the one   */
/* that switches.                                                         */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int job_seq, done_seq, quit;
static void *job_last;

static void *worker(void *arg)
{
  int seen = 0;

  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (job_seq == seen && !quit) pthread_cond_wait(&cv, &mu);
    if (quit) break;
    seen = job_seq;
    pthread_mutex_unlock(&mu);
    {
      unsigned i;
      void *p = NULL;

      for (i = 0; i < 1000; i++) p = GC_malloc(24);
      job_last = p;
    }
    pthread_mutex_lock(&mu);
    done_seq = seen;
    pthread_cond_broadcast(&cv);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* The worker allocates 1000 objects of 24 bytes; returns its last one. */
static void *worker_round(void)
{
  int want;

  pthread_mutex_lock(&mu);
  want = ++job_seq;
  pthread_cond_broadcast(&cv);
  while (done_seq != want) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return job_last;
}

/* 1000 objects of 24 bytes here and 1000 in the worker: all counted,  */
/* and the last of each tagged exactly when tags are on (the thread-    */
/* local path counts inline only while tags are off and must stop as    */
/* soon as they go on, in every thread).                                */
static void check_both_threads(const char *label, int tagged)
{
  unsigned i;
  void *mine = NULL, *theirs;
  GC_word cookie;
  unsigned site;

  snap(&before);
  for (i = 0; i < 1000; i++) mine = GC_malloc(24);
  theirs = worker_round();
  snap(&after);
  if (!CHECK_EQ(after.allocs - before.allocs, 2000))
    fprintf(stderr, "  mode: %s\n", label);
  if (!CHECK_EQ(after.alloc_req_bytes - before.alloc_req_bytes, 2000 * 24))
    fprintf(stderr, "  mode: %s (requested bytes)\n", label);
  if (!CHECK_EQ(GC_acc_get_object_tag(mine, &cookie, &site), tagged))
    fprintf(stderr, "  mode: %s (this thread's object)\n", label);
  if (!CHECK_EQ(GC_acc_get_object_tag(theirs, &cookie, &site), tagged))
    fprintf(stderr, "  mode: %s (the worker's object)\n", label);
  sink = mine;
}

int main(void)
{
  GC_word bm[1] = { 0 };
  GC_descr d;
  unsigned i;
  unsigned extra;     /* bdwgc's EXTRA_BYTES: 1 with interior pointers */

  GC_INIT();
  extra = GC_get_all_interior_pointers() ? 1 : 0;
  CHECK(GC_acc_is_available());
  CHECK_EQ(GC_acc_get_version(), GC_ACC_VERSION);
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK(GC_acc_is_enabled());
  GC_init_gcj_malloc(0, NULL);
  GC_set_bit(bm, 0);
  d = GC_make_descriptor(bm, 1);

  /* Each path with tags on (their default), then off: the counting    */
  /* paths differ (without tags a small object is counted from its      */
  /* request alone, docs/hooks.md).                                      */
  for (i = 0; i < 2; i++) {
    mode = i == 0 ? "" : ", tags off";
    CHECK_EQ(GC_acc_set_tags(i == 0), GC_SUCCESS);
    EXPECT_ALLOCS("GC_malloc", 1000, 24, sink = GC_malloc(24));
    EXPECT_ALLOCS("GC_malloc 1000 bytes", 200, 1000, sink = GC_malloc(1000));
    EXPECT_ALLOCS("GC_malloc_atomic", 1000, 100,
                  sink = GC_malloc_atomic(100));
    /* Requested bytes are what the core allocator was asked for:       */
    /* uncollectable objects drop the extra byte they do not need, the   */
    /* typed allocator adds a descriptor word (docs/dump-format.md).     */
    EXPECT_ALLOCS("GC_malloc_uncollectable", 100, 40 - extra,
                  { void *p = GC_malloc_uncollectable(40);
                    sink = p; GC_free(p); });
    EXPECT_ALLOCS("GC_malloc_uncollectable 1500 bytes", 20, 1500 - extra,
                  { void *p = GC_malloc_uncollectable(1500);
                    sink = p; GC_free(p); });
    EXPECT_ALLOCS("GC_malloc large", 20, 50000, sink = GC_malloc(50000));
    EXPECT_ALLOCS("GC_malloc_atomic large", 20, 9000,
                  sink = GC_malloc_atomic(9000));
    EXPECT_ALLOCS("GC_malloc_ignore_off_page", 10, 100000,
                  sink = GC_malloc_ignore_off_page(100000));
    EXPECT_ALLOCS("GC_gcj_malloc", 500, 32, sink = GC_gcj_malloc(32, &vt));
    EXPECT_ALLOCS("GC_gcj_malloc 700 bytes", 50, 700,
                  sink = GC_gcj_malloc(700, &vt));
    EXPECT_ALLOCS("GC_gcj_malloc_ignore_off_page", 50, 48,
                  sink = GC_gcj_malloc_ignore_off_page(48, &vt));
    /* Large gcj objects: through GC_ACC_ON_ALLOC (GC_generic_malloc_     */
    /* inner's large branch, the ignore-off-page path) to the large      */
    /* object's hook.                                                     */
    EXPECT_ALLOCS("GC_gcj_malloc large", 20, 9000,
                  sink = GC_gcj_malloc(9000, &vt));
    EXPECT_ALLOCS("GC_gcj_malloc_ignore_off_page large", 10, 100000,
                  sink = GC_gcj_malloc_ignore_off_page(100000, &vt));
    EXPECT_ALLOCS("GC_malloc_explicitly_typed", 300,
                  64 + sizeof(GC_word) - extra,
                  sink = GC_malloc_explicitly_typed(64, d));
    EXPECT_ALLOCS("GC_malloc_explicitly_typed_ignore_off_page", 30,
                  64 + sizeof(GC_word) - extra,
                  sink = GC_malloc_explicitly_typed_ignore_off_page(64, d));
  }
  /* The lock-held rows kind by kind (gca_locked_kind, gca_hooks.h):   */
  /* the global path's objects, tags still off, each in its own kind's */
  /* row, not in another's (the totals above cannot tell).              */
  {
    static const int kinds[2] = { 0, 1 };      /* PTRFREE, NORMAL */
    static const unsigned counts[2] = { 300, 700 };
    struct GC_acc_class_stats_s b[2], a[2];
    unsigned k, j, cls;

    sink = GC_malloc_kind_global(40, kinds[0]);
    cls = GC_acc_size_class(GC_size((void *)sink));
    for (k = 0; k < 2; k++)
      CHECK_EQ(GC_acc_get_class_stats(kinds[k], cls, &b[k], sizeof(b[k])),
               sizeof(b[k]));
    for (k = 0; k < 2; k++)
      for (j = 0; j < counts[k]; j++)
        sink = GC_malloc_kind_global(40, kinds[k]);
    for (k = 0; k < 2; k++) {
      CHECK_EQ(GC_acc_get_class_stats(kinds[k], cls, &a[k], sizeof(a[k])),
               sizeof(a[k]));
      if (!CHECK_EQ(a[k].alloc_objs - b[k].alloc_objs, counts[k])
          || !CHECK_EQ(a[k].alloc_req_bytes - b[k].alloc_req_bytes,
                       (GC_word)counts[k] * 40))
        fprintf(stderr, "  path: GC_malloc_kind_global, kind %d\n",
                kinds[k]);
    }
  }
  /* Large objects by size class, tags off (GC_ACC_ON_ALLOC_LARGE then */
  /* counts them inline, by kind and power of two of their blocks):     */
  /* each counted in the class of its granted bytes.                     */
  {
    static const size_t sizes[] = { 3000, 9000, 50000, 100000, 1500000 };
    unsigned s, i;

    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      struct GC_acc_class_stats_s c0, c1;
      unsigned long long g;
      unsigned cls;

      sink = GC_malloc(sizes[s]);
      g = granted_of((void *)sink);
      cls = GC_acc_size_class((size_t)g);
      CHECK_EQ(GC_acc_get_class_stats(1, cls, &c0, sizeof(c0)), sizeof(c0));
      for (i = 0; i < 10; i++) sink = GC_malloc(sizes[s]);
      CHECK_EQ(GC_acc_get_class_stats(1, cls, &c1, sizeof(c1)), sizeof(c1));
      if (!CHECK_EQ(c1.alloc_objs - c0.alloc_objs, 10)
          | !CHECK_EQ(c1.alloc_req_bytes - c0.alloc_req_bytes,
                      10 * (unsigned long long)sizes[s])
          | !CHECK_EQ(c1.alloc_granted_bytes - c0.alloc_granted_bytes,
                      10 * g))
        fprintf(stderr, "  large class of %lu bytes\n",
                (unsigned long)sizes[s]);
    }
  }
  /* GC_malloc_many without tags (still off here): counted once, when   */
  /* the list is handed out, also for a size above the small objects'  */
  /* (a list of one large object, made inside GC_generic_malloc_many).  */
  {
    static const size_t sizes[] = { 32, 5000 };
    unsigned s;

    for (s = 0; s < 2; s++) {
      void *list;
      unsigned long long n = 0;

      snap(&before);
      list = GC_malloc_many(sizes[s]);
      for (sink = list; sink != NULL; sink = GC_NEXT((void *)sink)) n++;
      snap(&after);
      CHECK(n > 0);
      if (!CHECK_EQ(after.allocs - before.allocs, n))
        fprintf(stderr, "  path: GC_malloc_many(%u), tags off\n",
                (unsigned)sizes[s]);
    }
  }
  mode = "";
  CHECK_EQ(GC_acc_set_tags(1), GC_SUCCESS);

  /* GC_malloc_many: counted when the list is handed out.               */
  {
    void *list;
    unsigned long long n = 0;

    snap(&before);
    list = GC_malloc_many(32);
    for (sink = list; sink != NULL; sink = GC_NEXT((void *)sink)) n++;
    snap(&after);
    CHECK(n > 0);
    CHECK_EQ(after.allocs - before.allocs, n);
  }

  /* gc_inline.h client-side free lists, refilled by                    */
  /* GC_generic_malloc_many: each batch counted once, when handed out,   */
  /* so the total after the loop is the number taken plus what is left   */
  /* in the client's list.                                               */
  {
    void *fl[GC_TINY_FREELISTS] = { 0 };
    void *p;
    void *q;
    unsigned long long left = 0;

    snap(&before);
    for (i = 0; i < 5000; i++) {
      GC_MALLOC_WORDS(p, 2, fl);
      sink = p;
    }
    /* Two words are one granule on 64-bit targets, two on 32-bit ones; */
    /* a list slot holds either a small counter or the list itself.      */
    for (q = fl[GC_WORDS_TO_WHOLE_GRANULES(2)]; (GC_word)q > 4096;
         q = *(void **)q)
      left++;
    snap(&after);
    CHECK_EQ(after.allocs - before.allocs, 5000 + left);
  }

  /* Debug allocations: counted once, at the collector's granted size,  */
  /* and tallied as debug.                                               */
  snap(&before);
  for (i = 0; i < 100; i++) sink = GC_debug_malloc(40, GC_EXTRAS);
  snap(&after);
  CHECK_EQ(after.allocs - before.allocs, 100);
  CHECK_EQ(after.debug_allocs - before.debug_allocs, 100);

  /* realloc that keeps the object in place is not an allocation.       */
  {
    void *p = GC_malloc(100);
    void *q;

    snap(&before);
    q = GC_realloc(p, 90);
    snap(&after);
    CHECK(q == p);
    CHECK_EQ(after.allocs - before.allocs, 0);
    snap(&before);
    q = GC_realloc(q, 10000);
    snap(&after);
    CHECK_EQ(after.allocs - before.allocs, 1);
    sink = q;
  }

  /* Every collection counted once. */
  snap(&before);
  for (i = 0; i < 5; i++) GC_gcollect();
  snap(&after);
  CHECK_EQ(after.collections - before.collections, 5);

  /* Switching tags and accounting while two threads allocate on their */
  /* thread-local lists.                                                 */
  {
    pthread_t th;

    CHECK_EQ(pthread_create(&th, NULL, worker, NULL), 0);
    check_both_threads("tags on", 1);
    CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
    check_both_threads("tags off", 0);
    check_both_threads("tags off, again", 0);
    CHECK_EQ(GC_acc_set_tags(1), GC_SUCCESS);
    check_both_threads("tags on after off", 1);
    CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
    check_both_threads("tags off after on", 0);
    CHECK_EQ(GC_acc_enable(0), GC_SUCCESS);
    snap(&before);
    worker_round();
    for (i = 0; i < 100; i++) sink = GC_malloc(24);
    snap(&after);
    CHECK_EQ(after.allocs, before.allocs);
    CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
    check_both_threads("on again, tags off", 0);
    CHECK_EQ(GC_acc_set_tags(1), GC_SUCCESS);
    check_both_threads("tags on at the end", 1);
    pthread_mutex_lock(&mu);
    quit = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    CHECK_EQ(pthread_join(th, NULL), 0);
  }

  /* Size classes: granules for small objects, then one class per power */
  /* of two above half a heap block (gc_accounting.h), on every word     */
  /* size.                                                                */
  {
    unsigned c2k = GC_acc_size_class(2048), c4k = GC_acc_size_class(4096);

    CHECK_EQ(GC_acc_size_class(2 * sizeof(void *)), 1);
    CHECK_EQ(GC_acc_size_class(2048), 2048 / (2 * sizeof(void *)));
    CHECK_EQ(GC_acc_size_class(2049), c2k + 1);
    CHECK_EQ(GC_acc_size_class(4095), c2k + 1);
    CHECK_EQ(c4k, c2k + 2);
    CHECK_EQ(GC_acc_size_class(8191), c4k);
    CHECK_EQ(GC_acc_size_class(8192), c4k + 1);
    CHECK_EQ(GC_acc_size_class((size_t)1 << 20), c4k + 8);
    CHECK_EQ(GC_acc_size_class(((size_t)1 << 24) + 4096), c4k + 12);
  }

  /* Off means off: nothing counted, and counts are kept. */
  CHECK_EQ(GC_acc_enable(0), GC_SUCCESS);
  snap(&before);
  for (i = 0; i < 100; i++) sink = GC_malloc(16);
  GC_gcollect();
  snap(&after);
  CHECK_EQ(after.allocs, before.allocs);
  CHECK_EQ(after.collections, before.collections);
  CHECK(after.allocs > 0);
  return check_done("test_counters");
}
