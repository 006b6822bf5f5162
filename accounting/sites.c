/* SPDX-License-Identifier: MIT */
/*
 * sites.c: callsite ids -- sampling, and interning call stacks into ids.
 *
 * gca_site_capture runs on the allocation path (from the allocation
 * hooks, with or without the allocation lock).  GC_ACC_STACKS:
 *
 *  - off (the default): no stacks, every object gets site 0.
 *  - all: every allocation's stack (gca_unwind) is captured and interned.
 *  - sample=BYTES: Poisson sampling by bytes (as jemalloc, tcmalloc and
 *    Go's heap profiler): sample points fall on the stream of allocated
 *    bytes of each thread at exponentially distributed distances of mean
 *    BYTES; an allocation of s bytes that contains a point is sampled
 *    (probability 1 - exp(-s/BYTES)).  The per-thread countdown to the next
 *    point is all the common path touches: one subtraction and a branch.
 *    Unsampled allocations get site 1.  A sampled object stands for
 *    s / (1 - exp(-s/BYTES)) bytes (gca_site_weight): summing that over
 *    the sampled objects of a site estimates the site's bytes without
 *    bias (docs/dump-format.md, "Sampling").
 *
 * The common case never gets that far: the walk (gca_unwind_guessed)
 * compares the stack with the one this thread last interned from the
 * same innermost frame, and a match is that site.  Otherwise:
 *
 * Interning: a stack (up to GC_ACC_STACK_DEPTH return addresses) hashes to
 * a word; each thread keeps a small direct-mapped cache hash -> site
 * (checked frame by frame), then a global open-addressing table is probed
 * without a lock (sites are immutable once published; the table is only
 * replaced, never changed in place, when it grows).  Only a stack never
 * seen before takes the spin lock, to be added; it gets the next id (2,
 * 3, ...) and is listed for the next record (gca_sites_take_new).
 *
 * Memory: our own OS pages, never the GC heap; at most GCA_SITES_MAX
 * sites and GCA_SITES_MAX_ARENA bytes of stacks.  Past either bound new
 * stacks all get one site, the empty stack (no frames: "stack unknown").
 * Old tables are kept (a reader may still probe one), so tables take at
 * most twice the last one's size.
 */

#include "gca_priv.h"
#include "gca_unwind.h"

#ifndef GC_ACC_DISABLE

#include <stddef.h>
#include <string.h>

#define GCA_SITES_MAX ((unsigned)1 << 18)
#define GCA_SITES_MAX_ARENA ((word)64 << 20)
/* id -> site: chunk k holds ids [256 (2^k - 1), 256 (2^(k+1) - 1)), */
/* 2 KiB of pointers, then 4, 8, ...: 11 chunks reach GCA_SITES_MAX.     */
#define SITES_DIR0_LOG 8
#define SITES_DIR0 ((unsigned)1 << SITES_DIR0_LOG)
#define SITES_DIR_N 11
/* Hash tables of 256 slots, then 512, ...: at most 4 GCA_SITES_MAX.    */
#define SITES_TAB0 256u
#define SITES_TAB_N 13
#define SITES_ARENA_CHUNK ((word)256 << 10)
#define SITES_CACHE 64u     /* per thread, direct-mapped */

struct gca_site {
  word hash;
  unsigned id;
  unsigned n;
  word frames[1];   /* n of them (at least 1 allocated) */
};

/* A hash table's header, in a static array (one entry a size, written */
/* before the table is published through sites_tab): the slots alone   */
/* fill their pages, and the first table shares one page with the first */
/* chunk of the directory (a header word in the table took 8 bytes of a */
/* second page; issue 33).                                                */
struct sites_table {
  word cap;         /* power of two */
  struct gca_site **slot;
};

/* ---- settings ----------------------------------------------------------- */
GC_INNER int gca_stacks_mode = GCA_STACKS_OFF;
GC_INNER word gca_stacks_sample_bytes = GCA_STACKS_DEFAULT_SAMPLE;
GC_INNER unsigned gca_stacks_depth = GCA_STACKS_DEFAULT_DEPTH;

/* ---- shared state (new sites: under sites_lock) ------------------------ */
static volatile int sites_lock = 0;
static struct sites_table sites_hdr[SITES_TAB_N];
static struct sites_table *sites_tab = NULL;   /* published, acquire loads */
static word sites_count = 0;                   /* in sites_tab             */
/* id -> site: the chunks (OS memory; these pointers and the headers   */
/* are all the static data, which the collector scans as roots and      */
/* paces its collections by: some 300 bytes).                            */
/* A chunk is set before the first id in it is published.               */
static struct gca_site **sites_dir[SITES_DIR_N];
static unsigned sites_next_id = 2;             /* release stores           */
static unsigned sites_taken = 2;               /* next id for the record   */
static char *arena_p = NULL;
static word arena_left = 0;
static word sites_arena_used = 0;
static word sites_mem = 0;                     /* OS bytes, all tables     */
static word sites_dropped = 0;                 /* stacks past the bounds   */

/* ---- per thread ----------------------------------------------------------- */
/* (The countdown to the next sample point and the last site are in   */
/* gca_tl_self, for tags.c's inline unsampled path.)                    */
struct sites_tls {
  unsigned long long rng;   /* gca_rng_*, 0: not seeded                 */
  int busy;                 /* inside a capture (no re-entry)           */
  struct gca_site *cache[SITES_CACHE];
  struct gca_unw_guesses *guess;  /* the walk's guesses, NULL: none yet */
};
static GCA_TLS struct sites_tls sites_self;

/* The walk's guesses (1.1 KiB a thread) are not thread-local storage: */
/* libgc's static TLS stays small, as a dlopen'ed libgc needs (glibc    */
/* keeps about 1.5 KiB of spare static TLS for all such libraries).     */
/* Each is in the stacks' arena, listed, and owned by one thread until  */
/* it exits (gca_sites_thread_exit), then taken by the next thread that */
/* needs one (its guesses are still right: each is checked against the  */
/* walk).  Under sites_lock.                                             */
struct sites_guesses {
  struct sites_guesses *next;
  int owned;
  struct gca_unw_guesses t;
  void *cfi;                    /* the table walks' memos, once needed  */
  int cfi_tried;                /* (made, or not: there are enough)     */
};
/* Threads with memos of their table walks, at most SITES_CFI_MAX (9   */
/* KiB each: eight threads' took a small program's accounting memory  */
/* past its bound, tests/faults/acc_memory.sh); kept with the guesses, */
/* which go to the next thread when one exits.  Under sites_lock.      */
#define SITES_CFI_MAX 3
static unsigned sites_cfi_n = 0;
static struct sites_guesses *sites_guess_list = NULL;

static void sites_spin_lock(void)
{
  while (__atomic_exchange_n(&sites_lock, 1, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(&sites_lock, __ATOMIC_RELAXED)) {
#     if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#     endif
    }
  }
}

static void sites_spin_unlock(void)
{
  __atomic_store_n(&sites_lock, 0, __ATOMIC_RELEASE);
}

/* In a child after fork(): only the forking thread is left, so a lock   */
/* another thread held at that moment would never be released.  What it */
/* was adding may be lost (a site never published: its stack gets a new */
/* id when met again), never half-seen: a site is published last.        */
GC_INNER void gca_sites_atfork_child(void)
{
  __atomic_store_n(&sites_lock, 0, __ATOMIC_RELEASE);
}

/* Each frame is multiplied on its own (no chain of dependent           */
/* multiplies: a serial multiply-xor cost ~4 ns a frame), the sum so   */
/* far rotated between frames so that order counts, then one final     */
/* mix for the low bits the tables index by.  Equal hashes are always   */
/* checked frame by frame, so this only needs to spread.                */
static word sites_hash(const word *f, unsigned n)
{
  word h = (word)n * (word)0x9E3779B97F4A7C15ULL;
  unsigned i;

  for (i = 0; i < n; i++)
    h = ((h << 7) | (h >> (CPP_WORDSZ - 7)))
        + f[i] * (word)0xff51afd7ed558ccdULL;
  h ^= h >> (GCA_HALF_WORDSZ + 1);
  h *= (word)0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 29;
  return h;
}

static int sites_same(const struct gca_site *s, word h, const word *f,
                      unsigned n)
{
  unsigned i;

  if (s->hash != h || s->n != n) return 0;
  for (i = 0; i < n; i++)       /* a few words: no call to memcmp       */
    if (s->frames[i] != f[i]) return 0;
  return 1;
}

static struct gca_site *sites_probe(struct sites_table *t, word h,
                                    const word *f, unsigned n)
{
  word mask, i;

  if (NULL == t) return NULL;
  mask = t->cap - 1;
  for (i = h & mask;; i = (i + 1) & mask) {
    struct gca_site *s = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);

    if (NULL == s) return NULL;
    if (sites_same(s, h, f, n)) return s;
  }
}

/* The chunk of the directory that holds id, and id's index in it.    */
static unsigned sites_dir_chunk(unsigned id, unsigned *i)
{
  unsigned q = (id >> SITES_DIR0_LOG) + 1, k = 0;

  while (q >> (k + 1)) k++;
  *i = id - (SITES_DIR0 << k) + SITES_DIR0;
  return k;
}

/* Lock held.  The table of hdr_i's size (SITES_TAB0 << hdr_i slots),  */
/* its header filled, not published; NULL if no memory.  The first     */
/* takes a page with the directory's first chunk.                       */
static struct sites_table *sites_new_table(unsigned hdr_i)
{
  struct sites_table *t = &sites_hdr[hdr_i < SITES_TAB_N ? hdr_i : 0];
  word cap = (word)SITES_TAB0 << hdr_i;
  size_t bytes = (size_t)cap * sizeof(struct gca_site *);

  if (hdr_i >= SITES_TAB_N) return NULL;
  if (0 == hdr_i) bytes += SITES_DIR0 * sizeof(struct gca_site *);
  bytes = (bytes + 4095) & ~(size_t)4095;
  t->slot = (struct gca_site **)gca_os_alloc(bytes);
  if (NULL == t->slot) return NULL;
  t->cap = cap;
  sites_mem += bytes;
  if (0 == hdr_i) sites_dir[0] = (struct gca_site **)(t->slot + cap);
  return t;
}

static void sites_put(struct sites_table *t, struct gca_site *s)
{
  word mask = t->cap - 1, i;

  for (i = s->hash & mask; t->slot[i] != NULL; i = (i + 1) & mask) {}
  __atomic_store_n(&t->slot[i], s, __ATOMIC_RELEASE);
}

/* Lock held.  bytes (a multiple of a word) of the arena, zeroed, or    */
/* NULL past memory or the cap.                                          */
static void *sites_arena_alloc(word bytes)
{
  void *p;

  if (arena_left < bytes) {
    /* Chunks grow from 4 KiB to SITES_ARENA_CHUNK: a program with few  */
    /* stacks keeps a small table.                                        */
    static word chunk = 4 << 10;

    if (sites_mem + chunk > gca_table_limit()) return NULL;   /* the cap */
    arena_p = (char *)gca_os_alloc(chunk);
    if (NULL == arena_p) {
      arena_left = 0;
      return NULL;
    }
    arena_left = chunk;
    sites_mem += chunk;
    if (chunk < SITES_ARENA_CHUNK) chunk *= 2;
  }
  p = arena_p;
  arena_p += bytes;
  arena_left -= bytes;
  return p;
}

/* Lock held.  A new site for (h, f, n), or NULL past the bounds.      */
static struct gca_site *sites_add(word h, const word *f, unsigned n)
{
  struct sites_table *t = sites_tab;
  struct gca_site *s;
  size_t bytes = sizeof(struct gca_site)
                 + (size_t)(n > 0 ? n - 1 : 0) * sizeof(word);
  unsigned id = sites_next_id, i, chunk = sites_dir_chunk(id, &i);

  bytes = (bytes + sizeof(word) - 1) & ~(sizeof(word) - 1);
  if (id >= GCA_SITES_MAX + (n == 0)
      || (n > 0 && sites_arena_used + bytes > GCA_SITES_MAX_ARENA))
    return NULL;
  if (NULL == t || (sites_count + 1) * 2 > t->cap) {
    struct sites_table *nt = sites_new_table(t != NULL
                                              ? (unsigned)(t - sites_hdr) + 1
                                              : 0);
    word j;

    if (NULL == nt) return NULL;
    if (t != NULL)
      for (j = 0; j < t->cap; j++)
        if (t->slot[j] != NULL) sites_put(nt, t->slot[j]);
    __atomic_store_n(&sites_tab, nt, __ATOMIC_RELEASE);
    t = nt;
  }
  if (NULL == sites_dir[chunk]) {
    size_t dbytes = ((size_t)SITES_DIR0 << chunk) * sizeof(struct gca_site *);

    sites_dir[chunk] = (struct gca_site **)gca_os_alloc(dbytes);
    if (NULL == sites_dir[chunk]) return NULL;
    sites_mem += dbytes;
  }
  s = (struct gca_site *)sites_arena_alloc(bytes);
  if (NULL == s) return NULL;
  sites_arena_used += bytes;
  s->hash = h;
  s->id = id;
  s->n = n;
  if (n > 0) memcpy(s->frames, f, n * sizeof(word));
  sites_dir[chunk][i] = s;
  __atomic_store_n(&sites_next_id, id + 1, __ATOMIC_RELEASE);
  sites_put(t, s);
  sites_count++;
  return s;
}

static struct gca_site *sites_intern(struct sites_tls *me, const word *f,
                                     unsigned n)
{
  word h = sites_hash(f, n);
  struct gca_site **c = &me->cache[h % SITES_CACHE];
  struct gca_site *s = *c;

  if (s != NULL && sites_same(s, h, f, n)) return s;
  s = sites_probe(__atomic_load_n(&sites_tab, __ATOMIC_ACQUIRE), h, f, n);
  if (NULL == s) {
    sites_spin_lock();
    s = sites_probe(sites_tab, h, f, n);
    if (NULL == s) s = sites_add(h, f, n);
    if (NULL == s) {
      /* past the bounds: the empty stack ("unknown")                    */
      sites_dropped++;
      if (n > 0) gca_table_limit_reached("call stacks", sites_dropped);
      h = sites_hash(f, 0);
      s = sites_probe(sites_tab, h, f, 0);
      if (NULL == s) s = sites_add(h, f, 0);
    }
    sites_spin_unlock();
    if (NULL == s) return NULL;
  }
  *c = s;
  return s;
}

/* ---- sampling ------------------------------------------------------------ */

/* Bytes to the next sample point: exponential, mean sample bytes.     */
static signed_word sites_draw(struct sites_tls *me)
{
  return gca_rng_exp(&me->rng, gca_stacks_sample_bytes) + 1;
}

/* A stack the walk did not guess (frames[0..t->n)): interned, and the */
/* guess for its innermost frame from now on.                           */
static GC_ATTR_NOINLINE unsigned sites_stack_new(struct sites_tls *me,
                                                 struct gca_unw_guesses *t,
                                                 const word *frames,
                                                 unsigned none)
{
  unsigned n = t->n;
  struct gca_site *s = sites_intern(me, frames, n);

  if (NULL == s) return none;
  if (s->n == n) gca_unwind_guess_put(t, s->frames, n, s->id);
  return s->id;
}

/* This thread's guesses: a free table, or a new one; NULL if no memory. */
static GC_ATTR_NOINLINE struct gca_unw_guesses *sites_guess_get(
                                                        struct sites_tls *me)
{
  struct sites_guesses *g;

  sites_spin_lock();
  for (g = sites_guess_list; g != NULL; g = g->next)
    if (!g->owned) break;
  if (NULL == g) {
    g = (struct sites_guesses *)sites_arena_alloc(
                (sizeof(*g) + sizeof(word) - 1) & ~(sizeof(word) - 1));
    if (g != NULL) {
      g->next = sites_guess_list;
      sites_guess_list = g;
    }
  }
  if (g != NULL) g->owned = 1;
  sites_spin_unlock();
  me->guess = g != NULL ? &g->t : NULL;
  return me->guess;
}

/* The calling thread exits (hooks.c): its guesses go to the next     */
/* thread that needs some.                                                */
GC_INNER void gca_sites_thread_exit(void)
{
  struct sites_tls *me = gca_tl_self.sites;
  struct gca_unw_guesses *t = me != NULL ? me->guess : NULL;

  if (NULL == t) return;
  me->guess = NULL;
  sites_spin_lock();
  ((struct sites_guesses *)((char *)t
                            - offsetof(struct sites_guesses, t)))->owned = 0;
  sites_spin_unlock();
}

/* Without guesses (no memory for them): walk and intern.               */
static GC_ATTR_NOINLINE unsigned sites_stack_plain(struct sites_tls *me,
                                                   word *frames,
                                                   unsigned max,
                                                   unsigned none)
{
  unsigned n = gca_unwind(frames, max, 0);
  struct gca_site *s = sites_intern(me, frames, n);

  return s != NULL ? s->id : none;
}

/* May auto take sampled stacks with _Unwind_Backtrace?  Where libgcc  */
/* finds the tables without the loader's lock (GCA_UNW_AUTO_TABLES,     */
/* gca_unwind.h); elsewhere fp.                                          */
#ifdef GCA_UNW_AUTO_TABLES
  static const int sites_auto_tables = 1;
#else
  static const int sites_auto_tables = 0;
#endif

GC_INNER int gca_sites_sampled_by_tables(void)
{
# ifdef GCA_HAVE_UNWIND_H
    int u = GCA_LOAD(&gca_unwinder);

    return GCA_UNWIND_LIBGCC == u
           || (GCA_UNWIND_AUTO == u && sites_auto_tables);
# else
    return 0;   /* no table walk: fp (or no frames at all) */
# endif
}

/* The thread's memos of its table walks (gca_unwcfi_memo_bytes, OS   */
/* memory kept with its guesses, made at its first sampled table walk  */
/* if fewer than SITES_CFI_MAX threads have some), or NULL.             */
static GC_ATTR_NOINLINE void *sites_cfi_memo(struct sites_tls *me)
{
  struct gca_unw_guesses *t = me->guess;
  struct sites_guesses *g;
  word bytes = gca_unwcfi_memo_bytes();

  if (NULL == t) t = sites_guess_get(me);
  if (NULL == t || 0 == bytes) return NULL;
  g = (struct sites_guesses *)((char *)t - offsetof(struct sites_guesses, t));
  if (EXPECT(!g->cfi_tried, FALSE)) {
    sites_spin_lock();
    if (sites_cfi_n < SITES_CFI_MAX && sites_mem + bytes <= gca_table_limit()
        && (g->cfi = gca_os_alloc(bytes)) != NULL) {
      sites_mem += bytes;
      sites_cfi_n++;
    }
    g->cfi_tried = 1;
    sites_spin_unlock();
  }
  return g->cfi;
}

/* The same by the unwind tables: sampled stacks under the auto        */
/* unwinder, every stack under libgcc (no guesses: those are fp's; the */
/* walk's memos under auto, with the site of a memo's frames).          */
static GC_ATTR_NOINLINE unsigned sites_stack_tables(struct sites_tls *me,
                                                    word *frames,
                                                    unsigned max,
                                                    unsigned none)
{
  void *m = GCA_LOAD(&gca_unwinder) != GCA_UNWIND_LIBGCC
            ? sites_cfi_memo(me) : NULL;  /* (libgcc's walk keeps none) */
  unsigned n, *id;
  struct gca_site *s;

  gca_unwcfi_memo_use(m);
  n = gca_unwind(frames, max, GCA_UNWIND_BY_TABLES);
  gca_unwcfi_memo_use(NULL);
  id = gca_unwcfi_memo_id(m);   /* the frames a memo gave: their site? */
  if (id != NULL && *id != 0) return *id;
  s = sites_intern(me, frames, n);
  if (NULL == s) return none;
  if (id != NULL && s->n == n) *id = s->id;   /* (not "unknown")      */
  return s->id;
}

/* The calling stack's site (GC_ACC_STACK_DEPTH frames), or none when */
/* called inside a capture (an allocation inside ours) or past memory.  */
/* Inlined into both callers: one frame fewer for every walk to skip.   */
/* The common case, a stack this thread interned before from the same   */
/* innermost frame, is the walk's guess: its site id at once.           */
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((__always_inline__))
#endif
GC_INLINE unsigned sites_stack(struct sites_tls *me, unsigned none,
                               int sampled)
{
  word frames[GCA_STACKS_MAX_DEPTH];
  struct gca_unw_guesses *t;
  const struct gca_unw_guess *g;
  unsigned n, id;
  int u;

  if (me->busy) return none;
  me->busy = 1;
  n = gca_stacks_depth;
  if (n > GCA_STACKS_MAX_DEPTH) n = GCA_STACKS_MAX_DEPTH;
  u = GCA_LOAD(&gca_unwinder);
  if (EXPECT(u != GCA_UNWIND_FP, FALSE)
      && (GCA_UNWIND_LIBGCC == u || (sampled && sites_auto_tables))) {
    id = sites_stack_tables(me, frames, n, none);
    me->busy = 0;
    return id;
  }
  t = me->guess;
  if (EXPECT(NULL == t, FALSE)) t = sites_guess_get(me);
  if (EXPECT(NULL == t, FALSE)) {
    id = sites_stack_plain(me, frames, n, none);
  } else {
    g = gca_unwind_guessed(t, frames, n);
    id = EXPECT(g != NULL, TRUE) ? g->id
                                 : sites_stack_new(me, t, frames, none);
  }
  me->busy = 0;
  return id;
}

GC_INNER unsigned gca_site_capture(word granted_bytes)
{
  struct sites_tls *me;
  struct gca_tl *tl = &gca_tl_self;
  int mode = GCA_LOAD(&gca_stacks_mode);

  if (GCA_STACKS_OFF == mode) return GCA_SITE_NONE;
  /* Its address kept in the initial-exec struct: one TLS lookup a    */
  /* thread, not one (a call) per use.                                  */
  me = tl->sites;
  if (EXPECT(NULL == me, FALSE)) me = tl->sites = &sites_self;
  if (GCA_STACKS_SAMPLE == mode) {
    if (EXPECT(gca_sample_skip(tl, granted_bytes), TRUE))
      return GCA_SITE_UNSAMPLED;
    if (0 == me->rng) {
      /* a new thread: its first sample point is a draw away, too         */
      gca_rng_seed(&me->rng);
      tl->s_countdown = sites_draw(me);
      if (gca_sample_skip(tl, granted_bytes)) return GCA_SITE_UNSAMPLED;
    }
    tl->s_countdown = sites_draw(me);
  }
  tl->s_last_site = sites_stack(me, GCA_SITE_UNSAMPLED,
                                GCA_STACKS_SAMPLE == mode);
  return tl->s_last_site;
}

GC_INNER unsigned gca_sites_stack(void)
{
  struct gca_tl *tl = &gca_tl_self;
  struct sites_tls *me = tl->sites;

  /* (gca_unwind_init ran when the profile went on: not here, where  */
  /* the loader's lock could be held by a thread waiting for ours.)    */
  if (EXPECT(NULL == me, FALSE)) me = tl->sites = &sites_self;
  return sites_stack(me, GCA_SITE_NONE, 1);   /* the sampled profile's */
}

GC_INNER double gca_site_weight(word granted_bytes)
{
  double s = (double)granted_bytes, b;

  if (GCA_LOAD(&gca_stacks_mode) != GCA_STACKS_SAMPLE) return s;
  b = (double)gca_stacks_sample_bytes;
  return s / gca_one_minus_exp_neg(s / b);
}

GC_INNER unsigned gca_site_last(void)
{
  return gca_tl_self.s_last_site;
}

/* ---- settings ------------------------------------------------------------- */

GC_INNER void gca_stacks_set(int mode, word sample_bytes)
{
  if (GCA_STACKS_SAMPLE == mode) {
    if (0 == sample_bytes) sample_bytes = GCA_STACKS_DEFAULT_SAMPLE;
    GCA_STORE(&gca_stacks_sample_bytes, sample_bytes);
  }
  if (mode != GCA_STACKS_OFF) gca_unwind_init();
  GCA_STORE(&gca_stacks_mode, mode);
}

/* GC_ACC_STACKS and GC_acc_set_stacks: the user's choice, which the   */
/* full profile's default (sampled stacks) no longer overrides.         */
GC_INNER int gca_stacks_chosen = 0;

GC_INNER void gca_stacks_choose(int mode, word sample_bytes)
{
  GCA_STORE(&gca_stacks_chosen, 1);
  gca_stacks_set(mode, sample_bytes);
}

GC_INNER void gca_stacks_set_depth(unsigned depth)
{
  if (0 == depth) depth = GCA_STACKS_DEFAULT_DEPTH;
  if (depth > GCA_STACKS_MAX_DEPTH) depth = GCA_STACKS_MAX_DEPTH;
  GCA_STORE(&gca_stacks_depth, depth);
}

/* ---- for records and the API ------------------------------------------------ */

static struct gca_site *sites_get(unsigned id)
{
  struct gca_site **chunk;
  unsigned i;

  if (id < 2 || id >= __atomic_load_n(&sites_next_id, __ATOMIC_ACQUIRE))
    return NULL;
  chunk = sites_dir[sites_dir_chunk(id, &i)];
  return chunk != NULL ? chunk[i] : NULL;
}

GC_INNER int gca_site_frames(unsigned id, word *frames, unsigned max)
{
  struct gca_site *s = sites_get(id);
  unsigned n;

  if (NULL == s) return -1;
  n = s->n < max ? s->n : max;
  if (n > 0) memcpy(frames, s->frames, n * sizeof(word));
  return (int)s->n;
}

GC_INNER void gca_sites_take_new(void (*fn)(void *arg, unsigned id,
                                            const word *frames, unsigned n),
                                 void *arg)
{
  unsigned end = __atomic_load_n(&sites_next_id, __ATOMIC_ACQUIRE);

  for (; sites_taken < end; sites_taken++) {
    struct gca_site *s = sites_get(sites_taken);

    if (s != NULL) fn(arg, s->id, s->frames, s->n);
  }
}

GC_INNER unsigned gca_sites_take_mark(void)
{
  return sites_taken;
}

GC_INNER void gca_sites_take_rewind(unsigned mark)
{
  if (mark < sites_taken) sites_taken = mark;
}

GC_INNER word gca_sites_memory_bytes(void)
{
  return GCA_LOAD(&sites_mem);
}

#endif /* !GC_ACC_DISABLE */

/* ---- the public API (gc_accounting.h, "callsites") --------------------- */

#ifdef GC_ACC_DISABLE

GC_API unsigned GC_CALL GC_acc_capture_site(size_t granted_bytes)
{
  (void)granted_bytes;
  return 0;
}
GC_API unsigned GC_CALL GC_acc_last_site(void) { return 0; }
GC_API int GC_CALL GC_acc_site_frames(unsigned id, GC_word *frames,
                                      unsigned max)
{
  (void)id; (void)frames; (void)max;
  return -1;
}
GC_API double GC_CALL GC_acc_site_weight(size_t granted_bytes)
{
  return (double)granted_bytes;
}

#else

GC_API unsigned GC_CALL GC_acc_capture_site(size_t granted_bytes)
{
  return gca_site_capture((word)granted_bytes);
}

GC_API unsigned GC_CALL GC_acc_last_site(void)
{
  return gca_site_last();
}

GC_API int GC_CALL GC_acc_site_frames(unsigned id, GC_word *frames,
                                      unsigned max)
{
  if (NULL == frames) max = 0;
  return gca_site_frames(id, (word *)frames, max);
}

GC_API double GC_CALL GC_acc_site_weight(size_t granted_bytes)
{
  return gca_site_weight((word)granted_bytes);
}

#endif /* GC_ACC_DISABLE */
