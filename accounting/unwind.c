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
 *  - libgcc (unwind_cfi.c): _Unwind_Backtrace (DWARF call-frame
 *    information, the unwinder C++ exceptions use): right without frame
 *    pointers, several times slower (bench/stacks/stackcost); none without
 *    <unwind.h>.  auto's sampled stacks on x86-64 glibc 2.35+ take the
 *    same tables' rules, cached per return address (unwind_cfi.c, "the
 *    table walk's cache"): the same stacks, some 700 instructions a
 *    sample, not 13,000.
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
#include "gca_unwind.h"

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

static word unw_lo[GCA_UNW_MAX_RANGES], unw_hi[GCA_UNW_MAX_RANGES];
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
  for (i = 0; i < info->dlpi_phnum && n < GCA_UNW_MAX_RANGES; i++) {
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
static unsigned unw_walk_relist(word *frames, unsigned max, unsigned skip,
                                unsigned n);
static unsigned unw_walk_slow(word *frames, unsigned max, unsigned skip);
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

/* (GC_collect_or_expand stands for alloc.c's allocation part, beside   */
/* GC_allocobj: taking GC_allocobj's address kept gcc from inlining it, */
/* called once, into GC_generic_malloc_inner, where upstream has it.)   */
static void unw_span(void)
{
  word a[] = {
    (word)GC_malloc, (word)GC_malloc_atomic, (word)GC_malloc_kind,
    (word)GC_generic_malloc, (word)GC_malloc_uncollectable,
    (word)GC_malloc_ignore_off_page, (word)GC_generic_malloc_many,
    (word)GC_malloc_many, (word)GC_realloc, (word)GC_memalign,
    (word)GC_debug_malloc, (word)GC_debug_malloc_atomic,
    (word)GC_malloc_explicitly_typed, (word)GC_generic_malloc_inner,
    (word)GC_collect_or_expand, (word)GC_init, (word)GC_gcollect,
    (word)GC_generic_malloc_ignore_off_page, (word)GC_strdup,
    (word)GC_posix_memalign,
    (word)gca_unwind, (word)unw_fp, (word)gca_unwcfi_gcc,
    (word)unw_walk_relist, (word)unw_walk_slow, (word)unw_guess_miss,
    (word)unw_guess_slow,
#   ifdef GCA_UNW_CFI
      (word)gca_unwcfi_walk,
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
  gca_unwcfi_set_ranges(unw_lo, unw_hi, unw_n_ranges);   /* a copy */
  __atomic_store_n(&unw_ranges_ready, 1, __ATOMIC_RELEASE);
}

#define unw_in_libgc(ra) gca_unw_in_ranges(unw_lo, unw_hi, unw_n_ranges, ra)

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
/* The list (struct gca_unw_code: gca_unwind.h, for unwind_cfi.c too):  */
static struct gca_unw_code *unw_code = NULL;  /* published, acquire loads */
static volatile int unw_code_lock = 0;

#ifdef GCA_HAVE_PHDR
static int unw_code_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  struct gca_unw_code *c = (struct gca_unw_code *)data;
  int i;

  (void)size;
  for (i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    word lo, hi;
    unsigned j;

    if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0) continue;
    if (c->n >= GCA_UNW_MAX_CODE) return 1;
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
  struct gca_unw_code *c;

  if (__atomic_exchange_n(&unw_code_lock, 1, __ATOMIC_ACQUIRE)) return;
  c = unw_code;
  if (c != NULL && c->loads != 0 && c->loads == unw_loads()) {
    c->gc_no = (word)GC_gc_no;   /* no module came or went: keep it    */
    __atomic_store_n(&unw_code_lock, 0, __ATOMIC_RELEASE);
    return;
  }
  c = (struct gca_unw_code *)gca_mem_alloc(GCA_MEM_UNWIND,
                                           sizeof(struct gca_unw_code));
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

/* The segments last hit (gca_unw_is_code), initial-exec where available. */
static GCA_TLS_FAST struct gca_unw_hints unw_code_hints;

/* Return addresses this thread's walks found to be code, direct-mapped */
/* by address, for the code list they were checked against: a walk     */
/* meets the same few dozen again and again, and one compare replaces  */
/* the search of the segments.                                          */
#define UNW_RA_OK_LOG 6
struct unw_ra_ok {
  const struct gca_unw_code *code;
  word ra[(unsigned)1 << UNW_RA_OK_LOG];
};
static GCA_TLS_FAST struct unw_ra_ok unw_ra_ok;
#define UNW_RA_OK_SLOT(ra) \
        (((ra) * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ - UNW_RA_OK_LOG))

/* ---- the two walks --------------------------------------------------- */

/* The search of the segments for ra, a yes remembered in ok.          */
static int unw_code_search(struct unw_ra_ok *ok,
                           const struct gca_unw_code *c,
                           word ra, struct gca_unw_hints *hint)
{
  if (!gca_unw_is_code(c, ra, hint)) return 0;
  ok->ra[UNW_RA_OK_SLOT(ra)] = ra;
  return 1;
}

/* ok's answers hold for code list code: forgotten when it changes.    */
GC_INLINE void unw_ra_ok_for(struct unw_ra_ok *ok,
                             const struct gca_unw_code *code)
{
  if (EXPECT(ok->code != code, FALSE)) {
    BZERO(ok->ra, sizeof(ok->ra));      /* checked against another list */
    ok->code = code;
  }
}

/* Is ra code?  One compare if ok remembers it, else the search.        */
GC_INLINE int unw_code_ok(struct unw_ra_ok *ok, const struct gca_unw_code *c,
                          word ra, struct gca_unw_hints *hint)
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
  const struct gca_unw_code *code = __atomic_load_n(&unw_code,
                                                    __ATOMIC_ACQUIRE);
  unsigned n = 0;
  struct gca_unw_hints hint = unw_code_hints;
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

/* A walk stopped at an address outside the listed code: a module      */
/* loaded since?  List again, at most once a collection, and walk again. */
static GC_ATTR_NOINLINE unsigned unw_walk_relist(word *frames, unsigned max,
                                                 unsigned skip, unsigned n)
{
  const struct gca_unw_code *c = __atomic_load_n(&unw_code,
                                                 __ATOMIC_ACQUIRE);
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
      /* auto's sampled stacks: the tables' rules, cached (unwind_cfi.c) */
      if (gca_unwinder != GCA_UNWIND_LIBGCC) {
        if (0 == unw_stack_hi) unw_find_stack();
        if (unw_stack_hi > 1) {
          const struct gca_unw_code *c = __atomic_load_n(&unw_code,
                                                         __ATOMIC_ACQUIRE);

          skip &= ~GCA_UNWIND_BY_TABLES;
          if (NULL == c || c->gc_no != (word)GC_gc_no) {
            /* the table first (mapped, else libgcc's walk), then the list */
            n = gca_unwcfi_walk(frames, max, skip, unw_stack_lo,
                                unw_stack_hi, NULL);
            if (n != GCA_UNWCFI_RELIST) return n;
            unw_code_list();            /* a module came or went?        */
            c = __atomic_load_n(&unw_code, __ATOMIC_ACQUIRE);
            if (NULL == c) return gca_unwcfi_gcc(frames, max, skip);
          }
          return gca_unwcfi_walk(frames, max, skip, unw_stack_lo,
                                 unw_stack_hi, c);   /* (a tail call) */
        }
      }
#   endif
    return gca_unwcfi_gcc(frames, max, skip & ~GCA_UNWIND_BY_TABLES);
  }
  if (0 == unw_stack_hi) unw_find_stack();
  if (unw_stack_hi <= 1) return gca_unwcfi_gcc(frames, max, skip);
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
  const struct gca_unw_code *code = (const struct gca_unw_code *)t->code;
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
  const struct gca_unw_code *code;

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
          && ((const struct gca_unw_code *)code)->gc_no == (word)GC_gc_no))
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

/* ---- for the records: memory (walks: unwind_cfi.c) --------------------- */

GC_INNER word gca_unwind_memory_bytes(void)
{
  return GCA_LOAD(&gca_mem_bytes[GCA_MEM_UNWIND]);
}

#endif /* !GC_ACC_DISABLE */
