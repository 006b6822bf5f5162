/* SPDX-License-Identifier: MIT */
/*
 * test_dump_exit.c: exit() from a signal handler never hangs on the dump
 * (issue 38, fault 1).
 *
 * A SIGTERM handler that calls exit() runs the dump's atexit handler on
 * whatever thread the signal interrupted.  If that thread was inside a
 * producer's copy into the ring (dump_prod_mu held) or inside a start or
 * stop (dump_ctl held), an atexit handler that takes the lock waits on
 * itself for ever.  The test library's hook (GC_acc_test_dump_hook)
 * raises SIGTERM at exactly those points, so the hang is met every time,
 * not one run in 25:
 *
 *  copy: the handler fires inside a copy: the child must exit within
 *        the time limit with the handler's status, warn that the record
 *        being queued is not in the file, and leave a whole dump holding
 *        every record submitted before it, in order;
 *  stop: the handler fires inside GC_acc_dump_stop: the child must exit,
 *        warn, and leave a dump that reads to its last whole record;
 *  load: four threads allocate and take records (the full profile)
 *        while the parent sends
 *        SIGTERM at a random moment (seeded), RUNS times: no run may
 *        hang, every dump must read.
 *
 * Each child runs under a watchdog in the parent (HANG_S seconds, then
 * SIGKILL and a failure saying it hung).
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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

/* Test-only entries of writer.c (not in gc_accounting.h).              */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);
GC_API void GC_CALL GC_acc_test_dump_hook(void (*fn)(int where));

/* A check that says why it failed.                                     */
#define CHECK_MSG(cond, ...) \
  (CHECK(cond) ? 1 : (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), 0))

#define HANG_S 15
#define EXIT_STATUS 7           /* what the handler's exit() returns  */
#define BEFORE 50               /* records submitted before the signal */

static void *volatile sink;
static volatile int armed_where = -1;

static void on_term(int sig)
{
  (void)sig;
  exit(EXIT_STATUS);
}

static void hook(int where)
{
  if (where == armed_where) {
    armed_where = -1;
    (void)raise(SIGTERM);
  }
}

static void submit_test(long i)
{
  char line[200];
  int n = snprintf(line, sizeof(line),
                   "{\"record\":\"test\",\"who\":\"exit\",\"i\":%ld}\n", i);

  (void)GC_acc_test_dump_submit(line, (size_t)n);
}

static void child_common(const char *path)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_term;
  (void)sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGTERM, &sa, NULL);
  GC_INIT();
  if (GC_acc_dump_start(path) != GC_SUCCESS) _exit(3);
  GC_acc_test_dump_hook(hook);
}

static void child_copy(const char *path)
{
  long i;

  child_common(path);
  for (i = 0; i < BEFORE; i++) submit_test(i);
  armed_where = 0;
  submit_test(BEFORE);          /* the signal comes inside this copy  */
  _exit(4);                     /* never reached                       */
}

static void child_stop(const char *path)
{
  long i;

  child_common(path);
  for (i = 0; i < BEFORE; i++) submit_test(i);
  armed_where = 1;
  (void)GC_acc_dump_stop();     /* the signal comes inside the stop   */
  _exit(4);
}

static void *alloc_loop(void *arg)
{
  long k;

  (void)arg;
  for (k = 0;; k++) {
    sink = GC_malloc(16 + (size_t)(k % 300));
    if (k % 5000 == 0) (void)GC_acc_record_now();
  }
  return NULL;
}

static void child_load(const char *path, int ready_fd)
{
  pthread_t t;
  int i;

  (void)setenv("GC_ACC_PROFILE", "full", 1);   /* as issue 38's runs */
  child_common(path);
  GC_acc_test_dump_hook(NULL);
  for (i = 0; i < 4; i++)
    if (GC_pthread_create(&t, NULL, alloc_loop, NULL) != 0) _exit(5);
  (void)write(ready_fd, "r", 1);
  (void)close(ready_fd);
  (void)alloc_loop(NULL);
}

/* Wait for pid at most HANG_S seconds; its status, or -1 if it hung  */
/* (then killed).                                                       */
static int wait_bounded(pid_t pid)
{
  int st, ms;

  for (ms = 0; ms < HANG_S * 1000; ms += 5) {
    struct timespec nap = { 0, 5000000 };

    if (waitpid(pid, &st, WNOHANG) == pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    (void)nanosleep(&nap, NULL);
  }
  (void)kill(pid, SIGKILL);
  (void)waitpid(pid, &st, 0);
  return -1;
}

/* Runs one case in a child with stderr to errpath; its status or -1.  */
static int run_case(void (*fn)(const char *), const char *path,
                    const char *errpath)
{
  pid_t pid;

  fflush(NULL);
  pid = fork();
  if (pid < 0) return -2;
  if (0 == pid) {
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd >= 0) (void)dup2(fd, 2);
    fn(path);
    _exit(4);
  }
  return wait_bounded(pid);
}

static void test_copy(void)
{
  char path[] = "/tmp/gcacc_exit_copy_XXXXXX";
  char errpath[sizeof(path) + 4];
  struct dc_seq s = { NULL, 0, 0, 0 };
  struct dc_result r;
  int st;

  if (!CHECK(dc_temp_file(path))) return;
  (void)snprintf(errpath, sizeof(errpath), "%s.err", path);
  st = run_case(child_copy, path, errpath);
  if (!CHECK_MSG(st != -1, "exit() from a handler inside a copy into the"
                 " ring hung (killed after %d s)", HANG_S)) goto out;
  CHECK_EQ(st, EXIT_STATUS);
  CHECK_MSG(dc_count_in(errpath,
                        "stopped while a record was being queued") > 0,
            "no warning that the record being queued was lost");
  r = dc_read_file(path, dc_check_seq, &s);
  CHECK_MSG(r.end == DUMP_END, "the dump does not read whole: %s", r.error);
  CHECK_EQ(s.next, BEFORE);    /* every record before the signal */
  CHECK_EQ(s.gaps, 0);
  if (r.first != NULL) json_decref(r.first);
out:
  (void)unlink(path);
  (void)unlink(errpath);
}

static void test_stop(void)
{
  char path[] = "/tmp/gcacc_exit_stop_XXXXXX";
  char errpath[sizeof(path) + 4];
  struct dc_seq s = { NULL, 0, 0, 0 };
  struct dc_result r;
  int st;

  if (!CHECK(dc_temp_file(path))) return;
  (void)snprintf(errpath, sizeof(errpath), "%s.err", path);
  st = run_case(child_stop, path, errpath);
  if (!CHECK_MSG(st != -1, "exit() from a handler inside a dump stop hung"
                 " (killed after %d s)", HANG_S)) goto out;
  CHECK_EQ(st, EXIT_STATUS);
  CHECK_MSG(dc_count_in(errpath, "exit() while the dump was being started"
                        " or stopped") > 0, "no warning that the stop was cut short");
  r = dc_read_file(path, dc_check_seq, &s);
  CHECK_MSG(r.end == DUMP_END || r.end == DUMP_TRUNCATED,
            "the dump does not read to its last whole record: %s", r.error);
  CHECK(r.records >= 1);        /* the header at least */
  CHECK_EQ(s.gaps, 0);
  if (r.first != NULL) json_decref(r.first);
out:
  (void)unlink(path);
  (void)unlink(errpath);
}

static void test_load(void)
{
  int runs = getenv("RUNS") != NULL ? atoi(getenv("RUNS")) : 20, i;
  int hung = 0, unread = 0;
  unsigned seed = 38;

  for (i = 0; i < runs; i++) {
    char path[] = "/tmp/gcacc_exit_load_XXXXXX";
    int p[2], st;
    pid_t pid;
    char c;
    struct dc_result r;
    struct timespec wait;

    if (!CHECK(dc_temp_file(path)) || !CHECK(pipe(p) == 0)) return;
    fflush(NULL);
    pid = fork();
    if (0 == pid) {
      int fd = open("/dev/null", O_WRONLY);

      if (fd >= 0) (void)dup2(fd, 2);
      (void)close(p[0]);
      child_load(path, p[1]);
      _exit(4);
    }
    (void)close(p[1]);
    if (read(p[0], &c, 1) != 1) c = 0;
    (void)close(p[0]);
    seed = seed * 1103515245u + 12345u;
    wait.tv_sec = 0;
    wait.tv_nsec = (long)(1 + (seed >> 16) % 30) * 1000000L;
    (void)nanosleep(&wait, NULL);
    (void)kill(pid, SIGTERM);
    st = wait_bounded(pid);
    if (-1 == st) hung++;
    else {
      r = dc_read_file(path, NULL, NULL);
      if (r.end != DUMP_END && r.end != DUMP_TRUNCATED) {
        unread++;
        fprintf(stderr, "run %d: %s\n", i, r.error);
      }
      if (r.first != NULL) json_decref(r.first);
    }
    (void)unlink(path);
  }
  CHECK_MSG(0 == hung, "%d of %d runs hung at exit after SIGTERM", hung,
            runs);
  CHECK_MSG(0 == unread, "%d of %d dumps do not read", unread, runs);
  printf("test_dump_exit: %d SIGTERM runs under load, none hung\n", runs);
}

int main(void)
{
  test_copy();
  test_stop();
  test_load();
  return check_done("test_dump_exit");
}
