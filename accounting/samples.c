/* SPDX-License-Identifier: MIT */
/*
 * samples.c: the sampled object profile (GC_ACC_PROFILE=sampled, the
 * default while accounting is on).
 *
 * Types and callsites from Poisson samples by bytes, as Go's heap
 * profile, jemalloc and tcmalloc take them: sample points fall on each
 * thread's stream of allocated bytes at exponentially distributed
 * distances of mean R (GC_ACC_PROFILE=sampled=R, 512 KiB by default), and
 * an allocation of s bytes that holds a point is a sample (probability
 * 1 - exp(-s/R)).  The allocation path only counts down: the thread's
 * gca_sample_left (gca_hooks.h), in granules, less each allocation's
 * granules, one subtraction and a branch inline on every path; only when
 * it goes below zero does a hook call gca_samples_take.  Unsampled
 * objects carry nothing, no tag, no table slot.
 *
 * A sample keeps its object's address (hidden: our pages are not scanned,
 * and the address is stored complemented anyway), requested and granted
 * size, kind, GC_gc_no at allocation, callsite (the frame-pointer walk,
 * sites.c) and explicit type (GC_acc_set_next_type, which notes where the
 * thread's countdown stood: the type is the sample's only if the countdown
 * still stood there before it, no allocation between), and its weight: the
 * objects and bytes it stands for, 1 / (1 - exp(-s/R)) objects and s
 * times that in bytes (pprof's scaling of Go's heap profile, applied per
 * sample, so that a row mixing sizes is still estimated without bias).
 * The objects' weight is rounded at random to a neighbouring integer
 * (unbiased); the bytes' is rounded to the nearest.
 *
 * A new sample is pushed (one compare-and-swap, no lock) on a pending
 * list; its node comes from the thread's own cache, refilled from the
 * nodes the census frees (taken all at once, so no ABA) or from new OS
 * pages.  The census (collection end, lock held) takes the pending list,
 * then judges every sample by its object's mark bit: live (counted live,
 * with its age), or freed (counted freed, node freed); a sample is counted
 * as allocated at the first census that judges it.  Objects born after
 * the collection's mark wait for the next census.  Word-0 types
 * (objtype.c: gcj vtables, IL2CPP classes) are read for samples only, at
 * the census, exactly as the full profile reads them.  Counts go into the
 * per-pair accumulators of types.c, so records carry the same type and
 * site rows as the full profile, with estimates in them and the raw
 * sample counts beside (docs/dump-format.md, "The sampled profile").
 *
 * GC_free of a sampled object counts it freed at once (an address hash
 * finds it); a sample whose block no longer holds its object (freed and
 * reused) is counted freed by the census's check of the block.
 *
 * Memory: our own pages, at most the side-table cap (GC_ACC_TABLE_LIMIT,
 * shared with the other tables); past it samples are dropped, counted
 * (records' samples_dropped) and said once.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

struct gca_sample {
  struct gca_sample *next;      /* pending or free list                  */
  word addr;                    /* ~address of the object                */
  word sz;                      /* its block's hb_sz at allocation       */
  word req, granted;
  word birth;                   /* GC_gc_no at allocation                */
  word w_objs, w_bytes;         /* what it stands for                    */
  word cookie;                  /* explicit type, or 0                   */
  unsigned site, pair, kind, seen;
  unsigned fpair;               /* frame count's pair, its type unread  */
};

#define SAMPLES_CHUNK 4096u     /* bytes of nodes taken from the OS: a  */
                                /* page, each thread taking its own     */
#define SAMPLES_IDLE ((signed_word)1 << 20)  /* granules, profile not on */

GC_INNER GCA_TLS_FAST signed_word gca_sample_left = 0;
GC_INNER word gca_sample_bytes = GCA_SAMPLE_DEFAULT_BYTES;
static volatile word samples_epoch = 1;  /* profile or rate changed      */

static struct gca_sample *volatile samples_pending = NULL;
static struct gca_sample *volatile samples_free = NULL;

/* The census's books (lock held).                                      */
static struct gca_sample **samples_tab = NULL;   /* tracked samples     */
static word samples_n = 0, samples_cap = 0;
static word samples_judged = 0;         /* [0, this): seen by a census  */
static word *samples_hash = NULL;       /* index + 1 by address, or 0    */
static word samples_hash_mask = 0;
static volatile word samples_mem = 0;   /* OS bytes: nodes and tables    */
static volatile word samples_dropped = 0;
static volatile word samples_taken = 0;
/* [samples_frame_from, samples_n): may hold samples of the frame whose */
/* frame count still waits for their type (fpair != 0).                  */
static word samples_frame_from = 0;

/* ---- settings ------------------------------------------------------------ */

GC_INNER void gca_samples_set_rate(word bytes)
{
  if (0 == bytes) bytes = GCA_SAMPLE_DEFAULT_BYTES;
  GCA_STORE(&gca_sample_bytes, bytes);
  __atomic_add_fetch(&samples_epoch, 1, __ATOMIC_RELEASE);
}

GC_INNER void gca_samples_new_epoch(void)
{
  __atomic_add_fetch(&samples_epoch, 1, __ATOMIC_RELEASE);
}

/* ---- nodes --------------------------------------------------------------- */

static struct gca_sample *samples_node(struct gca_tl *me)
{
  struct gca_sample *n = me->p_nodes;

  if (NULL == n) {
    n = __atomic_exchange_n(&samples_free, NULL, __ATOMIC_ACQUIRE);
    if (NULL == n) {
      word cap = gca_table_limit();
      struct gca_sample *c;
      unsigned i, k = SAMPLES_CHUNK / sizeof(struct gca_sample);

      if (GCA_LOAD(&samples_mem) + SAMPLES_CHUNK > cap
          || NULL == (c = (struct gca_sample *)gca_os_alloc(SAMPLES_CHUNK)))
        return NULL;
      __atomic_add_fetch(&samples_mem, SAMPLES_CHUNK, __ATOMIC_RELAXED);
      for (i = 0; i + 1 < k; i++) c[i].next = &c[i + 1];
      n = c;
    }
  }
  me->p_nodes = n->next;
  return n;
}

/* Push first..last on a lock-free list (any thread; the lists are only */
/* ever taken whole, by an exchange, so a push cannot meet ABA).         */
static void samples_push(struct gca_sample *volatile *list,
                         struct gca_sample *first, struct gca_sample *last)
{
  struct gca_sample *old = __atomic_load_n(list, __ATOMIC_RELAXED);

  do {
    last->next = old;
  } while (!__atomic_compare_exchange_n(list, &old, first, 1,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Nodes the census (or an exiting thread) is done with, for any thread  */
/* to take.                                                               */
static void samples_release(struct gca_sample *first,
                            struct gca_sample *last)
{
  samples_push(&samples_free, first, last);
}

/* ---- taking a sample --------------------------------------------------- */

/* Granules to the next sample point of the thread's stream.            */
GC_INLINE signed_word samples_draw(struct gca_tl *me, word rate)
{
  return gca_rng_exp(&me->p_rng, rate) / GRANULE_BYTES;
}

static void samples_record(struct gca_tl *me, void *p, size_t lb,
                           word granted, int k, word cookie, word rate)
{
  struct gca_sample *n;
  double w, s = (double)granted;
  word wo;

  if (me->p_busy) return;       /* an allocation inside ours            */
  me->p_busy = 1;
  n = samples_node(me);
  if (NULL == n) {
    __atomic_add_fetch(&samples_dropped, 1, __ATOMIC_RELAXED);
    me->p_busy = 0;
    return;
  }
  w = 1.0 / gca_one_minus_exp_neg(s / (double)rate);
  wo = (word)w;
  if (gca_rng_unit(&me->p_rng) <= w - (double)wo) wo++;   /* (0, 1]    */
  n->addr = ~(word)p;
  n->sz = HDR(p)->hb_sz;
  n->req = (word)lb;
  n->granted = granted;
  n->birth = GC_gc_no;
  n->w_objs = wo;
  n->w_bytes = (word)(s * w + 0.5);
  n->cookie = cookie;
  n->kind = (unsigned)k;
  n->seen = 0;
  n->pair = 0;
  n->fpair = 0;
  n->site = gca_sites_stack();
  if (gca_frames_on) {
    struct frame_tl_ent *ent;
    unsigned pair = gca_pair_intern_tl(me, cookie, n->site,
                                       cookie != 0 ? GCA_TYPE_EXPLICIT : 0,
                                       &ent);

    if (pair != 0) {
      gca_frames_count(me, pair, wo, n->w_bytes, 0);
      /* A type from word 0 is unknown yet (IL2CPP writes the class     */
      /* just after GC_malloc returns): gca_samples_frame_types moves   */
      /* the count once word 0 names it.                                 */
      if (0 == cookie && gca_objtype_how((unsigned)k) != 0) n->fpair = pair;
    }
  }
  samples_push(&samples_pending, n, n);
  __atomic_add_fetch(&samples_taken, 1, __ATOMIC_RELAXED);
  me->p_busy = 0;
}

GC_INNER void gca_samples_take(void *p, size_t lb, word granules, int k)
{
  struct gca_tl *me = &gca_tl_self;
  word rate = GCA_LOAD(&gca_sample_bytes);
  word epoch = __atomic_load_n(&samples_epoch, __ATOMIC_ACQUIRE);
  word cookie = 0;
  signed_word left;

  /* The explicit type is this object's if no allocation came between   */
  /* (the countdown is where GC_acc_set_next_type found it).             */
  if (EXPECT(me->next_type != 0, FALSE)) {
    if (gca_sample_left + (signed_word)granules == me->p_next_left)
      cookie = me->next_type;
    me->next_type = 0;
  }
  if (0 == granules) granules = 1;      /* a 0-byte request's granule   */
  if (GCA_LOAD(&gca_profile) != GCA_PROFILE_SAMPLED || NULL == p) {
    gca_sample_left = SAMPLES_IDLE;
    return;
  }
  if (EXPECT(me->p_epoch != epoch, FALSE)) {
    /* New thread, or the profile or rate changed since its last draw:  */
    /* a fresh draw decides this allocation too (memoryless, unbiased). */
    if (0 == me->p_rng) gca_rng_seed(&me->p_rng);
    me->p_epoch = epoch;
    left = samples_draw(me, rate) - (signed_word)granules;
    gca_sample_left = left;
    if (left >= 0) return;
  }
  /* This allocation holds a sample point; the next one is a draw away */
  /* from its end.                                                       */
  gca_sample_left = samples_draw(me, rate);
  samples_record(me, p, lb, GRANULES_TO_BYTES(granules), k, cookie, rate);
}

/* Pops of objects of granted bytes up to the next sample point, this  */
/* one first: 1 + floor(E * R / granted), E ~ Exp(1) (P(n > j) =        */
/* exp(-j * granted / R): each pop a sample with probability             */
/* 1 - exp(-granted / R), independently, as the countdown by bytes      */
/* samples them); 0 past GCA_TL_CAP.                                     */
static word samples_countdown_n(struct gca_tl *me, word rate, word granted)
{
  word q = (word)gca_rng_exp(&me->p_rng, rate) / granted;

  return q >= (word)GCA_TL_CAP ? 0 : q + 1;
}

GC_INNER int gca_samples_countdown_due(int real, word granted,
                                       word list_granted, word *next)
{
  struct gca_tl *me = &gca_tl_self;
  word rate = GCA_LOAD(&gca_sample_bytes);
  word epoch = __atomic_load_n(&samples_epoch, __ATOMIC_ACQUIRE);
  int take;

  if (GCA_LOAD(&gca_profile) != GCA_PROFILE_SAMPLED) {
    *next = 0;
    return 0;
  }
  if (EXPECT(me->p_cd_epoch != epoch, FALSE)) {
    /* New thread, or the profile or rate changed since the draw: a    */
    /* fresh draw decides this pop too (memoryless, unbiased).          */
    if (0 == me->p_rng) gca_rng_seed(&me->p_rng);
    me->p_cd_epoch = epoch;
    real = 0;
  }
  /* Made due (not a sample point): the pop is a sample with its own  */
  /* probability, as if a draw from before it ran out here.            */
  take = real || 1 == samples_countdown_n(me, rate, granted);
  *next = samples_countdown_n(me, rate, list_granted);
  return take;
}

GC_INNER void gca_samples_countdown_take(void *p, size_t lb, word granted,
                                         int k)
{
  samples_record(&gca_tl_self, p, lb, granted, k, 0,
                 GCA_LOAD(&gca_sample_bytes));
}

/* (The copy of mode 1 does not count the thread's countdown down: it  */
/* runs no more once a type was set, tlflags.c.)                         */
GC_INNER void gca_samples_note_next(void)
{
  gca_tl_self.p_next_left = gca_sample_left;
}

GC_INNER void gca_samples_list(void *list, word granted, int k)
{
  void *q;
  word g = BYTES_TO_GRANULES(granted);

  for (q = list; q != NULL; q = obj_link(q)) {
    if (EXPECT((gca_sample_left -= (signed_word)g) < 0, FALSE))
      gca_samples_take(q, granted, g, k);
  }
}

/* ---- the census's books (lock held) ------------------------------------ */

/* The first slot of key (an object's address, inverted) in the hash: */
/* mixed (gca_hash), not the product's low bits, which the address's   */
/* alignment fixes: a sixteenth of the slots took every sample (some   */
/* 60 probes a sample at a census, on klass).                           */
GC_INLINE word samples_slot(word key)
{
  return gca_hash(key, 0) & samples_hash_mask;
}

static void samples_hash_put(word i)
{
  word j = samples_slot(samples_tab[i]->addr);

  while (samples_hash[j] != 0) j = (j + 1) & samples_hash_mask;
  samples_hash[j] = i + 1;
}

static int samples_reserve(word n)
{
  word cap = samples_cap ? samples_cap : 256;
  struct gca_sample **t;
  word *h, i;

  if (n <= samples_cap) return 1;
  while (cap < n) cap *= 2;
  if (GCA_LOAD(&samples_mem) + 3 * cap * sizeof(word) > gca_table_limit())
    return 0;                           /* the cap: new samples dropped  */
  t = (struct gca_sample **)gca_os_alloc(cap * sizeof(*t));
  h = (word *)gca_os_alloc(2 * cap * sizeof(word));
  if (NULL == t || NULL == h) {
    gca_os_free(t, cap * sizeof(*t));
    return 0;
  }
  if (samples_n) BCOPY(samples_tab, t, samples_n * sizeof(*t));
  if (samples_cap) {
    gca_os_free(samples_tab, samples_cap * sizeof(*t));
    gca_os_free(samples_hash, 2 * samples_cap * sizeof(word));
    __atomic_sub_fetch(&samples_mem, 3 * samples_cap * sizeof(word),
                       __ATOMIC_RELAXED);
  }
  __atomic_add_fetch(&samples_mem, 3 * cap * sizeof(word), __ATOMIC_RELAXED);
  samples_tab = t;
  samples_hash = h;
  samples_hash_mask = 2 * cap - 1;
  samples_cap = cap;
  for (i = 0; i < samples_n; i++)
    if (samples_tab[i] != NULL) samples_hash_put(i);  /* not GC_free'd */
  return 1;
}

/* The pending samples into the table; those that do not fit are       */
/* dropped (counted).                                                    */
static void samples_drain(void)
{
  struct gca_sample *n = __atomic_exchange_n(&samples_pending, NULL,
                                             __ATOMIC_ACQUIRE);

  while (n != NULL) {
    struct gca_sample *next = n->next;

    if (samples_n < samples_cap || samples_reserve(samples_n + 1)) {
      n->pair = gca_pair_intern(n->cookie, n->site,
                                n->cookie != 0 ? GCA_TYPE_EXPLICIT : 0);
      samples_tab[samples_n] = n;
      samples_hash_put(samples_n++);
    } else {
      __atomic_add_fetch(&samples_dropped, 1, __ATOMIC_RELAXED);
      samples_release(n, n);
    }
    n = next;
  }
}

/* Does s's block still hold its object?  Then *hp is its header.       */
static int samples_in_place(const struct gca_sample *s, hdr **hp)
{
  ptr_t p = (ptr_t)~s->addr;
  hdr *hhdr = HDR(p);

  if (NULL == hhdr || IS_FORWARDING_ADDR_OR_NIL(hhdr)
      || HBLK_IS_FREE(hhdr) || hhdr->hb_sz != s->sz
      || hhdr->hb_obj_kind != s->kind)
    return 0;
  if (s->sz > MAXOBJBYTES) {
    if (p != (ptr_t)HBLKPTR(p)) return 0;
  } else if ((word)(p - (ptr_t)HBLKPTR(p)) % s->sz != 0) {
    return 0;
  }
  *hp = hhdr;
  return 1;
}

/* pair, or the pair word 0 of s's object names, if s's kind takes its */
/* type from word 0 and the object is still in place.                   */
static unsigned samples_word0_pair(const struct gca_sample *s,
                                   unsigned pair)
{
  int how = gca_objtype_how(s->kind);
  hdr *hhdr;

  return how != 0 && samples_in_place(s, &hhdr)
         ? gca_objtype_resolve(pair, how, (ptr_t)~s->addr) : pair;
}

/* Count s freed (and allocated if no census saw it); its node is done. */
static void samples_count_freed(struct gca_sample *s, int in_place)
{
  struct gca_acc *a;
  struct gca_acc_smp *m;
  int how = gca_objtype_how(s->kind);

  if (how != 0 && in_place)
    s->pair = gca_objtype_resolve(s->pair, how, (ptr_t)~s->addr);
  a = gca_acc_get(s->pair);
  if (NULL == a || NULL == (m = gca_acc_samples(s->pair))) return;
  if (!s->seen) {
    a->alloc_objs += s->w_objs;
    a->alloc_bytes += s->w_bytes;
    m->s_alloc++;
  }
  a->freed_objs += s->w_objs;
  a->freed_bytes += s->w_bytes;
  m->s_freed++;
}

GC_INNER void gca_samples_free(void *p)
{
  word key = ~(word)p, j;

  samples_drain();
  if (0 == samples_n) return;
  for (j = samples_slot(key); samples_hash[j] != 0;
       j = (j + 1) & samples_hash_mask) {
    struct gca_sample *s = samples_tab[samples_hash[j] - 1];

    if (s != NULL && s->addr == key) {
      samples_count_freed(s, 1);
      samples_tab[samples_hash[j] - 1] = NULL;  /* the census drops it  */
      samples_release(s, s);
      return;
    }
  }
}

/* A collection's mark begins (lock held): the type from word 0 of     */
/* every sample no census has seen, while its object is surely whole:  */
/* it was allocated after the last sweep of its slot, and its block may */
/* be freed whole (empty small blocks, large objects) between this mark */
/* and the census, its word 0 lost.                                       */
GC_INNER void gca_samples_mark_begin(void)
{
  word i;

  samples_drain();
  for (i = samples_judged; i < samples_n; i++) {
    struct gca_sample *s = samples_tab[i];

    if (NULL == s || s->seen) continue;
    s->pair = samples_word0_pair(s, s->pair);
  }
  if (gca_frames_on) {
    gca_frames_take_threads();
    gca_samples_frame_types();
  }
}

/* The frame rows of samples whose type comes from word 0 were counted */
/* under their untyped pair, at allocation, before the program wrote    */
/* word 0.  At the frame's end (and at a collection's mark begin, before */
/* the census may free them mid-frame) word 0 is read, as the census     */
/* reads it, and each such sample's count moves to the pair it names.   */
/* The sample's own pair is left to the mark begin and the census: a     */
/* word 0 read here from an object another thread has not filled yet    */
/* costs the frame row its type, never the collection rows theirs.       */
/* Cost: the samples taken since the last look, a few per frame.  Lock  */
/* held, the threads' frame counts taken (gca_frames_take_threads).     */
GC_INNER void gca_samples_frame_types(void)
{
  word i;

  samples_drain();
  for (i = samples_frame_from; i < samples_n; i++) {
    struct gca_sample *s = samples_tab[i];
    unsigned to;

    if (NULL == s || 0 == s->fpair) continue;
    to = s->pair;
    if (gca_pair_cookie(to) == 0 && !s->seen)
      to = samples_word0_pair(s, to);
    if (gca_pair_cookie(to) != 0)
      gca_frames_move(s->fpair, to, s->w_objs, s->w_bytes);
    s->fpair = 0;
  }
  samples_frame_from = samples_n;
}

#define SAMPLES_AHEAD 8

/* Each sample's census waits on a chain of loads, each a cache miss on */
/* a large heap: the sample, the bottom index of its object's block     */
/* (the header table's second level: its slot and key), the header, the */
/* object's mark byte.  The census asks for them in stages, SAMPLES_AHEAD */
/* samples apart (the sample three ahead, its bottom index two ahead,   */
/* its header and mark one ahead), so that the misses of several        */
/* samples overlap instead of following one another.  Prefetches only:  */
/* a sample whose block went away costs a useless one, nothing more.    */
#if defined(__GNUC__) || defined(__clang__)
  GC_INLINE void samples_ask_bi(const struct gca_sample *s)
  {
    word a = ~s->addr, hi = a >> (LOG_BOTTOM_SZ + LOG_HBLKSIZE);
    bottom_index *bi;

#   ifdef HASH_TL
      bi = GC_top_index[TL_HASH(hi)];
      __builtin_prefetch(&bi->key);
#   else
      bi = GC_top_index[hi];
#   endif
    __builtin_prefetch(&bi->index[(a >> LOG_HBLKSIZE) & (BOTTOM_SZ - 1)]);
  }

  GC_INLINE void samples_ask_hdr(const struct gca_sample *s)
  {
    ptr_t p = (ptr_t)~s->addr;
    hdr *hhdr = HDR(p);
    word bit;

    if (IS_FORWARDING_ADDR_OR_NIL(hhdr)) return;
    __builtin_prefetch(hhdr);
    bit = s->sz > MAXOBJBYTES ? 0
          : MARK_BIT_NO((word)(p - (ptr_t)HBLKPTR(p)), s->sz);
#   ifdef USE_MARK_BYTES
      __builtin_prefetch(&hhdr->hb_marks[bit]);
#   else
      __builtin_prefetch(&hhdr->hb_marks[divWORDSZ(bit)]);
#   endif
  }
#endif

GC_INNER void gca_samples_census(void)
{
  word i, j = 0, now = GC_gc_no, frame_from = ~(word)0;
  struct gca_sample *fr_first = NULL, *fr_last = NULL;

  gca_types_census_begin();
  samples_drain();
  for (i = 0; i < samples_n; i++) {
    struct gca_sample *s = samples_tab[i];
    hdr *hhdr = NULL;
    int in_place, how;
    struct gca_acc *a;
    struct gca_acc_smp *m;
    ptr_t p;

    if (i == samples_frame_from) frame_from = j;  /* order is kept     */
#   if defined(__GNUC__) || defined(__clang__)
      /* The stages (samples_ask_bi).                                  */
      if (i + 3 * SAMPLES_AHEAD < samples_n
          && samples_tab[i + 3 * SAMPLES_AHEAD] != NULL)
        __builtin_prefetch(samples_tab[i + 3 * SAMPLES_AHEAD]);
      if (i + 2 * SAMPLES_AHEAD < samples_n
          && samples_tab[i + 2 * SAMPLES_AHEAD] != NULL)
        samples_ask_bi(samples_tab[i + 2 * SAMPLES_AHEAD]);
      if (i + SAMPLES_AHEAD < samples_n
          && samples_tab[i + SAMPLES_AHEAD] != NULL)
        samples_ask_hdr(samples_tab[i + SAMPLES_AHEAD]);
#   endif
    if (NULL == s) continue;            /* GC_free'd                    */
    if (s->birth == now) {              /* born after this mark         */
      samples_tab[j++] = s;
      continue;
    }
    p = (ptr_t)~s->addr;
    in_place = samples_in_place(s, &hhdr);
    if (!in_place
        || !mark_bit_from_hdr(hhdr, MARK_BIT_NO(s->sz > MAXOBJBYTES ? 0
                                       : (word)(p - (ptr_t)HBLKPTR(p)),
                                       s->sz))) {
      samples_count_freed(s, in_place);
      s->next = fr_first;
      fr_first = s;
      if (NULL == fr_last) fr_last = s;
      continue;
    }
    how = gca_objtype_how(s->kind);
    if (how != 0) s->pair = gca_objtype_resolve(s->pair, how, p);
    a = gca_acc_get(s->pair);
    if (a != NULL && (m = gca_acc_samples(s->pair)) != NULL) {
      word age = now - s->birth - 1;

      if (!s->seen) {
        a->alloc_objs += s->w_objs;
        a->alloc_bytes += s->w_bytes;
        m->s_alloc++;
      }
      a->live_bytes += s->w_bytes;
      m->s_live++;
      gca_acc_age_add(a, s->pair,
                      gca_age_bin(age < GCA_AGE_OLD ? age : GCA_AGE_OLD),
                      s->w_objs);
    }
    s->seen = 1;
    samples_tab[j++] = s;
  }
  samples_n = samples_judged = j;
  samples_frame_from = frame_from < j ? frame_from : j;
  if (fr_first != NULL) samples_release(fr_first, fr_last);
  if (GCA_LOAD(&samples_dropped) != 0)
    gca_table_limit_reached("samples", GCA_LOAD(&samples_dropped));
  if (samples_cap) {
    BZERO(samples_hash, 2 * samples_cap * sizeof(word));
    for (i = 0; i < samples_n; i++) samples_hash_put(i);
  }
  gca_types_fold();
}

/* The profile left "sampled" (lock held): every sample is forgotten.   */
GC_INNER void gca_samples_reset(void)
{
  word i;

  samples_drain();
  for (i = 0; i < samples_n; i++)
    if (samples_tab[i] != NULL) samples_release(samples_tab[i], samples_tab[i]);
  samples_n = samples_judged = samples_frame_from = 0;
  if (samples_cap) BZERO(samples_hash, 2 * samples_cap * sizeof(word));
  gca_samples_new_epoch();
}

GC_INNER word gca_samples_memory_bytes(void)
{
  return GCA_LOAD(&samples_mem);
}

GC_INNER void gca_samples_stats(word *taken, word *dropped, word *tracked)
{
  *taken = GCA_LOAD(&samples_taken);
  *dropped = GCA_LOAD(&samples_dropped);
  *tracked = samples_n;
}

GC_INNER void gca_samples_thread_exit(void)
{
  struct gca_tl *me = &gca_tl_self;
  struct gca_sample *first = me->p_nodes, *last = first;

  if (NULL == first) return;
  while (last->next != NULL) last = last->next;
  me->p_nodes = NULL;
  samples_release(first, last);
}

#endif /* !GC_ACC_DISABLE */
