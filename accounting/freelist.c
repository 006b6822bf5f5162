/*
 * freelist.c: the free heap-block lists (GC_hblkfreelist), kept in books.
 *
 * Maintained incrementally from the free-list hooks, never by walking the
 * lists when a record is written: free blocks and bytes per free-list index
 * and mapped versus unmapped.  The books are built once by walking the
 * lists when accounting is switched on (gca_freelist_rebuild), then kept
 * by the hooks.  All entry points run with the allocation lock held.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

GC_INNER struct gca_freelist_books gca_fl;

static void freelist_note(hdr *hhdr, int index, int sign)
{
  word sz = hhdr->hb_sz;

  if (sign > 0) {
    gca_fl.blocks[index]++;
    gca_fl.bytes[index] += sz;
  } else {
    gca_fl.blocks[index]--;
    gca_fl.bytes[index] -= sz;
  }
  if ((hhdr->hb_flags & WAS_UNMAPPED) != 0) {
    if (sign > 0) gca_fl.unmapped_bytes[index] += sz;
    else gca_fl.unmapped_bytes[index] -= sz;
  }
}

GC_INNER void gca_freelist_add(hdr *hhdr, int index)
{
  freelist_note(hhdr, index, 1);
}

GC_INNER void gca_freelist_del(hdr *hhdr, int index)
{
  freelist_note(hhdr, index, -1);
}

GC_INNER void gca_freelist_split(hdr *hhdr, word h_size, int index)
{
  /* The block stays on list index, h_size bytes shorter; the split-off */
  /* head comes back through gca_freelist_add.                          */
  gca_fl.bytes[index] -= h_size;
  if ((hhdr->hb_flags & WAS_UNMAPPED) != 0)
    gca_fl.unmapped_bytes[index] -= h_size;
}

/* allchblk.c's GC_hblk_fl_from_blocks, which is static there.  The    */
/* rebuild walk checks that the two agree (GC_ASSERT in freelist_visit). */
GC_INNER int gca_freelist_index(word blocks)
{
  if (blocks <= GCA_UNIQUE_THRESHOLD) return (int)blocks;
  if (blocks >= GCA_HUGE_THRESHOLD) return GCA_N_HBLK_FLS;
  return (int)(blocks - GCA_UNIQUE_THRESHOLD) / GCA_FL_COMPRESSION
         + GCA_UNIQUE_THRESHOLD;
}

GC_INNER void gca_freelist_unmap(hdr *hhdr, int unmapped)
{
  int index = gca_freelist_index(divHBLKSZ(hhdr->hb_sz));

  if (unmapped) gca_fl.unmapped_bytes[index] += hhdr->hb_sz;
  else gca_fl.unmapped_bytes[index] -= hhdr->hb_sz;
}

static void freelist_visit(struct hblk *h, word dummy)
{
  hdr *hhdr = HDR(h);

  (void)dummy;
  if (HBLK_IS_FREE(hhdr))
    freelist_note(hhdr, gca_freelist_index(divHBLKSZ(hhdr->hb_sz)), 1);
}

GC_INNER void gca_freelist_rebuild(void)
{
  BZERO(&gca_fl, sizeof(gca_fl));
  GC_apply_to_all_blocks(freelist_visit, 0);
}

#endif /* !GC_ACC_DISABLE */
