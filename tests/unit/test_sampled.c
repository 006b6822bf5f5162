/* SPDX-License-Identifier: MIT */
/*
 * test_sampled.c: the sampled profile's estimates against the truth.
 *
 *   test_sampled [explicit|word0] [ROUNDS]
 *
 * Each round allocates, from seven callsites (one function each), objects
 * of six types of 16 B to 64 KiB: a type's objects come from its own
 * callsite, and type 1 also from a seventh callsite that keeps every
 * object it makes (the leak).  The other callsites keep only their last
 * objects in a ring, so that every type holds live bytes at the end.  The
 * program knows the truth (granted bytes allocated per type and callsite,
 * live bytes at the round's last collection: what its rings and the leak
 * hold) and compares the profile's estimates (GC_acc_get_type_stats and
 * GC_acc_get_site_stats) with it.
 *
 * Judged are the types and callsites with at least 5% of the round's
 * live bytes (live estimates) or of its allocated bytes (allocated
 * estimates).  The workload gives every judged figure at least 400
 * expected samples at 4 KiB (the program computes the expectation, sum
 * of 1 - exp(-s/R) over the objects behind each figure, and fails if one
 * falls short); the test samples at SAMPLE_BYTES, 1 KiB, four times as
 * often.  Each judged estimate must lie within the bound of
 * tests/stat_bound.h (Bernstein's inequality over the objects behind the
 * figure, their sizes and the rate; some 16% at 1,600 samples) of the
 * truth, every figure of every round (issue 34: a fixed 10%, with 19
 * rounds of 20 to pass, still failed by chance about once in thousands
 * of runs).  The bound is taken at P_FIGURE, the budget of 1e-7 spread
 * over every figure both modes of test_sampled.sh judge at most: a
 * right sampler fails this test less than once in ten million runs.
 *
 * explicit: types by GC_acc_malloc_typed.  word0: types from word 0 (a
 * pointer to a class struct, written right after GC_malloc returns, as
 * IL2CPP does), in kinds named by GC_acc_set_first_word_type_kinds.
 * Every round starts the profile afresh (off, then sampled) and uses
 * types of its own, so rounds are independent; callsite figures are
 * taken as differences across the round.
 */

#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../stat_bound.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_BYTES 1024
#define N_TYPES 6
#define N_SITES 7
#define MAX_ROUNDS 20
#define RING 256
/* Each figure's share of the chance-failure budget, 1e-7 over both    */
/* modes, every round and (at most) every type and callsite twice.      */
#define P_FIGURE (1e-7 / (2.0 * MAX_ROUNDS * 2 * (N_TYPES + N_SITES)))

static const size_t type_size[N_TYPES] = { 16, 48, 256, 2000, 8192, 65536 };
/* Bytes each callsite allocates in a round, and its ring of live objects */
/* (objects kept: the last ring[i]; site 6 keeps all).                    */
/* Chosen so that every judged figure has at least 400 expected samples */
/* at SAMPLE_BYTES (the 64 KiB type holds under 5% of the live bytes:   */
/* judged on its allocations only).                                      */
static const size_t site_bytes[N_SITES] = {
  6 << 20, 6 << 20, 5 << 20, 5 << 20, 5 << 20, 30 << 20, 3 << 20
};
static const unsigned site_ring[N_SITES] = { 120000, 40000, 8000, 1500,
                                             600, 8, 0 };

struct klass { char name[32]; };
static struct klass klasses[MAX_ROUNDS][N_TYPES];
static int word0;

struct truth {
  double alloc_bytes, live_bytes;
  double exp_alloc, exp_live;           /* expected samples              */
  struct sb_sum sb_alloc, sb_live;      /* behind each figure (bounds)   */
};

static void **rings[N_SITES];
static unsigned ring_n[N_SITES];
static void **leak;
static size_t leak_n, leak_cap;

/* Granted bytes as the books count them (docs/dump-format.md): the     */
/* slot of a small object, whole heap blocks for a large one.            */
#define MAX_SMALL 2048
#define BLOCK 4096
static size_t granted(void *p)
{
  size_t g = GC_size(p);

  return g <= MAX_SMALL ? g : (g + BLOCK - 1) / BLOCK * BLOCK;
}

#define SAMPLE_BYTES_400 4096    /* where the 400 samples are counted  */
static double sample_p(size_t s)
{
  return 1.0 - exp(-(double)s / SAMPLE_BYTES_400);
}

static void *alloc_typed(size_t sz, unsigned round, unsigned t)
{
  void *p;

  if (word0) {
    p = GC_malloc(sz);
    if (p != NULL) *(struct klass **)p = &klasses[round][t];
  } else {
    p = GC_acc_malloc_typed(sz, (GC_word)&klasses[round][t]);
  }
  return p;
}

/* One callsite per function, kept apart (noinline, noclone).          */
#define SITE_FN(i) \
  static __attribute__((noinline, noclone)) void *site_##i( \
      size_t sz, unsigned round, unsigned t) \
  { \
    void *p = alloc_typed(sz, round, t); \
    __asm__ __volatile__("" : : "r"(p) : "memory"); \
    return p; \
  }
SITE_FN(0) SITE_FN(1) SITE_FN(2) SITE_FN(3) SITE_FN(4) SITE_FN(5) SITE_FN(6)
typedef void *(*site_fn)(size_t, unsigned, unsigned);
static const site_fn site_fns[N_SITES] = { site_0, site_1, site_2, site_3,
                                           site_4, site_5, site_6 };
static const unsigned site_type[N_SITES] = { 0, 1, 2, 3, 4, 5, 1 };

/* The site id whose innermost frame lies in callsite function i's body: */
/* the function whose start is the nearest below the frame.              */
static unsigned site_owner(GC_word ra)
{
  unsigned i, best = N_SITES;
  GC_word best_start = 0;

  for (i = 0; i < N_SITES; i++) {
    GC_word f = (GC_word)site_fns[i];

    if (f <= ra && f >= best_start && ra - f < 4096) {
      best_start = f;
      best = i;
    }
  }
  return best;
}

static void site_ids(unsigned ids[N_SITES][8], unsigned n_ids[N_SITES])
{
  unsigned id, i;
  GC_word frames[4];

  memset(n_ids, 0, N_SITES * sizeof(unsigned));
  for (id = 2;; id++) {
    int n = GC_acc_site_frames(id, frames, 4);

    if (n < 0) break;
    for (i = 0; i < (unsigned)n && i < 4; i++) {
      unsigned s = site_owner(frames[i]);

      if (s < N_SITES) {
        if (n_ids[s] < 8) ids[s][n_ids[s]++] = id;
        break;
      }
    }
  }
}

static void site_sums(double alloc[N_SITES], double live[N_SITES])
{
  unsigned ids[N_SITES][8], n_ids[N_SITES], i, j;

  site_ids(ids, n_ids);
  for (i = 0; i < N_SITES; i++) {
    alloc[i] = live[i] = 0;
    for (j = 0; j < n_ids[i]; j++) {
      struct GC_acc_group_stats_s s;

      if (GC_acc_get_site_stats(ids[i][j], &s, sizeof(s)) == sizeof(s)) {
        alloc[i] += (double)s.alloc_bytes;
        live[i] += (double)s.live_bytes;
      }
    }
  }
}

/* est within the bound of the objects behind the figure (sb).         */
static int near(double est, double truth, const struct sb_sum *sb,
                const char *what, unsigned i, unsigned round)
{
  double bound = sb_bound(sb, SAMPLE_BYTES, P_FIGURE);

  if (truth > 0 && fabs(est - truth) <= bound) return 1;
  fprintf(stderr, "round %u: %s %u: estimate %.0f, truth %.0f (%+.1f%%,"
          " bound %.1f%%)\n", round, what, i, est, truth,
          truth > 0 ? 100 * (est - truth) / truth : 0,
          truth > 0 ? 100 * bound / truth : 0);
  return 0;
}

static int run_round(unsigned round)
{
  struct truth tt[N_TYPES], ts[N_SITES];
  double s_alloc0[N_SITES], s_live0[N_SITES], s_alloc1[N_SITES],
         s_live1[N_SITES];
  double all_alloc = 0, all_live = 0;
  unsigned i, ok = 1;
  size_t done[N_SITES];

  memset(tt, 0, sizeof(tt));
  memset(ts, 0, sizeof(ts));
  CHECK(GC_acc_set_profile(GC_ACC_PROFILE_OFF, 0) == GC_SUCCESS);
  CHECK(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, SAMPLE_BYTES)
        == GC_SUCCESS);
  site_sums(s_alloc0, s_live0);
  for (i = 0; i < N_SITES; i++) done[i] = 0;
  /* Interleave the callsites, a few objects at a time.                 */
  for (;;) {
    int more = 0;

    for (i = 0; i < N_SITES; i++) {
      unsigned t = site_type[i], k;
      size_t sz = type_size[t];

      for (k = 0; k < 16 && done[i] < site_bytes[i]; k++) {
        void *p = site_fns[i](sz, round, t);
        size_t g = granted(p);

        done[i] += sz;
        tt[t].alloc_bytes += (double)g;
        ts[i].alloc_bytes += (double)g;
        tt[t].exp_alloc += sample_p(g);
        ts[i].exp_alloc += sample_p(g);
        sb_add(&tt[t].sb_alloc, (double)g, SAMPLE_BYTES);
        sb_add(&ts[i].sb_alloc, (double)g, SAMPLE_BYTES);
        if (0 == site_ring[i]) {
          if (leak_n == leak_cap) abort();      /* sized in main        */
          leak[leak_n++] = p;
        } else {
          rings[i][ring_n[i]++ % site_ring[i]] = p;
        }
      }
      if (done[i] < site_bytes[i]) more = 1;
    }
    if (!more) break;
  }
  GC_gcollect();
  /* The truth of live: what the rings and the leak hold now.           */
  for (i = 0; i < N_SITES; i++) {
    unsigned t = site_type[i], n, j;
    void **objs = site_ring[i] ? rings[i] : leak;

    n = site_ring[i] ? (ring_n[i] < site_ring[i] ? ring_n[i] : site_ring[i])
                     : (unsigned)leak_n;
    for (j = 0; j < n; j++) {
      size_t g = granted(objs[j]);

      tt[t].live_bytes += (double)g;
      ts[i].live_bytes += (double)g;
      tt[t].exp_live += sample_p(g);
      ts[i].exp_live += sample_p(g);
      sb_add(&tt[t].sb_live, (double)g, SAMPLE_BYTES);
      sb_add(&ts[i].sb_live, (double)g, SAMPLE_BYTES);
    }
  }
  site_sums(s_alloc1, s_live1);
  for (i = 0; i < N_TYPES; i++) {
    all_alloc += tt[i].alloc_bytes;
    all_live += tt[i].live_bytes;
  }
  for (i = 0; i < N_TYPES; i++) {
    struct GC_acc_group_stats_s s;

    if (!CHECK(GC_acc_get_type_stats((GC_word)&klasses[round][i], &s,
                                     sizeof(s)) == sizeof(s)))
      return 0;
    if (tt[i].alloc_bytes >= 0.05 * all_alloc) {
      CHECK(tt[i].exp_alloc >= 400);
      ok &= near((double)s.alloc_bytes, tt[i].alloc_bytes, &tt[i].sb_alloc,
                 "type alloc", i, round);
    }
    if (tt[i].live_bytes >= 0.05 * all_live) {
      CHECK(tt[i].exp_live >= 400);
      ok &= near((double)s.live_bytes, tt[i].live_bytes, &tt[i].sb_live,
                 "type live", i, round);
    }
  }
  for (i = 0; i < N_SITES; i++) {
    if (ts[i].alloc_bytes >= 0.05 * all_alloc) {
      CHECK(ts[i].exp_alloc >= 400);
      ok &= near(s_alloc1[i] - s_alloc0[i], ts[i].alloc_bytes,
                 &ts[i].sb_alloc, "site alloc", i, round);
    }
    if (ts[i].live_bytes >= 0.05 * all_live) {
      CHECK(ts[i].exp_live >= 400);
      ok &= near(s_live1[i], ts[i].live_bytes, &ts[i].sb_live, "site live",
                 i, round);
    }
  }
  /* Leave nothing for the next round.                                   */
  for (i = 0; i < N_SITES; i++) {
    if (rings[i] != NULL) memset(rings[i], 0, site_ring[i] * sizeof(void *));
    ring_n[i] = 0;
  }
  leak_n = 0;
  return ok;
}

int main(int argc, char **argv)
{
  unsigned rounds = MAX_ROUNDS, r, passed = 0, i;

  word0 = argc > 1 && strcmp(argv[1], "word0") == 0;
  if (argc > 2) rounds = (unsigned)atoi(argv[2]);
  if (rounds < 1 || rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
  GC_INIT();
  GC_acc_enable(1);
  if (word0)
    GC_acc_set_first_word_type_kinds((1u << 0) | (1u << 1)); /* ptrfree, normal */
  for (i = 0; i < N_SITES; i++) {
    if (site_ring[i]) {
      rings[i] = calloc(site_ring[i], sizeof(void *));
      if (NULL == rings[i]) abort();
      /* Scanned: the rings are what keeps the ring objects live.       */
      GC_add_roots(rings[i], rings[i] + site_ring[i]);
    }
  }
  leak_cap = (size_t)(site_bytes[6] / type_size[1]) + 16;
  leak = calloc(leak_cap, sizeof(void *));
  if (NULL == leak) abort();
  GC_add_roots(leak, leak + leak_cap);
  for (r = 0; r < rounds; r++) {
    int ok = run_round(r);

    passed += ok != 0;
  }
  printf("%s: %u of %u rounds within the bounds (rate %d bytes)\n",
         word0 ? "word0" : "explicit", passed, rounds, SAMPLE_BYTES);
  CHECK_EQ(passed, rounds);
  return check_done("test_sampled");
}
