/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c: a dump in other tools' formats.
 *
 *   --folded        folded stacks for flamegraph.pl, speedscope, inferno:
 *                   "frame;frame value" lines, one per call stack of the
 *                   dump ("sites"), outermost frame first, each frame
 *                   its function name when DUMP.symbols (or --symbolize)
 *                   knows it, else module+0xoffset; the value the site's
 *                   live bytes at the last census (--bytes live) or its
 *                   bytes allocated over the session (--bytes alloc),
 *                   sampled sites scaled by w(s) (docs/dump-format.md,
 *                   "Sampling").  Sites whose stacks read the same are
 *                   merged.  --group type puts the type name first, for
 *                   the (type, site) pairs the dump has figures for
 *                   (frame records: allocations).  A dump without call
 *                   stacks gets kind;size-class stacks instead.
 *   --chrome-trace  Chrome trace-event JSON (Perfetto, chrome://tracing):
 *                   per collection one "C" counter event (heap, live,
 *                   reserved, free, unmapped bytes, frag index), "X"
 *                   events for its mark and census, and an instant event
 *                   per heap growth.  Built with jansson, event by event.
 *   --csv TABLE, --jsonl TABLE
 *                   one table as tidy data: cmd_export_tidy.c.
 *
 * The trace is written while the dump is read; --folded keeps the last
 * census's class rows (live) or one kind x class array (alloc).  Records
 * are read lean (session.h: row tables parsed compactly, not as jansson
 * trees), so a record of a million rows costs about 100 MB, not a GB.
 */

#include "gcacc.h"
#include "session.h"
#include "symbolize.h"
#include "tables.h"

#include <stdlib.h>
#include <string.h>

int cmd_export_tidy(int argc, char **argv);     /* cmd_export_tidy.c */

static const char export_usage[] =
  "usage: gcacc export --folded [--bytes live|alloc] [--group type]\n"
  "                    [--symbolize] [<options>] <dump>\n"
  "       gcacc export --chrome-trace [<options>] <dump>\n"
  "       gcacc export --csv|--jsonl <table> [<options>] <dump>\n"
  "\n"
  "  --folded            folded stacks (flamegraph.pl, speedscope):\n"
  "                      `frame;...;frame bytes` lines, one per call stack\n"
  "                      of the dump, outermost first; frames are function\n"
  "                      names from <dump>.symbols (see gcacc symbolize),\n"
  "                      else module+0xoffset; sampled stacks are scaled\n"
  "                      to estimated bytes.  A dump without stacks gives\n"
  "                      `kind;size-class bytes` lines.\n"
  "  --bytes live        value: live bytes at the last census (default)\n"
  "  --bytes alloc       value: bytes allocated (granted) in the session\n"
  "  --group type        the type name as the root frame (figures per type\n"
  "                      and stack exist only for allocations, from frame\n"
  "                      records; otherwise one line per type)\n"
  "  --symbolize         resolve what <dump>.symbols lacks with addr2line\n"
  "                      first (as gcacc symbolize; updates the cache)\n"
  "  --chrome-trace      Chrome trace-event JSON for Perfetto or\n"
  "                      chrome://tracing: a counter event per collection\n"
  "                      (heap, live, reserved, free, unmapped bytes, frag\n"
  "                      index), its mark and census as duration events,\n"
  "                      heap growths as instant events; ts in us on the\n"
  "                      dump's monotonic clock\n"
  "  --csv <table>       one table of the dump, a row per (record, key):\n"
  "  --jsonl <table>     records, classes, kinds, grows, freelists, types,\n"
  "                      sites or frames (gcacc export --csv x --help)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

enum mode { M_NONE, M_FOLDED, M_TRACE };

struct exp {
  enum mode mode;
  int alloc;                     /* --bytes alloc                       */
  FILE *out;
  struct krow { unsigned kind, cls; u64 live; } *last;
  size_t nlast, last_cap;        /* --folded live: last census's rows   */
  u64 *alloc_bytes;              /* --folded alloc: [kinds * classes]   */
  unsigned long events;
  struct tables tb;              /* --folded: types and sites           */
};

static void trace_event(struct exp *e, json_t *ev)
{
  if (e->events++) fputs(",\n", e->out);
  json_dumpf(ev, e->out, JSON_COMPACT | JSON_REAL_PRECISION(16));
  json_decref(ev);
}

static json_t *trace_base(const char *name, const char *ph, u64 t_ns)
{
  return json_pack("{s:s, s:s, s:f, s:i, s:i}", "name", name, "ph", ph,
                   "ts", (double)t_ns / 1000.0, "pid", 1, "tid", 1);
}

static void trace_record(struct exp *e, const struct rec *r)
{
  const struct dump_tab g = rec_tab(r->json, "grows");
  size_t i;
  json_t *ev;

  const struct dump_cols *c = r->cols;

  for (i = 0; i < dump_tab_rows(&g); i++) {
    long long kind = 0;

    dump_tab_int(&g, i, DUMP_COL(c, grows, req_kind), &kind);
    ev = trace_base("heap growth", "i", tcol(&g, i, c, grows, t_ns));
    json_object_set_new(ev, "s", json_string("p"));
    json_object_set_new(ev, "args", json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I}",
        "req_bytes", (json_int_t)tcol(&g, i, c, grows, req_bytes),
        "req_kind", (json_int_t)kind,
        "free_bytes", (json_int_t)tcol(&g, i, c, grows, free_bytes),
        "largest_free_bytes",
        (json_int_t)tcol(&g, i, c, grows, largest_free_bytes),
        "grow_bytes", (json_int_t)tcol(&g, i, c, grows, grow_bytes),
        "heap_bytes_after",
        (json_int_t)tcol(&g, i, c, grows, heap_bytes_after)));
    trace_event(e, ev);
  }
  if (!r->collection) return;
  ev = trace_base("heap", "C", r->t_end_ns);
  json_object_set_new(ev, "args", json_pack(
      "{s:I, s:I, s:I, s:I, s:I, s:f}",
      "heap_bytes", (json_int_t)r->heap_bytes,
      "live_bytes", (json_int_t)r->live_bytes,
      "reserved_bytes", (json_int_t)r->class_reserved_bytes,
      "free_bytes", (json_int_t)r->free_bytes,
      "unmapped_bytes", (json_int_t)r->unmapped_bytes,
      "frag_index", r->frag_index));
  trace_event(e, ev);
  ev = trace_base("mark", "X", r->t_start_ns);
  json_object_set_new(ev, "dur", json_real((double)r->mark_ns / 1000.0));
  json_object_set_new(ev, "args", json_pack("{s:I, s:I}", "gc_no",
                                            (json_int_t)r->gc_no, "seq",
                                            (json_int_t)r->seq));
  trace_event(e, ev);
  if (r->census_ns != 0) {
    ev = trace_base("census", "X", r->t_end_ns);
    json_object_set_new(ev, "dur",
                        json_real((double)r->census_ns / 1000.0));
    json_object_set_new(ev, "args", json_pack("{s:I}", "gc_no",
                                              (json_int_t)r->gc_no));
    trace_event(e, ev);
  }
}

static int export_frame(const json_t *frame, void *arg)
{
  struct exp *e = arg;

  if (e->mode == M_FOLDED) tables_frame(&e->tb, frame);
  return 0;
}

/* --folded: the class rows while visiting (lean, session.h), a copy of */
/* the last census's live ones.                                          */
static void folded_record(struct exp *e, const struct rec *r)
{
  const struct dump_tab classes = rec_tab(r->json, "classes");
  size_t i, n = dump_tab_rows(&classes);

  tables_record(&e->tb, r);
  if (!e->alloc) {
    if (!r->collection || !r->census) return;
    if (n > e->last_cap) {
      e->last_cap = n;
      e->last = xrealloc(e->last, n * sizeof(*e->last));
    }
    for (e->nlast = i = 0; i < n; i++) {
      struct krow *k = &e->last[e->nlast];

      k->live = tcol(&classes, i, r->cols, classes, live_bytes);
      k->kind = (unsigned)tcol(&classes, i, r->cols, classes, kind);
      k->cls = (unsigned)tcol(&classes, i, r->cols, classes, class);
      if (k->live != 0) e->nlast++;
    }
    return;
  }
  rec_class_add(r, 0, e->alloc_bytes);
}

static int export_visit(const struct rec *r, void *arg)
{
  struct exp *e = arg;

  switch (e->mode) {
  case M_TRACE: trace_record(e, r); break;
  case M_FOLDED: folded_record(e, r); break;
  default: break;
  }
  return 0;
}

/* A frame name without spaces or semicolons: "normal", "kind_7",      */
/* "512B", "16.0KiB-32.0KiB".                                           */
static void folded_line(FILE *out, const json_t *header, unsigned kind,
                        unsigned cls, u64 v)
{
  char kb[16], cb[32], *p, *q;
  const char *k = kind_label(kind, kb);

  if (kind >= 4) {
    snprintf(kb, sizeof(kb), "kind_%u", kind);
    k = kb;
  }
  class_label(header, cls, cb);
  for (p = q = cb; *p; p++)
    if (*p != ' ' && *p != ';') *q++ = *p;
  *q = '\0';
  fprintf(out, "%s;%s %llu\n", k, cb, v);
}

/* ---- folded stacks from the dump's call stacks ----------------------- */

struct fline { char *stack; double v; };
struct sbuf { char *p; size_t len, cap; };

/* Append s; with clean, every space, control character and ';' made    */
/* '_' (a folded frame may contain neither).                            */
static void sb_add(struct sbuf *b, const char *s, int clean)
{
  size_t l = strlen(s), i;

  if (b->len + l + 2 > b->cap) {
    b->cap = (b->len + l + 2) * 2;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL) abort();
  }
  for (i = 0; i < l; i++) {
    char c = s[i];

    b->p[b->len++] = clean && ((unsigned char)c <= ' ' || c == ';' || c == 0x7f)
                     ? '_' : c;
  }
  b->p[b->len] = '\0';
}

static void sb_frame(struct sbuf *b, const char *s)
{
  if (b->len) sb_add(b, ";", 0);
  sb_add(b, s, 1);
}

/* The stack of site, outermost frame first; a frame with code inlined  */
/* into it gives the functions outer to inner.                           */
static void stack_of(struct sbuf *b, const struct symtab *tab, u64 site)
{
  const struct sym_site *s = symtab_site(tab, site);
  char buf[96];
  size_t i, k;

  if (site == 0) { sb_frame(b, "[no_stack]"); return; }
  if (site == 1) { sb_frame(b, "[not_sampled]"); return; }
  if (s == NULL || s->nframes == 0) { sb_frame(b, "[stack_unknown]"); return; }
  for (i = s->nframes; i-- > 0;) {
    const struct sym_frame *f = &s->frames[i];

    if (f->nfuncs <= 1) sb_frame(b, sym_frame_label(f, buf, sizeof(buf)));
    else for (k = f->nfuncs; k-- > 0;) sb_frame(b, f->funcs[k]);
  }
}

static int fline_cmp(const void *a, const void *b)
{
  return strcmp(((const struct fline *)a)->stack,
                ((const struct fline *)b)->stack);
}

static void fline_add(struct fline **l, size_t *n, size_t *cap,
                      struct sbuf *b, double v)
{
  if (!(v >= 0.5)) {                    /* rounds to 0: left out        */
    free(b->p);
  } else {
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 256;
      *l = realloc(*l, *cap * sizeof(**l));
      if (*l == NULL) abort();
    }
    (*l)[*n].stack = b->p;
    (*l)[(*n)++].v = v;
  }
  memset(b, 0, sizeof(*b));
}

/* One line per site (per (type, site) pair, per type with --group      */
/* type), identical stacks merged, sorted by stack.                      */
static int folded_stacks(struct exp *e, const char *path, int group_type,
                         int resolve)
{
  struct symbolize_opts so;
  struct symtab *tab = NULL;
  struct fline *l = NULL;
  struct sbuf b;
  size_t n = 0, cap = 0, i, j;
  char tb[256];
  u64 id;

  symbolize_opts_init(&so);
  so.resolve = resolve;
  so.quiet = !resolve;
  if (symbolize_dump_sites(path, &so, &tab) != 0) {
    symtab_free(tab);
    return EXIT_USAGE;
  }
  memset(&b, 0, sizeof(b));
  if (group_type && e->alloc && keymap_count(e->tb.pairs) > 0) {
    for (i = 0; i < keymap_count(e->tb.pairs); i++) {
      const u64 *p = keymap_at(e->tb.pairs, i, &id);
      u64 ty = id >> 32, si = id & 0xffffffffULL;

      if (e->tb.sample && si == 1) continue;
      sb_frame(&b, tables_type_label(&e->tb, ty, tb, sizeof(tb)));
      stack_of(&b, tab, si);
      fline_add(&l, &n, &cap, &b,
                (double)tables_scale(&e->tb, si >= 2, p[0], p[1], p[1]));
    }
  } else if (group_type) {
    warning("%s has %s bytes per type and per call stack, not per (type, "
            "call stack): one line per type", path,
            e->alloc ? "allocated" : "live");
    for (i = 0; i < keymap_count(e->tb.types); i++) {
      const struct group *g = keymap_at(e->tb.types, i, &id);

      sb_frame(&b, tables_type_label(&e->tb, id, tb, sizeof(tb)));
      fline_add(&l, &n, &cap, &b,
                (double)(e->alloc ? g->alloc_bytes : g->live_bytes));
    }
  } else {
    for (i = 0; i < keymap_count(e->tb.sites); i++) {
      const struct group *g = keymap_at(e->tb.sites, i, &id);
      u64 v = e->alloc
              ? tables_scale(&e->tb, id >= 2, g->alloc_objs,
                             g->alloc_bytes, g->alloc_bytes)
              : tables_scale(&e->tb, id >= 2, g->live_objs, g->live_bytes,
                             g->live_bytes);

      if (e->tb.sample && id == 1) continue;   /* in the estimates     */
      stack_of(&b, tab, id);
      fline_add(&l, &n, &cap, &b, (double)v);
    }
  }
  if (tab->nsites > 0 && tab->resolved == 0 && !resolve)
    warning("no function names for %s's stacks: run 'gcacc symbolize %s' "
            "(or add --symbolize)", path, path);
  if (n > 0) qsort(l, n, sizeof(*l), fline_cmp);
  for (i = 0; i < n; i = j) {
    double v = 0;

    for (j = i; j < n && strcmp(l[j].stack, l[i].stack) == 0; j++)
      v += l[j].v;
    fprintf(e->out, "%s %.0f\n", l[i].stack, v);
  }
  for (i = 0; i < n; i++) free(l[i].stack);
  free(l);
  symtab_free(tab);
  return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct exp e;
  const char *path = NULL, *bytes = NULL;
  int i, rc, group_type = 0, resolve = 0;

  memset(&e, 0, sizeof(e));
  for (i = 1; i < argc; i++)            /* tables: cmd_export_tidy.c    */
    if (strcmp(argv[i], "--csv") == 0 || strcmp(argv[i], "--jsonl") == 0)
      return cmd_export_tidy(argc, argv);
  for (i = 1; i < argc; i++) {
    int c;
    const char *a = argv[i];

    if (strcmp(a, "--folded") == 0 || strcmp(a, "--chrome-trace") == 0) {
      enum mode m = a[2] == 'f' ? M_FOLDED : M_TRACE;

      if (e.mode != M_NONE && e.mode != m)
        return usage_error("one of --folded, --chrome-trace, --csv");
      e.mode = m;
      continue;
    }
    if (strcmp(a, "--group") == 0) {
      if (i + 1 >= argc || strcmp(argv[i + 1], "type") != 0)
        return usage_error("--group takes 'type'");
      group_type = 1;
      i++;
      continue;
    }
    if (strcmp(a, "--symbolize") == 0) {
      resolve = 1;
      continue;
    }
    if (strcmp(a, "--bytes") == 0) {
      if (i + 1 >= argc) return usage_error("--bytes needs live or alloc");
      bytes = argv[++i];
      continue;
    }
    if (strcmp(a, "--json") == 0)
      return usage_error("--json does not apply: choose --folded, "
                         "--chrome-trace or --csv <table>");
    c = view_dump_arg(&o, export_usage, argc, argv, &i, &path);
    if (c != ARG_TAKEN) return c;
  }
  if (e.mode == M_NONE)
    return usage_error("choose --folded, --chrome-trace or --csv <table>");
  if (bytes != NULL) {
    if (e.mode != M_FOLDED)
      return usage_error("--bytes goes with --folded");
    if (strcmp(bytes, "alloc") == 0) e.alloc = 1;
    else if (strcmp(bytes, "live") != 0)
      return usage_error("--bytes: 'live' or 'alloc', not '%s'", bytes);
  }
  if ((group_type || resolve) && e.mode != M_FOLDED)
    return usage_error("--group and --symbolize go with --folded");
  if (path == NULL) return usage_error("no dump given");

  e.out = common_output(&o);
  if (e.out == NULL) return EXIT_USAGE;
  if (e.mode == M_FOLDED && e.alloc) {
    e.alloc_bytes = calloc((size_t)SESSION_MAX_KINDS * SESSION_MAX_CLASSES,
                           sizeof(u64));
    if (e.alloc_bytes == NULL) abort();
  }
  if (e.mode == M_TRACE) fputs("{\"traceEvents\":[\n", e.out);

  tables_init(&e.tb, &info);
  rc = session_scan_frames(path, o.progress, export_visit, export_frame, &e,
                           &info);

  if (e.mode == M_TRACE) {
    /* Names last: event order does not matter in a trace.             */
    const char *exe = json_string_value(json_object_get(info.header,
                                                        "executable"));
    char name[512];
    json_t *ev;

    snprintf(name, sizeof(name), "%s (pid %llu)", exe ? exe : path,
             info.header ? jnum(info.header, "pid") : 0ULL);
    ev = json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name",
                   "ph", "M", "pid", 1, "tid", 1, "args", "name", name);
    trace_event(&e, ev);
    ev = json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name",
                   "ph", "M", "pid", 1, "tid", 1, "args", "name",
                   "collector");
    trace_event(&e, ev);
    fputs("\n],\"displayTimeUnit\":\"ms\"}\n", e.out);
  } else if (e.mode == M_FOLDED && rc == EXIT_OK
             && (e.tb.has_site_rows || (group_type && e.tb.has_type_rows))) {
    rc = folded_stacks(&e, path, group_type, resolve);
  } else if (e.mode == M_FOLDED && rc == EXIT_OK) {
    if (group_type) warning("%s has no types: kind;size-class stacks", path);
    unsigned k, c;

    if (e.alloc) {
      for (k = 0; k < SESSION_MAX_KINDS; k++)
        for (c = 0; c < SESSION_MAX_CLASSES; c++) {
          u64 v = e.alloc_bytes[(size_t)k * SESSION_MAX_CLASSES + c];

          if (v != 0) folded_line(e.out, info.header, k, c, v);
        }
    } else {
      size_t j;

      for (j = 0; j < e.nlast; j++)
        folded_line(e.out, info.header, e.last[j].kind, e.last[j].cls,
                    e.last[j].live);
    }
  }
  common_close(&o, e.out);
  free(e.last);
  tables_free(&e.tb);
  json_decref(info.header);
  free(e.alloc_bytes);
  return rc;
}
