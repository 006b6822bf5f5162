/* SPDX-License-Identifier: MIT */
/*
 * cmd_frag.c: the fragmentation story of a session.
 *
 * One pass over the dump keeps a handful of records (the first
 * collection, the one with the worst fragmentation index, the last, or
 * the one --at names) and every heap growth that happened although the
 * free heap blocks added up to the request.  Then it prints:
 *
 *   1. the selected collections and their free-block books;
 *   2. the free heap blocks of each by bdwgc free-list index, i.e. by
 *      block count (a histogram over time);
 *   3. heap growth: the largest request that forced the heap to grow
 *      against the largest free block of the moment, and the growths
 *      where free_bytes >= req_bytes (the memory was free, only not in
 *      one piece, or bdwgc chose not to split it);
 *   4. the size classes with the most reserved-but-unused bytes at the
 *      focus collection (--at, else the worst fragmentation);
 *   5. the same per kind: types and callsites are not in dumps yet.
 *
 * Memory is bounded: at most four records (read lean, session.h: their
 * row tables are gone after their visit), the focus collection's class
 * rows (a copy of 32 bytes a row) and FRAG_MAX_EVENTS growths.
 */

#include "gcacc.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

static const char frag_usage[] =
  "usage: gcacc frag [<options>] <dump>\n"
  "\n"
  "The fragmentation story: free heap blocks by size over time (the\n"
  "first collection, the worst fragmentation index, the last; or the one\n"
  "--at names), heap growths that happened although enough memory was\n"
  "free (only not in one piece), and the size classes with the most\n"
  "reserved-but-unused bytes at the focus collection (--at, else the\n"
  "worst fragmentation).\n"
  "\n"
  "Free blocks are grouped by bdwgc's free-list index: 1..31 are exact\n"
  "block counts, 32..59 ranges of 8 blocks (32-39, 40-47, ..., 248-255),\n"
  "60 is 256 blocks or more; sizes are block counts times hblk_bytes.\n"
  "\n"
  "Which types and callsites fill the classes is not in dumps yet (a\n"
  "later format adds type and callsite rows); the last table shows the\n"
  "object kinds instead.\n"
  "\n"
  "  --at <gc_no>        only this collection (histogram and classes)\n"
  "  --top <n>           size classes to list (default 10, 0: all)\n"
  "  --json, --csv       machine-readable output (the same numbers); JSON\n"
  "                      is one object: collections, free_blocks, growth,\n"
  "                      growths_despite_free, classes, kinds\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

#define FRAG_MAX_EVENTS 100
#define FRAG_UNIQUE 32          /* bdwgc's UNIQUE_THRESHOLD           */
#define FRAG_COMPRESSION 8      /* bdwgc's FL_COMPRESSION             */

struct grow_ev {
  u64 gc_no, t_ns, req, free, largest, grow, after;
  long long kind;
};

struct cls_row {
  unsigned kind, cls;
  u64 live, reserved, unused;
};

struct frag {
  int have_at;
  u64 at;
  json_t *first, *worst, *last, *atrec;   /* held records (incref'd) */
  double worst_frag;
  /* Growth. */
  u64 grows, grows_req, grows_lost;
  u64 max_req, max_req_free, max_req_largest, max_req_gc;
  u64 despite, despite_fragmented, despite_grow_bytes;
  struct grow_ev ev[FRAG_MAX_EVENTS];
  unsigned nev;
  /* The focus candidate's class rows with reserved bytes (section 4).   */
  struct cls_row *cr;
  size_t ncr, cr_cap;
};

/* Copy r's class rows that have reserved bytes (the others are         */
/* allocation-only): r is the focus so far.                              */
static void keep_focus(struct frag *f, const struct rec *r)
{
  const struct dump_tab classes = rec_tab(r->json, "classes");
  const struct dump_cols *cols = r->cols;
  size_t j, n = dump_tab_rows(&classes);

  if (n > f->cr_cap) {
    f->cr = xrealloc(f->cr, n * sizeof(*f->cr));
    f->cr_cap = n;
  }
  for (f->ncr = j = 0; j < n; j++) {
    struct cls_row *c = &f->cr[f->ncr];

    c->kind = (unsigned)tcol(&classes, j, cols, classes, kind);
    c->cls = (unsigned)tcol(&classes, j, cols, classes, class);
    c->live = tcol(&classes, j, cols, classes, live_bytes);
    c->reserved = tcol(&classes, j, cols, classes, reserved_bytes);
    c->unused = c->reserved > c->live ? c->reserved - c->live : 0;
    if (c->reserved != 0) f->ncr++;
  }
}

static void hold(json_t **slot, const json_t *j)
{
  json_t *old = *slot;

  *slot = json_incref((json_t *)j);
  json_decref(old);
}

static int frag_visit(const struct rec *r, void *arg)
{
  struct frag *f = arg;
  const struct dump_tab g = rec_tab(r->json, "grows");
  size_t i;

  f->grows_lost += jnum(r->json, "grows_lost");
  const struct dump_cols *c = r->cols;

  for (i = 0; i < dump_tab_rows(&g); i++) {
    u64 req = tcol(&g, i, c, grows, req_bytes);
    u64 free_b = tcol(&g, i, c, grows, free_bytes);
    u64 largest = tcol(&g, i, c, grows, largest_free_bytes);

    f->grows++;
    if (req == 0) continue;           /* GC_expand_hp, the initial heap */
    f->grows_req++;
    if (req > f->max_req) {
      f->max_req = req;
      f->max_req_free = free_b;
      f->max_req_largest = largest;
      f->max_req_gc = r->gc_no;
    }
    if (free_b < req) continue;
    f->despite++;
    if (largest < req) f->despite_fragmented++;
    f->despite_grow_bytes += tcol(&g, i, c, grows, grow_bytes);
    if (f->nev < FRAG_MAX_EVENTS) {
      struct grow_ev *e = &f->ev[f->nev++];

      e->gc_no = r->gc_no;
      e->t_ns = tcol(&g, i, c, grows, t_ns);
      e->req = req;
      e->kind = 0;                      /* an element not an integer: 0 */
      dump_tab_int(&g, i, DUMP_COL(c, grows, req_kind), &e->kind);
      e->free = free_b;
      e->largest = largest;
      e->grow = tcol(&g, i, c, grows, grow_bytes);
      e->after = tcol(&g, i, c, grows, heap_bytes_after);
    }
  }
  if (!r->collection || !r->census) return 0;
  if (f->have_at) {
    if (r->gc_no == f->at && f->atrec == NULL) {
      hold(&f->atrec, r->json);
      keep_focus(f, r);
    }
    return 0;
  }
  if (f->first == NULL) hold(&f->first, r->json);
  if (f->worst == NULL || r->frag_index > f->worst_frag) {
    f->worst_frag = r->frag_index;
    hold(&f->worst, r->json);
    keep_focus(f, r);
  }
  hold(&f->last, r->json);
  return 0;
}

/* Block counts a free-list index stands for: [*lo, *hi], *hi 0 when   */
/* unbounded (bdwgc's GC_hblk_fl_from_blocks, inverted).               */
static void fl_range(u64 idx, u64 nfls, u64 *lo, u64 *hi)
{
  if (idx < FRAG_UNIQUE) {
    *lo = *hi = idx;
  } else if (idx >= nfls) {
    *lo = FRAG_UNIQUE + (nfls - FRAG_UNIQUE) * FRAG_COMPRESSION;
    *hi = 0;
  } else {
    *lo = FRAG_UNIQUE + (idx - FRAG_UNIQUE) * FRAG_COMPRESSION;
    *hi = *lo + FRAG_COMPRESSION - 1;
  }
}

static const char *fl_label(u64 lo, u64 hi, char *buf)
{
  if (hi == 0) snprintf(buf, 32, ">=%llu", lo);
  else if (lo == hi) snprintf(buf, 32, "%llu", lo);
  else snprintf(buf, 32, "%llu-%llu", lo, hi);
  return buf;
}

struct pick {
  const json_t *rec;
  char role[32];
};

/* The distinct held records, in time order, roles merged.              */
static int picks(const struct frag *f, struct pick *p)
{
  const json_t *c[3];
  const char *names[3] = { "first", "worst", "last" };
  int i, j, n = 0;

  if (f->have_at) {
    p[0].rec = f->atrec;
    snprintf(p[0].role, sizeof(p[0].role), "at");
    return 1;
  }
  c[0] = f->first;
  c[1] = f->worst;
  c[2] = f->last;
  for (i = 0; i < 3; i++) {
    if (c[i] == NULL) continue;
    for (j = 0; j < n; j++) {
      if (p[j].rec == c[i]) {
        strncat(p[j].role, ",", sizeof(p[j].role) - strlen(p[j].role) - 1);
        strncat(p[j].role, names[i],
                sizeof(p[j].role) - strlen(p[j].role) - 1);
        break;
      }
    }
    if (j == n) {
      p[n].rec = c[i];
      snprintf(p[n].role, sizeof(p[n].role), "%s", names[i]);
      n++;
    }
  }
  return n;
}

static int cmp_unused(const void *a, const void *b)
{
  const struct cls_row *x = a, *y = b;

  if (x->unused != y->unused) return x->unused < y->unused ? 1 : -1;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return x->cls < y->cls ? -1 : x->cls > y->cls;
}

static void print_one(struct emit_table *t, const struct common_opts *o,
                      FILE *out, int *first)
{
  if (o->format == EMIT_TABLE || o->format == EMIT_CSV) {
    if (!*first) fputc('\n', out);
  }
  *first = 0;
  emit_print(t, o->format, out);
}

/* What every table of the story needs.                                 */
struct frag_out {
  const struct common_opts *o;
  FILE *out;
  int first_table;
  const json_t *header;
  const struct dump_cols *cols;
};

#define NC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define TITLE(human, key) (fo->o->format == EMIT_TABLE ? (human) : (key))

/* 1. The selected collections.                                          */
static void print_collections(struct frag_out *fo, const struct pick *p,
                              int np)
{
  static const struct emit_col c_coll[] = {
    { "role", COL_STR, 0 }, { "gc_no", COL_INT, 0 },
    { "heap_bytes", COL_BYTES, 0 }, { "total_free_bytes", COL_BYTES, 0 },
    { "largest_free_bytes", COL_BYTES, 0 }, { "frag_index", COL_RATIO, 0 },
  };
  struct emit_table *t;
  int i;

  t = emit_table_new(TITLE("Selected collections", "collections"), c_coll,
                     NC(c_coll));
  for (i = 0; i < np; i++) {
    const json_t *fl = json_object_get(p[i].rec, "freelists");
    const json_t *fi = json_object_get(fl, "frag_index");

    emit_row(t, p[i].role, jnum(p[i].rec, "gc_no"),
             jnum(p[i].rec, "heap.heap_bytes"),
             jnum(fl, "total_free_bytes"), jnum(fl, "largest_free_bytes"),
             json_is_number(fi) ? json_number_value(fi) : 0.0);
  }
  print_one(t, fo->o, fo->out, &fo->first_table);
}

/* 2. Free blocks by free-list index, per selected collection.           */
static void print_free_blocks(struct frag_out *fo, const struct pick *p,
                              int np)
{
  static const struct emit_col c_fl[] = {
    { "gc_no", COL_INT, 0 }, { "fl_index", COL_INT, 0 },
    { "size_blocks", COL_STR, 0 }, { "min_size_bytes", COL_BYTES, 0 },
    { "blocks", COL_INT, 0 }, { "bytes", COL_BYTES, 0 },
    { "unmapped_bytes", COL_BYTES, 0 },
  };
  const struct dump_cols *cols = fo->cols;
  u64 hblk = header_config(fo->header, "hblksize", 4096);
  u64 nfls = header_config(fo->header, "n_hblk_fls", 60);
  struct emit_table *t;
  const json_t *row;
  size_t j;
  int i;
  char b1[32];

  if (nfls <= FRAG_UNIQUE) nfls = 60;
  t = emit_table_new(TITLE("Free heap blocks by size (bdwgc free-list "
                           "index; size in blocks)", "free_blocks"),
                     c_fl, NC(c_fl));
  for (i = 0; i < np; i++) {
    const json_t *lists = json_object_get(
        json_object_get(p[i].rec, "freelists"), "lists");

    json_array_foreach(lists, j, row) {
      u64 idx = jcol(row, cols, lists, index), lo, hi;

      fl_range(idx, nfls, &lo, &hi);
      emit_row(t, jnum(p[i].rec, "gc_no"), idx, fl_label(lo, hi, b1),
               lo * hblk, jcol(row, cols, lists, blocks),
               jcol(row, cols, lists, bytes),
               jcol(row, cols, lists, unmapped_bytes));
    }
  }
  print_one(t, fo->o, fo->out, &fo->first_table);
}

/* 3. Heap growth against the largest free block, and the growths       */
/* although enough was free.                                             */
static void print_growth(struct frag_out *fo, const struct frag *f,
                         const json_t *focus)
{
  static const struct emit_col c_grow[] = {
    { "heap_growths", COL_INT, 0 },
    { "growths_for_a_request", COL_INT, 0 },
    { "largest_request_bytes", COL_BYTES, 0 },
    { "largest_request_gc_no", COL_INT, 0 },
    { "free_at_largest_request_bytes", COL_BYTES, 0 },
    { "largest_free_at_largest_request_bytes", COL_BYTES, 0 },
    { "growths_despite_free", COL_INT, 0 },
    { "growths_despite_free_fragmented", COL_INT, 0 },
    { "growths_despite_free_grow_bytes", COL_BYTES, 0 },
    { "focus_gc_no", COL_INT, 0 },
    { "focus_largest_free_bytes", COL_BYTES, 0 },
    { "growths_lost", COL_INT, 0 },
  };
  static const struct emit_col c_ev[] = {
    { "gc_no", COL_INT, 0 }, { "req_bytes", COL_BYTES, 0 },
    { "kind", COL_STR, 0 }, { "free_bytes", COL_BYTES, 0 },
    { "largest_free_bytes", COL_BYTES, 0 }, { "grow_bytes", COL_BYTES, 0 },
    { "fits", COL_STR, 0 },
  };
  FILE *out = fo->out;
  struct emit_table *t;
  size_t j;
  char b1[32], b2[32];

  t = emit_table_new(TITLE("Heap growth", "growth"), c_grow, NC(c_grow));
  emit_row(t, f->grows, f->grows_req, f->max_req, f->max_req_gc,
           f->max_req_free, f->max_req_largest, f->despite,
           f->despite_fragmented, f->despite_grow_bytes,
           jnum(focus, "gc_no"),
           jnum(focus, "freelists.largest_free_bytes"), f->grows_lost);
  print_one(t, fo->o, out, &fo->first_table);

  snprintf(b2, sizeof(b2), "%u", FRAG_MAX_EVENTS);
  t = emit_table_new(TITLE("Growths although free_bytes >= req_bytes "
                           "(fits: in the largest free block)",
                           "growths_despite_free"), c_ev, NC(c_ev));
  for (j = 0; j < f->nev; j++) {
    const struct grow_ev *e = &f->ev[j];

    emit_row(t, e->gc_no, e->req,
             e->kind < 0 ? "none" : kind_label((unsigned)e->kind, b1),
             e->free, e->largest, e->grow, e->largest >= e->req ? "yes"
                                                                : "no");
  }
  if (fo->o->format == EMIT_TABLE && emit_nrows(t) == 0) {
    emit_free(t);
    if (!fo->first_table) fputc('\n', out);
    fputs("No heap growth happened while enough memory was free.\n", out);
  } else {
    print_one(t, fo->o, out, &fo->first_table);
    if (fo->o->format == EMIT_TABLE && f->despite > f->nev)
      fprintf(out, "(%llu more not listed: the first %s are)\n",
              f->despite - f->nev, b2);
  }
}

/* 4. Size classes by reserved-but-unused bytes at the focus (at most   */
/* top, 0: all); 5. the same per kind.                                   */
static void print_unused(struct frag_out *fo, struct frag *f,
                         const json_t *focus, unsigned long top)
{
  static const struct emit_col c_cls[] = {
    { "kind", COL_STR, 0 }, { "class", COL_STR, 0 },
    { "reserved_bytes", COL_BYTES, 0 }, { "live_bytes", COL_BYTES, 0 },
    { "unused_bytes", COL_BYTES, 0 }, { "unused", COL_PCT, 0 },
  };
  static const struct emit_col c_kind[] = {
    { "kind", COL_STR, 0 }, { "classes", COL_INT, 0 },
    { "reserved_bytes", COL_BYTES, 0 }, { "live_bytes", COL_BYTES, 0 },
    { "unused_bytes", COL_BYTES, 0 }, { "unused", COL_PCT, 0 },
  };
  u64 k_res[SESSION_MAX_KINDS] = { 0 }, k_live[SESSION_MAX_KINDS] = { 0 };
  u64 k_n[SESSION_MAX_KINDS] = { 0 };
  struct cls_row *cr = f->cr;
  size_t j, ncr = f->ncr;
  struct emit_table *t;
  unsigned k;
  char title[96], b1[32], b2[32];

  for (j = 0; j < ncr; j++) {
    const struct cls_row *c = &cr[j];

    if (c->kind < SESSION_MAX_KINDS) {
      k_res[c->kind] += c->reserved;
      k_live[c->kind] += c->live;
      k_n[c->kind]++;
    }
  }
  if (ncr > 0) qsort(cr, ncr, sizeof(*cr), cmp_unused);
  snprintf(title, sizeof(title), "Size classes by reserved-but-unused "
           "bytes at gc_no %llu", jnum(focus, "gc_no"));
  t = emit_table_new(TITLE(title, "classes"), c_cls, NC(c_cls));
  for (j = 0; j < ncr && (top == 0 || j < top); j++)
    emit_row(t, kind_label(cr[j].kind, b1),
             class_label(fo->header, cr[j].cls, b2), cr[j].reserved,
             cr[j].live, cr[j].unused,
             (double)cr[j].unused / (double)cr[j].reserved);
  print_one(t, fo->o, fo->out, &fo->first_table);

  /* 5. Kinds (the types and callsites that fill them come later). */
  t = emit_table_new(TITLE("Kinds filling them (types and callsites: "
                           "not in dumps yet)", "kinds"),
                     c_kind, NC(c_kind));
  for (k = 0; k < SESSION_MAX_KINDS; k++) {
    u64 un = k_res[k] > k_live[k] ? k_res[k] - k_live[k] : 0;

    if (k_n[k] == 0) continue;
    emit_row(t, kind_label(k, b1), k_n[k], k_res[k], k_live[k], un,
             k_res[k] ? (double)un / (double)k_res[k] : 0.0);
  }
  print_one(t, fo->o, fo->out, &fo->first_table);
}

/* EXIT_OK to go on; ARG_TAKEN stands for --help (done, exit 0).        */
static int frag_args(struct common_opts *o, int *have_at, u64 *at,
                     unsigned long *top, const char **path, int argc,
                     char **argv)
{
  int i, c;

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--at") == 0 || strcmp(argv[i], "--top") == 0) {
      char *end;
      unsigned long long v;

      if (i + 1 >= argc)
        return usage_error("option '%s' needs a number", argv[i]);
      v = strtoull(argv[i + 1], &end, 10);
      if (argv[i + 1][0] == '\0' || argv[i + 1][0] == '-' || *end != '\0')
        return usage_error("option '%s': bad number '%s'", argv[i],
                           argv[i + 1]);
      if (argv[i][2] == 'a') {
        *have_at = 1;
        *at = v;
      } else {
        *top = (unsigned long)v;
      }
      i++;
      continue;
    }
    c = view_dump_arg(o, frag_usage, argc, argv, &i, path);
    if (c == EXIT_OK) return ARG_TAKEN;
    if (c != ARG_TAKEN) return c;
  }
  if (*path == NULL) return usage_error("no dump given");
  return EXIT_OK;
}

int cmd_frag(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct frag_out fo;
  struct frag *f;
  struct pick p[3];
  const char *path = NULL;
  const json_t *focus;
  int rc, np, have_at = 0;
  unsigned long top = 10;
  u64 at = 0;

  rc = frag_args(&o, &have_at, &at, &top, &path, argc, argv);
  if (rc == ARG_TAKEN) return EXIT_OK;
  if (rc != EXIT_OK) return rc;
  f = calloc(1, sizeof(*f));
  if (f == NULL) abort();
  f->have_at = have_at;
  f->at = at;

  rc = session_scan(path, o.progress, frag_visit, f, &info);
  if (rc != EXIT_OK) goto done;
  if (f->have_at && f->atrec == NULL) {
    error("%s: no collection with gc_no %llu", path, f->at);
    rc = EXIT_USAGE;
    goto done;
  }
  if (!f->have_at && f->first == NULL) {
    error("%s: no collection with a census in the dump", path);
    rc = EXIT_USAGE;
    goto done;
  }
  np = picks(f, p);
  focus = f->have_at ? f->atrec : f->worst;

  fo.o = &o;
  fo.out = common_output(&o);
  fo.first_table = 1;
  fo.header = info.header;
  fo.cols = &info.cols;
  if (fo.out == NULL) { rc = EXIT_USAGE; goto done; }
  if (o.format == EMIT_JSON) emit_json_begin(fo.out);
  print_collections(&fo, p, np);
  print_free_blocks(&fo, p, np);
  print_growth(&fo, f, focus);
  print_unused(&fo, f, focus, top);
  if (o.format == EMIT_JSON) emit_json_end(fo.out);
  common_close(&o, fo.out);

done:
  free(f->cr);
  json_decref(f->first);
  json_decref(f->worst);
  json_decref(f->last);
  json_decref(f->atrec);
  json_decref(info.header);
  free(f);
  return rc;
}
