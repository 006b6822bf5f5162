/* SPDX-License-Identifier: MIT */
/*
 * test_clock64.c: every time is 64-bit, on every target (issue 38).
 *
 * A 32-bit word of nanoseconds wraps every 4.3 s: on armv7 a 9.4 s
 * run's timeline went backwards twice, `summary` said 4.29 s and the
 * header's start time read 1970-01-01.  Rather than run for seconds,
 * the test library's clock offset (GC_acc_test_clock_offset, base.c)
 * puts the collector's monotonic clock 0.3 s before a multiple of 2^32
 * ns, above 2^32; the program allocates and collects for about a
 * second, with a dump, and reads the dump back as gcacc does
 * (tools/gcacc/dump_read.c):
 *   - the header's start_mono_ns is on the shifted clock (>= 2^32) and
 *     its start_time_ns within a day of the wall clock now;
 *   - every record's times (t_start_ns, t_end_ns; a frame's t_ns) and
 *     every heap growth's t_ns are >= 2^32, and records' end times
 *     never go backwards and are not before the header's start;
 *   - the records span at least half of the time the run took;
 *   - GC_acc_get_last_grow and GC_acc_get_stats give the same clock.
 * Built against the test library (GCA_TEST_API); run on ARM by
 * tests/cross/cross.sh, where the bug was.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Test-only entry of base.c (not in gc_accounting.h).                 */
GC_API void GC_CALL GC_acc_test_clock_offset(unsigned long long ns);

#define TWO32 4294967296ULL
#define DAY_NS (86400ULL * 1000000000ULL)

static uint64_t mono_ns(void)
{
  struct timespec ts;

  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t jget(const json_t *o, const char *key)
{
  json_t *v = json_object_get(o, key);

  return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

struct walk {
  uint64_t start_mono;          /* the header's                          */
  uint64_t first, last;         /* records' t_end_ns                     */
  unsigned long timed, grows;   /* records with times; growth rows       */
  int backwards, early, low;
};

static void each(json_t *rec, size_t i, void *arg)
{
  struct walk *w = (struct walk *)arg;
  const char *kind = json_string_value(json_object_get(rec, "record"));
  json_t *grows = json_object_get(rec, "grows"), *row;
  size_t j;

  if (0 == i) {
    w->start_mono = jget(rec, "start_mono_ns");
    return;
  }
  if (NULL == kind) return;
  if (strcmp(kind, "frame") == 0) {
    if (jget(rec, "t_ns") < TWO32) w->low++;
    return;
  }
  if (strcmp(kind, "collection") == 0 || strcmp(kind, "snapshot") == 0) {
    uint64_t t0 = jget(rec, "t_start_ns"), t1 = jget(rec, "t_end_ns");

    if (t0 < TWO32 || t1 < TWO32) w->low++;
    if (t1 < w->start_mono) w->early++;
    if (w->timed > 0 && t1 < w->last) w->backwards++;
    if (0 == w->timed) w->first = t1;
    w->last = t1;
    w->timed++;
  }
  json_array_foreach(grows, j, row) {
    json_t *t = json_array_get(row, 0);

    w->grows++;
    if (!json_is_integer(t) || (uint64_t)json_integer_value(t) < TWO32)
      w->low++;
  }
}

static void *volatile sink;

int main(void)
{
  char path[] = "/tmp/gcacc-clock64-XXXXXX";
  uint64_t m = mono_ns(), offset, t_begin, t_run;
  unsigned long long wall;
  struct GC_acc_grow_s g;
  struct GC_acc_stats_s st;
  struct dc_result res;
  struct walk w;
  int i = 0;

  /* m + offset: 0.3 s before a multiple of 2^32 ns, and above 2^32.   */
  offset = 2 * TWO32 - (m & (TWO32 - 1)) - 300000000u;
  GC_acc_test_clock_offset(offset);
  GC_INIT();
  CHECK(dc_temp_file(path));
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  t_begin = mono_ns();
  do {
    int k;

    for (k = 0; k < 2000; k++) sink = GC_MALLOC(64 + (k % 7) * 48);
    if (++i % 8 == 0) GC_gcollect();
    if (i % 5 == 0) (void)GC_acc_record_now();
    if (i % 64 == 0) (void)GC_expand_hp(1 << 20);
  } while (mono_ns() - t_begin < 1000000000u);
  GC_gcollect();
  t_run = mono_ns() - t_begin;
  memset(&g, 0, sizeof(g));
  CHECK(GC_acc_get_last_grow(&g, sizeof(g)) == sizeof(g));
  CHECK(g.t_ns >= TWO32);
  CHECK(GC_acc_get_stats(&st, sizeof(st)) == sizeof(st));
  CHECK(st.mark_ns < 60000000000ULL);
  CHECK(st.census_ns < 60000000000ULL);
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  memset(&w, 0, sizeof(w));
  res = dc_read_file(path, each, &w);
  if (!CHECK(res.end == DUMP_END)) fprintf(stderr, "%s\n", res.error);
  wall = (unsigned long long)time(NULL) * 1000000000ULL;
  if (res.first != NULL) {
    uint64_t st_ns = jget(res.first, "start_time_ns");

    CHECK(st_ns + DAY_NS > wall && st_ns < wall + DAY_NS);
    CHECK(w.start_mono >= TWO32);
    CHECK(w.start_mono >= offset && w.start_mono <= offset + mono_ns());
    json_decref(res.first);
  }
  CHECK(w.timed >= 3);
  CHECK_EQ(w.backwards, 0);
  CHECK_EQ(w.early, 0);
  CHECK_EQ(w.low, 0);
  /* The records span the run (a wrapped clock would lose 2^32 ns, and  */
  /* with it more than the whole run).                                  */
  CHECK(w.last - w.first >= t_run / 2);
  CHECK(w.last - w.first <= t_run + 1000000000u);
  printf("records %lu, grows %lu, span %.2f s of a %.2f s run,"
         " clock from %.3f s\n", w.timed, w.grows,
         (double)(w.last - w.first) / 1e9, (double)t_run / 1e9,
         (double)w.start_mono / 1e9);
  (void)unlink(path);
  return check_done("test_clock64");
}
