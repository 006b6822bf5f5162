/* SPDX-License-Identifier: MIT */
/*
 * test_hb_acc.c: a block's hb_acc (its tag table) is trusted only once
 * the block hooks keep it.  Until tags are first on, a block handed out
 * gets no store there (GC_ACC_ON_HBLK_ALLOC: a test and a branch), so a
 * header recycled from scratch memory may hold anything; the readers
 * that run in any profile (GC_free in the off profile, the tag API, the
 * retention walk) must not look at it, and the first switch to tags must
 * treat every in-use block's as garbage (gca_tags_reset_all's "first").
 * GC_acc_test_hb_acc_poison plays the recycled headers: every in-use
 * block's hb_acc set to an address that faults.  Either fault crashes
 * this test (so it fails).
 */
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>

GC_API int GC_CALL GC_acc_test_hb_acc_poison(GC_word bad);

#define N 4000
#define BAD ((GC_word)0xdead0000UL)     /* never mapped: below the heap */

static void *keep[N];

static void alloc_all(void)
{
  int i;

  for (i = 0; i < N; i++) {
    size_t sz = (i % 7 == 0) ? 3000 + (size_t)i : 16 + (size_t)(i % 50) * 8;

    keep[i] = (i & 1) ? GC_MALLOC_ATOMIC(sz) : GC_MALLOC(sz);
    CHECK(keep[i] != NULL);
  }
}

int main(void)
{
  GC_word cookie;
  unsigned site;
  int i, tagged = 0;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 0), GC_SUCCESS);
  alloc_all();
  /* Tags never on: hb_acc not kept, the poison taken.                   */
  CHECK_EQ(GC_acc_test_hb_acc_poison(BAD), 1);

  /* The tag API reads no table.                                          */
  CHECK_EQ(GC_acc_get_object_tag(keep[0], &cookie, &site), 0);
  /* GC_free in the off profile (tags.c's free) reads none either.         */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_OFF, 0), GC_SUCCESS);
  for (i = 0; i < N; i += 4) {
    GC_FREE(keep[i]);
    keep[i] = NULL;
  }
  GC_gcollect();

  /* Tags on: every in-use block gets a new table, the poison dropped.   */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  CHECK_EQ(GC_acc_test_hb_acc_poison(BAD), 0);
  for (i = 0; i < N; i += 4) keep[i] = GC_MALLOC(24 + (size_t)(i % 9) * 16);
  for (i = 0; i < N; i += 4)
    tagged += GC_acc_get_object_tag(keep[i], &cookie, &site);
  CHECK_EQ(tagged, N / 4);
  GC_gcollect();
  /* And off again: the tables kept unread, frees and collections quiet. */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_OFF, 0), GC_SUCCESS);
  for (i = 1; i < N; i += 4) GC_FREE(keep[i]);
  GC_gcollect();
  CHECK(GC_acc_check_books() == NULL);
  return check_done("test_hb_acc");
}
