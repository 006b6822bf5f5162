/* SPDX-License-Identifier: MIT */
/*
 * counters_tl.c: the thread-local lists' words, which the copy of mode 1
 * of the fast paths counts its pops into (gca_hooks.h, GCA_TL_COUNT_COPY_):
 * their decoding into objects and requested bytes, their folding into the
 * lists' counts at a due, and the read of a thread's lists by the sums;
 * and the registry of the threads' records (counters.c's) and its lock,
 * which orders the two.  The rest of the counts per thread are
 * counters.c's.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif
#include "gca_counters.h"

GC_INNER struct gca_thread *volatile gca_counters_registry = NULL;
#ifdef THREADS
  GC_INNER volatile AO_TS_t gca_counters_lock = AO_TS_INITIALIZER;
#endif

#ifdef THREAD_LOCAL_ALLOC
  /* The lists' countdowns.  The copy of mode 1 counts a list's pops    */
  /* into one word, W (gca_w holds -W and gca_b -B, read and written     */
  /* through TL_W, TL_B, TL_SET: gca_hooks.h, GCA_TL_COUNT_COPY_): each  */
  /* lowers it by GCA_TL_S + lb.  Set to B with no pops since,           */
  /* after k pops of r requested bytes in all it is B - k * GCA_TL_S - r, */
  /* and r < GCA_TL_S (each lb is below GCA_TL_MAX_LB, k at most          */
  /* GCA_TL_CAP): so B - W = k * GCA_TL_S + r, k and r its high and low  */
  /* parts, no borrow between them.  B is m * GCA_TL_S - 1 (a sample    */
  /* point m pops on: a draw, samples.c), m * GCA_TL_S - 2 (no sample   */
  /* point within m = GCA_TL_CAP pops), or 0 (due at the next pop,      */
  /* which a fresh draw decides: a list's first, or made due): W stays  */
  /* at or above 0 for m - 1 pops (m - k pops left: W >= GCA_TL_S - 2 - */
  /* r >= 0, and so above 0 but for r = GCA_TL_S - 1 or - 2, which the */
  /* cap leaves out) and goes below at the m-th (-1 - r or -2 - r), due */
  /* (the pop is due when W is not above 0: never 0 after a pop).  The  */
  /* low bit of B says which: 1, the pop that ran it out is a sample.   */
  /* One more state: B = -2 * GCA_TL_S, W = 0, armed for the object     */
  /* GC_generic_malloc_many made for the list as a last attempt         */
  /* (counters_many_end_slow), counted when made: B - W is below 0      */
  /* before its pop and after it (-GCA_TL_S + lb), which reads as no    */
  /* counts, and the pop is due: the hook counts it.                    */
  /*   The owner alone writes W (its pops, one store each) and B.  The  */
  /* sums (another thread, the allocation lock held, world maybe        */
  /* running) read a list's gca_objs, gca_req, B and W with the          */
  /* registry's lock (COUNTERS_LOCK) held; the owner folds B - W into  */
  /* gca_objs and gca_req and sets B and W again only with that lock    */
  /* held (gca_counters_tl_rearm), at a due: about once a sample, or        */
  /* GCA_TL_CAP pops.  So a sum never finds a fold half done, and W     */
  /* alone moves under it: it counts a pop or not, never twice.         */

  /* The pops counted in b - w: objects and requested bytes.            */
  GC_INLINE void counters_tl_decode(word b, signed_word w, word *objs,
                                    word *req)
  {
    signed_word x = (signed_word)(b - (word)w);

    if (x < 0) x = 0;           /* armed for the refill's object */
    *objs = (word)x >> TL_LOG_S;
    *req = (word)x & (word)(TL_S - 1);
  }

  /* List g of row k of tlfs: its counts, folded and not.               */
  static void counters_tl_list(GC_tlfs tlfs, unsigned k, unsigned g,
                               word *objs, word *req)
  {
    word o, r;

    counters_tl_decode((word)0 - GCA_LOAD(&tlfs->gca_b[k][g]),
                       -GCA_LOAD(&tlfs->gca_w[k][g]), &o, &r);
    *objs = GCA_LOAD(&tlfs->gca_objs[k][g]) + o;
    *req = GCA_LOAD(&tlfs->gca_req[k][g]) + r;
  }

  /* Fold list fl's countdown into its counts and set it to b, its word */
  /* to w (the owner calling; lock: when its thread's counts are read by */
  /* the sums).  The owner's own loads need no lock.                     */
  GC_INNER void gca_counters_tl_rearm(void **fl, word b, signed_word w,
                                     int lock)
  {
    word o, r;

    counters_tl_decode(TL_B(fl), TL_W(fl), &o, &r);
    if (lock) COUNTERS_LOCK();
    if ((o | r) != 0) {
      GCA_OWN_ADD(GCA_TL_AT(fl, gca_objs), o);
      GCA_OWN_ADD(GCA_TL_AT(fl, gca_req), r);
    }
    TL_SET(fl, b, w);
    if (lock) COUNTERS_UNLOCK();
  }

  GC_INNER void gca_counters_tl_read(GC_tlfs tlfs,
                                     struct counters_tl_counts *out)
  {
    unsigned k, g;

#   ifdef GC_GCJ_SUPPORT
      /* gcj_freelists is row THREAD_FREELISTS_KINDS of the lists for   */
      /* the fast path's counts and flags (GCA_TLFS_FIELDS).             */
      GC_STATIC_ASSERT(offsetof(struct thread_local_freelists, gcj_freelists)
                       == offsetof(struct thread_local_freelists, _freelists)
                          + sizeof(tlfs->_freelists));
#   endif
    for (k = 0; k < THREAD_FREELISTS_KINDS; k++) {
      for (g = 0; g < TINY_FREELISTS; g++)
        counters_tl_list(tlfs, k, g, &out->objs[k][g], &out->req[k][g]);
    }
#   ifdef GC_GCJ_SUPPORT
      for (g = 0; g < TINY_FREELISTS; g++)
        counters_tl_list(tlfs, THREAD_FREELISTS_KINDS, g, &out->gcj_objs[g],
                         &out->gcj_req[g]);
#   endif
  }
#endif /* THREAD_LOCAL_ALLOC */

#endif /* !GC_ACC_DISABLE */
