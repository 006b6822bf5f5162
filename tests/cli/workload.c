/* SPDX-License-Identifier: MIT */
/*
 * workload.c: a frame loop with known answers for the gcacc CLI tests
 * (tests/cli/timeline.sh, top.sh, leaks.sh).  Every frame allocates
 * short-lived objects of several kinds and sizes, replaces RING_STEP of
 * the RING long-lived 1000-byte normal objects of a ring (churn, flat
 * live bytes), and fills a cache of 2000-byte pointer-free objects that
 * is dropped every CACHE_PERIOD frames (a sawtooth); a collection every
 * GC_EVERY frames and a snapshot record every SNAP_EVERY frames.
 *
 *   workload leak  [dump]   also keeps LEAK_PER_FRAME more 1000-byte
 *                           normal objects per frame, forever (the leak)
 *   workload steady [dump]  no growth
 *   workload typed [dump]   types, callsites and frames: three call paths
 *                           (typed_leak, typed_ring, typed_temp), each
 *                           allocating one explicit type (LeakNode,
 *                           RingNode, TempBuf) with every stack captured;
 *                           typed_leak keeps TYPED_LEAK_PER_FRAME more
 *                           objects per frame forever; GC_acc_frame(f)
 *                           after every frame f.  No other allocation.
 *   workload keep [dump]    build-then-keep (gcacc leaks: weak evidence,
 *                           not a leak): every frame adds KEEP_PER_FRAME
 *                           1000-byte normal objects and as many 48-byte
 *                           strings to data kept until exit, and allocates
 *                           nothing else (no churn)
 *   workload load [dump]    a loading phase that stops: the leak mode's
 *                           frames, keeping LEAK_PER_FRAME more objects
 *                           per frame for the first LOAD_FRAMES frames
 *                           only; then the same work keeping nothing more
 *   workload keep-frames, load-frames [dump]
 *                           the same, with GC_acc_frame(f) after every
 *                           frame f (the program says it repeats work)
 *
 * The dump goes where GC_ACC_DUMP says, or to the optional argument.
 * What the tests check against is printed on stdout as `name value`
 * lines: the leaking class's granted size and kind, and the objects of
 * that class kept reachable at the last collection.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define FRAMES 200
#define SHORT_PER_FRAME 1500
#define RING 300
#define RING_STEP 30
#define LEAK_BYTES 1000
#define LEAK_PER_FRAME 25
#define CACHE_BYTES 2000
#define CACHE_PER_FRAME 20
#define CACHE_PERIOD 40
#define GC_EVERY 4
#define SNAP_EVERY 10
#define KEEP_PER_FRAME 25
#define LOAD_FRAMES (FRAMES * 3 / 4)

struct node { struct node *next; void *data; };

/* Roots.  Volatile: stores nothing reads must not be optimized away.   */
static void *volatile ring[RING];
static struct node *leaked;
static void *volatile cache[CACHE_PERIOD * CACHE_PER_FRAME];
static unsigned long n_leaked;

static NOINLINE void frame(int f, int leak)
{
  int i;
  static unsigned ring_next;

  for (i = 0; i < SHORT_PER_FRAME; i++) {
    struct node *n = GC_MALLOC(sizeof(struct node));
    char *s = GC_MALLOC_ATOMIC(16 + (size_t)(i % 64));

    s[0] = 'x';
    n->data = s;
    if (i % 100 == 0) {
      int *arr = GC_MALLOC_ATOMIC(512);
      arr[0] = f;
    }
  }
  for (i = 0; i < RING_STEP; i++) {
    ring[ring_next] = GC_MALLOC(LEAK_BYTES);
    ring_next = (ring_next + 1) % RING;
  }
  if (f % CACHE_PERIOD == 0)
    for (i = 0; i < CACHE_PERIOD * CACHE_PER_FRAME; i++) cache[i] = NULL;
  for (i = 0; i < CACHE_PER_FRAME; i++)
    cache[(f % CACHE_PERIOD) * CACHE_PER_FRAME + i]
      = GC_MALLOC_ATOMIC(CACHE_BYTES);
  if (leak) {
    for (i = 0; i < LEAK_PER_FRAME; i++) {
      struct node *n = GC_MALLOC(LEAK_BYTES);

      n->next = leaked;
      leaked = n;
      n_leaked++;
    }
  }
}

/* Build-then-keep: data built once, kept, no garbage.                  */
static NOINLINE void build(void)
{
  int i;

  for (i = 0; i < KEEP_PER_FRAME; i++) {
    struct node *n = GC_MALLOC(LEAK_BYTES);

    n->data = GC_MALLOC_ATOMIC(48);
    ((char *)n->data)[0] = 'k';
    n->next = leaked;
    leaked = n;
    n_leaked++;
  }
}

/* ---- typed mode ------------------------------------------------------ */

#define TYPE_LEAK ((GC_word)0x1eaf0001)
#define TYPE_RING ((GC_word)0x41260002)
#define TYPE_TEMP ((GC_word)0x7e3f0003)
#define TYPED_LEAK_PER_FRAME 20
#define TYPED_RING_PER_FRAME 30
#define TYPED_TEMP_PER_FRAME 200
#define TYPED_TEMP_BYTES 48

static int GC_CALLBACK type_namer(GC_word cookie, char *buf, size_t sz)
{
  const char *name = cookie == TYPE_LEAK ? "LeakNode"
                     : cookie == TYPE_RING ? "RingNode"
                     : cookie == TYPE_TEMP ? "TempBuf" : NULL;

  if (name == NULL) return 0;
  snprintf(buf, sz, "%s", name);
  return 1;
}

/* The leaking path: explicit type through GC_acc_malloc_typed.         */
static NOINLINE void typed_leak(void)
{
  int i;

  for (i = 0; i < TYPED_LEAK_PER_FRAME; i++) {
    struct node *n = GC_acc_malloc_typed(LEAK_BYTES, TYPE_LEAK);

    n->next = leaked;
    leaked = n;
    n_leaked++;
  }
}

/* Churn: the ring's objects live RING / TYPED_RING_PER_FRAME frames;   */
/* the type through GC_acc_set_next_type.                               */
static NOINLINE void typed_ring(void)
{
  int i;
  static unsigned ring_next;

  for (i = 0; i < TYPED_RING_PER_FRAME; i++) {
    GC_acc_set_next_type(TYPE_RING);
    ring[ring_next] = GC_MALLOC(LEAK_BYTES);
    ring_next = (ring_next + 1) % RING;
  }
}

/* Short-lived, pointer-free.                                           */
static NOINLINE void typed_temp(int f)
{
  int i;

  for (i = 0; i < TYPED_TEMP_PER_FRAME; i++) {
    char *s = GC_acc_malloc_atomic_typed(TYPED_TEMP_BYTES, TYPE_TEMP);

    s[0] = (char)f;
  }
}

static int typed_main(void)
{
  int f;

  GC_acc_set_type_namer(type_namer);
  if (GC_acc_set_profile(GC_ACC_PROFILE_TRACE, 0) != GC_SUCCESS) {
    fprintf(stderr, "workload: cannot capture stacks\n");
    return 1;
  }
  /* The first marker starts per-frame counting (it writes no record), */
  /* so that frame 0 is counted too.                                    */
  if (GC_acc_frame((GC_word)-1) != GC_SUCCESS) {
    fprintf(stderr, "workload: GC_acc_frame failed\n");
    return 1;
  }
  for (f = 0; f < FRAMES; f++) {
    typed_temp(f);
    typed_ring();
    typed_leak();
    if (GC_acc_frame((GC_word)f) != GC_SUCCESS) {
      fprintf(stderr, "workload: GC_acc_frame failed\n");
      return 1;
    }
    if (f % GC_EVERY == GC_EVERY - 1) collect();
  }
  collect();
  printf("gc_no %lu\n", (unsigned long)GC_get_gc_no());
  printf("frames %d\n", FRAMES);
  printf("frame_objs %d\n", TYPED_LEAK_PER_FRAME + TYPED_RING_PER_FRAME
                            + TYPED_TEMP_PER_FRAME);
  printf("leak_type LeakNode\n");
  printf("leak_func typed_leak\n");
  printf("leaked_objs %lu\n", n_leaked);
  return GC_acc_dump_stop() == GC_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
  int f, leak, keep, load, frames;
  void *probe;
  static const char *const modes[] = {
    "leak", "steady", "typed", "keep", "load", "keep-frames", "load-frames"
  };

  for (f = 0; argc >= 2 && f < (int)(sizeof(modes) / sizeof(modes[0])); f++)
    if (strcmp(argv[1], modes[f]) == 0) break;
  if (argc < 2 || f == (int)(sizeof(modes) / sizeof(modes[0]))) {
    fprintf(stderr, "usage: workload leak|steady|typed|keep|load"
            "|keep-frames|load-frames [dump]\n");
    return 2;
  }
  leak = strcmp(argv[1], "leak") == 0;
  keep = strncmp(argv[1], "keep", 4) == 0;
  load = strncmp(argv[1], "load", 4) == 0;
  frames = strstr(argv[1], "-frames") != NULL;
  GC_INIT();
  if (argc > 2 && GC_acc_dump_start(argv[2]) != GC_SUCCESS) {
    fprintf(stderr, "workload: cannot start the dump %s\n", argv[2]);
    return 1;
  }
  if (!GC_acc_is_enabled() && GC_acc_enable(1) != GC_SUCCESS) {
    fprintf(stderr, "workload: this libgc was built without accounting\n");
    return 1;
  }
  if (strcmp(argv[1], "typed") == 0) return typed_main();
  /* leak and steady judge size classes alone: exact tags, no stacks.   */
  if (GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0) != GC_SUCCESS
      || GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0) != GC_SUCCESS) {
    fprintf(stderr, "workload: cannot set the full profile\n");
    return 1;
  }
  if (frames && GC_acc_frame((GC_word)-1) != GC_SUCCESS) {
    fprintf(stderr, "workload: GC_acc_frame failed\n");
    return 1;
  }
  for (f = 0; f < FRAMES; f++) {
    if (keep) build();
    else frame(f, leak || (load && f < LOAD_FRAMES));
    if (frames && GC_acc_frame((GC_word)f) != GC_SUCCESS) {
      fprintf(stderr, "workload: GC_acc_frame failed\n");
      return 1;
    }
    if (f % GC_EVERY == GC_EVERY - 1) collect();
    if (f % SNAP_EVERY == SNAP_EVERY - 1) GC_acc_record_now();
  }
  collect();
  printf("gc_no %lu\n", (unsigned long)GC_get_gc_no());
  probe = GC_MALLOC(LEAK_BYTES);
  printf("leak_kind 1\n");
  printf("leak_class_bytes %lu\n", (unsigned long)GC_size(probe));
  printf("leak_class %u\n", GC_acc_size_class(GC_size(probe)));
  printf("leaked_objs %lu\n", n_leaked);
  printf("kept_objs %lu\n", n_leaked + (keep ? 0 : RING));
  return GC_acc_dump_stop() == GC_SUCCESS ? 0 : 1;
}
