/* SPDX-License-Identifier: MIT */
/*
 * test_census.c: the census counts exactly the objects a collection marks.
 *
 * For every kind (normal, pointer-free, uncollectable, gcj, typed, and one
 * made with GC_new_kind) allocates known numbers of objects in size classes
 * of its own, keeps a known subset reachable from a global array, collects,
 * and checks that the live counts of those classes grew by exactly the
 * objects of the test the collection marked, since a baseline census:
 * every kept object (uncollectable objects stay live until GC_free,
 * reachable or not) and, at most RETAINED_MAX per case, objects the
 * collector retained conservatively.  Then the same with 8 threads
 * allocating concurrently, joined before the final collection.  Objects
 * are allocated in functions that return, and the stack is cleared before
 * collecting, so no stale pointer of ours keeps a dropped object.
 *
 * The collector's own frames can: it scans the stack of the thread that
 * collects from inside the collection, its own frames and register save
 * area included, where a block address from its sweep before marking
 * may still lie (on aarch64, in the part of the ucontext_t that
 * getcontext leaves unwritten; on armhf, in a slot of the frames that
 * push the registers).  With ALL_INTERIOR_POINTERS that address pins the
 * object at the start of the block.  So the truth is what the collector
 * marked (GC_is_marked over the test's own objects, kept hidden from it),
 * and the census must count exactly that.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_typed.h"
#include "gc_mark.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <pthread.h>
#include <string.h>


#define N_OBJS 120      /* allocated per kind (single thread)           */
#define N_LARGE 9       /* large objects                                */
#define N_THREADS 8
#define T_OBJS 500      /* allocated per thread and kind                */
#define RETAINED_MAX 2  /* dropped objects a case may see retained      */

struct vtable { void *dummy; GC_word descr; };
static struct vtable vt = { NULL, 0 };

enum { K_NORMAL, K_PTRFREE, K_UNCOLL, K_GCJ, K_TYPED, K_CUSTOM, K_LARGE,
       N_CASES };
static const char *case_name[N_CASES] = {
  "normal", "ptrfree", "uncollectable", "gcj", "typed", "custom", "large"
};
/* Requested sizes: above the thread-local free lists' limit (so each    */
/* object comes from the global lists, emptied by every collection) and */
/* in distinct classes.                                                  */
static const size_t case_size[N_CASES] = {
  456, 520, 584, 648, 712, 776, 20000
};

static int case_kind[N_CASES];
static unsigned case_class[N_CASES];
static GC_word case_granted[N_CASES];
static GC_descr typed_descr;
static int custom_kind;

/* Roots.  Volatile: stores nothing reads must not be optimized away.   */
static void *volatile keep[N_CASES][N_OBJS];
static void *volatile tkeep[N_THREADS][3][T_OBJS];
/* Every object allocated (and not freed), hidden from the collector   */
/* (complemented), to read its mark bit after a collection.            */
static GC_word hidden[N_CASES][N_OBJS];
static unsigned n_hidden[N_CASES];
static GC_word thidden[N_THREADS][3][T_OBJS];
#define HIDE(p) (~(GC_word)(p))
#define REVEAL(w) ((void *)~(w))
/* Kept objects (tcount) and all objects (tall) per thread, case and   */
/* class of their granted size.  The class is read from each object:  */
/* the thread-local free lists may hand out a larger slot than the     */
/* request rounds to (their refill asks for whole granules plus        */
/* bdwgc's extra byte), and the global lists' size map rounds some     */
/* sizes up further, to fill a block evenly, differently for 16-byte  */
/* granules (64-bit) and 8-byte ones (32-bit: armhf).                   */
#define N_TCLS 64
static GC_word tcount[N_THREADS][3][N_TCLS];
static GC_word tall[N_THREADS][3][N_TCLS];
static GC_word tbig[N_THREADS];         /* objects of a class >= N_TCLS */

static void *alloc_case(int c, size_t lb)
{
  switch (c) {
  case K_NORMAL: case K_LARGE: return GC_malloc(lb);
  case K_PTRFREE: return GC_malloc_atomic(lb);
  case K_UNCOLL: return GC_malloc_uncollectable(lb);
  case K_GCJ: return GC_gcj_malloc(lb, &vt);
  case K_TYPED: return GC_malloc_explicitly_typed(lb, typed_descr);
  default: return GC_generic_malloc(lb, custom_kind);
  }
}

/* The stats of kind and class now.                                    */
static void class_stats(int kind, unsigned cls,
                        struct GC_acc_class_stats_s *s)
{
  memset(s, 0, sizeof(*s));
  CHECK_EQ(GC_acc_get_class_stats(kind, cls, s, sizeof(*s)), sizeof(*s));
}

static GC_word live(int kind, unsigned cls, GC_word *bytes)
{
  struct GC_acc_class_stats_s s;

  class_stats(kind, cls, &s);
  if (bytes != NULL) *bytes = s.live_bytes;
  return s.live_objs;
}

/* Every census row (kind, class): live objects, reserved bytes, free  */
/* slots.                                                               */
#define N_ROW_KINDS 16
#define N_ROW_CLASSES 256
static GC_word ride_rows[N_ROW_KINDS][N_ROW_CLASSES][3];
static GC_word walk_rows[N_ROW_KINDS][N_ROW_CLASSES][3];

static void census_rows(GC_word rows[N_ROW_KINDS][N_ROW_CLASSES][3])
{
  struct GC_acc_class_stats_s s;
  unsigned k, cls;

  memset(rows, 0, sizeof(ride_rows));
  for (k = 0; k < N_ROW_KINDS; k++) {
    for (cls = 0; cls < N_ROW_CLASSES; cls++) {
      memset(&s, 0, sizeof(s));
      if (GC_acc_get_class_stats((int)k, cls, &s, sizeof(s)) == 0) break;
      rows[k][cls][0] = s.live_objs;
      rows[k][cls][1] = s.reserved_bytes;
      rows[k][cls][2] = s.free_slots;
    }
  }
}

/* A heap of many rows for the ride against the walk: objects of 16 to */
/* 2,400 bytes (small and large), normal, pointer-free and             */
/* uncollectable, every third one kept.  In a function that returns.    */
#define N_MIX 6000
static void *volatile mix[N_MIX];

static NOINLINE void alloc_mix(void)
{
  unsigned i;

  for (i = 0; i < N_MIX; i++) {
    size_t sz = 16 + (i * 37) % 2400;
    void *p = i % 5 == 0 ? GC_MALLOC_ATOMIC(sz)
              : i % 7 == 0 ? GC_MALLOC_UNCOLLECTABLE(sz) : GC_MALLOC(sz);

    if (i % 3 == 0) mix[i] = p;
  }
}

/* Objects and requested bytes allocated so far in kind and class.      */
static GC_word allocated(int kind, unsigned cls, GC_word *req)
{
  struct GC_acc_class_stats_s s;

  class_stats(kind, cls, &s);
  *req = s.alloc_req_bytes;
  return s.alloc_objs;
}

/* Class of each case, from one probe object (freed again).             */
static NOINLINE void probe_classes(void)
{
  int c;

  for (c = 0; c < N_CASES; c++) {
    void *p = alloc_case(c, case_size[c]);
    GC_word g = GC_size(p);

    if (case_size[c] > 2048) g = (g + 4095) / 4096 * 4096;
    case_granted[c] = g;
    case_class[c] = GC_acc_size_class(g);
    GC_free(p);
  }
  case_kind[K_NORMAL] = case_kind[K_LARGE] = 1;  /* NORMAL */
  case_kind[K_PTRFREE] = 0;                      /* PTRFREE */
  case_kind[K_UNCOLL] = 2;                       /* UNCOLLECTABLE */
}

/* Allocate n objects of case c; keep those with i % 3 == 0 (and, for   */
/* uncollectable ones, free those with i % 3 == 1).  Returns how many    */
/* should be live.                                                       */
static NOINLINE unsigned alloc_some(int c, unsigned n)
{
  unsigned i, expect = 0;

  n_hidden[c] = 0;
  for (i = 0; i < n; i++) {
    void *p = alloc_case(c, case_size[c]);

    if (c == K_UNCOLL && i % 3 == 1) {
      GC_free(p);
      continue;
    }
    hidden[c][n_hidden[c]++] = HIDE(p);
    if (i % 3 == 0) {
      keep[c][i] = p;
      expect++;
    } else if (c == K_UNCOLL) {
      expect++;         /* unreachable, yet uncollectable: live */
    }
  }
  return expect;
}

/* Mark bits, read with the allocation lock held.                       */
struct marks { const GC_word *w; unsigned n; unsigned marked; };

static void *GC_CALLBACK count_marked_locked(void *arg)
{
  struct marks *m = (struct marks *)arg;
  unsigned i;

  m->marked = 0;
  for (i = 0; i < m->n; i++) {
    void *p = REVEAL(m->w[i]);

    /* A collected large object's block may be free (or merged into a   */
    /* free neighbour): only an object still in the heap has a bit.     */
    if (GC_base(p) == p) m->marked += GC_is_marked(p);
  }
  return NULL;
}

static unsigned count_marked(const GC_word *w, unsigned n)
{
  struct marks m;

  m.w = w;
  m.n = n;
  GC_call_with_alloc_lock(count_marked_locked, &m);
  return m.marked;
}

/* How many of case c's objects the last collection marked; checks that */
/* the expected ones are all among them, and at most RETAINED_MAX more. */
static unsigned marked_of(int c, unsigned expect, const char *when)
{
  unsigned m = count_marked(hidden[c], n_hidden[c]);

  if (!CHECK(m >= expect) | !CHECK(m <= expect + RETAINED_MAX))
    fprintf(stderr, "  case %s %s: %u marked, %u expected\n", case_name[c],
            when, m, expect);
  else if (m > expect)
    printf("case %s %s: %u dropped object(s) retained conservatively\n",
           case_name[c], when, m - expect);
  return m;
}

static unsigned expected[N_CASES];

/* Threads the collector does not see start by themselves: on Windows */
/* without GC_WIN32_PTHREADS (the il2cpp build under wine), gc.h does   */
/* not wrap winpthreads' pthread_create, so each thread registers, as   */
/* il2cpp's threads do; else a collection would run beside them.       */
#if defined(_WIN32) && !defined(GC_WIN32_PTHREADS)
# define THREAD_REGISTER() do { struct GC_stack_base sb_; \
                                (void)GC_get_stack_base(&sb_); \
                                (void)GC_register_my_thread(&sb_); } while (0)
# define THREAD_UNREGISTER() (void)GC_unregister_my_thread()
#else
# define THREAD_REGISTER() (void)0
# define THREAD_UNREGISTER() (void)0
#endif

static void *alloc_all(void *arg)
{
  int c;

  (void)arg;
  THREAD_REGISTER();
  for (c = 0; c < N_CASES; c++)
    expected[c] = alloc_some(c, c == K_LARGE ? N_LARGE : N_OBJS);
  THREAD_UNREGISTER();
  return NULL;
}

static NOINLINE void keep_one(int c)
{
  keep[c][0] = alloc_case(c, case_size[c]);
}

static unsigned thread_case[3] = { K_NORMAL, K_PTRFREE, K_GCJ };
/* Small sizes: these go through the thread-local free lists, which the */
/* exiting thread hands back to the global lists.  Under 256 bytes with */
/* the extra byte, the lists' limit on 32-bit targets (384 on 64-bit). */
static const size_t thread_size[3] = { 152, 200, 248 };

static void *thread_main(void *arg)
{
  unsigned t = (unsigned)(GC_word)arg, i, j;

  THREAD_REGISTER();
  for (i = 0; i < T_OBJS; i++) {
    for (j = 0; j < 3; j++) {
      void *p;

      switch (j) {
      case 0: p = GC_malloc(thread_size[j]); break;
      case 1: p = GC_malloc_atomic(thread_size[j]); break;
      default: p = GC_gcj_malloc(thread_size[j], &vt); break;
      }
      thidden[t][j][i] = HIDE(p);
      {
        unsigned cls = GC_acc_size_class(GC_size(p));

        if (cls < N_TCLS) tall[t][j][cls]++;
        else tbig[t]++;
        if (i % 2 == 0) {
          tkeep[t][j][i] = p;
          if (cls < N_TCLS) tcount[t][j][cls]++;
        }
      }
    }
  }
  THREAD_UNREGISTER();
  return NULL;
}

/* Objects and requested bytes allocated in the thread cases' kinds,   */
/* per class.                                                           */
static GC_word abase[3][N_TCLS], areq[3][N_TCLS];

static void thread_allocs(GC_word objs[3][N_TCLS], GC_word req[3][N_TCLS])
{
  unsigned j, cls;

  for (j = 0; j < 3; j++) {
    for (cls = 0; cls < N_TCLS; cls++)
      objs[j][cls] = allocated(case_kind[thread_case[j]], cls,
                               &req[j][cls]);
  }
}

/* Every object the threads allocated since thread_allocs(abase, areq) */
/* was counted, once, in the class of its granted size, at the         */
/* caller's request, though the threads have exited (their counts left */
/* their thread-local lists with them).                                */
static void check_thread_allocs(const char *label)
{
  static GC_word now[3][N_TCLS], now_req[3][N_TCLS];
  unsigned j, t, cls;

  thread_allocs(now, now_req);
  for (t = 0; t < N_THREADS; t++) CHECK_EQ(tbig[t], 0);
  for (j = 0; j < 3; j++) {
    GC_word objs = 0, req = 0;

    for (cls = 0; cls < N_TCLS; cls++) {
      GC_word n = 0;

      for (t = 0; t < N_THREADS; t++) n += tall[t][j][cls];
      if (0 == n) continue;
      objs += now[j][cls] - abase[j][cls];
      req += now_req[j][cls] - areq[j][cls];
    }

    if (!CHECK_EQ(objs, N_THREADS * T_OBJS)
        | !CHECK_EQ(req, (GC_word)N_THREADS * T_OBJS * thread_size[j]))
      fprintf(stderr, "  threads (%s), case %s: allocations counted\n",
              label, case_name[thread_case[j]]);
  }
}

static NOINLINE void run_threads(void)
{
  pthread_t th[N_THREADS];
  unsigned t;

  memset(tall, 0, sizeof(tall));
  memset(tbig, 0, sizeof(tbig));
  for (t = 0; t < N_THREADS; t++)
    CHECK_EQ(pthread_create(&th[t], NULL, thread_main, (void *)(GC_word)t),
             0);
  for (t = 0; t < N_THREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
}

int main(void)
{
  GC_word bm[1] = { 0 };
  GC_word base[N_CASES], base_bytes[N_CASES];
  static GC_word tbase[3][N_TCLS], texpect[3][N_TCLS];
  unsigned expect[N_CASES], marked[N_CASES];
  struct GC_acc_stats_s st;
  int c;
  unsigned j;

  GC_INIT();
# if defined(_WIN32) && !defined(GC_WIN32_PTHREADS)
    GC_allow_register_threads();
# endif
  GC_TEST_ROOT(keep);
  GC_TEST_ROOT(tkeep);
  /* bdwgc keeps the address just past its last heap mapping in a static */
  /* (os_dep.c GC_unix_mmap_get_mem: last_addr, a hint for the next      */
  /* mmap).  The static is a conservative root: once the heap grows      */
  /* adjacently, that address is the start of a heap block and pins the  */
  /* object allocated there.  Growing the heap once, up front, keeps     */
  /* every block this test allocates away from that address.             */
  CHECK(GC_expand_hp(64 << 20));
  CHECK_EQ(GC_acc_enable(1), GC_SUCCESS);
  GC_init_gcj_malloc(0, NULL);
  GC_set_bit(bm, 0);
  typed_descr = GC_make_descriptor(bm, 1);
  custom_kind = GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1);
  case_kind[K_GCJ] = -1;
  probe_classes();
  /* The kinds of gcj, typed and custom objects: the one whose count in */
  /* the class grows by one when one object is kept.                     */
  for (c = K_GCJ; c <= K_CUSTOM; c++) {
    int k;
    GC_word before[16];

    collect();
    for (k = 0; k < 16; k++) before[k] = live(k, case_class[c], NULL);
    keep_one(c);
    collect();
    case_kind[c] = -1;
    for (k = 0; k < 16; k++) {
      if (live(k, case_class[c], NULL) == before[k] + 1) case_kind[c] = k;
    }
    if (!CHECK(case_kind[c] >= 3))
      fprintf(stderr, "  no kind found for %s\n", case_name[c]);
    keep[c][0] = NULL;
  }
  CHECK_EQ(case_kind[K_CUSTOM], custom_kind);

  /* Baseline, then the allocations, then the census.                   */
  collect();
  for (c = 0; c < N_CASES; c++)
    base[c] = live(case_kind[c] < 0 ? 0 : case_kind[c], case_class[c],
                   &base_bytes[c]);
  /* In a thread of its own, whose stack and registers die with it.     */
  {
    pthread_t th;

    CHECK_EQ(pthread_create(&th, NULL, alloc_all, NULL), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
  }
  for (c = 0; c < N_CASES; c++) expect[c] = expected[c];
  collect();
  for (c = 0; c < N_CASES; c++) marked[c] = marked_of(c, expect[c], "kept");
  for (c = 0; c < N_CASES; c++) {
    GC_word bytes;
    GC_word n = live(case_kind[c] < 0 ? 0 : case_kind[c], case_class[c],
                     &bytes);
    struct GC_acc_class_stats_s s;

    if (!CHECK_EQ(n - base[c], marked[c]))
      fprintf(stderr, "  case %s (kind %d, class %u)\n", case_name[c],
              case_kind[c], case_class[c]);
    CHECK_EQ(bytes - base_bytes[c], marked[c] * case_granted[c]);

    GC_acc_get_class_stats(case_kind[c], case_class[c], &s, sizeof(s));
    CHECK(s.reserved_bytes >= s.live_bytes);
    if (c != K_LARGE) {
      /* Every slot of every block of the class is live or free.        */
      CHECK_EQ(s.reserved_bytes / 4096 * (4096 / case_granted[c]),
               s.live_objs + s.free_slots);
    } else {
      CHECK_EQ(s.free_slots, 0);
    }
  }
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  CHECK(st.live_objs > 0);
  CHECK(st.reserved_bytes >= st.live_bytes);
  CHECK_EQ(st.census_gc_no, GC_get_gc_no());
  printf("census: %lu live objects, %lu live bytes, %lu reserved; "
         "mark %lu ns, census %lu ns\n", (unsigned long)st.live_objs,
         (unsigned long)st.live_bytes, (unsigned long)st.reserved_bytes,
         (unsigned long)st.mark_ns, (unsigned long)st.census_ns);

  /* Dropping the kept objects brings the counts back to the baseline.  */
  memset((void *)keep, 0, sizeof(keep));
  collect();
  /* Uncollectable objects never freed stay live.                       */
  for (c = 0; c < N_CASES; c++)
    marked[c] = marked_of(c, c == K_UNCOLL ? expect[c] : 0, "after drop");
  for (c = 0; c < N_CASES; c++) {
    GC_word n = live(case_kind[c] < 0 ? 0 : case_kind[c], case_class[c],
                     NULL);

    if (!CHECK_EQ(n - base[c], marked[c]))
      fprintf(stderr, "  case %s after drop\n", case_name[c]);
  }

  /* Threads.                                                            */
  collect();
  for (j = 0; j < 3; j++) {
    unsigned cls;

    for (cls = 0; cls < N_TCLS; cls++)
      tbase[j][cls] = live(case_kind[thread_case[j]], cls, NULL);
  }
  thread_allocs(abase, areq);
  run_threads();
  collect();
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  if (!CHECK_EQ(st.census_gc_no, GC_get_gc_no()))
    fprintf(stderr, "  no census of the last collection\n");
  {
    unsigned t, cls, i;
    static GC_word tmarked[3][N_TCLS];

    for (t = 0; t < N_THREADS; t++) {
      for (j = 0; j < 3; j++) {
        for (cls = 0; cls < N_TCLS; cls++)
          texpect[j][cls] += tcount[t][j][cls];
        /* The marked objects among all the threads allocated.          */
        for (i = 0; i < T_OBJS; i++) {
          void *p = REVEAL(thidden[t][j][i]);

          if (count_marked(&thidden[t][j][i], 1)) {
            cls = GC_acc_size_class(GC_size(p));
            if (cls < N_TCLS) tmarked[j][cls]++;
          } else if (i % 2 == 0) {
            CHECK(!"a kept object of a thread is not marked");
          }
        }
      }
    }
    for (j = 0; j < 3; j++) {
      GC_word total = 0, total_marked = 0;

      for (cls = 0; cls < N_TCLS; cls++) {
        GC_word n;

        if (0 == texpect[j][cls] && 0 == tmarked[j][cls]) continue;
        total += texpect[j][cls];
        total_marked += tmarked[j][cls];
        CHECK(tmarked[j][cls] >= texpect[j][cls]);
        n = live(case_kind[thread_case[j]], cls, NULL);
        if (!CHECK_EQ(n - tbase[j][cls], tmarked[j][cls]))
          fprintf(stderr, "  threads, case %s, class %u (%lu %lu)\n",
                  case_name[thread_case[j]], cls, (unsigned long)n,
                  (unsigned long)tbase[j][cls]);
      }
      CHECK_EQ(total, N_THREADS * (T_OBJS / 2));
      if (!CHECK(total_marked <= total + RETAINED_MAX))
        fprintf(stderr, "  threads, case %s: %lu marked, %lu kept\n",
                case_name[thread_case[j]], (unsigned long)total_marked,
                (unsigned long)total);
      else if (total_marked > total)
        printf("threads, case %s: %lu dropped object(s) retained "
               "conservatively\n", case_name[thread_case[j]],
               (unsigned long)(total_marked - total));
    }
  }
  check_thread_allocs("tags on");
  /* Again with tags off: the threads then count inline, into their own */
  /* thread-local lists (gca_hooks.h).                                  */
  CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
  thread_allocs(abase, areq);
  run_threads();
  collect();
  check_thread_allocs("tags off");

  /* The census of the default profile rides the collector's reclaim    */
  /* walk (GC_start_reclaim), counting each block as upstream passes  */
  /* it (census.c); the full profile's walks the heap itself, every     */
  /* in-use block at the collection's end.  Both, on the same heap:     */
  /* each way as it should be, and the ride's rows the walk's.          */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 0), GC_SUCCESS);
  GC_TEST_ROOT(mix);
  alloc_mix();
  collect();
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  if (!CHECK_EQ(st.census_rode, 1))
    fprintf(stderr, "  the default profile's census left the reclaim walk\n");
  census_rows(ride_rows);
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0), GC_SUCCESS);
  collect();
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  CHECK_EQ(st.census_rode, 0);
  census_rows(walk_rows);
  /* The ride compared is the one after the walk: the first switch of   */
  /* profile may make an object (in IL2CPP's build mode one 64-byte    */
  /* uncollectable object appears between the first ride and the walk), */
  /* and a census taken before it would differ by that object.         */
  CHECK_EQ(GC_acc_set_profile(GC_ACC_PROFILE_SAMPLED, 0), GC_SUCCESS);
  collect();
  CHECK_EQ(GC_acc_get_stats(&st, sizeof(st)), sizeof(st));
  CHECK_EQ(st.census_rode, 1);
  census_rows(ride_rows);
  /* Two collections: a stale word may keep an object or two in one    */
  /* and not the other (under wine with parallel markers, one normal    */
  /* 160-byte object in some runs).  The blocks (reserved) must be the  */
  /* same, the live objects within RETAINED_MAX, live + free the same. */
  {
    unsigned k, cls, rows = 0, kept = 0;

    for (k = 0; k < N_ROW_KINDS; k++) {
      for (cls = 0; cls < N_ROW_CLASSES; cls++) {
        const GC_word *a = ride_rows[k][cls], *b = walk_rows[k][cls];

        if (b[1] != 0) rows++;
        if (memcmp(a, b, sizeof(walk_rows[k][cls])) == 0) continue;
        if (a[1] == b[1] && a[0] + a[2] == b[0] + b[2]
            && (a[0] > b[0] ? a[0] - b[0] : b[0] - a[0]) <= RETAINED_MAX) {
          kept++;
          continue;
        }
        CHECK(!"a row of the ride differs from the walk's");
        fprintf(stderr, "  kind %u class %u: live %lu/%lu reserved %lu/%lu"
                " free %lu/%lu (ride/walk)\n", k, cls,
                (unsigned long)ride_rows[k][cls][0],
                (unsigned long)walk_rows[k][cls][0],
                (unsigned long)ride_rows[k][cls][1],
                (unsigned long)walk_rows[k][cls][1],
                (unsigned long)ride_rows[k][cls][2],
                (unsigned long)walk_rows[k][cls][2]);
      }
    }
    printf("ride and walk: %u rows with blocks compared (%u within"
           " the conservative slack)\n", rows, kept);
    CHECK(rows > 50);
  }

  /* Which way the census counted marks (census.c: the collector's own  */
  /* per-block counts with one marker, the mark bits with several);     */
  /* census_markers.sh runs this test both ways.                         */
  printf("parallel marking: %d\n", GC_get_parallel());
  return check_done("test_census");
}
