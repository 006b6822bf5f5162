/*
 * cmd_diff.c: compare two sessions (two builds of a program on the same
 * level), per size class (kind, class) and per kind.
 *
 * Live bytes are taken at each session's peak-live collection (the census
 * with the most live bytes in all; --live last: the last census), from
 * that collection's class rows; allocated bytes are session totals
 * (alloc_granted_bytes summed over every record).  Rows are sorted by the
 * absolute change in live bytes, then in allocated bytes.  Per type and
 * callsite later: dumps have no such rows yet.
 *
 * --threshold makes it a CI check: exit 1 when any row's live-bytes
 * change exceeds it (in bytes, or in percent of dump A's total live bytes
 * at the compared collection).  Memory: two kind x class arrays per dump.
 */

#include "gcacc.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
  "usage: gcacc diff [<options>] <dump-a> <dump-b>\n"
  "\n"
  "Compare two sessions per size class (kind, class) and per kind:\n"
  "the change in live bytes (at each session's peak-live collection, the\n"
  "census with the most live bytes; --live last: the last census) and in\n"
  "allocated bytes (granted, session totals), b minus a, sorted by the\n"
  "absolute change in live bytes.  Per type and callsite later: dumps\n"
  "have no such rows yet.\n"
  "\n"
  "  --threshold <n>     exit 1 if any row's live-bytes change exceeds n\n"
  "                      bytes (suffix k, M, G: KiB, MiB, GiB)\n"
  "  --threshold <p>%    ... exceeds p percent of dump a's total live\n"
  "                      bytes at the compared collection\n"
  "  --live peak|last    which collection's live bytes (default peak)\n"
  "  --top <n>           rows per table (default 20, 0: all)\n"
  "  --json, --csv       machine-readable output (the same numbers); JSON\n"
  "                      is one object: sessions, classes, kinds\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n"
  "\n"
  "exit status: 0 no row over the threshold (or none given), 1 over it,\n"
  "2 bad usage or unreadable input\n";

#define NK SESSION_MAX_KINDS
#define NCL SESSION_MAX_CLASSES

struct side {
  int last;                      /* --live last                         */
  json_t *live_rec;              /* the compared collection (incref'd)  */
  u64 live_total;
  u64 *alloc;                    /* [NK * NCL] granted bytes            */
  u64 live_gc_no, records;
};

static int diff_visit(const struct rec *r, void *arg)
{
  struct side *s = arg;
  const json_t *classes = json_object_get(r->json, "classes"), *row;
  size_t i;

  s->records++;
  json_array_foreach(classes, i, row) {
    u64 k = jrow(row, CL_KIND), c = jrow(row, CL_CLASS);

    if (k < NK && c < NCL)
      s->alloc[k * NCL + c] += jrow(row, CL_ALLOC_GRANTED_BYTES);
  }
  if (!r->collection || !r->census) return 0;
  if (s->live_rec == NULL || s->last || r->live_bytes > s->live_total) {
    json_t *old = s->live_rec;

    s->live_rec = json_incref((json_t *)r->json);
    json_decref(old);
    s->live_total = r->live_bytes;
    s->live_gc_no = r->gc_no;
  }
  return 0;
}

static void live_of(const struct side *s, u64 *live)
{
  const json_t *classes = json_object_get(s->live_rec, "classes"), *row;
  size_t i;

  json_array_foreach(classes, i, row) {
    u64 k = jrow(row, CL_KIND), c = jrow(row, CL_CLASS);

    if (k < NK && c < NCL) live[k * NCL + c] += jrow(row, CL_LIVE_BYTES);
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

int cmd_diff(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info ia, ib;
  struct side sa, sb;
  const char *path[2] = { NULL, NULL };
  u64 *live_a = NULL, *live_b = NULL, thr_bytes = 0;
  double thr_pct = 0;
  int have_thr = 0, pct_mode = 0, last = 0, i, rc, n = 0, npaths = 0;
  int nkr = 0, found = 0, first = 1;
  unsigned long top = 20;
  struct drow *rows = NULL, krows[NK], worst;
  const char *thr_arg = NULL;
  struct emit_table *t;
  FILE *out;
  unsigned k, c;
  char b1[16], b2[32], what[64];
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

    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(diff_usage, stdout);
      return EXIT_OK;
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
    r = common_opt(&o, argc, argv, &i);
    if (r < 0) return EXIT_USAGE;
    if (r > 0) continue;
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return usage_error("unknown option '%s'", argv[i]);
    if (npaths == 2) return usage_error("two dumps, not more");
    path[npaths++] = argv[i];
  }
  if (npaths != 2) return usage_error("two dumps needed: <dump-a> <dump-b>");

  memset(&sa, 0, sizeof(sa));
  memset(&sb, 0, sizeof(sb));
  memset(&ib, 0, sizeof(ib));
  sa.last = sb.last = last;
  sa.alloc = calloc((size_t)NK * NCL, sizeof(u64));
  sb.alloc = calloc((size_t)NK * NCL, sizeof(u64));
  live_a = calloc((size_t)NK * NCL, sizeof(u64));
  live_b = calloc((size_t)NK * NCL, sizeof(u64));
  if (!sa.alloc || !sb.alloc || !live_a || !live_b) abort();
  rc = session_scan(path[0], o.progress, diff_visit, &sa, &ia);
  if (rc != EXIT_OK) goto done;
  rc = session_scan(path[1], o.progress, diff_visit, &sb, &ib);
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
  qsort(rows, (size_t)n, sizeof(*rows), cmp_drow);
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

    if (found == 2)
      snprintf(what, sizeof(what), "%s", kind_label(worst.kind, b1));
    else
      snprintf(what, sizeof(what), "%s %s", kind_short(worst.kind, b1),
               class_label(ia.header, worst.cls, b2));
    fprintf(stderr, "gcacc diff: %s: live bytes changed by %s%s, over the "
            "threshold %s\n", what, d < 0 ? "-" : "+", emit_size(mag(d), sz),
            thr_arg);
    rc = EXIT_FINDING;
  }

done:
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
