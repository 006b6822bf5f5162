/* SPDX-License-Identifier: MIT */
/*
 * counters_due.c: the due pops of mode 1's copies: the thread-local
 * lists' copy's (a list's countdown ran out, or was made due: counters_tl.c,
 * "the lists' countdowns"), the typed copy's (the thread's countdown:
 * counters.c, "the countdown's promise") and GC_malloc_kind_global's (a
 * lock-held row's countdown: "the rows' countdowns", below).  Each counts
 * the pop as its copy could not, re-arms, and takes the sample if there
 * is one.  Called from the hooks (hooks.c) only; and the rows' countdowns'
 * folds for the sums and for a change of rate.
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
    take = gca_samples_countdown_due(!pend && (b & 1) != 0, granted,
                                     list_granted, &next);
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
  if (take) gca_samples_countdown_take(p, lb, granted, k);
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

/* ---- the rows' countdowns ------------------------------------------------ */

/* GC_malloc_kind_global's copy of mode 1 counts its pops into one word  */
/* a lock-held row, as the lists' copy does into one a list             */
/* (counters_tl.c, "the lists' countdowns", whose arithmetic this is):   */
/* locked_wb[i] holds -W and B, and after k pops of r requested bytes  */
/* since B was set, B - W = k * GCA_TL_S + r.  The                      */
/* rows are shared by all threads, and everything here, the pops, the   */
/* folds and the sums (counters_sum.c), runs with the allocation lock   */
/* held.  A row's requests are at most its class's bytes, so its cap is */
/* its own: (GCA_TL_S - 2) / 2 over them (on 64-bit targets 262,143     */
/* pops of 2 KiB objects, on 32-bit ones 255), and never over           */
/* GCA_TL_CAP_WORD (B in a signed word).  A countdown drawn from its    */
/* row's objects samples each pop independently, with the probability  */
/* the thread's countdown by bytes gives it (samples.c), whichever       */
/* thread pops it.                                                        */
#define LOCKED_S ((word)GCA_TL_S)

/* The kinds whose rows' countdowns were ever set (a due of one of     */
/* their rows, at its first pop: a row's word is 0 till then): the     */
/* sums and the redraw read only theirs, so that the pages of the      */
/* others are never touched, not even read (a page read is resident   */
/* too, as mincore and acc_memory.sh count).  Lock held.                */
static unsigned char locked_kind_set[MAXOBJKINDS];

static word locked_cap(word lg)
{
  word cap = (LOCKED_S - 2) / GRANULES_TO_BYTES(lg) / 2;

  return cap < (word)GCA_TL_CAP_WORD ? cap : (word)GCA_TL_CAP_WORD;
}

GC_INNER void gca_counters_locked_pending(unsigned k, unsigned lg,
                                         word *objs, word *req)
{
  word i = (word)k * GCA_LOCKED_KIND_ROWS + lg, x;

  if (!locked_kind_set[k]) {
    *objs = *req = 0;           /* never set: not read either          */
    return;
  }
  x = (word)gca_tables->locked_wb[i][1] + (word)gca_tables->locked_wb[i][0];
  *objs = x >> GCA_TL_LOG_S;
  *req = x & (LOCKED_S - 1);
}

/* Row (k, lg)'s countdown folded into its counts and set to b.        */
static void locked_rearm(unsigned k, unsigned lg, word b)
{
  word i = (word)k * GCA_LOCKED_KIND_ROWS + lg, o, r;

  gca_counters_locked_pending(k, lg, &o, &r);
  if ((o | r) != 0) {
    GCA_OWN_ADD(&gca_tables->locked_rows[i][0], o);
    GCA_OWN_ADD(&gca_tables->locked_rows[i][1], r);
  }
  gca_tables->locked_wb[i][1] = (signed_word)b;
  GCA_STORE(&gca_tables->locked_wb[i][0], -(signed_word)b);
}

GC_INNER void *gca_counters_locked_due(void *p, size_t lb, size_t lg, int k)
{
  word i = (word)k * GCA_LOCKED_KIND_ROWS + (word)lg;
  word granted = GRANULES_TO_BYTES((word)lg), next = 0, cap = 0;
  int take = 0;

  GC_ASSERT(I_HOLD_LOCK());
  locked_kind_set[k] = 1;
  if (EXPECT(1 == gca_tl_mode, TRUE)) {
    /* B odd: its last pop is the sample point drawn; else (made due,  */
    /* or capped) a fresh draw decides this pop.                         */
    take = gca_samples_countdown_due((gca_tables->locked_wb[i][1] & 1) != 0,
                                     granted, granted, &next);
    cap = locked_cap((word)lg);
  }
  /* Not mode 1 (the copy raced with a change of mode: the pop counted */
  /* as one just before it), the next pop due again.                    */
  locked_rearm((unsigned)k, (unsigned)lg, 0 == cap ? 0
               : 0 == next || next > cap
                  ? cap * LOCKED_S - 2 : next * LOCKED_S - 1);
  /* A type set for the next allocation is never this one's: once a    */
  /* type was set, mode 1 runs GC_malloc_kind_global's copy of mode 2  */
  /* (tlflags.c), so this pop raced with that switch.                   */
  gca_tl_self.next_type = 0;
  if (take) gca_samples_countdown_take(p, lb, granted, k);
  return p;
}

GC_INNER void gca_counters_locked_rearm_all(void)
{
  unsigned k, lg;

  GC_ASSERT(I_HOLD_LOCK());
  if (!gca_locked_rows_used) return;
  for (k = 0; k < GC_n_kinds && k < MAXOBJKINDS; k++) {
    if (!locked_kind_set[k]) continue;
    for (lg = 1; lg <= MAXOBJGRANULES; lg++) {
      word i = (word)k * GCA_LOCKED_KIND_ROWS + lg;

      if ((gca_tables->locked_wb[i][0] | gca_tables->locked_wb[i][1]) != 0)
        locked_rearm(k, lg, 0);
    }
  }
}

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_locked_countdown.c): the cap of the   */
  /* rows' countdowns of lg granules.                                    */
  GC_API GC_word GC_CALL GC_acc_test_locked_cap(GC_word lg)
  {
    /* 0 where the copy counts as the other sites do.                  */
    return GCA_LOCKED_ROWS_WORDS && lg != 0 ? locked_cap(lg) : 0;
  }

  /* Tests only: the pops row (k, lg)'s countdown was last set to run, */
  /* its sample point or cap (0: due at its next pop).                   */
  GC_API GC_word GC_CALL GC_acc_test_locked_draw(int k, GC_word lg)
  {
    word b;
    DCL_LOCK_STATE;

    if (k < 0 || k >= MAXOBJKINDS || 0 == lg || lg > MAXOBJGRANULES
        || NULL == gca_tables)
      return 0;
    LOCK();
    b = (word)gca_tables->locked_wb[(word)k * GCA_LOCKED_KIND_ROWS + lg][1];
    UNLOCK();
    return (b + 2) >> GCA_TL_LOG_S;
  }
#endif

#endif /* !GC_ACC_DISABLE */
