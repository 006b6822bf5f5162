/* SPDX-License-Identifier: MIT */
/*
 * retain_mark.c: parents recorded by the collector's own marking (issue
 * 37), so that a retention request needs no second traversal of the
 * heap.  When a request waits for a collection, that collection's
 * marking runs the marker's copy that records (gca_mark_from_rec, the
 * series' patch 0004, accounting/gca_hooks.h): for each object it marks
 * the address of the word that referred to it, 32 bits an object (an
 * offset in the plausible heap, else the index of the address kept
 * apart), in a table per block, found by the block's number in the
 * plausible heap.  The walk (retain.c) goes
 * breadth first for a while, then follows these parents back from the
 * instances it did not reach (depth first order: not always the
 * shortest paths).
 *
 * Only that collection pays: the marker's copy that records is called
 * through gca_mark_from_fn meanwhile, upstream's GC_mark_from otherwise.
 * Not recorded (the walk then does what it did before): incremental
 * mode (a marking may have begun before the request), parallel marking
 * on Unity's fork (8.2.2's is turned off for that collection:
 * GC_parallel_mark_disabled, the collector's own switch), a base
 * without patch 0004, and a recording past 3/4 of the memory cap
 * (GC_ACC_RETAIN_MEMORY; the walk has what is left of it).  Lock held,
 * world stopped while it records.  Below: the paths followed back from
 * the parents, and the threads' stacks as the walk sees them (its scan
 * and the roots' names).
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"
#include "private/gc_pmark.h"

#include <string.h>

GC_INNER struct gca_rm_state gca_rm;    /* gca_hooks.h                  */

#define RM_ROOT 0x80000000u             /* a source outside the span    */

static struct gca_rmem rm_mem;
static struct gca_rseg rm_words;        /* the blocks' tables           */
static struct gca_rseg rm_roots;        /* word: sources outside        */
static word rm_gc_no;
static int rm_state;                    /* 1: recording or recorded     */

/* The marker goes on without recording.                               */
GC_INNER void gca_rmark_stop(void)
{
#ifdef GCA_MARK_REC
  gca_mark_from_fn = GC_mark_from;
#endif
}

/* The recording stops (the walk will not use it).                     */
static void rm_fail(void)
{
  rm_state = 0;
  gca_rmark_stop();
}

/* The table of the block at h (header hhdr), made zeroed (inv: the    */
/* block's); NULL: not the span's, or the cap (the recording stops).    */
GC_INNER GC_ATTR_NOINLINE unsigned *gca_rmark_block(word h, hdr *hhdr,
                                                    unsigned *inv)
{
  word i = (h - gca_rm.lo) >> LOG_HBLKSIZE, sz, n, g;
  struct gca_rm_blk *b;

  if (0 == rm_state || i >= gca_rm.n_blks) {
    rm_fail();
    return NULL;
  }
  b = &gca_rm.blks[i];
  sz = hhdr->hb_sz;
  g = BYTES_TO_GRANULES(sz);
  n = sz > MAXOBJBYTES ? 1 : HBLKSIZE / sz;
  b->tab = (unsigned *)gca_rseg_take(&rm_mem, &rm_words, n);
  if (NULL == b->tab) {
    rm_fail();
    return NULL;
  }
  b->inv = sz > MAXOBJBYTES ? 0
           : (unsigned)((((word)1 << 24) + g - 1) / g);
  *inv = b->inv;
  return b->tab;
}

/* A source outside the span: its index among them, RM_ROOT set.       */
GC_INNER GC_ATTR_NOINLINE unsigned gca_rmark_root(word source)
{
  word *r;

  if (0 == rm_state || rm_roots.n >= (word)(RM_ROOT - 1)) {
    rm_fail();
    return 0;
  }
  r = (word *)gca_rseg_push(&rm_mem, &rm_roots);
  if (NULL == r) {
    rm_fail();
    return 0;
  }
  *r = source;
  return RM_ROOT | (unsigned)(rm_roots.n - 1);
}

GC_INNER void gca_rmark_release(void)
{
  gca_rmark_stop();
  rm_state = 0;
  gca_rseg_free(&rm_mem, &rm_roots);
  gca_rseg_free(&rm_mem, &rm_words);
  if (gca_rm.blks != NULL)
    gca_rmem_free(&rm_mem, gca_rm.blks,
                  gca_rm.n_blks * sizeof(struct gca_rm_blk));
  gca_rm.blks = NULL;
  gca_rm.n_blks = 0;
}

/* At a collection's mark begin (lock held, world stopped): record if   */
/* a request rides this collection and the marking can.                 */
GC_INNER void gca_rmark_begin(void)
{
  word least = (word)GC_least_plausible_heap_addr;
  word span = (word)GC_greatest_plausible_heap_addr - least;

  if (rm_state != 0) gca_rmark_release();
#if !defined(GCA_MARK_REC)
  (void)span;
  return;                       /* the base's marker does not record    */
#else
  if (GC_incremental) return;   /* marked in steps, maybe begun before */
# ifdef PARALLEL_MARK
#   if GC_VERSION_MAJOR < 8
      if (GC_parallel) return;  /* no switch to mark on one thread      */
#   endif
# endif
  memset(&rm_mem, 0, sizeof(rm_mem));
  rm_mem.cap = gca_retain_memory() / 4 * 3;     /* the walk: the rest */
  rm_gc_no = GC_gc_no + 1;      /* this collection's, once marked       */
  gca_rm.noted = 0;
  gca_rm.lo = least & ~(word)(HBLKSIZE - 1);
  gca_rm.n_blks = ((word)GC_greatest_plausible_heap_addr - gca_rm.lo
                   + HBLKSIZE - 1) >> LOG_HBLKSIZE;
  gca_rm.src_lo = least & ~(word)(ALIGNMENT - 1); /* (may be unaligned) */
  gca_rm.src_span = span;
  if (gca_rm.src_span / ALIGNMENT >= (word)(RM_ROOT - 2))
    gca_rm.src_span = (word)(RM_ROOT - 2) * ALIGNMENT;
  gca_rm.blks = (struct gca_rm_blk *)gca_rmem_alloc(&rm_mem,
                        gca_rm.n_blks * sizeof(struct gca_rm_blk));
  if (NULL == gca_rm.blks
      || !gca_rseg_init(&rm_mem, &rm_words, sizeof(unsigned))
      || !gca_rseg_init(&rm_mem, &rm_roots, sizeof(word))) {
    gca_rmark_release();
    return;
  }
  rm_state = 1;
  gca_mark_from_fn = gca_mark_from_rec;
# ifdef PARALLEL_MARK
#   if GC_VERSION_MAJOR >= 8
      GC_parallel_mark_disabled = TRUE; /* GC_stopped_mark resets it    */
#   endif
# endif
#endif
}

/* The marking ended (lock held): upstream's marker again (what the     */
/* finalizers' marking reaches has no parent); an abandoned one's       */
/* recording is not used.                                                */
GC_INNER void gca_rmark_end(int done)
{
  if (0 == rm_state) return;
  gca_rmark_stop();
  if (!done) gca_rmark_release();
}

/* Whether this collection's marking recorded its parents.              */
GC_INNER int gca_rmark_ready(void)
{
  return rm_state != 0 && rm_gc_no == GC_gc_no;
}

GC_INNER word gca_rmark_bytes(void) { return rm_mem.peak; }
GC_INNER word gca_rmark_noted(void) { return gca_rm.noted; }

/* The word that referred to the object at base when it was marked     */
/* (0: none recorded: not marked by the copy that records).             */
GC_INNER word gca_rmark_source(word base)
{
  word i = (base - gca_rm.lo) >> LOG_HBLKSIZE;
  const struct gca_rm_blk *b;
  unsigned v;

  if (i >= gca_rm.n_blks || NULL == (b = &gca_rm.blks[i])->tab) return 0;
  v = b->tab[(word)(((unsigned long long)BYTES_TO_GRANULES(
                        base & (HBLKSIZE - 1)) * b->inv) >> 24)];
  if (0 == v) return 0;
  if (v & RM_ROOT) return *(word *)GCA_RSEG_AT(&rm_roots, v & ~RM_ROOT);
  return gca_rm.src_lo + (word)(v - 1) * ALIGNMENT;
}

/* Threads' stacks as the walk sees them (each from its stopped stack  */
/* pointer, the collecting thread's from here): each given to scan      */
/* (find 0) till it says stop, or the info of the one that holds the    */
/* word at find now (0: none).                                           */
#ifdef GCA_RETAIN_PTHREADS
# include "private/pthread_support.h"
  GC_INNER GC_ATTR_NOINLINE unsigned gca_retain_stacks(word find, gca_rscan_fn scan)
  {
    int i;
    unsigned t = 0;
    GC_thread p;
    pthread_t self = pthread_self();

    __builtin_unwind_init();    /* the callee-saved registers, on stack */
    for (i = 0; i < THREAD_TABLE_SZ; i++) {
      for (p = GC_threads[i]; p != 0; p = p->next) {
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
        info |= t << GCA_RI_SHIFT;
        if (find != 0) {
          if (find >= (word)lo && find < (word)hi) return info;
        } else if (scan(lo, hi, info)) {
          return 0;
        }
        t++;
      }
    }
    return 0;
  }
#elif GCA_RETAIN_STACKS
  GC_INNER GC_ATTR_NOINLINE unsigned gca_retain_stacks(word find, gca_rscan_fn scan)
  {
    unsigned info = GCA_RK_STACK | GCA_RI_CONSERVATIVE | GCA_RI_MAIN
                    | GCA_RI_SELF;

#   if defined(__GNUC__) || defined(__clang__)
      __builtin_unwind_init();
#   endif
    if ((word)GC_approx_sp() >= (word)GC_stackbottom) return 0;
    if (find != 0)
      return find >= (word)GC_approx_sp() && find < (word)GC_stackbottom
             ? info : 0;
    (void)scan(GC_approx_sp(), GC_stackbottom, info);
    return 0;
  }
#else
  GC_INNER unsigned gca_retain_stacks(word find, gca_rscan_fn scan)
  {                                     /* not walked: the record says */
    (void)find;
    (void)scan;
    return 0;
  }
#endif

/* ---- Paths from the recorded parents (retain.c asks) ------------- */

/* The kind of root that holds the word at src (0: none told).         */
static unsigned rm_root_info(word src)
{
  int k;

# if GC_VERSION_MAJOR >= 8 || defined(GCA_AMALGAM)
    if (src >= (word)&GC_fnlz_roots
        && src < (word)&GC_fnlz_roots + sizeof(GC_fnlz_roots))
      return GCA_RK_FINALIZER | GCA_RI_CONSERVATIVE;
# endif
  for (k = 0; k < n_root_sets; k++) {
    if (src >= (word)GC_static_roots[k].r_start
        && src < (word)GC_static_roots[k].r_end)
      return GCA_RK_STATIC | GCA_RI_CONSERVATIVE
             | ((unsigned)k << GCA_RI_SHIFT);
  }
  return gca_retain_stacks(src, 0);
}

/* The word of the object at pb that src is (precise: its descriptor a */
/* bitmap, as the walk reads it).                                        */
static unsigned rm_ref_word(word pb, word src)
{
  word descr = HDR(pb)->hb_descr;
  unsigned j = (unsigned)((src - pb) / sizeof(word));

  if ((descr & GC_DS_TAGS) == GC_DS_PER_OBJECT)
    descr = gca_rref_per_object((ptr_t)pb, descr);
  return (descr & GC_DS_TAGS) == GC_DS_BITMAP ? j : j | GCA_RREF_CONS;
}

GC_INNER int gca_rmark_path(struct gca_rwalk *w, word base, int build)
{
  word cur = base, first = w->nodes.n, steps, src, pb;
  hdr *th;

  for (steps = 0; steps <= gca_rm.noted + 1; steps++) {
    struct gca_rnode *nd = NULL;
    struct gca_rroot *r;
    unsigned info;

    if (build) {
      nd = (struct gca_rnode *)gca_rseg_push(&w->mem, &w->nodes);
      if (NULL == nd) break;            /* the cap: this path untold    */
      nd->base = cur;
    }
    src = gca_rmark_source(cur);
    if (0 == src) {                     /* an uncollectable object     */
      th = HDR(cur);
      if (NULL == th || !IS_UNCOLLECTABLE(th->hb_obj_kind)) break;
      info = GCA_RK_UNCOLLECTABLE;
    } else if ((pb = (word)GC_base((void *)src)) != 0) {
      if (gca_rref_target(*(word *)src, 0, &th) != (ptr_t)cur) break;
      if (build) {
        nd->parent = (unsigned)w->nodes.n;
        nd->ref = rm_ref_word(pb, src);
      }
      cur = pb;
      continue;
    } else {
      info = rm_root_info(src);
      if (0 == info
          || gca_rref_target(*(word *)src, GCA_RI_KIND(info) == GCA_RK_STACK,
                             &th) != (ptr_t)cur)
        break;
    }
    if (!build) return 1;
    r = w->roots.n < GCA_RNONE / 2 ? (struct gca_rroot *)gca_rseg_push(&w->mem, &w->roots)
                                   : NULL;
    if (NULL == r) break;
    r->from = src;
    r->info = info;
    nd->parent = GCA_RNONE;
    nd->ref = (unsigned)(w->roots.n - 1);
    return 1;
  }
  w->nodes.n = first;
  return 0;
}

/* gca_rmark_choose's state, for GC_apply_to_all_blocks.                */
static struct gca_rwalk *rm_w;
static const word *rm_taken;
static word *rm_out;
static unsigned rm_n_out;
static int rm_no_path;

/* A block's marked instances not taken yet, while fewer are chosen    */
/* than wanted.                                                          */
static void rm_choose_block(struct hblk *h, word client_data)
{
  hdr *hhdr = HDR(h);
  word sz, i, lim, t;

  (void)client_data;
  if (rm_no_path || rm_w->n_targets + rm_n_out >= GCA_RETAIN_K
      || NULL == hhdr || HBLK_IS_FREE(hhdr)
      || !gca_rref_block_may(rm_w, hhdr))
    return;
  sz = hhdr->hb_sz;
  lim = sz > MAXOBJBYTES ? 0 : HBLKSIZE - sz;
  for (i = 0; i <= lim; i += sz) {
    word base = (word)h + i;

    if (!mark_bit_from_hdr(hhdr, MARK_BIT_NO(i, sz))
        || !gca_rref_is_instance(rm_w, (ptr_t)base, hhdr))
      continue;
    for (t = 0; t < rm_w->n_targets && rm_taken[t] != base; t++) {
    }
    if (t < rm_w->n_targets) continue;
    if (!gca_rmark_path(rm_w, base, 0)) {
      rm_no_path = 1;
      return;
    }
    rm_out[rm_n_out++] = base;
    if (rm_w->n_targets + rm_n_out >= GCA_RETAIN_K) return;
  }
}

GC_INNER unsigned gca_rmark_choose(struct gca_rwalk *w, const word *taken,
                                   word *out)
{
  rm_w = w;
  rm_taken = taken;
  rm_out = out;
  rm_n_out = 0;
  rm_no_path = 0;
  GC_apply_to_all_blocks(rm_choose_block, 0);
  return rm_no_path ? ~0u : rm_n_out;
}

#endif /* !GC_ACC_DISABLE */
