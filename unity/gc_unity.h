/* SPDX-License-Identifier: MIT */
/*
 * gc_unity.h: the Unity-only entry points il2cpp calls (Unity's fork of
 * bdwgc has them; upstream 8.2.2 does not).  Included at the end of gc.h,
 * so a client sees them where Unity's headers put them.  Our own code;
 * docs/il2cpp.md says what each one does and which test covers it.
 */
#ifndef GC_UNITY_H
#define GC_UNITY_H

#ifdef __cplusplus
  extern "C" {
#endif

/* Incremental time limit in nanoseconds.  One stored value with          */
/* GC_set_time_limit (ms) and GC_set_time_limit_tv (ms + ns): whichever  */
/* set it last, the other getters read the same limit.  Values of        */
/* GC_TIME_UNLIMITED_NS and more (999999999999, Unity's "unlimited") or  */
/* of GC_TIME_UNLIMITED ms and more mean no limit; GC_get_time_limit_ns  */
/* then returns GC_TIME_UNLIMITED_NS.                                    */
#define GC_TIME_UNLIMITED_NS 999999999999ULL
GC_API void GC_CALL GC_set_time_limit_ns(unsigned long long /* ns */);
GC_API unsigned long long GC_CALL GC_get_time_limit_ns(void);

/* Stop and restart the world from outside the collector.  Threads     */
/* builds: as upstream (takes the allocation lock until start).         */
/* Builds without threads: no-ops, as in Unity's fork.                 */
GC_API void GC_CALL GC_stop_world_external(void);
GC_API void GC_CALL GC_start_world_external(void);

/* Heap sections.  The caller holds the allocation lock (e.g. inside    */
/* GC_call_with_alloc_lock, or with the world stopped externally).      */
/* Unmapped free blocks are never reported.  Both of Unity's forms are  */
/* here, so one build serves every Unity version:                       */
/*   _v3, Unity 2019.4 to 2023.2.7: one call per maximal range of        */
/*   contiguous heap blocks in use (free blocks are not reported);      */
/*   _v4, Unity 2023.2.10+ and 6000: one call per range, typed: a free  */
/*   (and mapped) block; the bytes of a block in use that hold objects; */
/*   the rest of such a block (padding).  The ranges, in address order  */
/*   within each run of contiguous sections, cover the mapped heap      */
/*   exactly once.                                                      */
/* GC_foreach_heap_section, Unity's name: in C++ (il2cpp's              */
/* BoehmGC.cpp) it takes either callback (overloads below); in C it is  */
/* the 4-argument form, or the 3-argument one where the client defines  */
/* GCACC_HEAP_SECTIONS_3ARG before including gc.h (which also makes     */
/* GC_heap_section_proc the 3-argument type).  The library's symbol     */
/* GC_foreach_heap_section is the 4-argument form, as in Unity 6000.    */
typedef enum {
  GC_HEAP_SECTION_TYPE_FREE = 0,
  GC_HEAP_SECTION_TYPE_PADDING = 1,
  GC_HEAP_SECTION_TYPE_USED = 2
} GC_heap_section_type;
typedef void (*GC_heap_section_v3_proc)(void * /* user_data */,
                                        GC_PTR /* start */, GC_PTR /* end */);
typedef void (*GC_heap_section_v4_proc)(void * /* user_data */,
                                        GC_PTR /* start */, GC_PTR /* end */,
                                        GC_heap_section_type /* type */);
GC_API void GC_foreach_heap_section_v3(void * /* user_data */,
                                       GC_heap_section_v3_proc);
GC_API void GC_foreach_heap_section_v4(void * /* user_data */,
                                       GC_heap_section_v4_proc);
#ifdef GCACC_HEAP_SECTIONS_3ARG
  typedef GC_heap_section_v3_proc GC_heap_section_proc;
#else
  typedef GC_heap_section_v4_proc GC_heap_section_proc;
#endif
#if defined(GCACC_HEAP_SECTIONS_3ARG) && !defined(__cplusplus)
# define GC_foreach_heap_section GC_foreach_heap_section_v3
#else
  GC_API void GC_foreach_heap_section(void * /* user_data */,
                                      GC_heap_section_v4_proc);
#endif
/* How many calls GC_foreach_heap_section_v3 would make now (lock      */
/* held): the count Unity 2019.4 to 2023.2.7 take before the walk (the  */
/* 4-argument era counts with its own callback).                        */
GC_API GC_word GC_get_heap_section_count(void);

/* Ephemerons: called by the marker (lock held) whenever its mark      */
/* stack drains after the roots were pushed; it may push more entries   */
/* (GC_mark_and_push, GC_custom_push_*) and returns the new top; marking */
/* goes on while it pushes.  0 (the default): no callback.              */
struct GC_ms_entry;
typedef struct GC_ms_entry * (GC_CALLBACK * GC_mark_stack_empty_proc)(
                                struct GC_ms_entry * /* mark_stack_top */,
                                struct GC_ms_entry * /* mark_stack_limit */);
GC_API void GC_CALL GC_set_mark_stack_empty(GC_mark_stack_empty_proc);
GC_API GC_mark_stack_empty_proc GC_CALL GC_get_mark_stack_empty(void);

/* Push onto the collector's mark stack (GC_push_proc, from a           */
/* push-other-roots callback) or onto a mark proc's (the custom forms,  */
/* which return the new top): an object with a descriptor (usually a    */
/* GC_MAKE_PROC mark proc), or the range [bottom, top) scanned          */
/* conservatively.  A full stack is handled as upstream's mark procs    */
/* handle it (GC_signal_mark_stack_overflow: the collector notes the     */
/* overflow, grows the stack and rescans), never by aborting.           */
GC_API void GC_CALL GC_push_proc(GC_word /* descr */, void * /* start */);
GC_API struct GC_ms_entry * GC_CALL GC_custom_push_proc(GC_word /* descr */,
                                void * /* start */,
                                struct GC_ms_entry * /* mark_stack_top */,
                                struct GC_ms_entry * /* mark_stack_limit */);
GC_API struct GC_ms_entry * GC_CALL GC_custom_push_range(void * /* bottom */,
                                void * /* top */,
                                struct GC_ms_entry * /* mark_stack_top */,
                                struct GC_ms_entry * /* mark_stack_limit */);

#ifdef __cplusplus
  } /* extern "C" */

  /* The 3-argument callback in C++: il2cpp of Unity 2019.4 to 2023.2.7 */
  /* calls GC_foreach_heap_section with it, 2023.2.10+ and 6000 with     */
  /* the 4-argument one; both resolve here, with no switch.             */
  extern "C++" {
    inline void GC_foreach_heap_section(void *user_data,
                                        GC_heap_section_v3_proc callback)
    {
      GC_foreach_heap_section_v3(user_data, callback);
    }
  }
#endif

#endif /* GC_UNITY_H */
