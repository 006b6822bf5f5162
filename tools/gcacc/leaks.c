/* SPDX-License-Identifier: MIT */
/*
 * leaks.c: the (kind, size class) rows whose live bytes grow steadily
 * across the session.  The rule, over the collection records with a
 * census (record i of n, split into W = min(10, n) equal windows by i):
 * a row is a leak when
 *   1. the least-squares slope of its live bytes against i is positive;
 *   2. it ends at least twice as high as it began: the lowest value of the
 *      last window is >= 2 x the highest value of the first window, and
 *   3. at least LEAK_MIN_GROWTH bytes higher;
 *   4. it rises steadily: the window maxima rise from one window to the
 *      next in at least 70% of the W - 1 steps;
 *   5. it never falls back: no window's lowest value is below half the
 *      previous window's highest.
 * A steady leak passes every test.  A steady state fails 2; a sawtooth
 * (a cache filled and dropped) fails 2 when dropped within windows, 5
 * when dropped across them; a warm-up that then levels off fails 4.
 * A row absent from a record counts as 0 live bytes there.
 * GC_ACC_RETAIN=auto (accounting/retain_auto.c) applies rules 1-6 in the
 * collector to choose what it walks for; the constants both use are in
 * accounting/gca_leak_rule.h: change them there, and the rules in both.
 *
 * Types and callsites (the dump's "type_rows" and "site_rows", rebuilt
 * by tables.c: an absent row keeps its last value there) are judged by
 * rules 1-5 on their live bytes (callsites scaled in stacks=sample
 * dumps), and one more, on the ages of their survivors:
 *   6. its survivors get older: the share of its live objects aged 4
 *      collections or more (age bins 4-7 and up), averaged over the
 *      collections of a window, is higher in the last window than in the
 *      first, and at least LEAK_MIN_OLD_SHARE in the last.
 * Live bytes that grow because a row allocates more and more short-lived
 * objects fail 6 (their share stays near 0); a leak keeps what it
 * allocated, so its old share climbs towards 1.  Type 0 (untyped) and
 * sites 0 and 1 (no stack, not sampled) are not judged: they are not
 * one place in the program.  A leaking callsite is shown by its stack.
 *
 * Rules 1-6 find growth; a leak is growth that goes on while the program
 * repeats the same work, not a program building its data once (issue 34:
 * Guile building a list it keeps, or loading modules from source, passed
 * 1-6).  So each finding gets a level of evidence, "strong" (counted:
 * exit 1) unless one of these makes it "weak" (reported, said so, exit 0):
 *   7. growth stops: over the last k = max(1, W / 5) windows the row rose
 *      per window less than a quarter of its pace per window before them
 *      (a warm-up or loading phase that ends);
 *   8. little churn: the program allocated (granted bytes, all records)
 *      less than LEAK_MIN_CHURN times its peak live bytes, or less than
 *      LEAK_MIN_CHURN_FRAMED times when frame markers are in every window
 *      of the later half of the session (the program says it repeats its
 *      work).  A program that builds its data once allocates about what
 *      it keeps; one that repeats work allocates many times that;
 *   9. the work changes: without frame markers through the session, the
 *      dump must show the same work repeated: the program's allocation
 *      mix (granted bytes per (kind, size class), as shares of a window's
 *      allocation) must stay the same from window to window over the
 *      later half of the session - the median total variation distance
 *      between windows w - 1 and w, w = W / 2 .. W - 1, at most
 *      LEAK_MAX_MIX.  A loop doing the same work allocates the same mix
 *      (distance near 0); a program loading one module after another, or
 *      doing different work as it goes, changes it.  Frame markers say
 *      the work repeats, so a framed session skips this (a game's frames
 *      differ, bursts and all).
 * 7 is judged per row, 8 and 9 once for the session (the "evidence":
 * allocation per window and key, folded as the records pass).
 *
 * The window a record falls in needs n, so the dump is read twice: once
 * to count the records, once to fold them; memory is one fixed set of
 * windows per key, never a series per record.
 */

#include "gcacc.h"
#include "leaks.h"
#include "dump_read.h"

#include <stdlib.h>
#include <string.h>

struct leak_key {
  double sy, sxy;                       /* least-squares sums            */
  double wold[LEAK_WINDOWS];            /* types, sites: old shares summed */
  u64 wmax[LEAK_WINDOWS], wmin[LEAK_WINDOWS];
  u64 wseen[LEAK_WINDOWS];              /* records of the window with it */
  /* Types, sites: the value since census 'from' (a group keeps its     */
  /* value while its rows are absent), folded as one run when it changes */
  /* or at the end: linear in rows, not records x groups.               */
  u64 y, from;
  double old;
  u64 walloc[LEAK_WINDOWS];             /* classes: granted, rule 9      */
};

static void fold(struct leak_key *k, u64 y, u64 i, unsigned w)
{
  k->sy += (double)y;
  k->sxy += (double)y * (double)i;
  if (y > k->wmax[w]) k->wmax[w] = y;
  if (k->wseen[w] == 0 || y < k->wmin[w]) k->wmin[w] = y;
  k->wseen[w]++;
}

/* The window of census i.                                              */
static unsigned window_of(const struct leaks *l, u64 i)
{
  u64 w = i * l->windows / l->n;

  return w >= l->windows ? l->windows - 1 : (unsigned)w;   /* file grew */
}

/* Fold k's current value over censuses [k->from, to): what folding it   */
/* at each of them would do, window by window.                           */
static void flush_run(const struct leaks *l, struct leak_key *k, u64 to)
{
  u64 a = k->from, b;

  if (k->y == 0 || to <= a) {           /* 0 counts as absent            */
    k->from = to;
    return;
  }
  k->sy += (double)k->y * (double)(to - a);
  /* sum of i over [a, to)                                              */
  k->sxy += (double)k->y * ((double)(to - a) * (double)(a + to - 1) / 2);
  for (; a < to; a = b) {
    unsigned w = window_of(l, a);

    /* The first census past window w (binary search: windows are few  */
    /* but runs long).                                                   */
    if (w == l->windows - 1) {
      b = to;
    } else {
      u64 lo = a + 1, hi = to;

      while (lo < hi) {
        u64 mid = lo + (hi - lo) / 2;

        if (window_of(l, mid) == w) lo = mid + 1;
        else hi = mid;
      }
      b = lo;
    }
    if (k->y > k->wmax[w]) k->wmax[w] = k->y;
    if (k->wseen[w] == 0 || k->y < k->wmin[w]) k->wmin[w] = k->y;
    k->wseen[w] += b - a;
    k->wold[w] += k->old * (double)(b - a);
  }
  k->from = to;
}

/* The type or site rows of this census: the groups whose value changed */
/* (tables.c's rule: the others keep theirs, folded later as a run).    */
static void fold_groups(struct leaks *l, const struct rec *r, int site)
{
  const struct keymap *m = site ? l->tb.sites : l->tb.types;
  const struct dump_tab rows = rec_tab(r->json,
                                       site ? "site_rows" : "type_rows");
  size_t col = site ? DUMP_COL(r->cols, site_rows, site_id)
                    : DUMP_COL(r->cols, type_rows, type_id);
  size_t j;

  for (j = 0; j < dump_tab_rows(&rows); j++) {
    u64 id = tab_u64(&rows, j, col);
    const struct group *g = keymap_get((struct keymap *)m, id, 0);
    struct leak_key *k;

    if (g == NULL) continue;
    if (g == keymap_get((struct keymap *)m, KEYMAP_OTHER, 0))
      id = KEYMAP_OTHER;                /* folded rows: one "other"      */
    if (site ? id < 2 : id == 0) continue;
    k = keymap_get(site ? l->ms : l->mt, id, 1);
    flush_run(l, k, l->i);              /* the old value, up to now      */
    k->y = tables_scale(&l->tb, site, g->live_objs, g->live_bytes,
                        g->live_bytes);
    k->old = g->live_objs ? (double)tables_old_objs(g)
                            / (double)g->live_objs : 0.0;
  }
}

/* At the end: every group's last run.                                   */
static void flush_all(struct leaks *l, struct keymap *m)
{
  size_t j;

  for (j = 0; j < keymap_count(m); j++)
    flush_run(l, keymap_at(m, j, NULL), l->i);
}

static int leaks_frame(const json_t *f, void *arg)
{
  struct leaks *l = arg;

  tables_frame(&l->tb, f);
  l->frames++;
  l->wframes[window_of(l, l->i)]++;     /* after the last census: clamped */
  return 0;
}

static int leaks_visit(const struct rec *r, void *arg)
{
  struct leaks *l = arg;
  const struct dump_tab classes = rec_tab(r->json, "classes");
  size_t j;
  unsigned w;

  int census = r->collection && r->census;

  tables_record(&l->tb, r);
  /* Allocation, of every record (snapshots carry deltas too), in the    */
  /* window of the census it precedes; live bytes, of census records.    */
  w = window_of(l, l->i);
  l->alloc += r->alloc_granted_bytes;
  if (census) {
    l->wrecords[w]++;
    if (r->live_bytes > l->peak) l->peak = r->live_bytes;
  }
  for (j = 0; j < dump_tab_rows(&classes); j++) {
    u64 key = tcol(&classes, j, r->cols, classes, kind) << 32
              | (tcol(&classes, j, r->cols, classes, class) & 0xffffffffULL);
    u64 a = tcol(&classes, j, r->cols, classes, alloc_granted_bytes);
    u64 y = census ? tcol(&classes, j, r->cols, classes, live_bytes) : 0;
    struct leak_key *k;

    if (a == 0 && y == 0) continue;     /* live 0 counts as absent       */
    k = keymap_get(l->m, key, 1);       /* one lookup a row: the cap's   */
    k->walloc[w] += a;                  /* count of folded rows is rows  */
    l->walloc[w] += a;
    if (y != 0) fold(k, y, l->i, w);
  }
  if (!census) return 0;
  fold_groups(l, r, 0);
  fold_groups(l, r, 1);
  l->i++;
  return 0;
}

/* The first pass: census records, quietly (the second pass reports     */
/* truncation and errors), from the raw lines: a collection record with  */
/* "census" not 0.  The count only places records in windows (a wrong    */
/* one from a forged line is clamped there), so parsing every record     */
/* twice is not worth its time (half of the run on a big dump).          */
static u64 count_census(const char *path, int progress)
{
  const char *err;
  struct dump_reader *d = dump_open(path, &err);
  json_t *v;
  u64 n = 0;

  if (d == NULL) return 0;
  dump_set_raw(d);
  while (dump_next(d, &v) == DUMP_RECORD) {
    size_t len;
    const char *line = dump_line(d, &len), *c;

    if (v != NULL) {                    /* the header                    */
      json_decref(v);
      continue;
    }
    if (strstr(line, "\"record\":\"collection\"") != NULL
        && (c = strstr(line, "\"census\":")) != NULL) {
      c += 9;
      while (*c == ' ') c++;
      if (*c >= '1' && *c <= '9') n++;
    }
    progress_update(progress, dump_name(d), dump_compressed_offset(d),
                    dump_compressed_size(d));
  }
  progress_done(progress);
  dump_close(d);
  return n;
}

static int cmp_finding(const void *pa, const void *pb)
{
  const struct leak_finding *a = pa, *b = pb;
  u64 ga = a->end - a->start, gb = b->end - b->start;

  if (ga != gb) return ga > gb ? -1 : 1;
  return a->key < b->key ? -1 : a->key > b->key;
}

/* Apply the rule (see the top of the file) to one key; 1 if a leak.     */
static int judge(const struct leaks *l, u64 n, const struct leak_key *k,
                 struct leak_finding *f)
{
  unsigned w, W = l->windows, last = W - 1;
  double sx = (double)n * (double)(n - 1) / 2;
  double sxx = (double)(n - 1) * (double)n * (double)(2 * n - 1) / 6;
  double den = (double)n * sxx - sx * sx;
  u64 wmin[LEAK_WINDOWS];

  for (w = 0; w < W; w++)
    wmin[w] = k->wseen[w] < l->wrecords[w] ? 0 : k->wmin[w];
  f->slope = den > 0 ? ((double)n * k->sxy - sx * k->sy) / den : 0;
  f->start = k->wmax[0];
  f->end = wmin[last];
  f->rises = 0;
  for (w = 1; w < W; w++)
    if (k->wmax[w] > k->wmax[w - 1]) f->rises++;
  if (!(f->slope > 0)) return 0;
  if (f->end < 2 * f->start || f->end - f->start < LEAK_MIN_GROWTH) return 0;
  if (f->rises * 100 < GCA_LEAK_MIN_RISES_PCT * (W - 1)) return 0;
  for (w = 1; w < W; w++)
    if (wmin[w] < k->wmax[w - 1] / 2) return 0;
  return 1;
}

/* Rule 6 (types, sites), after judge().                                */
static int judge_age(const struct leaks *l, const struct leak_key *k,
                     struct leak_finding *f)
{
  unsigned last = l->windows - 1;

  f->old_start = l->wrecords[0] ? k->wold[0] / (double)l->wrecords[0] : 0;
  f->old_end = l->wrecords[last] ? k->wold[last] / (double)l->wrecords[last]
                                 : 0;
  return f->old_end > f->old_start && f->old_end >= LEAK_MIN_OLD_SHARE;
}

/* Rule 7 on a key's window maxima: 1 if its growth stops.             */
static int growth_stops(const struct leaks *l, const struct leak_key *k)
{
  unsigned W = l->windows, n = W / 5 ? W / 5 : 1;
  double early, late;

  if (W < 3) return 0;
  early = ((double)k->wmax[W - 1 - n] - (double)k->wmax[0])
          / (double)(W - 1 - n);
  late = ((double)k->wmax[W - 1] - (double)k->wmax[W - 1 - n]) / (double)n;
  return early > 0 && late * 4 < early;
}

static int cmp_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;

  return a < b ? -1 : a > b;
}

/* Rules 8 and 9, once for the session.                                 */
static void session_evidence(const struct leaks *l, struct leak_evidence *ev)
{
  unsigned w, W = l->windows, from = W / 2 ? W / 2 : 1, nd = 0;
  double d[LEAK_WINDOWS];
  size_t i;

  ev->framed = l->frames > 0;
  for (w = W / 2; w < W; w++)
    if (l->wframes[w] == 0) ev->framed = 0;
  ev->churn = l->peak ? (double)l->alloc / (double)l->peak : 0;
  /* The total variation distance between the allocation mixes of       */
  /* windows w - 1 and w, for w in the later half.                      */
  for (w = from; w < W; w++) {
    double a = (double)l->walloc[w - 1], b = (double)l->walloc[w], tv = 0;

    if (a == 0 || b == 0) {
      d[nd++] = a == b ? 0 : 1;         /* nothing allocated in one      */
      continue;
    }
    for (i = 0; i < keymap_count(l->m); i++) {
      const struct leak_key *k = keymap_at(l->m, i, NULL);
      double x = (double)k->walloc[w - 1] / a - (double)k->walloc[w] / b;

      tv += x < 0 ? -x : x;
    }
    d[nd++] = tv / 2;
  }
  ev->mix = 0;
  if (nd > 0) {
    qsort(d, nd, sizeof(d[0]), cmp_double);
    ev->mix = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
  }
}

/* The level of a finding: the first of rules 7-9 that makes it weak,   */
/* else what makes it strong.                                            */
static enum leak_reason level_of(const struct leaks *l,
                                 const struct leak_key *k,
                                 const struct leak_evidence *ev)
{
  if (growth_stops(l, k)) return LEAK_STOPS;
  if (ev->churn < (ev->framed ? LEAK_MIN_CHURN_FRAMED : LEAK_MIN_CHURN))
    return LEAK_LITTLE_CHURN;
  if (!ev->framed && ev->mix > LEAK_MAX_MIX) return LEAK_MIX;
  return ev->framed ? LEAK_FRAMES : LEAK_CHURN;
}

/* Judge one table of groups; the findings, sorted, and their count.    */
static struct leak_finding *judge_groups(const struct leaks *l,
                                    const struct keymap *m,
                                    const struct leak_evidence *ev, size_t *nf)
{
  struct leak_finding *f = malloc((keymap_count(m) + 1) * sizeof(*f));
  size_t i;

  if (f == NULL) abort();
  *nf = 0;
  for (i = 0; i < keymap_count(m); i++) {
    u64 key;
    const struct leak_key *k = keymap_at(m, i, &key);

    if (key == KEYMAP_OTHER) continue;  /* a sum of keys, not one place  */
    memset(&f[*nf], 0, sizeof(*f));
    f[*nf].key = key;
    if (judge(l, l->i, k, &f[*nf]) && judge_age(l, k, &f[*nf])) {
      f[*nf].reason = level_of(l, k, ev);
      (*nf)++;
    }
  }
  if (*nf > 0) qsort(f, *nf, sizeof(*f), cmp_finding);
  return f;
}

static size_t count_strong(const struct leak_finding *f, size_t n)
{
  size_t i, c = 0;

  for (i = 0; i < n; i++)
    if (!LEAK_WEAK(f[i].reason)) c++;
  return c;
}

int leaks_read(struct leaks *l, struct session_info *info, const char *path,
               int progress)
{
  memset(l, 0, sizeof(*l));
  memset(info, 0, sizeof(*info));
  tables_init(&l->tb, info);
  l->mt = keymap_new(sizeof(struct leak_key));
  l->ms = keymap_new(sizeof(struct leak_key));
  l->n = count_census(path, progress);
  l->windows = l->n < LEAK_WINDOWS ? (unsigned)(l->n ? l->n : 1)
                                   : LEAK_WINDOWS;
  if (l->n == 0) l->n = 1;
  l->m = keymap_new(sizeof(struct leak_key));
  return session_scan_frames(path, progress, leaks_visit, leaks_frame, l,
                             info);
}

void leaks_free(struct leaks *l, struct session_info *info)
{
  keymap_free(l->mt);
  keymap_free(l->ms);
  tables_free(&l->tb);
  keymap_free(l->m);
  json_decref(info->header);
}

void leaks_judge(struct leaks *l, const char *path, u64 min_coll,
                 struct leak_report *rep)
{
  size_t i;

  memset(rep, 0, sizeof(*rep));
  rep->found = malloc((keymap_count(l->m) + 1) * sizeof(*rep->found));
  if (rep->found == NULL) abort();
  flush_all(l, l->mt);
  flush_all(l, l->ms);
  if (l->i < min_coll) {
    warning("%s: %llu collections with a census, fewer than %llu: "
            "no verdict (see --min-collections)", path, l->i, min_coll);
  } else {
    for (i = 0; i < keymap_count(l->m); i++) {
      u64 key;
      const struct leak_key *k = keymap_at(l->m, i, &key);

      if (key == KEYMAP_OTHER) continue;
      rep->found[rep->nfound].key = key;
      if (judge(l, l->i, k, &rep->found[rep->nfound])) rep->nfound++;
    }
    session_evidence(l, &rep->ev);
    for (i = 0; i < rep->nfound; i++)
      rep->found[i].reason = level_of(l, keymap_get(l->m, rep->found[i].key,
                                                    0), &rep->ev);
    rep->ftypes = judge_groups(l, l->mt, &rep->ev, &rep->ntypes);
    rep->fsites = judge_groups(l, l->ms, &rep->ev, &rep->nsites);
    if (rep->nsites) tables_load_symbols(&l->tb, path);
  }
  if (rep->nfound > 0)
    qsort(rep->found, rep->nfound, sizeof(*rep->found), cmp_finding);
  rep->nstrong = count_strong(rep->found, rep->nfound)
                 + count_strong(rep->ftypes, rep->ntypes)
                 + count_strong(rep->fsites, rep->nsites);
}

void leaks_report_free(struct leak_report *rep)
{
  free(rep->found);
  free(rep->ftypes);
  free(rep->fsites);
}
