/*
 * base.c: the services every accounting module stands on.
 *
 * The bottom of accounting's layers (docs/design.md, "Layers"): OS pages
 * for our tables (never the GC heap), the clock, the block of large tables
 * taken when accounting first goes on, the allocation path's one
 * thread-local struct, and the switches the hooks read.  It calls nothing
 * of accounting's own; every other module may call it.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <time.h>
#if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
# include <windows.h>
#else
# include <sys/mman.h>
#endif

/* ---- switches (gca_hooks.h) ---------------------------------------------- */
GC_INNER int gca_on = 0;
GC_INNER int gca_track_heap = 0;
GC_INNER int gca_tl_mode = 0;
GC_INNER int gca_tags_on = 1;
GC_INNER unsigned gca_gcj_kinds = 0;
GC_INNER word gca_collections = 0;
GC_INNER word gca_heap_grows = 0;

/* ---- the thread-local struct of the allocation path ------------------- */
GC_INNER GCA_TLS_FAST struct gca_tl gca_tl_self;

/* ---- OS pages ------------------------------------------------------------ */

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

/* Pages taken for an owner's tables, counted as the OS gives them:    */
/* whole pages.  The counts may be updated from threads holding         */
/* different locks (a pair's spin lock, the allocation lock): atomic.    */
GC_INNER word gca_mem_bytes[GCA_MEM_N] = { 0 };

#define MEM_PAGES(bytes) (((word)(bytes) + 4095) & ~(word)4095)

GC_INNER void *gca_mem_alloc(unsigned owner, size_t bytes)
{
  void *p = gca_os_alloc(bytes);

  if (p != NULL) GCA_ADD(&gca_mem_bytes[owner], MEM_PAGES(bytes));
  return p;
}

GC_INNER void gca_mem_free(unsigned owner, void *p, size_t bytes)
{
  if (NULL == p) return;
  gca_os_free(p, bytes);
  GCA_ADD(&gca_mem_bytes[owner], (word)0 - MEM_PAGES(bytes));
}

GC_INNER int gca_ulist_push(struct gca_ulist *l, unsigned owner, unsigned v)
{
  if (l->n == l->cap) {
    word cap = l->cap ? l->cap * 2 : 1024;
    unsigned *d = (unsigned *)gca_mem_alloc(owner, cap * sizeof(unsigned));

    if (NULL == d) return 0;
    if (l->n) BCOPY(l->id, d, l->n * sizeof(unsigned));
    gca_mem_free(owner, l->id, l->cap * sizeof(unsigned));
    l->id = d;
    l->cap = cap;
  }
  l->id[l->n++] = v;
  return 1;
}

/* ---- the table block ------------------------------------------------------ */
GC_INNER struct gca_tables *gca_tables = NULL;

GC_INNER int gca_tables_get(void)
{
  if (NULL == gca_tables)
    gca_tables = (struct gca_tables *)gca_os_alloc(sizeof(struct gca_tables));
  return gca_tables != NULL;
}

/* ---- the clock ----------------------------------------------------------- */

GC_INNER word gca_now_ns(void)
{
# if defined(CLOCK_MONOTONIC) && !defined(MSWIN32) && !defined(MSWINCE)
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (word)ts.tv_sec * 1000000000u + (word)ts.tv_nsec;
# elif !defined(NO_CLOCK)
    /* Millisecond clock of the platform, from an arbitrary origin.     */
    static CLOCK_TYPE t0;
    static int t0_set = 0;
    CLOCK_TYPE t;

    GET_TIME(t);
    if (!t0_set) {
      t0 = t;
      t0_set = 1;
    }
    return (word)MS_TIME_DIFF(t, t0) * 1000000u;
# else
    return 0;
# endif
}

#endif /* !GC_ACC_DISABLE */
