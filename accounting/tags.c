/*
 * tags.c: a type-and-callsite tag for every object, in side tables.
 *
 * Each in-use heap block set up while accounting is on gets a table of
 * one 32-bit tag per object slot (one for a large object), carved from
 * OS memory by a small slab allocator; the block header points to it
 * (hblkhdr.hb_acc, patch 0002).  Objects themselves, their size, layout
 * and size class are never touched.  A tag is
 *
 *     pair id (24 bits) << 8 | OLD (1 bit) << 7 | birth (7 bits)
 *
 * pair id: types.c's interned (type cookie, callsite); 0 = untagged.
 * birth: GC_gc_no at allocation, modulo 128.  Every census (one per
 * collection while accounting is on) visits every tag, so an object's
 * age (collections survived) is known exactly while it is below 32; the
 * census then sets OLD, and the object stays in the 32+ age bin.  Old
 * objects are counted incrementally (types.c's per-pair old counts: in
 * when a census sets OLD, out when one dies), so a census only checks
 * the mark bit of an old slot instead of counting it again.
 *
 * The census (collection end, lock held) walks the tables, not the
 * objects: a tagged slot whose mark bit is set is live (counted by type
 * and callsite, with its age); a tagged slot whose mark bit is clear was
 * freed (counted, then its tag cleared); a slot born after this
 * collection's mark is left for the next census.  Objects first seen by
 * a census, or freed before one saw them, count as allocated.  GC_free
 * and block frees count their objects' tags as freed and clear them.
 *
 * Types of gcj objects (the vtable at word 0) and of kinds in "first
 * word is the type" mode are read from word 0 when a census, a GC_free
 * or a block free first meets the object (never at allocation, where
 * word 0 is not yet written), and only if that word does not point into
 * the collector's heap (a free-list link, or nothing yet).
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind */
#endif

#include <string.h>

#define TAG_OLD 0x80u
#define TAG_BIRTH 0x7fu
#define TAG_PAIR(t) ((t) >> 8)
#define TAG_MAKE(pair, low) (((unsigned)(pair) << 8) | (low))

typedef unsigned gca_tag_t;     /* 32 bits on every target bdwgc has   */

GC_INNER int gca_tags_on = 1;
static unsigned tags_first_word_kinds = 0;      /* kind bit mask       */
static word tags_prev_census_gc_no = 0;

/* ---- the table of a block ------------------------------------------------ */
/* A table is a header, one hint byte per group of TAB_GROUP slots      */
/* (nonzero: a slot of the group may be tagged), padded to a word, then */
/* the tags.  The allocation path stores the tag, then the hint (plain  */
/* byte stores: idempotent, so threads sharing a block never lose one); */
/* the census and block frees visit only groups whose hint is set, a    */
/* word of hints at a time, so their cost follows the tagged objects    */
/* (live ones, and those allocated since the previous census), not the  */
/* slots of the heap.                                                    */
#define TAB_GROUP_LOG 3
#define TAB_GROUP ((word)1 << TAB_GROUP_LOG)
#define TAB_HINT_BYTES(n) (((((n) + TAB_GROUP - 1) >> TAB_GROUP_LOG) \
                            + sizeof(word) - 1) & ~(word)(sizeof(word) - 1))
/* Slot of an object from its offset in the block: granule index times  */
/* inv = ceil(2^24 / granules), shifted back; exact for every offset    */
/* below 2^12 granules (the error stays under 2^-12, the gap to the     */
/* next integer is at least 1/granules).  Large objects: offset 0.       */
#define TAB_INV_SHIFT 24

struct tag_slab;
struct tag_tab {
  struct tag_slab *slab;
  gca_tag_t *tags;
  unsigned n;                   /* slots                                */
  unsigned inv;
  /* unsigned char hint[TAB_HINT_BYTES(n)]; gca_tag_t tags[n];           */
};

#define TAB_HINTS(tb) ((unsigned char *)((tb) + 1))

GC_INLINE word tab_slot(const struct tag_tab *tb, const void *p)
{
  return (BYTES_TO_GRANULES((word)p & (HBLKSIZE - 1)) * (word)tb->inv)
         >> TAB_INV_SHIFT;
}

#if defined(__GNUC__) || defined(__clang__)
# define HINT_SET(h) __atomic_store_n((h), (unsigned char)1, __ATOMIC_RELEASE)
# define TAGS_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
# define HINT_SET(h) (void)(*(volatile unsigned char *)(h) = 1)
# define TAGS_FENCE() AO_nop_full()
#endif

/* ---- slab allocator for the tables ------------------------------------ */
/* Size-segregated slabs: each slab (a few pages from the OS) holds      */
/* tables of one size class only and counts them; a slab left empty is   */
/* returned to the OS at the next census once the empty slabs exceed a  */
/* small slack, so the mapped bytes follow the bytes in use.             */

#define SLAB_UNIT 16            /* table sizes are multiples of this    */
#define SLAB_MAX_SLOTS (HBLKSIZE / GRANULE_BYTES)
#define SLAB_MAX_TAB (sizeof(struct tag_tab) + TAB_HINT_BYTES(SLAB_MAX_SLOTS) \
                      + SLAB_MAX_SLOTS * sizeof(gca_tag_t))
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
  int in_empty;                         /* on the empty list            */
};
#define SLAB_HDR ((sizeof(struct tag_slab) + SLAB_UNIT - 1) \
                  & ~(size_t)(SLAB_UNIT - 1))

static struct tag_slab *slab_avail[SLAB_N_CLASSES];
static size_t slab_bytes_of[SLAB_N_CLASSES];    /* 0: not computed     */
static struct tag_slab *slab_empty = NULL;
static word slab_empty_bytes = 0;
static word slab_mapped = 0;    /* bytes taken from the OS             */
static word slab_in_use = 0;    /* bytes in live tables                */

static word tags_n_slots(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz > MAXOBJBYTES ? 1 : HBLK_OBJS(sz);
}

static word tab_bytes(word n)
{
  return sizeof(struct tag_tab) + TAB_HINT_BYTES(n) + n * sizeof(gca_tag_t);
}

static unsigned slab_class(word n_slots)
{
  return (unsigned)((tab_bytes(n_slots) + SLAB_UNIT - 1) / SLAB_UNIT);
}

/* Slab size for class c: the fewest pages with at most 1/32 waste and  */
/* at least 8 tables (or SLAB_MAX_PAGES).                                */
static size_t slab_size(unsigned c)
{
  size_t t = (size_t)c * SLAB_UNIT, k;

  if (slab_bytes_of[c] != 0) return slab_bytes_of[c];
  for (k = 1; k < SLAB_MAX_PAGES; k++) {
    size_t b = k * SLAB_PAGE, fit = (b - SLAB_HDR) / t;

    if (fit >= 8 && (b - SLAB_HDR - fit * t) * 32 <= b) break;
  }
  slab_bytes_of[c] = k * SLAB_PAGE;
  return k * SLAB_PAGE;
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
  s->next = s->prev = NULL;
}

static void slab_avail_push(struct tag_slab *s)
{
  s->prev = NULL;
  s->next = slab_avail[s->cls];
  if (s->next != NULL) s->next->prev = s;
  slab_avail[s->cls] = s;
}

static void slab_empty_unlink(struct tag_slab *s)
{
  if (s->eprev != NULL) s->eprev->enext = s->enext;
  else slab_empty = s->enext;
  if (s->enext != NULL) s->enext->eprev = s->eprev;
  s->enext = s->eprev = NULL;
  s->in_empty = 0;
  slab_empty_bytes -= s->bytes;
}

static struct tag_tab *slab_alloc(word n_slots)
{
  unsigned c = slab_class(n_slots);
  size_t bytes = (size_t)c * SLAB_UNIT;
  struct tag_slab *s = slab_avail[c];
  struct tag_tab *tb;

  if (NULL == s) {
    size_t sb = slab_size(c);

    s = (struct tag_slab *)gca_os_alloc(sb);
    if (NULL == s) return NULL;
    slab_mapped += sb;
    s->bytes = sb;
    s->cls = c;
    s->bump = (char *)s + SLAB_HDR;
    s->end = (char *)s + sb;
    slab_avail_push(s);
  }
  if (s->free != NULL) {
    tb = (struct tag_tab *)s->free;
    s->free = *(void **)tb;
    BZERO(tb, bytes);
  } else {
    tb = (struct tag_tab *)s->bump;     /* fresh pages: zero already */
    s->bump += bytes;
  }
  s->used++;
  if (s->in_empty) slab_empty_unlink(s);
  if (NULL == s->free && s->bump + bytes > s->end) slab_avail_unlink(s);
  slab_in_use += bytes;
  tb->slab = s;
  tb->n = (unsigned)n_slots;
  tb->tags = (gca_tag_t *)(TAB_HINTS(tb) + TAB_HINT_BYTES(n_slots));
  return tb;
}

static void slab_release(struct tag_tab *tb)
{
  struct tag_slab *s = tb->slab;
  size_t bytes = (size_t)s->cls * SLAB_UNIT;
  int was_full = NULL == s->free && s->bump + bytes > s->end;

  *(void **)tb = s->free;
  s->free = tb;
  slab_in_use -= bytes;
  if (was_full) slab_avail_push(s);
  if (0 == --s->used) {
    s->eprev = NULL;
    s->enext = slab_empty;
    if (slab_empty != NULL) slab_empty->eprev = s;
    slab_empty = s;
    s->in_empty = 1;
    slab_empty_bytes += s->bytes;
  }
}

/* Return empty slabs to the OS beyond a slack of 1/8 of the bytes in   */
/* use (at least 256 KiB), so a block freed and another allocated soon   */
/* after do not each cost a system call.  Lock held.                     */
static void slab_trim(void)
{
  word slack = slab_in_use / 8;

  if (slack < ((word)256 << 10)) slack = (word)256 << 10;
  while (slab_empty != NULL && slab_empty_bytes > slack) {
    struct tag_slab *s = slab_empty;

    slab_empty_unlink(s);
    slab_avail_unlink(s);
    slab_unmap(s);
  }
}

static word tags_resolve_cache_bytes(void);

GC_INNER word gca_tags_memory_bytes(void)
{
  return slab_mapped + tags_resolve_cache_bytes();
}

GC_INNER word gca_tags_in_use_bytes(void)
{
  return slab_in_use;
}

/* A new table for a block of hhdr's geometry, or NULL.                 */
static struct tag_tab *tab_new(hdr *hhdr)
{
  word n = tags_n_slots(hhdr), sz = hhdr->hb_sz;
  struct tag_tab *tb = slab_alloc(n);

  if (tb != NULL) {
    word g = sz > MAXOBJBYTES ? 1 : BYTES_TO_GRANULES(sz);

    tb->inv = (unsigned)((((word)1 << TAB_INV_SHIFT) + g - 1) / g);
  }
  return tb;
}

/* ---- settings ---------------------------------------------------------- */

GC_INNER void gca_tags_set_next_type(word cookie)
{
  gca_tl_self.next_type = cookie;
}

GC_INNER word gca_tags_take_next_type(void)
{
  struct gca_tl *me = &gca_tl_self;
  word c = me->next_type;

  me->next_type = 0;
  return c;
}

GC_INNER void gca_tags_set_first_word_kinds(unsigned mask)
{
  tags_first_word_kinds = mask;
}

/* Does word 0 of objects of kind k name their type?                   */
static int tags_resolvable_kind(unsigned k)
{
# ifdef GC_GCJ_SUPPORT
    /* 0 until GC_init_gcj_malloc made the kind.  (The debug kind's     */
    /* objects start with a debug header, not the vtable.)              */
    if (GC_gcj_kind != 0 && k == (unsigned)GC_gcj_kind)
      return GCA_TYPE_GCJ;
# endif
  if (k < 32 && ((tags_first_word_kinds >> k) & 1) != 0)
    return GCA_TYPE_FIRST_WORD;
  return 0;
}

/* What tags_resolve found, direct-mapped by (word 0, site, origin): a   */
/* census meets the same classes over and over (IL2CPP: every object's  */
/* word 0 is its class), and one compare here replaces the header       */
/* lookup that tells a class from a free-list link and the probe of the */
/* pair table.  Only made pairs are kept (a pair never changes); the     */
/* cache is cleared whenever the heap grows, so a word 0 that was not a  */
/* heap address when it was cached still is not.  OS memory, made on    */
/* first use; lock held throughout.                                      */
#define RESOLVE_LOG 13
struct tags_resolve_ent {
  word cookie;                  /* word 0                               */
  unsigned key;                 /* site << 2 | origin                   */
  unsigned pair;                /* 0: empty                             */
};
#define RESOLVE_BYTES (sizeof(struct tags_resolve_ent) << RESOLVE_LOG)
static struct tags_resolve_ent *tags_resolve_cache = NULL;
static int tags_resolve_cache_failed = 0;

GC_INLINE struct tags_resolve_ent *tags_resolve_slot(word w, unsigned key)
{
  word h = (w ^ ((word)key << 16)) * (word)0x9E3779B97F4A7C15ULL;

  return &tags_resolve_cache[h >> (CPP_WORDSZ - RESOLVE_LOG)];
}

static word tags_resolve_cache_bytes(void)
{
  return tags_resolve_cache != NULL ? RESOLVE_BYTES : 0;
}

/* The heap grew (lock held): a cached word 0 may be a heap address now. */
GC_INNER void gca_tags_heap_grew(void)
{
  if (tags_resolve_cache != NULL) BZERO(tags_resolve_cache, RESOLVE_BYTES);
}

/* tags_resolve past its cache: word 0 is w, not cached under key (e,  */
/* its slot, or NULL without a cache).                                   */
static GC_ATTR_NOINLINE unsigned tags_resolve_slow(unsigned pair,
                                    int origin, word w, unsigned site,
                                    unsigned key,
                                    struct tags_resolve_ent *e)
{
  unsigned np;

  if (HDR(w) != 0) return pair;                 /* a free-list link     */
  if (GCA_TYPE_FIRST_WORD == origin) {
    /* Word 0 of a kind that also holds other data (NORMAL in IL2CPP):  */
    /* only a plausible user-space data pointer is taken as a class.   */
    if ((w & (sizeof(word) - 1)) != 0 || w < 4096) return pair;
#   if CPP_WORDSZ == 64
      if ((w >> 47) != 0) return pair;
#   endif
  }
  np = gca_pair_intern(w, site, origin);
  if (0 == np) return pair;
  if (NULL == e && !tags_resolve_cache_failed) {
    tags_resolve_cache = (struct tags_resolve_ent *)gca_os_alloc(
                                                        RESOLVE_BYTES);
    if (NULL == tags_resolve_cache) {
      tags_resolve_cache_failed = 1;    /* runs on without the cache   */
    } else {
      e = tags_resolve_slot(w, key);
    }
  }
  if (e != NULL) {
    e->cookie = w;
    e->key = key;
    e->pair = np;
  }
  return np;
}

/* The pair of a tagged object of a resolvable kind (origin), with its  */
/* type read from word 0 if it has none yet.  Lock held.                */
GC_INLINE unsigned tags_resolve(unsigned pair, int origin, ptr_t obj)
{
  word w;
  unsigned site, key;
  struct tags_resolve_ent *e = NULL;

  if (gca_pair_cookie(pair) != 0) return pair;
  w = *(word *)obj;
  if (0 == w) return pair;                      /* nothing yet          */
  site = gca_pair_site(pair);
  key = site << 2 | (unsigned)origin;
  if (EXPECT(tags_resolve_cache != NULL, TRUE)) {
    e = tags_resolve_slot(w, key);
    if (EXPECT(e->cookie == w && e->key == key && e->pair != 0, TRUE))
      return e->pair;
  }
  return tags_resolve_slow(pair, origin, w, site, key, e);
}

/* ---- allocation ---------------------------------------------------------- */

/* Not a site id: the allocation path has not decided the site.       */
#define SITE_UNDECIDED (~0u)

/* The callsite of this thread's next object where no stack is to be   */
/* captured: none (stacks off), or not sampled (the thread's countdown */
/* of sample=BYTES); else SITE_UNDECIDED.                               */
GCA_ALWAYS_INLINE unsigned tags_site_cheap(struct gca_tl *me, word granted)
{
  int mode = gca_stacks_mode;

  if (EXPECT(GCA_STACKS_OFF == mode, TRUE)) return GCA_SITE_NONE;
  if (GCA_STACKS_SAMPLE == mode && EXPECT(gca_sample_skip(me, granted), TRUE))
    return GCA_SITE_UNSAMPLED;
  return SITE_UNDECIDED;
}

/* The callsite of this thread's next object: sites.c's capture, with */
/* the cases without a stack inline.                                   */
GC_INLINE unsigned tags_site_for(struct gca_tl *me, word granted)
{
  unsigned site = tags_site_cheap(me, granted);

  return SITE_UNDECIDED == site ? gca_site_capture(granted) : site;
}

/* The pair of (cookie, site), through the thread's one-entry cache,    */
/* then types.c's pair cache and table.  0 if none could be made.       */
static unsigned tags_pair_of(struct gca_tl *me, word cookie, unsigned site)
{
  unsigned pair;
  struct frame_tl_ent *ent;

  if (EXPECT(cookie == me->c_cookie && site == me->c_site
             && me->c_pair != 0, TRUE))
    return me->c_pair;
  pair = gca_pair_intern_tl(me, cookie, site,
                            cookie != 0 ? GCA_TYPE_EXPLICIT : 0, &ent);
  /* A sampled stack (sample=BYTES, site 2 and up) is rare by design:  */
  /* it does not take the one entry from the common (type, "not        */
  /* sampled") pair, which would then miss on every object after it.  */
  if (pair != 0 && (site <= GCA_SITE_UNSAMPLED
                    || gca_stacks_mode != GCA_STACKS_SAMPLE)) {
    me->c_cookie = cookie;
    me->c_site = site;
    me->c_pair = pair;
    me->c_ent = ent;
  }
  return pair;
}

/* The pair of this thread's next object: its type (GC_acc_set_next_type, */
/* taken) and callsite.                                                  */
static unsigned tags_pair_for(struct gca_tl *me, word granted)
{
  word cookie = me->next_type;

  if (EXPECT(cookie != 0, FALSE)) me->next_type = 0;
  return tags_pair_of(me, cookie, tags_site_for(me, granted));
}

GC_INLINE void tags_store(struct tag_tab *tb, void *p, unsigned pair)
{
  word i = tab_slot(tb, p);

  GCA_STORE(&tb->tags[i], TAG_MAKE(pair, (unsigned)GC_gc_no & TAG_BIRTH));
  HINT_SET(&TAB_HINTS(tb)[i >> TAB_GROUP_LOG]);
}

static void tags_alloc_pair(struct gca_tl *me, void *p, hdr *hhdr,
                            word granted, int locked, unsigned pair)
{
  struct tag_tab *tb;

  gca_types_frame_count(me, pair, granted, locked);
  tb = (struct tag_tab *)hhdr->hb_acc;
  if (EXPECT(tb != NULL && pair != 0, TRUE)) tags_store(tb, p, pair);
}

/* Tag p (site decided) if (cookie, site) is in the thread's caches:   */
/* its one-entry cache, then its pair cache (hits need no frame-count  */
/* entry with frame counting off).  0: not done, the caller interns    */
/* the pair.                                                            */
GCA_ALWAYS_INLINE int tags_cached(struct gca_tl *me, void *p, hdr *hhdr,
                                   word granted, int locked, word cookie,
                                   unsigned site)
{
  struct tag_tab *tb;
  unsigned pair;
  int frames = gca_frames_on;

  if (EXPECT(cookie == me->c_cookie && site == me->c_site
             && me->c_pair != 0, TRUE)) {
    struct frame_tl_ent *e = me->c_ent;

    pair = me->c_pair;
    if (EXPECT(frames, FALSE)) {
      /* Under the lock, frame counts go to the shared table instead.   */
      if (NULL == e || locked) return 0;
      GCA_STORE(&e->objs, e->objs + 1);
      GCA_STORE(&e->bytes, e->bytes + granted);
    }
  } else {
    const struct gca_pc *c;

    /* A miss is looked up (and counted) again by gca_pair_intern_tl.  */
    if (EXPECT(NULL == me->pc || frames, FALSE)) return 0;
    c = gca_pc_find(me->pc, me->pc_mask, cookie, site);
    if (EXPECT(NULL == c, FALSE)) return 0;
    me->pc_lookups++;
    pair = c->pair;
  }
  tb = (struct tag_tab *)hhdr->hb_acc;
  if (EXPECT(tb != NULL, TRUE)) tags_store(tb, p, pair);
  return 1;
}

/* What the allocation path leaves to a call: a stack to capture, a    */
/* pair to intern, a frame count without a cached entry.  cookie is   */
/* already taken from next_type; SITE_UNDECIDED: tags_site_cheap found */
/* a stack to capture.                                                   */
static GC_ATTR_NOINLINE void *tags_alloc_general(struct gca_tl *me,
                                    void *p, hdr *hhdr, word granted,
                                    int locked, word cookie, unsigned site)
{
  if (SITE_UNDECIDED == site) {
    site = gca_site_capture(granted);
    if (tags_cached(me, p, hhdr, granted, locked, cookie, site)) return p;
  }
  tags_alloc_pair(me, p, hhdr, granted, locked,
                  tags_pair_of(me, cookie, site));
  return p;
}

/* Both allocation paths: the common cases inline, with no call (so   */
/* the thread-local path keeps no stack frame): the site (none, or not */
/* sampled), then the pair from the thread's caches; anything else is  */
/* a tail call to the general path with what is decided so far.        */
GCA_ALWAYS_INLINE void *tags_alloc_inline(struct gca_tl *me, void *p,
                                          hdr *hhdr, word granted,
                                          int locked)
{
  word cookie = me->next_type;
  unsigned site;

  if (EXPECT(cookie != 0, FALSE)) me->next_type = 0;
  site = tags_site_cheap(me, granted);
  if (EXPECT(SITE_UNDECIDED == site, FALSE))
    return tags_alloc_general(me, p, hhdr, granted, locked, cookie, site);
  if (EXPECT(tags_cached(me, p, hhdr, granted, locked, cookie, site), TRUE))
    return p;
  return tags_alloc_general(me, p, hhdr, granted, locked, cookie, site);
}

GC_INNER void gca_tags_alloc(struct gca_tl *me, void *p, hdr *hhdr,
                             word granted, int locked)
{
  (void)tags_alloc_inline(me, p, hhdr, granted, locked);
}

GC_INNER void *gca_tags_alloc_tl(struct gca_tl *me, void *p, hdr *hhdr,
                                 word granted)
{
  return tags_alloc_inline(me, p, hhdr, granted, 0);
}

/* Every object of a list handed out by GC_generic_malloc_many (one    */
/* callsite and type for all; objects may come from several blocks).   */
GC_INNER void gca_tags_alloc_list(struct gca_tl *me, void *list,
                                  word granted)
{
  unsigned pair = tags_pair_for(me, granted);
  void *q;

  for (q = list; q != NULL; q = obj_link(q))
    tags_alloc_pair(me, q, HDR(q), granted, 0, pair);
}

/* Age (collections survived before this one) of a tag; lock held.     */
static word tags_age(gca_tag_t tag)
{
  return ((word)GC_gc_no - (tag & TAG_BIRTH) - 1) & TAG_BIRTH;
}

/* Was the object of tag allocated after the previous census?          */
GC_INLINE int tags_is_new(gca_tag_t tag, word since)
{
  word d = ((word)GC_gc_no - (tag & TAG_BIRTH)) & TAG_BIRTH;

  return (tag & TAG_OLD) == 0 && d <= since;
}

static word tags_obj_bytes(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz <= MAXOBJBYTES ? sz : OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
}

/* Count a tagged object as freed (and allocated if it is new); the     */
/* caller clears its tag.  Lock held.                                    */
GC_INLINE void tags_count_freed(gca_tag_t tag, int origin, ptr_t obj,
                                word bytes, word since)
{
  unsigned pair = TAG_PAIR(tag);
  struct gca_acc *a;

  if (origin != 0) pair = tags_resolve(pair, origin, obj);
  a = gca_acc_get(pair);
  if (NULL == a) return;
  if (tags_is_new(tag, since)) {
    a->alloc_objs++;
    a->alloc_bytes += bytes;
  }
  a->freed_objs++;
  a->freed_bytes += bytes;
}

GC_INNER void gca_tags_free(void *p)
{
  hdr *hhdr = HDR(p);
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;
  word i;
  gca_tag_t tag;

  if (NULL == tb) return;
  i = tab_slot(tb, p);
  tag = tb->tags[i];
  if (0 == tag) return;
  tags_count_freed(tag, tags_resolvable_kind(hhdr->hb_obj_kind), (ptr_t)p,
                   tags_obj_bytes(hhdr),
                   (word)GC_gc_no - tags_prev_census_gc_no);
  if (tag & TAG_OLD) gca_old_sub(TAG_PAIR(tag), tags_obj_bytes(hhdr));
  tb->tags[i] = 0;
}

/* ---- blocks --------------------------------------------------------------- */

/* A block h just set up, with accounting and tags on (the hook,         */
/* hooks.c, sets hb_acc NULL itself otherwise).                          */
GC_INNER void gca_tags_hblk_alloc(struct hblk *h, hdr *hhdr)
{
  (void)h;
  hhdr->hb_acc = tab_new(hhdr);
}

/* Lowest set byte of a word of hint bytes (each 0 or 1).               */
#if defined(__GNUC__) || defined(__clang__)
# define HINT_FIRST(w) ((unsigned)__builtin_ctzll((unsigned long long)(w)) >> 3)
#else
  static unsigned HINT_FIRST(word w)
  {
    unsigned j = 0;

    while (0 == (w & 0xff)) {
      w >>= 8;
      j++;
    }
    return j;
  }
#endif

/* A block h about to be freed, with a tag table (the hook, hooks.c,    */
/* calls this only then).                                                */
GC_INNER void gca_tags_hblk_free(struct hblk *h, hdr *hhdr)
{
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;

  if (gca_on) {
    word n = tb->n, nh = TAB_HINT_BYTES(n), g8, sz = hhdr->hb_sz;
    word bytes = tags_obj_bytes(hhdr);
    word since = (word)GC_gc_no - tags_prev_census_gc_no;
    int origin = tags_resolvable_kind(hhdr->hb_obj_kind);
    const unsigned char *hint = TAB_HINTS(tb);
    gca_tag_t *t = tb->tags;

    for (g8 = 0; g8 < nh; g8 += sizeof(word)) {
      word w = *(const word *)(hint + g8);

      while (w != 0) {
        word g = g8 + HINT_FIRST(w), s, lim;

        w &= w - 1;     /* the hint bytes are 0 or 1: one bit each    */
        lim = (g + 1) << TAB_GROUP_LOG;
        if (lim > n) lim = n;
        for (s = g << TAB_GROUP_LOG; s < lim; s++) {
          if (t[s] != 0) {
            tags_count_freed(t[s], origin,
                             (ptr_t)h + (sz > MAXOBJBYTES ? 0 : s * sz),
                             bytes, since);
            if (t[s] & TAG_OLD) gca_old_sub(TAG_PAIR(t[s]), bytes);
          }
        }
      }
    }
  }
  slab_release(tb);
  hhdr->hb_acc = NULL;
}

static int tags_reset_first;

static void tags_reset_visit(struct hblk *h, word dummy)
{
  hdr *hhdr = HDR(h);
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;

  (void)dummy;
  if (!gca_tags_on) {
    if (!tags_reset_first && tb != NULL) slab_release(tb);
    hhdr->hb_acc = NULL;
  } else if (tags_reset_first || NULL == tb) {
    hhdr->hb_acc = tab_new(hhdr);
  } else {
    BZERO(TAB_HINTS(tb), TAB_HINT_BYTES(tb->n)
                         + tb->n * sizeof(gca_tag_t));
  }
}

/* Accounting goes on, or tagging is switched (lock held): every in-use */
/* block gets a clean table (none with tags off).  first: heap tracking */
/* was off until now, so hb_acc of the blocks in use may be anything    */
/* (headers are recycled).                                               */
GC_INNER void gca_tags_reset_all(int first)
{
  tags_reset_first = first;
  GC_apply_to_all_blocks(tags_reset_visit, 0);
  gca_old_reset();
  tags_prev_census_gc_no = GC_gc_no;
}

GC_INNER void gca_tags_set(int on)
{
  DCL_LOCK_STATE;

  LOCK();
  on = on != 0;
  if (on != gca_tags_on) {
    gca_tags_on = on;
    gca_tl_mode_update();
    /* With accounting off hb_acc is kept NULL by the block hooks      */
    /* (tracking on) or reset when accounting goes on.                  */
    if (gca_on || gca_track_heap) gca_tags_reset_all(0);
  }
  UNLOCK();
}

/* ---- census ------------------------------------------------------------- */

static word census_since;       /* collections since the previous census */
static unsigned census_now;     /* GC_gc_no mod 128                     */
static unsigned char age_bin_of[GCA_AGE_OLD + 1];

GC_INNER void gca_tags_census_begin(void)
{
  unsigned a;

  if (0 == age_bin_of[GCA_AGE_OLD])
    for (a = 0; a <= GCA_AGE_OLD; a++)
      age_bin_of[a] = (unsigned char)gca_age_bin(a);
  gca_types_census_begin();
  census_since = (word)GC_gc_no - tags_prev_census_gc_no;
  census_now = (unsigned)GC_gc_no & TAG_BIRTH;
}

/* The tags of one in-use block (census.c's visit).  Lock held, world    */
/* running: other threads may be tagging objects popped from their own  */
/* free lists (marked slots whose tags are 0, or born now).             */
GC_INNER void gca_tags_census_block(struct hblk *h, hdr *hhdr)
{
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;
  word n, nh, g8, sz, bytes, gstride;
  unsigned char *hint;
  gca_tag_t *t;
  int origin;
  word cleared[SLAB_MAX_SLOTS / TAB_GROUP + 1];
  unsigned n_cleared = 0, j;

  if (NULL == tb) return;
  n = tb->n;
  nh = TAB_HINT_BYTES(n);
  hint = TAB_HINTS(tb);
  t = tb->tags;
  sz = hhdr->hb_sz;
  bytes = tags_obj_bytes(hhdr);
  gstride = sz > MAXOBJBYTES ? 0 : sz;
  origin = tags_resolvable_kind(hhdr->hb_obj_kind);
  for (g8 = 0; g8 < nh; g8 += sizeof(word)) {
    word w = *(const word *)(hint + g8);

    while (w != 0) {
      word g = g8 + HINT_FIRST(w), s, lim;
      int keep = 0;

      w &= w - 1;
      lim = (g + 1) << TAB_GROUP_LOG;
      if (lim > n) lim = n;
      for (s = g << TAB_GROUP_LOG; s < lim; s++) {
        gca_tag_t tag = t[s];
        unsigned pair;
        struct gca_acc *a;
        word age;

        if (0 == tag) continue;
        keep = 1;
        if ((tag & (TAG_OLD | TAG_BIRTH)) == census_now)
          continue;             /* allocated after this mark           */
        if (!mark_bit_from_hdr(hhdr, MARK_BIT_NO(s * gstride, sz))) {
          tags_count_freed(tag, origin, (ptr_t)h + s * gstride, bytes,
                           census_since);
          if (tag & TAG_OLD) gca_old_sub(TAG_PAIR(tag), bytes);
          t[s] = 0;
          continue;
        }
        pair = TAG_PAIR(tag);
        if (tag & TAG_OLD) {
          /* Counted by its pair's old counts (gca_types_census_old).   */
          if (origin != 0) {
            unsigned np = tags_resolve(pair, origin, (ptr_t)h + s * gstride);

            if (np != pair && gca_old_add(np, bytes)) {
              gca_old_sub(pair, bytes);
              t[s] = TAG_MAKE(np, tag & 0xffu);
            }
          }
          continue;
        }
        if (origin != 0) {
          unsigned np = tags_resolve(pair, origin, (ptr_t)h + s * gstride);

          if (np != pair) {
            pair = np;
            tag = TAG_MAKE(np, tag & 0xffu);
          }
        }
        a = gca_acc_get(pair);
        age = tags_age(tag);
        if (age >= GCA_AGE_OLD) {
          age = GCA_AGE_OLD;
          /* From now on (this census included) its pair's old counts   */
          /* hold it as live.                                            */
          if (gca_old_add(pair, bytes)) {
            if (a != NULL && tags_is_new(tag, census_since)) {
              a->alloc_objs++;
              a->alloc_bytes += bytes;
            }
            t[s] = tag | TAG_OLD;
            continue;
          }
        }
        if (a != NULL) {
          if (tags_is_new(tag, census_since)) {
            a->alloc_objs++;
            a->alloc_bytes += bytes;
          }
          a->live_objs++;
          a->live_bytes += bytes;
          a->age[age_bin_of[age]]++;
        }
        if (tag != t[s]) t[s] = tag;
      }
      if (!keep) {
        /* Nothing tagged left in the group: clear its hint, then look  */
        /* again (below, after a fence) for a tag stored meanwhile.     */
        hint[g] = 0;
        cleared[n_cleared++] = g;
      }
    }
  }
  if (n_cleared == 0) return;
  /* A thread tagging in this block stores its tag, then the hint: if   */
  /* our clear came after its hint, the fence makes its tag visible now. */
  TAGS_FENCE();
  for (j = 0; j < n_cleared; j++) {
    word g = cleared[j], s, lim = (g + 1) << TAB_GROUP_LOG;

    if (lim > n) lim = n;
    for (s = g << TAB_GROUP_LOG; s < lim; s++) {
      if (GCA_LOAD(&t[s]) != 0) {
        hint[g] = 1;
        break;
      }
    }
  }
}

GC_INNER void gca_tags_census_end(void)
{
  tags_prev_census_gc_no = GC_gc_no;
  gca_types_census_old();
  gca_types_fold();
  slab_trim();
}

/* The tag of object p, for tests: its pair's cookie and site, and its */
/* birth; 0 if p has no tag.  Lock held.                                */
GC_INNER int gca_tags_of(void *p, word *cookie, unsigned *site)
{
  hdr *hhdr = HDR(p);
  struct tag_tab *tb;
  gca_tag_t tag;
  unsigned pair;

  if (NULL == hhdr || HBLK_IS_FREE(hhdr)) return 0;
  tb = (struct tag_tab *)hhdr->hb_acc;
  if (NULL == tb) return 0;
  tag = tb->tags[tab_slot(tb, p)];
  if (0 == tag) return 0;
  pair = TAG_PAIR(tag);
  *cookie = gca_pair_cookie(pair);
  *site = gca_pair_site(pair);
  return 1;
}

#endif /* !GC_ACC_DISABLE */
