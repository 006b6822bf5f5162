/* SPDX-License-Identifier: MIT */
/*
 * retainheap.c: the cost of a retention request (issue 37) on a live
 * heap of a given size, for `make bench-retain` (bench/retain.sh).
 *
 *   retainheap MB near|far
 *
 * builds MB megabytes of live 128-byte "Node" objects in lists of
 * LIST_LEN from a GC_MALLOC'd array of heads held by a static, then:
 *   near: five "Leak" objects hang from the first list's head (depth 2):
 *         the walk stops at once, after the roots;
 *   far:  one "Leak" object ends the last list: breadth first, it is the
 *         last object reached, so the walk covers the whole live heap
 *         (or stops at GC_ACC_RETAIN_MEMORY, "partial").
 * Each run collects once without a request (the baseline pause), then
 * asks for "Leak" and collects again.  The dump's records say the rest
 * (retain.sh reads pause_ns, memory_bytes, visited, partial, and the
 * collections' mark times).  Prints "live_bytes N" (what it built).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../tests/retain/lists.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
  size_t mb, n_nodes, n_lists, j;
  int far;
  double t0, t1, t2;

  if (argc != 3 || (mb = strtoul(argv[1], NULL, 10)) == 0
      || (strcmp(argv[2], "near") != 0 && strcmp(argv[2], "far") != 0)) {
    fprintf(stderr, "usage: retainheap MB near|far\n");
    return 2;
  }
  far = strcmp(argv[2], "far") == 0;
  GC_INIT();
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "retainheap: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  GC_acc_set_type_namer(lists_namer);
  GC_expand_hp(mb << 20);
  n_nodes = (mb << 20) / NODE_BYTES;
  n_lists = (n_nodes + LIST_LEN - 1) / LIST_LEN;
  build_lists(n_lists);
  if (far) {
    struct node *n = heads[n_lists - 1];

    while (n->next != NULL) n = n->next;
    n->next = new_node(C_LEAK, 0);
  } else {
    for (j = 0; j < 5; j++) {
      struct node *l = new_node(C_LEAK, j);

      l->next = heads[0]->next;
      heads[0]->next = l;
    }
  }
  t0 = now_ms();
  GC_gcollect();                        /* baseline                    */
  t1 = now_ms();
  if (GC_acc_retain_request("Leak", 0, 0) != GC_SUCCESS) return 1;
  GC_gcollect();                        /* with the request            */
  t2 = now_ms();
  printf("live_bytes %lu\nnodes %lu\ngc_ms %.1f\ngc_with_request_ms %.1f\n",
         (unsigned long)(n_nodes * NODE_BYTES), (unsigned long)n_nodes,
         t1 - t0, t2 - t1);
  return heads[0] == NULL;
}
