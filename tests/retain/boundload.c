/* SPDX-License-Identifier: MIT */
/*
 * boundload.c: a retention walk against its time bound (issue 37), for
 * tests/retain/bound.sh.
 *
 *   boundload MB PAUSE_MS
 *
 * builds MB megabytes of 128-byte "B.Node" objects in lists of LIST_LEN
 * from a GC_MALLOC'd array of heads held by the static `heads` (lists
 * side by side: breadth first, each level touches a page an object),
 * appends one "B.Leak" to each of the last LEAKS lists, sets the walk's
 * bound to PAUSE_MS (GC_acc_set_retain_pause) and asks for B.Leak at the
 * next collection.  Prints, as `name value` lines, what it built:
 * `heads_var` (&heads), `heads_array`, `nodes` (all objects built),
 * `list_len`, and per leak `leak LIST ADDR`.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>

#define NODE_BYTES 128
#define LIST_LEN 64
#define LEAKS 5
#define C_NODE 0xb001
#define C_LEAK 0xb002

struct node {
  GC_word id;
  struct node *next;
  GC_word data[NODE_BYTES / sizeof(GC_word) - 2];
};

struct node **heads;    /* not static: in the symbol table */

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  if (cookie == C_NODE) snprintf(buf, sz, "B.Node");
  else if (cookie == C_LEAK) snprintf(buf, sz, "B.Leak");
  else return 0;
  return 1;
}

static struct node *new_node(GC_word type, GC_word id)
{
  struct node *n = (struct node *)GC_acc_malloc_typed(sizeof(*n), type);

  if (NULL == n) {
    fprintf(stderr, "boundload: out of memory\n");
    exit(1);
  }
  n->id = id;
  return n;
}

static NOINLINE void build(size_t n_lists)
{
  size_t i, j;

  heads = (struct node **)GC_MALLOC(n_lists * sizeof(*heads));
  if (NULL == heads) exit(1);
  for (i = 0; i < n_lists; i++) {
    struct node *h = NULL;

    for (j = 0; j < LIST_LEN; j++) {
      struct node *n = new_node(C_NODE, i * LIST_LEN + j);

      n->next = h;
      h = n;
    }
    heads[i] = h;
  }
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
  GC_acc_set_type_namer(namer);
  if (GC_acc_set_retain_pause(pause) != GC_SUCCESS) return 1;
  GC_expand_hp(mb << 20);
  n_lists = (mb << 20) / NODE_BYTES / LIST_LEN;
  build(n_lists);
  printf("heads_var %p\nheads_array %p\nnodes %lu\nlist_len %d\n",
         (void *)&heads, (void *)heads,
         (unsigned long)(n_lists * LIST_LEN + LEAKS), LIST_LEN);
  collect();            /* the census counts B.Leak                    */
  if (GC_acc_retain_request("B.Leak", 0, 0) != GC_SUCCESS) return 1;
  collect();
  return heads[0] == NULL;
}
