/*
 * hooks.c: the out-of-line bodies behind the GC_ACC_ON_* macros.
 *
 * Each body only dispatches to the module that keeps the books
 * (counters.c, freelist.c, ...); the contract of every hook (site, locks,
 * arguments) is stated in gca_hooks.h.  Also the few totals no module owns
 * (collections, heap growths) and the OS-page allocator for our tables.
 */

#include "gca_priv.h"

#ifdef GC_PTHREADS
# include <pthread.h>
#endif

#ifndef GC_ACC_DISABLE

#if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
# include <windows.h>
#else
# include <sys/mman.h>
#endif

GC_INNER int gca_on = 0;
GC_INNER int gca_track_heap = 0;
GC_INNER int gca_tl_mode = 0;
GC_INNER word gca_collections = 0;
GC_INNER word gca_heap_grows = 0;

GC_INNER void *gca_os_alloc(size_t bytes)
{
# if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
    return VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE,
                        PAGE_READWRITE);
# else
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANON, -1, 0);
    return p == MAP_FAILED ? NULL : p;
# endif
}

GC_INNER void gca_os_free(void *p, size_t bytes)
{
  if (NULL == p) return;
# if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
    (void)bytes;
    VirtualFree(p, 0, MEM_RELEASE);
# else
    (void)munmap(p, bytes);
# endif
}

/* Accounting's own spin locks are leaves (taken with or without the   */
/* allocation lock, never holding another), so a fork() could catch one */
/* held by a thread the child does not have, and the child would spin  */
/* on it for ever at its next new callsite or pair.  Taking them in a   */
/* prepare handler is not an option: ours would run before bdwgc's,     */
/* which takes the allocation lock, the wrong order.  The child frees   */
/* them instead.                                                         */
#ifdef GC_PTHREADS
static void gca_atfork_child(void)
{
  gca_sites_atfork_child();
  gca_types_atfork_child();
  gca_counters_atfork_child();
  gca_dump_atfork_child();
}
#endif

GC_INNER void gca_hook_init(void)
{
# ifdef GC_PTHREADS
    (void)pthread_atfork(NULL, NULL, gca_atfork_child);
# endif
  gca_env_read();
}

GC_INNER void gca_set_on(int on)
{
  DCL_LOCK_STATE;

  LOCK();
  if (on && NULL == gca_tables) {
    gca_tables = (struct gca_tables *)gca_os_alloc(sizeof(struct gca_tables));
    if (NULL == gca_tables) {
      UNLOCK();
      WARN("gcacc: no memory for accounting's tables;"
           " accounting stays off\n", 0);
      return;
    }
    gca_locked_rows = gca_tables->locked_rows;
  }
  if (on && !gca_on) {
    /* Every in-use block gets a clean tag table (types, sites, ages   */
    /* start from here).                                               */
    gca_tags_reset_all(!gca_track_heap);
  }
  if (on && !gca_track_heap) {
    gca_freelist_rebuild();
    gca_track_heap = 1;
  }
  gca_on = on != 0;
  gca_tl_mode_update();
  UNLOCK();
}

/* gca_tl_mode from gca_on and gca_tags_on; lock held.                    */
GC_INNER void gca_tl_mode_update(void)
{
  int mode = !gca_on ? 0 : gca_tags_on ? 2 : 1;

  GCA_STORE(&gca_tl_mode, mode);
  if (mode != 1) gca_counters_rows_off();
}

/* ---- allocation --------------------------------------------------------- */

GC_INNER void gca_hook_alloc(void *p, size_t lb, int k)
{
  gca_counters_alloc(p, lb, k);
}

GC_INNER void gca_hook_alloc_large(void *p, size_t lb, int k, word n_blocks)
{
  gca_counters_alloc_large(p, lb, k, n_blocks);
}

GC_INNER void gca_hook_alloc_tl(void *p, size_t lb, size_t granules, int k)
{
  (void)gca_counters_alloc_tl(p, lb, granules, k);
}

GC_INNER void *gca_hook_alloc_tl_ret(void *p, size_t lb, size_t granules,
                                     int k)
{
  return gca_counters_alloc_tl(p, lb, granules, k);
}

GC_INNER void gca_hook_alloc_many_begin(void **result)
{
  gca_counters_many_begin(result);
}

GC_INNER void gca_hook_alloc_many_end(void **result, size_t lb, int k)
{
  (void)k;
  gca_counters_many_end(result, lb);
}

GC_INNER void gca_hook_debug_alloc(void *p, word sz)
{
  (void)sz;
  gca_counters_debug(p);
}

GC_INNER void gca_hook_thread_exit(void)
{
  gca_counters_thread_exit();
  if (gca_on) gca_types_thread_exit();
}

GC_INNER void gca_hook_free(void *p)
{
  gca_tags_free(p);
}

/* ---- heap blocks and free lists ----------------------------------------- */

GC_INNER void gca_hook_hblk_unmet(size_t sz, int kind, unsigned flags)
{
  gca_heapgrow_unmet(sz, kind, flags);
}

/* Without tags (or accounting) a block's hb_acc is NULL: the tag work */
/* is a call only when there is some (mode 2: accounting and tags on).  */
GC_INNER void gca_hook_hblk_alloc(struct hblk *h, hdr *hhdr)
{
  gca_heapgrow_satisfied();
  if (2 == gca_tl_mode) {
    gca_tags_hblk_alloc(h, hhdr);
  } else {
    hhdr->hb_acc = NULL;
  }
}

GC_INNER void gca_hook_hblk_free(struct hblk *h, hdr *hhdr)
{
  if (hhdr->hb_acc != NULL) gca_tags_hblk_free(h, hhdr);
}

GC_INNER void gca_hook_freelist_add(hdr *hhdr, int index)
{
  gca_freelist_add(hhdr, index);
}

GC_INNER void gca_hook_freelist_del(hdr *hhdr, int index)
{
  gca_freelist_del(hhdr, index);
}

GC_INNER void gca_hook_freelist_split(hdr *hhdr, word h_size, int index)
{
  gca_freelist_split(hhdr, h_size, index);
}

GC_INNER void gca_hook_freelist_unmap(hdr *hhdr, int unmapped)
{
  gca_freelist_unmap(hhdr, unmapped);
}

GC_INNER void gca_hook_heap_grow(struct hblk *p, size_t bytes)
{
  gca_heapgrow_note(p, bytes);
  gca_heap_grows++;
  gca_tags_heap_grew();
}

/* ---- collections -------------------------------------------------------- */

GC_INNER void gca_hook_mark_begin(void)
{
  gca_census_mark_begin();
}

GC_INNER void gca_hook_mark_end(int done)
{
  gca_census_mark_end(done);
}

GC_INNER void gca_hook_collection_end(void)
{
  gca_collections++;
  gca_census_collection_end();
}

#endif /* !GC_ACC_DISABLE */
