/* SPDX-License-Identifier: MIT */
/*
 * dumpload.c: a program that writes a dump of a known size, for the
 * fault tests (tests/faults/dump_targets.sh).
 *
 *   dumpload RECORDS   allocates a little and writes RECORDS snapshot
 *                      records (GC_acc_record_now), a collection every
 *                      50, with the dump GC_ACC_DUMP names
 *
 * Linked with the test library, a static archive (no libtool wrapper
 * script between the test's ulimit and this program), prints "done RECORDS" when its work is
 * over, before exit stops the dump.
 *
 * With DUMPLOAD_PROGRESS=FILE, keeps in FILE (a shared mapping, which
 * outlives a SIGKILL) a native long: the snapshot records asked for so
 * far (GC_acc_record_now returned; 0 until the dump has its header).
 * tests/faults/sigkill_random.sh reads it after the kill: how many
 * records the kill kept from the file, and whether the program was
 * killed before its dump began.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile keep[64];

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000, i;
  int j;
  volatile long *progress = NULL;
  const char *pf = getenv("DUMPLOAD_PROGRESS");

  if (pf != NULL && *pf != '\0') {
    int fd = open(pf, O_RDWR | O_CREAT | O_TRUNC, 0644);
    void *m;

    if (fd < 0 || ftruncate(fd, (off_t)sizeof(long)) != 0) {
      perror(pf);
      return 2;
    }
    m = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (MAP_FAILED == m) {
      perror(pf);
      return 2;
    }
    (void)close(fd);
    progress = (volatile long *)m;
  }
  GC_INIT();
  for (i = 0; i < n; i++) {
    for (j = 0; j < 64; j++)
      keep[j] = GC_MALLOC((size_t)(16 + 16 * ((i + j) % 40)));
    if (i % 50 == 0) GC_gcollect();
    (void)GC_acc_record_now();
    if (progress != NULL) (*progress)++;
  }
  printf("done %ld\n", n);
  fflush(stdout);
  return 0;
}
