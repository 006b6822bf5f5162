/* SPDX-License-Identifier: MIT */
/*
 * test_nofp.c: deep sampled stacks on code built without frame pointers
 * (issue 33, item 3).
 *
 * Built with -fomit-frame-pointer (tests.am); the chain a -> b -> c ->
 * capture runs with rbp zeroed in b, as code that uses rbp as an
 * ordinary register may leave it, so a frame-pointer walk sees c and
 * stops.  With the default unwinder (auto):
 *  (a) a sampled stack (GC_ACC_STACKS=sample=1: every allocation a
 *      sample) is c, b, a in that order, as the unwind tables say;
 *  (b) a stack on every allocation (GC_ACC_STACKS=all) takes the
 *      frame-pointer walk, the documented trade-off: c alone;
 *  (c) GC_ACC_UNWIND=fp (GC_acc_set_unwinder) keeps the frame-pointer
 *      walk for samples too, and libgcc takes the tables for every stack.
 * x86-64 with glibc 2.35 or later only (elsewhere auto is fp: skipped).
 *
 * `test_nofp alloc`: allocations through the same kind of chain (al_a ->
 * al_b -> al_c -> GC_MALLOC) under the environment's settings, for
 * tests/cli/stack_depth.sh (the summary's depth figures and warning).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <dlfcn.h>
#include <string.h>
#include <stdio.h>

/* No frame pointers in this file whatever CFLAGS say (a configure     */
/* rerun by config.status can append -fno-omit-frame-pointer after     */
/* tests.am's -fomit-frame-pointer), and gcc refuses to clobber rbp in */
/* a function that keeps one.                                           */
#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC optimize("omit-frame-pointer")
#endif

unsigned nf_a(void), nf_b(void), nf_c(void);

NOINLINE unsigned nf_c(void)
{
  unsigned r = GC_acc_capture_site(64);
  KEEP(r);
  return r;
}

NOINLINE unsigned nf_b(void)
{
  unsigned r;

#if defined(__x86_64__)
  __asm__ __volatile__("xorl %%ebp, %%ebp" : : : "rbp", "memory");
#endif
  r = nf_c();
  KEEP(r);
  return r;
}

NOINLINE unsigned nf_a(void)
{
  unsigned r = nf_b();
  KEEP(r);
  return r;
}

unsigned long al_a(int), al_b(int), al_c(int);

NOINLINE unsigned long al_c(int i)
{
  void *p = GC_MALLOC(32 + (size_t)(i & 7) * 16);
  unsigned long r = (unsigned long)(p != NULL);

  KEEP(r);
  return r;
}

NOINLINE unsigned long al_b(int i)
{
  unsigned long r;

#if defined(__x86_64__)
  __asm__ __volatile__("xorl %%ebp, %%ebp" : : : "rbp", "memory");
#endif
  r = al_c(i);
  KEEP(r);
  return r;
}

NOINLINE unsigned long al_a(int i)
{
  unsigned long r = al_b(i);
  KEEP(r);
  return r;
}

static const char *name_of(GC_word ra)
{
  Dl_info di;

  if (0 == ra || !dladdr((void *)(ra - 1), &di) || NULL == di.dli_sname)
    return "?";
  return di.dli_sname;
}

/* The names of site id's frames, "c b a ..." (at most 3).              */
static const char *names(unsigned id, char *buf, size_t sz)
{
  GC_word f[16];
  int n = GC_acc_site_frames(id, f, 16), i;
  size_t used = 0;

  buf[0] = '\0';
  for (i = 0; i < n && i < 3; i++)
    used += (size_t)snprintf(buf + used, used < sz ? sz - used : 0, "%s%s",
                             i ? " " : "", name_of(f[i]));
  return buf;
}

static void expect(const char *what, unsigned id, const char *want)
{
  char buf[256];

  names(id, buf, sizeof(buf));
  if (!CHECK(strcmp(buf, want) == 0))
    fprintf(stderr, "  %s: stack \"%s\", expected \"%s\"\n", what, buf, want);
}

int main(int argc, char **argv)
{
#ifndef GC_TEST_TABLE_WALK
  (void)argc;
  (void)argv;
  printf("SKIP: x86-64 with glibc 2.35 or later only\n");
  return 77;
#else
  GC_INIT();
  if (argc > 1 && strcmp(argv[1], "alloc") == 0) {
    unsigned long n = 0;
    int i;

    for (i = 0; i < 200000; i++) n += al_a(i);
    GC_gcollect();
    return n == 200000 ? 0 : 1;
  }
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  GC_acc_set_stack_depth(16);

  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 1), GC_SUCCESS);
  expect("sampled, auto", nf_a(), "nf_c nf_b nf_a");
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  expect("every allocation, auto", nf_a(), "nf_c");

  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_FP), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 1), GC_SUCCESS);
  expect("sampled, fp", nf_a(), "nf_c");
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_LIBGCC), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  expect("every allocation, libgcc", nf_a(), "nf_c nf_b nf_a");
  CHECK_EQ(GC_acc_set_unwinder(GC_ACC_UNWIND_AUTO), GC_SUCCESS);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, 1), GC_SUCCESS);
  expect("sampled, auto again", nf_a(), "nf_c nf_b nf_a");
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  return check_done("test_nofp");
#endif
}
