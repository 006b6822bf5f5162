/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c: callsite capture, interning and sampling (sites.c,
 * unwind.c).
 *
 * (a) A known call chain a -> b -> c -> capture gives the return addresses
 *     inside c, b, a, in that order, with the collector's own frames
 *     dropped, through both unwinders (fp and libgcc), which agree.
 *     Built with -fno-omit-frame-pointer and linked with -rdynamic, so
 *     dladdr names the test's own functions (tests.am).
 * (b) Interning: the same stack from a loop gives one id; two call paths
 *     give two ids; threads capturing the same stack at once agree.
 * (c) Sampling (sample=524288): three call paths with known byte totals
 *     (1 GiB each, in 64 B, 1 KiB and 16 KiB objects); the sum of the
 *     sampling weights over each path's sampled objects is within the
 *     bound of tests/stat_bound.h of its exact total (about 2000 samples
 *     per path: some 13%; a chance failure below 1e-7 a run).
 * (d) Through GC_MALLOC when the allocation hooks capture sites (the tags
 *     module): a -> b -> c -> GC_MALLOC names c, b, a (skipped, with a
 *     note, while the hooks do not call the sampler).
 * (e) Forged frame chains (x86-64): a capture called with rbp at a frame
 *     record of the test's making stops at a link that is misaligned,
 *     not strictly above, past the stack's top or 0, and before a return
 *     address outside code; a good link goes on.  Alternated, so that
 *     the fp walk's guess (the stack last seen from the same frame) is
 *     always the other case's and must not be taken.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"
#include "../stat_bound.h"

#include <dlfcn.h>
#include "../dl_names.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the call before it from being a tail call (c's frame stays).   */

static size_t cap_bytes = 64;

/* Global (not static) so that -rdynamic puts them where dladdr looks.  */
unsigned fn_a(void), fn_b(void), fn_c(void), fn_d(void);
unsigned path_a(void), path_b(void), path_c(void);
unsigned alloc_a(void), alloc_b(void), alloc_c(void);

NOINLINE unsigned fn_c(void)
{
  unsigned r = GC_acc_capture_site(cap_bytes);
  KEEP(r);
  return r;
}

NOINLINE unsigned fn_b(void)
{
  unsigned r = fn_c();
  KEEP(r);
  return r;
}

NOINLINE unsigned fn_a(void)
{
  unsigned r = fn_b();
  KEEP(r);
  return r;
}

NOINLINE unsigned fn_d(void)   /* another way to c */
{
  unsigned r = fn_c();
  KEEP(r);
  return r;
}

static void dump_site(unsigned id)
{
  GC_word f[64];
  int n = GC_acc_site_frames(id, f, 64), i;

  fprintf(stderr, "  site %u: %d frames\n", id, n);
  for (i = 0; i < n && i < 64; i++)
    fprintf(stderr, "    #%d 0x%lx %s\n", i, (unsigned long)f[i],
            name_of(f[i]));
}

/* Site id's first frames lie in fns[0..n), in that order.              */
static int site_is(unsigned id, void *const *fns, int n)
{
  GC_word f[64];
  int got = GC_acc_site_frames(id, f, 64), i;

  if (!CHECK(got >= n)) {
    dump_site(id);
    return 0;
  }
  for (i = 0; i < n; i++) {
    if (!CHECK(fn_of(f[i]) == fns[i])) {
      fprintf(stderr, "  frame %d: %s\n", i, name_of(f[i]));
      dump_site(id);
      return 0;
    }
  }
  return 1;
}

/* n calls from one call site (a loop whose body the compiler has no   */
/* reason to duplicate).                                                */
NOINLINE static void repeat_a(unsigned *ids, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++) ids[i] = fn_a();
}

static void test_chain(int unwinder, const char *label)
{
  void *abc[3] = { (void *)fn_c, (void *)fn_b, (void *)fn_a };
  void *dc[2] = { (void *)fn_c, (void *)fn_d };
  static unsigned ids[1000];
  unsigned id, id2, i;

  printf("chain (%s)\n", label);
  CHECK_EQ(GC_acc_set_unwinder(unwinder), GC_SUCCESS);
  repeat_a(ids, 1000);   /* one call site: one stack, one id */
  id = ids[0];
  CHECK(id >= 2);
  CHECK_EQ(GC_acc_last_site(), id);
  site_is(id, abc, 3);
  for (i = 1; i < 1000; i++)
    if (!CHECK_EQ(ids[i], id)) break;
  id2 = fn_d();
  CHECK(id2 >= 2);
  CHECK(id2 != id);
  site_is(id2, dc, 2);
}

/* ---- threads ------------------------------------------------------------ */
#define N_THREADS 4
static unsigned thread_ids[N_THREADS];

/* Each thread captures the same stack (c, b, a, thread_main, libc's   */
/* thread start) 20000 times: one id, the same in every thread.         */
static void *thread_main(void *arg)
{
  static unsigned ids[N_THREADS][20000];
  unsigned *out = (unsigned *)arg, *mine = ids[out - thread_ids], i;

  repeat_a(mine, 20000);
  for (i = 1; i < 20000; i++)
    if (mine[i] != mine[0]) break;
  *out = i == 20000 ? mine[0] : 0;
  return NULL;
}

static void test_threads(void)
{
  pthread_t t[N_THREADS];
  unsigned i, main_id;

  printf("threads\n");
  cap_bytes = 64;
  for (i = 0; i < N_THREADS; i++)
    CHECK_EQ(GC_pthread_create(&t[i], NULL, thread_main, &thread_ids[i]), 0);
  for (i = 0; i < N_THREADS; i++) CHECK_EQ(GC_pthread_join(t[i], NULL), 0);
  main_id = fn_a();
  for (i = 0; i < N_THREADS; i++) {
    CHECK(thread_ids[i] >= 2);
    if (!CHECK_EQ(thread_ids[i], thread_ids[0])) {
      dump_site(thread_ids[0]);
      dump_site(thread_ids[i]);
    }
    CHECK(thread_ids[i] != main_id);   /* main's stack is another */
  }
}

/* ---- sampling ----------------------------------------------------------- */
NOINLINE unsigned path_a(void)
{
  unsigned r = GC_acc_capture_site(64);
  KEEP(r);
  return r;
}

NOINLINE unsigned path_b(void)
{
  unsigned r = GC_acc_capture_site(1024);
  KEEP(r);
  return r;
}

NOINLINE unsigned path_c(void)
{
  unsigned r = GC_acc_capture_site(16384);
  KEEP(r);
  return r;
}

static void test_sampling(void)
{
  static unsigned (*const path[3])(void) = { path_a, path_b, path_c };
  static const size_t size[3] = { 64, 1024, 16384 };
  const double total = 1024.0 * 1024 * 1024;
  unsigned p;

  printf("sampling\n");
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 524288), GC_SUCCESS);
  CHECK(fabs(GC_acc_site_weight(64) - 64 / -expm1(-64 / 524288.0)) < 1e-6);
  for (p = 0; p < 3; p++) {
    size_t i, n = (size_t)(total / (double)size[p]);
    double est = 0;
    unsigned samples = 0, unsampled = 0, bad = 0, known = 0;

    for (i = 0; i < n; i++) {
      unsigned id = path[p]();

      if (GC_ACC_SITE_UNSAMPLED == id) {
        unsampled++;
        continue;
      }
      samples++;
      est += GC_acc_site_weight(size[p]);
      if (id != known) {   /* check the site names this path */
        GC_word f[1];
        if (GC_acc_site_frames(id, f, 1) < 1 || fn_of(f[0]) != (void *)path[p])
          bad++;
        known = id;
      }
    }
    printf("  path %c: %zu objects of %zu bytes, %u sampled, estimate %.4g"
           " bytes (exact %.4g, %+.2f%%)\n", 'A' + p, n, size[p], samples,
           est, total, 100 * (est - total) / total);
    CHECK(samples > 1000);
    CHECK(unsampled > 0);
    CHECK_EQ(bad, 0);
    {
      /* n objects of size[p] at R = 512 KiB; a third of 1e-7 a path.    */
      struct sb_sum sb;
      double bound;

      memset(&sb, 0, sizeof(sb));
      sb_add_n(&sb, (double)size[p], (double)n, 524288.0);
      bound = sb_bound(&sb, 524288.0, 1e-7 / 3);
      if (!CHECK(fabs(est - total) <= bound))
        printf("  path %c: off by more than the bound, %.2f%%\n", 'A' + p,
               100 * bound / total);
    }
  }
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
}

/* ---- through the allocator ------------------------------------------------ */
NOINLINE unsigned alloc_c(void)
{
  void *p = GC_MALLOC(48);
  unsigned r = GC_acc_last_site();
  KEEP(p);
  return p != NULL ? r : 0;
}

NOINLINE unsigned alloc_b(void)
{
  unsigned r = alloc_c();
  KEEP(r);
  return r;
}

NOINLINE unsigned alloc_a(void)
{
  unsigned r = alloc_b();
  KEEP(r);
  return r;
}

static void test_malloc(int unwinder, const char *label)
{
  void *abc[3] = { (void *)alloc_c, (void *)alloc_b, (void *)alloc_a };
  unsigned before = GC_acc_capture_site(8), id;

  printf("GC_MALLOC (%s)\n", label);
  CHECK_EQ(GC_acc_set_unwinder(unwinder), GC_SUCCESS);
  id = alloc_a();
  if (id == before || id < 2) {
    printf("  note: GC_MALLOC does not capture sites yet (hooks not wired);"
           " skipped\n");
    return;
  }
  site_is(id, abc, 3);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* GC_acc_capture_site(8) called with rbp = rec: the capture's caller's */
/* frame record is rec (rec[0] the next link, rec[1] the return address). */
/* The stack pointer is aligned and moved past the red zone first.      */
static NOINLINE unsigned forged_capture(GC_word *rec)
{
  unsigned r;

  __asm__ __volatile__(
      "mov %%rsp, %%rbx\n\t"
      "sub $256, %%rsp\n\t"
      "and $-16, %%rsp\n\t"
      "push %%rbp\n\t"
      "push %%rbp\n\t"
      "mov %1, %%rbp\n\t"
      "mov $8, %%edi\n\t"
      "call GC_acc_capture_site@PLT\n\t"
      "pop %%rbp\n\t"
      "pop %%rbp\n\t"
      "mov %%rbx, %%rsp"
      : "=a"(r)
      : "r"(rec)
      : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15", "memory", "cc");
  return r;
}

static GC_word not_code[2];

/* Each bad link leads to a record a walk would take if it did not    */
/* check that link (a return address in code), so that a missing check */
/* shows as a longer stack; a link past the stack's top or 0 would     */
/* fault.                                                               */
static NOINLINE void test_forged(void)
{
  GC_word a[16] __attribute__((aligned(16)));
  GC_word *rec = &a[6];
  GC_word up = (GC_word)__builtin_frame_address(0);   /* above a     */
  GC_word code = (GC_word)fn_d + 1;
  GC_word tail[2];
  struct { const char *what; GC_word link, ra; int n; } c[] = {
    { "good link", 0, 0, -3 },   /* -3: 3 frames or more */
    { "misaligned link", 0, 0, 2 },
    { "link below", 0, 0, 2 },
    { "link to itself", 0, 0, 2 },
    { "link past the stack", ~(GC_word)15, 0, 2 },
    { "zero link", 0, 0, 2 },
    { "return address not code", 0, 0, 1 },
  };
  unsigned id_good = 0, round, i;

  memset(a, 0, sizeof(a));
  a[3] = code;                          /* the record at a[2]          */
  tail[0] = 0;
  tail[1] = code;
  memcpy((char *)&a[10] + 4, tail, sizeof(tail));   /* and at a[10]+4 */
  c[0].link = up;
  c[1].link = (GC_word)&a[10] + 4;
  c[2].link = (GC_word)&a[2];
  c[3].link = (GC_word)rec;
  c[6].link = up;
  for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
    c[i].ra = i == 6 ? (GC_word)&not_code[1] : code;
  printf("forged frame chains\n");
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  for (round = 0; round < 4; round++) {
    for (i = 0; i < 2 * sizeof(c) / sizeof(c[0]); i++) {
      /* the good link between any two others                          */
      unsigned k = i % 2 == 0 ? 0 : (unsigned)(i / 2), id;
      GC_word f[16];
      int n;

      rec[0] = c[k].link;
      rec[1] = c[k].ra;
      id = forged_capture(rec);
      n = GC_acc_site_frames(id, f, 16);
      if (c[k].n < 0 ? !CHECK(n >= -c[k].n) : !CHECK_EQ(n, c[k].n)) {
        printf("  %s (round %u): %d frames\n", c[k].what, round, n);
        continue;
      }
      if (n >= 2) CHECK(f[1] == code);
      if (0 == k) {
        if (0 == id_good) id_good = id;
        CHECK_EQ(id, id_good);
      }
    }
  }
}

/* A thread's first capture, through a frame record whose link points  */
/* past any stack: it ends there (2 frames), as on any other thread.   */
static void *reuse_forged_main(void *arg)
{
  GC_word a[4] __attribute__((aligned(16)));
  GC_word f[16];

  a[0] = ~(GC_word)15;
  a[1] = (GC_word)fn_d + 1;
  *(int *)arg = GC_acc_site_frames(forged_capture(a), f, 16);
  return NULL;
}
#endif

/* Threads one after another, each starting after the last has exited: */
/* each takes the stack guesses an exited thread left (sites.c), which  */
/* must be set up for the new thread's own stack before they are used  */
/* (a walk trusting the table before it knows that stack's bounds      */
/* follows the forged link, and faults).                                 */
static void test_threads_reuse(void)
{
  unsigned i, first = thread_ids[0];

  printf("threads, one after another\n");
  for (i = 0; i < N_THREADS; i++) {
    pthread_t t;

    thread_ids[i] = 0;
    CHECK_EQ(GC_pthread_create(&t, NULL, thread_main, &thread_ids[i]), 0);
    CHECK_EQ(GC_pthread_join(t, NULL), 0);
    if (!CHECK_EQ(thread_ids[i], first)) {
      dump_site(first);
      dump_site(thread_ids[i]);
    }
  }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  {
    pthread_t t;
    int n = -1;

    CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
    CHECK_EQ(GC_pthread_create(&t, NULL, reuse_forged_main, &n), 0);
    CHECK_EQ(GC_pthread_join(t, NULL), 0);
    CHECK_EQ(n, 2);
  }
#endif
}

int main(void)
{
  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_capture_site(64), GC_ACC_SITE_NONE);   /* off */
  CHECK_EQ(GC_acc_set_stacks(7, 0), GC_ERROR);
  CHECK_EQ(GC_acc_set_unwinder(7), GC_ERROR);
  CHECK_EQ(GC_acc_site_frames(0, NULL, 0), -1);
  CHECK_EQ(GC_acc_site_frames(1, NULL, 0), -1);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  GC_acc_set_stack_depth(16);
  CHECK(GC_acc_site_weight(100) == 100.0);
  test_chain(GC_ACC_UNWIND_FP, "fp");
  test_chain(GC_ACC_UNWIND_LIBGCC, "libgcc");
  {
    /* the two unwinders see the same return addresses (c, b, a, main;  */
    /* the calls are on different lines, so compare 3)                  */
    GC_word f1[16], f2[16];
    int n1, n2;
    CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
    n1 = GC_acc_site_frames(fn_a(), f1, 16);
    CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_LIBGCC), GC_SUCCESS);
    n2 = GC_acc_site_frames(fn_a(), f2, 16);
    CHECK(n1 >= 4 && n2 >= 4);
    if (n1 >= 4 && n2 >= 4) CHECK(memcmp(f1, f2, 3 * sizeof(GC_word)) == 0);
  }
  GC_acc_set_stack_depth(2);
  {
    GC_word f[8];
    CHECK_EQ(GC_acc_site_frames(fn_a(), f, 8), 2);
  }
  GC_acc_set_stack_depth(0);   /* the default, 16 */
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  test_threads();
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  test_forged();
#endif
  test_threads_reuse();
  test_sampling();
  test_malloc(GC_ACC_UNWIND_FP, "fp");
  test_malloc(GC_ACC_UNWIND_LIBGCC, "libgcc");
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_capture_site(64), GC_ACC_SITE_NONE);
  return check_done("test_unwind");
}
