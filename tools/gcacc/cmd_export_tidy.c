/* SPDX-License-Identifier: MIT */
/*
 * cmd_export_tidy.c: `gcacc export --csv TABLE` and `--jsonl TABLE`:
 * one table of the dump as tidy data, for sqlite3, pandas, R, jq.
 *
 * One row per (record, key): for each record that has the table, one
 * row per row of it, the record's keys first (gc_no, seq; frame, gc_no,
 * t_ns for frame rows), then the table's columns under the names the
 * dump's header gives them, in the documented order (gca_fields.h), each
 * found by its name (docs/dump-format.md, "Columns"): a dump whose
 * writer moved or appended columns exports the same; then what the rows refer
 * to by id (a type's cookie and name, a callsite's stack) and, for the
 * type, callsite and frame tables, whether their figures are estimates
 * (a sampled profile, tables.h).  CSV has one header line and RFC 4180
 * quoting; JSON Lines one object per row with the same names.  Rows are
 * the dump's own: type and callsite rows only where they changed, their
 * alloc and freed columns deltas since the previous record, as the
 * format describes.  Written while the dump is read.
 */

#include "gcacc.h"
#include "session.h"
#include "tables.h"

#include <stdlib.h>
#include <string.h>

static const char tidy_usage[] =
  "usage: gcacc export --csv <table> [<options>] <dump>\n"
  "       gcacc export --jsonl <table> [<options>] <dump>\n"
  "\n"
  "One table of the dump, one row per (record, key), columns named as the\n"
  "dump's header names them (docs/dump-format.md), the record's gc_no and\n"
  "seq first.  Tables:\n"
  "  records      one row per collection or snapshot record: census,\n"
  "               times, heap, free-block and accounting-memory figures\n"
  "  classes      live, reserved and allocated per (kind, size class)\n"
  "  kinds        per kind: debug allocations, large objects\n"
  "  grows        heap growths\n"
  "  freelists    free heap-block lists\n"
  "  types        type rows, with each type's cookie and name\n"
  "  sites        callsite rows, with each stack (functions from\n"
  "               <dump>.symbols where `gcacc symbolize` wrote them)\n"
  "  frames       frame records' rows: frame, gc_no, t_ns, then type,\n"
  "               callsite, objects and bytes allocated in the frame\n"
  "  frame_kinds  frame records' kind rows: frame, gc_no, t_ns, then\n"
  "               kind, objects and bytes allocated in the frame (exact,\n"
  "               from the counters), and the kind's name\n"
  "Type and callsite rows are written when they change: live columns are\n"
  "the value at that record, alloc and freed columns deltas since the\n"
  "previous one.  types, sites and frames end with `estimated`: 1 (JSON\n"
  "true) when the dump's figures by type and callsite are estimates from\n"
  "sampled allocations.\n"
  "\n"
  "  --csv <table>       comma-separated values, one header line\n"
  "  --jsonl <table>     JSON Lines: one object per row\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

enum tidy_id { T_RECORDS, T_CLASSES, T_KINDS, T_GROWS, T_LISTS, T_TYPES,
               T_SITES, T_FRAMES, T_FRAME_KINDS, T_N };

static const struct tidy_def {
  const char *name, *alias;     /* --csv NAME; the header's key           */
  int tid;                      /* GCA_TABLE_<id>; -1: records            */
} tidy_defs[T_N] = {
  { "records", NULL, -1 },
  { "classes", NULL, GCA_TABLE_classes },
  { "kinds", NULL, GCA_TABLE_kinds },
  { "grows", NULL, GCA_TABLE_grows },
  { "freelists", "freelists.lists", GCA_TABLE_lists },
  { "types", "type_rows", GCA_TABLE_type_rows },
  { "sites", "site_rows", GCA_TABLE_site_rows },
  { "frames", "frame.rows", GCA_TABLE_frame_rows },
  { "frame_kinds", "frame.kind_rows", GCA_TABLE_frame_kind_rows },
};

/* The records table: the record's scalars, each a dotted member.       */
static const char *const record_cols[] = {
  "census", "t_start_ns", "t_end_ns", "mark_ns", "census_ns", "dropped",
  "heap.heap_bytes", "heap.free_bytes", "heap.unmapped_bytes",
  "heap.allocd_since_prev_bytes", "heap.reserved_bytes",
  "heap.resident_bytes", "freelists.total_free_bytes",
  "freelists.largest_free_bytes", "freelists.frag_index",
  "grows_lost", "acc_memory_bytes",
};
#define N_RECORD_COLS (sizeof(record_cols) / sizeof(record_cols[0]))

struct tidy {
  enum tidy_id id;
  int jsonl;
  FILE *out;
  const struct session_info *info;
  const char **names;           /* the table's columns                    */
  size_t ncols;
  const size_t *pos;            /* where each is in this dump's rows      */
  int ready;                    /* names known, header line written       */
  const json_t *row_key;        /* the row keys' names, then values       */
  struct tables tb;             /* types and sites: names, stacks         */
  char *label;                  /* a stack's label                        */
  size_t label_cap;
  unsigned long long rows;
  int rec_sampled;              /* the record being written: "samples"    */
};

/* ---- one row ------------------------------------------------------- */

/* Cells of the row being written, by name; CSV writes them in order.   */
struct cells {
  struct tidy *x;
  json_t *obj;                  /* JSON Lines: the row's object           */
  size_t n;
};

static void cell(struct cells *c, const char *name, json_t *v)
{
  FILE *f = c->x->out;

  if (c->x->jsonl) {
    json_object_set_new(c->obj, name, v != NULL ? v : json_null());
    return;
  }
  if (c->n++) fputc(',', f);
  if (json_is_integer(v)) {
    fprintf(f, "%lld", (long long)json_integer_value(v));
  } else if (json_is_real(v)) {
    fprintf(f, "%.10g", json_real_value(v));
  } else if (json_is_string(v)) {
    emit_csv_string(json_string_value(v), f);
  } else if (json_is_true(v) || json_is_false(v)) {
    fputc(json_is_true(v) ? '1' : '0', f);
  }                                     /* null, absent: an empty cell  */
  json_decref(v);
}

static void cells_begin(struct cells *c, struct tidy *x)
{
  c->x = x;
  c->n = 0;
  c->obj = x->jsonl ? json_object() : NULL;
}

static void cells_end(struct cells *c)
{
  if (c->x->jsonl) {
    json_dumpf(c->obj, c->x->out, JSON_COMPACT | JSON_PRESERVE_ORDER
                                  | JSON_REAL_PRECISION(10));
    json_decref(c->obj);
  }
  fputc('\n', c->x->out);
  c->x->rows++;
}

static json_t *jint(u64 v) { return json_integer((json_int_t)v); }

/* ---- columns ------------------------------------------------------- */

/* The record keys before the table's columns, and what follows them.   */
static const char *const keys_record[] = { "gc_no", "seq", NULL };
static const char *const keys_frame[] = { "frame", "gc_no", "t_ns", NULL };
static const char *const more_types[] = { "cookie", "name", "estimated",
                                          NULL };
static const char *const more_sites[] = { "stack", "estimated", NULL };
static const char *const more_frames[] = { "type", "estimated", NULL };
static const char *const more_frame_kinds[] = { "kind_name", NULL };
static const char *const more_none[] = { NULL };

static const char *const *row_keys(const struct tidy *x)
{
  return x->id == T_FRAMES || x->id == T_FRAME_KINDS ? keys_frame
                                                     : keys_record;
}

static const char *const *row_more(const struct tidy *x)
{
  return x->id == T_TYPES ? more_types : x->id == T_SITES ? more_sites
         : x->id == T_FRAMES ? more_frames
         : x->id == T_FRAME_KINDS ? more_frame_kinds : more_none;
}

/* The table's column names and where each is in this dump's rows: the */
/* reader's own list (gca_fields.h), found by the header's names, so     */
/* that a dump whose writer moved or added columns reads the same; a     */
/* column the header lacks reads as 0, as everywhere in gcacc.           */
static void tidy_columns(struct tidy *x)
{
  size_t i;

  if (x->id == T_RECORDS) {
    x->ncols = N_RECORD_COLS;
    x->names = malloc(x->ncols * sizeof(*x->names));
    if (x->names == NULL) abort();
    for (i = 0; i < x->ncols; i++) {
      const char *dot = strchr(record_cols[i], '.');

      x->names[i] = dot ? dot + 1 : record_cols[i];
    }
    return;
  }
  x->ncols = dump_tables[tidy_defs[x->id].tid].ncols;
  x->names = malloc(x->ncols * sizeof(*x->names));
  if (x->names == NULL) abort();
  for (i = 0; i < x->ncols; i++)
    x->names[i] = dump_tables[tidy_defs[x->id].tid].names[i];
  x->pos = dump_cols_table(&x->info->cols, tidy_defs[x->id].tid);
}

static void tidy_header_line(struct tidy *x)
{
  const char *const *k;
  size_t i, n = 0;

  tidy_columns(x);
  x->ready = 1;
  if (x->jsonl) return;
  for (k = row_keys(x); *k; k++) fprintf(x->out, "%s%s", n++ ? "," : "", *k);
  for (i = 0; i < x->ncols; i++) {
    fputc(',', x->out);
    emit_csv_string(x->names[i], x->out);
  }
  for (k = row_more(x); *k; k++) fprintf(x->out, ",%s", *k);
  fputc('\n', x->out);
}

/* ---- rows ---------------------------------------------------------- */

static const char *site_stack(struct tidy *x, u64 id)
{
  if (x->label == NULL) {
    x->label_cap = 8192;
    x->label = malloc(x->label_cap);
    if (x->label == NULL) abort();
  }
  return tables_site_label(&x->tb, id, 0, x->label, x->label_cap);
}

/* One dump row (row j of rows): the keys (keys[] values), the row's    */
/* columns, the rest.                                                    */
static void tidy_row(struct tidy *x, const u64 *keys,
                     const struct dump_tab *rows, size_t j)
{
  const char *const *k;
  struct cells c;
  size_t i;
  char buf[512];

  cells_begin(&c, x);
  for (k = row_keys(x), i = 0; *k; k++, i++) cell(&c, *k, jint(keys[i]));
  for (i = 0; i < x->ncols; i++) {
    json_t *v = dump_tab_cell(rows, j, x->pos[i]);

    cell(&c, x->names[i], v != NULL ? v : json_integer(0));
  }
  if (x->id == T_TYPES) {
    u64 id = tab_u64(rows, j, DUMP_COL(&x->info->cols, type_rows, type_id));
    const struct group *g = keymap_get(x->tb.types, id, 0);

    snprintf(buf, sizeof(buf), "0x%llx", g != NULL ? g->cookie : 0ULL);
    cell(&c, "cookie", g != NULL && g->defined ? json_string(buf) : NULL);
    cell(&c, "name", json_string(tables_type_label(&x->tb, id, buf,
                                                   sizeof(buf))));
  } else if (x->id == T_SITES) {
    u64 id = tab_u64(rows, j, DUMP_COL(&x->info->cols, site_rows, site_id));

    cell(&c, "stack", json_string(site_stack(x, id)));
  } else if (x->id == T_FRAMES) {
    u64 ty = tab_u64(rows, j, DUMP_COL(&x->info->cols, frame_rows, type_id));

    cell(&c, "type", json_string(tables_type_label(&x->tb, ty, buf,
                                                   sizeof(buf))));
  } else if (x->id == T_FRAME_KINDS) {
    u64 k = tab_u64(rows, j, DUMP_COL(&x->info->cols, frame_kind_rows, kind));

    cell(&c, "kind_name", json_string(kind_label((unsigned)k, buf)));
  }
  /* Type and callsite rows: the record's own profile (it carries      */
  /* "samples" when sampled); frame rows: the dump's so far.            */
  if (x->id == T_TYPES || x->id == T_SITES)
    cell(&c, "estimated", json_boolean(x->rec_sampled));
  else if (x->id == T_FRAMES)
    cell(&c, "estimated", json_boolean(x->tb.estimated));
  cells_end(&c);
}

static void record_row(struct tidy *x, const struct rec *r)
{
  struct cells c;
  size_t i;

  cells_begin(&c, x);
  cell(&c, "gc_no", jint(r->gc_no));
  cell(&c, "seq", jint(r->seq));
  cell(&c, "record", json_string(r->collection ? "collection"
                                               : "snapshot"));
  for (i = 0; i < N_RECORD_COLS; i++) {
    const char *name = record_cols[i], *dot = strchr(name, '.');
    const json_t *v = r->json;

    if (dot != NULL) {
      char obj[32];

      snprintf(obj, sizeof(obj), "%.*s", (int)(dot - name), name);
      v = json_object_get(v, obj);
      name = dot + 1;
    }
    cell(&c, name, json_incref(json_object_get(v, name)));
  }
  cells_end(&c);
}

static int tidy_visit(const struct rec *r, void *arg)
{
  struct tidy *x = arg;
  struct dump_tab rows = { NULL, NULL, 0 };
  u64 keys[2];
  size_t i;

  if (x->id == T_TYPES || x->id == T_SITES || x->id == T_FRAMES)
    tables_record(&x->tb, r);           /* names, stacks, estimates      */
  if (!x->ready) tidy_header_line(x);
  if (x->id == T_RECORDS) {
    record_row(x, r);
    return 0;
  }
  if (x->id == T_FRAMES || x->id == T_FRAME_KINDS) return 0;
  if (x->id == T_LISTS) {                       /* nested: JSON      */
    const json_t *l = json_object_get(json_object_get(r->json, "freelists"),
                                      "lists");

    rows.json = json_is_array(l) ? l : NULL;
  } else {
    rows = rec_tab(r->json, dump_tables[tidy_defs[x->id].tid].key);
  }
  keys[0] = r->gc_no;
  keys[1] = r->seq;
  x->rec_sampled = json_object_get(r->json, "samples") != NULL;
  for (i = 0; i < dump_tab_rows(&rows); i++) tidy_row(x, keys, &rows, i);
  return 0;
}

static int tidy_frame(const json_t *f, void *arg)
{
  struct tidy *x = arg;
  struct dump_tab rows;
  u64 keys[3];
  size_t i;

  if (x->id == T_TYPES || x->id == T_SITES || x->id == T_FRAMES)
    tables_frame(&x->tb, f);            /* definitions come here too     */
  if (x->id != T_FRAMES && x->id != T_FRAME_KINDS) return 0;
  if (!x->ready) tidy_header_line(x);
  keys[0] = jnum(f, "frame");
  keys[1] = jnum(f, "gc_no");
  keys[2] = jnum(f, "t_ns");
  rows = rec_tab(f, x->id == T_FRAMES ? "rows" : "kind_rows");
  for (i = 0; i < dump_tab_rows(&rows); i++) tidy_row(x, keys, &rows, i);
  return 0;
}

/* The records table has a "record" column after seq: its keys differ  */
/* from the other tables', so its header line is written here.          */
static void records_header(struct tidy *x)
{
  size_t i;

  tidy_columns(x);
  x->ready = 1;
  if (x->jsonl) return;
  fputs("gc_no,seq,record", x->out);
  for (i = 0; i < x->ncols; i++) fprintf(x->out, ",%s", x->names[i]);
  fputc('\n', x->out);
}

static int tidy_table_id(const char *name)
{
  int i;

  for (i = 0; i < T_N; i++)
    if (strcmp(tidy_defs[i].name, name) == 0
        || (tidy_defs[i].alias && strcmp(tidy_defs[i].alias, name) == 0))
      return i;
  return -1;
}

int cmd_export_tidy(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct tidy x;
  const char *path = NULL, *table = NULL;
  int i, rc, id;

  memset(&x, 0, sizeof(x));
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int c;

    if (strcmp(a, "--csv") == 0 || strcmp(a, "--jsonl") == 0) {
      if (table != NULL)
        return usage_error("one table at a time: --csv or --jsonl once");
      if (i + 1 >= argc || argv[i + 1][0] == '-')
        return usage_error("%s needs a table: records, classes, kinds, "
                           "grows, freelists, types, sites, frames or frame_kinds", a);
      x.jsonl = a[2] == 'j';
      table = argv[++i];
      continue;
    }
    if (strcmp(a, "--folded") == 0 || strcmp(a, "--chrome-trace") == 0)
      return usage_error("one of --folded, --chrome-trace, --csv <table> "
                         "or --jsonl <table>");
    if (strcmp(a, "--json") == 0)
      return usage_error("--json does not apply here: --jsonl <table> "
                         "writes JSON Lines");
    c = view_dump_arg(&o, tidy_usage, argc, argv, &i, &path);
    if (c != ARG_TAKEN) return c;
  }
  if (table == NULL)
    return usage_error("choose --csv <table> or --jsonl <table>");
  id = tidy_table_id(table);
  if (id < 0)
    return usage_error("unknown table '%s': records, classes, kinds, "
                       "grows, freelists, types, sites, frames or frame_kinds", table);
  if (path == NULL) return usage_error("no dump given");

  x.id = (enum tidy_id)id;
  x.info = &info;
  x.out = common_output(&o);
  if (x.out == NULL) return EXIT_USAGE;
  tables_init(&x.tb, &info);
  if (x.id == T_SITES) tables_load_symbols(&x.tb, path);
  if (x.id == T_RECORDS) {
    /* The header line needs no header record: written up front, so   */
    /* that a dump without records still gives a well-formed table.     */
    memset(&info, 0, sizeof(info));
    records_header(&x);
  }
  rc = session_scan_frames(path, o.progress, tidy_visit, tidy_frame, &x,
                           &info);
  if (rc == EXIT_OK && !x.ready && info.header != NULL)
    tidy_header_line(&x);               /* no rows: the header line alone */
  if (fflush(x.out) != 0 || ferror(x.out)) {
    error("cannot write %s", o.output ? o.output : "standard output");
    rc = EXIT_USAGE;
  }
  common_close(&o, x.out);
  free(x.names);
  free(x.label);
  tables_free(&x.tb);
  json_decref(info.header);
  return rc;
}
