/* SPDX-License-Identifier: MIT */
/*
 * counters_due.c: the due pops of mode 1's thread-local copies: the
 * lists' copy's (a list's countdown ran out, or was made due: counters_tl.c,
 * "the lists' countdowns") and the typed copy's (the thread's countdown:
 * counters.c, "the countdown's promise").  Each counts the pop as its copy
 * could not, re-arms, and takes the sample if there is one.  Called from
 * the hooks (hooks.c) only.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif
#include "gca_counters.h"

#ifdef THREAD_LOCAL_ALLOC
/* The due pop p of the copy of mode 1, from list fl (counters.c, "the  */
/* lists' countdowns"), lb bytes asked for, granules its list's.       */
GC_INNER void *gca_counters_alloc_tl_due(void *p, size_t lb, size_t granules,
                                         int k, void **fl)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  int mode = (int)GCA_LOAD(&gca_tl_mode);
  word b = TL_B(fl), next = 0;
  /* List 0 holds objects of one granule (GC_FAST_MALLOC_GRANS).        */
  word list_granted = GRANULES_TO_BYTES(granules != 0 ? (word)granules : 1);
  word granted = list_granted;
  /* Armed for the refill's object: this pop is in no count yet.        */
  int pend = (signed_word)(b - (word)TL_W(fl)) < 0;
  int take = 0, linked = t != NULL && t->tlfs != NULL;

  if (!linked && 1 == mode) {
    t = gca_counters_get(me);
    linked = t != NULL && gca_counters_tl_link(t) != NULL;
  }
  if (1 == mode) {
    if (pend && t != NULL && COUNTERS_PENDING == t->in_many
        && p == t->last_p)
      granted = HDR(p)->hb_sz;  /* its own size: counted when made */
    take = gca_samples_tl_due(!pend && (b & 1) != 0, granted, list_granted,
                              &next);
  }
  /* The list's next pops: counted inline while its counts are read,   */
  /* up to the sample point drawn; else each one due.                   */
  b = !linked || mode != 1 ? 0 : 0 == next ? TL_B_CAPPED : TL_B_REAL(next);
  gca_counters_tl_rearm(fl, b, (signed_word)b, linked);
  if (pend || !linked) {
    /* Not counted by the fold: counted as the hook of the flags counts */
    /* it (the refill's object: its request only).                      */
    if (2 == mode) return gca_counters_alloc_tl_tags(p, lb, granules, k);
    if (1 == mode) (void)gca_counters_alloc_tl_slow(me, p, lb, granules, k);
  } else if (2 == mode) {
    /* The copy raced with a change of mode: counted, now tagged.       */
    return gca_tags_alloc_tl(me, p, list_granted);
  }
  /* A type set for the next allocation is never this one's: the first */
  /* GC_acc_set_next_type switched mode 1 to the typed copy before it   */
  /* noted the type (tlflags.c, gca_tl_typed), so a pop of this copy    */
  /* after it raced with the switch: the type is dropped, not given to  */
  /* an object it may not be for.                                        */
  me->next_type = 0;
  if (take) gca_samples_tl_take(p, lb, granted, k);
  return p;
}
#endif

#ifdef THREAD_LOCAL_ALLOC
/* The due pop p of the typed copy of mode 1 (gca_hooks.h,             */
/* GCA_TL_COUNT_TYPED_): the thread's countdown ran out, or was made    */
/* due ("the countdown's promise", above); counted in the record, and   */
/* sampled by gca_samples_take, which gives it the type set for the     */
/* next allocation if none came between.                                 */
GC_INNER void *gca_counters_alloc_tl_typed_due(void *p, size_t lb,
                                               size_t granules, int k)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  int mode = (int)GCA_LOAD(&gca_tl_mode);
  /* Sampled at its pop: the refill's object for its list (made due for */
  /* it, counters_many_end_slow), by its own granules, its countdown    */
  /* drawn when made.                                                    */
  word g = t != NULL && COUNTERS_PENDING == t->in_many && p == t->last_p
           ? BYTES_TO_GRANULES(HDR(p)->hb_sz) : 0;
  int due = gca_counters_tl_sample_due(0 == g ? (word)granules : 0);

  if (EXPECT(mode != 1, FALSE)) {
    /* The copy raced with a change of mode: the full profile's pop, or */
    /* (mode 0) one not counted, as a pop that read its flag 0.         */
    if (2 == mode) return gca_counters_alloc_tl_tags(p, lb, granules, k);
    return p;
  }
  /* As inline, in the record (granules 0: the sum folds it in class 1). */
  /* (Out of line: a due pop is about one a sample.)                   */
  (void)gca_counters_alloc_tl_slow(me, p, lb, granules, k);
  if (due) {
    gca_samples_take(p, lb, 0 == g ? (word)granules : g, k);
    gca_counters_tl_keep();
  }
  return p;
}
#endif

#endif /* !GC_ACC_DISABLE */
