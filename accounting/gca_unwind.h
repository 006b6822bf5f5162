/*
 * gca_unwind.h: what unwind.c hands down to unwind_cfi.c (the table
 * walk's cache of unwind rules): the list of where code is, the
 * collector's own code ranges, and the table walk's entry points.
 * Shared by those two modules alone (docs/design.md, "Layers").
 */
#ifndef GCA_UNWIND_H
#define GCA_UNWIND_H

#include "gca_priv.h"

/* auto's sampled stacks by the tables' rules, cached (unwind_cfi.c):  */
/* x86-64 glibc 2.35 and later.                                         */
#if defined(__x86_64__) && defined(__linux__) && defined(GCA_HAVE_UNWIND_H) \
    && (defined(__GNUC__) || defined(__clang__)) && defined(__GLIBC__) \
    && defined(__GLIBC_MINOR__) \
    && (__GLIBC__ > 2 || (2 == __GLIBC__ && __GLIBC_MINOR__ >= 35)) \
    && !defined(__ILP32__) && !defined(GCA_NO_CFI_CACHE)
# define GCA_UNW_CFI 1
#endif

/* The executable segments of the loaded modules (unwind.c, "where code */
/* is"), sorted by lo.  As many segments as fill two pages with the     */
/* list's head (510 on 64-bit hosts): 512 took a third page for the     */
/* head's 24 bytes.                                                      */
#define GCA_UNW_MAX_CODE ((8192 - 3 * sizeof(word)) / (2 * sizeof(word)))
struct gca_unw_code {
  volatile word gc_no;     /* GC_gc_no when listed or last checked      */
  word loads;              /* dlpi_adds + dlpi_subs when listed         */
  unsigned n;
  word lo[GCA_UNW_MAX_CODE], hi[GCA_UNW_MAX_CODE];   /* sorted by lo    */
};

/* The segments last hit, most recent first (a walk crosses a few    */
/* modules: libgc, the program, libc).                                 */
#define GCA_UNW_HINTS 4
struct gca_unw_hints {
  unsigned h[GCA_UNW_HINTS];
};

/* Is ra in a segment of c?  *hint: the segments last hit (the walk     */
/* keeps them in a local; the thread's copy is read and written once    */
/* per walk, TLS being a call in a shared library).  (Not inline: the   */
/* compiler keeps it out of the walks' loops, as when it was unwind.c's.) */
static GC_ATTR_UNUSED int gca_unw_is_code(const struct gca_unw_code *c, word ra,
                              struct gca_unw_hints *hint)
{
  unsigned lo = 0, hi, j;

  for (j = 0; j < GCA_UNW_HINTS; j++) {
    unsigned h = hint->h[j];

    if (h < c->n && ra >= c->lo[h] && ra < c->hi[h]) return 1;
  }
  hi = c->n;
  while (lo < hi) {             /* the last segment with lo <= ra        */
    unsigned mid = (lo + hi) / 2;

    if (c->lo[mid] <= ra) lo = mid + 1; else hi = mid;
  }
  if (0 == lo || ra >= c->hi[lo - 1]) return 0;
  for (j = GCA_UNW_HINTS - 1; j > 0; j--) hint->h[j] = hint->h[j - 1];
  hint->h[0] = lo - 1;
  return 1;
}

/* The collector's own code: [lo[i], hi[i]) for i < *n (unwind.c's,   */
/* "which return addresses are the collector's").                       */
#define GCA_UNW_MAX_RANGES 8
struct gca_unw_ranges {
  const word *lo, *hi;
  const unsigned *n;
};

GC_INLINE int gca_unw_in_ranges(const word *lo, const word *hi, unsigned n,
                                word ra)
{
  unsigned i;

  for (i = 0; i < n; i++)
    if (ra >= lo[i] && ra < hi[i]) return 1;
  return 0;
}

#ifdef GCA_UNW_CFI
/* gca_unwcfi_walk's answers other than a count of frames.             */
# define GCA_UNWCFI_FALL (~0u)      /* take the walk by _Unwind_Backtrace */
# define GCA_UNWCFI_RELIST (~1u)    /* code was NULL: check the code list */

/* The walk as _Unwind_Backtrace's (unwind.c's unw_gcc), from the       */
/* caller's frame, by the cached rules: up to max return addresses in   */
/* frames after skip, the collector's frames (in gc) dropped first; on  */
/* the thread's stack [lo, hi), code the current code list (checked    */
/* against GC_gc_no by the caller; NULL: only map the table).  Returns  */
/* the count, GCA_UNWCFI_FALL (no table, another stack, a rule it does  */
/* not model, a writer between), or GCA_UNWCFI_RELIST (code NULL).      */
GC_INNER unsigned gca_unwcfi_walk(word *frames, unsigned max, unsigned skip,
                                  word lo, word hi,
                                  const struct gca_unw_code *code,
                                  const struct gca_unw_ranges *gc);
#endif

#endif /* GCA_UNWIND_H */
