/*
 * counters.c: exact allocation counts by kind and size class, per thread.
 *
 * Keeps, for every thread that allocates, objects / requested bytes /
 * granted bytes for each (kind, size class), written only by that thread
 * with plain single-word stores (no lock, no read-modify-write atomics, on
 * every path including bdwgc's thread-local fast path).  Readers sum the
 * records of all threads under the allocation lock.  Records are carved
 * from OS pages (never the GC heap) and never freed: an exiting thread
 * leaves its totals behind and the next new thread reuses the record and
 * keeps adding to it, so sums stay cumulative and exact.
 *
 * Called from the allocation hooks only (hooks.c dispatches); the
 * thread-local fast path counts inline in the hook itself (gca_hooks.h,
 * through gca_tl_rows, which this file keeps).  Never
 * allocates from the GC heap, never takes the allocation lock.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif

/* in_many after a refill of one of the thread's own lists that got a  */
/* single object from the fallback allocation: that object (last_p) is */
/* counted already, at its true size, and its pop must not count it     */
/* again (gca_counters_many_end).                                        */
#define COUNTERS_PENDING 2

struct gca_thread {
  struct gca_thread *next;      /* registry, newest first; never unlinked */
  volatile word owned;          /* nonzero while a live thread uses it    */
  word **tl_rows;               /* its owner's gca_tl_rows, or NULL       */
  word debug_objs[MAXOBJKINDS];
  /* GC_generic_malloc_many bookkeeping (see gca_hooks.h).               */
  int in_many;                  /* inside GC_generic_malloc_many (1), or */
                                /* COUNTERS_PENDING                      */
  int many_to_tl;               /* its list is for our thread-local lists */
  void *last_p;                 /* last object counted inside it          */
  unsigned last_kind, last_cls;
  word last_req;
  struct gca_count c[MAXOBJKINDS][GCA_N_CLASSES];
};

static struct gca_thread *volatile counters_registry = NULL;
GC_INNER word gca_locked_rows[MAXOBJKINDS][MAXOBJGRANULES + 1][2];
/* The large classes' rows of gca_counters_alloc_large (lock held, mode */
/* 1), summed like gca_locked_rows.                                      */
static struct gca_count counters_locked_large[MAXOBJKINDS][GCA_N_LARGE];
GC_INNER GCA_TLS_FAST struct gca_tl gca_tl_self;

#ifdef GCA_HOOK_TL_INLINE
  /* The rows the inline hook counts into (gca_hooks.h), one pointer a  */
  /* kind, all NULL unless gca_tl_mode is 1.                             */
  GC_INNER __thread __attribute__((tls_model("initial-exec")))
        word *gca_tl_rows[MAXOBJKINDS];
  /* The thread is inside GC_generic_malloc_many (gca_thread.in_many),  */
  /* whose fallback objects the global hook must remember, so it may   */
  /* not count them through the rows.                                    */
  static __thread __attribute__((tls_model("initial-exec")))
        int counters_tl_in_many;
# define COUNTERS_SET_IN_MANY(t, v) \
        ((t)->in_many = counters_tl_in_many = (v))
#else
# define COUNTERS_SET_IN_MANY(t, v) ((t)->in_many = (v))
#endif
#ifdef GCA_HOOK_TL_INLINE
  typedef char gca_hook_n_classes_ok[GCA_HOOK_N_CLASSES == GCA_N_CLASSES
                                     ? 1 : -1];
  typedef char gca_hook_count_ok[sizeof(struct gca_count) == 3 * sizeof(word)
                                 ? 1 : -1];
#endif

#ifdef THREADS
  static volatile AO_TS_t counters_registry_lock = AO_TS_INITIALIZER;
# define COUNTERS_LOCK() \
        while (AO_test_and_set_acquire(&counters_registry_lock) == AO_TS_SET) \
          { /* spin: held only to claim or push a record */ }
# define COUNTERS_UNLOCK() AO_CLEAR(&counters_registry_lock)
#else
# define COUNTERS_LOCK() (void)0
# define COUNTERS_UNLOCK() (void)0
#endif

/* The inline hook's rows.  A thread points its own gca_tl_rows at its */
/* record (counters_set_rows) while gca_tl_mode is 1; when the mode     */
/* leaves 1, gca_counters_rows_off clears every thread's, through the   */
/* registry.  The two sides are ordered by full fences: either the      */
/* clearing comes after the thread's stores, or the thread sees the new */
/* mode after its stores and clears its own.                            */
#ifdef GCA_HOOK_TL_INLINE
  static void counters_clear_rows(word **rows)
  {
    unsigned k;

    for (k = 0; k < MAXOBJKINDS; k++) GCA_STORE(&rows[k], (word *)NULL);
  }

  static void counters_set_rows(struct gca_thread *t)
  {
    unsigned k;

    for (k = 0; k < MAXOBJKINDS; k++)
      GCA_STORE(&gca_tl_rows[k], &t->c[k][0].objs);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (GCA_LOAD(&gca_tl_mode) != 1) counters_clear_rows(gca_tl_rows);
  }
#endif

/* In a child after fork(): free the registry lock another thread may    */
/* have held (it only claims or pushes a record, pushed last).          */
GC_INNER void gca_counters_atfork_child(void)
{
  COUNTERS_UNLOCK();
}

/* The calling thread's record, claimed on first use (the only time a    */
/* hook may spin, briefly, on the registry lock).  NULL if the OS gives  */
/* no memory: the allocation then goes uncounted rather than failing.    */
static struct gca_thread *counters_claim(struct gca_tl *me)
{
  struct gca_thread *t;

  COUNTERS_LOCK();
  for (t = counters_registry; t != NULL; t = t->next) {
    if (!t->owned) break;
  }
  if (NULL == t) {
    t = (struct gca_thread *)gca_os_alloc(sizeof(struct gca_thread));
    if (t != NULL) {
      t->next = counters_registry;
      counters_registry = t;
    }
  }
  if (t != NULL) {
    t->owned = 1;
#   ifdef GCA_HOOK_TL_INLINE
      t->tl_rows = gca_tl_rows;
#   endif
  }
  COUNTERS_UNLOCK();
  me->counters = t;
  return t;
}

GC_INLINE struct gca_thread *counters_get(struct gca_tl *me)
{
  struct gca_thread *t = me->counters;

  return EXPECT(t != NULL, TRUE) ? t : counters_claim(me);
}

static struct gca_thread *counters_get_self(void)
{
  return counters_get(&gca_tl_self);
}

/* gca_tl_mode has just left 1 (lock held): no thread counts inline    */
/* from here on.                                                         */
GC_INNER void gca_counters_rows_off(void)
{
# ifdef GCA_HOOK_TL_INLINE
    struct gca_thread *t;

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    COUNTERS_LOCK();
    for (t = counters_registry; t != NULL; t = t->next) {
      if (t->tl_rows != NULL) counters_clear_rows(t->tl_rows);
    }
    COUNTERS_UNLOCK();
# endif
}

GC_INNER void gca_counters_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;

  if (NULL == t) return;
  COUNTERS_SET_IN_MANY(t, 0);
  COUNTERS_LOCK();
# ifdef GCA_HOOK_TL_INLINE
    counters_clear_rows(gca_tl_rows);
    t->tl_rows = NULL;
# endif
  t->owned = 0;
  COUNTERS_UNLOCK();
  me->counters = NULL;
}

GC_INNER unsigned gca_class_of(word granted)
{
  unsigned b;

  if (granted <= MAXOBJBYTES)
    return (unsigned)BYTES_TO_GRANULES(granted);
# if defined(__GNUC__) || defined(__clang__)
    /* The power of two below granted (> MAXOBJBYTES, so nonzero).      */
    b = (unsigned)(CPP_WORDSZ - 1
                   - __builtin_clzll((unsigned long long)granted))
        - GCA_LARGE_LOG0;
    if (b > GCA_N_LARGE - 1) b = GCA_N_LARGE - 1;
# else
    for (b = 0; b + 1 < GCA_N_LARGE
                && (granted >> (GCA_LARGE_LOG0 + b + 1)) != 0; b++) {
      /* find the power of two below granted */
    }
# endif
  return GCA_LARGE0 + b;
}

/* Granted size of the object at p: its slot for a small object, whole  */
/* blocks for a large one (a large object's page rounding is its        */
/* rounding waste).                                                      */
static word counters_granted(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz <= MAXOBJBYTES ? sz : OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
}

GC_INLINE void counters_add(struct gca_thread *t, unsigned k, unsigned cls,
                         word n, word req, word granted)
{
  struct gca_count *c = &t->c[k][cls];

  GCA_OWN_ADD(&c->objs, n);
  GCA_OWN_ADD(&c->req_bytes, req);
  GCA_OWN_ADD(&c->granted_bytes, granted);
}

/* One object p (header hhdr, NULL if not looked up: tags off), of kind */
/* k and class cls, lb bytes requested; locked: the caller holds the   */
/* allocation lock.  Also tags p with its type and callsite (tags.c).   */
GC_INLINE void counters_count_one(struct gca_tl *me, struct gca_thread *t,
                                  void *p, hdr *hhdr, size_t lb,
                                  word granted, unsigned k, unsigned cls,
                                  int locked)
{
  counters_add(t, k, cls, 1, (word)lb, granted);
  if (hhdr != NULL) gca_tags_alloc(me, p, hhdr, granted, locked);
  if (EXPECT(1 == t->in_many, FALSE)) {
    /* Remember it: GC_generic_malloc_many may hand it out as its list.  */
    t->last_p = p;
    t->last_kind = k;
    t->last_cls = cls;
    t->last_req = (word)lb;
  }
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

/* The global path (every object in builds without thread-local       */
/* allocation, as il2cpp's).  Every hook site of a small object got it */
/* from the free list of GC_size_map[lb] granules of kind k (lb as the  */
/* site passes it: uncollectable sites pass their lb less the extra     */
/* byte, typed ones with theirs), so counting needs no header lookup;   */
/* large objects and tags do.  Every site holds the allocation lock.    */
GC_INNER void gca_counters_alloc(void *p, size_t lb, int k)
{
  struct gca_tl *me;
  struct gca_thread *t;
  word granted;
  unsigned cls;

# ifdef GCA_HOOK_TL_INLINE
    /* Mode 1: into the thread's rows, as the thread-local path counts. */
    word *rows = gca_tl_rows[(unsigned)k];

    if (EXPECT(rows != NULL && p != NULL && SMALL_OBJ(lb)
               && !counters_tl_in_many, TRUE)) {
      gca_tl_rows_count(rows, lb, counters_small_granules(p, lb, k));
      return;
    }
# endif
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

#   ifdef GCA_HOOK_TL_INLINE
      /* Mode 1 and no rows yet: from the next object on, count there.  */
      if (1 == GCA_LOAD(&gca_tl_mode) && NULL == gca_tl_rows[(unsigned)k])
        counters_set_rows(t);
#   endif
    cls = (unsigned)g;
    granted = GRANULES_TO_BYTES(g);
  } else {
    granted = counters_granted(HDR(p));
    cls = gca_class_of(granted);
  }
  counters_add(t, (unsigned)k, cls, 1, (word)lb, granted);
}

/* A large object of n_blocks heap blocks (lock held): its granted     */
/* bytes and class come from n_blocks, with no header lookup.           */
GC_INNER void gca_counters_alloc_large(void *p, size_t lb, int k,
                                       word n_blocks)
{
  word granted = n_blocks * HBLKSIZE;
  struct gca_count *c;

  GC_ASSERT(p != NULL && HDR(p)->hb_obj_kind == (unsigned)k
            && OBJ_SZ_TO_BLOCKS(HDR(p)->hb_sz) == n_blocks);
  if (EXPECT(gca_tl_mode != 1, FALSE)) {
    gca_counters_alloc(p, lb, k);       /* tags: the general path */
    return;
  }
  c = &counters_locked_large[(unsigned)k][gca_class_of(granted) - GCA_LARGE0];
  c->objs++;
  c->req_bytes += (word)lb;
  c->granted_bytes += granted;
}

static GC_ATTR_NOINLINE void *counters_alloc_tl_slow(struct gca_tl *me,
                                   void *p, size_t lb,
                                   size_t granules, int k)
{
  struct gca_thread *t = counters_get(me);
  hdr *hhdr = NULL;
  word granted;

  if (NULL == t) return p;
  if (COUNTERS_PENDING == t->in_many) {
    t->in_many = 0;
    if (p == t->last_p) {
      /* Counted (and tagged) when made; only its request was not the   */
      /* caller's.                                                       */
      struct gca_count *c = &t->c[t->last_kind][t->last_cls];

      GCA_STORE(&c->req_bytes, c->req_bytes + (word)lb - t->last_req);
      return p;
    }
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

#ifdef GCA_HOOK_TL_INLINE
  /* The first object this hook counts in mode 1: set the thread's rows */
  /* (the next objects are counted inline), then count it.              */
  static GC_ATTR_NOINLINE void *counters_alloc_tl_first(
                        struct gca_thread *t, void *p, size_t lb,
                        size_t granules, int k)
  {
    counters_set_rows(t);
    counters_add(t, (unsigned)k, (unsigned)granules, 1, (word)lb,
                 GRANULES_TO_BYTES((word)granules));
    return p;
  }
#endif

/* Returns p, so that gca_hook_alloc_tl_ret can end in a tail call.     */
/* Every call it makes is a tail call too: the common paths (count, or  */
/* count and tag) need no stack frame.                                  */
GC_INNER void *gca_counters_alloc_tl(void *p, size_t lb, size_t granules,
                                     int k)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;

  if (EXPECT(NULL == t || t->in_many, FALSE))
    return counters_alloc_tl_slow(me, p, lb, granules, k);
  if (EXPECT(gca_tags_on, FALSE)) {
    /* List 0 holds objects of one granule (GC_FAST_MALLOC_GRANS).      */
    word g = granules != 0 ? (word)granules : 1;
    word granted = GRANULES_TO_BYTES(g);

    /* The hook knows the object's granules and kind (its free list's): */
    /* the header is looked up only for the tag table.                  */
    counters_add(t, (unsigned)k, (unsigned)g, 1, (word)lb, granted);
    return gca_tags_alloc_tl(me, p, HDR(p), granted);
  }
# ifdef GCA_HOOK_TL_INLINE
    /* Mode 1 and no rows yet: from the next object on, count inline.   */
    if (1 == GCA_LOAD(&gca_tl_mode))
      return counters_alloc_tl_first(t, p, lb, granules, k);
# endif
  /* granules is 0 for a 0-byte request, served from list 0 (one       */
  /* granule): counted in row 0, with no granted bytes, which the sum   */
  /* folds into class 1 (one granule each), saving a test per object.   */
  counters_add(t, (unsigned)k, (unsigned)granules, 1, (word)lb,
               GRANULES_TO_BYTES((word)granules));
  return p;
}

/* Is result one of the calling thread's own thread-local free lists?   */
static int counters_is_own_tl_list(void **result)
{
# ifdef THREAD_LOCAL_ALLOC
    GC_tlfs tlfs;

#   if !defined(USE_PTHREAD_SPECIFIC) && !defined(USE_WIN32_SPECIFIC)
      if (0 == GC_thread_key) return 0;
#   endif
    tlfs = (GC_tlfs)GC_getspecific(GC_thread_key);
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

  if (NULL == t) return;
  COUNTERS_SET_IN_MANY(t, 1);
  t->many_to_tl = counters_is_own_tl_list(result);
  t->last_p = NULL;
}

GC_INNER void gca_counters_many_end(void **result, size_t lb)
{
  struct gca_thread *t = counters_get_self();
  void *list = *result;
  void *q;
  word n = 0;
  hdr *hhdr;
  word granted;

  if (NULL == t || !t->in_many) return;
  COUNTERS_SET_IN_MANY(t, 0);
  if (NULL == list) return;
  if (list == t->last_p && NULL == obj_link(list)) {
    /* A single object from a fallback allocation, already counted (and */
    /* tagged) by the path that made it, at its true size: for one of   */
    /* the thread's own lists that can be a granule more than the       */
    /* list's (the fallback asks for the list's bytes, plus the extra    */
    /* byte), so its pop, which comes next, must not count it again by   */
    /* the list's size.  The pop reaches the hook function: in_many is   */
    /* nonzero and the inline rows are off until it has.                 */
    if (t->many_to_tl) {
      t->in_many = COUNTERS_PENDING;
#     ifdef GCA_HOOK_TL_INLINE
        counters_clear_rows(gca_tl_rows);
#     endif
    }
    return;
  }
  if (t->many_to_tl) return;    /* counted object by object on pop     */
  hhdr = HDR(list);
  granted = counters_granted(hhdr);
  for (q = list; q != NULL; q = obj_link(q)) n++;
  /* One callsite and type for the whole list (the lock may or may not  */
  /* be held here).                                                     */
  if (gca_tags_on) gca_tags_alloc_list(&gca_tl_self, list, granted);
  counters_add(t, hhdr->hb_obj_kind, gca_class_of(granted), n,
               n * (word)lb, n * granted);
}

GC_INNER void gca_counters_debug(void *p)
{
  struct gca_thread *t = counters_get_self();

  if (t != NULL) {
    unsigned k = HDR(p)->hb_obj_kind;

    GCA_STORE(&t->debug_objs[k], t->debug_objs[k] + 1);
  }
}

/* Sums over kinds [0, n_kinds) only, rows of other kinds untouched.    */
GC_INNER void gca_counters_sum_kinds(struct gca_count *out, unsigned n_kinds)
{
  struct gca_thread *t;
  size_t i, k, n;

  if (n_kinds > MAXOBJKINDS) n_kinds = MAXOBJKINDS;
  n = (size_t)n_kinds * GCA_N_CLASSES;
  BZERO(out, n * sizeof(struct gca_count));
  COUNTERS_LOCK();
  for (t = counters_registry; t != NULL; t = t->next) {
    const struct gca_count *c = &t->c[0][0];

    for (i = 0; i < n; i++) {
      out[i].objs += GCA_LOAD(&c[i].objs);
      out[i].req_bytes += GCA_LOAD(&c[i].req_bytes);
      out[i].granted_bytes += GCA_LOAD(&c[i].granted_bytes);
    }
  }
  COUNTERS_UNLOCK();
  /* Small classes: granted bytes are objects times the class size     */
  /* (the inline hooks of gca_hooks.h do not store them).  Row 0: the  */
  /* 0-byte requests of the thread-local path (one granule each).      */
  for (k = 0; k < n_kinds; k++) {
    struct gca_count *z = &out[k * GCA_N_CLASSES];
    size_t cls;

    for (cls = 1; cls <= MAXOBJGRANULES; cls++) {
      z[cls].objs += gca_locked_rows[k][cls][0];
      z[cls].req_bytes += gca_locked_rows[k][cls][1];
    }
    for (cls = 0; cls < GCA_N_LARGE; cls++) {
      const struct gca_count *l = &counters_locked_large[k][cls];

      z[GCA_LARGE0 + cls].objs += l->objs;
      z[GCA_LARGE0 + cls].req_bytes += l->req_bytes;
      z[GCA_LARGE0 + cls].granted_bytes += l->granted_bytes;
    }
    if (z->objs != 0) {
      z[1].objs += z->objs;
      z[1].req_bytes += z->req_bytes;
    }
    z->objs = z->req_bytes = z->granted_bytes = 0;
    for (cls = 1; cls <= MAXOBJGRANULES; cls++)
      z[cls].granted_bytes = z[cls].objs * (word)GRANULES_TO_BYTES(cls);
  }
}

GC_INNER void gca_counters_sum(struct gca_count *out)
{
  BZERO(out, (size_t)MAXOBJKINDS * GCA_N_CLASSES * sizeof(struct gca_count));
  gca_counters_sum_kinds(out, MAXOBJKINDS);
}

GC_INNER word gca_counters_memory_bytes(void)
{
  struct gca_thread *t;
  word n = 0;

  COUNTERS_LOCK();
  for (t = counters_registry; t != NULL; t = t->next) n++;
  COUNTERS_UNLOCK();
  return n * (word)sizeof(struct gca_thread);
}

GC_INNER word gca_counters_debug_objs(int kind)
{
  struct gca_thread *t;
  word sum = 0;

  COUNTERS_LOCK();
  for (t = counters_registry; t != NULL; t = t->next)
    sum += GCA_LOAD(&t->debug_objs[kind]);
  COUNTERS_UNLOCK();
  return sum;
}

#endif /* !GC_ACC_DISABLE */
