/*
 * gca_priv.h: declarations shared by the accounting modules (our
 * gc_priv.h).  Every accounting .c file includes this first.  It pulls in
 * bdwgc's private header, so the modules see the collector's internals;
 * nothing declared here is exported from libgc (GC_INNER).
 */

#ifndef GCA_PRIV_H
#define GCA_PRIV_H

#include "private/gc_priv.h"
#include "gc_accounting.h"

#ifndef GC_ACC_DISABLE

/* ---- size classes ---------------------------------------------------- */
/* Small objects are classed by granules (1..MAXOBJGRANULES, as bdwgc's   */
/* own free lists); larger ones by the power of two of their granted     */
/* size: class GCA_LARGE0 + b holds sizes in [2^(b+GCA_LARGE_LOG0),      */
/* 2^(b+GCA_LARGE_LOG0+1)).                                              */
#define GCA_LARGE0 (MAXOBJGRANULES + 1)
#define GCA_LARGE_LOG0 (CPP_LOG_HBLKSIZE - 1)   /* 2^11 = MAXOBJBYTES */
#define GCA_N_LARGE (CPP_WORDSZ - GCA_LARGE_LOG0)
#define GCA_N_CLASSES (GCA_LARGE0 + GCA_N_LARGE)

/* Class of an object whose collector-granted size is bytes.            */
GC_INNER unsigned gca_class_of(word granted_bytes);

/* Allocation counts of one (kind, class). */
struct gca_count {
  word objs;
  word req_bytes;
  word granted_bytes;
};

/* ---- per-thread counters (counters.c) -------------------------------- */
/* Each thread that allocates owns one gca_thread; only the owner writes */
/* it (plain loads and stores, no locks, no read-modify-write atomics).  */
/* Readers sum all records.  Records are never freed: a thread that      */
/* exits leaves its totals in place and its record is reused by the next */
/* new thread, which keeps adding to the same cumulative counts.         */
struct gca_thread;

/* Sum of all threads' counts, one (kind, class) at a time.              */
GC_INNER void gca_counters_sum(struct gca_count *out /* [MAXOBJKINDS]     */
                                                    /* [GCA_N_CLASSES] */);
GC_INNER word gca_counters_debug_objs(int kind);

/* ---- collections (hooks.c) -------------------------------------------- */
GC_EXTERN word gca_collections;
GC_EXTERN word gca_heap_grows;

/* ---- OS memory for our own tables (never from the GC heap) ----------- */
GC_INNER void *gca_os_alloc(size_t bytes);   /* zeroed, or NULL */

/* ---- free heap-block lists (freelist.c) ------------------------------ */
/* bdwgc's free-list geometry (allchblk.c keeps these private; ours must  */
/* match: UNIQUE_THRESHOLD, HUGE_THRESHOLD, FL_COMPRESSION, N_HBLK_FLS).  */
#define GCA_UNIQUE_THRESHOLD 32
#define GCA_HUGE_THRESHOLD 256
#define GCA_FL_COMPRESSION 8
#define GCA_N_HBLK_FLS ((GCA_HUGE_THRESHOLD - GCA_UNIQUE_THRESHOLD) \
                        / GCA_FL_COMPRESSION + GCA_UNIQUE_THRESHOLD)

struct gca_freelist_books {
  word blocks[GCA_N_HBLK_FLS + 1];          /* free blocks per list index */
  word bytes[GCA_N_HBLK_FLS + 1];           /* their bytes                */
  word unmapped_bytes[GCA_N_HBLK_FLS + 1];  /* of which unmapped          */
};
GC_EXTERN struct gca_freelist_books gca_fl;

GC_INNER int gca_freelist_index(word blocks);
GC_INNER void gca_freelist_add(hdr *hhdr, int index);
GC_INNER void gca_freelist_del(hdr *hhdr, int index);
GC_INNER void gca_freelist_split(hdr *hhdr, word h_size, int index);
GC_INNER void gca_freelist_unmap(hdr *hhdr, int unmapped);
GC_INNER void gca_freelist_rebuild(void);   /* lock held */

/* ---- counters.c entry points ----------------------------------------- */
GC_INNER void gca_counters_alloc(void *p, size_t lb);
GC_INNER void gca_counters_alloc_tl(void *p, size_t lb);
GC_INNER void gca_counters_many_begin(void **result);
GC_INNER void gca_counters_many_end(void **result, size_t lb);
GC_INNER void gca_counters_debug(void *p);
GC_INNER void gca_counters_thread_exit(void);

/* ---- the dump file (writer.c) ---------------------------------------- */
/* Non-blocking: copies len bytes (one whole JSON line, newline included) */
/* into the writer's bounded buffer and returns 0, or returns nonzero and */
/* counts a drop if the buffer is full or no dump is open.  Never waits.  */
GC_INNER int gca_dump_submit(const char *line, size_t len);
/* Drops since the previous call (the next record reports them).          */
GC_INNER word gca_dump_take_dropped(void);
/* Nonzero while a dump file is open for writing.                         */
GC_INNER int gca_dump_is_open(void);

/* ---- records (record.c) ----------------------------------------------- */
/* Build one record and submit it.  with_census: after a collection, with  */
/* the census of this collection's mark bits; else counters and free-list  */
/* books only (GC_acc_record_now between collections).  Lock held.         */
GC_INNER void gca_record_emit(int with_census);

/* ---- settings (env.c) ------------------------------------------------- */
GC_INNER void gca_env_read(void);

/* Turn on/off; called with the lock NOT held.                           */
GC_INNER void gca_set_on(int on);

/* ---- portability ----------------------------------------------------- */
#if defined(THREADS)
# if defined(_MSC_VER)
#   define GCA_TLS __declspec(thread)
# else
#   define GCA_TLS __thread
# endif
#else
# define GCA_TLS /* one thread */
#endif

/* Relaxed single-word load/store: a reader on another thread sees a      */
/* whole value, never a torn one; no read-modify-write is ever emitted.   */
#if defined(__GNUC__) || defined(__clang__)
# define GCA_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
# define GCA_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#else
# define GCA_LOAD(p) (*(volatile word *)(p))
# define GCA_STORE(p, v) (void)(*(volatile word *)(p) = (v))
#endif

#endif /* !GC_ACC_DISABLE */

#endif /* GCA_PRIV_H */
