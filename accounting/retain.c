/* SPDX-License-Identifier: MIT */
/*
 * retain.c: why is it alive (issue 37): paths from a root to sampled
 * instances of a type or callsite, on request; the walk (its record is
 * retain_record.c's, what it takes from the collector and its bounds
 * retain_bounds.c's, the automatic requests retain_auto.c's).
 *
 * At the asked collection's end (GC_ACC_ON_COLLECTION_END, lock held,
 * mark bits still this collection's), world stopped once more, a walk
 * goes from the roots (finalization queue, static data and registered
 * ranges less exclusions, marked uncollectable objects, each thread's
 * stack) over the objects the collection marked, as its mark did: by
 * descriptor (a bitmap precisely, else conservatively), each word as
 * the collector takes it.  Each object reached is visited once and
 * keeps a word naming the object it was reached from.  A reference into
 * a block the walk has a record of is resolved from the record alone.
 * Breadth first (shortest paths) for one marking's time, then depth
 * first, or, when that collection's marking recorded each object's
 * parent (retain_mark.c), breadth first for a quarter of the objects
 * marked at most and then the paths followed back from those parents;
 * types read only in blocks whose tag palette may hold one;
 * bounded by memory and time ("partial").  Each instance's path is
 * then followed back, each step's word found again by scanning the
 * object before it; the world restarts; one "retain" record.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"

#include <string.h>

#define RETAIN_MIN_PAUSE ((word)50 * 1000000)   /* ns                   */
#define RETAIN_MIN_BFS ((word)20 * 1000000)     /* ns                   */
#define RETAIN_REC_BFS_SHARE 4          /* of the objects marked        */
#define RETAIN_PATHS_MEMORY ((word)1 << 20)     /* kept for paths then */
static word rw_mbase[GCA_RETAIN_K];     /* from the marking's parents   */
static unsigned rw_n_marked;
static word rw_reserve;

/* The walk's state (only during a walk).                               */
static struct gca_rwalk rw;
static int rw_stop;
static word rw_deadline;                /* ns (CLOCK_MONOTONIC)         */
static word rw_scanned;                 /* words since the clock's read */
static word rw_switch;                  /* ns: breadth first until then */
static word rw_bfs_max;                 /* objects taken breadth first  */

/* An object's id: its block's number among those reached times        */
/* 2^RW_OBJ_BITS plus its index.  A block's record (rw_blks) and table */
/* (rw_words: a word an object, 0 not reached, RW_UNMARKED, the id + 1 */
/* it was reached from, or RW_ROOT | a root's index) are made when the  */
/* walk first reaches it, found through a directory of the plausible   */
/* heap's chunks (arrays of block numbers + 1).  The queue holds ids.   */
#define RW_OBJ_BITS (CPP_LOG_HBLKSIZE - 3)      /* granules of 8 bytes  */
#define RW_ROOT 0x80000000u
#define RW_MAX_BLKS (((word)1 << (31 - RW_OBJ_BITS)) - 1)
#define RW_DIR_LOG 16                   /* at most 2^16 chunks          */
#define RW_INV_SHIFT 24
struct rw_blk {
  word addr, sz, descr;                 /* descr: its header's          */
  unsigned *tab;                        /* its objects' parents         */
  unsigned inv;                         /* ceil(2^24 / granules), or 0  */
  unsigned num;                         /* its number                   */
  unsigned nw;                          /* words an object (a length)   */
  unsigned short last;                  /* its objects' last byte       */
  unsigned short may;                   /* may hold an instance         */
};
#define RW_UNMARKED 0xffffffffu         /* tab: an object not marked    */
static struct gca_rseg rw_blks;         /* struct rw_blk                */
static struct gca_rseg rw_words;        /* unsigned: tables, chunks     */
static struct gca_rseg rw_queue;        /* ids, breadth first           */
static word rw_head;                    /* the queue's next to take     */
static unsigned **rw_dir;               /* chunk: block numbers + 1     */
static word rw_lo, rw_n_chunks, rw_chunk_mask;
static unsigned rw_chunk_log;           /* bytes a chunk, log           */
static int rw_big;                      /* chunks: more than a segment  */
static word rw_visited;
/* Finding a path's words (after the walk): the object looked for, and  */
/* the word of the scanned object found referring to it.                */
static word rw_find;
static unsigned rw_found;
#define RW_BLK(i) ((struct rw_blk *)rw_blks.seg[(word)(i) >> GCA_RS_LOG] \
                   + ((word)(i) & GCA_RS_MASK))
#define RW_QUEUE(i) ((unsigned *)rw_queue.seg[(word)(i) >> GCA_RS_LOG] \
                     + ((word)(i) & GCA_RS_MASK))

/* What a reference's test reads, in locals: kept in registers (the    */
/* tables' and queue's stores could alias the globals).                 */
struct rw_hot {
  unsigned **dir;
  word lo, mask, least, span;
  unsigned log;
};

GC_INLINE void rw_hot_init(struct rw_hot *h)
{
  h->dir = rw_dir;
  h->lo = rw_lo;
  h->mask = rw_chunk_mask;
  h->log = rw_chunk_log;
  h->least = (word)GC_least_plausible_heap_addr;
  h->span = (word)GC_greatest_plausible_heap_addr - h->least;
}

/* The walk's memory (retain_bounds.c): within the cap (rw.mem.cap); */
/* a request past it returns NULL or 0 and makes the walk partial.      */
#define rw_alloc(bytes) gca_rmem_alloc(&rw.mem, (bytes))
#define rw_free(p, bytes) gca_rmem_free(&rw.mem, (p), (bytes))
#define rw_seg_init(s, elem) gca_rseg_init(&rw.mem, (s), (elem))
#define rw_push(s) gca_rseg_push(&rw.mem, (s))
#define rw_seg_free(s) gca_rseg_free(&rw.mem, (s))

/* The walk stops (partial: not at the memory cap, which says so).    */
static void *rw_halt(int partial)
{
  if (partial) rw.partial = 1;
  rw_stop = 1;
  return NULL;
}

static struct rw_blk rw_none;           /* no block (addr 0)            */

/* n zeroed words in one piece (n at most a segment's 2^GCA_RS_LOG),   */
/* from rw_words; NULL: the cap (the walk stops).                       */
static unsigned *rw_words_new(word n)
{
  unsigned *p = (unsigned *)gca_rseg_take(&rw.mem, &rw_words, n);

  return p != NULL ? p : (unsigned *)rw_halt(0);
}

/* Work done (words read, objects taken): past the time bound the walk */
/* stops, the clock read every 64 Ki of it.                             */
static GC_ATTR_NOINLINE void rw_clock_read(void)
{
  rw_scanned = 0;
  if (gca_now_ns() > rw_deadline) {
    rw.partial = rw.timed_out = 1;      /* the pause's bound            */
    rw_stop = 1;
  }
}

GCA_ALWAYS_INLINE void rw_clock(word work)
{
  rw_scanned += work;
  if (EXPECT(rw_scanned >= 65536, FALSE)) rw_clock_read();
}

/* The record of the block h (of header hhdr), made if new (its table: */
/* RW_UNMARKED for each object not marked); NULL: the cap or the        */
/* bounds (the walk stops).                                              */
static GC_ATTR_NOINLINE struct rw_blk *rw_blk_of(struct hblk *h,
                                                 hdr *hhdr)
{
  word off = (word)h - rw_lo, c = off >> rw_chunk_log;
  unsigned *d, *slot;
  struct rw_blk *b;
  word n, g;

  if (EXPECT(c >= rw_n_chunks, FALSE))          /* not the heap's: never */
    return (struct rw_blk *)rw_halt(1);
  d = rw_dir[c];
  if (EXPECT(NULL == d, FALSE)) {
    word n_blks = (word)1 << (rw_chunk_log - LOG_HBLKSIZE);

    d = rw_big ? (unsigned *)rw_alloc(n_blks * sizeof(unsigned))
               : rw_words_new(n_blks);
    if (NULL == d) return (struct rw_blk *)rw_halt(0);
    rw_dir[c] = d;
  }
  slot = &d[(off & (((word)1 << rw_chunk_log) - 1)) >> LOG_HBLKSIZE];
  if (EXPECT(*slot != 0, TRUE)) return RW_BLK(*slot - 1);
  if (rw_blks.n >= RW_MAX_BLKS) return (struct rw_blk *)rw_halt(1);
  b = (struct rw_blk *)rw_push(&rw_blks);
  if (NULL == b) return (struct rw_blk *)rw_halt(0);
  b->addr = (word)h;
  b->sz = hhdr->hb_sz;
  b->descr = hhdr->hb_descr;
  b->num = (unsigned)(rw_blks.n - 1);
  g = BYTES_TO_GRANULES(b->sz);
  n = b->sz > MAXOBJBYTES ? 1 : HBLKSIZE / b->sz;
  b->inv = b->sz > MAXOBJBYTES ? 0
           : (unsigned)((((word)1 << RW_INV_SHIFT) + g - 1) / g);
  b->last = (unsigned short)((b->sz > MAXOBJBYTES
                              ? (b->sz < HBLKSIZE ? b->sz : HBLKSIZE)
                              : n * b->sz) - 1);
  /* Words to read of each object when its descriptor is a length, as */
  /* most are (0: rw_expand's way).                                    */
  b->nw = (b->descr & GC_DS_TAGS) != GC_DS_LENGTH ? 0
          : (unsigned)((b->descr < b->sz ? b->descr : b->sz) / sizeof(word));
  if (b->nw > 65536) b->nw = 0;
  b->tab = rw_words_new(n);
  if (NULL == b->tab) {
    rw_blks.n--;
    return NULL;
  }
  for (g = 0; g < n; g++) {
    if (!mark_bit_from_hdr(hhdr, MARK_BIT_NO(g * b->sz, b->sz)))
      b->tab[g] = RW_UNMARKED;
  }
  b->may = (unsigned short)gca_rref_block_may(&rw, hhdr);
  *slot = (unsigned)rw_blks.n;
  return b;
}

/* The index of the object at base in its block b.                       */
GC_INLINE word rw_index(const struct rw_blk *b, word base)
{
  /* (64 bits: a 32-bit word would overflow past index 255)           */
  return (word)(((unsigned long long)BYTES_TO_GRANULES(base - b->addr)
                 * b->inv) >> RW_INV_SHIFT);
}

/* Object i of block b, reached from the object of id parent - 1 (or   */
/* RW_ROOT | i: root i): queued unless it was reached already or is    */
/* not marked (its word not 0); 0 if not queued.                        */
GCA_ALWAYS_INLINE int rw_enqueue(struct rw_blk *b, word i, unsigned parent)
{
  unsigned *e = &b->tab[i], *q;

  if (*e != 0) return 0;
  q = (unsigned *)rw_push(&rw_queue);
  if (NULL == q) return rw_halt(0) != NULL;     /* the cap: 0, stopped  */
  *e = parent;
  *q = b->num << RW_OBJ_BITS | (unsigned)i;
  rw_visited++;
  return 1;
}

/* A reference to the marked object at base (gca_rref_target's) from   */
/* the object of id parent (RW_ROOT | i: root i's); 0 if not queued.    */
static int rw_reach(ptr_t base, hdr *hhdr, unsigned parent)
{
  struct rw_blk *b = rw_blk_of(HBLKPTR(base), hhdr);

  return NULL == b ? 0 : rw_enqueue(b, rw_index(b, (word)base),
                                    parent & RW_ROOT ? parent : parent + 1);
}

/* rw_paths': whether base is the object looked for (ref: the word).   */
GC_INLINE void rw_look(word base, unsigned ref)
{
  if (base != rw_find) return;
  rw_found = ref;
  rw_stop = 1;
}

/* A word w of the object of id parent (its word ref), in the plausible */
/* heap: the object it refers to queued (find: whether it is rw_find's, */
/* nothing queued), taken as gca_rref_target would (rw_ref_slow), or    */
/* from the block's record if the walk has one: the index, a valid      */
/* displacement, its word (not 0: reached or not marked).               */
static GC_ATTR_NOINLINE void rw_ref_slow(word w, unsigned parent,
                                         unsigned ref, int find)
{
  hdr *hhdr;
  ptr_t base = gca_rref_target(w, 0, &hhdr);

  if (NULL == base) return;
  if (!find) rw_reach(base, hhdr, parent);
  else rw_look((word)base, ref);
}

GCA_ALWAYS_INLINE void rw_ref(const struct rw_hot *h, struct rw_blk *cur,
                              word w, unsigned parent, unsigned ref, int find)
{
  word off = w - cur->addr, k;
  struct rw_blk *b = cur;               /* often: the object's own block */

  if (off >= HBLKSIZE) {
    unsigned *d, n;

    off = w - h->lo;
    d = h->dir[off >> h->log];
    if (EXPECT(NULL == d, FALSE)
        || EXPECT(0 == (n = d[(off & h->mask) >> LOG_HBLKSIZE]), FALSE)) {
      rw_ref_slow(w, parent, ref, find);
      return;
    }
    b = RW_BLK(n - 1);
    off = w - b->addr;
  }
  if (off > b->last) return;            /* past its last object        */
  k = rw_index(b, w);
  off -= k * b->sz;
  if (off != 0 && !GC_all_interior_pointers
      && (off >= VALID_OFFSET_SZ || !GC_valid_offsets[off]))
    return;
  if (!find) rw_enqueue(b, k, parent + 1);
  else rw_look(b->addr + k * b->sz, ref);
}

/* A root's reference (from: the word holding it; 0 for an object that */
/* is a root itself).                                                    */
static void rw_root(ptr_t base, hdr *hhdr, word from, unsigned info)
{
  struct gca_rroot *r = rw.roots.n < RW_ROOT - 1   /* not RW_UNMARKED */
                        ? (struct gca_rroot *)rw_push(&rw.roots) : NULL;

  if (NULL == r) {                      /* the walk stops               */
    rw_halt(rw.roots.n >= RW_ROOT - 1);
    return;
  }
  r->from = from;
  r->info = info;
  if (!rw_reach(base, hhdr, RW_ROOT | (unsigned)(rw.roots.n - 1)))
    rw.roots.n--;
}

/* The word w at p in the plausible heap: a root's or object obj's.     */
GCA_ALWAYS_INLINE void rw_word(const struct rw_hot *h, struct rw_blk *cur,
                               word w, word *p, word *obj, unsigned parent,
                               unsigned info, int interior, int root, int find)
{
  if (root) {
    hdr *hhdr;
    ptr_t b = gca_rref_target(w, interior, &hhdr);

    if (b != NULL) rw_root(b, hhdr, (word)p, info);
  } else {
    rw_ref(h, cur, w, parent, (unsigned)(p - obj) | GCA_RREF_CONS, find);
  }
}

/* Words [p, e), each a possible reference: of a root (root: info its */
/* kind) or of the object of id parent at obj, conservatively (find:   */
/* rw_paths').  Most words are no reference: one compare each, four a   */
/* turn.  Returns where it stopped (e unless the walk stops).           */
GCA_ALWAYS_INLINE word *rw_scan_words(const struct rw_hot *h,
                                      struct rw_blk *cur, word *p, word *e,
                                      word *obj, unsigned parent,
                                      unsigned info, int interior, int root,
                                      int find)
{
  word least = h->least, span = h->span, d;

  /* The stop: checked here for roots and a path's word, else per object */
# define RW_WORD(i) \
    if (EXPECT((d = p[i] - least) < span, FALSE)) { \
      rw_word(h, cur, d + least, p + (i), obj, parent, info, interior, \
              root, find); \
      if ((root || find) && rw_stop) return p + (i) + 1; \
    }
  switch ((word)(e - p) & 3) {          /* the rest, then four a turn  */
  case 3: RW_WORD(0) p++;
    /* fall through */
  case 2: RW_WORD(0) p++;
    /* fall through */
  case 1: RW_WORD(0) p++;
    /* fall through */
  default: break;
  }
  for (; p < e; p += 4) {
    RW_WORD(0)
    RW_WORD(1)
    RW_WORD(2)
    RW_WORD(3)
  }
# undef RW_WORD
  return e;
}

/* Words [lo, hi) (word aligned inward) as rw_scan_words, in pieces of */
/* 64 Ki words, the clock read between them (roots, large objects).     */
static GC_ATTR_NOINLINE void rw_scan_range(struct rw_blk *cur, ptr_t lo,
                                           ptr_t hi, unsigned parent,
                                           unsigned info, int interior,
                                           int root, int find)
{
  word *p = (word *)(((word)lo + sizeof(word) - 1) & ~(word)(sizeof(word) - 1));
  word *e = (word *)((word)hi & ~(word)(sizeof(word) - 1)), *obj = p;
  struct rw_hot h;

  rw_hot_init(&h);
  while (p < e) {
    word *lim = e - p > 65536 ? p + 65536 : e;
    word *q = rw_scan_words(&h, cur, p, lim, obj, parent, info, interior,
                            root, find);

    rw.words += (word)(q - p);
    rw_clock((word)(q - p));
    if (rw_stop) return;
    p = q;
  }
}

/* A static range less the exclusions (GC_excl_table, sorted).          */
static void rw_scan_static(ptr_t lo, ptr_t hi, unsigned info)
{
  size_t i;

  while ((word)lo < (word)hi && !rw_stop) {
    ptr_t next = hi, resume = hi;

    for (i = 0; i < GC_excl_table_entries; i++) {
      ptr_t es = GC_excl_table[i].e_start, ee = GC_excl_table[i].e_end;

      if ((word)ee > (word)lo && (word)es < (word)next) {
        next = (word)es > (word)lo ? es : lo;
        resume = ee;
      }
    }
    rw_scan_range(&rw_none, lo, next, GCA_RNONE, info, 0, 1, 0);
    lo = resume;
  }
}

/* A thread's stack [lo, hi) scanned (gca_retain_stacks); 1: stop.    */
static int rw_scan_stack(ptr_t lo, ptr_t hi, unsigned info)
{
  rw_scan_range(&rw_none, lo, hi, GCA_RNONE, info, 1, 1, 0);
  return rw_stop;
}

/* Marked uncollectable objects: roots too.                              */
static void rw_uncollectable_block(struct hblk *h, word client_data)
{
  hdr *hhdr = HDR(h);
  word sz, i, lim;

  (void)client_data;
  if (rw_stop || NULL == hhdr || HBLK_IS_FREE(hhdr)
      || !IS_UNCOLLECTABLE(hhdr->hb_obj_kind))
    return;
  sz = hhdr->hb_sz;
  lim = sz > MAXOBJBYTES ? 0 : HBLKSIZE - sz;   /* large: one object   */
  for (i = 0; i <= lim && !rw_stop; i += sz) {
    if (mark_bit_from_hdr(hhdr, MARK_BIT_NO(i, sz)))
      rw_root((ptr_t)h + i, hhdr, 0, GCA_RK_UNCOLLECTABLE);
  }
}

/* The references of the object at base (id: its id) of block b, as    */
/* its descriptor says (find: rw_paths'; a length of at most 64 Ki      */
/* words is rw_take's first).  Returns the words read that the clock    */
/* has not been told.                                                    */
static GC_ATTR_NOINLINE word rw_expand(const struct rw_hot *h, ptr_t base,
                                        struct rw_blk *b, unsigned id,
                                        int find)
{
  word sz = b->sz, descr = b->descr;

  for (;;) {
    switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      rw_scan_range(b, base, base + (descr > sz ? sz : descr), id, 0, 0, 0,
                    find);
      return 0;
    case GC_DS_BITMAP: {
      word bm = descr & ~(word)GC_DS_TAGS, j;

      for (j = 0; bm != 0 && j < sz / sizeof(word) && !rw_stop;
           j++, bm <<= 1) {
        if ((signed_word)bm < 0 && ((word *)base)[j] - h->least < h->span)
          rw_ref(h, b, ((word *)base)[j], id, (unsigned)j, find);
      }
      rw.words += sz / sizeof(word);
      return sz / sizeof(word);
    }
    case GC_DS_PER_OBJECT:
      descr = gca_rref_per_object(base, descr);
      if (0 == descr) return 0;
      if ((descr & GC_DS_TAGS) == GC_DS_PER_OBJECT) descr = sz;
      break;
    default:            /* a mark procedure: every word, conservatively */
      rw_scan_range(b, base, base + sz, id, 0, 0, 0, find);
      return 0;
    }
  }
}

/* The object of id id: its base (and its block's record).              */
#define RW_OBJ_MASK (((word)1 << RW_OBJ_BITS) - 1)
GC_INLINE ptr_t rw_base_of(unsigned id, struct rw_blk **bb)
{
  struct rw_blk *b = RW_BLK(id >> RW_OBJ_BITS);

  *bb = b;
  return (ptr_t)(b->addr + (id & RW_OBJ_MASK) * b->sz);
}

/* Object id (at base, of block b) taken from the queue (or stack): an  */
/* instance asked for? (the type read only where its block's palette    */
/* may hold one), then its references.                                   */
GCA_ALWAYS_INLINE void rw_take(const struct rw_hot *h, ptr_t base,
                               struct rw_blk *b, unsigned id,
                               unsigned tids[GCA_RETAIN_K])
{
  if (b->may && gca_rref_is_instance(&rw, base, HDR(base))) {
    tids[rw.n_targets++] = id;
    if (GCA_RETAIN_K == rw.n_targets) {
      rw_stop = 1;
      return;
    }
  }
  if (EXPECT(b->nw != 0, TRUE)) {         /* a length: rw_expand's first */
    rw_scan_words(h, b, (word *)base, (word *)base + b->nw, (word *)base,
                  id, 0, 0, 0, 0);
    rw.words += b->nw;
    rw_clock(64 + b->nw);
  } else {
    rw_clock(64 + rw_expand(h, base, b, id, 0));
  }
}

#define RW_AHEAD 16                     /* ids prefetched ahead        */

/* Breadth first for one marking's time (a function of its own, as     */
/* rw_depth_first: registers for its loop): each object a cache miss   */
/* unless asked for some ids ahead (decoded once, kept in a ring till   */
/* taken).  Taken segments of the queue are unmapped (the frontier).   */
static GC_ATTR_NOINLINE void rw_breadth_first(unsigned tids[GCA_RETAIN_K])
{
  struct rw_hot h;
  struct { ptr_t base; struct rw_blk *b; } ring[RW_AHEAD];
  word fill;

  rw_hot_init(&h);
  for (fill = rw_head; rw_head < rw_queue.n && !rw_stop; ) {
    unsigned id = *RW_QUEUE(rw_head);

    if ((rw_head & 1023) == 0 && rw_head != 0
        && (rw_head >= rw_bfs_max || gca_now_ns() > rw_switch))
      break;
    for (; fill < rw_queue.n && fill < rw_head + RW_AHEAD; fill++) {
      ring[fill % RW_AHEAD].base = rw_base_of(*RW_QUEUE(fill),
                                              &ring[fill % RW_AHEAD].b);
#     if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(ring[fill % RW_AHEAD].base);
#     endif
    }
    rw_take(&h, ring[rw_head % RW_AHEAD].base, ring[rw_head % RW_AHEAD].b,
            id, tids);
    if ((++rw_head & GCA_RS_MASK) == 0) {
      word s = (rw_head >> GCA_RS_LOG) - 1;

      rw_free(rw_queue.seg[s], (word)rw_queue.elem << GCA_RS_LOG);
      rw_queue.seg[s] = NULL;
    }
  }
}

/* Then depth first, as the marker goes (along lists built side by    */
/* side, where a breadth-first level touches a page an object): the    */
/* queue's rest a stack (its first on top), what each object reaches    */
/* taken last first.  Paths found so are true, not always shortest.    */
static GC_ATTR_NOINLINE void rw_depth_first(unsigned tids[GCA_RETAIN_K])
{
  struct rw_hot h;
  word lo = rw_head, hi = rw_queue.n - 1;

  rw.depth_first = 1;
  for (; lo < hi; lo++, hi--) {
    unsigned *a = RW_QUEUE(lo), *z = RW_QUEUE(hi), x = *a;

    *a = *z;
    *z = x;
  }
  rw_hot_init(&h);
  while (rw_queue.n > rw_head && !rw_stop) {
    word top = --rw_queue.n;
    unsigned id = *RW_QUEUE(top);
    struct rw_blk *b;
    ptr_t base = rw_base_of(id, &b);

    rw_take(&h, base, b, id, tids);
  }
}

/* The walk, world stopped: the roots, breadth first, then depth first */
/* till GCA_RETAIN_K instances are taken (into tids) or all is.          */
static void rw_walk(unsigned tids[GCA_RETAIN_K])
{
  int k;

  /* The finalization queue first: on Unity's fork (7.x, one-file     */
  /* build) it is finalize.c's static, in the static data too.          */
# if GC_VERSION_MAJOR >= 8 || defined(GCA_AMALGAM)
    rw_scan_range(&rw_none, (ptr_t)&GC_fnlz_roots,
                  (ptr_t)&GC_fnlz_roots + sizeof(GC_fnlz_roots), GCA_RNONE,
                  GCA_RK_FINALIZER | GCA_RI_CONSERVATIVE, 0, 1, 0);
# endif
  for (k = 0; k < n_root_sets && !rw_stop; k++) {
    rw_scan_static(GC_static_roots[k].r_start, GC_static_roots[k].r_end,
                   GCA_RK_STATIC | GCA_RI_CONSERVATIVE
                   | ((unsigned)k << GCA_RI_SHIFT));
  }
  /* Uncollectable objects before stacks: a block of class statics a   */
  /* stale stack copy points at too is told as what it is.              */
  if (!rw_stop) GC_apply_to_all_blocks(rw_uncollectable_block, 0);
  if (!rw_stop) (void)gca_retain_stacks(0, rw_scan_stack);
  rw_breadth_first(tids);
  rw.n_shortest = rw.n_targets;
  rw_n_marked = 0;
  /* The marking's parents for the instances not taken, if it recorded */
  /* them: also past the walk's memory cap, which is then no bound.    */
  if (gca_rmark_ready() && rw.n_targets < GCA_RETAIN_K && !rw.timed_out
      && (rw_head < rw_queue.n || rw.mem.over)) {
    word taken[GCA_RETAIN_K];
    unsigned t;
    struct rw_blk *b;

    for (t = 0; t < rw.n_targets; t++)
      taken[t] = (word)rw_base_of(tids[t], &b);
    rw_n_marked = gca_rmark_choose(&rw, taken, rw_mbase);
    if (rw_n_marked != ~0u) {
      rw.mem.over = 0;
      rw.depth_first = rw.from_marking = 1;
      return;
    }
    rw_n_marked = 0;
  }
  if (!rw_stop && rw_head < rw_queue.n) rw_depth_first(tids);
}

/* The paths to tids[0, rw.n_targets), world still stopped: each into   */
/* rw.nodes (target first, each node's parent the next, the root's last */
/* with its root's index), the word of each step that refers to the     */
/* next found again by scanning it as the walk did.                      */
static void rw_paths(const unsigned tids[GCA_RETAIN_K])
{
  unsigned t, n = rw.n_targets;
  struct rw_hot h;

  rw_deadline = ~(word)0;               /* the bound was the walk's     */
  rw.n_targets = 0;
  rw_hot_init(&h);
  for (t = 0; t < n; t++) {
    word first = rw.nodes.n, i;
    unsigned id = tids[t], e;
    struct rw_blk *b;

    for (;;) {
      struct gca_rnode *nd = (struct gca_rnode *)rw_push(&rw.nodes);

      if (NULL == nd) {                 /* the cap: this path untold    */
        rw.nodes.n = first;
        return;
      }
      nd->base = (word)rw_base_of(id, &b);
      e = b->tab[id & RW_OBJ_MASK];
      if (e & RW_ROOT) {
        nd->parent = GCA_RNONE;
        nd->ref = e & ~RW_ROOT;
        break;
      }
      nd->parent = (unsigned)rw.nodes.n;
      id = e - 1;
    }
    for (i = first; GCA_RNODE(&rw, i)->parent != GCA_RNONE; i++) {
      word pb = GCA_RNODE(&rw, i + 1)->base, words = rw.words;
      hdr *ph = HDR(pb);
      struct rw_blk pbk = rw_none;      /* no block: the directory's    */

      pbk.sz = ph->hb_sz;
      pbk.descr = ph->hb_descr;
      rw_find = GCA_RNODE(&rw, i)->base;
      rw_found = GCA_RREF_CONS;         /* not found again: word 0      */
      rw_stop = 0;
      rw_expand(&h, (ptr_t)pb, &pbk, 0, 1);
      GCA_RNODE(&rw, i)->ref = rw_found;
      rw.words = words;
    }
    rw_find = 0;
    rw.targets[rw.n_targets++] = (unsigned)first;
  }
}

/* One walk and its record: the paths to the types of cookies[0, n),   */
/* asked for by name (NULL: by cookie); is_auto: GC_ACC_RETAIN=auto's.  */
/* Lock held, mark bits of the last collection.                         */
GC_INNER void gca_retain_walk(const char *name, word cookie,
                              const word *cookies, unsigned n, int is_auto)
{
  unsigned tids[GCA_RETAIN_K], k;
  word least = (word)GC_least_plausible_heap_addr, c;
  word span = (word)GC_greatest_plausible_heap_addr - least;

  memset(&rw, 0, sizeof(rw));
  rw_scanned = rw_visited = rw_head = 0;
  rw_stop = 0;
  rw_find = 0;
  rw.name = name;
  rw.req_cookie = cookie;
  rw.is_auto = is_auto & 1;
  rw.site = (is_auto & 2) != 0;
  rw.mem.cap = gca_retain_memory();
  /* With the marking's parents (retain_mark.c, at most 3/4 of the    */
  /* cap), the walk gets the rest, and goes breadth first for a quarter */
  /* of the objects marked at most (a shortest path is worth that).     */
  rw_bfs_max = ~(word)0;
  rw_reserve = 0;
  if (gca_rmark_ready()) {
    rw_reserve = RETAIN_PATHS_MEMORY < rw.mem.cap / 8 ? RETAIN_PATHS_MEMORY
                 : rw.mem.cap / 8;
    rw.mem.cap -= gca_rmark_bytes() + rw_reserve;
    rw_bfs_max = gca_rmark_noted() / RETAIN_REC_BFS_SHARE;
  }
  rw.n_cookies = n < GCA_RETAIN_MAX_COOKIES ? n : GCA_RETAIN_MAX_COOKIES;
  if (rw.n_cookies != 0) BCOPY(cookies, rw.cookies, rw.n_cookies * sizeof(word));
  rw.t0 = gca_now_ns();
  /* The pause's bound: GC_ACC_RETAIN_PAUSE, or twice what this        */
  /* collection's marking took, then at least RETAIN_MIN_PAUSE.         */
  rw.budget = 2 * gca_last_census.mark_ns;
  if (rw.budget < RETAIN_MIN_PAUSE) rw.budget = RETAIN_MIN_PAUSE;
  if (gca_retain_pause() != 0)
    rw.budget = (word)gca_retain_pause() * 1000000;
  rw_deadline = rw.t0 + rw.budget;
  /* Breadth first for one marking's time (at least RETAIN_MIN_BFS,    */
  /* at most half the bound), then depth first.                        */
  rw_switch = gca_last_census.mark_ns > RETAIN_MIN_BFS
              ? gca_last_census.mark_ns : RETAIN_MIN_BFS;
  if (rw_switch > rw.budget / 2) rw_switch = rw.budget / 2;
  memset(&rw_blks, 0, sizeof(rw_blks));
  memset(&rw_words, 0, sizeof(rw_words));
  memset(&rw_queue, 0, sizeof(rw_queue));
  /* The directory: at most 2^RW_DIR_LOG chunks of at least 1 MiB.     */
  rw_chunk_log = 20;
  while ((span >> rw_chunk_log) >= ((word)1 << RW_DIR_LOG)) rw_chunk_log++;
  rw_big = rw_chunk_log - LOG_HBLKSIZE > GCA_RS_LOG;
  rw_chunk_mask = ((word)1 << rw_chunk_log) - 1;
  rw_lo = least & ~rw_chunk_mask;
  rw_n_chunks = (((word)GC_greatest_plausible_heap_addr - rw_lo)
                 >> rw_chunk_log) + 1;
  rw_dir = NULL;
  if (rw.n_cookies != 0
      && (rw_dir = (unsigned **)rw_alloc(rw_n_chunks * sizeof(void *)))
         != NULL
      && rw_seg_init(&rw_blks, sizeof(struct rw_blk))
      && rw_seg_init(&rw_words, sizeof(unsigned))
      && rw_seg_init(&rw_queue, sizeof(unsigned))
      && rw_seg_init(&rw.nodes, sizeof(struct gca_rnode))
      && rw_seg_init(&rw.roots, sizeof(struct gca_rroot))) {
#   ifdef THREADS
      GC_stop_world();
#   endif
    rw.t_stopped = gca_now_ns();
    rw_switch += rw.t_stopped;
    rw_walk(tids);
    rw.mem.cap += rw_reserve;           /* the paths' reserve          */
    rw_paths(tids);
    for (k = 0; k < rw_n_marked && rw.n_targets < GCA_RETAIN_K; k++) {
      word first = rw.nodes.n;

      if (!gca_rmark_path(&rw, rw_mbase[k], 1)) break;
      rw.targets[rw.n_targets++] = (unsigned)first;
    }
#   ifdef THREADS
      GC_start_world();
#   endif
  } else {
    rw.t_stopped = rw.t0;
  }
  rw.t_end = gca_now_ns();
  rw.visited = rw_visited;
  if (rw.mem.over) rw.partial = 1;      /* the memory cap               */
  if (gca_rmark_ready()) {              /* the record's memory: both    */
    rw.mem.peak += gca_rmark_bytes();
    rw.mem.cap = gca_retain_memory();
  }
  gca_retain_record(&rw);
  rw_seg_free(&rw.nodes);
  rw_seg_free(&rw.roots);
  rw_seg_free(&rw_queue);
  rw_seg_free(&rw_words);
  rw_seg_free(&rw_blks);
  if (rw_dir != NULL) {
    for (c = 0; rw_big && c < rw_n_chunks; c++)
      rw_free(rw_dir[c], ((word)1 << (rw_chunk_log - LOG_HBLKSIZE))
                         * sizeof(unsigned));
    rw_free(rw_dir, rw_n_chunks * sizeof(void *));
  }
  rw_dir = NULL;
}

#endif /* !GC_ACC_DISABLE */
