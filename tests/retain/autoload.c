/* SPDX-License-Identifier: MIT */
/*
 * autoload.c: the truth of tests/retain/auto.sh (issue 37): what
 * GC_ACC_RETAIN=auto walks for is what `gcacc leaks` names.  Types, one
 * collection per round (ROUNDS), each allocated from its own function
 * (its own callsite where tags carry them):
 *   T.Steady  8 KiB more kept each round, from the static `steady`
 *             (a list): a leak, every rule of leaks passes;
 *   T.Step    1 MiB made once, in round STEP_AT, and kept: grew once,
 *             more in all than T.Steady, then level (leaks' rule 4);
 *   T.Spike   2 MiB made in round SPIKE_AT and dropped two rounds later:
 *             a one-off spike, freed;
 *   T.Late    2 MiB made in the last round and live at the last
 *             collection: grew most between the first census and the
 *             last (the old choice's pick), but once (rules 2, 4);
 *   T.Churn   short-lived garbage each round: allocation, never growth.
 * Only T.Steady should be named, by leaks and by auto.  The program sets
 * the profile its argument names (full or trace) and asks for auto
 * itself (GC_acc_set_profile, GC_acc_retain_auto: Unity's fork reads no
 * environment), and writes `steady_root ADDRESS` on stdout.
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

#define ROUNDS 40
#define STEP_AT 8
#define SPIKE_AT 16
#define NODE_BYTES 256

#define C_STEADY 0x7201
#define C_STEP 0x7202
#define C_SPIKE 0x7203
#define C_LATE 0x7204
#define C_CHURN 0x7205

struct node {
  GC_word pad;          /* word 0: data, never a pointer              */
  struct node *next;    /* word 1                                     */
  GC_word more[NODE_BYTES / sizeof(GC_word) - 2];
};

/* Not static: the stores must not be optimized away.                   */
struct node *steady, *step, *spike, *late;
volatile struct node *churn;

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  static const char *const names[] = {
    "T.Steady", "T.Step", "T.Spike", "T.Late", "T.Churn"
  };

  if (cookie < C_STEADY || cookie > C_CHURN) return 0;
  snprintf(buf, sz, "%s", names[cookie - C_STEADY]);
  return 1;
}

/* bytes more of type onto *list.                                       */
static NOINLINE void grow(struct node **list, GC_word type, size_t bytes)
{
  size_t i;

  for (i = 0; i < bytes / NODE_BYTES; i++) {
    struct node *n = (struct node *)GC_acc_malloc_typed(sizeof(*n), type);

    if (NULL == n) exit(1);
    n->next = *list;
    *list = n;
  }
}

/* Each its own function, its own frame on the stack (the store after */
/* the call: no tail call to grow), so its own callsite.               */
static volatile int grown;
#define GROWER(fn, list, type, bytes) \
  static NOINLINE void fn(void) \
  { \
    grow(&(list), type, bytes); \
    grown++; \
  }
GROWER(grow_steady, steady, C_STEADY, 8 << 10)
GROWER(grow_step, step, C_STEP, 1 << 20)
GROWER(grow_spike, spike, C_SPIKE, 2 << 20)
GROWER(grow_late, late, C_LATE, 2 << 20)

static NOINLINE void make_churn(void)
{
  struct node *l = NULL;

  grow(&l, C_CHURN, 256 << 10);
  churn = l;
  churn = NULL;
}

int main(int argc, char **argv)
{
  int r, trace = argc > 1 && 0 == strcmp(argv[1], "trace");

  GC_INIT();
  if (GC_acc_set_profile(trace ? GC_ACC_PROFILE_TRACE : GC_ACC_PROFILE_FULL,
                         0) != GC_SUCCESS) {
    fprintf(stderr, "autoload: GC_acc_set_profile refused\n");
    return 1;
  }
  GC_acc_set_type_namer(namer);
  if (GC_acc_retain_auto(1) != GC_SUCCESS) {
    fprintf(stderr, "autoload: GC_acc_retain_auto refused\n");
    return 1;
  }
  for (r = 0; r < ROUNDS; r++) {
    grow_steady();
    if (STEP_AT == r) grow_step();
    if (SPIKE_AT == r) grow_spike();
    if (SPIKE_AT + 2 == r) spike = NULL;
    if (ROUNDS - 1 == r) grow_late();
    make_churn();
    GC_gcollect();
  }
  printf("steady_root %p\n", (void *)&steady);
  return 0;
}
