/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c: one self-contained HTML report of a session.
 *
 *   gcacc report [-o report.html] <dump> [<dump-b>]
 *
 * One pass over each dump (session_scan) gathers, in bounded memory: the
 * summary (session_summary_visit, the same figures as `gcacc summary`),
 * the timeline downsampled into at most REPORT_BUCKETS buckets that keep
 * each series' min and max (two neighbours merge when the array is full),
 * copies of the rows of the peak-live and the worst-fragmentation
 * collections, the first REPORT_MAX_GROWS heap growths, and cumulative
 * allocation per (kind, class).  The page is plain HTML with inline CSS
 * and SVG drawn here; it fetches nothing.  Every string from a dump goes
 * through html_esc().  Elements tests look for have stable ids
 * (summary, timeline-chart, frag-chart, top-table, top-types, top-sites,
 * frag-histogram, grows, diff) and carry their numbers in data-
 * attributes.  The type and callsite tables (tables.c) are rebuilt while
 * scanning and copied at each new peak-live collection; top-types and
 * top-sites show them at the peak, callsites by their stacks as `gcacc
 * top --group site` does (functions when DUMP.symbols has them).
 */

#include "gcacc.h"
#include "session.h"
#include "tables.h"
#include "report_views.h"

#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
  "usage: gcacc report [<options>] <dump> [<dump-b>]\n"
  "\n"
  "Write one self-contained HTML page (inline CSS and SVG, no network):\n"
  "the summary, heap/live/reserved/free and fragmentation over time, the\n"
  "top size classes, types and callsites at the peak-live collection,\n"
  "the free-list histogram\n"
  "at the worst-fragmentation collection, the heap growths and, with a\n"
  "second dump, what changed per (kind, class) from <dump> to <dump-b>.\n"
  "\n"
  "  -o <file>           write to <file> (default: standard output)\n"
  "  --no-progress       no progress display on a terminal\n";

#define REPORT_BUCKETS 400      /* timeline points per series, at most   */
#define REPORT_MAX_GROWS 500    /* heap growths listed, at most          */
#define REPORT_TOP_ROWS 30      /* rows of the top table                 */

/* Timeline series, in legend order. */
enum { S_HEAP, S_LIVE, S_RESERVED, S_FREE, S_FRAG, S_N };
static const char *const series_name[S_N] = {
  "heap", "live", "reserved", "free", "frag_index"
};
static const char *const series_color[S_N] = {
  "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"
};

struct bucket {
  u64 n;                        /* records folded in                     */
  u64 t_lo, t_hi;               /* first and last t_end_ns               */
  double mn[S_N], mx[S_N];
};

/* A class row of the peak-live collection (copied: rows are read lean, */
/* session.h, and gone after their record's visit).                      */
struct peak_row {
  u64 kind, cls, live, live_objs, reserved;
};

struct grow {
  u64 t_ns, req_bytes, free_bytes, largest_free_bytes, grow_bytes;
  u64 heap_after;
  long long req_kind;
};

/* Everything the page shows about one dump. */
struct report {
  const char *path;
  struct session_summary sum;
  json_t *header;
  struct dump_cols cols;        /* its columns (for the rows kept below)  */
  u64 start;                    /* time origin (ns, monotonic clock)      */
  struct bucket b[REPORT_BUCKETS];
  int nb;                       /* buckets in use                         */
  u64 span;                     /* records per full bucket                */
  u64 census_recs;              /* records charted                        */
  int have_peak;                /* a census record with "classes" seen    */
  struct peak_row *peak;        /* its rows                               */
  size_t npeak, peak_cap;
  u64 peak_live, peak_gc, peak_seq;
  json_t *frag_lists;           /* "freelists.lists" at the worst frag    */
  double frag_worst;
  u64 frag_gc, frag_total, frag_largest;
  struct grow grows[REPORT_MAX_GROWS];
  unsigned n_grows;
  u64 grows_lost;               /* not listed: over the cap or "_lost"    */
  u64 *alloc;                   /* [SESSION_MAX_KINDS][SESSION_MAX_CLASSES]*/
  struct tables tb;             /* types and sites, rebuilt               */
  struct tables_view pt, ps;    /* their copies at the peak-live record   */
  struct tables_view ft, fs;    /* and at the first census (TopN growth)  */
  struct rv_frames *rvf;        /* frame records (the Frames view)        */
  struct rv_why *rvw;           /* retain records (the Why view)          */
  u64 alloc_out_of_range;       /* rows whose kind/class do not fit       */
};

#define ALLOC_AT(rp, k, c) ((rp)->alloc[(size_t)(k) * SESSION_MAX_CLASSES \
                                        + (size_t)(c)])

/* ---- gathering ------------------------------------------------------ */

static void bucket_merge(struct bucket *into, const struct bucket *from)
{
  int s;

  if (from->n == 0) return;
  if (into->n == 0) {
    *into = *from;
    return;
  }
  for (s = 0; s < S_N; s++) {
    if (from->mn[s] < into->mn[s]) into->mn[s] = from->mn[s];
    if (from->mx[s] > into->mx[s]) into->mx[s] = from->mx[s];
  }
  into->t_hi = from->t_hi;
  into->n += from->n;
}

static void timeline_add(struct report *rp, const struct rec *r)
{
  double v[S_N];
  struct bucket *bk;
  int s;

  v[S_HEAP] = (double)r->heap_bytes;
  v[S_LIVE] = (double)r->live_bytes;
  v[S_RESERVED] = (double)r->class_reserved_bytes;
  v[S_FREE] = (double)r->free_bytes;
  v[S_FRAG] = r->frag_index;
  if (rp->nb > 0 && rp->b[rp->nb - 1].n < rp->span) {
    bk = &rp->b[rp->nb - 1];
  } else {
    if (rp->nb == REPORT_BUCKETS) {     /* full: halve the resolution */
      int i;

      for (i = 0; i < REPORT_BUCKETS / 2; i++) {
        struct bucket m = rp->b[2 * i];

        bucket_merge(&m, &rp->b[2 * i + 1]);
        rp->b[i] = m;
      }
      rp->nb = REPORT_BUCKETS / 2;
      rp->span *= 2;
    }
    bk = &rp->b[rp->nb++];
    memset(bk, 0, sizeof(*bk));
  }
  if (bk->n == 0) {
    bk->t_lo = r->t_end_ns;
    for (s = 0; s < S_N; s++) bk->mn[s] = bk->mx[s] = v[s];
  }
  for (s = 0; s < S_N; s++) {
    if (v[s] < bk->mn[s]) bk->mn[s] = v[s];
    if (v[s] > bk->mx[s]) bk->mx[s] = v[s];
  }
  bk->t_hi = r->t_end_ns;
  bk->n++;
}

static void keep_json(json_t **slot, const json_t *v)
{
  json_decref(*slot);
  *slot = v != NULL ? json_deep_copy(v) : NULL;
}

/* Copy the class rows of r, the peak-live collection so far.           */
static void keep_peak(struct report *rp, const struct rec *r,
                      const struct dump_tab *rows)
{
  size_t i, n = dump_tab_rows(rows);

  rp->have_peak = json_object_get(r->json, "classes") != NULL;
  if (n > rp->peak_cap) {
    rp->peak = xrealloc(rp->peak, n * sizeof(*rp->peak));
    rp->peak_cap = n;
  }
  for (i = 0; i < n; i++) {
    struct peak_row *p = &rp->peak[i];

    p->kind = tcol(rows, i, r->cols, classes, kind);
    p->cls = tcol(rows, i, r->cols, classes, class);
    p->live = tcol(rows, i, r->cols, classes, live_bytes);
    p->live_objs = tcol(rows, i, r->cols, classes, live_objs);
    p->reserved = tcol(rows, i, r->cols, classes, reserved_bytes);
  }
  rp->npeak = n;
}

static int report_visit(const struct rec *r, void *arg)
{
  struct report *rp = arg;
  const struct dump_tab rows = rec_tab(r->json, "classes");
  const struct dump_tab grows = rec_tab(r->json, "grows");
  size_t i;

  session_summary_visit(r, &rp->sum);
  tables_record(&rp->tb, r);
  if (r->census) {
    rp->census_recs++;
    if (rp->census_recs == 1) {
      tables_capture(&rp->tb, 0, &rp->ft);
      tables_capture(&rp->tb, 1, &rp->fs);
    }
    timeline_add(rp, r);
    if (!rp->have_peak || r->live_bytes > rp->peak_live) {
      rp->peak_live = r->live_bytes;
      rp->peak_gc = r->gc_no;
      rp->peak_seq = r->seq;
      keep_peak(rp, r, &rows);
      tables_capture(&rp->tb, 0, &rp->pt);
      tables_capture(&rp->tb, 1, &rp->ps);
    }
  }
  if (r->frag_index > rp->frag_worst) {
    rp->frag_worst = r->frag_index;
    rp->frag_gc = r->gc_no;
    rp->frag_total = r->total_free_bytes;
    rp->frag_largest = r->largest_free_bytes;
    keep_json(&rp->frag_lists,
              json_object_get(json_object_get(r->json, "freelists"),
                              "lists"));
  }
  for (i = 0; i < dump_tab_rows(&rows); i++) {
    u64 k = tcol(&rows, i, r->cols, classes, kind);
    u64 c = tcol(&rows, i, r->cols, classes, class);

    if (k < SESSION_MAX_KINDS && c < SESSION_MAX_CLASSES)
      ALLOC_AT(rp, k, c) += tcol(&rows, i, r->cols, classes,
                                 alloc_granted_bytes);
    else
      rp->alloc_out_of_range++;
  }
  rp->grows_lost += jnum(r->json, "grows_lost");
  for (i = 0; i < dump_tab_rows(&grows); i++) {
    struct grow *g;

    if (rp->n_grows == REPORT_MAX_GROWS) {
      rp->grows_lost++;
      continue;
    }
    g = &rp->grows[rp->n_grows++];
    g->t_ns = tcol(&grows, i, r->cols, grows, t_ns);
    g->req_bytes = tcol(&grows, i, r->cols, grows, req_bytes);
    if (!dump_tab_int(&grows, i, DUMP_COL(r->cols, grows, req_kind),
                      &g->req_kind))
      g->req_kind = -1;
    g->free_bytes = tcol(&grows, i, r->cols, grows, free_bytes);
    g->largest_free_bytes = tcol(&grows, i, r->cols, grows,
                                 largest_free_bytes);
    g->grow_bytes = tcol(&grows, i, r->cols, grows, grow_bytes);
    g->heap_after = tcol(&grows, i, r->cols, grows, heap_bytes_after);
  }
  return 0;
}

static int report_frame(const json_t *fr, void *arg)
{
  struct report *rp = arg;

  tables_frame(&rp->tb, fr);
  rv_frame(rp->rvf, fr, &rp->tb.info->cols);
  return 0;
}

static int report_other(const json_t *rec, void *arg)
{
  return rv_why_record(rec, ((struct report *)arg)->rvw);
}

static void report_free(struct report *rp)
{
  if (rp == NULL) return;
  rv_why_free(rp->rvw);
  tables_view_free(&rp->pt);
  tables_view_free(&rp->ps);
  tables_view_free(&rp->ft);
  tables_view_free(&rp->fs);
  rv_frames_free(rp->rvf);
  tables_free(&rp->tb);
  json_decref(rp->header);
  free(rp->peak);
  json_decref(rp->frag_lists);
  free(rp->alloc);
  free(rp);
}

/* Scan one dump; NULL (message printed) on error, *rc set. */
static struct report *report_scan(const char *path, int progress, int *rc)
{
  struct report *rp = calloc(1, sizeof(*rp));
  struct session_info info;

  if (rp == NULL) abort();
  rp->alloc = calloc((size_t)SESSION_MAX_KINDS * SESSION_MAX_CLASSES,
                     sizeof(u64));
  if (rp->alloc == NULL) abort();
  rp->path = path;
  rp->span = 1;
  rp->rvf = rv_frames_new();
  rp->rvw = rv_why_new();
  memset(&info, 0, sizeof(info));
  tables_init(&rp->tb, &info);
  *rc = session_scan_all(path, progress, report_visit, report_frame,
                         report_other, rp, &info);
  rp->tb.info = NULL;                   /* info ends with this function */
  if (*rc != EXIT_OK) {
    json_decref(info.header);
    report_free(rp);
    return NULL;
  }
  rp->header = info.header;
  rp->cols = info.cols;
  tables_load_symbols(&rp->tb, path);
  rp->start = session_summary_start(&rp->sum, rp->header);
  if (rp->alloc_out_of_range)
    warning("%s: %llu class rows beyond kind %d or class %d not counted "
            "in allocation totals", path, rp->alloc_out_of_range,
            SESSION_MAX_KINDS - 1, SESSION_MAX_CLASSES - 1);
  return rp;
}

/* ---- HTML helpers --------------------------------------------------- */

/* Write s with & < > " ' escaped (text and attribute values alike). */
void html_esc(FILE *f, const char *s)
{
  if (s == NULL) return;
  for (; *s != '\0'; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      /* A control character from a dump is shown, never written raw.  */
      if ((unsigned char)*s < 0x20 || *s == 0x7f)
        fprintf(f, "\\x%02x", (unsigned)(unsigned char)*s);
      else
        fputc(*s, f);
    }
  }
}

static const char *hstr(const json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));

  return s != NULL ? s : "?";
}

/* "12.3 ms" / "4.56 s" for a duration in ns; buf of 32 bytes. */
static const char *fmt_ns(u64 ns, char *buf)
{
  if (ns >= 10000000000ULL) snprintf(buf, 32, "%.1f s", ns / 1e9);
  else if (ns >= 1000000ULL) snprintf(buf, 32, "%.2f ms", ns / 1e6);
  else snprintf(buf, 32, "%.1f \xc2\xb5s", ns / 1e3);
  return buf;
}

/* Smallest integer >= v (v >= 0). */
static double ceil_pos(double v)
{
  double i = (double)(u64)v;

  return i < v ? i + 1 : i;
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
{
  double raw, p = 1, m;

  if (range <= 0) return 1;
  raw = range / n;
  while (p * 10 <= raw) p *= 10;
  while (p > raw) p /= 10;
  m = raw / p;
  if (m <= 1) m = 1;
  else if (m <= 2) m = 2;
  else if (m <= 5) m = 5;
  else m = 10;
  return m * p;
}

/* A tick step for bytes: a nice step in B, KiB, MiB or GiB, so labels
   read 100 KiB, not 97.7 KiB. */
static double byte_step(double range, int n)
{
  double unit = 1;

  while (unit < 1024.0 * 1024 * 1024 && range / n >= unit * 1024)
    unit *= 1024;
  return nice_step(range / unit, n) * unit;
}

static const char *fmt_tick_bytes(double v, char *buf)
{
  return emit_size((u64)(v + 0.5), buf);
}

/* ---- the page ------------------------------------------------------- */

static void page_head(FILE *f, const struct report *a,
                      const struct report *b)
{
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        "<meta charset=\"utf-8\">\n"
        /* Nothing from elsewhere, whatever a dump holds: the page's    */
        /* own script and styles only.                                   */
        "<meta http-equiv=\"Content-Security-Policy\" content=\""
        "default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'\">\n<title>gcacc report: ", f);
  html_esc(f, a->path);
  if (b != NULL) {
    fputs(" vs ", f);
    html_esc(f, b->path);
  }
  fputs("</title>\n<style>\n"
        "body{font:14px/1.4 system-ui,-apple-system,'DejaVu Sans',"
        "sans-serif;margin:24px auto;max-width:1200px;color:#222;"
        "background:#fff}\n"
        "h1{font-size:22px;margin:0 0 4px}"
        "h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccc}\n"
        ".meta{color:#555;margin:0 0 12px}.meta code{color:#222}\n"
        "table{border-collapse:collapse;margin:4px 0}\n"
        "th,td{padding:3px 10px;border-bottom:1px solid #e4e4e4;"
        "text-align:right;font-variant-numeric:tabular-nums}\n"
        "th{background:#f3f3f3}th.l,td.l{text-align:left}\n"
        "tr:hover td{background:#f7fbff}\n"
        ".pos{color:#b00}.neg{color:#070}.note{color:#666;font-size:12px}\n"
        "svg{background:#fcfcfc;border:1px solid #ddd;display:block;"
        "max-width:100%;height:auto}\n"
        "svg text{font:11px system-ui,'DejaVu Sans',sans-serif;"
        "fill:#333}\n"
        "svg .grid{stroke:#e6e6e6}svg .axis{stroke:#888}\n"
        "svg .band{opacity:.18;stroke:none}\n"
        "svg polyline{fill:none;stroke-width:1.6}\n"
        "svg rect.bar{fill:#9467bd}svg rect.bar:hover{fill:#6a3d9a}\n",
        f);
  fputs(rv_css, f);
  fputs("</style>\n</head>\n<body>\n", f);
}

static void page_title(FILE *f, const struct report *a, const char *tag)
{
  const json_t *h = a->header;

  fprintf(f, "<div class=\"meta\" id=\"meta-%s\" data-pid=\"%llu\">"
          "<b>%s</b> <code>", tag, jnum(h, "pid"),
          strcmp(tag, "a") == 0 ? "dump" : "dump B");
  html_esc(f, a->path);
  fprintf(f, "</code> &middot; pid %llu &middot; executable <code>",
          jnum(h, "pid"));
  html_esc(f, hstr(h, "executable"));
  fputs("</code> &middot; bdwgc <span class=\"bdwgc-version\">", f);
  html_esc(f, hstr(h, "bdwgc_version"));
  fputs("</span> &middot; gcacc ", f);
  html_esc(f, hstr(h, "gcacc_version"));
  fputs("</div>\n", f);
}

/* One summary row: id, label, then each dump's value. */

static void sum_row(FILE *f, const char *id, const char *label,
                    enum emit_type type, double va, const double *vb)
{
  int k;

  fprintf(f, "<tr id=\"s-%s\"", id);
  if (type == COL_RATIO || type == COL_PCT) {
    fprintf(f, " data-a=\"%.6f\"", va);
    if (vb) fprintf(f, " data-b=\"%.6f\"", *vb);
  } else {
    fprintf(f, " data-a=\"%.0f\"", va);
    if (vb) fprintf(f, " data-b=\"%.0f\"", *vb);
  }
  fprintf(f, "><th class=\"l\">%s</th>", label);
  for (k = 0; k < (vb ? 2 : 1); k++) {
    double v = k ? *vb : va;
    char buf[32];

    switch (type) {
    case COL_BYTES: fprintf(f, "<td>%s</td>", emit_size((u64)v, buf)); break;
    case COL_NS: fprintf(f, "<td>%s</td>", fmt_ns((u64)v, buf)); break;
    case COL_RATIO: fprintf(f, "<td>%.3f</td>", v); break;
    case COL_PCT: fprintf(f, "<td>%.1f%%</td>", 100 * v); break;
    default: fprintf(f, "<td>%.0f</td>", v); break;     /* COL_INT */
    }
  }
  fputs("</tr>\n", f);
}

static void page_summary(FILE *f, const struct report *a,
                         const struct report *b)
{
  const struct report *r[2];
  double v[2][SESSION_SUMMARY_NFIGS];
  int k, n = b ? 2 : 1, i;

  r[0] = a;
  r[1] = b;
  for (k = 0; k < n; k++) {
    union emit_cell c[SESSION_SUMMARY_NFIGS];

    session_summary_figures(&r[k]->sum, r[k]->start, c);
    for (i = 0; i < SESSION_SUMMARY_NFIGS; i++)
      v[k][i] = session_summary_figs[i].type == COL_RATIO
                || session_summary_figs[i].type == COL_PCT
                ? c[i].d : (double)c[i].u;
  }
  fputs("<h2>Summary</h2>\n<table id=\"summary\">\n", f);
  if (b != NULL) fputs("<tr><th></th><th>A</th><th>B</th></tr>\n", f);
  for (i = 0; i < SESSION_SUMMARY_NFIGS; i++)
    sum_row(f, session_summary_figs[i].id, session_summary_figs[i].label,
            session_summary_figs[i].type, v[0][i], b ? &v[1][i] : NULL);
  fputs("</table>\n", f);
}

/* Chart geometry. */
#define CW 1100
#define CH 300
#define ML 78
#define MR 16
#define MT 14
#define MB 40

/* A line chart of series [s0, s1) of a's buckets.  frag: y is 0..1. */
static void chart(FILE *f, const struct report *a, const char *id,
                  int s0, int s1, int frag)
{
  double tmin, tmax, ymax = 0, xs, ys, step, t;
  int s, i;
  char buf[32];

  fprintf(f, "<svg id=\"%s\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" role=\"img\" data-points=\"%d\" "
          "data-span=\"%llu\">\n", id, CW, CH, CW, CH, a->nb, a->span);
  if (a->nb == 0) {
    fprintf(f, "<text x=\"%d\" y=\"%d\">no collection with a census"
            "</text>\n</svg>\n", CW / 2 - 80, CH / 2);
    return;
  }
  tmin = (double)(a->b[0].t_lo > a->start ? a->b[0].t_lo - a->start : 0);
  tmax = (double)(a->b[a->nb - 1].t_hi > a->start
                  ? a->b[a->nb - 1].t_hi - a->start : 0);
  if (tmax <= tmin) tmax = tmin + 1;
  tmin = 0;
  for (s = s0; s < s1; s++)
    for (i = 0; i < a->nb; i++)
      if (a->b[i].mx[s] > ymax) ymax = a->b[i].mx[s];
  if (frag) ymax = 1;
  if (ymax <= 0) ymax = 1;
  step = frag ? nice_step(ymax, 5) : byte_step(ymax, 5);
  ymax = ceil_pos(ymax / step) * step;
  xs = (CW - ML - MR) / (tmax - tmin);
  ys = (CH - MT - MB) / ymax;
#define X(tv) (ML + ((tv) - tmin) * xs)
#define Y(v) (CH - MB - (v) * ys)
  /* y grid and labels */
  for (t = 0; t <= ymax + step / 2; t += step) {
    fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
            "y2=\"%.1f\"/>", ML, CW - MR, Y(t), Y(t));
    if (frag) snprintf(buf, sizeof(buf), "%.1f", t);
    else fmt_tick_bytes(t, buf);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            ML - 6, Y(t) + 4, buf);
  }
  /* x grid and labels (ms or s) */
  {
    double xstep = nice_step(tmax - tmin, 8);
    int sec = tmax >= 10e9;

    for (t = 0; t <= tmax + 1; t += xstep) {
      fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
              "y2=\"%d\"/>", X(t), X(t), MT, CH - MB);
      if (sec) snprintf(buf, sizeof(buf), "%g s", t / 1e9);
      else snprintf(buf, sizeof(buf), "%g ms", t / 1e6);
      fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
              "</text>\n", X(t), CH - MB + 15, buf);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since"
            " the dump started</text>\n", (ML + CW - MR) / 2, CH - 6);
  }
  fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\""
          "/><line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
          "\n", ML, CW - MR, CH - MB, CH - MB, ML, ML, MT, CH - MB);
  for (s = s0; s < s1; s++) {
    /* min..max band when buckets hold several records */
    if (a->span > 1) {
      fprintf(f, "<polygon class=\"band\" fill=\"%s\" points=\"",
              series_color[s]);
      for (i = 0; i < a->nb; i++) {
        double tm = ((double)a->b[i].t_lo + a->b[i].t_hi) / 2
                    - (double)a->start;
        fprintf(f, "%.1f,%.1f ", X(tm), Y(a->b[i].mx[s]));
      }
      for (i = a->nb - 1; i >= 0; i--) {
        double tm = ((double)a->b[i].t_lo + a->b[i].t_hi) / 2
                    - (double)a->start;
        fprintf(f, "%.1f,%.1f ", X(tm), Y(a->b[i].mn[s]));
      }
      fputs("\"/>\n", f);
    }
    fprintf(f, "<polyline id=\"%s-%s\" data-series=\"%s\" stroke=\"%s\" "
            "data-n=\"%d\" points=\"", id, series_name[s], series_name[s],
            series_color[s], a->nb);
    for (i = 0; i < a->nb; i++) {
      double tm = ((double)a->b[i].t_lo + a->b[i].t_hi) / 2
                  - (double)a->start;
      fprintf(f, "%.1f,%.1f ", X(tm), Y(a->b[i].mx[s]));
    }
    fprintf(f, "\"><title>%s (max per point)</title></polyline>\n",
            series_name[s]);
  }
  /* legend */
  for (s = s0; s < s1; s++) {
    int lx = ML + 14 + (s - s0) * 110;

    fprintf(f, "<g class=\"legend\"><rect x=\"%d\" y=\"%d\" "
            "width=\"100\" height=\"16\" fill=\"#fff\" opacity=\".85\"/>"
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" "
            "fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text></g>\n",
            lx - 4, MT, lx, MT + 6, series_color[s], lx + 18, MT + 11,
            series_name[s]);
  }
#undef X
#undef Y
  fputs("</svg>\n", f);
}

static void page_timeline(FILE *f, const struct report *a)
{
  fputs("<h2>Timeline</h2>\n", f);
  fprintf(f, "<p class=\"note\">%llu collections with a census, drawn as "
          "%d points (%llu per point; the line is each point's maximum, "
          "the band its min..max).  heap: mapped heap; live: marked "
          "objects; reserved: in-use heap blocks; free: free heap "
          "blocks.</p>\n", a->census_recs, a->nb, a->span);
  chart(f, a, "timeline-chart", S_HEAP, S_FRAG, 0);
  fputs("<p class=\"note\">Fragmentation index: 1 &minus; largest free "
        "block / free bytes.</p>\n", f);
  chart(f, a, "frag-chart", S_FRAG, S_N, 1);
}

struct top_row {
  u64 kind, cls, live, reserved, alloc, live_objs;
};

static int top_cmp(const void *x, const void *y)
{
  const struct top_row *p = x, *q = y;

  if (p->live != q->live) return p->live > q->live ? -1 : 1;
  if (p->kind != q->kind) return p->kind < q->kind ? -1 : 1;
  return p->cls < q->cls ? -1 : p->cls > q->cls;
}

static void page_top(FILE *f, const struct report *a)
{
  size_t n = a->npeak, i, shown;
  struct top_row *t = calloc(n + 1, sizeof(*t));

  if (t == NULL) abort();
  for (i = 0; i < n; i++) {
    t[i].kind = a->peak[i].kind;
    t[i].cls = a->peak[i].cls;
    t[i].live = a->peak[i].live;
    t[i].live_objs = a->peak[i].live_objs;
    t[i].reserved = a->peak[i].reserved;
    if (t[i].kind < SESSION_MAX_KINDS && t[i].cls < SESSION_MAX_CLASSES)
      t[i].alloc = ALLOC_AT(a, t[i].kind, t[i].cls);
  }
  if (n > 0) qsort(t, n, sizeof(*t), top_cmp);
  shown = n < REPORT_TOP_ROWS ? n : REPORT_TOP_ROWS;
  fprintf(f, "<h2>Top size classes at the peak-live collection</h2>\n"
          "<p class=\"note\">gc_no %llu (record %llu), %s live.  "
          "Allocated: granted bytes over the whole session.  %zu of %zu "
          "rows.</p>\n", a->peak_gc, a->peak_seq,
          emit_size(a->peak_live, (char[16]){ 0 }), shown, n);
  fprintf(f, "<table id=\"top-table\" data-gc-no=\"%llu\" "
          "data-rows=\"%zu\">\n<tr><th class=\"l\">kind</th>"
          "<th class=\"l\">class</th><th>live objects</th>"
          "<th>live bytes</th><th>reserved bytes</th>"
          "<th>allocated bytes</th></tr>\n", a->peak_gc, shown);
  for (i = 0; i < shown; i++) {
    char kb[16], cb[32], s1[16], s2[16], s3[16];

    fprintf(f, "<tr class=\"top-row\" data-kind=\"%llu\" data-class=\"%llu\""
            " data-live-bytes=\"%llu\" data-reserved-bytes=\"%llu\" "
            "data-alloc-bytes=\"%llu\"><td class=\"l\">%s</td>"
            "<td class=\"l\">%llu (%s)</td><td>%llu</td><td>%s</td>"
            "<td>%s</td><td>%s</td></tr>\n", t[i].kind, t[i].cls,
            t[i].live, t[i].reserved, t[i].alloc,
            kind_label((unsigned)t[i].kind, kb), t[i].cls,
            class_label(a->header, (unsigned)t[i].cls, cb), t[i].live_objs,
            emit_size(t[i].live, s1), emit_size(t[i].reserved, s2),
            emit_size(t[i].alloc, s3));
  }
  fputs("</table>\n", f);
  free(t);
}

struct group_row {
  u64 id, live, live_objs, old_objs, alloc;
  u64 s_live, s_alloc;                  /* sampled profile: samples     */
};

static int group_cmp(const void *x, const void *y)
{
  const struct group_row *p = x, *q = y;

  if (p->live != q->live) return p->live > q->live ? -1 : 1;
  return p->id < q->id ? -1 : p->id > q->id;
}

/* A sampled profile's estimate: the samples behind it and its error.  */
#define SAMPLE_TH "<th title=\"samples behind the estimate\">n</th>" \
  "<th title=\"its relative error, about 1/sqrt(n)\">&plusmn;</th>"
static void sample_cells(FILE *f, u64 n)
{
  char e[32];

  fprintf(f, "<td class=\"samples\">%llu</td><td>%s</td>", n,
          emit_error_text(tables_sample_error(n), e, sizeof(e)));
}

/* Top types (site 0) or callsites (site 1) at the peak-live collection. */
static void page_groups(FILE *f, const struct report *a, int site)
{
  const struct tables_view *v = site ? &a->ps : &a->pt;
  struct group_row *t = calloc(v->n + 1, sizeof(*t));
  const char *est = a->tb.estimated ? "~" : "";   /* sampled profile  */
  size_t i, n = 0, shown;
  char label[4096];

  if (t == NULL) abort();
  for (i = 0; i < v->n; i++) {
    const struct group *g = &v->g[i];
    const struct group *all = keymap_get(site ? a->tb.sites : a->tb.types,
                                         v->ids[i], 0);

    if (g->live_objs == 0 && (all == NULL || all->alloc_bytes == 0))
      continue;
    t[n].id = v->ids[i];
    t[n].live_objs = tables_scale(&a->tb, site, g->live_objs, g->live_bytes,
                                  g->live_objs);
    t[n].live = tables_scale(&a->tb, site, g->live_objs, g->live_bytes,
                             g->live_bytes);
    t[n].old_objs = tables_scale(&a->tb, site, g->live_objs, g->live_bytes,
                                 tables_old_objs(g));
    t[n].s_live = g->s_live;
    if (all != NULL) {
      t[n].s_alloc = all->s_alloc;
      t[n].alloc = tables_scale(&a->tb, site, all->alloc_objs,
                                all->alloc_bytes, all->alloc_bytes);
    }
    n++;
  }
  if (n > 0) qsort(t, n, sizeof(*t), group_cmp);
  shown = n < REPORT_TOP_ROWS ? n : REPORT_TOP_ROWS;
  fprintf(f, "<h2>Top %s at the peak-live collection</h2>\n"
          "<p class=\"note\">gc_no %llu.  %s  Allocated: over the whole "
          "session.  Old: live objects that survived 4 collections or "
          "more.%s  %zu of %zu rows.</p>\n",
          site ? "callsites" : "types", a->peak_gc,
          site ? "Stacks innermost first (module+offset, or functions "
                 "from the dump's .symbols cache)."
               : "Types from the embedder's cookies and names.",
          site && a->tb.sample ? "  Sampled stacks: figures are "
                                 "estimates." : "", shown, n);
  if (a->tb.estimated) {
    char note[256];

    fprintf(f, "<p class=\"estimate-note\">Note: %s.  n: the samples "
            "behind the estimate before it; &plusmn;: its relative error, "
            "about 1/sqrt(n).</p>\n",
            emit_estimate_note(a->tb.estimate_bytes, note, sizeof(note)));
  }
  /* Estimates: after live and allocated bytes, the samples behind them */
  /* (n) and their relative error, about 1/sqrt(n), as in `gcacc top`. */
  fprintf(f, "<table id=\"%s\" data-gc-no=\"%llu\" data-rows=\"%zu\">\n"
          "<tr><th>id</th><th class=\"l\">%s</th><th>live objects</th>"
          "<th>live bytes</th>%s<th>old objects</th><th>allocated bytes</th>"
          "%s</tr>\n", site ? "top-sites" : "top-types", a->peak_gc, shown,
          site ? "stack" : "type", a->tb.estimated ? SAMPLE_TH : "",
          a->tb.estimated ? SAMPLE_TH : "");
  for (i = 0; i < shown; i++) {
    char s1[16], s2[16];

    if (site) tables_site_label(&a->tb, t[i].id, 0, label, sizeof(label));
    else tables_type_label(&a->tb, t[i].id, label, sizeof(label));
    fprintf(f, "<tr class=\"%s\" data-id=\"%llu\" data-live-bytes=\"%llu\" "
            "data-live-objs=\"%llu\" data-alloc-bytes=\"%llu\" "
            "data-label=\"", site ? "site-row" : "type-row", t[i].id,
            t[i].live, t[i].live_objs, t[i].alloc);
    html_esc(f, label);
    if (a->tb.estimated)
      fprintf(f, "\" data-samples-live=\"%llu\" data-samples-alloc=\"%llu",
              t[i].s_live, t[i].s_alloc);
    fprintf(f, "\"><td>%llu</td><td class=\"l\">", t[i].id);
    html_esc(f, label);
    fprintf(f, "</td><td>%s%llu</td><td>%s%s</td>", est, t[i].live_objs,
            est, emit_size(t[i].live, s1));
    if (a->tb.estimated) sample_cells(f, t[i].s_live);
    fprintf(f, "<td>%s%llu</td><td>%s%s</td>", est, t[i].old_objs, est,
            emit_size(t[i].alloc, s2));
    if (a->tb.estimated) sample_cells(f, t[i].s_alloc);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
  free(t);
}

static void page_frag(FILE *f, const struct report *a)
{
  size_t n = json_array_size(a->frag_lists), i;
  const json_t *row;
  u64 maxb = 0;
  double bw, step, t;
  char buf[16];
  const int w = CW, h = 260;

  fputs("<h2>Free-list histogram at the worst fragmentation</h2>\n", f);
  if (n == 0) {
    fputs("<p>No collection had fragmented free space.</p>\n"
          "<svg id=\"frag-histogram\" width=\"10\" height=\"10\" "
          "data-bars=\"0\"></svg>\n", f);
    return;
  }
  fprintf(f, "<p class=\"note\">gc_no %llu: fragmentation index %.3f, "
          "%s free, the largest free block ", a->frag_gc, a->frag_worst,
          emit_size(a->frag_total, buf));
  fprintf(f, "%s.  One bar per free list (bdwgc's GC_hblkfreelist index: "
          "1..32 blocks exactly, then ranges).</p>\n",
          emit_size(a->frag_largest, buf));
  json_array_foreach(a->frag_lists, i, row)
    if (jcol(row, &a->cols, lists, bytes) > maxb)
      maxb = jcol(row, &a->cols, lists, bytes);
  if (maxb == 0) maxb = 1;
  step = byte_step((double)maxb, 4);
  maxb = (u64)(ceil_pos((double)maxb / step) * step);
  bw = (double)(w - ML - MR) / (double)n;
  if (bw > 48) bw = 48;
  fprintf(f, "<svg id=\"frag-histogram\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" data-bars=\"%zu\" data-gc-no=\"%llu\">\n",
          w, h, w, h, n, a->frag_gc);
#define HY(v) (h - MB - (double)(v) * (h - MT - MB) / (double)maxb)
  for (t = 0; t <= (double)maxb + step / 2; t += step) {
    fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
            "y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
            "%s</text>\n", ML, w - MR, HY(t), HY(t), ML - 6, HY(t) + 4,
            fmt_tick_bytes(t, buf));
  }
  json_array_foreach(a->frag_lists, i, row) {
    u64 idx = jcol(row, &a->cols, lists, index);
    u64 bytes = jcol(row, &a->cols, lists, bytes);
    u64 blocks = jcol(row, &a->cols, lists, blocks);
    double x = ML + i * bw + bw * 0.1, y = HY(bytes);

    fprintf(f, "<rect class=\"bar\" data-index=\"%llu\" data-blocks=\"%llu\""
            " data-bytes=\"%llu\" data-unmapped-bytes=\"%llu\" x=\"%.1f\" "
            "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>list %llu: "
            "%llu blocks, %s</title></rect>", idx, blocks,
            bytes, jcol(row, &a->cols, lists, unmapped_bytes), x, y,
            bw * 0.8, h - MB - y, idx, blocks, emit_size(bytes, buf));
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%llu"
            "</text>\n", x + bw * 0.4, h - MB + 14, idx);
  }
#undef HY
  fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">free-list index"
          "</text>\n</svg>\n", ML, w - MR, h - MB, h - MB,
          (ML + w - MR) / 2, h - 6);
}

static void page_grows(FILE *f, const struct report *a)
{
  unsigned i;

  fprintf(f, "<h2>Heap growths</h2>\n<table id=\"grows\" data-rows=\"%u\" "
          "data-not-listed=\"%llu\">\n<tr><th>time</th><th>request</th>"
          "<th class=\"l\">kind</th><th>free then</th>"
          "<th>largest free then</th><th>growth</th><th>heap after</th>"
          "</tr>\n", a->n_grows, a->grows_lost);
  for (i = 0; i < a->n_grows; i++) {
    const struct grow *g = &a->grows[i];
    char tb[32], s1[16], s2[16], s3[16], s4[16], s5[16], kb[16];

    fprintf(f, "<tr class=\"grow-row\" data-req-bytes=\"%llu\" "
            "data-free-bytes=\"%llu\" data-largest-free-bytes=\"%llu\" "
            "data-grow-bytes=\"%llu\"><td>%s</td><td>%s</td>"
            "<td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td>"
            "<td>%s</td></tr>\n", g->req_bytes, g->free_bytes,
            g->largest_free_bytes, g->grow_bytes,
            fmt_ns(g->t_ns > a->start ? g->t_ns - a->start : 0, tb),
            g->req_kind < 0 ? "&mdash;" : emit_size(g->req_bytes, s1),
            g->req_kind < 0 ? "(no request)"
                            : kind_label((unsigned)g->req_kind, kb),
            emit_size(g->free_bytes, s2),
            emit_size(g->largest_free_bytes, s3),
            emit_size(g->grow_bytes, s4), emit_size(g->heap_after, s5));
  }
  fputs("</table>\n", f);
  if (a->grows_lost)
    fprintf(f, "<p class=\"note\">%llu more growths not listed.</p>\n",
            a->grows_lost);
}

struct diff_row {
  unsigned kind, cls;
  long long dlive, dalloc;
  u64 live_a, live_b, alloc_a, alloc_b;
};

static long long llabs_(long long v) { return v < 0 ? -v : v; }

static int diff_cmp(const void *x, const void *y)
{
  const struct diff_row *p = x, *q = y;
  long long mp = llabs_(p->dlive) + llabs_(p->dalloc);
  long long mq = llabs_(q->dlive) + llabs_(q->dalloc);

  if (llabs_(p->dlive) != llabs_(q->dlive))
    return llabs_(p->dlive) > llabs_(q->dlive) ? -1 : 1;
  if (mp != mq) return mp > mq ? -1 : 1;
  if (p->kind != q->kind) return p->kind < q->kind ? -1 : 1;
  return p->cls < q->cls ? -1 : p->cls > q->cls;
}

static void live_at_peak(const struct report *r, u64 *live)
{
  size_t i;

  for (i = 0; i < r->npeak; i++) {
    u64 k = r->peak[i].kind, c = r->peak[i].cls;

    if (k < SESSION_MAX_KINDS && c < SESSION_MAX_CLASSES)
      live[k * SESSION_MAX_CLASSES + c] += r->peak[i].live;
  }
}

static void signed_size(FILE *f, long long v)
{
  char buf[16];

  fprintf(f, "<td class=\"%s\">%s%s</td>", v > 0 ? "pos" : v < 0 ? "neg"
          : "", v > 0 ? "+" : v < 0 ? "&minus;" : "",
          emit_size((u64)llabs_(v), buf));
}

static void page_diff(FILE *f, const struct report *a,
                      const struct report *b)
{
  size_t cells = (size_t)SESSION_MAX_KINDS * SESSION_MAX_CLASSES, i, n = 0;
  u64 *la = calloc(cells, sizeof(u64)), *lb = calloc(cells, sizeof(u64));
  struct diff_row *d;

  if (la == NULL || lb == NULL) abort();
  live_at_peak(a, la);
  live_at_peak(b, lb);
  for (i = 0; i < cells; i++)
    if (la[i] != lb[i] || a->alloc[i] != b->alloc[i]) n++;
  d = calloc(n + 1, sizeof(*d));
  if (d == NULL) abort();
  n = 0;
  for (i = 0; i < cells; i++) {
    if (la[i] == lb[i] && a->alloc[i] == b->alloc[i]) continue;
    d[n].kind = (unsigned)(i / SESSION_MAX_CLASSES);
    d[n].cls = (unsigned)(i % SESSION_MAX_CLASSES);
    d[n].live_a = la[i];
    d[n].live_b = lb[i];
    d[n].alloc_a = a->alloc[i];
    d[n].alloc_b = b->alloc[i];
    d[n].dlive = (long long)lb[i] - (long long)la[i];
    d[n].dalloc = (long long)b->alloc[i] - (long long)a->alloc[i];
    n++;
  }
  if (n > 0) qsort(d, n, sizeof(*d), diff_cmp);
  fputs("<h2>Diff: A &rarr; B</h2>\n", f);
  page_title(f, b, "b");
  fputs("<p class=\"note\">Per (kind, class): live bytes at each dump's "
        "peak-live collection, allocated (granted) bytes over each whole "
        "session; sorted by the absolute change in live bytes, then in "
        "both.</p>\n", f);
  fprintf(f, "<table id=\"diff\" data-rows=\"%zu\">\n<tr>"
          "<th class=\"l\">kind</th><th class=\"l\">class</th>"
          "<th>live A</th><th>live B</th><th>&Delta; live</th>"
          "<th>allocated A</th><th>allocated B</th><th>&Delta; allocated"
          "</th></tr>\n", n);
  for (i = 0; i < n; i++) {
    char kb[16], cb[32], s1[16], s2[16], s3[16], s4[16];

    fprintf(f, "<tr class=\"diff-row\" data-kind=\"%u\" data-class=\"%u\" "
            "data-live-delta=\"%lld\" data-alloc-delta=\"%lld\">"
            "<td class=\"l\">%s</td><td class=\"l\">%u (%s)</td>"
            "<td>%s</td><td>%s</td>", d[i].kind, d[i].cls, d[i].dlive,
            d[i].dalloc, kind_label(d[i].kind, kb), d[i].cls,
            class_label(a->header, d[i].cls, cb),
            emit_size(d[i].live_a, s1), emit_size(d[i].live_b, s2));
    signed_size(f, d[i].dlive);
    fprintf(f, "<td>%s</td><td>%s</td>", emit_size(d[i].alloc_a, s3),
            emit_size(d[i].alloc_b, s4));
    signed_size(f, d[i].dalloc);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
  if (n == 0)
    fputs("<p id=\"diff-none\">No (kind, class) differs.</p>\n", f);
  free(d);
  free(la);
  free(lb);
}

static void page(FILE *f, const struct report *a, const struct report *b)
{
  page_head(f, a, b);
  fputs("<h1 id=\"title\">gcacc report: ", f);
  html_esc(f, a->path);
  fputs("</h1>\n", f);
  page_title(f, a, "a");
  rv_write_tabs(f);
  fputs("<section id=\"view-overview\" class=\"view\">\n", f);
  page_summary(f, a, b);
  page_timeline(f, a);
  page_top(f, a);
  page_groups(f, a, 0);
  page_groups(f, a, 1);
  page_frag(f, a);
  page_grows(f, a);
  if (b != NULL) page_diff(f, a, b);
  fputs("</section>\n", f);
  rv_write_data(f, a->rvf, &a->tb, &a->ft, &a->fs, a->start);
  rv_write_why(f, a->rvw, a->header);
  rv_write_views(f, &a->tb);
  fputs("<p class=\"note\">Written by gcacc report; self-contained: its "
        "data and script are in this file, nothing is fetched.</p>\n"
        "</body>\n</html>\n", f);
}

int cmd_report(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  const char *paths[2] = { NULL, NULL };
  struct report *a = NULL, *b = NULL;
  FILE *out;
  int i, rc = EXIT_OK;

  for (i = 1; i < argc; i++) {
    /* The first dump, the second (to compare), a third: too many.     */
    const char *more = NULL;
    const char **slot = paths[0] == NULL ? &paths[0]
                        : paths[1] == NULL ? &paths[1] : &more;
    int c = view_dump_arg(&o, report_usage, argc, argv, &i, slot);

    if (c != ARG_TAKEN) return c;
    if (more != NULL) return usage_error("at most two dumps");
  }
  if (paths[0] == NULL) return usage_error("no dump given");
  if (o.format != EMIT_TABLE)
    return usage_error("the report is HTML only: no --json or --csv");

  a = report_scan(paths[0], o.progress, &rc);
  if (a == NULL) return rc;
  if (paths[1] != NULL) {
    b = report_scan(paths[1], o.progress, &rc);
    if (b == NULL) {
      report_free(a);
      return rc;
    }
  }
  out = common_output(&o);
  if (out == NULL) {
    rc = EXIT_USAGE;
  } else {
    page(out, a, b);
    if (fflush(out) != 0 || ferror(out)) {
      error("cannot write %s", o.output ? o.output : "standard output");
      rc = EXIT_USAGE;
    }
    common_close(&o, out);
  }
  report_free(a);
  report_free(b);
  return rc;
}
