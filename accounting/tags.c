/* SPDX-License-Identifier: MIT */
/*
 * tags.c: a type-and-callsite tag for every object, in side tables.
 *
 * Each in-use heap block set up while accounting is on gets a table
 * (gca_tagtab.h) of half a byte per object slot (one for a large object)
 * indexing the block's palette of 32-bit tags, carved from OS memory by
 * a small slab allocator; the block header points to it (hblkhdr.hb_acc,
 * patch 0002).  Objects themselves, their size, layout and size class
 * are never touched.  A tag is
 *
 *     pair id (24 bits) << 8 | OLD (1 bit) << 7 | birth (7 bits)
 *
 * pair id: pairs.c's interned (type cookie, callsite); 0 = untagged.
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
 * the collector's heap (a free-list link, or nothing yet).  In the il2cpp
 * type mode (GC_ACC_TYPES=il2cpp) word 0 of PTRFREE, NORMAL and gcj
 * objects (and of kinds added by gca_objtype_add_class_kind) must be an
 * Il2CppClass, checked by classes.c without dereferencing it; a word
 * that is not gets its kind's "unknown (<kind>)" type.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind */
#endif

#include <string.h>

#include "gca_tagtab.h"


static word tags_prev_census_gc_no = 0;

GC_INNER void gca_tags_atfork_child(void)
{
  gca_tagslab_atfork_child();
}

GC_INNER word gca_tags_memory_bytes(void)
{
  return gca_tagslab_mapped_bytes();
}

GC_INNER word gca_tags_in_use_bytes(void)
{
  return gca_tagslab_in_use_bytes();
}


/* A block's table: hb_acc, kept (NULL or a table) only while           */
/* GCA_HBLK_TABLES is set (gca_hooks.h, GC_ACC_ON_HBLK_ALLOC); before,   */
/* no table exists and hb_acc may be anything; and none while tags are */
/* off (the tables kept then are not read: tags_reset_visit).  For the  */
/* readers that run in any profile (GC_free's, the retention walk's,    */
/* the tests').                                                          */
#define TAGS_TAB(hhdr) (gca_tags_on && (gca_hblk_hooks & GCA_HBLK_TABLES) \
                        ? (struct tag_tab *)(hhdr)->hb_acc : NULL)
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
/* then frames.c's pair cache and pairs.c's table.  0 if none could be made.       */
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

/* p's tag: the half byte of its palette entry, from the thread's     */
/* cache if the entry there is still that tag's in p's table; else its */
/* wide table's group, if the slot's group exists (the palette would   */
/* save no memory: groups stay till the block goes); else the palette  */
/* first, then the wide table (gca_tagtab_put).  A look at the palette  */
/* on every store the cache missed, in blocks of many types, and the   */
/* group's store out of line, cost gameloop's full profile 3% more      */
/* instructions.                                                         */
GCA_ALWAYS_INLINE void tags_store(struct gca_tl *me, struct tag_tab *tb,
                                  void *p, unsigned pair)
{
  word i = tab_slot(tb, p);
  gca_tag_t t = TAG_MAKE(pair, (unsigned)GC_gc_no & TAG_BIRTH);
  struct gca_tag_cache *c = &me->t_cache[pair & (GCA_TAG_CACHE - 1)];
  unsigned e = c->idx;
  struct tag_wide *w;
  gca_tag_t *g;

  if (EXPECT(t == c->tag && GCA_LOAD(&tb->pal[e]) == t, TRUE)) {
    tab_nib_put(TAB_IDX(tb), i, e + 1);
  } else if ((w = (struct tag_wide *)ACQ_LOADP(&tb->wide)) != NULL
             && (g = (gca_tag_t *)ACQ_LOADP(&w->g[i >> TAB_GRP_LOG]))
                != NULL) {
    GCA_STORE(&g[i & (TAB_GRP - 1)], t);
    tab_nib_put(TAB_IDX(tb), i, TAB_ESC);
  } else {
    gca_tagtab_put(c, tb, i, t);
  }
}

static void tags_alloc_pair(struct gca_tl *me, void *p, hdr *hhdr,
                            word granted, int locked, unsigned pair)
{
  struct tag_tab *tb;

  gca_frames_count(me, pair, 1, granted, locked);
  tb = (struct tag_tab *)hhdr->hb_acc;
  if (EXPECT(tb != NULL && pair != 0, TRUE)) tags_store(me, tb, p, pair);
}

/* The pair of (cookie, site) in the thread's pair cache, 0 if it is  */
/* not there.                                                            */
GCA_ALWAYS_INLINE unsigned tags_pc_pair(struct gca_tl *me, word cookie,
                                        unsigned site)
{
  const struct gca_pc *c;

  if (EXPECT(NULL == me->pc, FALSE)) return 0;
  c = gca_pc_find(me->pc, me->pc_mask, cookie, site);
  if (EXPECT(NULL == c, FALSE)) return 0;
  me->pc_lookups++;
  return c->pair;
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
    /* A miss is looked up (and counted) again by gca_pair_intern_tl.  */
    if (EXPECT(frames, FALSE)) return 0;
    pair = tags_pc_pair(me, cookie, site);
    if (EXPECT(0 == pair, FALSE)) return 0;
  }
  tb = (struct tag_tab *)hhdr->hb_acc;
  if (EXPECT(tb != NULL, TRUE)) tags_store(me, tb, p, pair);
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

static GC_ATTR_NOINLINE void *tags_alloc_tl_general(struct gca_tl *me,
                                                    void *p, word granted)
{
  return tags_alloc_inline(me, p, HDR(p), granted, 0);
}

/* Tag p, of a thread-local pop, with pair (0: not found) of (cookie,   */
/* site).                                                                */
GCA_ALWAYS_INLINE void *tags_alloc_tl_pair(struct gca_tl *me, void *p,
                                           word granted, word cookie,
                                           unsigned site, unsigned pair)
{
  struct tag_tab *tb;

  if (EXPECT(0 == pair, FALSE)) {
    /* Not found without a call: intern it, the site decided.           */
    return tags_alloc_general(me, p, HDR(p), granted, 0, cookie, site);
  }
  tb = (struct tag_tab *)HDR(p)->hb_acc;
  if (EXPECT(tb != NULL, TRUE)) tags_store(me, tb, p, pair);
  return p;
}

/* The pair of (cookie, site) from the thread's caches (0: not there):  */
/* its one-entry cache, then its pair cache.                             */
GCA_ALWAYS_INLINE unsigned tags_tl_cached(struct gca_tl *me, word cookie,
                                          unsigned site)
{
  if (EXPECT(cookie == me->c_cookie && site == me->c_site, TRUE))
    return me->c_pair;
  return tags_pc_pair(me, cookie, site);
}

static GC_ATTR_NOINLINE void *tags_alloc_tl_stack(struct gca_tl *me,
                                                  void *p, word granted,
                                                  word cookie)
{
  unsigned site = gca_site_capture(granted);

  return tags_alloc_tl_pair(me, p, granted, cookie, site,
                            cookie != 0 ? tags_tl_cached(me, cookie, site)
                            : gca_pair_untyped(site));
}

/* The thread-local pop, with frame counts off: no call to find the     */
/* pair when no stack is taken (gca_pair_plain, or the thread's caches  */
/* a type given), a tail call when one is.  With frame counts on,       */
/* tags_alloc_inline.                                                    */
GC_INNER void *gca_tags_alloc_tl(struct gca_tl *me, void *p, word granted)
{
  int smode = gca_stacks_mode;
  word cookie = me->next_type;
  unsigned site;

  if (EXPECT(gca_frames_on, FALSE))
    return tags_alloc_tl_general(me, p, granted);
  if (EXPECT(cookie != 0, FALSE)) me->next_type = 0;
  if (EXPECT(GCA_STACKS_OFF == smode, TRUE)) {
    site = GCA_SITE_NONE;
  } else if (GCA_STACKS_SAMPLE == smode
             && EXPECT(gca_sample_skip(me, granted), TRUE)) {
    site = GCA_SITE_UNSAMPLED;
  } else {
    /* A stack to take (every allocation's, or a sample's: the         */
    /* countdown is as it was): a call, which this path leaves to a     */
    /* tail call so that it needs no stack frame itself.                */
    return tags_alloc_tl_stack(me, p, granted, cookie);
  }
  return tags_alloc_tl_pair(me, p, granted, cookie, site,
                            EXPECT(0 == cookie, TRUE) ? gca_pair_plain[site]
                            : tags_tl_cached(me, cookie, site));
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

/* Was tag's object born within since collections of gc_no (GC_gc_no)? */
GC_INLINE int tags_born_since(gca_tag_t tag, word gc_no, word since)
{
  return ((gc_no - (tag & TAG_BIRTH)) & TAG_BIRTH) <= since;
}

/* Was the object of tag allocated after the previous census?          */
GC_INLINE int tags_is_new(gca_tag_t tag, word since)
{
  return (tag & TAG_OLD) == 0 && tags_born_since(tag, (word)GC_gc_no, since);
}

static word tags_obj_bytes(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz <= MAXOBJBYTES ? sz : OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
}

/* An object of accumulator a, counted allocated if it is new (its     */
/* first census), and freed.  Lock held.                                */
GCA_ALWAYS_INLINE void tags_acc_alloc(struct gca_acc *a, int is_new,
                                     word bytes)
{
  if (is_new) {
    a->alloc_objs++;
    a->alloc_bytes += bytes;
  }
}

GCA_ALWAYS_INLINE void tags_acc_freed(struct gca_acc *a, int is_new,
                                     word bytes)
{
  tags_acc_alloc(a, is_new, bytes);
  a->freed_objs++;
  a->freed_bytes += bytes;
}

/* Count a tagged object as freed (and allocated if it is new); the     */
/* caller clears its tag.  Lock held.                                    */
GC_INLINE void tags_count_freed(gca_tag_t tag, int origin, ptr_t obj,
                                word bytes, word since)
{
  unsigned pair = TAG_PAIR(tag);
  struct gca_acc *a;

  if (origin != 0) pair = gca_objtype_resolve(pair, origin, obj);
  a = gca_acc_get(pair);
  if (a != NULL) tags_acc_freed(a, tags_is_new(tag, since), bytes);
}

GC_INNER void gca_tags_free(void *p)
{
  hdr *hhdr = HDR(p);
  struct tag_tab *tb = TAGS_TAB(hhdr);
  word i;
  unsigned b;
  gca_tag_t tag;

  if (NULL == tb) return;
  i = tab_slot(tb, p);
  b = tab_nib(TAB_IDX(tb), i);
  if (0 == b) return;
  tag = tab_get(tb, i, b);
  tab_nib_clear(TAB_IDX(tb), i);
  if (0 == tag) return;
  tags_count_freed(tag, gca_objtype_how(hhdr->hb_obj_kind), (ptr_t)p,
                   tags_obj_bytes(hhdr),
                   (word)GC_gc_no - tags_prev_census_gc_no);
  if (tag & TAG_OLD) gca_old_sub(TAG_PAIR(tag), tags_obj_bytes(hhdr));
}

/* ---- blocks --------------------------------------------------------------- */

/* A block h just set up, with accounting and tags on (the hook,         */
/* hooks.c, sets hb_acc NULL itself otherwise).                          */
GC_INNER void gca_tags_hblk_alloc(struct hblk *h, hdr *hhdr)
{
  (void)h;
  hhdr->hb_acc = gca_tagtab_new(hhdr);
}

/* One block's walk (a census, a block free): what every slot's work   */
/* needs, in one place, so that the walk's common case (an object that */
/* died young, its type in objtype.c's cache of words 0 and its pair's */
/* accumulator current) is a short loop with no call, and the rest a   */
/* call (tags_slot).                                                     */
struct tags_walk {
  struct hblk *h;
  hdr *hhdr;
  unsigned okey;                /* how << 24 (the objtype cache's key)  */
  int origin;                   /* gca_objtype_how of the block's kind  */
  int census;                   /* a census (else a block free)         */
  word bytes, gstride, mstride; /* an object's bytes, slot strides      */
  word since, gc_no;            /* collections since the last census    */
};

static void tags_walk_init(struct tags_walk *w, struct hblk *h, hdr *hhdr,
                           word since, int census)
{
  word sz = hhdr->hb_sz;

  w->h = h;
  w->hhdr = hhdr;
  w->origin = gca_objtype_how(hhdr->hb_obj_kind);
  w->okey = (unsigned)w->origin << 24;
  w->census = census;
  w->bytes = tags_obj_bytes(hhdr);
  w->gstride = sz > MAXOBJBYTES ? 0 : sz;
  /* Mark bit of slot s: s * mstride (MARK_BIT_NO of its offset).       */
# ifdef MARK_BIT_PER_OBJ
    w->mstride = sz > MAXOBJBYTES ? 0 : 1;
# else
    w->mstride = sz > MAXOBJBYTES ? 0 : BYTES_TO_GRANULES(sz);
# endif
  w->since = since;
  w->gc_no = (word)GC_gc_no;
}

/* A young object (not OLD) of slot s that died: counted freed (and     */
/* allocated, if new) if its pair is found without a call (the kind's  */
/* word 0 in the objtype cache, or no word 0 to read) and that pair's  */
/* accumulator is current.  0: not done, tags_slot does it.             */
GCA_ALWAYS_INLINE int tags_walk_dead(const struct tags_walk *w, word s,
                                     gca_tag_t tag)
{
  unsigned pair = TAG_PAIR(tag);
  struct gca_acc *a;

  if (w->origin != 0) {
    unsigned np = gca_objtype_cached(*(word *)((ptr_t)w->h + s * w->gstride),
                                     pair | w->okey);

    if (EXPECT(np != 0, TRUE)) {
      pair = np;
    } else if (0 == gca_pair_cookie(pair)) {
      return 0;                 /* not typed yet, word 0 not cached     */
    }                           /* else typed by an earlier census      */
  }
  if (EXPECT(pair >= gca_acc_cap, FALSE)) return 0;
  a = &gca_acc_tab[pair];
  if (EXPECT(a->stamp != gca_acc_stamp, FALSE)) return 0;
  tags_acc_freed(a, tags_born_since(tag, w->gc_no, w->since), w->bytes);
  return 1;
}

static word census_since;       /* collections since the previous census */
static unsigned census_now;     /* GC_gc_no mod 128                     */
static unsigned char age_bin_of[GCA_AGE_OLD + 1];

/* Every slot the walk's common case leaves: an OLD object, one live,  */
/* one whose pair needs a call.  Returns the slot's new tag.  Lock held. */
static GC_ATTR_NOINLINE gca_tag_t tags_slot(const struct tags_walk *w,
                                            word s, gca_tag_t tag)
{
  ptr_t obj = (ptr_t)w->h + s * w->gstride;
  word bytes = w->bytes;
  unsigned pair = TAG_PAIR(tag), np;
  struct gca_acc *a;
  word age;

  if (!w->census || !mark_bit_from_hdr(w->hhdr, s * w->mstride)) {
    tags_count_freed(tag, w->origin, obj, bytes, w->since);
    if (tag & TAG_OLD) gca_old_sub(pair, bytes);
    return 0;
  }
  if (tag & TAG_OLD) {
    /* Counted by its pair's old counts (gca_types_census_old).         */
    if (w->origin != 0) {
      np = gca_objtype_resolve(pair, w->origin, obj);
      if (np != pair && gca_old_add(np, bytes)) {
        gca_old_sub(pair, bytes);
        return TAG_MAKE(np, tag & 0xffu);
      }
    }
    return tag;
  }
  np = w->origin != 0 ? gca_objtype_resolve(pair, w->origin, obj) : pair;
  a = gca_acc_get(np);
  if (np != pair) tag = TAG_MAKE(np, tag & 0xffu);
  age = tags_age(tag);
  if (age >= GCA_AGE_OLD) {
    age = GCA_AGE_OLD;
    /* From now on (this census included) its pair's old counts hold   */
    /* it as live.                                                       */
    if (gca_old_add(np, bytes)) {
      if (a != NULL) tags_acc_alloc(a, tags_is_new(tag, w->since), bytes);
      /* Its birth is of no more use: all OLD objects of a pair share   */
      /* one palette entry.                                              */
      return TAG_MAKE(np, TAG_OLD);
    }
  }
  if (a != NULL) {
    tags_acc_alloc(a, tags_is_new(tag, w->since), bytes);
    a->live_bytes += bytes;
    gca_acc_age_add(a, np, age_bin_of[age], 1);
  }
  return tag;
}

/* Each tagged slot s of tb, a word of slot bytes at a time (16       */
/* untagged slots a load on 64-bit hosts), with b its half byte.  On a  */
/* little-endian host the word's half bytes are its slots in order, so */
/* the walk shifts the word (and leaves it at its last tagged slot);   */
/* slots tagged since it was read are left, as born after the mark.    */
/* (n and idx: the table's slots and bytes, in locals: a byte store    */
/* could alias the table's header for the compiler.)                   */
#define TAB_W_SLOTS (2 * sizeof(word))
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) \
    && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define TAB_FOR_TAGGED(n, idx, s, b) \
  for (tab_g = 0, tab_lim = (n); tab_g < tab_lim; tab_g += TAB_W_SLOTS) \
    for (memcpy(&tab_w, (idx) + tab_g / 2, sizeof(word)), (s) = tab_g; \
         tab_w != 0; (s)++, tab_w >>= 4) \
      if (((b) = (unsigned)(tab_w & 0xfu)) != 0)
#else
# define TAB_FOR_TAGGED(n, idx, s, b) \
  for (tab_g = 0; tab_g < (n); tab_g = tab_lim) \
    if ((tab_lim = tab_g + TAB_W_SLOTS < (n) ? tab_g + TAB_W_SLOTS : (n), \
         memcpy(&tab_w, (idx) + tab_g / 2, sizeof(word)), tab_w != 0)) \
      for ((s) = tab_g; (s) < tab_lim; (s)++) \
        if (((b) = tab_nib(idx, s)) != 0)
#endif

/* A block h about to be freed, with a tag table (the hook, hooks.c,    */
/* calls this only then).                                                */
GC_INNER void gca_tags_hblk_free(struct hblk *h, hdr *hhdr)
{
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;

  if (gca_on && gca_tags_on) {  /* kept while tags are off: not counted */
    word tab_g, tab_w, tab_lim, s, n = gca_tags_n_slots(hhdr);
    const unsigned char *idx = TAB_IDX(tb);
    unsigned b;
    struct tags_walk w;

    tags_walk_init(&w, h, hhdr, (word)GC_gc_no - tags_prev_census_gc_no, 0);
    TAB_FOR_TAGGED(n, idx, s, b) {
      gca_tag_t tag = tab_get(tb, s, b);

      if (0 == tag) continue;
      if (EXPECT(!(tag & TAG_OLD), TRUE)
          && EXPECT(tags_walk_dead(&w, s, tag), TRUE))
        continue;
      (void)tags_slot(&w, s, tag);
    }
  }
  gca_tagtab_release(tb);
  hhdr->hb_acc = NULL;
}

static int tags_reset_first;

static void tags_reset_visit(struct hblk *h, word dummy)
{
  hdr *hhdr = HDR(h);
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;

  (void)dummy;
  if (!gca_tags_on) {
    /* The table stays, unused, till its block is freed or tags come    */
    /* back: a thread that read hb_acc just before the switch may still */
    /* store into it (no lock on that path), and memory freed under it  */
    /* may be unmapped (gca_tagslab_trim).  tags.c's readers see no      */
    /* table while tags are off (TAGS_TAB).                              */
    if (tags_reset_first) hhdr->hb_acc = NULL;
  } else if (tags_reset_first || NULL == tb) {
    hhdr->hb_acc = gca_tagtab_new(hhdr);
  } else {
    /* Cleared, its wide groups kept (no slot's half byte points there  */
    /* now), for the same reason.                                         */
    BZERO(tb->pal, sizeof(tb->pal));
    BZERO(TAB_IDX(tb), TAB_IDX_BYTES(gca_tags_n_slots(hhdr)));
  }
}

/* Accounting goes on, or tagging is switched (lock held): every in-use */
/* block gets a clean table (none with tags off).  first: hb_acc was    */
/* not kept until now (heap tracking off, or tags never on:             */
/* GC_ACC_ON_HBLK_ALLOC), so the blocks in use may have anything there  */
/* (headers are recycled).                                               */
GC_INNER void gca_tags_reset_all(int first)
{
  tags_reset_first = first;
  GC_apply_to_all_blocks(tags_reset_visit, 0);
  gca_old_reset();
  tags_prev_census_gc_no = GC_gc_no;
}

/* ---- census ------------------------------------------------------------- */

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
/* free lists (marked slots still untagged, or born now), adding to the */
/* palette meanwhile; the census alone frees its entries, at the end.   */
GC_INNER void gca_tags_census_block(struct hblk *h, hdr *hhdr)
{
  struct tag_tab *tb = (struct tag_tab *)hhdr->hb_acc;
  unsigned char *idx;
  word tab_g, tab_w, tab_lim, s, n;
  unsigned b, e, used = 0;
  /* Slots cleared so far, and as of the last walk of a full palette  */
  /* (gca_tagtab_set).                                                  */
  word cleared = 0, mark = ~(word)0;
  struct tags_walk w;
  /* seen[b]: a slot's half byte is b (a store a slot, where a mask of */
  /* entries would take a test and a shift).                             */
  unsigned char seen[TAB_ESC + 1];

  if (NULL == tb) return;
  idx = TAB_IDX(tb);
  n = gca_tags_n_slots(hhdr);
  memset(seen, 0, TAB_PAL + 1);
  tags_walk_init(&w, h, hhdr, census_since, 1);
  TAB_FOR_TAGGED(n, idx, s, b) {
    gca_tag_t tag = tab_get(tb, s, b), nt;

    if (0 == tag) continue;
    if ((tag & (TAG_OLD | TAG_BIRTH)) == census_now) {
      seen[b] = 1;
      continue;                 /* allocated after this mark           */
    }
    if (tag & TAG_OLD) {
      /* An old object still live whose type needs no word 0: counted by */
      /* its pair's old counts, nothing to do (tags_slot's first case),   */
      /* without the call.  Most live objects of a long run.              */
      if (0 == w.origin && mark_bit_from_hdr(hhdr, s * w.mstride)) {
        seen[b] = 1;
        continue;
      }
    } else if (!mark_bit_from_hdr(hhdr, s * w.mstride)
               && EXPECT(tags_walk_dead(&w, s, tag), TRUE)) {
      /* The common case: a young object that died.                      */
      tab_nib_clear(idx, s);
      cleared++;
      continue;
    }
    nt = tags_slot(&w, s, tag);
    if (EXPECT(nt != tag, FALSE)) {
      if (0 == nt) {
        tab_nib_clear(idx, s);
        cleared++;
        continue;
      }
      b = gca_tagtab_set(tb, s, nt, &mark, cleared);
    }
    seen[b] = 1;
  }
  for (e = 0; e < TAB_PAL; e++) used |= (unsigned)seen[e + 1] << e;
  gca_tagtab_reclaim(tb, used);
}

GC_INNER void gca_tags_census_end(void)
{
  tags_prev_census_gc_no = GC_gc_no;
  gca_types_census_old();
  gca_types_fold();
  gca_tagslab_trim();
}

/* The tag of object p, for tests: its pair's cookie and site, and its */
/* birth; 0 if p has no tag.  Lock held.                                */
GC_INNER int gca_tags_of(void *p, word *cookie, unsigned *site)
{
  hdr *hhdr = HDR(p);
  struct tag_tab *tb;
  gca_tag_t tag;
  unsigned pair, b;
  word i;

  if (NULL == hhdr || HBLK_IS_FREE(hhdr)) return 0;
  tb = TAGS_TAB(hhdr);
  if (NULL == tb) return 0;
  i = tab_slot(tb, p);
  b = tab_nib(TAB_IDX(tb), i);
  if (0 == b) return 0;
  tag = tab_get(tb, i, b);
  if (0 == tag) return 0;
  pair = TAG_PAIR(tag);
  *cookie = gca_pair_cookie(pair);
  *site = gca_pair_site(pair);
  return 1;
}

/* The pairs of the tags hhdr's block has (its palette's, each once    */
/* or more), into pairs[0, GCA_TAGS_PAIRS_MAX): their number; -1 if the  */
/* block has no table; GCA_TAGS_PAIRS_MAX + 1 if its palette overflowed */
/* (some tags only in its wide table).  *untagged: some slot has none.  */
/* Entries no slot uses any more may be among them.  Lock held (for    */
/* retain.c: the objects, never read).                                   */
GC_INNER int gca_tags_block_pairs(hdr *hhdr, unsigned *pairs, int *untagged)
{
  struct tag_tab *tb;
  const unsigned char *idx;
  int n = 0, e;
  word s;

  GC_STATIC_ASSERT(TAB_PAL == GCA_TAGS_PAIRS_MAX);
  if (NULL == hhdr || HBLK_IS_FREE(hhdr)) return -1;
  tb = TAGS_TAB(hhdr);
  if (NULL == tb) return -1;
  if (ACQ_LOADP(&tb->wide) != NULL) return GCA_TAGS_PAIRS_MAX + 1;
  idx = TAB_IDX(tb);
  *untagged = 0;
  for (s = 0; s < gca_tags_n_slots(hhdr); s++) {
    if (0 == tab_nib(idx, s)) {
      *untagged = 1;
      break;
    }
  }
  for (e = 0; e < TAB_PAL; e++) {
    gca_tag_t t = GCA_LOAD(&tb->pal[e]);

    if (t != 0) pairs[n++] = TAG_PAIR(t);
  }
  return n;
}

#endif /* !GC_ACC_DISABLE */
