/*
 * cmd_summary.c: the session at a glance.  With the type and callsite
 * tables (tables.c): the accounting's own memory at its peak (the
 * largest acc_memory_bytes of any record, and its ratio to that record's
 * heap_bytes; the format's target is at most 10%), and how many types
 * and call stacks the dump defines.
 */

#include "gcacc.h"
#include "session.h"
#include "tables.h"

#include <stdlib.h>

#include <string.h>

static const char summary_usage[] =
  "usage: gcacc summary [<options>] <dump>\n"
  "\n"
  "Duration, collections, heap/live/reserved peaks, the worst\n"
  "fragmentation index and when, rounding waste, records dropped; the\n"
  "accounting's own memory at its peak (acc_memory_peak_bytes) and its\n"
  "ratio to the heap then; the types and call stacks (sites) defined.\n"
  "A sampled profile's figures by type and callsite are estimates: a\n"
  "note says so (--json: \"estimated\": true).\n"
  "\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

struct summary_scan {
  struct session_summary s;
  struct tables tb;
};

static int summary_visit(const struct rec *r, void *arg)
{
  struct summary_scan *ss = arg;

  tables_record(&ss->tb, r);
  return session_summary_visit(r, &ss->s);
}

static int summary_frame(const json_t *f, void *arg)
{
  struct summary_scan *ss = arg;

  tables_frame(&ss->tb, f);
  return 0;
}

static u64 defined(const struct keymap *m)
{
  size_t i;
  u64 n = 0;

  for (i = 0; i < keymap_count(m); i++)
    n += ((const struct group *)keymap_at(m, i, NULL))->defined != 0;
  return n;
}

int cmd_summary(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct summary_scan ss;
  struct session_summary *sp = &ss.s;
  u64 ntypes, nsites, acc, acc_heap, est_bytes;
  int estimated;
  const char *path = NULL;
  struct emit_table *t;
  FILE *out;
  int i, rc;
  u64 start;
  /* The session's figures (session_summary_figs), then these.          */
  static const struct emit_col more[] = {
    { "acc_memory_peak_bytes", COL_BYTES, 0 },
    { "acc_memory_peak_ratio", COL_PCT, 0 },
    { "types", COL_INT, 0 },
    { "sites", COL_INT, 0 },
  };
  static const char *const more_label[] = {
    "accounting memory, peak", "accounting memory / heap, at peak",
    "types", "callsites",
  };
  enum { NMORE = sizeof(more) / sizeof(more[0]) };
  struct emit_col cols[SESSION_SUMMARY_NFIGS + NMORE];
  union emit_cell v[SESSION_SUMMARY_NFIGS + NMORE];

  for (i = 1; i < argc; i++) {
    int c = view_arg(&o, summary_usage, argc, argv, &i);

    if (c == ARG_TAKEN) continue;
    if (c != ARG_OPERAND) return c;
    if (path != NULL) return usage_error("one dump at a time");
    path = argv[i];
  }
  if (path == NULL) return usage_error("no dump given");

  memset(&ss, 0, sizeof(ss));
  memset(&info, 0, sizeof(info));
  tables_init(&ss.tb, &info);
  rc = session_scan_frames(path, o.progress, summary_visit, summary_frame,
                           &ss, &info);
  ntypes = defined(ss.tb.types);
  nsites = defined(ss.tb.sites);
  acc = ss.tb.acc_peak;
  acc_heap = ss.tb.acc_peak_heap;
  estimated = ss.tb.estimated;
  est_bytes = ss.tb.estimate_bytes;
  tables_free(&ss.tb);
  if (rc != EXIT_OK) {
    json_decref(info.header);
    return rc;
  }
  start = session_summary_start(sp, info.header);
  json_decref(info.header);

  out = common_output(&o);
  if (out == NULL) return EXIT_USAGE;
  /* The text table says each figure in words (its unit is in the     */
  /* value: "31.4 ms"); --json and --csv keep the machine keys.         */
  for (i = 0; i < SESSION_SUMMARY_NFIGS; i++) {
    cols[i].name = o.format == EMIT_TABLE ? session_summary_figs[i].label
                                          : session_summary_figs[i].name;
    cols[i].type = session_summary_figs[i].type;
    cols[i].width = 0;
  }
  memcpy(cols + SESSION_SUMMARY_NFIGS, more, sizeof(more));
  if (o.format == EMIT_TABLE)
    for (i = 0; i < NMORE; i++) cols[SESSION_SUMMARY_NFIGS + i].name = more_label[i];
  session_summary_figures(sp, start, v);
  v[SESSION_SUMMARY_NFIGS].u = acc;
  v[SESSION_SUMMARY_NFIGS + 1].d = acc_heap ? (double)acc / (double)acc_heap
                                            : 0.0;
  v[SESSION_SUMMARY_NFIGS + 2].u = ntypes;
  v[SESSION_SUMMARY_NFIGS + 3].u = nsites;
  t = emit_table_new(o.format == EMIT_TABLE ? path : "summary", cols,
                     SESSION_SUMMARY_NFIGS + NMORE);
  emit_row_cells(t, v);
  if (o.format == EMIT_JSON) emit_json_begin(out);
  emit_print(t, o.format, out);
  /* The summary's own figures are exact; the dump's by type and        */
  /* callsite (top, leaks, report) may be estimates: said here too.     */
  if (o.format == EMIT_TABLE) emit_estimate_line(out, estimated, est_bytes);
  if (o.format == EMIT_JSON) {
    emit_json_estimated(estimated, est_bytes);
    emit_json_end(out);
  }
  common_close(&o, out);
  return EXIT_OK;
}
