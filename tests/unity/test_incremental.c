/* SPDX-License-Identifier: MIT */
/*
 * test_incremental.c: incremental collection driven by manual write
 * barriers, as il2cpp runs it (IL2CPP builds have MANUAL_VDB: every
 * pointer store into a heap object is followed by GC_END_STUBBORN_CHANGE,
 * as il2cpp's write barrier does).  A tree is built and then rewired
 * while collections proceed in small steps (a 1 ms slice through
 * GC_set_time_limit_ns, GC_collect_a_little between stores), so old,
 * already marked nodes keep receiving pointers to new ones: without the
 * barrier those would be freed under the tree.  Afterwards every node is
 * still there, intact (gctest-style checks), after full collections too.
 */
#include <stdlib.h>
#include "gc.h"
#include "../check.h"

#define MAGIC 0x7e57ab1eUL
#define FAN 4

struct node {
  unsigned long magic;
  unsigned long depth;
  struct node *kid[FAN];
};

static struct node *root[1];            /* registered as a root */
static unsigned long stores;

static struct node *mk(unsigned long depth)
{
  struct node *n = (struct node *)GC_MALLOC(sizeof(struct node));
  if (n == NULL) abort();
  n->magic = MAGIC;
  n->depth = depth;
  GC_END_STUBBORN_CHANGE(n);
  return n;
}

static void store(struct node *parent, int i, struct node *child)
{
  parent->kid[i] = child;
  GC_END_STUBBORN_CHANGE(parent);       /* il2cpp's write barrier */
  GC_reachable_here(child);
  if (++stores % 16 == 0)
    GC_collect_a_little();
}

static struct node *build(unsigned long depth)
{
  struct node *n = mk(depth);
  int i;

  if (depth > 0)
    for (i = 0; i < FAN; i++) {
      struct node *k = build(depth - 1);
      (void)GC_MALLOC(48);              /* garbage, to keep the GC busy */
      store(n, i, k);
    }
  return n;
}

static unsigned long check_tree(struct node *n, unsigned long depth)
{
  unsigned long c = 1;
  int i;

  if (!CHECK(n != NULL && n->magic == MAGIC && n->depth == depth))
    abort();                            /* a freed node: no use going on */
  if (depth > 0)
    for (i = 0; i < FAN; i++)
      c += check_tree(n->kid[i], depth - 1);
  return c;
}

/* Replace a random subtree at depth d below the root with a new one.   */
static void rewire(unsigned long top, unsigned long d, unsigned *seed)
{
  struct node *n = root[0];
  unsigned long k;

  for (k = top; k > d + 1; k--)
    n = n->kid[rand_r(seed) % FAN];
  store(n, rand_r(seed) % FAN, build(d));
}

int main(void)
{
  const unsigned long depth = 7;        /* 21845 nodes */
  unsigned long expect = 0, p = 1, k;
  unsigned seed = 12345;
  int round;

  GC_INIT();
  GC_add_roots(root, root + 1);
  GC_enable_incremental();
  GC_set_time_limit_ns(1000000);        /* 1 ms slices */
  CHECK(GC_is_incremental_mode());
  for (k = 0; k <= depth; k++) {
    expect += p;
    p *= FAN;
  }
  root[0] = build(depth);
  CHECK_EQ(check_tree(root[0], depth), expect);
  for (round = 0; round < 200; round++)
    rewire(depth, (unsigned long)(round % 4), &seed);
  CHECK_EQ(check_tree(root[0], depth), expect);
  GC_gcollect();
  CHECK_EQ(check_tree(root[0], depth), expect);
  for (round = 0; round < 200; round++)
    rewire(depth, 2, &seed);
  GC_gcollect();
  CHECK_EQ(check_tree(root[0], depth), expect);
  printf("%lu barrier stores, %lu collections\n", stores,
         (unsigned long)GC_get_gc_no());
  CHECK(GC_get_gc_no() > 2);
  return check_done("test_incremental");
}
