/* SPDX-License-Identifier: MIT */
/*
 * gc_vector.h: Unity's object kind for arrays of structs with references
 * ("gcj vectors"), as il2cpp (2020.1+) includes it.  Our own code
 * (unity/vector_mlc.c); docs/il2cpp.md describes the kind.
 *
 * An object of the kind has its class pointer in word 0, like gcj.  The
 * kind's descriptor is the client's mark proc (GC_init_gcj_vector's
 * mp_index); that proc finds the array's element descriptor and data and
 * calls GC_gcj_vector_mark_proc, which pushes the elements' reference
 * words in bounded chunks and, for long arrays, a continuation entry
 * GC_MAKE_PROC(mp_index, 1) whose start is the next element: the client
 * proc is called again with that address (GC_base gives the array).
 */
#ifndef GC_VECTOR_H
#define GC_VECTOR_H

#ifndef GC_H
# include "gc.h"
#endif
#include "gc_typed.h"

#ifdef __cplusplus
  extern "C" {
#endif

/* Make the kind; mp (a GC_mark_proc) is registered at mp_index.  Call   */
/* once, after GC_INIT and GC_init_gcj_malloc, before allocating.        */
GC_API void GC_CALL GC_init_gcj_vector(int /* mp_index */,
                                       void * /* really GC_mark_proc */);

/* Allocate lb bytes of the kind, cleared, with word 0 set to the class */
/* pointer.  Counted by gcacc's accounting like every allocation.        */
GC_API GC_ATTR_MALLOC void * GC_CALL GC_gcj_vector_malloc(size_t /* lb */,
                                void * /* ptr_to_struct_containing_descr */);

/* For the client's mark proc: push the reference words of the elements  */
/* in [start, end), words_per_element words each, whose layout is        */
/* element_desc: a GC_DS_BITMAP descriptor of the boxed element, object  */
/* header (2 words) included, as il2cpp's classes carry it; a length     */
/* descriptor (GC_DS_LENGTH) has the elements scanned conservatively.    */
/* Returns the new mark stack top.                                       */
GC_API struct GC_ms_entry * GC_CALL GC_gcj_vector_mark_proc(
                                struct GC_ms_entry * /* mark_stack_ptr */,
                                struct GC_ms_entry * /* mark_stack_limit */,
                                GC_descr /* element_desc */,
                                GC_word * /* start */, GC_word * /* end */,
                                int /* words_per_element */);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_VECTOR_H */
