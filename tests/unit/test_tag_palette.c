/* SPDX-License-Identifier: MIT */
/*
 * test_tag_palette.c: blocks whose objects carry more tags than a
 * block's palette holds (tags.c: a byte a slot indexes the block's
 * palette of 10 tags; past them, a wide table of 32 bits a slot) keep
 * every object's tag and every type's counts exact.
 *
 * Under the full profile, 16-byte objects of NTYPES explicit types are
 * made round-robin (every block sees all the types), half of them kept,
 * then over 40 collections more of them, so that blocks hold objects of
 * many types and births, the first ones turning OLD (32 collections)
 * while later ones are young.  After a last collection: every kept
 * object's tag is its type; each type counts exactly what was made of
 * it, at least its kept objects live (a few more if the stack kept some
 * conservatively), live plus freed equal to made, and the first round's
 * kept objects in the 32+ age bin.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <string.h>

#define NTYPES 40               /* four palettes' worth                 */
#define FIRST 4000              /* objects of the first round           */
#define ROUNDS 40
#define PER_ROUND 400
#define SLACK 16                /* dropped objects a stack may keep     */

#define TYPE(i) ((GC_word)0x7000 + (GC_word)(i) * 16)

static void *first[FIRST / 2];
static void *later[ROUNDS * PER_ROUND / 2];
static GC_word made[NTYPES], kept[NTYPES], kept_first[NTYPES];

/* n objects, type i % NTYPES for the i-th; every other one kept in    */
/* keep (counted in kept[] and, for the first round, kept_first[]).    */
static NOINLINE void make(void **keep, unsigned n, int first_round)
{
  unsigned i;

  for (i = 0; i < n; i++) {
    unsigned t = i % NTYPES;
    void *p;

    GC_acc_set_next_type(TYPE(t));
    p = GC_MALLOC(16);
    CHECK(p != NULL);
    made[t]++;
    if (i % 2 == 0) {
      keep[i / 2] = p;
      kept[t]++;
      if (first_round) kept_first[t]++;
    }
  }
}

static NOINLINE void check_tags(void **keep, unsigned n)
{
  unsigned i, wrong = 0;

  for (i = 0; i < n; i++) {
    GC_word cookie = 0;
    unsigned site = 0;

    if (!GC_acc_get_object_tag(keep[i], &cookie, &site)
        || cookie != TYPE((2 * i) % NTYPES))
      wrong++;
  }
  CHECK_EQ(wrong, 0);
}

int main(void)
{
  unsigned r, t;

  GC_set_all_interior_pointers(0);
  GC_INIT();
  GC_TEST_ROOT(first);
  GC_TEST_ROOT(later);
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  make(first, FIRST, 1);
  for (r = 0; r < ROUNDS; r++) {
    collect();
    make(later + r * (PER_ROUND / 2), PER_ROUND, 0);
  }
  collect();
  CHECK_EQ(GC_size(first[0]), 16);
  check_tags(first, FIRST / 2);
  check_tags(later, ROUNDS * PER_ROUND / 2);
  for (t = 0; t < NTYPES; t++) {
    struct GC_acc_group_stats_s s;

    memset(&s, 0, sizeof(s));
    CHECK_EQ(GC_acc_get_type_stats(TYPE(t), &s, sizeof(s)), sizeof(s));
    if (!CHECK_EQ(s.alloc_objs, made[t])
        | !CHECK(s.live_objs >= kept[t] && s.live_objs <= kept[t] + SLACK)
        | !CHECK_EQ(s.live_objs + s.freed_objs, made[t])
        | !CHECK(s.age_objs[GC_ACC_AGE_BINS - 1] >= kept_first[t]))
      fprintf(stderr, "  type %u: made %lu kept %lu; alloc %lu live %lu"
              " freed %lu old %lu\n", t, (unsigned long)made[t],
              (unsigned long)kept[t], (unsigned long)s.alloc_objs,
              (unsigned long)s.live_objs, (unsigned long)s.freed_objs,
              (unsigned long)s.age_objs[GC_ACC_AGE_BINS - 1]);
  }
  return check_done("test_tag_palette");
}
