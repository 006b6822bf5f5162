/* SPDX-License-Identifier: MIT */
/*
 * kill_lag.c: how much of its recent past a dumping program loses to
 * SIGKILL (a measurement, not a test: docs/design.md, "Dump file and
 * crash safety", quotes it).
 *
 *   kill_lag RUNS THREADS
 *
 * Each run forks a child that starts a dump (GC_ACC_DUMP, or a file of
 * its own), runs THREADS threads allocating without pause, and takes a
 * snapshot record about every millisecond, noting in shared memory the
 * clock just before each.  After 300 to 1000 ms (seeded by the run's
 * number) the child is killed with SIGKILL; the lag is the time from the
 * last record built to the last record in the file, read as gcacc reads
 * it.  Prints the median, the 90th percentile and the largest lag, in
 * ms, and the records the runs dropped (a full ring: not lost to the
 * kill, and counted).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../unit/dump_check.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

static void *volatile sink;

static unsigned long long now_ns(void)
{
  struct timespec t;

  (void)clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull
         + (unsigned long long)t.tv_nsec;
}

static void *churn(void *arg)
{
  long k;

  (void)arg;
  for (k = 0;; k++) sink = GC_MALLOC(16 + (size_t)(k % 200));
  return NULL;
}

static void child(const char *path, int threads,
                  volatile unsigned long long *built)
{
  int i;

  GC_INIT();
  if (GC_acc_dump_start(path) != GC_SUCCESS) _exit(2);
  GC_allow_register_threads();
  for (i = 0; i < threads; i++) {
    pthread_t t;

    if (GC_pthread_create(&t, NULL, churn, NULL) != 0) _exit(3);
  }
  for (;;) {
    struct timespec ms = { 0, 1000000 };
    unsigned long long t;
    int j;

    for (j = 0; j < 200; j++) sink = GC_MALLOC(64);
    t = now_ns();
    (void)GC_acc_record_now();
    *built = t;
    (void)nanosleep(&ms, NULL);
  }
}

struct seen { unsigned long long last; unsigned long dropped; };

static void last_snapshot(json_t *rec, size_t index, void *arg)
{
  struct seen *s = (struct seen *)arg;
  const char *kind = json_string_value(json_object_get(rec, "record"));

  (void)index;
  if (kind != NULL && strcmp(kind, "snapshot") == 0) {
    unsigned long long t = (unsigned long long)json_integer_value(
                                      json_object_get(rec, "t_start_ns"));

    if (t > s->last) s->last = t;
  }
  if (kind != NULL && index > 0)
    s->dropped += (unsigned long)json_integer_value(
                                      json_object_get(rec, "dropped"));
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  int runs = argc > 1 ? atoi(argv[1]) : 20;
  int threads = argc > 2 ? atoi(argv[2]) : 0;
  char path[] = "/tmp/gcacc_kill_lag_XXXXXX";
  volatile unsigned long long *built;
  double *lag;
  int i, n = 0;
  unsigned long dropped = 0;

  if (runs < 1 || !dc_temp_file(path)) return 1;
  built = (volatile unsigned long long *)mmap(NULL, 4096,
              PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  lag = (double *)calloc((size_t)runs, sizeof(double));
  if (MAP_FAILED == (void *)built || NULL == lag) return 1;
  for (i = 0; i < runs; i++) {
    struct seen seen = { 0, 0 };
    struct timespec wait;
    struct dc_result r;
    pid_t pid;

    *built = 0;
    fflush(NULL);
    pid = fork();
    if (0 == pid) child(path, threads, built);
    srand((unsigned)i + 1);
    wait.tv_sec = 0;
    wait.tv_nsec = (300 + rand() % 700) * 1000000L;
    (void)nanosleep(&wait, NULL);
    (void)kill(pid, SIGKILL);
    (void)waitpid(pid, NULL, 0);
    r = dc_read_file(path, last_snapshot, &seen);
    if (r.first != NULL) json_decref(r.first);
    dropped += seen.dropped;
    if (0 == *built || 0 == seen.last) continue;
    lag[n++] = *built > seen.last ? (double)(*built - seen.last) / 1e6 : 0.0;
  }
  (void)unlink(path);
  if (0 == n) return 1;
  qsort(lag, (size_t)n, sizeof(double), cmp);
  printf("kill_lag: %d kills, %d allocating threads: records lost to"
         " SIGKILL span median %.1f ms, 90th percentile %.1f ms, largest"
         " %.1f ms (%lu records dropped and counted)\n", n, threads,
         lag[n / 2], lag[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1],
         lag[n - 1], dropped);
  return 0;
}
