/* SPDX-License-Identifier: MIT */
/*
 * cmd_why.c: `gcacc why`, the dump's retention records (issue 37,
 * docs/dump-format.md "Retention records"): for each request, the paths
 * from a root to the instances the collector reached, step by step.
 *
 * The records are read by why_paths.c (roots named by module + offset
 * and data symbol, types by the record's names); here they are printed.
 * Nothing read from the dump is trusted: a record that is not what the
 * format says is skipped with one warning.
 */

#include "gcacc.h"
#include "dump_read.h"
#include "session.h"
#include "why.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char why_usage[] =
  "usage: gcacc why [<options>] <dump>\n"
  "\n"
  "Who holds what grows: the paths from a root to sampled instances of\n"
  "a type, as the program asked for them (GC_ACC_RETAIN=type:NAME or\n"
  "GC_acc_retain_request): per request the collection, the instances\n"
  "found (at most 5, the nearest; past its breadth-first part the paths\n"
  "come from the parents the marking recorded, or the walk goes depth\n"
  "first, and paths found so are marked: maybe not the shortest),\n"
  "whether the walk was partial (its\n"
  "memory cap or time bound), and each path from its root: static data (module+offset\n"
  "and the data symbol holding it), a thread's stack, the finalization\n"
  "queue or an uncollectable object (in IL2CPP the class whose static\n"
  "fields it holds, when known); then each object with its type\n"
  "(or kind), size, and the word of the previous one that refers to it,\n"
  "\"conservative\" when that word was only taken to be a pointer.\n"
  "\n"
  "  --type <name>       only the requests for this type\n"
  "  --site <id>         only the paths to instances from this callsite\n"
  "  --full              every step of long paths (else the first and\n"
  "                      last 6 of paths over 16 steps)\n"
  "  --no-symbols        module+offset only (no nm)\n"
  "  --json, --csv       machine-readable output (every step)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

static void csv_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s != NULL && *s; s++) {
    if (*s == '"') fputc('"', f);
    if ((unsigned char)*s < 0x20) fputc(' ', f);
    else fputc(*s, f);
  }
  fputc('"', f);
}

/* One request (why_record's) as text or CSV.                          */
static void why_print(FILE *out, const json_t *jr, int csv, int full)
{
  const json_t *req = json_object_get(jr, "request"), *p;
  const char *tname = json_string_value(json_object_get(req, "type"));
  long long gc_no = json_integer_value(json_object_get(jr, "gc_no"));
  size_t pi;

  if (!csv) {
    char tb[512];
    const char *part = why_partial_text(jr);

    fprintf(out, "gc %lld: %s: %lld of %lld instances reached%s%s%s;"
            " %lld objects visited, pause %.2f ms, %.1f MiB\n",
            gc_no, why_request_text(req, tb, sizeof(tb)),
            json_integer_value(json_object_get(jr, "found")),
            json_integer_value(json_object_get(jr, "wanted")),
            *part ? " (partial: " : "", part, *part ? ")" : "",
            json_integer_value(json_object_get(jr, "visited")),
            (double)json_integer_value(json_object_get(jr, "pause_ns")) / 1e6,
            (double)json_integer_value(json_object_get(jr, "memory_bytes"))
              / 1048576.0);
    if (json_integer_value(json_object_get(jr, "found")) == 0)
      fputs("  no marked instance reached from a root (none live, or held"
            " only weakly)\n", out);
  }
  json_array_foreach(json_object_get(jr, "paths"), pi, p) {
    const json_t *root = json_object_get(p, "root");
    const json_t *steps = json_object_get(p, "steps"), *s;
    const char *rtext = json_string_value(json_object_get(root, "text"));
    long long pno = json_integer_value(json_object_get(p, "path"));
    size_t si, n = json_array_size(steps);

    if (!csv)
      fprintf(out, "  path %lld, %zu steps%s, from %s%s\n", pno, n,
              json_is_true(json_object_get(p, "shortest")) ? ""
              : " (found depth first: maybe not the shortest)", rtext,
              json_is_true(json_object_get(root, "conservative"))
              ? " (conservative)" : "");
    for (si = 0; si < n; si++) {
      const char *ty, *kb;
      long long ref;
      int cons;

      s = json_array_get(steps, si);
      ty = json_string_value(json_object_get(s, "type"));
      kb = json_string_value(json_object_get(s, "kind"));
      ref = json_integer_value(json_object_get(s, "ref_word"));
      cons = json_is_true(json_object_get(s, "conservative"));
      if (csv) {
        fprintf(out, "%lld,", gc_no);
        csv_str(out, tname);
        fprintf(out, ",%lld,%zu,", pno, n);
        csv_str(out, rtext);
        fprintf(out, ",%zu,%s,%s,%lld,", si + 1,
                json_string_value(json_object_get(s, "addr")), kb,
                json_integer_value(json_object_get(s, "bytes")));
        csv_str(out, ty != NULL ? ty : "");
        fprintf(out, ",%lld,%lld,%d\n",
                json_integer_value(json_object_get(s, "site")), ref, cons);
        continue;
      }
      if (!full && n > 16 && si == 6) {
        fprintf(out, "      ... %zu steps ...\n", n - 12);
        si = n - 7;
        continue;
      }
      if (si == 0) fprintf(out, "    ");
      else fprintf(out, "    [word %lld]%s -> ", ref,
                   cons ? " conservative" : "");
      if (ty != NULL) {
        char tyb[512];

        text_escape(tyb, sizeof(tyb), ty, 0);
        fprintf(out, "%s (%s, %lld B) at %s\n", tyb, kb,
                json_integer_value(json_object_get(s, "bytes")),
                json_string_value(json_object_get(s, "addr")));
      } else {
        fprintf(out, "%s (%s, %lld B) at %s\n", kb, kb,
                json_integer_value(json_object_get(s, "bytes")),
                json_string_value(json_object_get(s, "addr")));
      }
    }
  }
}

int cmd_why(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  const char *path = NULL, *want_type = NULL, *err = NULL;
  unsigned long long want_site = 0;
  int have_site = 0, full = 0, i, bad = 0, shown = 0, symbols = 1;
  struct dump_reader *r;
  struct why_ctx *c;
  json_t *rec, *all = json_array();
  enum dump_status st;
  FILE *out;

  for (i = 1; i < argc; i++) {
    const char *v;
    int rc;

    if (strcmp(argv[i], "--type") == 0) {
      if ((want_type = opt_value(argc, argv, &i)) == NULL) return EXIT_USAGE;
      continue;
    }
    if (strcmp(argv[i], "--site") == 0) {
      if ((v = opt_value(argc, argv, &i)) == NULL) return EXIT_USAGE;
      if (!parse_addr(v, &want_site))
        return usage_error("--site needs a callsite id (a number)");
      have_site = 1;
      continue;
    }
    if (strcmp(argv[i], "--full") == 0) {
      full = 1;
      continue;
    }
    if (strcmp(argv[i], "--no-symbols") == 0) {
      symbols = 0;
      continue;
    }
    rc = view_dump_arg(&o, why_usage, argc, argv, &i, &path);
    if (rc != ARG_TAKEN) return rc;
  }
  if (path == NULL) return usage_error("no dump given");
  r = dump_open(path, &err);
  if (r == NULL) {
    error("%s: %s", path, err);
    return EXIT_USAGE;
  }
  out = common_output(&o);
  if (out == NULL) {
    dump_close(r);
    return EXIT_USAGE;
  }
  c = why_new(symbols);
  if (o.format == EMIT_CSV)
    fputs("gc_no,request,path,depth,root,step,addr,kind,bytes,type,site,"
          "ref_word,conservative\n", out);
  while ((st = dump_next(r, &rec)) == DUMP_RECORD) {
    const char *rt = json_string_value(json_object_get(rec, "record"));
    json_t *jr;
    int was_bad = bad;

    if (strcmp(rt, "header") == 0) why_header(c, rec);
    if (strcmp(rt, "collection") == 0) kind_names_note(rec);
    if (strcmp(rt, "retain") != 0) {
      json_decref(rec);
      continue;
    }
    jr = why_record(c, rec, want_type, have_site, want_site, &bad);
    json_decref(rec);
    if (bad > was_bad && was_bad == 0)
      warning("%s: a retain record without request or paths (skipped)",
              path);
    if (jr == NULL) continue;
    shown++;
    if (o.format == EMIT_JSON) {
      json_array_append_new(all, jr);
      continue;
    }
    why_print(out, jr, o.format == EMIT_CSV, full);
    json_decref(jr);
  }
  if (st == DUMP_ERROR) {
    error("%s: %s", path, dump_error(r));
    dump_close(r);
    json_decref(all);
    why_free(c);
    common_close(&o, out);
    return EXIT_USAGE;
  }
  if (st == DUMP_TRUNCATED) warning("%s: the dump ends mid-record", path);
  if (o.format == EMIT_JSON) {
    json_t *top = json_object();

    json_object_set_new(top, "requests", all);
    all = NULL;
    json_dumpf(top, out, JSON_INDENT(1));
    fputc('\n', out);
    json_decref(top);
  } else if (o.format == EMIT_TABLE && shown == 0) {
    fprintf(out, "no retention records%s (ask with GC_ACC_RETAIN=type:NAME"
            " or GC_acc_retain_request)\n",
            want_type != NULL ? " for this type" : "");
  }
  json_decref(all);
  dump_close(r);
  why_free(c);
  common_close(&o, out);
  return EXIT_OK;
}
