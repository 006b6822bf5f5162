/* SPDX-License-Identifier: MIT */
/*
 * test_dump_sigkill.c: a process killed mid-run leaves a readable dump.
 *
 * A child starts a dump, then loops allocating, collecting and submitting
 * test records; the parent kills it with SIGKILL at several moments and
 * checks, reading the file as gcacc does (tools/gcacc/dump_read.c), that
 * the file, without its gzip trailer, decompresses, that every complete
 * line is a record, that the first is the header, and that the test
 * records are there in order without gaps.  Then a forked child of a
 * dumping process must not write into its parent's file.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

static void *volatile sink;

static void submit_test(const char *who, long i)
{
  char line[200];
  int n = snprintf(line, sizeof(line),
                   "{\"record\":\"test\",\"who\":\"%s\",\"i\":%ld}\n", who, i);

  (void)GC_acc_test_dump_submit(line, (size_t)n);
}

/* The child: dump, signal the parent after `ready` rounds, go on      */
/* until killed.                                                        */
static void child_loop(const char *path, int ready_fd, long ready)
{
  long i;

  GC_INIT();
  if (GC_acc_dump_start(path) != GC_SUCCESS) _exit(3);
  for (i = 0;; i++) {
    int k;

    for (k = 0; k < 1000; k++) sink = GC_malloc(16 + k % 200);
    if (i % 4 == 0) GC_gcollect();
    submit_test("child", i);
    if (i == ready) {
      (void)write(ready_fd, "r", 1);
      close(ready_fd);
    }
  }
}

static void check_header(json_t *h, long pid)
{
  CHECK(h != NULL);
  if (NULL == h) return;
  CHECK(strcmp(json_string_value(json_object_get(h, "record")), "header")
        == 0);
  CHECK_EQ(json_integer_value(json_object_get(h, "format_version")), 2);
  CHECK_EQ(json_integer_value(json_object_get(h, "pid")), pid);
  CHECK(strcmp(json_string_value(json_object_get(h, "bdwgc_version")),
               "8.2.2") == 0);
  CHECK(json_is_object(json_object_get(h, "config")));
  CHECK(json_integer_value(json_object_get(json_object_get(h, "config"),
                                           "hblksize")) > 0);
  CHECK(json_array_size(json_object_get(h, "modules")) > 0);
  CHECK(json_is_string(json_object_get(h, "executable")));
  CHECK(json_integer_value(json_object_get(h, "start_mono_ns")) > 0);
}

static void kill_run(const char *dir, int round, long ready, int delay_ms)
{
  char path[256];
  int fds[2];
  pid_t pid;
  char c;
  int status;
  unsigned char *buf;
  size_t len = 0;
  struct dc_result r;
  struct dc_seq s = { "child", 0, 0, 0 };
  struct timespec ts;

  (void)snprintf(path, sizeof(path), "%s/kill%d-%%p.gz", dir, round);
  CHECK(pipe(fds) == 0);
  fflush(stdout);
  pid = fork();
  if (0 == pid) {
    close(fds[0]);
    child_loop(path, fds[1], ready);
    _exit(0);
  }
  close(fds[1]);
  CHECK_EQ(read(fds[0], &c, 1), 1);  /* the child ran `ready` rounds */
  close(fds[0]);
  ts.tv_sec = delay_ms / 1000;
  ts.tv_nsec = (long)(delay_ms % 1000) * 1000000;
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  (void)snprintf(path, sizeof(path), "%s/kill%d-%ld.gz", dir, round,
                 (long)pid);
  buf = dc_slurp(path, &len);
  CHECK(buf != NULL && len > 0);
  if (NULL == buf) return;
  r = dc_read(buf, len, dc_check_seq, &s);
  /* Decompresses and every whole line is a record (no DUMP_ERROR);    */
  /* killed: no trailer, so read as cut short.                         */
  if (!CHECK(r.end != DUMP_ERROR)) fprintf(stderr, "  %s\n", r.error);
  CHECK_EQ(r.end, DUMP_TRUNCATED);
  CHECK(r.records >= 1);
  check_header(r.first, (long)pid);
  /* Records submitted well before the kill were written.              */
  if (delay_ms >= 50) CHECK(s.next > ready);
  CHECK_EQ(s.gaps, 0);
  printf("kill %d after %d ms: %lu bytes, %lu records, %ld test records\n",
         round, delay_ms, (unsigned long)len, r.records, s.next);
  json_decref(r.first);
  free(buf);
  unlink(path);
}

/* A forked child of a dumping process: the dump is closed for it.     */
static void fork_run(const char *dir)
{
  char path[256];
  pid_t pid;
  int status, i;
  unsigned char *buf;
  size_t len = 0;
  struct dc_result r;
  struct dc_seq s = { "parent", 0, 0, 0 };

  (void)snprintf(path, sizeof(path), "%s/fork.gz", dir);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (i = 0; i < 10; i++) submit_test("parent", i);
  fflush(stdout);
  pid = fork();
  if (0 == pid) {
    /* Submits are dropped, collections write nothing, exit() must not */
    /* write the parent's trailer.                                      */
    for (i = 0; i < 50; i++) {
      submit_test("forked", i);
      sink = GC_malloc(100);
    }
    GC_gcollect();
    if (GC_acc_test_dump_submit("{}\n", 3) == 0) exit(4);
    /* It may start a dump of its own.                                  */
    (void)snprintf(path, sizeof(path), "%s/forked.gz", dir);
    if (GC_acc_dump_start(path) != GC_SUCCESS) exit(5);
    for (i = 0; i < 5; i++) submit_test("forked", i);
    exit(0);
  }
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  {
    struct dc_seq cs = { "forked", 0, 0, 0 };

    (void)snprintf(path, sizeof(path), "%s/forked.gz", dir);
    buf = dc_slurp(path, &len);
    CHECK(buf != NULL);
    if (buf != NULL) {
      r = dc_read(buf, len, dc_check_seq, &cs);
      /* Whole (trailer seen), every line a record.                    */
      if (!CHECK_EQ(r.end, DUMP_END)) fprintf(stderr, "  %s\n", r.error);
      check_header(r.first, (long)pid);
      CHECK_EQ(cs.next, 5);
      CHECK_EQ(cs.foreign, 0);
      json_decref(r.first);
      free(buf);
    }
    unlink(path);
    (void)snprintf(path, sizeof(path), "%s/fork.gz", dir);
  }
  for (i = 10; i < 20; i++) submit_test("parent", i);
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  buf = dc_slurp(path, &len);
  CHECK(buf != NULL);
  if (NULL == buf) return;
  r = dc_read(buf, len, dc_check_seq, &s);
  /* Stopped: decompresses, the trailer written (once), every line a   */
  /* record, nothing after the last newline: DUMP_END says all four.   */
  if (!CHECK_EQ(r.end, DUMP_END)) fprintf(stderr, "  %s\n", r.error);
  check_header(r.first, (long)getpid());
  CHECK_EQ(s.next, 20);
  CHECK_EQ(s.gaps, 0);
  CHECK_EQ(s.foreign, 0);
  json_decref(r.first);
  free(buf);
  unlink(path);
}

int main(void)
{
  char dir[] = "/tmp/gcacc-sigkill-XXXXXX";
  static const int delays[] = { 0, 50, 200, 5, 120 };
  int i;

  CHECK(mkdtemp(dir) != NULL);
  for (i = 0; i < (int)(sizeof(delays) / sizeof(delays[0])); i++)
    kill_run(dir, i, 20 + 30 * i, delays[i]);

  GC_INIT();
  fork_run(dir);
  rmdir(dir);
  return check_done("test_dump_sigkill");
}
