/* SPDX-License-Identifier: MIT */
/*
 * test_frag_churn.c: the free-block books stay exact under churn.
 *
 * Allocates and frees (GC_free) pointer-free objects of random sizes,
 * from a few blocks to several MiB, so that free blocks are split,
 * merged, reused and (with unmapping) unmapped again and again, and huge
 * free blocks of ever new sizes come and go.  Every few steps
 * GC_acc_check_books compares the books read off the collector's free
 * lists with a walk of every heap block (free blocks, bytes, unmapped
 * bytes, the largest); a collection now and then frees blocks too.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <stdlib.h>

#define SLOTS 96
#define STEPS 3000

static void *slot[SLOTS];

static unsigned long long rnd_state = 12345;   /* 64 bits on ILP32 too */

static unsigned long rnd(void)
{
  rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned long)(rnd_state >> 33);
}

static void books_agree(const char *when, unsigned step)
{
  const char *diff = GC_acc_check_books();

  if (!CHECK(NULL == diff))
    fprintf(stderr, "  %s, step %u: the books differ in: %s\n", when, step,
            diff);
}

int main(void)
{
  unsigned step, i, huge = 0;
  struct GC_acc_stats_s s;

  GC_INIT();
  GC_TEST_ROOT(slot);
  CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  books_agree("at the start", 0);
  for (step = 1; step <= STEPS; step++) {
    unsigned k = (unsigned)(rnd() % SLOTS);

    if (slot[k] != NULL) {
      GC_free(slot[k]);
      slot[k] = NULL;
    } else {
      size_t bytes;

      if (rnd() % 3 == 0) {
        /* 1 to 6 MiB: huge free blocks of many sizes. */
        bytes = ((size_t)1 << 20) + (size_t)(rnd() % (5u << 20));
        huge++;
      } else {
        bytes = 8192 + (size_t)(rnd() % 200000);
      }
      slot[k] = GC_malloc_atomic(bytes);
      CHECK(slot[k] != NULL);
    }
    if (step % 500 == 0) GC_gcollect();
    if (step % 25 == 0) books_agree("after churn", step);
  }
  for (i = 0; i < SLOTS; i++) {
    GC_free(slot[i]);
    slot[i] = NULL;
  }
  books_agree("after freeing everything", STEPS);
  GC_gcollect();
  books_agree("after the last collection", STEPS);
  CHECK_EQ(GC_acc_get_stats(&s, sizeof(s)), sizeof(s));
  CHECK(s.largest_free_bytes <= s.free_bytes);
  CHECK(huge > 100);
  printf("%u steps, %u huge objects; free %lu bytes, largest %lu\n",
         STEPS, huge, (unsigned long)s.free_bytes,
         (unsigned long)s.largest_free_bytes);
  return check_done("test_frag_churn");
}
