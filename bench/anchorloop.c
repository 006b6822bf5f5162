/* SPDX-License-Identifier: MIT */
/*
 * anchorloop.c: the one loop that the anchor bench (bench/anchor-ratios.sh)
 * runs against bdwgc and against malloc (jemalloc, tcmalloc, glibc).
 *
 *   anchorloop [-n ALLOCATIONS] [-l LIVE] [-s SEED]
 *
 * ALLOCATIONS (default 5,000,000) objects of mixed sizes (16 to 512 bytes,
 * three in four under 128, from a seeded PRNG: every run allocates
 * exactly the same), each stored into slot i % LIVE (default 65,536) of a
 * table, so that LIVE objects are live at any time and each new one
 * replaces the oldest.  Built with -DANCHOR_MALLOC it uses malloc and
 * frees the object it replaces (so an LD_PRELOADed allocator and its
 * sampled heap profile run it); otherwise GC_MALLOC, the replaced object
 * left to the collector (run it with GC_INITIAL_HEAP_SIZE so that builds
 * collect on one schedule).  Prints one line: allocations, live, and
 * collections (0 under malloc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ANCHOR_MALLOC
# define ALLOC(n) malloc(n)
# define RELEASE(p) free(p)
# define COLLECTIONS() 0UL
# define INIT() (void)0
#else
# ifndef GC_THREADS
#  define GC_THREADS
# endif
# include "gc.h"
# define ALLOC(n) GC_MALLOC(n)
# define RELEASE(p) (void)(p)
# define COLLECTIONS() ((unsigned long)GC_get_gc_no())
# define INIT() GC_INIT()
#endif

static uint64_t rng;

static uint32_t next(void)
{
  /* xorshift64*: cheap and the same everywhere. */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static long number(const char *opt, const char *s)
{
  char *end;
  long v = strtol(s, &end, 10);

  if (*s == '\0' || *end != '\0' || v <= 0) {
    fprintf(stderr, "anchorloop: %s wants a positive number, not '%s'\n",
            opt, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv)
{
  long n = 5000000, live = 65536, seed = 1, i;
  void **slots;
  int a;

  for (a = 1; a + 1 < argc; a += 2) {
    if (strcmp(argv[a], "-n") == 0) n = number("-n", argv[a + 1]);
    else if (strcmp(argv[a], "-l") == 0) live = number("-l", argv[a + 1]);
    else if (strcmp(argv[a], "-s") == 0) seed = number("-s", argv[a + 1]);
    else break;
  }
  if (a != argc) {
    fprintf(stderr, "usage: anchorloop [-n ALLOCATIONS] [-l LIVE] [-s SEED]\n");
    return 2;
  }
  rng = 0x9E3779B97F4A7C15ULL * (uint64_t)seed;
  INIT();
  /* The table itself is not collected: static roots would need a GC
     call; an uncollectable object is the same under both builds' cost. */
#ifdef ANCHOR_MALLOC
  slots = calloc((size_t)live, sizeof *slots);
#else
  slots = GC_MALLOC_UNCOLLECTABLE((size_t)live * sizeof *slots);
#endif
  if (slots == NULL) {
    fprintf(stderr, "anchorloop: cannot allocate the table\n");
    return 1;
  }
  for (i = 0; i < n; i++) {
    uint32_t r = next();
    size_t size = (r & 3) ? 16 + (r >> 8) % 112 : 128 + (r >> 8) % 385;
    void **slot = &slots[i % live];
    void *p = ALLOC(size);

    if (p == NULL) {
      fprintf(stderr, "anchorloop: out of memory at allocation %ld\n", i);
      return 1;
    }
    *(volatile char *)p = (char)i;
    RELEASE(*slot);
    *slot = p;
  }
  printf("anchorloop allocs=%ld live=%ld collections=%lu\n", n, live,
         COLLECTIONS());
  return 0;
}
