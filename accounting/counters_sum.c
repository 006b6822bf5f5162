/* SPDX-License-Identifier: MIT */
/*
 * counters_sum.c: the readers' side of counters.c's records: the counts
 * of every thread summed by kind and size class, the pages the records
 * take, and the debug allocations.
 *
 * A sum adds each record's chunks that were made (acquire loads of their
 * pointers, relaxed loads of the counts their owners store), each live
 * thread's fast-path counts (its thread-local lists' own, folded and
 * still in their countdowns, read with the registry's lock held, which
 * the owner holds to fold them: counters.c, "the lists' countdowns"; kept
 * in the record as last read for a child of fork()), and the rows not in the
 * records: the global free-list pops counted with the allocation lock
 * held (gca_tables) and the large rows (gca_rows).  Called with the
 * allocation lock held; takes the registry's lock (gca_counters.h) only
 * to walk it.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif
#include "gca_counters.h"

/* Sums over kinds [0, n_kinds) only, rows of other kinds untouched.    */
GC_INNER void gca_counters_sum_rows(unsigned n_kinds)
{
  struct gca_thread *t;
  size_t i, j;
  unsigned s, k, cls;

  if (n_kinds > MAXOBJKINDS) n_kinds = MAXOBJKINDS;
  for (s = 1; s <= gca_n_rows; s++) {
    struct gca_row *r = &gca_rows[s];

    if (r->kind >= n_kinds) continue;
    BZERO(&r->cur, sizeof(r->cur));
  }
  COUNTERS_LOCK();
  for (t = gca_counters_registry; t != NULL; t = t->next) {
    for (j = 0; j < n_kinds * COUNTERS_NCH; j++) {
      const struct gca_count *c = ACQ_LOADP(&t->chunk[j]);
      size_t cls0 = j % COUNTERS_NCH * COUNTERS_CH;

      for (i = 0; c != NULL && i < COUNTERS_CH
                  && cls0 + i < GCA_N_CLASSES; i++) {
        gca_counters_sum_add((unsigned)(j / COUNTERS_NCH),
                             (unsigned)(cls0 + i), GCA_LOAD(&c[i].objs),
                             GCA_LOAD(&c[i].req_bytes),
                             GCA_LOAD(&c[i].granted_bytes));
      }
    }
#   ifdef THREAD_LOCAL_ALLOC
      if (t->tlfs != NULL) {
        gca_counters_tl_read(t->tlfs, &t->tl_seen);
        gca_counters_tl_add(NULL, n_kinds, &t->tl_seen);
      }
#   endif
  }
  COUNTERS_UNLOCK();
  /* The pops counted inline with the lock held (gca_hooks.h: class lg */
  /* of kind k in row k * GCA_LOCKED_KIND_ROWS + lg), only ever while   */
  /* gca_tl_mode was 1: under full and trace their pages (2 KiB a kind, */
  /* 16 KiB of Guile's 8 kinds) are not even read (issue 33).            */
  for (k = 0; gca_locked_rows_used && k < n_kinds; k++) {
    word (*l)[2] = &gca_tables->locked_rows[k * GCA_LOCKED_KIND_ROWS];

    for (cls = 1; cls <= MAXOBJGRANULES; cls++) {
      word o, r;

      /* And GC_malloc_kind_global's pops still in the row's countdown */
      /* (counters_due.c, "the rows' countdowns").                      */
      gca_counters_locked_pending(k, cls, &o, &r);
      gca_counters_sum_add(k, cls, l[cls][0] + o, l[cls][1] + r, 0);
    }
  }
  /* And the large objects counted inline (GC_ACC_ON_ALLOC_LARGE), with */
  /* their granted blocks: row b of kind k is class GCA_LARGE0 + b.     */
  for (k = 0; gca_locked_rows_used && k < n_kinds; k++) {
    word (*l)[3] = &gca_tables->locked_large[k * GCA_LOCKED_LARGE_ROWS];

    for (cls = 0; cls < GCA_N_LARGE; cls++)
      gca_counters_sum_add(k, GCA_LARGE0 + cls, l[cls][0], l[cls][1],
                           l[cls][2] * HBLKSIZE);
  }
  /* Small classes: granted bytes are objects times the class size     */
  /* (the inline hooks of gca_hooks.h do not store them).               */
  for (s = 1; s <= gca_n_rows; s++) {
    struct gca_row *r = &gca_rows[s];

    if (r->kind < n_kinds && r->cls < GCA_LARGE0)
      r->cur.granted_bytes = r->cur.objs * (word)GRANULES_TO_BYTES(r->cls);
  }
}

GC_INNER word gca_counters_memory_bytes(void)
{
  struct gca_thread *t;
  word n = 0;

  COUNTERS_LOCK();
  for (t = gca_counters_registry; t != NULL; t = t->next)
    n += GCA_LOAD(&t->mapped);
  COUNTERS_UNLOCK();
  return n;
}

GC_INNER word gca_counters_debug_objs(int kind)
{
  struct gca_thread *t;
  word sum = 0;

  COUNTERS_LOCK();
  for (t = gca_counters_registry; t != NULL; t = t->next)
    sum += GCA_LOAD(&t->debug_objs[kind]);
  COUNTERS_UNLOCK();
  return sum;
}

#endif /* !GC_ACC_DISABLE */
