/* SPDX-License-Identifier: MIT */
/*
 * manysites.c: many live callsites and types, for the size of gcacc's
 * dump records and side tables (bench/README.md, "manysites").
 *
 *   manysites [-r ROUNDS] [-s SITES] [-g GARBAGE] [-t TYPES]
 *
 * Allocates from SITES (default 20000) distinct call stacks and keeps an
 * object from each alive, with TYPES (default 2000) type cookies, so that
 * with GC_ACC_STACKS=all every collection record has about SITES live
 * callsites and TYPES live types.
 *
 * The call stacks come from recursion, not from generated code: site i
 * (0 <= i < SITES) is reached as
 *
 *   root_(i >> 14)  ->  s13  ->  s12  ->  ...  ->  s0  ->  leaf
 *
 * where s_k is step_a or step_b as bit k of i is 0 or 1: two distinct
 * noinline functions, each with two distinct call instructions (to step_a
 * and to step_b), so the return addresses of the chain spell out the 14
 * bits.  With the default GC_ACC_STACK_DEPTH of 16 a captured stack is
 * leaf, s0..s13 and the root: 16,384 distinct stacks per root, and four
 * roots allow up to 65,536 sites.  Build with frame pointers
 * (-fno-omit-frame-pointer, as build-variants.sh does) for the fp unwinder.
 *
 * Each round visits every site once, in order; the leaf allocates the
 * site's kept object (16..128 bytes, replacing the previous one: it dies)
 * and GARBAGE (default 3) short-lived objects, each preceded by
 * GC_acc_set_next_type(cookie of type i % TYPES).  ROUNDS defaults to 20.
 * Prints one line of totals.
 */

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
# define NOINLINE __attribute__((noinline, noclone))
#elif defined(__GNUC__)
# define NOINLINE __attribute__((noinline))
#else
# define NOINLINE
#endif
/* After every call: no tail calls (they would drop frames).           */
#define BARRIER() __asm__ __volatile__("" ::: "memory")

#define MAX_SITES (4 << 14)
#define MAX_TYPES 65536
#define TOP_BIT 13

static void **kept;                     /* GC_MALLOC'd: kept[i] per site */
static unsigned ntypes = 2000, ngarbage = 3;
static struct { unsigned index; } type_table[MAX_TYPES];
static volatile unsigned long visits_a, visits_b, checksum;
static unsigned long allocs, bytes;

static NOINLINE void leaf(unsigned i)
{
  GC_word cookie = (GC_word)&type_table[i % ntypes];
  size_t sz = 16 + 16 * (i % 8);
  unsigned g;
  void *p;

  /* One allocation call, so one site per stack: GARBAGE objects that  */
  /* die at once, then the kept one.                                    */
  for (g = 0; g <= ngarbage; g++) {
    GC_acc_set_next_type(cookie);
    p = GC_MALLOC(sz);
    if (NULL == p) { fprintf(stderr, "manysites: out of memory\n"); exit(1); }
    ((GC_word *)p)[0] = i;
    checksum += g;
  }
  kept[i] = p;
  allocs += ngarbage + 1;
  bytes += (ngarbage + 1) * sz;
  BARRIER();
}

static NOINLINE void step_b(unsigned i, int bit);

static NOINLINE void step_a(unsigned i, int bit)
{
  visits_a++;
  if (bit < 0) leaf(i);
  else if ((i >> bit) & 1) step_b(i, bit - 1);
  else step_a(i, bit - 1);
  BARRIER();
}

static NOINLINE void step_b(unsigned i, int bit)
{
  visits_b += 3;
  if (bit < 0) leaf(i);
  else if ((i >> bit) & 1) step_b(i, bit - 1);
  else step_a(i, bit - 1);
  BARRIER();
}

#define ROOT(n) \
  static NOINLINE void root_##n(unsigned i) \
  { \
    checksum += n; \
    if ((i >> TOP_BIT) & 1) step_b(i, TOP_BIT - 1); \
    else step_a(i, TOP_BIT - 1); \
    BARRIER(); \
  }
ROOT(0)
ROOT(1)
ROOT(2)
ROOT(3)

int main(int argc, char **argv)
{
  unsigned nsites = 20000, i;
  int rounds = 20, r;

  for (r = 1; r < argc; r++) {
    if (r + 1 < argc && strcmp(argv[r], "-r") == 0) rounds = atoi(argv[++r]);
    else if (r + 1 < argc && strcmp(argv[r], "-s") == 0)
      nsites = (unsigned)atoi(argv[++r]);
    else if (r + 1 < argc && strcmp(argv[r], "-g") == 0)
      ngarbage = (unsigned)atoi(argv[++r]);
    else if (r + 1 < argc && strcmp(argv[r], "-t") == 0)
      ntypes = (unsigned)atoi(argv[++r]);
    else {
      fprintf(stderr, "usage: manysites [-r ROUNDS] [-s SITES] "
                      "[-g GARBAGE] [-t TYPES]\n");
      return 2;
    }
  }
  if (rounds < 1 || nsites < 1 || nsites > MAX_SITES || ntypes < 1
      || ntypes > MAX_TYPES) {
    fprintf(stderr, "manysites: bad arguments (sites 1..%d, types 1..%d)\n",
            MAX_SITES, MAX_TYPES);
    return 2;
  }
  GC_INIT();
  for (i = 0; i < ntypes; i++) type_table[i].index = i;
  kept = (void **)GC_MALLOC(nsites * sizeof(*kept));
  if (NULL == kept) { fprintf(stderr, "manysites: out of memory\n"); return 1; }

  for (r = 0; r < rounds; r++) {
    for (i = 0; i < nsites; i++) {
      switch (i >> 14) {
      case 0: root_0(i); break;
      case 1: root_1(i); break;
      case 2: root_2(i); break;
      default: root_3(i); break;
      }
    }
  }
  for (i = 0; i < nsites; i++) checksum += ((GC_word *)kept[i])[0];
  printf("manysites rounds=%d sites=%u types=%u garbage=%u allocs=%lu "
         "bytes=%lu collections=%lu heap=%lu checksum=%lx\n",
         rounds, nsites, ntypes, ngarbage, allocs, bytes,
         (unsigned long)GC_get_gc_no(), (unsigned long)GC_get_heap_size(),
         (unsigned long)checksum);
  return 0;
}
