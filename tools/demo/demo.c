/*
 * demo.c: the README's main job.  A small game-like workload: frames of
 * short-lived objects (small structs, strings, arrays) with a slowly growing
 * retained set, a collection every few frames; then it prints what the
 * accounting counted.  Run it with GC_ACC_ENABLE=1 or it switches accounting
 * on itself through the C API.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <string.h>

#define FRAMES 300
#define PER_FRAME 2000

struct node { struct node *next; int payload[6]; };

static struct node *retained;

static void frame(int f)
{
  int i;

  for (i = 0; i < PER_FRAME; i++) {
    struct node *n = GC_MALLOC(sizeof(struct node));
    char *s = GC_MALLOC_ATOMIC(16 + (size_t)(i % 48));

    memcpy(s, "frame-string", 13);
    if (i % 100 == 0) {
      int *arr = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)(64 + f % 512));
      arr[0] = f;
    }
    if (i % 500 == 0) {         /* a slowly growing retained set */
      n->next = retained;
      retained = n;
    }
  }
  if (f % 20 == 0) GC_gcollect();
}

int main(void)
{
  struct GC_acc_stats_s s;
  int f;

  GC_INIT();
  if (!GC_acc_is_enabled() && GC_acc_enable(1) != GC_SUCCESS) {
    fprintf(stderr, "gcacc-demo: this libgc was built without accounting\n");
    return 1;
  }
  for (f = 0; f < FRAMES; f++) frame(f);
  GC_gcollect();
  GC_acc_get_stats(&s, sizeof(s));
  printf("gcacc demo: %d frames\n", FRAMES);
  printf("  objects allocated   %lu\n", (unsigned long)s.allocs);
  printf("  bytes requested     %lu\n", (unsigned long)s.alloc_req_bytes);
  printf("  bytes granted       %lu\n", (unsigned long)s.alloc_granted_bytes);
  printf("  rounding waste      %lu bytes (%.1f%%)\n",
         (unsigned long)(s.alloc_granted_bytes - s.alloc_req_bytes),
         s.alloc_granted_bytes
           ? 100.0 * (double)(s.alloc_granted_bytes - s.alloc_req_bytes)
                 / (double)s.alloc_granted_bytes : 0.0);
  printf("  collections         %lu\n", (unsigned long)s.collections);
  printf("  heap growths        %lu\n", (unsigned long)s.heap_grows);
  printf("  heap size           %lu bytes\n", (unsigned long)GC_get_heap_size());
  return 0;
}
