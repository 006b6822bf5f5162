/* SPDX-License-Identifier: MIT */
/*
 * retain.c: why is it alive (issue 37): paths from a root to sampled
 * instances of a type or callsite, on request; the walk (its record is
 * retain_record.c's, the automatic requests retain_auto.c's).
 *
 * A request (GC_acc_retain_request, GC_ACC_RETAIN=type:NAME) names a
 * type and the collection to answer at (the next one, or the first whose
 * number reaches a given one).  At that collection's end
 * (GC_ACC_ON_COLLECTION_END, lock held, after the census and its
 * record, mark bits still this collection's) the world is stopped once
 * more and a breadth-first walk goes from the roots over the objects this
 * collection marked, as the collector's mark did: the finalization queue
 * (GC_fnlz_roots), static data and registered root ranges
 * (GC_static_roots less GC_excl_table), every marked uncollectable
 * object, which the collector treats as a root too, then every thread's
 * stack (from its stopped stack pointer to its cold end).  An
 * object's words are followed as its descriptor says: a bitmap precisely
 * (the reference is "precise"), anything else (a length, a mark
 * procedure, a normal object) every word, conservatively, as the
 * collector does.  A word refers to a marked object only as the
 * collector would take it (its block's header, the valid displacements
 * unless all interior pointers are recognized; interior pointers from
 * stacks).
 *
 * Each object reached is visited once: a bit per granule (in chunks of
 * address mapped when first touched; a hash of nodes for a too wide
 * heap) says it was reached, and a node of 16 bytes (its base, its
 * parent's index, the word of the parent that refers to it: gca_retain.h)
 * in segments of OS pages, never the GC heap, never copied, is its place
 * in the queue and on its path.  Whether an object is an instance asked
 * for is known by its block: the first time the walk reaches a block it
 * reads the types of the block's marked objects in address order (their
 * tags or word 0), and marks the block if one is an instance; the
 * objects of other blocks are never checked one by one.  The walk stops
 * at GCA_RETAIN_K instances (the first breadth-first: shortest paths),
 * when all was visited, at the memory cap (GC_ACC_RETAIN_MEMORY) or at
 * the time bound (GC_ACC_RETAIN_PAUSE; the clock read every 1024 objects
 * and every 64 Ki words of one): "partial".  The world restarts, one
 * "retain" record gives each path from its root, and all the walk's
 * memory is unmapped.  Without a request: one load and branch.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"

#include <string.h>

#define RETAIN_NAME_MAX GCA_RETAIN_NAME_MAX
#define RETAIN_DEFAULT_MEMORY ((word)64 << 20)
#define RETAIN_MIN_PAUSE ((word)50 * 1000000)   /* ns                   */
#define RETAIN_MIN_BFS ((word)20 * 1000000)     /* ns                   */
#define RS_MASK (((word)1 << GCA_RS_LOG) - 1)

/* The request; lock held.                                              */
static int retain_pending = 0;
static word retain_at_gc = 0;           /* 0: the next collection       */
static char retain_name[RETAIN_NAME_MAX];
static word retain_cookie = 0;          /* when retain_name is ""       */
static word retain_memory = RETAIN_DEFAULT_MEMORY;
static int retain_wait_type = 0;        /* GC_ACC_RETAIN: until it exists */
static int retain_site = 0;             /* retain_cookie is a site id  */
static unsigned retain_pause_ms = 0;    /* 0: twice the marking        */

/* The walk's state (only during a walk).                               */
static struct gca_rwalk rw;
static unsigned *rw_hash;               /* node index + 1, 0: empty     */
static word rw_hmask;
static word rw_bytes;                   /* mapped now                   */
static int rw_stop;
static word rw_deadline;                /* ns (CLOCK_MONOTONIC)         */
static word rw_scanned;                 /* words since the clock's read */
static struct gca_rseg rw_stack;        /* depth first: nodes to expand */
static word rw_switch;                  /* ns: breadth first until then */
/* Objects reached, a bit per granule of the plausible heap, in chunks  */
/* of RW_CHUNK_LOG bytes of address mapped when first touched (a heap's */
/* 128th), each followed by two bits a block (RW_BLK_*); the hash of    */
/* node indexes instead when the range is too wide for the chunks.      */
#define RW_CHUNK_LOG 20
#define RW_CHUNK_BITS (((word)1 << RW_CHUNK_LOG) / GRANULE_BYTES / 8)
#define RW_CHUNK_BLKS (((word)1 << RW_CHUNK_LOG) / HBLKSIZE / 4)
#define RW_CHUNK_BYTES (RW_CHUNK_BITS + RW_CHUNK_BLKS)
#define RW_MAX_CHUNKS ((word)1 << 20)
#define RW_BLK_SEEN 1u                  /* the block's types were read  */
#define RW_BLK_HAS 2u                   /* it holds an instance         */
static unsigned char **rw_chunks;       /* NULL: the hash               */
static word rw_lo, rw_n_chunks;

/* Memory for a table, within the cap; NULL (and partial) if not.       */
static void *rw_alloc(word bytes)
{
  void *p;

  if (rw_bytes + bytes > retain_memory) {
    rw.partial = 1;
    return NULL;
  }
  p = gca_os_alloc((size_t)bytes);
  if (NULL == p) {
    rw.partial = 1;
    return NULL;
  }
  rw_bytes += bytes;
  if (rw_bytes > rw.peak) rw.peak = rw_bytes;
  return p;
}

#define rw_free(p, bytes) \
  ((p) != NULL ? (gca_os_free((p), (size_t)(bytes)), rw_bytes -= (bytes)) : 0)

/* A segmented array: its table of segments (zeroed pages), each       */
/* segment mapped when first needed.                                     */
static int rw_seg_init(struct gca_rseg *s, size_t elem)
{
  s->n = 0;
  s->elem = elem;
  s->max_seg = retain_memory / ((word)elem << GCA_RS_LOG) + 1;
  s->seg = (char **)rw_alloc(s->max_seg * sizeof(char *));
  return s->seg != NULL;
}

static void *rw_push_slow(struct gca_rseg *s)
{
  word k = s->n >> GCA_RS_LOG;

  if (s->n >= (word)GCA_RNONE - ((word)2 << GCA_RS_LOG) || k >= s->max_seg) {
    rw.partial = 1;
    return NULL;
  }
  if (NULL == s->seg[k]) {
    s->seg[k] = (char *)rw_alloc((word)s->elem << GCA_RS_LOG);
    if (NULL == s->seg[k]) return NULL;
  }
  k = s->n++;
  return GCA_RSEG_AT(s, k);
}

/* The next element, its segment mapped (NULL: the cap, partial).       */
GC_INLINE void *rw_push(struct gca_rseg *s)
{
  word i = s->n;

  if (EXPECT((i & RS_MASK) != 0, TRUE)) {
    s->n = i + 1;
    return GCA_RSEG_AT(s, i);
  }
  return rw_push_slow(s);
}

static void rw_seg_free(struct gca_rseg *s)
{
  word k;

  if (NULL == s->seg) return;
  for (k = 0; k < s->max_seg; k++)
    rw_free(s->seg[k], (word)s->elem << GCA_RS_LOG);
  rw_free(s->seg, s->max_seg * sizeof(char *));
  s->seg = NULL;
}

GC_INLINE word rw_hash_of(word base)
{
  /* Mixed: the low bits (the index) depend on every address bit.     */
  word h = base * (word)0x9E3779B97F4A7C15ULL;

  h ^= h >> GCA_HALF_WORDSZ;     /* 32 on 64-bit targets */
  h *= (word)0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}

static int rw_grow_hash(void)
{
  word size = rw_hmask != 0 ? 2 * (rw_hmask + 1) : 8192, i;
  unsigned *h = (unsigned *)rw_alloc(size * sizeof(unsigned));

  if (NULL == h) return 0;
  for (i = 0; i < rw.nodes.n; i++) {
    word j = rw_hash_of(GCA_RNODE(&rw, i)->base) & (size - 1);

    while (h[j] != 0) j = (j + 1) & (size - 1);
    h[j] = (unsigned)i + 1;
  }
  if (rw_hash != NULL) rw_free(rw_hash, (rw_hmask + 1) * sizeof(unsigned));
  rw_hash = h;
  rw_hmask = size - 1;
  return 1;
}

/* The chunk of address a, mapped now if new; NULL if a is beyond the  */
/* heap's range, or no memory (then the walk stops).                    */
static unsigned char *rw_chunk(word a)
{
  word c = (a - rw_lo) >> RW_CHUNK_LOG;
  unsigned char *m;

  if (c >= rw_n_chunks) return NULL;
  m = rw_chunks[c];
  if (EXPECT(NULL == m, FALSE)) {
    m = (unsigned char *)rw_alloc(RW_CHUNK_BYTES);
    if (NULL == m) {
      rw_stop = 1;
      return NULL;
    }
    rw_chunks[c] = m;
  }
  return m;
}

/* Work done (words read, objects taken): past the time bound the walk */
/* stops, the clock read every 64 Ki of it.                             */
static void rw_clock(word work)
{
  rw_scanned += work;
  if (rw_scanned < 65536) return;
  rw_scanned = 0;
  if (gca_now_ns() > rw_deadline) {
    rw.partial = rw.timed_out = 1;      /* the pause's bound            */
    rw_stop = 1;
  }
}

/* Whether the marked object at base is an instance asked for.          */
static int rw_is_target(ptr_t base, hdr *hhdr)
{
  word c = 0;
  unsigned i, site = 0;
  int tagged = gca_tags_of(base, &c, &site);

  if (rw.site) return tagged && site == rw.cookies[0];
  if (!tagged || 0 == c) {
    if (hhdr->hb_obj_kind >= MAXOBJKINDS
        || 0 == gca_objtype_how(hhdr->hb_obj_kind))
      return 0;
    c = *(word *)base;          /* a class the census knew: no check   */
  }
  for (i = 0; c != 0 && i < rw.n_cookies; i++) {
    if (rw.cookies[i] == c) return 1;
  }
  return 0;
}

/* Whether base's block holds a marked instance: its marked objects   */
/* read once, in address order, the first time the walk reaches it.    */
static int rw_block_has(ptr_t base, hdr *hhdr)
{
  struct hblk *h = HBLKPTR(base);
  unsigned char *m, *p;
  unsigned sh;
  word b;

  if (NULL == rw_chunks) return 1;      /* no table: each object       */
  m = rw_chunk((word)h);
  if (NULL == m) return 0;
  b = (((word)h - rw_lo) & (((word)1 << RW_CHUNK_LOG) - 1)) / HBLKSIZE;
  p = m + RW_CHUNK_BITS + (b >> 2);
  sh = (unsigned)(b & 3) * 2;
  if (0 == ((*p >> sh) & RW_BLK_SEEN)) {
    word sz = hhdr->hb_sz, i;
    unsigned v = RW_BLK_SEEN;

    if (sz > MAXOBJBYTES) {
      if (rw_is_target((ptr_t)h, hhdr)) v |= RW_BLK_HAS;
    } else {
      for (i = 0; i + sz <= HBLKSIZE; i += sz) {
        if (mark_bit_from_hdr(hhdr, MARK_BIT_NO(i, sz))
            && rw_is_target((ptr_t)h + i, hhdr)) {
          v |= RW_BLK_HAS;
          break;
        }
      }
      rw_clock(i / sz * 16);            /* a tag or word 0 each        */
    }
    *p |= (unsigned char)(v << sh);
  }
  return (*p >> sh) & RW_BLK_HAS;
}

/* The base of the marked object w refers to, as the collector takes     */
/* references (interior ones from stacks; elsewhere only at valid       */
/* displacements unless all interior pointers are recognized); NULL if  */
/* none.  From the header, as the marker finds it (GC_base only past a  */
/* large object's first block).                                          */
static ptr_t rw_target(word w, int interior, hdr **hh)
{
  ptr_t base;
  hdr *hhdr;
  word off, sz;

  if (w < (word)GC_least_plausible_heap_addr
      || w >= (word)GC_greatest_plausible_heap_addr)
    return NULL;
  hhdr = HDR(w);
  if (NULL == hhdr) return NULL;
  if (IS_FORWARDING_ADDR_OR_NIL(hhdr)) {
    base = (ptr_t)GC_base((void *)w);
    if (NULL == base) return NULL;
    hhdr = HDR(base);
    if (NULL == hhdr || IS_FORWARDING_ADDR_OR_NIL(hhdr)) return NULL;
    off = w - (word)base;
  } else {
    ptr_t h = (ptr_t)HBLKPTR(w);

    off = w - (word)h;
    sz = hhdr->hb_sz;
    if (sz > MAXOBJBYTES) {
      if (off >= sz) return NULL;
      base = h;
    } else {
      word k = off / sz;

      if ((k + 1) * sz > HBLKSIZE) return NULL;
      base = h + k * sz;
      off -= k * sz;
    }
  }
  if (HBLK_IS_FREE(hhdr)) return NULL;
  if (off != 0 && !interior && !GC_all_interior_pointers
      && (off >= VALID_OFFSET_SZ || !GC_valid_offsets[off]))
    return NULL;
  if (hhdr->hb_sz > MAXOBJBYTES) {
    if (!mark_bit_from_hdr(hhdr, 0)) return NULL;
  } else if (!mark_bit_from_hdr(hhdr, MARK_BIT_NO((word)base
                                        - (word)HBLKPTR(base), hhdr->hb_sz))) {
    return NULL;
  }
  *hh = hhdr;
  return base;
}

/* A reference to the marked object at base from word ref of node      */
/* parent (GCA_RNONE: a root, ref its index): 1 and a new node unless  */
/* it was reached already (0).                                           */
static int rw_reach(ptr_t base, hdr *hhdr, unsigned parent, unsigned ref)
{
  struct gca_rnode *n;
  word j = 0;

  if (rw_chunks != NULL) {
    word off = (word)base - rw_lo, g, c = off >> RW_CHUNK_LOG;
    unsigned char *m = c < rw_n_chunks ? rw_chunks[c] : NULL, bit;

    if (EXPECT(NULL == m, FALSE)) {
      m = rw_chunk((word)base);
      if (NULL == m) return 0;
    }
    g = (off & (((word)1 << RW_CHUNK_LOG) - 1)) / GRANULE_BYTES;
    bit = (unsigned char)(1u << (g & 7));
    if (m[g >> 3] & bit) return 0;
    m[g >> 3] |= bit;
  } else {
    if ((rw.nodes.n + 1) * 2 > rw_hmask + 1 && !rw_grow_hash()) {
      rw_stop = 1;
      return 0;
    }
    for (j = rw_hash_of((word)base) & rw_hmask; rw_hash[j] != 0;
         j = (j + 1) & rw_hmask) {
      if (GCA_RNODE(&rw, rw_hash[j] - 1)->base == (word)base) return 0;
    }
  }
  n = (struct gca_rnode *)rw_push(&rw.nodes);
  if (NULL == n) {
    rw_stop = 1;
    return 0;
  }
  n->base = (word)base;
  n->parent = parent;
  n->ref = ref;
  if (NULL == rw_chunks) rw_hash[j] = (unsigned)rw.nodes.n;
  if (rw.depth_first) {
    unsigned *q = (unsigned *)rw_push(&rw_stack);

    if (NULL == q) rw_stop = 1;
    else *q = (unsigned)(rw.nodes.n - 1);
  }
  if (rw_block_has(base, hhdr) && rw_is_target(base, hhdr)) {
    rw.targets[rw.n_targets++] = (unsigned)(rw.nodes.n - 1);
    if (GCA_RETAIN_K == rw.n_targets) rw_stop = 1;
  }
  return 1;
}

/* A root's reference (from: the word holding it; 0 for an object that */
/* is a root itself).                                                    */
static void rw_root(ptr_t base, hdr *hhdr, word from, unsigned info)
{
  struct gca_rroot *r = (struct gca_rroot *)rw_push(&rw.roots);

  if (NULL == r) {
    rw_stop = 1;
    return;
  }
  r->from = from;
  r->info = info;
  if (!rw_reach(base, hhdr, GCA_RNONE, (unsigned)(rw.roots.n - 1)))
    rw.roots.n--;
}

/* Words [lo, hi) (word aligned inward), each a possible reference: of  */
/* a root (parent GCA_RNONE, info its kind) or of node parent's object  */
/* at obj, conservatively.                                              */
static void rw_scan_range(ptr_t lo, ptr_t hi, unsigned parent,
                          unsigned info, int interior)
{
  word *p = (word *)(((word)lo + sizeof(word) - 1) & ~(word)(sizeof(word) - 1));
  word *e = (word *)((word)hi & ~(word)(sizeof(word) - 1)), *obj = p;
  word least = (word)GC_least_plausible_heap_addr;
  word span = (word)GC_greatest_plausible_heap_addr - least;

  while (p < e && !rw_stop) {
    word *lim = e - p > 65536 ? p + 65536 : e, *p0 = p;

    for (; p < lim && !rw_stop; p++) {
      hdr *hhdr;
      ptr_t b;

      if (*p - least >= span) continue;         /* most words: at once */
      b = rw_target(*p, interior, &hhdr);
      if (NULL == b) continue;
      if (GCA_RNONE == parent) rw_root(b, hhdr, (word)p, info);
      else rw_reach(b, hhdr, parent, (unsigned)(p - obj) | GCA_RREF_CONS);
    }
    rw.words += (word)(p - p0);
    rw_clock((word)(p - p0));
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
    rw_scan_range(lo, next, GCA_RNONE, info, 0);
    lo = resume;
  }
}

/* Threads' stacks.                                                      */
#ifdef GCA_RETAIN_PTHREADS
# include "private/pthread_support.h"
  static GC_ATTR_NOINLINE void rw_scan_stacks(void)
  {
    int i;
    unsigned t = 0;
    GC_thread p;
    pthread_t self = pthread_self();

    __builtin_unwind_init();    /* the callee-saved registers, on stack */
    for (i = 0; i < THREAD_TABLE_SZ && !rw_stop; i++) {
      for (p = GC_threads[i]; p != 0 && !rw_stop; p = p->next) {
        ptr_t lo, hi;
        unsigned info = GCA_RK_STACK | GCA_RI_CONSERVATIVE;

        if (p->flags & FINISHED) continue;
        if (THREAD_EQUAL(p->id, self)) {
          lo = GC_approx_sp();
          info |= GCA_RI_SELF;
        } else {
          lo = (ptr_t)p->stop_info.stack_ptr;
        }
        if ((p->flags & MAIN_THREAD) != 0) {
          hi = GC_stackbottom;
          info |= GCA_RI_MAIN;
        } else {
          hi = p->stack_end;
        }
        if (NULL == lo || NULL == hi || (word)lo >= (word)hi) continue;
        rw_scan_range(lo, hi, GCA_RNONE, info | (t << GCA_RI_SHIFT), 1);
        t++;
      }
    }
  }
#elif GCA_RETAIN_STACKS
  static GC_ATTR_NOINLINE void rw_scan_stacks(void)
  {
#   if defined(__GNUC__) || defined(__clang__)
      __builtin_unwind_init();
#   endif
    if ((word)GC_approx_sp() < (word)GC_stackbottom)
      rw_scan_range(GC_approx_sp(), GC_stackbottom, GCA_RNONE,
                    GCA_RK_STACK | GCA_RI_CONSERVATIVE | GCA_RI_MAIN
                    | GCA_RI_SELF, 1);
  }
#else
  static void rw_scan_stacks(void) {}   /* not walked: the record says */
#endif

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
  if (sz > MAXOBJBYTES) {
    if (mark_bit_from_hdr(hhdr, 0))
      rw_root((ptr_t)h, hhdr, 0, GCA_RK_UNCOLLECTABLE);
    return;
  }
  lim = HBLKSIZE - sz;
  for (i = 0; i <= lim && !rw_stop; i += sz) {
    if (mark_bit_from_hdr(hhdr, MARK_BIT_NO(i, sz)))
      rw_root((ptr_t)h + i, hhdr, 0, GCA_RK_UNCOLLECTABLE);
  }
}

/* The references of node i's object, as its descriptor says.           */
static void rw_expand(unsigned i)
{
  ptr_t base = (ptr_t)GCA_RNODE(&rw, i)->base;
  hdr *hhdr = HDR(base);
  word sz = hhdr->hb_sz, descr = hhdr->hb_descr;

  for (;;) {
    switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      if (descr > sz) descr = sz;
      rw_scan_range(base, base + descr, i, 0, 0);
      return;
    case GC_DS_BITMAP: {
      word bm = descr & ~(word)GC_DS_TAGS, j;

      for (j = 0; bm != 0 && j < sz / sizeof(word) && !rw_stop;
           j++, bm <<= 1) {
        if ((signed_word)bm < 0) {
          hdr *th;
          ptr_t b = rw_target(((word *)base)[j], 0, &th);

          if (b != NULL) rw_reach(b, th, i, (unsigned)j);
        }
      }
      rw.words += sz / sizeof(word);
      rw_clock(sz / sizeof(word));
      return;
    }
    case GC_DS_PER_OBJECT:
      if ((signed_word)descr >= 0) {
        descr = *(word *)(base + descr - GC_DS_PER_OBJECT);
      } else {
        ptr_t type_descr = *(ptr_t *)base;

        if (NULL == type_descr) return;
        descr = *(word *)(type_descr
                          - ((signed_word)descr + (GC_INDIR_PER_OBJ_BIAS
                                                   - GC_DS_PER_OBJECT)));
      }
      if (0 == descr) return;
      if ((descr & GC_DS_TAGS) == GC_DS_PER_OBJECT) descr = sz;
      break;
    default:            /* a mark procedure: every word, conservatively */
      rw_scan_range(base, base + sz, i, 0, 0);
      return;
    }
  }
}

#define RW_AHEAD 32

/* The walk, world stopped.                                              */
static void rw_walk(void)
{
  word i, k2;
  int k;

  /* The finalization queue first: on Unity's fork (7.x, one-file     */
  /* build) it is finalize.c's static, in the static data too.          */
# if GC_VERSION_MAJOR >= 8 || defined(GCA_AMALGAM)
    rw_scan_range((ptr_t)&GC_fnlz_roots,
                  (ptr_t)&GC_fnlz_roots + sizeof(GC_fnlz_roots), GCA_RNONE,
                  GCA_RK_FINALIZER | GCA_RI_CONSERVATIVE, 0);
# endif
  for (k = 0; k < n_root_sets && !rw_stop; k++) {
    rw_scan_static(GC_static_roots[k].r_start, GC_static_roots[k].r_end,
                   GCA_RK_STATIC | GCA_RI_CONSERVATIVE
                   | ((unsigned)k << GCA_RI_SHIFT));
  }
  /* Uncollectable objects before stacks: a block of class statics a  */
  /* stale stack copy also points at is told as what it is.            */
  if (!rw_stop) GC_apply_to_all_blocks(rw_uncollectable_block, 0);
  if (!rw_stop) rw_scan_stacks();
  /* Breadth first is the queue's order, not memory's: each object, and */
  /* its header, a cache miss unless asked for some nodes ahead.        */
  for (i = 0; i < rw.nodes.n && !rw_stop; i++) {
#   if defined(__GNUC__) || defined(__clang__)
      if (i + RW_AHEAD < rw.nodes.n) {
        __builtin_prefetch((void *)GCA_RNODE(&rw, i + RW_AHEAD)->base);
        __builtin_prefetch(HDR(GCA_RNODE(&rw, i + RW_AHEAD / 2)->base));
      }
#   endif
    rw_expand((unsigned)i);
    rw_clock(64);
    if ((i & 1023) == 1023 && gca_now_ns() > rw_switch) {
      i++;
      break;
    }
  }
  rw.n_shortest = rw.n_targets;
  if (rw_stop || i >= rw.nodes.n) return;
  /* Past one marking's time breadth first (each level of a heap of    */
  /* lists built side by side touches a page an object), on depth first */
  /* as the marker goes, along the lists: the queue's rest, then what   */
  /* each expansion reaches, last first.  Paths found so are true, not  */
  /* always the shortest (the record says which).                       */
  if (!rw_seg_init(&rw_stack, sizeof(unsigned))) {
    rw_stop = 1;
    return;
  }
  rw.depth_first = 1;
  for (k2 = rw.nodes.n; k2 > i && !rw_stop; k2--) {
    unsigned *q = (unsigned *)rw_push(&rw_stack);

    if (NULL == q) rw_stop = 1;
    else *q = (unsigned)(k2 - 1);
  }
  while (rw_stack.n != 0 && !rw_stop) {
    word top = --rw_stack.n;

    rw_expand(*(unsigned *)GCA_RSEG_AT(&rw_stack, top));
    rw_clock(64);
  }
}

GC_INNER void gca_retain_collection_end(void)
{
  word cookies[GCA_RETAIN_MAX_COOKIES];
  unsigned n;

  if (EXPECT(!retain_pending, TRUE)) return;
  if (retain_at_gc != 0 && GC_gc_no < retain_at_gc) return;
  if (!gca_dump_is_open()) {
    if (!retain_wait_type) retain_pending = 0;
    return;
  }
  n = retain_name[0] != '\0'
      ? gca_types_named(retain_name, cookies, GCA_RETAIN_MAX_COOKIES)
      : (cookies[0] = retain_cookie, 1);
  /* The environment's request waits for its type to be counted.      */
  if (0 == n && retain_wait_type) return;
  retain_pending = 0;
  retain_wait_type = 0;
  gca_retain_walk(retain_name[0] != '\0' ? retain_name : NULL,
                  retain_cookie, cookies, n, retain_site ? 2 : 0);
}

/* One walk and its record: the paths to the types of cookies[0, n),   */
/* asked for by name (NULL: by cookie); is_auto: GC_ACC_RETAIN=auto's.  */
/* Lock held, mark bits of the last collection.                         */
GC_INNER void gca_retain_walk(const char *name, word cookie,
                              const word *cookies, unsigned n, int is_auto)
{
  memset(&rw, 0, sizeof(rw));
  rw_hash = NULL;
  rw_hmask = rw_bytes = rw_scanned = 0;
  rw_stop = 0;
  rw.name = name;
  rw.req_cookie = cookie;
  rw.is_auto = is_auto & 1;
  rw.site = (is_auto & 2) != 0;
  rw.cap = retain_memory;
  rw.n_cookies = n < GCA_RETAIN_MAX_COOKIES ? n : GCA_RETAIN_MAX_COOKIES;
  if (rw.n_cookies != 0) BCOPY(cookies, rw.cookies, rw.n_cookies * sizeof(word));
  rw.t0 = gca_now_ns();
  /* The pause's bound: GC_ACC_RETAIN_PAUSE, or twice what this        */
  /* collection's marking took, then at least RETAIN_MIN_PAUSE.         */
  rw.budget = 2 * gca_last_census.mark_ns;
  if (rw.budget < RETAIN_MIN_PAUSE) rw.budget = RETAIN_MIN_PAUSE;
  if (retain_pause_ms != 0) rw.budget = (word)retain_pause_ms * 1000000;
  rw_deadline = rw.t0 + rw.budget;
  /* Breadth first for one marking's time (at least RETAIN_MIN_BFS,    */
  /* at most half the bound), then depth first.                        */
  rw_switch = gca_last_census.mark_ns > RETAIN_MIN_BFS
              ? gca_last_census.mark_ns : RETAIN_MIN_BFS;
  if (rw_switch > rw.budget / 2) rw_switch = rw.budget / 2;
  memset(&rw_stack, 0, sizeof(rw_stack));
  rw_chunks = NULL;
  rw_lo = (word)GC_least_plausible_heap_addr & ~(((word)1 << RW_CHUNK_LOG) - 1);
  rw_n_chunks = (((word)GC_greatest_plausible_heap_addr - rw_lo)
                 >> RW_CHUNK_LOG) + 1;
  if (rw.n_cookies != 0 && rw_n_chunks <= RW_MAX_CHUNKS)
    rw_chunks = (unsigned char **)rw_alloc(rw_n_chunks * sizeof(void *));
  rw.partial = 0;                       /* the hash, if not          */
  if (rw.n_cookies != 0 && (rw_chunks != NULL || rw_grow_hash())
      && rw_seg_init(&rw.nodes, sizeof(struct gca_rnode))
      && rw_seg_init(&rw.roots, sizeof(struct gca_rroot))) {
#   ifdef THREADS
      GC_stop_world();
#   endif
    rw.t_stopped = gca_now_ns();
    rw_switch += rw.t_stopped;
    rw_walk();
#   ifdef THREADS
      GC_start_world();
#   endif
  } else {
    rw.t_stopped = rw.t0;
  }
  rw.t_end = gca_now_ns();
  gca_retain_record(&rw);
  rw_seg_free(&rw.nodes);
  rw_seg_free(&rw.roots);
  rw_seg_free(&rw_stack);
  if (rw_chunks != NULL) {
    word c;

    for (c = 0; c < rw_n_chunks; c++) rw_free(rw_chunks[c], RW_CHUNK_BYTES);
    rw_free(rw_chunks, rw_n_chunks * sizeof(void *));
    rw_chunks = NULL;
  }
  if (rw_hash != NULL) rw_free(rw_hash, (rw_hmask + 1) * sizeof(unsigned));
  rw_hash = NULL;
}

GC_INNER int gca_retain_set(const char *name, word cookie, word at_gc,
                            int flags)
{
  size_t n = name != NULL ? strlen(name) : 0;

  if (name != NULL ? 0 == n || n >= RETAIN_NAME_MAX : 0 == cookie) return 0;
  if (name != NULL) BCOPY(name, retain_name, n + 1);
  else retain_name[0] = '\0';
  retain_cookie = name != NULL ? 0 : cookie;
  retain_at_gc = at_gc;
  retain_pending = 1;
  retain_wait_type = (flags & GCA_RETAIN_WAIT) != 0;
  retain_site = (flags & GCA_RETAIN_SITE) != 0;
  return 1;
}

GC_INNER void gca_retain_set_memory(size_t bytes)
{
  retain_memory = 0 == bytes ? RETAIN_DEFAULT_MEMORY : (word)bytes;
}

GC_INNER void gca_retain_set_pause(unsigned ms) { retain_pause_ms = ms; }
GC_INNER unsigned gca_retain_pause(void) { return retain_pause_ms; }

GC_INNER word gca_retain_memory(void) { return retain_memory; }

GC_INNER word gca_retain_requests(void)        /* 1: one waits       */
{
  return (word)retain_pending;
}

#endif /* !GC_ACC_DISABLE */
