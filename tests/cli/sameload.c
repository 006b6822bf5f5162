/* SPDX-License-Identifier: MIT */
/*
 * sameload.c: one workload run as two processes, for tests/cli/identity.sh
 * and tests/browser/compare.sh (issue 23: stable identity across
 * sessions).  Its types have no names but their addresses, as a program
 * without a type namer gets them, and address-space randomisation puts
 * them elsewhere in every run:
 *
 *   - gcj objects of three classes whose vtables are static data of this
 *     executable ("gcj vtable 0x...": the reader should pair them by
 *     module + offset);
 *   - gcj objects of three classes whose vtables are malloc'd at start,
 *     one after another, as a runtime makes its classes ("gcj vtable
 *     0x..." on the heap: paired by their place among such addresses);
 *   - objects of two explicit types whose cookies are addresses of
 *     static data ("type 0x...");
 *   - objects of one named type ("Named.Thing").
 *
 * Every stack is captured (frame pointers, -g).  Each class keeps a known
 * number of objects live through the last collection, in static arrays.
 *
 *   sameload a   the workload
 *   sameload b   the same, plus EXTRA_N more objects of the second heap
 *                class, from grow_extra() (a call path only b runs)
 *
 * Printed on stdout as `name value` lines: what the test checks against
 * (the classes, their objects and bytes, and this run's addresses).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vtable { const char *name; GC_word descr; };

#define N_STATIC 3
#define N_HEAP 3
#define N_COOKIE 2
#define EXTRA_N 1500
#define EXTRA_BYTES 96

static struct vtable static_vt[N_STATIC] = {
  { "S0", 0 }, { "S1", 0 }, { "S2", 0 }
};
static struct vtable *heap_vt[N_HEAP];
static GC_word type_cookie[N_COOKIE];   /* their addresses are the types */
static GC_word named_cookie;

/* Objects kept, per class: count and size.                             */
static const unsigned static_n[N_STATIC] = { 700, 300, 120 };
static const size_t static_sz[N_STATIC] = { 48, 112, 400 };
static const unsigned heap_n[N_HEAP] = { 500, 900, 64 };
static const size_t heap_sz[N_HEAP] = { 64, 96, 1024 };
static const unsigned cookie_n[N_COOKIE] = { 800, 256 };
static const size_t cookie_sz[N_COOKIE] = { 32, 200 };
#define NAMED_N 640
#define NAMED_SZ 80

/* Not static: the stores must not be optimized away as dead.           */
void **sameload_keep[N_STATIC + N_HEAP + N_COOKIE + 2];

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  if (cookie != named_cookie) return 0;
  snprintf(buf, sz, "Named.Thing");
  return 1;
}

/* n objects of bytes each: gcj objects of vtable vt, or (vt NULL) of   */
/* the explicit type; the array that keeps them.                         */
static NOINLINE void **make_objs(unsigned n, size_t bytes, void *vt,
                                 GC_word type)
{
  void **v = GC_MALLOC(n * sizeof(void *));
  unsigned i;

  if (v == NULL) exit(1);
  for (i = 0; i < n; i++) {
    v[i] = vt ? GC_gcj_malloc(bytes, vt) : GC_acc_malloc_typed(bytes, type);
    if (v[i] == NULL) exit(1);
  }
  return v;
}

NOINLINE void **grow_extra(void)
{
  void **v = make_objs(EXTRA_N, EXTRA_BYTES, heap_vt[1], 0);

  __asm__ volatile("" ::: "memory");    /* no tail call */
  return v;
}

static void garbage(void)
{
  unsigned i;

  for (i = 0; i < 2000; i++) {
    void *junk = GC_gcj_malloc(64, &static_vt[i % N_STATIC]);

    (void)junk;
  }
}

static int run(int extra)
{
  unsigned i, k = 0;

  for (i = 0; i < N_HEAP; i++) {
    heap_vt[i] = malloc(sizeof(struct vtable));
    if (heap_vt[i] == NULL) return 1;
    heap_vt[i]->name = "H";
    heap_vt[i]->descr = 0;
  }
  named_cookie = (GC_word)&named_cookie;
  GC_acc_set_type_namer(namer);
  for (i = 0; i < N_STATIC; i++)
    sameload_keep[k++] = make_objs(static_n[i], static_sz[i], &static_vt[i],
                                   0);
  garbage();
  collect();
  for (i = 0; i < N_HEAP; i++)
    sameload_keep[k++] = make_objs(heap_n[i], heap_sz[i], heap_vt[i], 0);
  for (i = 0; i < N_COOKIE; i++)
    sameload_keep[k++] = make_objs(cookie_n[i], cookie_sz[i], NULL,
                                   (GC_word)&type_cookie[i]);
  sameload_keep[k++] = make_objs(NAMED_N, NAMED_SZ, NULL, named_cookie);
  if (extra) sameload_keep[k++] = grow_extra();
  for (i = 0; i < 3; i++) {
    garbage();
    collect();
  }
  for (i = 0; i < N_STATIC; i++)
    printf("static_vtable %p %u %zu\n", (void *)&static_vt[i], static_n[i],
           static_sz[i]);
  for (i = 0; i < N_HEAP; i++)
    printf("heap_vtable %p %u %zu\n", (void *)heap_vt[i], heap_n[i],
           heap_sz[i]);
  for (i = 0; i < N_COOKIE; i++)
    printf("cookie %p %u %zu\n", (void *)&type_cookie[i], cookie_n[i],
           cookie_sz[i]);
  printf("named Named.Thing %u %u\n", NAMED_N, NAMED_SZ);
  printf("extra_vtable %p\nextra_objs %u\nextra_bytes %u\n"
         "extra_function grow_extra\n", (void *)heap_vt[1],
         extra ? EXTRA_N : 0, EXTRA_BYTES);
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";

  if (strcmp(mode, "a") != 0 && strcmp(mode, "b") != 0) {
    fprintf(stderr, "usage: sameload a|b\n");
    return 2;
  }
  GC_INIT();
  GC_init_gcj_malloc(0, NULL);
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "sameload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  if (GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0) != GC_SUCCESS) {
    fprintf(stderr, "sameload: cannot turn stacks on\n");
    return 1;
  }
  return run(strcmp(mode, "b") == 0);
}
