/*
 * gc_accounting.h: gcacc's public interface to the collector's own books.
 *
 * gcacc is bdwgc 8.2.2 with accounting built in: every allocation is
 * counted by kind and size class, the free heap-block lists are tracked for
 * fragmentation, and after every collection a census of live and reserved
 * bytes can be written to a dump file that the `gcacc` reader turns into
 * answers.  Accounting is off until switched on, by the environment
 * (docs/environment.md: GC_ACC_ENABLE, GC_ACC_DUMP, ...) or by the
 * functions below; everything the environment can set, this API can set
 * too (builds with NO_GETENV, such as IL2CPP's, have only the API).
 *
 * Conventions, as in gc.h: functions return GC_SUCCESS (0) or a nonzero
 * bdwgc code (GC_UNIMPLEMENTED when the library was configured with
 * --disable-accounting, GC_NO_MEMORY, GC_ERROR on bad arguments).  Sizes
 * are in bytes, times in nanoseconds.  Every function may be called from
 * any thread registered with the collector, before or after GC_INIT();
 * none may be called from inside a hook, a finalizer run with the
 * allocation lock held, or a GC_set_*_proc callback.
 */

#ifndef GC_ACCOUNTING_H
#define GC_ACCOUNTING_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* The version of gcacc, as major*10000 + minor*100 + micro.            */
#define GC_ACC_VERSION 100  /* 0.1.0 */

/* The version of gcacc the library was built as (GC_ACC_VERSION of    */
/* its build).  Compare it with GC_ACC_VERSION to detect a header/library */
/* mismatch.  Never fails.                                              */
GC_API unsigned GC_CALL GC_acc_get_version(void);

/* Nonzero if the library was built with accounting compiled in (the   */
/* default); zero for a --disable-accounting build, whose GC_acc_*     */
/* functions all return GC_UNIMPLEMENTED.                               */
GC_API int GC_CALL GC_acc_is_available(void);

/* Switch counting on (nonzero) or off (0).  Equivalent to GC_ACC_ENABLE */
/* in the environment.  Counters are cumulative: switching off and on    */
/* again keeps what was counted.  Returns GC_SUCCESS or                  */
/* GC_UNIMPLEMENTED.                                                     */
GC_API int GC_CALL GC_acc_enable(int on);

/* Nonzero while counting is on.                                        */
GC_API int GC_CALL GC_acc_is_enabled(void);

/* The counters, as read by GC_acc_get_stats.  Fields are only ever      */
/* appended; a caller compiled against an older header passes a smaller */
/* size and gets the fields it knows (the GC_get_prof_stats pattern).    */
struct GC_acc_stats_s {
  GC_word allocs;           /* objects allocated since accounting began */
  GC_word alloc_req_bytes;  /* bytes callers asked for                  */
  GC_word alloc_granted_bytes; /* bytes the collector handed out        */
  GC_word collections;      /* collections completed while counting     */
  GC_word debug_allocs;     /* of allocs, those made by GC_debug_*      */
  GC_word heap_grows;       /* heap expansions seen while counting      */
};

/* Fill *stats (stats_sz bytes of it, normally sizeof(*stats)) with the  */
/* current totals, summed over all threads.  Takes the allocation lock.  */
/* Returns the number of bytes written (min(stats_sz, sizeof(struct      */
/* GC_acc_stats_s))); 0 in a --disable-accounting build.                 */
GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_ACCOUNTING_H */
