/* SPDX-License-Identifier: MIT */
/*
 * lists.h: a live heap of 128-byte "Node" objects in lists of LIST_LEN
 * from a GC_MALLOC'd array of heads held by the global `heads` (lists
 * side by side: breadth first, each level touches a page an object),
 * and "Leak" objects, typed and named; for bench/retainheap.c and
 * tests/retain/boundload.c.  Include after gc.h and gc_accounting.h.
 */
#ifndef GCACC_RETAIN_LISTS_H
#define GCACC_RETAIN_LISTS_H

#include <stdio.h>
#include <stdlib.h>

#define NODE_BYTES 128
#define LIST_LEN 64
#define C_NODE 0x9001
#define C_LEAK 0x9002

struct node {
  GC_word id;
  struct node *next;
  GC_word data[NODE_BYTES / sizeof(GC_word) - 2];
};

struct node **heads;    /* not static: kept, and in the symbol table */

static int GC_CALLBACK lists_namer(GC_word cookie, char *buf, size_t sz)
{
  if (cookie == C_NODE) snprintf(buf, sz, "Node");
  else if (cookie == C_LEAK) snprintf(buf, sz, "Leak");
  else return 0;
  return 1;
}

static struct node *new_node(GC_word type, GC_word id)
{
  struct node *n = (struct node *)GC_acc_malloc_typed(sizeof(*n), type);

  if (NULL == n) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  n->id = id;
  return n;
}

/* heads[0, n_lists), each a list of LIST_LEN nodes, newest first.      */
static void build_lists(size_t n_lists)
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
}

#endif
