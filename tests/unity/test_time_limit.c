/* SPDX-License-Identifier: MIT */
/*
 * test_time_limit.c: GC_set_time_limit_ns / GC_get_time_limit_ns share one
 * stored limit with GC_set_time_limit (ms) and GC_set_time_limit_tv
 * (ms + ns): whichever setter ran last, all three getters agree, and no
 * ns add-on from an earlier setter survives (docs/il2cpp.md).
 */
#include "gc.h"
#include "../check.h"

static void agree(unsigned long long ns)
{
  struct GC_timeval_s tv = GC_get_time_limit_tv();

  CHECK_EQ(GC_get_time_limit_ns(), ns);
  CHECK_EQ(GC_get_time_limit(), ns / 1000000U);
  CHECK_EQ(tv.tv_ms, ns / 1000000U);
  CHECK_EQ(tv.tv_nsec, ns % 1000000U);
}

int main(void)
{
  struct GC_timeval_s tv;
  unsigned long long v[] = { 0, 1, 999999, 1000000, 3000000, 2500123,
                             123456789ULL, 998999999999ULL };
  unsigned i;

  GC_INIT();
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    GC_set_time_limit_ns(v[i]);
    agree(v[i]);
  }
  /* ms setter after an ns value with a fraction: the fraction goes.     */
  GC_set_time_limit_ns(7000321);
  GC_set_time_limit(5);
  agree(5000000);
  /* timeval setter, then ns, then ms again.                             */
  tv.tv_ms = 12;
  tv.tv_nsec = 345678;
  GC_set_time_limit_tv(tv);
  agree(12345678);
  GC_set_time_limit_ns(3);
  agree(3);
  GC_set_time_limit(50);
  agree(50000000);
  /* Unlimited, all ways round: Unity's value, and 8.2.2's ms one.       */
  GC_set_time_limit_ns(GC_TIME_UNLIMITED_NS);
  CHECK_EQ(GC_get_time_limit(), GC_TIME_UNLIMITED);
  CHECK_EQ(GC_get_time_limit_ns(), GC_TIME_UNLIMITED_NS);
  GC_set_time_limit_ns(5);
  GC_set_time_limit(GC_TIME_UNLIMITED);
  CHECK_EQ(GC_get_time_limit_ns(), GC_TIME_UNLIMITED_NS);
  CHECK_EQ(GC_get_time_limit_tv().tv_nsec, 0);
  GC_set_time_limit_ns((unsigned long long)GC_TIME_UNLIMITED * 1000000U);
  CHECK_EQ(GC_get_time_limit(), GC_TIME_UNLIMITED);
  /* A collection with a limit set through the ns API still works.       */
  GC_enable_incremental();
  GC_set_time_limit_ns(2000000);
  {
    int k;
    for (k = 0; k < 20000; k++)
      (void)GC_MALLOC(64);
  }
  GC_gcollect();
  agree(2000000);
  return check_done("test_time_limit");
}
