/* SPDX-License-Identifier: MIT */
/*
 * tables.c: the type and callsite tables of a dump (see tables.h).
 *
 * The rebuild rule (docs/dump-format.md, "Types, callsites and ages"):
 * start empty; at each census collection, every row present replaces its
 * group's live and age columns (absent groups keep theirs) and adds its
 * alloc and freed deltas to the group's totals.  Sampling ("Sampling"):
 * in sample mode a sampled object of s bytes stands for
 * w(s) = s / (1 - exp(-s / B)) bytes; site rows carry sums, so the reader
 * scales a row by w(s)/s at its mean object size s = bytes / objs, with
 * sample_weight, the reader's one w.  Rows are read by column name
 * (struct dump_cols: the header's "columns").
 */

#include "tables.h"
#include "gcacc.h"
#include "symbolize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup_(const char *s)
{
  char *d = malloc(strlen(s) + 1);

  if (d == NULL) abort();
  return strcpy(d, s);
}

void tables_init(struct tables *t, const struct session_info *info)
{
  memset(t, 0, sizeof(*t));
  t->info = info;
  t->types = keymap_new(sizeof(struct group));
  t->sites = keymap_new(sizeof(struct group));
  t->pairs = keymap_new(2 * sizeof(u64));
}

void tables_free(struct tables *t)
{
  size_t i;

  for (i = 0; i < keymap_count(t->types); i++)
    free(((struct group *)keymap_at(t->types, i, NULL))->name);
  for (i = 0; i < keymap_count(t->sites); i++)
    free(((struct group *)keymap_at(t->sites, i, NULL))->frames);
  keymap_free(t->types);
  keymap_free(t->sites);
  keymap_free(t->pairs);
  for (i = 0; i < t->nmods; i++) {
    free(t->mods[i].name);
    free(t->mods[i].key);
  }
  free(t->mods);
  for (i = 0; i < t->nsyms; i++) {
    free(t->syms[i].key);
    free(t->syms[i].func);
  }
  free(t->syms);
  memset(t, 0, sizeof(*t));
}

static int mod_cmp(const void *a, const void *b)
{
  const struct tables_module *x = a, *y = b;

  return x->base < y->base ? -1 : x->base > y->base;
}

/* The header's sampling settings and module map, once it is known.     */
/* Warns (once) when the header says sample mode without a sample size.  */
static void tables_header(struct tables *t)
{
  const json_t *header = t->info != NULL ? t->info->header : NULL;
  const json_t *c, *m;
  const char *mode;
  size_t i;

  if (header == NULL || t->header == header) return;
  t->header = header;
  c = json_object_get(header, "config");
  mode = json_string_value(json_object_get(c, "profile"));
  if (mode != NULL && strcmp(mode, "sampled") == 0) {
    t->estimated = t->header_sampled = 1;
    t->estimate_bytes = header_config(header, "sample_bytes", 0);
  }
  mode = json_string_value(json_object_get(c, "stacks"));
  if (!t->estimated && mode != NULL && strcmp(mode, "sample") == 0) {
    u64 b = header_config(header, "stacks_sample_bytes", 0);

    if (b == 0)
      warning("the header says stacks=sample without stacks_sample_bytes: "
              "callsite figures are not scaled (read as stacks=all)");
    else {
      t->sample = 1;
      t->sample_bytes = (double)b;
    }
  }
  json_array_foreach(json_object_get(header, "modules"), i, m) {
    const char *path, *bid, *bn;
    u64 base;

    if (!header_module(m, &path, &bid, &base)) continue;
    if (path == NULL) path = "";
    bn = strrchr(path, '/');
    if ((t->nmods & (t->nmods - 1)) == 0) {     /* doubling (a header */
      /* may list 100 000 modules: one realloc each was quadratic)      */
      t->mods = realloc(t->mods, (t->nmods ? 2 * t->nmods : 1)
                                 * sizeof(*t->mods));
      if (t->mods == NULL) abort();
    }
    t->mods[t->nmods].base = base;
    t->mods[t->nmods].name = xstrdup_(bn ? bn + 1 : path[0] ? path : "?");
    /* The symbol cache's key (cmd_symbolize.c): build id, else path.    */
    t->mods[t->nmods].key = xstrdup_(bid != NULL && bid[0] ? bid : path);
    t->nmods++;
  }
  if (t->nmods) qsort(t->mods, t->nmods, sizeof(*t->mods), mod_cmp);
}

/* The columns of frame records' rows: the scan's, once it has read    */
/* the header (records carry theirs in struct rec).                      */
static const struct dump_cols *frame_cols(const struct tables *t)
{
  static struct dump_cols fallback;
  static int ready;

  if (t->info != NULL) return &t->info->cols;
  if (!ready) {
    dump_cols_init(&fallback, NULL);
    ready = 1;
  }
  return &fallback;
}

/* "types" and "sites" definitions of any record.                        */
static void apply_defs(struct tables *t, const json_t *j,
                       const struct dump_cols *c)
{
  const struct dump_tab types = rec_tab(j, "types");
  const struct dump_tab sites = rec_tab(j, "sites");
  size_t i, k;

  /* A row the cap folds counts in keymap_folded: no definition kept.   */
  for (i = 0; i < dump_tab_rows(&types); i++) {
    u64 id = tcol(&types, i, c, types, type_id), f0 = keymap_folded(t->types);
    struct group *g = keymap_get(t->types, id, 1);
    const char *name = dump_tab_str(&types, i, DUMP_COL(c, types, name));
    u64 cookie = 0;

    if (keymap_folded(t->types) != f0) continue;
    parse_addr(dump_tab_str(&types, i, DUMP_COL(c, types, cookie)), &cookie);
    g->cookie = cookie;
    free(g->name);
    g->name = xstrdup_(name != NULL ? name : "?");
    g->defined = 1;
  }
  for (i = 0; i < dump_tab_rows(&sites); i++) {
    u64 id = tcol(&sites, i, c, sites, site_id), f0 = keymap_folded(t->sites);
    struct group *g = keymap_get(t->sites, id, 1);
    size_t n = dump_tab_len(&sites, i);

    if (keymap_folded(t->sites) != f0) continue;
    free(g->frames);
    g->frames = malloc((n ? n : 1) * sizeof(u64));
    if (g->frames == NULL) abort();
    g->nframes = 0;
    /* "frames" is the rest of the row.                                  */
    for (k = DUMP_COL(c, sites, frames); k < n; k++) {
      long long v;
      u64 a;

      if (dump_tab_int(&sites, i, k, &v))
        g->frames[g->nframes++] = v > 0 ? (u64)v : 0;
      else if (parse_addr(dump_tab_str(&sites, i, k), &a))
        g->frames[g->nframes++] = a;
    }
    g->defined = 1;
  }
}

/* Where a "type_rows" or "site_rows" row has each column.               */
struct group_cols {
  size_t id, live_objs, live_bytes, alloc_objs, alloc_bytes, freed_objs;
  size_t freed_bytes, age[TABLES_AGE_BINS];
  size_t s_live, s_alloc, s_freed;
};
#define GROUP_COLS(c, t, idcol) { \
  DUMP_COL(c, t, idcol), DUMP_COL(c, t, live_objs), \
  DUMP_COL(c, t, live_bytes), DUMP_COL(c, t, alloc_objs), \
  DUMP_COL(c, t, alloc_bytes), DUMP_COL(c, t, freed_objs), \
  DUMP_COL(c, t, freed_bytes), \
  { DUMP_COL(c, t, age0), DUMP_COL(c, t, age1), DUMP_COL(c, t, age2_3), \
    DUMP_COL(c, t, age4_7), DUMP_COL(c, t, age8_15), \
    DUMP_COL(c, t, age16_31), DUMP_COL(c, t, age32) }, \
  DUMP_COL(c, t, samples_live), DUMP_COL(c, t, samples_alloc), \
  DUMP_COL(c, t, samples_freed) }

static void apply_rows(struct tables *t, struct keymap *m,
                       const struct dump_tab *rows, int site,
                       const struct group_cols *gc)
{
  size_t i;
  int b;

  for (i = 0; i < dump_tab_rows(rows); i++) {
    u64 id = tab_u64(rows, i, gc->id), f0 = keymap_folded(m);
    struct group *g = keymap_get(m, id, 1);

    if (keymap_folded(m) != f0) {
      /* Folded: "other" is the sum of this census's folded rows.       */
      if (g->d_rec != t->census) {
        g->live_objs = g->live_bytes = 0;
        memset(g->age, 0, sizeof(g->age));
        g->d_alloc_objs = g->d_alloc_bytes = 0;
        g->d_freed_objs = g->d_freed_bytes = 0;
        g->s_live = g->d_s_alloc = g->d_s_freed = 0;
        g->d_rec = t->census;
      }
      g->s_live += tab_u64(rows, i, gc->s_live);
      g->d_s_alloc += tab_u64(rows, i, gc->s_alloc);
      g->d_s_freed += tab_u64(rows, i, gc->s_freed);
      g->s_alloc += tab_u64(rows, i, gc->s_alloc);
      g->s_freed += tab_u64(rows, i, gc->s_freed);
      g->live_objs += tab_u64(rows, i, gc->live_objs);
      g->live_bytes += tab_u64(rows, i, gc->live_bytes);
      for (b = 0; b < TABLES_AGE_BINS; b++)
        g->age[b] += tab_u64(rows, i, gc->age[b]);
      g->d_alloc_objs += tab_u64(rows, i, gc->alloc_objs);
      g->d_alloc_bytes += tab_u64(rows, i, gc->alloc_bytes);
      g->d_freed_objs += tab_u64(rows, i, gc->freed_objs);
      g->d_freed_bytes += tab_u64(rows, i, gc->freed_bytes);
      g->alloc_objs += tab_u64(rows, i, gc->alloc_objs);
      g->alloc_bytes += tab_u64(rows, i, gc->alloc_bytes);
      g->freed_objs += tab_u64(rows, i, gc->freed_objs);
      g->freed_bytes += tab_u64(rows, i, gc->freed_bytes);
      if (g->live_objs > g->max_live_objs) g->max_live_objs = g->live_objs;
      if (g->live_bytes > g->max_live_bytes) {
        g->max_live_bytes = g->live_bytes;
        g->max_s_live = g->s_live;
      }
      continue;
    }
    if (site ? id >= 2 : id != 0) {
      if (site) t->has_site_rows = 1;
      else t->has_type_rows = 1;
    }
    g->live_objs = tab_u64(rows, i, gc->live_objs);
    g->live_bytes = tab_u64(rows, i, gc->live_bytes);
    for (b = 0; b < TABLES_AGE_BINS; b++)
      g->age[b] = tab_u64(rows, i, gc->age[b]);
    g->d_alloc_objs = tab_u64(rows, i, gc->alloc_objs);
    g->d_alloc_bytes = tab_u64(rows, i, gc->alloc_bytes);
    g->d_freed_objs = tab_u64(rows, i, gc->freed_objs);
    g->d_freed_bytes = tab_u64(rows, i, gc->freed_bytes);
    g->s_live = tab_u64(rows, i, gc->s_live);
    g->d_s_alloc = tab_u64(rows, i, gc->s_alloc);
    g->d_s_freed = tab_u64(rows, i, gc->s_freed);
    g->s_alloc += g->d_s_alloc;
    g->s_freed += g->d_s_freed;
    g->d_rec = t->census;
    g->alloc_objs += g->d_alloc_objs;
    g->alloc_bytes += g->d_alloc_bytes;
    g->freed_objs += g->d_freed_objs;
    g->freed_bytes += g->d_freed_bytes;
    if (g->live_objs > g->max_live_objs) g->max_live_objs = g->live_objs;
    if (g->live_bytes > g->max_live_bytes) {
      g->max_live_bytes = g->live_bytes;
      g->max_s_live = g->s_live;
    }
  }
}

static size_t dump_tab_rows_of(const json_t *j, const char *key)
{
  const struct dump_tab rows = rec_tab(j, key);

  return dump_tab_rows(&rows);
}

void tables_record(struct tables *t, const struct rec *r)
{
  u64 acc = jnum(r->json, "acc_memory_bytes");
  const json_t *unw = json_object_get(r->json, "unwind");

  tables_header(t);
  apply_defs(t, r->json, r->cols);
  if (acc > t->acc_peak) {
    t->acc_peak = acc;
    t->acc_peak_heap = r->heap_bytes;
  }
  if (unw != NULL) {                   /* cumulative: the last one says */
    t->unwind_walks = jnum(unw, "walks");
    t->unwind_fell_back = jnum(unw, "fell_back");
  }
  /* The sampler's mean as the record says (the header's is the one at */
  /* the start: a program may choose its stacks after it).              */
  if (!t->estimated && json_object_get(r->json, "stacks_sample_bytes")) {
    u64 b = jnum(r->json, "stacks_sample_bytes");

    t->sample = b != 0;
    t->sample_bytes = (double)b;
  }
  if (!r->collection || !r->census) return;
  t->census++;
  /* A record with rows says which kind its figures are; one without  */
  /* (a collection before anything was allocated: GC_init's own, under */
  /* the default profile, in a program that switches to full or trace  */
  /* right after) says nothing.                                         */
  if (dump_tab_rows_of(r->json, "type_rows") > 0
      || dump_tab_rows_of(r->json, "site_rows") > 0) {
    if (json_object_get(r->json, "samples") != NULL) t->sampled_records++;
    else t->exact_records++;
    t->estimated = t->sampled_records > 0
                   || (t->header_sampled && t->exact_records == 0);
  }
  {
    const struct group_cols tc = GROUP_COLS(r->cols, type_rows, type_id);
    const struct group_cols sc = GROUP_COLS(r->cols, site_rows, site_id);

    const struct dump_tab trows = rec_tab(r->json, "type_rows");
    const struct dump_tab srows = rec_tab(r->json, "site_rows");

    apply_rows(t, t->types, &trows, 0, &tc);
    apply_rows(t, t->sites, &srows, 1, &sc);
  }
}

void tables_frame(struct tables *t, const json_t *f)
{
  const struct dump_cols *c = frame_cols(t);
  const struct dump_tab rows = rec_tab(f, "rows");
  size_t i;

  tables_header(t);
  apply_defs(t, f, c);
  t->frames++;
  for (i = 0; i < dump_tab_rows(&rows); i++) {
    u64 ty = tcol(&rows, i, c, frame_rows, type_id);
    u64 si = tcol(&rows, i, c, frame_rows, site_id);
    u64 objs = tcol(&rows, i, c, frame_rows, objs);
    u64 bytes = tcol(&rows, i, c, frame_rows, bytes);
    u64 *p = keymap_get(t->pairs, ty << 32 | (si & 0xffffffffULL), 1);
    struct group *g;

    p[0] += objs;
    p[1] += bytes;
    t->frame_objs += objs;
    t->frame_bytes += bytes;
    g = keymap_get(t->types, ty, 1);
    g->frame_objs += objs;
    g->frame_bytes += bytes;
    g = keymap_get(t->sites, si, 1);
    g->frame_objs += objs;
    g->frame_bytes += bytes;
  }
  t->lost_objs += jnum(f, "lost_objs");
  t->lost_bytes += jnum(f, "lost_bytes");
}

double sample_weight(double s, double b)
{
  if (!(s > 0) || !(b > 0)) return s;
  /* 1 - exp(-s/B) as -expm1(-s/B): no cancellation when s << B.         */
  return s / -expm1(-s / b);
}

double tables_sample_error(u64 n)
{
  return n == 0 ? -1.0 : 1.0 / sqrt((double)n);
}

u64 tables_scale(const struct tables *t, int site, u64 objs, u64 bytes,
                 u64 value)
{
  double s, w;

  if (!site || !t->sample || objs == 0 || bytes == 0) return value;
  s = (double)bytes / (double)objs;
  w = sample_weight(s, t->sample_bytes);
  if (!(w > 0) || !(w < HUGE_VAL)) return value;
  return (u64)((double)value * (w / s) + 0.5);  /* value * w(s) / s     */
}

u64 tables_old_objs(const struct group *g)
{
  u64 n = 0;
  int b;

  for (b = TABLES_OLD_BIN; b < TABLES_AGE_BINS; b++) n += g->age[b];
  return n;
}

const char *tables_type_label(const struct tables *t, u64 id, char *buf,
                              size_t sz)
{
  const struct group *g = keymap_get(t->types, id, 0);

  if (id == 0) snprintf(buf, sz, "(no type)");
  else if (id == KEYMAP_OTHER || id == 0xffffffffULL)
    snprintf(buf, sz, "(other types)");
  else if (g == NULL || g->name == NULL) snprintf(buf, sz, "type %llu", id);
  else snprintf(buf, sz, "%s", g->name);
  return buf;
}

static int sym_cmp(const void *a, const void *b)
{
  const struct tables_sym *x = a, *y = b;
  int c = strcmp(x->key, y->key);

  if (c) return c;
  return x->off < y->off ? -1 : x->off > y->off;
}

static const struct tables_module *module_of(const struct tables *t, u64 a)
{
  size_t lo = 0, hi = t->nmods;

  while (lo < hi) {                     /* the last base <= a */
    size_t mid = (lo + hi) / 2;

    if (t->mods[mid].base <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo ? &t->mods[lo - 1] : NULL;
}

const char *tables_addr_label(const struct tables *t, u64 addr, char *buf,
                              size_t sz)
{
  const struct tables_module *mo = module_of(t, addr);

  if (mo == NULL) {
    snprintf(buf, sz, "0x%llx", addr);
    return buf;
  }
  if (t->nsyms) {
    struct tables_sym key, *hit;

    key.key = mo->key;
    key.off = addr - mo->base;
    hit = bsearch(&key, t->syms, t->nsyms, sizeof(*t->syms), sym_cmp);
    if (hit != NULL) {
      snprintf(buf, sz, "%s", hit->func);
      return buf;
    }
  }
  snprintf(buf, sz, "%s+0x%llx", mo->name, addr - mo->base);
  return buf;
}

const char *tables_site_label(const struct tables *t, u64 id,
                              unsigned max_frames, char *buf, size_t sz)
{
  const struct group *g = keymap_get(t->sites, id, 0);
  size_t used = 0;
  unsigned k, n;

  if (id == 0) snprintf(buf, sz, "(no stack)");
  else if (id == 1) snprintf(buf, sz, "(not sampled)");
  else if (id == KEYMAP_OTHER || id == 0xffffffffULL)
    snprintf(buf, sz, "(other sites)");
  else if (g == NULL || !g->defined) snprintf(buf, sz, "site %llu", id);
  else if (g->nframes == 0) snprintf(buf, sz, "(stack unknown)");
  else {
    n = max_frames && max_frames < g->nframes ? max_frames : g->nframes;
    buf[0] = '\0';
    for (k = 0; k < n && used + 1 < sz; k++) {
      char a[256];

      tables_addr_label(t, g->frames[k], a, sizeof(a));
      used += (size_t)snprintf(buf + used, sz - used, "%s%s",
                               k ? " < " : "", a);
      if (used >= sz) used = sz - 1;
    }
    if (n < g->nframes && used + 1 < sz)
      snprintf(buf + used, sz - used, " < ...");
  }
  return buf;
}

size_t tables_load_symbols(struct tables *t, const char *dump)
{
  char *path, *line = NULL;
  size_t lcap = 0, cap = t->nsyms, n0 = t->nsyms;
  ssize_t len;
  FILE *f;

  if (dump == NULL || strcmp(dump, "-") == 0) return 0;
  path = malloc(strlen(dump) + 9);
  if (path == NULL) abort();
  sprintf(path, "%s.symbols", dump);
  /* symbolize.c's file, read as it reads it (regular files only).     */
  f = symcache_open(path, NULL, 0);
  if (f == NULL) {
    free(path);
    return 0;
  }
  while ((len = getline(&line, &lcap, f)) > 0) {
    const char *key;
    char *ans, *tab;
    u64 off;

    if (line[len - 1] == '\n') line[--len] = '\0';
    if (!symcache_line(line, &key, &off, &ans)) continue;
    if ((tab = strchr(ans, '\t')) != NULL) *tab = '\0';
    text_unescape(ans);                 /* the innermost function      */
    if (strcmp(ans, "??") == 0) continue;
    if (t->nsyms - n0 == SYMCACHE_MAX_ENTRIES) {
      symcache_full(path);
      break;
    }
    if (t->nsyms == cap) {
      cap = cap ? 2 * cap : 256;
      t->syms = realloc(t->syms, cap * sizeof(*t->syms));
      if (t->syms == NULL) abort();
    }
    t->syms[t->nsyms].key = xstrdup_(key);
    t->syms[t->nsyms].off = off;
    t->syms[t->nsyms].func = xstrdup_(ans);
    t->nsyms++;
  }
  free(line);
  free(path);
  fclose(f);
  if (t->nsyms) qsort(t->syms, t->nsyms, sizeof(*t->syms), sym_cmp);
  return t->nsyms;
}

void tables_capture(const struct tables *t, int site, struct tables_view *v)
{
  const struct keymap *m = site ? t->sites : t->types;
  size_t i;

  tables_view_free(v);
  v->n = keymap_count(m);
  v->ids = malloc((v->n ? v->n : 1) * sizeof(*v->ids));
  v->g = malloc((v->n ? v->n : 1) * sizeof(*v->g));
  if (v->ids == NULL || v->g == NULL) abort();
  for (i = 0; i < v->n; i++)
    v->g[i] = *(const struct group *)keymap_at(m, i, &v->ids[i]);
  v->census = t->census;
}

void tables_view_free(struct tables_view *v)
{
  free(v->ids);
  free(v->g);
  memset(v, 0, sizeof(*v));
}
