/* SPDX-License-Identifier: MIT */
/*
 * test_dump_claim.c: no process ever damages a dump another is writing
 * (issue 38 fault 2, issue 33).
 *
 * A dump file is claimed (an advisory lock) before it is truncated; a
 * second process given the same path writes PATH.PID instead, with one
 * warning naming both files.  With real processes, each run with
 * GC_ACC_DUMP through exec of this program:
 *
 *  child:     this process dumps to P (no %p), forks and execs a child
 *             that inherits GC_ACC_DUMP=P and collects; then dumps on.
 *             P must read whole, be this process's (header pid) and hold
 *             every one of its records in order; the child's dump is
 *             P.<child pid>, whole and the child's; the child warned
 *             once, naming both files.  (Before the claim, the child's
 *             open truncated P and the parent's dump did not read.)
 *  forked:    a child forked without exec lives on while this process
 *             stops its dump and starts one again at the same path: the
 *             path is this process's again (the child's copy of the
 *             descriptor, closed at fork, holds no claim).
 *  unrelated: two sibling processes given the same Q: the one that
 *             holds Q keeps it whole, the other writes Q.<pid>; once
 *             the first has exited, a third takes Q itself (the claim
 *             lasts as long as the dump).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

#define RECORDS 30

static void *volatile sink;
static const char *self;

static void submit_test(const char *who, long i)
{
  char line[200];
  int n = snprintf(line, sizeof(line),
                   "{\"record\":\"test\",\"who\":\"%s\",\"i\":%ld}\n", who, i);

  (void)GC_acc_test_dump_submit(line, (size_t)n);
}

static void work(void)
{
  int k;

  for (k = 0; k < 20000; k++) sink = GC_malloc(16 + k % 500);
  GC_gcollect();
}

/* Exec'd modes.  "child": GC_ACC_DUMP from the environment, some     */
/* collections, exit.  "hold": the same, then RECORDS records, a byte  */
/* on stdout, wait for stdin's end, RECORDS more.                      */
static int run_mode(const char *mode)
{
  GC_INIT();
  work();
  if (strcmp(mode, "hold") == 0) {
    char c;
    long i;

    for (i = 0; i < RECORDS; i++) submit_test("hold", i);
    if (write(1, "r", 1) != 1) return 5;
    while (read(0, &c, 1) > 0) {
    }
    work();
    for (; i < 2 * RECORDS; i++) submit_test("hold", i);
  }
  return 0;
}

/* Fork and exec this program in mode with GC_ACC_DUMP=path, stderr to */
/* errpath; in_fd/out_fd (or -1) become its stdin and stdout.          */
static pid_t spawn(const char *mode, const char *path, const char *errpath,
                   int in_fd, int out_fd)
{
  pid_t pid;

  fflush(NULL);
  pid = fork();
  if (0 == pid) {
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd >= 0) (void)dup2(fd, 2);
    if (in_fd >= 0) (void)dup2(in_fd, 0);
    if (out_fd >= 0) (void)dup2(out_fd, 1);
    (void)setenv("GC_ACC_DUMP", path, 1);
    execl(self, self, mode, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int wait_status(pid_t pid)
{
  int st;

  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The dump at path: whole, its header's pid, and (who != NULL) its    */
/* test records 0 .. n-1 in order.                                       */
static void check_dump(const char *path, long pid, const char *who, long n)
{
  struct dc_seq s;
  struct dc_result r;

  memset(&s, 0, sizeof(s));
  s.who = who != NULL ? who : "";
  r = dc_read_file(path, dc_check_seq, &s);
  if (!CHECK(r.end == DUMP_END))
    fprintf(stderr, "  %s does not read whole: %s\n", path, r.error);
  if (CHECK(r.first != NULL)) {
    CHECK_EQ(json_integer_value(json_object_get(r.first, "pid")), pid);
    json_decref(r.first);
  }
  if (who != NULL) {
    CHECK_EQ(s.next, n);
    CHECK_EQ(s.gaps, 0);
  }
  CHECK_EQ(s.foreign, 0);
}

static void test_child(const char *dir)
{
  char path[512], other[600], errpath[600], want[1300];
  pid_t pid;
  long i;

  (void)snprintf(path, sizeof(path), "%s/parent.gz", dir);
  (void)snprintf(errpath, sizeof(errpath), "%s/child.err", dir);
  if (!CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS)) return;
  for (i = 0; i < RECORDS; i++) submit_test("parent", i);
  pid = spawn("child", path, errpath, -1, -1);
  CHECK_EQ(wait_status(pid), 0);
  work();
  for (; i < 2 * RECORDS; i++) submit_test("parent", i);
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  check_dump(path, (long)getpid(), "parent", 2 * RECORDS);
  (void)snprintf(other, sizeof(other), "%s.%ld", path, (long)pid);
  check_dump(other, (long)pid, NULL, 0);
  (void)snprintf(want, sizeof(want), "gcacc: dump file %s is in use by"
                 " another process; writing %s instead", path, other);
  CHECK_EQ(dc_count_in(errpath, want), 1);
  CHECK_EQ(dc_count_in(errpath, "gcacc:"), 1);
  (void)unlink(path);
  (void)unlink(other);
  (void)unlink(errpath);
}

static void test_forked(const char *dir)
{
  char path[512], other[600];
  int hold[2], up[2];
  pid_t pid;
  long i;
  char c = 0;

  (void)snprintf(path, sizeof(path), "%s/forked.gz", dir);
  if (!CHECK(pipe(hold) == 0 && pipe(up) == 0)) return;
  if (!CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS)) return;
  for (i = 0; i < RECORDS; i++) submit_test("first", i);
  fflush(NULL);
  pid = fork();
  if (0 == pid) {
    /* Running: fork's child handlers (the descriptor closed) are done. */
    (void)close(hold[1]);
    (void)close(up[0]);
    (void)write(up[1], "r", 1);
    while (read(hold[0], &c, 1) > 0) {
    }
    _exit(0);
  }
  (void)close(hold[0]);
  (void)close(up[1]);
  CHECK_EQ(read(up[0], &c, 1), 1);
  (void)close(up[0]);
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  if (CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS)) {
    for (i = 0; i < RECORDS; i++) submit_test("again", i);
    CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  }
  (void)close(hold[1]);
  CHECK_EQ(wait_status(pid), 0);
  check_dump(path, (long)getpid(), "again", RECORDS);
  (void)snprintf(other, sizeof(other), "%s.%ld", path, (long)getpid());
  if (!CHECK(access(other, F_OK) != 0)) (void)unlink(other);
  (void)unlink(path);
}

static void test_unrelated(const char *dir)
{
  char path[512], b_path[600], a_err[600], b_err[600], c_err[600];
  char want[1300];
  int to_a[2], from_a[2];
  pid_t a, b, c;
  char ch = 0;

  (void)snprintf(path, sizeof(path), "%s/shared.gz", dir);
  (void)snprintf(a_err, sizeof(a_err), "%s/a.err", dir);
  (void)snprintf(b_err, sizeof(b_err), "%s/b.err", dir);
  (void)snprintf(c_err, sizeof(c_err), "%s/c.err", dir);
  if (!CHECK(pipe(to_a) == 0 && pipe(from_a) == 0)) return;
  (void)fcntl(to_a[1], F_SETFD, FD_CLOEXEC);
  (void)fcntl(from_a[0], F_SETFD, FD_CLOEXEC);
  a = spawn("hold", path, a_err, to_a[0], from_a[1]);
  (void)close(to_a[0]);
  (void)close(from_a[1]);
  if (!CHECK_EQ(read(from_a[0], &ch, 1), 1)) {
    (void)close(to_a[1]);
    (void)wait_status(a);
    return;
  }
  b = spawn("child", path, b_err, -1, -1);
  CHECK_EQ(wait_status(b), 0);
  (void)close(to_a[1]);
  CHECK_EQ(wait_status(a), 0);
  (void)close(from_a[0]);

  check_dump(path, (long)a, "hold", 2 * RECORDS);
  (void)snprintf(b_path, sizeof(b_path), "%s.%ld", path, (long)b);
  check_dump(b_path, (long)b, NULL, 0);
  (void)snprintf(want, sizeof(want), "gcacc: dump file %s is in use by"
                 " another process; writing %s instead", path, b_path);
  CHECK_EQ(dc_count_in(b_err, want), 1);
  CHECK_EQ(dc_count_in(a_err, "gcacc:"), 0);

  /* The first dump stopped: its claim ended with it.                  */
  c = spawn("child", path, c_err, -1, -1);
  CHECK_EQ(wait_status(c), 0);
  check_dump(path, (long)c, NULL, 0);
  CHECK_EQ(dc_count_in(c_err, "gcacc:"), 0);
  (void)snprintf(b_path, sizeof(b_path), "%s.%ld", path, (long)c);
  CHECK(access(b_path, F_OK) != 0);
  (void)snprintf(b_path, sizeof(b_path), "%s.%ld", path, (long)b);
  (void)unlink(b_path);
  (void)unlink(path);
  (void)unlink(a_err);
  (void)unlink(b_err);
  (void)unlink(c_err);
}

int main(int argc, char **argv)
{
  char dir[] = "/tmp/gcacc_claim_XXXXXX";

  self = argv[0];
  if (argc > 1) return run_mode(argv[1]);
  (void)unsetenv("GC_ACC_DUMP");
  if (NULL == mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  GC_INIT();
  test_child(dir);
  test_forked(dir);
  test_unrelated(dir);
  (void)rmdir(dir);
  return check_done("test_dump_claim");
}
