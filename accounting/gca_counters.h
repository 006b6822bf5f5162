/* SPDX-License-Identifier: MIT */
/*
 * gca_counters.h: the per-thread records of allocation counts, shared by
 * the module that keeps them (counters.c: the allocation path, a thread's
 * claim and exit, GC_generic_malloc_many) and the module that reads them
 * (counters_sum.c: the sums, under the allocation lock) only.
 *
 * Included after gca_priv.h (and, with THREAD_LOCAL_ALLOC,
 * private/thread_local_alloc.h), with GC_ACC_DISABLE undefined.
 */
#ifndef GCA_COUNTERS_H
#define GCA_COUNTERS_H

/* Classes per chunk of a record's counts (a power of two; 384 bytes   */
/* on 64-bit targets), chunks and classes (rounded up) per kind.        */
#define COUNTERS_CH 16
#define COUNTERS_NCH ((GCA_N_CLASSES + COUNTERS_CH - 1) / COUNTERS_CH)
#define COUNTERS_STRIDE (COUNTERS_NCH * COUNTERS_CH)

#ifdef THREAD_LOCAL_ALLOC
  /* A thread's fast-path counts (GCA_TLFS_FIELDS), by list.             */
  struct counters_tl_counts {
    word objs[THREAD_FREELISTS_KINDS][TINY_FREELISTS];
    word req[THREAD_FREELISTS_KINDS][TINY_FREELISTS];
#   ifdef GC_GCJ_SUPPORT
      word gcj_objs[TINY_FREELISTS];
      word gcj_req[TINY_FREELISTS];
#   endif
  };
#endif

struct gca_thread {
  struct gca_thread *next;      /* registry, newest first; never unlinked */
# ifdef THREAD_LOCAL_ALLOC
    /* Its owner's thread-local free lists, whose counts the sums add,  */
    /* or NULL; and those counts as the last sum read them (lock held), */
    /* kept for a child after fork(), where the lists of the other      */
    /* threads are freed before its handler runs.                       */
    GC_tlfs tlfs;
    struct counters_tl_counts tl_seen;
# endif
  word debug_objs[MAXOBJKINDS];
  /* GC_generic_malloc_many bookkeeping (see gca_hooks.h).               */
  void *last_p;                 /* last object counted inside it          */
  word last_req;
  unsigned last_i;              /* its counts (COUNTERS_I)                */
  volatile unsigned owned;      /* nonzero while a live thread uses it    */
  /* The bytes of OS pages the record and its chunks took (read by the  */
  /* sums); where the owner carves its next chunk.  Small fields packed: */
  /* 3328 bytes on 64-bit targets leave two chunks in the first page.    */
  volatile unsigned mapped;
  unsigned char in_many;        /* inside GC_generic_malloc_many (1), or */
                                /* COUNTERS_PENDING                      */
  unsigned char many_to_tl;     /* its list is for our thread-local lists */
  char *arena, *arena_end;
  /* Counts i (COUNTERS_I) in chunk i / COUNTERS_CH, or NULL: none     */
  /* counted yet.  Set once, by the owner (release).                     */
  struct gca_count *chunk[MAXOBJKINDS * COUNTERS_NCH];
};

/* Every record, newest first (counters.c pushes, under the lock).      */
GC_EXTERN struct gca_thread *volatile gca_counters_registry;

#ifdef THREADS
  GC_EXTERN volatile AO_TS_t gca_counters_lock;
# define COUNTERS_LOCK() \
        while (AO_test_and_set_acquire(&gca_counters_lock) == AO_TS_SET) \
          { /* spin: held only to claim or push a record, or to sum */ }
# define COUNTERS_UNLOCK() AO_CLEAR(&gca_counters_lock)
#else
# define COUNTERS_LOCK() (void)0
# define COUNTERS_UNLOCK() (void)0
#endif

/* in_many after a refill of one of the thread's own lists that got a  */
/* single object from the fallback allocation: that object (last_p) is */
/* counted already, at its true size, and its pop must not count it     */
/* again (gca_counters_many_end).                                        */
#define COUNTERS_PENDING 2

/* counters.c, for counters_due.c: t of the calling thread's gca_tl me */
/* (claimed if need be; NULL: no memory); its lists linked for the sums */
/* (NULL: it has none); a pop counted in the record, out of line.       */
#ifdef THREAD_LOCAL_ALLOC
  GC_INNER struct gca_thread *gca_counters_get(struct gca_tl *me);
  GC_INNER GC_tlfs gca_counters_tl_link(struct gca_thread *t);
#endif
GC_INNER void *gca_counters_alloc_tl_slow(struct gca_tl *me, void *p,
                                          size_t lb, size_t granules, int k);

/* A sum (lock held; counters.c, for counters_sum.c): adds counts to   */
/* the cur counts of the row of (k, cls), made for its first counts.    */
GC_INNER void gca_counters_sum_add(unsigned k, unsigned cls, word objs,
                                   word req, word granted);

#ifdef THREAD_LOCAL_ALLOC
  /* The lists' words (counters_tl.c, "the lists' countdowns").         */
# define TL_LOG_S GCA_TL_LOG_S
# define TL_S GCA_TL_S
/* The words hold -W and -B (gca_hooks.h: never a heap address).      */
# define TL_W(fl) (-*(signed_word *)GCA_TL_AT(fl, gca_w))
# define TL_B(fl) ((word)0 - *GCA_TL_AT(fl, gca_b))
# define TL_SET(fl, b, w) \
        (GCA_STORE(GCA_TL_AT(fl, gca_b), (word)0 - (b)), \
         GCA_STORE((signed_word *)GCA_TL_AT(fl, gca_w), -(w)))
# define TL_B_REAL(m) ((word)(m) * (word)TL_S - 1)
# define TL_B_CAPPED ((word)GCA_TL_CAP * (word)TL_S - 2)
# define TL_B_PENDING ((word)-2 * (word)TL_S)

  /* Fold list fl's countdown into its counts and set it to b, its word */
  /* to w (its owner calling; lock: the thread's counts are read by the */
  /* sums).                                                              */
  GC_INNER void gca_counters_tl_rearm(void **fl, word b, signed_word w,
                                      int lock);
  /* The fast path's counts of tlfs, copied into out.                   */
  GC_INNER void gca_counters_tl_read(GC_tlfs tlfs,
                                     struct counters_tl_counts *out);
  /* Adds counts n, kinds [0, n_kinds), to t's record (its owner, or   */
  /* the only thread left after fork(), calling) or, t NULL, to the     */
  /* sum (gca_counters_sum_add).                                         */
  GC_INNER void gca_counters_tl_add(struct gca_thread *t, unsigned n_kinds,
                                    const struct counters_tl_counts *n);
#endif

#endif /* GCA_COUNTERS_H */
