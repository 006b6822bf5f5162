/* SPDX-License-Identifier: MIT */
/*
 * longload.c: a long session for the report's browser test
 * (tests/browser/report_views.sh): many frames, a collection or more in
 * each, many types and callsites, and spikes at frames known in advance.
 *
 *   longload FRAMES GCS_PER_FRAME
 *
 * Every frame allocates from one of PATHS call paths (a callsite each,
 * every stack captured), objects of a few of TYPES explicit types
 * ("Long.Type00" .. "Long.Type23"), keeps a ring of them alive, leaks
 * LEAK_PER_FRAME objects of type "Long.Leak" from leak_path() (a list
 * kept for ever), marks the frame (GC_acc_frame) and collects
 * GCS_PER_FRAME times.  Every SPIKE_EVERY frames, from SPIKE_OFFSET on,
 * a spike: SPIKE_OBJS more objects of type "Long.Spike" from
 * spike_path(), pointer-free (a second kind in the frame), dropped at
 * once.  Prints, as `name value` lines: `spike
 * FRAME` per spike frame, `frames N`, `spike_type Long.Spike`,
 * `spike_function spike_path`, `leak_type Long.Leak`, `leak_function
 * leak_path`.  The dump goes where GC_ACC_DUMP says, the profile is
 * GC_ACC_PROFILE's (trace: exact, every stack; sampled: estimates).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>

#define TYPES 24
#define PATHS 8
#define PER_FRAME 40
#define RING 512
#define SPIKE_EVERY 997
#define SPIKE_OFFSET 500
#define SPIKE_OBJS 4000
#define SPIKE_BYTES 256
#define LEAK_PER_FRAME 2
#define LEAK_BYTES 256
#define COOKIE0 ((GC_word)0x70000)
#define SPIKE_COOKIE ((GC_word)0x7ffff)
#define LEAK_COOKIE ((GC_word)0x7fffe)

static void *volatile ring[RING];
static unsigned ring_next;
static void **leaked;                   /* a list: word 0 the next      */

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  if (cookie == SPIKE_COOKIE || cookie == LEAK_COOKIE) {
    snprintf(buf, sz, cookie == SPIKE_COOKIE ? "Long.Spike" : "Long.Leak");
    return 1;
  }
  if (cookie < COOKIE0 || cookie >= COOKIE0 + TYPES) return 0;
  snprintf(buf, sz, "Long.Type%02u", (unsigned)(cookie - COOKIE0));
  return 1;
}

static NOINLINE void alloc_some(unsigned f, unsigned path)
{
  unsigned i;

  for (i = 0; i < PER_FRAME; i++) {
    unsigned t = (f + path * 3 + i % 3) % TYPES;
    void *p = GC_acc_malloc_typed(16 + 16 * (size_t)(t % 7), COOKIE0 + t);

    if (i % 4 == 0) {
      ring[ring_next] = p;
      ring_next = (ring_next + 1) % RING;
    }
  }
}

/* PATHS distinct callers of alloc_some: a callsite each.               */
#define PATH(n) static NOINLINE void path##n(unsigned f) \
  { alloc_some(f, n); __asm__ volatile("" ::: "memory"); }
PATH(0) PATH(1) PATH(2) PATH(3) PATH(4) PATH(5) PATH(6) PATH(7)
static void (*const paths[PATHS])(unsigned) = {
  path0, path1, path2, path3, path4, path5, path6, path7
};

static NOINLINE void leak_path(void)
{
  unsigned i;

  for (i = 0; i < LEAK_PER_FRAME; i++) {
    void **p = GC_acc_malloc_typed(LEAK_BYTES, LEAK_COOKIE);

    p[0] = leaked;
    leaked = p;
  }
}

static NOINLINE void spike_path(void)
{
  unsigned i;

  for (i = 0; i < SPIKE_OBJS; i++)
    (void)GC_acc_malloc_atomic_typed(SPIKE_BYTES, SPIKE_COOKIE);
}

int main(int argc, char **argv)
{
  unsigned long frames, gcs, f, g;

  if (argc != 3 || (frames = strtoul(argv[1], NULL, 10)) == 0
      || (gcs = strtoul(argv[2], NULL, 10)) == 0) {
    fprintf(stderr, "usage: longload FRAMES GCS_PER_FRAME\n");
    return 2;
  }
  GC_INIT();
  GC_TEST_ROOT(ring);
  GC_acc_set_type_namer(namer);
  if (GC_acc_frame((GC_word)-1) != GC_SUCCESS) {
    fprintf(stderr, "longload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  for (f = 0; f < frames; f++) {
    paths[f % PATHS]((unsigned)f);
    leak_path();
    if (f % SPIKE_EVERY == SPIKE_OFFSET) {
      spike_path();
      printf("spike %lu\n", f);
    }
    if (GC_acc_frame((GC_word)f) != GC_SUCCESS) {
      fprintf(stderr, "longload: GC_acc_frame failed\n");
      return 1;
    }
    for (g = 0; g < gcs; g++) GC_gcollect();
  }
  printf("frames %lu\nspike_type Long.Spike\nspike_function spike_path\n"
         "leak_type Long.Leak\nleak_function leak_path\n", frames);
  return GC_acc_dump_stop() == GC_SUCCESS ? 0 : 1;
}
