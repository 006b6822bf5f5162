/* SPDX-License-Identifier: MIT */
/*
 * test_trace_paths.c: under the trace profile (a stack on every
 * allocation, the frame-pointer walk), the stack of an object allocated
 * through each of the collector's allocation paths starts at the
 * program's allocating function, then its caller.
 *
 * The walk skips the collector's own frames by their frame records, so
 * every collector function between the program's call and the hook
 * that takes the stack must keep one; when one does not, the program's
 * innermost frame is lost (the stack starts at its caller) or the walk
 * ends at once.  Our libgc keeps records on those paths only (the
 * one-file build, extra/gc.c: GCA_FRAME_RECORDS_BEGIN in
 * accounting/gca_hooks.h), not in the rest (the mark loop), so each path
 * is tried: the thread-local one (small objects, pointer-free and not),
 * the global one (uncollectable), large objects, typed, realloc, gcj.
 * The thread-local allocators (GC_malloc_kind, GC_gcj_malloc) keep no
 * record: they reach the hooks by tail calls only, so the hook's frame
 * links straight to the program's.  Their small sizes are allocated
 * SMALL_ROUNDS times, so that the last one pops from the thread's own
 * list (the first ones of a size take the global path, upstream's
 * DIRECT_GRANULES).  Built with frame pointers and -rdynamic (dladdr
 * names the frames).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "gc_typed.h"
#include "gc_gcj.h"
#include "gc_mark.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <dlfcn.h>
#include "../dl_names.h"
#include <stdio.h>

/* Keeps the call before it from being a tail call (the frame stays).  */

/* Global (not static) so that -rdynamic puts them where dladdr looks.  */
void *path_alloc(int path);
unsigned path_caller(int path);

static GC_descr descr;
static void *vtable[2];

enum { P_SMALL, P_ATOMIC, P_LARGE, P_UNCOLL, P_TYPED, P_REALLOC, P_GCJ,
       P_N };
/* Allocations of one small size before its thread-local list is used: */
/* at most HBLKSIZE / GRANULE_BYTES (256) granules, one or more a time. */
#define SMALL_ROUNDS 300
static const char *const path_name[P_N] = {
  "GC_MALLOC", "GC_MALLOC_ATOMIC", "GC_MALLOC large",
  "GC_MALLOC_UNCOLLECTABLE", "GC_MALLOC_EXPLICITLY_TYPED", "GC_REALLOC",
  "GC_GCJ_MALLOC"
};

NOINLINE void *path_alloc(int path)
{
  void *p = NULL;

  switch (path) {
  case P_SMALL: p = GC_MALLOC(48); break;
  case P_ATOMIC: p = GC_MALLOC_ATOMIC(40); break;
  case P_LARGE: p = GC_MALLOC(100000); break;
  case P_UNCOLL: p = GC_MALLOC_UNCOLLECTABLE(48); break;
  case P_TYPED: p = GC_MALLOC_EXPLICITLY_TYPED(64, descr); break;
  case P_REALLOC: {
    void *q = GC_MALLOC(16);
    KEEP(q);
    p = GC_REALLOC(q, 4000);
    break;
  }
  case P_GCJ: p = GC_GCJ_MALLOC(32, vtable); break;
  }
  KEEP(p);
  return p;
}

NOINLINE unsigned path_caller(int path)
{
  void *p = path_alloc(path);
  unsigned r = GC_acc_last_site();

  KEEP(p);
  if (p != NULL && P_UNCOLL == path) GC_FREE(p);
  return p != NULL ? r : 0;
}

int main(void)
{
  GC_word bm = 1;   /* word 0 a pointer */
  int path, i;

  GC_INIT();
  GC_init_gcj_malloc(0, NULL);
  descr = GC_make_descriptor(&bm, 1);
  vtable[1] = (void *)(GC_word)(32 | GC_DS_LENGTH);   /* 32 bytes, all scanned */
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_TRACE, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  for (path = 0; path < P_N; path++) {
    GC_word f[16];
    unsigned id = 0;
    int n;

    int rounds = P_SMALL == path || P_ATOMIC == path || P_GCJ == path
                 ? SMALL_ROUNDS : 3;

    for (i = 0; i < rounds; i++) id = path_caller(path); /* walks, guesses */
    n = id >= 2 ? GC_acc_site_frames(id, f, 16) : -1;
    printf("%s: site %u, %d frames:", path_name[path], id, n);
    for (i = 0; i < n && i < 3; i++) printf(" %s", name_of(f[i]));
    printf("\n");
    if (!CHECK(n >= 2)) continue;
    CHECK(fn_of(f[0]) == (void *)path_alloc);
    CHECK(fn_of(f[1]) == (void *)path_caller);
  }
  return check_done("test_trace_paths");
}
