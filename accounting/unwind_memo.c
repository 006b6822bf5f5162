/* SPDX-License-Identifier: MIT */
/*
 * unwind_memo.c: a thread's last table walks (unwind_cfi.c), checked
 * rather than walked again.
 *
 * A table walk is a function of where it starts (pc, sp, bp), the rules
 * (the code list's) and the stack words it reads: if those words still
 * hold what they held, it ends where it ended.  So the walk of a sampled
 * stack first looks up its start here and compares the words (one load
 * and compare each, no rule looked up, no bound checked again: they lay
 * on the stack above the walk's frame then and do now; the start's rbp
 * only if a CFA was by it before rbp was loaded from the stack: code
 * without frame pointers keeps anything in rbp); only if one
 * differs does it walk, and then keeps what it read, in place of its
 * oldest memo.  Two parts: the collector's frames (pre: where the kept
 * frames start; a few, one per path through the collector, the last
 * step's words not kept: they are the program's), then the kept frames
 * (suf: the frames; one per stack, a few of them, searched through).
 * The memory is sites.c's, per thread (gca_unwcfi_memo_use around a
 * walk): about 9 KiB, for three threads at a time.  A kept-frames memo also holds the site sites.c
 * interned its frames as (gca_unwcfi_memo_id: sites are never freed).
 */

#include "gca_priv.h"
#include "gca_unwind.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

#ifdef GCA_UNW_CFI

GC_INNER GCA_TLS_FAST struct gca_unwcfi_memos *gca_unwcfi_memo_self = NULL;

GC_INNER const struct gca_unwcfi_memo *gca_unwcfi_memo_find(
                        const struct gca_unwcfi_memo *m, unsigned ways,
                        const void *code, word pc, word sp, word bp, word hi,
                        unsigned arg)
{
  unsigned w, i;

  for (w = 0; w < ways; w++) {
    const struct gca_unwcfi_memo *e = &m[w];

    if (e->pc != pc || e->sp != sp || e->code != code
        || (e->bp_key && e->bp != bp) || e->hi != hi || e->arg != arg)
      continue;
    for (i = 0; i < e->nr; i++)
      if (*(const word *)e->at[i] != e->v[i]) break;
    if (i == e->nr) return e;
  }
  return NULL;
}

/* A walk from start[0..2] (pc, sp, bp) with arg that read rd: into   */
/* m's slot for it (out: pre's end; frames: suf's), if it fits.         */
/* m's memos replaced in turn (*next).                                   */
static struct gca_unwcfi_memo *memo_put(struct gca_unwcfi_memo *m,
                                        unsigned ways,
                     unsigned *next, const void *code, const word *start,
                     word hi, unsigned arg, const struct gca_unwcfi_reads *rd,
                     const word *out, unsigned n, const word *frames)
{
  struct gca_unwcfi_memo *e;

  if (rd->n > GCA_UNWCFI_MEMO_READS || n > GCA_UNWCFI_MEMO_FRAMES)
    return NULL;
  e = &m[*next % ways];
  *next = (*next + 1) % ways;
  e->code = code;
  e->pc = start[0];
  e->sp = start[1];
  e->bp = start[2];
  e->hi = hi;
  e->arg = arg;
  e->nr = rd->n;
  memcpy(e->at, rd->at, rd->n * sizeof(word));
  memcpy(e->v, rd->v, rd->n * sizeof(word));
  if (out != NULL) {
    e->out_pc = out[0];
    e->out_sp = out[1];
    e->out_bp = out[2];
  }
  e->n = n;
  e->id = 0;
  e->bp_key = rd->bp_used;
  if (frames != NULL && n > 0) memcpy(e->frames, frames, n * sizeof(word));
  return e;
}

GC_INNER int gca_unwcfi_memo_pre(const struct gca_unwcfi_memos *mm,
                                 const void *code, const word *start,
                                 word hi, word *pc, word *sp, word *bp)
{
  const struct gca_unwcfi_memo *e = gca_unwcfi_memo_find(mm->pre,
                                GCA_UNWCFI_MEMO_PRE, code, start[0], start[1],
                                start[2], hi, 0);

  if (NULL == e) return 0;
  *pc = *(const word *)e->out_pc;
  *sp = e->out_sp;
  *bp = 1 == e->n ? *(const word *)e->out_bp
        : 2 == e->n ? start[2] : e->out_bp;
  return 1;
}

GC_INNER void gca_unwcfi_memo_keep(struct gca_unwcfi_memos *mm,
                                   const void *code, word hi, unsigned max,
                                   const word *start,
                                   struct gca_unwcfi_reads *rp, unsigned last,
                                   const word *kept,
                                   const struct gca_unwcfi_reads *rs,
                                   const word *frames, unsigned n)
{
  if (rp != NULL && rp->n > 0 && rp->n <= GCA_UNWCFI_MEMO_READS) {
    unsigned k = rp->n - last;          /* the last step's: 1, 2 with rbp */
    word out[3];

    out[0] = rp->at[last];              /* where the kept pc is          */
    out[1] = kept[1];
    out[2] = 2 == k ? rp->at[last + 1] : kept[2];
    rp->n = last;                       /* the program's words: not kept */
    memo_put(mm->pre, GCA_UNWCFI_MEMO_PRE, &mm->pre_next, code, start, hi,
             0, rp, out, 2 == k ? 1 : rp->bp_loaded ? 0 : 2, NULL);
  }
  if (rs != NULL)
    mm->last = memo_put(mm->suf, GCA_UNWCFI_MEMO_SUF, &mm->suf_next, code,
                        kept, hi, max, rs, NULL, n, frames);
}

GC_INNER word gca_unwcfi_memo_bytes(void)
{
  return sizeof(struct gca_unwcfi_memos);
}

GC_INNER void gca_unwcfi_memo_use(void *m)
{
  gca_unwcfi_memo_self = (struct gca_unwcfi_memos *)m;
  if (m != NULL) gca_unwcfi_memo_self->last = NULL;
}

GC_INNER unsigned *gca_unwcfi_memo_id(void *m)
{
  struct gca_unwcfi_memos *mm = (struct gca_unwcfi_memos *)m;

  return mm != NULL && mm->last != NULL ? &mm->last->id : NULL;
}

#else

GC_INNER word gca_unwcfi_memo_bytes(void)
{
  return 0;
}

GC_INNER void gca_unwcfi_memo_use(void *m)
{
  (void)m;
}

GC_INNER unsigned *gca_unwcfi_memo_id(void *m)
{
  (void)m;
  return NULL;
}

#endif /* GCA_UNW_CFI */

#endif /* !GC_ACC_DISABLE */
