/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c: `gcacc diff`, two sessions compared (two builds of a
 * program on the same level, two runs of one), per size class (kind,
 * class), per kind, per type and per callsite: the command line, the
 * text, CSV and JSON forms, and the threshold.  What is compared, and
 * how types and callsites are matched across the dumps, is diff.c's
 * (diff.h); --html writes the Compare view instead (diff_html.c).
 * Estimates (a sampled profile) are shown with "~" and said so.
 *
 * --threshold makes it a CI check: exit 1 when any row's live-bytes
 * change exceeds it (in bytes, or in percent of dump a's total live bytes
 * at the compared collection).
 */

#include "gcacc.h"
#include "diff.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
  "usage: gcacc diff [<options>] <dump-a> <dump-b>\n"
  "\n"
  "Compare two sessions per size class (kind, class) and per kind:\n"
  "the change in live bytes (at each session's peak-live collection, the\n"
  "census with the most live bytes; --live last: the last census) and in\n"
  "allocated bytes (granted, session totals), b minus a, sorted by the\n"
  "absolute change in live bytes.  The same per type and per callsite\n"
  "when the dumps have them.  Types are matched by name; a name that is\n"
  "only an address (\"gcj vtable 0x...\") by module+offset instead, or\n"
  "outside every module by its place among such addresses (heap1+0x40),\n"
  "so two runs of one program pair up.  Callsites are matched by stack:\n"
  "function names when both dumps' <dump>.symbols know them, else\n"
  "module+offset frames.  Figures of a sampled profile are estimates:\n"
  "shown as ~12.3 MiB, with a note (\"estimated\": true in JSON).  A\n"
  "change of an estimate no larger than its sampling noise (--sigma\n"
  "standard errors, from the samples behind both sides) is shown in\n"
  "parentheses, (~-512 KiB), and never counts against --threshold;\n"
  "exact figures (size classes, kinds, totals) always count.\n"
  "\n"
  "  --threshold <n>     exit 1 if any row's live-bytes change exceeds n\n"
  "                      bytes (suffix k, M, G: KiB, MiB, GiB) and,\n"
  "                      for an estimate, its sampling noise\n"
  "  --threshold <p>%    ... exceeds p percent of dump a's total live\n"
  "                      bytes at the compared collection\n"
  "  --sigma <z>         the noise of an estimate's change: z standard\n"
  "                      errors (default 5: a change of two runs of one\n"
  "                      program passes for noise but about once in a\n"
  "                      million rows; 0: every change counts)\n"
  "  --live peak|last    which collection's live bytes (default peak)\n"
  "  --top <n>           rows per table (default 20, with --html 100;\n"
  "                      0: all)\n"
  "  --symbolize         resolve the stacks' function names first (as\n"
  "                      gcacc symbolize on each dump)\n"
  "  --html              the Compare view: one self-contained HTML page\n"
  "                      (no network), both sessions' headline figures\n"
  "                      side by side, then per type, callsite, kind and\n"
  "                      size class the change in live and allocated\n"
  "                      bytes, sorted by change (write it with -o)\n"
  "  --json, --csv       machine-readable output (the same numbers, and\n"
  "                      per row live_change_noise_bytes and\n"
  "                      live_change_significant); JSON is one object:\n"
  "                      estimated, sigma, sessions, types, sites,\n"
  "                      classes, kinds\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n"
  "\n"
  "exit status: 0 no row over the threshold (or none given), 1 a change\n"
  "over it and over its noise, 2 bad usage or unreadable input\n";

/* ---- options ------------------------------------------------------- */

struct diff_opts {
  struct common_opts o;
  const char *path[2];
  int npaths, have_thr, pct_mode, html, top_set, resolve;
  double thr_pct;
  u64 thr_bytes;
  const char *thr_arg;
  unsigned long top;
};

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

static int opt_threshold(struct diff_opts *p, struct diff *d, const char *v)
{
  size_t l = strlen(v);

  (void)d;
  p->thr_arg = v;
  p->have_thr = 1;
  p->pct_mode = l > 1 && v[l - 1] == '%';
  if (p->pct_mode) {
    char *end;

    p->thr_pct = strtod(v, &end);
    if (v[0] < '0' || v[0] > '9' || *end != '%')
      return usage_error("--threshold: bad percentage '%s'", v);
  } else if (parse_bytes(v, &p->thr_bytes) != 0) {
    return usage_error("--threshold: bad size '%s' (bytes, or a "
                       "percentage like 5%%)", v);
  }
  return EXIT_OK;
}

static int opt_sigma(struct diff_opts *p, struct diff *d, const char *v)
{
  char *end;

  (void)p;
  d->sigma = strtod(v, &end);
  if (v[0] < '0' || v[0] > '9' || *end != '\0' || !(d->sigma <= 1000))
    return usage_error("--sigma: bad number '%s' (standard errors, 0 to "
                       "1000, default 5)", v);
  return EXIT_OK;
}

static int opt_live(struct diff_opts *p, struct diff *d, const char *v)
{
  (void)p;
  if (strcmp(v, "peak") == 0) d->last = 0;
  else if (strcmp(v, "last") == 0) d->last = 1;
  else return usage_error("--live: 'peak' or 'last', not '%s'", v);
  return EXIT_OK;
}

static int opt_top(struct diff_opts *p, struct diff *d, const char *v)
{
  char *end;

  (void)d;
  p->top = strtoul(v, &end, 10);
  p->top_set = 1;
  if (v[0] < '0' || v[0] > '9' || *end != '\0')
    return usage_error("--top: bad number '%s'", v);
  return EXIT_OK;
}

/* diff's own options, one table (the common ones: view_arg): one that  */
/* takes a value has a setter, a flag the int it sets to 1.              */
static const struct diff_opt {
  const char *name;
  int (*set)(struct diff_opts *p, struct diff *d, const char *v);
  size_t flag;                  /* offsetof(struct diff_opts, ...)     */
} diff_opts_table[] = {
  { "--threshold", opt_threshold, 0 },
  { "--live", opt_live, 0 },
  { "--sigma", opt_sigma, 0 },
  { "--top", opt_top, 0 },
  { "--symbolize", NULL, offsetof(struct diff_opts, resolve) },
  { "--html", NULL, offsetof(struct diff_opts, html) },
};

/* EXIT_OK to go on; ARG_TAKEN stands for --help (done, exit 0).        */
static int diff_args(struct diff_opts *p, struct diff *d, int argc,
                     char **argv)
{
  int i;
  size_t k;

  for (i = 1; i < argc; i++) {
    const char *v;
    int r;

    for (k = 0; k < sizeof(diff_opts_table) / sizeof(diff_opts_table[0]);
         k++) {
      const struct diff_opt *op = &diff_opts_table[k];

      if (strcmp(argv[i], op->name) != 0) continue;
      if (op->set == NULL) {
        *(int *)(void *)((char *)p + op->flag) = 1;
        break;
      }
      if ((v = opt_value(argc, argv, &i)) == NULL) return EXIT_USAGE;
      r = op->set(p, d, v);
      if (r != EXIT_OK) return r;
      break;
    }
    if (k < sizeof(diff_opts_table) / sizeof(diff_opts_table[0])) continue;
    r = view_arg(&p->o, diff_usage, argc, argv, &i);
    if (r == EXIT_OK) return ARG_TAKEN;
    if (r == ARG_TAKEN) continue;
    if (r != ARG_OPERAND) return r;
    if (p->npaths == 2) return usage_error("two dumps, not more");
    p->path[p->npaths++] = argv[i];
  }
  if (p->npaths != 2)
    return usage_error("two dumps needed: <dump-a> <dump-b>");
  if (p->html && p->o.format != EMIT_TABLE)
    return usage_error("--html or --json/--csv, not both");
  if (!p->top_set) p->top = p->html ? 100 : 20;
  d->resolve = p->resolve;
  return EXIT_OK;
}

/* ---- the threshold ------------------------------------------------- */

static int over(const struct diff_opts *p, long long d, u64 total_a)
{
  if (p->pct_mode)
    return (double)diff_mag(d) * 100.0 > p->thr_pct * (double)total_a;
  return diff_mag(d) > p->thr_bytes;
}


/* The row whose live change is the largest over the threshold and not */
/* within its noise, across every table; a message naming it on stderr, */
/* and one counting the changes over the threshold that were noise.     */
/* 0 when none counts.                                                   */
static int threshold_check(const struct diff_opts *p, const struct diff *d)
{
  const struct diff_rows *tabs[4] = { &d->classes, &d->kinds, &d->types,
                                      &d->sites };
  const struct diff_row *worst = NULL;
  int t, wt = 0;
  size_t i, noise = 0;
  char what[600], sz[16];

  if (!p->have_thr) return 0;
  /* Sorted: each table's first row that counts has its largest change. */
  /* A class over it is named before its kind; a kind when no class is;  */
  /* a type or callsite when its change is larger still.                 */
  for (t = 0; t < 4; t++) {
    const struct diff_row *r = NULL;

    for (i = 0; i < tabs[t]->n
                && over(p, tabs[t]->r[i].d_live, d->s[0].live_total); i++) {
      if (tabs[t]->r[i].within) noise++;
      else if (r == NULL) r = &tabs[t]->r[i];
    }
    if (r == NULL) continue;
    if (worst == NULL
        || (t >= 2 && diff_mag(r->d_live) > diff_mag(worst->d_live))) {
      worst = r;
      wt = t;
    }
  }
  if (noise > 0)
    fprintf(stderr, "gcacc diff: %zu change%s over the threshold %s within "
            "sampling noise (%g standard errors; shown in parentheses): not "
            "counted\n", noise, noise == 1 ? " is" : "s are", p->thr_arg,
            d->sigma);
  if (worst == NULL) return 0;
  if (wt < 2) diff_row_label(d, wt == 1, worst, what, sizeof(what));
  else
    snprintf(what, sizeof(what), "%s %s", wt == 2 ? "type" : "callsite",
             worst->key);
  fprintf(stderr, "gcacc diff: ");
  fputs_escaped(what, stderr);
  fprintf(stderr, ": live bytes changed by %s%s, over the threshold %s",
          worst->d_live < 0 ? "-" : "+",
          emit_size(diff_mag(worst->d_live), sz),
          p->thr_arg);
  if (worst->noise > 0)
    fprintf(stderr, " and over its sampling noise %s",
            emit_size((u64)ceil(worst->noise), sz));
  fputc('\n', stderr);
  return 1;
}

/* ---- text, CSV and JSON -------------------------------------------- */

#define NC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* "~12.3 MiB", "~+1.2 KiB": an estimate, for the table.                */
static const char *approx(u64 v, int sign, char *buf)
{
  return diff_size_text(v, sign, 1, buf, 24);
}

/* "a < b < c" cut to fit w characters in a table ("..." at the end).   */
static const char *cut(const char *s, char *buf, size_t w)
{
  size_t l = strlen(s);

  if (l <= w) return s;
  snprintf(buf, w + 1, "%.*s...", (int)(w - 3), s);
  return buf;
}

static void print_sessions(const struct diff *d, enum emit_format f,
                           FILE *out)
{
  static const struct emit_col c_ses[] = {
    { "dump", COL_STR, 0 }, { "records", COL_INT, 0 },
    { "live_gc_no", COL_INT, 0 }, { "live_bytes", COL_BYTES, 0 },
  };
  static const struct emit_col c_ses_m[] = {
    { "dump", COL_STR, 0 }, { "records", COL_INT, 0 },
    { "live_gc_no", COL_INT, 0 }, { "live_bytes", COL_BYTES, 0 },
    { "estimated", COL_INT, 0 }, { "sample_bytes", COL_BYTES, 0 },
  };
  struct emit_table *t;
  int b;

  t = f == EMIT_TABLE ? emit_table_new("", c_ses, NC(c_ses))
                      : emit_table_new("sessions", c_ses_m, NC(c_ses_m));
  for (b = 0; b < 2; b++) {
    const struct diff_side *s = &d->s[b];

    if (f == EMIT_TABLE)
      emit_row(t, s->path, (u64)s->records, s->live_gc_no, s->live_total);
    else
      emit_row(t, s->path, (u64)s->records, s->live_gc_no, s->live_total,
               (u64)s->tb.estimated, s->tb.estimate_bytes);
  }
  emit_print(t, f, out);
}

/* The eight figures of every machine-readable table, after its keys:  */
/* the noise of the live change (0 for exact figures) and whether the    */
/* change counts (not 0, and larger than its noise).                     */
static const struct emit_col figure_cols[8] = {
  { "live_a_bytes", COL_BYTES, 0 }, { "live_b_bytes", COL_BYTES, 0 },
  { "live_change_bytes", COL_SBYTES, 0 },
  { "alloc_a_bytes", COL_BYTES, 0 }, { "alloc_b_bytes", COL_BYTES, 0 },
  { "alloc_change_bytes", COL_SBYTES, 0 },
  { "live_change_noise_bytes", COL_BYTES, 0 },
  { "live_change_significant", COL_INT, 0 },
};

static u64 row_noise(const struct diff_row *r)
{
  return (u64)ceil(r->noise);
}

static u64 row_significant(const struct diff_row *r)
{
  return r->d_live != 0 && !r->within;
}

/* A change in the table: "~+1.2 MiB", "(~-512.1 KiB)" within noise.    */
static const char *approx_change(const struct diff_row *r, char *buf)
{
  char a[24];

  approx((u64)r->d_live, 1, a);
  if (r->within) snprintf(buf, 32, "(%s)", a);
  else snprintf(buf, 32, "%s", a);
  return buf;
}

/* Types or callsites (site); the rows shown whose change is noise.     */
static size_t print_keyed(const struct diff *d, int site, unsigned long top,
                        enum emit_format f, FILE *out)
{
  static const struct emit_col c_t[] = {
    { "type", COL_STR, 30 }, { "live_a", COL_BYTES, 0 },
    { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
    { "alloc_change", COL_SBYTES, 0 },
  };
  static const struct emit_col c_t_est[] = {
    { "type", COL_STR, 30 }, { "live_a", COL_STR, 0 },
    { "live_b", COL_STR, 0 }, { "live_change", COL_STR, 0 },
    { "alloc_change", COL_STR, 0 },
  };
  const struct diff_rows *l = site ? &d->sites : &d->types;
  struct emit_col cols[9];
  struct emit_table *t;
  size_t r, within = 0;
  char cb[40], e1[24], e2[24], e3[32], e4[24];

  if (l->n == 0) return 0;
  if (f != EMIT_JSON) fputc('\n', out);
  if (f == EMIT_TABLE) {
    memcpy(cols, d->estimated ? c_t_est : c_t, sizeof(c_t));
    cols[0].name = site ? "callsite" : "type";
    t = emit_table_new(site ? "Per callsite (b - a), innermost frame first"
                            : "Per type (b - a)", cols, NC(c_t));
  } else {
    cols[0].name = site ? "stack" : "type";
    cols[0].type = COL_STR;
    cols[0].width = 0;
    memcpy(cols + 1, figure_cols, sizeof(figure_cols));
    t = emit_table_new(site ? "sites" : "types", cols, 9);
  }
  for (r = 0; r < l->n && (top == 0 || r < top); r++) {
    const struct diff_row *k = &l->r[r];

    within += k->within;
    if (f != EMIT_TABLE)
      emit_row(t, k->key, k->live_a, k->live_b, (u64)k->d_live, k->alloc_a,
               k->alloc_b, (u64)k->d_alloc, row_noise(k),
               row_significant(k));
    else if (d->estimated)
      emit_row(t, cut(k->key, cb, 30), approx(k->live_a, 0, e1),
               approx(k->live_b, 0, e2), approx_change(k, e3),
               approx((u64)k->d_alloc, 1, e4));
    else
      emit_row(t, cut(k->key, cb, 30), k->live_a, k->live_b, (u64)k->d_live,
               (u64)k->d_alloc);
  }
  emit_print(t, f, out);
  return within;
}

/* Size classes or kinds (kinds).                                       */
static void print_classes(const struct diff *d, int kinds,
                          unsigned long top, enum emit_format f, FILE *out)
{
  static const struct emit_col c_t[] = {
    { "class", COL_STR, 0 }, { "live_a", COL_BYTES, 0 },
    { "live_b", COL_BYTES, 0 }, { "live_change", COL_SBYTES, 0 },
    { "alloc_change", COL_SBYTES, 0 },
  };
  /* The machine-readable forms have numeric kind and class.            */
  static const struct emit_col c_m[] = {
    { "kind", COL_INT, 0 }, { "class", COL_INT, 0 },
    { "label", COL_STR, 0 },
  };
  const struct diff_rows *l = kinds ? &d->kinds : &d->classes;
  struct emit_col cols[11];
  struct emit_table *t;
  size_t r;
  char what[64];

  if (f != EMIT_JSON) fputc('\n', out);
  if (f == EMIT_TABLE) {
    memcpy(cols, c_t, sizeof(c_t));
    if (kinds) cols[0].name = "kind";
    t = emit_table_new(kinds ? "Per kind (b - a)" : "Per size class (b - a)",
                       cols, NC(c_t));
  } else {
    memcpy(cols, c_m, sizeof(c_m));
    memcpy(cols + NC(c_m), figure_cols, sizeof(figure_cols));
    t = emit_table_new(kinds ? "kinds" : "classes", cols, 11);
  }
  for (r = 0; r < l->n && (top == 0 || r < top); r++) {
    const struct diff_row *v = &l->r[r];

    diff_row_label(d, kinds, v, what, sizeof(what));
    if (f == EMIT_TABLE)
      emit_row(t, what, v->live_a, v->live_b, (u64)v->d_live,
               (u64)v->d_alloc);
    else
      emit_row(t, (u64)v->kind, kinds ? 0ULL : (u64)v->cls, what, v->live_a,
               v->live_b, (u64)v->d_live, v->alloc_a, v->alloc_b,
               (u64)v->d_alloc, row_noise(v), row_significant(v));
  }
  emit_print(t, f, out);
}

/* s on lines of at most 78 columns, broken at spaces.                  */
static void print_wrapped(const char *s, FILE *out)
{
  while (*s) {
    size_t n = strlen(s), cut = n;

    if (n > 78) {
      for (cut = 78; cut > 0 && s[cut] != ' '; cut--) {}
      if (cut == 0) cut = n;
    }
    fprintf(out, "%.*s\n", (int)cut, s);
    s += cut;
    while (*s == ' ') s++;
  }
}

static void print_diff(const struct diff *d, unsigned long top,
                       enum emit_format f, FILE *out)
{
  char note[300];
  size_t within;

  if (f == EMIT_JSON) {
    emit_json_begin(out);
    /* Before the first table: emit_json_begin's object then goes on.   */
    fprintf(out, "\"estimated\":%s,\"sigma\":%g,",
            d->estimated ? "true" : "false", d->sigma);
  }
  print_sessions(d, f, out);
  if (f == EMIT_TABLE && diff_estimate_note(d, note, sizeof(note))) {
    fputc('\n', out);
    print_wrapped(note, out);
  }
  within = print_keyed(d, 0, top, f, out);
  within += print_keyed(d, 1, top, f, out);
  print_classes(d, 0, top, f, out);
  print_classes(d, 1, top, f, out);
  if (f == EMIT_TABLE && within > 0) {
    snprintf(note, sizeof(note), "(~...): a change within sampling noise, "
             "no larger than %g standard errors of the two estimates "
             "(--sigma); --threshold does not count it", d->sigma);
    fputc('\n', out);
    print_wrapped(note, out);
  }
  if (f == EMIT_JSON) emit_json_end(out);
}

int cmd_diff(int argc, char **argv)
{
  struct diff_opts p;
  struct diff d;
  FILE *out;
  int rc;

  memset(&p, 0, sizeof(p));
  memset(&d, 0, sizeof(d));
  d.sigma = DIFF_SIGMA;
  p.o.format = EMIT_TABLE;
  p.o.progress = -1;
  rc = diff_args(&p, &d, argc, argv);
  if (rc == ARG_TAKEN) return EXIT_OK;
  if (rc != EXIT_OK) return rc;
  rc = diff_compute(&d, p.path[0], p.path[1], p.o.progress);
  if (rc != EXIT_OK) goto done;
  out = common_output(&p.o);
  if (out == NULL) {
    rc = EXIT_USAGE;
    goto done;
  }
  if (p.html) {
    if (compare_write_html(out, &d, p.top) != 0) {
      error("cannot write %s", p.o.output ? p.o.output : "<stdout>");
      rc = EXIT_USAGE;
    }
  } else {
    print_diff(&d, p.top, p.o.format, out);
  }
  common_close(&p.o, out);
  if (rc == EXIT_OK && threshold_check(&p, &d)) rc = EXIT_FINDING;

done:
  diff_free(&d);
  return rc;
}
