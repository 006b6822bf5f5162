/* SPDX-License-Identifier: MIT */
/*
 * retain_auto.c: GC_ACC_RETAIN=auto (issue 37): when the dump stops,
 * the paths to the types and the callsites that grew (what gcacc leaks
 * names: both).
 *
 * At the first collection end after the request (lock held, the type
 * and site rows just folded by that collection's record) each type's and
 * each callsite's live bytes are kept as the baseline (OS memory, one
 * word pair per row).  When the dump stops (GC_acc_dump_stop, or the
 * program's exit: an atexit handler registered at that first
 * collection, after the writer's, so that it runs first), the AUTO_N
 * types and the AUTO_N callsites whose live bytes grew most since (by at
 * least AUTO_MIN_GROWTH bytes) get one walk each over the last
 * collection's marks (retain.c), each with its own "retain" record
 * ("auto":1; a callsite's {"site":ID}).  Callsites exist where tags
 * carry them (GC_ACC_PROFILE=trace, GC_ACC_STACKS).  gcacc leaks judges
 * growth over every census; this asks only the first and the last, in
 * the process, where the walk must run.
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
static word auto_n = 0, auto_bytes = 0;  /* rows: types, then sites  */
static unsigned auto_n_types = 0;

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

/* Row i's live bytes (types: ids 1..n, *key its cookie; sites: ids    */
/* 0..n-1, *key the id): the census's, or its live samples weighed by   */
/* their mean (the sampled profile).                                     */
static word auto_live(int sites, unsigned i, word *key)
{
  word samples = 0, live;

  if (sites) {
    live = gca_types_site_live_of(i, &samples);
    *key = i;
  } else {
    live = gca_types_live_of(i, key, &samples);
  }
  return live + samples * gca_sample_bytes;
}

static void auto_exit(void)
{
  gca_retain_at_stop();
}

/* Rows of types (1..n) then sites (0..n-1) in the baseline.            */
#define AUTO_ROWS(sites) ((sites) ? gca_types_rows_n(1) : gca_types_count())
#define AUTO_FIRST(sites) ((sites) ? 0u : 1u)

/* The baseline, at the first collection end with a dump open.          */
GC_INNER void gca_retain_auto_collection_end(void)
{
  unsigned i, n;
  int sites;

  if (EXPECT(!auto_on, TRUE) || auto_base != NULL || auto_done
      || !gca_dump_is_open())
    return;
  auto_n_types = gca_types_count();
  n = auto_n_types + gca_types_rows_n(1);
  auto_bytes = ((word)(n + 1) * sizeof(struct auto_base) + GC_page_size - 1)
               & ~(word)(GC_page_size - 1);
  auto_base = (struct auto_base *)gca_os_alloc((size_t)auto_bytes);
  if (NULL == auto_base) return;
  auto_n = 0;
  for (sites = 0; sites < 2; sites++) {
    unsigned lim = sites ? n - auto_n_types : auto_n_types;

    for (i = 0; i < lim; i++) {
      struct auto_base *b = &auto_base[auto_n++];

      b->live = auto_live(sites, i + AUTO_FIRST(sites), &b->cookie);
    }
  }
  if (!auto_exit_set) {
    auto_exit_set = 1;
    (void)atexit(auto_exit);
  }
}

/* The AUTO_N rows of types (or sites) that grew most, into best (keys; */
/* their count).                                                        */
static unsigned auto_top(int sites, word best[AUTO_N])
{
  word growth[AUTO_N];
  unsigned i, j, n_best = 0, id, n = AUTO_ROWS(sites);
  unsigned off = sites ? auto_n_types : 0;
  unsigned n_base = sites ? (unsigned)auto_n - auto_n_types : auto_n_types;

  for (id = AUTO_FIRST(sites); id < n + AUTO_FIRST(sites); id++) {
    word key = 0, live = auto_live(sites, id, &key), base = 0, g;
    unsigned bi = id - AUTO_FIRST(sites);

    if (bi < n_base && auto_base[off + bi].cookie == key)
      base = auto_base[off + bi].live;
    if (live < base + AUTO_MIN_GROWTH) continue;
    if (sites ? key < 2 : 0 == key) continue;   /* sites 0, 1: none   */
    g = live - base;
    for (i = 0; i < n_best && growth[i] >= g; i++) {
    }
    if (i >= AUTO_N) continue;
    if (n_best < AUTO_N) n_best++;
    for (j = n_best - 1; j > i; j--) {
      growth[j] = growth[j - 1];
      best[j] = best[j - 1];
    }
    growth[i] = g;
    best[i] = key;
  }
  return n_best;
}

GC_INNER void gca_retain_at_stop(void)
{
  word best[AUTO_N];
  unsigned i, n;
  int sites;
  DCL_LOCK_STATE;

  if (!GC_is_initialized) return;
  LOCK();
  if (!auto_on || auto_done || NULL == auto_base || !gca_dump_is_open()
      || GC_gc_no == 0) {
    UNLOCK();
    return;
  }
  auto_done = 1;
  for (sites = 0; sites < 2; sites++) {
    n = auto_top(sites, best);
    for (i = 0; i < n; i++) {
      if (sites) {
        gca_retain_walk(NULL, best[i], &best[i], 1, 1 | 2);
      } else {
        const char *name = gca_types_name_of(best[i]);

        gca_retain_walk(name, best[i], &best[i], 1, 1);
      }
    }
  }
  gca_os_free(auto_base, (size_t)auto_bytes);
  auto_base = NULL;
  UNLOCK();
}

#endif /* !GC_ACC_DISABLE */
