/* SPDX-License-Identifier: MIT */
/*
 * check.h: the tiny harness of gcacc's own tests.  Each failed check
 * prints file:line and what differed; check_done() prints the count and
 * returns the exit status (0 all passed, 1 otherwise) for main to return.
 */
#ifndef GCACC_CHECK_H
#define GCACC_CHECK_H

#include <stdio.h>

static unsigned long check_run_n, check_fail_n;

#define CHECK(cond) check_that((cond) != 0, #cond, __FILE__, __LINE__)
#define CHECK_EQ(a, b) \
  check_eq((unsigned long long)(a), (unsigned long long)(b), #a, #b, \
           __FILE__, __LINE__)

static int check_that(int ok, const char *what, const char *file, int line)
{
  check_run_n++;
  if (!ok) {
    check_fail_n++;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
  }
  return ok;
}

static int check_eq(unsigned long long a, unsigned long long b,
                    const char *as, const char *bs, const char *file, int line)
{
  check_run_n++;
  if (a != b) {
    check_fail_n++;
    fprintf(stderr, "%s:%d: check failed: %s == %s (%llu != %llu)\n", file,
            line, as, bs, a, b);
    return 0;
  }
  return 1;
}

static int check_done(const char *name)
{
  printf("%s: %lu checks, %lu failed\n", name, check_run_n, check_fail_n);
  return check_fail_n != 0;
}

#endif
