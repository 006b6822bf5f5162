/* SPDX-License-Identifier: MIT */
/*
 * countdown_runs.h: the countdown tests' runs (test_tl_countdown,
 * test_locked_countdown): n objects of one size class, the books exact
 * after them.  Include after gc.h, gc_accounting.h and check.h.
 */
#ifndef GCACC_COUNTDOWN_RUNS_H
#define GCACC_COUNTDOWN_RUNS_H

static void *volatile sink;

static void snap(struct GC_acc_stats_s *s)
{
  CHECK_EQ(GC_acc_get_stats(s, sizeof(*s)), sizeof(*s));
}

/* n objects of 16 * g + 1 to 16 * g + 15 bytes (g + 1 granules, with  */
/* the extra byte of interior pointers, on 64-bit targets; two classes  */
/* on 32-bit ones, their granules 8 bytes); their requested bytes.     */
static unsigned long long pops(unsigned g, unsigned long n,
                               unsigned long seed)
{
  unsigned long long req = 0;
  unsigned long i;

  for (i = 0; i < n; i++) {
    size_t sz = 16 * g + 1 + (size_t)((i * 7 + seed) % 15);

    sink = GC_MALLOC_ATOMIC(sz);
    req += sz;
  }
  return req;
}

/* n pops counted exactly (label for the log).                          */
static void run(const char *label, unsigned g, unsigned long n,
                unsigned long seed)
{
  struct GC_acc_stats_s b, a;
  unsigned long long req;

  snap(&b);
  req = pops(g, n, seed);
  snap(&a);
  if (!CHECK_EQ(a.allocs - b.allocs, n)
      || !CHECK_EQ(a.alloc_req_bytes - b.alloc_req_bytes, req))
    fprintf(stderr, "  run: %s\n", label);
}

#endif
