/* SPDX-License-Identifier: MIT */
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
  /* Times are 64-bit on every target (a 32-bit word of nanoseconds     */
  /* wraps every 4.3 s).                                                 */
  unsigned long long mark_ns;   /* that collection's mark time          */
  unsigned long long census_ns; /* the census's time at collection end */
  /* 1 if the last census counted each block as the collector's own    */
  /* sweep passed it (GC_start_reclaim: its time is then in that walk, */
  /* not in census_ns), 0 if it walked the heap itself (the full and   */
  /* trace profiles, find-leak's checking pass) or none was taken.    */
  GC_word census_rode;
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
/* dump is closed (it may start its own).  A regular file is claimed    */
/* (an advisory lock, held until the dump stops) before it is           */
/* truncated: if another process is writing it, the dump goes to        */
/* path.PID instead, with one warning naming both.                      */
GC_API int GC_CALL GC_acc_dump_start(const char * /* path */);

/* Stop the dump: write every record still queued, then the gzip        */
/* trailer, close the file and join the writer thread.  May wait for    */
/* the file's I/O; never holds the allocation lock while doing so.  If  */
/* records were dropped since the last one written, first adds one last */
/* snapshot record that counts them and carries their counts (taking   */
/* the allocation lock briefly, if it is free within a few ms).  Never  */
/* waits without bound on a lock, so an exit() from a signal handler    */
/* cannot hang on it.                                                    */
/* Called automatically at exit() (an atexit handler), so it is only    */
/* needed to close the file early; and by GC_deinit().  Builds with     */
/* DONT_USE_ATEXIT (Unity's) register no handler: there GC_deinit or    */
/* this call ends the dump, else it ends as a killed process's does    */
/* (docs/il2cpp.md).  A process killed before that leaves               */
/* a file without trailer that still decompresses, up to the last whole */
/* record written.  Returns GC_SUCCESS (also when no dump is open), or  */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                    */
GC_API int GC_CALL GC_acc_dump_stop(void);

/* Set the size in bytes of the buffer between the collector and the    */
/* dump's writer thread, for dumps started after this call.  Equivalent */
/* to GC_ACC_DUMP_BUFFER in the environment.  0 restores the default: a */
/* buffer that starts at 256 KiB (2 MiB with tags on) and grows up to   */
/* 64 MiB when records are large for it or one did not fit.  Other      */
/* values, 4096 to 1 GiB, fix the size (rounded up to whole 4 KiB      */
/* pages).  When the buffer is full the collector does not wait: the    */
/* record is dropped and counted (the next record reports the drops).   */
/* Returns GC_SUCCESS, GC_ERROR for a size out of range (the setting is */
/* kept, one warning says why), GC_UNIMPLEMENTED in a                   */
/* --disable-accounting build.                                           */
GC_API int GC_CALL GC_acc_set_dump_buffer_size(size_t /* bytes */);

/* How long GC_acc_dump_stop, and so the program's exit, waits for the  */
/* dump's writer to write what is queued, in milliseconds (default 500, */
/* at most 60000).  A writer that cannot finish in that time (a FIFO    */
/* whose reader stopped reading) is left behind with one warning saying */
/* how many records were not written, and the file ends there.  Equal   */
/* to GC_ACC_DUMP_EXIT_WAIT in the environment.  GC_SUCCESS, or         */
/* GC_ERROR (the setting unchanged, one warning) for a value over 60000; */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                    */
GC_API int GC_CALL GC_acc_set_dump_exit_wait(unsigned /* ms */);

/* Every how many collection records of a dump one is whole (a key      */
/* frame; the first always is): the others carry only the census rows  */
/* that changed since the record before (docs/dump-format.md, "Delta    */
/* records"), and gcacc rebuilds the rest.  1 makes every record whole, */
/* as dumps were before.  Default 64, at most 1000000.  Equal to        */
/* GC_ACC_DUMP_KEYFRAME in the environment.  GC_SUCCESS, or GC_ERROR    */
/* (the setting unchanged, one warning) for 0 or a value over 1000000;  */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                    */
GC_API int GC_CALL GC_acc_set_dump_keyframe(unsigned /* every */);

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
  unsigned long long t_ns;  /* CLOCK_MONOTONIC time of the growth, ns    */
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

/* ---- callsites: allocation call stacks (docs/environment.md,         */
/* GC_ACC_STACKS; docs/dump-format.md, "Sampling") ---------------------- */

/* Stack modes.  OFF: no stacks (every object's site is 0).  ALL: every */
/* allocation's call stack is captured and interned into a site id.     */
/* SAMPLE: Poisson sampling by bytes, a mean of one sampled allocation  */
/* per sample_bytes allocated per thread (as jemalloc, tcmalloc, Go);   */
/* unsampled allocations get site 1, and a sampled object of s bytes    */
/* stands for s / (1 - exp(-s / sample_bytes)) bytes.                   */
#define GC_ACC_STACKS_OFF 0
#define GC_ACC_STACKS_ALL 1
#define GC_ACC_STACKS_SAMPLE 2
/* Site ids: 0 no stack (off), 1 not sampled, 2 and up a call stack.    */
#define GC_ACC_SITE_NONE 0
#define GC_ACC_SITE_UNSAMPLED 1

/* Set the stack mode; sample_bytes is the mean sampling distance for   */
/* GC_ACC_STACKS_SAMPLE (0: the default, 512 KiB) and ignored otherwise. */
/* Equivalent to GC_ACC_STACKS in the environment.  Stacks are captured */
/* only while accounting is on.  Set it before allocating: threads keep */
/* a countdown drawn with the previous mean until their next sample.    */
/* The sampled profile takes each sample's stack whatever this says      */
/* (docs/environment.md); the other profiles keep this choice (without  */
/* one, FULL samples stacks, TRACE takes all, OFF none).  Returns GC_SUCCESS, GC_ERROR for an unknown   */
/* mode or a sample_bytes above 2^63 - 1, the largest number the dump's  */
/* header can carry (with one warning; the setting is kept),             */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                     */
GC_API int GC_CALL GC_acc_set_stacks(int /* mode */,
                                     size_t /* sample_bytes */);

/* Return addresses kept per stack, innermost first (the collector's    */
/* own frames are not counted).  Default 16; 0 restores the default.    */
/* Equivalent to GC_ACC_STACK_DEPTH.  Returns GC_SUCCESS, GC_ERROR above */
/* 64 (the depth is kept, one warning), GC_UNIMPLEMENTED in a          */
/* --disable-accounting build.                                           */
GC_API int GC_CALL GC_acc_set_stack_depth(unsigned /* depth */);

/* The unwinder: GC_ACC_UNWIND_AUTO (the default: sampled stacks by    */
/* the unwind tables, as LIBGCC, where that takes no loader lock --     */
/* glibc 2.35 and later --, stacks taken on every allocation by FP),    */
/* GC_ACC_UNWIND_FP (a frame-pointer walk, fast, needs code built with  */
/* frame pointers, never faults without them: one frame on code built   */
/* without) or GC_ACC_UNWIND_LIBGCC (_Unwind_Backtrace: DWARF unwind     */
/* tables, right without frame pointers, some us a stack).  Equivalent  */
/* to GC_ACC_UNWIND.  Takes the allocation lock (the large objects'     */
/* path that runs depends on the unwinder: docs/design.md,               */
/* "GC_generic_malloc made three times").  Returns GC_SUCCESS, GC_ERROR  */
/* for an unknown value, GC_UNIMPLEMENTED in a --disable-accounting     */
/* build.                                                                */
#define GC_ACC_UNWIND_FP 0
#define GC_ACC_UNWIND_LIBGCC 1
#define GC_ACC_UNWIND_AUTO 2
GC_API int GC_CALL GC_acc_set_unwinder(int /* unwinder */);

/* Run the sampler for an allocation of granted_bytes made here, as the */
/* allocation hooks do, and return its site id (0 when stacks are off,  */
/* 1 when not sampled).  For allocators of one's own built on top of the */
/* collector, and for tests.  0 in a --disable-accounting build.         */
GC_API unsigned GC_CALL GC_acc_capture_site(size_t /* granted_bytes */);

/* The site id of the calling thread's most recent allocation (or       */
/* GC_acc_capture_site) while stacks were on; 0 if none.                 */
GC_API unsigned GC_CALL GC_acc_last_site(void);

/* Copy the return addresses of site id (innermost first) into          */
/* frames[0..max) and return how many the site has (may exceed max);    */
/* -1 if id is not an interned stack.  Lock-free.                        */
GC_API int GC_CALL GC_acc_site_frames(unsigned /* id */,
                                      GC_word * /* frames */,
                                      unsigned /* max */);

/* Bytes a sampled object of granted_bytes stands for under the current */
/* mode: granted_bytes / (1 - exp(-granted_bytes / sample_bytes)) when  */
/* sampling, granted_bytes otherwise.                                   */
GC_API double GC_CALL GC_acc_site_weight(size_t /* granted_bytes */);

/* ---- types, callsites, ages, frames (docs/dump-format.md) --------- */
/* With accounting on, every object carries a tag in a side table of    */
/* the collector (never in the object: its size, layout and size class  */
/* do not change): its type cookie, its callsite and the collection at  */
/* which it was allocated.  Each collection record then gives, per type */
/* and per callsite, live objects and bytes, allocations and frees      */
/* since the previous record, and live objects by age.                  */
/*                                                                       */
/* A type cookie is an opaque nonzero word chosen by the embedder (a    */
/* class pointer, a type index, ...); 0 means "no type".  It comes from */
/* GC_acc_set_next_type / GC_acc_malloc_typed, or, for objects of the   */
/* gcj kind, from their vtable pointer (word 0), or, for the kinds set  */
/* with GC_acc_set_first_word_type_kinds, from word 0 of the object,    */
/* read when a collection or a free first meets the object.             */

/* The type cookie of the next object this thread allocates (any       */
/* allocation function); consumed by that allocation.  No effect while  */
/* accounting is off, or in a --disable-accounting build.  The first    */
/* call (or GC_acc_malloc_typed's) takes the allocation lock once: the  */
/* sampled profile's thread-local pops take a path that can tell what   */
/* the next allocation was, two or three instructions longer.           */
GC_API void GC_CALL GC_acc_set_next_type(GC_word /* cookie */);

/* GC_malloc / GC_malloc_atomic of an object whose type cookie is       */
/* cookie.  Exactly the object GC_malloc(lb) (GC_malloc_atomic(lb))    */
/* would return, in every build.                                        */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_acc_malloc_typed(size_t /* lb */, GC_word /* cookie */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_acc_malloc_atomic_typed(size_t /* lb */, GC_word /* cookie */);

/* Names a type: writes a NUL-terminated name of cookie into buf (at    */
/* most buf_sz bytes) and returns nonzero, or returns 0 (the default    */
/* name is used: "type 0x...", "gcj vtable 0x...", "class 0x...").     */
/* Called once per type and dump, when a record first mentions the     */
/* type: with the allocation lock held, from the thread that triggered */
/* the collection or called GC_acc_frame.  It must not allocate from    */
/* the collector, take locks the program may hold while allocating, or */
/* call any GC_ function.  UTF-8 names are kept; other bytes become ?.  */
typedef int (GC_CALLBACK * GC_acc_type_namer_proc)(GC_word /* cookie */,
                                                   char * /* buf */,
                                                   size_t /* buf_sz */);
GC_API void GC_CALL GC_acc_set_type_namer(GC_acc_type_namer_proc);

/* "First word is the type" mode: for objects of every kind k whose bit */
/* (1 << k) is set in kind_mask, word 0 is the type cookie (IL2CPP:      */
/* Il2CppObject starts with its klass; use (1 << GC_I_PTRFREE) |        */
/* (1 << GC_I_NORMAL)).  Word 0 is read when a collection or a free     */
/* first meets an object without an explicit type; a zero word, or one  */
/* pointing into the collector's heap, is not a type.  Equivalent to    */
/* GC_ACC_FIRST_WORD_TYPES in the environment.  Default 0 (off).        */
/* Returns GC_SUCCESS, GC_ERROR for a bit of a kind the collector      */
/* cannot have (the setting is kept, one warning), GC_UNIMPLEMENTED in a */
/* --disable-accounting build.                                           */
GC_API int GC_CALL GC_acc_set_first_word_type_kinds(unsigned /* mask */);

/* The type mode, equivalent to GC_ACC_TYPES in the environment (the    */
/* way for builds without getenv, such as IL2CPP's, to switch it on).   */
/* GC_ACC_TYPES_COOKIES (the default): types are the opaque cookies     */
/* above.  GC_ACC_TYPES_IL2CPP: word 0 of every PTRFREE, NORMAL and gcj */
/* object (and of Unity's gcj-vector kind, where the collector has it) */
/* is taken to be its Il2CppClass: checked, without ever dereferencing  */
/* it (a bad word cannot make a collection fault), by the class's self- */
/* pointer field (byte 120 on 64-bit, 60 on 32-bit), and named          */
/* "Namespace.Name" from its name and namespaze fields when a record    */
/* first mentions it (a namer set with GC_acc_set_type_namer is asked   */
/* first).  A word 0 that is not a class (nor zero, nor a pointer into  */
/* the heap, which wait for a later collection) counts under the type   */
/* "unknown (<kind>)" of its kind.  Call it before the objects to type  */
/* are allocated (right after GC_INIT).  Takes the allocation lock.     */
/* Returns GC_SUCCESS, GC_ERROR for an unknown mode, GC_UNIMPLEMENTED   */
/* in a --disable-accounting build.                                      */
#define GC_ACC_TYPES_COOKIES 0
#define GC_ACC_TYPES_IL2CPP 1
GC_API int GC_CALL GC_acc_set_type_mode(int /* mode */);

/* ---- the object profile: types and callsites (docs/environment.md,  */
/* GC_ACC_PROFILE; docs/dump-format.md, "The sampled profile") --------- */

/* Profiles.  OFF: no types nor callsites (counters by kind and size     */
/* class, the census, free-block books and the dump only).  SAMPLED    */
/* (the default): Poisson samples by bytes, one per sample_bytes         */
/* allocated on average per thread (512 KiB by default), each with its  */
/* callsite and type; records carry per-type and per-callsite estimates */
/* (a sampled object of s bytes stands for 1 / (1 - exp(-s / R))       */
/* objects); unsampled objects carry nothing.  Cheap enough to leave on */
/* (bench/README.md has the figures).  FULL: a tag on every object      */
/* (exact types, sampled callsites -- GC_ACC_STACKS_SAMPLE, 512 KiB --  */
/* unless GC_acc_set_stacks or GC_ACC_STACKS chose, ages, frames): for  */
/* development.  TRACE: FULL with a call stack for every allocation.    */
#define GC_ACC_PROFILE_OFF 0
#define GC_ACC_PROFILE_SAMPLED 1
#define GC_ACC_PROFILE_FULL 2
#define GC_ACC_PROFILE_TRACE 3

/* Set the profile; sample_bytes is SAMPLED's mean distance between     */
/* samples (0: the default, 512 KiB), ignored otherwise.  Equivalent to */
/* GC_ACC_PROFILE in the environment.  Switching starts the new profile */
/* from nothing (samples or tags taken before are forgotten).  Leaving */
/* the full or trace profile keeps the tag tables of the blocks in use, */
/* unread (acc_memory.tags_bytes), till each block is freed or tags    */
/* come back: threads tag without a lock.  Takes                         */
/* the allocation lock.  Returns GC_SUCCESS, GC_ERROR for an unknown    */
/* profile or a sample_bytes above 2^63 - 1, the largest number the     */
/* dump's header can carry (with one warning; the setting is kept),     */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                     */
GC_API int GC_CALL GC_acc_set_profile(int /* profile */,
                                      size_t /* sample_bytes */);
/* The profile in effect (GC_ACC_PROFILE_*), and SAMPLED's mean.        */
GC_API int GC_CALL GC_acc_get_profile(size_t * /* sample_bytes, or NULL */);

/* The cap on the side tables' memory (samples, callsites, tag tables), */
/* in bytes (0: the default, 256 MiB).  Past it samples are dropped,    */
/* new callsites become "stack unknown" and new blocks go untagged,     */
/* counted in the records and said once on stderr.  Equivalent to       */
/* GC_ACC_TABLE_LIMIT.  GC_SUCCESS, or GC_ERROR (the limit kept, one    */
/* warning) below 64 KiB or above 2^63 - 1 (the largest number the      */
/* dump's header can carry).                                              */
GC_API int GC_CALL GC_acc_set_table_limit(size_t /* bytes */);

/* ---- why is it alive (docs/dump-format.md, "Retention records") --- */

/* Ask for the paths that keep a type alive: at the end of the next    */
/* collection (at_gc 0), or of the first whose number (GC_get_gc_no)   */
/* reaches at_gc, the collector walks from its roots over the objects  */
/* that collection marked, world stopped, until it reaches 5 instances */
/* of the type (the nearest: shortest paths), and writes one "retain"   */
/* record to the dump with each path from its root.  The type is named */
/* as the dump names it (type_name, e.g. "Game.UI.EventHandler" with    */
/* GC_ACC_TYPES=il2cpp), or given by its cookie when type_name is NULL.*/
/* One request at a time: a new one replaces one still waiting.  The   */
/* walk's memory is capped (GC_acc_set_retain_memory); past the cap it  */
/* stops and the record says "partial".  Nothing is done without a     */
/* dump open at that collection.  Equivalent to GC_ACC_RETAIN=type:NAME */
/* (next collection).  Takes the allocation lock.  GC_SUCCESS, GC_ERROR */
/* for an empty or too long name (255 bytes at most) or a 0 cookie,     */
/* GC_UNIMPLEMENTED in a --disable-accounting build.                    */
GC_API int GC_CALL GC_acc_retain_request(const char * /* type_name */,
                                         GC_word /* cookie */,
                                         GC_word /* at_gc */);
/* The same for the instances allocated at a callsite (site, 2 and up: */
/* the dump's site id, or GC_acc_last_site() after the allocation), as  */
/* their tags say (a profile with callsites: GC_ACC_STACKS or trace).   */
/* Equivalent to GC_ACC_RETAIN=site:ID.  GC_SUCCESS, GC_ERROR for a     */
/* site below 2, GC_UNIMPLEMENTED in a --disable-accounting build.      */
GC_API int GC_CALL GC_acc_retain_site(unsigned /* site */,
                                      GC_word /* at_gc */);
/* GC_ACC_RETAIN=auto (nonzero; 0: off): when the dump stops            */
/* (GC_acc_dump_stop, or exit), the paths to the (at most 3) types and  */
/* the (at most 3) callsites that `gcacc leaks` would name (its rules   */
/* 1-6 on every census since the first collection after this call),    */
/* those that grew most, one "retain" record each ("auto":1), walked    */
/* over the last collection's marks.  GC_SUCCESS; GC_UNIMPLEMENTED in a */
/* --disable-accounting build.                                           */
GC_API int GC_CALL GC_acc_retain_auto(int /* on */);
/* The bound on a retention walk's pause, in milliseconds (0: the      */
/* default, twice the time that collection's marking took, at least 50 */
/* ms); past it the walk stops and its record says "partial" and       */
/* "timed_out".  Equivalent to GC_ACC_RETAIN_PAUSE.  GC_SUCCESS, or     */
/* GC_ERROR over 60000.                                                 */
GC_API int GC_CALL GC_acc_set_retain_pause(unsigned /* ms */);
/* The cap on a retention walk's memory (its nodes and their hash), in  */
/* bytes; 0: the default, 64 MiB.  Equivalent to GC_ACC_RETAIN_MEMORY. */
/* GC_SUCCESS, or GC_ERROR below 64 KiB.                                */
GC_API int GC_CALL GC_acc_set_retain_memory(size_t /* bytes */);

/* The older switch, kept: nonzero is GC_ACC_PROFILE_FULL, 0 is         */
/* GC_ACC_PROFILE_OFF.  Object tags (types, callsites, ages and frame   */
/* counts) on (nonzero) or off (0): with them off, accounting keeps only the    */
/* per-thread counters, the census by kind and size class, the free-    */
/* block books and the dump, with no per-object side tables: records    */
/* then carry no types, sites, type_rows nor site_rows, frame records   */
/* no rows, and the type and site stats are not updated.  Switching on  */
/* starts every in-use block with a clean table (types, sites and ages   */
/* count from there).  Equivalent to GC_ACC_TAGS in the environment.    */
/* Takes the allocation lock.  Returns GC_SUCCESS, or GC_UNIMPLEMENTED   */
/* in a --disable-accounting build.                                      */
GC_API int GC_CALL GC_acc_set_tags(int /* on */);

/* Marks the end of frame n (a game's frame number, or any counter):    */
/* writes a "frame" record with the allocations since the previous      */
/* marker, per type and callsite, even when no collection happened.     */
/* The first call only starts the per-frame counting and writes no      */
/* record (until then the allocation paths keep no per-frame counts,    */
/* which cost time and per-thread memory): call it once before the      */
/* first frame to have that frame recorded too.                          */
/* Takes the allocation lock.  Returns GC_SUCCESS, GC_ERROR if          */
/* accounting is off, or GC_UNIMPLEMENTED.                               */
GC_API int GC_CALL GC_acc_frame(GC_word /* n */);

/* Number of age bins: objects that survived 0, 1, 2-3, 4-7, 8-15,      */
/* 16-31 and 32 or more collections before the last one.                */
#define GC_ACC_AGE_BINS 7

/* One type's (or callsite's) numbers.  Fields are only ever appended.  */
struct GC_acc_group_stats_s {
  /* From the census of the last collection.                             */
  GC_word live_objs;
  GC_word live_bytes;       /* granted bytes                            */
  /* Cumulative since accounting went on, as far as censuses and frees  */
  /* have seen them (an object allocated after the last collection is   */
  /* counted by the next one, or when freed).                           */
  GC_word alloc_objs;
  GC_word alloc_bytes;
  GC_word freed_objs;       /* found unmarked, GC_free'd, block freed   */
  GC_word freed_bytes;
  GC_word age_objs[GC_ACC_AGE_BINS];    /* live objects by age bin      */
};

/* Fill *out (out_sz bytes of it) for type cookie (0: objects without   */
/* a type) or callsite id.  Take the allocation lock.  Return the bytes */
/* written; 0 if the type or site is unknown or in a                    */
/* --disable-accounting build.                                          */
GC_API size_t GC_CALL GC_acc_get_type_stats(GC_word /* cookie */,
                                struct GC_acc_group_stats_s * /* out */,
                                size_t /* out_sz */);
GC_API size_t GC_CALL GC_acc_get_site_stats(unsigned /* site */,
                                struct GC_acc_group_stats_s * /* out */,
                                size_t /* out_sz */);

/* The tag of object p (the base of a collector object): its type       */
/* cookie (0 if none known yet) and callsite id.  Takes the allocation  */
/* lock.  Returns 1, or 0 if p carries no tag.                          */
GC_API int GC_CALL GC_acc_get_object_tag(const void * /* p */,
                                         GC_word * /* cookie */,
                                         unsigned * /* site */);

/* Checks the free-block books (blocks and bytes per free list, mapped */
/* and unmapped, the largest free block), read off the collector's free */
/* lists when a record or GC_acc_get_stats asks, against a walk of the  */
/* whole heap, as a test or a bug report would.  Takes the allocation   */
/* lock; the walk visits every heap block, so it is slow on a large     */
/* heap.  Returns NULL if they agree (or in a --disable-accounting      */
/* build), else a short static description of the first difference.   */
GC_API const char * GC_CALL GC_acc_check_books(void);

/* Bytes of OS memory the accounting tables use now (tags, types,       */
/* callsites, counters, samples, the per-kind tables, the unwinder's     */
/* caches); the records give the same as acc_memory_bytes.              */
GC_API GC_word GC_CALL GC_acc_get_memory_bytes(void);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_ACCOUNTING_H */
