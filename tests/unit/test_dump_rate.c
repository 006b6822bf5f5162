/* SPDX-License-Identifier: MIT */
/*
 * test_dump_rate.c: the dump's records carry what changed since the
 * record before, not every live row again, at any sampling rate
 * (issue 36).
 *
 * A child process (accounting on, the sampled profile at RATE bytes,
 * a dump) allocates NT types x PER objects, all kept alive, then
 * collects IDLE times allocating nothing.  In those idle collections
 * nothing of a type changes but the ages of its objects, whose bins
 * (1, 2-3, 4-7, 8-15, 16-31, 32+) they cross at most 6 times: so at
 * most AGE_STEPS idle records may carry type rows, and they at most
 * NT rows each, whatever the rate.  Run at 1 byte (every object
 * sampled: every type has live samples) and at the default 512 KiB.
 * A record that wrote every live row again (the rows' live columns
 * marked changed at every census) fails it at once: 400 rows in each
 * of 40 records.  The bounds hold whatever the sampler draws.
 */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <zlib.h>

#define NT 400
#define PER 40
#define IDLE 40
#define AGE_STEPS 8     /* 6 bin crossings, and slack for the first two */

static char types[NT];

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

void **rate_keep;               /* not static: the stores must stay */

static void child(const char *rate, const char *path)
{
  int i;

  setenv("GC_ACC_ENABLE", "1", 1);
  setenv("GC_ACC_PROFILE", rate, 1);
  setenv("GC_ACC_DUMP", path, 1);
  unsetenv("GC_ACC_DUMP_KEYFRAME");
  GC_INIT();
  rate_keep = (void **)GC_MALLOC(sizeof(void *) * NT * PER);
  for (i = 0; i < NT * PER; i++) {
    GC_acc_set_next_type((GC_word)&types[i % NT]);
    rate_keep[i] = GC_MALLOC(48);
  }
  GC_gcollect();
  for (i = 0; i < IDLE; i++) GC_gcollect();
  exit(0);
}

/* Rows in the table named key of a record line (0 if none).           */
static unsigned rows_in(const char *line, const char *key)
{
  const char *s = strstr(line, key), *p;
  unsigned n = 0;
  int depth = 0;

  if (NULL == s) return 0;
  for (p = s + strlen(key); *p != '\0'; p++) {
    if ('[' == *p) {
      if (1 == ++depth) n++;
    } else if (']' == *p) {
      if (0 == depth--) break;
    }
  }
  return n;
}

static void one_rate(const char *rate)
{
  char path[] = "/tmp/gcacc-rate-XXXXXX";
  static char line[1 << 22];
  unsigned type_rows[256], site_rows[256], n = 0, i, busy = 0, total = 0;
  int fd = mkstemp(path), st = 0;
  pid_t pid;
  gzFile gz;

  if (!CHECK(fd >= 0)) return;
  close(fd);
  fflush(stdout);
  pid = fork();
  if (0 == pid) child(rate, path);
  if (!CHECK(pid > 0) || !CHECK(waitpid(pid, &st, 0) == pid)
      || !CHECK(WIFEXITED(st) && 0 == WEXITSTATUS(st))) {
    unlink(path);
    return;
  }
  gz = gzopen(path, "rb");
  if (!CHECK(gz != NULL)) return;
  while (gzgets(gz, line, (int)sizeof(line)) != NULL) {
    if (NULL == strstr(line, "\"record\":\"collection\"")) continue;
    if (!CHECK(n < 256)) break;
    type_rows[n] = rows_in(line, "\"type_rows\":[");
    site_rows[n] = rows_in(line, "\"site_rows\":[");
    n++;
  }
  gzclose(gz);
  unlink(path);
  if (!CHECK(n > IDLE)) return;
  /* At 1 byte every object is a sample (each misses with e^-48): the  */
  /* collection after the allocations has a row for every type.        */
  if (0 == strcmp(rate, "sampled=1")) CHECK(type_rows[n - IDLE - 1] >= NT);
  for (i = n - IDLE; i < n; i++) {
    if (type_rows[i] + site_rows[i] != 0) busy++;
    total += type_rows[i];
  }
  printf("%s: %u idle records, %u with rows, %u type rows in all"
         " (after the allocations: %u)\n", rate, IDLE, busy, total,
         type_rows[n - IDLE - 1]);
  if (!CHECK(busy <= AGE_STEPS) || !CHECK(total <= AGE_STEPS * NT))
    fprintf(stderr, "%s: idle records carry rows that did not change\n",
            rate);
}

int main(void)
{
  one_rate("sampled=1");
  one_rate("sampled=512k");
  return check_done("test_dump_rate");
}
