/* SPDX-License-Identifier: MIT */
/*
 * gca_tagtab.h: a block's tag table, and the slab allocator that carves
 * the tables from OS pages (tagslab.c).  Shared by tags.c and tagslab.c
 * only.
 */
#ifndef GCA_TAGTAB_H
#define GCA_TAGTAB_H

typedef unsigned gca_tag_t;     /* 32 bits on every target bdwgc has   */

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
/* Most slots a block has (one-granule objects).                         */
#define SLAB_MAX_SLOTS (HBLKSIZE / GRANULE_BYTES)

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


/* ---- tagslab.c --------------------------------------------------------- */
/* Slots of a block of hhdr's geometry (one for a large object).        */
GC_INLINE word gca_tags_n_slots(hdr *hhdr)
{
  word sz = hhdr->hb_sz;

  return sz > MAXOBJBYTES ? 1 : HBLK_OBJS(sz);
}
/* A zeroed table of n_slots tags (tb->slab, ->n, ->tags set), or NULL. */
GC_INNER struct tag_tab *gca_tagslab_alloc(word n_slots);
GC_INNER void gca_tagslab_release(struct tag_tab *tb);
/* Return empty slabs to the OS beyond a slack.  Lock held.             */
GC_INNER void gca_tagslab_trim(void);
GC_INNER word gca_tagslab_mapped_bytes(void);   /* taken from the OS    */
GC_INNER word gca_tagslab_in_use_bytes(void);   /* in live tables       */

#endif /* GCA_TAGTAB_H */
