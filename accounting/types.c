/*
 * types.c: type cookies, (type, callsite) pairs, per-type and per-site
 * rows, frame markers, and their part of each record.
 *
 * A pair is an interned (cookie, site): the object tags of tags.c name
 * pairs, so a tag is one 24-bit number whatever the type and stack.  The
 * pair table is read without locks on the allocation path (open
 * addressing; an entry is published by a release store of its id) and
 * written under a short spin lock, only when a pair is new.  When it
 * fills past half it is replaced by one twice its size; the old table
 * stays mapped (a reader may still be in it; it can only miss, and a miss
 * retries under the spin lock), and its bytes stay counted.
 *
 * Types (cookie -> type id, name) and the per-type and per-site rows are
 * only touched with the allocation lock held: at a census, a GC_free, a
 * block free, a frame marker, a record and the stats API.  Everything
 * lives in OS memory (gca_os_alloc), never in the GC heap.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <stdio.h>
#include <string.h>
#include <jansson.h>

/* ---- small helpers ------------------------------------------------------ */

static word types_mem_bytes = 0;        /* everything this file mapped */

static void *types_os_alloc(size_t bytes)
{
  void *p = gca_os_alloc(bytes);

  /* Counted as the OS gives it: whole pages.                          */
  if (p != NULL) types_mem_bytes += (bytes + 4095) & ~(size_t)4095;
  return p;
}

#ifdef THREADS
  static volatile AO_TS_t pairs_spin = AO_TS_INITIALIZER;
# define PAIRS_LOCK() \
        while (AO_test_and_set_acquire(&pairs_spin) == AO_TS_SET) { }
# define PAIRS_UNLOCK() AO_CLEAR(&pairs_spin)
#else
# define PAIRS_LOCK() (void)0
# define PAIRS_UNLOCK() (void)0
#endif

/* In a child after fork(), as sites.c's: a pair another thread was     */
/* adding may be lost (its id unused; the pair gets another when met     */
/* again, published last), never half-seen.                              */
GC_INNER void gca_types_atfork_child(void)
{
  PAIRS_UNLOCK();
}

#if defined(__GNUC__) || defined(__clang__)
# define ACQ_LOAD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
# define REL_STORE32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
# define ACQ_LOADP(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
# define REL_STOREP(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
# define ACQ_LOAD32(p) (*(volatile unsigned *)(p))
# define REL_STORE32(p, v) (void)(*(volatile unsigned *)(p) = (v))
# define ACQ_LOADP(p) (*(p))
# define REL_STOREP(p, v) (void)(*(p) = (v))
#endif

static word types_hash(word cookie, unsigned site)
{
  word h = cookie * (word)0x9E3779B97F4A7C15ULL ^ ((word)site * 0x85EBCA6Bu);

  h ^= h >> 29;
  h *= (word)0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return h;
}

/* ---- pairs --------------------------------------------------------------- */

struct types_pair {
  word cookie;
  unsigned site;
  unsigned type;        /* type id, 0 until interned (lock held)        */
  unsigned char origin; /* GCA_TYPE_* of the cookie                     */
  unsigned char frame_dirty;
  word frame_objs, frame_bytes;   /* since the last frame marker, lock  */
};

#define PAIR_CHUNK_LOG 9
#define PAIR_CHUNK ((unsigned)1 << PAIR_CHUNK_LOG)
#define PAIR_N_CHUNKS (GCA_MAX_PAIRS / PAIR_CHUNK + 1)
/* The chunks' pointers: OS memory from the first pair on (as static  */
/* data, 256 KiB, they would count in GC_root_size: see gca_tables).   */
static struct types_pair **pair_chunks = NULL;
static volatile unsigned pair_count = 0;  /* ids 1..pair_count in use  */

struct pair_slot {
  word cookie;
  unsigned site;
  unsigned id;          /* 0: empty; published last (release)          */
};
struct pair_hash {
  word mask;
  struct pair_slot s[1];
};
static struct pair_hash *pair_hash = NULL;

GC_INNER struct types_pair *gca_pair_get(unsigned id)
{
  return &pair_chunks[id >> PAIR_CHUNK_LOG][id & (PAIR_CHUNK - 1)];
}

static struct pair_hash *pair_hash_new(word n_slots)
{
  struct pair_hash *h = (struct pair_hash *)types_os_alloc(
                sizeof(struct pair_hash) + (n_slots - 1)
                                           * sizeof(struct pair_slot));

  if (h != NULL) h->mask = n_slots - 1;
  return h;
}

static unsigned pair_lookup(struct pair_hash *h, word cookie, unsigned site)
{
  word i;

  if (NULL == h) return 0;
  for (i = types_hash(cookie, site) & h->mask;; i = (i + 1) & h->mask) {
    struct pair_slot *s = &h->s[i];
    unsigned id = ACQ_LOAD32(&s->id);

    if (0 == id) return 0;
    if (s->cookie == cookie && s->site == site) return id;
  }
}

static void pair_insert_slot(struct pair_hash *h, word cookie, unsigned site,
                             unsigned id)
{
  word i;

  for (i = types_hash(cookie, site) & h->mask; h->s[i].id != 0;
       i = (i + 1) & h->mask) {
    /* probe */
  }
  h->s[i].cookie = cookie;
  h->s[i].site = site;
  REL_STORE32(&h->s[i].id, id);
}

/* The pair id of (cookie, site), interned if new; 0 if the table is   */
/* full or out of memory (the object then goes untagged).  Any thread, */
/* lock held or not.                                                    */
GC_INNER unsigned gca_pair_intern(word cookie, unsigned site, int origin)
{
  struct pair_hash *h = ACQ_LOADP(&pair_hash);
  unsigned id = pair_lookup(h, cookie, site);
  struct types_pair *e;

  if (EXPECT(id != 0, TRUE)) return id;
  PAIRS_LOCK();
  h = pair_hash;
  id = pair_lookup(h, cookie, site);
  if (id != 0) goto done;
  if (NULL == h || (word)(pair_count + 1) * 2 > h->mask + 1) {
    word n = NULL == h ? 256 : (h->mask + 1) * 2;
    struct pair_hash *nh = pair_hash_new(n);
    unsigned j;

    if (NULL == nh) goto done;
    for (j = 1; j <= pair_count; j++) {
      e = gca_pair_get(j);
      pair_insert_slot(nh, e->cookie, e->site, j);
    }
    REL_STOREP(&pair_hash, nh);
    h = nh;
  }
  if (pair_count + 1 >= GCA_MAX_PAIRS) goto done;
  id = pair_count + 1;
  if (NULL == pair_chunks) {
    pair_chunks = (struct types_pair **)types_os_alloc(
                                PAIR_N_CHUNKS * sizeof(struct types_pair *));
    if (NULL == pair_chunks) {
      id = 0;
      goto done;
    }
  }
  if (NULL == pair_chunks[id >> PAIR_CHUNK_LOG]) {
    pair_chunks[id >> PAIR_CHUNK_LOG] = (struct types_pair *)types_os_alloc(
                                PAIR_CHUNK * sizeof(struct types_pair));
    if (NULL == pair_chunks[id >> PAIR_CHUNK_LOG]) {
      id = 0;
      goto done;
    }
  }
  e = gca_pair_get(id);
  e->cookie = cookie;
  e->site = site;
  e->type = 0;
  e->origin = (unsigned char)origin;
  pair_count = id;
  pair_insert_slot(h, cookie, site, id);
done:
  PAIRS_UNLOCK();
  return id;
}

GC_INNER word gca_pair_cookie(unsigned id)
{
  return gca_pair_get(id)->cookie;
}

GC_INNER unsigned gca_pair_site(unsigned id)
{
  return gca_pair_get(id)->site;
}

/* ---- types (lock held) ----------------------------------------------------- */

struct types_type {
  word cookie;
  unsigned char origin;
  unsigned char named;          /* name written into a record already  */
  char *name_json;              /* the name as a JSON string, quoted   */
};

static struct types_type *type_tab = NULL;      /* [type_cap], id index */
static unsigned type_count = 0;                 /* ids 1..type_count    */
static unsigned type_cap = 0;
static unsigned *type_hash = NULL;              /* open addressing      */
static word type_hash_mask = 0;
static unsigned types_named_upto = 0;           /* ids <= this emitted  */
static GC_acc_type_namer_proc types_namer = 0;

/* Per-type and per-site rows.                                          */
struct types_row {
  word live_objs, live_bytes;
  word alloc_objs, alloc_bytes;         /* cumulative                   */
  word freed_objs, freed_bytes;         /* cumulative                   */
  word age[GCA_AGE_BINS];
};
struct types_rows {
  struct types_row *cur, *sent; /* sent: as of the last record          */
  unsigned char *ever;          /* row was in a record                  */
  unsigned cap;
};
static struct types_rows type_rows, site_rows;
static unsigned site_max = 0;   /* highest site id with a row           */

static void types_unmap(void *p, size_t bytes)
{
  if (NULL == p) return;
  gca_os_free(p, bytes);
  types_mem_bytes -= (bytes + 4095) & ~(size_t)4095;
}

/* Grow a table on OS memory: map new_bytes, copy the used_bytes in use, */
/* unmap the old old_bytes.  NULL (old table untouched) if no memory.    */
static void *types_grow(void *old, size_t used_bytes, size_t old_bytes,
                        size_t new_bytes)
{
  void *p = types_os_alloc(new_bytes);

  if (NULL == p) return NULL;
  if (used_bytes) BCOPY(old, p, used_bytes);
  types_unmap(old, old_bytes);
  return p;
}

/* A growable list of pair ids, on OS memory.                           */
struct pair_list {
  unsigned *id;
  word n, cap;
};

/* Append pair to l; 0 (l unchanged) if no memory.                       */
static int pair_list_push(struct pair_list *l, unsigned pair)
{
  if (l->n == l->cap) {
    word cap = l->cap ? l->cap * 2 : 1024;
    unsigned *d = (unsigned *)types_grow(l->id, l->n * sizeof(unsigned),
                                         l->cap * sizeof(unsigned),
                                         cap * sizeof(unsigned));

    if (NULL == d) return 0;
    l->id = d;
    l->cap = cap;
  }
  l->id[l->n++] = pair;
  return 1;
}

/* Make rows [0, n) exist; 0 on failure.                                 */
static int types_rows_reserve(struct types_rows *r, unsigned n)
{
  unsigned cap = r->cap ? r->cap : 64;
  struct types_row *cur, *sent;
  unsigned char *ever;

  if (n <= r->cap) return 1;
  while (cap < n) cap *= 2;
  cur = (struct types_row *)types_os_alloc(cap * sizeof(struct types_row));
  sent = (struct types_row *)types_os_alloc(cap * sizeof(struct types_row));
  ever = (unsigned char *)types_os_alloc(cap);
  if (NULL == cur || NULL == sent || NULL == ever) {
    types_unmap(cur, cap * sizeof(struct types_row));
    types_unmap(sent, cap * sizeof(struct types_row));
    types_unmap(ever, cap);
    return 0;
  }
  if (r->cap) {
    BCOPY(r->cur, cur, r->cap * sizeof(struct types_row));
    BCOPY(r->sent, sent, r->cap * sizeof(struct types_row));
    BCOPY(r->ever, ever, r->cap);
    types_unmap(r->cur, r->cap * sizeof(struct types_row));
    types_unmap(r->sent, r->cap * sizeof(struct types_row));
    types_unmap(r->ever, r->cap);
  }
  r->cur = cur;
  r->sent = sent;
  r->ever = ever;
  r->cap = cap;
  return 1;
}

static unsigned type_find(word cookie)
{
  word i;

  if (NULL == type_hash) return 0;
  for (i = types_hash(cookie, 0) & type_hash_mask; type_hash[i] != 0;
       i = (i + 1) & type_hash_mask) {
    if (type_tab[type_hash[i]].cookie == cookie) return type_hash[i];
  }
  return 0;
}

static void type_hash_put(unsigned id)
{
  word i;

  for (i = types_hash(type_tab[id].cookie, 0) & type_hash_mask;
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
    struct types_type *t = (struct types_type *)types_os_alloc(
                                        cap * sizeof(struct types_type));
    unsigned *h = (unsigned *)types_os_alloc(2 * cap * sizeof(unsigned));
    unsigned j;

    if (NULL == t || NULL == h) {
      types_unmap(t, cap * sizeof(struct types_type));
      types_unmap(h, 2 * cap * sizeof(unsigned));
      return 0;
    }
    if (type_cap) {
      BCOPY(type_tab, t, type_cap * sizeof(struct types_type));
      types_unmap(type_tab, type_cap * sizeof(struct types_type));
      types_unmap(type_hash, 2 * type_cap * sizeof(unsigned));
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
  type_tab[id].named = 0;
  type_tab[id].name_json = NULL;
  type_hash_put(id);
  return id;
}

/* Type id of a pair, interning its cookie on first use; lock held.     */
GC_INNER unsigned gca_pair_type(unsigned pair)
{
  struct types_pair *e = gca_pair_get(pair);

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

/* Census: clear the live columns before the walk (lock held).          */
GC_INNER void gca_types_census_begin(void)
{
  unsigned i;

  for (i = 0; i < type_rows.cap && i <= type_count; i++) {
    type_rows.cur[i].live_objs = type_rows.cur[i].live_bytes = 0;
    BZERO(type_rows.cur[i].age, sizeof(type_rows.cur[i].age));
  }
  for (i = 0; i < site_rows.cap && i <= site_max; i++) {
    site_rows.cur[i].live_objs = site_rows.cur[i].live_bytes = 0;
    BZERO(site_rows.cur[i].age, sizeof(site_rows.cur[i].age));
  }
}

/* ---- per-pair accumulators (lock held) ------------------------------------ */

GC_INNER struct gca_acc *gca_acc_tab = NULL;
GC_INNER word gca_acc_cap = 0;
GC_INNER word gca_acc_stamp = 1;
static unsigned *acc_dirty = NULL;      /* pairs in use this round      */
static word acc_n_dirty = 0;

/* Pair's accumulator, made (or grown into) and zeroed for this round.  */
GC_INNER struct gca_acc *gca_acc_slow(unsigned pair)
{
  struct gca_acc *a;

  if (pair >= gca_acc_cap) {
    word cap = gca_acc_cap ? gca_acc_cap : 1024;
    struct gca_acc *t;
    unsigned *d;

    while (cap <= pair) cap *= 2;
    t = (struct gca_acc *)types_os_alloc(cap * sizeof(struct gca_acc));
    d = (unsigned *)types_os_alloc(cap * sizeof(unsigned));
    if (NULL == t || NULL == d) {
      types_unmap(t, cap * sizeof(struct gca_acc));
      types_unmap(d, cap * sizeof(unsigned));
      return NULL;
    }
    if (gca_acc_cap) {
      BCOPY(gca_acc_tab, t, gca_acc_cap * sizeof(struct gca_acc));
      BCOPY(acc_dirty, d, acc_n_dirty * sizeof(unsigned));
      types_unmap(gca_acc_tab, gca_acc_cap * sizeof(struct gca_acc));
      types_unmap(acc_dirty, gca_acc_cap * sizeof(unsigned));
    }
    gca_acc_tab = t;
    acc_dirty = d;
    gca_acc_cap = cap;
  }
  a = &gca_acc_tab[pair];
  if (a->stamp != gca_acc_stamp) {
    BZERO(a, sizeof(*a));
    a->stamp = gca_acc_stamp;
    acc_dirty[acc_n_dirty++] = pair;
  }
  return a;
}

/* ---- old objects (lock held) ------------------------------------------- */
/* Live objects in the oldest age bin, per pair, kept incrementally: an */
/* object is added when a census first sees it 32 collections old (and */
/* its tag gets OLD), removed when it is found unmarked, GC_free'd or  */
/* its block freed.  A census then only checks the mark bit of an old  */
/* slot; gca_types_census_old adds the counts into the accumulators.   */
struct acc_old_ent {
  word objs, bytes;
  unsigned listed;              /* on acc_old_list                      */
};
static struct acc_old_ent *acc_old = NULL;
static word acc_old_cap = 0;
static struct pair_list acc_old_list;  /* pairs that may have old objs */

static struct acc_old_ent *acc_old_get(unsigned pair)
{
  struct acc_old_ent *o;

  if (EXPECT(pair >= acc_old_cap, FALSE)) {
    word cap = acc_old_cap ? acc_old_cap : 1024;
    struct acc_old_ent *t;

    while (cap <= pair) cap *= 2;
    t = (struct acc_old_ent *)types_grow(acc_old, acc_old_cap * sizeof(*t),
                                         acc_old_cap * sizeof(*t),
                                         cap * sizeof(*t));
    if (NULL == t) return NULL;
    acc_old = t;
    acc_old_cap = cap;
  }
  o = &acc_old[pair];
  if (!o->listed) {
    if (!pair_list_push(&acc_old_list, pair)) return NULL;
    o->listed = 1;
  }
  return o;
}

GC_INNER int gca_old_add(unsigned pair, word bytes)
{
  struct acc_old_ent *o = acc_old_get(pair);

  if (NULL == o) return 0;
  o->objs++;
  o->bytes += bytes;
  return 1;
}

GC_INNER void gca_old_sub(unsigned pair, word bytes)
{
  struct acc_old_ent *o;

  if (pair >= acc_old_cap) return;
  o = &acc_old[pair];
  if (o->objs != 0) {
    o->objs--;
    o->bytes -= bytes;
  }
}

GC_INNER void gca_old_reset(void)
{
  word i;

  for (i = 0; i < acc_old_list.n; i++) {
    struct acc_old_ent *o = &acc_old[acc_old_list.id[i]];

    o->objs = o->bytes = 0;
    o->listed = 0;
  }
  acc_old_list.n = 0;
}

GC_INNER void gca_types_census_old(void)
{
  word i, j = 0;

  for (i = 0; i < acc_old_list.n; i++) {
    unsigned pair = acc_old_list.id[i];
    struct acc_old_ent *o = &acc_old[pair];
    struct gca_acc *a;

    if (0 == o->objs) {
      o->listed = 0;
      continue;
    }
    acc_old_list.id[j++] = pair;
    a = gca_acc_get(pair);
    if (NULL == a) continue;
    a->live_objs += o->objs;
    a->live_bytes += o->bytes;
    a->age[GCA_AGE_BINS - 1] += o->objs;
  }
  acc_old_list.n = j;
}

static void row_add(struct types_row *r, const struct gca_acc *a)
{
  unsigned b;

  r->live_objs += a->live_objs;
  r->live_bytes += a->live_bytes;
  r->alloc_objs += a->alloc_objs;
  r->alloc_bytes += a->alloc_bytes;
  r->freed_objs += a->freed_objs;
  r->freed_bytes += a->freed_bytes;
  for (b = 0; b < GCA_AGE_BINS; b++) r->age[b] += a->age[b];
}

/* Add every accumulator into its type and site rows, once per pair,    */
/* and start a new round.                                                */
GC_INNER void gca_types_fold(void)
{
  word i;

  if (0 == type_rows.cap) (void)types_rows_reserve(&type_rows, 64);
  for (i = 0; i < acc_n_dirty; i++) {
    unsigned pair = acc_dirty[i];
    const struct gca_acc *a = &gca_acc_tab[pair];
    unsigned t = gca_pair_type(pair);
    struct types_row *sr = site_row(gca_pair_get(pair)->site);

    if (t < type_rows.cap) row_add(&type_rows.cur[t], a);
    if (sr != NULL) row_add(sr, a);
  }
  acc_n_dirty = 0;
  gca_acc_stamp++;
}

/* ---- naming (lock held) ----------------------------------------------------- */

static char *types_strdup_os(const char *s, size_t n)
{
  /* Names live in small OS arenas.                                     */
  static char *arena = NULL;
  static size_t arena_left = 0;
  char *r;

  if (n + 1 > arena_left) {
    size_t sz = n + 1 > 16384 ? n + 1 : 16384;

    arena = (char *)types_os_alloc(sz);
    if (NULL == arena) {
      arena_left = 0;
      return NULL;
    }
    arena_left = sz;
  }
  r = arena;
  BCOPY(s, r, n);
  r[n] = '\0';
  arena += n + 1;
  arena_left -= n + 1;
  /* Never left pointing just past the mapping (our statics are roots, */
  /* and the next mapping may be the heap's).                          */
  if (0 == arena_left) arena = NULL;
  return r;
}

static void type_name(unsigned id)
{
  struct types_type *t = &type_tab[id];
  char buf[256];
  int named = 0;
  json_t *js;
  char *q;
  size_t i;

  buf[0] = '\0';
  if (types_namer != 0) {
    named = types_namer((GC_word)t->cookie, buf, sizeof(buf)) != 0;
    buf[sizeof(buf) - 1] = '\0';
  }
  if (!named || '\0' == buf[0]) {
    (void)snprintf(buf, sizeof(buf), "%s 0x%llx",
                   t->origin == GCA_TYPE_GCJ ? "gcj vtable"
                   : t->origin == GCA_TYPE_FIRST_WORD ? "class" : "type",
                   (unsigned long long)t->cookie);
  }
  js = json_string(buf);
  if (NULL == js) {
    /* Not UTF-8: keep ASCII, replace the rest.                          */
    for (i = 0; buf[i] != '\0'; i++)
      if ((unsigned char)buf[i] >= 0x80) buf[i] = '?';
    js = json_string(buf);
  }
  q = js != NULL ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
  if (js != NULL) json_decref(js);
  t->name_json = q != NULL ? types_strdup_os(q, strlen(q)) : NULL;
  if (q != NULL) free(q);
}

/* ---- record output --------------------------------------------------------- */

struct types_out {
  char *buf;
  size_t len, cap;
  int fail;
};
static struct types_out out;

static void out_reserve(size_t more)
{
  size_t cap;
  char *nb;

  if (out.fail || out.len + more <= out.cap) return;
  cap = out.cap ? out.cap : 16384;
  while (cap < out.len + more) cap *= 2;
  nb = (char *)types_os_alloc(cap);
  if (NULL == nb) {
    out.fail = 1;
    return;
  }
  if (out.len) BCOPY(out.buf, nb, out.len);
  types_unmap(out.buf, out.cap);
  out.buf = nb;
  out.cap = cap;
}

static void out_str(const char *s, size_t n)
{
  out_reserve(n);
  if (out.fail) return;
  BCOPY(s, out.buf + out.len, n);
  out.len += n;
}

#define OUT_LIT(s) out_str(s, sizeof(s) - 1)

static void out_word(word x)
{
  out_reserve(24);
  if (out.fail) return;
  out.len = (size_t)(gca_put_word(out.buf + out.len, x) - out.buf);
}

static void out_hex(word x)
{
  char b[24];
  int n = snprintf(b, sizeof(b), "\"0x%llx\"", (unsigned long long)x);

  out_str(b, (size_t)n);
}

/* New type names, then new sites (definitions come before any row that */
/* uses them, in the same record).                                      */
static void site_def(void *arg, unsigned id, const word *frames, unsigned n)
{
  unsigned i;
  int *first = (int *)arg;

  if (!*first) OUT_LIT(",");
  *first = 0;
  OUT_LIT("[");
  out_word(id);
  for (i = 0; i < n; i++) {
    OUT_LIT(",");
    out_hex(frames[i]);
  }
  OUT_LIT("]");
}

static void out_definitions(void)
{
  unsigned id;
  int first = 1;

  OUT_LIT(",\"types\":[");
  for (id = types_named_upto + 1; id <= type_count; id++) {
    if (NULL == type_tab[id].name_json) type_name(id);
    if (id > types_named_upto + 1) OUT_LIT(",");
    OUT_LIT("[");
    out_word(id);
    OUT_LIT(",");
    out_hex(type_tab[id].cookie);
    OUT_LIT(",");
    if (type_tab[id].name_json != NULL)
      out_str(type_tab[id].name_json, strlen(type_tab[id].name_json));
    else
      OUT_LIT("\"?\"");
    OUT_LIT("]");
    type_tab[id].named = 1;
  }
  types_named_upto = type_count;
  OUT_LIT("],\"sites\":[");
  gca_sites_take_new(site_def, &first);
  OUT_LIT("]");
}

/* Rows that changed since the last record: [id, live_objs, live_bytes, */
/* alloc_objs, alloc_bytes, freed_objs, freed_bytes, age bins...] with */
/* alloc and freed as deltas.                                            */
#define OUT_ROW_NUMS (7 + GCA_AGE_BINS)

static void out_rows(const char *key, struct types_rows *r, unsigned n)
{
  unsigned i, b;
  int first = 1;

  out_str(key, strlen(key));
  for (i = 0; i < n && i < r->cap; i++) {
    struct types_row *c = &r->cur[i], *s = &r->sent[i];
    word v[OUT_ROW_NUMS];

    if (0 == memcmp(c, s, sizeof(*c)) && (r->ever[i] || 0 == c->live_objs))
      continue;
    v[0] = i;
    v[1] = c->live_objs;
    v[2] = c->live_bytes;
    v[3] = c->alloc_objs - s->alloc_objs;
    v[4] = c->alloc_bytes - s->alloc_bytes;
    v[5] = c->freed_objs - s->freed_objs;
    v[6] = c->freed_bytes - s->freed_bytes;
    for (b = 0; b < GCA_AGE_BINS; b++) v[7 + b] = c->age[b];
    /* Formatted in place: a call per number and per comma cost more    */
    /* than the census of the rows.                                      */
    out_reserve(OUT_ROW_NUMS * 21 + 3);
    if (out.fail) return;
    out.len = (size_t)(gca_put_row(out.buf + out.len, first, v, OUT_ROW_NUMS)
                       - out.buf);
    first = 0;
    *s = *c;
    r->ever[i] = 1;
  }
  OUT_LIT("]");
}

GC_INNER word gca_types_memory_bytes(void)
{
  return types_mem_bytes;
}

/* Finish a record: head is the record so far, without its closing "}". */
/* Appends the type and site tables (census records only), the memory   */
/* the accounting tables use, "}\n", and submits it.  Lock held.        */
GC_INNER void gca_types_record_submit(const char *head, size_t len,
                                      int with_census)
{
  word tags = gca_tags_memory_bytes(), sites = gca_sites_memory_bytes();
  word counters = gca_counters_memory_bytes();

  out.len = 0;
  out.fail = 0;
  out_str(head, len);
  if (with_census && gca_tags_on) {
    out_definitions();
    out_rows(",\"type_rows\":[", &type_rows, type_count + 1);
    out_rows(",\"site_rows\":[", &site_rows, site_max + 1);
  }
  OUT_LIT(",\"acc_memory\":{\"tags_bytes\":");
  out_word(tags);
  OUT_LIT(",\"tags_in_use_bytes\":");
  out_word(gca_tags_in_use_bytes());
  OUT_LIT(",\"types_bytes\":");
  out_word(types_mem_bytes);
  OUT_LIT(",\"sites_bytes\":");
  out_word(sites);
  OUT_LIT(",\"counters_bytes\":");
  out_word(counters);
  OUT_LIT("},\"acc_memory_bytes\":");
  out_word(tags + types_mem_bytes + sites + counters);
  OUT_LIT("}\n");
  if (out.fail) return;
  (void)gca_dump_submit(out.buf, out.len);
}

/* ---- frames ------------------------------------------------------------ */

static struct pair_list frame_dirty;    /* pair ids with frame counts  */
static word frame_lost_objs = 0, frame_lost_bytes = 0;

static void frame_add_locked(unsigned pair, word objs, word bytes)
{
  struct types_pair *e;

  if (0 == pair) {
    frame_lost_objs += objs;
    frame_lost_bytes += bytes;
    return;
  }
  e = gca_pair_get(pair);
  if (!e->frame_dirty) {
    if (!pair_list_push(&frame_dirty, pair)) {
      frame_lost_objs += objs;
      frame_lost_bytes += bytes;
      return;
    }
    e->frame_dirty = 1;
  }
  e->frame_objs += objs;
  e->frame_bytes += bytes;
}

/* Per-thread frame counts for allocations made without the lock        */
/* (thread-local free lists, GC_malloc_many).  Written by the owner      */
/* only; the frame marker (lock held) takes the growth since its last   */
/* look.  Each thread's table is indexed by pair id, in pages of        */
/* FTL_PAGE entries under a two-level directory, allocated as the       */
/* thread first meets a pair of the page (published with a release     */
/* store, read with acquire loads): a lookup is three loads, whatever   */
/* the number of pairs.  Only a failed page allocation counts as lost.  */
#define FTL_PAGE_LOG 8
#define FTL_PAGE ((unsigned)1 << FTL_PAGE_LOG)
#define FTL_MID_LOG 8
#define FTL_MID ((unsigned)1 << FTL_MID_LOG)
#define FTL_TOP ((GCA_MAX_PAIRS >> (FTL_PAGE_LOG + FTL_MID_LOG)) + 1)
/* struct frame_tl_ent: gca_priv.h (the allocation path bumps it).   */
struct frame_tl_mid {
  struct frame_tl_ent *page[FTL_MID];
};
/* The owner's pair cache: (cookie, site) -> pair and its entry, two-  */
/* way set-associative, so that a thread cycling through many types     */
/* finds its pair without the shared hash table.  It starts at          */
/* FTL_PCACHE entries, inside struct frame_tl, and doubles (up to       */
/* FTL_PCACHE_MAX) when more than one lookup in 16 misses over a run of */
/* lookups eight times its size: a thread that allocates 2,000 types    */
/* round-robin missed 30% of the time in 2,048 entries.                 */
/* The entries (struct gca_pc, gca_priv.h) hold the pair only; each has  */
/* its frame-count entry at the same index of a parallel array, which    */
/* only frame counting reads.                                             */
#define FTL_PCACHE 2048u
#define FTL_PCACHE_MAX 16384u
struct frame_tl {
  struct frame_tl *next;
  volatile word owned;
  word lost_objs, lost_bytes, taken_lost_objs, taken_lost_bytes;
  struct frame_tl_mid *top[FTL_TOP];
  struct gca_pc *pc;            /* pc0, or a larger table             */
  struct frame_tl_ent **pc_ent; /* pc_ent0, or the larger table's      */
  word pc_mask;                 /* entries - 2: sets are even indices */
  word pc_misses;               /* the owner's gca_tl counts lookups  */
  struct gca_pc pc0[FTL_PCACHE];
  struct frame_tl_ent *pc_ent0[FTL_PCACHE];
};
static struct frame_tl *volatile frame_tl_registry = NULL;

static struct frame_tl *frame_tl_get(struct gca_tl *me)
{
  struct frame_tl *t = me->frame_tl;

  if (EXPECT(t != NULL, TRUE)) return t;
  PAIRS_LOCK();
  for (t = frame_tl_registry; t != NULL; t = t->next)
    if (!t->owned) break;
  if (NULL == t) {
    t = (struct frame_tl *)types_os_alloc(sizeof(struct frame_tl));
    if (t != NULL) {
      t->pc = t->pc0;
      t->pc_ent = t->pc_ent0;
      t->pc_mask = FTL_PCACHE - 2;
      t->next = frame_tl_registry;
      frame_tl_registry = t;
    }
  }
  if (t != NULL) t->owned = 1;
  PAIRS_UNLOCK();
  me->frame_tl = t;
  if (t != NULL) {
    /* The cache's contents stay (pairs are global); its miss rate is   */
    /* this thread's from now on.                                        */
    t->pc_misses = 0;
    me->pc_mask = t->pc_mask;
    me->pc_lookups = 0;
    me->pc = t->pc;
  }
  return t;
}

/* The owner's entry of pair in t (allocating its page), or NULL.      */
static struct frame_tl_ent *frame_tl_ent_of(struct frame_tl *t,
                                            unsigned pair)
{
  unsigned hi = pair >> (FTL_PAGE_LOG + FTL_MID_LOG);
  unsigned mi = (pair >> FTL_PAGE_LOG) & (FTL_MID - 1);
  struct frame_tl_mid *mid = t->top[hi];
  struct frame_tl_ent *page, *f;

  if (EXPECT(NULL == mid, FALSE)) {
    PAIRS_LOCK();
    mid = (struct frame_tl_mid *)types_os_alloc(sizeof(*mid));
    PAIRS_UNLOCK();
    if (NULL == mid) return NULL;
    REL_STOREP(&t->top[hi], mid);
  }
  page = mid->page[mi];
  if (EXPECT(NULL == page, FALSE)) {
    PAIRS_LOCK();
    page = (struct frame_tl_ent *)types_os_alloc(
                                FTL_PAGE * sizeof(struct frame_tl_ent));
    PAIRS_UNLOCK();
    if (NULL == page) return NULL;
    REL_STOREP(&mid->page[mi], page);
  }
  f = &page[pair & (FTL_PAGE - 1)];
  if (0 == f->pair) GCA_STORE(&f->pair, pair);
  return f;
}

/* Bytes of a grown pair cache of n entries and its parallel array.   */
#define FTL_PC_BYTES(n) ((n) * (sizeof(struct gca_pc) \
                                + sizeof(struct frame_tl_ent *)))

/* Double t's pair cache (the owner only), keeping what it holds.  0 if */
/* it is at its largest or no memory: the caller goes on as it was.     */
static int frame_pc_grow(struct gca_tl *me, struct frame_tl *t)
{
  word n = t->pc_mask + 2, i;
  struct gca_pc *np;
  struct frame_tl_ent **ne;

  me->pc_lookups = t->pc_misses = 0;
  if (n >= FTL_PCACHE_MAX) return 0;
  PAIRS_LOCK();
  np = (struct gca_pc *)types_os_alloc(FTL_PC_BYTES(2 * n));
  PAIRS_UNLOCK();
  if (NULL == np) return 0;
  ne = (struct frame_tl_ent **)(np + 2 * n);
  for (i = 0; i < n; i++) {
    const struct gca_pc *e = &t->pc[i];
    word d;

    if (0 == e->pair) continue;
    d = gca_pc_set(e->cookie, e->site, 2 * n - 2);
    if (np[d].pair != 0) d++;           /* second way (newest first lost) */
    if (0 == np[d].pair) {
      np[d] = *e;
      ne[d] = t->pc_ent[i];
    }
  }
  if (t->pc != t->pc0) {
    PAIRS_LOCK();
    types_unmap(t->pc, FTL_PC_BYTES(n));
    PAIRS_UNLOCK();
  }
  t->pc = np;
  t->pc_ent = ne;
  t->pc_mask = 2 * n - 2;
  me->pc = np;
  me->pc_mask = t->pc_mask;
  return 1;
}

GC_INNER unsigned gca_pair_intern_tl(struct gca_tl *me, word cookie,
                                     unsigned site, int origin,
                                     struct frame_tl_ent **ent)
{
  struct frame_tl *t = frame_tl_get(me);
  const struct gca_pc *hit;
  struct gca_pc *c;
  struct frame_tl_ent **e;
  word i;
  unsigned pair;

  *ent = NULL;
  if (EXPECT(NULL == t, FALSE)) return gca_pair_intern(cookie, site, origin);
  me->pc_lookups++;
  hit = gca_pc_find(t->pc, t->pc_mask, cookie, site);
  if (hit != NULL) {
    e = &t->pc_ent[hit - t->pc];
    if (EXPECT(NULL == *e, FALSE) && gca_frames_on)
      *e = frame_tl_ent_of(t, hit->pair);
    *ent = *e;
    return hit->pair;
  }
  i = gca_pc_set(cookie, site, t->pc_mask);
  if (++t->pc_misses > me->pc_lookups / 16
      && me->pc_lookups > 8 * (t->pc_mask + 2)) {
    if (frame_pc_grow(me, t))
      i = gca_pc_set(cookie, site, t->pc_mask);
  }
  pair = gca_pair_intern(cookie, site, origin);
  if (pair != 0) {
    c = &t->pc[i];
    e = &t->pc_ent[i];
    c[1] = c[0];
    e[1] = e[0];
    c->cookie = cookie;
    c->site = site;
    c->pair = pair;
    *e = gca_frames_on ? frame_tl_ent_of(t, pair) : NULL;
    *ent = *e;
  }
  return pair;
}

GC_INNER void gca_types_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct frame_tl *t = me->frame_tl;

  me->c_ent = NULL;
  me->pc = NULL;
  if (NULL == t) return;
  PAIRS_LOCK();
  t->owned = 0;
  PAIRS_UNLOCK();
  me->frame_tl = NULL;
}

GC_INNER void gca_types_frame_count(struct gca_tl *me, unsigned pair,
                                    word bytes, int locked)
{
  struct frame_tl *t;
  struct frame_tl_ent *e;

  if (EXPECT(!gca_frames_on, TRUE)) return;
  if (locked) {
    frame_add_locked(pair, 1, bytes);
    return;
  }
  /* The entry of the thread's cached pair (tags.c's one-entry cache).  */
  e = me->c_ent;
  if (EXPECT(e != NULL && pair == me->c_pair, TRUE)) {
    GCA_STORE(&e->objs, e->objs + 1);
    GCA_STORE(&e->bytes, e->bytes + bytes);
    return;
  }
  t = frame_tl_get(me);
  if (NULL == t) return;
  if (pair != 0) {
    struct frame_tl_ent *f = frame_tl_ent_of(t, pair);

    if (EXPECT(f != NULL, TRUE)) {
      GCA_STORE(&f->objs, f->objs + 1);
      GCA_STORE(&f->bytes, f->bytes + bytes);
      if (pair == me->c_pair) me->c_ent = f;
      return;
    }
  }
  GCA_STORE(&t->lost_objs, t->lost_objs + 1);
  GCA_STORE(&t->lost_bytes, t->lost_bytes + bytes);
}

static void frame_take_threads(void)
{
  struct frame_tl *t;
  unsigned i, hi, mi, top_n;

  PAIRS_LOCK();
  t = frame_tl_registry;
  top_n = (pair_count >> (FTL_PAGE_LOG + FTL_MID_LOG)) + 1;
  PAIRS_UNLOCK();
  for (; t != NULL; t = t->next) {
    word o, b;

    for (hi = 0; hi < top_n; hi++) {
      struct frame_tl_mid *mid = ACQ_LOADP(&t->top[hi]);

      if (NULL == mid) continue;
      for (mi = 0; mi < FTL_MID; mi++) {
        struct frame_tl_ent *page = ACQ_LOADP(&mid->page[mi]);

        if (NULL == page) continue;
        for (i = 0; i < FTL_PAGE; i++) {
          struct frame_tl_ent *e = &page[i];
          unsigned pair = (unsigned)GCA_LOAD(&e->pair);

          if (0 == pair) continue;
          o = GCA_LOAD(&e->objs);
          b = GCA_LOAD(&e->bytes);
          if (o != e->taken_objs)
            frame_add_locked(pair, o - e->taken_objs, b - e->taken_bytes);
          e->taken_objs = o;
          e->taken_bytes = b;
        }
      }
    }
    o = GCA_LOAD(&t->lost_objs);
    b = GCA_LOAD(&t->lost_bytes);
    frame_lost_objs += o - t->taken_lost_objs;
    frame_lost_bytes += b - t->taken_lost_bytes;
    t->taken_lost_objs = o;
    t->taken_lost_bytes = b;
  }
}

/* Frames are counted only once the program marks them: until the first */
/* GC_acc_frame call no allocation path touches the per-thread frame    */
/* tables (a thread's table spans every pair id it meets, 40 bytes each, */
/* which with many threads and callsites is most of the side tables).   */
/* Read racily by the allocation paths: an allocation that misses the   */
/* switch by a moment is simply not in the first frame.                 */
GC_INNER int gca_frames_on = 0;

/* Emit a frame record (lock held).  The first call only starts the     */
/* counting: no frame has been counted yet, so it writes no record.     */
GC_INNER void gca_types_frame(word n)
{
  unsigned i;
  char head[160];
  int hl;

  if (!gca_frames_on) {
    gca_frames_on = 1;
    return;
  }
  frame_take_threads();
  if (!gca_dump_is_open()) {
    /* No dump: just start the next frame.                               */
    for (i = 0; i < frame_dirty.n; i++) {
      struct types_pair *e = gca_pair_get(frame_dirty.id[i]);

      e->frame_objs = e->frame_bytes = 0;
      e->frame_dirty = 0;
    }
    frame_dirty.n = 0;
    frame_lost_objs = frame_lost_bytes = 0;
    return;
  }
  hl = snprintf(head, sizeof(head),
                "{\"record\":\"frame\",\"frame\":%llu,\"gc_no\":%llu,"
                "\"t_ns\":%llu", (unsigned long long)n,
                (unsigned long long)GC_gc_no,
                (unsigned long long)gca_now_ns());
  out.len = 0;
  out.fail = 0;
  out_str(head, (size_t)hl);
  /* Type ids first (may intern), then their definitions.              */
  for (i = 0; i < frame_dirty.n; i++) (void)gca_pair_type(frame_dirty.id[i]);
  out_definitions();
  OUT_LIT(",\"rows\":[");
  for (i = 0; i < frame_dirty.n; i++) {
    struct types_pair *e = gca_pair_get(frame_dirty.id[i]);

    if (i) OUT_LIT(",");
    OUT_LIT("[");
    out_word(e->type);
    OUT_LIT(",");
    out_word(e->site);
    OUT_LIT(",");
    out_word(e->frame_objs);
    OUT_LIT(",");
    out_word(e->frame_bytes);
    OUT_LIT("]");
    e->frame_objs = e->frame_bytes = 0;
    e->frame_dirty = 0;
  }
  frame_dirty.n = 0;
  OUT_LIT("],\"lost_objs\":");
  out_word(frame_lost_objs);
  OUT_LIT(",\"lost_bytes\":");
  out_word(frame_lost_bytes);
  OUT_LIT("}\n");
  frame_lost_objs = frame_lost_bytes = 0;
  if (!out.fail) (void)gca_dump_submit(out.buf, out.len);
}

/* ---- API support (lock held) --------------------------------------------- */

GC_INNER void gca_types_set_namer(GC_acc_type_namer_proc fn)
{
  types_namer = fn;
}

static void row_to_stats(const struct types_row *r,
                         struct GC_acc_group_stats_s *s)
{
  unsigned b;

  s->live_objs = r->live_objs;
  s->live_bytes = r->live_bytes;
  s->alloc_objs = r->alloc_objs;
  s->alloc_bytes = r->alloc_bytes;
  s->freed_objs = r->freed_objs;
  s->freed_bytes = r->freed_bytes;
  for (b = 0; b < GCA_AGE_BINS; b++) s->age_objs[b] = r->age[b];
}

GC_INNER int gca_types_get_type(word cookie, struct GC_acc_group_stats_s *s)
{
  unsigned id;

  gca_types_fold();
  id = cookie != 0 ? type_find(cookie) : 0;
  if ((cookie != 0 && 0 == id) || id >= type_rows.cap) return 0;
  row_to_stats(&type_rows.cur[id], s);
  return 1;
}

GC_INNER int gca_types_get_site(unsigned site, struct GC_acc_group_stats_s *s)
{
  gca_types_fold();
  if (site >= site_rows.cap) return 0;
  row_to_stats(&site_rows.cur[site], s);
  return 1;
}

#endif /* !GC_ACC_DISABLE */
