/* SPDX-License-Identifier: MIT */
/*
 * counters.c: exact allocation counts by kind and size class, per thread.
 *
 * Keeps, for every thread that allocates, objects / requested bytes /
 * granted bytes for each (kind, size class), written only by that thread
 * with plain single-word stores (no lock, no read-modify-write atomics, on
 * every path including bdwgc's thread-local fast path).  Readers sum the
 * records of all threads under the allocation lock (counters_sum.c; the
 * records' layout, in gca_counters.h, is theirs alone).  Records are carved
 * from OS pages (never the GC heap) and never freed: an exiting thread
 * leaves its totals behind and the next new thread reuses the record and
 * keeps adding to it, so sums stay cumulative and exact.
 *
 * A record's counts take memory as its threads use them: in chunks of
 * COUNTERS_CH classes of one kind, each made when first counted into,
 * carved by the owner alone (no lock) from the record's pages; readers
 * skip the chunks not made (all zero).  With every chunk a record would
 * take some 70 KiB; a thread allocating a few sizes takes a page or two.
 *
 * Two kinds of rows are not in the records, and the sums add them: the
 * global free-list pops counted with the allocation lock held
 * (locked_rows and locked_large, in accounting's tables), and the
 * thread-local fast path's counts, kept in each thread's own
 * thread_local_freelists (GCA_TLFS_FIELDS in gca_hooks.h), which a record
 * points to while its thread lives and which are folded into the record
 * when the thread exits (their words: counters_tl.c).  Called from the
 * allocation hooks only (hooks.c dispatches); the thread-local fast path
 * counts inline in the hook itself (gca_hooks.h).  Never allocates from
 * the GC heap, never takes the allocation lock.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif
#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind */
#endif
#include "gca_counters.h"

/* The OS pages the records take at a time.                             */
#define COUNTERS_PAGE ((size_t)(GC_page_size != 0 ? GC_page_size : 4096))

static void counters_many_req(struct gca_thread *t);

/* Counts i of t (i: kind * COUNTERS_STRIDE + class) grow by n, req,   */
/* granted, its chunk made first (t's owner calling, or the only thread */
/* left after fork()): carved from t's pages, or a new page; if the OS  */
/* gives none, the count is lost (as without a record) and the next one */
/* tries again.  Published (release store) with its first count, after  */
/* the cursor moved (a child of fork() never hands it out twice).       */
static GC_ATTR_NOINLINE void *counters_add_new(void *p, struct gca_thread *t,
                                word i, word n, word req, word granted)
{
  const size_t sz = COUNTERS_CH * sizeof(struct gca_count);
  struct gca_count *c;

  if ((size_t)(t->arena_end - t->arena) < sz) {
    char *a = (char *)gca_os_alloc(COUNTERS_PAGE);

    if (NULL == a) return p;
    t->arena = a;
    t->arena_end = a + COUNTERS_PAGE;
    GCA_STORE(&t->mapped, t->mapped + (unsigned)COUNTERS_PAGE);
  }
  c = (struct gca_count *)t->arena;
  t->arena += sz;
  c[i % COUNTERS_CH].objs = n;
  c[i % COUNTERS_CH].req_bytes = req;
  c[i % COUNTERS_CH].granted_bytes = granted;
  REL_STOREP(&t->chunk[i / COUNTERS_CH], c);
  return p;
}

/* Adds to counts i of chunk c (made), the owner calling.              */
GCA_ALWAYS_INLINE void counters_bump(struct gca_count *c, word i, word n,
                                     word req, word granted)
{
  c += i % COUNTERS_CH;
  GCA_OWN_ADD(&c->objs, n);
  GCA_OWN_ADD(&c->req_bytes, req);
  GCA_OWN_ADD(&c->granted_bytes, granted);
}

/* Adds to counts i of t, t's owner calling; returns p.  One load and  */
/* one branch more than a flat table (the chunk's pointer); a chunk is */
/* made by a tail call, so the hooks' common paths need no stack frame. */
GCA_ALWAYS_INLINE void *counters_add_p(void *p, struct gca_thread *t, word i,
                                       word n, word req, word granted)
{
  struct gca_count *c = t->chunk[i / COUNTERS_CH];

  if (EXPECT(NULL == c, FALSE))
    return counters_add_new(p, t, i, n, req, granted);
  counters_bump(c, i, n, req, granted);
  return p;
}
#define COUNTERS_I(k, cls) ((word)(k) * COUNTERS_STRIDE + (word)(cls))
#define counters_add(t, k, cls, n, req, granted) \
        (void)counters_add_p(NULL, t, COUNTERS_I(k, cls), n, req, granted)

/* Adds counts to the row of (k, cls), made if need be: only a pair   */
/* with counts gets one.  Class 0 (the 0-byte requests of the thread-  */
/* local path, one granule each) counts in class 1; the granted bytes  */
/* of small classes are set at the sum's end.  The sums' (counters_sum */
/* .c), here below them: gca_counters_tl_add adds to a sum with it.    */
GC_INNER void gca_counters_sum_add(unsigned k, unsigned cls, word objs,
                                   word req, word granted)
{
  struct gca_row *r;

  if (0 == (objs | req | granted)) return;
  if (0 == cls) cls = 1;
  r = gca_row(k, cls);
  if (EXPECT(NULL == r, FALSE)) return;         /* no memory: left out */
  r->cur.objs += objs;
  r->cur.req_bytes += req;
  r->cur.granted_bytes += granted;
}

#ifdef THREAD_LOCAL_ALLOC
  /* Adds objs and req to class g of kind k: of t's record (its owner,  */
  /* or the only thread left after fork(), calling; none made for 0),   */
  /* or, t NULL, of the rows' sum (gca_counters_sum_add).               */
  static void counters_tl_one(struct gca_thread *t, unsigned k, unsigned g,
                              word objs, word req)
  {
    if (NULL == t) {
      gca_counters_sum_add(k, g, objs, req, 0);
    } else if ((objs | req) != 0) {
      counters_add(t, k, g, objs, req, 0);
    }
  }

  /* List g is class g; row 0 (one granule) is folded into class 1 by   */
  /* the sum (gca_counters_sum_add).                                     */
  GC_INNER void gca_counters_tl_add(struct gca_thread *t, unsigned n_kinds,
                                    const struct counters_tl_counts *n)
  {
    unsigned k, g;

    for (k = 0; k < THREAD_FREELISTS_KINDS && k < n_kinds; k++) {
      for (g = 0; g < TINY_FREELISTS; g++)
        counters_tl_one(t, k, g, n->objs[k][g], n->req[k][g]);
    }
#   ifdef GC_GCJ_SUPPORT
      if (GC_gcj_kind > 0 && (unsigned)GC_gcj_kind < n_kinds) {
        for (g = 0; g < TINY_FREELISTS; g++)
          counters_tl_one(t, (unsigned)GC_gcj_kind, g, n->gcj_objs[g],
                          n->gcj_req[g]);
      }
#   endif
  }

  /* The thread's pops are counted inline from now on, into its own     */
  /* lists' counts, which t (its record) makes the sums read, while the */
  /* mode stays m (1, or 2 with the countdown kept due so that every    */
  /* pop reaches gca_hook_sample_ret for its tag).  When the mode       */
  /* changes, gca_tl_mode_update sets the flags of every thread         */
  /* (gca_tlflags_settle says how the two sides are ordered).           */
  /* t's owner's lists, which the sums read through t from now on, or  */
  /* NULL: it has none.                                                   */
  GC_INNER GC_tlfs gca_counters_tl_link(struct gca_thread *t)
  {
    GC_tlfs tlfs = t->tlfs;

    if (NULL == tlfs) {
      tlfs = gca_tlflags_own();
      if (NULL == tlfs) return NULL;
      /* Nothing was counted inline there yet (its flags were 0, and    */
      /* the countdown of the copy of mode 1 was due: "the countdown's  */
      /* promise" below), but the struct may be an earlier thread's     */
      /* (upstream reuses its static first one): start from zero.        */
      BZERO(tlfs->gca_objs, sizeof(tlfs->gca_objs));
      BZERO(tlfs->gca_req, sizeof(tlfs->gca_req));
      COUNTERS_LOCK();
      t->tlfs = tlfs;
      COUNTERS_UNLOCK();
    }
    return tlfs;
  }

  static void counters_tl_enable(struct gca_thread *t, int m)
  {
    GC_tlfs tlfs = gca_counters_tl_link(t);

    if (NULL == tlfs) return;
    /* Before the flags: an inline pop of mode 2 must find it due.      */
    if (2 == m) gca_sample_left = GCA_SAMPLE_EVERY;
    gca_tlflags_settle(tlfs, m, 1);
  }
#endif /* THREAD_LOCAL_ALLOC */

/* In a child after fork(): free the registry lock another thread may    */
/* have held (it only claims or pushes a record, pushed last).  Only the */
/* calling thread survives: the thread-local lists of the others are     */
/* freed already (upstream's own handler ran first), so their records   */
/* keep the counts the last sum read.                                    */
GC_INNER void gca_counters_atfork_child(void)
{
# ifdef THREAD_LOCAL_ALLOC
    struct gca_thread *t, *me = gca_tl_self.counters;

    COUNTERS_UNLOCK();
    gca_tlflags_atfork_child();
    for (t = gca_counters_registry; t != NULL; t = t->next) {
      if (t != me && t->tlfs != NULL) {
        gca_counters_tl_add(t, MAXOBJKINDS, &t->tl_seen);
        BZERO(&t->tl_seen, sizeof(t->tl_seen));
        t->tlfs = NULL;
      }
    }
# else
    COUNTERS_UNLOCK();
# endif
}

/* The calling thread's record, claimed on first use (the only time a    */
/* hook may spin, briefly, on the registry lock).  NULL if the OS gives  */
/* no memory: the allocation then goes uncounted rather than failing.    */
static struct gca_thread *counters_claim(struct gca_tl *me)
{
  struct gca_thread *t;

  COUNTERS_LOCK();
  for (t = gca_counters_registry; t != NULL; t = t->next) {
    if (!t->owned) break;
  }
  if (NULL == t) {
    /* Whole pages: the tail holds its first chunks.                    */
    size_t sz = (sizeof(struct gca_thread) + COUNTERS_PAGE - 1)
                / COUNTERS_PAGE * COUNTERS_PAGE;

    t = (struct gca_thread *)gca_os_alloc(sz);
    if (t != NULL) {
      t->arena = (char *)(t + 1);
      t->arena_end = (char *)t + sz;
      t->mapped = (unsigned)sz;
      t->next = gca_counters_registry;
      gca_counters_registry = t;
    }
  }
  if (t != NULL) t->owned = 1;
  COUNTERS_UNLOCK();
  me->counters = t;
  return t;
}

GC_INLINE struct gca_thread *counters_get(struct gca_tl *me)
{
  struct gca_thread *t = me->counters;

  return EXPECT(t != NULL, TRUE) ? t : counters_claim(me);
}

#ifdef THREAD_LOCAL_ALLOC
  GC_INNER struct gca_thread *gca_counters_get(struct gca_tl *me)
  {
    return counters_get(me);
  }
#endif

static struct gca_thread *counters_get_self(void)
{
  return counters_get(&gca_tl_self);
}

/* The table block exists (lock held): the lock-held rows live there   */
/* (found from gca_locked_kind and gca_locked_large_kind, base.c).     */
GC_INNER void gca_counters_tables_ready(void)
{
  /* gca_hooks.h's large rows are gca_priv.h's large classes.          */
  GC_STATIC_ASSERT(GCA_LOCKED_LARGE_ROWS == GCA_N_LARGE);
}

GC_INNER void gca_counters_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;

  if (NULL == t) return;
  t->in_many = 0;
  counters_many_req(t);
# ifdef THREAD_LOCAL_ALLOC
    if (t->tlfs != NULL) {
      /* Fold the fast path's counts into the record before the lists  */
      /* are freed (the sums hold the allocation lock, as we do).       */
      struct counters_tl_counts n;

      gca_tlflags_set(t->tlfs, 0);
      gca_counters_tl_read(t->tlfs, &n);
      gca_counters_tl_add(t, MAXOBJKINDS, &n);
      BZERO(&t->tl_seen, sizeof(t->tl_seen));
    }
# endif
  COUNTERS_LOCK();
# ifdef THREAD_LOCAL_ALLOC
    t->tlfs = NULL;
# endif
  t->owned = 0;
  COUNTERS_UNLOCK();
  me->counters = NULL;
}

/* Granted size of the object at p: its slot for a small object, whole  */
/* blocks for a large one (a large object's page rounding is its        */
/* rounding waste).                                                      */
static word counters_granted(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz <= MAXOBJBYTES ? sz : OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
}

/* The request of the object made inside GC_generic_malloc_many, if one */
/* is waiting (counters_count_one), counted as asked for there.        */
static void counters_many_req(struct gca_thread *t)
{
  if (t->last_p != NULL) {
    (void)counters_add_p(NULL, t, t->last_i, 0, t->last_req, 0);
    t->last_p = NULL;
  }
}

/* One object p (header hhdr, NULL if not looked up: tags off), of kind */
/* k and class cls, lb bytes requested; locked: the caller holds the   */
/* allocation lock.  Also tags p with its type and callsite (tags.c).   */
GC_INLINE void counters_count_one(struct gca_tl *me, struct gca_thread *t,
                                  void *p, hdr *hhdr, size_t lb,
                                  word granted, unsigned k, unsigned cls,
                                  int locked)
{
  if (EXPECT(1 == t->in_many, FALSE)) {
    /* Remember it: GC_generic_malloc_many may hand it out as its list,  */
    /* for one of the thread's own lists, whose pop then says what was   */
    /* asked for.  Its request waits until that is known (counters_    */
    /* many_req): counting lb now and correcting it at the pop would    */
    /* make the sum go down between two reads, and a record's delta     */
    /* wrap.                                                             */
    counters_many_req(t);
    counters_add(t, k, cls, 1, 0, granted);
    t->last_p = p;
    t->last_i = (unsigned)COUNTERS_I(k, cls);
    t->last_req = (word)lb;
  } else {
    counters_add(t, k, cls, 1, (word)lb, granted);
  }
  if (hhdr != NULL) gca_tags_alloc(me, p, hhdr, granted, locked);
}

static GC_ATTR_NOINLINE void counters_alloc_slow(struct gca_tl *me,
                                                 void *p, size_t lb)
{
  struct gca_thread *t = counters_get(me);
  hdr *hhdr;
  word granted;

  if (NULL == t) return;
  hhdr = HDR(p);
  granted = counters_granted(hhdr);
  counters_count_one(me, t, p, gca_tags_on ? hhdr : NULL, lb, granted,
                     hhdr->hb_obj_kind, gca_class_of(granted), 1);
}

/* The granules of p, a small object of kind k for a request of lb     */
/* bytes at a GC_ACC_ON_ALLOC site: GC_size_map[lb] (gca_hooks.h).      */
GC_INLINE word counters_small_granules(void *p, size_t lb, int k)
{
  word g = GC_size_map[lb];

  GC_ASSERT(HDR(p)->hb_sz == GRANULES_TO_BYTES(g)
            && HDR(p)->hb_obj_kind == (unsigned)k);
  (void)p; (void)k;
  return g;
}

/* gca_counters_alloc's small object with tags on.                     */
static GC_ATTR_NOINLINE void counters_alloc_tags(struct gca_tl *me,
                                                 struct gca_thread *t,
                                                 void *p, size_t lb, int k)
{
  word g = counters_small_granules(p, lb, k);

  counters_add(t, (unsigned)k, (unsigned)g, 1, (word)lb,
               GRANULES_TO_BYTES(g));
  gca_tags_alloc(me, p, HDR(p), GRANULES_TO_BYTES(g), 1);
}

/* The global path's objects (mode 1's small ones from refills only:   */
/* hooks.c).  Each small one came from the list of GC_size_map[lb]     */
/* granules of kind k (uncollectable sites pass lb less the extra byte), */
/* so counting needs no header lookup; large objects and tags do.       */
GC_INNER void gca_counters_alloc(void *p, size_t lb, int k)
{
  struct gca_tl *me;
  struct gca_thread *t;
  word granted;
  unsigned cls;

  me = &gca_tl_self;
  t = me->counters;
  if (EXPECT(NULL == p, FALSE)) return;
  if (EXPECT(NULL == t || (t->in_many | gca_tags_on) != 0, FALSE)) {
    if (t != NULL && !t->in_many && SMALL_OBJ(lb)) {
      counters_alloc_tags(me, t, p, lb, k);
    } else {
      counters_alloc_slow(me, p, lb);
    }
    return;
  }
  if (EXPECT(SMALL_OBJ(lb), TRUE)) {
    word g = counters_small_granules(p, lb, k);

    cls = (unsigned)g;
    granted = GRANULES_TO_BYTES(g);
  } else {
    granted = counters_granted(HDR(p));
    cls = gca_class_of(granted);
  }
  counters_add(t, (unsigned)k, cls, 1, (word)lb, granted);
}

/* A large object of n_blocks heap blocks (lock held): in mode 1 into  */
/* the lock-held rows, as GC_ACC_ON_ALLOC_LARGE counts it inline (its   */
/* granted bytes and class from n_blocks, with no header lookup).       */
GC_INNER void gca_counters_alloc_large(void *p, size_t lb, int k,
                                       word n_blocks)
{
  GC_ASSERT(p != NULL && HDR(p)->hb_obj_kind == (unsigned)k
            && OBJ_SZ_TO_BLOCKS(HDR(p)->hb_sz) == n_blocks);
  if (EXPECT(gca_tl_mode != 1, FALSE)) {
    gca_counters_alloc(p, lb, k);       /* tags: the general path */
    return;
  }
  gca_locked_count_large(lb, k, n_blocks);
}

GC_INNER GC_ATTR_NOINLINE void *gca_counters_alloc_tl_slow(
                                   struct gca_tl *me, void *p, size_t lb,
                                   size_t granules, int k)
{
  struct gca_thread *t = counters_get(me);
  hdr *hhdr = NULL;
  word granted;

  if (NULL == t) return p;
  if (COUNTERS_PENDING == t->in_many) {
    t->in_many = 0;
    if (p == t->last_p) {
      /* Counted (and tagged) when made, but for its request, which is  */
      /* the caller's.                                                   */
      (void)counters_add_p(NULL, t, t->last_i, 0, (word)lb, 0);
      t->last_p = NULL;
      return p;
    }
    counters_many_req(t);
  }
  if (gca_tags_on) {
    hhdr = HDR(p);
    granted = hhdr->hb_sz;      /* small: thread-local lists only */
    k = (int)hhdr->hb_obj_kind;
  } else {
    /* List 0 holds objects of one granule (GC_FAST_MALLOC_GRANS).     */
    granted = GRANULES_TO_BYTES(granules != 0 ? (word)granules : 1);
  }
  counters_count_one(me, t, p, hhdr, lb, granted, (unsigned)k,
                     (unsigned)BYTES_TO_GRANULES(granted), 0);
  return p;
}

#ifdef THREAD_LOCAL_ALLOC
  /* A pop reached the hook function with accounting off (its flag was  */
  /* set, racing with the mode's change): not counted, and the thread's */
  /* flags are put right, so that its next pops cost nothing.           */
  static GC_ATTR_NOINLINE void *counters_tl_off(void *p)
  {
    GC_tlfs tlfs = gca_tlflags_own();

    if (tlfs != NULL) gca_tlflags_settle(tlfs, 0, 0);
    return p;
  }

  /* The first object this hook counts in mode 1: the thread's next    */
  /* pops are counted inline; this one is counted here.                 */
  static GC_ATTR_NOINLINE void *counters_alloc_tl_first(
                        struct gca_thread *t, void *p, size_t lb,
                        size_t granules, int k)
  {
    counters_tl_enable(t, 1);
    counters_add(t, (unsigned)k, (unsigned)granules, 1, (word)lb,
                 GRANULES_TO_BYTES((word)granules));
    return p;
  }
#endif

/* The full profile's pop (mode 2) while the thread's flags send it to  */
/* the hook (its first, or the first after a refill or a mode change):  */
/* counted and tagged, and the thread's next pops counted inline and    */
/* tagged through gca_hook_sample_ret.  Returns p (a tail call).        */
GC_INNER void *gca_counters_alloc_tl_tags(void *p, size_t lb,
                                          size_t granules, int k)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  /* List 0 holds objects of one granule (GC_FAST_MALLOC_GRANS).        */
  word g = granules != 0 ? (word)granules : 1;
  word granted = GRANULES_TO_BYTES(g), i = COUNTERS_I(k, g);
  struct gca_count *c;

  if (EXPECT(NULL == t || t->in_many, FALSE)
      || EXPECT(NULL == (c = t->chunk[i / COUNTERS_CH]), FALSE))
    return gca_counters_alloc_tl_slow(me, p, lb, granules, k);
  counters_bump(c, i, 1, (word)lb, granted);
# ifdef THREAD_LOCAL_ALLOC
    counters_tl_enable(t, 2);
# endif
  return gca_tags_alloc_tl(me, p, granted);
}

GC_INNER void *gca_counters_alloc_tl(void *p, size_t lb, size_t granules,
                                     int k)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  int mode = (int)GCA_LOAD(&gca_tl_mode);

# ifdef THREAD_LOCAL_ALLOC
    /* Mode 0: the pop's flag was set, racing with the mode's change.   */
    if (EXPECT(0 == mode, FALSE)) return counters_tl_off(p);
# endif
  if (2 == mode) return gca_counters_alloc_tl_tags(p, lb, granules, k);
  if (EXPECT(NULL == t || t->in_many, FALSE))
    return gca_counters_alloc_tl_slow(me, p, lb, granules, k);
# ifdef THREAD_LOCAL_ALLOC
    /* Mode 1, and the pop was not counted inline: from the next one on */
    /* it is.                                                           */
    return counters_alloc_tl_first(t, p, lb, granules, k);
# else
    /* granules is 0 for a 0-byte request, served from list 0 (one     */
    /* granule): counted in row 0, with no granted bytes, which the sum */
    /* folds into class 1 (one granule each), saving a test per object. */
    return counters_add_p(p, t, COUNTERS_I(k, granules), 1, (word)lb,
                          GRANULES_TO_BYTES((word)granules));
# endif
}

/* The countdown's promise.  Mode 1's copy of the fast paths reads no   */
/* flag (GCA_TL_COUNT_COPY_): a pop is counted inline, into its list's */
/* countdown ("the lists' countdowns", above), while that is not due,   */
/* else by gca_hook_tl_due.  The sums read inline counts through the    */
/* record (t->tlfs), so the thread links them before a list's countdown */
/* is ever not due: a list's countdown is set to a sample point only    */
/* once the thread is linked, and starts at 0, due (new lists,          */
/* GC_ACC_ON_TLFS_INIT, are set so); the refill's last-attempt object  */
/* (counted already) has its list armed due for it.  The thread's own   */
/* countdown by granules (gca_sample_left), which every other path of   */
/* mode 1 counts down, the typed copy's pops among them                 */
/* (GCA_TL_COUNT_TYPED_: counted inline into gca_objs and gca_req while */
/* it is not due, else by gca_hook_tl_typed_due), keeps the same        */
/* promise: it is made due for new lists, for the refill's last-attempt */
/* object, for a refill that may make a large object                    */
/* (gca_counters_many_begin), and while the thread is not linked        */
/* (gca_counters_tl_keep after each draw).                               */
/* Only its thread writes it; its value waits in due_left, put back by  */
/* gca_counters_tl_sample_due wherever it is found due.                 */
GC_INLINE void counters_force_due(struct gca_tl *me)
{
  if (!me->due_forced) {
    me->due_left = gca_sample_left;
    me->due_forced = 1;
  }
  gca_sample_left = GCA_SAMPLE_EVERY;
}

#ifdef THREAD_LOCAL_ALLOC
/* Are the calling thread's inline counts read by the sums (linked now  */
/* if need be)?  Also when it has no lists: it pops none.               */
static int counters_tl_linked(struct gca_tl *me)
{
  struct gca_thread *t = me->counters;

  if (EXPECT(t != NULL && t->tlfs != NULL, TRUE)) return 1;
  if (NULL == gca_tlflags_own()) return 1;
  t = counters_get(me);
  return t != NULL && gca_counters_tl_link(t) != NULL;
}

/* Not linked (no memory for a record): every pop goes to the hook,     */
/* which counts it as it can and keeps the countdown.                    */
GC_INNER void gca_counters_tl_keep(void)
{
  if (gca_sample_left >= 0 && !counters_tl_linked(&gca_tl_self))
    counters_force_due(&gca_tl_self);
}

GC_INNER void gca_counters_tl_new_lists(GC_tlfs p)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  unsigned k, g;

  /* Each list's first pop due (the struct may be an earlier thread's:  */
  /* counters_tl_link clears the counts; set up again, they are kept).  */
  for (k = 0; k < GCA_TL_ROWS; k++) {
    for (g = 0; g < TINY_FREELISTS; g++)
      gca_counters_tl_rearm(&p->_freelists[0][0] + k * TINY_FREELISTS + g, 0, 0,
                        t != NULL && t->tlfs == p);
  }
  if (t != NULL && t->tlfs == p) return;        /* set up again */
  if (gca_sample_left >= 0) counters_force_due(me);
}
#else
  GC_INNER void gca_counters_tl_keep(void) {}
#endif /* THREAD_LOCAL_ALLOC */

GC_INNER int gca_counters_tl_sample_due(word g)
{
  struct gca_tl *me = &gca_tl_self;

  if (EXPECT(!me->due_forced, TRUE)) return 1;
  me->due_forced = 0;
  gca_sample_left = me->due_left - (signed_word)g;
  if (gca_sample_left < 0) return 1;
  gca_counters_tl_keep();
  return 0;
}


/* Is result one of the calling thread's own thread-local free lists?   */
static int counters_is_own_tl_list(void **result)
{
# ifdef THREAD_LOCAL_ALLOC
    GC_tlfs tlfs = gca_tlflags_own();

    return tlfs != NULL && (word)result >= (word)tlfs
           && (word)result < (word)(tlfs + 1);
# else
    (void)result;
    return 0;
# endif
}

GC_INNER void gca_counters_many_begin(void **result)
{
  struct gca_thread *t = counters_get_self();
  int to_tl = counters_is_own_tl_list(result);

  /* Mode 1's large objects are counted inline unless their countdown  */
  /* is due (GCA_LARGE_COUNT): due, the hook sees that this one is made */
  /* here (gca_many_tl.in).  The thread's own lists hold small objects  */
  /* only: any other list's refill may make a large one.                */
  if (!to_tl && 1 == gca_tl_mode) counters_force_due(&gca_tl_self);
  if (NULL == t) return;
  counters_many_req(t);         /* a pending one never popped          */
  t->in_many = 1;
  t->many_to_tl = to_tl;
  gca_tl_self.in_refill = 1 + to_tl;
}

/* gca_counters_many_end past its common case: a list to count, or an  */
/* object made inside (t, in_many 1).                                   */
static GC_ATTR_NOINLINE void counters_many_end_slow(struct gca_thread *t,
                                                    void **result,
                                                    size_t lb)
{
  struct gca_tl *me = &gca_tl_self;
  void *list = *result;
  void *q;
  word n = 0;
  hdr *hhdr;
  word granted;

  if (NULL == t || t->in_many != 1) {
    t = counters_get(me);
    if (NULL == t) return;
  } else {
    t->in_many = 0;
    me->in_refill = 0;
    if (NULL == list) {
      counters_many_req(t);
      return;
    }
    if (list == t->last_p && NULL == obj_link(list)) {
      /* One object of a fallback allocation, counted (and tagged) when */
      /* made, at its size (maybe a granule over its list's: the bytes  */
      /* plus the extra byte).  Its pop, next, reaches the hook (in_many */
      /* set), which counts only its request, and samples it (mode 1).  */
      if (t->many_to_tl) {
        t->in_many = COUNTERS_PENDING;
#       ifdef THREAD_LOCAL_ALLOC
          if (t->tlfs != NULL) {
            int m = (int)GCA_LOAD(&gca_tl_mode);

            gca_tlflags_settle(t->tlfs, m, GCA_TL_FLAG_FOR(m));
          }
          /* The copy of mode 1's way: the list armed so (counters.c, */
          /* "the lists' countdowns").                                  */
          gca_counters_tl_rearm(result, TL_B_PENDING, 0, t->tlfs != NULL);
          /* The typed copy's way: the thread's countdown made due.    */
          counters_force_due(me);
#       endif
      } else {
        counters_many_req(t);   /* the list is the caller's, as made   */
      }
      return;
    }
    counters_many_req(t);
    if (t->many_to_tl) return;  /* counted object by object on pop     */
  }
  hhdr = HDR(list);
  granted = counters_granted(hhdr);
  for (q = list; q != NULL; q = obj_link(q)) n++;
  /* One callsite and type for the whole list (the lock may or may not  */
  /* be held here).                                                     */
  if (gca_tags_on) {
    gca_tags_alloc_list(&gca_tl_self, list, granted);
  } else {
    (void)gca_counters_tl_sample_due(0);
    gca_samples_list(list, granted, (int)hhdr->hb_obj_kind);
    gca_counters_tl_keep();
  }
  counters_add(t, hhdr->hb_obj_kind, gca_class_of(granted), n,
               n * (word)lb, n * granted);
}

GC_INNER void gca_counters_many_end(void **result, size_t lb)
{
  struct gca_thread *t = gca_tl_self.counters;

  /* The common case: no object was made inside (GC_ACC_ON_ALLOC_MANY_  */
  /* BEGIN comes only before one is; on bdwgc 8.2.2 a refill of a       */
  /* block's worth passes none), and the list is for one of the        */
  /* thread's own lists, counted object by object on pop.  No frame:   */
  /* anything else is a tail call.                                      */
  if (EXPECT((NULL == t || t->in_many != 1)
             && (NULL == *result || counters_is_own_tl_list(result)), TRUE))
    return;
  counters_many_end_slow(t, result, lb);
}

GC_INNER void gca_counters_debug(void *p)
{
  struct gca_thread *t = counters_get_self();

  if (t != NULL) {
    unsigned k = HDR(p)->hb_obj_kind;

    GCA_STORE(&t->debug_objs[k], t->debug_objs[k] + 1);
  }
}

#endif /* !GC_ACC_DISABLE */
