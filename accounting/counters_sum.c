/* SPDX-License-Identifier: MIT */
/*
 * counters_sum.c: the readers' side of counters.c's records: the counts
 * of every thread summed by kind and size class, the pages the records
 * take, and the debug allocations.
 *
 * A sum adds each record's chunks that were made (acquire loads of their
 * pointers, relaxed loads of the counts their owners store), each live
 * thread's fast-path counts (its thread-local lists' own, kept in the
 * record as last read for a child of fork()), and the rows not in the
 * records: the global free-list pops counted with the allocation lock
 * held and the large rows (gca_tables).  Called with the allocation lock
 * held; takes the registry's lock (gca_counters.h) only to walk it.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef THREAD_LOCAL_ALLOC
# include "private/thread_local_alloc.h"
#endif
#include "gca_counters.h"

/* Sums over kinds [0, n_kinds) only, rows of other kinds untouched.    */
GC_INNER void gca_counters_sum_kinds(struct gca_count *out, unsigned n_kinds)
{
  struct gca_thread *t;
  size_t i, j, k, n;

  if (n_kinds > MAXOBJKINDS) n_kinds = MAXOBJKINDS;
  n = (size_t)n_kinds * GCA_N_CLASSES;
  BZERO(out, n * sizeof(struct gca_count));
  COUNTERS_LOCK();
  for (t = gca_counters_registry; t != NULL; t = t->next) {
    for (j = 0; j < n_kinds * COUNTERS_NCH; j++) {
      const struct gca_count *c = ACQ_LOADP(&t->chunk[j]);
      size_t cls0 = j % COUNTERS_NCH * COUNTERS_CH;
      struct gca_count *o = &out[j / COUNTERS_NCH * GCA_N_CLASSES + cls0];

      for (i = 0; c != NULL && i < COUNTERS_CH
                  && cls0 + i < GCA_N_CLASSES; i++) {
        o[i].objs += GCA_LOAD(&c[i].objs);
        o[i].req_bytes += GCA_LOAD(&c[i].req_bytes);
        o[i].granted_bytes += GCA_LOAD(&c[i].granted_bytes);
      }
    }
#   ifdef THREAD_LOCAL_ALLOC
      if (t->tlfs != NULL) {
        gca_counters_tl_read(t->tlfs, &t->tl_seen);
        gca_counters_tl_add(NULL, out, n_kinds, &t->tl_seen);
      }
#   endif
  }
  COUNTERS_UNLOCK();
  /* Small classes: granted bytes are objects times the class size     */
  /* (the inline hooks of gca_hooks.h do not store them).  Row 0: the  */
  /* 0-byte requests of the thread-local path (one granule each).      */
  for (k = 0; k < n_kinds; k++) {
    struct gca_count *z = &out[k * GCA_N_CLASSES];
    size_t cls;

    if (gca_tables != NULL) {
      for (cls = 1; cls <= MAXOBJGRANULES; cls++) {
        z[cls].objs += gca_tables->locked_rows[k][cls][0];
        z[cls].req_bytes += gca_tables->locked_rows[k][cls][1];
      }
      for (cls = 0; cls < GCA_N_LARGE; cls++) {
        const struct gca_count *l = &gca_tables->locked_large[k][cls];

        z[GCA_LARGE0 + cls].objs += l->objs;
        z[GCA_LARGE0 + cls].req_bytes += l->req_bytes;
        z[GCA_LARGE0 + cls].granted_bytes += l->granted_bytes;
      }
    }
    if (z->objs != 0) {
      z[1].objs += z->objs;
      z[1].req_bytes += z->req_bytes;
    }
    z->objs = z->req_bytes = z->granted_bytes = 0;
    for (cls = 1; cls <= MAXOBJGRANULES; cls++)
      z[cls].granted_bytes = z[cls].objs * (word)GRANULES_TO_BYTES(cls);
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
