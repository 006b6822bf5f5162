/* SPDX-License-Identifier: MIT */
/*
 * test_types_gcj.c: types that come from the objects themselves.
 *
 * gcj objects: their vtable pointer (word 0) is their type, with no call
 * to the accounting API.  "First word is the type" mode (IL2CPP's
 * objects start with their class pointer): small structs whose word 0
 * is set to a class right after GC_malloc / GC_malloc_atomic.  For both,
 * after a collection, each type reports exactly the kept objects live
 * and the dropped ones freed, and the dump names the types through the
 * embedder's namer callback ("types":[[id,"0x...","name"]], once per
 * type and dump).  An object whose word 0 is still zero, or a free-list
 * link into the heap, is not given a type.  A second round, after the
 * heap has grown (which clears the collector's cache of classes already
 * resolved), checks the counts again: the cache, cold, warm or cleared,
 * never changes a result.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_mark.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>


struct vtable { const char *name; GC_word descr; };
static struct vtable vt_foo = { "Game.Foo", 0 }, vt_bar = { "Game.Bar", 0 };

/* IL2CPP-like classes (outside the collector's heap).                */
struct klass { const char *name; void *pad[3]; };
static struct klass k_player = { "Game.Player", { 0 } };
static struct klass k_bullet = { "Game.Bullet", { 0 } };
struct object { struct klass *klass; void *monitor; GC_word data[4]; };

#define N 60
static void *volatile keep[4][N];
static unsigned namer_calls;

static int GC_CALLBACK namer(GC_word cookie, char *buf, size_t sz)
{
  const char *name = NULL;

  namer_calls++;
  if (cookie == (GC_word)&vt_foo) name = vt_foo.name;
  else if (cookie == (GC_word)&vt_bar) name = vt_bar.name;
  else if (cookie == (GC_word)&k_player) name = k_player.name;
  else if (cookie == (GC_word)&k_bullet) name = k_bullet.name;
  if (NULL == name) return 0;
  snprintf(buf, sz, "%s", name);
  return 1;
}

static NOINLINE void alloc_gcj(void)
{
  int i;

  for (i = 0; i < N; i++) {
    void *p = GC_gcj_malloc(64, &vt_foo);

    if (i % 3 == 0) keep[0][i] = p;
    p = GC_gcj_malloc(160, &vt_bar);
    if (i % 2 == 0) keep[1][i] = p;
  }
}

static NOINLINE void alloc_first_word(void)
{
  int i;

  for (i = 0; i < N; i++) {
    struct object *o = (struct object *)GC_malloc(sizeof(*o));

    o->klass = &k_player;               /* as IL2CPP, after the call */
    if (i % 4 == 0) keep[2][i] = o;
    o = (struct object *)GC_malloc_atomic(sizeof(*o) + 64);
    o->klass = &k_bullet;
    if (i % 5 == 0) keep[3][i] = o;
  }
  /* No class yet: not a type.                                        */
  keep[2][1] = GC_malloc(sizeof(struct object));
}

/* One class from two call paths (stacks on): main calls this from two */
/* lines, so two callsites with one word 0; each object must keep its   */
/* own site when its class is resolved.  Keeps every `every`-th object. */
static NOINLINE void alloc_players(void *volatile *row, int every)
{
  int i;

  for (i = 0; i < N; i++) {
    struct object *o = (struct object *)GC_malloc(sizeof(*o));

    o->klass = &k_player;
    if (i % every == 0) row[i] = o;
  }
}

static void check_site_live(const char *what, unsigned site, GC_word live)
{
  struct GC_acc_group_stats_s s;

  memset(&s, 0, sizeof(s));
  if (!(CHECK_EQ(GC_acc_get_site_stats(site, &s, sizeof(s)), sizeof(s))
        & CHECK_EQ(s.live_objs, live)))
    fprintf(stderr, "  (%s)\n", what);
}

static void check_type(const char *what, GC_word cookie, GC_word live,
                       GC_word alloc, GC_word freed)
{
  struct GC_acc_group_stats_s s;
  int ok = 1;

  memset(&s, 0, sizeof(s));
  ok &= CHECK_EQ(GC_acc_get_type_stats(cookie, &s, sizeof(s)), sizeof(s));
  ok &= CHECK_EQ(s.live_objs, live);
  ok &= CHECK_EQ(s.alloc_objs, alloc);
  ok &= CHECK_EQ(s.freed_objs, freed);
  if (!ok) fprintf(stderr, "  (%s)\n", what);
}

int main(void)
{
  char path[256], cmd[300], line[1 << 16];
  FILE *f;
  int names_seen = 0, foo_lines = 0;
  GC_word cookie;
  unsigned site;

  unsetenv("GC_ACC_DUMP");
  GC_INIT();
  /* Exact types: the full profile (tags on every object).           */
  GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0);
  /* Roots by hand too: IL2CPP's build registers no static data.        */
  GC_TEST_ROOT(keep);
  GC_init_gcj_malloc(0, NULL);
  GC_acc_set_type_namer(namer);
  /* Kinds 0 (pointer-free) and 1 (normal), as IL2CPP would ask.     */
  GC_acc_set_first_word_type_kinds((1u << 0) | (1u << 1));
  snprintf(path, sizeof(path), "/tmp/gcacc-test-gcj-%d.jsonl.gz",
           (int)getpid());
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  collect();
  GC_disable();
  alloc_gcj();
  alloc_first_word();
  GC_enable();
  /* Types are not known before a collection or a free meets them.     */
  CHECK(GC_acc_get_object_tag(keep[2][0], &cookie, &site));
  CHECK_EQ(cookie, 0);
  collect();
  check_type("gcj Foo", (GC_word)&vt_foo, (N + 2) / 3, N, N - (N + 2) / 3);
  check_type("gcj Bar", (GC_word)&vt_bar, N / 2, N, N / 2);
  check_type("Player", (GC_word)&k_player, N / 4, N, N - N / 4);
  check_type("Bullet", (GC_word)&k_bullet, N / 5, N, N - N / 5);
  CHECK(GC_acc_get_object_tag(keep[2][0], &cookie, &site));
  CHECK_EQ(cookie, (GC_word)&k_player);
  CHECK(GC_acc_get_object_tag(keep[2][1], &cookie, &site));
  CHECK_EQ(cookie, 0);

  /* Round 2: the same again, the earlier objects dropped; half of this */
  /* round's before, half after the heap grows.                         */
  memset((void *)keep, 0, sizeof(keep));
  GC_disable();
  alloc_first_word();
  CHECK(GC_expand_hp(4 << 20));
  alloc_gcj();
  GC_enable();
  collect();
  /* Cumulative allocations and frees; live is this round's kept.       */
  check_type("gcj Foo, 2", (GC_word)&vt_foo, (N + 2) / 3, 2 * N,
             2 * N - (N + 2) / 3);
  check_type("gcj Bar, 2", (GC_word)&vt_bar, N / 2, 2 * N, 2 * N - N / 2);
  check_type("Player, 2", (GC_word)&k_player, N / 4, 2 * N, 2 * N - N / 4);
  check_type("Bullet, 2", (GC_word)&k_bullet, N / 5, 2 * N, 2 * N - N / 5);

  /* Round 3: stacks on, one class from two callsites.                  */
  memset((void *)keep, 0, sizeof(keep));
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  GC_disable();
  alloc_players(keep[0], 2);
  alloc_players(keep[1], 3);
  GC_enable();
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  collect();
  check_type("Player, 3", (GC_word)&k_player, (N + 1) / 2 + (N + 2) / 3,
             4 * N, 4 * N - (N + 1) / 2 - (N + 2) / 3);
  {
    GC_word ca = 0, cb = 0;
    unsigned sa = 0, sb = 0;

    CHECK(GC_acc_get_object_tag(keep[0][0], &ca, &sa));
    CHECK(GC_acc_get_object_tag(keep[1][0], &cb, &sb));
    CHECK_EQ(ca, (GC_word)&k_player);
    CHECK_EQ(cb, (GC_word)&k_player);
    CHECK(sa >= 2 && sb >= 2 && sa != sb);
    check_site_live("path a", sa, (N + 1) / 2);
    check_site_live("path b", sb, (N + 2) / 3);
  }
  collect();
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  snprintf(cmd, sizeof(cmd), "zcat '%s'", path);
  f = popen(cmd, "r");
  if (CHECK(f != NULL)) {
    while (fgets(line, sizeof(line), f) != NULL) {
      json_error_t err;
      json_t *r = json_loads(line, 0, &err), *v;
      size_t i;

      if (!CHECK(r != NULL)) continue;
      v = json_object_get(r, "types");
      for (i = 0; v != NULL && i < json_array_size(v); i++) {
        const char *name = json_string_value(
                                json_array_get(json_array_get(v, i), 2));

        if (name && (0 == strcmp(name, "Game.Foo")
                     || 0 == strcmp(name, "Game.Bar")
                     || 0 == strcmp(name, "Game.Player")
                     || 0 == strcmp(name, "Game.Bullet")))
          names_seen++;
        if (name && 0 == strcmp(name, "Game.Foo")) foo_lines++;
      }
      json_decref(r);
    }
    pclose(f);
  }
  CHECK_EQ(names_seen, 4);      /* each named once per dump            */
  CHECK_EQ(foo_lines, 1);
  CHECK(namer_calls >= 4);
  unlink(path);
  return check_done("test_types_gcj");
}
