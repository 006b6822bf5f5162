/* SPDX-License-Identifier: MIT */
/*
 * tlflags.c: the copies of the allocation fast paths each mode runs, and
 * the thread-local fast path's flags, one beside each list.
 *
 * gca_tl_mode_update keeps the mode from the switches and points the
 * public fast paths at the copies of that mode (gca_hooks.h,
 * GC_ACC_COPIES): upstream's own code in mode 0, the countdown's copy in
 * mode 1 (no flag read: counters.c, "the countdown's promise"; the typed
 * copy once the program has set a type, gca_tl_typed), the flags' copy
 * in mode 2.  GC_generic_malloc's copy of mode 1 keeps no frame record:
 * it runs only while sampled stacks are taken by the unwind tables, and
 * the unwinder's changes pick again (gca_tlflags_unwinder_changed).
 *
 * bdwgc's thread-local fast path (GC_malloc_kind, GC_gcj_malloc) reads
 * one word beside the free list it pops from, and nothing else
 * (gca_hooks.h, GCA_TLFS_FIELDS): 0, the pop costs nothing more; 1, it
 * is counted inline into the thread's own counts; -1, it calls the hook
 * function.  Every thread's thread_local_freelists is known here from
 * its set-up to its end (GC_ACC_ON_TLFS_INIT, GC_ACC_ON_TLFS_DESTROY),
 * linked through its own fields, so that a change of mode reaches the
 * flags of every thread, including threads that never allocated since:
 * 0 in mode 0, -1 in modes 1 and 2.  In mode 1 the hook function then
 * registers the thread (counters.c) and sets its flags to 1.  In mode 0
 * the public functions jump to copies of the fast paths that read no
 * flag at all (gca_hooks.h, GC_ACC_COPIES), and the flags are not read.
 *
 * The list is changed and walked with the allocation lock held; a
 * thread sets its own flags without it, ordered against a change of
 * mode by gca_tlflags_settle.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
#include "private/thread_local_alloc.h"

/* Every thread's lists, newest first.                                   */
static GC_tlfs tlflags_all = NULL;

GC_INNER GC_tlfs gca_tlflags_own(void)
{
# if !defined(USE_PTHREAD_SPECIFIC) && !defined(USE_WIN32_SPECIFIC)
    if (0 == GC_thread_key) return NULL;
# endif
  return (GC_tlfs)GC_getspecific(GC_thread_key);
}

GC_INNER void gca_tlflags_set(GC_tlfs tlfs, signed_word v)
{
  unsigned k, g;

  for (k = 0; k < GCA_TL_ROWS; k++) {   /* gcj_freelists' row included */
    for (g = 0; g < TINY_FREELISTS; g++)
      GCA_STORE(&tlfs->gca_inline[k][g], v);
  }
}

static void tlflags_unlink(GC_tlfs p)
{
  if (p->gca_tlfs_prev != NULL) {
    p->gca_tlfs_prev->gca_tlfs_next = p->gca_tlfs_next;
  } else {
    tlflags_all = p->gca_tlfs_next;
  }
  if (p->gca_tlfs_next != NULL)
    p->gca_tlfs_next->gca_tlfs_prev = p->gca_tlfs_prev;
  p->gca_tlfs_next = p->gca_tlfs_prev = NULL;
  p->gca_tlfs_linked = 0;
}

/* Upstream allocates the struct zeroed (or reuses one that left through */
/* gca_tlflags_destroy), so gca_tlfs_linked is 0 unless the same struct  */
/* is set up twice.                                                       */
GC_INNER void gca_tlflags_init(GC_tlfs p)
{
  if (p->gca_tlfs_linked) tlflags_unlink(p);
  p->gca_tlfs_prev = NULL;
  p->gca_tlfs_next = tlflags_all;
  if (tlflags_all != NULL) tlflags_all->gca_tlfs_prev = p;
  tlflags_all = p;
  p->gca_tlfs_linked = 1;
  gca_tlflags_set(p, GCA_TL_FLAG_FOR(gca_tl_mode));
}

GC_INNER void gca_tlflags_destroy(GC_tlfs p)
{
  gca_tlflags_set(p, 0);
  if (p->gca_tlfs_linked) tlflags_unlink(p);
}

/* gca_tl_mode_update stores the mode, fences, then sets every thread's */
/* flags here; gca_tlflags_settle sets a thread's own, fences, then     */
/* reads the mode: either the walk's stores come after the thread's, or */
/* the thread sees the newer mode and sets its own for it.              */
GC_INNER void gca_tlflags_mode_changed(int mode)
{
  GC_tlfs p;

  AO_nop_full();
  for (p = tlflags_all; p != NULL; p = p->gca_tlfs_next)
    gca_tlflags_set(p, GCA_TL_FLAG_FOR(mode));
}

GC_INNER void gca_tlflags_settle(GC_tlfs tlfs, int m, signed_word v)
{
  int now;

  gca_tlflags_set(tlfs, v);
  AO_nop_full();
  now = (int)GCA_LOAD(&gca_tl_mode);
  if (now != m) gca_tlflags_set(tlfs, GCA_TL_FLAG_FOR(now));
}

/* In a child after fork(): the other threads' lists are gone (freed or */
/* abandoned by upstream's own handler, which ran first, never          */
/* destroyed); only the calling thread's is left.                        */
GC_INNER void gca_tlflags_atfork_child(void)
{
  GC_tlfs own = gca_tlflags_own();

  tlflags_all = NULL;
  if (own != NULL && own->gca_tlfs_linked) {
    own->gca_tlfs_next = own->gca_tlfs_prev = NULL;
    tlflags_all = own;
  }
}

#endif /* THREAD_LOCAL_ALLOC */

/* Set (lock held) before gca_tl_mode is first 1, the only mode in     */
/* which the inline hooks write the locked rows: until then the sums   */
/* skip them, and their pages (2 KiB a kind) stay untouched.           */
GC_INNER int gca_locked_rows_used = 0;

#if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC) \
    && defined(GC_GCJ_SUPPORT)
/* GC_gcj_malloc's copy without the test of GC_incremental              */
/* (gca_copy_gcj_malloc_offni, gca_hooks.h) runs in mode 0 until         */
/* incremental collection may have started (tlflags_incremental, set    */
/* once, never cleared); then mode 0 runs upstream's code with the      */
/* test.  The pointer leaves that copy by a compare-and-swap only, so   */
/* that a racing change of mode (lock held; the hook runs without the   */
/* lock) keeps its own copy.                                             */
static volatile AO_t tlflags_incremental = 0;
# define TLFLAGS_GCJ_NI_TO_OFF() \
        (void)AO_compare_and_swap_full((volatile AO_t *)&gca_copy_gcj_malloc, \
                               (AO_t)gca_copy_gcj_malloc_offni, \
                               (AO_t)gca_copy_gcj_malloc_off)
#endif

GC_INNER void gca_tlflags_incremental(void)
{
# if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC) \
     && defined(GC_GCJ_SUPPORT)
    AO_store_full(&tlflags_incremental, 1);
    TLFLAGS_GCJ_NI_TO_OFF();
# endif
}

#ifdef GCA_COPIES
/* GC_generic_malloc's copy for mode (gca_hooks.h, GC_ACC_COPIES): in  */
/* mode 1 the one without the frame record only while sampled stacks   */
/* are taken by the unwind tables (the table walk needs no record; the */
/* frame-pointer walk would lose the program's frames below it, at the */
/* large object's sample); else the one with the record.                */
static void *(*tlflags_generic_copy(int mode))(size_t, int)
{
  return 0 == mode ? gca_copy_generic_malloc_off
         : 1 == mode && gca_sites_sampled_by_tables()
         ? gca_copy_generic_malloc_cnt : gca_copy_generic_malloc_on;
}
#endif

/* The unwinder changed (GC_acc_set_unwinder, lock held).              */
GC_INNER void gca_tlflags_unwinder_changed(void)
{
# ifdef GCA_COPIES
    GCA_STORE(&gca_copy_generic_malloc,
              tlflags_generic_copy((int)GCA_LOAD(&gca_tl_mode)));
# endif
}

/* Set (lock held, once) when GC_acc_set_next_type is first called: from */
/* then on mode 1 runs the typed copy of the thread-local fast paths     */
/* (gca_hooks.h, GCA_TL_COUNT_TYPED_), whose pops count the thread's    */
/* countdown down, as the global path's do, and count inline while it  */
/* is not due.  The copy of mode 1 counts its pops in its lists' words  */
/* only (counters.c, "the lists' countdowns"), which a type set for the */
/* next allocation could only check by summing the thread's lists'     */
/* words at every call (some 300 instructions on gameloop-typed).  The  */
/* flags' copy would do too, at a load and compare of the flag more a   */
/* pop (gameloop-typed sampled: 1.0376 of compiled out, the typed copy  */
/* 1.0304; docs/design.md); programs that never set a type keep the    */
/* one-word pop.                                                         */
GC_INNER int gca_tl_typed = 0;

#if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC)
/* The thread-local fast paths' copy of mode: 0, upstream's code; 3,    */
/* the lists' countdowns' (mode 1); 4, the typed copy (mode 1 once      */
/* typed); 2, the flags' (mode 2).                                      */
# define TLFLAGS_TL_COPY(mode, typed) \
        (0 == (mode) ? 0 : 2 == (mode) ? 2 : (typed) ? 4 : 3)
#endif

/* The copies of the fast paths of mode (gca_hooks.h, GC_ACC_COPIES):   */
/* upstream's own code in mode 0, the countdown's copy in mode 1 (the   */
/* typed copy once typed), the flags' copy in mode 2; lock held.         */
static void tlflags_copies(int mode, int typed)
{
# ifdef GCA_COPIES
#   ifdef THREAD_LOCAL_ALLOC
      int c = TLFLAGS_TL_COPY(mode, typed);
#   endif

    AO_nop_full();
    /* Mode 1 once typed, where its copy counts in the rows' words: the */
    /* copy of mode 2, whose pops move the thread's countdown            */
    /* (gca_hooks.h, GCA_LOCKED_ROWS_WORDS).                              */
    GCA_STORE(&gca_copy_malloc_kind_global,
              1 == mode && !(typed && GCA_LOCKED_ROWS_WORDS)
              ? gca_copy_malloc_kind_global_cnt : mode != 0
              ? gca_copy_malloc_kind_global_on
              : gca_copy_malloc_kind_global_off);
    GCA_STORE(&gca_copy_generic_malloc, tlflags_generic_copy(mode));
#   ifdef THREAD_LOCAL_ALLOC
      GCA_STORE(&gca_copy_malloc_kind, 3 == c ? gca_copy_malloc_kind_cnt
                : 4 == c ? gca_copy_malloc_kind_typ
                : 2 == c ? gca_copy_malloc_kind_on
                : gca_copy_malloc_kind_off);
#     ifdef GC_GCJ_SUPPORT
        GCA_STORE(&gca_copy_gcj_malloc, 3 == c ? gca_copy_gcj_malloc_cnt
                  : 4 == c ? gca_copy_gcj_malloc_typ
                  : 2 == c ? gca_copy_gcj_malloc_on
                  : AO_load_full(&tlflags_incremental)
                  ? gca_copy_gcj_malloc_off : gca_copy_gcj_malloc_offni);
        /* A GC_enable_incremental racing with it (its hook sets the   */
        /* flag, then swaps) finds the copy without the test gone.     */
        AO_nop_full();
        if (AO_load(&tlflags_incremental)) TLFLAGS_GCJ_NI_TO_OFF();
#     endif
#   endif
# else
    (void)mode; (void)typed;
# endif
}

GC_INNER GC_ATTR_NOINLINE void gca_tlflags_typed(void)
{
  DCL_LOCK_STATE;

  LOCK();
  if (!gca_tl_typed) {
    /* The copies first: a thread that finds gca_tl_typed set pops in   */
    /* the typed copy, whose pops GC_acc_set_next_type's note sees.      */
    tlflags_copies(gca_tl_mode, 1);
    AO_nop_full();
    GCA_STORE(&gca_tl_typed, 1);
  }
  UNLOCK();
}

/* gca_tl_mode from gca_on and gca_tags_on; lock held.                    */
GC_INNER void gca_tl_mode_update(void)
{
  int mode = !gca_on ? 0 : gca_tags_on ? 2 : 1;

  if (mode == gca_tl_mode) return;
  if (1 == mode) gca_locked_rows_used = 1;
  GCA_STORE(&gca_tl_mode, mode);
# ifdef THREAD_LOCAL_ALLOC
    gca_tlflags_mode_changed(mode);
# endif
  /* Then the copies of the fast paths of the mode (gca_hooks.h,        */
  /* GC_ACC_COPIES): upstream's own code in mode 0, the countdown's     */
  /* copy in mode 1 (once typed, the typed copy), the flags' copy in    */
  /* mode 2: after the flags, so                                         */
  /* that a thread that takes the flags' copy finds its flags -1, not a */
  /* 0 of before.  A pop that took another copy just before counts as   */
  /* one just before the change, as a pop that read a flag just before */
  /* it always did.  (A global pop that waited for the lock in the copy */
  /* without the counts, while the mode changed, is such a pop too.)    */
  tlflags_copies(mode, gca_tl_typed);
}

#ifdef GCA_TEST_API
#if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC)
  /* Tests only: the copy the thread-local fast paths now run: 0,       */
  /* upstream's code; 3, the lists' countdowns' (mode 1); 4, the typed   */
  /* copy (mode 1 once a type was set); 2, the flags' (mode 2); -2 if    */
  /* GC_gcj_malloc's is not GC_malloc_kind's.                            */
  GC_API int GC_CALL GC_acc_test_tl_copy(void)
  {
    void *(*c)(size_t, int) = GCA_LOAD(&gca_copy_malloc_kind);
    int r = c == gca_copy_malloc_kind_cnt ? 3
            : c == gca_copy_malloc_kind_typ ? 4
            : c == gca_copy_malloc_kind_on ? 2 : 0;

#   ifdef GC_GCJ_SUPPORT
      void *(*j)(size_t, void *) = GCA_LOAD(&gca_copy_gcj_malloc);

      if ((j == gca_copy_gcj_malloc_cnt ? 3 : j == gca_copy_gcj_malloc_typ
           ? 4 : j == gca_copy_gcj_malloc_on ? 2 : 0) != r)
        return -2;
#   endif
    return r;
  }
#else
  GC_API int GC_CALL GC_acc_test_tl_copy(void) { return -1; }
#endif

  /* Tests only (tests/unit/test_tl_copies.c): which copies of the     */
  /* fast paths the public functions now jump to: 0, all upstream's    */
  /* own code; 1, all the copies with the counts; 2, some of each; -1,  */
  /* none made (a series without them).                                 */
  GC_API int GC_CALL GC_acc_test_copies(void)
  {
#  ifndef GCA_COPIES
    return -1;
#  else
    /* The copies of the mode now (1: the countdown's or the typed     */
    /* one, 2: the flags').                                               */
    int m = (int)GCA_LOAD(&gca_tl_mode);
#   define TLFLAGS_COPY_ON(fn, c) \
        (GCA_LOAD(&gca_copy_##fn) == ((c) ? gca_copy_##fn##_cnt \
                                      : gca_copy_##fn##_on))
    int on = TLFLAGS_COPY_ON(malloc_kind_global, 1 == m
                             && !(gca_tl_typed && GCA_LOCKED_ROWS_WORDS)),
        n = 2;

    /* GC_generic_malloc's: the copy of the mode and the unwinder.      */
    on += GCA_LOAD(&gca_copy_generic_malloc) != gca_copy_generic_malloc_off;

#   ifdef THREAD_LOCAL_ALLOC
      /* Mode 0 as the other copies: are they the flags' copy?          */
      on += GC_acc_test_tl_copy()
            == (0 == m ? 2 : TLFLAGS_TL_COPY(m, gca_tl_typed));
      n++;
#   endif
#   undef TLFLAGS_COPY_ON
    return 0 == on ? 0 : on == n ? 1 : 2;
#  endif
  }

  /* Tests only: GC_malloc_kind_global's copy now: 0, upstream's code; */
  /* 3, mode 1's (the rows' countdowns); 2, the one that asks the mode  */
  /* (mode 2, or mode 1 once typed); -1 where the series makes none.    */
  GC_API int GC_CALL GC_acc_test_global_copy(void)
  {
#  ifndef GCA_COPIES
    return -1;
#  else
    void *(*c)(size_t, int) = GCA_LOAD(&gca_copy_malloc_kind_global);

    return c == gca_copy_malloc_kind_global_cnt ? 3
           : c == gca_copy_malloc_kind_global_on ? 2 : 0;
#  endif
  }

  /* Tests only: GC_generic_malloc's copy now: 0, upstream's code (mode */
  /* 0); 1, mode 1's without the frame record; 2, the one with it (mode */
  /* 2, or mode 1 while a frame-pointer walk may take sampled stacks);  */
  /* -1 where the series makes none; 3 if it is not the one             */
  /* tlflags_generic_copy picks for the mode and unwinder now.          */
  GC_API int GC_CALL GC_acc_test_copy_large(void)
  {
#  ifndef GCA_COPIES
    return -1;
#  else
    void *(*c)(size_t, int) = GCA_LOAD(&gca_copy_generic_malloc);

    if (c != tlflags_generic_copy((int)GCA_LOAD(&gca_tl_mode))) return 3;
    return c == gca_copy_generic_malloc_off ? 0
           : c == gca_copy_generic_malloc_cnt ? 1 : 2;
#  endif
  }

  /* Tests only: 0 while GC_gcj_malloc runs its copy without the test  */
  /* of GC_incremental, else 1; -1 where the series makes no such copy  */
  /* (gca_hooks.h, GCA_COPY_EXTRA_gcj_malloc).                          */
  GC_API int GC_CALL GC_acc_test_gcj_divert(void)
  {
#  if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC) \
      && defined(GC_GCJ_SUPPORT)
    return GCA_LOAD(&gca_copy_gcj_malloc) != gca_copy_gcj_malloc_offni;
#  else
    return -1;
#  endif
  }
#endif

#endif /* !GC_ACC_DISABLE */
