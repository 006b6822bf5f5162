/*
 * cmd_leaks.c: the (kind, size class) rows whose live bytes grow steadily
 * across the session.  The rule, over the collection records with a
 * census (record i of n, split into W = min(10, n) equal windows by i):
 * a row is a leak when
 *   1. the least-squares slope of its live bytes against i is positive;
 *   2. it ends at least twice as high as it began: the lowest value of the
 *      last window is >= 2 x the highest value of the first window, and
 *   3. at least LEAK_MIN_GROWTH bytes higher;
 *   4. it rises steadily: the window maxima rise from one window to the
 *      next in at least 70% of the W - 1 steps;
 *   5. it never falls back: no window's lowest value is below half the
 *      previous window's highest.
 * A steady leak passes every test.  A steady state fails 2; a sawtooth
 * (a cache filled and dropped) fails 2 when dropped within windows, 5
 * when dropped across them; a warm-up that then levels off fails 4.
 * A row absent from a record counts as 0 live bytes there.  The window a
 * record falls in needs n, so the dump is read twice: once to count the
 * records, once to fold them; memory is one fixed set of windows per key,
 * never a series per record.
 */

#include "gcacc.h"
#include "session.h"
#include "dump_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LEAK_WINDOWS 10
#define LEAK_MIN_GROWTH (64 * 1024ULL)

static const char leaks_usage[] =
  "usage: gcacc leaks [<options>] <dump>\n"
  "\n"
  "The (kind, size class) rows whose live bytes grow steadily across the\n"
  "session.  Over the n collections with a census, split into 10 equal\n"
  "windows, a row is reported when all of these hold:\n"
  "  - the least-squares slope of its live bytes per collection is > 0;\n"
  "  - the lowest value in the last window is at least 2x the highest in\n"
  "    the first window, and at least 64 KiB more;\n"
  "  - the window maxima rise in at least 70% of the steps between\n"
  "    consecutive windows;\n"
  "  - no window's lowest value falls below half the previous window's\n"
  "    highest (a cache that is dropped is not a leak).\n"
  "Columns: kind, class, start_bytes (first window's highest), end_bytes\n"
  "(last window's lowest), growth_bytes, slope_bytes (per collection),\n"
  "rises (steps where the window maximum rose, of windows - 1).\n"
  "The dump is read twice, so it must be a file, not standard input.\n"
  "Exit status 1 when a leak is reported, 0 when none is.\n"
  "\n"
  "  --min-collections <N>\n"
  "                      report nothing (with a warning) for a dump with\n"
  "                      fewer than N collections with a census (default\n"
  "                      10, at least 3)\n"
  "  --json, --csv       machine-readable output (the same numbers)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

struct leak_key {
  double sy, sxy;                       /* least-squares sums            */
  u64 wmax[LEAK_WINDOWS], wmin[LEAK_WINDOWS];
  u64 wseen[LEAK_WINDOWS];              /* records of the window with it */
};

struct leaks {
  u64 n;                                /* census records (first pass)   */
  unsigned windows;
  u64 i;                                /* census records so far         */
  u64 wrecords[LEAK_WINDOWS];
  struct keymap *m;
};

static int leaks_visit(const struct rec *r, void *arg)
{
  struct leaks *l = arg;
  const json_t *row;
  size_t j;
  unsigned w;

  if (!r->collection || !r->census) return 0;
  w = (unsigned)(l->i * l->windows / l->n);
  if (w >= l->windows) w = l->windows - 1;      /* the file grew */
  l->wrecords[w]++;
  json_array_foreach(json_object_get(r->json, "classes"), j, row) {
    u64 key = jrow(row, CL_KIND) << 32 | (jrow(row, CL_CLASS) & 0xffffffffULL);
    u64 y = jrow(row, CL_LIVE_BYTES);
    struct leak_key *k;

    if (y == 0) continue;               /* counts as absent: 0 */
    k = keymap_get(l->m, key, 1);
    k->sy += (double)y;
    k->sxy += (double)y * (double)l->i;
    if (y > k->wmax[w]) k->wmax[w] = y;
    if (k->wseen[w] == 0 || y < k->wmin[w]) k->wmin[w] = y;
    k->wseen[w]++;
  }
  l->i++;
  return 0;
}

/* The first pass: census records, quietly (the second pass reports     */
/* truncation and errors).                                               */
static u64 count_census(const char *path, int progress)
{
  const char *err;
  struct dump_reader *d = dump_open(path, &err);
  json_t *v;
  u64 n = 0;

  if (d == NULL) return 0;
  while (dump_next(d, &v) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    if (strcmp(kind, "collection") == 0 && jnum(v, "census") != 0) n++;
    json_decref(v);
    progress_update(progress, dump_name(d), dump_compressed_offset(d),
                    dump_compressed_size(d));
  }
  progress_done(progress);
  dump_close(d);
  return n;
}

struct finding {
  u64 key, start, end;
  double slope;
  unsigned rises;
};

static int cmp_finding(const void *pa, const void *pb)
{
  const struct finding *a = pa, *b = pb;
  u64 ga = a->end - a->start, gb = b->end - b->start;

  if (ga != gb) return ga > gb ? -1 : 1;
  return a->key < b->key ? -1 : a->key > b->key;
}

/* Apply the rule (see the top of the file) to one key; 1 if a leak.     */
static int judge(const struct leaks *l, u64 n, const struct leak_key *k,
                 struct finding *f)
{
  unsigned w, W = l->windows, last = W - 1;
  double sx = (double)n * (double)(n - 1) / 2;
  double sxx = (double)(n - 1) * (double)n * (double)(2 * n - 1) / 6;
  double den = (double)n * sxx - sx * sx;
  u64 wmin[LEAK_WINDOWS];

  for (w = 0; w < W; w++)
    wmin[w] = k->wseen[w] < l->wrecords[w] ? 0 : k->wmin[w];
  f->slope = den > 0 ? ((double)n * k->sxy - sx * k->sy) / den : 0;
  f->start = k->wmax[0];
  f->end = wmin[last];
  f->rises = 0;
  for (w = 1; w < W; w++)
    if (k->wmax[w] > k->wmax[w - 1]) f->rises++;
  if (!(f->slope > 0)) return 0;
  if (f->end < 2 * f->start || f->end - f->start < LEAK_MIN_GROWTH) return 0;
  if (f->rises * 10 < 7 * (W - 1)) return 0;
  for (w = 1; w < W; w++)
    if (wmin[w] < k->wmax[w - 1] / 2) return 0;
  return 1;
}

int cmd_leaks(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  struct session_info info;
  struct leaks l;
  const char *path = NULL;
  struct emit_table *t;
  struct finding *found;
  FILE *out;
  u64 min_coll = 10;
  size_t i, nfound = 0;
  int a, rc;
  char kb[16], cb[32];
  static const struct emit_col cols[] = {
    { "kind", COL_STR, 0 },
    { "class", COL_STR, 0 },
    { "start_bytes", COL_BYTES, 0 },
    { "end_bytes", COL_BYTES, 0 },
    { "growth_bytes", COL_BYTES, 0 },
    { "slope_bytes", COL_BYTES, 0 },
    { "rises", COL_INT, 0 },
  };

  for (a = 1; a < argc; a++) {
    int c;

    if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
      fputs(leaks_usage, stdout);
      return EXIT_OK;
    }
    c = common_opt(&o, argc, argv, &a);
    if (c < 0) return EXIT_USAGE;
    if (c > 0) continue;
    if (strcmp(argv[a], "--min-collections") == 0) {
      char *end;

      if (a + 1 >= argc)
        return usage_error("option '%s' needs a value", argv[a]);
      errno = 0;
      min_coll = strtoull(argv[++a], &end, 10);
      if (errno || *end != '\0' || argv[a][0] < '0' || argv[a][0] > '9'
          || min_coll < 3)
        return usage_error("--min-collections needs a number >= 3, "
                           "not '%s'", argv[a]);
      continue;
    }
    if (argv[a][0] == '-' && argv[a][1] != '\0')
      return usage_error("unknown option '%s'", argv[a]);
    if (path != NULL) return usage_error("one dump at a time");
    path = argv[a];
  }
  if (path == NULL) return usage_error("no dump given");
  if (strcmp(path, "-") == 0)
    return usage_error("leaks reads the dump twice: give a file, not "
                       "standard input");

  memset(&l, 0, sizeof(l));
  l.n = count_census(path, o.progress);
  l.windows = l.n < LEAK_WINDOWS ? (unsigned)(l.n ? l.n : 1) : LEAK_WINDOWS;
  if (l.n == 0) l.n = 1;
  l.m = keymap_new(sizeof(struct leak_key));
  rc = session_scan(path, o.progress, leaks_visit, &l, &info);
  if (rc != EXIT_OK) {
    keymap_free(l.m);
    json_decref(info.header);
    return rc;
  }
  found = malloc((keymap_count(l.m) + 1) * sizeof(*found));
  if (found == NULL) abort();
  if (l.i < min_coll) {
    warning("%s: %llu collections with a census, fewer than %llu: "
            "no verdict (see --min-collections)", path, l.i, min_coll);
  } else {
    for (i = 0; i < keymap_count(l.m); i++) {
      u64 key;
      const struct leak_key *k = keymap_at(l.m, i, &key);

      found[nfound].key = key;
      if (judge(&l, l.i, k, &found[nfound])) nfound++;
    }
  }
  qsort(found, nfound, sizeof(*found), cmp_finding);

  out = common_output(&o);
  if (out == NULL) {
    rc = EXIT_USAGE;
  } else if (o.format == EMIT_TABLE && nfound == 0) {
    fprintf(out, "no (kind, class) grows steadily over %llu collections\n",
            l.i);
  } else {
    t = emit_table_new(o.format == EMIT_TABLE ? "" : "leaks", cols,
                       (int)(sizeof(cols) / sizeof(cols[0])));
    for (i = 0; i < nfound; i++) {
      const struct finding *f = &found[i];

      emit_row(t, kind_label((unsigned)(f->key >> 32), kb),
               class_label(info.header, (unsigned)(f->key & 0xffffffffULL),
                           cb),
               f->start, f->end, f->end - f->start,
               (unsigned long long)(f->slope + 0.5), (u64)f->rises);
    }
    if (o.format == EMIT_JSON) emit_json_begin(out);
    emit_print(t, o.format, out);
    if (o.format == EMIT_JSON) emit_json_end(out);
  }
  if (out != NULL) {
    common_close(&o, out);
    rc = nfound ? EXIT_FINDING : EXIT_OK;
  }
  free(found);
  keymap_free(l.m);
  json_decref(info.header);
  return rc;
}
