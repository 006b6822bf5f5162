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
 * Called from the allocation hooks only (hooks.c dispatches).  Never
 * allocates from the GC heap, never takes the allocation lock.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif

struct gca_thread {
  struct gca_thread *next;      /* registry, newest first; never unlinked */
  volatile word owned;          /* nonzero while a live thread uses it    */
  word debug_objs[MAXOBJKINDS];
  /* GC_generic_malloc_many bookkeeping (see gca_hooks.h).               */
  int in_many;                  /* inside GC_generic_malloc_many          */
  int many_to_tl;               /* its list is for our thread-local lists */
  void *last_p;                 /* last object counted inside it          */
  unsigned last_kind, last_cls;
  word last_req, last_granted;
  struct gca_count c[MAXOBJKINDS][GCA_N_CLASSES];
};

static struct gca_thread *volatile counters_registry = NULL;
GC_INNER GCA_TLS_FAST struct gca_tl gca_tl_self;

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

static struct gca_thread *counters_get_self(void)
{
  return counters_get(&gca_tl_self);
}

GC_INNER void gca_counters_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;

  if (NULL == t) return;
  t->in_many = 0;
  COUNTERS_LOCK();
  t->owned = 0;
  COUNTERS_UNLOCK();
  me->counters = NULL;
}

GC_INNER unsigned gca_class_of(word granted)
{
  unsigned b;

  if (granted <= MAXOBJBYTES)
    return (unsigned)BYTES_TO_GRANULES(granted);
  for (b = 0; b + 1 < GCA_N_LARGE
              && (granted >> (GCA_LARGE_LOG0 + b + 1)) != 0; b++) {
    /* find the power of two below granted */
  }
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

  GCA_STORE(&c->objs, c->objs + n);
  GCA_STORE(&c->req_bytes, c->req_bytes + req);
  GCA_STORE(&c->granted_bytes, c->granted_bytes + granted);
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
  if (EXPECT(t->in_many, FALSE)) {
    /* Remember it: GC_generic_malloc_many may hand it out as its list.  */
    t->last_p = p;
    t->last_kind = k;
    t->last_cls = cls;
    t->last_req = (word)lb;
    t->last_granted = granted;
  }
}

GC_INNER void gca_counters_alloc(void *p, size_t lb)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t;
  hdr *hhdr;
  word granted;

  if (NULL == p) return;
  t = counters_get(me);
  if (NULL == t) return;
  hhdr = HDR(p);
  granted = counters_granted(hhdr);
  counters_count_one(me, t, p, gca_tags_on ? hhdr : NULL, lb, granted,
                     hhdr->hb_obj_kind, gca_class_of(granted), 1);
}

static void counters_alloc_tl_slow(struct gca_tl *me, void *p, size_t lb,
                                   size_t granules, int k)
{
  struct gca_thread *t = counters_get(me);
  hdr *hhdr = NULL;
  word granted;

  if (NULL == t) return;
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
}

/* The thread-local fast path: the hook knows the object's granules and */
/* kind (its free list's), so without tags this is three adds; the     */
/* header is only looked up for tags.                                    */
GC_INNER void gca_counters_alloc_tl(void *p, size_t lb, size_t granules,
                                    int k)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_thread *t = me->counters;
  struct gca_count *c;
  word g;

  if (EXPECT(NULL == t || t->in_many, FALSE)) {
    counters_alloc_tl_slow(me, p, lb, granules, k);
    return;
  }
  if (gca_tags_on) {
    hdr *hhdr = HDR(p);
    word granted = hhdr->hb_sz; /* small: thread-local lists only */

    c = &t->c[hhdr->hb_obj_kind][BYTES_TO_GRANULES(granted)];
    GCA_STORE(&c->objs, c->objs + 1);
    GCA_STORE(&c->req_bytes, c->req_bytes + (word)lb);
    GCA_STORE(&c->granted_bytes, c->granted_bytes + granted);
    gca_tags_alloc_tl(me, p, hhdr, granted);
    return;
  }
  g = granules != 0 ? (word)granules : 1;
  c = &t->c[k][g];
  GCA_STORE(&c->objs, c->objs + 1);
  GCA_STORE(&c->req_bytes, c->req_bytes + (word)lb);
  GCA_STORE(&c->granted_bytes, c->granted_bytes + GRANULES_TO_BYTES(g));
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
  t->in_many = 1;
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
  t->in_many = 0;
  if (NULL == list) return;
  if (list == t->last_p && NULL == obj_link(list)) {
    /* A single object from a fallback allocation, already counted by   */
    /* the path that made it.  Thread-local lists count on pop instead. */
    if (t->many_to_tl) {
      struct gca_count *c = &t->c[t->last_kind][t->last_cls];

      GCA_STORE(&c->objs, c->objs - 1);
      GCA_STORE(&c->req_bytes, c->req_bytes - t->last_req);
      GCA_STORE(&c->granted_bytes, c->granted_bytes - t->last_granted);
      gca_tags_untag(list);     /* tagged again when popped           */
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

GC_INNER void gca_counters_sum(struct gca_count *out)
{
  struct gca_thread *t;
  size_t i, n = (size_t)MAXOBJKINDS * GCA_N_CLASSES;

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
