/*
 * api.c: the public GC_acc_* entry points (include/gc_accounting.h).
 *
 * Each validates its arguments, takes the allocation lock where it reads
 * shared books, and calls the module that owns them.  In a
 * --disable-accounting build every function is present and answers
 * GC_UNIMPLEMENTED (or 0), so embedders link either way.
 */

#include "gca_priv.h"

GC_API unsigned GC_CALL GC_acc_get_version(void)
{
  return GC_ACC_VERSION;
}

#ifdef GC_ACC_DISABLE

GC_API int GC_CALL GC_acc_is_available(void) { return 0; }
GC_API int GC_CALL GC_acc_enable(int on) { (void)on; return GC_UNIMPLEMENTED; }
GC_API int GC_CALL GC_acc_is_enabled(void) { return 0; }
GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz)
{
  (void)stats; (void)stats_sz;
  return 0;
}

#else

GC_API int GC_CALL GC_acc_is_available(void)
{
  return 1;
}

GC_API int GC_CALL GC_acc_enable(int on)
{
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  gca_set_on(on);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_is_enabled(void)
{
  return gca_on;
}

GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz)
{
  static struct gca_count sum[MAXOBJKINDS][GCA_N_CLASSES]; /* under lock */
  struct GC_acc_stats_s s;
  unsigned k, c;
  DCL_LOCK_STATE;

  if (NULL == stats) return 0;
  BZERO(&s, sizeof(s));
  LOCK();
  gca_counters_sum(&sum[0][0]);
  for (k = 0; k < MAXOBJKINDS; k++) {
    for (c = 0; c < GCA_N_CLASSES; c++) {
      s.allocs += sum[k][c].objs;
      s.alloc_req_bytes += sum[k][c].req_bytes;
      s.alloc_granted_bytes += sum[k][c].granted_bytes;
    }
    s.debug_allocs += gca_counters_debug_objs((int)k);
  }
  s.collections = gca_collections;
  s.heap_grows = gca_heap_grows;
  UNLOCK();
  if (stats_sz > sizeof(s)) stats_sz = sizeof(s);
  BCOPY(&s, stats, stats_sz);
  return stats_sz;
}

#endif /* !GC_ACC_DISABLE */
