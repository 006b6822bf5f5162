/* SPDX-License-Identifier: MIT */
/*
 * test_custom_push.c: GC_push_proc, GC_custom_push_proc and
 * GC_custom_push_range, as il2cpp 2023.2.10+ pushes its registered roots:
 * a push-other-roots callback pushes a mark-proc descriptor (GC_new_proc)
 * with GC_push_proc; the proc pushes ranges held outside the GC heap with
 * GC_custom_push_range and one object with GC_custom_push_proc.  Objects
 * reachable only that way live; dropped from the ranges, they die.  A
 * second phase pushes every object as its own entry, far more than the
 * mark stack first holds: overflow is handled as upstream handles it (the
 * stack grows, marking restarts) and nothing is lost.
 */
#include <stdlib.h>
#include "gc.h"
#include "gc_mark.h"
#include "../check.h"
#include "../gc_test_util.h"

#define N 4000
#define MANY 60000

static void **held;                     /* malloc: N pointers, not scanned */
static void **links;                    /* malloc: disappearing links */
static void *single;
static void **single_link;              /* malloc: a link in static data */
                                        /* would keep its object (libgc */
                                        /* scans the program's data)    */
static void **many, **many_links;
static int many_phase;
static unsigned proc_index;
static GC_push_other_roots_proc old_push;

static struct GC_ms_entry *GC_CALLBACK my_proc(GC_word *addr,
                                struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim, GC_word env)
{
  (void)env;
  CHECK(addr == (GC_word *)held);
  /* Two ranges, split unevenly; an empty one pushes nothing.           */
  msp = GC_custom_push_range(held, held + N / 3, msp, lim);
  msp = GC_custom_push_range(held + N / 3, held + N, msp, lim);
  msp = GC_custom_push_range(held, held, msp, lim);
  if (single != NULL)
    msp = GC_custom_push_proc(GC_DS_LENGTH | sizeof(void *), &single, msp,
                              lim);
  return msp;
}

static void GC_CALLBACK push_mine(void)
{
  if (old_push != 0)
    old_push();
  GC_push_proc(GC_MAKE_PROC(proc_index, 0), held);
  if (many_phase) {
    int i;
    for (i = 0; i < MANY; i++)
      if (many[i] != NULL)
        GC_push_proc(GC_DS_LENGTH | sizeof(void *), &many[i]);
  }
}

static NOINLINE void fill(void)
{
  int i;

  for (i = 0; i < N; i++) {
    held[i] = GC_MALLOC(24);
    links[i] = held[i];
    GC_general_register_disappearing_link(&links[i], held[i]);
  }
  single = GC_MALLOC(16);
  *single_link = single;
  GC_general_register_disappearing_link(single_link, single);
}

static NOINLINE void fill_many(void)
{
  int i;

  for (i = 0; i < MANY; i++) {
    many[i] = GC_MALLOC(16);
    many_links[i] = many[i];
    GC_general_register_disappearing_link(&many_links[i], many[i]);
  }
}

static int alive(void **l, int n)
{
  int i, k = 0;
  for (i = 0; i < n; i++) k += l[i] != NULL;
  return k;
}

int main(void)
{
  int i;

  GC_INIT();
  held = (void **)calloc(N, sizeof(void *));
  links = (void **)calloc(N, sizeof(void *));
  many = (void **)calloc(MANY, sizeof(void *));
  many_links = (void **)calloc(MANY, sizeof(void *));
  single_link = (void **)calloc(1, sizeof(void *));
  proc_index = GC_new_proc((GC_mark_proc)my_proc);
  old_push = GC_get_push_other_roots();
  GC_set_push_other_roots(push_mine);
  fill();
  collect();
  collect();
  CHECK_EQ(alive(links, N), N);
  CHECK(*single_link != NULL);
  /* Drop half, and the single one: they go, the rest stay.             */
  for (i = 0; i < N; i += 2)
    held[i] = NULL;
  single = NULL;
  collect();
  collect();
  {
    int odd = 0, even = 0;
    for (i = 0; i < N; i++) {
      if (i % 2) odd += links[i] != NULL; else even += links[i] != NULL;
    }
    CHECK_EQ(odd, N / 2);
    CHECK(even <= N / 50);
  }
  CHECK(*single_link == NULL);
  /* Many single entries: overflow, growth, nothing lost.               */
  many_phase = 1;                       /* before: fill_many may collect */
  fill_many();
  collect();
  collect();
  CHECK_EQ(alive(many_links, MANY), MANY);
  for (i = 0; i < MANY; i++)
    if (!CHECK(many[i] == many_links[i]))
      break;
  return check_done("test_custom_push");
}
