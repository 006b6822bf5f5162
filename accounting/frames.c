/* SPDX-License-Identifier: MIT */
/*
 * frames.c: allocations per frame marker, per (type, callsite) pair.
 *
 * Counting starts at the first GC_acc_frame call (gca_frames_begin).
 * Allocations made with the allocation lock held count straight into
 * the pairs' frame counts; those made without it (thread-local free
 * lists, GC_malloc_many) count in per-thread tables that the marker
 * takes (gca_frames_take_threads) without stopping their threads.  Each
 * thread's table also holds its pair cache (gca_pair_intern_tl), so the
 * allocation path finds its pair and its frame entry in one lookup.  The
 * frame record itself is written by record.c from the rows here.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

/* The registry of per-thread tables, and their pages' allocation.     */
#ifdef THREADS
  static volatile AO_TS_t frames_spin = AO_TS_INITIALIZER;
# define FRAMES_LOCK() \
        while (AO_test_and_set_acquire(&frames_spin) == AO_TS_SET) { }
# define FRAMES_UNLOCK() AO_CLEAR(&frames_spin)
#else
# define FRAMES_LOCK() (void)0
# define FRAMES_UNLOCK() (void)0
#endif

GC_INNER void gca_frames_atfork_child(void)
{
  FRAMES_UNLOCK();
}

/* The pairs with counts in this frame, and their counts: a pair's     */
/* frame_row is its index here + 1 (0: none).  In a table of their own */
/* (made by the first frame marker's counts), not in every pair: 16 of */
/* a pair's 56 bytes that stayed 0 without frame markers (issue 33).  */
struct frame_row {
  word objs, bytes;
  unsigned pair;
};
static struct frame_row *frame_rows = NULL;
static word frame_rows_n = 0, frame_rows_cap = 0;
static word frame_lost_objs = 0, frame_lost_bytes = 0;

/* Room for one more row; 0 if no memory.  Lock held.                  */
static int frame_rows_room(void)
{
  word cap;
  struct frame_row *p;

  if (frame_rows_n < frame_rows_cap) return 1;
  cap = gca_mem_fit(sizeof(struct frame_row), frame_rows_n + 1,
                    frame_rows_cap);
  p = (struct frame_row *)gca_mem_alloc(GCA_MEM_TYPES,
                                        cap * sizeof(struct frame_row));
  if (NULL == p) return 0;
  if (frame_rows_n) BCOPY(frame_rows, p, frame_rows_n * sizeof(*p));
  gca_mem_free(GCA_MEM_TYPES, frame_rows,
               frame_rows_cap * sizeof(struct frame_row));
  frame_rows = p;
  frame_rows_cap = cap;
  return 1;
}

static void frame_add_locked(unsigned pair, word objs, word bytes)
{
  struct gca_pair *e;
  struct frame_row *r;

  if (0 == pair) {
    frame_lost_objs += objs;
    frame_lost_bytes += bytes;
    return;
  }
  e = gca_pair_get(pair);
  if (0 == e->frame_row) {
    if (!frame_rows_room()) {
      frame_lost_objs += objs;
      frame_lost_bytes += bytes;
      return;
    }
    r = &frame_rows[frame_rows_n];
    r->pair = pair;
    r->objs = r->bytes = 0;
    e->frame_row = (unsigned)++frame_rows_n;
  }
  r = &frame_rows[e->frame_row - 1];
  r->objs += objs;
  r->bytes += bytes;
}

/* Per-thread frame counts for allocations made without the lock        */
/* (thread-local free lists, GC_malloc_many).  Written by the owner      */
/* only; the frame marker (lock held) takes the growth since its last   */
/* look.  Each thread's table is indexed by pair id, in pages of        */
/* FTL_PAGE entries under a two-level directory, allocated as the       */
/* thread first meets a pair of the page (published with a release     */
/* store, read with acquire loads): a lookup is three loads, whatever   */
/* the number of pairs.  Only a failed page allocation counts as lost.  */
#define FTL_PAGE_LOG 8
#define FTL_PAGE ((unsigned)1 << FTL_PAGE_LOG)
#define FTL_MID_LOG 8
#define FTL_MID ((unsigned)1 << FTL_MID_LOG)
#define FTL_TOP ((GCA_MAX_PAIRS >> (FTL_PAGE_LOG + FTL_MID_LOG)) + 1)
/* struct frame_tl_ent: gca_priv.h (the allocation path bumps it).   */
struct frame_tl_mid {
  struct frame_tl_ent *page[FTL_MID];
};
/* The owner's pair cache: (cookie, site) -> pair and its entry, two-  */
/* way set-associative, so that a thread cycling through many types     */
/* finds its pair without the shared hash table.  It starts at          */
/* FTL_PCACHE entries, inside struct frame_tl, and doubles (up to       */
/* FTL_PCACHE_MAX) when more than one lookup in 16 misses over a run of */
/* lookups eight times its size: a thread that allocates 2,000 types    */
/* round-robin missed 30% of the time in 2,048 entries.  (It started at */
/* 2,048, 48 KiB a thread, until a small program's accounting memory    */
/* was held to 10% of its heap: tests/faults/acc_memory.sh; then 128,   */
/* which made struct frame_tl 5.2 KiB, two pages a thread, where 64     */
/* keep it to one.)                                                      */
/* The entries (struct gca_pc, gca_priv.h) hold the pair only; each has  */
/* its frame-count entry at the same index of a parallel array, which    */
/* only frame counting reads.  A grown cache has that array only if     */
/* frames were on when it grew (a third of its bytes: Guile's alloc.scm  */
/* under trace, 256 entries, two pages where one does; issue 33);        */
/* without it a frame-count entry is looked up each time (three loads).  */
#define FTL_PCACHE 64u
#define FTL_PCACHE_MAX 16384u
struct frame_tl {                       /* at most a page (64-bit)    */
  struct frame_tl *next;
  volatile word owned;
  word lost_objs, lost_bytes, taken_lost_objs, taken_lost_bytes;
  struct frame_tl_mid *top[FTL_TOP];
  struct gca_pc *pc;            /* pc0, or a larger table             */
  struct frame_tl_ent **pc_ent; /* pc_ent0, the larger table's, or NULL */
  word pc_mask;                 /* entries - 2: sets are even indices */
  word pc_misses;               /* the owner's gca_tl counts lookups  */
  struct gca_pc pc0[FTL_PCACHE];
  struct frame_tl_ent *pc_ent0[FTL_PCACHE];
};
static struct frame_tl *volatile frame_tl_registry = NULL;

static struct frame_tl *frame_tl_get(struct gca_tl *me)
{
  struct frame_tl *t = me->frame_tl;

  if (EXPECT(t != NULL, TRUE)) return t;
  FRAMES_LOCK();
  for (t = frame_tl_registry; t != NULL; t = t->next)
    if (!t->owned) break;
  if (NULL == t) {
    t = (struct frame_tl *)gca_mem_alloc(GCA_MEM_TYPES, sizeof(struct frame_tl));
    if (t != NULL) {
      t->pc = t->pc0;
      t->pc_ent = t->pc_ent0;
      t->pc_mask = FTL_PCACHE - 2;
      t->next = frame_tl_registry;
      frame_tl_registry = t;
    }
  }
  if (t != NULL) t->owned = 1;
  FRAMES_UNLOCK();
  me->frame_tl = t;
  if (t != NULL) {
    /* The cache's contents stay (pairs are global); its miss rate is   */
    /* this thread's from now on.                                        */
    t->pc_misses = 0;
    me->pc_mask = t->pc_mask;
    me->pc_lookups = 0;
    me->pc = t->pc;
  }
  return t;
}

/* The owner's entry of pair in t (allocating its page), or NULL.      */
static struct frame_tl_ent *frame_tl_ent_of(struct frame_tl *t,
                                            unsigned pair)
{
  unsigned hi = pair >> (FTL_PAGE_LOG + FTL_MID_LOG);
  unsigned mi = (pair >> FTL_PAGE_LOG) & (FTL_MID - 1);
  struct frame_tl_mid *mid = t->top[hi];
  struct frame_tl_ent *page, *f;

  if (EXPECT(NULL == mid, FALSE)) {
    FRAMES_LOCK();
    mid = (struct frame_tl_mid *)gca_mem_alloc(GCA_MEM_TYPES, sizeof(*mid));
    FRAMES_UNLOCK();
    if (NULL == mid) return NULL;
    REL_STOREP(&t->top[hi], mid);
  }
  page = mid->page[mi];
  if (EXPECT(NULL == page, FALSE)) {
    FRAMES_LOCK();
    page = (struct frame_tl_ent *)gca_mem_alloc(GCA_MEM_TYPES, 
                                FTL_PAGE * sizeof(struct frame_tl_ent));
    FRAMES_UNLOCK();
    if (NULL == page) return NULL;
    REL_STOREP(&mid->page[mi], page);
  }
  f = &page[pair & (FTL_PAGE - 1)];
  if (0 == f->pair) GCA_STORE(&f->pair, pair);
  return f;
}

/* Bytes of a grown pair cache of n entries and its parallel array.   */
#define FTL_PC_BYTES(n, ent) ((n) * (sizeof(struct gca_pc) \
                                 + ((ent) ? sizeof(struct frame_tl_ent *) \
                                    : 0)))

/* Double t's pair cache (the owner only), keeping what it holds.  0 if */
/* it is at its largest or no memory: the caller goes on as it was.     */
static int frame_pc_grow(struct gca_tl *me, struct frame_tl *t)
{
  word n = t->pc_mask + 2, i;
  struct gca_pc *np;
  struct frame_tl_ent **ne;
  int ent = gca_frames_on;

  me->pc_lookups = t->pc_misses = 0;
  if (n >= FTL_PCACHE_MAX) return 0;
  FRAMES_LOCK();
  np = (struct gca_pc *)gca_mem_alloc(GCA_MEM_TYPES, FTL_PC_BYTES(2 * n, ent));
  FRAMES_UNLOCK();
  if (NULL == np) return 0;
  ne = ent ? (struct frame_tl_ent **)(np + 2 * n) : NULL;
  for (i = 0; i < n; i++) {
    const struct gca_pc *e = &t->pc[i];
    word d;

    if (0 == e->pair) continue;
    d = gca_pc_set(e->cookie, e->site, 2 * n - 2);
    if (np[d].pair != 0) d++;           /* second way (newest first lost) */
    if (0 == np[d].pair) {
      np[d] = *e;
      if (ne != NULL && t->pc_ent != NULL) ne[d] = t->pc_ent[i];
    }
  }
  if (t->pc != t->pc0) {
    FRAMES_LOCK();
    gca_mem_free(GCA_MEM_TYPES, t->pc, FTL_PC_BYTES(n, t->pc_ent != NULL));
    FRAMES_UNLOCK();
  }
  t->pc = np;
  t->pc_ent = ne;
  t->pc_mask = 2 * n - 2;
  me->pc = np;
  me->pc_mask = t->pc_mask;
  return 1;
}

GC_INNER unsigned gca_pair_intern_tl(struct gca_tl *me, word cookie,
                                     unsigned site, int origin,
                                     struct frame_tl_ent **ent)
{
  struct frame_tl *t = frame_tl_get(me);
  const struct gca_pc *hit;
  struct gca_pc *c;
  struct frame_tl_ent **e;
  word i;
  unsigned pair;

  *ent = NULL;
  if (EXPECT(NULL == t, FALSE)) return gca_pair_intern(cookie, site, origin);
  me->pc_lookups++;
  hit = gca_pc_find(t->pc, t->pc_mask, cookie, site);
  if (hit != NULL) {
    if (EXPECT(NULL == t->pc_ent, FALSE)) {
      if (gca_frames_on) *ent = frame_tl_ent_of(t, hit->pair);
      return hit->pair;
    }
    e = &t->pc_ent[hit - t->pc];
    if (EXPECT(NULL == *e, FALSE) && gca_frames_on)
      *e = frame_tl_ent_of(t, hit->pair);
    *ent = *e;
    return hit->pair;
  }
  i = gca_pc_set(cookie, site, t->pc_mask);
  if (++t->pc_misses > me->pc_lookups / 16
      && me->pc_lookups > 8 * (t->pc_mask + 2)) {
    if (frame_pc_grow(me, t))
      i = gca_pc_set(cookie, site, t->pc_mask);
  }
  pair = gca_pair_intern(cookie, site, origin);
  if (pair != 0) {
    c = &t->pc[i];
    c[1] = c[0];
    c->cookie = cookie;
    c->site = site;
    c->pair = pair;
    *ent = gca_frames_on ? frame_tl_ent_of(t, pair) : NULL;
    if (t->pc_ent != NULL) {
      e = &t->pc_ent[i];
      e[1] = e[0];
      *e = *ent;
    }
  }
  return pair;
}

GC_INNER void gca_frames_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct frame_tl *t = me->frame_tl;

  me->c_ent = NULL;
  me->pc = NULL;
  if (NULL == t) return;
  FRAMES_LOCK();
  t->owned = 0;
  FRAMES_UNLOCK();
  me->frame_tl = NULL;
}

GC_INNER void gca_frames_count(struct gca_tl *me, unsigned pair,
                                    word objs, word bytes, int locked)
{
  struct frame_tl *t;
  struct frame_tl_ent *e;

  if (EXPECT(!gca_frames_on, TRUE)) return;
  if (locked) {
    frame_add_locked(pair, objs, bytes);
    return;
  }
  /* The entry of the thread's cached pair (tags.c's one-entry cache).  */
  e = me->c_ent;
  if (EXPECT(e != NULL && pair == me->c_pair, TRUE)) {
    GCA_STORE(&e->objs, e->objs + objs);
    GCA_STORE(&e->bytes, e->bytes + bytes);
    return;
  }
  t = frame_tl_get(me);
  if (NULL == t) return;
  if (pair != 0) {
    struct frame_tl_ent *f = frame_tl_ent_of(t, pair);

    if (EXPECT(f != NULL, TRUE)) {
      GCA_STORE(&f->objs, f->objs + objs);
      GCA_STORE(&f->bytes, f->bytes + bytes);
      if (pair == me->c_pair) me->c_ent = f;
      return;
    }
  }
  GCA_STORE(&t->lost_objs, t->lost_objs + objs);
  GCA_STORE(&t->lost_bytes, t->lost_bytes + bytes);
}

GC_INNER void gca_frames_take_threads(void)
{
  struct frame_tl *t;
  unsigned i, hi, mi, top_n;

  FRAMES_LOCK();
  t = frame_tl_registry;
  top_n = (gca_pair_count() >> (FTL_PAGE_LOG + FTL_MID_LOG)) + 1;
  FRAMES_UNLOCK();
  for (; t != NULL; t = t->next) {
    word o, b;

    for (hi = 0; hi < top_n; hi++) {
      struct frame_tl_mid *mid = ACQ_LOADP(&t->top[hi]);

      if (NULL == mid) continue;
      for (mi = 0; mi < FTL_MID; mi++) {
        struct frame_tl_ent *page = ACQ_LOADP(&mid->page[mi]);

        if (NULL == page) continue;
        for (i = 0; i < FTL_PAGE; i++) {
          struct frame_tl_ent *e = &page[i];
          unsigned pair = (unsigned)GCA_LOAD(&e->pair);

          if (0 == pair) continue;
          o = GCA_LOAD(&e->objs);
          b = GCA_LOAD(&e->bytes);
          if (o != e->taken_objs)
            frame_add_locked(pair, o - e->taken_objs, b - e->taken_bytes);
          e->taken_objs = o;
          e->taken_bytes = b;
        }
      }
    }
    o = GCA_LOAD(&t->lost_objs);
    b = GCA_LOAD(&t->lost_bytes);
    frame_lost_objs += o - t->taken_lost_objs;
    frame_lost_bytes += b - t->taken_lost_bytes;
    t->taken_lost_objs = o;
    t->taken_lost_bytes = b;
  }
}

/* Frames are counted only once the program marks them: until the first */
/* GC_acc_frame call no allocation path touches the per-thread frame    */
/* tables (a thread's table spans every pair id it meets, 40 bytes each, */
/* which with many threads and callsites is most of the side tables).   */
/* Read racily by the allocation paths: an allocation that misses the   */
/* switch by a moment is simply not in the first frame.                 */
GC_INNER int gca_frames_on = 0;

/* The first call starts the counting and answers 0: no frame has been */
/* counted yet.  Lock held.                                              */
GC_INNER int gca_frames_begin(void)
{
  if (gca_frames_on) return 1;
  gca_frames_on = 1;
  return 0;
}

GC_INNER unsigned gca_frames_n_rows(void)
{
  return (unsigned)frame_rows_n;
}

GC_INNER unsigned gca_frames_row_pair(unsigned i)
{
  return frame_rows[i].pair;
}

GC_INNER void gca_frames_row(unsigned i, word v[GCA_NCOLS_frame_rows])
{
  const struct frame_row *r = &frame_rows[i];
  const struct gca_pair *e = gca_pair_get(r->pair);

  v[GCA_COL_frame_rows_type_id] = e->type;
  v[GCA_COL_frame_rows_site_id] = e->site;
  v[GCA_COL_frame_rows_objs] = r->objs;
  v[GCA_COL_frame_rows_bytes] = r->bytes;
}

/* Move objs/bytes of the frame from pair `from` to pair `to` (lock    */
/* held, the threads' counts taken): a sample counted before its type   */
/* was known, whose word 0 has named it since (samples.c).  Nothing if  */
/* from does not hold them (its count raced into the next frame).      */
GC_INNER void gca_frames_move(unsigned from, unsigned to, word objs,
                              word bytes)
{
  struct frame_row *r;
  unsigned k;

  if (0 == from || 0 == to || from == to) return;
  k = gca_pair_get(from)->frame_row;
  if (0 == k) return;
  r = &frame_rows[k - 1];
  if (r->objs < objs || r->bytes < bytes) return;
  r->objs -= objs;
  r->bytes -= bytes;
  frame_add_locked(to, objs, bytes);
}

GC_INNER void gca_frames_lost(word *objs, word *bytes)
{
  *objs = frame_lost_objs;
  *bytes = frame_lost_bytes;
}

/* Start the next frame: every count back to zero.  Lock held.          */
GC_INNER void gca_frames_reset(void)
{
  unsigned i;

  for (i = 0; i < frame_rows_n; i++)
    gca_pair_get(frame_rows[i].pair)->frame_row = 0;
  frame_rows_n = 0;
  frame_lost_objs = frame_lost_bytes = 0;
}

#endif /* !GC_ACC_DISABLE */
