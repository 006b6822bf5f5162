/* SPDX-License-Identifier: MIT */
/*
 * census.c: what the mark bits say at the end of each collection.
 *
 * At GC_ACC_ON_COLLECTION_END (lock held, world running, the sweep only
 * started, mark bits still this collection's) the census counts, per kind
 * and size class, live objects and bytes, bytes of in-use blocks, and free
 * slots, by visiting each in-use block header once and counting the set
 * mark bits (or mark bytes, 16 or, with AVX2, 32 at a time) of its object
 * starts.  Without tags the visits ride the collector's own reclaim walk
 * (GC_ACC_ON_RECLAIM_KEPT, just before the collection's end), where each
 * header is already in cache; otherwise the census walks the heap
 * sections itself, or the header index as GC_apply_to_all_blocks does
 * when the tags' census rides along.  Only the (kind, class) rows
 * a census used are cleared and summed by the next (a bitmap of rows).  It never touches the
 * objects themselves: no second walk of the heap.  Blocks the collection
 * found empty were already freed by GC_start_reclaim and are free blocks
 * now; lazily swept blocks keep their mark bits until the next mark, so the
 * counts describe this collection's mark whatever the sweep does later.
 * Also the timing of the collection (mark begin/end hooks).  Never
 * allocates; all state is read and written under the allocation lock.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

static uint64_t census_t_start = 0; /* first mark begin of this cycle  */
static uint64_t census_t_mark = 0;  /* current mark attempt's begin    */
static uint64_t census_mark_ns = 0; /* summed over attempts            */
static int census_pending = 0;      /* a mark began, no end of cycle   */

GC_INNER void gca_census_mark_begin(void)
{
  uint64_t now = gca_now_ns();

  if (!census_pending) {
    census_pending = 1;
    census_t_start = now;
    census_mark_ns = 0;
  }
  census_t_mark = now;
}

GC_INNER void gca_census_mark_end(int done)
{
  (void)done;   /* an abandoned attempt's time still counts as marking */
  if (census_pending) census_mark_ns += gca_now_ns() - census_t_mark;
}

/* Set bits of a word.  The hardware instruction where the compiler may  */
/* use it; otherwise the branch-free SWAR sum (no call into libgcc's     */
/* __popcountdi2, which a plain __builtin_popcount becomes without       */
/* -mpopcnt).                                                             */
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
# define census_popcount(w) \
        ((word)__builtin_popcountll((unsigned long long)(w)))
#else
  GC_INLINE word census_popcount(word x)
  {
#   if CPP_WORDSZ == 64
      x = x - ((x >> 1) & (word)0x5555555555555555ULL);
      x = (x & (word)0x3333333333333333ULL)
          + ((x >> 2) & (word)0x3333333333333333ULL);
      x = (x + (x >> 4)) & (word)0x0f0f0f0f0f0f0f0fULL;
      return (x * (word)0x0101010101010101ULL) >> 56;
#   else
      x = x - ((x >> 1) & (word)0x55555555UL);
      x = (x & (word)0x33333333UL) + ((x >> 2) & (word)0x33333333UL);
      x = (x + (x >> 4)) & (word)0x0f0f0f0fUL;
      return (x * (word)0x01010101UL) >> 24;
#   endif
  }
#endif

/* Set bytes of a word of mark bytes (each 0 or 1): their sum.            */
#if CPP_WORDSZ == 64
# define census_byte_sum(w) (((w) * (word)0x0101010101010101ULL) >> 56)
  /* Sum of the four 16-bit lanes (each at most 255).                    */
# define census_lane16_sum(w) (((w) * (word)0x0001000100010001ULL) >> 48)
# define CENSUS_M16 ((word)0x00ff00ff00ff00ffULL)
#else
# define census_byte_sum(w) (((w) * (word)0x01010101UL) >> 24)
# define census_lane16_sum(w) (((w) * (word)0x00010001UL) >> 16)
# define CENSUS_M16 ((word)0x00ff00ffUL)
#endif

/* Set marks among mark indexes [0, limit).  Marks are only ever set at  */
/* object starts, so counting every set bit (byte) below the final,      */
/* always-set one counts the marked objects.                             */
GC_INLINE word census_count_marks(hdr *hhdr, word limit)
{
  word n = 0, i;
# ifdef USE_MARK_BYTES
    /* Each mark byte is 0 or 1: a word's set bytes are its byte sum.  */
#   if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
      /* 16 mark bytes at a time: psadbw sums each half's bytes into a  */
      /* 64-bit lane.  The last, partial chunk is masked to its first    */
      /* limit % 16 bytes (hb_marks has room: limit <= HBLK_GRANULES).  */
      typedef long long census_v2di __attribute__((vector_size(16)));
      typedef char census_v16qi __attribute__((vector_size(16)));
      static const unsigned char census_mask[32] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
      };
      census_v2di acc0 = { 0, 0 }, acc1 = { 0, 0 };
      const census_v16qi zero = { 0 };
      const char *m = (const char *)hhdr->hb_marks;
      word full = limit / 16, rest = limit % 16;
      census_v16qi v, u;

      GC_STATIC_ASSERT(MARK_BITS_SZ >= HBLK_GRANULES + 1);
      for (i = 0; i + 2 <= full; i += 2) {
        __builtin_memcpy(&v, m + i * 16, 16);
        __builtin_memcpy(&u, m + i * 16 + 16, 16);
        acc0 += (census_v2di)__builtin_ia32_psadbw128(v, zero);
        acc1 += (census_v2di)__builtin_ia32_psadbw128(u, zero);
      }
      if (i < full) {
        __builtin_memcpy(&v, m + i * 16, 16);
        acc0 += (census_v2di)__builtin_ia32_psadbw128(v, zero);
      }
      if (rest != 0) {
        __builtin_memcpy(&v, m + full * 16, 16);
        __builtin_memcpy(&u, census_mask + 16 - rest, 16);
        acc1 += (census_v2di)__builtin_ia32_psadbw128(v & u, zero);
      }
      acc0 += acc1;
      n = (word)(acc0[0] + acc0[1]);
#   else
    /* Words are summed first (each byte lane counts at most 255 set  */
    /* bytes before it could carry), then the lanes once per chunk.     */
    const word *w = (const word *)(void *)hhdr->hb_marks;
    word full = limit / sizeof(word);

    for (i = 0; i < full;) {
      word lim = full - i > 255 ? i + 255 : full, acc = 0;

      for (; i < lim; i++) acc += w[i];
      n += census_lane16_sum(acc & CENSUS_M16)
           + census_lane16_sum((acc >> 8) & CENSUS_M16);
    }
    for (i = full * sizeof(word); i < limit; i++)
      n += hhdr->hb_marks[i] != 0;
#   endif
# else
    word full = limit / CPP_WORDSZ;

    for (i = 0; i < full; i++) {
      if (hhdr->hb_marks[i] != 0) n += census_popcount(hhdr->hb_marks[i]);
    }
    if (limit % CPP_WORDSZ != 0)
      n += census_popcount(hhdr->hb_marks[full]
                & (((word)1 << (limit % CPP_WORDSZ)) - 1));
# endif
  return n;
}

/* Marked objects of a small-object block from its mark bytes: the    */
/* sum of all of them but the final, always-set one.  Marks are set    */
/* only at object starts below FINAL_MARK_BIT (a pointer into the      */
/* block's tail is taken to the tail's first granule, that final      */
/* mark), and bytes beyond it are never set, so the whole array is     */
/* summed, in a fixed number of steps: no limit, no tail mask (half   */
/* the instructions of census_count_marks).  GC_ASSERT builds check it */
/* against the count below the limit.                                  */
#if defined(USE_MARK_BYTES) && !defined(MARK_BIT_PER_OBJ) \
    && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
# define CENSUS_SUM_BYTES 1
  GC_INLINE word census_sum_mark_bytes(hdr *hhdr)
  {
    typedef long long census_v2di __attribute__((vector_size(16)));
    typedef char census_v16qi __attribute__((vector_size(16)));
    census_v16qi acc0 = { 0 }, acc1 = { 0 }, v, u;
    const census_v16qi zero = { 0 };
    const char *m = (const char *)hhdr->hb_marks;
    census_v2di sum;
    word i;

    /* Byte lanes first (each mark byte 0 or 1: a lane counts at most    */
    /* MARK_BITS_PER_HBLK / 32 of them), then one psadbw for the lanes.  */
    GC_STATIC_ASSERT(MARK_BITS_SZ == MARK_BITS_PER_HBLK + 1);
    GC_STATIC_ASSERT(MARK_BITS_PER_HBLK % 32 == 0
                     && MARK_BITS_PER_HBLK / 32 <= 127);
#   if defined(__GNUC__) && !defined(__clang__)
#     pragma GCC unroll 16
#   endif
    for (i = 0; i < MARK_BITS_PER_HBLK; i += 32) {
      __builtin_memcpy(&v, m + i, 16);
      __builtin_memcpy(&u, m + i + 16, 16);
      acc0 += v;
      acc1 += u;
    }
    sum = (census_v2di)__builtin_ia32_psadbw128(acc0 + acc1, zero);
    return (word)(sum[0] + sum[1]) + (word)(m[MARK_BITS_PER_HBLK] != 0) - 1;
  }
#endif

/* The same sum 32 mark bytes at a time, where the processor has AVX2 */
/* (x86-64 with GCC or clang, chosen at run time: the library is built */
/* for the baseline): a load folded into each add, eight in all, half */
/* the instructions of the SSE2 sum (22 against 41).  The lines it    */
/* reads were asked for a few blocks earlier (census_ride_ahead_marks). */
/* Only with parallel markers (the one caller), and not in MSVC mode */
/* (clang-cl), whose link has no __builtin_cpu_supports' support.     */
#if defined(CENSUS_SUM_BYTES) && defined(PARALLEL_MARK) \
    && defined(__x86_64__) && !defined(_MSC_VER) \
    && (defined(__AVX2__) || defined(__clang__) || GC_GNUC_PREREQ(4, 9))
# define CENSUS_SUM_AVX2 1
# ifdef __AVX2__
#   define CENSUS_TARGET_AVX2 /* empty */
# else
#   define CENSUS_TARGET_AVX2 __attribute__((target("avx2")))
# endif
  static int census_avx2 = -1;  /* unknown yet; then 0 or 1 */

  /* Before a census's first block (census_clear).                      */
  GC_INLINE void census_sum_init(void)
  {
    if (EXPECT(census_avx2 < 0, FALSE)) {
      __builtin_cpu_init();
      census_avx2 = __builtin_cpu_supports("avx2") != 0;
    }
  }

  static GC_ATTR_NOINLINE CENSUS_TARGET_AVX2
  word census_sum_mark_bytes_avx2(hdr *hhdr)
  {
    typedef long long census_v4di __attribute__((vector_size(32)));
    typedef char census_v32qi __attribute__((vector_size(32)));
    census_v32qi acc0, acc1, v, u;
    const census_v32qi zero = { 0 };
    const char *m = (const char *)hhdr->hb_marks;
    census_v4di sum;
    word i;

    GC_STATIC_ASSERT(MARK_BITS_PER_HBLK % 64 == 0
                     && MARK_BITS_PER_HBLK / 64 <= 127);
    __builtin_memcpy(&acc0, m, 32);
    __builtin_memcpy(&acc1, m + 32, 32);
#   if defined(__GNUC__) && !defined(__clang__)
#     pragma GCC unroll 8
#   endif
    for (i = 64; i < MARK_BITS_PER_HBLK; i += 64) {
      __builtin_memcpy(&v, m + i, 32);
      __builtin_memcpy(&u, m + i + 32, 32);
      acc0 += v;
      acc1 += u;
    }
    sum = (census_v4di)__builtin_ia32_psadbw256(acc0 + acc1, zero);
    return (word)(sum[0] + sum[1] + sum[2] + sum[3])
           + (word)(m[MARK_BITS_PER_HBLK] != 0) - 1;
  }
#else
# define census_sum_init() (void)0
#endif

/* The census's rows (gca_row): a pair met for the first time gets   */
/* one here, out of line (the walk's blocks are mostly of pairs met    */
/* before).  NULL: no memory, the block is left out.                   */
static GC_ATTR_NOINLINE struct gca_class_census *census_row_new(unsigned k,
                                                               unsigned cls)
{
  struct gca_row *r = gca_row_make(k, cls);

  return r != NULL ? &r->census : NULL;
}

GC_INLINE struct gca_class_census *census_row(unsigned k, unsigned cls)
{
  unsigned s = gca_tables->row_of[k][cls];

  if (EXPECT(s != 0, TRUE)) return &gca_rows[s].census;
  return census_row_new(k, cls);
}

static int census_with_tags = 0;

/* Marked objects of a small-object block.  The collector counts them   */
/* itself as it marks (hb_n_marks, the final sentinel bit excluded, kept */
/* in step by GC_set_fl_marks / GC_clear_fl_marks), exactly while one   */
/* thread marks; with parallel markers its count may lose increments,  */
/* so the census then sums the mark bytes instead.                      */
#ifdef PARALLEL_MARK
  /* The fastest sum the build and the processor have.                  */
  GC_INLINE word census_sum_par(hdr *hhdr, word sz)
  {
    word n;

#   if defined(CENSUS_SUM_AVX2)
      n = census_avx2 > 0 ? census_sum_mark_bytes_avx2(hhdr)
                          : census_sum_mark_bytes(hhdr);
#   elif defined(CENSUS_SUM_BYTES)
      n = census_sum_mark_bytes(hhdr);
#   else
      n = census_count_marks(hhdr, FINAL_MARK_BIT(sz));
#   endif
    (void)sz;
    GC_ASSERT(n == census_count_marks(hhdr, FINAL_MARK_BIT(sz)));
    return n;
  }

  /* Out of line: the sum's registers would cost every block's visit a */
  /* longer prologue.                                                   */
  static GC_ATTR_NOINLINE word census_count_marks_par(hdr *hhdr, word sz)
  {
    return census_sum_par(hhdr, sz);
  }
#endif

GC_INLINE word census_marks(hdr *hhdr, word sz)
{
# ifdef PARALLEL_MARK
    if (EXPECT(GC_parallel, FALSE)) return census_count_marks_par(hhdr, sz);
# else
    (void)sz;
# endif
  return hhdr->hb_n_marks;
}

/* The walks are bound by one cache miss per block header (headers are  */
/* scattered in the collector's scratch memory): ask for the header of  */
/* the block CENSUS_AHEAD slots on (the next block but few, as most     */
/* in-use blocks are one block long) and its first mark bytes, so that  */
/* the misses overlap instead of following one another.                 */
#define CENSUS_AHEAD 8
#if defined(__GNUC__) || defined(__clang__)
# define CENSUS_PREFETCH(hh) \
        do { \
          hdr *census_ph = (hh); \
          if (!IS_FORWARDING_ADDR_OR_NIL(census_ph)) { \
            __builtin_prefetch(census_ph); \
            __builtin_prefetch((char *)census_ph + 64); \
          } \
        } while (0)
#else
# define CENSUS_PREFETCH(hh) (void)0
#endif

/* A large object's block (fewer than one block in a hundred, mostly).  */
static GC_ATTR_NOINLINE void census_visit_large(hdr *hhdr, unsigned k,
                                                word sz)
{
  word bytes = OBJ_SZ_TO_BLOCKS(sz) * HBLKSIZE;
  struct gca_class_census *cc = census_row(k, gca_class_of(bytes));
  struct gca_kind_census *kc = &gca_last_census.kinds[k];

  if (EXPECT(NULL == cc, FALSE)) return;
  cc->reserved_bytes += bytes;
  kc->large_reserved_bytes += bytes;
  if (mark_bit_from_hdr(hhdr, 0)) {
    cc->live_objs++;
    cc->live_bytes += bytes;
    kc->large_live_objs++;
    kc->large_live_bytes += bytes;
  }
}

/* Inlined into each of the walks (one call per in-use block).          */
GCA_ALWAYS_INLINE void census_visit(struct hblk *h, hdr *hhdr, int with_tags)
{
  word sz = hhdr->hb_sz;
  unsigned k = hhdr->hb_obj_kind;

  if (with_tags) gca_tags_census_block(h, hhdr);
  if (EXPECT(k >= MAXOBJKINDS, FALSE)) return;
  if (EXPECT(sz > MAXOBJBYTES, FALSE)) {
    census_visit_large(hhdr, k, sz);
  } else {
    /* Two adds a block: the marked objects and the block.  The bytes  */
    /* and free slots follow from the class's size once per row, at the */
    /* census's end (census_finish_small), not a division per block.    */
    struct gca_class_census *cc = census_row(k,
                                        (unsigned)BYTES_TO_GRANULES(sz));
    word marked = census_marks(hhdr, sz);

    if (EXPECT(NULL == cc, FALSE)) return;
    cc->live_objs += marked;
    cc->reserved_bytes += HBLKSIZE;
  }
}

/* A small class's row from its marked objects and blocks (census_visit */
/* counts no more per block): live bytes, and the free slots of its     */
/* blocks.  Classes below GCA_LARGE0 are small (size: class granules).  */
GC_INLINE void census_finish_small(struct gca_class_census *cc, word cls)
{
  word sz = GRANULES_TO_BYTES(cls);
  word slots = cls != 0 ? cc->reserved_bytes / HBLKSIZE * HBLK_OBJS(sz) : 0;

  if (cc->live_objs > slots) cc->live_objs = slots;     /* cannot happen */
  cc->live_bytes = cc->live_objs * sz;
  cc->free_slots = slots - cc->live_objs;
}

/* Clear what the previous census wrote: the rows, the totals and the */
/* kinds.                                                               */
static void census_clear(void)
{
  unsigned s;

  census_sum_init();

  for (s = 1; s <= gca_n_rows; s++)
    BZERO(&gca_rows[s].census, sizeof(struct gca_class_census));
  BZERO(&gca_last_census, sizeof(gca_last_census));
}

/* The census rides upstream's reclaim walk (GC_start_reclaim visits    */
/* every in-use block, its header just loaded for hb_sz and hb_n_marks): */
/* counting each block that stays in use there costs a few adds, where */
/* a walk of its own waits on one cache miss per block header (most of */
/* the census's time, 33 ms per GB of small objects).  The blocks the   */
/* reclaim walk frees are free blocks by the census's end, not counted  */
/* by either way.  Not with the tags (their census wants every block in */
/* GC_apply_to_all_blocks' order, tags.c) nor in find-leak's checking   */
/* pass (report_if_found: nothing is freed, and the real pass follows).*/
/* census_ride_gc_no ties a ride to its collection: a ride that never */
/* reached its census (accounting went off) is not taken for the next. */
/* census_ahead_bi: the bottom index of the last block ridden (never   */
/* freed by the collector); at each ride's start the collector's empty */
/* one (key 0, all slots nil: no block's, and ahead of it nothing), so  */
/* that a block needs no test for none.                                  */
static bottom_index *census_ahead_bi = NULL;
GC_INNER int gca_census_riding = 0;
static word census_ride_gc_no = 0;

GC_INNER void gca_census_ride_begin(int report_if_found)
{
  gca_census_riding = 0;
  if (report_if_found || gca_tags_on || gca_tables_get() == 0) return;
  census_clear();
  census_ahead_bi = GC_all_nils;
  census_ride_gc_no = GC_gc_no;
  gca_census_riding = 1;
}

/* A block the common case does not take: a large object, a pair met  */
/* for the first time.  Out of line, so that the ride's own path needs */
/* no register saved and no frame.                                      */
static GC_ATTR_NOINLINE void census_ride_other(struct hblk *h, hdr *hhdr)
{
  census_visit(h, hhdr, 0);
}

/* The reclaim walk (GC_apply_to_all_blocks) waits on each header's   */
/* first touch, and the ride on the line of its hb_n_marks: misses    */
/* the hardware's prefetcher takes or leaves by where the code lands  */
/* (at the same instructions, a build whose walk sat 32 bytes further */
/* paid 1.1 to 2.4 ms per GB, against -0.6 to 0.0; docs/design.md).   */
/* So the ride asks for the header the walk meets CENSUS_AHEAD slots  */
/* further down its bottom index (the walk goes from an index's last  */
/* slot to its first), the two lines of it the walk and the ride      */
/* read, and with parallel markers its mark bytes.  Only a prefetch: */
/* a slot ahead that the walk frees first, or skips, costs nothing    */
/* but the ask.                                                        */
/* census_ahead_bi: above gca_census_ride_begin.                       */
GCA_ALWAYS_INLINE hdr *census_ride_ahead(struct hblk *h)
{
  word b = (word)h >> LOG_HBLKSIZE;
  word j = b & (BOTTOM_SZ - 1);
  bottom_index *bi = census_ahead_bi;
  hdr *hh;

  if (EXPECT(bi->key != b >> LOG_BOTTOM_SZ, FALSE)) {
    GET_BI(h, bi);
    census_ahead_bi = bi;
  }
  if (EXPECT(j < CENSUS_AHEAD, FALSE)) return NULL;
  hh = bi->index[j - CENSUS_AHEAD];
  if (IS_FORWARDING_ADDR_OR_NIL(hh)) return NULL;
# if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&hh->hb_obj_kind);
    __builtin_prefetch((const void *)&hh->hb_n_marks);
# endif
  return hh;
}

/* With parallel markers: the mark bytes of that header too.            */
GCA_ALWAYS_INLINE void census_ride_ahead_marks(hdr *hh)
{
# if defined(__GNUC__) || defined(__clang__)
    const char *m = (const char *)hh->hb_marks;

    __builtin_prefetch(m);
    __builtin_prefetch(m + 64);
    __builtin_prefetch(m + 128);
    __builtin_prefetch(m + 192);
    __builtin_prefetch(m + MARK_BITS_SZ - 1);
# else
    (void)hh;
# endif
}

/* census_visit's work for a small-object block of a pair with a row:  */
/* a leaf (the rest a tail call; with parallel markers one call, the  */
/* sum), and without the frame record the allocation paths keep (no   */
/* stack walk passes here).                                            */
GC_INNER GCA_NO_FRAME void gca_census_ride_block(struct hblk *h, hdr *hhdr)
{
  word sz = hhdr->hb_sz;
  unsigned k = hhdr->hb_obj_kind;
  hdr *ahead = census_ride_ahead(h);

  (void)ahead;  /* used with parallel markers only */
  if (EXPECT(k < MAXOBJKINDS && sz <= MAXOBJBYTES, TRUE)) {
    unsigned s = gca_tables->row_of[k][BYTES_TO_GRANULES(sz)];

    if (EXPECT(s != 0, TRUE)) {
      struct gca_class_census *cc = &gca_rows[s].census;
      word n;

#     ifdef PARALLEL_MARK
        if (EXPECT(GC_parallel, FALSE)) {
          if (ahead != NULL) census_ride_ahead_marks(ahead);
          n = census_sum_par(hhdr, sz);
        } else
#     endif
      /* else */ {
        n = hhdr->hb_n_marks;
      }
      cc->live_objs += n;
      cc->reserved_bytes += HBLKSIZE;
      return;
    }
  }
  census_ride_other(h, hhdr);
}

/* The census's own walk of the in-use blocks, when it did not ride.   */
static void census_walk(void)
{
  bottom_index *index_p;

  census_clear();
  /* The tags of each block (tags.c) in the same walk of the blocks.   */
  census_with_tags = gca_tags_on;
  if (census_with_tags) gca_tags_census_begin();
  if (!census_with_tags) {
    /* The header slots of the heap sections, one by one, as upstream's  */
    /* GC_apply_to_all_blocks visits them (a multi-block object's later */
    /* slots forward to its first, a free block's later slots are empty),*/
    /* but only those inside sections, never the empty slots between    */
    /* them.  Stepping from block to block by each block's size instead  */
    /* makes every step wait for the last header's load (two dependent   */
    /* loads a block); slot by slot, the loads of consecutive headers    */
    /* are independent, and the first line of each header, which is most */
    /* of the census's time, can be fetched while the last is counted.  */
    /* A section's slots are read from its bottom indexes directly, each */
    /* found once for the run of up to BOTTOM_SZ blocks it holds (HDR    */
    /* would search the top level's hash chain for every block).          */
    word i;

    for (i = 0; i < GC_n_heap_sects; i++) {
      word b = (word)GC_heap_sects[i].hs_start >> LOG_HBLKSIZE;
      word b_end = b + divHBLKSZ(GC_heap_sects[i].hs_bytes);

      while (b < b_end) {
        bottom_index *bi;
        word j = b & (BOTTOM_SZ - 1);
        word j_end = BOTTOM_SZ - j < b_end - b ? BOTTOM_SZ : j + (b_end - b);
        word base = b - j;      /* the bottom index's first block */

        GET_BI((ptr_t)(b << LOG_HBLKSIZE), bi);
        for (; j < j_end; j++) {
          hdr *hhdr = bi->index[j];

          if (j + CENSUS_AHEAD < j_end)
            CENSUS_PREFETCH(bi->index[j + CENSUS_AHEAD]);
          if (IS_FORWARDING_ADDR_OR_NIL(hhdr) || HBLK_IS_FREE(hhdr))
            continue;
          census_visit((struct hblk *)((base + j) << LOG_HBLKSIZE), hhdr, 0);
        }
        b = base + j_end;
      }
    }
  } else
  /* With the tags: GC_apply_to_all_blocks' walk (same blocks, same     */
  /* order as tags.c has always seen), without its call through a       */
  /* pointer per block.                                                 */
  for (index_p = GC_all_bottom_indices; index_p != 0;
       index_p = index_p -> asc_link) {
    signed_word j;

    for (j = BOTTOM_SZ-1; j >= 0;) {
      hdr *hhdr = index_p->index[j];

      if (j >= CENSUS_AHEAD) CENSUS_PREFETCH(index_p->index[j - CENSUS_AHEAD]);
      if (!IS_FORWARDING_ADDR_OR_NIL(hhdr)) {
        if (!HBLK_IS_FREE(hhdr)) {
          census_visit((struct hblk *)(((index_p->key << LOG_BOTTOM_SZ)
                                        + (word)j) << LOG_HBLKSIZE), hhdr, 1);
        }
        j--;
      } else if (hhdr == 0) {
        j--;
      } else {
        j -= (signed_word)hhdr;
      }
    }
  }
  if (census_with_tags) gca_tags_census_end();
}

static int census_last_rode = 0;

/* Did the last census ride the reclaim walk (GC_acc_get_stats)?       */
GC_INNER int gca_census_rode(void)
{
  return census_last_rode;
}

GC_INNER void gca_census_take(void)
{
  struct gca_census *c = &gca_last_census;
  unsigned s;
  int rode = gca_census_riding && census_ride_gc_no == GC_gc_no
             && !gca_tags_on;

  gca_census_riding = 0;
  if (rode) {
    census_with_tags = 0;
  } else {
    census_walk();
  }
  census_last_rode = rode;
  for (s = 1; s <= gca_n_rows; s++) {
    struct gca_class_census *cc = &gca_rows[s].census;

    if (gca_rows[s].cls < GCA_LARGE0)
      census_finish_small(cc, gca_rows[s].cls);
    c->live_objs += cc->live_objs;
    c->live_bytes += cc->live_bytes;
    c->reserved_bytes += cc->reserved_bytes;
  }
  c->gc_no = GC_gc_no;
  c->valid = 1;
  /* The sampled profile's samples, by their own mark bits.            */
  if (GCA_PROFILE_SAMPLED == gca_profile) gca_samples_census();
}

GC_INNER void gca_census_collection_end(void)
{
  uint64_t t_end = gca_now_ns();
  uint64_t t_start = census_pending ? census_t_start : t_end;
  uint64_t mark_ns = census_pending ? census_mark_ns : 0;
  uint64_t t_done;

  census_pending = 0;
  gca_census_take();            /* with the tags' census (tags.c)     */
  t_done = gca_now_ns();
  gca_last_census.t_start_ns = t_start;
  gca_last_census.t_end_ns = t_end;
  gca_last_census.mark_ns = mark_ns;
  gca_last_census.census_ns = t_done - t_end;
}

#endif /* !GC_ACC_DISABLE */
