/* SPDX-License-Identifier: MIT */
/*
 * test_dump_drops.c: the dump's totals are exact whatever was dropped,
 * and every drop is counted (issue 38, fault 3).
 *
 * Records carry deltas; a dropped record used to take its counts with
 * it (totals 1.3% short after 116 drops), and records dropped just
 * before the dump stopped were counted nowhere.  Here four threads
 * allocate while the main thread collects and takes snapshot records,
 * and the test library drops records as a full ring would
 * (GC_acc_test_dump_drop_next), in runs of 1 to 3 through the run and
 * 3 just before the stop, in each profile (off, full, sampled).  The
 * dump, read back as gcacc reads it, must then hold:
 *  - class rows whose alloc_objs, alloc_req_bytes, alloc_granted_bytes
 *    summed over every record equal the collector's own counts
 *    (GC_acc_get_stats, read when no thread allocates any more), and
 *    allocd_since_prev_bytes summed equal to GC_get_total_bytes();
 *  - "dropped" summed equal to the records missing from seq (each gap
 *    explained), and at least the drops forced;
 *  - no warning of drops counted in no record.
 * A last case drops every record to the end, the stop's own too: the
 * stop must say how many records are counted nowhere.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API void GC_CALL GC_acc_test_dump_drop_next(unsigned n);

#define THREADS 4
#define ROUNDS 300

static void *volatile sink;

static void *worker(void *arg)
{
  int r, i;

  (void)arg;
  for (r = 0; r < ROUNDS; r++) {
    for (i = 0; i < 40; i++) sink = GC_MALLOC(16 + 8 * (i % 16));
    for (i = 0; i < 10; i++) sink = GC_MALLOC_ATOMIC(100 + 50 * i);
    sink = GC_MALLOC(3000 + r % 5000);
  }
  return NULL;
}

/* Drop the next n records, and make n (so that they are all used).  */
static unsigned long drop(unsigned n)
{
  unsigned i;

  GC_acc_test_dump_drop_next(n);
  for (i = 0; i < n; i++) (void)GC_acc_record_now();
  return n;
}

struct sums {
  long objs_col, req_col, granted_col;        /* columns, from the header */
  unsigned long objs, req, granted, allocd, dropped, records, last_seq;
};

static long col_index(json_t *hdr, const char *name)
{
  json_t *cols = json_object_get(json_object_get(hdr, "columns"), "classes");
  size_t i;

  for (i = 0; i < json_array_size(cols); i++)
    if (strcmp(json_string_value(json_array_get(cols, i)), name) == 0)
      return (long)i;
  return -1;
}

static void sum_record(json_t *rec, size_t index, void *arg)
{
  struct sums *s = (struct sums *)arg;
  const char *kind;
  json_t *rows, *row;
  size_t i;

  if (0 == index) {
    s->objs_col = col_index(rec, "alloc_objs");
    s->req_col = col_index(rec, "alloc_req_bytes");
    s->granted_col = col_index(rec, "alloc_granted_bytes");
    return;
  }
  kind = json_string_value(json_object_get(rec, "record"));
  if (NULL == kind
      || (strcmp(kind, "collection") != 0 && strcmp(kind, "snapshot") != 0))
    return;
  s->records++;
  s->last_seq = (unsigned long)json_integer_value(json_object_get(rec, "seq"));
  s->dropped += (unsigned long)json_integer_value(
                                    json_object_get(rec, "dropped"));
  s->allocd += (unsigned long)json_integer_value(json_object_get(
                 json_object_get(rec, "heap"), "allocd_since_prev_bytes"));
  rows = json_object_get(rec, "classes");
  json_array_foreach(rows, i, row) {
    s->objs += (unsigned long)json_integer_value(
                                    json_array_get(row, (size_t)s->objs_col));
    s->req += (unsigned long)json_integer_value(
                                    json_array_get(row, (size_t)s->req_col));
    s->granted += (unsigned long)json_integer_value(
                                json_array_get(row, (size_t)s->granted_col));
  }
}

/* One run in this (forked) process: returns the number of failures.  */
static int run(const char *profile, const char *path, int drop_all_at_end)
{
  pthread_t t[THREADS];
  struct GC_acc_stats_s st;
  struct sums s;
  struct dc_result r;
  unsigned long forced = 0, total_bytes;
  int i;

  (void)setenv("GC_ACC_PROFILE", profile, 1);
  GC_INIT();
  if (!CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS)) return 1;
  GC_allow_register_threads();
  for (i = 0; i < THREADS; i++)
    if (!CHECK_EQ(GC_pthread_create(&t[i], NULL, worker, NULL), 0)) return 1;
  for (i = 0; i < 60; i++) {
    if (i % 7 == 3) forced += drop(1 + (unsigned)i % 3);
    if (i % 2) GC_gcollect();
    else (void)GC_acc_record_now();
  }
  for (i = 0; i < THREADS; i++) (void)GC_pthread_join(t[i], NULL);
  GC_gcollect();
  (void)GC_acc_record_now();
  if (drop_all_at_end) {
    GC_acc_test_dump_drop_next(1000);   /* and the stop's own record */
    for (i = 0; i < 5; i++) (void)GC_acc_record_now();
    return GC_acc_dump_stop() == GC_SUCCESS ? 0 : 1;
  }
  forced += drop(3);                    /* the last records dropped  */
  (void)GC_acc_get_stats(&st, sizeof(st));
  total_bytes = (unsigned long)GC_get_total_bytes();
  if (!CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS)) return 1;

  memset(&s, 0, sizeof(s));
  r = dc_read_file(path, sum_record, &s);
  if (!CHECK(r.end == DUMP_END)) fprintf(stderr, "  %s\n", r.error);
  if (r.first != NULL) json_decref(r.first);
  if (!CHECK(s.objs_col >= 0 && s.req_col >= 0 && s.granted_col >= 0))
    return 1;
  printf("%s: %lu records, %lu dropped (%lu forced), %lu objects\n",
         profile, s.records, s.dropped, forced, s.objs);
  CHECK_EQ(s.objs, st.allocs);
  CHECK_EQ(s.req, st.alloc_req_bytes);
  CHECK_EQ(s.granted, st.alloc_granted_bytes);
  CHECK_EQ(s.allocd, total_bytes);
  CHECK_EQ(s.dropped, s.last_seq - s.records);
  CHECK(s.dropped >= forced);
  return (int)check_fail_n;
}

/* Runs run() in a child, stderr to errpath; its exit status.          */
static int in_child(const char *profile, const char *path,
                    const char *errpath, int drop_all_at_end)
{
  pid_t pid;
  int status;

  fflush(NULL);
  pid = fork();
  if (0 == pid) {
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd >= 0) (void)dup2(fd, 2);
    status = run(profile, path, drop_all_at_end);
    fflush(NULL);
    _exit(status != 0 ? 1 : 0);
  }
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
  static const char *const profiles[] = { "off", "full", "sampled" };
  char path[] = "/tmp/gcacc_drops_XXXXXX";
  char errpath[sizeof(path) + 4];
  unsigned i;

  if (!CHECK(dc_temp_file(path))) return 1;
  (void)snprintf(errpath, sizeof(errpath), "%s.err", path);
  for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
    int st = in_child(profiles[i], path, errpath, 0);

    if (!CHECK_EQ(st, 0)) {
      fprintf(stderr, "  profile %s; its stderr:\n", profiles[i]);
      {
        size_t len;
        unsigned char *b = dc_slurp(errpath, &len);

        if (b != NULL) fwrite(b, 1, len, stderr);
        free(b);
      }
    }
    CHECK_EQ(dc_count_in(errpath, "counted in no record"), 0);
  }
  /* Everything to the end dropped, the stop's last record too.        */
  CHECK_EQ(in_child("off", path, errpath, 1), 0);
  CHECK_EQ(dc_count_in(errpath, "records were dropped (buffer full) and are"
                    " counted in no record"), 1);
  (void)unlink(path);
  (void)unlink(errpath);
  return check_done("test_dump_drops");
}
