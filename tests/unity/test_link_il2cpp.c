/* SPDX-License-Identifier: MIT */
/*
 * test_link_il2cpp.c: every GC_* entry point libil2cpp calls (Unity
 * 2019.4 to 6000: ../shared/IL2CPP.md section 1.3 and the 6000
 * additions), declared again here with the signature Unity's headers
 * give it, after our headers: a signature that differs fails to compile
 * ("conflicting types"), a symbol that is missing fails to link.  Built
 * against libgc and against the IL2CPP-mode extra/gc.c, in both heap-
 * section eras (GCACC_HEAP_SECTIONS_3ARG defined or not, one library),
 * where it also runs a little.
 */
#define GC_THREADS 1
#define GC_GCJ_SUPPORT 1
#include "gc.h"
#include "gc_typed.h"
#include "gc_mark.h"
#include "gc_gcj.h"
#include "gc_vector.h"
#include <stdio.h>

/* gc.h */
GC_API void GC_CALL GC_init(void);
GC_API void GC_CALL GC_deinit(void);
GC_API void GC_CALL GC_set_no_dls(int);
GC_API void GC_CALL GC_set_warn_proc(GC_warn_proc);
GC_API void GC_CALLBACK GC_ignore_warn_proc(char *, GC_word);
GC_API void GC_CALL GC_enable_incremental(void);
GC_API void GC_CALL GC_set_time_limit(unsigned long);
GC_API int GC_CALL GC_is_incremental_mode(void);
GC_API void GC_CALL GC_set_time_limit_ns(unsigned long long);
GC_API unsigned long long GC_CALL GC_get_time_limit_ns(void);
GC_API void GC_CALL GC_set_on_collection_event(GC_on_collection_event_proc);
GC_API void GC_CALL GC_set_on_heap_resize(GC_on_heap_resize_proc);
GC_API void GC_CALL GC_set_finalize_on_demand(int);
GC_API void GC_CALL GC_set_finalizer_notifier(GC_finalizer_notifier_proc);
GC_API int GC_CALL GC_invoke_finalizers(void);
GC_API int GC_CALL GC_should_invoke_finalizers(void);
GC_API void GC_CALL GC_allow_register_threads(void);
GC_API int GC_CALL GC_get_stack_base(struct GC_stack_base *);
GC_API int GC_CALL GC_register_my_thread(const struct GC_stack_base *);
GC_API int GC_CALL GC_unregister_my_thread(void);
GC_API void * GC_CALL GC_malloc(size_t);
GC_API void * GC_CALL GC_malloc_atomic(size_t);
GC_API void * GC_CALL GC_malloc_uncollectable(size_t);
GC_API void GC_CALL GC_free(void *);
GC_API void GC_CALL GC_register_finalizer_no_order(void *, GC_finalization_proc,
                                                    void *, GC_finalization_proc *,
                                                    void **);
GC_API int GC_CALL GC_general_register_disappearing_link(void **, const void *);
GC_API int GC_CALL GC_unregister_disappearing_link(void **);
GC_API void * GC_CALL GC_call_with_alloc_lock(GC_fn_type, void *);
GC_API int GC_CALL GC_is_heap_ptr(const void *);
GC_API void * GC_CALL GC_base(void *);
GC_API void GC_CALL GC_gcollect(void);
GC_API int GC_CALL GC_collect_a_little(void);
GC_API void GC_CALL GC_disable(void);
GC_API void GC_CALL GC_enable(void);
GC_API int GC_CALL GC_is_disabled(void);
GC_API void GC_CALL GC_start_incremental_collection(void);
GC_API void GC_CALL GC_set_disable_automatic_collection(int);
GC_API GC_word GC_CALL GC_get_gc_no(void);
GC_API size_t GC_CALL GC_get_heap_size(void);
GC_API size_t GC_CALL GC_get_free_bytes(void);
GC_API void GC_CALL GC_stop_world_external(void);
GC_API void GC_CALL GC_start_world_external(void);
GC_API void GC_CALL GC_end_stubborn_change(const void *);
GC_API void GC_foreach_heap_section(void *, GC_heap_section_proc);
GC_API GC_word GC_get_heap_section_count(void);
/* gc_mark.h */
GC_API GC_push_other_roots_proc GC_CALL GC_get_push_other_roots(void);
GC_API void GC_CALL GC_set_push_other_roots(GC_push_other_roots_proc);
GC_API void GC_CALL GC_push_all(void *, void *);
GC_API void GC_CALL GC_set_mark_stack_empty(GC_mark_stack_empty_proc);
GC_API GC_mark_stack_empty_proc GC_CALL GC_get_mark_stack_empty(void);
GC_API int GC_CALL GC_is_marked(const void *);
GC_API struct GC_ms_entry * GC_CALL GC_mark_and_push(void *,
                                struct GC_ms_entry *, struct GC_ms_entry *,
                                void **);
GC_API unsigned GC_CALL GC_new_proc(GC_mark_proc);
GC_API void GC_CALL GC_push_proc(GC_word, void *);
GC_API struct GC_ms_entry * GC_CALL GC_custom_push_proc(GC_word, void *,
                                struct GC_ms_entry *, struct GC_ms_entry *);
GC_API struct GC_ms_entry * GC_CALL GC_custom_push_range(void *, void *,
                                struct GC_ms_entry *, struct GC_ms_entry *);
/* gc_typed.h */
GC_API GC_descr GC_CALL GC_make_descriptor(const GC_word *, size_t);
/* gc_gcj.h */
GC_API void GC_CALL GC_init_gcj_malloc(int, void *);
GC_API void * GC_CALL GC_gcj_malloc(size_t, void *);
/* gc_vector.h */
GC_API void GC_CALL GC_init_gcj_vector(int, void *);
GC_API void * GC_CALL GC_gcj_vector_malloc(size_t, void *);
GC_API struct GC_ms_entry * GC_CALL GC_gcj_vector_mark_proc(
                                struct GC_ms_entry *, struct GC_ms_entry *,
                                GC_descr, GC_word *, GC_word *, int);

#define F(f) (void (*)(void))(f)
static void (*const used[])(void) = {
  F(GC_init), F(GC_deinit), F(GC_set_no_dls), F(GC_set_warn_proc),
  F(GC_ignore_warn_proc), F(GC_enable_incremental), F(GC_set_time_limit),
  F(GC_is_incremental_mode), F(GC_set_time_limit_ns),
  F(GC_get_time_limit_ns), F(GC_set_on_collection_event),
  F(GC_set_on_heap_resize), F(GC_set_finalize_on_demand),
  F(GC_set_finalizer_notifier), F(GC_invoke_finalizers),
  F(GC_should_invoke_finalizers), F(GC_allow_register_threads),
  F(GC_get_stack_base), F(GC_register_my_thread),
  F(GC_unregister_my_thread), F(GC_malloc), F(GC_malloc_atomic),
  F(GC_malloc_uncollectable), F(GC_free), F(GC_register_finalizer_no_order),
  F(GC_general_register_disappearing_link),
  F(GC_unregister_disappearing_link), F(GC_call_with_alloc_lock),
  F(GC_is_heap_ptr), F(GC_base), F(GC_gcollect), F(GC_collect_a_little),
  F(GC_disable), F(GC_enable), F(GC_is_disabled),
  F(GC_start_incremental_collection), F(GC_set_disable_automatic_collection),
  F(GC_get_gc_no), F(GC_get_heap_size), F(GC_get_free_bytes),
  F(GC_stop_world_external), F(GC_start_world_external),
  F(GC_end_stubborn_change), F(GC_foreach_heap_section),
  F(GC_get_heap_section_count), F(GC_get_push_other_roots),
  F(GC_set_push_other_roots), F(GC_push_all), F(GC_set_mark_stack_empty),
  F(GC_get_mark_stack_empty), F(GC_is_marked), F(GC_mark_and_push),
  F(GC_new_proc), F(GC_push_proc), F(GC_custom_push_proc),
  F(GC_custom_push_range), F(GC_make_descriptor), F(GC_init_gcj_malloc),
  F(GC_gcj_malloc), F(GC_init_gcj_vector), F(GC_gcj_vector_malloc),
  F(GC_gcj_vector_mark_proc)
};

#ifdef GCACC_HEAP_SECTIONS_3ARG
  static void count_cb(void *n, GC_PTR s, GC_PTR e)
  { (void)s; (void)e; ++*(GC_word *)n; }
#else
  static void count_cb(void *n, GC_PTR s, GC_PTR e, GC_heap_section_type t)
  { (void)s; (void)e; (void)t; ++*(GC_word *)n; }
#endif

static void count3_cb(void *n, GC_PTR s, GC_PTR e)
{ (void)s; (void)e; ++*(GC_word *)n; }
static GC_word n3;

static void *GC_CALLBACK sections(void *n)
{
  GC_foreach_heap_section(n, count_cb);
  GC_foreach_heap_section_v3(&n3, count3_cb);
  return (void *)GC_get_heap_section_count();
}

int main(void)
{
  GC_word n = 0, m;
  unsigned i;

  for (i = 0; i < sizeof(used) / sizeof(used[0]); i++)
    if (used[i] == 0) return 1;
  GC_INIT();
  GC_set_no_dls(1);
  GC_set_warn_proc(GC_ignore_warn_proc);
  (void)GC_malloc(100);
  GC_stop_world_external();
  GC_start_world_external();
  m = (GC_word)GC_call_with_alloc_lock(sections, &n);
  if (n == 0 || n3 == 0 || n3 != m) {
    fprintf(stderr, "test_link_il2cpp: heap sections %lu, count %lu\n",
            (unsigned long)n, (unsigned long)m);
    return 1;
  }
  printf("test_link_il2cpp: %u entry points linked (%s era), %lu sections\n",
         i,
#ifdef GCACC_HEAP_SECTIONS_3ARG
         "3-argument",
#else
         "4-argument",
#endif
         (unsigned long)n);
  return 0;
}
