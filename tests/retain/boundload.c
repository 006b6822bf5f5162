/* SPDX-License-Identifier: MIT */
/*
 * boundload.c: a retention walk against its time bound (issue 37), for
 * tests/retain/bound.sh.
 *
 *   boundload MB PAUSE_MS
 *
 * builds MB megabytes of lists side by side (lists.h), appends one
 * "Leak" to each of the last LEAKS lists, sets the walk's bound to
 * PAUSE_MS (GC_acc_set_retain_pause) and asks for Leak at the next
 * collection.  Prints, as `name value` lines, what it built:
 * `heads_var` (&heads), `heads_array`, `nodes` (all objects built),
 * `list_len`, and per leak `leak LIST ADDR`.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"
#include "lists.h"

#include <stdio.h>
#include <stdlib.h>

#define LEAKS 5

static NOINLINE void build(size_t n_lists)
{
  size_t i;

  build_lists(n_lists);
  for (i = n_lists - LEAKS; i < n_lists; i++) {
    struct node *n = heads[i];

    while (n->next != NULL) n = n->next;
    n->next = new_node(C_LEAK, i);
    printf("leak %lu %p\n", (unsigned long)i, (void *)n->next);
  }
}

int main(int argc, char **argv)
{
  size_t mb, n_lists;
  unsigned pause;

  if (argc != 3 || (mb = strtoul(argv[1], NULL, 10)) == 0) {
    fprintf(stderr, "usage: boundload MB PAUSE_MS\n");
    return 2;
  }
  pause = (unsigned)strtoul(argv[2], NULL, 10);
  GC_INIT();
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "boundload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  if (GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0) != GC_SUCCESS) return 1;
  GC_acc_set_type_namer(lists_namer);
  if (GC_acc_set_retain_pause(pause) != GC_SUCCESS) return 1;
  GC_expand_hp(mb << 20);
  n_lists = (mb << 20) / NODE_BYTES / LIST_LEN;
  build(n_lists);
  printf("heads_var %p\nheads_array %p\nnodes %lu\nlist_len %d\n",
         (void *)&heads, (void *)heads,
         (unsigned long)(n_lists * LIST_LEN + LEAKS), LIST_LEN);
  collect();            /* the census counts Leak                      */
  if (GC_acc_retain_request("Leak", 0, 0) != GC_SUCCESS) return 1;
  collect();
  return heads[0] == NULL;
}
