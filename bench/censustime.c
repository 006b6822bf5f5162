/* SPDX-License-Identifier: MIT */
/*
 * censustime.c: the census's time against the size of the heap.
 *
 *   censustime [-m MEGABYTES] [-r COLLECTIONS] [-s SEED] [-p] [-a]
 *
 * Builds a live heap of about MEGABYTES (default 22) MB: objects of 16 to
 * 512 bytes (three in four under 128, as bench/anchorloop.c), a tenth of
 * them pointer-free, each held by a pointer table, plus some garbage
 * between them, so that the census sees many size classes and kinds and
 * blocks with free slots, with collections disabled.  Then makes
 * COLLECTIONS (default 7) full collections (GC_gcollect), the run's only
 * ones, all of the same heap (a profile of the run, perf or callgrind,
 * shows the census's share of exactly those), and reads, after each,
 * the census's and the mark's time from GC_acc_get_stats.  Run with
 * GC_ACC_ENABLE=1 (the default profile: what an always-on session
 * pays).  Prints one line: heap_bytes, live_bytes, census_ns and mark_ns
 * (medians), the census in ms per GB of heap, and parallel (below).  bench/census-time.sh runs it at several sizes.
 * With -p a thread is started (and joined) first: bdwgc 8.2 starts its
 * parallel markers with a program's first thread, and with them the
 * census takes each block's live count from its mark bytes, not from the
 * collector's count (census.c); parallel= says which way ran.
 *
 * What the pause really pays: the census counts each block on the
 * collector's own reclaim walk (the ride), which census_ns does not
 * hold, and a dump's record is built after it.  So each collection's
 * end phase is timed too, from the collector's GC_EVENT_RECLAIM_START
 * to GC_EVENT_RECLAIM_END (free-list marks cleared, the reclaim walk
 * with the ride, the census, the record): reclaim_ns, its median.
 * With -a every round makes two collections of the same heap, one with
 * accounting on and one with it off (GC_acc_enable, the order swapped
 * from round to round), and pause_ns is the median of the rounds'
 * differences, on minus off: the ride, the census and the record
 * together, against the same walk without them (reclaim_off_ns the off
 * collections' median).  Timed in the collecting thread's CPU time,
 * where the system has it (CLOCK_THREAD_CPUTIME_ID), so that time the
 * thread spends descheduled on a loaded machine is left out; cache
 * misses still move the difference of two walks of a few ms by some
 * tenths of a ms from run to run.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng;

static uint32_t next(void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static long number(const char *opt, const char *s)
{
  char *end;
  long v = strtol(s, &end, 10);

  if (*s == '\0' || *end != '\0' || v <= 0) {
    fprintf(stderr, "censustime: %s wants a positive number, not '%s'\n",
            opt, s);
    exit(2);
  }
  return v;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

  return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, long n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *idle(void *arg)
{
  return arg;
}

/* The collecting thread's CPU time: the end phase runs on it alone,  */
/* and time it spends descheduled (a loaded machine) is not ours.      */
static uint64_t now_ns(void)
{
  struct timespec ts;

# ifdef CLOCK_THREAD_CPUTIME_ID
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
      return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
# endif
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The end phase of the last collection (GC_on_collection_event).      */
static uint64_t reclaim_t0, reclaim_last;

static void on_event(GC_EventType e)
{
  if (GC_EVENT_RECLAIM_START == e) reclaim_t0 = now_ns();
  else if (GC_EVENT_RECLAIM_END == e) reclaim_last = now_ns() - reclaim_t0;
}

/* A collection with accounting off: its end phase's time.            */
static uint64_t collect_off(void)
{
  GC_acc_enable(0);
  GC_gcollect();
  GC_acc_enable(1);
  return reclaim_last;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  long mb = 22, rounds = 7, seed = 1, i, n_slots;
  int par = 0, ab = 0;
  uint64_t want, have = 0, *census, *mark, *reclaim, *reclaim_off;
  int64_t *pays, pause = 0;
  struct GC_acc_stats_s st;
  void **slots;
  int a;

  for (a = 1; a < argc; a += 2) {
    if (strcmp(argv[a], "-p") == 0 || strcmp(argv[a], "-a") == 0) {
      if ('p' == argv[a][1]) par = 1; else ab = 1;
      a--;
      continue;
    }
    if (a + 1 == argc) break;
    if (strcmp(argv[a], "-m") == 0) mb = number("-m", argv[a + 1]);
    else if (strcmp(argv[a], "-r") == 0) rounds = number("-r", argv[a + 1]);
    else if (strcmp(argv[a], "-s") == 0) seed = number("-s", argv[a + 1]);
    else break;
  }
  if (a != argc) {
    fprintf(stderr, "usage: censustime [-m MEGABYTES] [-r COLLECTIONS]"
                    " [-s SEED] [-p] [-a]\n");
    return 2;
  }
  rng = 0x9E3779B97F4A7C15ULL * (uint64_t)seed;
  GC_INIT();
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "censustime: accounting is off: run with GC_ACC_ENABLE=1\n");
    return 2;
  }
  if (par) {
    pthread_t t;

    if (GC_pthread_create(&t, NULL, idle, NULL) != 0
        || GC_pthread_join(t, NULL) != 0) {
      fprintf(stderr, "censustime: cannot start a thread\n");
      return 1;
    }
  }
  want = (uint64_t)mb << 20;
  GC_disable();                 /* the heap is built without collecting */
  /* About 100 bytes an object on average: a table with room for all. */
  n_slots = (long)(want / 64) + 1024;
  slots = GC_MALLOC_UNCOLLECTABLE((size_t)n_slots * sizeof *slots);
  census = malloc((size_t)rounds * sizeof *census);
  mark = malloc((size_t)rounds * sizeof *mark);
  reclaim = malloc((size_t)rounds * sizeof *reclaim);
  reclaim_off = malloc((size_t)rounds * sizeof *reclaim_off);
  pays = malloc((size_t)rounds * sizeof *pays);
  if (slots == NULL || census == NULL || mark == NULL || reclaim == NULL
      || reclaim_off == NULL || pays == NULL) {
    fprintf(stderr, "censustime: cannot allocate the tables\n");
    return 1;
  }
  for (i = 0; i < n_slots && have < want; i++) {
    uint32_t r = next();
    size_t size = (r & 3) ? 16 + (r >> 8) % 112 : 128 + (r >> 8) % 385;
    void *p = (r >> 28) == 0 ? GC_MALLOC_ATOMIC(size) : GC_MALLOC(size);

    if (p == NULL) {
      fprintf(stderr, "censustime: out of memory after %llu bytes\n",
              (unsigned long long)have);
      return 1;
    }
    if ((r & 7) == 0) {            /* garbage: a free slot next time */
      i--;
      continue;
    }
    slots[i] = p;
    have += size;
  }
  GC_enable();
  GC_set_on_collection_event(on_event);
  for (i = 0; i < rounds; i++) {
    /* -a: the off collection first in odd rounds, last in even ones.  */
    if (ab && i % 2 != 0) reclaim_off[i] = collect_off();
    GC_gcollect();
    reclaim[i] = reclaim_last;
    if (GC_acc_get_stats(&st, sizeof st) < sizeof st) {
      fprintf(stderr, "censustime: GC_acc_get_stats gave too little\n");
      return 1;
    }
    census[i] = st.census_ns;
    mark[i] = st.mark_ns;
    if (ab && i % 2 == 0) reclaim_off[i] = collect_off();
    if (ab) pays[i] = (int64_t)reclaim[i] - (int64_t)reclaim_off[i];
  }
  if (ab) {
    qsort(pays, (size_t)rounds, sizeof *pays, cmp_i64);
    pause = rounds % 2 ? pays[rounds / 2]
                       : (pays[rounds / 2 - 1] + pays[rounds / 2]) / 2;
  }
  {
    uint64_t c = median(census, rounds), m = median(mark, rounds);
    uint64_t r = median(reclaim, rounds);
    double gb = (double)GC_get_heap_size() / (double)(1 << 30);

    printf("censustime heap_bytes=%lu live_bytes=%lu census_ns=%llu"
           " mark_ns=%llu census_ms_per_gb=%.3f reclaim_ns=%llu",
           (unsigned long)GC_get_heap_size(), (unsigned long)st.live_bytes,
           (unsigned long long)c, (unsigned long long)m,
           gb > 0 ? (double)c / 1e6 / gb : 0.0, (unsigned long long)r);
    if (ab)
      printf(" reclaim_off_ns=%llu pause_ns=%lld pause_ms_per_gb=%.3f",
             (unsigned long long)median(reclaim_off, rounds),
             (long long)pause, gb > 0 ? (double)pause / 1e6 / gb : 0.0);
    printf(" collections=%ld parallel=%d\n", ab ? 2 * rounds : rounds,
           GC_get_parallel());
  }
  return 0;
}
