/* SPDX-License-Identifier: MIT */
/*
 * test_fork_counts.c: a child forked while another thread counts on its
 * thread-local free lists keeps the counts the parent last read.
 *
 * With tags off, a thread's pops are counted in its own
 * thread_local_freelists (GCA_TLFS_FIELDS), which the sums read through
 * the thread's record.  In a child after fork() only the forking thread
 * lives on, and upstream's fork handler frees the other threads' structs
 * before accounting's runs: their records must keep what the last sum
 * read, so the child's counts never fall below what the parent had
 * already reported, and then count the child's own allocations exactly.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"

#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKER_SIZE 40          /* the worker's objects: one class      */
#define CHILD_SIZE 72           /* the child's: another                 */
#define CHILD_OBJS 1000

static volatile int stop = 0;
static volatile GC_word worker_allocs = 0;
static void *volatile sink;

static void *worker(void *arg)
{
  (void)arg;
  while (!stop) {
    sink = GC_malloc(WORKER_SIZE);
    worker_allocs++;
  }
  return NULL;
}

static GC_word class_allocs(size_t lb)
{
  struct GC_acc_class_stats_s s;
  void *p = GC_malloc(lb);      /* its class, from a probe object     */
  unsigned cls = GC_acc_size_class(GC_size(p));

  memset(&s, 0, sizeof(s));
  CHECK_EQ(GC_acc_get_class_stats(1 /* NORMAL */, cls, &s, sizeof(s)),
           sizeof(s));
  return s.alloc_objs;
}

/* The child: its counts start where the parent's last read left them,  */
/* and count its own allocations exactly.                               */
static int child(GC_word parent_worker_class, GC_word parent_total)
{
  static void *volatile big[64];
  struct GC_acc_stats_s st;
  GC_word before, after;
  int i;

  /* Reuse the heap blocks upstream's handler freed (the worker's      */
  /* thread struct among them): cleared, they would show a count that */
  /* was read from freed memory.                                       */
  for (i = 0; i < 64; i++) big[i] = GC_malloc(4000);
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  if (!CHECK(st.allocs >= parent_total))
    fprintf(stderr, "  child: %lu allocations, parent had read %lu\n",
            (unsigned long)st.allocs, (unsigned long)parent_total);
  if (!CHECK(class_allocs(WORKER_SIZE) >= parent_worker_class))
    fprintf(stderr, "  child: the worker's class fell below the parent's\n");
  before = class_allocs(CHILD_SIZE);
  for (i = 0; i < CHILD_OBJS; i++) sink = GC_malloc(CHILD_SIZE);
  after = class_allocs(CHILD_SIZE);
  /* +1: class_allocs' own probe object.                                */
  CHECK_EQ(after - before, CHILD_OBJS + 1);
  return check_done("test_fork_counts (child)");
}

int main(void)
{
  pthread_t th;
  struct GC_acc_stats_s st;
  GC_word worker_class;
  int round, status;

  GC_INIT();
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
  CHECK_EQ(pthread_create(&th, NULL, worker, NULL), 0);
  for (round = 0; round < 5; round++) {
    pid_t pid;
    GC_word target = worker_allocs + 200000;

    while (worker_allocs < target) sched_yield();
    /* A sum: the worker's fast-path counts are read (and kept).        */
    worker_class = class_allocs(WORKER_SIZE);
    CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
    if (!CHECK(worker_class > 0)) break;
    pid = fork();
    if (0 == pid) _exit(child(worker_class, st.allocs));
    if (!CHECK(pid > 0)) break;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    if (!CHECK(WIFEXITED(status) && 0 == WEXITSTATUS(status)))
      fprintf(stderr, "  child of round %d failed (status 0x%x)\n", round,
              status);
  }
  stop = 1;
  CHECK_EQ(pthread_join(th, NULL), 0);
  return check_done("test_fork_counts");
}
