/* SPDX-License-Identifier: MIT */
/*
 * test_unwind_cache.c: the sampled stacks' table walk with its rules
 * cached (unwind_cfi.c, x86-64 glibc 2.35 and later) gives
 * _Unwind_Backtrace's stacks, frame for frame, and takes them from its
 * cache.
 *
 * Built with -fomit-frame-pointer (tests.am): functions of several
 * shapes, whose call-frame rules differ (a CFA by rsp with small and
 * large offsets, by rbp after alloca, rbp saved among other registers
 * and in other places, rbp zeroed, remembered and restored rows around
 * an early return, a stack realigned), are chained in seeded random
 * orders (400 paths of 1 to 40 calls), each ending in a sampled capture
 * (GC_ACC_STACKS=sample=1, depth 64: the stacks reach libc's start, or
 * the thread start in the second thread).
 *  (a) Each path's stack under auto (the cached walk) is the one under
 *      GC_ACC_UNWIND=libgcc (_Unwind_Backtrace), frame for frame; a rule
 *      cached wrong (an offset, a row, the register the CFA is by) makes
 *      some path's stack differ from there on.
 *  (b) The second time round, the cached walk finds its rules in the
 *      table: _Unwind_Find_FDE (interposed here: libgc and libgcc's own
 *      unwinder call it through the PLT) is called less than a quarter
 *      as often as the first time (none, unless rules were evicted); a
 *      walk that fell back to _Unwind_Backtrace would call it per frame.
 *  (c) A capture in a signal handler (a signal frame: not modelled, the
 *      whole walk falls back) gives _Unwind_Backtrace's stack too.
 *  (d) 300 captures from 300 call sites of one function: more return
 *      addresses than the small table's 256 rules, so it grows to the
 *      big one mid-walk with its rules moved over: (a) and (b) again.
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

#include <alloca.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC optimize("omit-frame-pointer")
#endif

#define N_PATHS 400
#define MAX_LEN 40
#define DEPTH 64

/* ---- _Unwind_Find_FDE, counted ------------------------------------------ */
static volatile unsigned long fde_calls;

const void *_Unwind_Find_FDE(void *pc, void *bases);
const void *_Unwind_Find_FDE(void *pc, void *bases)
{
  static const void *(*real)(void *, void *);

  if (NULL == real)
    *(void **)&real = dlsym(RTLD_NEXT, "_Unwind_Find_FDE");
  __atomic_fetch_add(&fde_calls, 1, __ATOMIC_RELAXED);
  return real != NULL ? real(pc, bases) : NULL;
}

/* ---- the shapes ----------------------------------------------------------- */
typedef unsigned (*step_fn)(const unsigned char *, int);
unsigned sh_plain(const unsigned char *, int);
unsigned sh_big(const unsigned char *, int);
unsigned sh_alloca(const unsigned char *, int);
unsigned sh_saved(const unsigned char *, int);
unsigned sh_zero_rbp(const unsigned char *, int);
unsigned sh_early(const unsigned char *, int);
unsigned sh_aligned(const unsigned char *, int);
unsigned sh_args(const unsigned char *, int);
#define N_SHAPES 8
static const step_fn shapes[N_SHAPES] = {
  sh_plain, sh_big, sh_alloca, sh_saved, sh_zero_rbp, sh_early, sh_aligned,
  sh_args
};
static volatile unsigned sink;

/* The path's next step, or the capture at its end (path[i] == 255).     */
static unsigned next(const unsigned char *path, int i)
{
  if (255 == path[i]) return GC_acc_capture_site(64);
  return shapes[path[i]](path, i + 1);
}

NOINLINE unsigned sh_plain(const unsigned char *path, int i)
{
  unsigned r = next(path, i);
  KEEP(r);
  return r;
}

NOINLINE unsigned sh_big(const unsigned char *path, int i)
{
  volatile char buf[6000];        /* a CFA offset of two uleb bytes     */
  unsigned r;

  buf[i] = (char)i;
  r = next(path, i);
  KEEP(r);
  sink = (unsigned)buf[i];
  return r;
}

NOINLINE unsigned sh_alloca(const unsigned char *path, int i)
{
  volatile char *p = (volatile char *)alloca(16 + (size_t)i * 8);
  unsigned r;

  p[0] = 1;                       /* the CFA by rbp                      */
  r = next(path, i);
  KEEP(r);
  sink = (unsigned)p[0];
  return r;
}

NOINLINE unsigned sh_saved(const unsigned char *path, int i)
{
  unsigned r;

  /* every callee-saved register, rbp among them, pushed and restored   */
  __asm__ __volatile__("" : : : "rbx", "r12", "r13", "r14", "r15", "rbp",
                       "memory");
  r = next(path, i);
  KEEP(r);
  __asm__ __volatile__("" : : : "rbx", "r12", "r13", "r14", "r15", "rbp",
                       "memory");
  return r;
}

NOINLINE unsigned sh_zero_rbp(const unsigned char *path, int i)
{
  unsigned r;

  __asm__ __volatile__("xorl %%ebp, %%ebp" : : : "rbp", "memory");
  r = next(path, i);
  KEEP(r);
  return r;
}

NOINLINE unsigned sh_early(const unsigned char *path, int i)
{
  unsigned a = sink, r;

  __asm__ __volatile__("" : : : "rbx", "r12", "r13", "memory");
  if (12345 == a) return a;       /* an epilogue before the call: the   */
                                  /* rows after it are restored ones    */
  r = next(path, i);
  KEEP(r);
  __asm__ __volatile__("" : : : "rbx", "r12", "r13", "memory");
  sink = a;
  return r;
}

NOINLINE unsigned sh_aligned(const unsigned char *path, int i)
{
  volatile char buf[64] __attribute__((aligned(64)));
  unsigned r;

  buf[i & 63] = 1;                /* the stack realigned                 */
  r = next(path, i);
  KEEP(r);
  sink = (unsigned)buf[i & 63];
  return r;
}

/* Arguments on the stack: the caller's frame grows and shrinks around  */
/* the call (CFA offsets that change within a function).                 */
NOINLINE unsigned sh_many(const unsigned char *path, int i, long a, long b,
                          long c, long d, long e, long f, long g, long h)
{
  unsigned r = next(path, i);
  KEEP(r);
  sink = (unsigned)(a + b + c + d + e + f + g + h);
  return r;
}

NOINLINE unsigned sh_args(const unsigned char *path, int i)
{
  unsigned r = sh_many(path, i, 1, 2, 3, 4, 5, 6, i, 8);
  KEEP(r);
  return r;
}

/* ---- the paths ------------------------------------------------------------ */
static unsigned char paths[N_PATHS][MAX_LEN + 1];
static GC_word got[N_PATHS][DEPTH];
static int got_n[N_PATHS];

static void make_paths(void)
{
  uint64_t x = 0x9E3779B97F4A7C15ULL;   /* seeded: the same paths a run */
  int p, i, len;

  for (p = 0; p < N_PATHS; p++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    len = 1 + (int)((x >> 33) % MAX_LEN);
    for (i = 0; i < len; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      paths[p][i] = (unsigned char)((x >> 33) % N_SHAPES);
    }
    paths[p][len] = 255;
  }
}

static int run_path(int p, GC_word *f)
{
  unsigned id = shapes[paths[p][0]](paths[p], 1);

  if (!CHECK(id >= 2)) return -1;
  return GC_acc_site_frames(id, f, DEPTH);
}

static const char *name_of(GC_word ra)
{
  Dl_info di;

  if (0 == ra || !dladdr((void *)(ra - 1), &di) || NULL == di.dli_sname)
    return "?";
  return di.dli_sname;
}

/* Two stacks side by side, from the first frame that differs.        */
static void show(const GC_word *a, int an, const GC_word *b, int bn)
{
  int i = 0;

  while (i < an && i < bn && a[i] == b[i]) i++;
  fprintf(stderr, "  cached: %d frames, _Unwind_Backtrace: %d; from #%d:\n",
          an, bn, i);
  for (; i < an || i < bn; i++)
    fprintf(stderr, "    #%d 0x%lx %-14s 0x%lx %s\n", i,
            i < an ? (unsigned long)a[i] : 0UL, i < an ? name_of(a[i]) : "",
            i < bn ? (unsigned long)b[i] : 0UL, i < bn ? name_of(b[i]) : "");
}

/* Every path's stack, from one call site.                               */
NOINLINE static void run_all(GC_word (*f)[DEPTH], int *n)
{
  int p;

  for (p = 0; p < N_PATHS; p++) n[p] = run_path(p, f[p]);
}

/* Every path's stack under auto, the first time and again (the FDE     */
/* look-ups of the second time counted), then under libgcc: the same.   */
static void test_paths(const char *where)
{
  static GC_word ref[N_PATHS][DEPTH];
  static int ref_n[N_PATHS];
  GC_word (*const out[3])[DEPTH] = { got, got, ref };
  int *const out_n[3] = { got_n, got_n, ref_n };
  unsigned long calls[3];
  int p, pass, bad = 0;

  printf("paths (%s)\n", where);
  for (pass = 0; pass < 3; pass++) {      /* (one call site: one stack) */
    CHECK_EQ(GC_acc_set_unwinder(pass < 2 ? GC_ACC_UNWIND_AUTO
                                          : GC_ACC_UNWIND_LIBGCC),
             GC_SUCCESS);
    fde_calls = 0;
    run_all(out[pass], out_n[pass]);
    calls[pass] = fde_calls;
  }
  printf("  _Unwind_Find_FDE: %lu calls the first time, %lu again, %lu"
         " by _Unwind_Backtrace\n", calls[0], calls[1], calls[2]);
  CHECK(calls[0] > 0);
  CHECK(calls[1] * 4 < calls[0]);
  CHECK(calls[2] > calls[0]);     /* (the count sees libgcc's look-ups) */
  for (p = 0; p < N_PATHS; p++) {
    if (!CHECK(got_n[p] > 0)) break;
    if (ref_n[p] != got_n[p]
        || memcmp(ref[p], got[p], (size_t)got_n[p] * sizeof(GC_word)) != 0) {
      if (bad++ < 3) {
        fprintf(stderr, "  path %d: the cached walk's stack differs\n", p);
        show(got[p], got_n[p], ref[p], ref_n[p]);
      }
    }
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_AUTO), GC_SUCCESS);
}

static void *thread_main(void *arg)
{
  test_paths("a second thread");
  return arg;
}

/* ---- a signal frame --------------------------------------------------------- */
static GC_word sig_f[2][DEPTH];
static int sig_n[2], sig_round;

static void on_signal(int sig)
{
  (void)sig;
  sig_n[sig_round] = run_path(0, sig_f[sig_round]);
}

NOINLINE static void raise_here(void)
{
  raise(SIGUSR1);
  KEEP(sig_round);
}

static void test_signal(void)
{
  printf("signal frame\n");
  CHECK(signal(SIGUSR1, on_signal) != SIG_ERR);
  for (sig_round = 0; sig_round < 2; sig_round++) {   /* one call site */
    CHECK_EQ(GC_acc_set_unwinder(0 == sig_round ? GC_ACC_UNWIND_AUTO
                                                : GC_ACC_UNWIND_LIBGCC),
             GC_SUCCESS);
    raise_here();
  }
  CHECK(sig_n[0] > (int)paths[0][0] + 2);      /* past the handler     */
  if (!CHECK(sig_n[0] == sig_n[1]
             && memcmp(sig_f[0], sig_f[1],
                       (size_t)sig_n[0] * sizeof(GC_word)) == 0)) {
    show(sig_f[0], sig_n[0], sig_f[1], sig_n[1]);
  }
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_AUTO), GC_SUCCESS);
}

/* ---- more return addresses than the small table holds ---------------- */
#define N_FAN 300
static const unsigned char end_path[1] = { 255 };
/* Each case its own call (the asm text differs: no two are merged).   */
#define FAN1(n) \
  case n: \
    __asm__ __volatile__("# fan " #n : : : "memory"); \
    r = next(end_path, 0); \
    __asm__ __volatile__("# fan end " #n : : : "memory"); \
    break;
#define FAN10(n) FAN1(n##0) FAN1(n##1) FAN1(n##2) FAN1(n##3) FAN1(n##4) \
                 FAN1(n##5) FAN1(n##6) FAN1(n##7) FAN1(n##8) FAN1(n##9)
#define FAN100(n) FAN10(n##0) FAN10(n##1) FAN10(n##2) FAN10(n##3) \
                  FAN10(n##4) FAN10(n##5) FAN10(n##6) FAN10(n##7) \
                  FAN10(n##8) FAN10(n##9)

NOINLINE static unsigned fan(int k)         /* k: 100 to 399 */
{
  unsigned r = 0;

  switch (k) {
    FAN100(1) FAN100(2) FAN100(3)
  default: break;
  }
  KEEP(r);
  return r;
}

static void test_fan(void)
{
  static GC_word f[2][N_FAN][DEPTH];
  static int fn[2][N_FAN];
  unsigned long calls[3];
  int k, pass, bad = 0;
  GC_word mem0 = GC_acc_get_memory_bytes();

  printf("%d call sites\n", N_FAN);
  for (pass = 0; pass < 3; pass++) {
    int o = pass < 2 ? 0 : 1;

    CHECK_EQ(GC_acc_set_unwinder(pass < 2 ? GC_ACC_UNWIND_AUTO
                                          : GC_ACC_UNWIND_LIBGCC),
             GC_SUCCESS);
    fde_calls = 0;
    for (k = 0; k < N_FAN; k++) {
      unsigned id = fan(100 + k);

      if (!CHECK(id >= 2)) return;
      fn[o][k] = GC_acc_site_frames(id, f[o][k], DEPTH);
    }
    calls[pass] = fde_calls;
  }
  printf("  _Unwind_Find_FDE: %lu calls the first time, %lu again, %lu"
         " by _Unwind_Backtrace; accounting memory %lu -> %lu bytes\n",
         calls[0], calls[1], calls[2], (unsigned long)mem0,
         (unsigned long)GC_acc_get_memory_bytes());
  CHECK(calls[0] >= N_FAN);        /* (one look-up per new call site)   */
  /* Kept across the growth: a small table that did not grow would    */
  /* miss at least N_FAN - 256 call sites again, 44 (a tenth allows for */
  /* a few rules evicted from a crowded stretch of the big table).       */
  CHECK(calls[1] * 10 < N_FAN);
  for (k = 0; k < N_FAN; k++) {
    if (!CHECK(fn[0][k] > 0)) break;
    if (fn[0][k] != fn[1][k]
        || memcmp(f[0][k], f[1][k], (size_t)fn[0][k] * sizeof(GC_word))) {
      if (bad++ < 3) {
        fprintf(stderr, "  call site %d: the cached walk's stack differs\n",
                k);
        show(f[0][k], fn[0][k], f[1][k], fn[1][k]);
      }
    }
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_AUTO), GC_SUCCESS);
}

int main(void)
{
#ifndef GC_TEST_TABLE_WALK
  printf("SKIP: x86-64 with glibc 2.35 or later only\n");
  return 77;
#else
  pthread_t t;

  if (NULL == dlsym(RTLD_NEXT, "_Unwind_Find_FDE")) {
    printf("SKIP: no _Unwind_Find_FDE past this program's (a static"
           " libgcc?)\n");
    return 77;
  }
  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stack_depth(DEPTH), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 1), GC_SUCCESS);
  make_paths();
  test_paths("main thread");
  CHECK_EQ(GC_pthread_create(&t, NULL, thread_main, NULL), 0);
  CHECK_EQ(GC_pthread_join(t, NULL), 0);
  test_signal();
  test_fan();
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  return check_done("test_unwind_cache");
#endif
}
