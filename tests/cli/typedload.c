/* SPDX-License-Identifier: MIT */
/*
 * typedload.c: a workload with explicit types and every call stack
 * captured, with known answers, for tests/cli/typed.sh (gcacc diff per
 * type and callsite, export --folded with real stacks, symbolize of the
 * dump's sites).  The dump goes where GC_ACC_DUMP says; what the test
 * checks against is printed on stdout as `name value` lines.
 *
 *   typedload a   keeps WIDGET_N "Widget" and GADGET_N "Gadget part"
 *                 objects, each type from its own function;
 *   typedload b   the same, plus HOARD_N more "Widget" objects from
 *                 hoard_widgets(), a call path run only in b.
 *
 * The two modes use different cookies for the same type names, as two
 * runs of a program would (class pointers move), so the reader must
 * match types by name.  Built with frame pointers (the default unwinder
 * walks them) and -g so that the stacks symbolize.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDGET_N 1000
#define WIDGET_BYTES 40
#define GADGET_N 600
#define GADGET_BYTES 100
#define HOARD_N 2500
#define HOARD_BYTES 200

/* Not static: the stores must not be optimized away as dead.          */
void **typedload_keep[3];

static GC_word cookie_base;             /* differs between a and b     */

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  switch (cookie - cookie_base) {
  case 1: snprintf(buf, sz, "Widget"); return 1;
  case 2: snprintf(buf, sz, "Gadget part"); return 1;
  default: return 0;
  }
}

static NOINLINE void **make_typed(unsigned n, size_t bytes, GC_word type)
{
  void **v = GC_MALLOC(n * sizeof(void *));
  unsigned i;

  if (v == NULL) exit(1);
  for (i = 0; i < n; i++) {
    v[i] = GC_acc_malloc_typed(bytes, type);
    if (v[i] == NULL) exit(1);
  }
  return v;
}

NOINLINE void **build_widgets(void)
{
  void **v = make_typed(WIDGET_N, WIDGET_BYTES, cookie_base + 1);

  __asm__ volatile("" ::: "memory");    /* no tail call */
  return v;
}

NOINLINE void **build_gadgets(void)
{
  void **v = make_typed(GADGET_N, GADGET_BYTES, cookie_base + 2);

  __asm__ volatile("" ::: "memory");
  return v;
}

NOINLINE void **hoard_widgets(void)
{
  void **v = make_typed(HOARD_N, HOARD_BYTES, cookie_base + 1);

  __asm__ volatile("" ::: "memory");
  return v;
}

static int run(int extra)
{
  unsigned i;

  cookie_base = extra ? 0x2000 : 0x1000;
  GC_acc_set_type_namer(namer);
  typedload_keep[0] = build_widgets();
  typedload_keep[1] = build_gadgets();
  collect();
  if (extra) typedload_keep[2] = hoard_widgets();
  for (i = 0; i < 3; i++) {
    void *junk = GC_MALLOC(100);   /* some garbage between collections */

    (void)junk;
    collect();
  }
  printf("extra_type Widget\nextra_function hoard_widgets\n"
         "extra_objs %u\n", extra ? HOARD_N : 0);
  return typedload_keep[0][0] == NULL || typedload_keep[1][0] == NULL;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";

  if (strcmp(mode, "a") != 0 && strcmp(mode, "b") != 0) {
    fprintf(stderr, "usage: typedload a|b\n");
    return 2;
  }
  GC_INIT();
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "typedload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  if (GC_acc_set_profile(GC_ACC_PROFILE_TRACE, 0) != GC_SUCCESS) {
    fprintf(stderr, "typedload: cannot turn stacks on\n");
    return 1;
  }
  return run(strcmp(mode, "b") == 0);
}
