/* SPDX-License-Identifier: MIT */
/*
 * deltaload.c: a dump whose census rows mostly stay as they were, for
 * tests/cli/delta.sh (delta records, docs/dump-format.md).
 *
 *   deltaload [-k N] [dump [second-dump]]
 *
 * First fills many size classes of two kinds (and a few large objects)
 * and keeps them; then, for COLLECTIONS collections, allocates in a few
 * classes only, and now and then drops a kept class (its rows go to
 * zero) or a large object, so that most rows of each collection record
 * are what they were in the record before, some change, and some go.
 * After each of those collections prints the census the collector
 * keeps (GC_acc_get_class_stats), one line per nonzero (kind, class):
 * `census GC_NO KIND CLASS LIVE_OBJS LIVE_BYTES RESERVED_BYTES FREE_SLOTS`,
 * the truth the dump's rebuilt tables are checked against.
 * The dump goes where GC_ACC_DUMP says, or to the optional argument.
 * With a second dump, the first is stopped after half the collections
 * and the second started (its first collection record must be whole).
 * -k N first calls GC_acc_set_dump_keyframe(N) and prints
 * `keyframe_api RESULT` (GC_SUCCESS 0, GC_ERROR -1).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>

#define CLASSES 60              /* sizes 16, 32, ... kept               */
#define PER_CLASS 40
#define LARGE 6
#define COLLECTIONS 40

static void *volatile kept[2][CLASSES][PER_CLASS];
static void *volatile large[LARGE];
static void *volatile busy[4][64];

static void census(void)
{
  unsigned long gc_no = (unsigned long)GC_get_gc_no();
  int k;
  unsigned cls;

  for (k = 0; k < 2; k++) {
    for (cls = 0;; cls++) {
      struct GC_acc_class_stats_s st;

      if (GC_acc_get_class_stats(k, cls, &st, sizeof st) < sizeof st) break;
      if ((st.live_objs | st.live_bytes | st.reserved_bytes | st.free_slots)
          == 0)
        continue;
      printf("census %lu %d %u %lu %lu %lu %lu\n", gc_no, k, cls,
             (unsigned long)st.live_objs, (unsigned long)st.live_bytes,
             (unsigned long)st.reserved_bytes, (unsigned long)st.free_slots);
    }
  }
}

int main(int argc, char **argv)
{
  int k, c, i, n, a = 1;

  GC_INIT();
  if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'k') {
    printf("keyframe_api %d\n",
           GC_acc_set_dump_keyframe((unsigned)atoi(argv[2])));
    a = 3;
  }
  if (argc > a && GC_acc_dump_start(argv[a]) != GC_SUCCESS) return 1;
  for (k = 0; k < 2; k++)
    for (c = 0; c < CLASSES; c++)
      for (i = 0; i < PER_CLASS; i++)
        kept[k][c][i] = k ? GC_MALLOC((size_t)(c + 1) * 16)
                          : GC_MALLOC_ATOMIC((size_t)(c + 1) * 16);
  for (i = 0; i < LARGE; i++) large[i] = GC_MALLOC((size_t)(i + 1) * 8192);
  for (n = 0; n < COLLECTIONS; n++) {
    /* A few classes busy: their rows change in every record.         */
    for (i = 0; i < 64; i++) busy[n % 4][i] = GC_MALLOC(24 + 8 * (n % 4));
    if (n % 7 == 3) {                   /* a class dropped: rows to 0 */
      for (i = 0; i < PER_CLASS; i++) kept[n % 2][(n * 5) % CLASSES][i] = 0;
    }
    if (n % 9 == 5) large[(n / 9) % LARGE] = 0;
    if (n == COLLECTIONS / 2 && argc > a + 1) {
      if (GC_acc_dump_stop() != GC_SUCCESS
          || GC_acc_dump_start(argv[a + 1]) != GC_SUCCESS)
        return 1;
    }
    collect();
    census();
  }
  printf("collections %d\n", COLLECTIONS);
  return 0;
}
