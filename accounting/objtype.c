/* SPDX-License-Identifier: MIT */
/*
 * objtype.c: the type of an object, where it is known without a tag.
 *
 * Two sources, below both per-object tags (tags.c, the full profile) and
 * allocation samples (samples.c, the sampled profile), which share them:
 *
 *  - the explicit next type (GC_acc_set_next_type and the *_typed calls),
 *    a word of the allocating thread's gca_tl_self, taken by its next
 *    allocation;
 *  - word 0 of objects of kinds that start with their type: gcj objects
 *    (the vtable), kinds named by GC_ACC_FIRST_WORD_TYPES, and in the
 *    il2cpp type mode (GC_ACC_TYPES=il2cpp) PTRFREE, NORMAL, gcj and the
 *    kinds of gca_objtype_add_class_kind, whose word 0 must be an
 *    Il2CppClass (checked by classes.c without dereferencing it).  Word 0
 *    is read when a census, a GC_free or a block free first meets the
 *    object (never at allocation, where it is not yet written), and only
 *    if it does not point into the collector's heap (a free-list link).
 *    A word that is no class gets its kind's "unknown (<kind>)" type.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind */
#endif

static unsigned objtype_first_word_kinds = 0;   /* kind bit mask       */
static int objtype_mode = GCA_TYPES_COOKIES;
static unsigned objtype_class_kinds = 0;  /* il2cpp mode: more kinds    */


GC_INNER void gca_objtype_set_next(word cookie)
{
  gca_tl_self.next_type = cookie;
}

GC_INNER word gca_objtype_take_next(void)
{
  struct gca_tl *me = &gca_tl_self;
  word c = me->next_type;

  me->next_type = 0;
  return c;
}

GC_INNER unsigned gca_objtype_first_word_kinds(void)
{
  return objtype_first_word_kinds;
}

GC_INNER void gca_objtype_set_first_word_kinds(unsigned mask)
{
  objtype_first_word_kinds = mask;
}

GC_INNER int gca_objtype_mode(void)
{
  return objtype_mode;
}

GC_INNER void gca_objtype_set_mode(int mode)
{
  objtype_mode = mode;
  gca_objtype_heap_grew();         /* cached words meant something else   */
}

GC_INNER GC_ATTR_UNUSED void gca_objtype_add_class_kind(unsigned kind,
                                            const char *name)
{
  if (kind >= 32) return;
  objtype_class_kinds |= 1u << kind;
  gca_class_set_kind_name(kind, name);
}

/* Does word 0 of objects of kind k name their type?  0 if not, else    */
/* how: its origin (GCA_TYPE_*) | k << 3 (the kind of "unknown").       */
#define HOW(origin, k) ((origin) | (int)((k) & 31) << 3)
#define HOW_ORIGIN(how) ((how) & 7)
#define HOW_KIND(how) ((unsigned)(how) >> 3)
GC_INNER int gca_objtype_how(unsigned k)
{
  if (GCA_TYPES_IL2CPP == objtype_mode) {
    /* Unity's gcj-vector kind (GC_ACC_ON_GCJ_KIND) holds arrays whose  */
    /* word 0 is their class, as gcj objects.                             */
    if (PTRFREE == k || NORMAL == k
        || (k < 32 && (((objtype_class_kinds | gca_gcj_kinds) >> k) & 1) != 0))
      return HOW(GCA_TYPE_IL2CPP, k);
#   ifdef GC_GCJ_SUPPORT
      if (GC_gcj_kind != 0 && k == (unsigned)GC_gcj_kind)
        return HOW(GCA_TYPE_IL2CPP, k);
#   endif
  }
# ifdef GC_GCJ_SUPPORT
    /* 0 until GC_init_gcj_malloc made the kind.  (The debug kind's     */
    /* objects start with a debug header, not the vtable.)              */
    if (GC_gcj_kind != 0 && k == (unsigned)GC_gcj_kind)
      return HOW(GCA_TYPE_GCJ, k);
# endif
  /* Other gcj-style kinds (Unity's gcj-vector kind, GC_ACC_ON_GCJ_KIND). */
  if (k < 32 && ((gca_gcj_kinds >> k) & 1) != 0)
    return HOW(GCA_TYPE_GCJ, k);
  if (k < 32 && ((objtype_first_word_kinds >> k) & 1) != 0)
    return HOW(GCA_TYPE_FIRST_WORD, k);
  return 0;
}

/* What gca_objtype_resolve found, direct-mapped by (word 0, pair, how): a      */
/* census meets the same classes over and over (IL2CPP: every object's  */
/* word 0 is its class), and one compare here replaces the header       */
/* lookup that tells a class from a free-list link and the probe of the */
/* pair table.  Only made pairs are kept (a pair never changes); the     */
/* cache is cleared whenever the heap grows, so a word 0 that was not a  */
/* heap address when it was cached still is not.  OS memory, made on    */
/* first use with 2^GCA_OBJTYPE_LOG_SAMPLES entries, and made four times */
/* larger (up to 2^GCA_OBJTYPE_LOG) each time it has missed twice its   */
/* size since the last time: a program with few classes keeps a small    */
/* one.  Lock held throughout.                                           */
#define RESOLVE_BYTES (sizeof(struct gca_objtype_ent) \
                       << (CPP_WORDSZ - gca_objtype_shift))
GC_INNER struct gca_objtype_ent *gca_objtype_cache = NULL;
GC_INNER unsigned gca_objtype_shift = CPP_WORDSZ - GCA_OBJTYPE_LOG;
static int objtype_cache_failed = 0;
static word objtype_cache_misses = 0;   /* since it was made or grew   */

GC_INNER word gca_objtype_memory_bytes(void)
{
  return gca_objtype_cache != NULL ? RESOLVE_BYTES : 0;
}

/* The heap grew (lock held): a cached word 0 may be a heap address now. */
GC_INNER void gca_objtype_heap_grew(void)
{
  if (gca_objtype_cache != NULL) BZERO(gca_objtype_cache, RESOLVE_BYTES);
}

/* gca_objtype_resolve past its cache: word 0 is w, not cached under key. */
GC_INNER GC_ATTR_NOINLINE unsigned gca_objtype_resolve_slow(unsigned pair,
                                    int how, word w, unsigned key)
{
  struct gca_objtype_ent *e = gca_objtype_cache != NULL
                              ? gca_objtype_slot(w, key) : NULL;
  unsigned np;
  int origin = HOW_ORIGIN(how);
  word cookie = w;

  if (gca_pair_cookie(pair) != 0) return pair;  /* typed already        */
  if (HDR(w) != 0) return pair;                 /* a free-list link     */
  if (GCA_TYPE_IL2CPP == origin) {
    /* Read (never dereferenced) by classes.c: a class, or its kind's  */
    /* unknown type.                                                    */
    if (!gca_class_valid(w)) {
      cookie = gca_class_unknown(HOW_KIND(how));
      origin = GCA_TYPE_UNKNOWN;
    }
  } else if (GCA_TYPE_FIRST_WORD == origin) {
    /* Word 0 of a kind that also holds other data (NORMAL in IL2CPP):  */
    /* only a plausible user-space data pointer is taken as a class.   */
    if ((w & (sizeof(word) - 1)) != 0 || w < 4096) return pair;
#   if CPP_WORDSZ == 64
      if ((w >> 47) != 0) return pair;
#   endif
  }
  np = gca_pair_intern(cookie, gca_pair_site(pair), origin);
  if (0 == np) return pair;
  if (NULL == e && !objtype_cache_failed) {
    gca_objtype_shift = CPP_WORDSZ - GCA_OBJTYPE_LOG_SAMPLES;
    gca_objtype_cache = (struct gca_objtype_ent *)gca_os_alloc(
                                                        RESOLVE_BYTES);
    if (NULL == gca_objtype_cache) {
      objtype_cache_failed = 1;    /* runs on without the cache   */
    } else {
      e = gca_objtype_slot(w, key);
    }
  } else if (e != NULL
             && ++objtype_cache_misses > 2 * ((word)1 << (CPP_WORDSZ
                                                  - gca_objtype_shift))
             && CPP_WORDSZ - gca_objtype_shift < GCA_OBJTYPE_LOG) {
    struct gca_objtype_ent *old = gca_objtype_cache;
    word old_bytes = RESOLVE_BYTES;
    struct gca_objtype_ent *nc;

    objtype_cache_misses = 0;
    gca_objtype_shift -= 2;
    nc = (struct gca_objtype_ent *)gca_os_alloc(RESOLVE_BYTES);
    if (NULL == nc) {
      gca_objtype_shift += 2;       /* stays as it is                 */
    } else {
      gca_objtype_cache = nc;       /* starts empty                   */
      gca_os_free(old, old_bytes);
      e = gca_objtype_slot(w, key);
    }
  }
  if (e != NULL) {
    e->cookie = w;
    e->key = key;
    e->pair = np;
  }
  return np;
}

#endif /* !GC_ACC_DISABLE */
