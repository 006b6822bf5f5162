/* SPDX-License-Identifier: MIT */
/*
 * test_ephemeron.c: an ephemeron table through GC_set_mark_stack_empty,
 * as il2cpp's ConditionalWeakTable uses it.  The table lives outside the
 * GC heap (the collector does not scan it); the callback, run whenever
 * the mark stack drains, pushes the value of every entry whose key is
 * marked.  A value is kept exactly while its key lives, even when the
 * value points back at its own key, and a chain hanging off a value
 * comes with it.  Without the callback the values die.
 */
#include <stdlib.h>
#include "gc.h"
#include "gc_mark.h"
#include "../check.h"
#include "../gc_test_util.h"

#define N 200
#define MAGIC 0x5eedUL

struct val { void *key; struct val *chain; unsigned long magic; };
struct ent { void *key; struct val *value; void *key_link, *val_link; };

static struct ent *table;               /* malloc: not scanned */
static void *keys[N];                   /* roots: the even keys */
static unsigned long calls;

static struct GC_ms_entry *GC_CALLBACK on_empty(struct GC_ms_entry *top,
                                                struct GC_ms_entry *lim)
{
  int i;

  calls++;
  for (i = 0; i < N; i++) {
    struct ent *e = &table[i];

    if (e->key_link == NULL || e->val_link == NULL)
      continue;                         /* key or value gone */
    if (GC_is_marked(e->key) && !GC_is_marked(e->value))
      top = GC_mark_and_push(e->value, top, lim, (void **)&e->value);
  }
  return top;
}

static NOINLINE void fill(void)
{
  int i;

  for (i = 0; i < N; i++) {
    struct ent *e = &table[i];
    struct val *v = (struct val *)GC_MALLOC(sizeof(struct val));
    struct val *c = (struct val *)GC_MALLOC(sizeof(struct val));

    e->key = GC_MALLOC(32);
    c->magic = MAGIC + 1;
    v->key = e->key;                    /* back at its own key */
    v->chain = c;
    v->magic = MAGIC;
    e->value = v;
    e->key_link = e->key;
    e->val_link = v;
    GC_general_register_disappearing_link(&e->key_link, e->key);
    GC_general_register_disappearing_link(&e->val_link, v);
    if (i % 2 == 0)
      keys[i] = e->key;
  }
}

int main(void)
{
  int i, kept = 0, odd_keys = 0, odd_vals = 0;

  GC_INIT();
  GC_add_roots(keys, keys + N);
  table = (struct ent *)calloc(N, sizeof(*table));
  CHECK(GC_get_mark_stack_empty() == 0);
  GC_set_mark_stack_empty(on_empty);
  CHECK(GC_get_mark_stack_empty() == on_empty);
  fill();
  collect();
  collect();
  CHECK(calls > 0);
  for (i = 0; i < N; i++) {
    struct ent *e = &table[i];

    if (i % 2 == 0) {
      /* Key alive: the value and its chain too, intact.                */
      if (CHECK(e->key_link != NULL && e->val_link != NULL)) {
        CHECK_EQ(e->value->magic, MAGIC);
        CHECK_EQ(e->value->chain->magic, MAGIC + 1);
        CHECK(e->value->key == e->key);
        kept++;
      }
    } else {
      /* Key dead: both gone (the value's pointer back at the key does  */
      /* not keep the key).  Conservative scanning may spare a few.     */
      odd_keys += e->key_link == NULL;
      odd_vals += e->val_link == NULL;
    }
  }
  CHECK_EQ(kept, N / 2);
  CHECK(odd_keys >= N / 2 - 2);
  CHECK(odd_vals >= N / 2 - 2);
  printf("kept %d values; %d of %d dead keys and %d values collected\n",
         kept, odd_keys, N / 2, odd_vals);
  /* Without the callback nothing holds the values of live keys.         */
  GC_set_mark_stack_empty(0);
  collect();
  {
    int gone = 0;
    for (i = 0; i < N; i += 2)
      gone += table[i].val_link == NULL && table[i].key_link != NULL;
    CHECK(gone >= N / 2 - 2);
  }
  return check_done("test_ephemeron");
}
