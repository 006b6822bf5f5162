/* SPDX-License-Identifier: MIT */
/*
 * retainload.c: the truth of tests/retain/why.sh (issue 37): objects
 * held in known ways, a retention request per way, and on stdout what
 * the program built, as `name value` lines, for the test to check the
 * dump's "retain" records and `gcacc why` against.
 *
 * Each scenario's objects have their own type (GC_acc_malloc_typed and
 * a namer), and the request names it; one request per collection:
 *   T.Static   a list of LIST_N from the static `list_head`; the nodes'
 *              next pointer at word 1.  Paths of depth 1..5.  Asked for
 *              again by its callsite (GC_acc_retain_site): the same.
 *   T.Stack    one object held only by a local of a frame below which
 *              the collection runs.
 *   T.Deep     the ends of five chains of DEEP_N - 1 "T.Link" objects,
 *              each from its slot of the static `chain_heads` (next at
 *              word 1): depth DEEP_N.
 *   T.CycC     the third of each of five cycles A -> B -> C -> A, each
 *              held by its slot of the static `cycles`.
 *   T.Precise  five, held by words 1..5 of a typed object
 *              (GC_malloc_explicitly_typed, a bitmap descriptor) from
 *              `precise_holder`: precise references; T.Cons five, held by
 *              words 2..6 of a plain GC_malloc object from `cons_holder`:
 *              conservative ones.
 *   T.Fin      five, unreachable, registered for finalization
 *              (finalization on demand, so they wait in the queue): held
 *              by the queue (or nearer by a stale copy on the stack).
 *   T.Weak     reachable only through a disappearing link: not held, no
 *              path (found 0).
 *   T.Thread   one object held only by a local of another thread, which
 *              waits while the main thread collects: its stack, not the
 *              main thread's.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_typed.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <pthread.h>
#include <semaphore.h>

#define LIST_N 100
#define DEEP_N 10000

#define C_STATIC 0x7101
#define C_STACK 0x7102
#define C_LINK 0x7103
#define C_DEEP 0x7104
#define C_CYCA 0x7105
#define C_CYCB 0x7106
#define C_CYCC 0x7107
#define C_PRECISE 0x7108
#define C_CONS 0x7109
#define C_FIN 0x710a
#define C_WEAK 0x710b
#define C_HOLDER 0x710c
#define C_THREAD 0x710d

struct node {
  GC_word pad;          /* word 0: data, never a pointer              */
  struct node *next;    /* word 1                                     */
  GC_word more[2];
};

/* Not static: the stores must not be optimized away.                   */
struct node *list_head;
void *precise_holder, *cons_holder;
void *weak_holder;

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  static const char *const names[] = {
    "T.Static", "T.Stack", "T.Link", "T.Deep", "T.CycA", "T.CycB",
    "T.CycC", "T.Precise", "T.Cons", "T.Fin", "T.Weak", "T.Holder",
    "T.Thread"
  };

  if (cookie < C_STATIC || cookie > C_THREAD) return 0;
  snprintf(buf, sz, "%s", names[cookie - C_STATIC]);
  return 1;
}

static struct node *new_node(GC_word type)
{
  struct node *n = (struct node *)GC_acc_malloc_typed(sizeof(*n), type);

  if (NULL == n) exit(1);
  return n;
}

static void request(const char *type)
{
  if (GC_acc_retain_request(type, 0, 0) != GC_SUCCESS) {
    fprintf(stderr, "retainload: request %s refused\n", type);
    exit(1);
  }
}

static unsigned list_site;     /* the list's callsite                */

static NOINLINE void build_list(void)
{
  struct node *n;
  int i;

  for (i = 0; i < LIST_N; i++) {
    n = new_node(C_STATIC);
    n->next = list_head;
    list_head = n;
  }
  list_site = GC_acc_last_site();
  printf("static_root %p\nstatic_site %u\n", (void *)&list_head, list_site);
  for (i = 0, n = list_head; i < 5; i++, n = n->next)
    printf("static_obj %d %p\n", i + 1, (void *)n);
}

/* Five chains of DEEP_N - 1 links and a target at the end, chain i    */
/* held by chain_heads[i].                                              */
struct node *chain_heads[5];

static NOINLINE void build_chain(void)
{
  int i, k;

  for (k = 0; k < 5; k++) {
    struct node *target = new_node(C_DEEP), *p = target;

    for (i = 1; i < DEEP_N; i++) {
      struct node *n = new_node(C_LINK);

      n->next = p;
      p = n;
    }
    chain_heads[k] = p;
    printf("deep %p %p %p\n", (void *)&chain_heads[k], (void *)p,
           (void *)target);
  }
}

/* HELD cycles A -> B -> C -> A, cycle i held by cycles[i].            */
struct node *cycles[5];

static NOINLINE void build_cycle(void)
{
  int i;

  printf("cycle_root %p\n", (void *)&cycles[0]);
  for (i = 0; i < 5; i++) {
    struct node *a = new_node(C_CYCA), *b = new_node(C_CYCB),
                *c = new_node(C_CYCC);

    a->next = b;
    b->next = c;
    c->next = a;
    cycles[i] = a;
    printf("cycle %p %p %p %p\n", (void *)&cycles[i], (void *)a, (void *)b,
           (void *)c);
  }
}

/* HELD objects from each holder: the typed one's words 1..HELD (its  */
/* bitmap names them), the plain one's words 2..HELD+1.  A stale copy  */
/* of one on the stack may hold it nearer (a true, conservative root);  */
/* the others are reached through their holder.                         */
#define HELD 5
static NOINLINE void build_precise(void)
{
  GC_word bm[GC_BITMAP_SIZE(GC_word[HELD + 2])] = { 0 };
  GC_descr d;
  void **h;
  int i;

  for (i = 1; i <= HELD; i++) GC_set_bit(bm, i);
  d = GC_make_descriptor(bm, HELD + 2);
  h = (void **)GC_malloc_explicitly_typed((HELD + 2) * sizeof(GC_word), d);
  if (NULL == h) exit(1);
  for (i = 1; i <= HELD; i++) h[i] = new_node(C_PRECISE);
  precise_holder = h;
  printf("precise_holder %p\n", (void *)h);
  for (i = 1; i <= HELD; i++) printf("precise_obj %p\n", h[i]);
  h = (void **)GC_acc_malloc_typed((HELD + 2) * sizeof(GC_word), C_HOLDER);
  if (NULL == h) exit(1);
  for (i = 2; i <= HELD + 1; i++) h[i] = new_node(C_CONS);
  cons_holder = h;
  printf("cons_holder %p\n", (void *)h);
  for (i = 2; i <= HELD + 1; i++) printf("cons_obj %p\n", h[i]);
}

static void GC_CALLBACK fin(void *obj, void *cd)
{
  (void)obj; (void)cd;
}

static NOINLINE void build_fin(void)
{
  int i;

  for (i = 0; i < HELD; i++)
    GC_register_finalizer(new_node(C_FIN), fin, NULL, NULL, NULL);
}

static NOINLINE void build_weak(void)
{
  void **h = (void **)GC_MALLOC_ATOMIC(2 * sizeof(void *));
  struct node *w = new_node(C_WEAK);

  if (NULL == h) exit(1);
  h[0] = NULL;
  h[1] = w;             /* in a pointer-free object: not a reference   */
  GC_GENERAL_REGISTER_DISAPPEARING_LINK(&h[1], w);
  weak_holder = h;
}

/* Another thread's stack: it makes its object, says so, waits.         */
static sem_t thread_made, thread_go;

static void *thread_main(void *arg)
{
  struct node *volatile t = new_node(C_THREAD);

  (void)arg;
  printf("thread_obj %p\n", (void *)t);
  fflush(stdout);
  sem_post(&thread_made);
  while (sem_wait(&thread_go) != 0) {
  }
  if (NULL == t->next) t->pad = 2;      /* t stays live until here    */
  return NULL;
}

static NOINLINE void thread_case(void)
{
  pthread_t th;

  if (sem_init(&thread_made, 0, 0) != 0 || sem_init(&thread_go, 0, 0) != 0
      || pthread_create(&th, NULL, thread_main, NULL) != 0)
    exit(1);
  while (sem_wait(&thread_made) != 0) {
  }
  request("T.Thread");
  collect();
  sem_post(&thread_go);
  pthread_join(th, NULL);
}

/* The stack case: the object lives in this frame only, while the       */
/* collection runs below it.                                            */
static NOINLINE void stack_case(void)
{
  struct node *volatile s = new_node(C_STACK);

  printf("stack_obj %p\n", (void *)s);
  request("T.Stack");
  collect();
  if (NULL == s->next) s->pad = 1;      /* s stays live past collect  */
}

int main(void)
{
  /* One heap section for everything: the collector's own note of where */
  /* it last mapped memory (os_dep.c's last_addr, static data) may point */
  /* at the first object of a section mapped just above it, a true but  */
  /* foreign root (why.sh accepts it only as a suffix of the chain).    */
  if (NULL == getenv("GC_INITIAL_HEAP_SIZE"))
    setenv("GC_INITIAL_HEAP_SIZE", "64M", 0);
  GC_INIT();
  GC_set_finalize_on_demand(1);
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "retainload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  if (GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0) != GC_SUCCESS) return 1;
  GC_acc_set_type_namer(namer);
  /* Truth, not time: a loaded machine must not cut a walk short.      */
  if (GC_acc_set_retain_pause(60000) != GC_SUCCESS) return 1;
  /* The list's callsite, for the request by callsite (stacks only    */
  /* there: capturing them leaves stale copies on the stack).           */
  if (GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0) != GC_SUCCESS) return 1;
  build_list();
  if (GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0) != GC_SUCCESS) return 1;
  build_chain();
  build_cycle();
  build_precise();
  build_fin();
  build_weak();
  collect();            /* the finalizable object is queued            */
  request("T.Static");
  collect();
  if (GC_acc_retain_site(list_site, 0) != GC_SUCCESS) return 1;
  collect();
  stack_case();
  thread_case();
  request("T.Deep");
  collect();
  request("T.CycC");
  collect();
  request("T.Precise");
  collect();
  request("T.Cons");
  collect();
  request("T.Fin");
  collect();
  request("T.Weak");
  collect();
  printf("list_n %d\ndeep_n %d\n", LIST_N, DEEP_N);
  return list_head == NULL || chain_heads[0] == NULL;
}
