/* SPDX-License-Identifier: MIT */
/*
 * fragload.c: workloads with known answers for the gcacc CLI tests
 * (tests/cli/frag.sh, diff.sh, export.sh).  The dump goes where
 * GC_ACC_DUMP says; what the tests check against is printed on stdout as
 * `name value` lines.
 *
 *   fragload frag   plants holes as tests/unit/test_frag.c does: 65
 *                   pointer-free objects of 16 heap blocks, every other
 *                   one of the longest address-contiguous run dropped,
 *                   collected (before/after), then, with collections
 *                   disabled, a request larger than the largest free
 *                   block forces a heap growth although the free blocks
 *                   add up to more than the request.
 *   fragload a      a small fixed workload, collected a few times;
 *   fragload b      the same, keeping EXTRA_N more objects of
 *                   EXTRA_BYTES (normal kind, one size class).
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

#define EXTRA_N 3000
#define EXTRA_BYTES 500         /* granted 512 with the extra byte     */

/* Not static: the stores that keep or drop objects must not be       */
/* optimized away as dead (nothing in this file reads them back).     */
void *fragload_objs[FRAG_N];
void **fragload_keep[3];
#define objs fragload_objs
#define keep_small fragload_keep[0]
#define keep_mid fragload_keep[1]
#define keep_extra fragload_keep[2]

static int frag(void)
{
  struct GC_acc_stats_s s;
  unsigned best_start, best_len;
  unsigned holes;
  GC_word want;
  void *big;

  if (!GC_expand_hp(8u << 20)) return 1;
  alloc_atomic_sorted(objs, FRAG_N, FRAG_LB);
  best_len = longest_run(objs, FRAG_N, FRAG_OBJ_BYTES, &best_start);
  if (best_len < 33) {
    fprintf(stderr, "fragload: longest contiguous run: %u objects\n",
            best_len);
    return 1;
  }
  collect();
  printf("before_gc_no %lu\n", (unsigned long)GC_get_gc_no());
  holes = drop_alternate(objs, best_start, best_len);
  collect();
  printf("after_gc_no %lu\n", (unsigned long)GC_get_gc_no());
  if (GC_acc_get_stats(&s, sizeof(s)) != sizeof(s)) return 1;
  printf("holes %u\nhole_bytes %lu\nlargest_free_bytes %lu\n", holes,
         (unsigned long)FRAG_OBJ_BYTES, (unsigned long)s.largest_free_bytes);
  /* Larger than the largest free block, far smaller than all free.     */
  want = s.largest_free_bytes + FRAG_OBJ_BYTES / 2;
  printf("want_bytes %lu\n", (unsigned long)want);
  GC_disable();
  big = GC_malloc_atomic(want);
  GC_enable();
  if (big == NULL) return 1;
  collect();                  /* the record carrying the growth */
  printf("last_gc_no %lu\n", (unsigned long)GC_get_gc_no());
  return 0;
}

static NOINLINE void **keep(unsigned n, size_t bytes)
{
  void **v = GC_MALLOC(n * sizeof(void *));
  unsigned i;

  if (v == NULL) exit(1);
  for (i = 0; i < n; i++) v[i] = GC_MALLOC(bytes);
  return v;
}

static int diff(int extra)
{
  unsigned i;

  keep_small = keep(2000, 48);
  keep_mid = keep(1000, 200);
  collect();
  if (extra) keep_extra = keep(EXTRA_N, EXTRA_BYTES);
  for (i = 0; i < 3; i++) {
    void *junk = GC_MALLOC(100);   /* some garbage between collections */

    (void)junk;
    collect();
  }
  printf("extra_class %u\nextra_live_bytes %lu\n",
         GC_acc_size_class(512), (unsigned long)EXTRA_N * 512);
  return keep_small[0] == NULL || keep_mid[0] == NULL;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";

  GC_INIT();
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "fragload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  if (strcmp(mode, "frag") == 0) return frag();
  if (strcmp(mode, "a") == 0) return diff(0);
  if (strcmp(mode, "b") == 0) return diff(1);
  fprintf(stderr, "usage: fragload frag|a|b\n");
  return 2;
}
