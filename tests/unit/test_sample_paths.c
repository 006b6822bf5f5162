/* SPDX-License-Identifier: MIT */
/*
 * test_sample_paths.c: under the sampled profile, with the frame-pointer
 * walk, every sampled stack starts at the program's allocating function,
 * then its caller; also the stack of the object that a refill of the
 * thread's own free list makes as a last attempt, when the heap is full
 * (GC_generic_malloc_many: a collection or a heap growth first).
 *
 * That object is made below the thread-local fast path's frame, and the
 * copy of the fast path that the sampled profile runs keeps no frame
 * record (accounting/gca_hooks.h, GCA_COPY_CNT_ATTR_*): a stack taken
 * where the object is made has no program frames, or loses the
 * innermost.  So its sample is taken at its pop instead, where the fast
 * path jumps to the hook (accounting/counters.c, "sampled at its pop").
 *
 * Every sixteenth object is large (GC_generic_malloc, below the global
 * path's frame): its sample is taken below GC_generic_malloc's frame,
 * so the copy of GC_generic_malloc that runs must keep its frame record
 * whenever the fp walk takes sampled stacks (accounting/tlflags.c; the
 * unwinder is set to fp here after the profile, so the copy is picked
 * again then).
 *
 * One sample per 16 bytes, so that nearly every object is sampled; a
 * small heap and small live data, so that refills often find the heap
 * full (the test asks for some collections).  Sizes mixed in the
 * thread-local lists' range.  Built with frame pointers and -rdynamic
 * (dladdr names the frames).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <dlfcn.h>
#include "../dl_names.h"
#include <stdio.h>

#define LIVE 256
#define OBJECTS 300000
#define MIN_COLLECTIONS 20

/* Global (not static) so that -rdynamic puts them where dladdr looks.  */
void *sample_alloc(size_t lb);
void sample_loop(unsigned n);

static void *ring[LIVE];

NOINLINE void *sample_alloc(size_t lb)
{
  void *p = GC_MALLOC(lb);

  KEEP(p);
  return p;
}

NOINLINE void sample_loop(unsigned n)
{
  unsigned i, r = 12345;

  for (i = 0; i < n; i++) {
    r = r * 1103515245u + 12345u;
    ring[i % LIVE] = sample_alloc(i % 16 == 15
                                  ? 2100 + (size_t)((r >> 8) % 12000)
                                  : 16 + (size_t)((r >> 8) % 365));
  }
  KEEP(ring[0]);
}

int main(void)
{
  GC_word gc0;
  unsigned id, sites = 0, wrong = 0;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 16), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  gc0 = GC_get_gc_no();
  sample_loop(OBJECTS);
  printf("%lu collections\n", (unsigned long)(GC_get_gc_no() - gc0));
  CHECK(GC_get_gc_no() - gc0 >= MIN_COLLECTIONS);
  /* Site ids are handed out in order from 2; only samples take stacks. */
  for (id = 2;; id++) {
    GC_word f[16];
    int n = GC_acc_site_frames(id, f, 16), i;

    if (n < 0) break;
    sites++;
    if (n >= 2 && fn_of(f[0]) == (void *)sample_alloc
        && fn_of(f[1]) == (void *)sample_loop)
      continue;
    if (++wrong <= 5) {
      printf("site %u, %d frames:", id, n);
      for (i = 0; i < n && i < 4; i++) printf(" %s", name_of(f[i]));
      printf("\n");
    }
  }
  printf("%u sites, %u not starting at sample_alloc, sample_loop\n", sites,
         wrong);
  CHECK(sites >= 1);
  CHECK_EQ(wrong, 0u);
  return check_done("test_sample_paths");
}
