/* SPDX-License-Identifier: MIT */
/*
 * cmd_leaks.c: `gcacc leaks`, what grows steadily across the session:
 * the command line and the tables (text, CSV, JSON) of what leaks.c
 * finds, by the rules at the top of that file (leaks.h).  Exit status 1
 * when a finding has strong evidence.
 */

#include "gcacc.h"
#include "leaks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* The reasons' names (enum leak_reason), as --json and --csv give them. */
static const char *const reason_name[] = {
  "frame markers", "churn", "growth stops", "little churn",
  "work changes"
};

/* Whether f goes in the table of r: -1 the strong rows, else the weak  */
/* rows of reason r.                                                     */
static int row_in(const struct leak_finding *f, int r)
{
  return r < 0 ? !LEAK_WEAK(f->reason) : (int)f->reason == r;
}

/* The title of the weak rows of reason r (what: "size classes", ...).   */
static void reason_text(FILE *out, enum leak_reason r,
                        const struct leak_evidence *ev, const char *what)
{

  fprintf(out, "weak evidence, not counted as a leak (%s):\n", what);
  switch (r) {
  case LEAK_STOPS:
    fputs("  growth stops: over the last fifth of the session they rose\n"
          "  under a quarter of their pace before (a warm-up or loading "
          "phase)\n", out);
    break;
  case LEAK_LITTLE_CHURN:
    fprintf(out, "  little churn: the program allocated %.1fx its peak live "
            "bytes, under\n  %.0fx (%s frame markers): it may build its "
            "data once and keep it\n", ev->churn,
            ev->framed ? LEAK_MIN_CHURN_FRAMED : LEAK_MIN_CHURN,
            ev->framed ? "with" : "without");
    break;
  case LEAK_MIX:
    fprintf(out, "  work changes: no frame markers, and the mix of the "
            "allocation moves\n  %.1f%% from window to window (over %.0f%%): "
            "not the same work repeated\n  (a loading phase?)\n",
            100 * ev->mix, 100 * LEAK_MAX_MIX);
    break;
  default:
    break;
  }
}

/* EXIT_OK to go on; ARG_TAKEN stands for --help (done, exit 0).        */
static int leaks_args(struct common_opts *o, const char **path,
                      u64 *min_coll, int argc, char **argv)
{
  int a, c;

  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--min-collections") == 0) {
      const char *v = opt_value(argc, argv, &a);
      char *end;

      if (v == NULL) return EXIT_USAGE;
      errno = 0;
      *min_coll = strtoull(v, &end, 10);
      if (errno || *end != '\0' || v[0] < '0' || v[0] > '9'
          || *min_coll < 3)
        return usage_error("--min-collections needs a number >= 3, "
                           "not '%s'", v);
      continue;
    }
    c = view_dump_arg(o, leaks_usage, argc, argv, &a, path);
    if (c == EXIT_OK) return ARG_TAKEN;
    if (c != ARG_TAKEN) return c;
  }
  if (*path == NULL) return usage_error("no dump given");
  if (strcmp(*path, "-") == 0)
    return usage_error("leaks reads the dump twice: give a file, not "
                       "standard input");
  return EXIT_OK;
}

/* The tables of one list of findings: in a table the strong rows       */
/* (r = -1), then the weak ones by reason; in CSV and JSON every row     */
/* once (r = -1), with its level.  Whether r has a table, and its rows.  */
static int leak_table_of(const struct leak_finding *fs, size_t nf, int r,
                         enum emit_format f, size_t *nr)
{
  size_t i;

  if (r >= 0 && (f != EMIT_TABLE || !LEAK_WEAK(r))) return 0;
  for (*nr = 0, i = 0; i < nf; i++)
    if (f != EMIT_TABLE || row_in(&fs[i], r)) (*nr)++;
  return 1;
}

/* The size classes' findings.                                           */
static void print_class_leaks(const struct leaks *l,
                              const struct leak_report *rep,
                              const json_t *header, enum emit_format f,
                              FILE *out)
{
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
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))
  struct emit_table *t;
  size_t i, nr;
  int r;
  char kb[16], cb[32];

  for (r = -1; r <= LEAK_MIX; r++) {
    if (!leak_table_of(rep->found, rep->nfound, r, f, &nr)) continue;
    if (f == EMIT_TABLE && nr == 0) {
      if (r < 0)
        fprintf(out, rep->nfound ? "no (kind, class) leaks over %llu "
                                   "collections (weak evidence below)\n"
                                 : "no (kind, class) grows steadily over "
                                   "%llu collections\n", l->i);
      continue;
    }
    if (f == EMIT_TABLE && r >= 0) {
      fputc('\n', out);
      reason_text(out, (enum leak_reason)r, &rep->ev, "size classes");
    }
    t = emit_table_new(f == EMIT_TABLE ? "" : "leaks", cols,
                       f == EMIT_TABLE ? NCOLS - 2 : NCOLS);
    for (i = 0; i < rep->nfound; i++) {
      const struct leak_finding *fd = &rep->found[i];

      if (f == EMIT_TABLE && !row_in(fd, r)) continue;
      emit_row(t, kind_label((unsigned)(fd->key >> 32), kb),
               class_label(header, (unsigned)(fd->key & 0xffffffffULL), cb),
               fd->start, fd->end, fd->end - fd->start,
               (unsigned long long)(fd->slope + 0.5), (u64)fd->rises,
               LEAK_WEAK(fd->reason) ? "weak" : "strong",
               reason_name[fd->reason]);
    }
    emit_print(t, f, out);
  }
#undef NCOLS
}

/* The session's evidence: the table's line under strong findings, or  */
/* --json's "evidence".                                                  */
static void print_evidence(const struct leaks *l,
                           const struct leak_report *rep, u64 min_coll,
                           enum emit_format f, FILE *out)
{
  static const struct emit_col ecols[] = {
    { "frames", COL_INT, 0 },
    { "framed", COL_INT, 0 },
    { "allocated_bytes", COL_BYTES, 0 },
    { "peak_live_bytes", COL_BYTES, 0 },
    { "churn", COL_RATIO, 0 },
    { "mix_change", COL_RATIO, 0 },
  };
  struct emit_table *t;

  if (f == EMIT_TABLE && rep->nstrong > 0)
    fprintf(out, rep->ev.framed
            ? "evidence: frame markers through the session (repeated "
              "work)\n"
            : "evidence: allocated %.1fx the peak live bytes (repeated "
              "work)\n", rep->ev.churn);
  if (f == EMIT_JSON && l->i >= min_coll) {
    t = emit_table_new("evidence", ecols,
                       (int)(sizeof(ecols) / sizeof(ecols[0])));
    emit_row(t, l->frames, (u64)rep->ev.framed, l->alloc, l->peak,
             rep->ev.churn, rep->ev.mix);
    emit_print(t, f, out);
  }
}

/* The types' (site 0) or callsites' (1) findings.                      */
static void print_group_leaks(struct leaks *l, const struct leak_report *rep,
                              int site, enum emit_format f, FILE *out)
{
  struct emit_col gcols[] = {
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
#define NGCOLS ((int)(sizeof(gcols) / sizeof(gcols[0])))
  const struct leak_finding *fs = site ? rep->fsites : rep->ftypes;
  size_t i, nr, nf = site ? rep->nsites : rep->ntypes;
  struct emit_table *t;
  char *label;
  int r;

  if (l->tb.estimated)
    gcols[2].type = gcols[3].type = gcols[4].type = gcols[5].type
      = COL_EBYTES;
  gcols[1].name = site ? "stack" : "type";
  label = malloc(4096);
  if (label == NULL) abort();
  for (r = -1; r <= LEAK_MIX; r++) {
    if (!leak_table_of(fs, nf, r, f, &nr)) continue;
    if (f == EMIT_TABLE && nr == 0) {
      if (r < 0)
        fprintf(out, nf ? "no %s leaks with aging survivors (weak "
                          "evidence below)\n"
                        : "no %s grows steadily with aging survivors\n",
                site ? "callsite" : "type");
      continue;
    }
    if (f == EMIT_TABLE) fputc('\n', out);
    if (f == EMIT_TABLE && r >= 0)
      reason_text(out, (enum leak_reason)r, &rep->ev,
                  site ? "callsites" : "types");
    t = emit_table_new(f == EMIT_TABLE
                       ? (r >= 0 ? ""
                          : site ? "leaking callsites" : "leaking types")
                       : (site ? "leak_sites" : "leak_types"), gcols,
                       f == EMIT_TABLE ? NGCOLS - 2 : NGCOLS);
    for (i = 0; i < nf; i++) {
      const struct leak_finding *fd = &fs[i];

      if (f == EMIT_TABLE && !row_in(fd, r)) continue;
      if (site) tables_site_label(&l->tb, fd->key, f == EMIT_TABLE ? 4 : 0,
                                  label, 4096);
      else tables_type_label(&l->tb, fd->key, label, 4096);
      emit_row(t, fd->key, label, fd->start, fd->end, fd->end - fd->start,
               (unsigned long long)(fd->slope + 0.5), (u64)fd->rises,
               fd->old_start, fd->old_end,
               LEAK_WEAK(fd->reason) ? "weak" : "strong",
               reason_name[fd->reason]);
    }
    emit_print(t, f, out);
  }
  free(label);
#undef NGCOLS
}

static void print_leaks(struct leaks *l, const struct leak_report *rep,
                        const json_t *header, u64 min_coll,
                        enum emit_format f, FILE *out)
{
  if (f == EMIT_JSON) emit_json_begin(out);
  print_class_leaks(l, rep, header, f, out);
  print_evidence(l, rep, min_coll, f, out);
  /* Types and callsites: only for dumps that have them.                 */
  if (l->tb.has_type_rows) print_group_leaks(l, rep, 0, f, out);
  if (l->tb.has_site_rows) print_group_leaks(l, rep, 1, f, out);
  if (f == EMIT_TABLE && (l->tb.has_type_rows || l->tb.has_site_rows))
    emit_estimate_line(out, l->tb.estimated, l->tb.estimate_bytes);
  if (f == EMIT_JSON) {
    emit_json_estimated(l->tb.estimated, l->tb.estimate_bytes);
    emit_json_end(out);
  }
}

int cmd_leaks(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct leaks l;
  struct leak_report rep;
  const char *path = NULL;
  FILE *out;
  u64 min_coll = GCA_LEAK_MIN_COLLECTIONS;
  int rc;

  rc = leaks_args(&o, &path, &min_coll, argc, argv);
  if (rc == ARG_TAKEN) return EXIT_OK;
  if (rc != EXIT_OK) return rc;
  rc = leaks_read(&l, &info, path, o.progress);
  if (rc != EXIT_OK) {
    leaks_free(&l, &info);
    return rc;
  }
  leaks_judge(&l, path, min_coll, &rep);
  out = common_output(&o);
  if (out == NULL) {
    rc = EXIT_USAGE;
  } else {
    print_leaks(&l, &rep, info.header, min_coll, o.format, out);
    common_close(&o, out);
    rc = rep.nstrong ? EXIT_FINDING : EXIT_OK;
  }
  leaks_report_free(&rep);
  leaks_free(&l, &info);
  return rc;
}
