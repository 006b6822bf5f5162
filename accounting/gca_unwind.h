/* SPDX-License-Identifier: MIT */
/*
 * gca_unwind.h: what unwind.c hands down to unwind_cfi.c (the walks by
 * the unwind tables: libgcc's, and the cache of its rules) and to
 * unwind_memo.c (the walks' memos): the list of where code is, the
 * collector's own code ranges, and the walks' entry points; and, for
 * sites.c too, where the table walks exist (docs/design.md, "Layers").
 */
#ifndef GCA_UNWIND_H
#define GCA_UNWIND_H

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE   /* (else GC_INNER, static in the one-file build, */
                         /* declares what nothing defines: warnings)     */

/* May auto take sampled stacks with _Unwind_Backtrace (sites.c)?  Only */
/* where it finds a module's unwind tables without the loader's lock:   */
/* glibc 2.35 and later have _dl_find_object, which libgcc (12 and      */
/* later) uses.  A sample is taken with the allocation lock held, while */
/* a thread in dlopen may hold the loader's lock and wait for ours      */
/* (elsewhere auto stays fp; GC_ACC_UNWIND=libgcc takes that risk on    */
/* the user's word).  Without <unwind.h> (MSVC) there is no table walk. */
#if defined(GCA_HAVE_UNWIND_H) && defined(__GLIBC__) \
    && defined(__GLIBC_MINOR__) \
    && (__GLIBC__ > 2 || (2 == __GLIBC__ && __GLIBC_MINOR__ >= 35))
# define GCA_UNW_AUTO_TABLES 1
#endif

/* auto's sampled stacks by the tables' rules, cached (unwind_cfi.c):  */
/* x86-64 glibc 2.35 and later.                                         */
#if defined(GCA_UNW_AUTO_TABLES) && defined(__x86_64__) \
    && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) \
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

/* The collector's own code: [lo[i], hi[i]) for i < n (unwind.c's,    */
/* "which return addresses are the collector's", copied to             */
/* unwind_cfi.c by gca_unwcfi_set_ranges at gca_unwind_init).            */
#define GCA_UNW_MAX_RANGES 8
GC_INLINE int gca_unw_in_ranges(const word *lo, const word *hi, unsigned n,
                                word ra)
{
  unsigned i;

  for (i = 0; i < n; i++)
    if (ra >= lo[i] && ra < hi[i]) return 1;
  return 0;
}

GC_INNER void gca_unwcfi_set_ranges(const word *lo, const word *hi,
                                    unsigned n);
/* libgcc's walk (_Unwind_Backtrace; none without <unwind.h>): up to    */
/* max return addresses in frames, the collector's frames dropped, then */
/* skip more.  noinline: its first frames are the collector's.           */
GC_INNER unsigned gca_unwcfi_gcc(word *frames, unsigned max, unsigned skip);

#ifdef GCA_UNW_CFI
/* gca_unwcfi_walk's answer when code is NULL, the table mapped: list   */
/* the code again (unwind.c) and walk with it.                          */
# define GCA_UNWCFI_RELIST (~1u)

/* The walk as gca_unwcfi_gcc's, from the caller's frame, by the cached */
/* rules, on the thread's stack [lo, hi) (known), code the current code */
/* list; anything it does not model (no table, another stack, a rule it */
/* cannot use, a writer between) goes to gca_unwcfi_gcc.                 */
GC_INNER unsigned gca_unwcfi_walk(word *frames, unsigned max, unsigned skip,
                                  word lo, word hi,
                                  const struct gca_unw_code *code);

/* A thread's last table walks, checked rather than walked again: the */
/* walk is a function of where it starts (pc, sp, bp), the rules (the */
/* code list's) and the stack words it reads, so if those words hold   */
/* what they held, it ends where it ended.  Two parts: the collector's */
/* frames and the skipped ones (pre: where the kept frames start), then */
/* the kept frames (suf: the frames), each kept per start.             */
# define GCA_UNWCFI_MEMO_READS 32     /* return addresses and saved rbp */
# define GCA_UNWCFI_MEMO_FRAMES 16    /* GC_ACC_STACK_DEPTH's default   */
struct gca_unwcfi_memo {
  const void *code;             /* the code list; NULL: empty           */
  word pc, sp, bp, hi;          /* the start                            */
  unsigned arg, nr, n;          /* pre: skip, suf: max; reads; frames   */
  unsigned id;                  /* suf: the site of its frames, 0: none */
  int bp_key;                   /* its start's rbp was used: compared   */
  word out_pc, out_sp, out_bp;  /* pre: where the kept pc is, its sp,   */
                                /* its rbp (where it is: n 1; the       */
                                /* start's, never loaded: n 2)          */
  word at[GCA_UNWCFI_MEMO_READS], v[GCA_UNWCFI_MEMO_READS];
  word frames[GCA_UNWCFI_MEMO_FRAMES];  /* suf                          */
};
# define GCA_UNWCFI_MEMO_PRE 4       /* collector's paths               */
# define GCA_UNWCFI_MEMO_SUF 8       /* program stacks                  */
struct gca_unwcfi_memos {
  struct gca_unwcfi_memo pre[GCA_UNWCFI_MEMO_PRE], suf[GCA_UNWCFI_MEMO_SUF];
  unsigned pre_next, suf_next;  /* the next to replace                  */
  struct gca_unwcfi_memo *last; /* the walk's kept frames' memo, or NULL */
};
/* The stack words a walk read, where and what (counted past the      */
/* memo's room: then not kept).                                         */
struct gca_unwcfi_reads {
  unsigned n;
  int bp_used;                  /* a CFA by the start's rbp              */
  int bp_loaded;                /* rbp loaded from the stack since       */
  word at[GCA_UNWCFI_MEMO_READS], v[GCA_UNWCFI_MEMO_READS];
};
/* unwind_memo.c: the calling thread's memos (gca_unwcfi_memo_use);    */
/* a memo of m (ways of them) for a walk from (pc, sp, bp) with arg    */
/* (pre: skip, suf: max) whose every word read still holds what it     */
/* held, else NULL.                                                      */
GC_EXTERN GCA_TLS_FAST struct gca_unwcfi_memos *gca_unwcfi_memo_self;
GC_INNER const struct gca_unwcfi_memo *gca_unwcfi_memo_find(
                        const struct gca_unwcfi_memo *m, unsigned ways,
                        const void *code, word pc, word sp, word bp, word hi,
                        unsigned arg);
/* Where the kept frames start (*pc, *sp, *bp: the last step reads the */
/* program's words again) if the collector's frames are as the memo of */
/* a walk from start (pc, sp, bp; skip 0) had them: 1, else 0.          */
GC_INNER int gca_unwcfi_memo_pre(const struct gca_unwcfi_memos *mm,
                                 const void *code, const word *start,
                                 word hi, word *pc, word *sp, word *bp);
/* A walk that held, into the memos: its collector's frames (rp, NULL: */
/* not walked or skip; last: where its last step's reads begin), and  */
/* its kept frames from kept (rs, NULL: not walked).                    */
GC_INNER void gca_unwcfi_memo_keep(struct gca_unwcfi_memos *mm,
                                   const void *code, word hi, unsigned max,
                                   const word *start,
                                   struct gca_unwcfi_reads *rp, unsigned last,
                                   const word *kept,
                                   const struct gca_unwcfi_reads *rs,
                                   const word *frames, unsigned n);
#endif

#endif /* !GC_ACC_DISABLE */

#endif /* GCA_UNWIND_H */
