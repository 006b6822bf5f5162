/* SPDX-License-Identifier: MIT */
/*
 * test_heap_sections.c: GC_foreach_heap_section in the era the client
 * chose (gc_unity.h: GCACC_HEAP_SECTIONS_3ARG defined before gc.h for
 * the 3-argument form; the library has both), and
 * GC_get_heap_section_count (the 3-argument walk's count, in both),
 * called with the allocation lock held.
 *
 * 4-argument era: the ranges never overlap, used + free + padding equals
 * the mapped heap (GC_get_heap_size), every live object lies inside a
 * USED range, and every reported byte is readable (an unmapped block
 * reported would fault here): checked after the collector unmapped free
 * blocks (GC_set_force_unmap_on_gcollect).
 * 3-argument era: the ranges (blocks in use) sum to the heap less its
 * free mapped bytes, contain every live object, and are readable.
 */
#include <stdlib.h>
#include <string.h>
#include "gc.h"
#include "../check.h"
#include "../gc_test_util.h"

#define NLIVE 3000
static void *live[NLIVE];               /* registered as a root below */

struct range { char *start, *end; int type; };
static struct range *ranges;
static size_t nranges, cap;
static GC_word counted;

static void add(void *s, void *e, int type)
{
  if (nranges == cap) {
    cap = cap ? 2 * cap : 1024;
    ranges = (struct range *)realloc(ranges, cap * sizeof(*ranges));
    if (ranges == NULL) abort();
  }
  ranges[nranges].start = (char *)s;
  ranges[nranges].end = (char *)e;
  ranges[nranges].type = type;
  nranges++;
}

#ifdef GCACC_HEAP_SECTIONS_3ARG
# define USED 2
  static void cb(void *ud, GC_PTR s, GC_PTR e)
  {
    CHECK(ud == (void *)&nranges);
    add(s, e, USED);
  }
#else
# define USED GC_HEAP_SECTION_TYPE_USED
  static void cb(void *ud, GC_PTR s, GC_PTR e, GC_heap_section_type t)
  {
    CHECK(ud == (void *)&nranges);
    add(s, e, (int)t);
  }
#endif

static GC_word n3;                     /* calls of the 3-argument walk */
static void count3(void *ud, GC_PTR s, GC_PTR e)
{
  (void)s; (void)e;
  CHECK(ud == (void *)&n3);
  n3++;
}

static void *GC_CALLBACK walk(void *arg)
{
  (void)arg;
  nranges = 0;
  n3 = 0;
  GC_foreach_heap_section(&nranges, cb);
  GC_foreach_heap_section_v3(&n3, count3);
  counted = GC_get_heap_section_count();
  return NULL;
}

static int by_start(const void *a, const void *b)
{
  const struct range *x = (const struct range *)a;
  const struct range *y = (const struct range *)b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static NOINLINE void churn(void)
{
  int i;
  void *tmp;

  for (i = 0; i < NLIVE; i++) {
    size_t sz = (i % 7 == 0) ? 20000 + 4096 * (i % 5)  /* large */
                             : 8 + (size_t)(i % 40) * 24;
    live[i] = (i & 1) ? GC_MALLOC_ATOMIC(sz) : GC_MALLOC(sz);
    CHECK(live[i] != NULL);
    memset(live[i], 0x5a, sz);
    tmp = GC_MALLOC(1000 + (size_t)i % 3000);   /* garbage */
    (void)tmp;
  }
  /* Large garbage to be freed and unmapped.                            */
  for (i = 0; i < 40; i++)
    (void)GC_MALLOC_ATOMIC((size_t)1 << 20);
  for (i = 0; i < NLIVE; i += 3)
    live[i] = NULL;                     /* some die */
}

static void check_walk(void)
{
  size_t i, j;
  GC_word sum = 0, heap = GC_get_heap_size(), free_b = GC_get_free_bytes();
  volatile char sink = 0;

  GC_call_with_alloc_lock(walk, NULL);
  CHECK(nranges > 0);
  /* The count is the 3-argument walk's, in both eras (only Unity 2019.4 */
  /* to 2023.2.7 call it, before that walk).                            */
  CHECK(n3 > 0);
  CHECK_EQ(counted, n3);
# ifdef GCACC_HEAP_SECTIONS_3ARG
    CHECK_EQ(counted, nranges);
# endif
  qsort(ranges, nranges, sizeof(*ranges), by_start);
  for (i = 0; i < nranges; i++) {
    char *p;

    CHECK(ranges[i].start < ranges[i].end);
    if (i > 0)
      CHECK(ranges[i - 1].end <= ranges[i].start);     /* no overlap */
#   ifdef GCACC_HEAP_SECTIONS_3ARG
      if (i > 0)                        /* maximal: never adjacent */
        CHECK(ranges[i - 1].end != ranges[i].start);
#   endif
    sum += (GC_word)(ranges[i].end - ranges[i].start);
    /* Readable: an unmapped (PROT_NONE) page would fault here.          */
    for (p = ranges[i].start; p < ranges[i].end; p += 4096)
      sink ^= *p;
    sink ^= ranges[i].end[-1];
  }
  (void)sink;
# ifdef GCACC_HEAP_SECTIONS_3ARG
    CHECK_EQ(sum, heap - free_b);
# else
    {
      GC_word used = 0, pad = 0, fr = 0;

      for (i = 0; i < nranges; i++) {
        GC_word n = (GC_word)(ranges[i].end - ranges[i].start);

        if (ranges[i].type == GC_HEAP_SECTION_TYPE_USED) used += n;
        else if (ranges[i].type == GC_HEAP_SECTION_TYPE_PADDING) pad += n;
        else if (ranges[i].type == GC_HEAP_SECTION_TYPE_FREE) fr += n;
        else CHECK(!"bad section type");
      }
      CHECK_EQ(used + pad + fr, heap);
      CHECK_EQ(fr, free_b);
      CHECK(used > 0);
    }
# endif
  /* Every live object inside one USED range.                           */
  for (j = 0; j < NLIVE; j++) {
    char *o = (char *)live[j];
    size_t lo = 0, hi = nranges;

    if (o == NULL)
      continue;
    while (hi - lo > 1) {               /* last range starting <= o */
      size_t mid = (lo + hi) / 2;
      if (ranges[mid].start <= o) lo = mid; else hi = mid;
    }
    if (!CHECK(ranges[lo].start <= o && o + GC_size(o) <= ranges[lo].end
               && ranges[lo].type == USED))
      break;
  }
}

int main(void)
{
  GC_INIT();
  GC_add_roots(live, live + NLIVE);
  churn();
  collect();
  check_walk();
  /* Again once free blocks were unmapped (where the build unmaps).     */
  GC_set_force_unmap_on_gcollect(1);
  collect();
  collect();
  printf("unmapped bytes: %lu\n", (unsigned long)GC_get_unmapped_bytes());
  check_walk();
  return check_done("test_heap_sections");
}
