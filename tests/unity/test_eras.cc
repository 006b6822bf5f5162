/* SPDX-License-Identifier: MIT */
/*
 * test_eras.cc: one drop-in folder serves both of Unity's heap-section
 * eras, from C++, as libil2cpp's gc/BoehmGC.cpp calls them (its
 * gc/gc_wrapper.h defines and headers, then the calls of each era), with
 * no switch: Unity 2019.4 to 2023.2.7 pass a 3-argument callback to
 * GC_foreach_heap_section and size their table by
 * GC_get_heap_section_count; 2023.2.10+ and 6000 pass a 4-argument one
 * with GC_heap_section_type and count themselves.  Both are compiled
 * here in one translation unit against the one folder's headers (g++
 * -Wall -Werror), linked with its extra/gc.c built with Unity's
 * defines, and run under the allocation lock, as MemoryInformation.cpp
 * does: each callback is invoked, the 3-argument calls are exactly the
 * count, the typed ranges cover the heap, the untyped ones its bytes in
 * use, and live objects lie in both.
 */
/* gc/gc_wrapper.h */
#define IGNORE_DYNAMIC_LOADING 1
#define GC_DONT_REGISTER_MAIN_STATIC_DATA 1
#define GC_GCJ_SUPPORT 1
#define GC_THREADS 1
extern "C" {
#include "gc.h"
#include "gc_typed.h"
#include "gc_mark.h"
#include "gc_gcj.h"
#include "gc_vector.h"
}
#include <cstdio>
#include <cstdlib>
#include <cstddef>

static int failed;
#define CHECK(c) ((c) ? (void)0 : (void)(failed++, \
  std::fprintf(stderr, "test_eras.cc:%d: %s\n", __LINE__, #c)))

struct Range { char *start, *end; int type; };

namespace era2019 {
  /* libil2cpp 2019.4 to 2023.2.7: gc/GarbageCollector.h's callback     */
  /* type and gc/BoehmGC.cpp's two calls.                               */
  typedef void (*HeapSectionCallback)(void *user_data, void *start,
                                      void *end);
  static void ForEachHeapSection(void *user_data, HeapSectionCallback cb)
  {
    GC_foreach_heap_section(user_data, cb);
  }
  static size_t GetSectionCount()
  {
    return GC_get_heap_section_count();
  }

  /* vm/MemoryInformation.cpp: a table of GetSectionCount() entries,  */
  /* filled by the walk.                                               */
  struct Table { Range *r; size_t cap, n; };
  static void Fill(void *user_data, void *start, void *end)
  {
    Table *t = static_cast<Table *>(user_data);
    if (t->n < t->cap) {
      t->r[t->n].start = static_cast<char *>(start);
      t->r[t->n].end = static_cast<char *>(end);
      t->r[t->n].type = -1;
    }
    t->n++;
  }
}

namespace era6000 {
  /* 2023.2.10+ and 6000: the typed callback; sections counted by a    */
  /* callback of its own.                                              */
  struct Table { Range *r; size_t cap, n; };
  static void Fill(void *user_data, GC_PTR start, GC_PTR end,
                   GC_heap_section_type type)
  {
    Table *t = static_cast<Table *>(user_data);
    if (t->n < t->cap) {
      t->r[t->n].start = static_cast<char *>(start);
      t->r[t->n].end = static_cast<char *>(end);
      t->r[t->n].type = static_cast<int>(type);
    }
    t->n++;
  }
  static void ForEachHeapSection(void *user_data)
  {
    GC_foreach_heap_section(user_data, Fill);
  }
}

static era2019::Table t3;
static era6000::Table t4;
static size_t counted;

static void *GC_CALLBACK walk(void *)
{
  counted = era2019::GetSectionCount();
  t3.cap = counted;
  t3.r = static_cast<Range *>(std::calloc(counted + 1, sizeof(Range)));
  t3.n = 0;
  era2019::ForEachHeapSection(&t3, era2019::Fill);
  t4.cap = 100000;
  t4.r = static_cast<Range *>(std::calloc(t4.cap, sizeof(Range)));
  t4.n = 0;
  era6000::ForEachHeapSection(&t4);
  return 0;
}

static bool inside(const Range *r, size_t n, char *p, size_t sz, int type)
{
  for (size_t i = 0; i < n; i++)
    if (r[i].start <= p && p + sz <= r[i].end && (type < 0 || r[i].type == type))
      return true;
  return false;
}

#define NLIVE 200
static void *live[NLIVE];

int main()
{
  GC_INIT();
  GC_add_roots(live, live + NLIVE);
  for (int i = 0; i < NLIVE; i++)
    live[i] = GC_MALLOC(16 + 24 * (i % 50));
  for (int i = 0; i < 20000; i++)
    (void)GC_MALLOC(8 + i % 500);        /* garbage: free blocks later */
  GC_gcollect();
  GC_call_with_alloc_lock(walk, 0);
  size_t heap = GC_get_heap_size(), free_b = GC_get_free_bytes();

  /* 2019: the callback ran exactly the counted number of times.       */
  CHECK(counted > 0);
  CHECK(t3.n == counted);
  size_t sum3 = 0;
  for (size_t i = 0; i < t3.n && i < t3.cap; i++) {
    CHECK(t3.r[i].start < t3.r[i].end);
    sum3 += static_cast<size_t>(t3.r[i].end - t3.r[i].start);
  }
  CHECK(sum3 == heap - free_b);

  /* 6000: typed ranges cover the heap; FREE is the free bytes.         */
  CHECK(t4.n > 0 && t4.n <= t4.cap);
  size_t used = 0, pad = 0, fr = 0;
  for (size_t i = 0; i < t4.n && i < t4.cap; i++) {
    size_t n = static_cast<size_t>(t4.r[i].end - t4.r[i].start);
    switch (t4.r[i].type) {
      case GC_HEAP_SECTION_TYPE_USED: used += n; break;
      case GC_HEAP_SECTION_TYPE_PADDING: pad += n; break;
      case GC_HEAP_SECTION_TYPE_FREE: fr += n; break;
      default: CHECK(!"bad section type");
    }
  }
  CHECK(used > 0);
  CHECK(used + pad + fr == heap);
  CHECK(fr == free_b);
  CHECK(used + pad == sum3);
  CHECK(t4.n >= t3.n);

  for (int i = 0; i < NLIVE; i++) {
    char *p = static_cast<char *>(live[i]);
    CHECK(inside(t3.r, t3.n, p, GC_size(p), -1));
    CHECK(inside(t4.r, t4.n, p, GC_size(p), GC_HEAP_SECTION_TYPE_USED));
  }
  std::printf("test_eras: 3-argument walk %lu ranges (count %lu), "
              "4-argument walk %lu ranges, heap %lu bytes: %s\n",
              static_cast<unsigned long>(t3.n),
              static_cast<unsigned long>(counted),
              static_cast<unsigned long>(t4.n),
              static_cast<unsigned long>(heap), failed ? "FAIL" : "ok");
  return failed != 0;
}
