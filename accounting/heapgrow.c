/* SPDX-License-Identifier: MIT */
/*
 * heapgrow.c: heap growth events.
 *
 * Remembers the last heap-block request no free block could satisfy
 * (GC_allochblk's end, when it found none) until a block is handed out;
 * when the heap grows (GC_add_to_heap), records that request as the one
 * that forced the growth, together with the free-block books at that
 * moment (free bytes, largest free block: read from freelist.c's
 * incremental books, never by walking the lists), the bytes added and
 * the heap size after.  Events wait in a bounded array (in gca_tables,
 * OS memory, not static data: the collector scans static data as roots
 * and paces its collections by its size) until the next record takes
 * them; more than GCA_MAX_GROWS between two records are counted as lost.
 * Lock held throughout; no allocation at all.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

static unsigned grow_n = 0;
static word grow_lost = 0;
GC_INNER struct gca_grow_event gca_last_grow;

static int grow_req_pending = 0;
static word grow_req_bytes = 0;
static int grow_req_kind = -1;

GC_INNER void gca_heapgrow_unmet(size_t sz, int kind, unsigned flags)
{
  (void)flags;
  grow_req_pending = 1;
  grow_req_bytes = (word)sz;
  grow_req_kind = kind;
}

GC_INNER void gca_heapgrow_satisfied(void)
{
  grow_req_pending = 0;
}

GC_INNER void gca_heapgrow_note(struct hblk *p, size_t bytes)
{
  struct gca_grow_event e;
  const struct gca_freelist_books *fl = gca_freelist_read();

  (void)p;
  e.t_ns = gca_now_ns();
  e.req_bytes = grow_req_pending ? grow_req_bytes : 0;
  e.req_kind = grow_req_pending ? (signed_word)grow_req_kind : -1;
  e.free_bytes = fl->total_bytes;
  e.largest_free_bytes = fl->largest_bytes;
  e.grow_bytes = (word)bytes;
  e.heap_bytes_after = GC_heapsize + (word)bytes;
  gca_last_grow = e;
  /* The heap is tracked once the tables are made (control.c).         */
  if (grow_n < GCA_MAX_GROWS && gca_tables != NULL)
    gca_tables->grows[grow_n++] = e;
  else grow_lost++;
}

/* A record that took n events and lost's count was dropped: counted   */
/* as lost in the next record.                                           */
GC_INNER void gca_heapgrow_untake(unsigned n, word lost)
{
  grow_lost += (word)n + lost;
}

GC_INNER const struct gca_grow_event *gca_heapgrow_take(unsigned *n,
                                                        word *lost)
{
  *n = grow_n;
  *lost = grow_lost;
  grow_n = 0;
  grow_lost = 0;
  return *n != 0 ? gca_tables->grows : NULL;
}

#endif /* !GC_ACC_DISABLE */
