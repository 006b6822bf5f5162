/* SPDX-License-Identifier: MIT */
/*
 * gca_hooks.h: the contract between bdwgc and gcacc's accounting.
 *
 * This is the only gcacc header the upstream patches include (at the end of
 * include/private/gc_priv.h).  Each GC_ACC_ON_<EVENT> macro below stands at
 * one or more points in upstream's sources; docs/hooks.md lists every site.
 *
 * Cost when accounting is off: one load and one predictable branch, as with
 * bdwgc's own COND_DUMP.  Configured with --disable-accounting (GC_ACC_DISABLE
 * defined), every macro expands to nothing at all.  Each macro is an
 * expression of type void, so it can also stand inside another macro's
 * argument (the thread-local allocation path needs that).
 *
 * What a hook body must never do: allocate from the GC heap, take the
 * allocation lock, block on I/O or on another thread, or call back into
 * the embedder.  Bodies are GC_INNER (static inside the one-file
 * extra/gc.c build), so nothing here is exported from libgc.
 *
 *   GC_ACC_ON_INIT()            misc.c GC_init, before the collection it
 *                               makes (so that one has a record), at the
 *                               end with GC_ASSERTIONS and
 *                               GC_ALWAYS_MULTITHREADED (the lock is held
 *                               there); lock not held.
 *                               Reads GC_ACC_* settings, starts dumping.
 *   GC_ACC_ON_INCREMENTAL()     misc.c GC_enable_incremental, at entry
 *                               (8.2.2 only): incremental collection may
 *                               start, so GC_gcj_malloc no longer runs
 *                               its copy without the test of
 *                               GC_incremental (GC_ACC_GCJ_SLOW below).
 *                               Lock not held.
 *   GC_ACC_ON_ALLOC(p, lb, k)   after an object p of kind k was taken for a
 *                               request of lb bytes (p may be NULL: ignored).
 *                               Sites: every place upstream adds to
 *                               GC_bytes_allocd for one object: malloc.c
 *                               (GC_generic_malloc_inner small,
 *                               GC_generic_malloc large,
 *                               GC_malloc_kind_global,
 *                               GC_generic_malloc_uncollectable), gcj_mlc.c
 *                               (both free-list pops), typd_mlc.c, mallocx.c
 *                               (GC_generic_malloc_ignore_off_page).  Lock
 *                               held.  For a small lb (SMALL_OBJ), p must
 *                               come from the free list of kind k and
 *                               GC_size_map[lb] granules: the body counts
 *                               from those, with no header lookup (a
 *                               site that adjusts lb, as uncollectable and
 *                               typed ones do, passes the adjusted lb;
 *                               GC_ASSERT builds check it).
 *   GC_ACC_ON_ALLOC_FL(p, lb, k, lg)
 *                               the same, at a site that has just popped
 *                               p from the global free list of kind k and
 *                               lg granules (never inside
 *                               GC_generic_malloc_many): malloc.c
 *                               (GC_malloc_kind_global,
 *                               GC_generic_malloc_uncollectable), gcj_mlc.c
 *                               (both pops), typd_mlc.c.  Lock held.  In
 *                               mode 1 (counting, no tags) the macro counts
 *                               inline, into the lock-held rows
 *                               (gca_locked_kind), with no call.
 *   GC_ACC_ON_ALLOC_INNER(p, lb, k, lg)
 *                               the same at GC_generic_malloc_inner's pop
 *                               (malloc.c), which also makes the object
 *                               of GC_generic_malloc_many's last attempt:
 *                               between GC_ACC_ON_ALLOC_MANY_BEGIN and its
 *                               end (gca_many_tl.in) it calls the hook
 *                               function, which remembers the object for
 *                               the end (counters.c); else as
 *                               GC_ACC_ON_ALLOC_FL.  Lock held.
 *   GC_ACC_ON_ALLOC_LARGE(p, lb, k, n_blocks)
 *                               the same for a large object p (not NULL)
 *                               of n_blocks whole heap blocks: malloc.c
 *                               (GC_generic_malloc), mallocx.c
 *                               (GC_generic_malloc_ignore_off_page).  Lock
 *                               held.  Counted with no header lookup.
 *   GC_ACC_ON_ALLOC_LARGE_LB(p, lb, k)
 *                               the same for a large object p (or NULL)
 *                               that GC_alloc_large_and_clear made for
 *                               ADD_SLOP(lb) bytes: malloc.c
 *                               (GC_generic_malloc_inner large,
 *                               GC_generic_malloc_inner_ignore_off_page;
 *                               GC_core_gcj_malloc's large objects come
 *                               there).  Its block count follows from lb,
 *                               as GC_alloc_large computes it.  Lock held.
 *   GC_ACC_TL_DECL(v), GC_ACC_TL_POPPED(v, fl, lb, granules),
 *   GC_ACC_ON_ALLOC_TL_RETURN(v, p, lb, granules, k)
 *   GC_ACC_ON_ALLOC_TL_GCJ_RETURN(v, p, lb, granules)
 *                               thread_local_alloc.c GC_malloc_kind and
 *                               GC_gcj_malloc: the count of an object
 *                               popped from the thread's own free list
 *                               slot fl (&_freelists[k][granules],
 *                               &gcj_freelists[granules]), for a request
 *                               of lb bytes: POPPED, on the branch that
 *                               pops, compares the list's flag with 0
 *                               and counts inline; it sets v when a
 *                               hook function is due, which RETURN, at
 *                               the function's end (p the object, k its
 *                               kind), then tail-calls, returning p.
 *                               Lock NOT held: the body touches only
 *                               this thread's counters, with plain loads
 *                               and stores.  The fast path keeps
 *                               upstream's registers (in the pop branch,
 *                               the next entry is live for the
 *                               prefetch), and the hook functions are
 *                               reached by tail calls only.  On 8.2.2
 *                               both functions are made three times
 *                               (GC_ACC_COPY_BODY, below): with
 *                               accounting off a copy without these
 *                               hooks runs, upstream's own code; in
 *                               mode 1 one that reads no flag (and
 *                               once a type was set a fourth, the
 *                               typed copy, GCA_TL_COUNT_TYPED_).
 *   GCA_TLFS_FIELDS             include/private/thread_local_alloc.h, in
 *                               struct thread_local_freelists: the counts
 *                               the two macros above add to (below).
 *   GC_ACC_ON_ALLOC_MANY_BEGIN(result)
 *   GC_ACC_ON_ALLOC_MANY_END(result, lb, k)
 *                               mallocx.c GC_generic_malloc_many: BEGIN
 *                               before it makes an object that
 *                               GC_ACC_ON_ALLOC counts (8.2.2: before its
 *                               two allocations; Unity's fork: at entry),
 *                               END at every exit.  *result is the list
 *                               handed out.  A list for the calling thread's
 *                               own thread-local free lists is not counted
 *                               (each object is counted when popped); any
 *                               other list (GC_malloc_many, gc_inline.h) is
 *                               counted when handed out.  Lock may or may not
 *                               be held (parallel-mark exits drop it).  END
 *                               calls its hook function only for a list
 *                               that is not for the thread's own lists, or
 *                               after a BEGIN (gca_many_tl, below).
 *   GC_ACC_ON_DEBUG_ALLOC(p, sz)
 *                               dbg_mlc.c GC_store_debug_info_inner: p (the
 *                               base of an object already counted) carries a
 *                               debug header for a client object of sz bytes.
 *                               Lock held.
 *   GC_ACC_ON_HBLK_UNMET(result, sz, kind, flags)
 *                               allchblk.c GC_allochblk, at its end: if
 *                               result is NULL, no free block could hold
 *                               objects of sz bytes (the request a heap
 *                               growth that follows is for); else nothing.
 *                               Lock held.
 *   GC_ACC_ON_HBLK_ALLOC(h, hhdr)
 *                               allchblk.c GC_allochblk_nth, on success: h is
 *                               set up for hhdr->hb_obj_kind, hhdr->hb_sz.
 *   GC_ACC_ON_HBLK_FREE(h, hhdr)
 *                               allchblk.c GC_freehblk, at entry (header
 *                               still describes the in-use block).
 *   GC_ACC_ON_FREE(p)           malloc.c GC_free, small objects only, with
 *                               the lock held, before p goes back on its
 *                               free list (its memory still intact).  Large
 *                               objects reach GC_ACC_ON_HBLK_FREE instead.
 *                               Counts p's tags as freed and clears them.
 *   GC_ACC_ON_HEAP_GROW(p, bytes)
 *                               alloc.c GC_add_to_heap, before the new
 *                               section enters the free lists.  Lock held.
 *   GC_ACC_ON_MARK_BEGIN()      alloc.c GC_stopped_mark, at entry.
 *   GC_ACC_ON_MARK_END(done)    alloc.c GC_stopped_mark, right after the world
 *                               restarts; done is FALSE if marking was
 *                               abandoned (incremental time limit).
 *   GC_ACC_ON_RECLAIM_BEGIN(report_if_found)
 *                               reclaim.c GC_start_reclaim, at entry (lock
 *                               held, marks this collection's): the census
 *                               starts riding the reclaim walk unless
 *                               report_if_found (find-leak's checking
 *                               pass) or tags are on (census.c).
 *   GC_ACC_ON_RECLAIM_KEPT(h, hhdr)
 *                               reclaim.c GC_reclaim_block (and the
 *                               disclaim path it calls), for each block h
 *                               that stays in use: the census counts its
 *                               marks while upstream has its header in
 *                               cache.  Only while the census rides.
 *   GC_ACC_ON_COLLECTION_END()  alloc.c GC_finish_collection, after the sweep
 *                               was started and old blocks unmapped; mark
 *                               bits are still those of this collection.
 *                               Lock held, world running.  The census
 *                               walks the tag tables too (tags.c), and the
 *                               record it writes may call the embedder's
 *                               type namer (GC_acc_set_type_namer) once
 *                               per new type: the one callback a hook
 *                               makes, documented as lock held, no GC
 *                               allocation, no GC_ call.
 *   (HBLK_ALLOC and HBLK_FREE also give each in-use block its tag table
 *   and count the tags of a freed block as freed: tags.c.)
 *   GC_ACC_ON_TLFS_INIT(p), GC_ACC_ON_TLFS_DESTROY(p)
 *                               thread_local_alloc.c GC_init_thread_local
 *                               (at its end) and GC_destroy_thread_local
 *                               (at entry), lock held, whether or not
 *                               accounting is on: every thread's
 *                               thread_local_freelists p joins (leaves)
 *                               the list counters.c walks to set the
 *                               fast path's flags when the mode changes.
 *   GC_ACC_ON_THREAD_EXIT()     pthread_support.c
 *                               GC_unregister_my_thread_inner and
 *                               win32_threads.c GC_unregister_my_thread, in
 *                               the exiting thread, lock held, before its
 *                               thread_local_freelists are freed; called
 *                               whether or not accounting is on.
 *   GC_ACC_ON_GCJ_KIND(k)       Unity's fork only: vector_mlc.c
 *                               GC_init_gcj_vector, once it made its kind
 *                               k, lock held: objects of kind k carry
 *                               their class at word 0, as gcj's do, and
 *                               are typed by it (tags.c).  Only sets a
 *                               bit; runs whether or not accounting is on.
 *   (Unity's fork also has GC_ACC_ON_ALLOC_FL in vector_mlc.c
 *   GC_gcj_vector_malloc, on its own free list's pop; docs/hooks.md.)
 */

#ifndef GCA_HOOKS_H
#define GCA_HOOKS_H

/* GCA_FRAME_RECORDS_BEGIN, GCA_FRAME_RECORDS_END: around the sources  */
/* in the one-file build (extra/gc.c) whose functions may stand between */
/* a program's allocation call and the hook that takes its stack (the   */
/* allocation entry points and paths, and accounting's own code): they  */
/* keep frame records, which the frame-pointer walk (unwind.c) needs to */
/* find the program's frames past the collector's.  The rest of the     */
/* collector is compiled as the flags say, without frame pointers at    */
/* -O2, so the mark loop has all its registers (docs/design.md,       */
/* "Frame records where the walk passes").  --disable-accounting: none. */
/* GCA_NO_FRAME_RECORD: on a function inside such a region below which  */
/* no stack is ever taken (malloc.c GC_alloc_large: it runs with the   */
/* lock held, no program code and no allocation hook below it), so that */
/* it is compiled as with accounting compiled out, frame and all        */
/* (docs/design.md, "klass's drift: the allocator's frames",            */
/* "GC_generic_malloc made three times").                                */
#if !defined(GC_ACC_DISABLE) && defined(__GNUC__) && !defined(__clang__)
# define GCA_FRAME_RECORDS_BEGIN \
        _Pragma("GCC push_options") \
        _Pragma("GCC optimize(\"no-omit-frame-pointer\")")
# define GCA_FRAME_RECORDS_END _Pragma("GCC pop_options")
# define GCA_NO_FRAME_RECORD \
        __attribute__((__optimize__("omit-frame-pointer")))
#else
# define GCA_FRAME_RECORDS_BEGIN /* empty */
# define GCA_FRAME_RECORDS_END /* empty */
# define GCA_NO_FRAME_RECORD /* empty */
#endif

#ifdef GC_ACC_DISABLE

# define GC_ACC_ON_INIT()                                 (void)0
# define GC_ACC_ON_DEINIT()                               (void)0
# define GC_ACC_ON_ALLOC(p, lb, k)                        (void)0
# define GC_ACC_ON_ALLOC_FL(p, lb, k, lg)                 (void)0
# define GC_ACC_ON_ALLOC_INNER(p, lb, k, lg)              (void)0
# define GC_ACC_ON_ALLOC_LARGE(p, lb, k, n_blocks)        (void)0
# define GC_ACC_ON_ALLOC_LARGE_LB(p, lb, k)               (void)0
# define GCA_TLFS_FIELDS                                  /* empty */
# define GC_ACC_ON_ALLOC_TL_GCJ_RETURN(v, p, lb, granules) (void)0
# define GC_ACC_TL_DECL(v)                                (void)0
# define GC_ACC_TL_POPPED(v, fl, lb, g)                   (void)0
# define GC_ACC_ON_ALLOC_TL_RETURN(v, p, lb, granules, k) (void)0
# define GC_ACC_COPY_BODY(name, fn, params) \
        GC_API GC_ATTR_MALLOC void * GC_CALL name params
# define GC_ACC_COPIES(name, fn, params, args)        /* empty */
# define GC_ACC_ON_ALLOC_FL_COPY(p, lb, k, lg)            (void)0
# define GC_ACC_ON_ALLOC_MANY_BEGIN(result)               (void)0
# define GC_ACC_ON_ALLOC_MANY_END(result, lb, k)          (void)0
# define GC_ACC_ON_DEBUG_ALLOC(p, sz)                     (void)0
# define GC_ACC_ON_HBLK_UNMET(result, sz, kind, flags)    (void)0
# define GC_ACC_ON_HBLK_ALLOC(h, hhdr)                    (void)0
# define GC_ACC_ON_HBLK_FREE(h, hhdr)                     (void)0
# define GC_ACC_ON_FREE(p)                                (void)0
# define GC_ACC_ON_HEAP_GROW(p, bytes)                    (void)0
# define GC_ACC_ON_MARK_BEGIN()                           (void)0
# define GC_ACC_ON_MARK_END(done)                         (void)0
# define GC_ACC_ON_COLLECTION_END()                       (void)0
# define GC_ACC_ON_RECLAIM_BEGIN(report_if_found)         (void)0
# define GC_ACC_ON_RECLAIM_KEPT(h, hhdr)                  (void)0
# define GC_ACC_ON_TLFS_INIT(p)                           (void)0
# define GC_ACC_ON_TLFS_DESTROY(p)                        (void)0
# define GC_ACC_ON_THREAD_EXIT()                          (void)0
# define GC_ACC_ON_GCJ_KIND(k)                            (void)0
# define GC_ACC_ON_INCREMENTAL()                          (void)0
# define GC_ACC_GCJ_SLOW(incremental)                     (incremental)

#else

/* ---- thread-local variables ----------------------------------------- */
#if defined(THREADS)
# if defined(_MSC_VER)
#   define GCA_TLS __declspec(thread)
# else
#   define GCA_TLS __thread
# endif
#else
# define GCA_TLS /* one thread */
#endif
/* The allocation path's one thread-local struct (gca_tl_self, a few    */
/* dozen bytes): initial-exec on ELF, so a hook reads it at a fixed      */
/* offset from the thread pointer instead of calling __tls_get_addr.     */
/* Static TLS fits it even when libgc is dlopen'ed (glibc keeps spare   */
/* static TLS for such small variables); define GCA_NO_IE_TLS to opt out.*/
/* Code built for an executable (a static libgc, position-dependent or  */
/* PIE: it can never be part of a shared object) takes local-exec: the  */
/* offset is an operand, not a load from the GOT, one instruction fewer */
/* at each use (the countdown on every allocation path among them).     */
#if defined(THREADS) && !defined(_MSC_VER) && !defined(GCA_NO_IE_TLS) \
    && (defined(__GNUC__) || defined(__clang__)) && defined(__ELF__)
# if defined(__PIE__) || !defined(__PIC__)
#   define GCA_TLS_FAST GCA_TLS __attribute__((tls_model("local-exec")))
# else
#   define GCA_TLS_FAST GCA_TLS __attribute__((tls_model("initial-exec")))
# endif
#else
# define GCA_TLS_FAST GCA_TLS
#endif

/* Nonzero while accounting is on.  Set by GC_ACC_ON_INIT from the       */
/* environment, or by GC_acc_enable(); read racily by the hooks (a hook  */
/* that sees a stale value only misses or adds one early event).         */
GC_EXTERN int gca_on;

/* Heap-structure hooks (free lists, heap growth) must run from the      */
/* first heap block on, whether or not counting is on, so that           */
/* turning accounting on later finds the free-list books already right.  */
/* They cost a few adds under the allocation lock, on block operations   */
/* only, never on object allocation.                                     */
GC_EXTERN int gca_track_heap;

/* The thread-local fast path's mode: 0 while accounting is off, 1 while */
/* it is on without tags, 2 with tags (so also "tags on" for the block  */
/* hooks); hooks.c keeps it from gca_on and gca_tags_on.                 */
GC_EXTERN int gca_tl_mode;

/* The hook bodies are never inlined into upstream's functions: inlined, */
/* a body's registers would be saved and restored on every call of its  */
/* host function, accounting on or off.                                 */
# define GCA_HOOK_FN GC_INNER GC_ATTR_NOINLINE

GCA_HOOK_FN void gca_hook_init(void);
/* GC_enable_incremental (8.2.2 only): GC_gcj_malloc's copy without the */
/* test of GC_incremental runs no more (tlflags.c).                      */
GCA_HOOK_FN GC_ATTR_UNUSED void gca_hook_incremental(void);
/* GC_deinit, on both bases, before the collector's state is wiped.    */
GCA_HOOK_FN GC_ATTR_UNUSED void gca_hook_deinit(void);
GCA_HOOK_FN void gca_hook_alloc(void *p, size_t lb, int k);
GCA_HOOK_FN void gca_hook_alloc_large(void *p, size_t lb, int k,
                                      word n_blocks);
/* Mode 1's large object whose countdown was due (GCA_LARGE_COUNT):     */
/* counted, and sampled if the countdown says so; returns p.            */
GCA_HOOK_FN void *gca_hook_large_due(void *p, size_t lb, int k,
                                     word n_blocks);
GCA_HOOK_FN void *gca_hook_alloc_tl_ret(void *p, size_t lb,
                                        size_t granules, int k);
GCA_HOOK_FN void gca_hook_alloc_many_begin(void **result);
GCA_HOOK_FN void gca_hook_alloc_many_end(void **result, size_t lb, int k);
GCA_HOOK_FN void gca_hook_debug_alloc(void *p, word sz);
GCA_HOOK_FN void gca_hook_hblk_unmet(size_t sz, int kind, unsigned flags);
GCA_HOOK_FN void gca_hook_hblk_alloc(struct hblk *h, hdr *hhdr);
GCA_HOOK_FN void gca_hook_hblk_free(struct hblk *h, hdr *hhdr);
GCA_HOOK_FN void gca_hook_free(void *p);
GCA_HOOK_FN void gca_hook_heap_grow(struct hblk *p, size_t bytes);
GCA_HOOK_FN void gca_hook_mark_begin(void);
GCA_HOOK_FN void gca_hook_mark_end(int done);
GCA_HOOK_FN void gca_hook_collection_end(void);
/* Called only where the patch series has the reclaim sites (8.2.2).  */
GCA_HOOK_FN GC_ATTR_UNUSED void gca_hook_reclaim_begin(int report_if_found);
GCA_HOOK_FN GC_ATTR_UNUSED void gca_hook_reclaim_kept(struct hblk *h,
                                                     hdr *hhdr);
GCA_HOOK_FN void gca_hook_thread_exit(void);
struct thread_local_freelists;
/* Called only with thread-local allocation (not in IL2CPP's build).   */
GCA_HOOK_FN GC_ATTR_UNUSED void
gca_hook_tlfs_init(struct thread_local_freelists *p);
GCA_HOOK_FN GC_ATTR_UNUSED void
gca_hook_tlfs_destroy(struct thread_local_freelists *p);

# define GCA_IF(cond, call) (EXPECT((cond) != 0, FALSE) ? (call) : (void)0)

/* The sampled object profile (samples.c): granules the calling thread  */
/* may still allocate before its next sample point.  Every allocation   */
/* path of mode 1 subtracts its object's granules (one subtraction and  */
/* a branch; a thread-local variable of the initial-exec model is one   */
/* instruction's operand on x86-64), and calls gca_hook_sample when it */
/* goes below zero; but the pops of the copy of mode 1, which count     */
/* down their list's own countdown in objects (GCA_TL_COUNT_COPY_: the  */
/* same samples, each object one with probability 1 - exp(-s/R)).      */
/* Written by its thread only.  In the full profile                     */
/* (mode 2) a thread whose pops are counted inline keeps it at         */
/* GCA_SAMPLE_EVERY, always due: its thread-local pops count inline as */
/* in mode 1, then call gca_hook_sample_ret, which tags the object.    */
GC_EXTERN GCA_TLS_FAST signed_word gca_sample_left;
# define GCA_SAMPLE_EVERY (-((signed_word)1 << (sizeof(signed_word) * 8 - 3)))
GCA_HOOK_FN void *gca_hook_sample(void *p, size_t lb, size_t granules,
                                  int k);
GCA_HOOK_FN void *gca_hook_sample_ret(void *p, size_t lb, size_t granules,
                                      int k);
/* The due pop of the copy of mode 1 (GCA_TL_COUNT_COPY_): not counted */
/* inline; counted here, and sampled if the countdown says so.  Called  */
/* only where the series makes the copies (8.2.2 with thread-local      */
/* allocation).                                                          */
GCA_HOOK_FN GC_ATTR_UNUSED void *gca_hook_tl_due(void *p, size_t lb,
                                                 size_t granules, int k,
                                                 void **fl);
/* The due pop of the typed copy of mode 1 (GCA_TL_COUNT_TYPED_): the  */
/* thread's countdown ran out, or was made due ("the countdown's        */
/* promise"); counted here, and sampled if the countdown says so.       */
GCA_HOOK_FN GC_ATTR_UNUSED void *gca_hook_tl_typed_due(void *p, size_t lb,
                                                       size_t granules,
                                                       int k);
# define GCA_SAMPLE_DUE(g) \
        EXPECT((gca_sample_left -= (signed_word)(g)) < 0, FALSE)

/* *p += v for a word only the calling thread ever writes, which other */
/* threads may read (relaxed) at any time: one add to memory on x86-64, */
/* else a relaxed store of the sum; never a locked read-modify-write.   */
# if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#   define GCA_OWN_ADD(p, v) \
        __asm__ __volatile__("addq %1, %0" : "+m" (*(p)) : "er" ((word)(v)))
# elif defined(__GNUC__) || defined(__clang__)
#   define GCA_OWN_ADD(p, v) \
        __atomic_store_n((p), *(p) + (word)(v), __ATOMIC_RELAXED)
# else
#   define GCA_OWN_ADD(p, v) (void)(*(p) += (word)(v))
# endif

# define GC_ACC_ON_INIT() gca_hook_init()
# define GC_ACC_ON_DEINIT() gca_hook_deinit()
# define GC_ACC_ON_ALLOC(p, lb, k) GCA_IF(gca_on, gca_hook_alloc(p, lb, k))
/* Objects counted with the allocation lock held, at the sites of        */
/* GC_ACC_ON_ALLOC_FL, while gca_tl_mode is 1: row k * GCA_LOCKED_KIND_  */
/* ROWS + lg holds objects and requested bytes of kind k in lg granules  */
/* (its granted bytes are its objects times lg granules, as the sum      */
/* computes).  A kind has GCA_LOCKED_KIND_ROWS rows (MAXOBJGRANULES      */
/* rounded up to a power of two) of 2 words; lg is 1 to MAXOBJGRANULES   */
/* (never 0: GC_size_map[0] is 1), so a kind's last class takes the row  */
/* 0 of the next, unused by it (2 KiB a kind, where a row 0 of its own   */
/* would double that).  Kind k's rows start at gca_locked_kind[k]       */
/* (base.c sets it with the table block): a load, indexed by the kind,  */
/* then the granules' bytes, which the host has just computed for       */
/* GC_bytes_allocd: three instructions where the shifts of the kind and */
/* the granules, which gcc folds into one row index, took five.  The    */
/* mode changes only under the lock, so it is read twice here without a */
/* race.  The rows are OS memory (accounting's tables, never static     */
/* data: see gca_priv.h), there before the mode is first 1; the bases   */
/* are MAXOBJKINDS words of static data.                                */
# define GCA_LOCKED_KIND_ROWS \
        (MAXOBJGRANULES <= 128 ? 128 : MAXOBJGRANULES <= 256 ? 256 \
         : MAXOBJGRANULES <= 512 ? 512 : MAXOBJGRANULES <= 1024 ? 1024 \
         : MAXOBJGRANULES <= 2048 ? 2048 : 4096)
GC_EXTERN word *gca_locked_kind[MAXOBJKINDS];
GC_INLINE void gca_locked_count(size_t lb, int k, size_t lg)
{
  word *r = (word *)((char *)gca_locked_kind[(unsigned)k]
                     + (word)lg * (2 * sizeof(word)));

  GCA_OWN_ADD(&r[0], 1);
  GCA_OWN_ADD(&r[1], lb);
}
/* Mode 1's lock-held pop: counted inline, then the countdown.  p must   */
/* be an lvalue (the host's op): gca_hook_sample hands it back, so that  */
/* the host keeps no callee-saved register for it across the call (a    */
/* push, a pop and a move on every pop of GC_malloc_kind_global's copy   */
/* of mode 1 when it did).                                               */
# define GCA_LOCKED_POP(p, lb, k, lg) \
        (gca_locked_count(lb, k, lg), \
         GCA_SAMPLE_DUE(lg) ? (void)((p) = gca_hook_sample(p, lb, lg, k)) \
                            : (void)0)
# define GC_ACC_ON_ALLOC_FL(p, lb, k, lg) \
        GCA_IF(gca_tl_mode, 1 == gca_tl_mode \
               ? GCA_LOCKED_POP(p, lb, k, lg) \
               : gca_hook_alloc(p, lb, k))
/* GC_generic_malloc_many's hooks (hooks.c), per thread: in, nonzero   */
/* from GC_ACC_ON_ALLOC_MANY_BEGIN to the end's hook function (an      */
/* object made inside, which the end must know: GC_ACC_ON_ALLOC_INNER  */
/* sends it to the hook function then); lo and span, the thread's own  */
/* thread_local_freelists, whose refills need no call at the end when  */
/* no object was made inside (their objects are counted when popped):  */
/* span 0 until the end's hook function first met one of them, and     */
/* from a BEGIN to the end's hook function.                             */
struct gca_many_tl {
  word lo, span;
  int in;
};
GC_EXTERN GCA_TLS_FAST struct gca_many_tl gca_many_tl;
# define GC_ACC_ON_ALLOC_INNER(p, lb, k, lg) \
        GCA_IF(gca_tl_mode, 1 == gca_tl_mode && !gca_many_tl.in \
               ? GCA_LOCKED_POP(p, lb, k, lg) \
               : gca_hook_alloc(p, lb, k))
/* Large objects of n_blocks heap blocks (lock held), while gca_tl_mode */
/* is 1, are counted inline as well, into the lock-held large rows:    */
/* kind k's rows start at gca_locked_large_kind[k] (base.c sets it with */
/* the table block), and its row b holds the objects, requested bytes  */
/* and granted heap blocks of its large class GCA_LARGE0 + 1 + b       */
/* (gca_priv.h: b is the power of two below n_blocks, its bsr; granted */
/* bytes from 2^(b + log HBLKSIZE) up).  The sums add them to the class */
/* rows (counters_sum.c), the blocks times HBLKSIZE.  A load indexed by */
/* the kind, a bsr and a lea for the row; the block count is in hand,  */
/* where its bytes took a shift more.                                   */
# define GCA_LOCKED_LARGE_ROWS (CPP_WORDSZ - CPP_LOG_HBLKSIZE + 1)
/* Inlined whatever the compiler's heuristics (which left these calls  */
/* in GC_generic_malloc); the copies' bodies below too.                */
# if defined(__GNUC__) || defined(__clang__)
#   define GCA_HOOK_INLINE static __inline__ __attribute__((__always_inline__))
# elif defined(_MSC_VER)
#   define GCA_HOOK_INLINE static __forceinline
# else
#   define GCA_HOOK_INLINE static
# endif
GC_EXTERN word *gca_locked_large_kind[MAXOBJKINDS];
/* The power of two below n_blocks (not 0): one bsr on x86-64.         */
GCA_HOOK_INLINE word gca_large_log(word n_blocks)
{
# if defined(__GNUC__) || defined(__clang__)
    return (word)(8 * sizeof(unsigned long long) - 1
                  - __builtin_clzll((unsigned long long)n_blocks));
# else
    word b = 0;

    while ((n_blocks >>= 1) != 0) b++;
    return b;
# endif
}
GCA_HOOK_INLINE void gca_locked_count_large(size_t lb, int k,
                                            word n_blocks)
{
  word *r = gca_locked_large_kind[(unsigned)k] + 3 * gca_large_log(n_blocks);

  GCA_OWN_ADD(&r[0], 1);
  GCA_OWN_ADD(&r[1], lb);
  GCA_OWN_ADD(&r[2], n_blocks);
}
/* Mode 1's countdown, then the count of a large object (also           */
/* gca_hook_alloc's, hooks.c).  Due, gca_hook_large_due counts it and   */
/* samples it; so the test whether GC_generic_malloc_many is making it */
/* (gca_many_tl.in: its list's end must know it) is there, not here: a */
/* GC_generic_malloc_many that may make a large object (its list not   */
/* the thread's own thread-local one, whose objects are small) makes   */
/* the thread's countdown due first, in mode 1 (counters.c,            */
/* gca_counters_many_begin).  p an lvalue, taken back from the hook (as */
/* GCA_LOCKED_POP).                                                     */
# define GCA_LARGE_GRANULES(n_blocks) \
        ((word)(n_blocks) * (HBLKSIZE / GRANULE_BYTES))
# define GCA_LARGE_COUNT(p, lb, k, n_blocks) \
        (GCA_SAMPLE_DUE(GCA_LARGE_GRANULES(n_blocks)) \
         ? (void)((p) = gca_hook_large_due(p, lb, k, n_blocks)) \
         : gca_locked_count_large(lb, k, n_blocks))
/* GC_generic_malloc is made three times too (GC_ACC_COPIES, below):    */
/* there gca_counting 0 (the copy of mode 0) leaves nothing, and 3 (the */
/* copy of mode 1) counts without asking the mode.  Elsewhere          */
/* (GC_generic_malloc_ignore_off_page, the fork's sites) gca_counting  */
/* is the constant 1 and the mode is asked.                              */
# define GC_ACC_ON_ALLOC_LARGE(p, lb, k, n_blocks) \
        (!gca_counting ? (void)0 \
         : 3 == gca_counting ? GCA_LARGE_COUNT(p, lb, k, n_blocks) \
         : GCA_IF(gca_tl_mode, 1 == gca_tl_mode \
                  ? GCA_LARGE_COUNT(p, lb, k, n_blocks) \
                  : gca_hook_alloc_large(p, lb, k, n_blocks)))
/* GC_generic_malloc_inner's large objects (GC_core_gcj_malloc's among  */
/* them: 29,072 on gameloop-gcj) went to gca_hook_alloc, which found    */
/* their blocks in the header: some 60 instructions an object.  Their  */
/* block count follows from lb as GC_alloc_large computes it, and mode  */
/* 1 counts them inline as GC_ACC_ON_ALLOC_LARGE does (p may be NULL    */
/* here).  Other modes: gca_hook_alloc, as before.                      */
# define GCA_LB_BLOCKS(lb) \
        OBJ_SZ_TO_BLOCKS(ROUNDUP_GRANULE_SIZE(ADD_SLOP(lb)))
# define GC_ACC_ON_ALLOC_LARGE_LB(p, lb, k) \
        GCA_IF(gca_tl_mode, EXPECT(NULL == (p), FALSE) ? (void)0 \
               : 1 == gca_tl_mode \
               ? GCA_LARGE_COUNT(p, lb, k, GCA_LB_BLOCKS(lb)) \
               : gca_hook_alloc(p, lb, k))
/* The thread-local fast path counts inline, into the thread's own       */
/* struct thread_local_freelists: the patch puts GCA_TLFS_FIELDS there,  */
/* which hold, for each of its free lists, the objects and requested    */
/* bytes popped from it, and a word saying whether to count the pops    */
/* inline (nonzero) or through the hook function (0).  They are indexed */
/* like the lists, so a list's counts sit at a fixed offset from its    */
/* slot, which the fast path holds in a register: no thread-local       */
/* variable is read, no pointer tested.  gcj_freelists follows          */
/* _freelists in the struct, so it is their row THREAD_FREELISTS_KINDS  */
/* here (GCA_TL_ROWS; counters.c asserts the layout): one offset serves */
/* both kinds of list.  A small class's granted bytes                   */
/* are its objects times its size, which the sum computes; granules 0   */
/* (a 0-byte request, one granule) is folded into class 1 there.  The   */
/* counts are written by the owner thread only, with plain adds, and    */
/* read by counters_sum.c's sums (lock held) through the registry. Each */
/* list's flag says what its pops do: 0, nothing (accounting off); 1,   */
/* count inline; -1, call the hook function.  Every thread's lists are  */
/* known to counters.c (GC_ACC_ON_TLFS_INIT), which sets their flags    */
/* whenever the mode changes: 0 in mode 0, -1 in modes 1 and 2.  The   */
/* hook function then registers the thread and sets its flags to 1 (in */
/* mode 2 with the countdown kept due, so that every pop then calls     */
/* gca_hook_sample_ret for its tag).  So the fast path reads no global  */
/* at all.  The flag is compared with 0 in the pop branch itself        */
/* (GC_ACC_TL_POPPED): accounting off costs that compare and its        */
/* branch, never taken, and nothing else.  (Compared at the function's */
/* end, where the paths of the two kinds of GC_malloc_kind join, it    */
/* cost gcc a jump to the join as well.)  On 8.2.2 the copy that runs  */
/* in mode 1 reads no flag (GCA_TL_COUNT_COPY_ below): each list's      */
/* countdown, gca_w, which also holds its pops' counts until the hook   */
/* folds them (with gca_b, the value gca_w was set to), sends its pops */
/* to the hook instead; once a type was set, mode 1's typed copy        */
/* (GCA_TL_COUNT_TYPED_) reads no flag either: the thread's countdown   */
/* does.                                                                 */
# ifdef GC_GCJ_SUPPORT
#   define GCA_TL_ROWS (THREAD_FREELISTS_KINDS + 1)
# else
#   define GCA_TL_ROWS THREAD_FREELISTS_KINDS
# endif
# define GCA_TLFS_FIELDS \
        word gca_objs[GCA_TL_ROWS][TINY_FREELISTS]; \
        word gca_req[GCA_TL_ROWS][TINY_FREELISTS]; \
        signed_word gca_inline[GCA_TL_ROWS][TINY_FREELISTS]; \
        signed_word gca_w[GCA_TL_ROWS][TINY_FREELISTS]; \
        word gca_b[GCA_TL_ROWS][TINY_FREELISTS]; \
        struct thread_local_freelists *gca_tlfs_next, *gca_tlfs_prev; \
        word gca_tlfs_linked;
/* The word of list slot fl (&tlfs->_freelists[k][g], or              */
/* &tlfs->gcj_freelists[g]) in the array field f (gca_objs, gca_req,   */
/* gca_inline), at a fixed offset from it.  The hooks are given the    */
/* slot as GC_FAST_MALLOC_GRANS (gc_inline.h) names it, my_fl, in the   */
/* branch that pops: the compiler then needs no more registers.        */
# define GCA_TL_AT(fl, f) \
        ((word *)((char *)(fl) + (offsetof(struct thread_local_freelists, f) \
                  - offsetof(struct thread_local_freelists, _freelists))))
# define GCA_TL_FLAG(fl) (*(signed_word *)GCA_TL_AT(fl, gca_inline))
/* In the pop branch, list slot fl, lb bytes asked for, g granules: the */
/* flag 0, nothing; 1, counted, and v set to fl if a sample is due; -1, */
/* v set to fl + 1 (a list slot is word-aligned), for the hook         */
/* function (in the copy of mode 1: v set to fl when its countdown is  */
/* due, for gca_hook_tl_due).  The flag's compare and the inline       */
/* counts are there,                                                     */
/* before the two kinds' paths part; GC_ACC_ON_ALLOC_TL_RETURN, after  */
/* they join, has only the tail calls (v NULL on the paths that call   */
/* none, so gcc leaves its test out there).                             */
# if defined(__GNUC__) || defined(__clang__)
    /* GCA_OWN_ADD as an expression (on x86-64 it is an asm statement). */
#   define GCA_TL_ADD(p, v) __extension__ ({ GCA_OWN_ADD(p, v); (void)0; })
# else
#   define GCA_TL_ADD(p, v) GCA_OWN_ADD(p, v)
# endif
# define GC_ACC_TL_DECL(v) void **v = NULL
/* gca_counting (below, GC_ACC_COPY_BODY): 0 in the copy without the   */
/* counts, where this is nothing; 3 in the copy that runs in mode 1     */
/* (GCA_TL_COUNT_COPY_ below), which reads no flag; 2 in the copy with  */
/* the flags, which runs in mode 2, so it asks first for 1 (count       */
/* inline): the count falls through, a compare and a branch before it; */
/* 1 where the function is made once (Unity's fork's thread-local      */
/* paths), which asks first for 0; 4 in the typed copy, which runs in   */
/* mode 1 once a type was set (GCA_TL_COUNT_TYPED_ below).              */
# define GCA_TL_COUNT_(v, fl, lb, g) \
        (GCA_TL_ADD(GCA_TL_AT(fl, gca_objs), 1), \
         GCA_TL_ADD(GCA_TL_AT(fl, gca_req), lb), \
         (void)((v) = GCA_SAMPLE_DUE(g) ? (fl) : NULL))
# define GCA_TL_HOOK_(v, fl) (void)((v) = (void **)((char *)(fl) + 1))
/* The copy of mode 1 (gca_counting 3) reads no flag: its pop counts   */
/* and counts down in one word of its list, W, which it lowers by      */
/* GCA_TL_S + lb (gca_w holds -W, raised by as much), one object        */
/* GCA_TL_S, its request the low part (lb < GCA_TL_MAX_LB, and the      */
/* list's countdown is capped so that its requests stay below           */
/* GCA_TL_S).  W no longer above zero (never 0 after a pop, counters.c): */
/* the list's countdown                                                  */
/* is due, and gca_hook_tl_due (v the list's slot) folds its counts     */
/* into the list's gca_objs and gca_req, samples the object if it is    */
/* one, and sets W again.  From its last setting to B (gca_b), the      */
/* list's k pops of r requested bytes made B - W = k * GCA_TL_S + r     */
/* (counters.c, "the lists' countdowns").  On x86-64: a lea, an add to */
/* memory and a jns, the flags taken from the add (gca_tl_w_up).  The   */
/* words start at 0, so a list's first pop is due; the thread makes a   */
/* list due whenever a pop must reach the hook (its first, the one      */
/* object GC_generic_malloc_many made for it as a last attempt, new     */
/* lists), and a W that is not due means the sums read the thread's    */
/* counts (counters.c, "the countdown's promise").  Only the owner      */
/* thread writes W and B.  Modes 0 and 2 run other copies               */
/* (gca_tl_mode_update), and so does mode 1 once a type was set (the    */
/* typed copy, below: its pops leave W and B as they were, which the   */
/* sums still read).                                                     */
# define GCA_TL_LOG_S (CPP_WORDSZ >= 64 ? 30 : 20)
# define GCA_TL_S ((signed_word)1 << GCA_TL_LOG_S)
/* Over any request a list serves (its granules are below                */
/* GC_TINY_FREELISTS); the cap keeps a countdown's requests below        */
/* GCA_TL_S with room to spare, and its B (GCA_TL_CAP * GCA_TL_S) in a   */
/* signed word.                                                          */
# define GCA_TL_MAX_LB ((signed_word)GC_TINY_FREELISTS * GC_GRANULE_BYTES)
# define GCA_TL_CAP_REQ ((GCA_TL_S - 2) / GCA_TL_MAX_LB / 2)
# define GCA_TL_CAP_WORD \
        ((signed_word)(((word)1 << (CPP_WORDSZ - 1)) / (word)GCA_TL_S) - 2)
# define GCA_TL_CAP (GCA_TL_CAP_REQ < GCA_TL_CAP_WORD ? GCA_TL_CAP_REQ \
                     : GCA_TL_CAP_WORD)
/* The list's word holds -W (and gca_b -B): the pop adds, and is due   */
/* when the sum is no longer negative (it is never 0 after a pop:       */
/* counters.c).  So the word, read as an address, is in the kernel's   */
/* half but at a due, never one of the heap's, where the struct is      */
/* scanned conservatively (a W counting down through the heap's range  */
/* kept objects alive: 0.8 M more marking on gameloop).                 */
# if (defined(__GNUC__) && __GNUC__ >= 6 || defined(__clang__)) \
     && defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    /* *w += d, and is it no longer below zero: one add to memory (a    */
    /* word only its thread writes, read by other threads), its sign    */
    /* flag the result.                                                  */
    GCA_HOOK_INLINE int gca_tl_w_up(signed_word *w, signed_word d)
    {
      int due;

      __asm__ __volatile__("addq %2, %0" : "+m" (*w), "=@ccns" (due)
                           : "er" (d));
      return due;
    }
# else
    GCA_HOOK_INLINE int gca_tl_w_up(signed_word *w, signed_word d)
    {
      signed_word v = *w + d;

#     if defined(__GNUC__) || defined(__clang__)
        __atomic_store_n(w, v, __ATOMIC_RELAXED);
#     else
        *(volatile signed_word *)w = v;
#     endif
      return v >= 0;
    }
# endif
# define GCA_TL_COUNT_COPY_(v, fl, lb, g) \
        (EXPECT(gca_tl_w_up((signed_word *)GCA_TL_AT(fl, gca_w), \
                            GCA_TL_S + (signed_word)(lb)), FALSE) \
         ? (void)((v) = (fl)) : (void)0)
/* The typed copy of mode 1 (gca_counting 4), which mode 1 runs once   */
/* the program set a type (tlflags.c, gca_tl_typed): the copy of mode 1 */
/* as it was before the lists' countdowns.  Its pop counts the thread's */
/* countdown by granules down (gca_sample_left, as every other path of  */
/* mode 1 does, so that GC_acc_set_next_type sees whether an allocation */
/* came between it and a sample: samples.c) and, not due, counts inline */
/* into its list's gca_objs and gca_req; due, v is set to fl and        */
/* gca_hook_tl_typed_due counts it, with its sample.  The thread makes  */
/* its countdown due whenever a pop must reach that hook (counters.c,   */
/* "the countdown's promise"): so a countdown not due means the sums    */
/* read the thread's inline counts.  On x86-64: a sub from the TLS word */
/* and a js, then two adds to memory.                                    */
# define GCA_TL_COUNT_TYPED_(v, fl, lb, g) \
        (GCA_SAMPLE_DUE(g) ? (void)((v) = (fl)) \
         : (GCA_TL_ADD(GCA_TL_AT(fl, gca_objs), 1), \
            GCA_TL_ADD(GCA_TL_AT(fl, gca_req), lb)))
# define GC_ACC_TL_POPPED(v, fl, lb, g) \
        (3 == gca_counting ? GCA_TL_COUNT_COPY_(v, fl, lb, g) \
         : 4 == gca_counting ? GCA_TL_COUNT_TYPED_(v, fl, lb, g) \
         : 2 == gca_counting \
         ? (EXPECT(GCA_TL_FLAG(fl) > 0, TRUE) ? GCA_TL_COUNT_(v, fl, lb, g) \
            : GCA_TL_FLAG(fl) < 0 ? GCA_TL_HOOK_(v, fl) : (void)0) \
         : !gca_counting || EXPECT(GCA_TL_FLAG(fl) == 0, TRUE) ? (void)0 \
         : EXPECT(GCA_TL_FLAG(fl) < 0, FALSE) ? GCA_TL_HOOK_(v, fl) \
         : GCA_TL_COUNT_(v, fl, lb, g))
# define GCA_TL_RETURN(v, p, lb, granules, k) \
        do { \
          if (gca_counting && EXPECT((v) != NULL, FALSE)) { \
            if (3 == gca_counting) \
              return gca_hook_tl_due(p, lb, granules, k, v); \
            if (4 == gca_counting) \
              return gca_hook_tl_typed_due(p, lb, granules, k); \
            if (((word)(v) & 1) != 0) \
              return gca_hook_alloc_tl_ret(p, lb, granules, k); \
            return gca_hook_sample_ret(p, lb, granules, k); \
          } \
        } while (0)
# define GC_ACC_ON_ALLOC_TL_RETURN(v, p, lb, granules, k) \
        GCA_TL_RETURN(v, p, lb, granules, k)
# define GC_ACC_ON_ALLOC_TL_GCJ_RETURN(v, p, lb, granules) \
        GCA_TL_RETURN(v, p, lb, granules, GC_gcj_kind)
/* Accounting off, the allocation fast paths are upstream's own code,  */
/* not a compare more: GC_malloc_kind and GC_gcj_malloc                  */
/* (thread_local_alloc.c) and GC_malloc_kind_global (malloc.c) are each  */
/* made three times from one body, GC_ACC_COPY_BODY(name, fn, params),  */
/* whose hooks read its first parameter, gca_counting (GC_ACC_TL_POPPED, */
/* GC_ACC_ON_ALLOC_TL_RETURN, GC_ACC_ON_ALLOC_FL_COPY).                  */
/* GC_ACC_COPIES(name, fn, params, args) then defines gca_copy_<fn>_off, */
/* the body with gca_counting 0 (the hooks vanish, and with them the     */
/* frame record the pragma regions give: nothing there takes a stack),  */
/* gca_copy_<fn>_cnt, with 3 (mode 1: the counts and the countdown, no   */
/* flag), gca_copy_<fn>_on, with 2 (mode 2: the flags and counts), the  */
/* thread-local ones gca_copy_<fn>_typ, with 4 (mode 1 once typed), and */
/* the public function, which jumps through the pointer gca_copy_<fn>   */
/* to one of them: the jump replaces the call's own, and costs no       */
/* instruction more where the compiler inlines it into GC_malloc.       */
/* tlflags.c points them at the copy of the mode, after every thread's  */
/* flags were set (docs/design.md, "Two copies of the fast path", "A    */
/* third copy").  Unity's fork makes GC_malloc_kind_global so too (the */
/* path of every GC_malloc in IL2CPP's build, which has no thread-local */
/* allocation), and both make GC_generic_malloc so (its large objects:  */
/* GC_ACC_ON_ALLOC_LARGE; its copy of mode 1 runs only under the table  */
/* walk, tlflags.c; docs/design.md, "GC_generic_malloc made three       */
/* times").  Outside such a body (the fork's other fast paths, made */
/* once) the hooks see this gca_counting instead, and count as before.  */
/* Which copies keep the frame record: a stack taken below a copy's     */
/* frame (in a function it calls, not one it jumps to) needs it for the */
/* walk by frame pointers, which otherwise loses the program's frames.  */
/* The global path's copies call the functions that take stacks: they   */
/* keep it.  The thread-local copies (malloc_kind, gcj_malloc) reach    */
/* the hooks by tail jumps; the one call below them that can take a     */
/* stack is the refill's, for the object GC_generic_malloc_many makes   */
/* as a last attempt.  In mode 1 that object is sampled at its pop      */
/* (counters.c, "sampled at its pop"), in the hook the copy jumps to,   */
/* so the copy of mode 1 keeps no record (a pop one instruction less,  */
/* and a register more for gcc); mode 2's (tags: the object's stack is  */
/* captured when it is made) keeps it.  GCA_COPY_CNT_ATTR_<fn> is the   */
/* attribute of gca_copy_<fn>_cnt.                                       */
enum { gca_counting = 1 };
# define GCA_COPY_BODY_INLINE GCA_HOOK_INLINE
/* GCA_COPY_JUMPS_ATTR: no record, and the hooks reached by tail jumps */
/* at any -O of the build (at -O0 and -Og gcc would call them, and a   */
/* hook called from a frame without a record loses the program's       */
/* innermost frame).  clang: the records stay (its builds add           */
/* -fno-omit-frame-pointer to all of libgc, configure.ac).              */
# if defined(__GNUC__) && !defined(__clang__)
#   define GCA_COPY_OFF_ATTR __attribute__((__optimize__("omit-frame-pointer")))
#   define GCA_COPY_JUMPS_ATTR \
        __attribute__((__optimize__("O2", "omit-frame-pointer")))
# else
#   define GCA_COPY_OFF_ATTR /* empty */
#   define GCA_COPY_JUMPS_ATTR /* empty */
# endif
# define GCA_COPY_CNT_ATTR_malloc_kind_global /* the record */
# define GCA_COPY_CNT_ATTR_malloc_kind GCA_COPY_JUMPS_ATTR
# define GCA_COPY_CNT_ATTR_gcj_malloc GCA_COPY_JUMPS_ATTR
/* GC_generic_malloc's copy of mode 1 keeps no record: it calls the    */
/* hook that samples a large object (gca_hook_large_due), so it runs    */
/* only while sampled stacks are taken by the unwind tables, which need */
/* none (tlflags.c picks the copy of mode 2, with the record, for mode  */
/* 1 whenever a frame-pointer walk may run below it).                  */
# define GCA_COPY_CNT_ATTR_generic_malloc GCA_COPY_OFF_ATTR
/* GCA_COPY_API_ATTR_<fn>: the public function's.  With thread-local  */
/* allocation GC_malloc_kind_global is called only by the thread-local */
/* copies: with their options it is inlined into the two without a    */
/* record (a jump through the pointer, not a jump to a jump).          */
# ifdef THREAD_LOCAL_ALLOC
#   define GCA_COPY_API_ATTR_malloc_kind_global GCA_COPY_JUMPS_ATTR
# else
#   define GCA_COPY_API_ATTR_malloc_kind_global /* none */
# endif
# define GCA_COPY_API_ATTR_malloc_kind /* none */
# define GCA_COPY_API_ATTR_gcj_malloc /* none */
# define GCA_COPY_API_ATTR_generic_malloc /* none */
# define GCA_COPY_ARGS_(...) __VA_ARGS__
# define GC_ACC_COPY_BODY(name, fn, params) \
        GCA_COPY_BODY_INLINE void *gca_copy_##fn##_body(int gca_counting, \
                                int gca_no_incr GC_ATTR_UNUSED, \
                                GCA_COPY_ARGS_ params)
/* GC_gcj_malloc is called by the program itself (GC_malloc inlines     */
/* GC_malloc_kind's jump; nothing inlines GC_gcj_malloc's), so its jump  */
/* to the copy was an instruction an object more than upstream's        */
/* function with accounting off (0.5 M on gameloop-gcj).  It has a     */
/* fourth copy, gca_copy_gcj_malloc_offni: upstream's code without its  */
/* test of GC_incremental (GC_ACC_GCJ_SLOW, with gca_no_incr 1), which   */
/* sends incremental collection to GC_core_gcj_malloc (the thread-local */
/* path is not safe with it).  The pointer goes there in mode 0 until   */
/* incremental collection may have started (GC_ACC_ON_INCREMENTAL at    */
/* GC_enable_incremental's entry, gca_hook_init after GC_init: then the */
/* copy with the test, for good; tlflags.c).  Off, the jump replaces    */
/* that test's load, test and branch: two instructions fewer than      */
/* upstream's function; on, nothing changes.                             */
# define GCA_COPY_EXTRA_malloc_kind_global(fn, params, args) /* none */
/* The thread-local fast paths have one more, gca_copy_<fn>_typ, with  */
/* gca_counting 4: mode 1's once the program set a type                 */
/* (GCA_TL_COUNT_TYPED_; tlflags.c, gca_tl_typed), its attribute that   */
/* of gca_copy_<fn>_cnt (its hook reached by a tail jump too).          */
# define GCA_COPY_TYPED_(fn, params, args) \
        GC_INNER GCA_COPY_CNT_ATTR_##fn void *gca_copy_##fn##_typ params \
        { return gca_copy_##fn##_body(4, 0, GCA_COPY_ARGS_ args); }
# define GCA_COPY_EXTRA_malloc_kind(fn, params, args) \
        GCA_COPY_TYPED_(fn, params, args)
# define GCA_COPY_EXTRA_generic_malloc(fn, params, args) /* none */
# define GCA_COPY_EXTRA_gcj_malloc(fn, params, args) \
        GC_INNER GCA_COPY_OFF_ATTR void *gca_copy_##fn##_offni params \
        { return gca_copy_##fn##_body(0, 1, GCA_COPY_ARGS_ args); } \
        GCA_COPY_TYPED_(fn, params, args)
# define GCA_COPY_FIRST_malloc_kind_global gca_copy_malloc_kind_global_off
# define GCA_COPY_FIRST_malloc_kind gca_copy_malloc_kind_off
# define GCA_COPY_FIRST_gcj_malloc gca_copy_gcj_malloc_offni
# define GCA_COPY_FIRST_generic_malloc gca_copy_generic_malloc_off
# define GC_ACC_COPIES(name, fn, params, args) \
        GC_INNER GCA_COPY_OFF_ATTR void *gca_copy_##fn##_off params \
        { return gca_copy_##fn##_body(0, 0, GCA_COPY_ARGS_ args); } \
        GC_INNER GCA_COPY_CNT_ATTR_##fn void *gca_copy_##fn##_cnt params \
        { return gca_copy_##fn##_body(3, 0, GCA_COPY_ARGS_ args); } \
        GC_INNER void *gca_copy_##fn##_on params \
        { return gca_copy_##fn##_body(2, 0, GCA_COPY_ARGS_ args); } \
        GCA_COPY_EXTRA_##fn(fn, params, args) \
        GC_INNER void *(*gca_copy_##fn) params = GCA_COPY_FIRST_##fn; \
        GC_API GCA_COPY_API_ATTR_##fn GC_ATTR_MALLOC void * GC_CALL \
        name params \
        { return (*gca_copy_##fn) args; }
# define GC_ACC_GCJ_SLOW(incremental) (!gca_no_incr && (incremental))
# define GC_ACC_ON_INCREMENTAL() gca_hook_incremental()
# ifdef GCA_COPIES     /* the series made them (both bases' gc_priv.h) */
GC_INNER void *gca_copy_malloc_kind_global_off(size_t lb, int k);
GC_INNER void *gca_copy_malloc_kind_global_cnt(size_t lb, int k);
GC_INNER void *gca_copy_malloc_kind_global_on(size_t lb, int k);
GC_EXTERN void *(*gca_copy_malloc_kind_global)(size_t lb, int k);
GC_INNER void *gca_copy_generic_malloc_off(size_t lb, int k);
GC_INNER void *gca_copy_generic_malloc_cnt(size_t lb, int k);
GC_INNER void *gca_copy_generic_malloc_on(size_t lb, int k);
GC_EXTERN void *(*gca_copy_generic_malloc)(size_t lb, int k);
# endif
/* GC_ACC_ON_ALLOC_FL in a copy's body: the copy with the counts runs   */
/* while the mode is not 0 (but for a pop that raced with a change), so */
/* it asks first for mode 1, the one it counts inline in.              */
/* The copy of mode 1 (gca_counting 3) counts without asking: one that */
/* raced with a change of mode counts as a pop just before it (the     */
/* lock-held rows are there, and read, once the mode was first 1).     */
/* That copy of mode 1 counts its pops as the thread-local lists' copy */
/* does (GCA_TL_COUNT_COPY_), into one word a row: kind k's class lg's  */
/* countdown, gca_locked_w_kind[k][2 * lg] (base.c), raised by          */
/* GCA_TL_S + lb.  No longer below zero, it is due: gca_hook_locked_due */
/* folds it into the row's counts (gca_locked_count's), samples the     */
/* object if it is one and sets the word again (counters_due.c, "the   */
/* rows' countdowns").  On x86-64 a load, an add to memory and a jns,  */
/* where the row's two adds and the thread's countdown took six.  The  */
/* copies and the other lock-held sites count the row and the thread's */
/* countdown (GCA_LOCKED_POP), and so does mode 1 once a type was set  */
/* (tlflags.c runs the copy of mode 2 then: its pops move the thread's */
/* countdown, which GC_acc_set_next_type's note reads).                 */
GC_EXTERN signed_word *gca_locked_w_kind[MAXOBJKINDS];
GCA_HOOK_FN GC_ATTR_UNUSED void *gca_hook_locked_due(void *p, size_t lb,
                                                     size_t lg, int k);
/* Row lg of kind k's countdowns += d (its word, -W, the first of a    */
/* pair with B: gca_priv.h, locked_wb), and is it no longer below zero. */
/* On x86-64 with gcc or clang, one asm: the kind's base loaded and the */
/* add to memory, indexed by lg * 16, which the host has just computed */
/* for GC_bytes_allocd (C let gcc share lg * 8 with the host's address */
/* of its free list, ok_freelist + lg, and make that one lea three      */
/* instructions).  No C code of the copy reads the words: the sums and */
/* the due hook are called functions.                                    */
# if (defined(__GNUC__) && __GNUC__ >= 6 || defined(__clang__)) \
     && defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    GCA_HOOK_INLINE int gca_locked_w_up(signed_word k, word lg, signed_word d)
    {
      signed_word *w;
      int due;

      __asm__ __volatile__("movq (%2,%3,8), %0\n\taddq %5, (%0,%4)"
                           : "=&r" (w), "=@ccns" (due)
                           : "r" (gca_locked_w_kind), "r" (k),
                             "r" (lg * (2 * sizeof(word))), "r" (d));
      return due;
    }
# else
    GCA_HOOK_INLINE int gca_locked_w_up(signed_word k, word lg, signed_word d)
    {
      return gca_tl_w_up(gca_locked_w_kind[k] + 2 * lg, d);
    }
# endif
# define GCA_LOCKED_POP_CNT(p, lb, k, lg) \
        (EXPECT(gca_locked_w_up((signed_word)(k), (word)(lg), \
                                GCA_TL_S + (signed_word)(lb)), FALSE) \
         ? (void)((p) = gca_hook_locked_due(p, lb, lg, k)) : (void)0)
/* Only where GC_malloc_kind_global pops every small object: builds    */
/* without thread-local allocation (IL2CPP's).  With it, the global     */
/* path serves the objects past the lists (25 granules and more) and a */
/* thread's first ones, and the rows' words would cost a page or two   */
/* of memory (acc_memory.sh's threads8 has none to spare) for little.  */
# ifdef THREAD_LOCAL_ALLOC
#   define GCA_LOCKED_ROWS_WORDS 0
#   define GCA_LOCKED_POP_COPY GCA_LOCKED_POP
# else
#   define GCA_LOCKED_ROWS_WORDS 1
#   define GCA_LOCKED_POP_COPY GCA_LOCKED_POP_CNT
# endif
# define GC_ACC_ON_ALLOC_FL_COPY(p, lb, k, lg) \
        (!gca_counting ? (void)0 \
         : 3 == gca_counting ? GCA_LOCKED_POP_COPY(p, lb, k, lg) \
         : EXPECT(1 == gca_tl_mode, TRUE) ? GCA_LOCKED_POP(p, lb, k, lg) \
         : 0 != gca_tl_mode ? gca_hook_alloc(p, lb, k) : (void)0)
# if defined(GCA_COPIES) && defined(THREAD_LOCAL_ALLOC)
GC_INNER void *gca_copy_malloc_kind_off(size_t bytes, int kind);
GC_INNER void *gca_copy_malloc_kind_cnt(size_t bytes, int kind);
GC_INNER void *gca_copy_malloc_kind_on(size_t bytes, int kind);
GC_INNER void *gca_copy_malloc_kind_typ(size_t bytes, int kind);
GC_EXTERN void *(*gca_copy_malloc_kind)(size_t bytes, int kind);
#   ifdef GC_GCJ_SUPPORT
GC_INNER void *gca_copy_gcj_malloc_off(size_t bytes, void *descr);
GC_INNER void *gca_copy_gcj_malloc_cnt(size_t bytes, void *descr);
GC_INNER void *gca_copy_gcj_malloc_on(size_t bytes, void *descr);
GC_INNER void *gca_copy_gcj_malloc_offni(size_t bytes, void *descr);
GC_INNER void *gca_copy_gcj_malloc_typ(size_t bytes, void *descr);
GC_EXTERN void *(*gca_copy_gcj_malloc)(size_t bytes, void *descr);
#   endif
# endif
# define GC_ACC_ON_ALLOC_MANY_BEGIN(result) \
        GCA_IF(gca_on, gca_hook_alloc_many_begin(result))
# define GC_ACC_ON_ALLOC_MANY_END(result, lb, k) \
        GCA_IF(gca_on, (word)(result) - gca_many_tl.lo < gca_many_tl.span \
                       ? (void)0 : gca_hook_alloc_many_end(result, lb, k))
# define GC_ACC_ON_DEBUG_ALLOC(p, sz) \
        GCA_IF(gca_on, gca_hook_debug_alloc(p, sz))
/* Only a failed search is noted: a success costs the test of result.  */
# define GC_ACC_ON_HBLK_UNMET(result, sz, kind, flags) \
        (EXPECT(NULL == (result), FALSE) \
         ? GCA_IF(gca_track_heap, gca_hook_hblk_unmet(sz, kind, flags)) \
         : (void)0)
/* A block handed out: without tags and with no unmet request noted     */
/* (hooks.c), all there is to do is its hb_acc kept NULL, inline; else  */
/* the hook function (the tags' table, the request met).  A block       */
/* freed: a call only if it has a tag table, looked at only once tags   */
/* were ever on.  Both read one word, gca_hblk_hooks (base.c keeps it   */
/* from gca_track_heap, gca_tags_on and the unmet request): 0 while the */
/* heap is not tracked.  (Per block, not per object: some 180,000       */
/* blocks are handed out and freed on anchorloop's 5 million objects.)  */
# define GCA_HBLK_TRACK 1       /* the heap is tracked                 */
# define GCA_HBLK_CALL 2        /* and tags are on, or a request unmet */
# define GCA_HBLK_TABLES 4      /* and tags were on: tables may exist  */
GC_EXTERN int gca_hblk_hooks;
/* A block handed out: the hook when tags are on or a request is unmet, */
/* else hb_acc NULL once tags have ever been on (a recycled header's    */
/* may be anything; tags.c trusts hb_acc only while GCA_HBLK_TABLES is */
/* set, and gca_tags_reset_all makes every in-use block's valid when it */
/* first is: "first").  Until then nothing is stored: a test and a     */
/* branch a block.                                                      */
# define GC_ACC_ON_HBLK_ALLOC(h, hhdr) \
        GCA_IF(gca_hblk_hooks & (GCA_HBLK_CALL | GCA_HBLK_TABLES), \
               EXPECT((gca_hblk_hooks & GCA_HBLK_CALL) != 0, FALSE) \
               ? gca_hook_hblk_alloc(h, hhdr) \
               : (void)((hhdr)->hb_acc = NULL))
# define GC_ACC_ON_HBLK_FREE(h, hhdr) \
        GCA_IF(gca_hblk_hooks & GCA_HBLK_TABLES, \
               (hhdr)->hb_acc != NULL ? gca_hook_hblk_free(h, hhdr) : (void)0)
# define GC_ACC_ON_FREE(p) GCA_IF(gca_on, gca_hook_free(p))
# define GC_ACC_ON_HEAP_GROW(p, bytes) \
        GCA_IF(gca_track_heap, gca_hook_heap_grow(p, bytes))
# define GC_ACC_ON_MARK_BEGIN() GCA_IF(gca_on, gca_hook_mark_begin())
# define GC_ACC_ON_MARK_END(done) GCA_IF(gca_on, gca_hook_mark_end(done))
# define GC_ACC_ON_COLLECTION_END() GCA_IF(gca_on, gca_hook_collection_end())
/* Nonzero from a reclaim walk's start that the census rides to the     */
/* census's end (census.c); one load and a branch per block otherwise.  */
GC_EXTERN int gca_census_riding;
# define GC_ACC_ON_RECLAIM_BEGIN(report_if_found) \
        GCA_IF(gca_on, gca_hook_reclaim_begin((int)(report_if_found)))
# define GC_ACC_ON_RECLAIM_KEPT(h, hhdr) \
        GCA_IF(gca_census_riding, gca_hook_reclaim_kept(h, hhdr))
/* Unconditional: a thread's counts must leave its free-list struct     */
/* before the struct is freed, even after accounting went off.          */
# define GC_ACC_ON_THREAD_EXIT() gca_hook_thread_exit()
/* Unconditional too: the list of every thread's free lists must be     */
/* whole when accounting goes on.                                        */
# define GC_ACC_ON_TLFS_INIT(p) gca_hook_tlfs_init(p)
# define GC_ACC_ON_TLFS_DESTROY(p) gca_hook_tlfs_destroy(p)
/* Kinds (bit k for kind k < 32) registered by the collector as holding  */
/* gcj-style objects, word 0 their vtable or class, as GC_gcj_kind does. */
/* Unconditional: the kind is made once, at the embedder's init, maybe   */
/* before accounting goes on.                                            */
GC_EXTERN unsigned gca_gcj_kinds;
# define GC_ACC_ON_GCJ_KIND(k) \
        (void)((unsigned)(k) < 32 ? (gca_gcj_kinds |= 1u << (unsigned)(k)) \
                                  : 0u)

#endif /* !GC_ACC_DISABLE */

/* The marker made twice (issue 37, retain_mark.c; the series' patch   */
/* 0004, both bases): GC_mark_from's body is GC_ACC_MARK_FROM_BODY, and  */
/* GC_ACC_MARK_FROM_COPIES makes GC_mark_from (upstream's, unchanged)    */
/* and gca_mark_from_rec, where gca_marking_rec is 1: there each object  */
/* its PUSH_CONTENTS newly marks (GC_ACC_MARKS, GC_ACC_PUSHED) tells     */
/* retain_mark.c the word that referred to it.  Everywhere else          */
/* gca_marking_rec is this constant 0 and both are nothing.              */
/* MARK_FROM_MARK_STACK calls GC_ACC_MARK_FROM: through gca_mark_from_fn */
/* (GC_mark_from; gca_mark_from_rec while a collection records), one    */
/* indirect call for a direct one.  GCA_MARK_REC (gc_pmark.h): the      */
/* series has them.                                                      */
enum { gca_marking_rec = 0 };
#ifdef GC_ACC_DISABLE
# define GC_ACC_MARKS(rec, hhdr) ((void)(rec), (word)0)
# define GC_ACC_PUSHED(rec, n, current, source, hhdr) (void)(n)
# define GC_ACC_MARK_FROM(top, bottom, limit) GC_mark_from(top, bottom, limit)
#else
struct GC_ms_entry;
GC_INNER struct GC_ms_entry *gca_mark_from_rec(struct GC_ms_entry *top,
                                               struct GC_ms_entry *bottom,
                                               struct GC_ms_entry *limit);
GC_EXTERN struct GC_ms_entry *(*gca_mark_from_fn)(struct GC_ms_entry *,
                                                  struct GC_ms_entry *,
                                                  struct GC_ms_entry *);
/* The recording (retain_mark.c): a block of the plausible heap's span  */
/* (gca_rm.lo on, by number) has its table of one word an object, each  */
/* 0 or the word its object was marked from: told as an offset from     */
/* gca_rm.src_lo (plus 1) when under src_span, else by gca_rmark_root.  */
/* inv: ceil(2^24 / granules an object), 0 for a large object.         */
struct gca_rm_blk {
  unsigned *tab;
  unsigned inv;
};
struct gca_rm_state {
  struct gca_rm_blk *blks;
  word lo, n_blks, src_lo, src_span, noted;
};
GC_EXTERN struct gca_rm_state gca_rm;
GC_INNER unsigned *gca_rmark_block(word h, hdr *hhdr, unsigned *inv);
GC_INNER unsigned gca_rmark_root(word source);
/* current newly marked from the word at source, hhdr its object's     */
/* header: the table of the object's block, found by number, and its    */
/* index by the block's inv (0 for a large object).                      */
GC_INLINE void gca_rmark_note(word source, word current, hdr *hhdr)
{
  word h = (word)hhdr->hb_block, s = source - gca_rm.src_lo;
  word i = (h - gca_rm.lo) >> LOG_HBLKSIZE;
  unsigned *tab, inv;

  if (EXPECT(i < gca_rm.n_blks && (tab = gca_rm.blks[i].tab) != NULL, TRUE)) {
    inv = gca_rm.blks[i].inv;
  } else {
    tab = gca_rmark_block(h, hhdr, &inv);
    if (NULL == tab) return;
  }
  tab[(word)(((unsigned long long)BYTES_TO_GRANULES(current - h) * inv)
             >> 24)]
    = EXPECT(s < gca_rm.src_span, TRUE) ? (unsigned)(s / ALIGNMENT) + 1
      : gca_rmark_root(source);
  gca_rm.noted++;
}
/* PUSH_CONTENTS (gc_pmark.h): the block's marks before the push        */
/* (GC_ACC_MARKS), then one more after it (GC_ACC_PUSHED): the object   */
/* was newly marked.  Nothing where rec is the constant 0.              */
# define GC_ACC_MARKS(rec, hhdr) ((rec) ? (word)(hhdr)->hb_n_marks : 0)
# define GC_ACC_PUSHED(rec, n, current, source, hhdr) \
        ((rec) && (word)(hhdr)->hb_n_marks != (n) \
         ? gca_rmark_note((word)(source), (word)(current), (hhdr)) : (void)0)
# define GC_ACC_MARK_FROM(top, bottom, limit) \
        (*gca_mark_from_fn)(top, bottom, limit)
#endif
#define GC_ACC_MARK_FROM_BODY(params) \
        GCA_MARK_BODY_INLINE struct GC_ms_entry *gca_mark_from_body( \
                                int gca_marking_rec, GCA_MARK_ARGS_ params)
#define GCA_MARK_ARGS_(...) __VA_ARGS__
#define GCA_MARK_ATTRS GC_ATTR_NO_SANITIZE_ADDR GC_ATTR_NO_SANITIZE_MEMORY \
        GC_ATTR_NO_SANITIZE_THREAD
#if defined(__GNUC__) || defined(__clang__)
# define GCA_MARK_BODY_INLINE static __inline__ __attribute__((__always_inline__))
#elif defined(_MSC_VER)
# define GCA_MARK_BODY_INLINE static __forceinline
#else
# define GCA_MARK_BODY_INLINE static
#endif
#ifdef GC_ACC_DISABLE
# define GC_ACC_MARK_FROM_COPIES(params, args) \
        GCA_MARK_ATTRS GC_INNER struct GC_ms_entry *GC_mark_from params \
        { return gca_mark_from_body(0, GCA_MARK_ARGS_ args); }
#else
# define GC_ACC_MARK_FROM_COPIES(params, args) \
        GCA_MARK_ATTRS GC_INNER struct GC_ms_entry *GC_mark_from params \
        { return gca_mark_from_body(0, GCA_MARK_ARGS_ args); } \
        GCA_MARK_ATTRS GC_INNER struct GC_ms_entry *gca_mark_from_rec params \
        { return gca_mark_from_body(1, GCA_MARK_ARGS_ args); } \
        GC_INNER struct GC_ms_entry *(*gca_mark_from_fn) params \
          = GC_mark_from;
#endif

#endif /* GCA_HOOKS_H */
