/* SPDX-License-Identifier: MIT */
/*
 * cmd_timeline.c: one row per collection record, in the order written:
 * when it ended (since the session's start, the header's start_mono_ns),
 * the heap's size, live, reserved, free and unmapped bytes, the
 * fragmentation index, the pause (mark time) and the bytes granted since
 * the previous row.  Rows are printed as they are read (emit_stream), so
 * memory does not grow with the dump.  Snapshot records have no census:
 * they are not rows, but what they count as allocated goes to the next
 * row.  --frames lists the frame records instead (docs/dump-format.md,
 * "Frame records"), also streamed: the frame number, gc_no, when the
 * marker was written, the objects and bytes the frame allocated (its
 * "rows" summed over every (type, site) pair) and the allocations not
 * attributed (lost_objs, lost_bytes).
 */

#include "gcacc.h"
#include "session.h"
#include "dump_read.h"

#include <string.h>

static const char timeline_usage[] =
  "usage: gcacc timeline [<options>] <dump>\n"
  "\n"
  "One row per collection: gc_no, t_ns (end of the collection since the\n"
  "session started), heap_bytes, live_bytes, reserved_bytes (in-use\n"
  "blocks of the census), free_bytes, unmapped_bytes, frag_index,\n"
  "pause_ns (mark time), alloc_bytes (granted since the previous row).\n"
  "Snapshot records are not rows; their allocations count in the next.\n"
  "The table shows eight of the columns to fit 80 columns (--wide: all);\n"
  "--csv and --json always carry all ten, in raw units.\n"
  "\n"
  "  --frames            list the dump's frame records instead (an error\n"
  "                      if it has none): frame, gc_no, t_ns, objs and\n"
  "                      bytes allocated in the frame (its kind rows\n"
  "                      summed, exact; in older dumps its rows),\n"
  "                      lost_objs, lost_bytes (not attributed); an\n"
  "                      older dump's, in a sampled profile, are\n"
  "                      estimates (~, a note; --json: \"estimated\")\n"
  "  --wide              every column in the table (wider than 80)\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

/* Raw names and units, for CSV and JSON, and the --wide table.          */
static const struct emit_col cols_all[] = {
  { "gc_no", COL_INT, 5 },
  { "t_ns", COL_NS, 10 },
  { "heap_bytes", COL_BYTES, 9 },
  { "live_bytes", COL_BYTES, 9 },
  { "reserved_bytes", COL_BYTES, 9 },
  { "free_bytes", COL_BYTES, 9 },
  { "unmapped_bytes", COL_BYTES, 9 },
  { "frag_index", COL_RATIO, 5 },
  { "pause_ns", COL_NS, 8 },
  { "alloc_bytes", COL_BYTES, 9 },
};
#define N_ALL ((int)(sizeof(cols_all) / sizeof(cols_all[0])))

/* The 80-column table: short headers (units are in the cells), without  */
/* unmapped_bytes and alloc_bytes.  5+10+4*9+5+8 + 7*2 = 78 columns.      */
static const struct emit_col cols_narrow[] = {
  { "gc", COL_INT, 5 },
  { "t", COL_NS, 10 },
  { "heap", COL_BYTES, 9 },
  { "live", COL_BYTES, 9 },
  { "reserved", COL_BYTES, 9 },
  { "free", COL_BYTES, 9 },
  { "frag", COL_RATIO, 5 },
  { "pause", COL_NS, 8 },
};
#define N_NARROW ((int)(sizeof(cols_narrow) / sizeof(cols_narrow[0])))

struct timeline {
  const struct common_opts *o;
  const struct session_info *info;  /* its header is set before records */
  const char *path;
  FILE *out;
  struct emit_stream *s;
  int narrow;
  u64 t0;                       /* time origin, 0 until the first row    */
  u64 pending_alloc;            /* granted in snapshots since last row   */
};

static int timeline_visit(const struct rec *r, void *arg)
{
  struct timeline *tl = arg;
  u64 alloc = r->alloc_granted_bytes + tl->pending_alloc;

  if (!r->collection) {
    tl->pending_alloc = alloc;
    return 0;
  }
  tl->pending_alloc = 0;
  if (tl->s == NULL) {
    /* First row: the header was read, the origin is known. */
    tl->t0 = tl->info->header ? jnum(tl->info->header, "start_mono_ns") : 0;
    if (tl->t0 == 0 || tl->t0 > r->t_start_ns) tl->t0 = r->t_start_ns;
    if (tl->o->format == EMIT_JSON) emit_json_begin(tl->out);
    tl->s = tl->narrow
            ? emit_stream_new("", cols_narrow, N_NARROW, EMIT_TABLE, tl->out)
            : emit_stream_new(tl->o->format == EMIT_JSON ? "timeline" : "",
                              cols_all, N_ALL, tl->o->format, tl->out);
  }
  if (tl->narrow)
    emit_stream_row(tl->s, r->gc_no,
                    r->t_end_ns > tl->t0 ? r->t_end_ns - tl->t0 : 0ULL,
                    r->heap_bytes, r->live_bytes, r->class_reserved_bytes,
                    r->free_bytes, r->frag_index, r->mark_ns);
  else
    emit_stream_row(tl->s, r->gc_no,
                    r->t_end_ns > tl->t0 ? r->t_end_ns - tl->t0 : 0ULL,
                    r->heap_bytes, r->live_bytes, r->class_reserved_bytes,
                    r->free_bytes, r->unmapped_bytes, r->frag_index,
                    r->mark_ns, alloc);
  return 0;
}

/* A sampled profile (issue 22): its figures by type and callsite, and  */
/* so frame rows, are estimates; *bytes the mean sample distance.        */
static int profile_sampled(const json_t *header, u64 *bytes)
{
  const char *p = json_string_value(json_object_get(
      json_object_get(header, "config"), "profile"));

  *bytes = header_config(header, "sample_bytes", 0);
  return p != NULL && strcmp(p, "sampled") == 0;
}

/* --frames: one row per frame record, as read.                         */
static int list_frames(const struct common_opts *o, const char *path)
{
  struct emit_col cols[] = {
    { "frame", COL_INT, 6 },
    { "gc_no", COL_INT, 5 },
    { "t_ns", COL_NS, 10 },
    { "objs", COL_INT, 8 },
    { "bytes", COL_BYTES, 9 },
    { "lost_objs", COL_INT, 9 },
    { "lost_bytes", COL_BYTES, 10 },
  };
  const char *err = NULL;
  struct dump_reader *d = dump_open(path, &err);
  struct emit_stream *s = NULL;
  FILE *out = NULL;
  json_t *v;
  enum dump_status st;
  u64 t0 = 0, n = 0, est_bytes = 0, n_sampled = 0, n_exact = 0;
  int rc = EXIT_OK, est = 0, hdr_est = 0, exact = 0;
  unsigned long warned = 0;

  if (d == NULL) {
    error("%s", err);
    return EXIT_USAGE;
  }
  dump_set_lean(d, SESSION_LEAN_TABLES, NULL);  /* as scans (session.h) */
  while ((st = dump_next(d, &v)) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    /* What the reader cut or skipped (as session scans say it).        */
    if (dump_warning(d) != NULL && ++warned <= 10)
      warning("%s", dump_warning(d));
    kind_names_note(v);                 /* a collection's or snapshot's */

    if (strcmp(kind, "header") == 0 && dump_records(d) == 1) {
      t0 = jnum(v, "start_mono_ns");
      session_warn_cols(d);
      est = hdr_est = profile_sampled(v, &est_bytes);
    } else if (strcmp(kind, "collection") == 0
               && json_object_get(v, "type_rows") != NULL) {
      /* As tables.c: records written sampled carry "samples"; the      */
      /* header's profile holds until one says otherwise.                */
      if (json_object_get(v, "samples") != NULL) n_sampled++;
      else n_exact++;
      est = n_sampled > 0 || (hdr_est && n_exact == 0);
    } else if (strcmp(kind, "frame") == 0) {
      const struct dump_cols *c = dump_cols(d);
      u64 t = jnum(v, "t_ns"), objs = 0, bytes = 0;
      const struct dump_tab rows = dump_tab(d, v, "rows");
      const struct dump_tab kr = dump_tab(d, v, "kind_rows");
      size_t i;

      /* The kind rows (dumps since they were added) are exact in every */
      /* profile; the (type, site) rows are estimates in the sampled one. */
      if (json_object_get(v, "kind_rows") != NULL) {
        if (s == NULL) exact = 1;
        for (i = 0; i < dump_tab_rows(&kr); i++) {
          objs += tcol(&kr, i, c, frame_kind_rows, objs);
          bytes += tcol(&kr, i, c, frame_kind_rows, bytes);
        }
      } else {
        for (i = 0; i < dump_tab_rows(&rows); i++) {
          objs += tcol(&rows, i, c, frame_rows, objs);
          bytes += tcol(&rows, i, c, frame_rows, bytes);
        }
      }
      if (s == NULL) {
        out = common_output(o);
        if (out == NULL) {
          json_decref(v);
          dump_close(d);
          return EXIT_USAGE;
        }
        if (o->format == EMIT_JSON) emit_json_begin(out);
        if (exact) est = 0;                 /* the kind rows' sums       */
        if (est) emit_cols_estimate(cols + 3, 2);   /* objs, bytes      */
        s = emit_stream_new(o->format == EMIT_JSON ? "frames" : "", cols,
                            (int)(sizeof(cols) / sizeof(cols[0])),
                            o->format, out);
      }
      n++;
      emit_stream_row(s, jnum(v, "frame"), jnum(v, "gc_no"),
                      t > t0 ? t - t0 : 0ULL, objs, bytes,
                      jnum(v, "lost_objs"), jnum(v, "lost_bytes"));
    }
    json_decref(v);
    progress_update(o->progress, dump_name(d), dump_compressed_offset(d),
                    dump_compressed_size(d));
  }
  progress_done(o->progress);
  if (st == DUMP_END && dump_warning(d) != NULL)
    warning("%s", dump_warning(d));     /* blank lines at the end         */
  if (st == DUMP_ERROR) {
    error("%s", dump_error(d));
    rc = EXIT_USAGE;
  } else if (st == DUMP_TRUNCATED) {
    warning("%s", dump_error(d));
  }
  dump_close(d);
  if (s != NULL) {
    if (exact) est = 0;
    emit_stream_end(s);
    if (o->format == EMIT_TABLE) emit_estimate_line(out, est, est_bytes);
    if (o->format == EMIT_JSON) {
      emit_json_estimated(est, est_bytes);
      emit_json_end(out);
    }
    common_close(o, out);
  } else if (rc == EXIT_OK) {
    error("%s: this dump has no frame records", path);
    rc = EXIT_USAGE;
  }
  return rc;
}

int cmd_timeline(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct timeline tl;
  const char *path = NULL;
  int i, rc, frames = 0, wide = 0;

  for (i = 1; i < argc; i++) {
    int c;

    if (strcmp(argv[i], "--frames") == 0) { frames = 1; continue; }
    if (strcmp(argv[i], "--wide") == 0) { wide = 1; continue; }
    c = view_dump_arg(&o, timeline_usage, argc, argv, &i, &path);
    if (c != ARG_TAKEN) return c;
  }
  if (path == NULL) return usage_error("no dump given");
  if (frames) return list_frames(&o, path);

  memset(&tl, 0, sizeof(tl));
  tl.o = &o;
  tl.info = &info;
  tl.path = path;
  tl.narrow = o.format == EMIT_TABLE && !wide;
  tl.out = common_output(&o);
  if (tl.out == NULL) return EXIT_USAGE;
  rc = session_scan(path, o.progress, timeline_visit, &tl, &info);
  json_decref(info.header);
  if (tl.s == NULL && rc == EXIT_OK) {
    /* No collection record: still a well-formed (empty) table. */
    if (o.format == EMIT_JSON) emit_json_begin(tl.out);
    tl.s = tl.narrow
           ? emit_stream_new("", cols_narrow, N_NARROW, EMIT_TABLE, tl.out)
           : emit_stream_new(o.format == EMIT_JSON ? "timeline" : "",
                             cols_all, N_ALL, o.format, tl.out);
  }
  if (tl.s != NULL) {
    emit_stream_end(tl.s);
    if (o.format == EMIT_JSON) emit_json_end(tl.out);
  }
  common_close(&o, tl.out);
  return rc;
}
