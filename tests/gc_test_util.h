/* SPDX-License-Identifier: MIT */
/*
 * gc_test_util.h: helpers shared by the test programs that collect and
 * then look at what the collector kept (the unit tests test_census,
 * test_frag, test_types, test_types_gcj; the CLI workloads workload,
 * fragload, typedload), and by those that count what threads allocate
 * (test_tl_copies, test_tl_promise); and where the collector's table
 * walk runs (test_unwind_cache, test_unwind_memo, test_nofp,
 * test_tl_copies).  Include after gc.h.
 *
 * Everything is static and marked unused, so a program pays only for
 * what it calls.  The collector scans the stack conservatively: a dead
 * frame below the caller may still hold a pointer to an object a test
 * has dropped, so tests collect through collect(), which first zeroes
 * that part of the stack.  Both stay out of line (NOINLINE): clear_stack's
 * buffer must lie below the caller's frame, and allocating helpers must
 * leave their pointers in frames that are gone when collect() runs.
 */
#ifndef GCACC_GC_TEST_UTIL_H
#define GCACC_GC_TEST_UTIL_H

#include <stddef.h>
#include <stdlib.h>

#ifndef NOINLINE
# define NOINLINE __attribute__((noinline))
#endif
#define GC_TEST_UNUSED __attribute__((unused))
/* Keeps a value in a register the compiler must assume read and       */
/* changed, so that a call producing it is neither dropped nor moved.   */
#ifndef KEEP
# define KEEP(x) __asm__ __volatile__("" : "+r"(x) : : "memory")
#endif

/* Where auto takes sampled stacks by the unwind tables, cached: x86-64 */
/* glibc 2.35 and later (the collector's GCA_UNW_AUTO_TABLES and        */
/* GCA_UNW_CFI, accounting/gca_unwind.h; elsewhere the tests that check */
/* that walk skip).                                                      */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GLIBC_MINOR__) \
    && (__GLIBC__ > 2 || (2 == __GLIBC__ && __GLIBC_MINOR__ >= 35))
# define GC_TEST_TABLE_WALK 1
#endif

/* Zero a good part of the stack below us (64 KiB), where dead frames   */
/* held pointers.                                                        */
static NOINLINE GC_TEST_UNUSED void clear_stack(void)
{
  volatile char buf[64 * 1024];
  size_t i;

  for (i = 0; i < sizeof(buf); i++) buf[i] = 0;
}

/* A full collection with no stale pointers from dead frames.           */
static NOINLINE GC_TEST_UNUSED void collect(void)
{
  clear_stack();
  GC_gcollect();
}

/* n objects of size_of(i, t) bytes, i from 0, every third atomic     */
/* (GC_malloc_atomic's fast path is the same function of another kind), */
/* each left in *sink; returns their requested bytes (test_tl_copies,   */
/* test_tl_promise: worker t's phase).                                   */
static GC_TEST_UNUSED unsigned long long alloc_sized(
        void *volatile *sink, unsigned n,
        size_t (*size_of)(unsigned, unsigned), unsigned t)
{
  unsigned long long req = 0;
  unsigned i;

  for (i = 0; i < n; i++) {
    size_t sz = size_of(i, t);

    *sink = i % 3 == 0 ? GC_MALLOC_ATOMIC(sz) : GC_MALLOC(sz);
    req += sz;
  }
  return req;
}

/* Makes a static array a root.  The main program's static data is one */
/* already, except where the embedder says otherwise: il2cpp builds the */
/* collector with GC_DONT_REGISTER_MAIN_STATIC_DATA and registers its  */
/* roots itself (tests/il2cpp/amalgam.sh runs the tests so).            */
#define GC_TEST_ROOT(array) \
        GC_add_roots((void *)(array), (void *)((char *)(array) + sizeof(array)))

/* qsort comparison of pointers (void * elements) by address.           */
static GC_TEST_UNUSED int cmp_ptr(const void *a, const void *b)
{
  GC_word x = (GC_word)*(void *const *)a, y = (GC_word)*(void *const *)b;

  return x < y ? -1 : x > y;
}

/* objs[0 .. n-1] = n pointer-free objects of lb bytes, sorted by       */
/* address.                                                              */
static NOINLINE GC_TEST_UNUSED void alloc_atomic_sorted(void **objs,
                                                        unsigned n,
                                                        size_t lb)
{
  unsigned i;

  for (i = 0; i < n; i++) objs[i] = GC_malloc_atomic(lb);
  qsort(objs, n, sizeof(objs[0]), cmp_ptr);
}

/* The longest run of address-contiguous objects in objs[0 .. n-1]      */
/* (sorted by address; contiguous: step bytes apart): returns its       */
/* length, its first index in *start (the first such run on a tie).     */
static GC_TEST_UNUSED unsigned longest_run(void *const *objs, unsigned n,
                                           GC_word step, unsigned *start)
{
  unsigned i, run_start = 0, run_len = 1, best_start = 0, best_len = 1;

  for (i = 1; i < n; i++) {
    if ((GC_word)objs[i] == (GC_word)objs[i - 1] + step) {
      run_len++;
    } else {
      run_start = i;
      run_len = 1;
    }
    if (run_len > best_len) {
      best_start = run_start;
      best_len = run_len;
    }
  }
  *start = best_start;
  return best_len;
}

/* The planted free-block pattern of test_frag and the fragload         */
/* workload: FRAG_N atomic objects of FRAG_LB bytes, granted             */
/* FRAG_OBJ_BYTES (16 blocks of 4 KiB) each, FRAG_LB leaving room for    */
/* bdwgc's extra byte.                                                   */
#define FRAG_N 65
#define FRAG_OBJ_BYTES ((GC_word)65536)
#define FRAG_LB (FRAG_OBJ_BYTES - 64)

/* Drop the odd objects of the run objs[start .. start + len - 1], so   */
/* that each hole has live neighbours; returns the holes made.          */
static GC_TEST_UNUSED unsigned drop_alternate(void **objs, unsigned start,
                                              unsigned len)
{
  unsigned i, holes = 0;

  for (i = start + 1; i + 1 < start + len; i += 2) {
    objs[i] = NULL;
    holes++;
  }
  return holes;
}

#endif
