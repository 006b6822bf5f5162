/* SPDX-License-Identifier: MIT */
/*
 * retain_auto.c: GC_ACC_RETAIN=auto (issue 37): when the dump stops,
 * the paths to the types and the callsites that `gcacc leaks` would
 * name (both).
 *
 * From the first collection end after the request with a dump open
 * (lock held, the type and site rows just folded by that collection's
 * census), each census folds each type's and each callsite's live bytes
 * into a fixed summary per row (OS memory, a few hundred bytes a row, at
 * most AUTO_MAX_ROWS rows of each: rows past the cap are not followed):
 * the least-squares sums, and per bucket of censuses the highest and the
 * lowest live bytes and the summed share of old objects.  Buckets hold
 * one census each until AUTO_B are full, then pairs merge and each holds
 * twice as many: memory stays fixed however long the session.  When the
 * dump stops (GC_acc_dump_stop, or the program's exit: an atexit handler
 * registered at that first collection, after the writer's, so that it
 * runs first) the buckets are grouped into W = min(10, buckets) windows
 * and leaks' rules 1-6 (tools/gcacc/leaks.c; constants shared in
 * gca_leak_rule.h) judge each row, as leaks judges the dump: rising
 * slope, ends twice as high and 64 KiB higher, window maxima rising in
 * 70% of the steps, never falling back under half, survivors getting
 * older.  Of the rows that pass, the AUTO_N types and the AUTO_N
 * callsites that grew most (lowest of the last window minus highest of
 * the first: leaks' order) get one walk each over the last collection's
 * marks (retain.c), each with its own "retain" record ("auto":1; a
 * callsite's {"site":ID}).  Below GCA_LEAK_MIN_COLLECTIONS censuses,
 * nothing, as leaks gives no verdict.  Rules 7-9 only grade what 1-6
 * found (leaks names weak findings too), so they are not applied.
 * Up to 2 x W censuses the windows are leaks' own; past that a window
 * edge may be off by one bucket (at most n / 10 censuses), so a row at a
 * rule's edge may be judged otherwise.  Callsites exist where tags carry
 * them (GC_ACC_PROFILE=trace, GC_ACC_STACKS).
 * Objects allocated since the last collection are not marked and not
 * walked; the paths are those of the objects live at that collection.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <stdlib.h>
#include <string.h>

#define AUTO_N 3
#define AUTO_B (2 * GCA_LEAK_WINDOWS)   /* buckets of censuses          */
#define AUTO_MAX_ROWS 2048              /* rows followed, of each table */

struct auto_row {
  word key;                     /* a type's cookie, a callsite's id     */
  word bmax[AUTO_B], bmin[AUTO_B];      /* live bytes, per bucket       */
  float bold[AUTO_B];           /* old shares (rule 6) summed           */
  double sy, sxy;               /* least-squares sums (rule 1)          */
};

struct auto_tab {               /* types (row i: id i + 1), sites (id i) */
  struct auto_row *rows;
  unsigned n, cap;
  word bytes;
};

static int auto_on = 0;                 /* lock held                    */
static int auto_done = 0;               /* answered (once per request)  */
static int auto_started = 0;            /* folding censuses             */
static int auto_exit_set = 0;
static struct auto_tab auto_tab[2];     /* types, sites                 */
static word auto_i = 0;                 /* censuses folded              */
static word auto_wid = 1;               /* censuses per bucket          */

static void auto_free(void);

GC_INNER void gca_retain_set_auto(int on)
{
  auto_on = on;
  auto_done = 0;
  if (!on) auto_free();                 /* its summaries: no longer asked */
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

/* Rows of types (ids 1..n) or sites (0..n-1).                          */
#define AUTO_ROWS(sites) ((sites) ? gca_types_rows_n(1) : gca_types_count())
#define AUTO_FIRST(sites) ((sites) ? 0u : 1u)

/* Room for n rows (at most AUTO_MAX_ROWS); 0 if none (OS memory).      */
static int auto_reserve(struct auto_tab *t, unsigned n)
{
  unsigned cap = t->cap ? 2 * t->cap : 64;
  word bytes;
  struct auto_row *p;

  if (cap < n) cap = n;
  if (cap > AUTO_MAX_ROWS) cap = AUTO_MAX_ROWS;
  if (cap <= t->cap) return 0;
  bytes = ((word)cap * sizeof(struct auto_row) + GC_page_size - 1)
          & ~(word)(GC_page_size - 1);
  p = (struct auto_row *)gca_os_alloc((size_t)bytes);
  if (NULL == p) return 0;
  if (t->rows != NULL) {
    BCOPY(t->rows, p, t->n * sizeof(struct auto_row));
    gca_os_free(t->rows, (size_t)t->bytes);
  }
  t->rows = p;
  t->cap = cap;
  t->bytes = bytes;
  return 1;
}

static void auto_free(void)
{
  int sites;

  for (sites = 0; sites < 2; sites++) {
    struct auto_tab *t = &auto_tab[sites];

    if (t->rows != NULL) gca_os_free(t->rows, (size_t)t->bytes);
    BZERO(t, sizeof(*t));
  }
  auto_started = 0;
  auto_i = 0;
  auto_wid = 1;
}

/* The buckets full: merge pairs, each bucket twice as wide.            */
static void auto_merge(void)
{
  int sites;
  unsigned r, j;

  for (sites = 0; sites < 2; sites++) {
    for (r = 0; r < auto_tab[sites].n; r++) {
      struct auto_row *a = &auto_tab[sites].rows[r];

      for (j = 0; j < AUTO_B / 2; j++) {
        word x = a->bmax[2 * j], y = a->bmax[2 * j + 1];

        a->bmax[j] = x > y ? x : y;
        x = a->bmin[2 * j];
        y = a->bmin[2 * j + 1];
        a->bmin[j] = x < y ? x : y;
        a->bold[j] = a->bold[2 * j] + a->bold[2 * j + 1];
      }
    }
  }
  auto_wid *= 2;
}

/* One census into every row's summary (lock held).                     */
static void auto_fold(void)
{
  word b;
  int sites, first;
  unsigned r;

  if (auto_i / auto_wid >= AUTO_B) auto_merge();
  b = auto_i / auto_wid;
  first = auto_i % auto_wid == 0;
  for (sites = 0; sites < 2; sites++) {
    struct auto_tab *t = &auto_tab[sites];
    unsigned n = AUTO_ROWS(sites);

    if (n > t->cap) (void)auto_reserve(t, n);
    if (n > t->cap) n = t->cap;
    if (n > t->n) t->n = n;             /* new rows: 0 before (zeroed)  */
    for (r = 0; r < t->n; r++) {
      struct auto_row *a = &t->rows[r];
      word old, y = auto_live(sites, r + AUTO_FIRST(sites), &a->key);
      word objs = gca_types_row_ages(sites, r + AUTO_FIRST(sites), &old);
      float share = objs ? (float)old / (float)objs : 0.0f;

      if (first) {
        a->bmax[b] = a->bmin[b] = y;
        a->bold[b] = share;
      } else {
        if (y > a->bmax[b]) a->bmax[b] = y;
        if (y < a->bmin[b]) a->bmin[b] = y;
        a->bold[b] += share;
      }
      a->sy += (double)y;
      a->sxy += (double)y * (double)auto_i;
    }
  }
  auto_i++;
}

/* At each collection end with a dump open, from the first after the   */
/* request.                                                             */
GC_INNER void gca_retain_auto_collection_end(void)
{
  if (EXPECT(!auto_on, TRUE) || auto_done || !gca_dump_is_open()) return;
  if (!auto_started) {
    auto_started = 1;
    if (!auto_exit_set) {
      auto_exit_set = 1;
      (void)atexit(auto_exit);
    }
  }
  auto_fold();
}

/* Leaks' rules 1-6 (leaks.c: judge, judge_age) on one row's buckets   */
/* grouped into W windows; its growth (end - start) if it passes, else */
/* 0.                                                                   */
static word auto_judge(const struct auto_row *a, word nb, unsigned W)
{
  word wmax[GCA_LEAK_WINDOWS], wmin[GCA_LEAK_WINDOWS], wrec[GCA_LEAK_WINDOWS];
  double wold[GCA_LEAK_WINDOWS], n = (double)auto_i;
  double sx = n * (n - 1) / 2, sxx = (n - 1) * n * (2 * n - 1) / 6;
  double den = n * sxx - sx * sx, slope;
  word b, start, end;
  unsigned w, rises = 0;

  BZERO(wmax, sizeof(wmax));
  BZERO(wrec, sizeof(wrec));
  BZERO(wold, sizeof(wold));
  for (b = 0; b < nb; b++) {
    word c = auto_i - b * auto_wid;

    w = (unsigned)(b * W / nb);
    if (0 == wrec[w] || a->bmin[b] < wmin[w]) wmin[w] = a->bmin[b];
    if (a->bmax[b] > wmax[w]) wmax[w] = a->bmax[b];
    wold[w] += a->bold[b];
    wrec[w] += c < auto_wid ? c : auto_wid;
  }
  slope = den > 0 ? (n * a->sxy - sx * a->sy) / den : 0;
  start = wmax[0];
  end = wmin[W - 1];
  for (w = 1; w < W; w++)
    if (wmax[w] > wmax[w - 1]) rises++;
  if (!(slope > 0) || end / 2 < start
      || end - start < (word)GCA_LEAK_MIN_GROWTH
      || rises * 100 < GCA_LEAK_MIN_RISES_PCT * (W - 1))
    return 0;                                           /* rules 1-4  */
  for (w = 1; w < W; w++)
    if (wmin[w] < wmax[w - 1] / 2) return 0;            /* rule 5     */
  if (!(wold[W - 1] / (double)wrec[W - 1] > wold[0] / (double)wrec[0]
        && wold[W - 1] / (double)wrec[W - 1] >= GCA_LEAK_MIN_OLD_SHARE))
    return 0;                                           /* rule 6     */
  return end - start;
}

/* The AUTO_N rows of types (or sites) that leaks would name and that   */
/* grew most, into best (keys; their count).                            */
static unsigned auto_top(int sites, word best[AUTO_N])
{
  word growth[AUTO_N];
  const struct auto_tab *t = &auto_tab[sites];
  word nb = (auto_i + auto_wid - 1) / auto_wid;
  unsigned i, j, r, n_best = 0;
  unsigned W = nb < GCA_LEAK_WINDOWS ? (unsigned)nb : GCA_LEAK_WINDOWS;

  if (auto_i < GCA_LEAK_MIN_COLLECTIONS) return 0;      /* no verdict */
  for (r = 0; r < t->n; r++) {
    const struct auto_row *a = &t->rows[r];
    word g;

    if (sites ? a->key < 2 : 0 == a->key) continue;     /* not a place */
    g = auto_judge(a, nb, W);
    if (0 == g) continue;
    for (i = 0; i < n_best && (growth[i] > g
                               || (growth[i] == g && best[i] < a->key)); i++) {
    }
    if (i >= AUTO_N) continue;
    if (n_best < AUTO_N) n_best++;
    for (j = n_best - 1; j > i; j--) {
      growth[j] = growth[j - 1];
      best[j] = best[j - 1];
    }
    growth[i] = g;
    best[i] = a->key;
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
  if (!auto_on || auto_done || !auto_started || !gca_dump_is_open()
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
  auto_free();
  UNLOCK();
}

#endif /* !GC_ACC_DISABLE */
