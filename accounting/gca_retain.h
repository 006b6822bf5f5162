/* SPDX-License-Identifier: MIT */
/*
 * gca_retain.h: a retention walk's outcome (issue 37), shared by the
 * walk (retain.c) and its record (retain_record.c) only.
 *
 * The paths' nodes and the roots live in segmented arrays of OS pages
 * (segments of 2^GCA_RS_LOG elements: never copied).  A node is a step
 * of a path: its object's base, the node that refers to it (GCA_RNONE:
 * a root's, then ref is its index in the roots) and the word of that
 * node that refers to it (GCA_RREF_CONS set: conservatively).  A root
 * is the address of the word that held the reference (0: the object
 * itself is the root, an uncollectable one) and its GCA_RI_* bits.
 */
#ifndef GCA_RETAIN_H
#define GCA_RETAIN_H

#define GCA_RETAIN_K 5                  /* paths per request             */
#define GCA_RETAIN_MAX_COOKIES 32       /* types of one name             */
#define GCA_RNONE 0xffffffffu
#define GCA_RREF_CONS 0x80000000u

/* Root kinds (the record's names: retain_record.c).                     */
#define GCA_RK_STATIC 1
#define GCA_RK_STACK 2
#define GCA_RK_FINALIZER 3
#define GCA_RK_UNCOLLECTABLE 4
#define GCA_RI_KIND(i) ((i) & 7u)
#define GCA_RI_CONSERVATIVE 8u
#define GCA_RI_MAIN 16u                 /* stack: the main thread's      */
#define GCA_RI_SELF 32u                 /* stack: the collecting thread's */
#define GCA_RI_SHIFT 8                  /* thread number, or range index */

struct gca_rnode {
  word base;
  unsigned parent, ref;
};

struct gca_rroot {
  word from;
  unsigned info;
};

/* Where thread stacks are walked (the record says: "stacks").           */
#if defined(GC_PTHREADS) && !defined(GC_DARWIN_THREADS) \
    && !defined(GC_WIN32_THREADS) && !defined(NACL) && !defined(SN_TARGET_PS3)
# define GCA_RETAIN_STACKS 1
# define GCA_RETAIN_PTHREADS 1          /* GC_threads' stacks            */
#elif !defined(THREADS)
# define GCA_RETAIN_STACKS 1
#else
# define GCA_RETAIN_STACKS 0
#endif

#define GCA_RS_LOG 12
#define GCA_RS_MASK (((word)1 << GCA_RS_LOG) - 1)
struct gca_rseg {
  char **seg;                           /* the segments' table           */
  word n, max_seg;                      /* elements; table's length      */
  size_t elem;                          /* bytes an element              */
};
#define GCA_RSEG_AT(s, i) ((void *)((s)->seg[(word)(i) >> GCA_RS_LOG] \
  + ((word)(i) & GCA_RS_MASK) * (s)->elem))
#define GCA_RNODE(w, i) ((struct gca_rnode *)GCA_RSEG_AT(&(w)->nodes, (i)))
#define GCA_RROOT(w, i) ((struct gca_rroot *)GCA_RSEG_AT(&(w)->roots, (i)))

/* A walk's memory (retain_bounds.c): OS pages, bytes mapped now and   */
/* at most, within cap; over: a request went past the cap (the walk is  */
/* then partial).  The segmented arrays' functions take theirs from it. */
struct gca_rmem {
  word bytes, peak, cap;
  int over;
};
GC_INNER void *gca_rmem_alloc(struct gca_rmem *m, word bytes);
GC_INNER void gca_rmem_free(struct gca_rmem *m, void *p, word bytes);
GC_INNER int gca_rseg_init(struct gca_rmem *m, struct gca_rseg *s,
                           size_t elem);
GC_INNER int gca_rseg_map(struct gca_rmem *m, struct gca_rseg *s, word k);
GC_INNER void *gca_rseg_push_slow(struct gca_rmem *m, struct gca_rseg *s);
GC_INNER void *gca_rseg_take(struct gca_rmem *m, struct gca_rseg *s,
                            word n);
GC_INNER void gca_rseg_free(struct gca_rmem *m, struct gca_rseg *s);

/* The next element of s, its segment mapped when it starts one (NULL: */
/* m's cap).                                                            */
GC_INLINE void *gca_rseg_push(struct gca_rmem *m, struct gca_rseg *s)
{
  word i = s->n;

  if (EXPECT((i & GCA_RS_MASK) != 0, TRUE)) {
    s->n = i + 1;
    return GCA_RSEG_AT(s, i);
  }
  return gca_rseg_push_slow(m, s);
}

struct gca_rwalk {
  struct gca_rseg nodes, roots;
  struct gca_rmem mem;                  /* peak: the record's memory    */
  const char *name;                     /* the request: a type's name    */
  word req_cookie;                      /* or a cookie, or a site id     */
  int is_auto, site;                    /* cookies[0]: a site id         */
  word cookies[GCA_RETAIN_MAX_COOKIES];
  unsigned n_cookies;
  unsigned targets[GCA_RETAIN_K], n_targets;
  unsigned n_shortest;                  /* targets found breadth first   */
  int depth_first;                      /* the walk went on depth first  */
  int from_marking;                     /* paths from the marking's     */
                                        /* parents (retain_mark.c)      */
  word visited;                         /* objects reached               */
  word words, budget;                   /* read; ns                      */
  int partial, timed_out;
  word t0, t_stopped, t_end;            /* ns                            */
};

/* retain_bounds.c: what the walk takes from the collector (world     */
/* stopped): the marked object a word refers to as the collector would  */
/* take it (NULL: none), whether a block may hold an instance w asks    */
/* for, whether an object is one.                                        */
GC_INNER ptr_t gca_rref_target(word w, int interior, hdr **hh);
GC_INNER unsigned gca_rref_block_may(const struct gca_rwalk *w, hdr *hhdr);
GC_INNER int gca_rref_is_instance(const struct gca_rwalk *w, ptr_t base,
                                  hdr *hhdr);

GC_INNER word gca_rref_per_object(ptr_t base, word descr);

/* retain_mark.c: from the parents the collection's marking recorded,   */
/* the instances the walk w did not take (taken: the w->n_targets it    */
/* did), into out: their number, or ~0u if one has no such path (the    */
/* walk goes on); and one's path into w's nodes and roots (build 1;    */
/* 0: only whether it has one).  Threads' stacks as the walk sees them: */
/* each scanned (find 0; scan returns 1 to stop), or the info of the    */
/* one that holds the word at find now (0: none).                       */
typedef int (*gca_rscan_fn)(ptr_t lo, ptr_t hi, unsigned info);
GC_INNER unsigned gca_retain_stacks(word find, gca_rscan_fn scan);
GC_INNER unsigned gca_rmark_choose(struct gca_rwalk *w, const word *taken,
                                   word *out);
GC_INNER int gca_rmark_path(struct gca_rwalk *w, word base, int build);

/* retain_record.c: the walk's record (lock held, world running).      */
GC_INNER void gca_retain_record(const struct gca_rwalk *w);

#endif
