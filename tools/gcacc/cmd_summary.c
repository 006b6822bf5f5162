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

struct summary {
  u64 t0, t_last;
  u64 collections, snapshots, records_dropped, last_seq, seq_gaps;
  u64 heap_peak, live_peak, reserved_peak, resident_peak;
  u64 live_peak_gc;
  double worst_frag;
  u64 worst_frag_gc, worst_frag_t, worst_frag_free;
  u64 alloc_objs, alloc_req, alloc_granted, grows, mark_ns, census_ns;
  u64 max_pause_ns;
};

static int summary_visit(const struct rec *r, void *arg)
{
  struct summary *s = arg;

  if (s->t0 == 0 || (r->t_start_ns && r->t_start_ns < s->t0))
    s->t0 = r->t_start_ns;
  if (r->t_end_ns > s->t_last) s->t_last = r->t_end_ns;
  if (r->collection) s->collections++;
  else s->snapshots++;
  s->records_dropped += r->dropped;
  if (s->last_seq && r->seq > s->last_seq + 1)
    s->seq_gaps += r->seq - s->last_seq - 1;
  s->last_seq = r->seq;
  if (r->heap_bytes + r->unmapped_bytes > s->heap_peak)
    s->heap_peak = r->heap_bytes + r->unmapped_bytes;
  if (r->census && r->live_bytes > s->live_peak) {
    s->live_peak = r->live_bytes;
    s->live_peak_gc = r->gc_no;
  }
  if (r->census && r->class_reserved_bytes > s->reserved_peak)
    s->reserved_peak = r->class_reserved_bytes;
  if (r->resident_bytes > s->resident_peak)
    s->resident_peak = r->resident_bytes;
  if (r->frag_index > s->worst_frag) {
    s->worst_frag = r->frag_index;
    s->worst_frag_gc = r->gc_no;
    s->worst_frag_t = r->t_end_ns;
    s->worst_frag_free = r->total_free_bytes;
  }
  s->alloc_objs += r->alloc_objs;
  s->alloc_req += r->alloc_req_bytes;
  s->alloc_granted += r->alloc_granted_bytes;
  s->grows += r->n_grows;
  s->mark_ns += r->mark_ns;
  s->census_ns += r->census_ns;
  if (r->mark_ns > s->max_pause_ns) s->max_pause_ns = r->mark_ns;
  return 0;
}

int cmd_summary(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct summary s;
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
  rc = session_scan(path, o.progress, summary_visit, &s, &info);
  if (rc != EXIT_OK) return rc;
  start = info.header ? jnum(info.header, "start_mono_ns") : 0;
  if (start == 0 || start > s.t0) start = s.t0;
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
           s.records_dropped > s.seq_gaps ? s.records_dropped : s.seq_gaps);
  if (o.format == EMIT_JSON) emit_json_begin(out);
  emit_print(t, o.format, out);
  if (o.format == EMIT_JSON) emit_json_end(out);
  common_close(&o, out);
  return EXIT_OK;
}
