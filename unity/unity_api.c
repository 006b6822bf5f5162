/* SPDX-License-Identifier: MIT */
/*
 * unity_api.c: the Unity-only entry points il2cpp calls, on 8.2.2's
 * collector (gc_unity.h declares them; docs/il2cpp.md describes each
 * and names its test).  Our own code.  Built into libgc (unity.am) or,
 * in the one-file build, included by extra/gc.c through
 * unity/unity_amalgam.c.
 */
#include "private/gc_pmark.h"

/* Defined later in the one-file build (os_dep.c's in patch 0003).      */
GC_INNER void GC_reset_push_other_roots(void);
GC_INNER void GC_bl_reset(void);        /* blacklst.c's, patch 0003 */
GC_INNER void GC_gcj_vector_reset(void);
#ifdef GC_GCJ_SUPPORT
  extern int GC_gcj_debug_kind;         /* gcj_mlc.c */
#endif
/* allchblk.c's, which only the one-file build sees from here.          */
#ifndef IS_MAPPED
# ifdef USE_MUNMAP
#   define IS_MAPPED(hhdr) (((hhdr)->hb_flags & WAS_UNMAPPED) == 0)
# else
#   define IS_MAPPED(hhdr) TRUE
# endif
#endif

/* ---- time limit in nanoseconds ---------------------------------------- */

/* The limit is stored once, as upstream stores it (GC_time_limit in ms  */
/* plus its ns add-on): the ns API converts, so GC_set_time_limit,       */
/* GC_set_time_limit_tv and GC_set_time_limit_ns cannot drift apart      */
/* (our patch has GC_set_time_limit clear the ns add-on too).            */
GC_API void GC_CALL GC_set_time_limit_ns(unsigned long long ns)
{
  unsigned long long ms = ns / 1000000U;

  if (ns >= GC_TIME_UNLIMITED_NS || ms >= GC_TIME_UNLIMITED) {
    GC_set_time_limit(GC_TIME_UNLIMITED);
    return;
  }
# ifndef NO_CLOCK
  {
    struct GC_timeval_s tv;

    tv.tv_ms = (unsigned long)ms;
    tv.tv_nsec = (unsigned long)(ns % 1000000U);
    GC_set_time_limit_tv(tv);
  }
# else
    GC_set_time_limit((unsigned long)ms); /* no clock: ms is all there is */
# endif
}

GC_API unsigned long long GC_CALL GC_get_time_limit_ns(void)
{
  unsigned long ms = GC_get_time_limit();
  unsigned long long ns = (unsigned long long)ms * 1000000U;

  if (ms == GC_TIME_UNLIMITED)
    return GC_TIME_UNLIMITED_NS;
# ifndef NO_CLOCK
    ns += GC_get_time_limit_tv().tv_nsec;
# endif
  return ns;
}

/* ---- external world stop without threads ------------------------------ */

#ifndef THREADS
  /* Nothing to stop: Unity's fork defines these in every build, so      */
  /* il2cpp's no-threads (WebGL) builds call them.                        */
  GC_API void GC_CALL GC_stop_world_external(void) {}
  GC_API void GC_CALL GC_start_world_external(void) {}
#endif

/* ---- custom push -------------------------------------------------------- */

GC_API struct GC_ms_entry * GC_CALL GC_custom_push_proc(GC_word descr,
                                void *start, struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim)
{
  /* As upstream's PUSH_OBJ: an overflow drops some entries and makes    */
  /* the collector grow the stack and rescan (mark state MS_INVALID).    */
  msp++;
  if ((word)msp >= (word)lim)
    msp = GC_signal_mark_stack_overflow(msp);
  msp->mse_start = (ptr_t)start;
  msp->mse_descr.w = descr;
  return msp;
}

GC_API struct GC_ms_entry * GC_CALL GC_custom_push_range(void *bottom,
                                void *top, struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim)
{
  /* Word-aligned interior of [bottom, top), as GC_push_all takes it.     */
  word b = ((word)bottom + ALIGNMENT - 1) & ~(word)(ALIGNMENT - 1);
  word t = (word)top & ~(word)(ALIGNMENT - 1);

  if (b >= t)
    return msp;
  return GC_custom_push_proc((t - b) | GC_DS_LENGTH, (void *)b, msp, lim);
}

GC_API void GC_CALL GC_push_proc(GC_word descr, void *start)
{
  GC_ASSERT(I_HOLD_LOCK());
  /* On the collector's own stack an overflow must grow it, parallel     */
  /* marker or not (GC_signal_mark_stack_overflow leaves that to the     */
  /* helpers' local stacks when GC_parallel).                            */
  if ((word)(GC_mark_stack_top + 1) >= (word)GC_mark_stack_limit)
    GC_mark_stack_too_small = TRUE;
  GC_mark_stack_top = GC_custom_push_proc(descr, start, GC_mark_stack_top,
                                          GC_mark_stack_limit);
}

/* ---- heap sections ------------------------------------------------------ */

/* Sections are not sorted, and a free block may run across the border  */
/* of two adjacent sections (GC_freehblk coalesces by address).  So the  */
/* walk goes by runs of contiguous sections: it starts at each section   */
/* no other section ends at, and crosses into the section that begins   */
/* where the current one ends; every block then starts where the walk    */
/* expects one.  Quadratic in the number of sections, which is small.    */
static ptr_t hs_section_at(ptr_t p, word *bytes)
{
  size_t i;

  for (i = 0; i < GC_n_heap_sects; i++) {
    if (GC_heap_sects[i].hs_start == p) {
      *bytes = GC_heap_sects[i].hs_bytes;
      return p;
    }
  }
  return NULL;
}

static int hs_run_start(ptr_t s)
{
  size_t i;

  for (i = 0; i < GC_n_heap_sects; i++)
    if (GC_heap_sects[i].hs_start + GC_heap_sects[i].hs_bytes == s)
      return 0;
  return 1;
}

#define HS_FREE     0
#define HS_PADDING  1
#define HS_USED     2
#define HS_UNMAPPED 3
typedef void (*hs_emit_fn)(void *env, ptr_t start, ptr_t end, int type);

/* Report each block of the heap, in address order within each run.     */
static void hs_walk(hs_emit_fn emit, void *env)
{
  size_t i;

  GC_ASSERT(I_HOLD_LOCK());
  for (i = 0; i < GC_n_heap_sects; i++) {
    ptr_t p = GC_heap_sects[i].hs_start;
    ptr_t end = p + GC_heap_sects[i].hs_bytes;

    if (!hs_run_start(p))
      continue;
    for (;;) {
      hdr *hhdr;
      word bytes;

      if ((word)p >= (word)end) {
        if (hs_section_at(end, &bytes) == NULL)
          break;                        /* end of this run */
        end += bytes;
        continue;
      }
      hhdr = HDR(p);
      if (IS_FORWARDING_ADDR_OR_NIL(hhdr)) {
        /* Never expected (each step lands on a block start); skip the   */
        /* block rather than guess whether it is mapped.                 */
        p += HBLKSIZE;
        continue;
      }
      if (HBLK_IS_FREE(hhdr)) {
        bytes = hhdr->hb_sz;
        emit(env, p, p + bytes, IS_MAPPED(hhdr) ? HS_FREE : HS_UNMAPPED);
      } else {
        word sz = hhdr->hb_sz;
        word used;

        bytes = (word)HBLKSIZE * OBJ_SZ_TO_BLOCKS(sz);
        used = sz > MAXOBJBYTES ? sz : HBLK_OBJS(sz) * sz;
        if (used > bytes)
          used = bytes;
        emit(env, p, p + used, HS_USED);
        if (used < bytes)
          emit(env, p + used, p + bytes, HS_PADDING);
      }
      if (bytes == 0)
        bytes = HBLKSIZE;               /* never loop in place */
      p += bytes;
    }
  }
}

/* Unity 2019.4 to 2023.2.7: maximal ranges of contiguous blocks in use */
/* (objects and their padding); free and unmapped blocks end a range    */
/* and are not reported.  fn == 0: count only.                          */
struct hs3_env {
  GC_heap_section_v3_proc fn;
  void *user_data;
  ptr_t start, end;                     /* the open range, if start */
  GC_word count;
};

static void hs3_flush(struct hs3_env *e)
{
  if (e->start != NULL) {
    if (e->fn != 0)
      e->fn(e->user_data, e->start, e->end);
    e->count++;
    e->start = NULL;
  }
}

/* A run ends at a section border with no neighbour: hs_walk moves on   */
/* to another run with the same env, so this flushes at any gap (the    */
/* next range cannot start at the open range's end).                    */
static void hs3_emit(void *env, ptr_t start, ptr_t end, int type)
{
  struct hs3_env *e = (struct hs3_env *)env;

  if (type == HS_FREE || type == HS_UNMAPPED) {
    hs3_flush(e);
  } else if (e->start != NULL && e->end == start) {
    e->end = end;
  } else {
    hs3_flush(e);
    e->start = start;
    e->end = end;
  }
}

static GC_word hs3_walk(void *user_data, GC_heap_section_v3_proc fn)
{
  struct hs3_env e;

  e.fn = fn;
  e.user_data = user_data;
  e.start = e.end = NULL;
  e.count = 0;
  hs_walk(hs3_emit, &e);
  hs3_flush(&e);
  return e.count;
}

/* 2023.2.10+ and 6000: every mapped range, typed.                      */
struct hs4_env {
  GC_heap_section_v4_proc fn;
  void *user_data;
};

static void hs4_emit(void *env, ptr_t start, ptr_t end, int type)
{
  struct hs4_env *e = (struct hs4_env *)env;

  if (type == HS_UNMAPPED || start == end)
    return;
  e->fn(e->user_data, start, end, (GC_heap_section_type)type);
}

GC_API void GC_foreach_heap_section_v3(void *user_data,
                                       GC_heap_section_v3_proc callback)
{
  if (callback != 0)
    (void)hs3_walk(user_data, callback);
}

GC_API void GC_foreach_heap_section_v4(void *user_data,
                                       GC_heap_section_v4_proc callback)
{
  struct hs4_env e;

  if (callback == 0)
    return;
  e.fn = callback;
  e.user_data = user_data;
  hs_walk(hs4_emit, &e);
}

/* Unity's name, the 4-argument form (a C client of the 3-argument era   */
/* reaches _v3 through gc_unity.h's macro, C++ through the overload).   */
#undef GC_foreach_heap_section
GC_API void GC_foreach_heap_section(void *user_data,
                                    GC_heap_section_v4_proc callback);
GC_API void GC_foreach_heap_section(void *user_data,
                                    GC_heap_section_v4_proc callback)
{
  GC_foreach_heap_section_v4(user_data, callback);
}

GC_API GC_word GC_get_heap_section_count(void)
{
  return hs3_walk(NULL, 0);
}

/* ---- GC_deinit's reset -------------------------------------------------- */

/* Called by GC_deinit (patch 0003), lock not held, collector idle: put   */
/* the collector's state back as a fresh process has it, so that GC_INIT  */
/* starts again (il2cpp's domain reload).  Almost all state lives in      */
/* GC_arrays; the rest is reset here by name.  The old heap's memory is   */
/* not returned to the OS (objects in it are simply forgotten), and       */
/* threads other than the caller must be unregistered before.  Kinds and  */
/* mark procs made by clients (gcj, typed, the vector kind) are dropped:  */
/* their init functions make them again.  Only in builds without         */
/* thread-local allocation and parallel marking (IL2CPP's).               */
GC_INNER void GC_unity_reset_state(void)
{
#if !defined(THREAD_LOCAL_ALLOC) && !defined(PARALLEL_MARK)
  unsigned k;
#endif

  /* The dump has ended already (GC_ACC_ON_DEINIT, called just before).  */
#if !defined(THREAD_LOCAL_ALLOC) && !defined(PARALLEL_MARK)
  GC_clear_roots();
  for (k = 0; k < GC_N_KINDS_INITIAL_VALUE; k++)
    GC_obj_kinds[k].ok_reclaim_list = NULL;
  for (k = GC_N_KINDS_INITIAL_VALUE; k < MAXOBJKINDS; k++)
    BZERO(&GC_obj_kinds[k], sizeof(GC_obj_kinds[k]));
  GC_n_kinds = GC_N_KINDS_INITIAL_VALUE;
  GC_n_mark_procs = GC_RESERVED_MARK_PROCS;
  BZERO(&GC_arrays, sizeof(GC_arrays));
  BZERO(GC_hblkfreelist, (N_HBLK_FLS + 1) * sizeof(GC_hblkfreelist[0]));
  BZERO(GC_free_bytes, (N_HBLK_FLS + 1) * sizeof(GC_free_bytes[0]));
# ifdef GC_GCJ_SUPPORT
    GC_gcj_kind = 0;
    GC_gcj_debug_kind = 0;
# endif
  GC_gcj_vector_reset();
  GC_reset_push_other_roots();
  GC_bl_reset();
  GC_incremental = FALSE;
# ifndef GC_DISABLE_INCREMENTAL
    GC_manual_vdb = FALSE;
# endif
#else
  /* Thread-local free lists and the parallel markers' stacks would     */
  /* still hold the old heap: upstream's GC_deinit (nothing reset).      */
  /* The helpers stay referenced (static in the one-file build).        */
  (void)GC_gcj_vector_reset;
  (void)GC_reset_push_other_roots;
  (void)GC_bl_reset;
#endif
}
