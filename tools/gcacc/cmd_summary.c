/*
 * cmd_summary.c: the session at a glance.
 */

#include "gcacc.h"
#include "session.h"

#include <string.h>

static const char summary_usage[] =
  "usage: gcacc summary [<options>] <dump>\n"
  "\n"
  "Duration, collections, heap/live/reserved peaks, the worst\n"
  "fragmentation index and when, rounding waste, records dropped.\n"
  "\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

int cmd_summary(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct session_summary s;
  const char *path = NULL;
  struct emit_table *t;
  FILE *out;
  int i, rc;
  u64 start;
  static const struct emit_col cols[] = {
    { "duration_ns", COL_NS, 0 },
    { "collections", COL_INT, 0 },
    { "snapshots", COL_INT, 0 },
    { "heap_peak_bytes", COL_BYTES, 0 },
    { "live_peak_bytes", COL_BYTES, 0 },
    { "live_peak_gc_no", COL_INT, 0 },
    { "reserved_peak_bytes", COL_BYTES, 0 },
    { "resident_peak_bytes", COL_BYTES, 0 },
    { "worst_frag_index", COL_RATIO, 0 },
    { "worst_frag_gc_no", COL_INT, 0 },
    { "worst_frag_at_ns", COL_NS, 0 },
    { "worst_frag_free_bytes", COL_BYTES, 0 },
    { "allocated_objs", COL_INT, 0 },
    { "allocated_req_bytes", COL_BYTES, 0 },
    { "allocated_granted_bytes", COL_BYTES, 0 },
    { "rounding_waste_bytes", COL_BYTES, 0 },
    { "rounding_waste", COL_PCT, 0 },
    { "heap_growths", COL_INT, 0 },
    { "mark_total_ns", COL_NS, 0 },
    { "mark_max_ns", COL_NS, 0 },
    { "census_total_ns", COL_NS, 0 },
    { "records_dropped", COL_INT, 0 },
  };

  for (i = 1; i < argc; i++) {
    int c;

    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(summary_usage, stdout);
      return EXIT_OK;
    }
    c = common_opt(&o, argc, argv, &i);
    if (c < 0) return EXIT_USAGE;
    if (c > 0) continue;
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return usage_error("unknown option '%s'", argv[i]);
    if (path != NULL) return usage_error("one dump at a time");
    path = argv[i];
  }
  if (path == NULL) return usage_error("no dump given");

  memset(&s, 0, sizeof(s));
  rc = session_scan(path, o.progress, session_summary_visit, &s,
                    &info);
  if (rc != EXIT_OK) return rc;
  start = session_summary_start(&s, info.header);
  json_decref(info.header);

  out = common_output(&o);
  if (out == NULL) return EXIT_USAGE;
  t = emit_table_new(o.format == EMIT_TABLE ? path : "summary", cols,
                     (int)(sizeof(cols) / sizeof(cols[0])));
  emit_row(t, s.t_last > start ? s.t_last - start : 0ULL, s.collections,
           s.snapshots, s.heap_peak, s.live_peak, s.live_peak_gc,
           s.reserved_peak, s.resident_peak, s.worst_frag, s.worst_frag_gc,
           s.worst_frag_t > start ? s.worst_frag_t - start : 0ULL,
           s.worst_frag_free, s.alloc_objs, s.alloc_req, s.alloc_granted,
           s.alloc_granted - s.alloc_req,
           s.alloc_granted ? (double)(s.alloc_granted - s.alloc_req)
                               / (double)s.alloc_granted : 0.0,
           s.grows, s.mark_ns, s.max_pause_ns, s.census_ns,
           session_summary_dropped(&s));
  if (o.format == EMIT_JSON) emit_json_begin(out);
  emit_print(t, o.format, out);
  if (o.format == EMIT_JSON) emit_json_end(out);
  common_close(&o, out);
  return EXIT_OK;
}
