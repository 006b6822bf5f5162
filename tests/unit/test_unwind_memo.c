/* SPDX-License-Identifier: MIT */
/*
 * test_unwind_memo.c: the table walk's memos (unwind_memo.c) give the
 * stack the walk would, whatever changed since.
 *
 * A sampled stack's walk (auto, x86-64 glibc 2.35 and later) looks its
 * start up among the thread's last walks and takes their result if every
 * stack word they read still holds what it held.  Here stacks that share
 * the start and differ further up, alternately: captures in two leaves
 * (the collector's frames the same, the program's first frame not),
 * under two mids (the first kept frame the same, the next not), under
 * two tops (the third frame), under two bases (the fourth), each with
 * two values of a local the walk does not read (the same stack), in
 * runs of repeats and interleaved: 16 stacks, twice the memos kept, so
 * that memos are replaced (a site kept with one must go with it).  Frame pointers kept: every
 * frame saves rbp, a word each memo checks too.  Each must be the stack
 * _Unwind_Backtrace gives (GC_ACC_UNWIND=libgcc), frame for frame: a
 * memo taken on its start alone, or on some of its words, gives another
 * path's frames (main's own frame aside: main may call from more than
 * one place).  Depth 16 (GC_ACC_STACK_DEPTH's default): the kept
 * frames' memos hold up to 16.
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
#define NOINLINE __attribute__((noinline, noclone))  /* (kept by gc_test_util.h) */
#include "../gc_test_util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define DEPTH 16

static volatile int sink;

NOINLINE static unsigned leaf_a(void)
{
  unsigned id = GC_acc_capture_site(64);

  sink++;
  return id;
}

NOINLINE static unsigned leaf_b(void)
{
  unsigned id = GC_acc_capture_site(64);

  sink += 2;
  return id;
}

/* mids and tops: the same frame sizes, so that each level's frames lie */
/* at the same addresses whichever is called.                          */
NOINLINE static unsigned mid_a(int leaf, long salt)
{
  volatile long pad = salt;     /* a word of the frame that may change */
  unsigned id = leaf ? leaf_b() : leaf_a();

  sink += (int)pad;
  return id;
}

NOINLINE static unsigned mid_b(int leaf, long salt)
{
  volatile long pad = salt;
  unsigned id = leaf ? leaf_b() : leaf_a();

  sink -= (int)pad;
  return id;
}

NOINLINE static unsigned top_a(int mid, int leaf, long salt)
{
  unsigned id = mid ? mid_b(leaf, salt) : mid_a(leaf, salt);

  sink++;
  return id;
}

NOINLINE static unsigned top_b(int mid, int leaf, long salt)
{
  unsigned id = mid ? mid_b(leaf, salt) : mid_a(leaf, salt);

  sink--;
  return id;
}

NOINLINE static unsigned base_a(unsigned v)
{
  unsigned id = (v & 4) ? top_b((v >> 1) & 1, v & 1, (long)(v >> 4))
                        : top_a((v >> 1) & 1, v & 1, (long)(v >> 4));

  sink++;
  return id;
}

NOINLINE static unsigned base_b(unsigned v)
{
  unsigned id = (v & 4) ? top_b((v >> 1) & 1, v & 1, (long)(v >> 4))
                        : top_a((v >> 1) & 1, v & 1, (long)(v >> 4));

  sink--;
  return id;
}

/* Stack v (bits: leaf, mid, top, base; salt), from one call site.     */
NOINLINE static int capture(unsigned v, GC_word *f)
{
  unsigned id = (v & 8) ? base_b(v) : base_a(v);

  if (!CHECK(id >= 2)) return -1;
  return GC_acc_site_frames(id, f, DEPTH);
}

/* Stacks a and b the same but for main's frame (the compiler may call */
/* from more than one place in main).                                   */
static int same(const GC_word *a, int an, const GC_word *b, int bn)
{
  int j;

  if (an != bn || an <= 0) return 0;
  for (j = 0; j < an; j++) {
    Dl_info di;

    if (a[j] == b[j]) continue;
    if (!dladdr((void *)(b[j] - 1), &di) || NULL == di.dli_sname
        || strcmp(di.dli_sname, "main") != 0)
      return 0;
  }
  return 1;
}

#define N_VARIANTS 32           /* 16 paths x 2 salts                   */
#define ROUNDS 6

int main(void)
{
#ifndef GC_TEST_TABLE_WALK
  printf("SKIP: x86-64 with glibc 2.35 or later only\n");
  return 77;
#else
  static GC_word ref[N_VARIANTS][DEPTH], got[DEPTH];
  static int ref_n[N_VARIANTS];
  unsigned i, v, r = 0, bad = 0, distinct = 0;
  unsigned long seed = 12345;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stack_depth(DEPTH), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 1), GC_SUCCESS);
  /* One loop, one call site: first each stack under libgcc, then the  */
  /* rounds under auto, in runs of repeats (r even) and shuffled (odd). */
  for (i = 0; i < N_VARIANTS + ROUNDS * 4 * N_VARIANTS; i++) {
    int n;

    if (i < N_VARIANTS) {
      v = i;
    } else {
      unsigned k = (i - N_VARIANTS) % (4 * N_VARIANTS);

      r = (i - N_VARIANTS) / (4 * N_VARIANTS);
      if (r % 2 == 0) {
        v = (k / 4 + r) % N_VARIANTS;
      } else {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        v = (unsigned)(seed >> 33) % N_VARIANTS;
      }
    }
    if (0 == i || N_VARIANTS == i)
      CHECK_EQ(GC_acc_set_unwinder(0 == i ? GC_ACC_UNWIND_LIBGCC
                                          : GC_ACC_UNWIND_AUTO), GC_SUCCESS);
    n = capture(v, i < N_VARIANTS ? ref[v] : got);
    if (i < N_VARIANTS) {
      ref_n[v] = n;
      continue;
    }
    if (!same(got, n, ref[v], ref_n[v])) {
      if (bad++ < 3) {
        int j;

        fprintf(stderr, "round %u: stack %u (%d frames) is not"
                " _Unwind_Backtrace's (%d):\n", r, v, n, ref_n[v]);
        for (j = 0; j < n || j < ref_n[v]; j++)
          fprintf(stderr, "  #%d 0x%lx 0x%lx\n", j,
                  j < n ? (unsigned long)got[j] : 0UL,
                  j < ref_n[v] ? (unsigned long)ref[v][j] : 0UL);
      }
    }
  }
  for (v = 0; v < 16; v++) {    /* the paths' stacks differ              */
    unsigned w;

    for (w = 0; w < v; w++)
      if (same(ref[v], ref_n[v], ref[w], ref_n[w])) break;
    if (w == v) distinct++;
  }
  CHECK_EQ(distinct, 16);
  CHECK_EQ(bad, 0);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  return check_done("test_unwind_memo");
#endif
}
