/* SPDX-License-Identifier: MIT */
/*
 * retain_bounds.c: a retention walk's bounds (retain.c): its memory,
 * OS pages counted within a cap (GC_ACC_RETAIN_MEMORY, 64 MiB by
 * default), in segmented arrays mapped a segment at a time; and the
 * settings of both bounds, the memory cap and the pause
 * (GC_ACC_RETAIN_PAUSE; 0: twice the collection's marking).  Lock held.
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

#endif /* !GC_ACC_DISABLE */
