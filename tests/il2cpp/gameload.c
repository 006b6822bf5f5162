/* SPDX-License-Identifier: MIT */
/*
 * gameload.c: an il2cpp-shaped game for the il2cpp type mode, with its
 * own ground truth (tests/il2cpp/gameload.sh checks the dump against it).
 *
 * Objects are laid out and allocated as IL2CPP does (il2cpp_shape.h):
 * classes malloc'd outside the collected heap, each with its self-
 * pointer; ALLOC_PTRFREE for strings, Int32[] and Byte[] and small value
 * objects, ALLOC_OBJECT for reference arrays, ALLOC_TYPED (gcj) for
 * objects with references.  Nothing tells the collector about types:
 * the il2cpp mode (GC_ACC_TYPES=il2cpp, or `--api`, which calls
 * GC_acc_set_type_mode as a build without getenv must) reads them.
 *
 *   gameload game [--api DUMP]   (--api: settings by API calls, the
 *       profile trace unless GC_ACC_PROFILE=sampled[=BYTES] asks)
 *       FRAMES frames, each marked with GC_acc_frame: bullets (a ring of
 *       the newest kept), strings and Object[] holding some of them,
 *       Int32[] score arrays (a ring), a leak (two Game.EventRecord a
 *       frame appended to a list, from record_event()), the
 *       fragmentation pattern (many short-lived Game.Particle between
 *       long-lived Game.Enemy of the same size, one kept in ENEMY_EVERY,
 *       then every BURST_EVERY frames a burst of large Byte[] dropped
 *       the next frame), a GlobalThing (empty namespace) now and then.
 *       Prints, as `name value` lines: per frame `frame N objs bytes`
 *       (every object the frame allocated, bytes as the collector
 *       grants them), the leak (`leak_class`, `leak_function`), the
 *       fragmentation's class (`frag_class_bytes`), and at the end,
 *       after a last collection, `live CLASS objs bytes max_obj_bytes`
 *       per class (max_obj_bytes: its largest object allocated) and
 *       `allowance N`.
 *   gameload session [--api DUMP]
 *       The same game, SESSION_FRAMES frames leaking SESSION_LEAK records
 *       a frame: long and leaky enough for the default sampled profile.
 *   gameload session-b [--api DUMP]
 *       The session after a change, for the demo's Compare: the leak
 *       twice as fast and twice the strings a frame.
 *   gameload garbage [--api DUMP]
 *       Word 0 that is not a class: random values, pointers to unmapped
 *       memory, and a class struct in a page unmapped before any
 *       collection saw its objects, in NORMAL and PTRFREE objects, next
 *       to valid Game.Bullet objects; collections must not fault.
 *       Prints `live CLASS objs` for "Game.Bullet", "unknown (normal)"
 *       and "unknown (ptrfree)".
 *
 * Conservative retention: the loop runs in a function that returns, and
 * the last collection runs after clear_stack(); a dead pointer left in
 * a register or a frame can still keep an object, so the test allows
 * ALLOWANCE extra live objects per class (an Object[] kept that way
 * keeps at most OBJARR_LEN strings, hence the allowance's size).
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"
#include "il2cpp_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
  /* Windows (mingw-w64, run under wine: tests/cross/windows.sh): the   */
  /* garbage's pages from VirtualAlloc.                                 */
# include <windows.h>
# define PROT_NONE PAGE_NOACCESS
# define PROT_READ PAGE_READWRITE
# define PROT_WRITE 0
# define MAP_FAILED NULL
# define _SC_PAGESIZE 0
# define sysconf(x) 4096L
# define mmap(a, n, prot, f, fd, o) VirtualAlloc(NULL, n, \
                                     MEM_COMMIT | MEM_RESERVE, prot)
# define munmap(p, n) VirtualFree(p, 0, MEM_RELEASE)
# include <fcntl.h>
# include <io.h>
#else
# include <sys/mman.h>
# include <unistd.h>
#endif

#define FRAMES 300
#define SESSION_FRAMES 3000     /* `session`: a longer, leakier game     */
#define SESSION_LEAK 32
#define BULLETS_PER_FRAME 40
#define BULLET_RING 64
#define STRINGS_PER_FRAME 12
#define NAME_RING 32
#define OBJARR_LEN 4
#define OBJARR_RING 4
#define SCORE_RING 8
#define LEAK_PER_FRAME 2
#define PARTICLES_PER_FRAME 160
#define ENEMY_EVERY 32
#define MAX_ENEMIES 2000
#define LEVEL_WAVES 400
#define BURST_EVERY 30
#define BURST_N 12
#define BURST_BYTES (160 * 1024)
#define ALLOWANCE (OBJARR_LEN + 2)

enum { C_BULLET, C_ENEMY, C_PARTICLE, C_EVENT, C_STRING, C_INT32_ARR,
       C_BYTE_ARR, C_OBJECT_ARR, C_GLOBAL, N_CLASSES };
static const struct { const char *ns, *name; size_t size; int typed; }
  class_def[N_CLASSES] = {
  { "Game", "Bullet", 48, 1 },
  { "Game", "Enemy", 64, 1 },
  { "Game", "Particle", 64, 1 },
  { "Game", "EventRecord", 256, 1 },
  { "System", "String", 0, 0 },
  { "System", "Int32[]", 0, 0 },
  { "System", "Byte[]", 0, 0 },
  { "System", "Object[]", 0, 0 },
  { "", "GlobalThing", 24, 0 },
};
static Il2CppClass *cls[N_CLASSES];

/* Roots: the game's state (registered by hand, as il2cpp does).        */
struct event_record { Il2CppObject o; struct event_record *next;
                      GC_word pad[(256 - 24) / sizeof(GC_word)]; };
static struct {
  Il2CppObject *bullets[BULLET_RING];
  Il2CppString *names[NAME_RING];
  Il2CppArray *objarrs[OBJARR_RING];
  Il2CppArray *scores[SCORE_RING];
  Il2CppObject *enemies[MAX_ENEMIES];
  Il2CppArray *burst[BURST_N];
  Il2CppObject *globals[8];
  struct event_record *leak_head;
  Il2CppObject *garbage[3][64];
} g;
static unsigned n_enemies, leak_count;
static unsigned frames_n = FRAMES, leak_per_frame = LEAK_PER_FRAME;
static unsigned strings_per_frame = STRINGS_PER_FRAME;
static unsigned long frame_objs, frame_bytes;

/* Bytes the collector grants an object (its slot; whole blocks for a */
/* large one), as the dump counts them.                                */
static size_t granted(const void *p)
{
  size_t sz = GC_size(p);

  return sz > 2048 ? (sz + 4095) / 4096 * 4096 : sz;
}

static unsigned long alloc_max[N_CLASSES];   /* largest allocated     */

static void count(const void *p)
{
  int id;

  frame_objs++;
  frame_bytes += granted(p);
  for (id = 0; id < N_CLASSES; id++) {
    if (((const Il2CppObject *)p)->klass == cls[id]
        && granted(p) > alloc_max[id])
      alloc_max[id] = granted(p);
  }
}

static Il2CppClass *make_class(Il2CppClass *k, int id)
{
  memset(k, 0, sizeof(*k));
  k->name = class_def[id].name;
  k->namespaze = class_def[id].ns;
  k->instance_size = (uint32_t)class_def[id].size;
  /* A length descriptor (GC_DS_LENGTH, tag 0): the object's bytes.    */
  k->gc_desc = (void *)(uintptr_t)class_def[id].size;
  k->klass = k;
  return k;
}

static Il2CppObject *new_object(int id)
{
  Il2CppObject *o;

  if (class_def[id].typed) {
    ALLOC_TYPED(o, cls[id], class_def[id].size);
  } else {
    ALLOC_PTRFREE(o, cls[id], class_def[id].size);
  }
  if (NULL == o) exit(3);
  count(o);
  return o;
}

static Il2CppString *new_string(int len)
{
  Il2CppObject *o;
  Il2CppString *s;
  int i;

  ALLOC_PTRFREE(o, cls[C_STRING],
                offsetof(Il2CppString, chars) + 2 * (size_t)(len + 1));
  if (NULL == o) exit(3);
  s = (Il2CppString *)o;
  s->length = len;
  for (i = 0; i <= len; i++) s->chars[i] = (uint16_t)(i < len ? 'a' + i % 26 : 0);
  count(s);
  return s;
}

static Il2CppArray *new_array(int id, size_t n, size_t elem, int refs)
{
  Il2CppObject *o;
  Il2CppArray *a;

  if (refs) {
    ALLOC_OBJECT(o, cls[id], sizeof(Il2CppArray) + n * elem);
  } else {
    ALLOC_PTRFREE(o, cls[id], sizeof(Il2CppArray) + n * elem);
  }
  if (NULL == o) exit(3);
  a = (Il2CppArray *)o;
  a->bounds = NULL;
  a->max_length = n;
  count(a);
  return a;
}

/* The leak: one class, from this function only.                        */
static NOINLINE void record_event(unsigned frame)
{
  struct event_record *e = (struct event_record *)new_object(C_EVENT);

  e->pad[0] = frame;
  e->next = g.leak_head;
  g.leak_head = e;
  leak_count++;
  __asm__ volatile("" ::: "memory");    /* no tail call */
}

/* Fragmentation: many short-lived particles, each ENEMY_EVERY-th      */
/* followed by a long-lived enemy of the same size (and kind), which   */
/* replaces the oldest once MAX_ENEMIES live: blocks stay sparse.      */
static NOINLINE void spawn_wave(void)
{
  unsigned i;

  for (i = 0; i < PARTICLES_PER_FRAME; i++) {
    Il2CppObject *p = new_object(C_PARTICLE);

    ((GC_word *)p)[2] = i;              /* dies at once                */
    if (i % ENEMY_EVERY == 0) {
      g.enemies[n_enemies % MAX_ENEMIES] = new_object(C_ENEMY);
      n_enemies++;
    }
  }
}

static NOINLINE void frame_work(unsigned f)
{
  unsigned i;

  for (i = 0; i < BULLETS_PER_FRAME; i++)
    g.bullets[(f * BULLETS_PER_FRAME + i) % BULLET_RING] =
        new_object(C_BULLET);
  for (i = 0; i < strings_per_frame; i++)
    g.names[(f * strings_per_frame + i) % NAME_RING] =
        new_string(4 + (int)((f + i) % 40));
  {
    Il2CppArray *a = new_array(C_OBJECT_ARR, OBJARR_LEN, sizeof(void *), 1);

    for (i = 0; i < OBJARR_LEN; i++)
      ((void **)(a + 1))[i] = g.names[(f + i) % NAME_RING];
    g.objarrs[f % OBJARR_RING] = a;
  }
  g.scores[f % SCORE_RING] = new_array(C_INT32_ARR, 16 + f % 50, 4, 0);
  for (i = 0; i < leak_per_frame; i++) record_event(f);
  spawn_wave();
  if (f % BURST_EVERY == 1) {
    memset(g.burst, 0, sizeof(g.burst));        /* last burst dropped */
  } else if (f % BURST_EVERY == 0) {
    for (i = 0; i < BURST_N; i++)
      g.burst[i] = new_array(C_BYTE_ARR, BURST_BYTES + i * 4096, 1, 0);
  }
  if (f % 50 == 0) g.globals[(f / 50) % 8] = new_object(C_GLOBAL);
}

static NOINLINE void game_loop(void)
{
  unsigned f;

  /* Level load: the enemies' population, before the first frame,     */
  /* with collections held off, as loading screens do: the session's   */
  /* collections are then the frames' (gcacc leaks judges a leak over  */
  /* windows of collections, and this build's heap size decides how    */
  /* many a load without this would take).                             */
  GC_disable();
  for (f = 0; f < LEVEL_WAVES; f++) spawn_wave();
  GC_enable();
  GC_acc_frame(0);                      /* starts the frame counts     */
  for (f = 1; f <= frames_n; f++) {
    frame_objs = frame_bytes = 0;
    frame_work(f);
    if (f % 10 == 0) GC_gcollect();
    GC_acc_frame(f);
    printf("frame %u %lu %lu\n", f, frame_objs, frame_bytes);
  }
  memset(g.burst, 0, sizeof(g.burst));
}

/* ---- the truth ------------------------------------------------------- */
static unsigned long live_objs[N_CLASSES], live_bytes[N_CLASSES];

static const void *seen[4096];       /* objects reachable two ways  */
static unsigned n_seen;

static void truth_add(const void *p)
{
  const Il2CppObject *o = (const Il2CppObject *)p;
  int id;
  unsigned j;

  if (NULL == p) return;
  for (j = 0; j < n_seen; j++) {
    if (seen[j] == p) return;
  }
  if (o->klass == cls[C_STRING] && n_seen < 4096) seen[n_seen++] = p;
  for (id = 0; id < N_CLASSES; id++) {
    if (o->klass == cls[id]) break;
  }
  if (id == N_CLASSES) return;
  live_objs[id]++;
  live_bytes[id] += granted(p);
}

static void print_truth(void)
{
  unsigned i;
  const struct event_record *e;
  int id;

  for (i = 0; i < BULLET_RING; i++) truth_add(g.bullets[i]);
  for (i = 0; i < NAME_RING; i++) truth_add(g.names[i]);
  for (i = 0; i < OBJARR_RING; i++) {
    unsigned j;

    truth_add(g.objarrs[i]);            /* and the strings it holds    */
    for (j = 0; g.objarrs[i] != NULL && j < OBJARR_LEN; j++)
      truth_add(((void **)(g.objarrs[i] + 1))[j]);
  }
  for (i = 0; i < SCORE_RING; i++) truth_add(g.scores[i]);
  for (i = 0; i < MAX_ENEMIES; i++) truth_add(g.enemies[i]);
  for (i = 0; i < BURST_N; i++) truth_add(g.burst[i]);
  for (i = 0; i < 8; i++) truth_add(g.globals[i]);
  for (e = g.leak_head; e != NULL; e = e->next) truth_add(e);
  for (id = 0; id < N_CLASSES; id++) {
    printf("live %s%s%s %lu %lu %lu\n", class_def[id].ns,
           class_def[id].ns[0] ? "." : "", class_def[id].name,
           live_objs[id], live_bytes[id], alloc_max[id]);
  }
  printf("allowance %d\n", ALLOWANCE);
}

/* ---- garbage in word 0 ---------------------------------------------- */
#define GARBAGE_N 64
static NOINLINE void garbage(void)
{
  long pg = sysconf(_SC_PAGESIZE);
  char *gone = (char *)mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *dead = (char *)mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *none = (char *)mmap(NULL, (size_t)pg, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  Il2CppClass *freed;
  unsigned i, n_normal = 0, n_ptrfree = 0;
  GC_word seed = 12345;

  if (MAP_FAILED == gone || MAP_FAILED == dead || MAP_FAILED == none)
    exit(3);
  /* A class, valid until its page goes (before any collection).       */
  freed = make_class((Il2CppClass *)(void *)dead, C_BULLET);
  freed->name = "Freed";
  munmap(gone, (size_t)pg);
  for (i = 0; i < GARBAGE_N; i++) {
    Il2CppObject *o;
    Il2CppClass *w;

    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    switch (i % 8) {
    case 0: case 1: w = (Il2CppClass *)(seed | 1); break;       /* odd */
    case 2: case 3: w = (Il2CppClass *)(seed & ~(GC_word)7); break;
    case 4: w = (Il2CppClass *)(void *)(gone + (i * 8) % pg); break;
    case 5: w = (Il2CppClass *)(void *)none; break;
    case 6: w = (Il2CppClass *)(GC_word)(-(long)pg * 2); break; /* kernel */
    default: w = freed; break;
    }
    if ((GC_word)w == 0) w = (Il2CppClass *)(void *)gone;
    if (i % 2) {
      ALLOC_OBJECT(o, w, 40);
      n_normal++;
    } else {
      ALLOC_PTRFREE(o, w, 40);
      n_ptrfree++;
    }
    g.garbage[0][i] = o;
    g.garbage[1][i] = new_object(C_BULLET);
  }
  munmap(dead, (size_t)pg);             /* its objects never met it     */
  printf("live Game.Bullet %u\nlive unknown (normal) %u\n"
         "live unknown (ptrfree) %u\n", GARBAGE_N, n_normal, n_ptrfree);
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  int id;
  static Il2CppClass class_mem[N_CLASSES];

#ifdef _WIN32
  (void)_setmode(_fileno(stdout), _O_BINARY);  /* truth lines end in \n */
#endif
  if (strcmp(mode, "game") != 0 && strcmp(mode, "garbage") != 0
      && strcmp(mode, "session") != 0 && strcmp(mode, "session-b") != 0) {
    fprintf(stderr,
            "usage: gameload game|session|session-b|garbage [--api DUMP]\n");
    return 2;
  }
  if (0 == strcmp(mode, "session-b")) {
    leak_per_frame = 2 * SESSION_LEAK;
    strings_per_frame = 2 * STRINGS_PER_FRAME;
    frames_n = SESSION_FRAMES;
    mode = "game";
  } else if (0 == strcmp(mode, "session")) {
    /* The demo's game, and the sampled profile's leak test: ten times  */
    /* the frames and sixteen times the leak (some 24 MiB leaked, which */
    /* one sample per 512 KiB sees growing).                             */
    frames_n = SESSION_FRAMES;
    leak_per_frame = SESSION_LEAK;
    mode = "game";
  }
  GC_INIT();
  GC_add_roots((void *)&g, (void *)((char *)&g + sizeof(g)));
  GC_init_gcj_malloc(0, NULL);
  if (argc > 3 && 0 == strcmp(argv[2], "--api")) {
    /* A build without getenv: the mode, stacks and the dump by API.  */
    /* The profile is trace unless the test asks for "sampled[=BYTES]" */
    /* in GC_ACC_PROFILE, read here as a game would read its settings. */
    const char *pr = getenv("GC_ACC_PROFILE");
    int profile = GC_ACC_PROFILE_TRACE;
    unsigned long rate = 0;

    if (pr != NULL && 0 == strncmp(pr, "sampled", 7)) {
      profile = GC_ACC_PROFILE_SAMPLED;
      if ('=' == pr[7]) rate = strtoul(pr + 8, NULL, 10);
    }
    if (GC_acc_set_type_mode(GC_ACC_TYPES_IL2CPP) != GC_SUCCESS
        || GC_acc_set_profile(profile, (size_t)rate) != GC_SUCCESS
        || GC_acc_dump_start(argv[3]) != GC_SUCCESS) {
      fprintf(stderr, "gameload: cannot set the mode or start the dump\n");
      return 1;
    }
  }
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "gameload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  for (id = 0; id < N_CLASSES; id++) {
    /* il2cpp's metadata comes from malloc; so do these (class_mem is  */
    /* used only if malloc fails, which it does not).                  */
    Il2CppClass *k = (Il2CppClass *)malloc(sizeof(Il2CppClass));

    cls[id] = make_class(k != NULL ? k : &class_mem[id], id);
  }
  if (0 == strcmp(mode, "game")) {
    game_loop();
    printf("leak_class Game.EventRecord\nleak_function record_event\n"
           "leak_objs %u\nfrag_class_bytes %lu\nburst_bytes %d\n",
           leak_count, (unsigned long)GC_size(g.enemies[0]), BURST_BYTES);
    collect();
    collect();
    print_truth();
  } else {
    garbage();
    collect();
    collect();
  }
  GC_acc_dump_stop();
  return 0;
}
