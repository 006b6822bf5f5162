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
 * census then sets OLD, and the object stays in the 32+ age bin.
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

#define TAG_OLD 0x80u
#define TAG_BIRTH 0x7fu
#define TAG_PAIR(t) ((t) >> 8)
#define TAG_MAKE(pair, low) (((unsigned)(pair) << 8) | (low))

typedef unsigned gca_tag_t;     /* 32 bits on every target bdwgc has   */

static GCA_TLS word tags_next_type = 0;
static unsigned tags_first_word_kinds = 0;      /* kind bit mask       */
static word tags_prev_census_gc_no = 0;

/* ---- slab allocator for the tables ------------------------------------ */

#define SLAB_UNIT 16            /* table sizes are multiples of this    */
/* 16 tables of the largest class (16 KiB with 4 KiB blocks).        */
#define SLAB_CHUNK ((size_t)16 * SLAB_MAX_SLOTS * sizeof(gca_tag_t))
#define SLAB_MAX_SLOTS (HBLKSIZE / GRANULE_BYTES)
#define SLAB_N_CLASSES ((SLAB_MAX_SLOTS * sizeof(gca_tag_t) + SLAB_UNIT - 1) \
                        / SLAB_UNIT + 1)

static void *slab_free[SLAB_N_CLASSES];
static char *slab_cur = NULL;
static size_t slab_left = 0;
static word slab_mapped = 0;    /* bytes taken from the OS             */
static word slab_in_use = 0;    /* bytes in live tables                */

static word tags_n_slots(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz > MAXOBJBYTES ? 1 : HBLK_OBJS(sz);
}

static unsigned slab_class(word n_slots)
{
  return (unsigned)((n_slots * sizeof(gca_tag_t) + SLAB_UNIT - 1)
                    / SLAB_UNIT);
}

static gca_tag_t *slab_alloc(word n_slots)
{
  unsigned c = slab_class(n_slots);
  size_t bytes = (size_t)c * SLAB_UNIT;
  void *p = slab_free[c];

  if (p != NULL) {
    slab_free[c] = *(void **)p;
    BZERO(p, bytes);
  } else {
    if (slab_left < bytes) {
      slab_cur = (char *)gca_os_alloc(SLAB_CHUNK);
      if (NULL == slab_cur) {
        slab_left = 0;
        return NULL;
      }
      slab_mapped += SLAB_CHUNK;
      slab_left = SLAB_CHUNK;   /* the rest of the old chunk is lost   */
    }
    p = slab_cur;
    slab_cur += bytes;
    slab_left -= bytes;
    /* Our statics are roots to the collector (libgc's data is scanned): */
    /* a pointer just past our mapping may be a heap block's address.  */
    if (0 == slab_left) slab_cur = NULL;
  }
  slab_in_use += bytes;
  return (gca_tag_t *)p;
}

static void slab_release(gca_tag_t *t, word n_slots)
{
  unsigned c = slab_class(n_slots);

  *(void **)t = slab_free[c];
  slab_free[c] = t;
  slab_in_use -= (word)c * SLAB_UNIT;
}

GC_INNER word gca_tags_memory_bytes(void)
{
  return slab_mapped;
}

GC_INNER word gca_tags_in_use_bytes(void)
{
  return slab_in_use;
}

/* ---- settings ---------------------------------------------------------- */

GC_INNER void gca_tags_set_next_type(word cookie)
{
  tags_next_type = cookie;
}

GC_INNER word gca_tags_take_next_type(void)
{
  word c = tags_next_type;

  tags_next_type = 0;
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

/* The pair of a tagged object, with its type read from word 0 if its   */
/* kind says so and it has none yet.  Lock held.                        */
static unsigned tags_resolve(unsigned pair, hdr *hhdr, ptr_t obj)
{
  int origin;
  word w;
  unsigned np;

  if (gca_pair_cookie(pair) != 0) return pair;
  origin = tags_resolvable_kind(hhdr->hb_obj_kind);
  if (0 == origin) return pair;
  w = *(word *)obj;
  if (0 == w || HDR(w) != 0) return pair;       /* nothing, or a link */
  if (GCA_TYPE_FIRST_WORD == origin) {
    /* Word 0 of a kind that also holds other data (NORMAL in IL2CPP):  */
    /* only a plausible user-space data pointer is taken as a class.   */
    if ((w & (sizeof(word) - 1)) != 0 || w < 4096) return pair;
#   if CPP_WORDSZ == 64
      if ((w >> 47) != 0) return pair;
#   endif
  }
  np = gca_pair_intern(w, gca_pair_site(pair), origin);
  return np != 0 ? np : pair;
}

/* ---- allocation ---------------------------------------------------------- */

/* Slot index of object p in its block.                                 */
static word tags_slot(void *p, hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  if (sz > MAXOBJBYTES) return 0;
  return ((word)p - (word)HBLKPTR(p)) / sz;
}

GC_INNER void gca_tags_alloc(void *p, hdr *hhdr, word granted, int locked)
{
  word cookie = tags_next_type;
  unsigned site, pair;
  gca_tag_t *t;

  tags_next_type = 0;
  site = gca_site_capture(granted);
  pair = gca_pair_intern(cookie, site,
                         cookie != 0 ? GCA_TYPE_EXPLICIT : 0);
  gca_types_frame_count(pair, granted, locked);
  t = (gca_tag_t *)hhdr->hb_acc;
  if (t != NULL && pair != 0)
    GCA_STORE(&t[tags_slot(p, hhdr)],
              TAG_MAKE(pair, (unsigned)GC_gc_no & TAG_BIRTH));
}

/* Every object of a list handed out by GC_generic_malloc_many (one    */
/* callsite and type for all; objects may come from several blocks).   */
GC_INNER void gca_tags_alloc_list(void *list, word granted)
{
  word cookie = tags_next_type;
  unsigned site, pair, low = (unsigned)GC_gc_no & TAG_BIRTH;
  void *q;

  tags_next_type = 0;
  site = gca_site_capture(granted);
  pair = gca_pair_intern(cookie, site, cookie != 0 ? GCA_TYPE_EXPLICIT : 0);
  for (q = list; q != NULL; q = obj_link(q)) {
    hdr *hhdr = HDR(q);
    gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;

    gca_types_frame_count(pair, granted, 0);
    if (t != NULL && pair != 0)
      GCA_STORE(&t[tags_slot(q, hhdr)], TAG_MAKE(pair, low));
  }
}

/* Undo the tag of p (an object handed back before its owner saw it).  */
GC_INNER void gca_tags_untag(void *p)
{
  hdr *hhdr = HDR(p);
  gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;

  if (t != NULL) GCA_STORE(&t[tags_slot(p, hhdr)], 0);
}

/* Age (collections survived before this one) of a tag; lock held.     */
static word tags_age(gca_tag_t tag)
{
  return ((word)GC_gc_no - (tag & TAG_BIRTH) - 1) & TAG_BIRTH;
}

/* Was the object of tag allocated after the previous census?          */
static int tags_is_new(gca_tag_t tag)
{
  word d = ((word)GC_gc_no - (tag & TAG_BIRTH)) & TAG_BIRTH;

  return (tag & TAG_OLD) == 0
         && d <= (word)GC_gc_no - tags_prev_census_gc_no;
}

static word tags_obj_bytes(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz <= MAXOBJBYTES ? sz : OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
}

/* Count the object in slot i as freed and clear its tag; lock held.   */
static void tags_count_freed(gca_tag_t *t, word i, hdr *hhdr, ptr_t obj)
{
  gca_tag_t tag = t[i];
  unsigned pair;
  word bytes = tags_obj_bytes(hhdr);

  if (0 == tag) return;
  pair = tags_resolve(TAG_PAIR(tag), hhdr, obj);
  if (tags_is_new(tag)) gca_types_count_alloc(pair, bytes);
  gca_types_count_freed(pair, bytes);
  t[i] = 0;
}

GC_INNER void gca_tags_free(void *p)
{
  hdr *hhdr = HDR(p);
  gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;

  if (t != NULL) tags_count_freed(t, tags_slot(p, hhdr), hhdr, (ptr_t)p);
}

/* ---- blocks --------------------------------------------------------------- */

GC_INNER void gca_tags_hblk_alloc(struct hblk *h, hdr *hhdr)
{
  (void)h;
  hhdr->hb_acc = gca_on ? slab_alloc(tags_n_slots(hhdr)) : NULL;
}

GC_INNER void gca_tags_hblk_free(struct hblk *h, hdr *hhdr)
{
  gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;
  word i, n, sz;

  if (NULL == t) return;
  n = tags_n_slots(hhdr);
  sz = hhdr->hb_sz;
  if (gca_on) {
    for (i = 0; i < n; i++) {
      if (t[i] != 0)
        tags_count_freed(t, i, hhdr, (ptr_t)h + (sz > MAXOBJBYTES ? 0
                                                 : i * sz));
    }
  }
  slab_release(t, n);
  hhdr->hb_acc = NULL;
}

static int tags_reset_first;

static void tags_reset_visit(struct hblk *h, word dummy)
{
  hdr *hhdr = HDR(h);
  gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;

  (void)dummy;
  if (tags_reset_first || NULL == t)
    hhdr->hb_acc = slab_alloc(tags_n_slots(hhdr));
  else
    BZERO(t, tags_n_slots(hhdr) * sizeof(gca_tag_t));
}

/* Accounting goes on (lock held): every in-use block gets a clean      */
/* table.  first: heap tracking was off until now, so hb_acc of the     */
/* blocks in use may be anything (headers are recycled).                */
GC_INNER void gca_tags_reset_all(int first)
{
  tags_reset_first = first;
  GC_apply_to_all_blocks(tags_reset_visit, 0);
  tags_prev_census_gc_no = GC_gc_no;
}

/* ---- census ------------------------------------------------------------- */

static void tags_census_visit(struct hblk *h, word dummy)
{
  hdr *hhdr = HDR(h);
  gca_tag_t *t = (gca_tag_t *)hhdr->hb_acc;
  word sz = hhdr->hb_sz, n, i, bytes;
  unsigned now = (unsigned)GC_gc_no & TAG_BIRTH;

  (void)dummy;
  if (NULL == t) return;
  n = tags_n_slots(hhdr);
  bytes = tags_obj_bytes(hhdr);
  for (i = 0; i < n; i++) {
    gca_tag_t tag = t[i];
    unsigned pair;
    ptr_t obj;
    int marked;

    if (0 == tag) continue;
    if ((tag & TAG_OLD) == 0 && (tag & TAG_BIRTH) == now)
      continue;                 /* allocated after this mark           */
    obj = (ptr_t)h + (sz > MAXOBJBYTES ? 0 : i * sz);
    marked = sz > MAXOBJBYTES ? mark_bit_from_hdr(hhdr, 0) != 0
             : mark_bit_from_hdr(hhdr, MARK_BIT_NO(i * sz, sz)) != 0;
    if (!marked) {
      tags_count_freed(t, i, hhdr, obj);
      continue;
    }
    pair = TAG_PAIR(tag);
    {
      unsigned np = tags_resolve(pair, hhdr, obj);
      word age;

      if (np != pair) {
        pair = np;
        tag = TAG_MAKE(np, tag & 0xffu);
      }
      if (tags_is_new(tag)) gca_types_count_alloc(pair, bytes);
      if (tag & TAG_OLD) {
        age = GCA_AGE_OLD;
      } else {
        age = tags_age(tag);
        if (age >= GCA_AGE_OLD) tag |= TAG_OLD;
      }
      gca_types_count_live(pair, bytes, gca_age_bin(age));
      if (tag != t[i]) t[i] = tag;
    }
  }
}

GC_INNER void gca_tags_census(void)
{
  gca_types_census_begin();
  GC_apply_to_all_blocks(tags_census_visit, 0);
  tags_prev_census_gc_no = GC_gc_no;
}

/* The tag of object p, for tests: its pair's cookie and site, and its */
/* birth; 0 if p has no tag.  Lock held.                                */
GC_INNER int gca_tags_of(void *p, word *cookie, unsigned *site)
{
  hdr *hhdr = HDR(p);
  gca_tag_t *t, tag;
  unsigned pair;

  if (NULL == hhdr || HBLK_IS_FREE(hhdr)) return 0;
  t = (gca_tag_t *)hhdr->hb_acc;
  if (NULL == t) return 0;
  tag = t[tags_slot(p, hhdr)];
  if (0 == tag) return 0;
  pair = TAG_PAIR(tag);
  *cookie = gca_pair_cookie(pair);
  *site = gca_pair_site(pair);
  return 1;
}

#endif /* !GC_ACC_DISABLE */
