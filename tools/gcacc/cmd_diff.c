/*
 * cmd_diff.c: compare two sessions (two builds of a program on the same
 * level), per size class (kind, class) and per kind.
 *
 * Live bytes are taken at each session's peak-live collection (the census
 * with the most live bytes in all; --live last: the last census), from
 * that collection's class rows; allocated bytes are session totals
 * (alloc_granted_bytes summed over every record).  Rows are sorted by the
 * absolute change in live bytes, then in allocated bytes.
 *
 * Per type and per callsite the same, from the type and site tables
 * (tables.h) at the same collection: types matched across the dumps by
 * NAME (cookies differ between runs), callsites by their stacks, as
 * function names when both dumps' DUMP.symbols know them (--symbolize
 * resolves first), else as module+offset frames (ASLR moves absolute
 * addresses, offsets stay while the binaries do).  Sampled sites are
 * scaled by w(s).
 *
 * --threshold makes it a CI check: exit 1 when any row's live-bytes
 * change exceeds it (in bytes, or in percent of dump A's total live bytes
 * at the compared collection), class, kind, type or callsite.  Memory:
 * two kind x class arrays per dump, its types and sites.
 */

#include "gcacc.h"
#include "session.h"
#include "symbolize.h"
#include "tables.h"

#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
  "usage: gcacc diff [<options>] <dump-a> <dump-b>\n"
  "\n"
  "Compare two sessions per size class (kind, class) and per kind:\n"
  "the change in live bytes (at each session's peak-live collection, the\n"
  "census with the most live bytes; --live last: the last census) and in\n"
  "allocated bytes (granted, session totals), b minus a, sorted by the\n"
  "absolute change in live bytes.  The same per type (matched by name)\n"
  "and per callsite (matched by stack: function names when both dumps'\n"
  "<dump>.symbols know them, else module+offset frames) when the dumps\n"
  "have them.\n"
  "\n"
  "  --threshold <n>     exit 1 if any row's live-bytes change exceeds n\n"
  "                      bytes (suffix k, M, G: KiB, MiB, GiB)\n"
  "  --threshold <p>%    ... exceeds p percent of dump a's total live\n"
  "                      bytes at the compared collection\n"
  "  --live peak|last    which collection's live bytes (default peak)\n"
  "  --top <n>           rows per table (default 20, 0: all)\n"
  "  --symbolize         resolve the stacks' function names first (as\n"
  "                      gcacc symbolize on each dump)\n"
  "  --json, --csv       machine-readable output (the same numbers); JSON\n"
  "                      is one object: sessions, types, sites, classes,\n"
  "                      kinds\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n"
  "\n"
  "exit status: 0 no row over the threshold (or none given), 1 over it,\n"
  "2 bad usage or unreadable input\n";

#define NK SESSION_MAX_KINDS
#define NCL SESSION_MAX_CLASSES

struct side {
  int last;                      /* --live last                         */
  struct tables tb;              /* types and sites                     */
  struct keymap *live_types;     /* id -> u64 live bytes at live_rec    */
  struct keymap *live_sites;     /* id -> u64 (scaled)                  */
  json_t *live_rec;              /* the compared collection (incref'd)  */
  u64 live_total;
  u64 *alloc;                    /* [NK * NCL] granted bytes            */
  u64 live_gc_no, records;
};

static int diff_frame(const json_t *frame, void *arg)
{
  struct side *s = arg;

  tables_frame(&s->tb, frame);
  return 0;
}

/* The live column of every type and site now (the tables as of this    */
/* collection), into fresh maps.                                         */
static void keep_live(struct side *s)
{
  size_t i;
  u64 id;

  keymap_free(s->live_types);
  keymap_free(s->live_sites);
  s->live_types = keymap_new(sizeof(u64));
  s->live_sites = keymap_new(sizeof(u64));
  if (s->live_types == NULL || s->live_sites == NULL) abort();
  for (i = 0; i < keymap_count(s->tb.types); i++) {
    const struct group *g = keymap_at(s->tb.types, i, &id);

    *(u64 *)keymap_get(s->live_types, id, 1) = g->live_bytes;
  }
  for (i = 0; i < keymap_count(s->tb.sites); i++) {
    const struct group *g = keymap_at(s->tb.sites, i, &id);

    *(u64 *)keymap_get(s->live_sites, id, 1)
      = tables_scale(&s->tb, id >= 2, g->live_objs, g->live_bytes,
                     g->live_bytes);
  }
}

static int diff_visit(const struct rec *r, void *arg)
{
  struct side *s = arg;
  const json_t *classes = json_object_get(r->json, "classes"), *row;
  size_t i;

  s->records++;
  tables_record(&s->tb, r);
  json_array_foreach(classes, i, row) {
    u64 k = jcol(row, r->cols, classes, kind);
    u64 c = jcol(row, r->cols, classes, class);

    if (k < NK && c < NCL)
      s->alloc[k * NCL + c]
        += jcol(row, r->cols, classes, alloc_granted_bytes);
  }
  if (!r->collection || !r->census) return 0;
  if (s->live_rec == NULL || s->last || r->live_bytes > s->live_total) {
    json_t *old = s->live_rec;

    s->live_rec = json_incref((json_t *)r->json);
    json_decref(old);
    s->live_total = r->live_bytes;
    s->live_gc_no = r->gc_no;
    keep_live(s);
  }
  return 0;
}

static void live_of(const struct side *s, u64 *live)
{
  const json_t *classes = json_object_get(s->live_rec, "classes"), *row;
  const struct dump_cols *cols = &s->tb.info->cols;     /* this dump's  */
  size_t i;

  json_array_foreach(classes, i, row) {
    u64 k = jcol(row, cols, classes, kind);
    u64 c = jcol(row, cols, classes, class);

    if (k < NK && c < NCL)
      live[k * NCL + c] += jcol(row, cols, classes, live_bytes);
  }
}

struct drow {
  unsigned kind, cls;
  u64 live_a, live_b, alloc_a, alloc_b;
  long long d_live, d_alloc;
};

static u64 mag(long long x) { return x < 0 ? 0ULL - (u64)x : (u64)x; }

static int cmp_drow(const void *a, const void *b)
{
  const struct drow *x = a, *y = b;

  if (mag(x->d_live) != mag(y->d_live))
    return mag(x->d_live) < mag(y->d_live) ? 1 : -1;
  if (mag(x->d_alloc) != mag(y->d_alloc))
    return mag(x->d_alloc) < mag(y->d_alloc) ? 1 : -1;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return x->cls < y->cls ? -1 : x->cls > y->cls;
}

/* Short kind names, so that a row fits 80 columns.                     */
static const char *kind_short(unsigned kind, char *buf)
{
  static const char *names[] = { "ptrfree", "normal", "uncoll",
                                 "a-uncoll" };

  if (kind < 4) return names[kind];
  snprintf(buf, 16, "kind%u", kind);
  return buf;
}

/* "123", "64k", "2M", "1G" -> bytes; -1 on a malformed value.         */
static int parse_bytes(const char *s, u64 *out)
{
  char *end;
  unsigned long long v;

  if (s[0] < '0' || s[0] > '9') return -1;
  v = strtoull(s, &end, 10);
  if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
  else if (*end == 'M') { v <<= 20; end++; }
  else if (*end == 'G') { v <<= 30; end++; }
  if (*end == 'i' && end[1] == 'B') end += 2;
  else if (*end == 'B') end++;
  if (*end != '\0') return -1;
  *out = v;
  return 0;
}

static int over(long long d, int pct_mode, double pct, u64 bytes,
                u64 total_a)
{
  if (pct_mode) return (double)mag(d) * 100.0 > pct * (double)total_a;
  return mag(d) > bytes;
}

/* ---- per type and per callsite, matched by a key ------------------- */

struct krow {
  char *key;                     /* type name, or stack                 */
  u64 live_a, live_b, alloc_a, alloc_b;
  long long d_live, d_alloc;
};

struct klist { struct krow *r; size_t n, cap; };

static void klist_add(struct klist *l, char *key, int b, u64 live,
                      u64 alloc)
{
  struct krow *k;

  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->r = realloc(l->r, l->cap * sizeof(*l->r));
    if (l->r == NULL) abort();
  }
  k = &l->r[l->n++];
  memset(k, 0, sizeof(*k));
  k->key = key;
  if (b) {
    k->live_b = live;
    k->alloc_b = alloc;
  } else {
    k->live_a = live;
    k->alloc_a = alloc;
  }
}

static int krow_key_cmp(const void *a, const void *b)
{
  return strcmp(((const struct krow *)a)->key,
                ((const struct krow *)b)->key);
}

static int krow_cmp(const void *a, const void *b)
{
  const struct krow *x = a, *y = b;

  if (mag(x->d_live) != mag(y->d_live))
    return mag(x->d_live) < mag(y->d_live) ? 1 : -1;
  if (mag(x->d_alloc) != mag(y->d_alloc))
    return mag(x->d_alloc) < mag(y->d_alloc) ? 1 : -1;
  return strcmp(x->key, y->key);
}

/* Merge rows of equal keys (sorted first), compute the changes, sort by */
/* them.                                                                 */
static void klist_finish(struct klist *l)
{
  size_t i, j, n = 0;

  if (l->n > 0) qsort(l->r, l->n, sizeof(*l->r), krow_key_cmp);
  for (i = 0; i < l->n; i = j) {
    struct krow m = l->r[i];

    for (j = i + 1; j < l->n && strcmp(l->r[j].key, m.key) == 0; j++) {
      m.live_a += l->r[j].live_a;
      m.live_b += l->r[j].live_b;
      m.alloc_a += l->r[j].alloc_a;
      m.alloc_b += l->r[j].alloc_b;
      free(l->r[j].key);
    }
    m.d_live = (long long)(m.live_b - m.live_a);
    m.d_alloc = (long long)(m.alloc_b - m.alloc_a);
    l->r[n++] = m;
  }
  l->n = n;
  if (l->n > 0) qsort(l->r, l->n, sizeof(*l->r), krow_cmp);
}

static void klist_free(struct klist *l)
{
  size_t i;

  for (i = 0; i < l->n; i++) free(l->r[i].key);
  free(l->r);
}

static char *dupstr(const char *s)
{
  char *t = malloc(strlen(s) + 1);

  if (t == NULL) abort();
  return strcpy(t, s);
}

/* A site's key: its frames innermost first, " < " between, each the    */
/* function (names) or module+0xoffset.                                  */
static char *site_key(const struct symtab *tab, u64 id, int names)
{
  const struct sym_site *s = symtab_site(tab, id);
  size_t i, len = 0, cap = 0;
  char *out = NULL, buf[96];

  if (id == 0) return dupstr("(no stack)");
  if (id == 1) return dupstr("(not sampled)");
  if (s == NULL || s->nframes == 0) return dupstr("(stack unknown)");
  for (i = 0; i < s->nframes; i++) {
    const struct sym_frame *f = &s->frames[i];
    const char *l;
    size_t ll;

    if (names && f->nfuncs) l = f->funcs[0];
    else {
      snprintf(buf, sizeof(buf), "%s+0x%llx", f->module, f->offset);
      l = buf;
    }
    ll = strlen(l);
    if (len + ll + 4 > cap) {
      cap = (len + ll + 4) * 2;
      out = realloc(out, cap);
      if (out == NULL) abort();
    }
    if (len) {
      memcpy(out + len, " < ", 3);
      len += 3;
    }
    memcpy(out + len, l, ll);
    len += ll;
    out[len] = '\0';
  }
  return out;
}

static u64 live_at(struct keymap *m, u64 id)
{
  const u64 *v = m ? keymap_get(m, id, 0) : NULL;

  return v ? *v : 0;
}

static void collect_types(struct side *s, int b, struct klist *l)
{
  size_t i;
  u64 id;
  char buf[256];

  for (i = 0; i < keymap_count(s->tb.types); i++) {
    const struct group *g = keymap_at(s->tb.types, i, &id);

    klist_add(l, dupstr(tables_type_label(&s->tb, id, buf, sizeof(buf))),
              b, live_at(s->live_types, id), g->alloc_bytes);
  }
}

static void collect_sites(struct side *s, int b, const struct symtab *tab,
                          int names, struct klist *l)
{
  size_t i;
  u64 id;

  for (i = 0; i < keymap_count(s->tb.sites); i++) {
    const struct group *g = keymap_at(s->tb.sites, i, &id);

    if (s->tb.sample && id == 1) continue;      /* in the estimates     */
    klist_add(l, site_key(tab, id, names), b, live_at(s->live_sites, id),
              tables_scale(&s->tb, id >= 2, g->alloc_objs, g->alloc_bytes,
                           g->alloc_bytes));
  }
}

/* "a < b < c" cut to fit w characters in a table ("..." at the end).   */
static const char *cut(const char *s, char *buf, size_t w)
{
  size_t l = strlen(s);

  if (l <= w) return s;
  snprintf(buf, w + 1, "%.*s...", (int)(w - 3), s);
  return buf;
}

int cmd_diff(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info ia, ib;
  struct side sa, sb;
  const char *path[2] = { NULL, NULL };
  u64 *live_a = NULL, *live_b = NULL, thr_bytes = 0;
  double thr_pct = 0;
  int have_thr = 0, pct_mode = 0, last = 0, i, rc, n = 0, npaths = 0;
  int nkr = 0, found = 0, first = 1, resolve = 0, names = 0;
  struct symtab *tab[2] = { NULL, NULL };
  struct symbolize_opts so;
  struct klist types, sites;
  const char *worst_key = NULL;
  long long worst_d = 0;
  unsigned long top = 20;
  struct drow *rows = NULL, krows[NK], worst;
  const char *thr_arg = NULL;
  struct emit_table *t;
  FILE *out;
  unsigned k, c;
  char b1[16], b2[32], what[256];
  static const struct emit_col c_ses[] = {
    { "dump", COL_STR, 0 }, { "records", COL_INT, 0 },
    { "live_gc_no", COL_INT, 0 }, { "live_bytes", COL_BYTES, 0 },
  };
  /* Tables print "what" (kind and class in one column); the machine-   */
  /* readable forms have numeric kind and class instead.                */
  static const struct emit_col c_cls_t[] = {
    { "class", COL_STR, 0 }, { "live_a", COL_BYTES, 0 },
    { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
    { "alloc_change", COL_SBYTES, 0 },
  };
  static const struct emit_col c_kind_t[] = {
    { "kind", COL_STR, 0 }, { "live_a", COL_BYTES, 0 },
    { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
    { "alloc_change", COL_SBYTES, 0 },
  };
  static const struct emit_col c_cls_m[] = {
    { "kind", COL_INT, 0 }, { "class", COL_INT, 0 },
    { "label", COL_STR, 0 },
    { "live_a_bytes", COL_BYTES, 0 }, { "live_b_bytes", COL_BYTES, 0 },
    { "live_change_bytes", COL_SBYTES, 0 },
    { "alloc_a_bytes", COL_BYTES, 0 }, { "alloc_b_bytes", COL_BYTES, 0 },
    { "alloc_change_bytes", COL_SBYTES, 0 },
  };
#define NC(a) ((int)(sizeof(a) / sizeof((a)[0])))

  for (i = 1; i < argc; i++) {
    int r;

    if (strcmp(argv[i], "--symbolize") == 0) {
      resolve = 1;
      continue;
    }
    if (strcmp(argv[i], "--threshold") == 0 || strcmp(argv[i], "--top") == 0
        || strcmp(argv[i], "--live") == 0) {
      const char *opt = argv[i];

      if (i + 1 >= argc)
        return usage_error("option '%s' needs a value", opt);
      i++;
      if (opt[2] == 'l') {
        if (strcmp(argv[i], "peak") == 0) last = 0;
        else if (strcmp(argv[i], "last") == 0) last = 1;
        else return usage_error("--live: 'peak' or 'last', not '%s'",
                                argv[i]);
      } else if (opt[3] == 'o') {
        char *end;

        top = strtoul(argv[i], &end, 10);
        if (argv[i][0] < '0' || argv[i][0] > '9' || *end != '\0')
          return usage_error("--top: bad number '%s'", argv[i]);
      } else {
        size_t l = strlen(argv[i]);

        thr_arg = argv[i];
        have_thr = 1;
        pct_mode = l > 1 && argv[i][l - 1] == '%';
        if (pct_mode) {
          char *end;

          thr_pct = strtod(argv[i], &end);
          if (argv[i][0] < '0' || argv[i][0] > '9' || *end != '%')
            return usage_error("--threshold: bad percentage '%s'", argv[i]);
        } else if (parse_bytes(argv[i], &thr_bytes) != 0) {
          return usage_error("--threshold: bad size '%s' (bytes, or a "
                             "percentage like 5%%)", argv[i]);
        }
      }
      continue;
    }
    r = view_arg(&o, diff_usage, argc, argv, &i);
    if (r == ARG_TAKEN) continue;
    if (r != ARG_OPERAND) return r;
    if (npaths == 2) return usage_error("two dumps, not more");
    path[npaths++] = argv[i];
  }
  if (npaths != 2) return usage_error("two dumps needed: <dump-a> <dump-b>");

  memset(&sa, 0, sizeof(sa));
  memset(&sb, 0, sizeof(sb));
  memset(&ib, 0, sizeof(ib));
  memset(&ia, 0, sizeof(ia));
  memset(&types, 0, sizeof(types));
  memset(&sites, 0, sizeof(sites));
  tables_init(&sa.tb, &ia);
  tables_init(&sb.tb, &ib);
  sa.last = sb.last = last;
  sa.alloc = calloc((size_t)NK * NCL, sizeof(u64));
  sb.alloc = calloc((size_t)NK * NCL, sizeof(u64));
  live_a = calloc((size_t)NK * NCL, sizeof(u64));
  live_b = calloc((size_t)NK * NCL, sizeof(u64));
  if (!sa.alloc || !sb.alloc || !live_a || !live_b) abort();
  rc = session_scan_frames(path[0], o.progress, diff_visit, diff_frame, &sa,
                           &ia);
  if (rc != EXIT_OK) goto done;
  rc = session_scan_frames(path[1], o.progress, diff_visit, diff_frame, &sb,
                           &ib);
  if (rc != EXIT_OK) goto done;
  if (sa.live_rec == NULL || sb.live_rec == NULL) {
    rc = EXIT_USAGE;
    error("%s: no collection with a census",
          sa.live_rec == NULL ? path[0] : path[1]);
    goto done;
  }
  if (header_config(ia.header, "granule_bytes", 16)
        != header_config(ib.header, "granule_bytes", 16)
      || header_config(ia.header, "large_class0", 129)
           != header_config(ib.header, "large_class0", 129))
    warning("the dumps' size classes differ (granule_bytes or "
            "large_class0); labels are dump a's");
  live_of(&sa, live_a);
  live_of(&sb, live_b);

  /* Types by name; sites by stack, names only if both dumps have them. */
  if (sa.tb.has_type_rows || sb.tb.has_type_rows) {
    collect_types(&sa, 0, &types);
    collect_types(&sb, 1, &types);
    klist_finish(&types);
  }
  if (sa.tb.has_site_rows || sb.tb.has_site_rows) {
    symbolize_opts_init(&so);
    so.resolve = resolve;
    so.quiet = !resolve;
    for (i = 0; i < 2; i++)
      if (symbolize_dump_sites(path[i], &so, &tab[i]) != 0) {
        rc = EXIT_USAGE;
        goto done;
      }
    names = tab[0]->resolved > 0 && tab[1]->resolved > 0;
    if (!names && (tab[0]->resolved > 0 || tab[1]->resolved > 0))
      warning("only one dump's stacks have function names (run 'gcacc "
              "symbolize' on both, or --symbolize): callsites matched by "
              "module+offset");
    collect_sites(&sa, 0, tab[0], names, &sites);
    collect_sites(&sb, 1, tab[1], names, &sites);
    klist_finish(&sites);
  }

  rows = calloc((size_t)NK * NCL, sizeof(*rows));
  if (rows == NULL) abort();
  memset(krows, 0, sizeof(krows));
  for (k = 0; k < NK; k++) {
    struct drow *kr = &krows[nkr];

    memset(kr, 0, sizeof(*kr));
    kr->kind = k;
    for (c = 0; c < NCL; c++) {
      size_t x = (size_t)k * NCL + c;
      struct drow *d;

      if (!live_a[x] && !live_b[x] && !sa.alloc[x] && !sb.alloc[x])
        continue;
      d = &rows[n++];
      d->kind = k;
      d->cls = c;
      d->live_a = live_a[x];
      d->live_b = live_b[x];
      d->alloc_a = sa.alloc[x];
      d->alloc_b = sb.alloc[x];
      d->d_live = (long long)(d->live_b - d->live_a);
      d->d_alloc = (long long)(d->alloc_b - d->alloc_a);
      kr->live_a += d->live_a;
      kr->live_b += d->live_b;
      kr->alloc_a += d->alloc_a;
      kr->alloc_b += d->alloc_b;
      kr->cls++;
    }
    if (kr->cls == 0) continue;
    kr->d_live = (long long)(kr->live_b - kr->live_a);
    kr->d_alloc = (long long)(kr->alloc_b - kr->alloc_a);
    nkr++;
  }
  if (n > 0) qsort(rows, (size_t)n, sizeof(*rows), cmp_drow);
  if (nkr > 0)
    qsort(krows, (size_t)nkr, sizeof(*krows), cmp_drow);
  memset(&worst, 0, sizeof(worst));
  /* Sorted: the first row over the threshold is the largest; a kind   */
  /* row can be over it when none of its classes is.                    */
  for (i = 0; have_thr && i < n + nkr && !found; i++) {
    const struct drow *d = i < n ? &rows[i] : &krows[i - n];

    if (over(d->d_live, pct_mode, thr_pct, thr_bytes, sa.live_total)) {
      found = 1 + (i >= n);
      worst = *d;
    }
  }
  /* Types and callsites: their largest change, if larger still.        */
  for (i = 0; have_thr && i < 2; i++) {
    const struct klist *l = i == 0 ? &types : &sites;

    if (l->n > 0
        && over(l->r[0].d_live, pct_mode, thr_pct, thr_bytes, sa.live_total)
        && (!found || (worst_key == NULL
                       ? mag(l->r[0].d_live) > mag(worst.d_live)
                       : mag(l->r[0].d_live) > mag(worst_d)))) {
      found = 3 + (int)i;
      worst_key = l->r[0].key;
      worst_d = l->r[0].d_live;
    }
  }

  out = common_output(&o);
  if (out == NULL) { rc = EXIT_USAGE; goto done; }
  if (o.format == EMIT_JSON) emit_json_begin(out);
  t = emit_table_new(o.format == EMIT_TABLE ? "" : "sessions", c_ses,
                     NC(c_ses));
  emit_row(t, path[0], sa.records, sa.live_gc_no, sa.live_total);
  emit_row(t, path[1], sb.records, sb.live_gc_no, sb.live_total);
  emit_print(t, o.format, out);
  first = 0;

  for (i = 0; i < 2; i++) {
    const struct klist *l = i == 0 ? &types : &sites;
    static const struct emit_col c_key_t[] = {
      { "type", COL_STR, 30 }, { "live_a", COL_BYTES, 0 },
      { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
      { "alloc_change", COL_SBYTES, 0 },
    };
    static const struct emit_col c_site_t[] = {
      { "callsite", COL_STR, 30 }, { "live_a", COL_BYTES, 0 },
      { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
      { "alloc_change", COL_SBYTES, 0 },
    };
    static const struct emit_col c_key_m[] = {
      { "type", COL_STR, 0 },
      { "live_a_bytes", COL_BYTES, 0 }, { "live_b_bytes", COL_BYTES, 0 },
      { "live_change_bytes", COL_SBYTES, 0 },
      { "alloc_a_bytes", COL_BYTES, 0 }, { "alloc_b_bytes", COL_BYTES, 0 },
      { "alloc_change_bytes", COL_SBYTES, 0 },
    };
    static const struct emit_col c_site_m[] = {
      { "stack", COL_STR, 0 },
      { "live_a_bytes", COL_BYTES, 0 }, { "live_b_bytes", COL_BYTES, 0 },
      { "live_change_bytes", COL_SBYTES, 0 },
      { "alloc_a_bytes", COL_BYTES, 0 }, { "alloc_b_bytes", COL_BYTES, 0 },
      { "alloc_change_bytes", COL_SBYTES, 0 },
    };
    size_t r;
    char cb[40];

    if (l->n == 0) continue;
    if (o.format != EMIT_JSON) fputc('\n', out);
    if (o.format == EMIT_TABLE)
      t = i == 0 ? emit_table_new("Per type (b - a)", c_key_t, NC(c_key_t))
                 : emit_table_new("Per callsite (b - a), innermost frame "
                                  "first", c_site_t, NC(c_site_t));
    else
      t = i == 0 ? emit_table_new("types", c_key_m, NC(c_key_m))
                 : emit_table_new("sites", c_site_m, NC(c_site_m));
    for (r = 0; r < l->n && (top == 0 || r < top); r++) {
      const struct krow *k = &l->r[r];

      if (o.format == EMIT_TABLE)
        emit_row(t, cut(k->key, cb, 30), k->live_a, k->live_b,
                 (unsigned long long)k->d_live,
                 (unsigned long long)k->d_alloc);
      else
        emit_row(t, k->key, k->live_a, k->live_b,
                 (unsigned long long)k->d_live, k->alloc_a, k->alloc_b,
                 (unsigned long long)k->d_alloc);
    }
    emit_print(t, o.format, out);
  }

  for (i = 0; i < 2; i++) {
    int is_k = i == 1, nr = is_k ? nkr : n, r;
    const struct drow *v = is_k ? krows : rows;

    if (o.format != EMIT_JSON && !first) fputc('\n', out);
    if (o.format == EMIT_TABLE) {
      t = is_k ? emit_table_new("Per kind (b - a)", c_kind_t,
                                NC(c_kind_t))
               : emit_table_new("Per size class (b - a)", c_cls_t,
                                NC(c_cls_t));
    } else {
      t = emit_table_new(is_k ? "kinds" : "classes", c_cls_m,
                         NC(c_cls_m));
    }
    for (r = 0; r < nr && (top == 0 || (unsigned long)r < top); r++) {
      if (is_k) snprintf(what, sizeof(what), "%s", kind_label(v[r].kind, b1));
      else snprintf(what, sizeof(what), "%s %s", kind_short(v[r].kind, b1),
                    class_label(ia.header, v[r].cls, b2));
      if (o.format == EMIT_TABLE)
        emit_row(t, what, v[r].live_a, v[r].live_b,
                 (unsigned long long)v[r].d_live,
                 (unsigned long long)v[r].d_alloc);
      else
        emit_row(t, (u64)v[r].kind, is_k ? 0ULL : (u64)v[r].cls, what,
                 v[r].live_a, v[r].live_b, (unsigned long long)v[r].d_live,
                 v[r].alloc_a, v[r].alloc_b,
                 (unsigned long long)v[r].d_alloc);
    }
    emit_print(t, o.format, out);
  }
  if (o.format == EMIT_JSON) emit_json_end(out);
  common_close(&o, out);
  if (found) {
    char sz[16];
    long long d = worst.d_live;

    if (found >= 3) {
      d = worst_d;
      snprintf(what, sizeof(what), "%s %s", found == 3 ? "type" : "callsite",
               worst_key);
    } else if (found == 2) {
      snprintf(what, sizeof(what), "%s", kind_label(worst.kind, b1));
    } else {
      snprintf(what, sizeof(what), "%s %s", kind_short(worst.kind, b1),
               class_label(ia.header, worst.cls, b2));
    }
    fprintf(stderr, "gcacc diff: %s: live bytes changed by %s%s, over the "
            "threshold %s\n", what, d < 0 ? "-" : "+", emit_size(mag(d), sz),
            thr_arg);
    rc = EXIT_FINDING;
  }

done:
  klist_free(&types);
  klist_free(&sites);
  symtab_free(tab[0]);
  symtab_free(tab[1]);
  keymap_free(sa.live_types);
  keymap_free(sa.live_sites);
  keymap_free(sb.live_types);
  keymap_free(sb.live_sites);
  tables_free(&sa.tb);
  tables_free(&sb.tb);
  json_decref(sa.live_rec);
  json_decref(sb.live_rec);
  json_decref(ia.header);
  json_decref(ib.header);
  free(sa.alloc);
  free(sb.alloc);
  free(live_a);
  free(live_b);
  free(rows);
  return rc;
}
