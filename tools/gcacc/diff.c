/* SPDX-License-Identifier: MIT */
/*
 * diff.c: two sessions compared, the computation (diff.h): each dump
 * read once, lean; its rows per size class, kind, type and callsite
 * matched with the other's by identity, never by raw address; the
 * changes, their sampling noise, and the order shown.  `gcacc diff`
 * (cmd_diff.c) prints them as text, CSV or JSON; diff_html.c draws the
 * Compare view.  Nothing here prints but errors and warnings.
 *
 * Live bytes are taken at each session's peak-live collection (the census
 * with the most live bytes in all; --live last: the last census), from
 * that collection's class rows and its type and site tables (tables.h);
 * allocated bytes are session totals.  Rows are sorted by the absolute
 * change in live bytes, then in allocated bytes.  Sampled sites
 * (stacks=sample) are scaled by w(s); figures of a sampled profile
 * (profile "sampled") are estimates already.
 *
 * Cost: one lean pass over each dump (session_lean: row tables parsed
 * compactly, not as jansson trees); per record, work linear in its rows.
 * The live bytes of every type and site at the peak are kept versioned
 * (the value before its first change after the peak), so a peak that
 * moves every record costs nothing more.  Memory: two kind x class
 * arrays per dump, its types and sites (capped, tables.h).
 */

#include "gcacc.h"
#include "diff.h"
#include "symbolize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NK DIFF_NK
#define NCL DIFF_NCL

/* ---- one session --------------------------------------------------- */

/* A type's or site's live bytes, versioned: cur since census cur_at,   */
/* and saved, its value at census saved_for (the peak it was current     */
/* at when it next changed).                                             */
struct vlive { u64 cur, cur_at, saved, saved_for; };

static int diff_frame(const json_t *frame, void *arg)
{
  struct diff_side *s = arg;

  tables_frame(&s->tb, frame);
  return 0;
}

/* After the census record's rows were applied: the new live value of   */
/* every type (site) the record has a row for.                           */
static void version_rows(struct diff_side *s, const struct rec *r, int site)
{
  const struct dump_tab rows = rec_tab(r->json, site ? "site_rows"
                                                     : "type_rows");
  size_t idcol = site ? DUMP_COL(r->cols, site_rows, site_id)
                      : DUMP_COL(r->cols, type_rows, type_id);
  struct keymap *groups = site ? s->tb.sites : s->tb.types;
  struct keymap *v = site ? s->vsites : s->vtypes;
  u64 n = s->tb.census, peak = s->have_live ? s->live_census : 0;
  size_t i;

  for (i = 0; i < dump_tab_rows(&rows); i++) {
    u64 id = tab_u64(&rows, i, idcol);
    const struct group *g = keymap_get(groups, id, 0);
    struct vlive *x;

    if (g == NULL) {                    /* folded: the "other" row      */
      id = KEYMAP_OTHER;
      g = keymap_get(groups, id, 0);
      if (g == NULL) continue;
    }
    x = keymap_get(v, id, 1);
    if (x->cur_at != n && x->cur_at <= peak && peak != 0
        && x->saved_for != peak) {
      x->saved = x->cur;
      x->saved_for = peak;
    }
    x->cur = site ? tables_scale(&s->tb, id >= 2, g->live_objs,
                                 g->live_bytes, g->live_bytes)
                  : g->live_bytes;
    x->cur_at = n;
  }
}

/* A type's or site's live bytes at the compared collection.            */
static u64 live_at(const struct diff_side *s, int site, u64 id)
{
  const struct vlive *x = keymap_get(site ? s->vsites : s->vtypes, id, 0);

  if (x == NULL) return 0;
  if (x->cur_at <= s->live_census) return x->cur;
  return x->saved_for == s->live_census ? x->saved : 0;
}

static int diff_visit(const struct rec *r, void *arg)
{
  struct diff_side *s = arg;

  s->records++;
  session_summary_visit(r, &s->sum);
  tables_record(&s->tb, r);
  rec_class_add(r, 0, s->alloc);
  if (!r->collection || !r->census) return 0;
  version_rows(s, r, 0);
  version_rows(s, r, 1);
  if (s->have_live && !s->last && r->live_bytes <= s->live_total) return 0;
  /* A new compared collection: its class rows.                         */
  s->have_live = 1;
  s->live_total = r->live_bytes;
  s->live_gc_no = r->gc_no;
  s->live_census = s->tb.census;
  memset(s->live, 0, (size_t)NK * NCL * sizeof(u64));
  rec_class_add(r, 1, s->live);
  return 0;
}

static int side_scan(struct diff_side *s, const char *path, int last,
                     int progress)
{
  int rc;

  s->path = path;
  s->last = last;
  tables_init(&s->tb, &s->info);
  s->vtypes = keymap_new(sizeof(struct vlive));
  s->vsites = keymap_new(sizeof(struct vlive));
  s->live = calloc((size_t)NK * NCL, sizeof(u64));
  s->alloc = calloc((size_t)NK * NCL, sizeof(u64));
  if (s->live == NULL || s->alloc == NULL) abort();
  rc = session_scan_frames(path, progress, diff_visit, diff_frame, s,
                           &s->info);
  if (rc == EXIT_OK && !s->have_live) {
    error("%s: no collection with a census (nothing to compare; is it "
          "a dump of a session that collected?)", path);
    rc = EXIT_USAGE;
  }
  return rc;
}

static void side_free(struct diff_side *s)
{
  size_t i;

  if (s->tb.types == NULL) return;      /* never scanned (a's was bad)  */
  for (i = 0; s->addr_keys != NULL && i < keymap_count(s->addr_keys); i++)
    free(*(char **)keymap_at(s->addr_keys, i, NULL));
  keymap_free(s->addr_keys);
  keymap_free(s->vtypes);
  keymap_free(s->vsites);
  tables_free(&s->tb);
  json_decref(s->info.header);
  free(s->live);
  free(s->alloc);
}

/* ---- rows ---------------------------------------------------------- */

static struct diff_row *rows_add(struct diff_rows *l)
{
  struct diff_row *r;

  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->r = xrealloc(l->r, l->cap * sizeof(*l->r));
  }
  r = &l->r[l->n++];
  memset(r, 0, sizeof(*r));
  return r;
}

static void row_change(struct diff_row *r)
{
  r->d_live = (long long)(r->live_b - r->live_a);
  r->d_alloc = (long long)(r->alloc_b - r->alloc_a);
}

/* By the change in live bytes, then in allocated bytes (both largest   */
/* first), then by key or by kind and class.                             */
static int row_cmp(const void *a, const void *b)
{
  const struct diff_row *x = a, *y = b;

  if (diff_mag(x->d_live) != diff_mag(y->d_live))
    return diff_mag(x->d_live) < diff_mag(y->d_live) ? 1 : -1;
  if (diff_mag(x->d_alloc) != diff_mag(y->d_alloc))
    return diff_mag(x->d_alloc) < diff_mag(y->d_alloc) ? 1 : -1;
  if (x->key != NULL && y->key != NULL) return strcmp(x->key, y->key);
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return x->cls < y->cls ? -1 : x->cls > y->cls;
}

static int row_key_cmp(const void *a, const void *b)
{
  return strcmp(((const struct diff_row *)a)->key,
                ((const struct diff_row *)b)->key);
}

/* Merge rows of equal keys (one session may have two types of one     */
/* name, and both sessions add theirs), compute the changes, sort.       */
static void rows_merge(struct diff_rows *l)
{
  size_t i, j, n = 0;

  if (l->n > 0) qsort(l->r, l->n, sizeof(*l->r), row_key_cmp);
  for (i = 0; i < l->n; i = j) {
    struct diff_row m = l->r[i];

    for (j = i + 1; j < l->n && strcmp(l->r[j].key, m.key) == 0; j++) {
      m.live_a += l->r[j].live_a;
      m.live_b += l->r[j].live_b;
      m.alloc_a += l->r[j].alloc_a;
      m.alloc_b += l->r[j].alloc_b;
      m.size_objs += l->r[j].size_objs;
      m.size_bytes += l->r[j].size_bytes;
      free(l->r[j].key);
    }
    row_change(&m);
    l->r[n++] = m;
  }
  l->n = n;
  if (l->n > 0) qsort(l->r, l->n, sizeof(*l->r), row_cmp);
}

/* ---- sampling noise ------------------------------------------------ */

/* R, the mean bytes between samples behind one session's figures of a */
/* table: the sampled profile's, or stacks=sample's for callsites; 0    */
/* when its figures are exact.                                           */
static double side_sample_bytes(const struct diff_side *s, int site)
{
  if (s->tb.estimated) return (double)s->tb.estimate_bytes;
  if (site && s->tb.sample) return s->tb.sample_bytes;
  return 0;
}

/* The variance that sampling gives one session's estimate of X live    */
/* bytes made of objects of mean size m, samples every R bytes (docs/   */
/* dump-format.md, "Comparing estimates"): each object of size s is a   */
/* sample with probability p = 1 - exp(-s/R) and then counts s/p, so    */
/* the estimate's variance is the sum of s^2 (1 - p) / p over the       */
/* objects, X m exp(-m/R) / (1 - exp(-m/R)) for objects of one size:    */
/* X R for small objects (p -> m/R), 0 for large ones (always sampled). */
static double est_variance(double x, double m, double r)
{
  double p;

  if (r <= 0 || x <= 0) return 0;
  if (m <= 0) m = 1;
  p = -expm1(-m / r);
  return x * m * (1.0 - p) / p;
}

/* Each row's noise (diff.h): under "nothing changed", both sessions    */
/* estimate one X (the exact side's figure when one side is exact, else */
/* the mean of the two), and b - a has the sum of their variances.  A  */
/* change counts when it exceeds sigma standard errors: by the normal   */
/* approximation, two-sided, 5.7e-7 a row at sigma 5; by Hoeffding's    */
/* bound on the split of the samples between a and b, at most          */
/* 2 exp(-sigma^2 / 2) = 7.5e-6 whatever the count.                     */
static void rows_noise(struct diff *d, int site)
{
  struct diff_rows *l = site ? &d->sites : &d->types;
  double ra = side_sample_bytes(&d->s[0], site);
  double rb = side_sample_bytes(&d->s[1], site);
  size_t i;

  if (ra <= 0 && rb <= 0) return;
  for (i = 0; i < l->n; i++) {
    struct diff_row *r = &l->r[i];
    double m = r->size_objs ? (double)r->size_bytes / (double)r->size_objs
                            : 0;
    double x = ra > 0 && rb > 0 ? ((double)r->live_a + (double)r->live_b) / 2
               : ra > 0 ? (double)r->live_b : (double)r->live_a;

    r->noise = d->sigma * sqrt(est_variance(x, m, ra)
                               + est_variance(x, m, rb));
    r->within = r->d_live != 0 && (double)diff_mag(r->d_live) <= r->noise;
  }
}

static void rows_free(struct diff_rows *l)
{
  size_t i;

  for (i = 0; i < l->n; i++) free(l->r[i].key);
  free(l->r);
  memset(l, 0, sizeof(*l));
}

static char *dupstr(const char *s)
{
  char *t = xrealloc(NULL, strlen(s) + 1);

  return strcpy(t, s);
}

/* The module holding a (the last base at or below it), or NULL.        */
static const struct tables_module *module_at(const struct tables *t, u64 a)
{
  size_t lo = 0, hi = t->nmods;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;

    if (t->mods[mid].base <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo ? &t->mods[lo - 1] : NULL;
}

/* ---- types named by their address (diff.h, "Identity") ------------ */

/* The header's modules by base (then by place in the header): the     */
/* first listed of a base is found by bsearch, not by a scan per module  */
/* (a header of 100 000 modules made that quadratic).                    */
struct base_ix { u64 base; size_t ix; };

static int base_ix_cmp(const void *a, const void *b)
{
  const struct base_ix *x = a, *y = b;

  if (x->base != y->base) return x->base < y->base ? -1 : 1;
  return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/* Module m's extent (symbolize_module_extent), found by its base in    */
/* the header's module map; 0 unknown.  Cached in ext (~0: not yet);    */
/* *idx (NULL: not yet made; caller frees) indexes the header.           */
static u64 module_extent(const struct diff_side *s, size_t m, u64 *ext,
                         struct base_ix **idx, size_t *nidx)
{
  const json_t *mods = json_object_get(s->info.header, "modules"), *j;
  const char *path, *bid;
  size_t i, lo, hi;
  u64 base;

  if (ext[m] != ~0ULL) return ext[m];
  ext[m] = 0;
  if (*idx == NULL) {
    *idx = xrealloc(NULL, (json_array_size(mods) + 1) * sizeof(**idx));
    *nidx = 0;
    json_array_foreach(mods, i, j)
      if (header_module(j, &path, &bid, &base)) {
        (*idx)[*nidx].base = base;
        (*idx)[(*nidx)++].ix = i;
      }
    if (*nidx > 0) qsort(*idx, *nidx, sizeof(**idx), base_ix_cmp);
  }
  for (lo = 0, hi = *nidx; lo < hi;) {  /* the first at s->tb.mods[m]'s */
    size_t mid = lo + (hi - lo) / 2;

    if ((*idx)[mid].base < s->tb.mods[m].base) lo = mid + 1;
    else hi = mid;
  }
  if (lo < *nidx && (*idx)[lo].base == s->tb.mods[m].base
      && header_module(json_array_get(mods, (*idx)[lo].ix), &path, &bid,
                       &base))
    ext[m] = symbolize_module_extent(path, bid);
  return ext[m];
}

/* A type whose name ends in its own address: where that address is.   */
struct addr_type {
  u64 id, cookie;
  size_t prefix;                /* the name before the address           */
  const char *name;
  int inside;                   /* in its module's image: 1, 0, -1 unknown */
  int in_module;                /* keyed by module + offset (decided)    */
  char *mkey;                   /* "<prefix><module>+0x<offset>", or NULL */
};
struct addr_types { struct addr_type *t; size_t n; };

static int by_cookie(const void *a, const void *b)
{
  const struct addr_type *x = a, *y = b;

  return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

static int by_mkey(const void *a, const void *b)
{
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;

  return strcmp(x, y);
}

static char *key_at(const char *prefix, size_t plen, const char *where,
                    u64 off)
{
  size_t n = plen + strlen(where) + 24;
  char *k = xrealloc(NULL, n);

  snprintf(k, n, "%.*s%s+0x%llx", (int)plen, prefix, where, off);
  return k;
}

/* s's types whose name ends in their own address (the collector's     */
/* "gcj vtable 0x...", "type 0x...", "class 0x..." when nothing named    */
/* them), each with its module + offset and whether that is inside the   */
/* module's image (its extent, from the module's file).                  */
static void find_address_types(struct diff_side *s, struct addr_types *l)
{
  const struct tables *t = &s->tb;
  u64 *ext = xrealloc(NULL, (t->nmods ? t->nmods : 1) * sizeof(u64)), id;
  struct base_ix *idx = NULL;
  size_t i, m, nidx = 0;
  char hex[24];

  for (m = 0; m < t->nmods; m++) ext[m] = ~0ULL;
  memset(l, 0, sizeof(*l));
  for (i = 0; i < keymap_count(t->types); i++) {
    const struct group *g = keymap_at(t->types, i, &id);
    const struct tables_module *mo;
    struct addr_type *a;
    size_t nl, hl;
    u64 e;

    if (!g->defined || g->cookie == 0 || g->name == NULL) continue;
    hl = (size_t)snprintf(hex, sizeof(hex), "0x%llx", g->cookie);
    nl = strlen(g->name);
    if (nl < hl || strcasecmp(g->name + nl - hl, hex) != 0) continue;
    if ((l->n & (l->n - 1)) == 0)       /* doubling, not one a type    */
      l->t = xrealloc(l->t, (l->n ? 2 * l->n : 1) * sizeof(*l->t));
    a = &l->t[l->n++];
    memset(a, 0, sizeof(*a));
    a->id = id;
    a->cookie = g->cookie;
    a->prefix = nl - hl;
    a->name = g->name;
    mo = module_at(t, g->cookie);
    if (mo == NULL) continue;                   /* inside 0: no module */
    e = module_extent(s, (size_t)(mo - t->mods), ext, &idx, &nidx);
    a->inside = e == 0 ? -1 : g->cookie - mo->base < e;
    a->mkey = key_at(g->name, a->prefix, mo->name, g->cookie - mo->base);
  }
  free(ext);
  free(idx);
}

/* Keys for l's types (s's, in_module decided): module + offset, else   */
/* "heapN+0x...": the N-th cluster of such addresses in address order,   */
/* none more than 1 MiB from the next, and the offset from its start.    */
static void address_keys(struct diff_side *s, struct addr_types *l)
{
  size_t i, nheap = 0;
  u64 start = 0;
  unsigned cluster = 0;
  char where[32];

  s->addr_keys = keymap_new(sizeof(char *));
  for (i = 0; i < l->n; i++) {
    struct addr_type *a = &l->t[i];

    if (a->in_module) {
      *(char **)keymap_get(s->addr_keys, a->id, 1) = a->mkey;
    } else {
      free(a->mkey);
      l->t[nheap++] = *a;                       /* kept for the heap    */
    }
  }
  if (nheap > 0) qsort(l->t, nheap, sizeof(*l->t), by_cookie);
  for (i = 0; i < nheap; i++) {
    struct addr_type *a = &l->t[i];

    if (i == 0 || a->cookie - l->t[i - 1].cookie > ((u64)1 << 20)) {
      start = a->cookie;
      cluster++;
    }
    snprintf(where, sizeof(where), "heap%u", cluster);
    *(char **)keymap_get(s->addr_keys, a->id, 1)
      = key_at(a->name, a->prefix, where, a->cookie - start);
  }
  free(l->t);
}

/* Both sides' keys for their types named by address.  An address in a  */
/* module's image is at module + offset; where the image's extent is     */
/* unknown (no file, or not this build), it counts as in the image if    */
/* the other dump has such a type at the same module + offset (an        */
/* address in the image is at the same offset in every run, a heap       */
/* address almost never).                                                */
static void address_types(struct diff *d)
{
  struct addr_types l[2];
  char **mk[2];
  size_t n[2], i;
  int b;

  for (b = 0; b < 2; b++) {
    find_address_types(&d->s[b], &l[b]);
    mk[b] = xrealloc(NULL, (l[b].n ? l[b].n : 1) * sizeof(char *));
    for (n[b] = i = 0; i < l[b].n; i++)
      if (l[b].t[i].mkey != NULL) mk[b][n[b]++] = l[b].t[i].mkey;
    if (n[b] > 0) qsort(mk[b], n[b], sizeof(char *), by_mkey);
  }
  for (b = 0; b < 2; b++)
    for (i = 0; i < l[b].n; i++) {
      struct addr_type *a = &l[b].t[i];

      a->in_module = a->inside == 1
                     || (a->inside == -1
                         && bsearch(&a->mkey, mk[1 - b], n[1 - b],
                                    sizeof(char *), by_mkey) != NULL);
    }
  for (b = 0; b < 2; b++) {
    free(mk[b]);
    address_keys(&d->s[b], &l[b]);
  }
}

/* A type's identity: its name, or where its address is (above).       */
static char *type_key(const struct diff_side *s, u64 id)
{
  char *const *k = keymap_get(s->addr_keys, id, 0);
  char name[512];

  if (k != NULL) return dupstr(*k);
  return dupstr(tables_type_label(&s->tb, id, name, sizeof(name)));
}

/* A site's identity: its frames innermost first, " < " between, each   */
/* the function (names: from DUMP.symbols, when known) or                */
/* module+0xoffset.                                                      */
static char *site_key(const struct tables *t, u64 id, int names)
{
  const struct group *g = keymap_get(t->sites, id, 0);
  size_t len = 0, cap = 64;
  char *out, a[300];
  unsigned k;

  if (id == 0) return dupstr("(no stack)");
  if (id == 1) return dupstr("(not sampled)");
  if (id == KEYMAP_OTHER) return dupstr("(other sites)");
  if (g == NULL || !g->defined || g->nframes == 0)
    return dupstr("(stack unknown)");
  out = xrealloc(NULL, cap);
  out[0] = '\0';
  for (k = 0; k < g->nframes; k++) {
    const struct tables_module *mo = module_at(t, g->frames[k]);
    size_t l;

    if (names && mo != NULL) tables_addr_label(t, g->frames[k], a, sizeof(a));
    else if (mo != NULL)
      snprintf(a, sizeof(a), "%s+0x%llx", mo->name, g->frames[k] - mo->base);
    else snprintf(a, sizeof(a), "?+0x%llx", g->frames[k]);
    l = strlen(a);
    if (len + l + 4 > cap) {
      cap = (len + l + 4) * 2;
      out = xrealloc(out, cap);
    }
    len += (size_t)sprintf(out + len, "%s%s", len ? " < " : "", a);
  }
  return out;
}

static void collect(struct diff *d, int site)
{
  int b;
  size_t i;
  u64 id;

  for (b = 0; b < 2; b++) {
    struct diff_side *s = &d->s[b];
    const struct keymap *m = site ? s->tb.sites : s->tb.types;

    for (i = 0; i < keymap_count(m); i++) {
      const struct group *g = keymap_at(m, i, &id);
      struct diff_row *r;
      u64 alloc = site ? tables_scale(&s->tb, id >= 2, g->alloc_objs,
                                      g->alloc_bytes, g->alloc_bytes)
                       : g->alloc_bytes;

      if (site && s->tb.sample && id == 1) continue;  /* in the estimates */
      r = rows_add(site ? &d->sites : &d->types);
      r->key = site ? site_key(&s->tb, id, d->names) : type_key(s, id);
      *(b ? &r->live_b : &r->live_a) = live_at(s, site, id);
      *(b ? &r->alloc_b : &r->alloc_a) = alloc;
      r->size_objs = g->alloc_objs;
      r->size_bytes = g->alloc_bytes;
    }
  }
  rows_merge(site ? &d->sites : &d->types);
  rows_noise(d, site);
}

/* Callsites' function names: from each dump's DUMP.symbols, after      */
/* --symbolize filled it; used only when both dumps have some.           */
static int load_names(struct diff *d)
{
  struct symbolize_opts so;
  int b;

  for (b = 0; b < 2; b++) {
    if (d->resolve) {
      struct symtab *tab = NULL;
      int bad;

      symbolize_opts_init(&so);
      bad = symbolize_dump_sites(d->s[b].path, &so, &tab) != 0;
      symtab_free(tab);
      if (bad) return EXIT_USAGE;
    }
    tables_load_symbols(&d->s[b].tb, d->s[b].path);
  }
  d->names = d->s[0].tb.nsyms > 0 && d->s[1].tb.nsyms > 0;
  if (!d->names && (d->s[0].tb.nsyms > 0 || d->s[1].tb.nsyms > 0))
    warning("only one dump's stacks have function names (run 'gcacc "
            "symbolize' on both, or --symbolize): callsites matched by "
            "module+offset");
  return EXIT_OK;
}

static void class_rows(struct diff *d)
{
  const struct diff_side *a = &d->s[0], *b = &d->s[1];
  unsigned k, c;

  for (k = 0; k < NK; k++) {
    struct diff_row kr;

    memset(&kr, 0, sizeof(kr));
    kr.kind = k;
    for (c = 0; c < NCL; c++) {
      size_t x = (size_t)k * NCL + c;
      struct diff_row *r;

      if (!a->live[x] && !b->live[x] && !a->alloc[x] && !b->alloc[x])
        continue;
      r = rows_add(&d->classes);
      r->kind = k;
      r->cls = c;
      r->live_a = a->live[x];
      r->live_b = b->live[x];
      r->alloc_a = a->alloc[x];
      r->alloc_b = b->alloc[x];
      row_change(r);
      kr.live_a += r->live_a;
      kr.live_b += r->live_b;
      kr.alloc_a += r->alloc_a;
      kr.alloc_b += r->alloc_b;
      kr.cls++;                         /* classes seen: the kind's too */
    }
    if (kr.cls == 0) continue;
    row_change(&kr);
    kr.cls = 0;
    *rows_add(&d->kinds) = kr;
  }
  if (d->classes.n > 0)
    qsort(d->classes.r, d->classes.n, sizeof(struct diff_row), row_cmp);
  if (d->kinds.n > 0)
    qsort(d->kinds.r, d->kinds.n, sizeof(struct diff_row), row_cmp);
}

int diff_compute(struct diff *d, const char *a, const char *b,
                 int progress)
{
  int last = d->last, resolve = d->resolve, rc;
  double sigma = d->sigma;

  memset(d, 0, sizeof(*d));
  d->last = last;
  d->resolve = resolve;
  d->sigma = sigma;
  rc = side_scan(&d->s[0], a, last, progress);
  if (rc == EXIT_OK) rc = side_scan(&d->s[1], b, last, progress);
  if (rc != EXIT_OK) return rc;
  if (header_config(d->s[0].info.header, "granule_bytes", 16)
        != header_config(d->s[1].info.header, "granule_bytes", 16)
      || header_config(d->s[0].info.header, "large_class0", 129)
           != header_config(d->s[1].info.header, "large_class0", 129))
    warning("the dumps' size classes differ (granule_bytes or "
            "large_class0); labels are dump a's");
  d->estimated = d->s[0].tb.estimated || d->s[1].tb.estimated;
  if (d->s[0].tb.has_type_rows || d->s[1].tb.has_type_rows) {
    address_types(d);
    collect(d, 0);
  }
  if (d->s[0].tb.has_site_rows || d->s[1].tb.has_site_rows) {
    rc = load_names(d);
    if (rc != EXIT_OK) return rc;
    collect(d, 1);
  }
  class_rows(d);
  return EXIT_OK;
}

void diff_free(struct diff *d)
{
  rows_free(&d->classes);
  rows_free(&d->kinds);
  rows_free(&d->types);
  rows_free(&d->sites);
  side_free(&d->s[0]);
  side_free(&d->s[1]);
}

const char *diff_estimate_note(const struct diff *d, char *buf, size_t sz)
{
  const struct tables *a = &d->s[0].tb, *b = &d->s[1].tb;
  char ra[64], rb[64];

  if (!d->estimated) return NULL;
  snprintf(ra, sizeof(ra), "%llu", a->estimate_bytes);
  snprintf(rb, sizeof(rb), "%llu", b->estimate_bytes);
  if (a->estimated && b->estimated && a->estimate_bytes == b->estimate_bytes)
    snprintf(buf, sz, "~ figures by type and callsite are estimated from "
             "sampled allocations, one sample per %s bytes on average", ra);
  else if (a->estimated && b->estimated)
    snprintf(buf, sz, "~ figures by type and callsite are estimated from "
             "sampled allocations, one sample per %s bytes on average in "
             "dump a, per %s bytes in dump b", ra, rb);
  else
    snprintf(buf, sz, "~ figures by type and callsite are estimated from "
             "sampled allocations (dump %s: one sample per %s bytes on "
             "average; dump %s's are exact)", a->estimated ? "a" : "b",
             a->estimated ? ra : rb, a->estimated ? "b" : "a");
  return buf;
}


/* ---- labels and sizes, as every form prints them ------------------- */

/* Short kind names, so that a row fits 80 columns.                     */
static const char *kind_short(unsigned kind, char *buf)
{
  static const char *names[] = { "ptrfree", "normal", "uncoll",
                                 "a-uncoll" };

  if (kind_name_known(kind) != NULL) return kind_name_known(kind);
  if (kind < 4) return names[kind];
  snprintf(buf, 16, "kind%u", kind);
  return buf;
}

const char *diff_row_label(const struct diff *d, int kinds,
                           const struct diff_row *r, char *buf, size_t sz)
{
  char b1[16], b2[32];

  if (kinds) snprintf(buf, sz, "%s", kind_label(r->kind, b1));
  else snprintf(buf, sz, "%s %s", kind_short(r->kind, b1),
                class_label(d->s[0].info.header, r->cls, b2));
  return buf;
}

const char *diff_size_text(u64 v, int sign, int est, char *buf, size_t sz)
{
  char s[16];
  long long x = (long long)v;

  if (!sign) snprintf(buf, sz, "%s%s", est ? "~" : "", emit_size(v, s));
  else snprintf(buf, sz, "%s%s%s", est ? "~" : "",
                x < 0 ? "-" : x > 0 ? "+" : "", emit_size(diff_mag(x), s));
  return buf;
}
