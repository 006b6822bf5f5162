/* SPDX-License-Identifier: MIT */
/*
 * pairs.c: (type cookie, callsite) pairs, interned to 24-bit ids.
 *
 * A pair is an interned (cookie, site): the object tags of tags.c name
 * pairs, so a tag is one 24-bit number whatever the type and stack.  The
 * pair table is read without locks on the allocation path (open
 * addressing; an entry is published by a release store of its id) and
 * written under a short spin lock, only when a pair is new.  When it
 * fills past half it is replaced by one twice its size; the old table
 * stays mapped (a reader may still be in it; it can only miss, and a miss
 * retries under the spin lock), and its bytes stay counted.  Everything
 * lives in OS memory (gca_mem_alloc), never in the GC heap.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

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
GC_INNER void gca_pairs_atfork_child(void)
{
  PAIRS_UNLOCK();
}

/* Chunks of a page of pairs (73 on 64-bit hosts): a program with a   */
/* few dozen pairs keeps one page of them, not the 20 KiB of 512.  They */
/* were 64 (2.5 KiB of the page: Guile's alloc.scm under trace, 224     */
/* pairs, took 16 KiB where 12 do; issue 33).  A pair's chunk is a      */
/* division by a constant, a multiplication.                             */
#define PAIR_CHUNK ((unsigned)(4096 / sizeof(struct gca_pair)))
#define PAIR_CHUNK_OF(id) ((id) / PAIR_CHUNK)
#define PAIR_N_CHUNKS (GCA_MAX_PAIRS / PAIR_CHUNK + 1)
/* The chunks' pointers: OS memory from the first pair on (as static  */
/* data, 2 MiB, they would count in GC_root_size: see gca_tables).     */
/* They start in the directories' page (pair_dir).                      */
/* It grows by doubling; an outgrown array is kept (a reader may still */
/* hold it: the entries it has stay valid), so all of them take at     */
/* most twice the last one.                                             */
static struct gca_pair **volatile pair_chunks = NULL;
static unsigned pair_n_chunks = 0;      /* entries of pair_chunks      */
static volatile unsigned pair_count = 0;  /* ids 1..pair_count in use  */

/* A slot is the pair's site and id: its cookie is the pair's own      */
/* (gca_pair_get), read once the site matches.  8 bytes a slot, not 16: */
/* the first table, 512 slots, is a page (Guile's alloc.scm under trace */
/* has 224 pairs: 4 KiB where 256 and then 512 slots of 16 bytes took  */
/* 12; issue 33).                                                        */
struct pair_slot {
  unsigned site;
  unsigned id;          /* 0: empty; published last (release)          */
};
#define PAIR_HASH_MIN (4096 / sizeof(struct pair_slot))
/* A table's slots are 2^k, in pages of their own; its mask and       */
/* address are in a static array (a table is made at most once for each */
/* k), published whole: with the mask in the table's first word, 256  */
/* slots took two pages and 512 three (Guile's alloc.scm under trace:  */
/* 20 KiB where 12 do; issue 33).                                        */
struct pair_hash {
  word mask;
  struct pair_slot *s;
};
#define PAIR_HASH_GENS (sizeof(word) * 8)
static struct pair_hash pair_hashes[PAIR_HASH_GENS];
static unsigned pair_hash_gen = 0;      /* next entry of pair_hashes   */
static struct pair_hash *pair_hash = NULL;

/* The pairs' directories, in one page from the first pair on: the     */
/* untyped pairs' chunk pointers (gca_pair_by_site, GCA_PSITE_N_CHUNKS) */
/* and then the first array of the pairs' chunk pointers, the rest of  */
/* the page (two pages before; issue 33).                                */
#define PAIR_DIR_FIRST ((4096 - GCA_PSITE_N_CHUNKS * sizeof(unsigned *)) \
                        / sizeof(struct gca_pair *))
static void **pair_dir = NULL;

static void **pair_dir_get(void)
{
  if (NULL == pair_dir)
    pair_dir = (void **)gca_mem_alloc(GCA_MEM_TYPES, 4096);
  return pair_dir;
}

GC_INNER struct gca_pair *gca_pair_get(unsigned id)
{
  struct gca_pair **c = ACQ_LOADP(&pair_chunks);

  return &c[PAIR_CHUNK_OF(id)][id % PAIR_CHUNK];
}

static struct pair_hash *pair_hash_new(word n_slots)
{
  struct pair_hash *h;
  struct pair_slot *sl;

  if (pair_hash_gen >= PAIR_HASH_GENS) return NULL;
  sl = (struct pair_slot *)gca_mem_alloc(GCA_MEM_TYPES,
                                         n_slots * sizeof(struct pair_slot));
  if (NULL == sl) return NULL;
  h = &pair_hashes[pair_hash_gen++];
  h->mask = n_slots - 1;
  h->s = sl;
  return h;
}

static unsigned pair_lookup(struct pair_hash *h, word cookie, unsigned site)
{
  word i;

  if (NULL == h) return 0;
  for (i = gca_hash(cookie, site) & h->mask;; i = (i + 1) & h->mask) {
    struct pair_slot *s = &h->s[i];
    unsigned id = ACQ_LOAD32(&s->id);

    if (0 == id) return 0;
    if (s->site == site && gca_pair_get(id)->cookie == cookie) return id;
  }
}

static void pair_insert_slot(struct pair_hash *h, word cookie, unsigned site,
                             unsigned id)
{
  word i;

  for (i = gca_hash(cookie, site) & h->mask; h->s[i].id != 0;
       i = (i + 1) & h->mask) {
    /* probe */
  }
  h->s[i].site = site;
  REL_STORE32(&h->s[i].id, id);
}

/* The untyped pair (0, site) of each site that has one, so that the   */
/* allocation path finds a stack's pair with three loads: chunks of     */
/* 1024 sites, made under the spin lock when such a pair is made, read */
/* without a lock (gca_pair_untyped).  OS memory.                        */
/* Sites NONE and UNSAMPLED (no stack taken: nearly every object of the */
/* full profile) have theirs in gca_pair_plain, one load away.           */
GC_INNER unsigned **gca_pair_by_site = NULL;    /* [GCA_PSITE_N_CHUNKS] */
GC_INNER unsigned gca_pair_plain[GCA_SITE_UNSAMPLED + 1];

static void pair_site_note(unsigned site, unsigned id)
{
  unsigned **top = gca_pair_by_site;
  unsigned *c;

  if (site <= GCA_SITE_UNSAMPLED) {
    GCA_STORE(&gca_pair_plain[site], id);
    return;
  }
  if ((site >> GCA_PSITE_CHUNK_LOG) >= GCA_PSITE_N_CHUNKS) return;
  if (NULL == top) {
    top = (unsigned **)pair_dir_get();
    if (NULL == top) return;
    REL_STOREP(&gca_pair_by_site, top);
  }
  c = top[site >> GCA_PSITE_CHUNK_LOG];
  if (NULL == c) {
    c = (unsigned *)gca_mem_alloc(GCA_MEM_TYPES,
                                  sizeof(unsigned) << GCA_PSITE_CHUNK_LOG);
    if (NULL == c) return;
    REL_STOREP(&top[site >> GCA_PSITE_CHUNK_LOG], c);
  }
  GCA_STORE(&c[site & ((1u << GCA_PSITE_CHUNK_LOG) - 1)], id);
}

/* The pair id of (cookie, site), interned if new; 0 if the table is   */
/* full or out of memory (the object then goes untagged).  Any thread, */
/* lock held or not.                                                    */
GC_INNER unsigned gca_pair_intern(word cookie, unsigned site, int origin)
{
  struct pair_hash *h = ACQ_LOADP(&pair_hash);
  unsigned id = pair_lookup(h, cookie, site);
  struct gca_pair *e;

  if (EXPECT(id != 0, TRUE)) return id;
  PAIRS_LOCK();
  h = pair_hash;
  id = pair_lookup(h, cookie, site);
  if (id != 0) goto done;
  if (NULL == h || (word)(pair_count + 1) * 2 > h->mask + 1) {
    word n = NULL == h ? PAIR_HASH_MIN : (h->mask + 1) * 2;
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
  if (PAIR_CHUNK_OF(id) >= pair_n_chunks) {
    unsigned n = pair_n_chunks ? 2 * pair_n_chunks : PAIR_DIR_FIRST;
    struct gca_pair **nc;

    if (n > PAIR_N_CHUNKS) n = PAIR_N_CHUNKS;
    if (0 == pair_n_chunks) {
      /* The directories' page, after gca_pair_by_site's pointers.       */
      nc = NULL == pair_dir_get() ? NULL
           : (struct gca_pair **)(pair_dir + GCA_PSITE_N_CHUNKS);
    } else {
      nc = (struct gca_pair **)gca_mem_alloc(GCA_MEM_TYPES,
                                             n * sizeof(struct gca_pair *));
    }
    if (NULL == nc) {
      id = 0;
      goto done;
    }
    if (pair_n_chunks)
      BCOPY(pair_chunks, nc, pair_n_chunks * sizeof(struct gca_pair *));
    REL_STOREP(&pair_chunks, nc);
    pair_n_chunks = n;
  }
  if (NULL == pair_chunks[PAIR_CHUNK_OF(id)]) {
    pair_chunks[PAIR_CHUNK_OF(id)] = (struct gca_pair *)gca_mem_alloc(
                                GCA_MEM_TYPES,
                                PAIR_CHUNK * sizeof(struct gca_pair));
    if (NULL == pair_chunks[PAIR_CHUNK_OF(id)]) {
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
  if (0 == cookie) pair_site_note(site, id);
done:
  PAIRS_UNLOCK();
  return id;
}

/* ---- old objects (lock held) ------------------------------------------- */
/* Live objects in the oldest age bin, per pair (struct gca_pair's old */
/* counts: a table of their own took a page more; issue 33), kept     */
/* incrementally: an object is added when a census first sees it 32    */
/* collections old (and its tag gets OLD), removed when it is found    */
/* unmarked, GC_free'd or its block freed.  A census then only checks  */
/* the mark bit of an old slot; gca_types_census_old (types.c) adds   */
/* the counts into the accumulators.                                     */
GC_INNER unsigned gca_old_first = 0;    /* linked by old_next, or 0    */

GC_INNER int gca_old_add(unsigned pair, word bytes)
{
  struct gca_pair *o = gca_pair_get(pair);

  if (!o->old_listed) {
    o->old_next = gca_old_first;
    gca_old_first = pair;
    o->old_listed = 1;
  }
  o->old_objs++;
  o->old_bytes += bytes;
  return 1;
}

GC_INNER void gca_old_sub(unsigned pair, word bytes)
{
  struct gca_pair *o;

  if (0 == pair || pair > gca_pair_count()) return;
  o = gca_pair_get(pair);
  if (o->old_objs != 0) {
    o->old_objs--;
    o->old_bytes -= bytes;
  }
}

GC_INNER void gca_old_reset(void)
{
  unsigned pair, next;

  for (pair = gca_old_first; pair != 0; pair = next) {
    struct gca_pair *o = gca_pair_get(pair);

    next = o->old_next;
    o->old_objs = o->old_bytes = 0;
    o->old_listed = 0;
    o->old_next = 0;
  }
  gca_old_first = 0;
}

GC_INNER unsigned gca_pair_count(void)
{
  return ACQ_LOAD32(&pair_count);
}

GC_INNER word gca_pair_cookie(unsigned id)
{
  return gca_pair_get(id)->cookie;
}

GC_INNER unsigned gca_pair_site(unsigned id)
{
  return gca_pair_get(id)->site;
}

#endif /* !GC_ACC_DISABLE */
