/* SPDX-License-Identifier: MIT */
/*
 * test_deinit.c: GC_deinit resets the collector so that GC_INIT starts
 * afresh in the same process (il2cpp's domain reload,
 * IL2CPP_ENABLE_RELOAD): three rounds of init, set-up as il2cpp does it
 * (gcj and vector kinds, a push-other-roots callback chained to the
 * previous one, roots), allocate, collect, check, deinit.  Each round
 * sees an empty heap at start, its objects kept by its roots and its
 * garbage collected, and the chained callback called once per
 * collection (a callback left from the round before would chain to
 * itself).
 */
#include <stdlib.h>
#define GC_GCJ_SUPPORT 1
#include "gc.h"
#include "gc_mark.h"
#include "gc_gcj.h"
#include "gc_vector.h"
#include "../check.h"
#include "../gc_test_util.h"

#define N 5000
static void *keep[N];                   /* registered each round */
static GC_push_other_roots_proc prev;
static unsigned long pushes;
static void *vt[2] = { 0, 0 };          /* a gcj vtable: descriptor 0 */

static void GC_CALLBACK push_roots(void)
{
  pushes++;
  if (prev != 0)
    prev();
}

static struct GC_ms_entry *GC_CALLBACK vec_proc(GC_word *addr,
                                struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim, GC_word env)
{
  (void)addr; (void)lim; (void)env;
  return msp;
}

static NOINLINE void garbage(void)
{
  int i;
  for (i = 0; i < 20000; i++)
    (void)GC_MALLOC(64);
}

int main(void)
{
  int round, i;

  for (round = 0; round < 3; round++) {
    GC_word gc0;

    GC_INIT();
    CHECK_EQ(GC_get_heap_size() < 64u << 20, 1);
    GC_init_gcj_malloc(5, NULL);
    GC_init_gcj_vector(6, (void *)vec_proc);
    prev = GC_get_push_other_roots();
    CHECK(prev != push_roots);          /* the default, not last round's */
    GC_set_push_other_roots(push_roots);
    GC_add_roots(keep, keep + N);
    for (i = 0; i < N; i++) {
      keep[i] = i % 3 == 0 ? GC_gcj_malloc(32, vt)
                : i % 3 == 1 ? GC_gcj_vector_malloc(48, vt) : GC_MALLOC(24);
      if (!CHECK(keep[i] != NULL)) return 1;
      ((GC_word *)keep[i])[1] = (GC_word)(round * N + i);
    }
    garbage();
    pushes = 0;
    gc0 = GC_get_gc_no();
    collect();
    collect();
    CHECK_EQ(pushes, GC_get_gc_no() - gc0);
    for (i = 0; i < N; i++)
      if (!CHECK_EQ(((GC_word *)keep[i])[1], (GC_word)(round * N + i)))
        break;
    CHECK(GC_get_free_bytes() > 0);     /* the garbage went */
    for (i = 0; i < N; i++)
      keep[i] = NULL;
    GC_deinit();
  }
  return check_done("test_deinit");
}
