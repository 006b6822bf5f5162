/* SPDX-License-Identifier: MIT */
/*
 * env_probe.c: for tests/unit/env_warnings.sh.  Initializes the collector,
 * which reads the GC_ACC_* settings, allocates a little, and prints
 * whether accounting is on; a dump that GC_ACC_DUMP started is closed at
 * exit.  The warnings go to stderr through bdwgc's default warn proc.
 * With the argument "setters", instead checks that the C API setters
 * refuse what the environment refuses (GC_ERROR, setting kept) and take
 * what it takes, and prints "setters ok" or what failed.  With "api",
 * the same at the extremes, with a dump (api_extremes).
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

static int setters(void)
{
  int bad = 0;
  size_t r;

#define WANT(call, res) \
  do { \
    if ((call) != (res)) { \
      printf("setter: %s did not return %s\n", #call, #res); \
      bad = 1; \
    } \
  } while (0)
  WANT(GC_acc_set_dump_buffer_size(100), GC_ERROR);
  WANT(GC_acc_set_dump_buffer_size((size_t)-16), GC_ERROR);
  WANT(GC_acc_set_dump_buffer_size(1 << 20), GC_SUCCESS);
  WANT(GC_acc_set_dump_buffer_size(0), GC_SUCCESS);
  WANT(GC_acc_set_stack_depth(65), GC_ERROR);
  WANT(GC_acc_set_stack_depth(1000000), GC_ERROR);
  WANT(GC_acc_set_stack_depth(8), GC_SUCCESS);
  WANT(GC_acc_set_first_word_type_kinds(1u << 31), GC_ERROR);
  WANT(GC_acc_set_first_word_type_kinds(3), GC_SUCCESS);
  WANT(GC_acc_set_dump_exit_wait(60001), GC_ERROR);
  WANT(GC_acc_set_table_limit(1000), GC_ERROR);
  WANT(GC_acc_set_table_limit(1 << 20), GC_SUCCESS);
  WANT(GC_acc_set_profile(7, 0), GC_ERROR);
  WANT(GC_acc_set_profile(-1, 0), GC_ERROR);
  WANT(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 65536), GC_SUCCESS);
  WANT(GC_acc_get_profile(&r), GC_ACC_PROFILE_SAMPLED);
  WANT(r, 65536);
  WANT(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  WANT(GC_acc_get_profile(NULL), GC_ACC_PROFILE_FULL);
  WANT(GC_acc_set_stacks(9, 0), GC_ERROR);
  WANT(GC_acc_set_unwinder(9), GC_ERROR);
#undef WANT
  if (!bad) printf("setters ok\n");
  return bad;
}

/* "api PATH full|sampled KINDS": the setters given values past what  */
/* dump's reader can read (2^63 and up, more than 1 GiB of buffer, kinds */
/* the collector cannot have) refuse them, one warning each; then each */
/* takes the largest value it accepts (KINDS: the mask of every kind  */
/* the collector can have, from a header's max_obj_kinds), and a dump  */
/* is written to PATH with them (the sampled profile's rate, or under  */
/* full the stacks' sampler's), for env_warnings.sh to read back.      */
static int api_extremes(const char *path, int full, unsigned kinds_max)
{
  int bad = 0, k;
  unsigned long long max = sizeof(size_t) >= 8 ? 0x7fffffffffffffffULL
                                               : (size_t)-1;
  size_t r;

#define WANT(call, res) \
  do { \
    if ((call) != (res)) { \
      printf("api: %s did not return %s\n", #call, #res); \
      bad = 1; \
    } \
  } while (0)
  if (sizeof(size_t) >= 8) {
    /* (Written as shifts: a size_t of 32 bits has no such values.)     */
    size_t big = (size_t)1 << (sizeof(size_t) * 8 - 1);   /* 2^63     */
    size_t top = ~(size_t)15;                             /* 2^64 - 16 */

    WANT(GC_acc_set_table_limit(top), GC_ERROR);
    WANT(GC_acc_set_table_limit(big), GC_ERROR);
    WANT(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, big), GC_ERROR);
    WANT(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, top), GC_ERROR);
  }
  WANT(GC_acc_set_dump_buffer_size(((size_t)1 << 30) + 1), GC_ERROR);
  WANT(GC_acc_set_first_word_type_kinds(0xffffffffu), GC_ERROR);
  WANT(GC_acc_set_stack_depth(65), GC_ERROR);
  WANT(GC_acc_set_dump_exit_wait(60001), GC_ERROR);
  /* The largest values taken.                                          */
  WANT(GC_acc_set_first_word_type_kinds(kinds_max), GC_SUCCESS);
  WANT(GC_acc_set_table_limit((size_t)max), GC_SUCCESS);
  WANT(GC_acc_set_dump_buffer_size((size_t)1 << 30), GC_SUCCESS);
  WANT(GC_acc_set_dump_exit_wait(60000), GC_SUCCESS);
  WANT(GC_acc_set_stack_depth(64), GC_SUCCESS);
  if (full) {
    WANT(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
    WANT(GC_acc_set_stacks(GC_ACC_STACKS_SAMPLE, (size_t)max), GC_SUCCESS);
  } else {
    WANT(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, (size_t)max),
         GC_SUCCESS);
    WANT(GC_acc_get_profile(&r), GC_ACC_PROFILE_SAMPLED);
    WANT(r, (size_t)max);
  }
  WANT(GC_acc_dump_start(path), GC_SUCCESS);
  for (k = 0; k < 1000; k++) (void)GC_MALLOC(32);
  GC_gcollect();
  WANT(GC_acc_dump_stop(), GC_SUCCESS);
#undef WANT
  printf("max %llu kinds 0x%x\n", max, kinds_max);
  if (!bad) printf("api ok\n");
  return bad;
}

int main(int argc, char **argv)
{
  int i;

  GC_INIT();
  if (argc > 1 && strcmp(argv[1], "setters") == 0) return setters();
  if (argc > 4 && strcmp(argv[1], "api") == 0)
    return api_extremes(argv[2], strcmp(argv[3], "full") == 0,
                        (unsigned)strtoul(argv[4], NULL, 0));
  for (i = 0; i < 1000; i++) (void)GC_MALLOC(32);
  printf("enabled %d\n", GC_acc_is_enabled());
  return 0;
}
