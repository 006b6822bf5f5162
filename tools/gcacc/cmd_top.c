/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c: the TopN view: which keys hold the most live bytes, allocate
 * the most, or hold the most objects, at one collection (--at, --peak, the
 * last one by default) or over the whole session (--session).  A key is
 * today a (kind, size class) pair, the dump's "classes" rows; the
 * aggregation is written over a generic source of keyed rows (struct
 * top_source: which record array, how a row gives its key and values, how
 * a key is labelled).  --group type|site reads the type and callsite
 * tables instead (tables.c: rebuilt while scanning, as the format says:
 * rows carry only what changed, so the table at a collection is the
 * last row of every type or site seen up to it; --peak keeps a copy of
 * the tables at each new peak).  Callsites are labelled by their stacks,
 * innermost first: module+offset from the header's module map, or the
 * function from the symbol cache DUMP.symbols (`gcacc symbolize` writes
 * it; --symbolize runs it for the sites shown).  Memory grows with the
 * keys, never with the records: at one collection only that record's
 * rows summed per key (or one copy of the tables) are kept.  Records are
 * read lean (session.h).
 */

#include "gcacc.h"
#include "session.h"
#include "symbolize.h"
#include "tables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char top_usage[] =
  "usage: gcacc top [<options>] <dump>\n"
  "\n"
  "The top (kind, size class) rows, types or callsites: live objects and\n"
  "bytes, reserved bytes (classes: their in-use heap blocks) or freed\n"
  "bytes (types, callsites), objects and bytes allocated, and the row's\n"
  "share of the sort column's total (over all rows, not just the ones\n"
  "shown).  Callsites are shown by their stacks, innermost first, as\n"
  "module+offset, or as functions when DUMP.symbols (the cache of `gcacc\n"
  "symbolize`) has them.  In stacks=sample dumps callsite figures are\n"
  "scaled to estimates (docs/dump-format.md, \"Sampling\").  A sampled\n"
  "profile's type and callsite figures are estimates: shown as ~12.3 MiB,\n"
  "with a note (--json: \"estimated\": true); class figures are exact.\n"
  "Beside live and alloc, n: the samples behind the estimate, and its\n"
  "relative error, about 1/sqrt(n) (--json, --csv: samples_live,\n"
  "live_error, samples_alloc, alloc_error; null or empty at n = 0).\n"
  "\n"
  "  --group <g>         class, type or site (default: type when the dump\n"
  "                      has typed rows, else class)\n"
  "  --symbolize         run `gcacc symbolize` for the stacks shown first\n"
  "                      (fills DUMP.symbols)\n"
  "  --frames <N>        stack frames in the table (default 3; 0: all;\n"
  "                      --csv and --json always carry all)\n"
  "  -n <N>              show N rows (default 10; 0: all)\n"
  "  --by <key>          sort by live (live bytes, the default), alloc\n"
  "                      (bytes allocated) or count (live objects)\n"
  "  --at <gc_no>        the census of collection <gc_no>; allocations\n"
  "                      are those since the previous record\n"
  "  --peak              the collection with the most live bytes in all\n"
  "                      (the first of equals)\n"
  "  --session           the whole session: allocations summed over every\n"
  "                      record, live and reserved the maximum of each\n"
  "                      row over the session\n"
  "                      (default: the last collection with a census)\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

/* The values every source gives per key. */
struct top_vals {
  u64 live_objs, live_bytes, reserved_bytes, alloc_objs, alloc_bytes;
  u64 old_objs;                         /* types, sites: age >= 4       */
  /* types, sites in a sampled profile: the samples behind live and     */
  /* alloc (the rows' samples_live, samples_alloc).                      */
  u64 samples_live, samples_alloc;
};

/* A source of keyed rows in a record. */
struct top_source {
  const char *array;                    /* the record's member            */
  const char *what;                     /* for titles                      */
  u64 (*key)(const struct dump_tab *t, size_t i, const struct dump_cols *c);
  void (*vals)(const struct dump_tab *t, size_t i, const struct dump_cols *c,
               struct top_vals *v);
  /* Two label columns (the second may be ""), buffers of 32 bytes.       */
  void (*label)(const json_t *header, u64 key, char *a, char *b);
  const char *label_a, *label_b;        /* their column names              */
};

static u64 class_key(const struct dump_tab *t, size_t i,
                     const struct dump_cols *c)
{
  return tcol(t, i, c, classes, kind) << 32
         | (tcol(t, i, c, classes, class) & 0xffffffffULL);
}

static void class_vals(const struct dump_tab *t, size_t i,
                       const struct dump_cols *c, struct top_vals *v)
{
  v->live_objs = tcol(t, i, c, classes, live_objs);
  v->live_bytes = tcol(t, i, c, classes, live_bytes);
  v->reserved_bytes = tcol(t, i, c, classes, reserved_bytes);
  v->alloc_objs = tcol(t, i, c, classes, alloc_objs);
  v->alloc_bytes = tcol(t, i, c, classes, alloc_granted_bytes);
}

static void class_labels(const json_t *header, u64 key, char *a, char *b)
{
  char kb[16];

  snprintf(a, 32, "%s", kind_label((unsigned)(key >> 32), kb));
  class_label(header, (unsigned)(key & 0xffffffffULL), b);
}

static const struct top_source source_classes = {
  "classes", "(kind, class)", class_key, class_vals, class_labels,
  "kind", "class"
};
/* Titles of the type and site views (their rows come from tables.c).  */
static const struct top_source source_types = {
  "type_rows", "types", NULL, NULL, NULL, "id", "type"
};
static const struct top_source source_sites = {
  "site_rows", "callsites", NULL, NULL, NULL, "id", "stack"
};

enum top_mode { AT_LAST, AT_GC, AT_PEAK, SESSION };
enum top_by { BY_LIVE, BY_ALLOC, BY_COUNT };
enum top_group { G_DEFAULT = -1, G_CLASS, G_TYPE, G_SITE };

struct top {
  const struct top_source *src;
  int group;                    /* enum top_group                        */
  struct tables tb;             /* types and sites, rebuilt              */
  struct tables_view vt, vs;    /* their copies at the chosen record     */
  int captured;
  enum top_mode mode;
  u64 at_gc;
  json_t *chosen;               /* the record (not SESSION), a reference */
  u64 chosen_gc, chosen_live;
  /* key -> struct top_vals: SESSION, over the session; else the chosen */
  /* record's rows, summed per key (built when it is chosen: its rows   */
  /* are read lean, gone after its visit).                               */
  struct keymap *m;
  u64 records;
};

static int top_visit(const struct rec *r, void *arg)
{
  struct top *t = arg;
  int take = 0;

  t->records++;
  tables_record(&t->tb, r);
  if (t->mode == SESSION) {
    const struct dump_tab rows = rec_tab(r->json, t->src->array);
    size_t i;

    for (i = 0; i < dump_tab_rows(&rows); i++) {
      struct top_vals v, *a = keymap_get(t->m, t->src->key(&rows, i, r->cols),
                                         1);

      t->src->vals(&rows, i, r->cols, &v);
      a->alloc_objs += v.alloc_objs;
      a->alloc_bytes += v.alloc_bytes;
      if (!r->census) continue;
      if (v.live_objs > a->live_objs) a->live_objs = v.live_objs;
      if (v.live_bytes > a->live_bytes) a->live_bytes = v.live_bytes;
      if (v.reserved_bytes > a->reserved_bytes)
        a->reserved_bytes = v.reserved_bytes;
    }
    return 0;
  }
  if (!r->collection || !r->census) return 0;
  switch (t->mode) {
  case AT_LAST: take = 1; break;
  case AT_GC: take = r->gc_no == t->at_gc; break;
  case AT_PEAK: take = t->chosen == NULL || r->live_bytes > t->chosen_live;
                break;
  default: break;
  }
  if (take) {
    const struct dump_tab rows = rec_tab(r->json, t->src->array);
    size_t i;

    keymap_clear(t->m);                 /* the previous choice's rows   */
    for (i = 0; i < dump_tab_rows(&rows); i++) {
      struct top_vals v, *p = keymap_get(t->m, t->src->key(&rows, i, r->cols),
                                         1);

      t->src->vals(&rows, i, r->cols, &v);
      p->live_objs += v.live_objs;
      p->live_bytes += v.live_bytes;
      p->reserved_bytes += v.reserved_bytes;
      p->alloc_objs += v.alloc_objs;
      p->alloc_bytes += v.alloc_bytes;
    }
    json_decref(t->chosen);
    t->chosen = json_incref((json_t *)r->json);
    t->chosen_gc = r->gc_no;
    t->chosen_live = r->live_bytes;
    if (t->mode == AT_PEAK && t->group != G_CLASS) {
      tables_capture(&t->tb, 0, &t->vt);
      tables_capture(&t->tb, 1, &t->vs);
      t->captured = 1;
    }
  }
  return t->mode == AT_GC && take;      /* found: stop reading */
}

static int top_frame(const json_t *f, void *arg)
{
  struct top *t = arg;

  tables_frame(&t->tb, f);
  return 0;
}

/* The group rows into t->m: at the chosen record (a view) or over the  */
/* session (the final tables: totals, live the maximum).                */
static void group_rows(struct top *t)
{
  int site = t->group == G_SITE;
  const struct tables_view *v = site ? &t->vs : &t->vt;
  const struct keymap *m = site ? t->tb.sites : t->tb.types;
  size_t i, n = t->mode == SESSION ? keymap_count(m) : v->n;

  for (i = 0; i < n; i++) {
    u64 id;
    const struct group *g;
    struct top_vals *p;
    u64 lo, lb, ao, ab, fb, sl, sa;

    if (t->mode == SESSION) {
      g = keymap_at(m, i, &id);
      lo = g->max_live_objs;
      lb = g->max_live_bytes;
      ao = g->alloc_objs;
      ab = g->alloc_bytes;
      fb = g->freed_bytes;
      sl = g->max_s_live;
      sa = g->s_alloc;
    } else {
      int here;

      g = &v->g[i];
      id = v->ids[i];
      here = g->d_rec == v->census && v->census != 0;
      lo = g->live_objs;
      lb = g->live_bytes;
      ao = here ? g->d_alloc_objs : 0;
      ab = here ? g->d_alloc_bytes : 0;
      fb = here ? g->d_freed_bytes : 0;
      sl = g->s_live;
      sa = here ? g->d_s_alloc : 0;
    }
    if (lo == 0 && lb == 0 && ao == 0 && ab == 0 && fb == 0) continue;
    p = keymap_get(t->m, id, 1);
    p->live_objs = tables_scale(&t->tb, site, lo, lb, lo);
    p->live_bytes = tables_scale(&t->tb, site, lo, lb, lb);
    p->old_objs = tables_scale(&t->tb, site, lo, lb, tables_old_objs(g));
    p->alloc_objs = tables_scale(&t->tb, site, ao, ab, ao);
    p->alloc_bytes = tables_scale(&t->tb, site, ao, ab, ab);
    p->reserved_bytes = tables_scale(&t->tb, site, ao, ab, fb);
    p->samples_live = sl;
    p->samples_alloc = sa;
  }
}

/* --symbolize: resolve the frames of the sites shown (symbolize.h      */
/* adds the answers to DUMP.symbols), then the cache is read.           */
static void symbolize_sites(struct top *t, const char *path,
                            const size_t *idx, size_t n)
{
  size_t i, na = 0, cap = 64;
  unsigned long long *addrs = malloc(cap * sizeof(*addrs));
  struct symbolize_opts so;
  struct symtab *tab = NULL;

  if (addrs == NULL) abort();
  for (i = 0; i < n; i++) {
    u64 id;
    const struct group *g;
    unsigned k;

    keymap_at(t->m, idx[i], &id);
    g = keymap_get(t->tb.sites, id, 0);
    if (g == NULL) continue;
    for (k = 0; k < g->nframes; k++) {
      if (na == cap) {
        cap *= 2;
        addrs = realloc(addrs, cap * sizeof(*addrs));
        if (addrs == NULL) abort();
      }
      addrs[na++] = g->frames[k];
    }
  }
  if (na > 0) {
    symbolize_opts_init(&so);
    if (symbolize_addrs(path, addrs, na, &so, &tab) != 0 || tab->failed)
      warning("symbolize did not resolve every address");
    symtab_free(tab);
  }
  free(addrs);
}

static u64 metric(const struct top_vals *v, enum top_by by)
{
  return by == BY_LIVE ? v->live_bytes
         : by == BY_ALLOC ? v->alloc_bytes : v->live_objs;
}

static enum top_by sort_by;
static struct keymap *sort_map;

static int cmp_rows(const void *pa, const void *pb)
{
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  u64 ka, kb;
  const struct top_vals *va = keymap_at(sort_map, a, &ka);
  const struct top_vals *vb = keymap_at(sort_map, b, &kb);
  u64 ma = metric(va, sort_by), mb = metric(vb, sort_by);

  if (ma != mb) return ma > mb ? -1 : 1;
  if (va->live_bytes != vb->live_bytes)
    return va->live_bytes > vb->live_bytes ? -1 : 1;
  return ka < kb ? -1 : ka > kb;
}

/* Under a table of estimates: what its n and plus-minus columns mean,  */
/* one line within 80 columns, before the estimate note.                 */
static void samples_line(FILE *out, u64 sample_bytes)
{
  char sz[16], rate[32] = "";

  if (sample_bytes != 0)
    snprintf(rate, sizeof(rate), " (1 per %s)", emit_size(sample_bytes, sz));
  fprintf(out, "n: samples behind the ~figure before it%s; \xc2\xb1: about "
          "1/sqrt(n)\n", rate);
}

static int parse_u64(const char *s, u64 *out)
{
  char *end;

  if (s == NULL || *s < '0' || *s > '9') return -1;
  errno = 0;
  *out = strtoull(s, &end, 10);
  return errno || *end != '\0' ? -1 : 0;
}

/* The command line, beside what goes in struct top (mode, --at, group). */
struct top_opts {
  struct common_opts o;
  const char *path, *by;
  u64 limit, frames;
  int symbolize;
};

/* A top option of argv[*a] into p or t; 1 if it was one, 0 if not, or  */
/* EXIT_USAGE (negated: -EXIT_USAGE) after a usage error.                 */
static int top_opt(struct top_opts *p, struct top *t, int *modes, int argc,
                   char **argv, int *a)
{
  const char *arg = argv[*a], *v;

  if (strcmp(arg, "-n") == 0 || strcmp(arg, "--by") == 0
      || strcmp(arg, "--at") == 0) {
    if ((v = opt_value(argc, argv, a)) == NULL) return -EXIT_USAGE;
    if (arg[1] == 'n') {
      if (parse_u64(v, &p->limit) != 0)
        return -usage_error("-n needs a number, not '%s'", v);
    } else if (arg[2] == 'b') {
      p->by = v;
    } else {
      if (parse_u64(v, &t->at_gc) != 0)
        return -usage_error("--at needs a collection number, not '%s'", v);
      t->mode = AT_GC;
      (*modes)++;
    }
    return 1;
  }
  if (strncmp(arg, "--by=", 5) == 0) { p->by = arg + 5; return 1; }
  if (strcmp(arg, "--group") == 0 || strcmp(arg, "--frames") == 0) {
    if ((v = opt_value(argc, argv, a)) == NULL) return -EXIT_USAGE;
    if (arg[2] == 'f') {
      if (parse_u64(v, &p->frames) != 0)
        return -usage_error("--frames needs a number, not '%s'", v);
    } else if (strcmp(v, "class") == 0) {
      t->group = G_CLASS;
    } else if (strcmp(v, "type") == 0) {
      t->group = G_TYPE;
    } else if (strcmp(v, "site") == 0) {
      t->group = G_SITE;
    } else {
      return -usage_error("unknown group '%s'; expected class, type or "
                          "site", v);
    }
    return 1;
  }
  if (strcmp(arg, "--symbolize") == 0) { p->symbolize = 1; return 1; }
  if (strcmp(arg, "--peak") == 0 || strcmp(arg, "--session") == 0) {
    t->mode = arg[2] == 'p' ? AT_PEAK : SESSION;
    (*modes)++;
    return 1;
  }
  return 0;
}

/* EXIT_OK to go on; ARG_TAKEN stands for --help (done, exit 0).        */
static int top_args(struct top_opts *p, struct top *t, int argc,
                    char **argv)
{
  int a, c, modes = 0;

  for (a = 1; a < argc; a++) {
    c = top_opt(p, t, &modes, argc, argv, &a);
    if (c < 0) return -c;
    if (c > 0) continue;
    c = view_dump_arg(&p->o, top_usage, argc, argv, &a, &p->path);
    if (c == EXIT_OK) return ARG_TAKEN;
    if (c != ARG_TAKEN) return c;
  }
  if (strcmp(p->by, "live") == 0) sort_by = BY_LIVE;
  else if (strcmp(p->by, "alloc") == 0) sort_by = BY_ALLOC;
  else if (strcmp(p->by, "count") == 0) sort_by = BY_COUNT;
  else
    return usage_error("unknown sort key '%s'; expected live, alloc or count",
                       p->by);
  if (modes > 1)
    return usage_error("--at, --peak and --session exclude each other");
  if (p->path == NULL) return usage_error("no dump given");
  return EXIT_OK;
}

/* Read the dump; t->m then holds the rows to show (classes, or the     */
/* group's), per key.  EXIT_OK, or EXIT_USAGE with the error printed.    */
static int top_scan(struct top *t, const char *path, int progress,
                    struct session_info *info)
{
  int rc;

  t->m = keymap_new(sizeof(struct top_vals));
  tables_init(&t->tb, info);
  rc = session_scan_frames(path, progress, top_visit, top_frame, t, info);
  if (rc != EXIT_OK) return rc;
  if (t->group == G_DEFAULT)
    t->group = t->tb.has_type_rows ? G_TYPE : G_CLASS;
  if (t->mode != SESSION && t->group != G_CLASS && !t->captured) {
    tables_capture(&t->tb, 0, &t->vt);    /* the state at the stop     */
    tables_capture(&t->tb, 1, &t->vs);
  }
  if (t->mode != SESSION && t->chosen == NULL) {
    if (t->mode == AT_GC)
      error("%s: no collection %llu with a census in this dump", path,
            t->at_gc);
    else
      error("%s: no collection with a census in this dump", path);
    return EXIT_USAGE;
  }
  if (t->group != G_CLASS) {
    /* Class rows not shown: the chosen record's are not folded.  (Those */
    /* --session folded stay counted, as they always were.)              */
    if (t->mode != SESSION) keymap_clear(t->m);
    keymap_free(t->m);
    t->m = keymap_new(sizeof(struct top_vals));
    group_rows(t);
  }
  return EXIT_OK;
}

/* The rows of t->m in the order shown (sort_by), all n of them (the   */
/* caller cuts); *total: the sort column's total over every row.        */
static size_t *top_sort(struct top *t, size_t *n, u64 *total)
{
  size_t i, *idx;

  *n = keymap_count(t->m);
  idx = malloc((*n ? *n : 1) * sizeof(*idx));
  if (idx == NULL) abort();
  *total = 0;
  for (i = 0; i < *n; i++) {
    idx[i] = i;
    *total += metric(keymap_at(t->m, i, NULL), sort_by);
  }
  sort_map = t->m;
  if (*n > 0) qsort(idx, *n, sizeof(*idx), cmp_rows);
  return idx;
}

/* The table's title (for CSV and JSON: "top"); in a table, t->src is  */
/* then the group's (its name in the title).                             */
static void top_title(struct top *t, const struct top_opts *p, char *title,
                      size_t sz)
{
  if (p->o.format != EMIT_TABLE) {
    snprintf(title, sz, "top");
    return;
  }
  if (t->group == G_TYPE) t->src = &source_types;
  if (t->group == G_SITE) t->src = &source_sites;
  if (t->mode == SESSION)
    snprintf(title, sz, "top %s by %s over the session (%llu records)",
             t->src->what, p->by, t->records);
  else
    snprintf(title, sz, "top %s by %s at gc %llu (%s)", t->src->what, p->by,
             t->chosen_gc, t->mode == AT_PEAK ? "peak live bytes"
             : t->mode == AT_LAST ? "last collection" : "--at");
}

/* --json: the chosen collection, the object's first member.            */
static void top_print_at(const struct top *t, FILE *out)
{
  static const struct emit_col at_cols[] = {
    { "mode", COL_STR, 0 },
    { "gc_no", COL_INT, 0 },
    { "total_live_bytes", COL_BYTES, 0 },
  };
  static const char *mode_names[] = { "last", "at", "peak", "session" };
  struct emit_table *tab = emit_table_new("at", at_cols, 3);

  emit_row(tab, mode_names[t->mode], t->mode == SESSION ? 0ULL : t->chosen_gc,
           t->mode == SESSION ? 0ULL : t->chosen_live);
  emit_print(tab, EMIT_JSON, out);
}

/* The type or callsite rows idx[0 .. n): exact, or estimates with the  */
/* samples behind them.                                                  */
static void top_print_groups(struct top *t, const struct top_opts *p,
                             const char *title, const size_t *idx, size_t n,
                             u64 total, FILE *out)
{
  struct emit_col gcols[] = {
    { "id", COL_INT, 0 },
    { "type", COL_STR, 0 },
    { "live_objs", COL_INT, 0 },
    { "live_bytes", COL_BYTES, 0 },
    { "alloc_objs", COL_INT, 0 },
    { "alloc_bytes", COL_BYTES, 0 },
    { "freed_bytes", COL_BYTES, 0 },
    { "old_objs", COL_INT, 0 },
    { "share", COL_PCT, 0 },
  };
  static const char *gshort_names[] = { NULL, NULL, "objs", "live",
                                        "allocs", "alloc", "freed", "old",
                                        "share" };
  /* The same in a sampled profile (estimates): after live and after    */
  /* alloc, the samples behind them (n) and their relative error (the   */
  /* plus-minus sign, about 1/sqrt(n)).                                  */
  struct emit_col ecols[] = {
    { "id", COL_INT, 0 },
    { "type", COL_STR, 0 },
    { "live_objs", COL_EINT, 0 },
    { "live_bytes", COL_EBYTES, 0 },
    { "samples_live", COL_INT, 0 },
    { "live_error", COL_ERR, 0 },
    { "alloc_objs", COL_EINT, 0 },
    { "alloc_bytes", COL_EBYTES, 0 },
    { "samples_alloc", COL_INT, 0 },
    { "alloc_error", COL_ERR, 0 },
    { "freed_bytes", COL_EBYTES, 0 },
    { "old_objs", COL_EINT, 0 },
    { "share", COL_PCT, 0 },
  };
  static const char *eshort_names[] = { NULL, NULL, "objs", "live", "n",
                                        "\xc2\xb1", "allocs", "alloc", "n",
                                        "\xc2\xb1", "freed", "old", "share" };
  union emit_cell cells[sizeof(ecols) / sizeof(ecols[0])];
  enum emit_format f = p->o.format;
  int est = t->tb.estimated;
  size_t i, ssz = 4096;
  char *stack = malloc(ssz);
  struct emit_table *tab;

  if (stack == NULL) abort();
  if (t->group == G_SITE) gcols[1].name = ecols[1].name = "stack";
  if (f == EMIT_TABLE) {
    for (i = 2; i < sizeof(gcols) / sizeof(gcols[0]); i++)
      gcols[i].name = gshort_names[i];
    for (i = 2; i < sizeof(ecols) / sizeof(ecols[0]); i++)
      ecols[i].name = eshort_names[i];
  }
  if (est)
    tab = emit_table_new(title, ecols,
                         (int)(sizeof(ecols) / sizeof(ecols[0])));
  else
    tab = emit_table_new(title, gcols,
                         (int)(sizeof(gcols) / sizeof(gcols[0])));
  for (i = 0; i < n; i++) {
    u64 key;
    const struct top_vals *v = keymap_at(t->m, idx[i], &key);
    int k = 0;

    if (t->group == G_TYPE)
      tables_type_label(&t->tb, key, stack, ssz);
    else
      tables_site_label(&t->tb, key, f == EMIT_TABLE ? (unsigned)p->frames
                                                     : 0, stack, ssz);
    cells[k++].u = key;
    cells[k++].s = stack;
    cells[k++].u = v->live_objs;
    cells[k++].u = v->live_bytes;
    if (est) {
      cells[k++].u = v->samples_live;
      cells[k++].d = tables_sample_error(v->samples_live);
    }
    cells[k++].u = v->alloc_objs;
    cells[k++].u = v->alloc_bytes;
    if (est) {
      cells[k++].u = v->samples_alloc;
      cells[k++].d = tables_sample_error(v->samples_alloc);
    }
    cells[k++].u = v->reserved_bytes;
    cells[k++].u = v->old_objs;
    cells[k++].d = total ? (double)metric(v, sort_by) / (double)total : 0.0;
    emit_row_cells(tab, cells);
  }
  emit_print(tab, f, out);
  if (f == EMIT_TABLE && est) samples_line(out, t->tb.estimate_bytes);
  if (f == EMIT_TABLE)
    emit_estimate_line(out, t->tb.estimated, t->tb.estimate_bytes);
  free(stack);
}

/* The (kind, size class) rows idx[0 .. n).                             */
static void top_print_classes(const struct top *t, const struct top_opts *p,
                              const json_t *header, const char *title,
                              const size_t *idx, size_t n, u64 total,
                              FILE *out)
{
  struct emit_col cols[] = {
    { "kind", COL_STR, 0 },
    { "class", COL_STR, 0 },
    { "live_objs", COL_INT, 0 },
    { "live_bytes", COL_BYTES, 0 },
    { "reserved_bytes", COL_BYTES, 0 },
    { "alloc_objs", COL_INT, 0 },
    { "alloc_bytes", COL_BYTES, 0 },
    { "share", COL_PCT, 0 },
  };
  /* The table's headers: short, so that it fits 80 columns.             */
  static const char *short_names[] = { NULL, NULL, "objs", "live",
                                       "reserved", "allocs", "alloc",
                                       "share" };
  struct emit_table *tab;
  size_t i;
  char la[32], lb[32];

  cols[0].name = t->src->label_a;
  cols[1].name = t->src->label_b;
  if (p->o.format == EMIT_TABLE)
    for (i = 2; i < sizeof(cols) / sizeof(cols[0]); i++)
      cols[i].name = short_names[i];
  tab = emit_table_new(title, cols, (int)(sizeof(cols) / sizeof(cols[0])));
  for (i = 0; i < n; i++) {
    u64 key;
    const struct top_vals *v = keymap_at(t->m, idx[i], &key);

    t->src->label(header, key, la, lb);
    emit_row(tab, la, lb, v->live_objs, v->live_bytes, v->reserved_bytes,
             v->alloc_objs, v->alloc_bytes,
             total ? (double)metric(v, sort_by) / (double)total : 0.0);
  }
  emit_print(tab, p->o.format, out);
}

/* The rows idx[0 .. n) as a table, CSV or JSON.                         */
static void top_print(struct top *t, const struct top_opts *p,
                      const json_t *header, const size_t *idx, size_t n,
                      u64 total, FILE *out)
{
  char title[160];

  top_title(t, p, title, sizeof(title));
  if (p->o.format == EMIT_JSON) {
    emit_json_begin(out);
    top_print_at(t, out);
    emit_json_estimated(t->group != G_CLASS && t->tb.estimated,
                        t->tb.estimate_bytes);
  }
  if (t->group != G_CLASS)
    top_print_groups(t, p, title, idx, n, total, out);
  else
    top_print_classes(t, p, header, title, idx, n, total, out);
  if (p->o.format == EMIT_JSON) emit_json_end(out);
}

int cmd_top(int argc, char **argv)
{
  struct top_opts p;
  struct session_info info;
  struct top t;
  FILE *out;
  size_t n, *idx;
  u64 total;
  int rc;

  memset(&p, 0, sizeof(p));
  p.o.format = EMIT_TABLE;
  p.o.progress = -1;
  p.by = "live";
  p.limit = 10;
  p.frames = 3;
  memset(&t, 0, sizeof(t));
  t.src = &source_classes;
  t.mode = AT_LAST;
  t.group = G_DEFAULT;
  memset(&info, 0, sizeof(info));
  rc = top_args(&p, &t, argc, argv);
  if (rc == ARG_TAKEN) return EXIT_OK;
  if (rc != EXIT_OK) return rc;

  rc = top_scan(&t, p.path, p.o.progress, &info);
  if (rc != EXIT_OK) goto done;
  idx = top_sort(&t, &n, &total);
  if (p.limit != 0 && p.limit < n) n = (size_t)p.limit;
  if (t.group == G_SITE) {
    if (p.symbolize) symbolize_sites(&t, p.path, idx, n);
    tables_load_symbols(&t.tb, p.path);
  }
  out = common_output(&p.o);
  if (out == NULL) {
    rc = EXIT_USAGE;
  } else {
    top_print(&t, &p, info.header, idx, n, total, out);
    common_close(&p.o, out);
  }
  free(idx);
done:
  tables_view_free(&t.vt);
  tables_view_free(&t.vs);
  tables_free(&t.tb);
  json_decref(info.header);
  json_decref(t.chosen);
  keymap_free(t.m);
  return rc;
}
