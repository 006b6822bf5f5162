/* SPDX-License-Identifier: MIT */
/*
 * test_resident.c: a record's resident bytes (mincore over the heap's
 * sections) are sampled by the dump's writer thread, not in the
 * collector's pause, where they took most of a record's time (some
 * 0.7 ms on a 0.7 GB heap).
 *
 * mincore is interposed: each call is noted with its address and
 * whether the collecting (main) thread made it.  A dump runs over 12
 * collections, some 120 ms apart (the sample's period is 100 ms), of a
 * heap that grows three times and is filled, so that samples are due,
 * then in 24 more sections (past the 16 whose bounds the table block
 * holds for the writer's copy).
 * Then:
 * 1. After the first collection (whose record takes its sample in
 *    place, once: the test API counts such samples), the main thread
 *    makes no call over the collector's heap, and the writer makes some.
 * 2. Every collection record's resident_bytes is above 0 and at most
 *    its reserved_bytes, and the last one's exceeds the first one's
 *    (the writer's samples reach the records).
 *
 * Linux only (mincore and the syscall it forwards to); elsewhere it
 * skips (exit 77).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/mman.h>
# include <sys/syscall.h>
#endif

/* Test-only entry of freelist.c (not in gc_accounting.h).              */
GC_API unsigned long GC_CALL GC_acc_test_resident_in_place(void);

#define MAX_CALLS 65536
static struct call { void *addr; int on_main; } calls[MAX_CALLS];
static unsigned long n_calls = 0;
static pthread_t main_thread;

#ifdef __linux__
int mincore(void *addr, size_t len, unsigned char *vec)
{
  unsigned long i = __atomic_fetch_add(&n_calls, 1, __ATOMIC_RELAXED);

  if (i < MAX_CALLS) {
    calls[i].addr = addr;
    calls[i].on_main = pthread_equal(pthread_self(), main_thread);
  }
  return (int)syscall(SYS_mincore, addr, len, vec);
}
#endif

struct recs {
  long n;
  unsigned long long first_resident, last_resident;
  int bad;
};

static void each_rec(json_t *rec, size_t index, void *arg)
{
  struct recs *r = (struct recs *)arg;
  json_t *heap = json_object_get(rec, "heap");
  const char *kind = json_string_value(json_object_get(rec, "record"));
  unsigned long long res, rsd;

  (void)index;
  if (NULL == kind || strcmp(kind, "collection") != 0) return;
  res = (unsigned long long)json_integer_value(
                                json_object_get(heap, "reserved_bytes"));
  rsd = (unsigned long long)json_integer_value(
                                json_object_get(heap, "resident_bytes"));
  if (0 == rsd || rsd > res) {
    if (r->bad++ < 5)
      fprintf(stderr, "  record %ld: resident %llu, reserved %llu\n",
              r->n, rsd, res);
  }
  if (0 == r->n) r->first_resident = rsd;
  r->last_resident = rsd;
  r->n++;
}

static void sleep_ms(long ms)
{
  struct timespec ts;

  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

int main(void)
{
  char path[] = "/tmp/gcacc-resident-XXXXXX";
  unsigned long i, n, main_heap = 0, other_heap = 0, in_place;
  unsigned long first_end = 0;
  struct recs r = { 0, 0, 0, 0 };
  struct dc_result res;
  void **keep;
  int c;

#ifndef __linux__
  printf("test_resident: not Linux: skipped\n");
  return 77;
#endif
  main_thread = pthread_self();
  GC_INIT();
  keep = (void **)GC_MALLOC(4096 * sizeof(void *));
  CHECK(keep != NULL);
  CHECK(dc_temp_file(path));
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (c = 0; c < 12; c++) {
    if (c % 4 == 1) (void)GC_expand_hp(8 << 20);
    /* Fill some of it: 4 MiB of live objects a round, kept.            */
    for (i = 0; i < 1024; i++)
      keep[(c * 1024 + i) % 4096] = GC_MALLOC_ATOMIC(4096);
    GC_gcollect();
    if (0 == c) first_end = __atomic_load_n(&n_calls, __ATOMIC_RELAXED);
    sleep_ms(120);
  }
  /* More sections than the table block holds (GCA_RESIDENT_SECTS, 16): */
  /* the copy moves to pages of its own, and samples go on.             */
  for (c = 0; c < 24; c++) (void)GC_expand_hp(64 << 10);
  for (c = 0; c < 2; c++) {
    GC_gcollect();
    sleep_ms(120);
  }
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  /* 1. Who sampled the heap.                                          */
  n = n_calls < MAX_CALLS ? n_calls : MAX_CALLS;
  for (i = first_end; i < n; i++) {
    if (!GC_is_heap_ptr(calls[i].addr)) continue;
    if (calls[i].on_main) main_heap++; else other_heap++;
  }
  in_place = GC_acc_test_resident_in_place();
  printf("test_resident: heap calls %lu on the collecting thread, %lu on"
         " the writer; %lu sample(s) in place\n", main_heap, other_heap,
         in_place);
  CHECK_EQ(in_place, 1);
  if (!CHECK_EQ(main_heap, 0))
    fprintf(stderr, "  the collecting thread sampled the heap %lu times\n",
            main_heap);
  CHECK(other_heap > 0);

  /* 2. The records' figures.                                          */
  res = dc_read_file(path, each_rec, &r);
  json_decref(res.first);
  CHECK(r.n >= 12);
  CHECK_EQ(r.bad, 0);
  if (!CHECK(r.last_resident > r.first_resident))
    fprintf(stderr, "  resident %llu in the first record, %llu in the"
            " last\n", r.first_resident, r.last_resident);
  (void)unlink(path);
  return check_done("test_resident");
}
