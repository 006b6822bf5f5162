/* SPDX-License-Identifier: MIT */
/*
 * cmd_summary.c: the session at a glance.  With the type and callsite
 * tables (tables.c): the accounting's own memory at its peak (the
 * largest acc_memory_bytes of any record, and its ratio to that record's
 * heap_bytes; the format's target is at most 10%), and how many types
 * and call stacks the dump defines, and the stacks' depth (median and
 * largest frame count, the collector's own frames not counted), with a
 * warning when most stacks have one frame: code without frame pointers
 * under a frame-pointer walk (issue 33); and one when 5% or more of the
 * sampled stacks the cached unwind rules walked fell back to the slow
 * unwinder (the records' unwind.walks, unwind.fell_back).
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
  "ratio to the heap then; the types and call stacks (sites) defined,\n"
  "and their depth: median and largest number of frames (a warning when\n"
  "most stacks have one frame: code built without frame pointers, whose\n"
  "stacks GC_ACC_UNWIND=libgcc or auto's sampled stacks take deep), and\n"
  "when 5% or more of the sampled stacks fell back to the slow unwinder.\n"
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

static int cmp_unsigned(const void *a, const void *b)
{
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

  return x < y ? -1 : x > y;
}

/* The frame counts of the defined stacks with frames (sites 2 and up): */
/* their median (the lower one of an even count), largest, how many, how */
/* many of one frame.                                                    */
struct depths { u64 median, max, n, one; };

static struct depths stack_depths(const struct keymap *m)
{
  struct depths d = { 0, 0, 0, 0 };
  unsigned *v = malloc((keymap_count(m) + 1) * sizeof(unsigned));
  size_t i;

  if (v == NULL) abort();
  for (i = 0; i < keymap_count(m); i++) {
    u64 id;
    const struct group *g = keymap_at(m, i, &id);

    if (!g->defined || id < 2 || g->nframes == 0) continue;
    v[d.n++] = g->nframes;
    d.one += g->nframes == 1;
    if (g->nframes > d.max) d.max = g->nframes;
  }
  if (d.n > 0) {
    qsort(v, (size_t)d.n, sizeof(unsigned), cmp_unsigned);
    d.median = v[(d.n - 1) / 2];
  }
  free(v);
  return d;
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
  u64 ntypes, nsites, acc, acc_heap, est_bytes, depth_setting;
  u64 walks, fell_back;
  struct depths dp;
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
    { "stack_depth_median", COL_INT, 0 },
    { "stack_depth_max", COL_INT, 0 },
  };
  static const char *const more_label[] = {
    "accounting memory, peak", "accounting memory / heap, at peak",
    "types", "callsites", "stack depth, median (frames)",
    "stack depth, largest (frames)",
  };
  enum { NMORE = sizeof(more) / sizeof(more[0]) };
  struct emit_col cols[SESSION_SUMMARY_NFIGS + NMORE];
  union emit_cell v[SESSION_SUMMARY_NFIGS + NMORE];

  for (i = 1; i < argc; i++) {
    int c = view_dump_arg(&o, summary_usage, argc, argv, &i, &path);

    if (c != ARG_TAKEN) return c;
  }
  if (path == NULL) return usage_error("no dump given");

  memset(&ss, 0, sizeof(ss));
  memset(&info, 0, sizeof(info));
  tables_init(&ss.tb, &info);
  rc = session_scan_frames(path, o.progress, summary_visit, summary_frame,
                           &ss, &info);
  ntypes = defined(ss.tb.types);
  nsites = defined(ss.tb.sites);
  dp = stack_depths(ss.tb.sites);
  acc = ss.tb.acc_peak;
  acc_heap = ss.tb.acc_peak_heap;
  estimated = ss.tb.estimated;
  est_bytes = ss.tb.estimate_bytes;
  walks = ss.tb.unwind_walks;
  fell_back = ss.tb.unwind_fell_back;
  tables_free(&ss.tb);
  if (rc != EXIT_OK) {
    json_decref(info.header);
    return rc;
  }
  start = session_summary_start(sp, info.header);
  depth_setting = header_config(info.header, "stacks_depth", 0);
  json_decref(info.header);
  /* Shallow: most stacks of one frame where more were allowed.         */
  if (dp.n > 0 && 2 * dp.one > dp.n && depth_setting != 1)
    warning("%s: %llu of %llu call stacks have one frame (median depth "
            "%llu): the program is likely built without frame pointers; "
            "record with GC_ACC_UNWIND=libgcc (or auto, the default, under "
            "a sampled profile) for deeper stacks", path,
            (unsigned long long)dp.one, (unsigned long long)dp.n,
            (unsigned long long)dp.median);
  /* Costly: 5% of the walks by the cached rules fell back (one such     */
  /* walk costs some 20 cached ones: 13,000 instructions, not 700).      */
  if (fell_back > 0 && fell_back <= walks && fell_back >= walks / 20)
    warning("%s: stacks: %llu walks, %llu fell back to the slow unwinder "
            "(%.1f%%; _Unwind_Backtrace, some 20 times the cost of a "
            "cached walk): sampled stacks are costly in this program; a "
            "larger sample mean (GC_ACC_PROFILE=sampled=BYTES) takes fewer",
            path, (unsigned long long)walks, (unsigned long long)fell_back,
            100.0 * (double)fell_back / (double)walks);

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
  v[SESSION_SUMMARY_NFIGS + 4].u = dp.median;
  v[SESSION_SUMMARY_NFIGS + 5].u = dp.max;
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
