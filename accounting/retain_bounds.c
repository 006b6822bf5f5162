/* SPDX-License-Identifier: MIT */
/*
 * retain_bounds.c: a retention walk's bounds (retain.c): its memory,
 * OS pages counted within a cap (GC_ACC_RETAIN_MEMORY, 64 MiB by
 * default), in segmented arrays mapped a segment at a time; and the
 * settings of both bounds, the memory cap and the pause
 * (GC_ACC_RETAIN_PAUSE; 0: twice the collection's marking).  Lock held.
 *
 * And what the walk takes from the collector, world stopped: whether a
 * word is a reference to a marked object as the collector would take
 * it, whether a block may hold an instance asked for (from its tags'
 * palette) and whether an object is one.  retain.c asks only for the
 * roots' words and for a block it has no record of yet; once it has,
 * a reference into the block is resolved from the record alone.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"

#define RETAIN_DEFAULT_MEMORY ((word)64 << 20)

static word retain_memory = RETAIN_DEFAULT_MEMORY;
static unsigned retain_pause_ms = 0;    /* 0: twice the marking        */

GC_INNER void gca_retain_set_memory(size_t bytes)
{
  retain_memory = 0 == bytes ? RETAIN_DEFAULT_MEMORY : (word)bytes;
}

GC_INNER word gca_retain_memory(void) { return retain_memory; }

GC_INNER void gca_retain_set_pause(unsigned ms) { retain_pause_ms = ms; }
GC_INNER unsigned gca_retain_pause(void) { return retain_pause_ms; }

/* Memory for a table, within the cap; NULL (and over) if not.          */
GC_INNER void *gca_rmem_alloc(struct gca_rmem *m, word bytes)
{
  void *p;

  if (m->bytes + bytes > m->cap) {
    m->over = 1;
    return NULL;
  }
  p = gca_os_alloc((size_t)bytes);
  if (NULL == p) {
    m->over = 1;
    return NULL;
  }
  m->bytes += bytes;
  if (m->bytes > m->peak) m->peak = m->bytes;
  return p;
}

GC_INNER void gca_rmem_free(struct gca_rmem *m, void *p, word bytes)
{
  if (NULL == p) return;
  gca_os_free(p, (size_t)bytes);
  m->bytes -= bytes;
}

/* A segmented array: its table of segments (zeroed pages), each       */
/* segment mapped when first needed.                                     */
GC_INNER int gca_rseg_init(struct gca_rmem *m, struct gca_rseg *s,
                           size_t elem)
{
  s->n = 0;
  s->elem = elem;
  s->max_seg = m->cap / ((word)elem << GCA_RS_LOG) + 1;
  s->seg = (char **)gca_rmem_alloc(m, s->max_seg * sizeof(char *));
  return s->seg != NULL;
}

/* Segment k of s mapped (0: the cap, over).                            */
GC_INNER int gca_rseg_map(struct gca_rmem *m, struct gca_rseg *s, word k)
{
  if (k >= s->max_seg) {
    m->over = 1;
    return 0;
  }
  if (NULL == s->seg[k])
    s->seg[k] = (char *)gca_rmem_alloc(m, (word)s->elem << GCA_RS_LOG);
  return s->seg[k] != NULL;
}

/* n elements in one piece (n at most a segment's 2^GCA_RS_LOG), going */
/* on to the next segment when the current one has less room; NULL:    */
/* the cap (over).                                                       */
GC_INNER void *gca_rseg_take(struct gca_rmem *m, struct gca_rseg *s, word n)
{
  word i = s->n, room = ((word)1 << GCA_RS_LOG) - (i & GCA_RS_MASK);

  if ((i & GCA_RS_MASK) != 0 && n > room) i += room;
  if (!gca_rseg_map(m, s, i >> GCA_RS_LOG)) return NULL;
  s->n = i + n;
  return GCA_RSEG_AT(s, i);
}

/* The next element of s, starting a segment (NULL: the cap, or ids    */
/* run out; over).                                                       */
GC_INNER void *gca_rseg_push_slow(struct gca_rmem *m, struct gca_rseg *s)
{
  word k = s->n >> GCA_RS_LOG;

  if (s->n >= (word)GCA_RNONE - ((word)2 << GCA_RS_LOG)
      || !gca_rseg_map(m, s, k)) {
    m->over = 1;
    return NULL;
  }
  k = s->n++;
  return GCA_RSEG_AT(s, k);
}

GC_INNER void gca_rseg_free(struct gca_rmem *m, struct gca_rseg *s)
{
  word k;

  if (NULL == s->seg) return;
  for (k = 0; k < s->max_seg; k++)
    gca_rmem_free(m, s->seg[k], (word)s->elem << GCA_RS_LOG);
  gca_rmem_free(m, s->seg, s->max_seg * sizeof(char *));
  s->seg = NULL;
}

/* The base of the marked object w refers to, as the collector takes     */
/* references (interior ones from stacks; elsewhere only at valid       */
/* displacements unless all interior pointers are recognized); NULL if  */
/* none.  From the header, as the marker finds it (GC_base only past a  */
/* large object's first block).                                          */
GC_INNER ptr_t gca_rref_target(word w, int interior, hdr **hh)
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
      word k = (unsigned)off / (unsigned)sz;    /* both under HBLKSIZE  */

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

/* A per-object descriptor's (GC_DS_PER_OBJECT) descriptor of the       */
/* object at base, as the marker reads it (0: none).                     */
GC_INNER word gca_rref_per_object(ptr_t base, word descr)
{
  ptr_t type_descr;

  if ((signed_word)descr >= 0)
    return *(word *)(base + descr - GC_DS_PER_OBJECT);
  type_descr = *(ptr_t *)base;
  if (NULL == type_descr) return 0;
  return *(word *)(type_descr - ((signed_word)descr + (GC_INDIR_PER_OBJ_BIAS
                                                       - GC_DS_PER_OBJECT)));
}

/* Whether the marked object at base is an instance w asks for.        */
GC_INNER int gca_rref_is_instance(const struct gca_rwalk *w, ptr_t base,
                                  hdr *hhdr)
{
  word c = 0;
  unsigned i, site = 0;
  int tagged = gca_tags_of(base, &c, &site);

  if (w->site) return tagged && site == w->cookies[0];
  if (!tagged || 0 == c) {
    if (hhdr->hb_obj_kind >= MAXOBJKINDS
        || 0 == gca_objtype_how(hhdr->hb_obj_kind))
      return 0;
    c = *(word *)base;          /* a class the census knew: no check   */
  }
  for (i = 0; c != 0 && i < w->n_cookies; i++) {
    if (w->cookies[i] == c) return 1;
  }
  return 0;
}

/* Whether hhdr's block may hold an instance w asks for, from its tags' */
/* palette (tags.c), not its objects: no tag of a type (callsite) asked */
/* for, no untagged object of a kind typed by word 0: none can be.      */
GC_INNER unsigned gca_rref_block_may(const struct gca_rwalk *w, hdr *hhdr)
{
  unsigned pairs[GCA_TAGS_PAIRS_MAX], i, j;
  int untagged = 0, n = gca_tags_block_pairs(hhdr, pairs, &untagged);
  int word0 = hhdr->hb_obj_kind < MAXOBJKINDS
              && gca_objtype_how(hhdr->hb_obj_kind) != 0;

  if (n < 0) return !w->site && word0;          /* no table            */
  if (n > GCA_TAGS_PAIRS_MAX) return 1;         /* too many to tell     */
  if (untagged && word0 && !w->site) return 1;
  for (i = 0; i < (unsigned)n; i++) {
    word c = gca_pair_cookie(pairs[i]);

    if (w->site) {
      if (gca_pair_site(pairs[i]) == w->cookies[0]) return 1;
      continue;
    }
    if (0 == c && word0) return 1;              /* typed by word 0      */
    for (j = 0; j < w->n_cookies; j++)
      if (w->cookies[j] == c) return 1;
  }
  return 0;
}

#endif /* !GC_ACC_DISABLE */
