/*
 * env_probe.c: for tests/unit/env_warnings.sh.  Initializes the collector,
 * which reads the GC_ACC_* settings, allocates a little, and prints
 * whether accounting is on; a dump that GC_ACC_DUMP started is closed at
 * exit.  The warnings go to stderr through bdwgc's default warn proc.
 * With the argument "setters", instead checks that the C API setters
 * refuse what the environment refuses (GC_ERROR, setting kept) and take
 * what it takes, and prints "setters ok" or what failed.
 */
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>

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

int main(int argc, char **argv)
{
  int i;

  GC_INIT();
  if (argc > 1 && strcmp(argv[1], "setters") == 0) return setters();
  for (i = 0; i < 1000; i++) (void)GC_MALLOC(32);
  printf("enabled %d\n", GC_acc_is_enabled());
  return 0;
}
