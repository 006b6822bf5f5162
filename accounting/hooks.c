/* SPDX-License-Identifier: MIT */
/*
 * hooks.c: the out-of-line bodies behind the GC_ACC_ON_* macros.
 *
 * Each body only dispatches to the module that keeps the books
 * (counters.c, freelist.c, ...); the contract of every hook (site, locks,
 * arguments) is stated in gca_hooks.h.  The top of accounting's layers
 * (docs/design.md, "Layers"): it calls down into every module and nothing
 * calls it but the collector.
 */

#include "gca_priv.h"

#ifdef GC_PTHREADS
# include <pthread.h>
#endif
#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif

#ifndef GC_ACC_DISABLE

/* Accounting's own spin locks are leaves (taken with or without the   */
/* allocation lock, never holding another), so a fork() could catch one */
/* held by a thread the child does not have, and the child would spin  */
/* on it for ever at its next new callsite or pair.  Taking them in a   */
/* prepare handler is not an option: ours would run before bdwgc's,     */
/* which takes the allocation lock, the wrong order.  The child frees   */
/* them instead.                                                         */
#ifdef GC_PTHREADS
static void gca_atfork_child(void)
{
  gca_sites_atfork_child();
  gca_pairs_atfork_child();
  gca_tags_atfork_child();
  gca_frames_atfork_child();
  gca_counters_atfork_child();
  gca_dump_atfork_child();
}
#endif

GC_INNER void gca_hook_init(void)
{
  /* The allocation path's functions above the unwinder, so that it    */
  /* can tell the collector's frames from the program's when both share */
  /* one module (unwind.c, "the span").                                  */
  static const struct gca_code_anchors anchors = {
    { (void (*)(void))gca_counters_alloc, (void (*)(void))gca_counters_alloc_tl,
      (void (*)(void))gca_hook_alloc, (void (*)(void))gca_hook_alloc_large,
      (void (*)(void))gca_hook_alloc_tl_ret, (void (*)(void))gca_site_capture,
      (void (*)(void))GC_acc_capture_site, (void (*)(void))gca_hook_sample,
      (void (*)(void))gca_hook_sample_ret, (void (*)(void))gca_samples_take,
      (void (*)(void))gca_sites_stack,
      (void (*)(void))gca_counters_alloc_tl_tags }
  };

  gca_unwind_set_anchors(&anchors);
# ifdef GC_PTHREADS
    (void)pthread_atfork(NULL, NULL, gca_atfork_child);
# endif
  /* Incremental collection started by the environment (GC_init): */
  /* GC_gcj_malloc tests GC_incremental from now on (tlflags.c).     */
  if (GC_incremental) gca_hook_incremental();
  gca_env_read();
}

/* GC_enable_incremental's entry (8.2.2): GC_gcj_malloc tests          */
/* GC_incremental from now on (tlflags.c).                               */
GC_INNER void gca_hook_incremental(void)
{
  gca_tlflags_incremental();
}

/* GC_deinit, on Unity's fork and on 8.2.2 (before unity_api.c's reset): */
/* the queued records, the trailer, the file closed, before the         */
/* collector's state is wiped.  il2cpp builds have no atexit            */
/* (DONT_USE_ATEXIT): this is how a player's quit ends its dump.        */
GC_INNER void gca_hook_deinit(void)
{
  (void)GC_acc_dump_stop();
}

/* ---- allocation --------------------------------------------------------- */

/* The sampled profile's countdown (gca_hooks.h) on the paths that call */
/* a hook for every object: in mode 1 only (mode 2 is the full profile). */
/* Every draw of a thread's countdown is followed by gca_counters_tl_   */
/* keep (counters.c, "the countdown's promise"; samples.c is below it). */
/* HOOKS_SAMPLE_UNLESS: the object is left to its pop, which decides  */
/* its sample (the countdown of its list, counters.c), when later is    */
/* nonzero.                                                              */
#define HOOKS_SAMPLE_UNLESS(p, lb, g, k, later) \
        do { \
          if (!(later) && 1 == gca_tl_mode && GCA_SAMPLE_DUE(g) \
              && gca_counters_tl_sample_due(g)) { \
            gca_samples_take(p, lb, g, k); \
            gca_counters_tl_keep(); \
          } \
        } while (0)
#define HOOKS_SAMPLE(p, lb, g, k) HOOKS_SAMPLE_UNLESS(p, lb, g, k, 0)

/* The countdown first, so that the counters' call stays a tail call   */
/* (no stack frame on the common path).  Mode 1's small objects count   */
/* into the lock-held rows, as its global pops (the lock is held at      */
/* every GC_ACC_ON_ALLOC site), but for one made inside a refill: in    */
/* the thread's record (its request waits for its pop), and sampled at  */
/* its pop if it is for the thread's own list (counters.c, "sampled at  */
/* its pop": its sample due here is left due).                          */
/* Modes other than 1 go straight to the counters (a tail call, no    */
/* frame, no thread-local read): the full profile on Unity's fork,      */
/* where every object comes through here, paid 14 instructions an       */
/* object more when the size and the refill's state were taken first.   */
/* Mode 1's large objects here (any GC_ACC_ON_ALLOC site's: those of   */
/* GC_generic_malloc_inner, which GC_core_gcj_malloc makes, are counted */
/* inline now, GC_ACC_ON_ALLOC_LARGE_LB) are counted as                 */
/* GC_ACC_ON_ALLOC_LARGE counts GC_generic_malloc's, with their block   */
/* count from the header:                                               */
/* the same countdown, into the lock-held rows, where gca_counters_     */
/* alloc counted them into the thread's record after a second look at */
/* the header (the sums add both: the counts are the same).             */
GC_INNER void gca_hook_alloc(void *p, size_t lb, int k)
{
  if (1 == gca_tl_mode && EXPECT(p != NULL, TRUE)) {
    word g;
    int in_refill;

    if (!SMALL_OBJ(lb)) {
      word n_blocks = OBJ_SZ_TO_BLOCKS(HDR(p)->hb_sz);

      GCA_LARGE_COUNT(p, lb, k, n_blocks);
      return;
    }
    g = GC_size_map[lb];
    in_refill = gca_tl_self.in_refill;
    HOOKS_SAMPLE_UNLESS(p, lb, g, k, 2 == in_refill);
    if (EXPECT(0 == in_refill, TRUE)) {
      gca_locked_count(lb, k, (size_t)g);
      return;
    }
  }
  gca_counters_alloc(p, lb, k);
}

/* A large object that GC_ACC_ON_ALLOC_LARGE did not count inline:     */
/* another mode, or made inside GC_generic_malloc_many; or one of mode   */
/* 1 from gca_hook_alloc.                                                 */
GC_INNER void gca_hook_alloc_large(void *p, size_t lb, int k, word n_blocks)
{
  HOOKS_SAMPLE(p, lb, BYTES_TO_GRANULES(n_blocks * HBLKSIZE), k);
  if (EXPECT(gca_many_tl.in, FALSE)) {
    /* Made inside GC_generic_malloc_many: its list, counted when      */
    /* handed out, must know it (the general path remembers it).       */
    gca_counters_alloc(p, lb, k);
  } else {
    gca_counters_alloc_large(p, lb, k, n_blocks);
  }
}

/* Inside GC_generic_malloc_many (gca_many_tl.in) the object goes the  */
/* general path, which its list's end must know of.  Such a large       */
/* object always reaches here in mode 1: gca_counters_many_begin made   */
/* the countdown due (for a list that can hold large objects).          */
GC_INNER void *gca_hook_large_due(void *p, size_t lb, int k, word n_blocks)
{
  /* The block count as the site has it (GC_ACC_ON_ALLOC_LARGE_LB: from */
  /* lb) is the block's.                                                 */
  GC_ASSERT(n_blocks == OBJ_SZ_TO_BLOCKS(HDR(p)->hb_sz));
  (void)gca_hook_sample(p, lb, GCA_LARGE_GRANULES(n_blocks), k);
  if (EXPECT(gca_many_tl.in, FALSE)) {
    gca_counters_alloc(p, lb, k);
  } else {
    gca_locked_count_large(lb, k, n_blocks);
  }
  return p;
}

GC_INNER void *gca_hook_alloc_tl_ret(void *p, size_t lb, size_t granules,
                                     int k)
{
  /* The full profile's pops (every thread-local pop calls here).       */
  if (2 == gca_tl_mode) return gca_counters_alloc_tl_tags(p, lb, granules, k);
  HOOKS_SAMPLE(p, lb, granules, k);
  return gca_counters_alloc_tl(p, lb, granules, k);
}

/* Returns p, which the lock-held sites take back (GCA_LOCKED_POP).  */
GC_INNER void *gca_hook_sample(void *p, size_t lb, size_t granules, int k)
{
  if (!gca_counters_tl_sample_due((word)granules)) return p;
  gca_samples_take(p, lb, (word)granules, k);
  gca_counters_tl_keep();
  return p;
}

GC_INNER void *gca_hook_sample_ret(void *p, size_t lb, size_t granules,
                                   int k)
{
  /* The full profile's thread-local pop, counted inline already (the  */
  /* countdown kept due, counters.c): the tag only.  The countdown is   */
  /* set again, so that it never runs out (a 32-bit word would after    */
  /* some 2^29 granules).  Any other mode: a sample, or the countdown  */
  /* left from mode 2 drawn afresh (gca_samples_take).                  */
  if (EXPECT(2 == gca_tl_mode, TRUE)) {
    gca_sample_left = GCA_SAMPLE_EVERY;
    return gca_tags_alloc_tl(&gca_tl_self, p,
                             GRANULES_TO_BYTES(granules != 0 ? granules : 1));
  }
  if (gca_counters_tl_sample_due((word)granules)) {
    gca_samples_take(p, lb, (word)granules, k);
    gca_counters_tl_keep();
  }
  return p;
}

GC_INNER void *gca_hook_tl_due(void *p, size_t lb, size_t granules, int k,
                               void **fl)
{
# ifdef THREAD_LOCAL_ALLOC
    return gca_counters_alloc_tl_due(p, lb, granules, k, fl);
# else
    (void)lb; (void)granules; (void)k; (void)fl;
    return p;
# endif
}

GC_INNER void *gca_hook_tl_typed_due(void *p, size_t lb, size_t granules,
                                     int k)
{
# ifdef THREAD_LOCAL_ALLOC
    return gca_counters_alloc_tl_typed_due(p, lb, granules, k);
# else
    (void)lb; (void)granules; (void)k;
    return p;
# endif
}

GC_INNER void *gca_hook_locked_due(void *p, size_t lb, size_t lg, int k)
{
  return gca_counters_locked_due(p, lb, lg, k);
}

/* The refill's state for the macros (gca_hooks.h): BEGIN, an object  */
/* made inside next, which the end must know (so GC_ACC_ON_ALLOC_INNER  */
/* and this file's large objects take the general path), and the       */
/* thread's own lists' range forgotten; the end's hook notes it again. */
GC_INNER GCA_TLS_FAST struct gca_many_tl gca_many_tl;

GC_INNER void gca_hook_alloc_many_begin(void **result)
{
  gca_many_tl.in = 1;
  gca_many_tl.span = 0;
  gca_counters_many_begin(result);
}

GC_INNER void gca_hook_alloc_many_end(void **result, size_t lb, int k)
{
# ifdef THREAD_LOCAL_ALLOC
    GC_tlfs own = gca_tlflags_own();

    if (own != NULL) {
      gca_many_tl.lo = (word)own;
      gca_many_tl.span = sizeof(*own);
    }
# endif
  (void)k;
  gca_many_tl.in = 0;
  gca_counters_many_end(result, lb);
}

GC_INNER void gca_hook_debug_alloc(void *p, word sz)
{
  (void)sz;
  gca_counters_debug(p);
}

GC_INNER void gca_hook_tlfs_init(struct thread_local_freelists *p)
{
# ifdef THREAD_LOCAL_ALLOC
    gca_tlflags_init(p);
    gca_counters_tl_new_lists(p);
# else
    (void)p;
# endif
}

GC_INNER void gca_hook_tlfs_destroy(struct thread_local_freelists *p)
{
# ifdef THREAD_LOCAL_ALLOC
    gca_tlflags_destroy(p);
# else
    (void)p;
# endif
}

GC_INNER void gca_hook_thread_exit(void)
{
  BZERO(&gca_many_tl, sizeof(gca_many_tl));     /* its lists are freed */
  gca_counters_thread_exit();
  gca_samples_thread_exit();
  gca_sites_thread_exit();
  if (gca_on) gca_frames_thread_exit();
}

GC_INNER void gca_hook_free(void *p)
{
  if (GCA_PROFILE_SAMPLED == gca_profile) {
    gca_samples_free(p);
  } else {
    gca_tags_free(p);
  }
}

/* ---- heap blocks and free lists ----------------------------------------- */

GC_INNER void gca_hook_hblk_unmet(size_t sz, int kind, unsigned flags)
{
  gca_hblk_unmet_pending = 1;
  gca_hblk_hooks_update();
  gca_heapgrow_unmet(sz, kind, flags);
}

/* Without tags (or accounting) a block's hb_acc is NULL: the tag work */
/* is a call only when there is some (mode 2: accounting and tags on).  */
GC_INNER void gca_hook_hblk_alloc(struct hblk *h, hdr *hhdr)
{
  if (gca_hblk_unmet_pending) {
    gca_hblk_unmet_pending = 0;
    gca_hblk_hooks_update();
  }
  gca_heapgrow_satisfied();
  if (2 == gca_tl_mode) {
    gca_tags_hblk_alloc(h, hhdr);
  } else {
    hhdr->hb_acc = NULL;
  }
}

/* Called for blocks with a tag table only (gca_hooks.h).              */
GC_INNER void gca_hook_hblk_free(struct hblk *h, hdr *hhdr)
{
  gca_tags_hblk_free(h, hhdr);
}

GC_INNER void gca_hook_heap_grow(struct hblk *p, size_t bytes)
{
  gca_heapgrow_note(p, bytes);
  gca_heap_grows++;
  gca_objtype_heap_grew();
}

/* ---- collections -------------------------------------------------------- */

GC_INNER void gca_hook_mark_begin(void)
{
  gca_census_mark_begin();
  if (GCA_PROFILE_SAMPLED == gca_profile) gca_samples_mark_begin();
  gca_retain_mark_begin();      /* a request: the marking records     */
}

GC_INNER void gca_hook_mark_end(int done)
{
  gca_census_mark_end(done);
  gca_rmark_end(done);
}

GC_INNER void gca_hook_reclaim_begin(int report_if_found)
{
  gca_census_ride_begin(report_if_found);
}

GC_INNER GCA_NO_FRAME void gca_hook_reclaim_kept(struct hblk *h, hdr *hhdr)
{
  gca_census_ride_block(h, hhdr);
}

GC_INNER void gca_hook_collection_end(void)
{
  gca_collections++;
  gca_census_collection_end();
  if (gca_dump_is_open()) gca_record_emit(1);
  gca_retain_collection_end();          /* a request (retain_req.c)   */
  gca_retain_auto_collection_end();     /* auto: every census folded  */
}

#ifdef GCA_TEST_API
  static void hooks_poison_visit(struct hblk *h, word bad)
  {
    HDR(h)->hb_acc = (void *)bad;
  }

  /* Tests only (tests/unit/test_hb_acc): while the block hooks keep no  */
  /* hb_acc (GCA_HBLK_TABLES unset: tags never on), set every in-use     */
  /* block's to bad, as a header recycled from scratch memory may have   */
  /* it.  Returns 1, or 0 if hb_acc is kept now (nothing done).          */
  GC_API int GC_CALL GC_acc_test_hb_acc_poison(GC_word bad)
  {
    int r = 0;
    DCL_LOCK_STATE;

    LOCK();
    if (!(gca_hblk_hooks & GCA_HBLK_TABLES)) {
      GC_apply_to_all_blocks(hooks_poison_visit, (word)bad);
      r = 1;
    }
    UNLOCK();
    return r;
  }
#endif

#endif /* !GC_ACC_DISABLE */
