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

/* The code gcacc returns for bad arguments or a failed operation (gc.h  */
/* has none).                                                           */
#ifndef GC_ERROR
# define GC_ERROR (-1)
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
  /* From the census of the last collection (0 before the first one; see */
  /* docs/dump-format.md for what "live" means).                         */
  GC_word live_bytes;       /* granted bytes of live objects            */
  GC_word live_objs;        /* live objects                             */
  GC_word reserved_bytes;   /* bytes of the heap blocks holding objects */
  /* From the free heap-block books, now.                                */
  GC_word free_bytes;       /* bytes in free heap blocks (incl. unmapped) */
  GC_word largest_free_bytes; /* the largest free heap block            */
  GC_word frag_index_ppm;   /* 1 - largest_free/free, times 1000000     */
  /* More about the last census.                                         */
  GC_word census_gc_no;     /* its collection's number (GC_get_gc_no)   */
  GC_word mark_ns;          /* that collection's mark time              */
  GC_word census_ns;        /* the census's own time                    */
};

/* Fill *stats (stats_sz bytes of it, normally sizeof(*stats)) with the  */
/* current totals, summed over all threads.  Takes the allocation lock.  */
/* Returns the number of bytes written (min(stats_sz, sizeof(struct      */
/* GC_acc_stats_s))); 0 in a --disable-accounting build.                 */
GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz);

/* ---- the dump file (docs/design.md, "Dump file and crash safety") ---- */

/* Start writing the dump file path: a gzip stream of JSON Lines, one   */
/* record per line, the header first.  "%p" in path becomes the process */
/* id ("%%" a single "%").  Equivalent to GC_ACC_DUMP in the            */
/* environment.  Any dump already open is stopped first (one file per   */
/* process at a time).  Turns counting on.  Initializes the collector   */
/* if needed.  Does not take the allocation lock for the file's I/O:    */
/* the header is written here, later records by a writer thread of the  */
/* library (not registered with the collector, it never allocates from  */
/* the GC heap).  Returns GC_SUCCESS; GC_ERROR if path is NULL or empty, */
/* or the file cannot be opened or written (after one "GC Warning:      */
/* gcacc: ..." through the warn proc, see GC_set_warn_proc; the program */
/* runs on without a dump); GC_NO_MEMORY if the buffer or the           */
/* compressor cannot be set up; GC_UNIMPLEMENTED in a                   */
/* --disable-accounting build.  A later write failure (disk full) gives */
/* one warning too and turns dumping off; records are then dropped.     */
/* A child created by fork() never writes its parent's file: to it the  */
/* dump is closed (it may start its own).                               */
GC_API int GC_CALL GC_acc_dump_start(const char * /* path */);

/* Stop the dump: write every record still queued, then the gzip        */
/* trailer, close the file and join the writer thread.  May wait for    */
/* the file's I/O; never holds the allocation lock while doing so.      */
/* Called automatically at exit() (an atexit handler), so it is only    */
/* needed to close the file early.  A process killed before that leaves */
/* a file without trailer that still decompresses, up to the last whole */
/* record written.  Returns GC_SUCCESS (also when no dump is open), or  */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                    */
GC_API int GC_CALL GC_acc_dump_stop(void);

/* Set the size in bytes of the buffer between the collector and the    */
/* dump's writer thread, for dumps started after this call.  Equivalent */
/* to GC_ACC_DUMP_BUFFER in the environment.  0 restores the default    */
/* (4 MiB); values below 4096 become 4096; sizes are rounded up to      */
/* whole 4 KiB pages.  When the buffer is full the collector does not   */
/* wait: the record is dropped and counted (the next record reports the */
/* drops).  No effect in a --disable-accounting build.                  */
GC_API void GC_CALL GC_acc_set_dump_buffer_size(size_t /* bytes */);

/* ---- census, fragmentation, heap growth (docs/dump-format.md) ------ */

/* Write one record now, between collections: allocation counts since   */
/* the previous record, free-block books, heap totals and growth events, */
/* without a census ("record":"snapshot", "census":0).  Takes the        */
/* allocation lock; never waits for I/O.  Returns GC_SUCCESS, GC_ERROR   */
/* if no dump is open, or GC_UNIMPLEMENTED in a --disable-accounting     */
/* build.                                                                */
GC_API int GC_CALL GC_acc_record_now(void);

/* Size class of an object whose collector-granted size (GC_size) is    */
/* granted_bytes: for small objects (up to half a heap block) the       */
/* number of granules (granted_bytes / granule size, 1..), above that   */
/* the number of small classes plus 1 + the power of two of the size    */
/* above half a block (docs/dump-format.md).  Returns (unsigned)-1 in a */
/* --disable-accounting build.                                          */
GC_API unsigned GC_CALL GC_acc_size_class(size_t /* granted_bytes */);

/* One (kind, size class), as GC_acc_get_class_stats reads it.  Fields  */
/* are only ever appended.                                               */
struct GC_acc_class_stats_s {
  /* From the census of the last collection.                             */
  GC_word live_objs;        /* objects marked by that collection         */
  GC_word live_bytes;       /* their granted bytes                       */
  GC_word reserved_bytes;   /* bytes of in-use heap blocks of the class  */
  GC_word free_slots;       /* unmarked slots in those blocks            */
  /* Cumulative since accounting began, summed at the call.              */
  GC_word alloc_objs;
  GC_word alloc_req_bytes;
  GC_word alloc_granted_bytes;
};

/* Fill *out (out_sz bytes of it) for objects of the given kind (0 ptrfree, */
/* 1 normal, 2 uncollectable, ..., as GC_new_kind numbers them) and size   */
/* class (GC_acc_size_class).  Takes the allocation lock.  Returns the     */
/* number of bytes written; 0 if kind or cls is out of range or in a       */
/* --disable-accounting build.                                             */
GC_API size_t GC_CALL GC_acc_get_class_stats(int /* kind */,
                                unsigned /* cls */,
                                struct GC_acc_class_stats_s * /* out */,
                                size_t /* out_sz */);

/* The last heap growth seen (all zero if none yet).                    */
struct GC_acc_grow_s {
  GC_word t_ns;             /* CLOCK_MONOTONIC time of the growth        */
  GC_word req_bytes;        /* object size of the block request that     */
                            /* forced it; 0 if none was pending          */
                            /* (GC_expand_hp, initial heap)              */
  GC_signed_word req_kind;  /* its kind, -1 if none                      */
  GC_word free_bytes;       /* free heap-block bytes just before growing */
  GC_word largest_free_bytes; /* largest free heap block just before    */
  GC_word grow_bytes;       /* bytes added to the heap                   */
  GC_word heap_bytes_after; /* heap size after (including unmapped)      */
};

/* Fill *out (out_sz bytes of it) with the last heap growth.  Takes the */
/* allocation lock.  Returns the number of bytes written; 0 in a        */
/* --disable-accounting build.                                          */
GC_API size_t GC_CALL GC_acc_get_last_grow(struct GC_acc_grow_s * /* out */,
                                           size_t /* out_sz */);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_ACCOUNTING_H */
