/* SPDX-License-Identifier: MIT */
/*
 * report_why.c: the Why view of `gcacc report` (report_views.h): the
 * retention records of the dump (issue 37), read by why_paths.c as
 * `gcacc why` reads them, drawn as one table per path.  Plain HTML: the
 * view needs no script but the tabs'.  Tests look for the elements'
 * classes and data- attributes: div.why-req (data-request, data-gc,
 * data-found, data-partial), table.why-path (data-path, data-depth,
 * data-root-kind, data-root-addr, data-root-symbol, data-root-class,
 * data-shortest),
 * tr.why-step (data-step, data-addr, data-type, data-ref-word,
 * data-conservative), tr.why-elided (data-steps).
 */

#include "report_views.h"
#include "gcacc.h"
#include "why.h"

#include <stdlib.h>
#include <string.h>

struct rv_why {
  json_t *recs;                         /* the retain records kept      */
  unsigned long lost;                   /* beyond RV_WHY_RECORDS        */
};

struct rv_why *rv_why_new(void)
{
  struct rv_why *w = calloc(1, sizeof(*w));

  if (w == NULL) abort();
  w->recs = json_array();
  return w;
}

void rv_why_free(struct rv_why *w)
{
  if (w == NULL) return;
  json_decref(w->recs);
  free(w);
}

int rv_why_record(const json_t *rec, struct rv_why *w)
{
  const char *k = json_string_value(json_object_get(rec, "record"));

  if (k == NULL || strcmp(k, "retain") != 0) return 0;
  if (json_array_size(w->recs) >= RV_WHY_RECORDS) w->lost++;
  else json_array_append(w->recs, (json_t *)rec);
  return 0;
}

/* An attribute from a JSON string or integer member (nothing if none). */
static void attr(FILE *out, const char *name, const json_t *v)
{
  if (json_is_string(v)) {
    fprintf(out, " %s=\"", name);
    html_esc(out, json_string_value(v));
    fputc('"', out);
  } else if (json_is_integer(v)) {
    fprintf(out, " %s=\"%lld\"", name, (long long)json_integer_value(v));
  } else if (json_is_boolean(v)) {
    fprintf(out, " %s=\"%d\"", name, json_is_true(v));
  }
}

static void why_step(FILE *out, const json_t *s, size_t si)
{
  const json_t *ty = json_object_get(s, "type");
  char sb[32];

  fprintf(out, "<tr class=\"why-step\" data-step=\"%zu\"", si + 1);
  attr(out, "data-addr", json_object_get(s, "addr"));
  attr(out, "data-type", ty);
  attr(out, "data-ref-word", json_object_get(s, "ref_word"));
  attr(out, "data-conservative", json_object_get(s, "conservative"));
  fprintf(out, "><td>%zu</td><td class=\"l\">", si + 1);
  if (si > 0)
    fprintf(out, "word %lld%s", (long long)json_integer_value(
            json_object_get(s, "ref_word")),
            json_is_true(json_object_get(s, "conservative"))
            ? " (conservative)" : "");
  fputs("</td><td class=\"l\">", out);
  html_esc(out, json_is_string(ty) ? json_string_value(ty)
                : json_string_value(json_object_get(s, "kind")));
  fputs("</td><td class=\"l\">", out);
  html_esc(out, json_string_value(json_object_get(s, "kind")));
  fprintf(out, "</td><td>%s</td><td class=\"l\">", emit_size((u64)
          json_integer_value(json_object_get(s, "bytes")), sb));
  html_esc(out, json_string_value(json_object_get(s, "addr")));
  fprintf(out, "</td><td>%lld</td></tr>\n", (long long)json_integer_value(
          json_object_get(s, "site")));
}

static void why_path_table(FILE *out, const json_t *p)
{
  const json_t *root = json_object_get(p, "root");
  const json_t *steps = json_object_get(p, "steps");
  size_t si, n = json_array_size(steps);

  fputs("<table class=\"why-path\"", out);
  attr(out, "data-path", json_object_get(p, "path"));
  attr(out, "data-depth", json_object_get(p, "depth"));
  attr(out, "data-root-kind", json_object_get(root, "kind"));
  attr(out, "data-root-addr", json_object_get(root, "addr"));
  attr(out, "data-root-symbol", json_object_get(root, "symbol"));
  attr(out, "data-root-class", json_object_get(root, "class"));
  attr(out, "data-shortest", json_object_get(p, "shortest"));
  fprintf(out, "><caption>path %lld, %zu steps%s, from ",
          (long long)json_integer_value(json_object_get(p, "path")), n,
          json_is_true(json_object_get(p, "shortest")) ? ""
          : " (found depth first: maybe not the shortest)");
  html_esc(out, json_string_value(json_object_get(root, "text")));
  if (json_is_true(json_object_get(root, "conservative")))
    fputs(" (conservative)", out);
  fputs("</caption><thead><tr><th>step</th><th class=\"l\">via</th>"
        "<th class=\"l\">type</th><th class=\"l\">kind</th><th>size</th>"
        "<th class=\"l\">address</th><th>callsite</th></tr></thead>"
        "<tbody>\n", out);
  for (si = 0; si < n; si++) {
    if (n > RV_WHY_LONG && si == RV_WHY_ENDS) {
      fprintf(out, "<tr class=\"why-elided\" data-steps=\"%zu\"><td></td>"
              "<td class=\"l\" colspan=\"6\">&hellip; %zu steps &hellip;"
              "</td></tr>\n", n - 2 * RV_WHY_ENDS, n - 2 * RV_WHY_ENDS);
      si = n - RV_WHY_ENDS - 1;
      continue;
    }
    why_step(out, json_array_get(steps, si), si);
  }
  fputs("</tbody></table>\n", out);
}

void rv_write_why(FILE *out, const struct rv_why *w, const json_t *header)
{
  struct why_ctx *c = why_new(1);
  const json_t *rec;
  size_t i, pi;
  int bad = 0, shown = 0;

  if (header != NULL) why_header(c, header);
  fputs("<section id=\"view-why\" class=\"view\">\n<h2>Why is it alive"
        "</h2>\n<p class=\"controls\">The retention records the program "
        "asked for (GC_ACC_RETAIN, GC_acc_retain_request): per request, "
        "the shortest paths from a root to the instances reached, each "
        "object with the word of the one before that refers to it "
        "(<code>gcacc why</code> gives the same in text, JSON and CSV)."
        "</p>\n", out);
  json_array_foreach(w->recs, i, rec) {
    json_t *jr = why_record(c, rec, NULL, 0, 0, &bad);
    const json_t *p;
    char tb[512], sb[32];
    const char *part;

    if (jr == NULL) continue;
    shown++;
    part = why_partial_text(jr);
    fputs("<div class=\"why-req\"", out);
    fprintf(out, " data-request=\"");
    html_esc(out, why_request_text(json_object_get(jr, "request"), tb,
                                   sizeof(tb)));
    fputc('"', out);
    attr(out, "data-gc", json_object_get(jr, "gc_no"));
    attr(out, "data-found", json_object_get(jr, "found"));
    fprintf(out, " data-partial=\"%d\"><h3>gc %lld: ", *part != '\0',
            (long long)json_integer_value(json_object_get(jr, "gc_no")));
    html_esc(out, tb);
    fprintf(out, "%s</h3>\n<p class=\"note\">%lld of %lld instances reached"
            "%s%s%s; %lld objects visited, pause %.2f ms, %s of memory.</p>\n",
            json_is_true(json_object_get(
                json_object_get(jr, "request"), "auto")) ? " (auto)" : "",
            (long long)json_integer_value(json_object_get(jr, "found")),
            (long long)json_integer_value(json_object_get(jr, "wanted")),
            *part ? " (partial: " : "", part, *part ? ")" : "",
            (long long)json_integer_value(json_object_get(jr, "visited")),
            (double)json_integer_value(json_object_get(jr, "pause_ns")) / 1e6,
            emit_size((u64)json_integer_value(
                json_object_get(jr, "memory_bytes")), sb));
    if (json_integer_value(json_object_get(jr, "found")) == 0)
      fputs("<p class=\"note\">No marked instance reached from a root (none"
            " live, or held only weakly).</p>\n", out);
    json_array_foreach(json_object_get(jr, "paths"), pi, p)
      why_path_table(out, p);
    fputs("</div>\n", out);
    json_decref(jr);
  }
  if (shown == 0)
    fputs("<p id=\"why-none\">No retention records: ask with "
          "GC_ACC_RETAIN=type:NAME, GC_ACC_RETAIN=auto or "
          "GC_acc_retain_request.</p>\n", out);
  if (w->lost != 0 || bad != 0)
    fprintf(out, "<p class=\"note\" id=\"why-lost\">%lu more retention "
            "records not shown, %d malformed (see gcacc why).</p>\n",
            w->lost, bad);
  fputs("</section>\n", out);
  why_free(c);
}
