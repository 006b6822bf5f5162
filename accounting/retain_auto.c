/* SPDX-License-Identifier: MIT */
/*
 * retain_auto.c: GC_ACC_RETAIN=auto (issue 37): when the dump stops,
 * the paths to the types that grew.
 *
 * At the first collection end after the request (lock held, the type
 * rows just folded by that collection's record) each type's live bytes
 * are kept as the baseline (OS memory, one word pair per type).  When
 * the dump stops (GC_acc_dump_stop, or the program's exit: an atexit
 * handler registered at that first collection, after the writer's, so
 * that it runs first), the AUTO_N types whose live bytes grew most since
 * (by at least AUTO_MIN_GROWTH bytes) get one walk each over the last
 * collection's marks (retain.c), each with its own "retain" record
 * ("auto":1).  gcacc leaks judges growth over every census; this asks
 * only the first and the last, in the process, where the walk must run.
 * Objects allocated since the last collection are not marked and not
 * walked; the paths are those of the objects live at that collection.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <stdlib.h>
#include <string.h>

#define AUTO_N 3
#define AUTO_MIN_GROWTH ((word)64 << 10)

struct auto_base {
  word cookie, live;
};

static int auto_on = 0;                 /* lock held                    */
static int auto_done = 0;               /* answered (once per request)  */
static int auto_exit_set = 0;
static struct auto_base *auto_base = NULL;
static word auto_n = 0, auto_bytes = 0;

GC_INNER void gca_retain_set_auto(int on)
{
  auto_on = on;
  auto_done = 0;
}

/* The setting (env.c): auto, or a type or cookie (retain.c); 0 if s is */
/* none of them.  Lock not held.                                        */
GC_INNER int gca_retain_env(const char *s)
{
  int ok = 1;
  DCL_LOCK_STATE;

  word c = 0;

  if (strncmp(s, "cookie:0x", 9) == 0) {
    const char *p = s + 9;

    for (; *p != '\0' && ok; p++) {
      int d = *p >= '0' && *p <= '9' ? *p - '0'
              : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

      if (d < 0 || (c >> (CPP_WORDSZ - 4)) != 0) ok = 0;
      c = c << 4 | (word)d;
    }
  }
  LOCK();
  if (strcmp(s, "auto") == 0) {
    gca_retain_set_auto(1);
  } else if (strncmp(s, "type:", 5) == 0) {
    ok = gca_retain_set(s + 5, 0, 0, GCA_RETAIN_WAIT);
  } else if (strncmp(s, "site:", 5) == 0) {
    ok = gca_retain_set(NULL, (word)strtoul(s + 5, NULL, 10), 0,
                        GCA_RETAIN_SITE);
  } else {
    ok = ok && strncmp(s, "cookie:0x", 9) == 0
         && gca_retain_set(NULL, c, 0, GCA_RETAIN_WAIT);
  }
  UNLOCK();
  return ok;
}

/* A type's live bytes: the census's, or its live samples weighed by  */
/* their mean (the sampled profile).                                     */
static word auto_live(unsigned id, word *cookie)
{
  word samples = 0, live = gca_types_live_of(id, cookie, &samples);

  return live + samples * gca_sample_bytes;
}

static void auto_exit(void)
{
  gca_retain_at_stop();
}

/* The baseline, at the first collection end with a dump open.          */
GC_INNER void gca_retain_auto_collection_end(void)
{
  unsigned id, n;

  if (EXPECT(!auto_on, TRUE) || auto_base != NULL || auto_done
      || !gca_dump_is_open())
    return;
  n = gca_types_count();
  auto_bytes = ((word)(n + 1) * sizeof(struct auto_base) + GC_page_size - 1)
               & ~(word)(GC_page_size - 1);
  auto_base = (struct auto_base *)gca_os_alloc((size_t)auto_bytes);
  if (NULL == auto_base) return;
  for (id = 1; id <= n; id++)
    auto_base[id - 1].live = auto_live(id, &auto_base[id - 1].cookie);
  auto_n = n;
  if (!auto_exit_set) {
    auto_exit_set = 1;
    (void)atexit(auto_exit);
  }
}

GC_INNER void gca_retain_at_stop(void)
{
  word best_cookie[AUTO_N], best_growth[AUTO_N];
  unsigned id, n, i, j, n_best = 0;
  DCL_LOCK_STATE;

  if (!GC_is_initialized) return;
  LOCK();
  if (!auto_on || auto_done || NULL == auto_base || !gca_dump_is_open()
      || GC_gc_no == 0) {
    UNLOCK();
    return;
  }
  auto_done = 1;
  n = gca_types_count();
  for (id = 1; id <= n; id++) {
    word cookie = 0, live = auto_live(id, &cookie), base = 0, g;

    if (id <= auto_n && auto_base[id - 1].cookie == cookie)
      base = auto_base[id - 1].live;
    if (live < base + AUTO_MIN_GROWTH || 0 == cookie) continue;
    g = live - base;
    for (i = 0; i < n_best && best_growth[i] >= g; i++) {
    }
    if (i >= AUTO_N) continue;
    if (n_best < AUTO_N) n_best++;
    for (j = n_best - 1; j > i; j--) {
      best_growth[j] = best_growth[j - 1];
      best_cookie[j] = best_cookie[j - 1];
    }
    best_growth[i] = g;
    best_cookie[i] = cookie;
  }
  for (i = 0; i < n_best; i++) {
    const char *name = gca_types_name_of(best_cookie[i]);

    gca_retain_walk(name, best_cookie[i], &best_cookie[i], 1, 1);
  }
  gca_os_free(auto_base, (size_t)auto_bytes);
  auto_base = NULL;
  UNLOCK();
}

#endif /* !GC_ACC_DISABLE */
