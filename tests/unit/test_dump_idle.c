/* SPDX-License-Identifier: MIT */
/*
 * test_dump_idle.c: the dump's writer thread sleeps while there is
 * nothing to write, and wakes for every record.
 *
 * 1. The writer thread is named "gcacc-dump" (so that top, perf and gdb
 *    show what it is): the test finds it in /proc/self/task.
 * 2. Idle: after a collection's record is written, a second with no
 *    collection costs the writer at most 2 context switches (a writer
 *    that polls its buffer wakes dozens of times a second, which a game
 *    on a phone pays in battery).
 * 3. No lost wakeup: 150 records, each submitted after a different short
 *    pause (0 to 4 ms, so that submits meet the writer at every point of
 *    its way to sleep), each readable in the file within 1 s of its
 *    submit.  A record that waits for a writer nobody woke is not.
 * 4. Stop returns at once from an idle writer (within 1 s).
 *
 * Linux only (/proc); elsewhere it skips (exit 77).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

static void sleep_us(long us)
{
  struct timespec ts;

  ts.tv_sec = us / 1000000;
  ts.tv_nsec = (us % 1000000) * 1000L;
  nanosleep(&ts, NULL);
}

static double now_s(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The task id of this process's thread named name; 0 if none.         */
static long find_thread(const char *name)
{
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  long found = 0;

  if (NULL == d) return 0;
  while (0 == found && (e = readdir(d)) != NULL) {
    char p[300], comm[64];
    FILE *f;

    if ('.' == e->d_name[0]) continue;
    snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
    f = fopen(p, "r");
    if (NULL == f) continue;
    if (fgets(comm, sizeof(comm), f) != NULL) {
      comm[strcspn(comm, "\n")] = '\0';
      if (0 == strcmp(comm, name)) found = atol(e->d_name);
    }
    fclose(f);
  }
  closedir(d);
  return found;
}

/* Context switches of task tid so far (voluntary and not); -1 on error. */
static long switches(long tid)
{
  char p[64], line[256];
  FILE *f;
  long n = 0, v;
  int seen = 0;

  snprintf(p, sizeof(p), "/proc/self/task/%ld/status", tid);
  f = fopen(p, "r");
  if (NULL == f) return -1;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (1 == sscanf(line, "voluntary_ctxt_switches: %ld", &v)
        || 1 == sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v)) {
      n += v;
      seen++;
    }
  }
  fclose(f);
  return 2 == seen ? n : -1;
}

struct count { long collections, last_i; };

static void count_rec(json_t *rec, size_t index, void *arg)
{
  struct count *c = (struct count *)arg;
  const char *r = json_string_value(json_object_get(rec, "record"));

  (void)index;
  if (NULL == r) return;
  if (0 == strcmp(r, "collection")) c->collections++;
  if (0 == strcmp(r, "test"))
    c->last_i = (long)json_integer_value(json_object_get(rec, "i"));
}

/* The file as it is now, read as gcacc reads it (dump_read.c): the    */
/* writer may be adding to it, so it may end cut short.                 */
static struct count read_counts(const char *path)
{
  struct count c = { 0, -1 };
  struct dc_result r = dc_read_file(path, count_rec, &c);

  json_decref(r.first);
  return c;
}

int main(void)
{
  char path[] = "/tmp/gcacc-idle-XXXXXX";
  int i, late = 0;
  long tid, before, after;
  double t0, worst = 0;
  struct count c;

  if (access("/proc/self/task", R_OK) != 0) {
    printf("test_dump_idle: no /proc/self/task: skipped\n");
    return 77;
  }
  GC_INIT();
  CHECK(dc_temp_file(path));
  CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);

  /* 1. The writer names itself when it starts running.               */
  t0 = now_s();
  while ((tid = find_thread("gcacc-dump")) == 0 && now_s() - t0 < 2.0)
    sleep_us(1000);
  if (!CHECK(tid > 0)) {
    fprintf(stderr, "  no thread named gcacc-dump\n");
    return check_done("test_dump_idle");
  }

  /* 2. One record, time to write it (and to end a batching pause),   */
  /* then a second of nothing.                                          */
  GC_gcollect();
  t0 = now_s();
  do {
    sleep_us(10000);
    c = read_counts(path);
  } while (c.collections < 1 && now_s() - t0 < 2.0);
  CHECK(c.collections >= 1);
  sleep_us(200000);
  before = switches(tid);
  sleep_us(1000000);
  after = switches(tid);
  CHECK(before >= 0 && after >= 0);
  if (!CHECK(after - before <= 2))
    fprintf(stderr, "  the idle writer switched %ld times in 1 s\n",
            after - before);

  /* 3. Every record reaches the file, whenever it comes.              */
  for (i = 0; i < 150; i++) {
    char line[64];
    int n = snprintf(line, sizeof(line), "{\"record\":\"test\",\"i\":%d}\n",
                     i);
    double t;

    sleep_us((i * 37) % 4001);
    if (!CHECK_EQ(GC_acc_test_dump_submit(line, (size_t)n), 0)) break;
    t = now_s();
    do {
      c = read_counts(path);
      if (c.last_i >= i) break;
      sleep_us(200);
    } while (now_s() - t < 1.0);
    if (now_s() - t > worst) worst = now_s() - t;
    if (c.last_i < i) late++;
  }
  if (!CHECK_EQ(late, 0))
    fprintf(stderr, "  %d records not in the file 1 s after submit\n", late);
  printf("test_dump_idle: slowest record reached the file in %.1f ms\n",
         worst * 1e3);

  /* 4. */
  sleep_us(100000);
  t0 = now_s();
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  CHECK(now_s() - t0 < 1.0);
  c = read_counts(path);
  CHECK_EQ(c.last_i, 149);
  unlink(path);
  return check_done("test_dump_idle");
}
