/* SPDX-License-Identifier: MIT */
/*
 * test_dump_end.c: how a dump ends in a build without atexit (Unity's
 * DONT_USE_ATEXIT; docs/il2cpp.md, "How a player's dump ends").
 * tests/unity/il2cpp_dropin.sh runs it against the drop-in folder built
 * with Unity's defines and checks the file.
 *
 *   test_dump_end deinit DUMP   N collections, then GC_deinit (as
 *       il2cpp's shutdown does), then exit: the file must be whole (the
 *       gzip trailer written) with N collection records.
 *   test_dump_end exit DUMP     N collections, then wait until the file
 *       holds them (reading it back through `gzip -dc`, at most
 *       WAIT_S seconds; prints how long that took), then exit() with
 *       no stop and no GC_deinit: no atexit handler may run, so the file
 *       has no trailer, and still reads to its last whole record.
 *
 * Prints "collections C" (C: the collections made while the dump was
 * on, N or more) and, for exit, "latency_ms M".
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 5
#define WAIT_S 20

static double now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Collection records the dump holds now, as a reader sees them.        */
static int records_in(const char *path)
{
  char cmd[4200], line[1 << 16];
  FILE *p;
  int n = 0;

  if (strlen(path) > 4000 || strchr(path, '\'') != NULL) exit(2);
  snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
  p = popen(cmd, "r");
  if (NULL == p) exit(2);
  while (fgets(line, sizeof(line), p) != NULL) {
    if (strstr(line, "{\"record\":\"collection\"") == line) n++;
  }
  (void)pclose(p);
  return n;
}

int main(int argc, char **argv)
{
  int i, n;
  double t0;
  GC_word gc0;

  if (argc != 3 || (strcmp(argv[1], "deinit") != 0
                    && strcmp(argv[1], "exit") != 0)) {
    fprintf(stderr, "usage: test_dump_end deinit|exit DUMP\n");
    return 2;
  }
  GC_INIT();
  if (GC_acc_dump_start(argv[2]) != GC_SUCCESS) {
    fprintf(stderr, "test_dump_end: cannot start the dump\n");
    return 1;
  }
  gc0 = GC_get_gc_no();
  for (i = 0; i < N; i++) {
    (void)GC_MALLOC(64);
    GC_gcollect();
  }
  n = (int)(GC_get_gc_no() - gc0);      /* N, or more if one was due */
  printf("collections %d\n", n);
  if (0 == strcmp(argv[1], "deinit")) {
    GC_deinit();
    fflush(stdout);
    return 0;
  }
  t0 = now_ms();
  while (records_in(argv[2]) < n) {
    struct timespec ms = { 0, 1000000 };

    if (now_ms() - t0 > WAIT_S * 1e3) {
      printf("latency_ms timeout\n");
      return 1;
    }
    nanosleep(&ms, NULL);
  }
  printf("latency_ms %.0f\n", now_ms() - t0);
  fflush(stdout);
  exit(0);            /* no stop, no GC_deinit: like a player's exit */
}
