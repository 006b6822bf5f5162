/* SPDX-License-Identifier: MIT */
/*
 * runone.c: run one command, report its wall time and peak RSS.
 *
 *   runone [-o FILE] PROGRAM [ARG...]
 *
 * Forks, execs PROGRAM (PATH searched) with its stdout and stderr sent to
 * FILE (default /dev/null), waits for it with wait4(), and prints one line
 *
 *   <wall_ns> <maxrss_kib> <status> <cpu_ns>
 *
 * where wall_ns is CLOCK_MONOTONIC from just before fork() to just after
 * wait4() returns, maxrss_kib is the child's ru_maxrss (Linux: KiB; its
 * own peak, not that of a process it forked in turn), and status is the
 * exit code, or 128+signal, and cpu_ns the child's user plus system CPU
 * time (all its threads; less disturbed than wall time by other load on
 * the machine, but it counts parallel markers' work and spinning).  Exits with 0 when the line was printed, 2 on
 * a usage or system error.  (A stand-in for GNU time's '%e %M' that needs
 * no extra package and gives nanoseconds.)
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_ns(const struct timeval *tv)
{
  return (long long)tv->tv_sec * 1000000000LL + (long long)tv->tv_usec * 1000;
}

int main(int argc, char **argv)
{
  const char *outfile = "/dev/null";
  int argi = 1, fd, status;
  long long t0, t1;
  struct rusage ru;
  pid_t pid;

  if (argi + 1 < argc && strcmp(argv[argi], "-o") == 0) {
    outfile = argv[argi + 1];
    argi += 2;
  }
  if (argi < argc && strcmp(argv[argi], "--") == 0) argi++;
  if (argi >= argc) {
    fprintf(stderr, "usage: runone [-o FILE] PROGRAM [ARG...]\n");
    return 2;
  }
  fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    fprintf(stderr, "runone: %s: %s\n", outfile, strerror(errno));
    return 2;
  }
  t0 = now_ns();
  pid = fork();
  if (pid < 0) {
    fprintf(stderr, "runone: fork: %s\n", strerror(errno));
    return 2;
  }
  if (pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    execvp(argv[argi], argv + argi);
    fprintf(stderr, "runone: %s: %s\n", argv[argi], strerror(errno));
    _exit(127);
  }
  close(fd);
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "runone: wait4: %s\n", strerror(errno));
      return 2;
    }
  }
  t1 = now_ns();
  printf("%lld %ld %d %lld\n", t1 - t0, ru.ru_maxrss,
         WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0),
         tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime));
  return 0;
}
