/* SPDX-License-Identifier: MIT */
/*
 * diff_html.c: the Compare view (issue 23), `gcacc diff --html`: two
 * sessions side by side in one self-contained HTML page (inline CSS, no
 * script, nothing fetched).
 *
 * What it shows is what `gcacc diff` computes (diff.h), so the page and
 * the text, CSV and JSON never disagree: the headline figures of both
 * sessions (`gcacc summary`'s, session_summary_figs) with their change,
 * then per type, callsite, kind and size class the live bytes at each
 * session's compared collection and the bytes allocated over the
 * session, with the change of each, sorted by the change in live bytes
 * (then in allocated bytes).  Each row carries its raw numbers as data-
 * attributes (data-key, data-live-a, data-live-delta, ...) for tests and
 * scripts; estimates (a sampled profile) are marked "~" in the text and
 * data-estimated="1".  Every string from a dump is escaped twice over:
 * control characters as text_escape writes them, then HTML's five.
 */

#include "gcacc.h"
#include <math.h>
#include "diff.h"

#include <stdlib.h>
#include <string.h>

/* s as HTML text or attribute value: control characters as \n, \xNN    */
/* (text_escape), then & < > " ' as entities.                            */
static void put_html(FILE *f, const char *s)
{
  size_t n = text_escape(NULL, 0, s ? s : "", 0);
  char *e = xrealloc(NULL, n + 1), *p;

  text_escape(e, n + 1, s ? s : "", 0);
  for (p = e; *p; p++) {
    switch (*p) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(*p, f);
    }
  }
  free(e);
}

/* "+1.2 MiB", "-512 B", "0 B"; "~" first for an estimate.              */
static const char *signed_size(long long v, int est, char *buf)
{
  return diff_size_text((u64)v, 1, est, buf, 32);
}

static const char *size_of(u64 v, int est, char *buf)
{
  return diff_size_text(v, 0, est, buf, 32);
}

static const char *change_class(long long v)
{
  return v > 0 ? "up" : v < 0 ? "down" : "same";
}

static void page_start(FILE *f, const struct diff *d)
{
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
        "\n<title>gcacc compare: ", f);
  put_html(f, d->s[0].path);
  fputs(" vs ", f);
  put_html(f, d->s[1].path);
  fputs("</title>\n<style>\n"
        "body{font:14px/1.45 'DejaVu Sans',system-ui,sans-serif;"
        "color:#1d1d1d;background:#fafafa;margin:0;padding:20px 28px}\n"
        "h1{font-size:21px;margin:0 0 10px}\n"
        "h2{font-size:16px;margin:30px 0 6px;padding-bottom:3px;"
        "border-bottom:2px solid #d5dbe3}\n"
        ".sessions{display:flex;gap:18px;flex-wrap:wrap;margin:0 0 8px}\n"
        ".session{background:#fff;border:1px solid #d5dbe3;border-radius:4px;"
        "padding:6px 12px;max-width:560px;overflow-wrap:anywhere}\n"
        ".session b{display:inline-block;min-width:18px}\n"
        ".estimate-note{background:#fff8e1;border:1px solid #e8c96b;"
        "padding:6px 12px;border-radius:4px}\n"
        "table.cmp{border-collapse:collapse;background:#fff;"
        "border:1px solid #d5dbe3}\n"
        "table.cmp th{background:#eef2f6;font-weight:600}\n"
        "table.cmp th,table.cmp td{padding:3px 9px;text-align:right;"
        "border-bottom:1px solid #eceff3;"
        "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
        "table.cmp .k{text-align:left;max-width:520px;overflow:hidden;"
        "text-overflow:ellipsis;font-family:'DejaVu Sans Mono',monospace;"
        "font-size:12px}\n"
        "td.up{color:#a40000}td.down{color:#0a6b0a}td.same{color:#777}\n"
        "td.noise{color:#777;font-style:italic}\n"
        "td.bar{width:160px;padding:3px 4px}\n"
        "td.bar span{display:block;height:10px;border-radius:2px}\n"
        "td.bar span.up{background:#e0786e}"
        "td.bar span.down{background:#6fbf73;margin-left:auto}\n"
        ".more{color:#666;font-size:12px;margin:4px 0 0}\n"
        "</style>\n</head>\n<body>\n<h1>gcacc compare</h1>\n", f);
}

static void page_sessions(FILE *f, const struct diff *d)
{
  int b;
  char note[400];

  fputs("<div class=\"sessions\">\n", f);
  for (b = 0; b < 2; b++) {
    const struct diff_side *s = &d->s[b];
    const json_t *h = s->info.header;

    fprintf(f, "<div class=\"session\" id=\"session-%c\" data-pid=\"%llu\" "
            "data-live-gc=\"%llu\" data-estimated=\"%d\"><b>%c</b> <code>",
            'a' + b, jnum(h, "pid"), s->live_gc_no, s->tb.estimated,
            'A' + b);
    put_html(f, s->path);
    fprintf(f, "</code><br>pid %llu &middot; <code>", jnum(h, "pid"));
    put_html(f, json_string_value(json_object_get(h, "executable")));
    fprintf(f, "</code><br>%s collection: gc %llu</div>\n",
            d->last ? "last" : "peak-live", s->live_gc_no);
  }
  fputs("</div>\n", f);
  if (diff_estimate_note(d, note, sizeof(note)) != NULL) {
    fputs("<p class=\"estimate-note\" id=\"estimate-note\">", f);
    put_html(f, note);
    fputs("</p>\n", f);
  }
}

/* One headline figure as text; change: signed, as a difference.        */
static void fig_text(FILE *f, enum emit_type type, const union emit_cell *a,
                     const union emit_cell *b)
{
  char buf[32], sz[16];
  long long du = b ? (long long)(b->u - a->u) : 0;

  switch (type) {
  case COL_BYTES:
    fputs(b ? signed_size(du, 0, buf) : emit_size(a->u, sz), f);
    break;
  case COL_NS:
    fprintf(f, b ? "%+.2f ms" : "%.2f ms",
            (b ? (double)du : (double)a->u) / 1e6);
    break;
  case COL_RATIO:
    fprintf(f, b ? "%+.3f" : "%.3f", b ? b->d - a->d : a->d);
    break;
  case COL_PCT:
    fprintf(f, b ? "%+.1f pt" : "%.1f%%", 100 * (b ? b->d - a->d : a->d));
    break;
  default:
    if (b) fprintf(f, "%+lld", du);
    else fprintf(f, "%llu", a->u);
  }
}

static void page_headline(FILE *f, const struct diff *d)
{
  union emit_cell v[2][SESSION_SUMMARY_NFIGS];
  int b, i;

  for (b = 0; b < 2; b++)
    session_summary_figures(&d->s[b].sum,
                            session_summary_start(&d->s[b].sum,
                                                  d->s[b].info.header),
                            v[b]);
  fputs("<h2>Headline figures</h2>\n<table class=\"cmp\" id=\"headline\">\n"
        "<tr><th class=\"k\">figure</th><th>A</th><th>B</th>"
        "<th>B &minus; A</th></tr>\n", f);
  for (i = 0; i < SESSION_SUMMARY_NFIGS; i++) {
    const struct summary_fig *g = &session_summary_figs[i];
    int real = g->type == COL_RATIO || g->type == COL_PCT;
    double ch = real ? v[1][i].d - v[0][i].d
                     : (double)(long long)(v[1][i].u - v[0][i].u);

    fprintf(f, "<tr id=\"h-%s\"", g->id);
    if (real) fprintf(f, " data-a=\"%.6f\" data-b=\"%.6f\"", v[0][i].d,
                      v[1][i].d);
    else fprintf(f, " data-a=\"%llu\" data-b=\"%llu\"", v[0][i].u,
                 v[1][i].u);
    fprintf(f, "><td class=\"k\">%s</td><td>", g->label);
    fig_text(f, g->type, &v[0][i], NULL);
    fputs("</td><td>", f);
    fig_text(f, g->type, &v[1][i], NULL);
    fprintf(f, "</td><td class=\"%s\">", ch > 0 ? "up" : ch < 0 ? "down"
                                                        : "same");
    fig_text(f, g->type, &v[0][i], &v[1][i]);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* One table of rows: types, callsites (estimates when d->estimated),   */
/* kinds or size classes.                                                */
enum cmp_table { T_TYPES, T_SITES, T_KINDS, T_CLASSES };

static void row_label(const struct diff *d, enum cmp_table which,
                      const struct diff_row *r, char *buf, size_t sz)
{
  if (which == T_KINDS || which == T_CLASSES)
    diff_row_label(d, which == T_KINDS, r, buf, sz);
  else snprintf(buf, sz, "%s", r->key);
}

static void page_table(FILE *f, const struct diff *d, enum cmp_table which,
                       unsigned long top)
{
  static const char *const ids[] = { "types", "sites", "kinds", "classes" };
  static const char *const titles[] = {
    "Per type", "Per callsite (innermost frame first)", "Per kind",
    "Per size class" };
  static const char *const heads[] = { "type", "callsite", "kind",
                                       "size class" };
  const struct diff_rows *l = which == T_TYPES ? &d->types
                              : which == T_SITES ? &d->sites
                              : which == T_KINDS ? &d->kinds : &d->classes;
  int est = d->estimated && (which == T_TYPES || which == T_SITES);
  size_t i, shown = top == 0 || l->n < top ? l->n : top;
  u64 scale = 0;
  char label[4096], b1[32], b2[32], b3[32];

  fprintf(f, "<h2>%s</h2>\n", titles[which]);
  if (l->n == 0) {
    fprintf(f, "<p class=\"more\" id=\"cmp-%s-none\">Neither dump has "
            "figures %s.</p>\n", ids[which],
            which == T_SITES ? "per callsite (run with GC_ACC_STACKS)"
            : which == T_TYPES ? "per type" : "here");
    return;
  }
  for (i = 0; i < shown; i++)
    if (diff_mag(l->r[i].d_live) > scale)
      scale = diff_mag(l->r[i].d_live);
  if (est)
    fprintf(f, "<p class=\"more\" id=\"cmp-%s-noise\">A change shown "
            "in grey and parentheses is within sampling noise: no larger "
            "than %g standard errors of the two estimates (its noise in "
            "the cell's tooltip). gcacc diff --threshold does not count "
            "it.</p>\n", ids[which], d->sigma);
  fprintf(f, "<table class=\"cmp\" id=\"cmp-%s\" data-rows=\"%zu\" "
          "data-total=\"%zu\" data-estimated=\"%d\">\n<tr><th class=\"k\">"
          "%s</th><th>live A</th><th>live B</th><th>live change</th><th>"
          "</th><th>allocated A</th><th>allocated B</th>"
          "<th>allocated change</th></tr>\n", ids[which], shown, l->n, est,
          heads[which]);
  for (i = 0; i < shown; i++) {
    const struct diff_row *r = &l->r[i];
    double w = scale ? 100.0 * (double)diff_mag(r->d_live) / (double)scale
                     : 0;

    row_label(d, which, r, label, sizeof(label));
    fputs("<tr class=\"cmp-row\" data-key=\"", f);
    put_html(f, label);
    fputs("\"", f);
    if (which == T_KINDS || which == T_CLASSES)
      fprintf(f, " data-kind=\"%u\"", r->kind);
    if (which == T_CLASSES) fprintf(f, " data-class=\"%u\"", r->cls);
    fprintf(f, " data-live-a=\"%llu\" data-live-b=\"%llu\" "
            "data-live-delta=\"%lld\" data-alloc-a=\"%llu\" "
            "data-alloc-b=\"%llu\" data-alloc-delta=\"%lld\" "
            "data-live-noise=\"%.0f\" data-significant=\"%d\"><td "
            "class=\"k\" title=\"", r->live_a, r->live_b, r->d_live,
            r->alloc_a, r->alloc_b, r->d_alloc, ceil(r->noise),
            r->d_live != 0 && !r->within);
    put_html(f, label);
    fputs("\">", f);
    put_html(f, label);
    fprintf(f, "</td><td>%s</td><td>%s</td>", size_of(r->live_a, est, b1),
            size_of(r->live_b, est, b2));
    if (r->within)
      fprintf(f, "<td class=\"noise\" title=\"within sampling noise: "
              "&plusmn;%s\">(%s)</td>", emit_size((u64)ceil(r->noise), b1),
              signed_size(r->d_live, est, b3));
    else
      fprintf(f, "<td class=\"%s\">%s</td>", change_class(r->d_live),
              signed_size(r->d_live, est, b3));
    fprintf(f, "<td class=\"bar\"><span class=\"%s\" style=\"width:"
            "%.1f%%\"></span></td>", r->within ? "same"
            : change_class(r->d_live), w);
    fprintf(f, "<td>%s</td><td>%s</td><td class=\"%s\">%s</td></tr>\n",
            size_of(r->alloc_a, est, b1), size_of(r->alloc_b, est, b2),
            change_class(r->d_alloc), signed_size(r->d_alloc, est, b3));
  }
  fputs("</table>\n", f);
  if (shown < l->n)
    fprintf(f, "<p class=\"more\">%zu more rows, with smaller changes, not "
            "shown (gcacc diff --html --top 0 shows all)</p>\n",
            l->n - shown);
}

int compare_write_html(FILE *out, const struct diff *d, unsigned long top)
{
  page_start(out, d);
  page_sessions(out, d);
  page_headline(out, d);
  page_table(out, d, T_TYPES, top);
  page_table(out, d, T_SITES, top);
  page_table(out, d, T_KINDS, top);
  page_table(out, d, T_CLASSES, top);
  fputs("<p class=\"more\">Live bytes: at each session's compared "
        "collection; allocated bytes: over the whole session (granted). "
        "Types are matched by name, or by module+offset when a name is "
        "only an address; callsites by their stacks. Written by gcacc "
        "diff --html.</p>\n</body>\n</html>\n", out);
  fflush(out);
  return ferror(out) ? -1 : 0;
}
