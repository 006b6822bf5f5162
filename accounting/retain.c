/* SPDX-License-Identifier: MIT */
/*
 * retain.c: why is it alive (issue 37): paths from a root to sampled
 * instances of a type, on request.
 *
 * A request (GC_acc_retain_request, GC_ACC_RETAIN=type:NAME) names a
 * type and the collection to answer at (the next one, or the first whose
 * number reaches a given one).  At that collection's end
 * (GC_ACC_ON_COLLECTION_END, lock held, after the census and its
 * record, mark bits still this collection's) the world is stopped once
 * more and a breadth-first walk goes from the roots over the objects this
 * collection marked, as the collector's mark did: static data and
 * registered root ranges (GC_static_roots less GC_excl_table), every
 * thread's stack (from its stopped stack pointer to its cold end),
 * the finalization queue (GC_fnlz_roots, 8.x), then every marked
 * uncollectable object, which the collector treats as a root too.  An
 * object's words are followed as its descriptor says: a bitmap precisely
 * (the reference is "precise"), anything else (a length, a mark
 * procedure, a normal object) every word, conservatively, as the
 * collector does.  A word refers to a marked object only as the
 * collector would take it (GC_base, the valid displacements unless all
 * interior pointers are recognized; interior pointers from stacks).
 *
 * Each object reached gets a node (its base, the word that referred to
 * it, its parent) in OS memory, never the GC heap; a bitmap of granules
 * (or, for a too wide heap, a hash of nodes) says what was reached.  The
 * walk stops at RETAIN_K instances (the first breadth-first: shortest
 * paths), when all was visited, or at the memory cap
 * (GC_ACC_RETAIN_MEMORY: "partial").  The world restarts, one "retain"
 * record (docs/dump-format.md) gives each path from its root, and all
 * the walk's memory is unmapped.  Without a request: one load and branch.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

#define RETAIN_K 5                      /* paths per request             */
#define RETAIN_MAX_COOKIES 32           /* types of one name             */
#define RETAIN_NAME_MAX GCA_RETAIN_NAME_MAX
#define RETAIN_DEFAULT_MEMORY ((word)64 << 20)
#define RETAIN_MIN_PAUSE ((word)50 * 1000000)   /* ns                   */

/* Root kinds (the record's names in retain_root_names).                 */
#define RK_HEAP 0               /* not a root: referred to by parent    */
#define RK_STATIC 1
#define RK_STACK 2
#define RK_FINALIZER 3
#define RK_UNCOLLECTABLE 4
static const char *const retain_root_names[] = {
  "heap", "static", "stack", "finalizer", "uncollectable"
};
#define RI_KIND(i) ((i) & 7u)
#define RI_CONSERVATIVE 8u
#define RI_MAIN 16u             /* stack: the main thread's            */
#define RI_SELF 32u             /* stack: the collecting thread's      */
#define RI_SHIFT 8              /* thread number, or root range index  */
#define RNONE 0xffffffffu

struct rnode {
  word base;                    /* the object                           */
  word from;                    /* address of the word referring to it  */
  unsigned parent;              /* node index, RNONE for a root's       */
  unsigned info;                /* RI_* bits                             */
};

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
static struct rnode *rw_nodes;
static word rw_n, rw_cap;
static unsigned *rw_hash;               /* node index + 1, 0: empty     */
static word rw_hmask;
static word rw_bytes;                   /* mapped now                   */
static word rw_peak;
static int rw_partial, rw_stop;
static word rw_deadline, rw_budget;     /* ns (CLOCK_MONOTONIC)         */
static int rw_timed_out;
static word rw_cookies[RETAIN_MAX_COOKIES];
static unsigned rw_n_cookies;
static unsigned rw_targets[RETAIN_K];
static unsigned rw_n_targets;
static word rw_words;                   /* words scanned                */
/* Objects reached, a bit per granule of the plausible heap, in chunks  */
/* of RW_CHUNK_LOG bytes of address mapped when first touched (a heap's */
/* 128th); the hash of node indexes instead when the range is too wide */
/* for the chunks' index.                                               */
#define RW_CHUNK_LOG 20
#define RW_CHUNK_BYTES (((word)1 << RW_CHUNK_LOG) / GRANULE_BYTES / 8)
#define RW_MAX_CHUNKS ((word)1 << 20)
static word **rw_chunks;                /* NULL: the hash               */
static word rw_lo, rw_n_chunks;
static const char *rw_name;             /* the request answered: a name */
static word rw_req_cookie;              /* or a cookie                  */
static int rw_auto, rw_site;            /* rw_cookies[0]: a site id   */

GC_INLINE word rw_hash_of(word base)
{
  /* Mixed: the low bits (the index) depend on every address bit.     */
  word h = base * (word)0x9E3779B97F4A7C15ULL;

  h ^= h >> GCA_HALF_WORDSZ;     /* 32 on 64-bit targets */
  h *= (word)0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}

/* Memory for a table, within the cap; NULL (and partial) if not.       */
static void *rw_alloc(word bytes)
{
  void *p;

  if (rw_bytes + bytes > retain_memory) {
    rw_partial = 1;
    return NULL;
  }
  p = gca_os_alloc((size_t)bytes);
  if (NULL == p) {
    rw_partial = 1;
    return NULL;
  }
  rw_bytes += bytes;
  if (rw_bytes > rw_peak) rw_peak = rw_bytes;
  return p;
}

#define rw_free(p, bytes) \
  ((p) != NULL ? (gca_os_free((p), (size_t)(bytes)), rw_bytes -= (bytes)) : 0)

/* Double the nodes, or take what the cap leaves (the old table stays  */
/* mapped while it is copied).                                          */
static int rw_grow_nodes(void)
{
  word cap = rw_cap != 0 ? 2 * rw_cap : 4096;
  word room = retain_memory > rw_bytes ? retain_memory - rw_bytes : 0;
  struct rnode *n;

  if (cap * sizeof(struct rnode) > room)
    cap = (room / sizeof(struct rnode)) & ~(word)4095;
  if (cap <= rw_cap || cap >= RNONE) {
    rw_partial = 1;
    return 0;
  }
  n = (struct rnode *)rw_alloc(cap * sizeof(struct rnode));
  if (NULL == n) return 0;
  if (rw_n != 0) BCOPY(rw_nodes, n, rw_n * sizeof(struct rnode));
  rw_free(rw_nodes, rw_cap * sizeof(struct rnode));
  rw_nodes = n;
  rw_cap = cap;
  return 1;
}

static int rw_grow_hash(void)
{
  word size = rw_hmask != 0 ? 2 * (rw_hmask + 1) : 8192;
  unsigned *h = (unsigned *)rw_alloc(size * sizeof(unsigned));
  word i;

  if (NULL == h) return 0;
  for (i = 0; i < rw_n; i++) {
    word j = rw_hash_of(rw_nodes[i].base) & (size - 1);

    while (h[j] != 0) j = (j + 1) & (size - 1);
    h[j] = (unsigned)i + 1;
  }
  if (rw_hash != NULL) rw_free(rw_hash, (rw_hmask + 1) * sizeof(unsigned));
  rw_hash = h;
  rw_hmask = size - 1;
  return 1;
}

/* Visited: 1 if base was reached already, else marks it.  -1: no      */
/* memory (partial).                                                    */
static int rw_visited(word base)
{
  word off = base - rw_lo, c = off >> RW_CHUNK_LOG, g, bit;
  word *m;

  if (c >= rw_n_chunks) return 1;       /* cannot be: not in the heap */
  m = rw_chunks[c];
  if (EXPECT(NULL == m, FALSE)) {
    m = (word *)rw_alloc(RW_CHUNK_BYTES);
    if (NULL == m) return -1;
    rw_chunks[c] = m;
  }
  g = (off & (((word)1 << RW_CHUNK_LOG) - 1)) / GRANULE_BYTES;
  bit = (word)1 << (g % CPP_WORDSZ);
  if (m[g / CPP_WORDSZ] & bit) return 1;
  m[g / CPP_WORDSZ] |= bit;
  return 0;
}

/* The type cookie of the marked object at base (0: none known).         */
static word rw_cookie(ptr_t base, hdr *hhdr)
{
  word cookie = 0, w;
  unsigned site;

  if (gca_tags_of(base, &cookie, &site) && cookie != 0) return cookie;
  if (hhdr->hb_obj_kind >= MAXOBJKINDS
      || 0 == gca_objtype_how(hhdr->hb_obj_kind))
    return 0;
  w = *(word *)base;
  if (0 == w || HDR(w) != 0) return 0;          /* none, or a link      */
  if (GCA_TYPES_IL2CPP == gca_objtype_mode() && !gca_class_valid(w))
    return 0;
  return w;
}

static int rw_is_target(ptr_t base, hdr *hhdr)
{
  word c;
  unsigned i;

  if (0 == rw_n_cookies) return 0;
  if (rw_site) return gca_tags_of(base, &c, &i) && i == rw_cookies[0];
  c = rw_cookie(base, hhdr);
  if (0 == c) return 0;
  for (i = 0; i < rw_n_cookies; i++) {
    if (rw_cookies[i] == c) return 1;
  }
  return 0;
}

/* The base of the marked object w refers to, as the collector takes     */
/* references (interior ones from stacks; elsewhere only at valid       */
/* displacements unless all interior pointers are recognized); 0 if     */
/* none.                                                                 */
static ptr_t rw_target(word w, int interior, hdr **hh)
{
  ptr_t base;
  hdr *hhdr;
  word off;

  if (w < (word)GC_least_plausible_heap_addr
      || w >= (word)GC_greatest_plausible_heap_addr)
    return NULL;
  hhdr = HDR(w);
  if (NULL == hhdr) return NULL;
  base = (ptr_t)GC_base((void *)w);
  if (NULL == base) return NULL;
  off = w - (word)base;
  if (off != 0 && !interior && !GC_all_interior_pointers
      && (off >= VALID_OFFSET_SZ || !GC_valid_offsets[off]))
    return NULL;
  hhdr = HDR(base);
  if (NULL == hhdr || IS_FORWARDING_ADDR_OR_NIL(hhdr) || HBLK_IS_FREE(hhdr))
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

/* A reference from the word at from (of node parent, or a root's) to  */
/* the object at base: a new node unless it was reached already.        */
static void rw_reach(ptr_t base, hdr *hhdr, word from, unsigned parent,
                     unsigned info)
{
  word j = 0;

  if (rw_chunks != NULL) {
    int v = rw_visited((word)base);

    if (v != 0) {
      if (v < 0) rw_stop = 1;
      return;
    }
  } else {
    if ((rw_n + 1) * 2 > rw_hmask + 1 && !rw_grow_hash()) {
      rw_stop = 1;
      return;
    }
    for (j = rw_hash_of((word)base) & rw_hmask; rw_hash[j] != 0;
         j = (j + 1) & rw_hmask) {
      if (rw_nodes[rw_hash[j] - 1].base == (word)base) return;
    }
  }
  if (rw_n == rw_cap && !rw_grow_nodes()) {
    rw_stop = 1;
    return;
  }
  rw_nodes[rw_n].base = (word)base;
  rw_nodes[rw_n].from = from;
  rw_nodes[rw_n].parent = parent;
  rw_nodes[rw_n].info = info;
  if (NULL == rw_chunks) rw_hash[j] = (unsigned)rw_n + 1;
  if (rw_is_target(base, hhdr)) {
    rw_targets[rw_n_targets++] = (unsigned)rw_n;
    if (RETAIN_K == rw_n_targets) rw_stop = 1;
  }
  rw_n++;
}

/* Words [lo, hi) (word aligned inward), each a possible reference.      */
static void rw_scan_range(ptr_t lo, ptr_t hi, unsigned parent,
                          unsigned info, int interior)
{
  word *p = (word *)(((word)lo + sizeof(word) - 1) & ~(word)(sizeof(word) - 1));
  word *e = (word *)((word)hi & ~(word)(sizeof(word) - 1));

  if (p < e) rw_words += (word)(e - p);
  for (; p < e && !rw_stop; p++) {
    hdr *hhdr;
    ptr_t b = rw_target(*p, interior, &hhdr);

    if (b != NULL) rw_reach(b, hhdr, (word)p, parent, info);
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
    rw_scan_range(lo, next, RNONE, info, 0);
    lo = resume;
  }
}

/* Threads' stacks.                                                      */
#if defined(GC_PTHREADS) && !defined(GC_DARWIN_THREADS) \
    && !defined(GC_WIN32_THREADS) && !defined(NACL) && !defined(SN_TARGET_PS3)
# include "private/pthread_support.h"
# define RW_STACKS 1
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
        unsigned info = RK_STACK | RI_CONSERVATIVE;

        if (p->flags & FINISHED) continue;
        if (THREAD_EQUAL(p->id, self)) {
          lo = GC_approx_sp();
          info |= RI_SELF;
        } else {
          lo = (ptr_t)p->stop_info.stack_ptr;
        }
        if ((p->flags & MAIN_THREAD) != 0) {
          hi = GC_stackbottom;
          info |= RI_MAIN;
        } else {
          hi = p->stack_end;
        }
        if (NULL == lo || NULL == hi || (word)lo >= (word)hi) continue;
        rw_scan_range(lo, hi, RNONE, info | (t << RI_SHIFT), 1);
        t++;
      }
    }
  }
#elif !defined(THREADS)
# define RW_STACKS 1
  static GC_ATTR_NOINLINE void rw_scan_stacks(void)
  {
#   if defined(__GNUC__) || defined(__clang__)
      __builtin_unwind_init();
#   endif
    if ((word)GC_approx_sp() < (word)GC_stackbottom)
      rw_scan_range(GC_approx_sp(), GC_stackbottom, RNONE,
                    RK_STACK | RI_CONSERVATIVE | RI_MAIN | RI_SELF, 1);
  }
#else
# define RW_STACKS 0    /* not walked on this platform (the record says) */
  static void rw_scan_stacks(void) {}
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
      rw_reach((ptr_t)h, hhdr, 0, RNONE, RK_UNCOLLECTABLE);
    return;
  }
  lim = HBLKSIZE - sz;
  for (i = 0; i <= lim && !rw_stop; i += sz) {
    if (mark_bit_from_hdr(hhdr, MARK_BIT_NO(i, sz)))
      rw_reach((ptr_t)h + i, hhdr, 0, RNONE, RK_UNCOLLECTABLE);
  }
}

/* The references of node i's object, as its descriptor says.           */
static void rw_expand(unsigned i)
{
  ptr_t base = (ptr_t)rw_nodes[i].base;
  hdr *hhdr = HDR(base);
  word sz = hhdr->hb_sz, descr = hhdr->hb_descr;
  int again = 1;

  while (again) {
    again = 0;
    switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      if (descr > sz) descr = sz;
      rw_scan_range(base, base + descr, i, RK_HEAP | RI_CONSERVATIVE, 0);
      return;
    case GC_DS_BITMAP: {
      word bm = descr & ~(word)GC_DS_TAGS, j;

      for (j = 0; bm != 0 && j < sz / sizeof(word) && !rw_stop;
           j++, bm <<= 1) {
        if ((signed_word)bm < 0) {
          word *p = (word *)base + j;
          hdr *th;
          ptr_t b = rw_target(*p, 0, &th);

          if (b != NULL) rw_reach(b, th, (word)p, i, RK_HEAP);
        }
      }
      rw_words += sz / sizeof(word);
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
      again = 1;
      break;
    default:            /* a mark procedure: every word, conservatively */
      rw_scan_range(base, base + sz, i, RK_HEAP | RI_CONSERVATIVE, 0);
      return;
    }
  }
}

/* ---- the record -------------------------------------------------------- */

static struct gca_text rt = { NULL, 0, 0, 0, GCA_MEM_TYPES };
#define RT_LIT(s) GCA_TEXT_LIT(&rt, s)
#define RT_KW(key, x) (RT_LIT(key), gca_text_word(&rt, (x)))

static void rw_step(unsigned i, int first)
{
  const struct rnode *n = &rw_nodes[i];
  hdr *hhdr = HDR(n->base);
  word cookie = rw_cookie((ptr_t)n->base, hhdr), c2 = 0;
  unsigned site = 0;
  word ref = n->parent != RNONE
             ? (n->from - rw_nodes[n->parent].base) / sizeof(word) : 0;

  (void)gca_tags_of((void *)n->base, &c2, &site);
  if (!first) RT_LIT(",");
  RT_LIT("[");
  gca_text_hex(&rt, n->base);
  RT_LIT(",");
  gca_text_word(&rt, hhdr->hb_obj_kind);
  RT_LIT(",");
  gca_text_word(&rt, hhdr->hb_sz > MAXOBJBYTES
                     ? OBJ_SZ_TO_BLOCKS(hhdr->hb_sz) * HBLKSIZE
                     : hhdr->hb_sz);
  RT_LIT(",");
  gca_text_hex(&rt, cookie);
  RT_LIT(",");
  gca_text_word(&rt, site);
  RT_LIT(",");
  if (n->parent != RNONE) gca_text_word(&rt, ref);
  else RT_LIT("-1");
  RT_LIT(",");
  gca_text_word(&rt, (n->info & RI_CONSERVATIVE) != 0);
  RT_LIT("]");
}

/* Steps root first: collect them into a side array (OS memory).        */
static void rw_path_all(unsigned t, int first)
{
  unsigned depth = 0, i, root = t, *ch, d;
  const struct rnode *r;
  word bytes;

  for (i = t; i != RNONE; i = rw_nodes[i].parent) {
    root = i;
    depth++;
  }
  bytes = ((word)depth * sizeof(unsigned) + GC_page_size - 1)
          & ~(word)(GC_page_size - 1);
  ch = (unsigned *)gca_os_alloc((size_t)bytes);
  if (NULL == ch) {             /* no memory: the path untold        */
    if (!first) RT_LIT(",");
    RT_LIT("{\"depth\":");
    gca_text_word(&rt, depth);
    RT_LIT(",\"steps\":[]}");
    return;
  }
  for (i = t, d = depth; i != RNONE; i = rw_nodes[i].parent) ch[--d] = i;
  r = &rw_nodes[root];
  if (!first) RT_LIT(",");
  RT_LIT("{\"depth\":");
  gca_text_word(&rt, depth);
  RT_LIT(",\"root\":{\"kind\":");
  gca_text_cstring(&rt, retain_root_names[RI_KIND(r->info)]);
  RT_LIT(",\"conservative\":");
  gca_text_word(&rt, (r->info & RI_CONSERVATIVE) != 0);
  if (r->from != 0) {
    RT_LIT(",\"addr\":");
    gca_text_hex(&rt, r->from);
  }
  if (RK_STACK == RI_KIND(r->info)) {
    RT_LIT(",\"thread\":");
    gca_text_word(&rt, r->info >> RI_SHIFT);
    RT_LIT(",\"main\":");
    gca_text_word(&rt, (r->info & RI_MAIN) != 0);
    RT_LIT(",\"collecting\":");
    gca_text_word(&rt, (r->info & RI_SELF) != 0);
  } else if (RK_STATIC == RI_KIND(r->info)) {
    int k = (int)(r->info >> RI_SHIFT);

    RT_LIT(",\"range\":[");
    gca_text_hex(&rt, (word)GC_static_roots[k].r_start);
    RT_LIT(",");
    gca_text_hex(&rt, (word)GC_static_roots[k].r_end);
    RT_LIT("]");
  }
  RT_LIT("},\"steps\":[");
  for (d = 0; d < depth; d++) rw_step(ch[d], 0 == d);
  RT_LIT("]}");
  gca_os_free(ch, (size_t)bytes);
}

/* The names of the types the paths' steps have (each once).           */
static void rw_names(void)
{
  word seen[256];
  unsigned n_seen = 0, t, k;
  int first = 1;

  RT_LIT(",\"names\":[");
  for (t = 0; t < rw_n_targets; t++) {
    unsigned i;

    for (i = rw_targets[t]; i != RNONE; i = rw_nodes[i].parent) {
      word c = rw_cookie((ptr_t)rw_nodes[i].base, HDR(rw_nodes[i].base));
      const char *name;

      if (0 == c) continue;
      for (k = 0; k < n_seen && seen[k] != c; k++) {
      }
      if (k < n_seen) continue;
      if (n_seen < 256) seen[n_seen++] = c;
      name = gca_types_name_of(c);
      if (NULL == name) continue;
      if (!first) RT_LIT(",");
      first = 0;
      RT_LIT("[");
      gca_text_hex(&rt, c);
      RT_LIT(",");
      gca_text_cstring(&rt, name);
      RT_LIT("]");
      if (n_seen >= 256) break;
    }
  }
  RT_LIT("]");
}

static void rw_record(word t0, word t_stopped, word t_end)
{
  unsigned t;

  rt.len = 0;
  rt.fail = 0;
  RT_KW("{\"record\":\"retain\",\"gc_no\":", GC_gc_no);
  RT_KW(",\"t_ns\":", t0);
  RT_LIT(",\"request\":{");
  if (rw_name != NULL) {
    RT_LIT("\"type\":");
    gca_text_cstring(&rt, rw_name);
  } else if (rw_site) {
    RT_KW("\"site\":", rw_req_cookie);
  } else {
    RT_LIT("\"cookie\":");
    gca_text_hex(&rt, rw_req_cookie);
  }
  if (rw_auto) RT_LIT(",\"auto\":1");
  RT_KW("},\"types_matched\":", rw_n_cookies);
  RT_KW(",\"pause_ns\":", t_end - t0);
  RT_KW(",\"walk_ns\":", t_end - t_stopped);
  RT_KW(",\"visited\":", rw_n);
  RT_KW(",\"words\":", rw_words);
  RT_KW(",\"memory_bytes\":", rw_peak);
  RT_KW(",\"memory_cap\":", retain_memory);
  RT_KW(",\"partial\":", rw_partial);
  RT_KW(",\"timed_out\":", rw_timed_out);
  RT_KW(",\"time_cap_ns\":", rw_budget);
  RT_KW(",\"stacks\":", RW_STACKS);
  RT_KW(",\"wanted\":", RETAIN_K);
  RT_KW(",\"found\":", rw_n_targets);
  RT_LIT(",\"step_columns\":[\"addr\",\"kind\",\"bytes\",\"cookie\","
         "\"site\",\"ref_word\",\"conservative\"]");
  rw_names();
  RT_LIT(",\"paths\":[");
  for (t = 0; t < rw_n_targets; t++) rw_path_all(rw_targets[t], 0 == t);
  RT_LIT("]}\n");
  if (rt.fail) {
    (void)gca_dump_submit(NULL, 0);     /* lost: counted as a drop      */
    return;
  }
  (void)gca_dump_submit(rt.buf, rt.len);
}

#define RW_AHEAD 32

/* The walk, world stopped.                                              */
static void rw_walk(void)
{
  word i;
  int k;

  /* The finalization queue first: on Unity's fork (7.x, one-file     */
  /* build) it is finalize.c's static, in the static data too.          */
# if GC_VERSION_MAJOR >= 8 || defined(GCA_AMALGAM)
    rw_scan_range((ptr_t)&GC_fnlz_roots,
                  (ptr_t)&GC_fnlz_roots + sizeof(GC_fnlz_roots), RNONE,
                  RK_FINALIZER | RI_CONSERVATIVE, 0);
# endif
  for (k = 0; k < n_root_sets && !rw_stop; k++) {
    rw_scan_static(GC_static_roots[k].r_start, GC_static_roots[k].r_end,
                   RK_STATIC | RI_CONSERVATIVE | ((unsigned)k << RI_SHIFT));
  }
  if (!rw_stop) rw_scan_stacks();
  if (!rw_stop) GC_apply_to_all_blocks(rw_uncollectable_block, 0);
  /* Breadth first is the queue's order, not memory's: each object, and */
  /* its header, a cache miss unless asked for some nodes ahead.        */
  for (i = 0; i < rw_n && !rw_stop; i++) {
#   if defined(__GNUC__) || defined(__clang__)
      if (i + RW_AHEAD < rw_n) {
        __builtin_prefetch((void *)rw_nodes[i + RW_AHEAD].base);
        if (i + RW_AHEAD / 2 < rw_n)
          __builtin_prefetch(HDR(rw_nodes[i + RW_AHEAD / 2].base));
      }
#   endif
    rw_expand((unsigned)i);
    if ((i & 1023) == 1023 && gca_now_ns() > rw_deadline) {
      rw_partial = rw_timed_out = 1;    /* the pause's bound            */
      break;
    }
  }
}

GC_INNER void gca_retain_collection_end(void)
{
  word cookies[RETAIN_MAX_COOKIES];
  unsigned n;

  if (EXPECT(!retain_pending, TRUE)) return;
  if (retain_at_gc != 0 && GC_gc_no < retain_at_gc) return;
  if (!gca_dump_is_open()) {
    if (!retain_wait_type) retain_pending = 0;
    return;
  }
  n = retain_name[0] != '\0'
      ? gca_types_named(retain_name, cookies, RETAIN_MAX_COOKIES)
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
  word t0, t_stopped, t_end;

  rw_nodes = NULL;
  rw_hash = NULL;
  rw_n = rw_cap = rw_hmask = rw_bytes = rw_peak = rw_words = 0;
  rw_partial = rw_stop = rw_timed_out = 0;
  rw_n_targets = 0;
  rw_name = name;
  rw_req_cookie = cookie;
  rw_auto = is_auto & 1;
  rw_site = (is_auto & 2) != 0;
  rw_n_cookies = n < RETAIN_MAX_COOKIES ? n : RETAIN_MAX_COOKIES;
  if (rw_n_cookies != 0) BCOPY(cookies, rw_cookies, rw_n_cookies * sizeof(word));
  t0 = gca_now_ns();
  /* The pause's bound: GC_ACC_RETAIN_PAUSE, or twice what this        */
  /* collection's marking took, at least RETAIN_MIN_PAUSE.              */
  rw_budget = retain_pause_ms != 0 ? (word)retain_pause_ms * 1000000
              : 2 * gca_last_census.mark_ns;
  if (rw_budget < RETAIN_MIN_PAUSE) rw_budget = RETAIN_MIN_PAUSE;
  rw_deadline = t0 + rw_budget;
  rw_chunks = NULL;
  rw_lo = (word)GC_least_plausible_heap_addr & ~(((word)1 << RW_CHUNK_LOG) - 1);
  rw_n_chunks = (((word)GC_greatest_plausible_heap_addr - rw_lo)
                 >> RW_CHUNK_LOG) + 1;
  if (rw_n_cookies != 0 && rw_n_chunks <= RW_MAX_CHUNKS)
    rw_chunks = (word **)rw_alloc(rw_n_chunks * sizeof(word *));
  rw_partial = 0;                       /* the hash, if not          */
  if (rw_n_cookies != 0 && (rw_chunks != NULL || rw_grow_hash())
      && rw_grow_nodes()) {
#   ifdef THREADS
      GC_stop_world();
#   endif
    t_stopped = gca_now_ns();
    rw_walk();
#   ifdef THREADS
      GC_start_world();
#   endif
  } else {
    t_stopped = t0;
  }
  t_end = gca_now_ns();
  rw_record(t0, t_stopped, t_end);
  rw_free(rw_nodes, rw_cap * sizeof(struct rnode));
  if (rw_chunks != NULL) {
    word c;

    for (c = 0; c < rw_n_chunks; c++) rw_free(rw_chunks[c], RW_CHUNK_BYTES);
    rw_free(rw_chunks, rw_n_chunks * sizeof(word *));
    rw_chunks = NULL;
  }
  if (rw_hash != NULL) rw_free(rw_hash, (rw_hmask + 1) * sizeof(unsigned));
  rw_nodes = NULL;
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
