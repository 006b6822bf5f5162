/* SPDX-License-Identifier: MIT */
/*
 * cmd_leaks.c: the (kind, size class) rows whose live bytes grow steadily
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
#include "session.h"
#include "dump_read.h"
#include "tables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LEAK_WINDOWS 10
#define LEAK_MIN_GROWTH (64 * 1024ULL)
#define LEAK_MIN_OLD_SHARE 0.25
#define LEAK_MIN_CHURN 4.0
#define LEAK_MIN_CHURN_FRAMED 2.0
#define LEAK_MAX_MIX 0.03

static const char leaks_usage[] =
  "usage: gcacc leaks [<options>] <dump>\n"
  "\n"
  "The (kind, size class) rows whose live bytes grow steadily across the\n"
  "session.  Over the n collections with a census, split into 10 equal\n"
  "windows, a row is reported when all of these hold:\n"
  "  - the least-squares slope of its live bytes per collection is > 0;\n"
  "  - the lowest value in the last window is at least 2x the highest in\n"
  "    the first window, and at least 64 KiB more;\n"
  "  - the window maxima rise in at least 70% of the steps between\n"
  "    consecutive windows;\n"
  "  - no window's lowest value falls below half the previous window's\n"
  "    highest (a cache that is dropped is not a leak).\n"
  "Types and callsites (dumps with type and site rows) are judged by the\n"
  "same tests on their live bytes, and one more: their survivors get\n"
  "older - the share of their live objects aged 4 or more collections,\n"
  "averaged per window, is higher in the last window than in the first\n"
  "and at least 25% there.  Untyped objects and sites without a stack are\n"
  "not judged.  Leaking callsites are shown by their stacks (module+offset,\n"
  "or functions when DUMP.symbols from `gcacc symbolize` has them); extra\n"
  "columns old_start and old_end give the first and last window's share.\n"
  "Columns: kind, class, start_bytes (first window's highest), end_bytes\n"
  "(last window's lowest), growth_bytes, slope_bytes (per collection),\n"
  "rises (steps where the window maximum rose, of windows - 1).\n"
  "\n"
  "A leak is growth that goes on while the program repeats the same work,\n"
  "not a program building its data once.  Each row found has a level of\n"
  "evidence (columns level and reason in --json and --csv): \"strong\"\n"
  "unless one of these makes it \"weak\":\n"
  "  - growth stops: over the last fifth of the windows it rose less than\n"
  "    a quarter of its pace before (a warm-up or loading phase);\n"
  "  - little churn: the program allocated less than 4x its peak live\n"
  "    bytes (2x with frame markers in every window of the session's\n"
  "    later half): it may build its data once and keep it;\n"
  "  - work changes: no frame markers, and the mix of the allocation (its\n"
  "    shares by kind and size class) moves more than 3% from window to\n"
  "    window over the later half (the median): not the same work\n"
  "    repeated, perhaps a loading phase.\n"
  "Strong rows' reason says what showed repeated work: \"frame markers\"\n"
  "or \"churn\".  The table lists weak rows apart, under \"weak evidence\",\n"
  "with the reason; --json adds \"evidence\" (frames, framed, allocated_bytes,\n"
  "peak_live_bytes, churn, mix_change).\n"
  "The dump is read twice, so it must be a file, not standard input.\n"
  "A sampled profile's type and callsite figures are estimates: shown as\n"
  "~12.3 MiB, with a note (--json: \"estimated\": true).\n"
  "Exit status 1 when a leak with strong evidence is reported, 0 when none\n"
  "is (weak rows alone: 0).\n"
  "\n"
  "  --min-collections <N>\n"
  "                      report nothing (with a warning) for a dump with\n"
  "                      fewer than N collections with a census (default\n"
  "                      10, at least 3)\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

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

struct leaks {
  u64 n;                                /* census records (first pass)   */
  unsigned windows;
  u64 i;                                /* census records so far         */
  u64 wrecords[LEAK_WINDOWS];
  struct keymap *m;
  struct keymap *mt, *ms;               /* types, sites: id -> leak_key  */
  struct tables tb;
  /* The session's evidence (rules 8, 9).                               */
  u64 alloc;                            /* granted bytes, all records    */
  u64 peak;                             /* highest total live bytes      */
  u64 walloc[LEAK_WINDOWS];             /* granted bytes per window      */
  u64 frames, wframes[LEAK_WINDOWS];    /* frame records, per window     */
};

/* Rules 7-9: why a finding is weak, or what makes it strong.           */
enum leak_reason { R_FRAMES, R_CHURN, R_STOPS, R_LITTLE_CHURN, R_MIX };
static const char *const reason_name[] = {
  "frame markers", "churn", "growth stops", "little churn",
  "work changes"
};
#define REASON_WEAK(r) ((r) >= R_STOPS)

struct evidence {
  int framed;                           /* frames in every later window  */
  double churn;                         /* allocated / peak live         */
  double mix;                           /* rule 9: median distance       */
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

struct finding {
  u64 key, start, end;
  double slope;
  unsigned rises;
  double old_start, old_end;            /* types, sites: rule 6          */
  enum leak_reason reason;              /* rules 7-9                     */
};

static int cmp_finding(const void *pa, const void *pb)
{
  const struct finding *a = pa, *b = pb;
  u64 ga = a->end - a->start, gb = b->end - b->start;

  if (ga != gb) return ga > gb ? -1 : 1;
  return a->key < b->key ? -1 : a->key > b->key;
}

/* Apply the rule (see the top of the file) to one key; 1 if a leak.     */
static int judge(const struct leaks *l, u64 n, const struct leak_key *k,
                 struct finding *f)
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
  if (f->rises * 10 < 7 * (W - 1)) return 0;
  for (w = 1; w < W; w++)
    if (wmin[w] < k->wmax[w - 1] / 2) return 0;
  return 1;
}

/* Rule 6 (types, sites), after judge().                                */
static int judge_age(const struct leaks *l, const struct leak_key *k,
                     struct finding *f)
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
static void session_evidence(const struct leaks *l, struct evidence *ev)
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
                                 const struct evidence *ev)
{
  if (growth_stops(l, k)) return R_STOPS;
  if (ev->churn < (ev->framed ? LEAK_MIN_CHURN_FRAMED : LEAK_MIN_CHURN))
    return R_LITTLE_CHURN;
  if (!ev->framed && ev->mix > LEAK_MAX_MIX) return R_MIX;
  return ev->framed ? R_FRAMES : R_CHURN;
}

/* Judge one table of groups; the findings, sorted, and their count.    */
static struct finding *judge_groups(const struct leaks *l,
                                    const struct keymap *m,
                                    const struct evidence *ev, size_t *nf)
{
  struct finding *f = malloc((keymap_count(m) + 1) * sizeof(*f));
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

static size_t count_strong(const struct finding *f, size_t n)
{
  size_t i, c = 0;

  for (i = 0; i < n; i++)
    if (!REASON_WEAK(f[i].reason)) c++;
  return c;
}

/* Whether f goes in the table of r: -1 the strong rows, else the weak  */
/* rows of reason r.                                                     */
static int row_in(const struct finding *f, int r)
{
  return r < 0 ? !REASON_WEAK(f->reason) : (int)f->reason == r;
}

/* The title of the weak rows of reason r (what: "size classes", ...).   */
static void reason_text(FILE *out, enum leak_reason r,
                        const struct evidence *ev, const char *what)
{

  fprintf(out, "weak evidence, not counted as a leak (%s):\n", what);
  switch (r) {
  case R_STOPS:
    fputs("  growth stops: over the last fifth of the session they rose\n"
          "  under a quarter of their pace before (a warm-up or loading "
          "phase)\n", out);
    break;
  case R_LITTLE_CHURN:
    fprintf(out, "  little churn: the program allocated %.1fx its peak live "
            "bytes, under\n  %.0fx (%s frame markers): it may build its "
            "data once and keep it\n", ev->churn,
            ev->framed ? LEAK_MIN_CHURN_FRAMED : LEAK_MIN_CHURN,
            ev->framed ? "with" : "without");
    break;
  case R_MIX:
    fprintf(out, "  work changes: no frame markers, and the mix of the "
            "allocation moves\n  %.1f%% from window to window (over %.0f%%): "
            "not the same work repeated\n  (a loading phase?)\n",
            100 * ev->mix, 100 * LEAK_MAX_MIX);
    break;
  default:
    break;
  }
}

int cmd_leaks(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct leaks l;
  const char *path = NULL;
  struct emit_table *t;
  struct finding *found, *ftypes = NULL, *fsites = NULL;
  size_t ntypes = 0, nsites = 0;
  char *label = NULL;
  FILE *out;
  u64 min_coll = 10;
  size_t i, nfound = 0, nstrong;
  int a, r, rc;
  char kb[16], cb[32];
  struct evidence ev;
  static struct emit_col gcols[] = {
    { "id", COL_INT, 0 },
    { "type", COL_STR, 0 },
    { "start_bytes", COL_BYTES, 0 },
    { "end_bytes", COL_BYTES, 0 },
    { "growth_bytes", COL_BYTES, 0 },
    { "slope_bytes", COL_BYTES, 0 },
    { "rises", COL_INT, 0 },
    { "old_start", COL_PCT, 0 },
    { "old_end", COL_PCT, 0 },
    { "level", COL_STR, 0 },
    { "reason", COL_STR, 0 },
  };
  static const struct emit_col cols[] = {
    { "kind", COL_STR, 0 },
    { "class", COL_STR, 0 },
    { "start_bytes", COL_BYTES, 0 },
    { "end_bytes", COL_BYTES, 0 },
    { "growth_bytes", COL_BYTES, 0 },
    { "slope_bytes", COL_BYTES, 0 },
    { "rises", COL_INT, 0 },
    { "level", COL_STR, 0 },
    { "reason", COL_STR, 0 },
  };
  static const struct emit_col ecols[] = {
    { "frames", COL_INT, 0 },
    { "framed", COL_INT, 0 },
    { "allocated_bytes", COL_BYTES, 0 },
    { "peak_live_bytes", COL_BYTES, 0 },
    { "churn", COL_RATIO, 0 },
    { "mix_change", COL_RATIO, 0 },
  };
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))
#define NGCOLS ((int)(sizeof(gcols) / sizeof(gcols[0])))
#define NECOLS ((int)(sizeof(ecols) / sizeof(ecols[0])))

  for (a = 1; a < argc; a++) {
    int c;

    if (strcmp(argv[a], "--min-collections") == 0) {
      char *end;

      if (a + 1 >= argc)
        return usage_error("option '%s' needs a value", argv[a]);
      errno = 0;
      min_coll = strtoull(argv[++a], &end, 10);
      if (errno || *end != '\0' || argv[a][0] < '0' || argv[a][0] > '9'
          || min_coll < 3)
        return usage_error("--min-collections needs a number >= 3, "
                           "not '%s'", argv[a]);
      continue;
    }
    c = view_arg(&o, leaks_usage, argc, argv, &a);
    if (c == ARG_TAKEN) continue;
    if (c != ARG_OPERAND) return c;
    if (path != NULL) return usage_error("one dump at a time");
    path = argv[a];
  }
  if (path == NULL) return usage_error("no dump given");
  if (strcmp(path, "-") == 0)
    return usage_error("leaks reads the dump twice: give a file, not "
                       "standard input");

  memset(&l, 0, sizeof(l));
  memset(&info, 0, sizeof(info));
  tables_init(&l.tb, &info);
  l.mt = keymap_new(sizeof(struct leak_key));
  l.ms = keymap_new(sizeof(struct leak_key));
  l.n = count_census(path, o.progress);
  l.windows = l.n < LEAK_WINDOWS ? (unsigned)(l.n ? l.n : 1) : LEAK_WINDOWS;
  if (l.n == 0) l.n = 1;
  l.m = keymap_new(sizeof(struct leak_key));
  rc = session_scan_frames(path, o.progress, leaks_visit, leaks_frame, &l,
                           &info);
  if (rc != EXIT_OK) {
    keymap_free(l.m);
    keymap_free(l.mt);
    keymap_free(l.ms);
    tables_free(&l.tb);
    json_decref(info.header);
    return rc;
  }
  found = malloc((keymap_count(l.m) + 1) * sizeof(*found));
  if (found == NULL) abort();
  flush_all(&l, l.mt);
  flush_all(&l, l.ms);
  memset(&ev, 0, sizeof(ev));
  if (l.i < min_coll) {
    warning("%s: %llu collections with a census, fewer than %llu: "
            "no verdict (see --min-collections)", path, l.i, min_coll);
  } else {
    for (i = 0; i < keymap_count(l.m); i++) {
      u64 key;
      const struct leak_key *k = keymap_at(l.m, i, &key);

      if (key == KEYMAP_OTHER) continue;
      found[nfound].key = key;
      if (judge(&l, l.i, k, &found[nfound])) nfound++;
    }
    session_evidence(&l, &ev);
    for (i = 0; i < nfound; i++)
      found[i].reason = level_of(&l, keymap_get(l.m, found[i].key, 0), &ev);
    ftypes = judge_groups(&l, l.mt, &ev, &ntypes);
    fsites = judge_groups(&l, l.ms, &ev, &nsites);
    if (nsites) tables_load_symbols(&l.tb, path);
  }
  if (nfound > 0) qsort(found, nfound, sizeof(*found), cmp_finding);
  nstrong = count_strong(found, nfound) + count_strong(ftypes, ntypes)
            + count_strong(fsites, nsites);

  out = common_output(&o);
  if (out != NULL && o.format == EMIT_JSON) emit_json_begin(out);
  for (r = -1; out != NULL && r <= R_MIX; r++) {
    /* Tables: the strong rows (r = -1), then the weak ones by reason;   */
    /* --json and --csv: every row once (r = -1), with its level.        */
    size_t nr = 0;

    if (r >= 0 && (o.format != EMIT_TABLE || !REASON_WEAK(r))) continue;
    for (i = 0; i < nfound; i++)
      if (o.format != EMIT_TABLE || row_in(&found[i], r)) nr++;
    if (o.format == EMIT_TABLE && nr == 0) {
      if (r < 0)
        fprintf(out, nfound ? "no (kind, class) leaks over %llu collections "
                              "(weak evidence below)\n"
                            : "no (kind, class) grows steadily over %llu "
                              "collections\n", l.i);
      continue;
    }
    if (o.format == EMIT_TABLE && r >= 0) {
      fputc('\n', out);
      reason_text(out, (enum leak_reason)r, &ev, "size classes");
    }
    t = emit_table_new(o.format == EMIT_TABLE ? "" : "leaks", cols,
                       o.format == EMIT_TABLE ? NCOLS - 2 : NCOLS);
    for (i = 0; i < nfound; i++) {
      const struct finding *f = &found[i];

      if (o.format == EMIT_TABLE && !row_in(f, r)) continue;
      emit_row(t, kind_label((unsigned)(f->key >> 32), kb),
               class_label(info.header, (unsigned)(f->key & 0xffffffffULL),
                           cb),
               f->start, f->end, f->end - f->start,
               (unsigned long long)(f->slope + 0.5), (u64)f->rises,
               REASON_WEAK(f->reason) ? "weak" : "strong",
               reason_name[f->reason]);
    }
    emit_print(t, o.format, out);
  }
  if (out != NULL && o.format == EMIT_TABLE && nstrong > 0)
    fprintf(out, ev.framed
            ? "evidence: frame markers through the session (repeated work)\n"
            : "evidence: allocated %.1fx the peak live bytes (repeated work)\n",
            ev.churn);
  if (out != NULL && o.format == EMIT_JSON && l.i >= min_coll) {
    t = emit_table_new("evidence", ecols, NECOLS);
    emit_row(t, l.frames, (u64)ev.framed, l.alloc, l.peak, ev.churn,
             ev.mix);
    emit_print(t, o.format, out);
  }
  /* Types and callsites: only for dumps that have them.                 */
  label = malloc(4096);
  if (label == NULL) abort();
  if (l.tb.estimated) {
    gcols[2].type = gcols[3].type = gcols[4].type = gcols[5].type
      = COL_EBYTES;
  } else {
    gcols[2].type = gcols[3].type = gcols[4].type = gcols[5].type
      = COL_BYTES;
  }
  for (a = 0; out != NULL && a < 2; a++) {
    const struct finding *fs = a ? fsites : ftypes;
    size_t nf = a ? nsites : ntypes;
    int have = a ? l.tb.has_site_rows : l.tb.has_type_rows;

    if (!have) continue;
    gcols[1].name = a ? "stack" : "type";
    for (r = -1; r <= R_MIX; r++) {
      size_t nr = 0;

      if (r >= 0 && (o.format != EMIT_TABLE || !REASON_WEAK(r))) continue;
      for (i = 0; i < nf; i++)
        if (o.format != EMIT_TABLE || row_in(&fs[i], r)) nr++;
      if (o.format == EMIT_TABLE && nr == 0) {
        if (r < 0)
          fprintf(out, nf ? "no %s leaks with aging survivors (weak "
                            "evidence below)\n"
                          : "no %s grows steadily with aging survivors\n",
                  a ? "callsite" : "type");
        continue;
      }
      if (o.format == EMIT_TABLE) fputc('\n', out);
      if (o.format == EMIT_TABLE && r >= 0)
        reason_text(out, (enum leak_reason)r, &ev,
                    a ? "callsites" : "types");
      t = emit_table_new(o.format == EMIT_TABLE
                         ? (r >= 0 ? ""
                            : a ? "leaking callsites" : "leaking types")
                         : (a ? "leak_sites" : "leak_types"), gcols,
                         o.format == EMIT_TABLE ? NGCOLS - 2 : NGCOLS);
      for (i = 0; i < nf; i++) {
        const struct finding *f = &fs[i];

        if (o.format == EMIT_TABLE && !row_in(f, r)) continue;
        if (a) tables_site_label(&l.tb, f->key,
                                 o.format == EMIT_TABLE ? 4 : 0, label, 4096);
        else tables_type_label(&l.tb, f->key, label, 4096);
        emit_row(t, f->key, label, f->start, f->end, f->end - f->start,
                 (unsigned long long)(f->slope + 0.5), (u64)f->rises,
                 f->old_start, f->old_end,
                 REASON_WEAK(f->reason) ? "weak" : "strong",
                 reason_name[f->reason]);
      }
      emit_print(t, o.format, out);
    }
  }
  if (out != NULL) {
    if (o.format == EMIT_TABLE && (l.tb.has_type_rows || l.tb.has_site_rows))
      emit_estimate_line(out, l.tb.estimated, l.tb.estimate_bytes);
    if (o.format == EMIT_JSON) {
      emit_json_estimated(l.tb.estimated, l.tb.estimate_bytes);
      emit_json_end(out);
    }
    common_close(&o, out);
    rc = nstrong ? EXIT_FINDING : EXIT_OK;
  }
  free(label);
  free(found);
  free(ftypes);
  free(fsites);
  keymap_free(l.mt);
  keymap_free(l.ms);
  tables_free(&l.tb);
  keymap_free(l.m);
  json_decref(info.header);
  return rc;
}
