/* SPDX-License-Identifier: MIT */
/*
 * gca_tagtab.h: a block's tag table, and the slab allocator that carves
 * the tables from OS memory (tagslab.c).  Shared by tags.c and tagslab.c
 * only.
 */
#ifndef GCA_TAGTAB_H
#define GCA_TAGTAB_H

typedef unsigned gca_tag_t;     /* 32 bits on every target bdwgc has   */
/* A tag (tags.c): pair id << 8 | OLD << 7 | birth (GC_gc_no mod 128). */
#define TAG_OLD 0x80u
#define TAG_BIRTH 0x7fu
#define TAG_PAIR(t) ((t) >> 8)
#define TAG_MAKE(pair, low) (((unsigned)(pair) << 8) | (low))

/* ---- the table of a block ------------------------------------------------ */
/* A table is a header with the block's palette of TAB_PAL tags, then  */
/* half a byte per slot (slot s in byte s / 2, the low half for even   */
/* s): 0 untagged, e + 1 the tag pal[e], TAB_ESC the slot's tag in the */
/* block's wide table (made when the palette was full).  The objects   */
/* of a block share few tags (a tag is its pair, its birth and OLD:    */
/* one entry per type, callsite and collection they were made in), so  */
/* half a byte an object is enough where 4 bytes were 25% of a 16-byte */
/* object, and a byte still 6% (issue 33).  A table is zeroed when     */
/* made; the slot bytes are read a word at a time, so the census and   */
/* block frees skip 16 untagged slots a load (on 64-bit hosts).  Two   */
/* slots share a byte, and its writers are any thread (an allocation)  */
/* and the census: every write is an atomic read-modify-write of the   */
/* byte (tab_nib_put, tab_nib_clear).                                   */
#define TAB_PAL 13
#define TAB_ESC 0xfu
/* Slot of an object from its offset in the block: granule index times  */
/* inv = ceil(2^24 / granules), shifted back; exact for every offset    */
/* below 2^12 granules (the error stays under 2^-12, the gap to the     */
/* next integer is at least 1/granules).  Large objects: offset 0.       */
#define TAB_INV_SHIFT 24
/* Most slots a block has (one-granule objects).                         */
#define SLAB_MAX_SLOTS (HBLKSIZE / GRANULE_BYTES)

struct tag_slab;
/* The tags of a block's escaped slots (TAB_ESC), in groups of TAB_GRP */
/* slots, a group's 128 bytes made when one of its slots first escapes */
/* (tagslab.c), from slabs of one page (TAB_SLAB): a table of 4 bytes */
/* a slot, 1 KiB for a 16-byte block, took Guile's alloc.scm under     */
/* trace 28 KiB after a collection for blocks whose escaped slots were */
/* a few (issue 33).                                                      */
#define TAB_GRP_LOG 4
#define TAB_GRP ((word)1 << TAB_GRP_LOG)
#define TAB_GRP_BYTES (TAB_GRP * sizeof(gca_tag_t))
struct tag_wide {
  struct tag_slab *slab;
  /* A hint: the palette was full at a store (set by the store, cleared */
  /* by a census that frees an entry): stores go to the groups without  */
  /* a look at the palette till then.                                    */
  word pal_full;
  gca_tag_t *g[1];              /* [TAB_WIDE_GROUPS(n)], NULL: none yet */
};
#define TAB_WIDE_GROUPS(n) (((n) + TAB_GRP - 1) >> TAB_GRP_LOG)
#define TAB_WIDE_BYTES(n) (offsetof(struct tag_wide, g) \
                           + TAB_WIDE_GROUPS(n) * sizeof(gca_tag_t *))

/* 64 bytes on 64-bit hosts: a 16-byte block's table is 192 bytes, a   */
/* 32-byte block's 128.  The slab of a table is its page (tables are   */
/* in slabs of one page: tagslab.c), and its slots are found from inv  */
/* (tab_n), so neither takes a field (they took 16 bytes; issue 33).   */
struct tag_tab {
  struct tag_wide *wide;        /* NULL until the palette overflowed    */
  unsigned inv;                 /* 0: a large object's block (one slot) */
  gca_tag_t pal[TAB_PAL];       /* 0: a free entry                      */
  /* unsigned char idx[(n + 1) / 2], zero up to a word past;           */
};
#define TAB_IDX(tb) ((unsigned char *)((tb) + 1))
#define TAB_IDX_BYTES(n) (((n) + 1) / 2)
#define TAB_BYTES(n) (sizeof(struct tag_tab) \
                      + ((TAB_IDX_BYTES(n) + sizeof(word) - 1) \
                         & ~(word)(sizeof(word) - 1)))

GC_INLINE word tab_slot(const struct tag_tab *tb, const void *p)
{
  return (BYTES_TO_GRANULES((word)p & (HBLKSIZE - 1)) * (word)tb->inv)
         >> TAB_INV_SHIFT;
}

/* The slots of tb: its objects' granules g are ceil(2^24 / inv) (for */
/* g <= 2^12: inv = ceil(2^24 / g)), a large object's block has one.  */
GC_INLINE word tab_n(const struct tag_tab *tb)
{
  word inv = tb->inv;

  if (0 == inv) return 1;
  return HBLKSIZE / GRANULES_TO_BYTES(((word)1 << TAB_INV_SHIFT) / inv
                                      + ((((word)1 << TAB_INV_SHIFT) % inv)
                                         != 0));
}

/* The slab of table tb: tables are in slabs of TAB_SLAB_PAGE bytes,   */
/* aligned to their size (a page, unless blocks are large enough that   */
/* a page would hold fewer than 4 tables).                              */
#define TAB_SLAB_PAGE (HBLKSIZE <= 16384 ? 4096 : HBLKSIZE)
#define TAB_SLAB(tb) ((struct tag_slab *)((word)(tb) \
                                          & ~(word)(TAB_SLAB_PAGE - 1)))


/* ---- the tables' lock ------------------------------------------------ */
/* A spin lock for the slabs and for publishing a wide table (tags.c),  */
/* taken with or without the allocation lock, never held while taking   */
/* another; a forked child frees it (gca_tagslab_atfork_child).         */
#ifdef THREADS
  GC_EXTERN volatile AO_TS_t gca_tagtab_spin;
# define TAGTAB_LOCK() \
        while (AO_test_and_set_acquire(&gca_tagtab_spin) == AO_TS_SET) { }
# define TAGTAB_UNLOCK() AO_CLEAR(&gca_tagtab_spin)
#else
# define TAGTAB_LOCK() (void)0
# define TAGTAB_UNLOCK() (void)0
#endif

/* Slot s's half byte.                                                  */
#define TAB_NIB_SHIFT(s) (((unsigned)(s) & 1u) << 2)
GC_INLINE unsigned tab_nib(const unsigned char *idx, word s)
{
  return ((unsigned)GCA_LOAD(&idx[s >> 1]) >> TAB_NIB_SHIFT(s)) & 0xfu;
}

/* Slot s's half byte becomes v (tab_nib_put), the other half kept     */
/* whatever another thread writes there meanwhile: one atomic or, with */
/* release (the entry or the wide tag v names was written before),    */
/* where the half byte is 0, as nearly always (only the allocation of  */
/* a slot's object writes a half byte that is 0), else a compare-and-  */
/* swap; or it becomes 0 (tab_nib_clear: the census, a free), one      */
/* atomic and.  Under the tables' lock where there are no such         */
/* instructions.                                                         */
#if defined(__GNUC__) || defined(__clang__)
  static GC_ATTR_NOINLINE GCA_MAYBE_UNUSED void tab_nib_cas(unsigned char *p,
                                        unsigned char o, unsigned m,
                                        unsigned nv)
  {
    while (!__atomic_compare_exchange_n(p, &o, (unsigned char)((o & ~m) | nv),
                                        1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
      /* o reloaded */
    }
  }

  GC_INLINE void tab_nib_put(unsigned char *idx, word s, unsigned v)
  {
    unsigned char *p = &idx[s >> 1];
    unsigned sh = TAB_NIB_SHIFT(s);
    unsigned char o = __atomic_load_n(p, __ATOMIC_RELAXED);

    if (EXPECT(0 == (o & (0xfu << sh)), TRUE)) {
      (void)__atomic_fetch_or(p, (unsigned char)(v << sh), __ATOMIC_RELEASE);
    } else {
      tab_nib_cas(p, o, 0xfu << sh, v << sh);
    }
  }

  GC_INLINE void tab_nib_clear(unsigned char *idx, word s)
  {
    (void)__atomic_fetch_and(&idx[s >> 1],
                             (unsigned char)~(0xfu << TAB_NIB_SHIFT(s)),
                             __ATOMIC_RELAXED);
  }
#else
  GC_INLINE void tab_nib_set(unsigned char *idx, word s, unsigned v)
  {
    unsigned char *p = &idx[s >> 1];
    unsigned sh = TAB_NIB_SHIFT(s);

    TAGTAB_LOCK();
    GCA_STORE(p, (unsigned char)((*p & ~(0xfu << sh)) | (v << sh)));
    TAGTAB_UNLOCK();
  }
# define tab_nib_put(idx, s, v) tab_nib_set(idx, s, v)
# define tab_nib_clear(idx, s) tab_nib_set(idx, s, 0)
#endif

/* The tag of slot s, whose half byte is b (nonzero); 0 for an entry  */
/* freed under a store that raced with its census (the next census     */
/* clears it).                                                           */
GC_INLINE gca_tag_t tab_get(const struct tag_tab *tb, word s, unsigned b)
{
  const struct tag_wide *w;
  const gca_tag_t *g;

  if (EXPECT(b != TAB_ESC, TRUE)) return GCA_LOAD(&tb->pal[b - 1]);
  /* b was read relaxed, after the group's tag by a release store: the */
  /* tag, the group and the header are read after it.                   */
# if defined(__GNUC__) || defined(__clang__)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
# else
    AO_nop_full();
# endif
  w = (const struct tag_wide *)ACQ_LOADP(&tb->wide);
  g = (const gca_tag_t *)ACQ_LOADP(&w->g[s >> TAB_GRP_LOG]);
  return GCA_LOAD(&g[s & (TAB_GRP - 1)]);
}

/* ---- tagslab.c --------------------------------------------------------- */
/* Slots of a block of hhdr's geometry (one for a large object).        */
GC_INLINE word gca_tags_n_slots(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz > MAXOBJBYTES ? 1 : HBLK_OBJS(sz);
}
/* A zeroed chunk of bytes (at most TAB_BYTES(SLAB_MAX_SLOTS)),         */
/* its first word the slab's pointer, or NULL.  Any thread: the slabs  */
/* have a lock of their own.  A chunk of a table's size (at most that   */
/* of 2^12 slots' table) is in a slab of one page (TAB_SLAB).          */
GC_INNER void *gca_tagslab_alloc(size_t bytes);
/* The chunk goes back to its slab s (a wide table's slab field, or    */
/* TAB_SLAB of a table).                                                 */
GC_INNER void gca_tagslab_release(void *chunk, struct tag_slab *s);
/* Return empty slabs to the OS beyond a slack.                         */
GC_INNER void gca_tagslab_trim(void);
GC_INNER GCA_MAYBE_UNUSED void gca_tagslab_atfork_child(void);
/* The tables (tagslab.c, "the tables and their palettes").            */
/* A new table for a block of hhdr's geometry, or NULL; lock held.      */
GC_INNER struct tag_tab *gca_tagtab_new(hdr *hhdr);
/* Slot i of tb (whose group of i, if it has a wide table, is not     */
/* made) gets tag t; any thread; c: the thread's cache entry for t's   */
/* pair.                                                                 */
GC_INNER GC_ATTR_NOINLINE void gca_tagtab_put(struct gca_tag_cache *c,
                                              struct tag_tab *tb, word i,
                                              gca_tag_t t);
/* The census: slot s gets tag nt, its new half byte returned (mark,  */
/* cleared: tagslab.c); the entries no slot uses (used: a bit an       */
/* entry) freed.  Lock held.                                            */
GC_INNER unsigned gca_tagtab_set(struct tag_tab *tb, word s, gca_tag_t nt,
                                 word *mark, word cleared);
GC_INNER void gca_tagtab_reclaim(struct tag_tab *tb, unsigned used);
GC_INNER void gca_tagtab_release(struct tag_tab *tb);       /* lock held */
GC_INNER word gca_tagslab_mapped_bytes(void);   /* taken from the OS    */
GC_INNER word gca_tagslab_in_use_bytes(void);   /* in live tables       */

#endif /* GCA_TAGTAB_H */
