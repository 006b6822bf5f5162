/* SPDX-License-Identifier: MIT */
/*
 * vector_mlc.c: Unity's "gcj vector" object kind (gc_vector.h) on 8.2.2,
 * our own code.  Arrays of structs with references: the class pointer in
 * word 0 as gcj has it, the client's mark proc as the kind's descriptor,
 * and GC_gcj_vector_mark_proc to push the elements' reference words.
 * Allocation is counted by gcacc's accounting at the same hook points as
 * the gcj allocator's (docs/hooks.md).
 */
#include "private/gc_pmark.h"
#include "gc_vector.h"

STATIC int GC_gcj_vector_kind = 0;
STATIC int GC_gcj_vector_mp_index = 0;
STATIC ptr_t *GC_gcjvecfreelist = NULL;

/* GC_deinit's reset: the kind is made again by GC_init_gcj_vector.    */
GC_INNER void GC_gcj_vector_reset(void)
{
  GC_gcj_vector_kind = 0;
  GC_gcj_vector_mp_index = 0;
  GC_gcjvecfreelist = NULL;
}

GC_API void GC_CALL GC_init_gcj_vector(int mp_index, void *mp)
{
  DCL_LOCK_STATE;

  GC_init();    /* in case it is not done yet */
  LOCK();
  if (GC_gcjvecfreelist != NULL) {      /* made already */
    UNLOCK();
    return;
  }
  if ((unsigned)mp_index >= GC_n_mark_procs)
    ABORT("GC_init_gcj_vector: bad index");
  GC_mark_procs[mp_index] = (GC_mark_proc)(word)mp;
  GC_gcjvecfreelist = (ptr_t *)GC_new_free_list_inner();
  /* The mark proc finds everything from word 0; objects are cleared.    */
  GC_gcj_vector_kind = GC_new_kind_inner((void **)GC_gcjvecfreelist,
                                         GC_MAKE_PROC(mp_index, 0),
                                         FALSE, TRUE);
  GC_gcj_vector_mp_index = mp_index;
  /* Its objects carry their class at word 0, as gcj objects do: the   */
  /* accounting types them by it (docs/hooks.md).                        */
  GC_ACC_ON_GCJ_KIND(GC_gcj_vector_kind);
  UNLOCK();
}

#ifndef GCACC_WB_VALIDATION /* else the client defines it (gcconfig.h) */
GC_API GC_ATTR_MALLOC void * GC_CALL GC_gcj_vector_malloc(size_t lb,
                                      void *ptr_to_struct_containing_descr)
{
  ptr_t op;
  DCL_LOCK_STATE;

  GC_ASSERT(GC_gcjvecfreelist != NULL);
  GC_DBG_COLLECT_AT_MALLOC(lb);
  LOCK();
  if (SMALL_OBJ(lb)) {
    word lg = GC_size_map[lb];

    op = GC_gcjvecfreelist[lg];
    if (EXPECT(op != NULL, TRUE)) {
      GC_gcjvecfreelist[lg] = (ptr_t)obj_link(op);
      GC_bytes_allocd += GRANULES_TO_BYTES(lg);
      GC_ACC_ON_ALLOC_FL(op, lb, GC_gcj_vector_kind, lg);
    }
  } else {
    op = NULL;
  }
  if (op == NULL) {
    /* Counted inside (GC_ACC_ON_ALLOC in GC_generic_malloc_inner).      */
    op = (ptr_t)GC_clear_stack(GC_generic_malloc_inner(lb,
                                                      GC_gcj_vector_kind));
    if (op == NULL) {
      GC_oom_func oom_fn = GC_oom_fn;
      UNLOCK();
      return (*oom_fn)(lb);
    }
  }
  /* Word 0 is set under the lock: a collection never sees the object    */
  /* without its class.                                                  */
  *(void **)op = ptr_to_struct_containing_descr;
  UNLOCK();
  GC_dirty(op);
  REACHABLE_AFTER_DIRTY(ptr_to_struct_containing_descr);
  return (void *)op;
}
#endif

/* Entries pushed per call before a continuation takes over the rest.    */
#define GCJ_VECTOR_CHUNKS 256
/* il2cpp's element descriptors describe the boxed struct, whose object */
/* header (class and monitor words) the array's elements lack.          */
#define GCJ_VECTOR_HEADER_WORDS 2
/* Words a bitmap descriptor can describe.                              */
#define GCJ_BITMAP_BITS (CPP_WORDSZ - GC_DS_TAG_BITS)

GC_API struct GC_ms_entry * GC_CALL GC_gcj_vector_mark_proc(
                                struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim,
                                GC_descr element_desc, GC_word *start,
                                GC_word *end, int words_per_element)
{
  word wpe = (word)words_per_element;
  word n, per_entry, bits, bulk, i;
  unsigned pushed;
  GC_word *p;

  if (words_per_element <= 0 || (word)end <= (word)start)
    return msp;
  n = (word)(end - start) / wpe;        /* whole elements only */
  if (n == 0)
    return msp;
  if ((element_desc & GC_DS_TAGS) != GC_DS_BITMAP) {
    /* Not a bitmap: scan the elements conservatively (the marker       */
    /* splits a long range itself).                                      */
    return GC_custom_push_range(start, start + n * wpe, msp, lim);
  }
  /* Bit CPP_WORDSZ-1-j stands for word j of the element.               */
  bits = (element_desc & ~(word)GC_DS_TAGS) << GCJ_VECTOR_HEADER_WORDS;
  if (wpe < GCJ_BITMAP_BITS)
    bits &= ~(((word)1 << (CPP_WORDSZ - wpe)) - 1); /* beyond the element */
  if (bits == 0)
    return msp;                         /* no references at all */
  /* Elements packed per entry (the bitmaps side by side).              */
  per_entry = wpe <= GCJ_BITMAP_BITS ? GCJ_BITMAP_BITS / wpe : 1;
  bulk = 0;
  for (i = 0; i < per_entry; i++)
    bulk |= bits >> (i * wpe);
  p = start;
  for (pushed = 0; n > 0 && pushed < GCJ_VECTOR_CHUNKS; pushed++) {
    word k = n < per_entry ? n : per_entry;
    word d = bulk;

    if (k < per_entry) {
      d = 0;
      for (i = 0; i < k; i++)
        d |= bits >> (i * wpe);
    }
    msp = GC_custom_push_proc(d | GC_DS_BITMAP, p, msp, lim);
    p += k * wpe;
    n -= k;
  }
  if (n > 0) {
    /* The rest later: the client's proc, called again at p (env 1),    */
    /* finds the array with GC_base and calls us from there.             */
    msp = GC_custom_push_proc(GC_MAKE_PROC(GC_gcj_vector_mp_index, 1), p,
                              msp, lim);
  }
  return msp;
}
