/* SPDX-License-Identifier: MIT */
/*
 * test_writer_ioerr.c: a dump file that cannot be opened or written gives
 * exactly one warning and leaves the program unharmed.
 *
 * GC_ACC_DUMP=/dev/full (opens, every write fails), a directory, a path in
 * a missing directory, and a file that fails later (RLIMIT_FSIZE reached
 * after the header): each gives one "gcacc" warning through the warn proc,
 * and allocation and collection go on.  Then the same program, run as a
 * child with GC_ACC_DUMP=/dev/full, prints exactly what it prints without;
 * and a bad GC_ACC_DUMP_BUFFER gives one warning naming variable and value.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

static int gcacc_warnings, other_warnings;

static void count_warn(char *msg, GC_word arg)
{
  char buf[1024];

  (void)snprintf(buf, sizeof(buf), msg, arg);
  if (strstr(buf, "gcacc") != NULL) {
    gcacc_warnings++;
  } else {
    other_warnings++;
  }
}

struct node { struct node *next; unsigned long v; };

/* Allocate a list, collect, check it survived; returns a checksum.    */
static unsigned long workload(unsigned rounds)
{
  unsigned long sum = 0;
  unsigned r, i;

  for (r = 0; r < rounds; r++) {
    struct node *head = NULL, *p;

    for (i = 0; i < 2000; i++) {
      p = (struct node *)GC_malloc(sizeof(*p));
      if (NULL == p) return 0;
      p->next = head;
      p->v = i * (r + 1);
      head = p;
    }
    GC_gcollect();
    for (p = head; p != NULL; p = p->next) sum += p->v;
  }
  return sum;
}

/* The child: deterministic output on stdout only.                     */
static int child_main(void)
{
  unsigned long sum;

  GC_INIT();
  sum = workload(5);
  printf("checksum %lu\n", sum);
  printf("collections done\n");
  return 0;
}

/* Run this program as a child with name=value added to its            */
/* environment (none if name is NULL); capture stdout and stderr.       */
static int run_child(const char *self, const char *name, const char *value,
                     char *out, size_t outsz, char *err, size_t errsz)
{
  int po[2], pe[2], status = -1;
  pid_t pid;
  size_t no = 0, ne = 0;

  if (pipe(po) != 0 || pipe(pe) != 0) return -1;
  pid = fork();
  if (0 == pid) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]); close(pe[0]); close(po[1]); close(pe[1]);
    unsetenv("GC_ACC_DUMP");
    unsetenv("GC_ACC_DUMP_BUFFER");
    if (name != NULL) setenv(name, value, 1);
    execl(self, self, "child", (char *)NULL);
    _exit(127);
  }
  close(po[1]);
  close(pe[1]);
  for (;;) {    /* the child's output is small: read stdout, then stderr */
    ssize_t r = read(po[0], out + no, outsz - 1 - no);

    if (r <= 0) break;
    no += (size_t)r;
  }
  for (;;) {
    ssize_t r = read(pe[0], err + ne, errsz - 1 - ne);

    if (r <= 0) break;
    ne += (size_t)r;
  }
  out[no] = '\0';
  err[ne] = '\0';
  close(po[0]);
  close(pe[0]);
  waitpid(pid, &status, 0);
  return status;
}

static unsigned count_substr(const char *s, const char *sub)
{
  unsigned n = 0;

  while ((s = strstr(s, sub)) != NULL) {
    n++;
    s++;
  }
  return n;
}

int main(int argc, char **argv)
{
  char dir[] = "/tmp/gcacc-ioerr-XXXXXX";
  char path[256], line[600];
  unsigned long sum0;
  int before, i;
  struct rlimit old_lim, lim;
  struct stat st;
  static char out0[4096], err0[4096], out1[4096], err1[4096];
  char self[4096];
  ssize_t n;

  if (argc > 1 && strcmp(argv[1], "child") == 0) return child_main();

  /* 1. GC_ACC_DUMP=/dev/full, read when the collector initializes.    */
  setenv("GC_ACC_DUMP", "/dev/full", 1);
  GC_set_warn_proc(count_warn);
  GC_INIT();
  unsetenv("GC_ACC_DUMP");
  CHECK_EQ(gcacc_warnings, 1);
  sum0 = workload(3);
  CHECK(sum0 != 0);
  CHECK_EQ(gcacc_warnings, 1);

  /* 2. The API, at /dev/full again.                                   */
  before = gcacc_warnings;
  CHECK(GC_acc_dump_start("/dev/full") != GC_SUCCESS);
  CHECK_EQ(gcacc_warnings - before, 1);

  /* 3. A directory.                                                    */
  CHECK(mkdtemp(dir) != NULL);
  before = gcacc_warnings;
  CHECK(GC_acc_dump_start(dir) != GC_SUCCESS);
  CHECK_EQ(gcacc_warnings - before, 1);
  CHECK_EQ(workload(3), sum0);
  CHECK_EQ(gcacc_warnings - before, 1);

  /* 4. A path in a missing directory.                                  */
  before = gcacc_warnings;
  (void)snprintf(path, sizeof(path), "%s/missing/dump-%%p.gz", dir);
  CHECK(GC_acc_dump_start(path) != GC_SUCCESS);
  CHECK_EQ(gcacc_warnings - before, 1);
  CHECK_EQ(workload(3), sum0);
  CHECK_EQ(gcacc_warnings - before, 1);

  /* 5. Writes failing later: the file may not grow past the header.   */
  before = gcacc_warnings;
  (void)snprintf(path, sizeof(path), "%s/late.gz", dir);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  CHECK_EQ(gcacc_warnings - before, 0);
  CHECK(stat(path, &st) == 0 && st.st_size > 0);
  signal(SIGXFSZ, SIG_IGN);
  CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
  lim = old_lim;
  lim.rlim_cur = (rlim_t)st.st_size + 64;
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  for (i = 0; i < 200; i++) {   /* incompressible enough: random hex */
    int k, m = snprintf(line, sizeof(line), "{\"record\":\"test\",\"i\":%d,"
                        "\"pad\":\"", i);

    for (k = 0; k < 500; k++) line[m++] = "0123456789abcdef"[rand() & 15];
    m += snprintf(line + m, sizeof(line) - (size_t)m, "\"}\n");
    (void)GC_acc_test_dump_submit(line, (size_t)m);
    if (i % 20 == 0) CHECK_EQ(workload(1), sum0 / 6);
  }
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
  CHECK_EQ(gcacc_warnings - before, 1);
  CHECK_EQ(workload(3), sum0);
  CHECK_EQ(gcacc_warnings - before, 1);
  CHECK(stat(path, &st) == 0 && (size_t)st.st_size <= (size_t)lim.rlim_cur);
  unlink(path);
  rmdir(dir);

  /* 6. A child with GC_ACC_DUMP=/dev/full prints what it prints       */
  /* without, exits 0, and warns once on stderr.                        */
  n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  CHECK(n > 0);
  if (n > 0) {
    int s0, s1;

    self[n] = '\0';
    s0 = run_child(self, NULL, NULL, out0, sizeof(out0), err0, sizeof(err0));
    s1 = run_child(self, "GC_ACC_DUMP", "/dev/full", out1, sizeof(out1),
                   err1, sizeof(err1));
    CHECK(WIFEXITED(s0) && WEXITSTATUS(s0) == 0);
    CHECK(WIFEXITED(s1) && WEXITSTATUS(s1) == 0);
    CHECK(strlen(out0) > 0);
    CHECK(strcmp(out0, out1) == 0);
    CHECK_EQ(count_substr(err0, "gcacc"), 0);
    CHECK_EQ(count_substr(err1, "gcacc: cannot write dump file /dev/full"),
             1);
    CHECK_EQ(count_substr(err1, "GC Warning"), 1);

    /* A bad buffer size: one warning naming variable and value.        */
    s1 = run_child(self, "GC_ACC_DUMP_BUFFER", "12q", out1, sizeof(out1),
                   err1, sizeof(err1));
    CHECK(WIFEXITED(s1) && WEXITSTATUS(s1) == 0);
    CHECK(strcmp(out0, out1) == 0);
    CHECK_EQ(count_substr(err1, "GC_ACC_DUMP_BUFFER=12q"), 1);
    CHECK_EQ(count_substr(err1, "GC Warning"), 1);
  }
  CHECK_EQ(other_warnings, 0);
  return check_done("test_writer_ioerr");
}
