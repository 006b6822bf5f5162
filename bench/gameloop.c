/* SPDX-License-Identifier: MIT */
/*
 * gameloop.c: a game-loop allocation workload for the gcacc benchmarks.
 *
 *   gameloop [-f FRAMES] [-n OBJECTS] [-t WORKERS] [-s SEED] [-w PASSES]
 *            [-S]
 *
 * Every frame allocates OBJECTS (default 1500) short-lived entities, as a
 * game's per-frame scratch state would be:
 *   - an entity struct with pointers (GC_MALLOC), linked to a random
 *     earlier entity of the same frame;
 *   - its name, a string of 16..200 bytes (GC_MALLOC_ATOMIC);
 *   - one entity in four also gets an array of 64..4096 bytes, half of
 *     them pointer arrays (GC_MALLOC) into the frame, half plain data
 *     (GC_MALLOC_ATOMIC);
 *   - the frame's table of entities itself (GC_MALLOC).
 * One entity in a hundred is kept in a retained list that lives for the
 * whole run (its name and plain data with it; its links to the frame are
 * cut), so the live heap grows slowly, as a level's persistent state does.
 * Then the frame is "simulated" (every entity read) and dropped.
 *
 * With -w PASSES (default 0), each frame also does PASSES passes of work
 * that allocates nothing, before it is dropped: every entity's position
 * is moved toward its target's, as a game's update step would.  By
 * default a frame is all allocation, which is what an allocator's cost
 * shows most in; a game's frames spend most of their time elsewhere,
 * and -w says how much (docs/design.md, "How much of a frame is
 * allocation").  The PRNG is not drawn in these passes, so every -w
 * allocates the same objects.
 *
 * With -S, names are written by snprintf, as the loop did until session
 * 11 (same bytes, same checksum): some 1,400 instructions a frame's
 * entity more, the density at which the tags issue measured its figures
 * and issue 22 stated its targets for the full and trace profiles
 * (docs/design.md, "Two densities").  Under callgrind its instructions
 * are steady; in wall time snprintf's cost is a coin ASLR tosses per
 * process (docs/design.md, "A bimodal workload"), so `make bench` does
 * not use it.
 *
 * FRAMES (default 3000) are shared between the main thread and WORKERS
 * extra threads (default 0), each with its own retained list.  Everything
 * is driven by a seeded xorshift PRNG, so a run is deterministic apart
 * from the collector's timing.
 *
 * Only gc.h is used: it builds against pristine bdwgc 8.2.2 as well as
 * against gcacc, whose accounting is switched on (or not) from the
 * environment (GC_ACC_ENABLE=1, GC_ACC_DUMP=...).  Prints one line of
 * totals ending in elapsed_ns=<wall time of the loop> and main_cpu_ns=<CPU
 * time of the main thread, from start: what the collector and accounting
 * cost the program's own thread, steal time and the dump writer excluded>.
 *
 * Built with -DGAMELOOP_TYPES (gcacc only: it needs gc_accounting.h), every
 * allocation is first given a type with GC_acc_set_next_type(cookie), as
 * an embedder that tells the collector its types would do.  There are
 * GAMELOOP_NTYPES (2000) cookies, the addresses of the entries of a
 * static table of type descriptors (as a runtime's class pointers), chosen
 * deterministically by what is allocated:
 *   - the frame table: 1 type;
 *   - an entity: one of 1056 "entity kinds", a hash of its id;
 *   - a name: one type per length (16..200: 185 types);
 *   - a pointer array: one type per element count (8..512: 505 types);
 *   - a plain-data array: one per 16-byte bucket of its size (4..256:
 *     253 types).
 * The PRNG is drawn exactly as without types, so both builds allocate the
 * same objects; the only extra work is the type calls (and what gcacc
 * does with the types when accounting is on).
 *
 * Built with -DGAMELOOP_KLASS, every object instead starts with a class
 * pointer, stored right after allocation as IL2CPP stores
 * Il2CppObject.klass: the entity struct gets a klass field first, the
 * frame table, names and arrays a one-word header before their contents.
 * The classes are the same 2,000 table entries as with GAMELOOP_TYPES.
 * Only gc.h is used, so it builds against pristine bdwgc too (the baseline
 * for its ratios); gcacc reads the types from word 0 when run with
 * GC_ACC_FIRST_WORD_TYPES=ptrfree,normal.
 *
 * Built with -DGAMELOOP_GCJ, the same, but every object that holds
 * pointers (entities, frame tables, pointer arrays) is allocated as
 * IL2CPP allocates them, through GC_gcj_malloc with its class (a vtable
 * whose second word is the object's mark descriptor) at word 0; names
 * and plain data stay GC_malloc_atomic with the class stored after.
 * gcj-kind objects dominate, as in an IL2CPP game; gcacc types them by
 * their vtable with no setting at all.
 */

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#ifdef GAMELOOP_GCJ
# include "gc_gcj.h"
# include "gc_mark.h"
# ifndef GAMELOOP_KLASS
#   define GAMELOOP_KLASS       /* the same objects, word 0 the class    */
# endif
#endif
#ifdef GAMELOOP_TYPES
# include "gc_accounting.h"
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WORKERS 16

struct entity {
#ifdef GAMELOOP_KLASS
  const void *klass;       /* word 0: the class, as IL2CPP's objects     */
#endif
  struct entity *target;   /* another entity of the same frame, or NULL  */
  struct entity *keep;     /* next in the retained list                  */
  char *name;              /* atomic, 16..200 bytes                      */
  void *data;              /* 64..4096 bytes, pointers or plain data     */
  unsigned data_len;
  unsigned data_is_ptrs;
  unsigned id;
  int x, y;
};

struct worker {
  unsigned long long rng;
  int frames;
  int objects;
  int passes;                    /* -w: work passes over each frame     */
  struct entity *retained;       /* the long-lived set                  */
  struct entity **volatile frame;/* the current frame (a root)          */
  unsigned long allocs, bytes, kept;
  unsigned long checksum;
};

static struct worker workers[MAX_WORKERS + 1];
static int names_by_snprintf;    /* -S                                  */

static unsigned long long next_rand(unsigned long long *s)
{
  /* xorshift64* */
  unsigned long long x = *s;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static unsigned rand_range(struct worker *w, unsigned lo, unsigned hi)
{
  return lo + (unsigned)(next_rand(&w->rng) % (hi - lo + 1));
}

#if defined(GAMELOOP_TYPES) && defined(GAMELOOP_KLASS)
# error "GAMELOOP_TYPES and GAMELOOP_KLASS are two different programs"
#endif
#if defined(GAMELOOP_TYPES) || defined(GAMELOOP_KLASS)
  /* Type cookies: addresses of a table's entries, as class pointers.   */
# define GAMELOOP_NTYPES 2000
# define T_FRAME 0
# define T_ENTITY 1                     /* 1056 kinds                   */
# define N_ENTITY 1056
# define T_NAME (T_ENTITY + N_ENTITY)   /* by length 16..200: 185       */
# define T_PTRS (T_NAME + 185)          /* by elements 8..512: 505      */
# define T_DATA (T_PTRS + 505)          /* by 16-byte bucket 4..256: 253 */
# ifdef GAMELOOP_GCJ
  /* A gcj vtable: the mark descriptor is its second word.              */
  struct type_desc { GC_word index; GC_word descr; };
# else
  struct type_desc { unsigned index; unsigned kind; };
# endif
  static struct type_desc type_table[GAMELOOP_NTYPES];
  static unsigned entity_kind(unsigned id)
  {
    unsigned h = id * 2654435761u;

    return (h ^ (h >> 15)) % N_ENTITY;
  }
#endif

#ifdef GAMELOOP_TYPES
# define SET_TYPE(i) GC_acc_set_next_type((GC_word)&type_table[i])
#else
# define SET_TYPE(i) (void)0
#endif

#ifdef GAMELOOP_KLASS
  /* Words of header before the contents of a table, name or array; its */
  /* first word gets the class.                                           */
# define HDR_WORDS 1
# define SET_KLASS(p, i) (*(const void **)(void *)(p) = &type_table[i])
#else
# define HDR_WORDS 0
# define SET_KLASS(p, i) (void)0
#endif
#define HDR_BYTES (HDR_WORDS * sizeof(void *))

/* An object that holds pointers, of type i.                            */
#ifdef GAMELOOP_GCJ
# define ALLOC_PTRS(sz, i) GC_GCJ_MALLOC(sz, &type_table[i])
#else
# define ALLOC_PTRS(sz, i) GC_MALLOC(sz)
#endif

static void *die_oom(const char *what)
{
  fprintf(stderr, "gameloop: out of memory (%s)\n", what);
  exit(1);
}

/* Digits of v at p; returns the end.                                   */
static char *put_uint(char *p, unsigned v)
{
  char tmp[12];
  int n = 0;

  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) *p++ = tmp[--n];
  return p;
}

/* The name "entity-FRAME-I" in buf of len bytes, cut as snprintf cuts  */
/* (at most len - 1 characters, then a NUL).  Not snprintf itself: on  */
/* this project's machines glibc's snprintf takes either about 48 or    */
/* about 90 ns a call depending on the stack's alignment, which ASLR   */
/* draws anew for every process, so it made whole runs some 13% faster  */
/* or slower at random (docs/design.md, "A bimodal workload").          */
static void put_name(char *buf, unsigned len, unsigned frame_no, unsigned i)
{
  char tmp[32], *p = tmp;
  size_t n;

  memcpy(p, "entity-", 7);
  p = put_uint(p + 7, frame_no);
  *p++ = '-';
  p = put_uint(p, i);
  n = (size_t)(p - tmp);
  if (n > len - 1) n = len - 1;
  memcpy(buf, tmp, n);
  buf[n] = '\0';
}

static void run_frame(struct worker *w, unsigned frame_no)
{
  int n = w->objects, i, p;
  struct entity **frame;
  unsigned long sum = 0;

  SET_TYPE(T_FRAME);
  frame = (struct entity **)ALLOC_PTRS(HDR_BYTES + n * sizeof(*frame),
                                       T_FRAME);
  if (NULL == frame) die_oom("frame");
  SET_KLASS(frame, T_FRAME);
  w->frame = frame;
  frame += HDR_WORDS;   /* an interior pointer, held while w->frame is */
  w->allocs++;
  w->bytes += HDR_BYTES + n * sizeof(*frame);

  for (i = 0; i < n; i++) {
    unsigned id = frame_no * (unsigned)n + (unsigned)i;
    struct entity *e;
    unsigned len;

    SET_TYPE(T_ENTITY + entity_kind(id));
    e = (struct entity *)ALLOC_PTRS(sizeof(*e), T_ENTITY + entity_kind(id));
    len = rand_range(w, 16, 200);
    if (NULL == e) die_oom("entity");
    SET_KLASS(e, T_ENTITY + entity_kind(id));
    e->id = id;
    e->x = (int)rand_range(w, 0, 1023);
    e->y = (int)rand_range(w, 0, 1023);
    SET_TYPE(T_NAME + (len - 16));
    e->name = (char *)GC_MALLOC_ATOMIC(HDR_BYTES + len);
    if (NULL == e->name) die_oom("name");
    SET_KLASS(e->name, T_NAME + (len - 16));
    if (names_by_snprintf)
      (void)snprintf(e->name + HDR_BYTES, len, "entity-%u-%d", frame_no, i);
    else
      put_name(e->name + HDR_BYTES, len, frame_no, (unsigned)i);
    e->target = i > 0 ? frame[rand_range(w, 0, (unsigned)i - 1)] : NULL;
    w->allocs += 2;
    w->bytes += sizeof(*e) + HDR_BYTES + len;

    if (rand_range(w, 0, 3) == 0) {
      unsigned sz = rand_range(w, 64, 4096);

      e->data_len = sz;
      e->data_is_ptrs = rand_range(w, 0, 1);
      if (e->data_is_ptrs) {
        struct entity **p;
        unsigned k, np = sz / sizeof(*p);

        SET_TYPE(T_PTRS + (sz / 8 - 8));
        p = (struct entity **)ALLOC_PTRS(HDR_BYTES + sz, T_PTRS + (sz / 8 - 8));
        if (NULL == p) die_oom("pointer array");
        SET_KLASS(p, T_PTRS + (sz / 8 - 8));
        for (k = 0; k < np && i > 0; k += 8)
          p[HDR_WORDS + k] = frame[rand_range(w, 0, (unsigned)i - 1)];
        e->data = p;
      } else {
        unsigned char *d;

        SET_TYPE(T_DATA + (sz / 16 - 4));
        d = (unsigned char *)GC_MALLOC_ATOMIC(HDR_BYTES + sz);
        if (NULL == d) die_oom("data array");
        SET_KLASS(d, T_DATA + (sz / 16 - 4));
        memset(d + HDR_BYTES, (int)(e->id & 0xff), sz);
        e->data = d;
      }
      w->allocs++;
      w->bytes += HDR_BYTES + sz;
    }
    frame[i] = e;

    if (rand_range(w, 0, 99) == 0) {
      /* Keep it: cut its links into the frame so only it (and its own  */
      /* name and plain data) outlive the frame.                        */
      e->target = NULL;
      if (e->data_is_ptrs) {
        e->data = NULL;
        e->data_len = 0;
        e->data_is_ptrs = 0;
      }
      e->keep = w->retained;
      w->retained = e;
      w->kept++;
    }
  }

  /* Work that allocates nothing: each pass moves every entity a step   */
  /* toward its target (integer arithmetic on the frame's own objects). */
  for (p = 0; p < w->passes; p++) {
    for (i = 0; i < n; i++) {
      struct entity *e = frame[i];
      const struct entity *t = e->target != NULL ? e->target : e;

      e->x += (t->x - e->x + (int)(e->id & 7) - 3) / 4;
      e->y += (t->y - e->y + (int)(e->id >> 3 & 7) - 3) / 4;
      e->x &= 1023;
      e->y &= 1023;
    }
  }

  /* Simulate: every entity reads its neighbour and its data.            */
  for (i = 0; i < n; i++) {
    struct entity *e = frame[i];

    sum += (unsigned long)e->x * 31u + (unsigned long)e->y
           + e->name[HDR_BYTES + 7];
    if (e->target) sum ^= e->target->id;
    if (e->data && !e->data_is_ptrs)
      sum += ((unsigned char *)e->data)[HDR_BYTES + e->data_len - 1];
  }
  w->checksum = w->checksum * 1000003u ^ sum;
  w->frame = NULL;
}

static void *worker_main(void *arg)
{
  struct worker *w = (struct worker *)arg;
  int f;

  for (f = 0; f < w->frames; f++) run_frame(w, (unsigned)f);
  return NULL;
}

static long long clock_ns(clockid_t id)
{
  struct timespec ts;

  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ns(void)
{
  return clock_ns(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
  int frames = 3000, objects = 1500, nworkers = 0, passes = 0, i;
  unsigned long long seed = 20240611ULL;
  pthread_t th[MAX_WORKERS];
  unsigned long allocs = 0, bytes = 0, kept = 0, checksum = 0;
  long long t0, t1, main_cpu;

  for (i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "-f") == 0) frames = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "-n") == 0)
      objects = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "-t") == 0)
      nworkers = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "-s") == 0)
      seed = strtoull(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "-w") == 0)
      passes = atoi(argv[++i]);
    else if (strcmp(argv[i], "-S") == 0)
      names_by_snprintf = 1;
    else {
      fprintf(stderr, "usage: gameloop [-f FRAMES] [-n OBJECTS] "
                      "[-t WORKERS] [-s SEED] [-w PASSES] [-S]\n");
      return 2;
    }
  }
  if (frames < 1 || objects < 1 || nworkers < 0 || nworkers > MAX_WORKERS
      || passes < 0) {
    fprintf(stderr, "gameloop: bad arguments (workers: 0..%d, passes: "
            ">= 0)\n", MAX_WORKERS);
    return 2;
  }

  GC_INIT();
#ifdef GAMELOOP_TYPES
  for (i = 0; i < GAMELOOP_NTYPES; i++) type_table[i].index = (unsigned)i;
#endif
#ifdef GAMELOOP_GCJ
  /* Each class's descriptor: its objects' pointer-holding length, as a  */
  /* conservative length (GC_DS_LENGTH).  Pointer arrays of one type    */
  /* differ by less than a word: the floor covers every pointer stored. */
  GC_init_gcj_malloc(0, NULL);
  type_table[T_FRAME].descr = (HDR_BYTES + (GC_word)objects
                               * sizeof(struct entity *)) | GC_DS_LENGTH;
  for (i = 0; i < N_ENTITY; i++)
    type_table[T_ENTITY + i].descr = sizeof(struct entity) | GC_DS_LENGTH;
  for (i = 0; i < 505; i++)
    type_table[T_PTRS + i].descr = (HDR_BYTES + (GC_word)(i + 8) * 8)
                                   | GC_DS_LENGTH;
#endif
  t0 = now_ns();
  for (i = 0; i <= nworkers; i++) {
    struct worker *w = &workers[i];

    w->rng = seed * 2654435761ULL + (unsigned long long)i * 0x9E3779B97F4A7C15ULL + 1;
    w->objects = objects;
    w->passes = passes;
    w->frames = frames / (nworkers + 1) + (i < frames % (nworkers + 1));
  }
  for (i = 1; i <= nworkers; i++) {
    if (pthread_create(&th[i - 1], NULL, worker_main, &workers[i]) != 0) {
      fprintf(stderr, "gameloop: cannot create worker %d\n", i);
      return 1;
    }
  }
  worker_main(&workers[0]);
  for (i = 1; i <= nworkers; i++) pthread_join(th[i - 1], NULL);
  t1 = now_ns();
  main_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

  for (i = 0; i <= nworkers; i++) {
    allocs += workers[i].allocs;
    bytes += workers[i].bytes;
    kept += workers[i].kept;
    checksum ^= workers[i].checksum;
  }
  printf("gameloop%s frames=%d objects/frame=%d workers=%d passes=%d "
         "allocs=%lu bytes=%lu retained=%lu collections=%lu heap=%lu "
         "checksum=%lx elapsed_ns=%lld main_cpu_ns=%lld\n",
#if defined(GAMELOOP_TYPES)
         "-typed",
#elif defined(GAMELOOP_GCJ)
         "-gcj",
#elif defined(GAMELOOP_KLASS)
         "-klass",
#else
         "",
#endif
         frames, objects, nworkers, passes, allocs, bytes, kept,
         (unsigned long)GC_get_gc_no(), (unsigned long)GC_get_heap_size(),
         checksum, t1 - t0, main_cpu);
  return 0;
}
