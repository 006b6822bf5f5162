/*
 * freelist.c: the free heap-block lists (GC_hblkfreelist), kept in books.
 *
 * Maintained incrementally from the free-list hooks, never by walking the
 * lists when a record is written: free blocks and bytes per free-list index
 * and mapped versus unmapped, the total free bytes, and the largest free
 * block.  The largest comes from a multiset of free-block sizes (counts
 * per size, an array for small sizes and an open-addressing table for huge
 * ones, with a cached maximum that is recomputed lazily, when next asked,
 * after the maximum's count drops to zero).  The books
 * are built once by walking the heap sections when accounting is switched
 * on (gca_freelist_rebuild), then kept by the hooks.  Also the reserved
 * versus resident bytes of the heap sections (mincore, sampled at record
 * time at most every 100 ms; see gca_heap_reserved_resident).
 * All entry points run with the allocation lock held; tables come from OS
 * pages, never from the GC heap.
 */

#include "gca_priv.h"

#include <string.h>

#ifndef GC_ACC_DISABLE

#if defined(LINUX) || defined(FREEBSD) || defined(NETBSD) \
    || defined(OPENBSD) || defined(DARWIN)
# include <sys/mman.h>
# include <unistd.h>
# define GCA_HAVE_MINCORE
#endif

GC_INNER struct gca_freelist_books gca_fl;

/* Which free blocks the multiset below counts.  A block of n blocks on */
/* list n (n <= GCA_UNIQUE_THRESHOLD: those lists hold one size each)   */
/* is counted by the books alone (gca_fl.blocks[n]), and so costs the   */
/* hooks no more; every other block is in the multiset: the larger     */
/* sizes, and a block left on a one-size list by GC_split_block, which  */
/* keeps the tail of a split block on the list it was on.  Such         */
/* misplaced blocks are counted per list, so that a list's own size is */
/* known to be there when its count is above them.                      */
#define MS_BOOKS_ONLY(key, index) \
        ((index) <= GCA_UNIQUE_THRESHOLD && (word)(index) == (key))
static word ms_misplaced[GCA_UNIQUE_THRESHOLD + 1];

/* ---- multiset of free-block sizes (in heap blocks) ------------------- */
/* Sizes below GCA_MS_SMALL blocks (64 MiB of 4 KiB blocks by default)   */
/* are counted in a plain array: carving allocations one by one out of   */
/* a large free block, as after every heap growth, changes the block's   */
/* size at each step, and an array entry costs a few instructions where  */
/* the table below costs a hash and a probe run.  The array (128 KiB)    */
/* comes from the OS when the books are first built, never from static   */
/* data, which the collector scans as roots and paces its collections   */
/* by (tests/static_data.sh); only the pages of sizes present are ever   */
/* touched.  Larger sizes go to an open-addressing table with linear     */
/* probing, holding only sizes whose count is nonzero: a size whose      */
/* count drops to zero leaves at once (backward-shift deletion, no       */
/* tombstones), so splitting a huge free block again and again, a new    */
/* size each time, never fills the table.  The table grows (OS pages,    */
/* doubled) only when more than half its slots hold live sizes, and      */
/* never shrinks.  The maximum is cached and kept an upper bound of the  */
/* sizes present; when the maximum's count drops to zero it is only      */
/* marked stale, and recomputed downwards from it when asked             */
/* (gca_freelist_largest: at record time and heap growth), not on every  */
/* block operation.                                                      */
struct ms_slot {
  word key;             /* blocks; 0 = empty slot                        */
  word count;           /* > 0 in every slot holding a key               */
};

#ifndef GCA_MS_SMALL
# define GCA_MS_SMALL 16384     /* tests build with less, to use the table */
#endif
/* Counts of sizes 1 .. ms_small_n - 1; ms_small_n is 0 until the array */
/* is made, or if the OS refused it: every size then goes to the table. */
static word *ms_small = NULL;
static word ms_small_n = 0;
#define MS_STATIC_CAP 64
static struct ms_slot ms_static[MS_STATIC_CAP];
static struct ms_slot *ms_tab = ms_static;
static word ms_cap = MS_STATIC_CAP;     /* a power of two                */
static word ms_used = 0;                /* slots holding a key           */
static word ms_max = 0;     /* the largest key with count > 0, or if  */
                            /* ms_max_stale, at least that large      */
static int ms_max_stale = 0;            /* ms_max to be recomputed       */
static int ms_broken = 0;   /* the OS refused memory: books approximate  */

static word ms_hash(word key)
{
  return (key * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ / 2);
}

static struct ms_slot *ms_find(struct ms_slot *tab, word cap, word key)
{
  word i = ms_hash(key) & (cap - 1);

  while (tab[i].key != 0 && tab[i].key != key)
    i = (i + 1) & (cap - 1);
  return &tab[i];
}

/* Doubles the table (more than half its slots are live).               */
static void ms_grow(void)
{
  word i, cap = ms_cap * 2;
  struct ms_slot *tab;

  tab = (struct ms_slot *)gca_os_alloc(cap * sizeof(struct ms_slot));
  if (NULL == tab) {
    ms_broken = 1;
    return;
  }
  for (i = 0; i < ms_cap; i++) {
    if (ms_tab[i].key != 0) *ms_find(tab, cap, ms_tab[i].key) = ms_tab[i];
  }
  if (ms_tab != ms_static) gca_os_free(ms_tab, ms_cap * sizeof(struct ms_slot));
  ms_tab = tab;
  ms_cap = cap;
}

/* Empties slot i, moving back any later entry of its probe run that    */
/* could no longer be found past the hole (Knuth's algorithm R).        */
static void ms_remove_slot(word i)
{
  word mask = ms_cap - 1, j = i;

  for (;;) {
    word home;

    j = (j + 1) & mask;
    if (0 == ms_tab[j].key) break;
    home = ms_hash(ms_tab[j].key) & mask;
    /* The entry at j stays if its home lies cyclically in (i, j].     */
    if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
      continue;
    ms_tab[i] = ms_tab[j];
    i = j;
  }
  ms_tab[i].key = 0;
  ms_tab[i].count = 0;
  ms_used--;
}

/* Sizes the array does not hold, out of line: the hooks that call     */
/* ms_add and ms_del then need no registers saved for the table's code. */
static GC_ATTR_NOINLINE void ms_add_big(word key)
{
  struct ms_slot *s;

  if (ms_broken || 0 == key) return;     /* 0 marks an empty slot */
  s = ms_find(ms_tab, ms_cap, key);
  if (0 == s->key) {
    if ((ms_used + 1) * 2 > ms_cap) {
      ms_grow();
      if (ms_broken) return;
      s = ms_find(ms_tab, ms_cap, key);
    }
    s->key = key;
    ms_used++;
  }
  s->count++;
  if (key > ms_max) ms_max = key;
}

static GC_ATTR_NOINLINE void ms_del_big(word key)
{
  struct ms_slot *s;

  if (ms_broken || 0 == key) return;
  s = ms_find(ms_tab, ms_cap, key);
  if (0 == s->key) return;      /* not ours: ignore */
  if (--s->count != 0) return;
  ms_remove_slot((word)(s - ms_tab));
  if (key == ms_max) ms_max_stale = 1;
}

GC_INLINE void ms_add(word key)
{
  if (EXPECT(key < ms_small_n, TRUE)) {
    if (0 == key) return;
    ms_small[key]++;
    if (key > ms_max) ms_max = key;
  } else {
    ms_add_big(key);    /* a tail call: nothing is live after it */
  }
}

GC_INLINE void ms_del(word key)
{
  if (EXPECT(key < ms_small_n, TRUE)) {
    if (0 == key || 0 == ms_small[key]) return;   /* not ours: ignore */
    if (0 == --ms_small[key] && key == ms_max) ms_max_stale = 1;
  } else {
    ms_del_big(key);    /* a tail call: nothing is live after it */
  }
}

/* The highest index of ms_small that may hold a count (ms_small_n > 0): */
/* ms_max bounds every size present.                                     */
GC_INLINE word ms_small_top(void)
{
  return ms_max < ms_small_n ? ms_max : ms_small_n - 1;
}

static word ms_get_max(void)
{
  word i;

  if (ms_max_stale) {
    word m = 0;

    if (ms_used != 0) {         /* every size in the table is larger   */
      for (i = 0; i < ms_cap; i++) {
        if (ms_tab[i].count != 0 && ms_tab[i].key > m) m = ms_tab[i].key;
      }
    } else if (ms_small_n != 0) {
      /* Down from the bound: no size above it is present.              */
      for (i = ms_small_top(); i > 0; i--) {
        if (ms_small[i] != 0) {
          m = i;
          break;
        }
      }
    }
    ms_max = m;
    ms_max_stale = 0;
  }
  /* Sizes the books alone count, above every size in the multiset?     */
  for (i = GCA_UNIQUE_THRESHOLD; i > ms_max; i--) {
    if (gca_fl.blocks[i] > ms_misplaced[i]) return i;
  }
  return ms_max;
}

static void ms_clear(void)
{
  BZERO(ms_tab, ms_cap * sizeof(struct ms_slot));
  if (NULL == ms_small) {
    ms_small = (word *)gca_os_alloc((size_t)GCA_MS_SMALL * sizeof(word));
    ms_small_n = NULL == ms_small ? 0 : (word)GCA_MS_SMALL;
  } else {
    /* Every count above ms_max is zero: clearing up to it touches no   */
    /* page of the array that no size ever reached.                     */
    BZERO(ms_small, (ms_small_top() + 1) * sizeof(word));
  }
  BZERO(ms_misplaced, sizeof(ms_misplaced));
  ms_used = 0;
  ms_max = 0;
  ms_max_stale = 0;
  ms_broken = 0;
}

GC_INNER word gca_freelist_largest(void)
{
  if (ms_broken) {
    /* Fallback: an upper bound from the highest nonempty list.          */
    int i;

    for (i = GCA_N_HBLK_FLS; i > 0; i--) {
      if (gca_fl.blocks[i] != 0)
        return i <= GCA_UNIQUE_THRESHOLD ? (word)i * HBLKSIZE
                                         : gca_fl.bytes[i];
    }
    return 0;
  }
  return ms_get_max() * HBLKSIZE;
}

GC_INNER word gca_freelist_total_bytes(void)
{
  word total = 0;
  int i;

  for (i = 0; i <= GCA_N_HBLK_FLS; i++) total += gca_fl.bytes[i];
  return total;
}

GC_INNER word gca_frag_index_ppm(word total_bytes, word largest_bytes)
{
  unsigned long long total = total_bytes, largest = largest_bytes;

  if (0 == total || largest >= total) return 0;
  return (word)((total - largest) * 1000000u / total);
}

/* ---- the books -------------------------------------------------------- */

/* A free block enters books b on list index.                          */
GC_INLINE void books_add(struct gca_freelist_books *b, hdr *hhdr, int index)
{
  word sz = hhdr->hb_sz;

  b->blocks[index]++;
  b->bytes[index] += sz;
  if (EXPECT((hhdr->hb_flags & WAS_UNMAPPED) != 0, FALSE))
    b->unmapped_bytes[index] += sz;
}

/* A block of key heap blocks the multiset counts (not MS_BOOKS_ONLY)   */
/* enters or leaves list index.                                         */
static GC_ATTR_NOINLINE void ms_add_listed(word key, int index)
{
  if (index <= GCA_UNIQUE_THRESHOLD) ms_misplaced[index]++;
  ms_add(key);
}

static GC_ATTR_NOINLINE void ms_del_listed(word key, int index)
{
  if (index <= GCA_UNIQUE_THRESHOLD && ms_misplaced[index] != 0)
    ms_misplaced[index]--;
  ms_del(key);
}

GC_INLINE void freelist_note(hdr *hhdr, int index, int sign)
{
  word sz = hhdr->hb_sz;
  word key = divHBLKSZ(sz);

  if (sign > 0) {
    books_add(&gca_fl, hhdr, index);
    /* last: they may end in a call */
    if (index > GCA_UNIQUE_THRESHOLD) {
      ms_add(key);
    } else if (EXPECT(!MS_BOOKS_ONLY(key, index), FALSE)) {
      ms_add_listed(key, index);
    }
  } else {
    gca_fl.blocks[index]--;
    gca_fl.bytes[index] -= sz;
    if (EXPECT((hhdr->hb_flags & WAS_UNMAPPED) != 0, FALSE))
      gca_fl.unmapped_bytes[index] -= sz;
    if (index > GCA_UNIQUE_THRESHOLD) {
      ms_del(key);
    } else if (EXPECT(!MS_BOOKS_ONLY(key, index), FALSE)) {
      ms_del_listed(key, index);
    }
  }
}

GC_INNER void gca_freelist_add(hdr *hhdr, int index)
{
  freelist_note(hhdr, index, 1);
}

GC_INNER void gca_freelist_del(hdr *hhdr, int index)
{
  freelist_note(hhdr, index, -1);
}

GC_INNER void gca_freelist_split(hdr *hhdr, word h_size, int index)
{
  /* The block stays on list index, h_size bytes shorter; the split-off */
  /* head comes back through gca_freelist_add.                          */
  word key = divHBLKSZ(hhdr->hb_sz), rest = divHBLKSZ(hhdr->hb_sz - h_size);

  gca_fl.bytes[index] -= h_size;
  if ((hhdr->hb_flags & WAS_UNMAPPED) != 0)
    gca_fl.unmapped_bytes[index] -= h_size;
  if (!MS_BOOKS_ONLY(key, index)) ms_del_listed(key, index);
  if (!MS_BOOKS_ONLY(rest, index)) ms_add_listed(rest, index);
}

/* allchblk.c's GC_hblk_fl_from_blocks, which is static there.           */
GC_INNER int gca_freelist_index(word blocks)
{
  if (blocks <= GCA_UNIQUE_THRESHOLD) return (int)blocks;
  if (blocks >= GCA_HUGE_THRESHOLD) return GCA_N_HBLK_FLS;
  return (int)(blocks - GCA_UNIQUE_THRESHOLD) / GCA_FL_COMPRESSION
         + GCA_UNIQUE_THRESHOLD;
}

GC_INNER void gca_freelist_unmap(hdr *hhdr, int unmapped)
{
  int index = gca_freelist_index(divHBLKSZ(hhdr->hb_sz));

  if (unmapped) gca_fl.unmapped_bytes[index] += hhdr->hb_sz;
  else gca_fl.unmapped_bytes[index] -= hhdr->hb_sz;
}

/* Calls visit(hhdr, cd) for every free block of the heap, walking the  */
/* heap sections block by block (GC_apply_to_all_blocks skips free      */
/* blocks).  A free block may run on into an adjacent section; the walk */
/* of that section then starts inside it, where the headers are nil or  */
/* forwarding, and skips ahead.  Lock held.                             */
static void freelist_walk(void (*visit)(hdr *, void *), void *cd)
{
  word i;

  for (i = 0; i < GC_n_heap_sects; i++) {
    ptr_t start = GC_heap_sects[i].hs_start;
    ptr_t end = start + GC_heap_sects[i].hs_bytes;
    struct hblk *h = (struct hblk *)start;

    while ((word)h < (word)end) {
      hdr *hhdr = HDR(h);

      if (IS_FORWARDING_ADDR_OR_NIL(hhdr)) {
        h++;
      } else if (HBLK_IS_FREE(hhdr)) {
        visit(hhdr, cd);
        h += divHBLKSZ(hhdr->hb_sz);
      } else {
        h += OBJ_SZ_TO_BLOCKS(hhdr->hb_sz);
      }
    }
  }
}

static void freelist_rebuild_visit(hdr *hhdr, void *cd)
{
  (void)cd;
  freelist_note(hhdr, gca_freelist_index(divHBLKSZ(hhdr->hb_sz)), 1);
}

GC_INNER void gca_freelist_rebuild(void)
{
  BZERO(&gca_fl, sizeof(gca_fl));
  ms_clear();
  freelist_walk(freelist_rebuild_visit, NULL);
}

/* Books made afresh by a walk, for gca_freelist_verify.                */
struct freelist_ref {
  struct gca_freelist_books fl;
  word largest;
};

static void freelist_verify_visit(hdr *hhdr, void *cd)
{
  struct freelist_ref *r = (struct freelist_ref *)cd;
  word sz = hhdr->hb_sz;

  books_add(&r->fl, hhdr, gca_freelist_index(divHBLKSZ(sz)));
  if (sz > r->largest) r->largest = sz;
}

/* The books against the heap itself (lock held): walks the heap into a */
/* second set of books, and checks the incremental ones and the         */
/* multiset (every size in the table live, found where it is, and       */
/* counted) agree with it.  Returns 0 if they do, else a short          */
/* description of the first difference.                                 */
GC_INNER const char *gca_freelist_verify(void)
{
  static struct freelist_ref ref;   /* lock held; kept off the stack    */
  word i, keys = 0;

  if (!gca_track_heap) return 0;
  BZERO(&ref, sizeof(ref));
  freelist_walk(freelist_verify_visit, &ref);
  if (memcmp(ref.fl.blocks, gca_fl.blocks, sizeof(ref.fl.blocks)) != 0)
    return "free blocks per list";
  if (memcmp(ref.fl.bytes, gca_fl.bytes, sizeof(ref.fl.bytes)) != 0)
    return "free bytes per list";
  if (memcmp(ref.fl.unmapped_bytes, gca_fl.unmapped_bytes,
             sizeof(ref.fl.unmapped_bytes)) != 0)
    return "unmapped bytes per list";
  if (ms_broken) return 0;      /* the largest is an upper bound then */
  for (i = 0; i < ms_cap; i++) {
    if (0 == ms_tab[i].key) continue;
    keys++;
    if (0 == ms_tab[i].count) return "a size of count 0 in the table";
    if (ms_find(ms_tab, ms_cap, ms_tab[i].key) != &ms_tab[i])
      return "a size the table cannot find";
  }
  if (keys != ms_used) return "the table's count of sizes";
  if (gca_freelist_largest() != ref.largest) return "largest free block";
  return 0;
}

/* ---- reserved and resident ------------------------------------------- */

#ifdef GCA_HAVE_MINCORE
  /* Resident pages of [lo, hi) (page-aligned): the low bit of each     */
  /* mincore byte, summed 8 bytes at a time.                            */
  static word heap_resident_pages(word lo, word hi, word page)
  {
    static unsigned char vec[4096];
    word pages = 0;

    while (lo < hi) {
      word n = (hi - lo) / page, j;

      if (n > sizeof(vec)) n = sizeof(vec);
      if (mincore((void *)lo, (size_t)(n * page), (void *)vec) == 0) {
        for (j = 0; j + sizeof(word) <= n; j += sizeof(word)) {
          word w;

          memcpy(&w, vec + j, sizeof(w));
          w &= (word)0x0101010101010101ULL;     /* one per byte     */
          pages += (w * (word)0x0101010101010101ULL) >> (CPP_WORDSZ - 8);
        }
        for (; j < n; j++) pages += vec[j] & 1;
      }
      lo += n * page;
    }
    return pages;
  }

  static int heap_page_resident(word a)
  {
    unsigned char v = 0;

    return mincore((void *)a, 1, &v) == 0 && (v & 1) != 0;
  }
#endif

/* Resident bytes are sampled (mincore over every heap section, a system */
/* call per 16 MiB and a pass over its page vector) at most every        */
/* GCA_RESIDENT_PERIOD_NS, and whenever the reserved total changed since */
/* the last sample; between samples the last value is reported.          */
#ifndef GCA_RESIDENT_PERIOD_NS
# define GCA_RESIDENT_PERIOD_NS 100000000u     /* 100 ms */
#endif

GC_INNER void gca_heap_reserved_resident(word *reserved, word *resident)
{
  word i, res = 0, rsd = 0;
# ifdef GCA_HAVE_MINCORE
    static word last_reserved = 0, last_resident = 0, last_ns = 0;
    static int sampled = 0;
    word now, page;
# endif

  for (i = 0; i < GC_n_heap_sects; i++) res += GC_heap_sects[i].hs_bytes;
  *reserved = res;
# ifdef GCA_HAVE_MINCORE
    now = gca_now_ns();
    if (sampled && res == last_reserved
        && now - last_ns < (word)GCA_RESIDENT_PERIOD_NS) {
      *resident = last_resident;
      return;
    }
    page = (word)sysconf(_SC_PAGESIZE);
    for (i = 0; i < GC_n_heap_sects; i++) {
      /* Sections are HBLKSIZE-aligned; pages may be larger, so round   */
      /* the range out to pages and clip the resident count to it.      */
      word start = (word)GC_heap_sects[i].hs_start;
      word end = start + GC_heap_sects[i].hs_bytes;
      word lo = start & ~(page - 1);
      word hi = (end + page - 1) & ~(page - 1);

      if (lo >= hi) continue;
      rsd += heap_resident_pages(lo, hi, page) * page;
      if (lo < start && heap_page_resident(lo)) rsd -= start - lo;
      if (end < hi && heap_page_resident(hi - page)) rsd -= hi - end;
    }
    last_reserved = res;
    last_resident = rsd;
    last_ns = now;
    sampled = 1;
    *resident = rsd;
# else
    *resident = res;
# endif
}

#endif /* !GC_ACC_DISABLE */
