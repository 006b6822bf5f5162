/* SPDX-License-Identifier: MIT */
/*
 * report_views.c: the Frames and TopN views of `gcacc report` (see
 * report_views.h; the Why view is report_why.c's).  The page's script, report.js, is embedded from the
 * header the build makes of it (report_js.h).
 */

#include "report_views.h"
#include "gcacc.h"

#include <stdlib.h>
#include <string.h>

static const char rv_js[] =
#include "report_js.h"
  ;

/* A frame's allocations per (type, callsite) pair: pair is an index    */
/* into the pairs table, rows sorted by it.                              */
struct frow { u64 pair, objs, bytes; };
struct frows { struct frow *r; size_t n; };

/* A point's totals are its kind rows' (the counters: exact) when the  */
/* dump has them, else its (type, callsite) rows' (older dumps).  Kinds */
/* from RV_KINDS - 1 up share the last slot.                             */
struct fpoint {                         /* one frame, or a range merged */
  u64 f_lo, f_hi, n, objs, bytes, t_ns, gc_no;
  u64 kobjs[RV_KINDS], kbytes[RV_KINDS];
  struct frows rows;
};

struct rv_frames {
  struct fpoint *p;                     /* RV_FRAME_POINTS              */
  size_t np, nrows;                     /* points used; rows over them  */
  u64 span;                             /* frames per full point        */
  struct fpoint heavy[RV_HEAVY];        /* the heaviest, bytes desc     */
  size_t nheavy;
  unsigned long long kinds_used;         /* bit k: kind slot k counted   */
  int kinds_seen;                       /* a record had kind_rows       */
  struct keymap *pair_idx;              /* type << 32 | site -> index   */
  u64 *pairs;                           /* index -> type << 32 | site   */
  size_t npairs, cap_pairs;
};

struct rv_frames *rv_frames_new(void)
{
  struct rv_frames *f = calloc(1, sizeof(*f));

  if (f == NULL) abort();
  f->p = calloc(RV_FRAME_POINTS, sizeof(*f->p));
  if (f->p == NULL) abort();
  f->span = 1;
  f->pair_idx = keymap_new(sizeof(u64));
  return f;
}

void rv_frames_free(struct rv_frames *f)
{
  size_t i;

  if (f == NULL) return;
  for (i = 0; i < f->np; i++) free(f->p[i].rows.r);
  for (i = 0; i < f->nheavy; i++) free(f->heavy[i].rows.r);
  free(f->p);
  free(f->pairs);
  keymap_free(f->pair_idx);
  free(f);
}

static u64 pair_index(struct rv_frames *f, u64 key)
{
  u64 *v = keymap_get(f->pair_idx, key, 1);

  if (*v == 0) {                        /* new: index + 1 stored        */
    if (f->npairs == f->cap_pairs) {
      f->cap_pairs = f->cap_pairs ? 2 * f->cap_pairs : 256;
      f->pairs = xrealloc(f->pairs, f->cap_pairs * sizeof(*f->pairs));
    }
    f->pairs[f->npairs++] = key;
    *v = f->npairs;
  }
  return *v - 1;
}

static int frow_cmp(const void *a, const void *b)
{
  const struct frow *x = a, *y = b;

  return x->pair < y->pair ? -1 : x->pair > y->pair;
}

/* a + b, rows summed per pair, into a new array; both freed.           */
static struct frows frows_merge(struct frows a, struct frows b)
{
  struct frows m;
  size_t i = 0, j = 0;

  m.r = xrealloc(NULL, (a.n + b.n + 1) * sizeof(*m.r));
  m.n = 0;
  while (i < a.n || j < b.n) {
    if (j >= b.n || (i < a.n && a.r[i].pair < b.r[j].pair)) {
      m.r[m.n++] = a.r[i++];
    } else if (i >= a.n || b.r[j].pair < a.r[i].pair) {
      m.r[m.n++] = b.r[j++];
    } else {
      m.r[m.n] = a.r[i++];
      m.r[m.n].objs += b.r[j].objs;
      m.r[m.n++].bytes += b.r[j++].bytes;
    }
  }
  free(a.r);
  free(b.r);
  return m;
}

/* q merged into p (p the earlier).                                      */
static void point_merge(struct rv_frames *f, struct fpoint *p,
                        struct fpoint *q)
{
  size_t before = p->rows.n + q->rows.n, k;

  p->f_hi = q->f_hi;
  p->n += q->n;

  p->objs += q->objs;
  p->bytes += q->bytes;
  for (k = 0; k < RV_KINDS; k++) {
    p->kobjs[k] += q->kobjs[k];
    p->kbytes[k] += q->kbytes[k];
  }
  p->rows = frows_merge(p->rows, q->rows);
  f->nrows -= before - p->rows.n;
  memset(q, 0, sizeof(*q));
}

/* Halve the points: each two neighbours become one.                    */
static void halve(struct rv_frames *f)
{
  size_t i;

  for (i = 0; i < f->np / 2; i++) {
    struct fpoint a = f->p[2 * i], b = f->p[2 * i + 1];

    point_merge(f, &a, &b);
    f->p[i] = a;
  }
  if (f->np % 2) {
    f->p[f->np / 2] = f->p[f->np - 1];
    f->np = f->np / 2 + 1;
  } else {
    f->np /= 2;
  }
  f->span *= 2;
}

/* Keep fr among the heaviest frames (a copy of its rows).              */
static void heavy_add(struct rv_frames *f, const struct fpoint *fr)
{
  size_t i;

  if (f->nheavy == RV_HEAVY) {
    if (fr->bytes <= f->heavy[RV_HEAVY - 1].bytes) return;
    free(f->heavy[RV_HEAVY - 1].rows.r);
    f->nheavy--;
  }
  for (i = f->nheavy; i > 0 && f->heavy[i - 1].bytes < fr->bytes; i--)
    f->heavy[i] = f->heavy[i - 1];
  f->heavy[i] = *fr;
  f->heavy[i].rows.r = xrealloc(NULL, (fr->rows.n + 1) * sizeof(struct frow));
  memcpy(f->heavy[i].rows.r, fr->rows.r, fr->rows.n * sizeof(struct frow));
  f->nheavy++;
}

/* The frame's kind rows into fr (its totals theirs); 0 if it has none */
/* (a dump written before them).                                          */
static int frame_kinds(struct rv_frames *f, struct fpoint *fr,
                       const json_t *frame, const struct dump_cols *c)
{
  const struct dump_tab kr = rec_tab(frame, "kind_rows");
  size_t i;

  if (kr.json == NULL && kr.lean == 0) return 0;
  fr->objs = fr->bytes = 0;
  for (i = 0; i < dump_tab_rows(&kr); i++) {
    u64 k = tcol(&kr, i, c, frame_kind_rows, kind);
    u64 o = tcol(&kr, i, c, frame_kind_rows, objs);
    u64 b = tcol(&kr, i, c, frame_kind_rows, bytes);

    if (k >= RV_KINDS) k = RV_KINDS - 1;
    fr->kobjs[k] += o;
    fr->kbytes[k] += b;
    fr->objs += o;
    fr->bytes += b;
    if (o != 0 || b != 0) f->kinds_used |= 1ULL << k;
  }
  f->kinds_seen = 1;
  return 1;
}

void rv_frame(struct rv_frames *f, const json_t *frame,
              const struct dump_cols *c)
{
  const struct dump_tab rows = rec_tab(frame, "rows");   /* lean */
  struct fpoint fr;
  size_t i, k;

  memset(&fr, 0, sizeof(fr));
  fr.f_lo = fr.f_hi = jnum(frame, "frame");
  fr.n = 1;
  fr.t_ns = jnum(frame, "t_ns");
  fr.gc_no = jnum(frame, "gc_no");
  fr.rows.r = xrealloc(NULL, (dump_tab_rows(&rows) + 1) * sizeof(struct frow));
  for (i = 0; i < dump_tab_rows(&rows); i++) {
    u64 ty = tcol(&rows, i, c, frame_rows, type_id);
    u64 si = tcol(&rows, i, c, frame_rows, site_id);
    struct frow *r = &fr.rows.r[fr.rows.n++];

    r->pair = pair_index(f, ty << 32 | (si & 0xffffffffULL));
    r->objs = tcol(&rows, i, c, frame_rows, objs);
    r->bytes = tcol(&rows, i, c, frame_rows, bytes);
    fr.objs += r->objs;
    fr.bytes += r->bytes;
  }
  (void)frame_kinds(f, &fr, frame, c);
  qsort(fr.rows.r, fr.rows.n, sizeof(struct frow), frow_cmp);
  for (i = k = 0; i < fr.rows.n; i++) {  /* a pair twice: one row      */
    if (k > 0 && fr.rows.r[k - 1].pair == fr.rows.r[i].pair) {
      fr.rows.r[k - 1].objs += fr.rows.r[i].objs;
      fr.rows.r[k - 1].bytes += fr.rows.r[i].bytes;
    } else {
      fr.rows.r[k++] = fr.rows.r[i];
    }
  }
  fr.rows.n = k;
  heavy_add(f, &fr);
  f->nrows += fr.rows.n;
  if (f->np > 0 && f->p[f->np - 1].n < f->span) {
    point_merge(f, &f->p[f->np - 1], &fr);
  } else {
    if (f->np == RV_FRAME_POINTS) halve(f);
    f->p[f->np++] = fr;
  }
  while (f->nrows > RV_FRAME_ROWS && f->np > 1) halve(f);
}

/* ---- writing ---------------------------------------------------------- */

/* A JSON string that cannot end the <script> element it is in: '<',    */
/* '>' and '&' as \u escapes (jansson escapes the rest).                  */
static void jstr(FILE *out, const char *s)
{
  json_t *j = json_string(s != NULL ? s : "");
  char *d, *p;

  if (j == NULL) j = json_string("?");         /* not UTF-8            */
  d = json_dumps(j, JSON_ENCODE_ANY);
  for (p = d; p != NULL && *p; p++) {
    if (*p == '<') fputs("\\u003c", out);
    else if (*p == '>') fputs("\\u003e", out);
    else if (*p == '&') fputs("\\u0026", out);
    else fputc(*p, out);
  }
  free(d);
  json_decref(j);
}

static void rows_out(FILE *out, const struct frows *r)
{
  size_t i;

  fputc('[', out);
  for (i = 0; i < r->n; i++)
    fprintf(out, "%s%llu,%llu,%llu", i ? "," : "", r->r[i].pair,
            r->r[i].objs, r->r[i].bytes);
  fputc(']', out);
}

/* An id as the page gets it: the "other" row of a folded table as     */
/* 0xffffffff (a number JavaScript holds exactly; tables.c names it).   */
static u64 js_id(u64 id) { return id == KEYMAP_OTHER ? 0xffffffffULL : id; }

static u64 rel(u64 t, u64 start) { return t > start ? t - start : 0; }

/* The used kind slots' counts of p: [objs..., bytes...], in the order */
/* of the "kinds" list.                                                  */
static void kinds_out(FILE *out, const struct rv_frames *f,
                      const struct fpoint *p)
{
  size_t k;
  int first = 1, b;

  fputc('[', out);
  for (b = 0; b < 2; b++)
    for (k = 0; k < RV_KINDS; k++) {
      if (!(f->kinds_used >> k & 1)) continue;
      fprintf(out, "%s%llu", first ? "" : ",",
              b ? p->kbytes[k] : p->kobjs[k]);
      first = 0;
    }
  fputc(']', out);
}

static void frames_out(FILE *out, const struct rv_frames *f, u64 start)
{
  size_t i, k;
  char buf[32];
  int first = 1;

  fprintf(out, "\"frames\":{\"span\":%llu,", f->span);
  /* By kind (dumps with kind_rows): the kinds, their names, and per     */
  /* point and heavy frame their counts.                                 */
  if (f->kinds_seen) {
    fputs("\"kinds\":[", out);
    for (k = 0; k < RV_KINDS; k++) {
      if (!(f->kinds_used >> k & 1)) continue;
      fprintf(out, "%s[%zu,", first ? "" : ",", k);
      if (k == RV_KINDS - 1) {
        snprintf(buf, sizeof(buf), "kinds %zu+", k);
        jstr(out, buf);
      } else {
        jstr(out, kind_label((unsigned)k, buf));
      }
      fputc(']', out);
      first = 0;
    }
    fputs("],\n\"kstacks\":[", out);
    for (i = 0; i < f->np; i++) {
      if (i) fputc(',', out);
      kinds_out(out, f, &f->p[i]);
    }
    fputs("],\n", out);
  }
  fputs("\"buckets\":[", out);
  for (i = 0; i < f->np; i++) {
    const struct fpoint *p = &f->p[i];

    fprintf(out, "%s[%llu,%llu,%llu,%llu,%llu,%llu,%llu]", i ? "," : "",
            p->f_lo, p->f_hi, p->n, p->objs, p->bytes, rel(p->t_ns, start),
            p->gc_no);
  }
  fputs("],\n\"rows\":[", out);
  for (i = 0; i < f->np; i++) {
    if (i) fputs(",\n", out);
    rows_out(out, &f->p[i].rows);
  }
  fputs("],\n\"heavy\":[", out);
  for (i = 0; i < f->nheavy; i++) {
    const struct fpoint *h = &f->heavy[i];

    fprintf(out, "%s[%llu,%llu,%llu,%llu,%llu,", i ? ",\n" : "", h->f_lo,
            h->gc_no, rel(h->t_ns, start), h->objs, h->bytes);
    rows_out(out, &h->rows);
    if (f->kinds_seen) {
      fputc(',', out);
      kinds_out(out, f, h);
    }
    fputc(']', out);
  }
  fputs("]},\n\"pairs\":[", out);
  for (i = 0; i < f->npairs; i++)
    fprintf(out, "%s[%llu,%llu]", i ? "," : "", f->pairs[i] >> 32,
            f->pairs[i] & 0xffffffffULL);
  fputs("],\n", out);
}

/* TopN: one row per type or callsite.  The last two values are a      */
/* sampled profile's sample counts behind live and allocated bytes,     */
/* written (after live and after alloc objects) only when estimated.    */
#define TOPN_NCOLS 10
static const char *const topn_cols[TOPN_NCOLS] = {
  "live_bytes", "live_objs", "alloc_bytes", "alloc_objs", "freed_bytes",
  "freed_objs", "growth_bytes", "peak_live_bytes", "samples_live",
  "samples_alloc"
};
static const int topn_exact[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
static const int topn_est[] = { 0, 1, 8, 2, 3, 9, 4, 5, 6, 7, -1 };
struct topn_row { u64 id; long long v[TOPN_NCOLS]; };

static int topn_cmp(const void *a, const void *b)
{
  const struct topn_row *x = a, *y = b;
  long long mx = x->v[0] > x->v[2] ? x->v[0] : x->v[2];
  long long my = y->v[0] > y->v[2] ? y->v[0] : y->v[2];

  if (mx != my) return mx > my ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static u64 first_live(const struct tables_view *v, u64 id)
{
  size_t i;

  for (i = 0; v != NULL && i < v->n; i++)
    if (v->ids[i] == id) return v->g[i].live_bytes;
  return 0;
}

/* The rows of one table, the largest (by live or allocated bytes)     */
/* RV_TOPN_CAP of them; *n their count.                                  */
static struct topn_row *topn_rows(const struct tables *tb, int site,
                                  const struct tables_view *first, size_t *n)
{
  const struct keymap *m = site ? tb->sites : tb->types;
  struct topn_row *r = xrealloc(NULL, (keymap_count(m) + 1) * sizeof(*r));
  size_t i;

  *n = 0;
  for (i = 0; i < keymap_count(m); i++) {
    u64 id, lo, lb;
    const struct group *g = keymap_at(m, i, &id);
    struct topn_row *t = &r[*n];

    if (g->live_objs == 0 && g->alloc_objs == 0 && g->freed_objs == 0
        && g->max_live_bytes == 0)
      continue;                         /* defined, never counted       */
    lo = g->live_objs;
    lb = g->live_bytes;
    t->id = id;
    t->v[0] = (long long)tables_scale(tb, site, lo, lb, lb);
    t->v[1] = (long long)tables_scale(tb, site, lo, lb, lo);
    t->v[2] = (long long)tables_scale(tb, site, g->alloc_objs,
                                      g->alloc_bytes, g->alloc_bytes);
    t->v[3] = (long long)tables_scale(tb, site, g->alloc_objs,
                                      g->alloc_bytes, g->alloc_objs);
    t->v[4] = (long long)tables_scale(tb, site, g->freed_objs,
                                      g->freed_bytes, g->freed_bytes);
    t->v[5] = (long long)tables_scale(tb, site, g->freed_objs,
                                      g->freed_bytes, g->freed_objs);
    t->v[6] = t->v[0] - (long long)tables_scale(tb, site, lo, lb,
                                                first_live(first, id));
    t->v[7] = (long long)tables_scale(tb, site, g->max_live_objs,
                                      g->max_live_bytes, g->max_live_bytes);
    t->v[8] = (long long)g->s_live;
    t->v[9] = (long long)g->s_alloc;
    (*n)++;
  }
  if (*n > 0) qsort(r, *n, sizeof(*r), topn_cmp);
  if (*n > RV_TOPN_CAP) *n = RV_TOPN_CAP;
  return r;
}

void rv_write_data(FILE *out, const struct rv_frames *f,
                   const struct tables *tb,
                   const struct tables_view *first_t,
                   const struct tables_view *first_s, u64 start)
{
  struct topn_row *rows[2];
  size_t n[2], i, k;
  int s, first;
  char buf[4096];
  const int *oc = tb->estimated ? topn_est : topn_exact;

  fputs("<script type=\"application/json\" id=\"gcacc-data\">{", out);
  fprintf(out, "\"estimated\":%s,\n", tb->estimated ? "true" : "false");
  frames_out(out, f, start);
  rows[0] = topn_rows(tb, 0, first_t, &n[0]);
  rows[1] = topn_rows(tb, 1, first_s, &n[1]);
  fprintf(out, "\"topn\":{\"cap\":%d,\"columns\":[", RV_TOPN_CAP);
  for (k = 0; oc[k] >= 0; k++)
    fprintf(out, "%s\"%s\"", k ? "," : "", topn_cols[oc[k]]);
  fputs("]", out);
  for (s = 0; s < 2; s++) {
    fprintf(out, ",\n\"%s\":[", s ? "sites" : "types");
    for (i = 0; i < n[s]; i++) {
      fprintf(out, "%s[%llu", i ? "," : "", js_id(rows[s][i].id));
      for (k = 0; oc[k] >= 0; k++)
        fprintf(out, ",%lld", rows[s][i].v[oc[k]]);
      fputc(']', out);
    }
    fputc(']', out);
  }
  fputs("},\n\"tnames\":{", out);
  for (i = first = 0; i < keymap_count(tb->types); i++) {
    u64 id;
    const struct group *g = keymap_at(tb->types, i, &id);

    if (!g->defined && id != KEYMAP_OTHER) continue;
    fprintf(out, "%s\"%llu\":", first++ ? "," : "", js_id(id));
    jstr(out, tables_type_label(tb, id, buf, sizeof(buf)));
  }
  fputs("},\n\"sstacks\":{", out);
  for (i = first = 0; i < keymap_count(tb->sites); i++) {
    u64 id;
    const struct group *g = keymap_at(tb->sites, i, &id);
    unsigned fr;

    if (id == KEYMAP_OTHER) {
      fprintf(out, "%s\"%llu\":[", first++ ? "," : "", js_id(id));
      jstr(out, tables_site_label(tb, id, 0, buf, sizeof(buf)));
      fputc(']', out);
      continue;
    }
    if (!g->defined) continue;
    fprintf(out, "%s\"%llu\":[", first++ ? "," : "", id);
    for (fr = 0; fr < g->nframes; fr++) {
      if (fr) fputc(',', out);
      jstr(out, tables_addr_label(tb, g->frames[fr], buf, sizeof(buf)));
    }
    fputc(']', out);
  }
  fputs("}}</script>\n", out);
  free(rows[0]);
  free(rows[1]);
}

void rv_write_tabs(FILE *out)
{
  fputs("<nav class=\"tabs\" role=\"tablist\">"
        "<button type=\"button\" role=\"tab\" id=\"tab-overview\">Overview"
        "</button><button type=\"button\" role=\"tab\" id=\"tab-frames\">"
        "Frames</button><button type=\"button\" role=\"tab\" "
        "id=\"tab-topn\">TopN</button><button type=\"button\" role=\"tab\" "
        "id=\"tab-why\">Why</button></nav>\n", out);
}

/* The note an estimated dump's type and callsite figures carry.        */
static void estimate_note(FILE *out, const struct tables *tb)
{
  char buf[256];

  if (!tb->estimated) return;
  fprintf(out, "<p class=\"estimate-note\">Note: %s.</p>\n",
          emit_estimate_note(tb->estimate_bytes, buf, sizeof(buf)));
}

static void th_sort(FILE *out, const char *key, const char *label)
{
  fprintf(out, "<th data-key=\"%s\" tabindex=\"0\">%s</th>", key, label);
}

void rv_write_views(FILE *out, const struct tables *tb)
{
  fputs("<section id=\"view-frames\" class=\"view\">\n<h2>Frames</h2>\n",
        out);
  estimate_note(out, tb);
  fputs("<noscript><p>The Frames view is drawn by the page's script."
        "</p></noscript>\n<p class=\"controls\"><label>Allocated per frame:"
        " <select id=\"frame-metric\"><option value=\"bytes\">bytes</option>"
        "<option value=\"objs\">objects</option></select></label>, <label>"
        "stacked by <select id=\"frame-stack\"><option value=\"kinds\">"
        "kind</option><option value=\"types\">top types</option></select>"
        "</label> (kinds: exact, from the allocation counters; types: the "
        "largest over the session, from the frame's type rows).  Click a "
        "bar, or drag across bars, for what those frames allocated; a long "
        "session's frames are merged into ranges, each bar showing its "
        "heaviest.</p>\n"
        "<canvas id=\"frame-chart\" height=\"260\"></canvas>\n"
        "<ul id=\"frame-legend\" class=\"legend\"></ul>\n"
        "<p id=\"frame-sel\" class=\"sel\"></p>\n"
        "<table id=\"frame-kinds\" hidden><thead><tr><th class=\"l\">kind"
        "</th><th>bytes</th><th>objects</th><th>share</th></tr></thead>"
        "<tbody></tbody></table>\n<div class=\"two\">"
        "<table id=\"frame-types\"><thead><tr><th class=\"l\">type</th>"
        "<th>bytes</th><th>objects</th><th>share</th></tr></thead>"
        "<tbody></tbody></table>\n<table id=\"frame-sites\"><thead><tr>"
        "<th class=\"l\">callsite (innermost first)</th><th>bytes</th>"
        "<th>objects</th><th>share</th></tr></thead><tbody></tbody>"
        "</table></div>\n<h3>The heaviest frames</h3>\n<table "
        "id=\"frame-heavy\"><thead><tr><th>frame</th><th>gc_no</th>"
        "<th>time</th><th>bytes</th><th>objects</th></tr></thead><tbody>"
        "</tbody></table>\n</section>\n", out);
  fputs("<section id=\"view-topn\" class=\"view\">\n<h2>TopN</h2>\n", out);
  estimate_note(out, tb);
  if (tb->estimated)
    fputs("<p class=\"note\" id=\"topn-samples\">n: the samples behind the "
          "estimates before it, and (&plusmn;) their relative error, about "
          "1/sqrt(n).</p>\n", out);
  fputs("<noscript><p>The TopN view is drawn by the page's script.</p>"
        "</noscript>\n<p class=\"controls\"><select id=\"topn-kind\">"
        "<option value=\"types\">types</option><option value=\"sites\">"
        "callsites</option></select> <input id=\"topn-filter\" "
        "type=\"search\" placeholder=\"filter by name or function\"> "
        "Click a column to sort by it.  Live: at the last collection with "
        "a census; allocated, freed: over the session; growth: live bytes "
        "at the end minus at the first census; peak: the most live.</p>\n"
        "<p id=\"topn-count\" class=\"note\"></p>\n<table id=\"topn-table\">"
        "<thead><tr><th data-key=\"\">id</th><th class=\"l\" "
        "id=\"topn-label\">type</th>", out);
  th_sort(out, "live_bytes", "live bytes");
  th_sort(out, "live_objs", "live objects");
  if (tb->estimated) th_sort(out, "samples_live", "n");
  th_sort(out, "alloc_bytes", "allocated bytes");
  th_sort(out, "alloc_objs", "allocated objects");
  if (tb->estimated) th_sort(out, "samples_alloc", "n");
  th_sort(out, "freed_bytes", "freed bytes");
  th_sort(out, "freed_objs", "freed objects");
  th_sort(out, "growth_bytes", "growth");
  th_sort(out, "peak_live_bytes", "peak live");
  fputs("</tr></thead><tbody></tbody></table>\n</section>\n<script>", out);
  fputs(rv_js, out);
  fputs("</script>\n", out);
}

const char rv_css[] =
  "nav.tabs{display:flex;gap:4px;margin:12px 0;border-bottom:2px solid "
  "#ccc}nav.tabs button{font:inherit;padding:6px 16px;border:1px solid "
  "#ccc;border-bottom:none;background:#f3f3f3;cursor:pointer}"
  "nav.tabs button[aria-selected=true]{background:#fff;font-weight:600;"
  "position:relative;top:2px}html:not(.js) nav.tabs{display:none}\n"
  "[hidden]{display:none!important}\n"
  "#frame-chart{width:100%;height:260px;border:1px solid #ddd;"
  "background:#fcfcfc;cursor:crosshair}\n"
  "ul.legend{list-style:none;padding:0;margin:6px 0;display:flex;"
  "flex-wrap:wrap;gap:4px 14px;font-size:12px}ul.legend li::before{"
  "content:'';display:inline-block;width:12px;height:12px;margin-right:5px;"
  "vertical-align:-1px;background:var(--c)}\n"
  ".two{display:flex;gap:24px;align-items:flex-start}.two table{flex:1}\n"
  ".view td:not(.l){white-space:nowrap}\n"
  "p.sel{font-weight:600}.controls{color:#444}\n"
  "#frame-kinds{margin-bottom:12px}#frame-kinds td.l::before{content:'';"
  "display:inline-block;width:10px;height:10px;margin-right:5px;"
  "background:var(--c)}\n"
  "tr.heavy-row{cursor:pointer}th[data-key]{cursor:pointer}"
  "th[aria-sort=descending]::after{content:' \\25BE'}"
  "th[aria-sort=ascending]::after{content:' \\25B4'}\n"
  "td.l details summary{cursor:pointer}ol.stack{margin:2px 0;"
  "padding-left:22px;font-size:12px}\n"
  ".estimate-note{background:#fff8e1;border-left:4px solid #f0b400;"
  "padding:6px 10px}\n";
