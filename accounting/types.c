/* SPDX-License-Identifier: MIT */
/*
 * types.c: type cookies, and the per-type and per-site rows.
 *
 * Types (cookie -> type id, name) and the per-type and per-site rows are
 * only touched with the allocation lock held: at a census, a GC_free, a
 * block free, a frame marker, a record and the stats API.  The census,
 * GC_free and block frees count into per-pair accumulators (gca_acc_get),
 * which gca_types_fold adds into the rows once per record; old objects
 * (age 32+) are counted incrementally.  record.c writes the definitions
 * and the rows that changed (gca_types_def_next, gca_types_row_take).
 * Everything lives in OS memory (gca_mem_alloc), never in the GC heap.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

/* ---- types (lock held) ----------------------------------------------------- */

struct types_type {
  word cookie;
  unsigned char origin;
  const char *name;             /* NULL until first written            */
};

static struct types_type *type_tab = NULL;      /* [type_cap], id index */
static unsigned type_count = 0;                 /* ids 1..type_count    */
static unsigned type_cap = 0;
static unsigned *type_hash = NULL;              /* open addressing      */
static word type_hash_mask = 0;
static unsigned types_named_upto = 0;           /* ids <= this emitted  */
static GC_acc_type_namer_proc types_namer = 0;

/* Per-type and per-site rows.  The live objects are the sum of the   */
/* age bins (row_ages: 32 bits, their carries in types_rows.age_hi).    */
/* sent: as of the last record, only the cumulative counts, whose   */
/* deltas a record writes.  Whether the live columns (live, ages,      */
/* samples live) changed since is a flag (ROW_LIVE), set by the census */
/* that changed them: a copy of the whole row took 257 bytes a site,   */
/* 64 KiB of the trace profile's tables on Guile's 2.9 MB heap (issue  */
/* 33).  One array, grown in place (gca_mem_grow): as three arrays the */
/* rows were copied at each page they grew by (52 times on klass).      */
struct types_sent {
  word alloc_objs, alloc_bytes, freed_objs, freed_bytes;
};
struct types_row {
  word live_bytes;
  word alloc_objs, alloc_bytes;         /* cumulative                   */
  word freed_objs, freed_bytes;         /* cumulative                   */
  struct types_sent sent;
  gca_age_t age[GCA_AGE_BINS];
  unsigned head : 24;           /* census fold: its pairs (dirty i + 1: */
  unsigned flags : 8;           /* < GCA_MAX_PAIRS); ROW_*: 104 bytes   */
};
/* The samples' columns of a row (the sampled profile's), and their    */
/* cumulative counts as of the last record: in a mapping of their own, */
/* made when a row first counts a sample (40 bytes a row, a fifth of  */
/* the rows' memory under full and trace, where they stay 0; issue 33). */
struct types_srow {
  word s_live;                          /* samples: live now            */
  word s_alloc, s_freed;                /* cumulative                   */
  word sent_alloc, sent_freed;          /* as of the last record        */
};
#define ROW_EVER 1u             /* the row was in a record              */
#define ROW_LIVE 2u             /* its live columns changed since       */
#define ROW_COUNTS 4u           /* counts (not 0) were added since      */
/* The samples' columns and age carries grow to cap when a row past  */
/* them needs them: rows from smp_cap (hi_cap) on read as zeros.       */
struct types_rows {
  struct types_row *cur;
  word cap;
  struct types_srow *smp;       /* [smp_cap], NULL until a sample       */
  word *age_hi;                 /* [hi_cap][GCA_AGE_BINS], NULL: no carry */
  word smp_cap, hi_cap;
};
#define AGE_HI_BYTES(n) ((size_t)(n) * GCA_AGE_BINS * sizeof(word))
static struct types_rows type_rows, site_rows;
static unsigned site_max = 0;   /* highest site id with a row           */
static int types_census = 0;    /* a census began, not yet folded       */

/* A table's entries: the pages need takes while under 64 KiB, then by */
/* half (gca_mem_fit; by half throughout took Guile's alloc.scm 8 KiB   */
/* more under trace; issue 33).                                          */
static word types_fit(word elem_bytes, word need, word cur)
{
  return gca_mem_fit(elem_bytes, need,
                     cur * elem_bytes < ((word)64 << 10) ? 0 : cur);
}

/* Table p of *have entries of elem bytes grown to want (gca_mem_grow: */
/* kept, the rest zeroed) and *have set; NULL if no memory (p and      */
/* *have kept).  The rows and each table beside them grow so.          */
static void *types_grow(void *p, word *have, word want, size_t elem)
{
  void *q = gca_mem_grow(GCA_MEM_TYPES, p, *have * elem, want * elem);

  if (q != NULL) *have = want;
  return q;
}

/* Make rows [0, n) exist; 0 on failure.  Rows start at a page's worth  */
/* (types_fit): a program with a few types or sites keeps a page or two. */
static int types_rows_reserve(struct types_rows *r, unsigned n)
{
  struct types_row *cur;

  GC_STATIC_ASSERT(GCA_MAX_PAIRS < (1u << 24));
  if (n <= r->cap) return 1;
  cur = (struct types_row *)types_grow(r->cur, &r->cap,
                        types_fit(sizeof(*cur), n, r->cap), sizeof(*cur));
  if (NULL == cur) return 0;
  r->cur = cur;
  return 1;
}

/* Row k's samples' columns to read (zeros before any sample).         */
static const struct types_srow srow_none = { 0, 0, 0, 0, 0 };
static const struct types_srow *row_smp(const struct types_rows *r,
                                        unsigned k)
{
  return k < r->smp_cap ? &r->smp[k] : &srow_none;
}

/* Row k's samples' columns to write, made if need be; NULL if no    */
/* memory.                                                               */
static struct types_srow *row_smp_make(struct types_rows *r, unsigned k)
{
  if (k >= r->smp_cap) {
    struct types_srow *m = (struct types_srow *)types_grow(r->smp,
                                        &r->smp_cap, r->cap, sizeof(*m));

    if (NULL == m) return NULL;
    r->smp = m;
  }
  return &r->smp[k];
}

/* Row k's age bins into age; returns its live objects (their sum).  */
GCA_ALWAYS_INLINE word row_ages(const struct types_rows *r, unsigned k,
                                 word age[GCA_AGE_BINS])
{
  const gca_age_t *lo = r->cur[k].age;
  word n = 0;
  unsigned b;

  if (EXPECT(k >= r->hi_cap, TRUE)) {
    for (b = 0; b < GCA_AGE_BINS; b++) n += age[b] = lo[b];
  } else {
    for (b = 0; b < GCA_AGE_BINS; b++)
      n += age[b] = GCA_AGE_JOIN(lo[b], r->age_hi[(word)k * GCA_AGE_BINS + b]);
  }
  return n;
}

/* Row k's age bins become age; the high parts into r's carries, made  */
/* at the first (no memory: they are lost, as a sample's columns).     */
static void row_ages_set(struct types_rows *r, unsigned k,
                         const word age[GCA_AGE_BINS])
{
  word hi = 0;
  unsigned b;

  for (b = 0; b < GCA_AGE_BINS; b++) {
    r->cur[k].age[b] = GCA_AGE_LO(age[b]);
    hi |= GCA_AGE_HI(age[b]);
  }
  if (EXPECT(k >= r->hi_cap && 0 == hi, TRUE)) return;
  if (k >= r->hi_cap) {
    word *h = (word *)types_grow(r->age_hi, &r->hi_cap, r->cap,
                                 AGE_HI_BYTES(1));

    if (NULL == h) return;
    r->age_hi = h;
  }
  for (b = 0; b < GCA_AGE_BINS; b++)
    r->age_hi[(word)k * GCA_AGE_BINS + b] = GCA_AGE_HI(age[b]);
}

static unsigned type_find(word cookie)
{
  word i;

  if (NULL == type_hash) return 0;
  for (i = gca_hash(cookie, 0) & type_hash_mask; type_hash[i] != 0;
       i = (i + 1) & type_hash_mask) {
    if (type_tab[type_hash[i]].cookie == cookie) return type_hash[i];
  }
  return 0;
}

static void type_hash_put(unsigned id)
{
  word i;

  for (i = gca_hash(type_tab[id].cookie, 0) & type_hash_mask;
       type_hash[i] != 0; i = (i + 1) & type_hash_mask) {
  }
  type_hash[i] = id;
}

/* Type id of cookie (0 for cookie 0), interned if new; lock held.      */
static unsigned type_intern(word cookie, int origin)
{
  unsigned id;

  if (0 == cookie) return 0;
  id = type_find(cookie);
  if (id != 0) return id;
  if (type_count + 2 > type_cap) {
    unsigned cap = type_cap ? type_cap * 2 : 64;
    struct types_type *t = (struct types_type *)gca_mem_alloc(GCA_MEM_TYPES, 
                                        cap * sizeof(struct types_type));
    unsigned *h = (unsigned *)gca_mem_alloc(GCA_MEM_TYPES, 2 * cap * sizeof(unsigned));
    unsigned j;

    if (NULL == t || NULL == h) {
      gca_mem_free(GCA_MEM_TYPES, t, cap * sizeof(struct types_type));
      gca_mem_free(GCA_MEM_TYPES, h, 2 * cap * sizeof(unsigned));
      return 0;
    }
    if (type_cap) {
      BCOPY(type_tab, t, type_cap * sizeof(struct types_type));
      gca_mem_free(GCA_MEM_TYPES, type_tab, type_cap * sizeof(struct types_type));
      gca_mem_free(GCA_MEM_TYPES, type_hash, 2 * type_cap * sizeof(unsigned));
    }
    type_tab = t;
    type_hash = h;
    type_hash_mask = 2 * cap - 1;
    type_cap = cap;
    for (j = 1; j <= type_count; j++) type_hash_put(j);
  }
  if (!types_rows_reserve(&type_rows, type_count + 2)) return 0;
  id = ++type_count;
  type_tab[id].cookie = cookie;
  type_tab[id].origin = (unsigned char)origin;
  type_tab[id].name = NULL;
  type_hash_put(id);
  return id;
}

/* Type id of a pair, interning its cookie on first use; lock held.     */
GC_INNER unsigned gca_pair_type(unsigned pair)
{
  struct gca_pair *e = gca_pair_get(pair);

  if (0 == e->type && e->cookie != 0)
    e->type = type_intern(e->cookie, e->origin);
  return e->type;
}

static struct types_row *site_row(unsigned site)
{
  if (site >= site_rows.cap && !types_rows_reserve(&site_rows, site + 1))
    return NULL;
  if (site > site_max) site_max = site;
  return &site_rows.cur[site];
}

GC_INNER unsigned gca_age_bin(word age)
{
  unsigned b = 0;

  if (age < 2) return (unsigned)age;
  while (age > 1 && b < GCA_AGE_BINS - 2) {
    age >>= 1;
    b++;
  }
  return b + 1 < GCA_AGE_BINS ? b + 1 : GCA_AGE_BINS - 1;
}

/* Census: the live columns are replaced at the fold that ends it     */
/* (rows_live), which sees whether they changed (lock held).            */
GC_INNER void gca_types_census_begin(void)
{
  types_census = 1;
}

/* ---- per-pair accumulators (lock held) ------------------------------------ */

GC_INNER struct gca_acc *gca_acc_tab = NULL;
GC_INNER word gca_acc_cap = 0;
GC_INNER unsigned gca_acc_stamp = 1;
static unsigned *acc_dirty = NULL;      /* pairs in use this round      */
static word acc_n_dirty = 0;
/* A census fold's lists of the pairs of a row (types_row.head): the  */
/* next dirty index + 1 after i, among those of i's type row and of   */
/* its site row.                                                        */
static unsigned *acc_tnext = NULL, *acc_snext = NULL;
#define ACC_BYTES (sizeof(struct gca_acc) + 3 * sizeof(unsigned))
/* The accumulators' samples' counts ([acc_smp_cap], zeroed with their */
/* accumulator), NULL until the first sample; and the high parts of    */
/* their age bins ([acc_hi_cap][GCA_AGE_BINS]), NULL until a carry.     */
/* Each grows to gca_acc_cap when a pair past it needs it: the pairs    */
/* from there on read zeros.                                            */
static struct gca_acc_smp *acc_smp = NULL;
static const struct gca_acc_smp acc_smp_none = { 0, 0, 0 };
static word *acc_age_hi = NULL;
static word acc_smp_cap = 0, acc_hi_cap = 0;

GC_INNER void gca_acc_age_carry(unsigned pair, unsigned b, word hi)
{
  if (pair >= acc_hi_cap) {
    word *h = (word *)types_grow(acc_age_hi, &acc_hi_cap, gca_acc_cap,
                                 AGE_HI_BYTES(1));

    if (NULL == h) return;              /* lost, as a sample's counts   */
    acc_age_hi = h;
  }
  acc_age_hi[(word)pair * GCA_AGE_BINS + b] += hi;
}

/* The age bins of pair's accumulator, added into age.                */
GCA_ALWAYS_INLINE void acc_ages_add(word age[GCA_AGE_BINS], unsigned pair)
{
  const gca_age_t *lo = gca_acc_tab[pair].age;
  unsigned b;

  if (EXPECT(pair >= acc_hi_cap, TRUE)) {
    for (b = 0; b < GCA_AGE_BINS; b++) age[b] += lo[b];
  } else {
    for (b = 0; b < GCA_AGE_BINS; b++)
      age[b] += GCA_AGE_JOIN(lo[b], acc_age_hi[(word)pair * GCA_AGE_BINS + b]);
  }
}

GC_INNER struct gca_acc_smp *gca_acc_samples(unsigned pair)
{
  if (pair >= acc_smp_cap) {
    struct gca_acc_smp *m = (struct gca_acc_smp *)types_grow(acc_smp,
                                    &acc_smp_cap, gca_acc_cap, sizeof(*m));

    if (NULL == m) return NULL;
    acc_smp = m;
  }
  return &acc_smp[pair];
}

/* The samples' counts of the accumulator of pair, to read.             */
static const struct gca_acc_smp *acc_smp_of(unsigned pair)
{
  return pair < acc_smp_cap ? &acc_smp[pair] : &acc_smp_none;
}

/* Pair's accumulator, made (or grown into) and zeroed for this round.  */
GC_INNER struct gca_acc *gca_acc_slow(unsigned pair)
{
  struct gca_acc *a;

  if (pair >= gca_acc_cap) {
    /* One mapping: the accumulators, then the dirty list and the      */
    /* fold's links (made there, not kept), grown in place: the dirty   */
    /* list moves up, the old lists' place is zeroed (stamp 0).          */
    word cap = types_fit(ACC_BYTES, (word)pair + 1, gca_acc_cap);
    word old_end = gca_acc_cap * ACC_BYTES;
    struct gca_acc *t;
    unsigned *d;

    t = (struct gca_acc *)gca_mem_grow(GCA_MEM_TYPES, gca_acc_tab,
                                       gca_acc_cap * ACC_BYTES,
                                       cap * ACC_BYTES);
    if (NULL == t) return NULL;
    d = (unsigned *)(t + cap);
    memmove(d, t + gca_acc_cap, acc_n_dirty * sizeof(unsigned));
    if (old_end > cap * sizeof(struct gca_acc))
      old_end = cap * sizeof(struct gca_acc);
    BZERO(t + gca_acc_cap, old_end - gca_acc_cap * sizeof(struct gca_acc));
    gca_acc_tab = t;
    acc_dirty = d;
    acc_tnext = d + cap;
    acc_snext = d + 2 * cap;
    gca_acc_cap = cap;
  }
  a = &gca_acc_tab[pair];
  if (a->stamp != gca_acc_stamp) {
    BZERO(a, sizeof(*a));
    if (pair < acc_smp_cap) BZERO(&acc_smp[pair], sizeof(*acc_smp));
    if (pair < acc_hi_cap)
      BZERO(&acc_age_hi[(word)pair * GCA_AGE_BINS], AGE_HI_BYTES(1));
    a->stamp = gca_acc_stamp;
    acc_dirty[acc_n_dirty++] = pair;
  }
  return a;
}

/* ---- old objects: the pairs' (pairs.c) into the accumulators ---------- */
GC_INNER void gca_types_census_old(void)
{
  unsigned pair, next, *link = &gca_old_first;

  for (pair = gca_old_first; pair != 0; pair = next) {
    struct gca_pair *o = gca_pair_get(pair);
    struct gca_acc *a;

    next = o->old_next;
    if (0 == o->old_objs) {
      /* Off the list.                                                   */
      *link = next;
      o->old_listed = 0;
      o->old_next = 0;
      continue;
    }
    link = &o->old_next;
    a = gca_acc_get(pair);
    if (NULL == a) continue;
    a->live_bytes += o->old_bytes;
    gca_acc_age_add(a, pair, GCA_AGE_BINS - 1, o->old_objs);
  }
}

/* The live columns of an accumulator, or of a row.                    */
struct types_live {
  word bytes, age[GCA_AGE_BINS], s_live;
};

static void live_add(struct types_live *l, unsigned pair)
{
  l->bytes += gca_acc_tab[pair].live_bytes;
  acc_ages_add(l->age, pair);
  l->s_live += acc_smp_of(pair)->s_live;
}

/* Accumulator a (dirty index i) into row k of r: its cumulative      */
/* counts; its live ones linked to the row for rows_live after a       */
/* census (next: r's links), added now otherwise.                       */
static void row_add(struct types_rows *r, unsigned k, unsigned pair,
                    const struct gca_acc_smp *as, word i, unsigned *next)
{
  const struct gca_acc *a = &gca_acc_tab[pair];
  struct types_row *c = &r->cur[k];

  if ((a->alloc_objs | a->alloc_bytes | a->freed_objs | a->freed_bytes
       | as->s_alloc | as->s_freed) != 0) c->flags |= ROW_COUNTS;
  c->alloc_objs += a->alloc_objs;
  c->alloc_bytes += a->alloc_bytes;
  c->freed_objs += a->freed_objs;
  c->freed_bytes += a->freed_bytes;
  if ((as->s_alloc | as->s_freed) != 0) {
    struct types_srow *m = row_smp_make(r, k);

    if (m != NULL) {
      m->s_alloc += as->s_alloc;
      m->s_freed += as->s_freed;
    }
  }
  if (types_census) {
    next[i] = r->cur[k].head;
    r->cur[k].head = (unsigned)i + 1;
  } else if ((a->live_bytes | as->s_live) != 0) {
    /* Not from a census: none are (added as they were; live objects   */
    /* have bytes).                                                      */
    word age[GCA_AGE_BINS];

    c->live_bytes += a->live_bytes;
    (void)row_ages(r, k, age);
    acc_ages_add(age, pair);
    row_ages_set(r, k, age);
    if (as->s_live != 0) {
      struct types_srow *m = row_smp_make(r, k);

      if (m != NULL) m->s_live += as->s_live;
    }
    c->flags |= ROW_LIVE;
  }
}

/* After a census: rows [0, n] (n < cap) get the live columns of their */
/* pairs' accumulators (next: r's links), ROW_LIVE if they changed.    */
static void rows_live(struct types_rows *r, unsigned n, const unsigned *next)
{
  unsigned k, j;

  for (k = 0; k < r->cap && k <= n; k++) {
    struct types_row *c = &r->cur[k];
    struct types_live l;
    word age[GCA_AGE_BINS];

    /* None counted, none live before: so it stays.                    */
    if (0 == c->head && 0 == c->live_bytes && 0 == row_ages(r, k, age)
        && 0 == row_smp(r, k)->s_live)
      continue;
    BZERO(&l, sizeof(l));
    for (j = r->cur[k].head; j != 0; j = next[j - 1])
      live_add(&l, acc_dirty[j - 1]);
    r->cur[k].head = 0;
    (void)row_ages(r, k, age);
    if (l.bytes == c->live_bytes && 0 == memcmp(l.age, age, sizeof(age))
        && l.s_live == row_smp(r, k)->s_live)
      continue;
    c->live_bytes = l.bytes;
    row_ages_set(r, k, l.age);
    if (l.s_live != row_smp(r, k)->s_live) {
      struct types_srow *m = row_smp_make(r, k);

      if (m != NULL) m->s_live = l.s_live;
    }
    c->flags |= ROW_LIVE;
  }
}

/* Add every accumulator into its type and site rows, once per pair,    */
/* and start a new round.                                                */
GC_INNER void gca_types_fold(void)
{
  word i;

  if (0 == type_rows.cap) (void)types_rows_reserve(&type_rows, 1);
  for (i = 0; i < acc_n_dirty; i++) {
    unsigned pair = acc_dirty[i];
    const struct gca_acc_smp *as = acc_smp_of(pair);
    unsigned t = gca_pair_type(pair);
    unsigned site = gca_pair_get(pair)->site;

    if (t < type_rows.cap) row_add(&type_rows, t, pair, as, i, acc_tnext);
    if (site_row(site) != NULL)
      row_add(&site_rows, site, pair, as, i, acc_snext);
  }
  if (types_census) {
    rows_live(&type_rows, type_count, acc_tnext);
    rows_live(&site_rows, site_max, acc_snext);
    types_census = 0;
  }
  acc_n_dirty = 0;
  if (0 == ++gca_acc_stamp) gca_acc_restamp(1);        /* wrapped      */
}

/* Rounds from stamp on (nonzero), at the end of a fold: no accumulator */
/* keeps a stamp that a round to come may have.  Lock held.             */
GC_INNER void gca_acc_restamp(unsigned stamp)
{
  word i;

  for (i = 0; i < gca_acc_cap; i++) gca_acc_tab[i].stamp = 0;
  gca_acc_stamp = stamp;
}

/* ---- naming (lock held) ----------------------------------------------------- */

/* "<what> 0x<cookie>" into buf (room for what and 20 more), as       */
/* "%s 0x%llx" wrote it, without snprintf's 1,000 instructions a name. */
static void name_default(char *buf, const char *what, word cookie)
{
  size_t n = strlen(what);
  unsigned shift = 4;

  BCOPY(what, buf, n);
  BCOPY(" 0x", buf + n, 3);
  for (n += 3; shift < CPP_WORDSZ && (cookie >> shift) != 0; shift += 4) {}
  do buf[n++] = "0123456789abcdef"[(cookie >> (shift -= 4)) & 0xf];
  while (shift != 0);
  buf[n] = '\0';
}

static void type_name(unsigned id)
{
  struct types_type *t = &type_tab[id];
  char buf[256];
  int named = 0;

  buf[0] = '\0';
  if (GCA_TYPE_UNKNOWN == t->origin) {
    /* "unknown (<kind>)": word 0 of that kind that was not a class.    */
    named = gca_class_unknown_name(t->cookie, buf, sizeof(buf));
  } else if (types_namer != 0) {
    named = types_namer((GC_word)t->cookie, buf, sizeof(buf)) != 0;
    buf[sizeof(buf) - 1] = '\0';
  }
  if ((!named || '\0' == buf[0]) && GCA_TYPE_IL2CPP == t->origin) {
    /* Read now, at the record that defines the type (classes.c: a    */
    /* class freed since it was counted gives the default name).       */
    named = gca_class_name(t->cookie, buf, sizeof(buf));
  }
  if (!named || '\0' == buf[0]) {
    name_default(buf, t->origin == GCA_TYPE_GCJ ? "gcj vtable"
                      : t->origin == GCA_TYPE_FIRST_WORD
                        || t->origin == GCA_TYPE_IL2CPP ? "class" : "type",
                 t->cookie);
  }
  /* The record escapes it (text.c) when it writes it.                 */
  t->name = gca_mem_strdup(buf, strlen(buf));
}

GC_INNER word gca_types_memory_bytes(void)
{
  return gca_mem_bytes[GCA_MEM_TYPES];
}

/* ---- for the record (lock held) ------------------------------------------ */

GC_INNER unsigned gca_types_def_next(word *cookie, const char **name)
{
  unsigned id;

  if (types_named_upto >= type_count) return 0;
  id = ++types_named_upto;
  if (NULL == type_tab[id].name) type_name(id);
  *cookie = type_tab[id].cookie;
  *name = type_tab[id].name != NULL ? type_tab[id].name : "?";
  return id;
}

/* retain.c: the name of cookie's type (named now if it was not yet), */
/* or NULL if cookie is no type; and the cookies of the types named     */
/* name, at most max of them into out (their count).  Lock held.        */
GC_INNER const char *gca_types_name_of(word cookie)
{
  unsigned id = type_find(cookie);

  if (0 == id) return NULL;
  if (NULL == type_tab[id].name) type_name(id);
  return type_tab[id].name;
}

GC_INNER unsigned gca_types_named(const char *name, word *out, unsigned max)
{
  unsigned id, n = 0;

  for (id = 1; id <= type_count && n < max; id++) {
    if (NULL == type_tab[id].name) type_name(id);
    if (type_tab[id].name != NULL && strcmp(type_tab[id].name, name) == 0)
      out[n++] = type_tab[id].cookie;
  }
  return n;
}

/* retain.c's auto request: the number of types (ids 1..n), and type */
/* id's cookie and live bytes as the last census counted them, and its */
/* live samples (the sampled profile) in *samples.  Lock held.          */
GC_INNER unsigned gca_types_count(void)
{
  return type_count;
}

GC_INNER word gca_types_live_of(unsigned id, word *cookie, word *samples)
{
  const struct types_row *r;

  if (0 == id || id > type_count || id >= type_rows.cap) return 0;
  *cookie = type_tab[id].cookie;
  r = &type_rows.cur[id];
  *samples = row_smp(&type_rows, id)->s_live;
  return r->live_bytes;
}

/* The same of callsite site (its live bytes; 0 past the rows).        */
GC_INNER word gca_types_site_live_of(unsigned site, word *samples)
{
  if (site >= site_rows.cap) return 0;
  *samples = row_smp(&site_rows, site)->s_live;
  return site_rows.cur[site].live_bytes;
}

/* Row i's live objects, and in *old those of them in age bins >=     */
/* GCA_LEAK_OLD_BIN (leaks' rule 6, for auto: retain_auto.c).           */
GC_INNER word gca_types_row_ages(int sites, unsigned i, word *old)
{
  const struct types_rows *r = sites ? &site_rows : &type_rows;
  word age[GCA_AGE_BINS], n;
  unsigned b;

  *old = 0;
  if (i >= r->cap) return 0;
  n = row_ages(r, i, age);
  for (b = GCA_LEAK_OLD_BIN; b < GCA_AGE_BINS; b++) *old += age[b];
  return n;
}

GC_INNER unsigned gca_types_rows_n(int sites)
{
  return sites ? site_max + 1 : type_count + 1;
}

/* Row i changed since the last record (or has live objects and was  */
/* in none); most have no flag (klass: some 380 of 490 rows a record). */
static int row_changed(const struct types_rows *r, unsigned i)
{
  const struct types_row *c = &r->cur[i];
  const struct types_sent *s = &r->cur[i].sent;
  const struct types_srow *m;

  if (0 == (c->flags & (ROW_LIVE | ROW_COUNTS))
      && ((c->flags & ROW_EVER) != 0 || 0 == c->live_bytes))
    return 0;
  m = row_smp(r, i);
  return (c->flags & ROW_LIVE) != 0
         || (0 == (c->flags & ROW_EVER) && c->live_bytes != 0)
         || c->alloc_objs != s->alloc_objs || c->alloc_bytes != s->alloc_bytes
         || c->freed_objs != s->freed_objs || c->freed_bytes != s->freed_bytes
         || m->s_alloc != m->sent_alloc || m->s_freed != m->sent_freed;
}

GC_INNER int gca_types_row_take(int sites, unsigned i,
                                word v[GCA_NCOLS_type_rows])
{
  struct types_rows *r = sites ? &site_rows : &type_rows;
  struct types_row *c;
  struct types_sent *s;
  const struct types_srow *m;

  if (i >= r->cap || !row_changed(r, i)) return 0;
  c = &r->cur[i];
  s = &r->cur[i].sent;
  m = row_smp(r, i);
  v[GCA_COL_type_rows_type_id] = i;
  v[GCA_COL_type_rows_live_objs] = row_ages(r, i,
                                             &v[GCA_COL_type_rows_age0]);
  v[GCA_COL_type_rows_live_bytes] = c->live_bytes;
  v[GCA_COL_type_rows_alloc_objs] = c->alloc_objs - s->alloc_objs;
  v[GCA_COL_type_rows_alloc_bytes] = c->alloc_bytes - s->alloc_bytes;
  v[GCA_COL_type_rows_freed_objs] = c->freed_objs - s->freed_objs;
  v[GCA_COL_type_rows_freed_bytes] = c->freed_bytes - s->freed_bytes;
  v[GCA_COL_type_rows_samples_live] = m->s_live;
  v[GCA_COL_type_rows_samples_alloc] = m->s_alloc - m->sent_alloc;
  v[GCA_COL_type_rows_samples_freed] = m->s_freed - m->sent_freed;
  return 1;
}

/* The record that took the rows reached the writer: what it sent     */
/* becomes the base of the next one's deltas.  Until then a dropped     */
/* record's counts stay in the next record's (issue 38).               */
GC_INNER void gca_types_rows_commit(int sites)
{
  struct types_rows *r = sites ? &site_rows : &type_rows;
  unsigned i, n = gca_types_rows_n(sites);

  for (i = 0; i < n && i < r->cap; i++) {
    struct types_row *c = &r->cur[i];
    struct types_sent *s = &r->cur[i].sent;

    if (!row_changed(r, i)) continue;
    s->alloc_objs = c->alloc_objs;
    s->alloc_bytes = c->alloc_bytes;
    s->freed_objs = c->freed_objs;
    s->freed_bytes = c->freed_bytes;
    if (i < r->smp_cap) {
      r->smp[i].sent_alloc = r->smp[i].s_alloc;
      r->smp[i].sent_freed = r->smp[i].s_freed;
    }
    c->flags = ROW_EVER;
  }
}

/* Definitions handed out so far, and a return to that point: a       */
/* dropped record's definitions go again in the next record.          */
GC_INNER unsigned gca_types_def_mark(void)
{
  return types_named_upto;
}

GC_INNER void gca_types_def_rewind(unsigned mark)
{
  if (mark < types_named_upto) types_named_upto = mark;
}

/* ---- API support (lock held) --------------------------------------------- */

GC_INNER void gca_types_set_namer(GC_acc_type_namer_proc fn)
{
  types_namer = fn;
}

static void row_to_stats(const struct types_rows *r, unsigned k,
                         struct GC_acc_group_stats_s *s)
{
  const struct types_row *c = &r->cur[k];
  word age[GCA_AGE_BINS];
  unsigned b;

  s->live_objs = row_ages(r, k, age);
  s->live_bytes = c->live_bytes;
  s->alloc_objs = c->alloc_objs;
  s->alloc_bytes = c->alloc_bytes;
  s->freed_objs = c->freed_objs;
  s->freed_bytes = c->freed_bytes;
  for (b = 0; b < GCA_AGE_BINS; b++) s->age_objs[b] = age[b];
}

GC_INNER int gca_types_get_type(word cookie, struct GC_acc_group_stats_s *s)
{
  unsigned id;

  gca_types_fold();
  id = cookie != 0 ? type_find(cookie) : 0;
  if ((cookie != 0 && 0 == id) || id >= type_rows.cap) return 0;
  row_to_stats(&type_rows, id, s);
  return 1;
}

GC_INNER int gca_types_get_site(unsigned site, struct GC_acc_group_stats_s *s)
{
  gca_types_fold();
  if (site >= site_rows.cap) return 0;
  row_to_stats(&site_rows, site, s);
  return 1;
}

#endif /* !GC_ACC_DISABLE */
