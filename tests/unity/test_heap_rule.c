/* SPDX-License-Identifier: MIT */
/*
 * test_heap_rule.c: how GC_foreach_heap_section (4-argument era) splits
 * a block in use into USED and PADDING, on Unity's fork and on ours
 * (docs/il2cpp.md, "Heap sections: ours and the fork's").
 *
 *   test_heap_rule fork   run against Unity's fork (tests/unity/unit.sh)
 *   test_heap_rule ours   run against our drop-in (il2cpp_dropin.sh)
 *
 * The fork reports USED as [block, block + hb_sz): for a block of small
 * objects hb_sz is one object's size, so USED covers the block's first
 * object only and the rest of the block is PADDING.  Ours reports as
 * USED the bytes that hold objects, [block, block + n * size) with n the
 * objects a block holds, and only the tail that holds none as PADDING.
 * Both agree on blocks of one object (large ones among them).
 *
 * After an allocation pattern with small objects of many sizes (several
 * to a block) and large ones, the walk is taken under the allocation
 * lock; every block of two or more objects must follow the rule of the
 * collector named on the command line (and there must be such blocks),
 * USED + PADDING + FREE must cover what the walk reports, and live
 * objects outside every USED range are counted: none for ours; for the
 * fork, most small ones (a snapshot taking the USED ranges, as a memory
 * profiler does, misses them).  Prints the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gc.h"

#define NLIVE 4000
static void *live[NLIVE];               /* registered as a root below */

struct range { char *start, *end; int type; };
static struct range *ranges;
static size_t nranges, cap;
static int fails;

#define EXPECT(c, ...) \
  do { if (!(c)) { fails++; fprintf(stderr, "FAIL: " __VA_ARGS__); \
                   fputc('\n', stderr); } } while (0)

static void cb(void *ud, GC_PTR s, GC_PTR e, GC_heap_section_type t)
{
  (void)ud;
  if (nranges == cap) {
    cap = cap ? 2 * cap : 4096;
    ranges = (struct range *)realloc(ranges, cap * sizeof(*ranges));
    if (NULL == ranges) abort();
  }
  ranges[nranges].start = (char *)s;
  ranges[nranges].end = (char *)e;
  ranges[nranges].type = (int)t;
  nranges++;
}

/* Under the lock: the walk, and each USED range's object size.        */
static size_t *objsz;
static void *GC_CALLBACK walk(void *arg)
{
  size_t i;

  (void)arg;
  nranges = 0;
  GC_foreach_heap_section(NULL, cb);
  objsz = (size_t *)calloc(nranges + 1, sizeof(size_t));
  if (NULL == objsz) abort();
  for (i = 0; i < nranges; i++) {
    if (GC_HEAP_SECTION_TYPE_USED == ranges[i].type)
      objsz[i] = GC_size(ranges[i].start);
  }
  return NULL;
}

static int by_start(const void *a, const void *b)
{
  const struct range *x = (const struct range *)a;
  const struct range *y = (const struct range *)b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static __attribute__((noinline)) void allocate(void)
{
  int i;

  for (i = 0; i < NLIVE; i++) {
    size_t sz = i % 50 == 0 ? 9000 + (size_t)(i % 7) * 4096      /* large */
                            : 16 + (size_t)(i % 31) * 16;        /* small */

    live[i] = i & 1 ? GC_MALLOC_ATOMIC(sz) : GC_MALLOC(sz);
    if (NULL == live[i]) abort();
    memset(live[i], 0x5a, sz);
    (void)GC_MALLOC(24 + (size_t)(i % 13) * 8);                 /* garbage */
  }
}

int main(int argc, char **argv)
{
  int fork_rule;
  size_t i, j;
  unsigned long used = 0, pad = 0, fr = 0, n_used = 0, multi = 0;
  unsigned long by_fork = 0, by_ours = 0, small_live = 0, missed = 0;

  if (argc != 2 || (strcmp(argv[1], "fork") != 0
                    && strcmp(argv[1], "ours") != 0)) {
    fprintf(stderr, "usage: test_heap_rule fork|ours\n");
    return 2;
  }
  fork_rule = 0 == strcmp(argv[1], "fork");
  GC_INIT();
  GC_add_roots(live, live + NLIVE);
  allocate();
  GC_gcollect();
  GC_call_with_alloc_lock(walk, NULL);
  /* objsz follows ranges' order: sort both by start together.         */
  for (i = 0; i < nranges; i++)          /* carry the size in the type */
    ranges[i].type |= (int)(i << 2);
  qsort(ranges, nranges, sizeof(*ranges), by_start);
  for (i = 0; i < nranges; i++) {
    size_t k = (size_t)ranges[i].type >> 2, len, blk, sz;
    int t = ranges[i].type & 3;

    ranges[i].type = t;
    len = (size_t)(ranges[i].end - ranges[i].start);
    EXPECT(len > 0, "empty range at %p", (void *)ranges[i].start);
    if (i > 0)
      EXPECT(ranges[i - 1].end <= ranges[i].start, "ranges overlap");
    if (GC_HEAP_SECTION_TYPE_FREE == t) { fr += len; continue; }
    if (GC_HEAP_SECTION_TYPE_PADDING == t) { pad += len; continue; }
    used += len;
    n_used++;
    sz = objsz[k];
    blk = len;                          /* the block: USED + its PADDING */
    if (i + 1 < nranges && ranges[i + 1].start == ranges[i].end
        && (ranges[i + 1].type & 3) == GC_HEAP_SECTION_TYPE_PADDING)
      blk += (size_t)(ranges[i + 1].end - ranges[i + 1].start);
    if (sz == 0 || 2 * sz > blk) continue;     /* one object a block */
    multi++;
    if (len == sz) by_fork++;
    if (len == blk / sz * sz) by_ours++;
  }
  /* Live small objects outside every USED range.                        */
  for (j = 0; j < NLIVE; j++) {
    char *o = (char *)live[j];
    size_t lo = 0, hi = nranges;

    if (GC_size(o) > 2048) continue;
    small_live++;
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      if (ranges[mid].start <= o) lo = mid; else hi = mid;
    }
    if (!(ranges[lo].start <= o && o + GC_size(o) <= ranges[lo].end
          && GC_HEAP_SECTION_TYPE_USED == ranges[lo].type))
      missed++;
  }
  printf("rule %s: %lu sections, %lu USED (%lu bytes), %lu PADDING bytes,"
         " %lu FREE bytes; %lu blocks of several objects: %lu by the"
         " fork's rule, %lu by ours; %lu of %lu live small objects outside"
         " USED\n", argv[1], (unsigned long)nranges, n_used, used, pad, fr,
         multi, by_fork, by_ours, missed, small_live);
  EXPECT(multi > 0, "no block of several objects");
  EXPECT((fork_rule ? by_fork : by_ours) == multi,
         "%lu of %lu blocks of several objects follow the %s rule",
         fork_rule ? by_fork : by_ours, multi, argv[1]);
  EXPECT((fork_rule ? by_ours : by_fork) == 0,
         "%lu blocks follow the other rule", fork_rule ? by_ours : by_fork);
  if (fork_rule)
    EXPECT(missed > small_live / 2, "the fork's USED ranges hold %lu of %lu"
           " live small objects", small_live - missed, small_live);
  else
    EXPECT(0 == missed, "%lu live objects outside USED", missed);
  EXPECT(used + pad + fr > 0 && used + pad + fr <= GC_get_heap_size()
         + (fork_rule ? GC_get_unmapped_bytes() : 0), "sum beyond the heap");
  return fails != 0;
}
