/* SPDX-License-Identifier: MIT */
/*
 * test_sampled_freed.c: objects the program dropped are freed with
 * accounting on, every object sampled and a dump written, as they are
 * with accounting off (issue 36, the heap's drift).
 *
 * A child process allocates N objects of mixed sizes (small ones on the
 * thread-local path, some past the thread-local sizes, some large),
 * each watched by a disappearing link kept in malloc's memory (which
 * the collector does not scan), drops them all, clears its stack and
 * collects twice; it exits with the number of links not cleared, that
 * is objects still retained.  Run with accounting off, then on with the
 * sampled profile at 1 byte (every object a sample, its stack taken)
 * and a dump.  A heap address that accounting left where the collector
 * looks for roots (its static or thread-local data, a buffer of the
 * collector's heap, the writer thread's stack if it were scanned)
 * would retain up to every sampled object: the test allows on the
 * heap's side only what a conservative collector's stale words may
 * keep (SLACK objects, and no more than off keeps plus SLACK).
 */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"

#define N 20000
#define SLACK 16

static void **links;            /* malloc'd: not a root */

static void __attribute__((noinline)) make(void)
{
  int i;

  for (i = 0; i < N; i++) {
    size_t sz = 16 + (size_t)(i % 61) * 8;      /* 16 to 496 bytes    */
    void *p;

    if (i % 97 == 0) sz = 1024 + (size_t)(i % 5) * 512;   /* global */
    if (i % 1009 == 0) sz = 3 * 4096;                      /* large  */
    p = GC_MALLOC(sz);
    if (NULL == p) exit(252);
    links[i] = p;
    if (GC_general_register_disappearing_link(&links[i], p) != GC_SUCCESS)
      exit(253);
  }
}

static void __attribute__((noinline)) clear_stack(void)
{
  volatile char buf[64 * 1024];

  memset((char *)buf, 0, sizeof buf);
}

static void child(int on, const char *path)
{
  int i, kept = 0;

  if (on) {
    setenv("GC_ACC_ENABLE", "1", 1);
    setenv("GC_ACC_PROFILE", "sampled=1", 1);
    setenv("GC_ACC_DUMP", path, 1);
  } else {
    setenv("GC_ACC_ENABLE", "0", 1);
    unsetenv("GC_ACC_DUMP");
  }
  GC_INIT();
  links = malloc(sizeof(void *) * N);
  if (NULL == links) exit(254);
  make();
  clear_stack();
  GC_gcollect();
  clear_stack();
  GC_gcollect();
  for (i = 0; i < N; i++)
    if (links[i] != NULL) kept++;
  exit(kept > 250 ? 250 : kept);
}

/* The number of objects the child kept, or -1. */
static int run(int on)
{
  char path[] = "/tmp/gcacc-freed-XXXXXX";
  int fd = mkstemp(path), st = 0;
  pid_t pid;

  if (!CHECK(fd >= 0)) return -1;
  close(fd);
  fflush(stdout);
  pid = fork();
  if (0 == pid) child(on, path);
  if (!CHECK(pid > 0) || !CHECK(waitpid(pid, &st, 0) == pid)) {
    unlink(path);
    return -1;
  }
  unlink(path);
  if (!CHECK(WIFEXITED(st)) || !CHECK(WEXITSTATUS(st) <= 250)) return -1;
  return WEXITSTATUS(st);
}

int main(void)
{
  int off = run(0), on = run(1);

  printf("dropped %d objects: %d retained with accounting off, %d with"
         " every object sampled and a dump\n", N, off, on);
  if (off < 0 || on < 0) return check_done("test_sampled_freed");
  CHECK(off <= SLACK);
  if (!CHECK(on <= SLACK) || !CHECK(on <= off + SLACK))
    fprintf(stderr, "test_sampled_freed: accounting keeps dropped objects"
            " alive (%d retained; off: %d)\n", on, off);
  return check_done("test_sampled_freed");
}
