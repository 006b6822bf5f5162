/* SPDX-License-Identifier: MIT */
/*
 * threads8.c: eight threads allocate through every path with a dump open
 * (tests/faults/threads_exact.sh reads the dump).
 *
 * Each thread allocates, in rounds, through the thread-local path
 * (GC_malloc, GC_malloc_atomic), the global path (large objects, and
 * uncollectable ones), the gcj allocator and GC_malloc_many, while the
 * main thread collects and takes snapshot records, so records are built
 * while threads count and fold.  Prints the number of objects allocated
 * per kind (`objs KIND N`) and in all (`objs_total N`), and the
 * collector's own cumulative counts after the last record (`acc_objs N`,
 * `acc_req N`, `acc_granted N`): the sums of every record's deltas must
 * equal those, the per-kind sums be at least the program's own, and no
 * delta may be a wrapped difference (2^64 - d).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#define GC_GCJ_SUPPORT
#include "gc.h"
#include "gc_gcj.h"
#include "gc_mark.h"
#include "gc_accounting.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8
#define ROUNDS 400

struct counts {
  unsigned long ptrfree, normal, uncollectable, gcj, total;
};

static struct counts per_thread[THREADS];
static void *vtable[4];         /* a gcj "class": word 1 the descriptor */
static volatile int stop_main;

static void *worker(void *arg)
{
  struct counts *c = (struct counts *)arg;
  int r, i;

  for (r = 0; r < ROUNDS; r++) {
    void *keep[16];
    void *list;

    for (i = 0; i < 16; i++) {
      keep[i] = GC_MALLOC(16 + 8 * (i % 8));           /* thread-local */
      c->normal++;
    }
    for (i = 0; i < 16; i++) {
      (void)GC_MALLOC_ATOMIC(24 + 16 * (i % 4));
      c->ptrfree++;
    }
    (void)GC_MALLOC(5000 + r % 3000);                   /* global, large */
    c->normal++;
    {
      void *u = GC_MALLOC_UNCOLLECTABLE(40);

      c->uncollectable++;
      GC_FREE(u);
    }
    for (i = 0; i < 8; i++) {
      (void)GC_gcj_malloc(32, vtable);
      c->gcj++;
    }
    list = GC_malloc_many(48);
    while (list != NULL) {
      c->normal++;
      list = GC_NEXT(list);
    }
    (void)keep;
  }
  c->total = c->ptrfree + c->normal + c->uncollectable + c->gcj;
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t[THREADS];
  struct counts sum = { 0, 0, 0, 0, 0 };
  int i;

  GC_INIT();
  GC_init_gcj_malloc(0, NULL);
  vtable[1] = (void *)(GC_word)0;   /* length descriptor: no pointers */
  if (argc > 1 && GC_acc_dump_start(argv[1]) != GC_SUCCESS) return 2;
  GC_allow_register_threads();
  for (i = 0; i < THREADS; i++)
    if (GC_pthread_create(&t[i], NULL, worker, &per_thread[i]) != 0)
      return 3;
  for (i = 0; i < 40 && !stop_main; i++) {
    GC_gcollect();
    (void)GC_acc_record_now();
  }
  for (i = 0; i < THREADS; i++) {
    (void)GC_pthread_join(t[i], NULL);
    sum.ptrfree += per_thread[i].ptrfree;
    sum.normal += per_thread[i].normal;
    sum.uncollectable += per_thread[i].uncollectable;
    sum.gcj += per_thread[i].gcj;
    sum.total += per_thread[i].total;
  }
  GC_gcollect();
  (void)GC_acc_record_now();
  printf("objs ptrfree %lu\nobjs normal %lu\nobjs uncollectable %lu\n"
         "objs gcj %lu\nobjs_total %lu\n", sum.ptrfree, sum.normal,
         sum.uncollectable, sum.gcj, sum.total);
  {
    /* Read after the last record, with no other thread left: the     */
    /* record's deltas summed must come to these.                      */
    struct GC_acc_stats_s st;

    (void)GC_acc_get_stats(&st, sizeof(st));
    printf("acc_objs %lu\nacc_req %lu\nacc_granted %lu\n",
           (unsigned long)st.allocs, (unsigned long)st.alloc_req_bytes,
           (unsigned long)st.alloc_granted_bytes);
  }
  return GC_acc_dump_stop() == GC_SUCCESS ? 0 : 4;
}
