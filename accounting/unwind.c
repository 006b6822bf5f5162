/* SPDX-License-Identifier: MIT
 * unwind.c: the allocating call stack, as raw return addresses.
 *
 * Two unwinders (GC_ACC_UNWIND, GC_acc_set_unwinder; auto: sites.c's):
 *
 *  - fp: a frame-pointer walk from our own frame.  Return address at
 *    fp[1], the caller's frame pointer at fp[0] (gcc's 32-bit ARM code:
 *    fp[0] and fp[-1], see UNW_LINK).  Every frame pointer is checked
 *    before it is read: word-aligned, strictly above the previous one and
 *    below the top of the thread's stack (pthread_getattr_np, cached), and
 *    the walk only starts when our own frame lies on that stack (not on a
 *    signal stack or a fiber's); every return address must lie in a loaded
 *    module's code, else the walk ends ("where code is" below).  So code
 *    without frame pointers (rbp an ordinary register) can shorten or
 *    garble a stack, never make the walk read outside the thread's stack.
 *    The walk can only leave the collector if every collector function
 *    between the program's call and the hook keeps a frame record: gcc's
 *    one-file build (extra/gc.c) gives them records, and only them
 *    (GCA_FRAME_RECORDS_BEGIN, gca_hooks.h); other builds add
 *    -fno-omit-frame-pointer to all of libgc (configure.ac); embedders
 *    compiling extra/gc.c with clang need that flag, or the libgcc
 *    unwinder.
 *
 *  - libgcc: _Unwind_Backtrace (DWARF call-frame information, the
 *    unwinder C++ exceptions use): right without frame pointers, several
 *    times slower (bench/stacks/stackcost); none without <unwind.h>.
 *    auto's sampled stacks on x86-64 glibc 2.35+ take the same tables'
 *    rules, cached per return address ("the table walk's cache" below):
 *    the same stacks, some 700 instructions a sample, not 13,000.
 *
 * The collector's own frames are dropped: leading return addresses that
 * lie inside libgc.  When libgc is a shared library of its own (a module
 * whose file name starts with "libgc."), "inside" is its executable
 * segments (dl_iterate_phdr).  When it is linked into a larger module (a
 * static link, the extra/gc.c amalgamation inside a program or
 * libil2cpp.so) its code cannot be told from its neighbours' by module,
 * so "inside" is the span from the lowest to the highest entry address
 * of a fixed set of collector functions (allocation entry points,
 * allocation internals, the accounting hooks): one object file's code is
 * contiguous in a link, and the allocation path runs through functions
 * of that set.  Parts the compiler moves out of line (.text.unlikely
 * "cold" parts) may fall outside the span; such a frame then stays as the
 * innermost frame of the stack (the stack is still right, one frame
 * longer).
 */

#include "gca_priv.h"

/* The public entry points whose code spans mark the collector's frames. */
#include "gc_inline.h"
#include "gc_mark.h"
#include "gc_typed.h"

#ifndef GC_ACC_DISABLE

#include <stddef.h>
#include <string.h>

#if defined(__linux__) && defined(GC_PTHREADS) || defined(HAVE_PTHREAD_GETATTR_NP)
# include <pthread.h>
# define GCA_HAVE_GETATTR_NP 1
#endif
#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) \
    || defined(__OpenBSD__)
# include <link.h>
# define GCA_HAVE_PHDR 1
#endif

GC_INNER int gca_unwinder = GCA_UNWIND_AUTO;

/* In one unit with sites.c (gca_amalgam.c) the guessed walk is inlined */
/* into its callers and starts from their frame: one call and one      */
/* frame fewer (a function of its own otherwise).                       */
#if defined(GCA_AMALGAM) && (defined(__GNUC__) || defined(__clang__))
# define GCA_UNW_GUESSED_INLINE 1
# define GCA_UNW_GUESSED GC_INLINE __attribute__((__always_inline__))
#else
# define GCA_UNW_GUESSED GC_INNER GC_ATTR_NOINLINE
#endif

/* ---- the current thread's stack ---------------------------------------- */

/* [lo, hi) of this thread's stack; hi 0: not yet known, 1: unknown.    */
/* (Initial-exec where available: read on every walk.)                 */
static GCA_TLS_FAST word unw_stack_lo = 0;
static GCA_TLS_FAST word unw_stack_hi = 0;

static void unw_find_stack(void)
{
  unw_stack_hi = 1;
# ifdef GCA_HAVE_GETATTR_NP
  {
    pthread_attr_t a;
    void *addr;
    size_t sz;

    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      if (pthread_attr_getstack(&a, &addr, &sz) == 0 && sz != 0) {
        unw_stack_lo = (word)addr;
        unw_stack_hi = (word)addr + sz;
      }
      (void)pthread_attr_destroy(&a);
    }
  }
# elif !defined(THREADS) && defined(STACK_GROWS_DOWN)
  if (GC_stackbottom != NULL) {
    unw_stack_lo = 0;
    unw_stack_hi = (word)GC_stackbottom;
  }
# endif
}

/* ---- which return addresses are the collector's ------------------------ */

#define UNW_MAX_RANGES 8
static word unw_lo[UNW_MAX_RANGES], unw_hi[UNW_MAX_RANGES];
static unsigned unw_n_ranges = 0;
static volatile int unw_ranges_ready = 0;
GC_INNER GC_ATTR_UNUSED int gca_unwind_libgc_shared = 0; /* for tests */

#ifdef GCA_HAVE_PHDR
/* The module whose segments hold the address *data: if it is libgc,   */
/* its code segments are the collector's ranges.  Stops there.          */
static int unw_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  word addr = *(const word *)data;
  const char *name = info->dlpi_name;
  const char *base;
  unsigned n = 0;
  int i, mine = 0;

  (void)size;
  for (i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    word lo = (word)info->dlpi_addr + (word)ph->p_vaddr;

    if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_memsz)
      mine = 1;
  }
  if (!mine) return 0;
  base = name != NULL ? strrchr(name, '/') : NULL;
  base = base != NULL ? base + 1 : name;
  if (NULL == base || strncmp(base, "libgc.", 6) != 0) return 1;
  for (i = 0; i < info->dlpi_phnum && n < UNW_MAX_RANGES; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) != 0) {
      unw_lo[n] = (word)info->dlpi_addr + (word)ph->p_vaddr;
      unw_hi[n] = unw_lo[n] + (word)ph->p_memsz;
      n++;
    }
  }
  unw_n_ranges = n;
  gca_unwind_libgc_shared = n > 0;
  return 1;
}
#endif

/* The unwinder's own functions below: the first walk of each thread  */
/* (and every walk after a module was loaded, or with the libgcc        */
/* unwinder) runs through them, so they must lie in the span too, or    */
/* that walk keeps the collector's frames as the allocating stack.       */
static unsigned unw_fp(word *frames, unsigned max, unsigned skip,
                       int *not_code);
static unsigned unw_gcc(word *frames, unsigned max, unsigned skip);
static unsigned unw_walk_relist(word *frames, unsigned max, unsigned skip,
                                unsigned n);
static unsigned unw_walk_slow(word *frames, unsigned max, unsigned skip);
#if defined(__x86_64__) && defined(__linux__) && defined(GCA_HAVE_UNWIND_H) \
    && (defined(__GNUC__) || defined(__clang__)) && defined(__GLIBC__) \
    && defined(__GLIBC_MINOR__) \
    && (__GLIBC__ > 2 || (2 == __GLIBC__ && __GLIBC_MINOR__ >= 35)) \
    && !defined(__ILP32__) && !defined(GCA_NO_CFI_CACHE)
# define GCA_UNW_CFI 1
  static unsigned unw_cfi(word *frames, unsigned max, unsigned skip);
#endif
static const struct gca_unw_guess *unw_guess_miss(
                        struct gca_unw_guesses *t, word *frames, unsigned max,
                        const word *fp, struct gca_unw_guess *g,
                        const word *gf);
static const struct gca_unw_guess *unw_guess_slow(
                        struct gca_unw_guesses *t, word *frames, unsigned max);

/* The span of these functions, and of the allocation path's functions */
/* above this module that hooks.c names at GC_init (the anchors), stands */
/* for the collector's code when it shares its module with other code. */
/* (code after the last one: other archive members, not the program's */
/* own objects, which a static link places first).                     */
static const struct gca_code_anchors *unw_anchors = NULL;

static void unw_span(void)
{
  word a[] = {
    (word)GC_malloc, (word)GC_malloc_atomic, (word)GC_malloc_kind,
    (word)GC_generic_malloc, (word)GC_malloc_uncollectable,
    (word)GC_malloc_ignore_off_page, (word)GC_generic_malloc_many,
    (word)GC_malloc_many, (word)GC_realloc, (word)GC_memalign,
    (word)GC_debug_malloc, (word)GC_debug_malloc_atomic,
    (word)GC_malloc_explicitly_typed, (word)GC_generic_malloc_inner,
    (word)GC_allocobj, (word)GC_init, (word)GC_gcollect,
    (word)GC_generic_malloc_ignore_off_page, (word)GC_strdup,
    (word)GC_posix_memalign,
    (word)gca_unwind, (word)unw_fp, (word)unw_gcc, (word)unw_walk_relist,
    (word)unw_walk_slow, (word)unw_guess_miss, (word)unw_guess_slow,
#   ifdef GCA_UNW_CFI
      (word)unw_cfi,
#   endif
#   ifndef GCA_UNW_GUESSED_INLINE
      (word)gca_unwind_guessed,
#   endif
  };
  word lo = ~(word)0, hi = 0;
  size_t i;

  for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
    if (a[i] < lo) lo = a[i];
    if (a[i] > hi) hi = a[i];
  }
  for (i = 0; unw_anchors != NULL && i < GCA_N_CODE_ANCHORS; i++) {
    word f = (word)unw_anchors->fn[i];

    if (0 == f) continue;
    if (f < lo) lo = f;
    if (f > hi) hi = f;
  }
  unw_lo[0] = lo;
  unw_hi[0] = hi + 4096;   /* the last function's body (about) */
  unw_n_ranges = 1;
}

GC_INNER void gca_unwind_set_anchors(const struct gca_code_anchors *a)
{
  unw_anchors = a;
}

GC_INNER void gca_unwind_init(void)
{
  if (unw_ranges_ready) return;
# ifdef GCA_HAVE_PHDR
  {
    word addr = (word)gca_unwind;

    (void)dl_iterate_phdr(unw_phdr_cb, &addr);
  }
# endif
  if (0 == unw_n_ranges) unw_span();
  __atomic_store_n(&unw_ranges_ready, 1, __ATOMIC_RELEASE);
}

static int unw_in_libgc(word ra)
{
  unsigned i;

  for (i = 0; i < unw_n_ranges; i++)
    if (ra >= unw_lo[i] && ra < unw_hi[i]) return 1;
  return 0;
}

/* ---- where code is: the fp walk's stopping rule ------------------------ */
/* A frame-pointer chain has no end marker a walk can trust: threads    */
/* start in libc code built without frame pointers, whose rbp may point */
/* at thread-control data on the stack.  So every return address must   */
/* lie in an executable segment of a loaded module; the walk stops at    */
/* the first that does not (else such a tail would be different in      */
/* every thread, and each thread would get sites of its own).  The       */
/* segments are listed once (dl_iterate_phdr) and listed again, at most  */
/* once per collection, when a walk stops that way and the loader says  */
/* a module came or went (dlpi_adds, dlpi_subs): a module dlopen'd     */
/* since the last listing ends stacks early until the next collection.  */
/* As many segments as fill two pages with the list's head (510 on     */
/* 64-bit hosts): 512 took a third page for the head's 24 bytes.         */
#define UNW_MAX_CODE ((8192 - 3 * sizeof(word)) / (2 * sizeof(word)))
struct unw_code {
  volatile word gc_no;     /* GC_gc_no when listed or last checked      */
  word loads;              /* dlpi_adds + dlpi_subs when listed         */
  unsigned n;
  word lo[UNW_MAX_CODE], hi[UNW_MAX_CODE];   /* sorted by lo            */
};
static struct unw_code *unw_code = NULL;    /* published, acquire loads */
static volatile int unw_code_lock = 0;

#ifdef GCA_HAVE_PHDR
static int unw_code_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  struct unw_code *c = (struct unw_code *)data;
  int i;

  (void)size;
  for (i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    word lo, hi;
    unsigned j;

    if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0) continue;
    if (c->n >= UNW_MAX_CODE) return 1;
    lo = (word)info->dlpi_addr + (word)ph->p_vaddr;
    hi = lo + (word)ph->p_memsz;
    for (j = c->n; j > 0 && c->lo[j - 1] > lo; j--) {   /* insertion */
      c->lo[j] = c->lo[j - 1];
      c->hi[j] = c->hi[j - 1];
    }
    c->lo[j] = lo;
    c->hi[j] = hi;
    c->n++;
  }
  return 0;
}
#endif

#ifdef GCA_HAVE_PHDR
static int unw_loads_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs)
               + sizeof(info->dlpi_subs))
    *(word *)data = (word)(info->dlpi_adds + info->dlpi_subs);
  return 1;
}
#endif

/* Modules loaded and unloaded so far (0 if unknown).                   */
static word unw_loads(void)
{
  word n = 0;

# ifdef GCA_HAVE_PHDR
    (void)dl_iterate_phdr(unw_loads_cb, &n);
# endif
  return n;
}

/* (Re)list the code segments; old lists are kept for walks in flight  */
/* (one list, 8 KiB, per collection that saw a new module at most;       */
/* counted in acc_memory.unwind_bytes).                                  */
static void unw_code_list(void)
{
  struct unw_code *c;

  if (__atomic_exchange_n(&unw_code_lock, 1, __ATOMIC_ACQUIRE)) return;
  c = unw_code;
  if (c != NULL && c->loads != 0 && c->loads == unw_loads()) {
    c->gc_no = (word)GC_gc_no;   /* no module came or went: keep it    */
    __atomic_store_n(&unw_code_lock, 0, __ATOMIC_RELEASE);
    return;
  }
  c = (struct unw_code *)gca_mem_alloc(GCA_MEM_UNWIND,
                                       sizeof(struct unw_code));
  if (c != NULL) {
    c->gc_no = (word)GC_gc_no;
    c->loads = unw_loads();
#   ifdef GCA_HAVE_PHDR
      (void)dl_iterate_phdr(unw_code_cb, c);
#   endif
    __atomic_store_n(&unw_code, c, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&unw_code_lock, 0, __ATOMIC_RELEASE);
}

/* The segments last hit, most recent first (a walk crosses a few    */
/* modules: libgc, the program, libc); initial-exec where available.   */
#define UNW_HINTS 4
struct unw_hints {
  unsigned h[UNW_HINTS];
};
static GCA_TLS_FAST struct unw_hints unw_code_hints;

/* *hint: the segment last hit (the walk keeps it in a local; the      */
/* thread's copy is read and written once per walk, TLS being a call    */
/* in a shared library).                                                */
static int unw_is_code(const struct unw_code *c, word ra,
                       struct unw_hints *hint)
{
  unsigned lo = 0, hi, j;

  for (j = 0; j < UNW_HINTS; j++) {
    unsigned h = hint->h[j];

    if (h < c->n && ra >= c->lo[h] && ra < c->hi[h]) return 1;
  }
  hi = c->n;
  while (lo < hi) {             /* the last segment with lo <= ra        */
    unsigned mid = (lo + hi) / 2;

    if (c->lo[mid] <= ra) lo = mid + 1; else hi = mid;
  }
  if (0 == lo || ra >= c->hi[lo - 1]) return 0;
  for (j = UNW_HINTS - 1; j > 0; j--) hint->h[j] = hint->h[j - 1];
  hint->h[0] = lo - 1;
  return 1;
}

/* Return addresses this thread's walks found to be code, direct-mapped */
/* by address, for the code list they were checked against: a walk     */
/* meets the same few dozen again and again, and one compare replaces  */
/* the search of the segments.                                          */
#define UNW_RA_OK_LOG 6
struct unw_ra_ok {
  const struct unw_code *code;
  word ra[(unsigned)1 << UNW_RA_OK_LOG];
};
static GCA_TLS_FAST struct unw_ra_ok unw_ra_ok;
#define UNW_RA_OK_SLOT(ra) \
        (((ra) * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ - UNW_RA_OK_LOG))

/* ---- the two walks --------------------------------------------------- */

/* The search of the segments for ra, a yes remembered in ok.          */
static int unw_code_search(struct unw_ra_ok *ok, const struct unw_code *c,
                           word ra, struct unw_hints *hint)
{
  if (!unw_is_code(c, ra, hint)) return 0;
  ok->ra[UNW_RA_OK_SLOT(ra)] = ra;
  return 1;
}

/* ok's answers hold for code list code: forgotten when it changes.    */
GC_INLINE void unw_ra_ok_for(struct unw_ra_ok *ok, const struct unw_code *code)
{
  if (EXPECT(ok->code != code, FALSE)) {
    BZERO(ok->ra, sizeof(ok->ra));      /* checked against another list */
    ok->code = code;
  }
}

/* Is ra code?  One compare if ok remembers it, else the search.        */
GC_INLINE int unw_code_ok(struct unw_ra_ok *ok, const struct unw_code *c,
                          word ra, struct unw_hints *hint)
{
  return EXPECT(ok->ra[UNW_RA_OK_SLOT(ra)] == ra, TRUE)
         || unw_code_search(ok, c, ra, hint);
}

/* The walk from frame fp (the caller's own: its return address is     */
/* libgc's, dropped with the collector's other frames).  Inlined into   */
/* its two callers, each a noinline function whose                      */
/* __builtin_frame_address(0) gives a frame pointer whatever the flags. */
/* Always inlined: were it a function of its own, unw_fp's call to it   */
/* is a tail call, and aarch64 gcc 12 (-O2) pops unw_fp's frame record  */
/* before the jump: the walk then starts from freed stack (a thread's   */
/* first stack came out empty; tests/cross/cross.sh's test_unwind).     */
#if defined(__GNUC__) || defined(__clang__)
# define UNW_ALWAYS_INLINE GC_INLINE __attribute__((__always_inline__))
#else
# define UNW_ALWAYS_INLINE GC_INLINE
#endif
/* The frame record a frame pointer points at: the caller's frame      */
/* pointer and the return address.  x86-64, aarch64 (x29) and clang's  */
/* 32-bit ARM code: fp[0] and fp[1].  gcc's 32-bit ARM-mode code (-marm */
/* -fno-omit-frame-pointer, without -mapcs-frame: push {fp, lr}; add   */
/* fp, sp, #4): fp points at the saved lr, the caller's fp one word     */
/* below.  Thumb code (r7, laid out as the compiler likes) is not       */
/* supported by this walk: docs/cross.md.                               */
#if defined(__arm__) && !defined(__aarch64__) && !defined(__thumb__) \
    && !defined(__clang__)
# define UNW_LINK(fp) ((fp)[-1])
# define UNW_RA(fp) ((fp)[0])
#else
# define UNW_LINK(fp) ((fp)[0])
# define UNW_RA(fp) ((fp)[1])
#endif

UNW_ALWAYS_INLINE unsigned unw_fp_from(word *fp, word *frames, unsigned max,
                               unsigned skip, int *not_code)
{
  word lo = unw_stack_lo, hi = unw_stack_hi;
  const struct unw_code *code = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
  unsigned n = 0;
  struct unw_hints hint = unw_code_hints;
  struct unw_ra_ok *ok = &unw_ra_ok;
  int in_gc = 1;

  if ((word)fp < lo || (word)fp >= hi) return 0;   /* another stack */
  unw_ra_ok_for(ok, code);
  if (1 == unw_n_ranges) {
    /* The collector's own frames, which open every walk (five to eight */
    /* of them): one range check each, none of the code-segment search. */
    word g_lo = unw_lo[0], g_size = unw_hi[0] - unw_lo[0];

    while (((word)fp & (sizeof(word) - 1)) == 0
           && (word)fp <= hi - 2 * sizeof(word)
           && UNW_RA(fp) - g_lo < g_size) {
      word next = UNW_LINK(fp);

      if (next <= (word)fp) return 0;   /* must strictly increase */
      fp = (word *)next;
    }
    in_gc = 0;
  }
  while (n < max) {
    word ra, next;

    if (((word)fp & (sizeof(word) - 1)) != 0
        || (word)fp > hi - 2 * sizeof(word))
      break;
    ra = UNW_RA(fp);
    next = UNW_LINK(fp);
    if (0 == ra) break;
    if (in_gc && unw_in_libgc(ra)) {
      /* the collector's own frame (code, then)                          */
    } else if (code != NULL && !unw_code_ok(ok, code, ra, &hint)) {
      *not_code = 1;
      break;
    } else if (skip > 0) {
      in_gc = 0;
      skip--;
    } else {
      in_gc = 0;
      frames[n++] = ra;
    }
    if (next <= (word)fp) break;   /* must strictly increase */
    fp = (word *)next;
  }
  unw_code_hints = hint;
  return n;
}

static GC_ATTR_NOINLINE unsigned unw_fp(word *frames, unsigned max,
                                        unsigned skip, int *not_code)
{
  return unw_fp_from((word *)__builtin_frame_address(0), frames, max, skip,
                     not_code);
}

struct unw_gcc {
  word *frames;
  unsigned max, n, skip;
  int in_gc;
};

#ifdef GCA_HAVE_UNWIND_H
static _Unwind_Reason_Code unw_gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
  struct unw_gcc *s = (struct unw_gcc *)arg;
  word ra = (word)_Unwind_GetIP(ctx);

  if (0 == ra) return _URC_END_OF_STACK;
  if (s->in_gc && unw_in_libgc(ra)) return _URC_NO_REASON;
  s->in_gc = 0;
  if (s->skip > 0) {
    s->skip--;
    return _URC_NO_REASON;
  }
  s->frames[s->n++] = ra;
  return s->n >= s->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}
#endif

static GC_ATTR_NOINLINE unsigned unw_gcc(word *frames, unsigned max,
                                         unsigned skip)
{
  struct unw_gcc s;

  s.frames = frames;
  s.max = max;
  s.n = 0;
  s.skip = skip;
  s.in_gc = 1;
# ifdef GCA_HAVE_UNWIND_H   /* else no frames: the callsite unknown */
    if (max > 0) (void)_Unwind_Backtrace(unw_gcc_cb, &s);
# endif
  return s.n;
}

/* ---- the table walk's cache: sampled stacks under auto ----------------- */
/* _Unwind_Backtrace finds and interprets a function's call-frame        */
/* information (its FDE) for every frame of every stack: some 13,000     */
/* instructions a sampled stack.  On x86-64 the rule that takes a frame  */
/* to its caller is nearly always CFA = rsp + N or rbp + N, the return   */
/* address at CFA - 8, rbp saved at CFA + M or left as it is: this walk  */
/* finds that rule once per return address (_Unwind_Find_FDE, as        */
/* libgcc does, and its own reading of the CIE's and FDE's instructions, */
/* as libgcc's execute_cfa_program reads them), keeps it in a table of   */
/* fixed size, and from then on takes a frame with one look-up and two   */
/* loads.  Its stacks are _Unwind_Backtrace's, frame for frame: the same */
/* return addresses reported, the same ends (no FDE: that frame is the   */
/* last; return address column undefined: the last; a 0 return          */
/* address: not reported).  What it does not model (a CFA by another    */
/* register or an expression, registers other than rbp that the rule    */
/* needs, signal frames, augmentations other than z, R, P, L, a CFA or   */
/* a saved slot outside the thread's stack) takes the whole walk to      */
/* _Unwind_Backtrace (counted: unw_cfi_falls, beside unw_cfi_walks, in  */
/* the records as unwind.fell_back, unwind.walks).  Every load lies in   */
/* the thread's stack between the frame's stack pointer and the top, so */
/* a rule made stale by a dlclose garbles a stack, never faults; rules   */
/* are forgotten when the list of loaded modules changes (checked at     */
/* most once a collection, as the fp walk's code list).                  */
/* The table: written under a sequence count a writer takes by one     */
/* compare-and-swap or skips (no insertion then), read without a lock:  */
/* a walk that saw the count move is thrown away and taken by           */
/* _Unwind_Backtrace.  Nothing here waits.                              */
/* (GCA_UNW_CFI: x86-64 glibc 2.35 and later, where auto takes sampled */
/* stacks by the tables; defined with the declarations above.)          */
#ifdef GCA_UNW_CFI
/* libgcc's (and LLVM libunwind's) FDE look-up: not in <unwind.h>.      */
struct gca_eh_bases { void *tbase, *dbase, *func; };
extern const void *_Unwind_Find_FDE(void *, struct gca_eh_bases *);

#define UNW_R_CFA_RBP 1     /* CFA = rbp + cfa_off, else rsp + cfa_off  */
#define UNW_R_RBP_SAVED 2   /* the caller's rbp at CFA + rbp_off        */
#define UNW_R_LAST 4        /* the last frame reported (no FDE, or the  */
                            /* return address column undefined)         */
#define UNW_R_NONE 8        /* not modelled: _Unwind_Backtrace          */
#define UNW_R_SET 16        /* in every rule (0: an empty slot)         */
struct unw_rule {
  int32_t cfa_off;
  int16_t rbp_off;
  int8_t ra_off;            /* in words from the CFA                    */
  uint8_t flags;            /* UNW_R_*                                   */
};
union unw_rule_bits {
  struct unw_rule r;
  uint64_t bits;
};

/* Two sizes: 256 rules (4 KiB) at first, which most programs' sampled */
/* stacks fit; 2048 (32 KiB) once a rule finds no free slot in its      */
/* probes (the small table's rules moved over, the small one kept: a   */
/* walk may still be reading it).  4 KiB in a small program's           */
/* accounting memory, not 32 (acc_memory.unwind_bytes).                 */
#define UNW_CFI_LOG0 8
#define UNW_CFI_LOG 11
#define UNW_CFI_PROBES 16
/* Mapped at the first walk, not static: the collector scans static    */
/* data as roots (32 KiB of return addresses it need not scan).         */
struct unw_cfi_ent {
  word pc;
  uint64_t rule;
};
/* The table in use and its size: its log is UNW_CFI_LOG0, or         */
/* UNW_CFI_LOG when it is unw_cfi_big (both published, acquire loads). */
static struct unw_cfi_ent *unw_cfi_tab = NULL;
static struct unw_cfi_ent *unw_cfi_big = NULL;
#define UNW_CFI_BYTES(log) (sizeof(struct unw_cfi_ent) << (log))
#define UNW_CFI_LOG_OF(t) \
        ((t) == __atomic_load_n(&unw_cfi_big, __ATOMIC_ACQUIRE) \
         ? UNW_CFI_LOG : UNW_CFI_LOG0)

/* The table, mapped by the first walk that needs it (NULL: no memory). */
static struct unw_cfi_ent *unw_cfi_table(void)
{
  struct unw_cfi_ent *t = __atomic_load_n(&unw_cfi_tab, __ATOMIC_ACQUIRE);
  struct unw_cfi_ent *none = NULL;

  if (EXPECT(t != NULL, TRUE)) return t;
  t = (struct unw_cfi_ent *)gca_mem_alloc(GCA_MEM_UNWIND,
                                          UNW_CFI_BYTES(UNW_CFI_LOG0));
  if (NULL == t) return NULL;                   /* (zeroed)             */
  if (!__atomic_compare_exchange_n(&unw_cfi_tab, &none, t, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    gca_mem_free(GCA_MEM_UNWIND, t, UNW_CFI_BYTES(UNW_CFI_LOG0));
    t = none;                                   /* another thread's won */
  }
  return t;
}
static volatile word unw_cfi_seq = 0;    /* odd: a writer is in        */
static const void *unw_cfi_code = NULL;  /* the code list it holds for */
/* Walks begun by the rules, and of them those that fell back (in the */
/* records: unwind.walks, unwind.fell_back).                            */
static volatile word unw_cfi_walks = 0;
static volatile word unw_cfi_falls = 0;
#define UNW_CFI_SLOT(pc, log) \
        (((pc) * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ - (log)))

static word unw_uleb(const unsigned char **pp, const unsigned char *end)
{
  const unsigned char *p = *pp;
  word v = 0;
  unsigned shift = 0;

  while (p < end) {
    unsigned char b = *p++;

    if (shift < CPP_WORDSZ) v |= (word)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) break;
  }
  *pp = p;
  return v;
}

static signed_word unw_sleb(const unsigned char **pp,
                            const unsigned char *end)
{
  const unsigned char *p = *pp;
  word v = 0;
  unsigned shift = 0;
  unsigned char b = 0;

  while (p < end) {
    b = *p++;
    if (shift < CPP_WORDSZ) v |= (word)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) break;
  }
  if (shift < CPP_WORDSZ && (b & 0x40)) v |= ~(word)0 << shift;
  *pp = p;
  return (signed_word)v;
}

static uint32_t unw_u32(const unsigned char *p)
{
  uint32_t v;

  memcpy(&v, p, sizeof(v));
  return v;
}

/* The size of a pointer in encoding enc (DW_EH_PE_*), 0 if not known. */
static unsigned unw_enc_size(unsigned enc)
{
  if (0xff == enc) return 0;                      /* omit            */
  if ((enc & 0x70) == 0x50) return 0;             /* aligned         */
  switch (enc & 0x0f) {
    case 0x00: return sizeof(void *);             /* absptr          */
    case 0x02: case 0x0a: return 2;
    case 0x03: case 0x0b: return 4;
    case 0x04: case 0x0c: return 8;
    default: return 0;
  }
}

/* A register's rule, for the registers the walk models.                */
#define UNW_REG_UNSAVED 0   /* (or undefined: libgcc keeps the value)  */
#define UNW_REG_OFFSET 1    /* saved at CFA + off                      */
#define UNW_REG_UNDEF 2     /* (the return address column only)        */
#define UNW_REG_OTHER 3     /* anything else: not modelled             */
struct unw_row {
  int cfa_reg, cfa_exp;
  signed_word cfa_off;
  int how[3];               /* rbp (6), rsp (7), the return address (16) */
  signed_word off[3];
};
#define UNW_ROW_STATES 8

/* Column c's index in unw_row, -1 if not modelled (its rule is then   */
/* not needed to walk on).                                              */
static int unw_col(word c)
{
  return 6 == c ? 0 : 7 == c ? 1 : 16 == c ? 2 : -1;
}

/* Run the CFA instructions [p, end) on row r from location *loc; stop  */
/* at the first row past pc (libgcc's execute_cfa_program: while loc <  */
/* pc).  0 if an instruction is not modelled.                            */
static int unw_cfa_run(struct unw_row *r, struct unw_row *stack,
                       unsigned *depth, const unsigned char *p,
                       const unsigned char *end, word code_align,
                       signed_word data_align, word *loc, word pc)
{
  while (p < end && *loc < pc) {
    unsigned char op = *p++;
    word reg, len;
    signed_word off;
    int c;

    switch (op & 0xc0) {
      case 0x40:
        *loc += (word)(op & 0x3f) * code_align;
        continue;
      case 0x80:
        off = (signed_word)unw_uleb(&p, end) * data_align;
        if ((c = unw_col(op & 0x3f)) >= 0) {
          r->how[c] = UNW_REG_OFFSET;
          r->off[c] = off;
        }
        continue;
      case 0xc0:
        if ((c = unw_col(op & 0x3f)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_OTHER : UNW_REG_UNSAVED;
        continue;
      default:
        break;
    }
    switch (op) {
      case 0x00: break;                                     /* nop      */
      case 0x02:                                            /* advance1 */
        if (p + 1 > end) return 0;
        *loc += (word)p[0] * code_align;
        p += 1;
        break;
      case 0x03: {                                          /* advance2 */
        uint16_t d;

        if (p + 2 > end) return 0;
        memcpy(&d, p, 2);
        *loc += (word)d * code_align;
        p += 2;
        break;
      }
      case 0x04:                                            /* advance4 */
        if (p + 4 > end) return 0;
        *loc += (word)unw_u32(p) * code_align;
        p += 4;
        break;
      case 0x05: case 0x11:                   /* offset_extended(_sf)   */
        reg = unw_uleb(&p, end);
        off = 0x05 == op ? (signed_word)unw_uleb(&p, end) * data_align
                         : unw_sleb(&p, end) * data_align;
        if ((c = unw_col(reg)) >= 0) {
          r->how[c] = UNW_REG_OFFSET;
          r->off[c] = off;
        }
        break;
      case 0x06: case 0x08:                   /* restore_ext, same_value */
        reg = unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_OTHER : UNW_REG_UNSAVED;
        break;
      case 0x07:                                            /* undefined */
        reg = unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_UNDEF : 1 == c ? UNW_REG_OTHER
                                                      : UNW_REG_UNSAVED;
        break;
      case 0x09:                                            /* register */
        reg = unw_uleb(&p, end);
        (void)unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x0a:                                            /* remember */
        if (*depth >= UNW_ROW_STATES) return 0;
        stack[(*depth)++] = *r;
        break;
      case 0x0b:                                            /* restore  */
        if (0 == *depth) return 0;
        *r = stack[--*depth];
        break;
      case 0x0c:                                            /* def_cfa  */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_off = (signed_word)unw_uleb(&p, end);
        r->cfa_exp = 0;
        break;
      case 0x0d:                                      /* def_cfa_register */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_exp = 0;
        break;
      case 0x0e:                                      /* def_cfa_offset   */
        r->cfa_off = (signed_word)unw_uleb(&p, end);
        break;
      case 0x0f:                                      /* def_cfa_expression */
        len = unw_uleb(&p, end);
        if (len > (word)(end - p)) return 0;
        p += len;
        r->cfa_exp = 1;
        break;
      case 0x10: case 0x16:                   /* (val_)expression        */
        reg = unw_uleb(&p, end);
        len = unw_uleb(&p, end);
        if (len > (word)(end - p)) return 0;
        p += len;
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x12:                                      /* def_cfa_sf       */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_off = unw_sleb(&p, end) * data_align;
        r->cfa_exp = 0;
        break;
      case 0x13:                                      /* def_cfa_offset_sf */
        r->cfa_off = unw_sleb(&p, end) * data_align;
        break;
      case 0x14: case 0x15:                   /* val_offset(_sf)         */
        reg = unw_uleb(&p, end);
        if (0x14 == op) (void)unw_uleb(&p, end); else (void)unw_sleb(&p, end);
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x2e:                                      /* GNU_args_size    */
        (void)unw_uleb(&p, end);
        break;
      default:      /* set_loc, GNU_negative_offset_extended, others    */
        return 0;
    }
  }
  return 1;
}

/* The rule for the frame whose return address (pc, the address        */
/* _Unwind_GetIP reports) is pc: as libgcc's uw_frame_state_for and    */
/* uw_update_context find it for a frame that is not a signal frame.    */
static struct unw_rule unw_cfi_find(word pc, const struct unw_code *code)
{
  struct unw_rule out = { 0, 0, 0, UNW_R_NONE };
  struct gca_eh_bases b;
  const unsigned char *fde, *fde_end, *cie, *cie_end, *p, *aug;
  struct unw_row r, stack[UNW_ROW_STATES];
  unsigned depth = 0, sz, enc = 0;
  word code_align, loc, ra_reg;
  signed_word data_align;
  uint32_t len;
  int ver, z;

  fde = (const unsigned char *)_Unwind_Find_FDE((void *)(pc - 1), &b);
  if (NULL == fde) {
    /* libgcc's fallback for a frame without FDE: x86-64 Linux's signal */
    /* return (movq $15, %rax; syscall) is a signal frame; other code   */
    /* is the last frame (an address outside code too, whose bytes      */
    /* libgcc would read).                                               */
    static const unsigned char sigret[9] = {
      0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
    };

    struct unw_hints h;

    memset(&h, 0, sizeof(h));
    if (!unw_is_code(code, pc, &h)
        || memcmp((const void *)pc, sigret, sizeof(sigret)) != 0)
      out.flags = UNW_R_LAST;   /* (read only where code is)           */
    return out;
  }
  len = unw_u32(fde);
  if (0 == len || 0xffffffffU == len) return out;
  fde_end = fde + 4 + len;
  cie = fde + 4 - unw_u32(fde + 4);
  len = unw_u32(cie);
  if (0 == len || 0xffffffffU == len || unw_u32(cie + 4) != 0) return out;
  cie_end = cie + 4 + len;
  p = cie + 8;
  ver = *p++;
  if (ver != 1 && ver != 3) return out;
  aug = p;
  p += strlen((const char *)aug) + 1;
  code_align = unw_uleb(&p, cie_end);
  data_align = unw_sleb(&p, cie_end);
  ra_reg = 1 == ver ? *p++ : unw_uleb(&p, cie_end);
  if (ra_reg != 16) return out;
  z = 'z' == aug[0];
  if (z) {
    word alen = unw_uleb(&p, cie_end);
    const unsigned char *aend = p + alen;

    for (aug++; *aug != '\0'; aug++) {
      if ('R' == *aug) {
        enc = *p++;
      } else if ('L' == *aug) {
        p++;
      } else if ('P' == *aug) {
        unsigned penc = *p++;

        if (0 == (sz = unw_enc_size(penc))) return out;
        p += sz;
      } else {
        return out;                     /* 'S' (signal frames), others */
      }
    }
    p = aend;
  } else if (aug[0] != '\0') {
    return out;
  }
  if (p > cie_end) return out;
  memset(&r, 0, sizeof(r));
  r.cfa_reg = -1;
  loc = 0;
  if (!unw_cfa_run(&r, stack, &depth, p, cie_end, code_align, data_align,
                   &loc, ~(word)0))
    return out;
  if (0 == (sz = unw_enc_size(enc))) return out;
  p = fde + 8 + 2 * sz;                 /* pc_begin, pc_range           */
  if (z) {
    word alen = unw_uleb(&p, fde_end);

    p += alen;
  }
  if (p > fde_end) return out;
  loc = (word)b.func;
  if (!unw_cfa_run(&r, stack, &depth, p, fde_end, code_align, data_align,
                   &loc, pc))
    return out;
  /* The rule, if the walk models it.                                   */
  if (r.cfa_exp || (r.cfa_reg != 6 && r.cfa_reg != 7)
      || r.cfa_off != (int32_t)r.cfa_off
      || r.how[1] != UNW_REG_UNSAVED || UNW_REG_OTHER == r.how[0])
    return out;
  if (UNW_REG_UNDEF == r.how[2]) {
    out.flags = UNW_R_LAST;
    return out;
  }
  if (r.how[2] != UNW_REG_OFFSET || (r.off[2] & (sizeof(word) - 1)) != 0
      || r.off[2] / (signed_word)sizeof(word) != (int8_t)(r.off[2] / 8))
    return out;
  out.ra_off = (int8_t)(r.off[2] / (signed_word)sizeof(word));
  out.cfa_off = (int32_t)r.cfa_off;
  out.flags = 6 == r.cfa_reg ? UNW_R_CFA_RBP : 0;
  if (UNW_REG_OFFSET == r.how[0]) {
    if (r.off[0] != (int16_t)r.off[0]) {
      out.flags = UNW_R_NONE;
      return out;
    }
    out.rbp_off = (int16_t)r.off[0];
    out.flags |= UNW_R_RBP_SAVED;
  }
  return out;
}

/* The first of pc's probes in tab (of 1 << log rules) that holds pc  */
/* or no rule; ~0u if none does.                                         */
static unsigned unw_cfi_probe(const struct unw_cfi_ent *tab, unsigned log,
                              word pc)
{
  unsigned i, slot = (unsigned)UNW_CFI_SLOT(pc, log);

  for (i = 0; i < UNW_CFI_PROBES; i++) {
    unsigned k = (slot + i) & (((unsigned)1 << log) - 1);
    word e = __atomic_load_n(&tab[k].pc, __ATOMIC_RELAXED);

    if (e == pc || 0 == e) return k;
  }
  return ~0u;
}

/* The small table is full around a rule's slot: the big one, with the */
/* small one's rules, in use from now (NULL: no memory).  The writer's. */
static struct unw_cfi_ent *unw_cfi_grow(const struct unw_cfi_ent *small)
{
  struct unw_cfi_ent *big = (struct unw_cfi_ent *)gca_mem_alloc(
                                GCA_MEM_UNWIND, UNW_CFI_BYTES(UNW_CFI_LOG));
  unsigned k;

  if (NULL == big) return NULL;
  for (k = 0; k < ((unsigned)1 << UNW_CFI_LOG0); k++) {
    word pc = __atomic_load_n(&small[k].pc, __ATOMIC_RELAXED);
    unsigned j = pc != 0 ? unw_cfi_probe(big, UNW_CFI_LOG, pc) : ~0u;

    if (j != ~0u) big[j] = small[k];
  }
  __atomic_store_n(&unw_cfi_big, big, __ATOMIC_RELEASE);
  __atomic_store_n(&unw_cfi_tab, big, __ATOMIC_RELEASE);
  return big;
}

/* pc's rule found and put in slot k of table t (~0u: its probes are  */
/* full) if no other writer is in (else not kept); out of the walk's    */
/* loop.  When the small table is full there, it grows, and the walk    */
/* (reading the small one on) is thrown away: once in a program.        */
static GC_ATTR_NOINLINE struct unw_rule unw_cfi_learn(
                        struct unw_cfi_ent *t, unsigned log, word pc,
                        const struct unw_code *code, word *seq, unsigned k)
{
  union unw_rule_bits u;
  word s;

  u.r = unw_cfi_find(pc, code);
  u.r.flags |= UNW_R_SET;
  s = __atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED);
  if ((s & 1) == 0 && t == __atomic_load_n(&unw_cfi_tab, __ATOMIC_RELAXED)
      && __atomic_compare_exchange_n(&unw_cfi_seq, &s, s + 1, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    word own = s + 2;                     /* the walk's count after    */

    if (~0u == k && UNW_CFI_LOG0 == log) {
      struct unw_cfi_ent *big = unw_cfi_grow(t);

      if (big != NULL) {
        t = big;
        log = UNW_CFI_LOG;
        k = unw_cfi_probe(t, UNW_CFI_LOG, pc);
        own = 0;                          /* not the walk's table now  */
      }
    }
    if (~0u == k) k = (unsigned)UNW_CFI_SLOT(pc, log);   /* full: first */
    __atomic_store_n(&t[k].rule, u.bits, __ATOMIC_RELAXED);
    __atomic_store_n(&t[k].pc, pc, __ATOMIC_RELAXED);
    __atomic_store_n(&unw_cfi_seq, s + 2, __ATOMIC_RELEASE);
    if (*seq == s) *seq = own;            /* (else the walk is stale)  */
  }
  return u.r;
}

/* pc's rule: from table t of 1 << log rules, else found and put there */
/* (unw_cfi_learn).  *seq: the count the walk's reads hold for (moved   */
/* on by the walk's own insertion, 0 when that grew the table).         */
GC_INLINE struct unw_rule unw_cfi_rule(struct unw_cfi_ent *t, unsigned log,
                                       word pc, const struct unw_code *code,
                                       word *seq)
{
  unsigned i, k = ~0u, slot = (unsigned)UNW_CFI_SLOT(pc, log);

  for (i = 0; i < UNW_CFI_PROBES; i++) {
    unsigned j = (slot + i) & (((unsigned)1 << log) - 1);
    word e = __atomic_load_n(&t[j].pc, __ATOMIC_RELAXED);

    if (e == pc) {
      union unw_rule_bits u;

      u.bits = __atomic_load_n(&t[j].rule, __ATOMIC_RELAXED);
      if (EXPECT(u.r.flags != 0, TRUE)) return u.r;
    }
    if (0 == e) {
      k = j;
      break;
    }
  }
  return unw_cfi_learn(t, log, pc, code, seq, k);
}

/* The list of loaded modules changed (a new code list): forget all    */
/* (in the table in use: walks still reading the small one after it    */
/* grew saw the count move).                                             */
static void unw_cfi_flush(const void *code)
{
  word s = __atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED);

  if ((s & 1) != 0
      || !__atomic_compare_exchange_n(&unw_cfi_seq, &s, s + 1, 0,
                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return;                             /* another writer: next walk    */
  if (unw_cfi_code != code) {
    struct unw_cfi_ent *tab = __atomic_load_n(&unw_cfi_tab,
                                              __ATOMIC_RELAXED);
    unsigned k, n = (unsigned)1 << UNW_CFI_LOG_OF(tab);

    for (k = 0; k < n; k++)
      __atomic_store_n(&tab[k].pc, 0, __ATOMIC_RELAXED);
    unw_cfi_code = code;
  }
  __atomic_store_n(&unw_cfi_seq, s + 2, __ATOMIC_RELEASE);
}

/* The walk: as unw_gcc, from this function's own frame (a frame        */
/* pointer: __builtin_frame_address), by the table's rules; anything    */
/* else to unw_gcc.  Its stack's bounds known (unw_walk_slow).           */
static GC_ATTR_NOINLINE unsigned unw_cfi(word *frames, unsigned max,
                                         unsigned skip)
{
  const word *fp = (const word *)__builtin_frame_address(0);
  word lo = unw_stack_lo, hi = unw_stack_hi;
  const struct unw_code *code = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
  struct unw_cfi_ent *tab = unw_cfi_table();
  word pc, sp, bp, seq, s0;
  unsigned n = 0, skip0 = skip, log;
  int in_gc = 1;

  if (EXPECT(NULL == tab, FALSE)) return unw_gcc(frames, max, skip);
  if (NULL == code || code->gc_no != (word)GC_gc_no) {
    unw_code_list();            /* a module came or went?  (once a GC)  */
    code = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
    if (NULL == code) return unw_gcc(frames, max, skip);  /* no list yet */
  }
  if (EXPECT(__atomic_load_n(&unw_cfi_code, __ATOMIC_RELAXED) != code,
             FALSE))
    unw_cfi_flush(code);
  if ((word)fp < lo || (word)fp > hi - 2 * sizeof(word)
      || ((word)fp & (sizeof(word) - 1)) != 0)
    return unw_gcc(frames, max, skip);          /* another stack        */
  (void)__atomic_fetch_add(&unw_cfi_walks, 1, __ATOMIC_RELAXED);
  s0 = seq = __atomic_load_n(&unw_cfi_seq, __ATOMIC_ACQUIRE);
  if ((s0 & 1) != 0 || unw_cfi_code != code) goto fall;
  tab = __atomic_load_n(&unw_cfi_tab, __ATOMIC_ACQUIRE);   /* as of s0 */
  log = UNW_CFI_LOG_OF(tab);
  pc = fp[1];                   /* our return address: our caller's pc */
  sp = (word)(fp + 2);          /* its stack pointer: our CFA            */
  bp = fp[0];                   /* its rbp                               */
  while (n < max && pc != 0) {
    struct unw_rule r;
    word cfa, at;

    if (in_gc && unw_in_libgc(pc)) {
      /* the collector's own frame                                       */
    } else if (skip > 0) {
      in_gc = 0;
      skip--;
    } else {
      in_gc = 0;
      frames[n++] = pc;
      if (n >= max) break;
    }
    r = unw_cfi_rule(tab, log, pc, code, &seq);
    if (EXPECT(r.flags & (UNW_R_LAST | UNW_R_NONE), FALSE)) {
      if (r.flags & UNW_R_NONE) goto fall;
      break;
    }
    cfa = ((r.flags & UNW_R_CFA_RBP) ? bp : sp) + (word)(signed_word)r.cfa_off;
    /* The loads from the CFA lie on the stack, above the frame's sp.   */
    at = cfa + (word)((signed_word)r.ra_off * (signed_word)sizeof(word));
    if (cfa <= sp || cfa > hi || at < sp || at > hi - sizeof(word)
        || (at & (sizeof(word) - 1)) != 0)
      goto fall;
    pc = *(const word *)at;
    if (r.flags & UNW_R_RBP_SAVED) {
      at = cfa + (word)(signed_word)r.rbp_off;
      if (at < sp || at > hi - sizeof(word)
          || (at & (sizeof(word) - 1)) != 0)
        goto fall;
      bp = *(const word *)at;
    }
    sp = cfa;
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (EXPECT(__atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED) == seq, TRUE))
    return n;                   /* no writer came between               */
fall:
  (void)__atomic_fetch_add(&unw_cfi_falls, 1, __ATOMIC_RELAXED);
  return unw_gcc(frames, max, skip0);
}
#endif /* GCA_UNW_CFI */

/* A walk stopped at an address outside the listed code: a module      */
/* loaded since?  List again, at most once a collection, and walk again. */
static GC_ATTR_NOINLINE unsigned unw_walk_relist(word *frames, unsigned max,
                                                 unsigned skip, unsigned n)
{
  const struct unw_code *c = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
  int not_code = 0;

  if (NULL == c || c->gc_no == (word)GC_gc_no) return n;
  unw_code_list();
  return unw_fp(frames, max, skip, &not_code);
}

/* All but the steady state: a first walk, libgcc, unknown bounds.     */
static GC_ATTR_NOINLINE unsigned unw_walk_slow(word *frames, unsigned max,
                                               unsigned skip)
{
  int not_code = 0;
  unsigned n;

  if (!__atomic_load_n(&unw_ranges_ready, __ATOMIC_ACQUIRE))
    gca_unwind_init();
  if (GCA_UNWIND_LIBGCC == gca_unwinder || (skip & GCA_UNWIND_BY_TABLES)) {
#   ifdef GCA_UNW_CFI
      /* auto's sampled stacks: the tables' rules, cached               */
      if (gca_unwinder != GCA_UNWIND_LIBGCC) {
        if (0 == unw_stack_hi) unw_find_stack();
        if (unw_stack_hi > 1)
          return unw_cfi(frames, max, skip & ~GCA_UNWIND_BY_TABLES);
      }
#   endif
    return unw_gcc(frames, max, skip & ~GCA_UNWIND_BY_TABLES);
  }
  if (0 == unw_stack_hi) unw_find_stack();
  if (unw_stack_hi <= 1) return unw_gcc(frames, max, skip);
  if (NULL == __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE)) unw_code_list();
  n = unw_fp(frames, max, skip, &not_code);
  return not_code && n < max ? unw_walk_relist(frames, max, skip, n) : n;
}

/* noinline: the steady state walks from this function's own frame (one */
/* call and one collector frame fewer than through unw_fp).              */
GC_INNER GC_ATTR_NOINLINE unsigned gca_unwind(word *frames, unsigned max,
                                              unsigned skip)
{
  int not_code = 0;
  unsigned n;

  if (EXPECT(!__atomic_load_n(&unw_ranges_ready, __ATOMIC_ACQUIRE)
             || GCA_UNWIND_LIBGCC == gca_unwinder || unw_stack_hi <= 1
             || (skip & GCA_UNWIND_BY_TABLES) != 0
             || NULL == __atomic_load_n(&unw_code, __ATOMIC_RELAXED), FALSE))
    return unw_walk_slow(frames, max, skip);
  n = unw_fp_from((word *)__builtin_frame_address(0), frames, max, skip,
                  &not_code);
  if (EXPECT(not_code, FALSE) && n < max)
    return unw_walk_relist(frames, max, skip, n);
  return n;
}

/* ---- the guessed walk: sites.c's common path --------------------------- */
/* The stack an allocation site had last time is, nearly always, the    */
/* stack it has now.  Once the walk has its first program frame (return */
/* address ra0, frame record at fp0), the rest is compared with the     */
/* stack last interned from there (the guess: two-way by ra0 and fp0,  */
/* so that a wrapper every allocation goes through, one ra0, still      */
/* tells its callers apart by their stack depth), one load and compare  */
/* a frame: no per-frame code check (the guess's frames were checked    */
/* against the same code list: the table is cleared when the list      */
/* changes), no store, no hash.  Every frame pointer is still checked   */
/* before it is read, as in unw_fp_from.  A difference goes on as       */
/* unw_fp_from does from there.                                          */
#define UNW_GUESS_SLOT(key) \
        (((key) * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ - GCA_UNW_GUESS_LOG))

/* May the walk go from frame fp to next (the frame record there lies   */
/* on the stack, below top = its top minus one record)?                 */
#define UNW_NEXT_OK(fp, next, top) \
        ((next) > (word)(fp) && (next) <= (top) \
         && ((next) & (sizeof(word) - 1)) == 0)

/* The guessed walk's ends other than the guess itself, out of line    */
/* and reached by tail calls: the walk keeps to a few registers.        */

/* No stack: our frame is not on the thread's stack, or a bad link     */
/* among the collector's frames.                                         */
static GC_ATTR_NOINLINE const struct gca_unw_guess *unw_guess_none(
                                                struct gca_unw_guesses *t)
{
  t->n = 0;
  t->fill = 0;
  return NULL;
}

/* The walk matched g's first i frames: they are the stack's, which     */
/* goes to g's slot when interned.  Returns i.                          */
GC_INLINE unsigned unw_guess_prefix(struct gca_unw_guesses *t, word *frames,
                                    struct gca_unw_guess *g, unsigned i)
{
  if (i > 0) memcpy(frames, g->frames, i * sizeof(word));
  t->put = g;
  t->end = 0;
  t->fill = 1;
  return i;
}

/* The walk ends before frame gf (in g->frames): g's first frames.     */
static GC_ATTR_NOINLINE const struct gca_unw_guess *unw_guess_short(
                struct gca_unw_guesses *t, word *frames,
                struct gca_unw_guess *g, const word *gf)
{
  t->n = unw_guess_prefix(t, frames, g, (unsigned)(gf - g->frames));
  return NULL;
}

/* The walk on from frame i (record fp, checked) after the guess g     */
/* matched frames 0 to i-1 (gf: g->frames + i; NULL: g is not this      */
/* stack's, i is 0), each return address checked as code from here; as  */
/* unw_fp_from's program frames.                                         */
/* The stack goes to g's slot when interned.                             */
static GC_ATTR_NOINLINE const struct gca_unw_guess *unw_guess_miss(
                        struct gca_unw_guesses *t, word *frames, unsigned max,
                        const word *fp, struct gca_unw_guess *g,
                        const word *gf)
{
  const struct unw_code *code = (const struct unw_code *)t->code;
  struct unw_ra_ok *ok = &unw_ra_ok;
  word top = unw_stack_hi - 2 * sizeof(word);
  word ra = UNW_RA(fp), next = UNW_LINK(fp);
  unsigned n = unw_guess_prefix(t, frames, g,
                                NULL == gf ? 0 : (unsigned)(gf - g->frames));

  unw_ra_ok_for(ok, code);
  while (n < max && ra != 0) {
    if (!unw_code_ok(ok, code, ra, &unw_code_hints)) {
      if (code->gc_no != (word)GC_gc_no) {
        /* a module loaded since the list?  (list, walk again)          */
        t->fill = 0;
        n = unw_walk_relist(frames, max, 0, n);
        break;
      }
      t->end = ra;              /* (known not to be code, this list)   */
      break;
    }
    frames[n++] = ra;
    if (!UNW_NEXT_OK(fp, next, top)) break;
    fp = (const word *)next;
    ra = UNW_RA(fp);
    next = UNW_LINK(fp);
  }
  t->n = n;
  return NULL;
}

/* Not set up for the guessed walk (a new thread, a new code list), or */
/* another unwinder: set up if it can be, and walk as gca_unwind.       */
static GC_ATTR_NOINLINE const struct gca_unw_guess *unw_guess_slow(
                        struct gca_unw_guesses *t, word *frames, unsigned max)
{
  const struct unw_code *code;

  if (__atomic_load_n(&unw_ranges_ready, __ATOMIC_ACQUIRE)
      && gca_unwinder != GCA_UNWIND_LIBGCC && unw_stack_hi > 1
      && 1 == unw_n_ranges
      && (code = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE)) != NULL) {
    if (t->code != code) {
      BZERO(t->g, sizeof(t->g));        /* checked against another list */
      t->code = code;
    }
  }
  t->n = gca_unwind(frames, max, 0);      /* guesses from the next walk */
  t->fill = 0;
  return NULL;
}

/* t->code: the code list the thread's guesses were checked against, set */
/* only once the thread's stack, libgc's span and the list are known.   */
/* A table an exited thread left (sites.c) comes with its code list set */
/* but this thread's stack bounds not yet found: set up first.          */
GCA_UNW_GUESSED const struct gca_unw_guess *gca_unwind_guessed(
                        struct gca_unw_guesses *t, word *frames, unsigned max)
{
  const word *fp = (const word *)__builtin_frame_address(0);
  const void *code = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
  struct gca_unw_guess *g;
  const word *gf, *gend;
  word top, g_lo, g_size, ra, next, slot;

  if (EXPECT(t->code != code || NULL == code
             || GCA_UNWIND_LIBGCC == gca_unwinder || unw_stack_hi <= 1, FALSE))
    return unw_guess_slow(t, frames, max);
  top = unw_stack_hi - 2 * sizeof(word);
  if ((word)fp < unw_stack_lo || (word)fp > top
      || ((word)fp & (sizeof(word) - 1)) != 0)
    return unw_guess_none(t);                   /* another stack */
  /* The collector's own frames, ours first: one range check each (ours */
  /* too: when inlined, ours may be an API function's, called by the    */
  /* program).                                                          */
  g_lo = unw_lo[0];
  g_size = unw_hi[0] - g_lo;
  ra = UNW_RA(fp);
  next = UNW_LINK(fp);
  while (ra - g_lo < g_size) {
    if (!UNW_NEXT_OK(fp, next, top)) return unw_guess_none(t);
    fp = (const word *)next;
    ra = UNW_RA(fp);
    next = UNW_LINK(fp);
  }
  /* fp: the first program frame's record (checked), ra its return      */
  /* address, next its link (not checked).                              */
  /* Two-way: the slot, else its pair (a new stack goes to an empty one). */
  slot = UNW_GUESS_SLOT(ra ^ (word)fp);
  g = &t->g[slot];
  if (EXPECT(g->ra0 != ra, FALSE)) {
    struct gca_unw_guess *g1 = &t->g[slot ^ 1];

    if (g1->ra0 != ra)
      return unw_guess_miss(t, frames, max, fp,
                            g->ra0 != 0 && 0 == g1->ra0 ? g1 : g, NULL);
    g = g1;
  }
  if (g->n > max || 0 == ra)
    return unw_guess_miss(t, frames, max, fp, g, NULL);
  gf = g->frames + 1;
  gend = g->frames + g->n;
  for (; gf != gend; gf++) {
    if (!UNW_NEXT_OK(fp, next, top))    /* the walk ends short of it   */
      return unw_guess_short(t, frames, g, gf);
    fp = (const word *)next;
    ra = UNW_RA(fp);
    next = UNW_LINK(fp);
    if (ra != *gf)                      /* another stack from here on  */
      return unw_guess_miss(t, frames, max, fp, g, gf);
  }
  /* All the guess's frames: and does the walk end there, as it did?   */
  if (g->n == max || !UNW_NEXT_OK(fp, next, top)) return g;
  fp = (const word *)next;
  ra = UNW_RA(fp);
  if (0 == ra
      || (ra == g->end
          && ((const struct unw_code *)code)->gc_no == (word)GC_gc_no))
    return g;
  return unw_guess_miss(t, frames, max, fp, g, gend);
}

GC_INNER void gca_unwind_guess_put(struct gca_unw_guesses *t,
                                   const word *frames, unsigned n,
                                   unsigned id)
{
  struct gca_unw_guess *g;

  if (!t->fill || 0 == n) return;
  t->fill = 0;
  g = t->put;
  g->ra0 = frames[0];
  g->frames = frames;
  g->n = n;
  g->id = id;
  g->end = t->end;
}

/* ---- for the records: memory, walks ------------------------------------ */

GC_INNER word gca_unwind_memory_bytes(void)
{
  return GCA_LOAD(&gca_mem_bytes[GCA_MEM_UNWIND]);
}

GC_INNER void gca_unwind_walks(word *walks, word *fell_back)
{
# ifdef GCA_UNW_CFI
    *fell_back = __atomic_load_n(&unw_cfi_falls, __ATOMIC_RELAXED);
    *walks = __atomic_load_n(&unw_cfi_walks, __ATOMIC_RELAXED);
# else
    *walks = *fell_back = 0;
# endif
}

#endif /* !GC_ACC_DISABLE */
