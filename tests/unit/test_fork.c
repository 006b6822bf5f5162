/* SPDX-License-Identifier: MIT */
/*
 * test_fork.c: a child forked while other threads intern callsites and
 * pairs does not hang.
 *
 * Accounting's interning locks are spin locks that allocating threads
 * take for every new callsite (GC_ACC_STACKS=all) and new (type, site)
 * pair.  Two threads keep meeting new stacks (recursion to a varying
 * depth, with a new type every few allocations) while the main thread
 * forks again and again; each child allocates through stacks and types
 * it has never seen, so it must take those locks, then exits.  A lock
 * caught held by another thread at the fork would never be released in
 * the child: the parent waits for each child with a deadline, kills it
 * if it is late, and counts it as hung.  (Without the fix, about one
 * child in six hung: 26 of 150.)
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_FORKS 60
#define N_WORKERS 2
#define CHILD_DEADLINE_MS 3000

static volatile int stop = 0;
static void *volatile sink;

/* A new stack for every (depth, worker, round) the recursion reaches.  */
static void __attribute__((noinline)) descend(unsigned depth, GC_word type)
{
  if (depth > 0) {
    descend(depth - 1, type);
  } else {
    GC_acc_set_next_type(type);
    sink = GC_malloc(24);
  }
  __asm__ __volatile__("" ::: "memory");   /* not a tail call */
}

static void *worker(void *arg)
{
  GC_word id = (GC_word)arg, round = 0;

  while (!stop) {
    descend((unsigned)(round % 97), 0x10000 + id * 0x100000 + round * 16);
    round++;
  }
  return NULL;
}

static long ms_since(const struct timespec *t0)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1000L
         + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

int main(void)
{
  pthread_t th[N_WORKERS];
  int i, hung = 0, failed = 0;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  for (i = 0; i < N_WORKERS; i++)
    CHECK_EQ(pthread_create(&th[i], NULL, worker, (void *)(GC_word)i), 0);

  for (i = 0; i < N_FORKS; i++) {
    struct timespec t0;
    int status = 0;
    pid_t pid = fork(), w;

    if (pid == 0) {
      unsigned d;

      /* Stacks and types no thread has met: interning takes the locks. */
      for (d = 0; d < 40; d++)
        descend(100 + d + (unsigned)i, 0x7000000 + (GC_word)i * 64 + d);
      _exit(0);
    }
    if (!CHECK(pid > 0)) break;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while ((w = waitpid(pid, &status, WNOHANG)) == 0
           && ms_since(&t0) < CHILD_DEADLINE_MS) {
      struct timespec ts = { 0, 2000000 };

      nanosleep(&ts, NULL);
    }
    if (0 == w) {
      kill(pid, SIGKILL);
      (void)waitpid(pid, &status, 0);
      hung++;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failed++;
    }
  }
  stop = 1;
  for (i = 0; i < N_WORKERS; i++) (void)pthread_join(th[i], NULL);
  printf("%d forks: %d children hung, %d failed\n", N_FORKS, hung, failed);
  CHECK_EQ(hung, 0);
  CHECK_EQ(failed, 0);
  return check_done("test_fork");
}
