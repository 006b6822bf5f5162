/* SPDX-License-Identifier: MIT */
/*
 * test_vector.c: Unity's gcj-vector allocations are counted and typed.
 *
 * Unity's fork only (vector_mlc.c, gc_vector.h).  After
 * GC_init_gcj_vector, as il2cpp makes it (mark-proc index 6), N
 * allocations through GC_gcj_vector_malloc, of small sizes (most taken
 * from the kind's own free list, the pop that bdwgc/patches-unity/0003
 * hooks, the rest refilling it) and large ones (whole blocks): every one
 * is counted once, in the vector kind (GC_acc_get_class_stats summed
 * over the size classes, and the totals), with the requested bytes; and
 * after a collection each object has its class (word 0, which the
 * allocator stores) as type, as a gcj object does: live, allocated and
 * freed per class are exact.  Roots are registered by hand (Unity's
 * GC_DONT_REGISTER_MAIN_STATIC_DATA).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_mark.h"
#include "gc_vector.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <string.h>

/* IL2CPP's class layout, enough of it: image, gc_desc, name, namespace. */
struct klass { void *image; GC_word gc_desc; const char *name, *ns; };
static struct klass k_point = { NULL, 0, "Point[]", "Game" };
static struct klass k_pair = { NULL, 0, "Pair[]", "Game" };
static struct klass k_big = { NULL, 0, "Int32[]", "System" };
static struct klass k_probe = { NULL, 0, "Probe[]", "Game" };

#define N 1000
static void *volatile keep[N];

/* The kind's mark procedure: the test's arrays hold no pointers.       */
static struct GC_ms_entry *GC_CALLBACK vector_proc(GC_word *addr,
                                    struct GC_ms_entry *msp,
                                    struct GC_ms_entry *msl, GC_word env)
{
  (void)addr; (void)msl; (void)env;
  return msp;
}

static GC_word sizes_req;
static unsigned n_point, n_pair, n_big;

static NOINLINE void alloc_vectors(void)
{
  int i;

  for (i = 0; i < N; i++) {
    struct klass *k;
    size_t lb;
    void *p;

    if (i % 50 == 49) {
      k = &k_big; lb = 9000 + (size_t)i; n_big++;
    } else if (i % 2 == 0) {
      k = &k_point; lb = 48; n_point++;
    } else {
      k = &k_pair; lb = 200; n_pair++;
    }
    p = GC_gcj_vector_malloc(lb, k);
    CHECK(p != NULL && *(struct klass **)p == k);
    sizes_req += lb;
    if (i % 3 == 0) keep[i] = p;
  }
}

static unsigned kept_of(int which)
{
  unsigned n = 0;
  int i;

  for (i = 0; i < N; i += 3) {
    int big = i % 50 == 49, even = i % 2 == 0;

    if ((which == 2 && big) || (which == 0 && !big && even)
        || (which == 1 && !big && !even))
      n++;
  }
  return n;
}

static GC_word kind_allocs(int kind)
{
  struct GC_acc_class_stats_s cs;
  GC_word n = 0;
  unsigned c;

  for (c = 0;; c++) {
    memset(&cs, 0, sizeof(cs));
    if (GC_acc_get_class_stats(kind, c, &cs, sizeof(cs)) == 0) break;
    n += cs.alloc_objs;
  }
  return n;
}

static void check_type(const char *what, struct klass *k, GC_word live,
                       GC_word alloc)
{
  struct GC_acc_group_stats_s s;
  int ok = 1;

  memset(&s, 0, sizeof(s));
  ok &= CHECK_EQ(GC_acc_get_type_stats((GC_word)k, &s, sizeof(s)),
                 sizeof(s));
  ok &= CHECK_EQ(s.live_objs, live);
  ok &= CHECK_EQ(s.alloc_objs, alloc);
  ok &= CHECK_EQ(s.freed_objs, alloc - live);
  if (!ok) fprintf(stderr, "  (%s)\n", what);
}

int main(void)
{
  struct GC_acc_stats_s before, after;
  GC_word kind_before, kind_after, cookie;
  unsigned site;
  size_t sz;
  int kind, i;
  void *probe;

  GC_INIT();
  GC_TEST_ROOT(keep);
  GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0);   /* exact: tags */
  GC_init_gcj_malloc(0, NULL);          /* il2cpp's order */
  GC_init_gcj_vector(6, (void *)vector_proc);
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);

  /* The vector kind's number, from an object of it.                   */
  probe = GC_gcj_vector_malloc(48, &k_probe);
  kind = GC_get_kind_and_size(probe, &sz);
  CHECK(kind > 3);
  probe = NULL;

  collect();
  kind_before = kind_allocs(kind);
  CHECK_EQ(GC_acc_get_stats(&before, sizeof(before)), sizeof(before));
  alloc_vectors();
  CHECK_EQ(GC_acc_get_stats(&after, sizeof(after)), sizeof(after));
  kind_after = kind_allocs(kind);
  CHECK_EQ(after.allocs - before.allocs, N);
  CHECK_EQ(after.alloc_req_bytes - before.alloc_req_bytes, sizes_req);
  CHECK_EQ(kind_after - kind_before, N);        /* all in their kind */

  collect();
  check_type("Game.Point[]", &k_point, kept_of(0), n_point);
  check_type("Game.Pair[]", &k_pair, kept_of(1), n_pair);
  check_type("System.Int32[]", &k_big, kept_of(2), n_big);
  CHECK(GC_acc_get_object_tag(keep[0], &cookie, &site));
  CHECK_EQ(cookie, (GC_word)&k_point);
  CHECK(GC_acc_get_object_tag(keep[3], &cookie, &site));
  CHECK_EQ(cookie, (GC_word)&k_pair);
  for (i = 0; i < N; i++) keep[i] = NULL;
  return check_done("test_vector");
}
