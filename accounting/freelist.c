/* SPDX-License-Identifier: MIT */
/*
 * freelist.c: the free heap-block lists (GC_hblkfreelist), in books.
 *
 * Read when asked, never kept: free blocks and bytes per free-list index
 * and mapped versus unmapped, the total free bytes and the largest free
 * block, from one walk of upstream's free lists (gca_freelist_read), at
 * a record, a heap growth or a GC_acc_get_stats call.  The walk visits
 * free blocks only (each a header lookup), so it costs in proportion to
 * the free blocks, a few hundred to a few thousand in a game's heap;
 * keeping the same books incrementally took a hook on every free-list
 * insertion, removal, split, unmap and remap, nearly 1% of a game loop's
 * instructions (docs/design.md, "What accounting off costs").  Also the
 * reserved versus resident bytes of the heap sections (mincore, at most
 * every 100 ms, by the dump's writer thread from a copy of the sections'
 * bounds a record made: see gca_heap_reserved_resident).  All entry
 * points but gca_heap_resident_sample (the writer's) run with the
 * allocation lock held.
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

/* The books live in gca_tables (OS memory, not static data: the       */
/* collector scans static data as roots and paces its collections by    */
/* its size); these zeros stand in when there is no memory for them.    */
static const struct gca_freelist_books fl_none = { { 0 }, { 0 }, { 0 }, 0, 0 };

/* Upstream's lists are visible to us where gcj support makes them      */
/* public (gc_priv.h declares them then) or in the one-file build, which */
/* defines them earlier in the same translation unit.  Elsewhere the    */
/* books come from a walk of the heap sections, which finds every free  */
/* block but not the list it is on (a block split off keeps its list    */
/* until it leaves it): its size's list stands in.                      */
#if defined(GC_GCJ_SUPPORT) || defined(GCA_AMALGAM)
# define FREELIST_HAVE_LISTS
#endif

/* allchblk.c's GC_hblk_fl_from_blocks, which is static there.           */
GC_INNER int gca_freelist_index(word blocks)
{
  if (blocks <= GCA_UNIQUE_THRESHOLD) return (int)blocks;
  if (blocks >= GCA_HUGE_THRESHOLD) return GCA_N_HBLK_FLS;
  return (int)(blocks - GCA_UNIQUE_THRESHOLD) / GCA_FL_COMPRESSION
         + GCA_UNIQUE_THRESHOLD;
}

GC_INNER word gca_frag_index_ppm(word total_bytes, word largest_bytes)
{
  unsigned long long total = total_bytes, largest = largest_bytes;

  if (0 == total || largest >= total) return 0;
  return (word)((total - largest) * 1000000u / total);
}

/* A free block enters books b on list index.                          */
GC_INLINE void books_add(struct gca_freelist_books *b, hdr *hhdr, int index)
{
  word sz = hhdr->hb_sz;

  b->blocks[index]++;
  b->bytes[index] += sz;
  if (EXPECT((hhdr->hb_flags & WAS_UNMAPPED) != 0, FALSE))
    b->unmapped_bytes[index] += sz;
  b->total_bytes += sz;
  if (sz > b->largest_bytes) b->largest_bytes = sz;
}

/* Every free block of the heap into b, walking the heap sections block */
/* by block (GC_apply_to_all_blocks skips free blocks), each on the     */
/* list of its size.  A free block may run on into an adjacent section; */
/* the walk of that section then starts inside it, where the headers    */
/* are nil or forwarding, and skips ahead.                              */
static void freelist_walk_heap(struct gca_freelist_books *b)
{
  word i;

  BZERO(b, sizeof(*b));
  for (i = 0; i < GC_n_heap_sects; i++) {
    ptr_t start = GC_heap_sects[i].hs_start;
    ptr_t end = start + GC_heap_sects[i].hs_bytes;
    struct hblk *h = (struct hblk *)start;

    while ((word)h < (word)end) {
      hdr *hhdr = HDR(h);

      if (IS_FORWARDING_ADDR_OR_NIL(hhdr)) {
        h++;
      } else if (HBLK_IS_FREE(hhdr)) {
        books_add(b, hhdr, gca_freelist_index(divHBLKSZ(hhdr->hb_sz)));
        h += divHBLKSZ(hhdr->hb_sz);
      } else {
        h += OBJ_SZ_TO_BLOCKS(hhdr->hb_sz);
      }
    }
  }
}

#ifdef FREELIST_HAVE_LISTS
  /* Every block on upstream's free lists into b, on its list: each     */
  /* list's sums and the totals in registers, stored once a list (at   */
  /* every record; books_add's stores into b, which the compiler must  */
  /* assume a header may alias, were a fifth of the walk).              */
  static void freelist_walk_lists(struct gca_freelist_books *b)
  {
    word total = 0, largest = 0;
    int i;

    for (i = 0; i <= GCA_N_HBLK_FLS; i++) {
      word blocks = 0, bytes = 0, unmapped = 0;
      struct hblk *h;
      hdr *hhdr;

      for (h = GC_hblkfreelist[i]; h != NULL; h = hhdr->hb_next) {
        word sz;

        hhdr = HDR(h);
        sz = hhdr->hb_sz;
        blocks++;
        bytes += sz;
        if (EXPECT((hhdr->hb_flags & WAS_UNMAPPED) != 0, FALSE))
          unmapped += sz;
        if (sz > largest) largest = sz;
      }
      b->blocks[i] = blocks;
      b->bytes[i] = bytes;
      b->unmapped_bytes[i] = unmapped;
      total += bytes;
    }
    b->total_bytes = total;
    b->largest_bytes = largest;
  }
#endif

GC_INNER const struct gca_freelist_books *gca_freelist_read(void)
{
  if (!gca_tables_get()) return &fl_none;
# ifdef FREELIST_HAVE_LISTS
    freelist_walk_lists(&gca_tables->fl);
# else
    freelist_walk_heap(&gca_tables->fl);
# endif
  return &gca_tables->fl;
}

/* The books against the heap itself (lock held): the walk of the free  */
/* lists and a walk of every heap block agree on the free blocks, their */
/* bytes, mapped and unmapped, and the largest (not on the lists:      */
/* a split block stays on its list).  Returns 0 if they do, else a       */
/* short description of the first difference.                           */
GC_INNER const char *gca_freelist_verify(void)
{
  const struct gca_freelist_books *b = gca_freelist_read();
  struct gca_freelist_books *ref;         /* lock held; off the stack */
  word i, blocks = 0, ref_blocks = 0, unmapped = 0, ref_unmapped = 0;

  if (b == &fl_none) return "no memory for the books";
  ref = &gca_tables->fl_ref;
  freelist_walk_heap(ref);
  for (i = 0; i <= GCA_N_HBLK_FLS; i++) {
    blocks += b->blocks[i];
    ref_blocks += ref->blocks[i];
    unmapped += b->unmapped_bytes[i];
    ref_unmapped += ref->unmapped_bytes[i];
  }
  if (blocks != ref_blocks) return "free blocks";
  if (b->total_bytes != ref->total_bytes) return "free bytes";
  if (unmapped != ref_unmapped) return "unmapped bytes";
  if (b->largest_bytes != ref->largest_bytes) return "largest free block";
  return 0;
}

/* ---- reserved and resident ------------------------------------------- */

#ifdef GCA_HAVE_MINCORE
  /* Resident pages of [lo, hi) (page-aligned): the low bit of each     */
  /* mincore byte, summed 8 bytes at a time.                            */
  static word heap_resident_pages(word lo, word hi, word page)
  {
    unsigned char vec[1024];  /* on the stack: static data is scanned */
    word pages = 0;           /* as roots and paces collections       */

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
/* call per 4 MiB and a pass over its page vector: some 0.7 ms on a 0.7  */
/* GB heap, nearly all of a record's time in the pause) by the dump's   */
/* writer thread, outside the collector's pause.  A record (lock held)  */
/* that finds a sample due (the last one GCA_RESIDENT_PERIOD_NS old or  */
/* more, or the reserved total changed since it) copies the sections'   */
/* bounds, which the writer samples after its next pass                 */
/* (gca_heap_resident_sample); every record reports the newest sample   */
/* the writer finished.  Only the very first sample is taken in place,  */
/* so that no record lacks one.  rs.state hands the copy over: 0, the    */
/* producer's (the record's, lock held) to write; 1, the writer's to     */
/* sample, which stores the result and then 0 (release).  Neither ever  */
/* waits for the other: a writer that is slow only makes the sample     */
/* older.  The copy is accounting's memory (OS pages, counted with the  */
/* records'), kept for the next sample; without memory for it no sample */
/* is taken and the last one stands (0 before the first).               */
#ifndef GCA_RESIDENT_PERIOD_NS
# define GCA_RESIDENT_PERIOD_NS 100000000u     /* 100 ms */
#endif

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_resident.c): samples a record took in  */
  /* place (0 where there is no mincore).                                */
  static unsigned long rs_in_place = 0;

  GC_API unsigned long GC_CALL GC_acc_test_resident_in_place(void)
  { return GCA_LOAD(&rs_in_place); }
#endif

#ifdef GCA_HAVE_MINCORE
  static struct {
    struct gca_resident_sect *sects;
    word cap, n;                /* entries allocated, copied          */
    unsigned state;             /* 0 the record's, 1 the writer's      */
    word resident;              /* the writer's sample of the copy     */
    word done;                  /* samples the writer finished         */
  } rs;
  static word resident_of(const struct gca_resident_sect *s, word n)
  {
    word i, rsd = 0, page = (word)sysconf(_SC_PAGESIZE);

    for (i = 0; i < n; i++) {
      /* Sections are HBLKSIZE-aligned; pages may be larger, so round   */
      /* the range out to pages and clip the resident count to it.      */
      word start = s[i].start;
      word end = start + s[i].bytes;
      word lo = start & ~(page - 1);
      word hi = (end + page - 1) & ~(page - 1);

      if (lo >= hi) continue;
      rsd += heap_resident_pages(lo, hi, page) * page;
      if (lo < start && heap_page_resident(lo)) rsd -= start - lo;
      if (end < hi && heap_page_resident(hi - page)) rsd -= hi - end;
    }
    return rsd;
  }

  /* The sections' bounds into rs.sects (lock held, rs.state 0); 0 if  */
  /* no memory for them (the sample is skipped).                        */
  static int resident_copy(void)
  {
    word i, n = GC_n_heap_sects;

    if (NULL == rs.sects && gca_tables != NULL) {
      rs.sects = gca_tables->resident_sects;    /* the first few         */
      rs.cap = GCA_RESIDENT_SECTS;
    }
    if (n > rs.cap) {
      word cap = gca_mem_fit(sizeof(struct gca_resident_sect), n, rs.cap);
      struct gca_resident_sect *p = (struct gca_resident_sect *)
          gca_mem_alloc(GCA_MEM_TYPES, cap * sizeof(struct gca_resident_sect));

      if (NULL == p) return 0;
      if (gca_tables == NULL || rs.sects != gca_tables->resident_sects)
        gca_mem_free(GCA_MEM_TYPES, rs.sects,
                     rs.cap * sizeof(struct gca_resident_sect));
      rs.sects = p;
      rs.cap = cap;
    }
    for (i = 0; i < n; i++) {
      rs.sects[i].start = (word)GC_heap_sects[i].hs_start;
      rs.sects[i].bytes = GC_heap_sects[i].hs_bytes;
    }
    rs.n = n;
    return 1;
  }
#endif

/* The writer thread, after a pass: the sample a record asked for.     */
GC_INNER void gca_heap_resident_sample(void)
{
# ifdef GCA_HAVE_MINCORE
    if (ACQ_LOAD32(&rs.state) != 1) return;
    rs.resident = resident_of(rs.sects, rs.n);
    rs.done++;
    REL_STORE32(&rs.state, 0);
# endif
}

GC_INNER void gca_heap_reserved_resident(word *reserved, word *resident)
{
  word i, res = 0;
# ifdef GCA_HAVE_MINCORE
    static word last_reserved = 0, last_resident = 0, seen_done = 0;
    static uint64_t last_ns = 0;
    static int sampled = 0;
    uint64_t now;
# endif

  for (i = 0; i < GC_n_heap_sects; i++) res += GC_heap_sects[i].hs_bytes;
  *reserved = res;
# ifdef GCA_HAVE_MINCORE
    if (ACQ_LOAD32(&rs.state) != 0) {
      /* The writer has the copy: the last sample stands.              */
    } else if (!sampled) {
      /* The first: in place, so that every record has a sample.       */
      if (resident_copy()) {
        last_resident = resident_of(rs.sects, rs.n);
        seen_done = rs.done;
        sampled = 1;
        last_reserved = res;
        last_ns = gca_now_ns();
#       ifdef GCA_TEST_API
          GCA_STORE(&rs_in_place, rs_in_place + 1);
#       endif
      }
    } else {
      if (rs.done != seen_done) {
        seen_done = rs.done;
        last_resident = rs.resident;
      }
      now = gca_now_ns();
      if ((res != last_reserved
           || now - last_ns >= (uint64_t)GCA_RESIDENT_PERIOD_NS)
          && resident_copy()) {
        last_reserved = res;
        last_ns = now;
        REL_STORE32(&rs.state, 1);
      }
    }
    /* A sample of sections since given back cannot count more.        */
    *resident = last_resident < res ? last_resident : res;
# else
    *resident = res;
# endif
}

#endif /* !GC_ACC_DISABLE */
