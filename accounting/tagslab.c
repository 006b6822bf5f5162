/* SPDX-License-Identifier: MIT */
/*
 * tagslab.c: the tag tables of tags.c: a block's table and its palette
 * (made, a slot's entry added, entries freed, the wide table), and the
 * OS pages they take.
 *
 * Size-segregated slabs: each slab (a few pages from the OS) holds
 * tables of one size class only and counts them; a slab left empty is
 * returned to the OS at the next census once the empty slabs exceed a
 * small slack, so the mapped bytes follow the bytes in use.  The slabs
 * have a spin lock of their own: tables are made and released by block
 * hooks and the census (allocation lock held), a block's wide table by
 * whichever thread finds its palette full, with or without it.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_tagtab.h"

#define SLAB_UNIT 16            /* table sizes are multiples of this    */
/* The largest chunk: a table of SLAB_MAX_SLOTS slots (a wide table's   */
/* header and a group are smaller).                                      */
#define SLAB_MAX_TAB TAB_BYTES(SLAB_MAX_SLOTS)
#define SLAB_N_CLASSES ((SLAB_MAX_TAB + SLAB_UNIT - 1) / SLAB_UNIT + 1)
#define SLAB_PAGE 4096
#define SLAB_MAX_PAGES 16

struct tag_slab {
  struct tag_slab *next, *prev;         /* class list: slabs with room  */
  struct tag_slab *enext, *eprev;       /* empty slabs                  */
  void *free;                           /* freed tables                 */
  char *bump;                           /* never used yet, up to end    */
  char *end;
  size_t bytes;
  unsigned used, cls;
};
#define SLAB_HDR ((sizeof(struct tag_slab) + SLAB_UNIT - 1) \
                  & ~(size_t)(SLAB_UNIT - 1))

/* A class's slabs with room.  A table is made in the first, or, if    */
/* that is under half used, in the fullest of the first SLAB_PICK (made */
/* the first), and a slab left less than a quarter used goes to        */
/* the end (gca_tagslab_release): the new tables fill the fuller slabs */
/* and the emptier ones drain, to be returned.  After a collection has */
/* freed blocks all over the heap, taking the first slab with room     */
/* left Guile's 2.9 MB heap with a third of its tables' pages empty.   */
#define SLAB_PICK 8
static struct tag_slab *slab_avail[SLAB_N_CLASSES];
static struct tag_slab *slab_avail_last[SLAB_N_CLASSES];
static size_t slab_bytes_of[SLAB_N_CLASSES];    /* 0: not computed     */
static struct tag_slab *slab_empty = NULL;
static word slab_empty_bytes = 0;
static word slab_mapped = 0;    /* bytes taken from the OS             */
static word slab_in_use = 0;    /* bytes in live tables                */

#ifdef THREADS
  GC_INNER volatile AO_TS_t gca_tagtab_spin = AO_TS_INITIALIZER;
#endif

/* In a child after fork(): a table another thread was making may be  */
/* lost, as pairs.c's pairs are.                                        */
GC_INNER void gca_tagslab_atfork_child(void)
{
  TAGTAB_UNLOCK();
}

static unsigned slab_class(size_t bytes)
{
  return (unsigned)((bytes + SLAB_UNIT - 1) / SLAB_UNIT);
}

/* The classes whose slabs are of TAB_SLAB_PAGE bytes, aligned: those  */
/* of the tables (a block's, of at most SLAB_MAX_SLOTS slots) and a    */
/* quarter larger (or SLAB_NEAR), where tagslab_alloc may put a table. */
/* The slab of a table is then its address rounded down (TAB_SLAB),    */
/* and a table needs no field for it.                                    */
#define SLAB_TAB_CLS ((TAB_BYTES(SLAB_MAX_SLOTS) + SLAB_UNIT - 1) / SLAB_UNIT)
#define SLAB_ALIGNED_CLS (SLAB_TAB_CLS + SLAB_TAB_CLS / 4)
/* The classes above c that tagslab_alloc may use for c's chunks.       */
#define SLAB_NEAR(c) ((c) < 8 ? 2u : (c) / 4)

/* Slab size for class c: the fewest pages with at most 1/8 waste and   */
/* at least 4 tables (or SLAB_MAX_PAGES); TAB_SLAB_PAGE for the tables' */
/* classes.  Small slabs: a slab holding one table of a class keeps its */
/* pages mapped.                                                         */
static size_t slab_size(unsigned c)
{
  size_t t = (size_t)c * SLAB_UNIT, k;

  GC_STATIC_ASSERT(SLAB_ALIGNED_CLS * SLAB_UNIT * 4 + SLAB_UNIT
                   <= TAB_SLAB_PAGE);
  GC_STATIC_ASSERT(7 + SLAB_NEAR(7) <= SLAB_ALIGNED_CLS);
  GC_STATIC_ASSERT(TAB_GRP_BYTES / SLAB_UNIT <= SLAB_TAB_CLS);
  GC_STATIC_ASSERT(TAB_WIDE_BYTES(SLAB_MAX_SLOTS) <= SLAB_MAX_TAB);
  if (c <= SLAB_ALIGNED_CLS || c >= SLAB_N_CLASSES) return TAB_SLAB_PAGE;
  if (slab_bytes_of[c] != 0) return slab_bytes_of[c];
  for (k = 1; k < SLAB_MAX_PAGES; k++) {
    size_t b = k * SLAB_PAGE, fit = (b - SLAB_HDR) / t;

    if (fit >= 4 && (b - SLAB_HDR - fit * t) * 8 <= b) break;
  }
  slab_bytes_of[c] = k * SLAB_PAGE;
  return k * SLAB_PAGE;
}

/* A slab of sb bytes, aligned to TAB_SLAB_PAGE for the tables' classes */
/* (mmap's pages are; a larger TAB_SLAB_PAGE takes twice and gives back */
/* the rest).  NULL if no memory.                                        */
static void *slab_map(unsigned c, size_t sb)
{
  if (c > SLAB_ALIGNED_CLS || TAB_SLAB_PAGE <= 4096)
    return gca_os_alloc(sb);
# if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
    return gca_os_alloc(sb);    /* 64 KiB aligned                       */
# else
  {
    char *p = (char *)gca_os_alloc(2 * sb), *a;

    if (NULL == p) return NULL;
    a = (char *)(((word)p + sb - 1) & ~(word)(sb - 1));
    if (a != p) gca_os_free(p, (size_t)(a - p));
    if (a + sb != p + 2 * sb) gca_os_free(a + sb, (size_t)(p + sb - a));
    return a;
  }
# endif
}

static void slab_unmap(struct tag_slab *s)
{
  size_t bytes = s->bytes;

  slab_mapped -= bytes;
  gca_os_free(s, bytes);
}

static void slab_avail_unlink(struct tag_slab *s)
{
  if (s->prev != NULL) s->prev->next = s->next;
  else slab_avail[s->cls] = s->next;
  if (s->next != NULL) s->next->prev = s->prev;
  else slab_avail_last[s->cls] = s->prev;
  s->next = s->prev = NULL;
}

static void slab_avail_push(struct tag_slab *s)
{
  s->prev = NULL;
  s->next = slab_avail[s->cls];
  if (s->next != NULL) s->next->prev = s;
  else slab_avail_last[s->cls] = s;
  slab_avail[s->cls] = s;
}

static void slab_avail_append(struct tag_slab *s)
{
  s->next = NULL;
  s->prev = slab_avail_last[s->cls];
  if (s->prev != NULL) s->prev->next = s;
  else slab_avail[s->cls] = s;
  slab_avail_last[s->cls] = s;
}

static void slab_empty_unlink(struct tag_slab *s)
{
  if (s->eprev != NULL) s->eprev->enext = s->enext;
  else slab_empty = s->enext;
  if (s->enext != NULL) s->enext->eprev = s->eprev;
  s->enext = s->eprev = NULL;
  slab_empty_bytes -= s->bytes;
}

static void *tagslab_alloc(size_t want)
{
  unsigned c = slab_class(want);
  size_t bytes = (size_t)c * SLAB_UNIT;
  struct tag_slab *s = slab_avail[c], *o;
  struct tag_slab **tb;
  int i;

  if (s != NULL && s->used * 2 * bytes < s->bytes - SLAB_HDR) {
    /* The first is under half used: the fullest of the first few, made */
    /* the first, which the next tables then fill without a search.     */
    for (o = s->next, i = 1; o != NULL && i < SLAB_PICK; o = o->next, i++) {
      if (o->used > s->used) s = o;
    }
    if (s != slab_avail[c]) {
      slab_avail_unlink(s);
      slab_avail_push(s);
    }
  }
  if (NULL == s) {
    /* A slab with room of a class at most a quarter larger, or two    */
    /* classes (32 bytes) for the small ones: a class of a few tables   */
    /* would take a page of its own (Guile's alloc.scm had six such,    */
    /* 24 KiB for 47 tables; then a page for one 80-byte table, with a  */
    /* 112-byte class's slab half empty; issue 33).                     */
    unsigned k;

    for (k = c + 1; k <= c + SLAB_NEAR(c) && k < SLAB_N_CLASSES; k++) {
      if (slab_avail[k] != NULL) {
        c = k;
        bytes = (size_t)c * SLAB_UNIT;
        s = slab_avail[k];
        break;
      }
    }
  }
  if (NULL == s) {
    /* An empty slab of the class (kept off the class list, so that the */
    /* tables fill partly used slabs first and empty ones can go).      */
    for (s = slab_empty; s != NULL && s->cls != c; s = s->enext) { }
    if (s != NULL) {
      slab_empty_unlink(s);
      slab_avail_push(s);
    }
  }
  if (NULL == s) {
    size_t sb = slab_size(c);

    /* The side tables' cap: past it, new blocks go untagged.          */
    if (slab_mapped + sb > gca_table_limit()) {
      static word untagged = 0;

      gca_table_limit_reached("block tag tables", ++untagged);
      return NULL;
    }
    s = (struct tag_slab *)slab_map(c, sb);
    if (NULL == s) return NULL;
    slab_mapped += sb;
    s->bytes = sb;
    s->cls = c;
    s->bump = (char *)s + SLAB_HDR;
    s->end = (char *)s + sb;
    slab_avail_push(s);
  }
  if (s->free != NULL) {
    tb = (struct tag_slab **)s->free;
    s->free = *(void **)tb;
    BZERO(tb, bytes);
  } else {
    tb = (struct tag_slab **)s->bump;   /* fresh pages: zero already */
    s->bump += bytes;
  }
  s->used++;
  if (NULL == s->free && s->bump + bytes > s->end) slab_avail_unlink(s);
  slab_in_use += bytes;
  *tb = s;
  return tb;
}

GC_INNER void *gca_tagslab_alloc(size_t bytes)
{
  void *p;

  GC_ASSERT(bytes <= SLAB_MAX_TAB);
  TAGTAB_LOCK();
  p = tagslab_alloc(bytes);
  TAGTAB_UNLOCK();
  return p;
}

GC_INNER void gca_tagslab_release(void *chunk, struct tag_slab *s)
{
  struct tag_slab **tb = (struct tag_slab **)chunk;
  size_t bytes;
  int was_full;

  TAGTAB_LOCK();
  bytes = (size_t)s->cls * SLAB_UNIT;
  was_full = NULL == s->free && s->bump + bytes > s->end;
  *(void **)tb = s->free;
  s->free = tb;
  slab_in_use -= bytes;
  if (was_full) {
    slab_avail_push(s);
  } else if (s->next != NULL
             && (s->used - 1) * 4 * bytes < s->bytes - SLAB_HDR) {
    slab_avail_unlink(s);               /* a quarter used: to the end   */
    slab_avail_append(s);
  }
  if (0 == --s->used) {
    slab_avail_unlink(s);
    s->eprev = NULL;
    s->enext = slab_empty;
    if (slab_empty != NULL) slab_empty->eprev = s;
    slab_empty = s;
    slab_empty_bytes += s->bytes;
  }
  TAGTAB_UNLOCK();
}

/* Return empty slabs to the OS beyond a slack of 1/64 of the bytes in  */
/* use, so a block freed and another allocated soon after do not each   */
/* cost a system call.  The slack was 1/8 and at least 256 KiB: on      */
/* Guile's 2.9 MB heap that kept 290 KiB of empty slabs, more than the  */
/* tables in use (issue 33); then 1/16 and at least 16 KiB, then 4: the */
/* tables of a collection's freed blocks, as many as a cycle makes     */
/* again, are mapped anew each cycle (some pages a collection).         */
GC_INNER void gca_tagslab_trim(void)
{
  word slack;

  TAGTAB_LOCK();
  slack = slab_in_use / 64;
  while (slab_empty != NULL && slab_empty_bytes > slack) {
    struct tag_slab *s = slab_empty;

    slab_empty_unlink(s);
    slab_unmap(s);
  }
  TAGTAB_UNLOCK();
}

GC_INNER word gca_tagslab_mapped_bytes(void)
{
  return slab_mapped;
}

GC_INNER word gca_tagslab_in_use_bytes(void)
{
  return slab_in_use;
}

/* ---- the tables and their palettes ------------------------------------ */
/* A table's slots' half bytes index its palette (gca_tagtab.h).       */
/* Entries are added by any thread (a thread-local pop holds no lock)   */
/* with a compare-and-swap of a free entry (under the tables' lock     */
/* where there is no such instruction), and freed only by the census    */
/* (lock held), without either: an entry whose slots are all gone and   */
/* whose tag can no longer be stored (OLD, or born two collections ago */
/* or more: tags_store writes this collection's birth).  So a thread    */
/* that found its entry may store its half byte without a lock: the     */
/* entry stays until a census finds no slot for it.  A palette full of  */
/* live entries sends the tags it has no room for to the block's wide   */
/* table, 32 bits a slot in groups of TAB_GRP slots.                    */

/* Entry e (free) takes tag t, unless another thread took it first.   */
#if defined(__GNUC__) || defined(__clang__)
  GC_INLINE int pal_claim(gca_tag_t *e, gca_tag_t t)
  {
    gca_tag_t zero = 0;

    return __atomic_compare_exchange_n(e, &zero, t, 0, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED);
  }
#else
  static int pal_claim(gca_tag_t *e, gca_tag_t t)
  {
    int ok;

    TAGTAB_LOCK();
    ok = 0 == *e;
    if (ok) *e = t;
    TAGTAB_UNLOCK();
    return ok;
  }
#endif

/* The entry of t, added at the first free entry if it is not before   */
/* it (a tag may have two entries, after a census freed one before its  */
/* first: both say the same); TAB_PAL if the palette is full.  Any     */
/* thread.                                                               */
GC_INLINE unsigned pal_add(struct tag_tab *tb, gca_tag_t t)
{
  unsigned e;

  /* Unrolled: the loop's own instructions were a third of its cost.   */
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
# pragma GCC unroll 16
#endif
  for (e = 0; e < TAB_PAL; e++) {
    gca_tag_t v = GCA_LOAD(&tb->pal[e]);

    if (v == t) break;
    if (0 == v && (pal_claim(&tb->pal[e], t)
                   || GCA_LOAD(&tb->pal[e]) == t))
      break;
  }
  return e;
}

/* Publish *np at *slot unless another thread did first: what *slot   */
/* holds then; a chunk not published goes back to its slab s.           */
static void *wide_publish(void **slot, void *np, struct tag_slab *s)
{
  void *p;

  TAGTAB_LOCK();
  p = *slot;
  if (NULL == p) {
    REL_STOREP(slot, np);
    p = np;
    np = NULL;
  }
  TAGTAB_UNLOCK();
  if (np != NULL) gca_tagslab_release(np, s);
  return p;
}

/* Slot i's tag t in tb's wide table, made if it is not yet (and its   */
/* slot's group), and its half byte TAB_ESC; full: the palette had no  */
/* room (the hint set, gca_tagtab_put).  Any thread.  At the side      */
/* tables' cap the slot is left untagged.                               */
static GC_ATTR_NOINLINE void tab_put_wide(struct tag_tab *tb, word i,
                                          gca_tag_t t, int full)
{
  struct tag_wide *w = (struct tag_wide *)ACQ_LOADP(&tb->wide);
  gca_tag_t *g;

  if (NULL == w) {
    struct tag_wide *nw
        = (struct tag_wide *)gca_tagslab_alloc(TAB_WIDE_BYTES(tab_n(tb)));

    if (NULL == nw) {
      tab_nib_clear(TAB_IDX(tb), i);
      return;
    }
    w = (struct tag_wide *)wide_publish((void **)&tb->wide, nw, nw->slab);
  }
  g = (gca_tag_t *)ACQ_LOADP(&w->g[i >> TAB_GRP_LOG]);
  if (NULL == g) {
    gca_tag_t *ng = (gca_tag_t *)gca_tagslab_alloc(TAB_GRP_BYTES);

    if (NULL == ng) {
      tab_nib_clear(TAB_IDX(tb), i);
      return;
    }
    BZERO(ng, sizeof(struct tag_slab *));       /* the slab's pointer  */
    g = (gca_tag_t *)wide_publish((void **)&w->g[i >> TAB_GRP_LOG], ng,
                                  TAB_SLAB(ng));
  }
  GCA_STORE(&g[i & (TAB_GRP - 1)], t);
  tab_nib_put(TAB_IDX(tb), i, TAB_ESC);
  if (full) GCA_STORE(&w->pal_full, 1);
}

/* Slot i of tb (without its wide group) gets tag t (any thread): its */
/* palette entry, remembered in the thread's cache entry c, or the wide */
/* table's group, made now (at once if the palette was full at a store */
/* since the last census).                                               */
GC_INNER GC_ATTR_NOINLINE void gca_tagtab_put(struct gca_tag_cache *c,
                                              struct tag_tab *tb, word i,
                                              gca_tag_t t)
{
  struct tag_wide *w = (struct tag_wide *)ACQ_LOADP(&tb->wide);
  unsigned e;

  /* A leaf but for its tail calls: no registers saved on the way to   */
  /* an entry (most calls).                                              */
  if (w != NULL && GCA_LOAD(&w->pal_full)) {
    tab_put_wide(tb, i, t, 1);  /* the palette was full: the group made */
    return;
  }
  e = pal_add(tb, t);
  if (EXPECT(e < TAB_PAL, TRUE)) {
    c->tag = t;
    c->idx = e;
    tab_nib_put(TAB_IDX(tb), i, e + 1);
  } else {
    tab_put_wide(tb, i, t, 1);
  }
}

/* The palette bit of a slot's half byte (none for the wide table).   */
#define PAL_BIT(b) ((b) < TAB_ESC ? 1u << ((b) - 1) : 0u)

/* Free the entries of tb's palette that no slot uses (used: a bit per */
/* entry) and no thread can store any more (OLD, or born before the    */
/* previous collection).  Lock held.                                     */
GC_INNER void gca_tagtab_reclaim(struct tag_tab *tb, unsigned used)
{
  unsigned e, now = (unsigned)GC_gc_no & TAG_BIRTH;
  int freed = 0;

  for (e = 0; e < TAB_PAL; e++) {
    gca_tag_t v = tb->pal[e];

    if (0 == v || (used & (1u << e)) != 0) continue;
    if ((v & TAG_OLD) || ((now - v) & TAG_BIRTH) >= 2) {
      GCA_STORE(&tb->pal[e], 0);
      freed = 1;
    }
  }
  /* The stores may look at the palette again.                          */
  if (freed && tb->wide != NULL) GCA_STORE(&tb->wide->pal_full, 0);
}

/* The palette entries that tb's slots use now.  Lock held.             */
static unsigned pal_used(const struct tag_tab *tb)
{
  const unsigned char *idx = TAB_IDX(tb);
  unsigned used = 0;
  word s, n = tab_n(tb);

  for (s = 0; s < n; s++) {
    unsigned b = tab_nib(idx, s);

    if (b != 0) used |= PAL_BIT(b);
  }
  return used;
}

/* The census changes slot s's tag (half byte b) to nt (nonzero);      */
/* returns its new half byte.  As tags_store: the slot's wide group if */
/* it exists, else the palette first, then the wide table (a block     */
/* keeps its groups once made; its slots go back to the palette as     */
/* their objects die and new ones take the freed entries).  A full     */
/* palette frees what no slot uses (a walk of all the block's slots)   */
/* if the census cleared a slot since its last walk (cleared, against */
/* *mark): a walk for each slot that changed made the census of blocks */
/* of many types quadratic; a single walk, before the census had       */
/* cleared the block's dead slots, left more groups made (Guile's      */
/* alloc.scm under trace: 4 KiB).                                        */
/* Lock held.                                                            */
GC_INNER unsigned gca_tagtab_set(struct tag_tab *tb, word s, gca_tag_t nt,
                                 word *mark, word cleared)
{
  struct tag_wide *w = tb->wide;
  unsigned e;

  if (w != NULL && w->g[s >> TAB_GRP_LOG] != NULL) {
    tab_put_wide(tb, s, nt, 0);
    return tab_nib(TAB_IDX(tb), s);
  }
  e = pal_add(tb, nt);
  if (TAB_PAL == e && *mark != cleared) {
    *mark = cleared;
    gca_tagtab_reclaim(tb, pal_used(tb));
    e = pal_add(tb, nt);
  }
  if (e < TAB_PAL) {
    tab_nib_put(TAB_IDX(tb), s, e + 1);
    return e + 1;
  }
  tab_put_wide(tb, s, nt, 1);
  return tab_nib(TAB_IDX(tb), s);
}

/* tb's wide table goes (with tb: gca_tagtab_release).  Lock held.   */
static void tab_wide_drop(struct tag_tab *tb)
{
  struct tag_wide *w = tb->wide;
  word k, ng;

  if (NULL == w) return;
  ng = TAB_WIDE_GROUPS(tab_n(tb));
  for (k = 0; k < ng; k++)
    if (w->g[k] != NULL) gca_tagslab_release(w->g[k], TAB_SLAB(w->g[k]));
  gca_tagslab_release(w, w->slab);
  tb->wide = NULL;
}

/* A block's table goes (a block freed, tags off).  Lock held.          */
GC_INNER void gca_tagtab_release(struct tag_tab *tb)
{
  tab_wide_drop(tb);
  gca_tagslab_release(tb, TAB_SLAB(tb));
}

/* A new table for a block of hhdr's geometry, or NULL.                 */
GC_INNER struct tag_tab *gca_tagtab_new(hdr *hhdr)
{
  word n = gca_tags_n_slots(hhdr), sz = hhdr->hb_sz;
  struct tag_tab *tb = (struct tag_tab *)gca_tagslab_alloc(TAB_BYTES(n));

  if (NULL == tb) return NULL;
  GC_ASSERT(TAB_SLAB(tb) == *(struct tag_slab **)tb);
  tb->wide = NULL;              /* the slab's pointer, as in every chunk */
  if (sz <= MAXOBJBYTES) {
    word g = BYTES_TO_GRANULES(sz);

    tb->inv = (unsigned)((((word)1 << TAB_INV_SHIFT) + g - 1) / g);
    GC_ASSERT(tab_n(tb) == n);
  }
  return tb;
}

#endif /* !GC_ACC_DISABLE */
