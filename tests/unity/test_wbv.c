/* SPDX-License-Identifier: MIT */
/*
 * test_wbv.c: a write-barrier-validation build (il2cpp with
 * IL2CPP_ENABLE_WRITE_BARRIER_VALIDATION).  il2cpp's
 * WriteBarrierValidation.cpp defines GC_malloc, GC_malloc_atomic,
 * GC_malloc_uncollectable, GC_free, GC_gcj_malloc, GC_gcj_vector_malloc
 * and GC_dirty_inner itself; the collector, compiled with the same
 * macro, must step aside so the program links, and must call the
 * program's GC_dirty_inner from its write barrier (GC_END_STUBBORN_CHANGE
 * in incremental mode).  This program plays il2cpp's part.
 */
#define GC_GCJ_SUPPORT 1
#include "gc.h"
#include "gc_mark.h"
#include "gc_gcj.h"
#include "gc_inline.h"          /* GC_malloc_kind, GC_I_* */
#include "gc_vector.h"
#include "../check.h"

static unsigned long n_malloc, n_free, n_dirty;

GC_API void * GC_CALL GC_malloc(size_t lb)
{ n_malloc++; return GC_malloc_kind(lb, GC_I_NORMAL); }
GC_API void * GC_CALL GC_malloc_atomic(size_t lb)
{ n_malloc++; return GC_malloc_kind(lb, GC_I_PTRFREE); }
GC_API void * GC_CALL GC_malloc_uncollectable(size_t lb)
{ n_malloc++; return GC_generic_malloc_uncollectable(lb, 2); }
GC_API void GC_CALL GC_free(void *p) { (void)p; n_free++; }
GC_API void * GC_CALL GC_gcj_malloc(size_t lb, void *vt)
{
  void **p = (void **)GC_malloc_kind(lb, GC_I_NORMAL);
  n_malloc++;
  if (p != NULL) *p = vt;
  return p;
}
GC_API void * GC_CALL GC_gcj_vector_malloc(size_t lb, void *vt)
{ return GC_gcj_malloc(lb, vt); }
GC_API void GC_dirty_inner(const void *p) { (void)p; n_dirty++; }

int main(void)
{
  void **a;
  int i;

  GC_INIT();
  GC_enable_incremental();
  CHECK(GC_is_incremental_mode());
  a = (void **)GC_MALLOC(4 * sizeof(void *));
  CHECK(n_malloc == 1);
  for (i = 0; i < 1000; i++) {
    a[i % 4] = GC_MALLOC_ATOMIC(32);
    GC_END_STUBBORN_CHANGE(a);
  }
  CHECK(n_dirty >= 1000);               /* ours, not the collector's */
  (void)GC_gcj_malloc(32, &a);
  (void)GC_gcj_vector_malloc(32, &a);
  (void)GC_malloc_uncollectable(16);
  GC_free(a);
  CHECK_EQ(n_free, 1);
  GC_gcollect();
  return check_done("test_wbv");
}
