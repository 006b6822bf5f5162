/* SPDX-License-Identifier: MIT */
/*
 * gca_priv.h: declarations shared by the accounting modules (our
 * gc_priv.h).  Every accounting .c file includes this first.  It pulls in
 * bdwgc's private header, so the modules see the collector's internals;
 * nothing declared here is exported from libgc (GC_INNER).
 */

#ifndef GCA_PRIV_H
#define GCA_PRIV_H

#include "private/gc_priv.h"
#include <stdint.h>
#include "gc_accounting.h"
#include "gca_fields.h"
#include "gca_leak_rule.h"

#ifndef GC_ACC_DISABLE

/* ---- portability ------------------------------------------------------ */
/* The dump file (dumpfile.c, writer.c, header.c) uses POSIX I/O and   */
/* threads; on Windows, Win32's (dumpfile.c's and thread.c's Win32       */
/* parts, and gca_win.h's few POSIX names on Win32 primitives).          */
#if defined(_WIN32) && !defined(__CYGWIN__)
# define GCA_WIN32 1
# include "gca_win.h"
#endif
/* A function some configurations never call (in the one-file build it  */
/* is static, and compilers warn): fork children's resets without fork, */
/* getters only the dump's header reads.                                 */
#define GCA_MAYBE_UNUSED GC_ATTR_UNUSED
/* Half a word's bits: hashes fold the high half into the low one with  */
/* shifts that stay below the word's width on 32-bit targets too (a    */
/* shift by the width or more is undefined behaviour).                   */
#define GCA_HALF_WORDSZ (CPP_WORDSZ / 2)
/* libgcc's unwinder (GC_ACC_UNWIND=libgcc, unwind.c) where the compiler */
/* has <unwind.h>; MSVC has none (that unwinder then finds no frame).    */
/* Windows: Windows' own walk under unwind.h's names (gca_win.h).       */
#ifdef GCA_WIN32
#elif defined(__has_include)
# if __has_include(<unwind.h>)
#   define GCA_HAVE_UNWIND_H 1
# endif
#elif defined(__GNUC__) || defined(__clang__)
# define GCA_HAVE_UNWIND_H 1
#endif
#if defined(GCA_HAVE_UNWIND_H) && !defined(GCA_WIN32)
# include <unwind.h>
#endif

/* ---- size classes ---------------------------------------------------- */
/* Small objects are classed by granules (1..MAXOBJGRANULES, as bdwgc's   */
/* own free lists); larger ones by the power of two of their granted     */
/* size: class GCA_LARGE0 + b holds sizes in [2^(b+GCA_LARGE_LOG0),      */
/* 2^(b+GCA_LARGE_LOG0+1)).                                              */
#define GCA_LARGE0 (MAXOBJGRANULES + 1)
#define GCA_LARGE_LOG0 (CPP_LOG_HBLKSIZE - 1)   /* 2^11 = MAXOBJBYTES */
#define GCA_N_LARGE (CPP_WORDSZ - GCA_LARGE_LOG0)
#define GCA_N_CLASSES (GCA_LARGE0 + GCA_N_LARGE)

/* Class of an object whose collector-granted size is granted.          */
GC_INLINE unsigned gca_class_of(word granted)
{
  unsigned b;

  if (granted <= MAXOBJBYTES)
    return (unsigned)BYTES_TO_GRANULES(granted);
# if defined(__GNUC__) || defined(__clang__)
    /* The power of two below granted (> MAXOBJBYTES, so nonzero).      */
    /* clzll counts in an unsigned long long, whatever the word size.  */
    b = (unsigned)(8 * sizeof(unsigned long long) - 1
                   - __builtin_clzll((unsigned long long)granted))
        - GCA_LARGE_LOG0;
    if (b > GCA_N_LARGE - 1) b = GCA_N_LARGE - 1;
# else
    for (b = 0; b + 1 < GCA_N_LARGE
                && (granted >> (GCA_LARGE_LOG0 + b + 1)) != 0; b++) {
      /* find the power of two below granted */
    }
# endif
  return GCA_LARGE0 + b;
}

/* Allocation counts of one (kind, class). */
struct gca_count {
  word objs;
  word req_bytes;
  word granted_bytes;
};

/* For the few helpers of the allocation path that must be inlined (a  */
/* call there costs a stack frame on the whole path).                    */
#if defined(__GNUC__) || defined(__clang__)
# define GCA_ALWAYS_INLINE GC_INLINE __attribute__((always_inline))
#else
# define GCA_ALWAYS_INLINE GC_INLINE
#endif

/* ---- the calling thread's hot state (counters.c owns it) ------------- */
/* Everything the allocation path reads per object, in one thread-local  */
/* struct, so that a hook costs one thread-local lookup, not one per     */
/* module.  Written by the owner thread only.                            */
struct gca_thread;
struct frame_tl;
struct sites_tls;
struct frame_tl_ent {           /* one pair's frame counts, per thread  */
  unsigned pair;
  word objs, bytes;             /* cumulative, owner writes             */
  word taken_objs, taken_bytes; /* the marker's, under the lock         */
};
/* One entry of a thread's pair cache (frames.c): (cookie, site) -> pair,*/
/* two-way set-associative, a set being two adjacent entries (the newer */
/* first), 16 bytes each so that a set is half a cache line.            */
struct gca_pc {
  word cookie;
  unsigned site, pair;
};
/* The set (its first entry's index) of (cookie, site) in a pair cache  */
/* of mask + 2 entries.                                                  */
GC_INLINE word gca_pc_set(word cookie, unsigned site, word mask)
{
  word h = (cookie + (word)site * 0x9E3779B1u) * (word)0x9E3779B97F4A7C15ULL;

# if CPP_WORDSZ > 32
    return (h >> 32) & mask;
# else
    return (h ^ (h >> GCA_HALF_WORDSZ)) & mask;
# endif
}
/* The entry of (cookie, site) in a pair cache of mask + 2 entries, or */
/* NULL: its set's two ways, the newer first.                            */
GC_INLINE const struct gca_pc *gca_pc_find(const struct gca_pc *pc,
                                           word mask, word cookie,
                                           unsigned site)
{
  const struct gca_pc *c = pc + gca_pc_set(cookie, site, mask);

  if (EXPECT(c->pair != 0 && c->cookie == cookie && c->site == site, TRUE))
    return c;
  c++;
  if (c->pair != 0 && c->cookie == cookie && c->site == site) return c;
  return NULL;
}
#define GCA_TAG_CACHE 16        /* a power of 2                         */
struct gca_tl {
  struct gca_thread *counters;  /* counters.c record, NULL until claimed */
  word next_type;               /* GC_acc_set_next_type (tags.c)         */
  /* The thread's pair cache (frames.c owns it; mirrored here so that   */
  /* the allocation path reaches it in one TLS load), NULL until the    */
  /* thread first interns a pair; lookups since the cache last grew.    */
  struct gca_pc *pc;
  word pc_mask, pc_lookups;
  /* One-entry cache of the last (cookie, site) -> pair (tags.c), and   */
  /* of that pair's frame-count entry (frames.c), NULL if none yet.      */
  word c_cookie;
  unsigned c_site, c_pair;
  struct frame_tl_ent *c_ent;
  /* tags.c: tags this thread stored lately, by pair, and their       */
  /* palette entries in those blocks' tables (checked against the table */
  /* before use).                                                        */
  struct gca_tag_cache { unsigned tag, idx; } t_cache[GCA_TAG_CACHE];
  struct frame_tl *frame_tl;    /* frames.c per-thread frame counts      */
  /* sites.c: bytes to this thread's next sample point (sample=BYTES),  */
  /* so that an unsampled allocation costs a subtraction and a branch;  */
  /* and the site of its last capture (GC_acc_last_site).              */
  signed_word s_countdown;
  unsigned s_last_site;
  struct sites_tls *sites;      /* sites.c's TLS, NULL until first use   */
  /* samples.c: the sampled profile's random state (0: not seeded), the */
  /* profile's epoch of the thread's countdown's last draw and of its   */
  /* countdowns by objects' (the lists' and rows': each its own, or a   */
  /* draw of one would hide that the other was drawn at an old rate),   */
  /* the countdown when GC_acc_set_next_type was last called, a re-entry */
  /* guard, and the thread's cache of free sample nodes.                 */
  unsigned long long p_rng;
  word p_epoch, p_cd_epoch;
  signed_word p_next_left;
  int p_busy;
  struct gca_sample *p_nodes;
  /* counters.c: the countdown made due for the hook of the copy of     */
  /* mode 1 (its value kept in due_left while due_forced).              */
  signed_word due_left;
  int due_forced;
  /* counters.c: inside GC_generic_malloc_many, an object to be made   */
  /* (1), for one of the thread's own lists (2); else 0.  For hooks.c:  */
  /* such an object is counted in the thread's record (its request     */
  /* waits for its pop), and in mode 1 sampled at its pop ("sampled at  */
  /* its pop", counters.c).  Set by the thread only.                    */
  int in_refill;
};
GC_EXTERN GCA_TLS_FAST struct gca_tl gca_tl_self;

/* ---- per-thread counters (counters.c, counters_sum.c) ---------------- */
/* Each thread that allocates owns one gca_thread; only the owner writes */
/* it (plain loads and stores, no locks, no read-modify-write atomics).  */
/* Readers sum all records.  Records are never freed: a thread that      */
/* exits leaves its totals in place and its record is reused by the next */
/* new thread, which keeps adding to the same cumulative counts.         */
struct gca_thread;

/* Sum of all threads' counts, one (kind, class) at a time, over kinds  */
/* [0, n_kinds) only, into the cur counts of their rows (gca_row: made */
/* for a pair first counted; rows of other kinds are left as they are); */
/* counters_sum.c, as gca_counters_debug_objs and _memory_bytes.  Lock  */
/* held, gca_tables made.                                               */
GC_INNER void gca_counters_sum_rows(unsigned n_kinds);
GC_INNER word gca_counters_debug_objs(int kind);

/* ---- collections (hooks.c) -------------------------------------------- */
GC_EXTERN word gca_collections;
GC_EXTERN word gca_heap_grows;

/* ==== base.c: OS pages, the clock, the table block, switches ========= */
GC_INNER void *gca_os_alloc(size_t bytes);   /* zeroed, or NULL */
GC_INNER void gca_os_free(void *p, size_t bytes);   /* from gca_os_alloc */
/* The same, counted in gca_mem_bytes[owner] (whole pages).              */
#define GCA_MEM_TYPES 0         /* pairs, types, rows, frames, sections */
#define GCA_MEM_UNWIND 1        /* the unwinder's code lists, rule cache */
#define GCA_MEM_N 2
GC_EXTERN word gca_mem_bytes[GCA_MEM_N];
GC_INNER void *gca_mem_alloc(unsigned owner, size_t bytes);
GC_INNER void gca_mem_free(unsigned owner, void *p, size_t bytes);
/* Owner's mapping p (NULL: none yet) of old_bytes made new_bytes (more), */
/* its contents kept, the rest zeroed: moved by the kernel (mremap)      */
/* where there is one, no byte copied, else copied; NULL (p kept) if no  */
/* memory (GC_acc_test_mem_copied: the bytes copied so).               */
GC_INNER void *gca_mem_grow(unsigned owner, void *p, size_t old_bytes,
                            size_t new_bytes);
/* The entries of elem_bytes each a table growing from cur entries must */
/* have to hold need: at least need and half as many again as cur, and */
/* all that fit in the whole pages those take (the pages are counted:  */
/* a table of a few rows takes one page, not the 8 KiB of 64 rows).    */
GC_INNER word gca_mem_fit(word elem_bytes, word need, word cur);
/* A copy of s[0, n) with a '\0', in OS arenas of GCA_MEM_TYPES; NULL  */
/* if no memory.  Lock held.                                             */
GC_INNER char *gca_mem_strdup(const char *s, size_t n);
/* After fork(), in the child (hooks.c registers them with             */
/* pthread_atfork): release locks other threads may have held.         */
/* Unused where there is no fork (GCA_MAYBE_UNUSED: in the one-file    */
/* build they are static, and a compiler would warn).                   */
GC_INNER GCA_MAYBE_UNUSED void gca_sites_atfork_child(void);
GC_INNER GCA_MAYBE_UNUSED void gca_pairs_atfork_child(void);
GC_INNER GCA_MAYBE_UNUSED void gca_tags_atfork_child(void);
GC_INNER GCA_MAYBE_UNUSED void gca_frames_atfork_child(void);
GC_INNER GCA_MAYBE_UNUSED void gca_counters_atfork_child(void);
GC_INNER GCA_MAYBE_UNUSED void gca_dump_atfork_child(void);

/* Random draws for sampling: a 64-bit xorshift64* state per user    */
/* (0: not seeded); a uniform in (0, 1]; an exponential of the given   */
/* mean, truncated, below a quarter of signed_word's range; 1-exp(-x) */
/* without cancellation (x >= 0).  No libm.                             */
GC_INNER void gca_rng_seed(unsigned long long *st);
GC_INNER unsigned long long gca_rng_next(unsigned long long *st);
GC_INNER double gca_rng_unit(unsigned long long *st);
GC_INNER signed_word gca_rng_exp(unsigned long long *st, word mean);
GC_INNER double gca_one_minus_exp_neg(double x);

/* The object profile (GC_ACC_PROFILE): GC_ACC_PROFILE_* of          */
/* gc_accounting.h; read racily by the allocation path.                  */
#define GCA_PROFILE_OFF 0
#define GCA_PROFILE_SAMPLED 1
#define GCA_PROFILE_FULL 2
#define GCA_PROFILE_TRACE 3
GC_EXTERN int gca_profile;
/* The cap on the side tables' memory (GC_ACC_TABLE_LIMIT): samples,   */
/* callsites and tag tables each stop growing before their own bytes    */
/* pass it, and degrade (dropped samples, "stack unknown", untagged     */
/* blocks), said once by gca_table_limit_reached (lock held).           */
#define GCA_TABLE_LIMIT_DEFAULT ((word)256 << 20)
GC_INNER word gca_table_limit(void);
GC_INNER void gca_table_set_limit(size_t bytes);
GC_INNER void gca_table_limit_reached(const char *what, word n);

/* ==== thread.c: threads the collector never knows ==================== */
/* Started with every signal blocked, through the C library's          */
/* pthread_create (not bdwgc's wrapper); 0 or an error number.          */
#ifndef GCA_WIN32
# include <pthread.h>
#endif
  GC_INNER int gca_thread_create(pthread_t *t, void *(*fn)(void *),
                                 void *arg);
  GC_INNER int gca_thread_join(pthread_t t);
  /* A mutex that notes its holder: a lock that an exit may find held */
  /* by the very thread running exit() (a signal handler's) is taken   */
  /* with gca_noted_lock_bounded, which never waits on this thread and */
  /* at most ms on another; 1 if taken.                                 */
  struct gca_noted_mutex { pthread_mutex_t mu; pthread_t owner; int held; };
#ifdef GCA_WIN32
# define GCA_NOTED_MUTEX_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, { 0, 0 }, 0 }
#else
# define GCA_NOTED_MUTEX_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0, 0 }
#endif
  GC_INNER int gca_noted_trylock(struct gca_noted_mutex *m);
  GC_INNER void gca_noted_lock(struct gca_noted_mutex *m);
  GC_INNER int gca_noted_lock_bounded(struct gca_noted_mutex *m,
                                      unsigned ms);
  GC_INNER void gca_noted_unlock(struct gca_noted_mutex *m);
  GC_INNER void gca_noted_reinit(struct gca_noted_mutex *m);

/* ==== text.c: the dump's text (numbers, rows, escaped strings) ======== */
/* A buffer of OS pages (gca_os_alloc, uncounted) that grows by        */
/* doubling; fail is set (and later writes do nothing) when memory runs */
/* out.  Zero-initialized is empty; never malloc, so usable with the    */
/* lock held.                                                            */
struct gca_text {
  char *buf;
  size_t len, cap;
  int fail;
};
/* Room for more bytes; 0 if none (fail set).                            */
GC_INNER int gca_text_reserve(struct gca_text *t, size_t more);
/* Its pages given back: empty again, fail cleared.                      */
GC_INNER void gca_text_free(struct gca_text *t);
GC_INNER void gca_text_put(struct gca_text *t, const char *s, size_t n);
/* A string literal only ("" s "" does not compile otherwise).           */
#define GCA_TEXT_LIT(t, s) gca_text_put(t, "" s "", sizeof("" s "") - 1)
GC_INNER void gca_text_word(struct gca_text *t, word x);     /* decimal */
GC_INNER void gca_text_u64(struct gca_text *t, uint64_t x);  /* decimal */
GC_INNER void gca_text_sword(struct gca_text *t, signed_word x);
GC_INNER void gca_text_hex(struct gca_text *t, word x);  /* "0x..."     */
/* s[0, n) as a JSON string: quotes, backslashes and control characters */
/* escaped, valid UTF-8 kept, each byte of anything else written '?'.    */
GC_INNER void gca_text_string(struct gca_text *t, const char *s, size_t n);
GC_INNER void gca_text_cstring(struct gca_text *t, const char *s);
/* The decimal digits of x at p (at most 20); returns the end.           */
GC_INNER char *gca_put_word(char *p, word x);

/* Tapes: a record taken down under the allocation lock in words (a   */
/* struct gca_text's bytes: tag words and their payloads), written as    */
/* text later by the writer thread (gca_tape_text), outside the pause.   */
/* Each call costs a few stores, no formatting.                          */
#define GCA_TAPE_LIT 1          /* a static literal, by address          */
#define GCA_TAPE_KEY_WORD 2     /* a static literal, then a decimal word */
#define GCA_TAPE_WORD 3
#define GCA_TAPE_SWORD 4
#define GCA_TAPE_HEX 5
#define GCA_TAPE_U64 6
#define GCA_TAPE_ROW 7          /* ,[v0,v1,...] (no comma when first)    */
#define GCA_TAPE_STRING 8       /* copied; written as gca_text_string    */
#define GCA_TAPE_RAW 9          /* copied; written as is                 */
#define GCA_TAPE_HEX_ROW 10     /* [id,"0x..",...]: a site's definition  */
#define GCA_TAPE_TYPE_DEF 11    /* [id,"0x..","name"]: a type's          */
/* s: a string literal (kept by address, never copied).                  */
GC_INNER void gca_tape_lit(struct gca_text *t, const char *s, size_t n);
GC_INNER void gca_tape_key_word(struct gca_text *t, const char *s, size_t n,
                                word x);
#define GCA_TAPE_LITERAL(t, s) gca_tape_lit(t, "" s "", sizeof("" s "") - 1)
#define GCA_TAPE_KEY(t, s, x) \
        gca_tape_key_word(t, "" s "", sizeof("" s "") - 1, x)
/* kind: GCA_TAPE_WORD, _SWORD or _HEX.                                  */
GC_INNER void gca_tape_one(struct gca_text *t, unsigned kind, word x);
GC_INNER void gca_tape_u64(struct gca_text *t, uint64_t x);
GC_INNER void gca_tape_row(struct gca_text *t, int first, const word *v,
                           unsigned n);
/* kind: GCA_TAPE_STRING or GCA_TAPE_RAW; s[0, n) is copied.             */
GC_INNER void gca_tape_bytes(struct gca_text *t, unsigned kind,
                             const char *s, size_t n);
/* ",[id,"0x<v0>",...]" (no comma when first).                          */
GC_INNER void gca_tape_hex_row(struct gca_text *t, int first, word id,
                               const word *v, unsigned n);
/* ",[id,"0x<cookie>","<name[0, n) escaped>"]" (no comma when first).    */
GC_INNER void gca_tape_type_def(struct gca_text *t, int first, word id,
                                word cookie, const char *name, size_t n);
/* Append the text of tape[0, len) (any alignment) to out; 0 if out ran  */
/* out of memory or the tape is not one (nothing past the bad item).    */
GC_INNER int gca_tape_text(struct gca_text *out, const char *tape,
                           size_t len);

/* ---- free heap-block lists (freelist.c) ------------------------------ */
/* bdwgc's free-list geometry (allchblk.c keeps these private; ours must  */
/* match: UNIQUE_THRESHOLD, HUGE_THRESHOLD, FL_COMPRESSION, N_HBLK_FLS).  */
#define GCA_UNIQUE_THRESHOLD 32
#define GCA_HUGE_THRESHOLD 256
#define GCA_FL_COMPRESSION 8
#define GCA_N_HBLK_FLS ((GCA_HUGE_THRESHOLD - GCA_UNIQUE_THRESHOLD) \
                        / GCA_FL_COMPRESSION + GCA_UNIQUE_THRESHOLD)

struct gca_freelist_books {
  word blocks[GCA_N_HBLK_FLS + 1];          /* free blocks per list index */
  word bytes[GCA_N_HBLK_FLS + 1];           /* their bytes                */
  word unmapped_bytes[GCA_N_HBLK_FLS + 1];  /* of which unmapped          */
  word total_bytes;                         /* all free blocks            */
  word largest_bytes;                       /* the largest free block     */
};
GC_INNER int gca_freelist_index(word blocks);
/* The books now, read off upstream's free lists into gca_tables (made */
/* if need be: all zero if there is no memory for them; lock held;      */
/* valid until the next call).                                          */
GC_INNER const struct gca_freelist_books *gca_freelist_read(void);
GC_INNER const char *gca_freelist_verify(void);     /* lock held */

/* ---- the thread-local fast path's flags (tlflags.c) ----------------- */
#ifdef THREAD_LOCAL_ALLOC
  struct thread_local_freelists;
  /* The flags a thread's lists take in mode m: 0 (nothing) in mode 0,  */
  /* -1 (call the hook function) in modes 1 and 2; the hook function    */
  /* sets a registered thread's to 1 (count inline) in mode 1.           */
# define GCA_TL_FLAG_FOR(m) ((m) != 0 ? (signed_word)-1 : (signed_word)0)
  /* The calling thread's lists, or NULL.                                */
  GC_INNER struct thread_local_freelists *gca_tlflags_own(void);
  /* Every flag of the lists to v.                                       */
  GC_INNER void gca_tlflags_set(struct thread_local_freelists *p,
                                signed_word v);
  /* A thread's lists join / leave the list of all (lock held).          */
  GC_INNER void gca_tlflags_init(struct thread_local_freelists *p);
  GC_INNER void gca_tlflags_destroy(struct thread_local_freelists *p);
  /* gca_tl_mode just changed to mode (lock held): every thread's flags. */
  GC_INNER void gca_tlflags_mode_changed(int mode);
  /* The calling thread's own flags to v, right for mode m, then checked */
  /* against the mode again (no lock).                                   */
  GC_INNER void gca_tlflags_settle(struct thread_local_freelists *p, int m,
                                   signed_word v);
  GC_INNER void gca_tlflags_atfork_child(void);
#endif

/* ---- counters.c entry points ----------------------------------------- */
GC_INNER void gca_counters_alloc(void *p, size_t lb, int k);
GC_INNER void gca_counters_alloc_large(void *p, size_t lb, int k,
                                       word n_blocks);
GC_INNER void *gca_counters_alloc_tl(void *p, size_t lb, size_t granules,
                                     int k);
GC_INNER void *gca_counters_alloc_tl_tags(void *p, size_t lb,
                                          size_t granules, int k);
#ifdef THREAD_LOCAL_ALLOC
  /* The due pop of the copy of mode 1 (gca_hook_tl_due), from list fl. */
  GC_INNER void *gca_counters_alloc_tl_due(void *p, size_t lb,
                                           size_t granules, int k,
                                           void **fl);
  /* The due pop of the typed copy of mode 1 (gca_hook_tl_typed_due).  */
  GC_INNER void *gca_counters_alloc_tl_typed_due(void *p, size_t lb,
                                                 size_t granules, int k);
#endif
/* The due pop of GC_malloc_kind_global's copy of mode 1               */
/* (gca_hook_locked_due; counters_due.c, "the rows' countdowns"), lock */
/* held; returns p.                                                      */
GC_INNER void *gca_counters_locked_due(void *p, size_t lb, size_t lg, int k);
/* Every row's countdown folded and made due, its next pop drawn afresh */
/* (the profile or the rate changed; lock held).                        */
GC_INNER void gca_counters_locked_rearm_all(void);
/* The counts still in row (k, lg)'s countdown: objects and requested  */
/* bytes (lock held; counters_sum.c).                                    */
GC_INNER void gca_counters_locked_pending(unsigned k, unsigned lg,
                                         word *objs, word *req);

/* After a draw of the calling thread's countdown (samples.c): kept due */
/* if it is not and the sums cannot read the thread's inline counts yet */
/* (counters.c, "the countdown's promise").                             */
GC_INNER void gca_counters_tl_keep(void);
/* The calling thread's countdown found due after g granules: is it    */
/* really (not only made due for the hook: counters.c)?  Puts it back  */
/* as it would be.                                                       */
GC_INNER int gca_counters_tl_sample_due(word g);
#ifdef THREAD_LOCAL_ALLOC
  /* GC_ACC_ON_TLFS_INIT, the thread of p calling (lock held).         */
  GC_INNER void gca_counters_tl_new_lists(struct thread_local_freelists *p);
#endif
GC_INNER void gca_counters_many_begin(void **result);
GC_INNER void gca_counters_many_end(void **result, size_t lb);
GC_INNER void gca_counters_debug(void *p);
GC_INNER void gca_counters_thread_exit(void);

/* ---- the dump's file (dumpfile.c: below writer.c) -------------------- */
/* Expand tmpl (%p: the pid), open without blocking, set up the gzip     */
/* stream; GC_SUCCESS, or nonzero after one warning.                     */
GC_INNER int gca_dumpfile_open(const char *tmpl);
/* Compress n bytes with zlib's flush mode and write what comes out; 0   */
/* or an errno.  A pipe that does not drain is waited for until          */
/* deadline_ns (CLOCK_MONOTONIC; 0: none) or gca_dumpfile_abandon.       */
GC_INNER int gca_dumpfile_deflate(const void *p, size_t n, int flush,
                                  uint64_t deadline_ns);
/* One ring entry (writer.c), in two pieces a[0, na) and b[0, nb) (the */
/* ring's wrap; nb may be 0): a line, or a tape (tape nonzero) written  */
/* as its line first (gca_tape_text), off the collector's pause.        */
/* 0 or an errno (ENOMEM: no memory for the text; what came before it  */
/* is flushed).  Writer thread only.                                    */
GC_INNER int gca_dumpfile_deflate_entry(int tape, const char *a, size_t na,
                                        const char *b, size_t nb, int flush);
/* The same for the header, from the starting thread (signals blocked). */
GC_INNER int gca_dumpfile_write_header(const char *p, size_t n);
GC_INNER void gca_dumpfile_abandon(void);
GC_INNER void gca_dumpfile_close(void);
/* A forked child's copy of the descriptor: closed (not the stream).    */
GC_INNER void gca_dumpfile_atfork_child(void);
GC_INNER const char *gca_dumpfile_path(void);
/* What the open dump's file is (dumpfile.c): a regular file, a pipe (a  */
/* FIFO or a socket: a reader at its other end), or else (a device).    */
#define GCA_DUMPFILE_REGULAR 0
#define GCA_DUMPFILE_PIPE 1
#define GCA_DUMPFILE_OTHER 2
/* What a stop that gave up waited for, said by target ("for its reader, */
/* which stopped reading").                                              */
GC_INNER const char *gca_dumpfile_stalled_on(void);
/* One warning: "gcacc: <what> <path>: <why>; dumping off".             */
GC_INNER void gca_dumpfile_warn(const char *what, int err);
/* One warning: "gcacc: dump file <path>: " and printf's fmt.            */
GC_INNER void gca_dumpfile_note(const char *fmt, ...);

/* ---- the dump file (writer.c: below record.c, header.c, control.c) --- */
/* Non-blocking: copies one record into the writer's bounded buffer and */
/* returns 0, or returns nonzero and counts a drop if the buffer is full */
/* or no dump is open.  Never waits.  The record is len bytes of a whole */
/* JSON line (newline included) or, tape nonzero, of a tape (text.c),    */
/* which the writer thread turns into its line: a record's formatting    */
/* is not paid with the lock held.  An empty one (len 0) is a record the */
/* caller lost (no memory to build it): counted as a drop, so its seq    */
/* gap is explained.  gen: only into the dump of that generation         */
/* (gca_dump_generation; 0: any): a delta record built while its dump    */
/* was stopped and another started must not be the new dump's first (it */
/* is dropped instead).                                                  */
GC_INNER int gca_dump_put(const char *rec, size_t len, word gen, int tape);
#define gca_dump_submit(line, len) gca_dump_put(line, len, 0, 0)
#define gca_dump_submit_tape(tape, len, gen) gca_dump_put(tape, len, gen, 1)
/* Drops since the previous call (the next record reports them).          */
GC_INNER word gca_dump_take_dropped(void);
/* Nonzero while a dump file is open for writing.                         */
GC_INNER int gca_dump_is_open(void);

/* ---- writer.c: dump settings (for env.c and the API) ------------------ */
/* Smallest ring buffer; GC_ACC_DUMP_BUFFER and the API raise smaller      */
/* values to it.                                                           */
#define GCA_DUMP_MIN_BUFFER 4096
/* Largest: GC_ACC_DUMP_BUFFER and GC_acc_set_dump_buffer_size refuse     */
/* more (1 GiB).                                                           */
#define GCA_DUMP_MAX_BUFFER ((size_t)1 << 30)
/* The header's builder (header.c's gca_header_build, handed down by    */
/* control.c): appends the header line for a dump at path whose buffer  */
/* may grow to buffer_limit; 0 if it ran out of memory.                  */
typedef int (*gca_dump_header_fn)(struct gca_text *t, const char *path,
                                  size_t buffer_limit);
/* Start dumping to path_template (%p: the pid), stopping any dump open:  */
/* writes the header (built by header), starts the writer thread.        */
/* GC_SUCCESS, or nonzero after one warning.  Lock NOT held.              */
/* One last record at a stop that found drops no record has counted    */
/* (record.c's gca_record_final): built and submitted if the allocation */
/* lock can be had without waiting long; 1 if it was built.             */
typedef int (*gca_dump_final_fn)(void);
GC_INNER int gca_dump_open(const char *path_template,
                           gca_dump_header_fn header,
                           gca_dump_final_fn final);
/* Flush, write the trailer, join the writer; GC_SUCCESS.  Lock NOT held.*/
/* Waits at most the exit wait for the writer, then leaves it behind     */
/* with a warning (GC_ERROR).                                             */
GC_INNER int gca_dump_stop(void);
/* How long a stop, and so the program's exit, waits for the writer     */
/* (GC_ACC_DUMP_EXIT_WAIT, milliseconds).                                 */
#define GCA_DUMP_DEFAULT_EXIT_WAIT_MS 500u
#define GCA_DUMP_MAX_EXIT_WAIT_MS 60000u
GC_INNER void gca_dump_set_exit_wait(unsigned ms);
GC_INNER GCA_MAYBE_UNUSED unsigned gca_dump_exit_wait(void);
/* Ring buffer size for the next dump (0: the default, growing from     */
/* 256 KiB up to 64 MiB as records need).                                 */
GC_INNER void gca_dump_set_buffer(size_t bytes);
/* Delta records (docs/dump-format.md, "Delta records"): every how many */
/* collection records one is whole (a key frame); 1: every one (kept in */
/* base.c, a setting).  The first collection record of a dump always is: */
/* gca_dump_generation changes with every dump started (lock held).     */
#define GCA_KEYFRAME_DEFAULT 64u
#define GCA_KEYFRAME_MAX 1000000u
GC_INNER void gca_dump_set_keyframe(unsigned every);
GC_INNER GCA_MAYBE_UNUSED unsigned gca_dump_keyframe(void);
GC_INNER word gca_dump_generation(void);

/* ---- records (record.c) and the header (header.c) -------------------- */
/* Build one record and submit it.  with_census: after a collection, with  */
/* the census of this collection's mark bits; else counters and free-list  */
/* books only (GC_acc_record_now between collections).  Lock held.         */
GC_INNER void gca_record_emit(int with_census);
/* gca_dump_final_fn: a snapshot record, lock NOT held (taken, if free  */
/* within a few ms).                                                     */
GC_INNER int gca_record_final(void);
/* A frame marker (GC_acc_frame): the frame record.  Lock held.            */
GC_INNER void gca_record_frame(word n);
GC_INNER int gca_header_build(struct gca_text *t, const char *path,
                              size_t buffer_limit);
/* The accounting's own memory now, by part (a record's acc_memory), and */
/* its sum (acc_memory_bytes, GC_acc_get_memory_bytes).  Lock held.      */
struct gca_acc_mem {
  word tags, types, sites, counters, samples, tables, unwind;
};
GC_INNER word gca_acc_memory(struct gca_acc_mem *m);

/* ---- control.c: what env.c and api.c switch (lock NOT held) ---------- */
GC_INNER void gca_control_enable(int on);
GC_INNER void gca_control_set_tags(int on);   /* FULL or OFF profile   */
/* GC_ACC_PROFILE / GC_acc_set_profile (GCA_PROFILE_*; sample_bytes: the */
/* sampled profile's mean, 0 keeps it).                                   */
GC_INNER void gca_control_set_profile(int profile, word sample_bytes);
/* gca_dump_open with the header, then accounting on.                     */
GC_INNER int gca_control_dump_start(const char *path_template);

/* ==== census, fragmentation, heap growth, records ===================== */
/* (census.c, freelist.c additions, heapgrow.c, record.c.)                 */

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC where available).      */
/* 64-bit on every target: a 32-bit word of nanoseconds wraps every   */
/* 4.3 s.                                                                 */
GC_INNER uint64_t gca_now_ns(void);

/* One (kind, class) of a census: what this collection's mark bits say.   */
struct gca_class_census {
  word live_objs;       /* objects whose mark bit is set                 */
  word live_bytes;      /* their granted bytes (slot, or whole blocks)   */
  word reserved_bytes;  /* bytes of the in-use blocks of this class      */
  word free_slots;      /* unmarked slots in those (small) blocks        */
};

struct gca_kind_census {
  word large_live_objs;
  word large_live_bytes;
  word large_reserved_bytes;
};

struct gca_census {
  word valid;           /* nonzero once a census was taken               */
  word gc_no;           /* GC_gc_no of the collection counted            */
  uint64_t t_start_ns;  /* mark begin of that collection                 */
  uint64_t t_end_ns;    /* collection end (census start)                 */
  uint64_t mark_ns;         /* time inside GC_stopped_mark (summed over       */
                        /* abandoned incremental attempts)               */
  uint64_t census_ns;   /* time the census took                          */
  word live_objs, live_bytes, reserved_bytes;   /* totals                */
  struct gca_kind_census kinds[MAXOBJKINDS];
};

/* The books of one (kind, class) in use (a row), made on its first    */
/* count or census: a program uses a few dozen of the MAXOBJKINDS x    */
/* GCA_N_CLASSES pairs, and a table of every pair would take some 30   */
/* KiB a kind whatever the heap.  Lock held for all of a row's fields. */
struct gca_row {
  struct gca_class_census census;       /* census.c: this collection    */
  /* The census of the last collection record the writer took: the    */
  /* base of a delta record's rows (record.c).                         */
  struct gca_class_census sent;
  struct gca_count prev;        /* record.c: counts as of its last record */
  struct gca_count cur;         /* a sum's (record.c, api.c): scratch   */
  unsigned short kind, cls;
};

/* Heap growth events (heapgrow.c).                                      */
struct gca_grow_event {
  uint64_t t_ns;        /* CLOCK_MONOTONIC when the heap grew            */
  word req_bytes;       /* object size of the block request that forced */
                        /* it, 0 if none was pending (explicit growth)   */
  signed_word req_kind; /* its kind, -1 if none                          */
  word free_bytes;      /* free-block bytes just before growing          */
  word largest_free_bytes; /* largest free block just before growing     */
  word grow_bytes;      /* bytes added                                   */
  word heap_bytes_after;   /* GC_heapsize after                          */
};
#define GCA_MAX_GROWS 64

/* A heap section's bounds, copied for the writer's sample of resident */
/* bytes (freelist.c): the first GCA_RESIDENT_SECTS in the table block, */
/* beside the books (a page of their own took 4 KiB for a few dozen    */
/* bytes: issue 33).                                                     */
struct gca_resident_sect { word start, bytes; };
#define GCA_RESIDENT_SECTS 16

/* Accounting's fixed tables: OS memory taken when accounting first    */
/* goes on (gca_control_enable), never static data.  As static data    */
/* they would count in the collector's GC_root_size, which its pacing  */
/* adds to the bytes it expects to scan: a patched build would collect */
/* less often than upstream, accounting on or off, and so change what  */
/* it measures.  NULL until then; the readers check.  The rows are     */
/* elsewhere (gca_rows), found through row_of.                          */
#if defined(__GNUC__) || defined(__clang__)
# define GCA_PAGE_ALIGNED __attribute__((__aligned__(4096)))
#else
# define GCA_PAGE_ALIGNED /* empty: the same fields, more pages touched */
#endif
struct gca_tables {
  struct gca_census census;                             /* census.c   */
  struct gca_kind_census rec_sent_kinds[MAXOBJKINDS];   /* record.c   */
  /* The row of (kind, class): an index into gca_rows, 0 if none yet.  */
  unsigned short row_of[MAXOBJKINDS][GCA_N_CLASSES];
  /* The free-block books as last read (freelist.c), and the heap       */
  /* growths waiting for the next record (heapgrow.c; the heap is       */
  /* tracked only once the tables are made), which a record reads in    */
  /* place: both written on every program that grows its heap, so they  */
  /* start a page of their own (the books 1.5 KiB, the first growths    */
  /* beside them) and take one page of memory, not three.               */
  struct gca_freelist_books fl GCA_PAGE_ALIGNED;
  struct gca_resident_sect resident_sects[GCA_RESIDENT_SECTS];
  struct gca_grow_event grows[GCA_MAX_GROWS];
  /* A heap walk's books, to check fl against (freelist.c, tests).      */
  struct gca_freelist_books fl_ref;
  /* base.c: gca_locked_kind points into it (the inline hooks' rows;   */
  /* gca_hooks.h: kind k's class lg is row k * GCA_LOCKED_KIND_ROWS +  */
  /* lg), after the rest, so that the pages of kinds that do not exist */
  /* are the block's last, never touched.                               */
  word locked_rows[MAXOBJKINDS * GCA_LOCKED_KIND_ROWS + 1][2];
  /* base.c: gca_locked_large_kind points here (GC_ACC_ON_ALLOC_LARGE's */
  /* rows: kind k's large class GCA_LARGE0 + b is row                    */
  /* k * GCA_LOCKED_LARGE_ROWS + b: objects, requested bytes, blocks).  */
  word locked_large[MAXOBJKINDS * GCA_LOCKED_LARGE_ROWS][3];
  /* The countdowns of the lock-held rows (counters_due.c, "the rows'   */
  /* countdowns"): row k * GCA_LOCKED_KIND_ROWS + lg's word ([0], -W)   */
  /* and its setting ([1], B) side by side, base.c's gca_locked_w_kind  */
  /* [k] pointing at kind k's; from a page of their own and last, so   */
  /* that the two kinds GC_malloc_kind_global mostly pops (ptrfree and  */
  /* normal) share one page and kinds not used touch none.               */
  signed_word locked_wb[MAXOBJKINDS * GCA_LOCKED_KIND_ROWS + 1][2]
        GCA_PAGE_ALIGNED;
};
GC_EXTERN struct gca_tables *gca_tables;
/* Make the table block (base.c) if it is not yet; 0 if no memory.      */
GC_INNER int gca_tables_get(void);
/* Bytes of the block's pages in memory (all of it without mincore),    */
/* and of the rows' pages.                                              */
GC_INNER word gca_tables_memory_bytes(void);
/* The rows, gca_rows[1 .. gca_n_rows] (one array of OS pages, moved   */
/* as it grows: hold no row across a gca_row_make).  Lock held.         */
GC_EXTERN struct gca_row *gca_rows;
GC_EXTERN unsigned gca_n_rows;
/* Make the row of (k, cls), which has none; NULL if no memory (the    */
/* counts or census it would hold are then left out).  Lock held,       */
/* gca_tables made.                                                     */
GC_INNER struct gca_row *gca_row_make(unsigned k, unsigned cls);
/* The row of (k, cls), made if need be (NULL: no memory).             */
GC_INLINE struct gca_row *gca_row(unsigned k, unsigned cls)
{
  unsigned s = gca_tables->row_of[k][cls];

  return EXPECT(s != 0, TRUE) ? &gca_rows[s] : gca_row_make(k, cls);
}
/* The row of (k, cls) if it has one, else NULL.                        */
GC_INLINE struct gca_row *gca_row_find(unsigned k, unsigned cls)
{
  unsigned s = gca_tables->row_of[k][cls];

  return s != 0 ? &gca_rows[s] : NULL;
}
#define gca_last_census (gca_tables->census)

GC_INNER void gca_census_mark_begin(void);
GC_INNER void gca_census_mark_end(int done);
GC_INNER void gca_census_collection_end(void);   /* census, then record  */
/* The census alone (gca_last_census); lock held, after a full mark.   */
GC_INNER void gca_census_take(void);
/* The census riding upstream's reclaim walk (GC_start_reclaim): begin  */
/* clears the rows and says whether it rides; each block that stays in  */
/* use is then counted as the walk passes it, and gca_census_take only  */
/* finishes (no walk of its own) when the ride was this collection's.   */
GC_INNER void gca_census_ride_begin(int report_if_found);
GC_INNER void gca_census_ride_block(struct hblk *h, hdr *hhdr);
/* 1 if the last census rode the reclaim walk, else 0 (lock held).     */
GC_INNER int gca_census_rode(void);

/* A function no stack walk passes through (the census's ride on the   */
/* reclaim walk): no frame record, whatever GCA_FRAME_RECORDS_BEGIN or  */
/* -fno-omit-frame-pointer say, so that a leaf keeps no frame.          */
#if defined(__GNUC__) && !defined(__clang__)
# define GCA_NO_FRAME __attribute__((optimize("omit-frame-pointer")))
#else
# define GCA_NO_FRAME /* empty */
#endif

/* Free-block books beyond per-list counts (freelist.c).                 */
/* 1 - largest / total_free, times 10^6 (0 when nothing is free).        */
GC_INNER word gca_frag_index_ppm(word total_bytes, word largest_bytes);

/* Heap sections reserved by the collector and how much is resident    */
/* (lock held; the newest sample the writer took); the writer thread's */
/* sample of the sections a record copied, after each pass.             */
GC_INNER void gca_heap_reserved_resident(word *reserved, word *resident);
GC_INNER void gca_heap_resident_sample(void);

/* Heap growth events (heapgrow.c): struct gca_grow_event, above.     */
GC_INNER void gca_heapgrow_unmet(size_t sz, int kind, unsigned flags);
GC_INNER void gca_heapgrow_satisfied(void);
GC_INNER void gca_heapgrow_note(struct hblk *p, size_t bytes);
/* Events since the previous take: *n of them (at most GCA_MAX_GROWS),  */
/* in place, and how many more were lost; resets the list.  Lock held;  */
/* the events stay valid until the next growth (read them at once).     */
GC_INNER const struct gca_grow_event *gca_heapgrow_take(unsigned *n,
                                                        word *lost);
GC_INNER void gca_heapgrow_untake(unsigned n, word lost);
GC_EXTERN struct gca_grow_event gca_last_grow;  /* t_ns 0 if none yet    */

/* ==== end of census/records section ==================================== */

/* ---- callsites (sites.c, unwind.c) ---------------------------------- */
/* Callsite ids.  0: stacks are off; 1: the allocation was not sampled   */
/* (sample=BYTES mode); 2 and up: an interned call stack.                */
#define GCA_SITE_NONE 0u
#define GCA_SITE_UNSAMPLED 1u
/* sample=BYTES: count an allocation of granted bytes down the thread's */
/* distance to its next sample point.  Nonzero if it stops short of the */
/* point (the object is not sampled; the countdown and last site are    */
/* updated); 0, with nothing changed, if it reaches the point.  The      */
/* whole common path of sampling: a subtraction and a branch.            */
GC_INLINE int gca_sample_skip(struct gca_tl *tl, word granted)
{
  signed_word c = tl->s_countdown - (signed_word)granted;

  if (EXPECT(c <= 0, FALSE)) return 0;
  tl->s_countdown = c;
  tl->s_last_site = GCA_SITE_UNSAMPLED;
  return 1;
}
/* Decide whether this allocation (granted bytes) is sampled and, if it */
/* is, capture and intern the calling stack.  Called from allocation    */
/* hooks, with or without the allocation lock; per-thread state only on */
/* the common path, never blocks (a new stack takes a short spin lock).  */
GC_INNER unsigned gca_site_capture(word granted_bytes);
/* Sampling weight of a sampled object of granted bytes: the number of  */
/* bytes it stands for (1 object-equivalent = its size when not        */
/* sampling).  Reader scaling uses the same formula (dump-format.md).    */
/* The calling stack's site, whatever GC_ACC_STACKS says (the sampled  */
/* profile's samples); GCA_SITE_NONE if none could be taken.  Any lock  */
/* state.                                                                */
GC_INNER unsigned gca_sites_stack(void);
/* At a thread's exit: its stack guesses go to the next thread.         */
GC_INNER void gca_sites_thread_exit(void);
GC_INNER double gca_site_weight(word granted_bytes);
/* Visit the sites interned since the previous call (for the record):   */
/* fn(arg, id, frames, n_frames).  Lock held.                            */
GC_INNER void gca_sites_take_new(void (*fn)(void *arg, unsigned id,
                                            const word *frames, unsigned n),
                                 void *arg);
/* Where gca_sites_take_new has got to; a dropped record goes back.     */
GC_INNER unsigned gca_sites_take_mark(void);
GC_INNER void gca_sites_take_rewind(unsigned mark);
GC_INNER word gca_sites_memory_bytes(void);

/* Settings (GC_ACC_STACKS, GC_ACC_STACK_DEPTH, GC_ACC_UNWIND and the    */
/* GC_acc_set_stacks family; the GCA_STACKS_* values are the API's).     */
#define GCA_STACKS_OFF 0
#define GCA_STACKS_ALL 1
#define GCA_STACKS_SAMPLE 2
#define GCA_STACKS_DEFAULT_SAMPLE ((word)512 << 10)
#define GCA_STACKS_DEFAULT_DEPTH 16u
#define GCA_STACKS_MAX_DEPTH 64u
#define GCA_UNWIND_FP 0
#define GCA_UNWIND_LIBGCC 1
#define GCA_UNWIND_AUTO 2       /* libgcc for sampled stacks, else fp   */
GC_EXTERN int gca_stacks_mode;
GC_EXTERN word gca_stacks_sample_bytes;
GC_EXTERN unsigned gca_stacks_depth;
GC_EXTERN int gca_unwinder;
GC_INNER void gca_stacks_set(int mode, word sample_bytes); /* 0: default */
/* The same as the user's choice (GC_ACC_STACKS, GC_acc_set_stacks):     */
/* from then on a profile's default stacks (full: sample=512k, others   */
/* but trace: off) leave it as it is.                                    */
GC_INNER void gca_stacks_choose(int mode, word sample_bytes);
GC_EXTERN int gca_stacks_chosen;
GC_INNER void gca_stacks_set_depth(unsigned depth);   /* clamped 1..64   */
/* The site of this thread's last gca_site_capture (0 if none).          */
GC_INNER unsigned gca_site_last(void);
/* Frames of a site into frames[0..max); its frame count, -1 if no such  */
/* site.  Any lock state.                                                 */
GC_INNER int gca_site_frames(unsigned id, word *frames, unsigned max);
/* unwind.c: up to max return addresses of the calling stack, innermost  */
/* first, the collector's own frames dropped, then skip more frames.     */
GC_INNER unsigned gca_unwind(word *frames, unsigned max, unsigned skip);
/* skip | GCA_UNWIND_BY_TABLES: by the unwind tables whatever the        */
/* setting (auto's walk for sampled stacks, sites.c): _Unwind_Backtrace, */
/* or its rules cached (x86-64, unwind_cfi.c), the same stacks.          */
#define GCA_UNWIND_BY_TABLES 0x40000000u
GC_INNER void gca_unwind_init(void);   /* find libgc's code (once)       */
/* The unwinder's OS memory (code lists, the rule cache: unwind.c), and */
/* its walks by the cached rules since the start and how many of them   */
/* fell back to _Unwind_Backtrace (0, 0 where there is no cache:        */
/* unwind_cfi.c).                                                        */
GC_INNER word gca_unwind_memory_bytes(void);
GC_INNER void gca_unwcfi_walks(word *walks, word *fell_back);
/* The calling thread's memory for its last table walks (sites.c's, */
/* gca_unwcfi_memo_bytes of it, zeroed; NULL: none) for the walks until */
/* the next call: set around a sampled stack's walk.  0 bytes where the */
/* tables are not walked.                                                 */
GC_INNER word gca_unwcfi_memo_bytes(void);
GC_INNER void gca_unwcfi_memo_use(void *m);
/* The site id slot of the kept frames' memo of m's last walk (the     */
/* frames it gave; 0: none yet), NULL if there is none.                  */
GC_INNER unsigned *gca_unwcfi_memo_id(void *m);
/* A thread's guesses at its stacks (sites.c keeps them, unwind.c reads */
/* them): per innermost return address ra0 and its frame's address      */
/* (two-way), the stack last interned from there: its frames (a         */
/* site's, never freed), count and site id.  gca_unwind_guessed walks as gca_unwind(frames, max, 0) */
/* comparing with the guess for the stack's ra0: the same stack returns */
/* that guess; another returns NULL with the stack in frames[0..t->n).  */
/* gca_unwind_guess_put then records it (frames: the site's own copy)   */
/* if the last walk allows (a frame-pointer walk, its frames checked    */
/* against the code list the table is for).  max: 1 to 64.              */
#define GCA_UNW_GUESS_LOG 5
struct gca_unw_guess {
  word ra0;
  const word *frames;
  unsigned n, id;
  word end;         /* the non-code address the walk ended at, else 0  */
};
struct gca_unw_guesses {
  const void *code;             /* the code list the guesses were checked */
  int fill;                     /* may the last walk's stack be recorded? */
  unsigned n;                   /* the last walk's frame count            */
  word end;                     /* the last walk's end (as guess.end)     */
  struct gca_unw_guess *put;    /* the last walk's slot                   */
  struct gca_unw_guess g[1 << GCA_UNW_GUESS_LOG];
};
#if !defined(GCA_AMALGAM) || !(defined(__GNUC__) || defined(__clang__))
  GC_INNER const struct gca_unw_guess *gca_unwind_guessed(
                struct gca_unw_guesses *t, word *frames, unsigned max);
#endif
GC_INNER void gca_unwind_guess_put(struct gca_unw_guesses *t,
                                   const word *frames, unsigned n,
                                   unsigned id);
/* Functions of the allocation path above unwind.c (hooks.c names them  */
/* at GC_init), which mark the collector's code when it shares a module.*/
#define GCA_N_CODE_ANCHORS 12
struct gca_code_anchors {
  void (*fn[GCA_N_CODE_ANCHORS])(void);
};
GC_INNER void gca_unwind_set_anchors(const struct gca_code_anchors *a);

/* ---- type cookies and object tags (types.c, tags.c) ------------------ */
/* Per-slot tags of every in-use heap block, in a table the block's      */
/* header points to (hblkhdr.hb_acc, patch 0002).  A tag is 32 bits: a   */
/* pair id (an interned (type cookie, site id) pair; 0 = untagged) in    */
/* the top 24, an OLD bit, and the collection number at allocation       */
/* modulo 128 (tags.c explains why 7 bits suffice).                      */
#define GCA_MAX_PAIRS ((1u << 24) - 1)
#define GCA_AGE_BINS 7          /* ages 0, 1, 2-3, 4-7, 8-15, 16-31, 32+ */
#define GCA_AGE_OLD 32
/* Where a type cookie came from (its default name says so).            */
#define GCA_TYPE_EXPLICIT 1     /* GC_acc_set_next_type, *_typed        */
#define GCA_TYPE_GCJ 2          /* gcj kind: the vtable at word 0       */
#define GCA_TYPE_FIRST_WORD 3   /* "first word is the type" kinds       */
#define GCA_TYPE_IL2CPP 4       /* il2cpp mode: a validated Il2CppClass */
#define GCA_TYPE_UNKNOWN 5      /* il2cpp mode: word 0 of a kind, not a */
                                /* class (cookie: gca_class_unknown)    */
/* GC_ACC_TYPES (tags.c): how word 0 becomes a type.                    */
#define GCA_TYPES_COOKIES 0     /* opaque cookies (the default)         */
#define GCA_TYPES_IL2CPP 1      /* IL2CPP classes, validated and named  */

/* classes.c: IL2CPP's classes, read without faulting (lock held).      */
/* gca_peek: copy n bytes at addr into buf if all are readable now;     */
/* 0 (nothing faulted) if not.  gca_class_valid: k is an Il2CppClass    */
/* (its self-pointer field holds k).  gca_class_name: "Namespace.Name"  */
/* of class k into buf (0: not a readable class).  gca_class_unknown:   */
/* the cookie of "unknown (<kind>)"; gca_class_unknown_name names it    */
/* (0: cookie is no such cookie); gca_class_set_kind_name names a kind  */
/* (a static string) for it.  gca_class_statics: class k's static      */
/* fields' block, declaring type and parent (0: k is no class).          */
GC_INNER int gca_peek(void *buf, word addr, size_t n);
GC_INNER int gca_class_statics(word k, word *statics, word *declaring,
                               word *parent);
GC_INNER int gca_class_valid(word k);
GC_INNER int gca_class_name(word k, char *buf, size_t sz);
GC_INNER word gca_class_unknown(unsigned kind);
GC_INNER int gca_class_unknown_name(word cookie, char *buf, size_t sz);
GC_INNER void gca_class_set_kind_name(unsigned kind, const char *name);

/* samples.c: the sampled object profile.  gca_samples_take: a hook   */
/* found the thread's countdown (gca_sample_left) below zero after p,  */
/* of granules granules; any lock state.  gca_samples_note_next:        */
/* GC_acc_set_next_type was called (the type goes to the next object   */
/* only).  gca_samples_list: a GC_malloc_many list's objects, counted   */
/* down one by one.  The rest: lock held.                               */
struct gca_sample;
#define GCA_SAMPLE_DEFAULT_BYTES ((word)512 << 10)
GC_EXTERN word gca_sample_bytes;
GC_INNER void gca_samples_set_rate(word bytes);     /* 0: the default   */
GC_INNER void gca_samples_new_epoch(void);
GC_INNER void gca_samples_take(void *p, size_t lb, word granules, int k);
/* The countdowns by objects: the thread-local lists' (counters_tl.c,  */
/* "the lists' countdowns") and the lock-held rows' (counters_due.c,    */
/* "the rows' countdowns").  One ran out at a pop of granted bytes, at  */
/* its sample point (real) or made due; is that pop a sample?  *next   */
/* the pops, the next one first, to the countdown's next sample point   */
/* (its objects of list_granted bytes), 0 if none within GCA_TL_CAP     */
/* pops.  gca_samples_countdown_take records the sample (no explicit    */
/* type: counters_due.c drops one).                                     */
GC_INNER int gca_samples_countdown_due(int real, word granted,
                                       word list_granted, word *next);
GC_INNER void gca_samples_countdown_take(void *p, size_t lb, word granted,
                                         int k);
GC_INNER void gca_samples_note_next(void);
GC_INNER void gca_samples_list(void *list, word granted, int k);
GC_INNER void gca_samples_free(void *p);            /* GC_free          */
GC_INNER void gca_samples_mark_begin(void);
/* The frame's samples whose type word 0 names: their frame counts      */
/* moved to that type (lock held, after gca_frames_take_threads).       */
GC_INNER void gca_samples_frame_types(void);
GC_INNER void gca_samples_census(void);
GC_INNER void gca_samples_reset(void);
GC_INNER void gca_samples_thread_exit(void);
GC_INNER word gca_samples_memory_bytes(void);
GC_INNER void gca_samples_stats(word *taken, word *dropped, word *tracked);

/* tags.c.  gca_tags_alloc: any thread; locked says whether the caller  */
/* holds the allocation lock (frame counts are exact then).  The rest:  */
/* lock held.                                                            */
GC_INNER void gca_tags_alloc(struct gca_tl *me, void *p, hdr *hhdr,
                             word granted, int locked);
/* The same without the lock, from the thread-local fast path; returns */
/* p, for the caller's tail call.                                       */
GC_INNER void *gca_tags_alloc_tl(struct gca_tl *me, void *p, word granted);

GC_INNER void gca_tags_alloc_list(struct gca_tl *me, void *list,
                                  word granted);
GC_INNER GC_ATTR_NOINLINE void gca_tags_hblk_alloc(struct hblk *h,
                                                   hdr *hhdr);
GC_INNER GC_ATTR_NOINLINE void gca_tags_hblk_free(struct hblk *h,
                                                  hdr *hhdr);
GC_INNER void gca_tags_free(void *p);            /* GC_free              */
GC_INNER void gca_tags_reset_all(int first);     /* on enable            */
/* The census of the tags (census.c drives it, one visit per block).    */
GC_INNER void gca_tags_census_begin(void);
GC_INNER void gca_tags_census_block(struct hblk *h, hdr *hhdr);
GC_INNER void gca_tags_census_end(void);
GC_INNER word gca_tags_memory_bytes(void);       /* mapped for tables    */
GC_INNER word gca_tags_in_use_bytes(void);       /* in live tables       */
GC_INNER int gca_tags_of(void *p, word *cookie, unsigned *site);
#define GCA_TAGS_PAIRS_MAX 13           /* a block's palette (TAB_PAL)  */
GC_INNER int gca_tags_block_pairs(hdr *hhdr, unsigned *pairs, int *untagged);
/* GC_ACC_TAGS / GC_acc_set_tags: nonzero (the default) while objects   */
/* get tags (types, callsites, ages, frames); read racily by the hooks. */
GC_EXTERN int gca_tags_on;
/* gca_hblk_hooks (gca_hooks.h) from what it stands for, lock held:     */
/* whenever gca_track_heap, gca_tags_on or gca_hblk_unmet_pending       */
/* change (base.c).                                                      */
GC_EXTERN int gca_hblk_unmet_pending;
GC_INNER void gca_hblk_hooks_update(void);


/* Per-pair accumulators (types.c): the census, GC_free and block frees */
/* count into a flat array indexed by pair id; gca_types_fold adds them */
/* into the type and site rows (once per record or API read, not per   */
/* object).  Lock held.                                                  */
/* An age bin's count (of an accumulator or a row) is 32 bits: a count */
/* past them carries into a table of the high parts, made at the first  */
/* carry (2^32 live objects of one pair or row: 64 GiB of 16-byte       */
/* objects).  Words were a third of the rows' and accumulators' bytes: */
/* under trace on Guile's alloc.scm, 2.9 MB of 16-byte objects and 224  */
/* callsites, 20 KiB (issue 33).  The live objects are the sum of the  */
/* bins, not a count of their own.  The test library's low parts can be */
/* narrower (GC_acc_test_age_bits), so that tests carry.                */
typedef unsigned gca_age_t;
#ifdef GCA_TEST_API
  GC_EXTERN unsigned gca_age_lo_bits;
# define GCA_AGE_LO_BITS gca_age_lo_bits
#else
# define GCA_AGE_LO_BITS 32u
#endif
/* The high and low parts of a count v, and the count of lo and hi     */
/* (shifts in two steps: a 32-bit word by 32 is undefined).             */
#define GCA_AGE_HI(v) ((word)(v) >> (GCA_AGE_LO_BITS - 1) >> 1)
#define GCA_AGE_JOIN(lo, hi) \
        ((word)(lo) + ((word)(hi) << (GCA_AGE_LO_BITS - 1) << 1))
#define GCA_AGE_LO(v) ((gca_age_t)((word)(v) - GCA_AGE_JOIN(0, GCA_AGE_HI(v))))
struct gca_acc {
  unsigned stamp;               /* == gca_acc_stamp: in use this round   */
  gca_age_t age[GCA_AGE_BINS];  /* the live objects: their sum           */
  word live_bytes;
  word alloc_objs, alloc_bytes;
  word freed_objs, freed_bytes;
};
/* The samples' counts of an accumulator (the sampled profile's), in a  */
/* table of their own made at the first sample: 24 of 148 bytes a pair */
/* that stayed 0 under full and trace (issue 33).                        */
struct gca_acc_smp {
  word s_live, s_alloc, s_freed;
};
/* Those of pair's accumulator, which gca_acc_get gave; NULL if no    */
/* memory.  Lock held.                                                   */
GC_INNER struct gca_acc_smp *gca_acc_samples(unsigned pair);
GC_EXTERN struct gca_acc *gca_acc_tab;
GC_EXTERN word gca_acc_cap;
/* The round's stamp, 32 bits: when it wraps every accumulator's is   */
/* cleared (gca_types_fold).                                             */
GC_EXTERN unsigned gca_acc_stamp;
GC_INNER void gca_acc_restamp(unsigned stamp);
GC_INNER struct gca_acc *gca_acc_slow(unsigned pair);   /* NULL: no memory */
GC_INLINE struct gca_acc *gca_acc_get(unsigned pair)
{
  struct gca_acc *a;

  if (EXPECT(pair >= gca_acc_cap, FALSE)) return gca_acc_slow(pair);
  a = &gca_acc_tab[pair];
  if (EXPECT(a->stamp != gca_acc_stamp, FALSE)) return gca_acc_slow(pair);
  return a;
}
/* n live objects in age bin b of a, pair's accumulator; the high part */
/* of a count past GCA_AGE_LO_BITS carried (gca_acc_age_carry).         */
GC_INNER void gca_acc_age_carry(unsigned pair, unsigned b, word hi);
GC_INLINE void gca_acc_age_add(struct gca_acc *a, unsigned pair, unsigned b,
                               word n)
{
  word v = (word)a->age[b] + n;

  a->age[b] = GCA_AGE_LO(v);
  if (EXPECT(GCA_AGE_HI(v) != 0, FALSE))
    gca_acc_age_carry(pair, b, GCA_AGE_HI(v));
}
GC_INNER void gca_types_fold(void);
/* Live old objects (age 32+) per pair, kept incrementally (pairs.c):   */
/* add when an object turns old (0: no memory, leave it not old), sub  */
/* when an old object dies; census_old (types.c) adds them into the    */
/* census.  gca_old_first: the pairs that may have some (old_next).    */
GC_EXTERN unsigned gca_old_first;
GC_INNER int gca_old_add(unsigned pair, word bytes);
GC_INNER void gca_old_sub(unsigned pair, word bytes);
GC_INNER void gca_old_reset(void);
GC_INNER void gca_types_census_old(void);

/* pairs.c: (cookie, site) pairs, any thread.                          */
struct gca_pair {
  word cookie;
  unsigned site;
  unsigned type;        /* type id, 0 until interned (lock held)        */
  unsigned char origin; /* GCA_TYPE_* of the cookie                     */
  unsigned char old_listed;       /* on types.c's list of old pairs     */
  unsigned old_next;              /* the next pair on that list, or 0   */
  unsigned frame_row;   /* frames.c: its counts since the last marker, */
                        /* that row + 1, or 0 (lock held)               */
  word old_objs, old_bytes;       /* live in the oldest age bin, lock   */
};
GC_INNER struct gca_pair *gca_pair_get(unsigned id);
GC_INNER unsigned gca_pair_count(void);   /* ids 1..count are in use    */
GC_INNER unsigned gca_pair_intern(word cookie, unsigned site, int origin);
/* The same through the thread's pair cache (2048 entries, direct-   */
/* mapped, in its frame table); *ent: the pair's frame-count entry of */
/* this thread (NULL if none).  Any thread, lock not needed.            */
GC_INNER unsigned gca_pair_intern_tl(struct gca_tl *me, word cookie,
                                     unsigned site, int origin,
                                     struct frame_tl_ent **ent);
GC_INNER word gca_pair_cookie(unsigned pair);
GC_INNER unsigned gca_pair_site(unsigned pair);
/* The pair (no type, site), or 0 if there is none yet: any thread     */
/* (gca_pair_untyped, below the atomic helpers; gca_pair_plain[site]   */
/* for sites NONE and UNSAMPLED).                                        */
#define GCA_PSITE_CHUNK_LOG 10
#define GCA_PSITE_N_CHUNKS 257u /* sites.c's 2^18 sites and a few more  */
GC_EXTERN unsigned **gca_pair_by_site;
GC_EXTERN unsigned gca_pair_plain[GCA_SITE_UNSAMPLED + 1];
GC_INNER unsigned gca_pair_type(unsigned pair);
/* objtype.c: an object's type, from the explicit next type or word 0. */
/* Settings: the "first word is the type" kinds, GC_ACC_TYPES.            */
GC_INNER void gca_objtype_set_next(word cookie);   /* this thread         */
GC_INNER word gca_objtype_take_next(void);
GC_INNER void gca_objtype_set_first_word_kinds(unsigned mask);
GC_INNER GCA_MAYBE_UNUSED unsigned gca_objtype_first_word_kinds(void);
/* GC_ACC_TYPES: GCA_TYPES_COOKIES or GCA_TYPES_IL2CPP; lock held (or  */
/* at GC_init).  Clears the cache of resolved words.                    */
GC_INNER void gca_objtype_set_mode(int mode);
GC_INNER GCA_MAYBE_UNUSED int gca_objtype_mode(void);
/* The registration point for kinds whose objects start with their     */
/* class besides PTRFREE, NORMAL and gcj, which il2cpp mode always     */
/* reads: Unity's gcj-vector kind (vector_mlc.c), once the kind exists. */
/* name (a static string) names its "unknown (<name>)" type.  Lock     */
/* held.                                                                 */
GC_INNER void gca_objtype_add_class_kind(unsigned kind, const char *name);
/* Does word 0 of objects of kind k name their type?  0 if not, else   */
/* how (for gca_objtype_resolve).                                       */
GC_INNER int gca_objtype_how(unsigned k);
GC_INNER void gca_objtype_heap_grew(void);          /* lock held        */
GC_INNER word gca_objtype_memory_bytes(void);
/* What gca_objtype_resolve found, direct-mapped by (word 0, the pair   */
/* the object is counted under, how) (objtype.c says why); lock held.   */
/* 2^13 entries with per-object tags (a census resolves every object), */
/* 2^9 for samples.                                                       */
#define GCA_OBJTYPE_LOG 13
#define GCA_OBJTYPE_LOG_SAMPLES 9
struct gca_objtype_ent {
  word cookie;                  /* word 0                               */
  unsigned key;                 /* pair | how << 24 (GCA_OBJTYPE_KEY)    */
  unsigned pair;                /* resolved; 0: empty                   */
};
/* Pairs take 24 bits (GCA_MAX_PAIRS), how 8: a key is never 0.          */
#define GCA_OBJTYPE_KEY(pair, how) ((unsigned)(pair) | (unsigned)(how) << 24)
GC_EXTERN struct gca_objtype_ent *gca_objtype_cache;   /* NULL: none yet */
GC_EXTERN unsigned gca_objtype_shift;   /* CPP_WORDSZ - its log        */
GC_INLINE struct gca_objtype_ent *gca_objtype_slot(word w, unsigned key)
{
  /* The key is spread over the word first: keys that differ in a few   */
  /* bits would otherwise move whole families of words 0 by a constant, */
  /* onto each other's slots.                                            */
  word h = (w ^ (word)key * (word)0xBF58476D1CE4E5B9ULL)
           * (word)0x9E3779B97F4A7C15ULL;

  return &gca_objtype_cache[h >> gca_objtype_shift];
}
/* What the cache has for word 0 w under key (GCA_OBJTYPE_KEY): the    */
/* resolved pair, or 0 if it has nothing (or there is no cache).         */
GC_INLINE unsigned gca_objtype_cached(word w, unsigned key)
{
  const struct gca_objtype_ent *e;

  if (EXPECT(NULL == gca_objtype_cache, FALSE)) return 0;
  e = gca_objtype_slot(w, key);
  return EXPECT(e->cookie == w && e->key == key, TRUE) ? e->pair : 0;
}
GC_INNER unsigned gca_objtype_resolve_slow(unsigned pair, int how, word w,
                                           unsigned key);
/* The pair of an object of a resolvable kind (how) now counted under   */
/* pair, with its type read from word 0 if the pair has none yet: the   */
/* same pair while word 0 says nothing.  The cache first: only pairs    */
/* with no type are ever cached.  Lock held, obj live.                  */
GC_INLINE unsigned gca_objtype_resolve(unsigned pair, int how, ptr_t obj)
{
  word w = *(word *)obj;
  unsigned key = GCA_OBJTYPE_KEY(pair, how), np;

  if (0 == w) return pair;                      /* nothing yet          */
  np = gca_objtype_cached(w, key);
  return EXPECT(np != 0, TRUE) ? np
                               : gca_objtype_resolve_slow(pair, how, w, key);
}

GC_INNER unsigned gca_age_bin(word age);
GC_INNER void gca_types_census_begin(void);
/* frames.c.  gca_frames_count: any thread (locked: the caller holds   */
/* the allocation lock); the rest, lock held.                            */
GC_INNER void gca_frames_count(struct gca_tl *me, unsigned pair,
                               word objs, word bytes, int locked);
/* Nonzero once GC_acc_frame was first called (frames.c).               */
GC_EXTERN int gca_frames_on;
GC_INNER void gca_frames_move(unsigned from, unsigned to, word objs,
                              word bytes);
GC_INNER int gca_frames_begin(void);    /* 0 on the first marker        */
GC_INNER void gca_frames_take_threads(void);
GC_INNER unsigned gca_frames_n_rows(void);
GC_INNER unsigned gca_frames_row_pair(unsigned i);
GC_INNER void gca_frames_row(unsigned i, word v[GCA_NCOLS_frame_rows]);
GC_INNER void gca_frames_lost(word *objs, word *bytes);
GC_INNER void gca_frames_reset(void);
GC_INNER void gca_frames_thread_exit(void);
GC_INNER void gca_types_set_namer(GC_acc_type_namer_proc fn);
GC_INNER int gca_types_get_type(word cookie, struct GC_acc_group_stats_s *s);
GC_INNER int gca_types_get_site(unsigned site, struct GC_acc_group_stats_s *s);
GC_INNER word gca_types_memory_bytes(void);
/* For the record (lock held): the next type not yet defined in the     */
/* dump, named (0 when none is left); the number of type (sites 0) or   */
/* site rows; row i as a dump row in v if it changed since the last     */
/* record (nonzero; then marked sent).                                   */
GC_INNER unsigned gca_types_def_next(word *cookie, const char **name);
GC_INNER unsigned gca_types_rows_n(int sites);
GC_INNER word gca_types_row_ages(int sites, unsigned i, word *old);
/* retain.c's: a type's name by cookie (NULL: no such type), and the    */
/* cookies of the types of a name (at most max; their count).           */
GC_INNER const char *gca_types_name_of(word cookie);
GC_INNER unsigned gca_types_named(const char *name, word *out, unsigned max);
GC_INNER unsigned gca_types_count(void);
GC_INNER word gca_types_live_of(unsigned id, word *cookie, word *samples);
GC_INNER word gca_types_site_live_of(unsigned site, word *samples);
/* retain.c: a pending request answered at this collection's end (lock */
/* held, after the record); the settings.                               */
GC_INNER void gca_retain_collection_end(void);
/* retain_req.c: at mark begin, whether the marking records parents;   */
/* retain_mark.c: the recording (gca_mark_from_fn: gca_hooks.h).        */
GC_INNER void gca_retain_mark_begin(void);
GC_INNER void gca_rmark_begin(void);
GC_INNER void gca_rmark_end(int done);
GC_INNER void gca_rmark_release(void);
GC_INNER void gca_rmark_stop(void);
GC_INNER int gca_rmark_ready(void);
GC_INNER word gca_rmark_bytes(void);
GC_INNER word gca_rmark_noted(void);
GC_INNER word gca_rmark_source(word base);
GC_INNER int gca_retain_env(const char *s);     /* lock NOT held      */
GC_INNER void gca_retain_set_memory(size_t bytes);
GC_INNER word gca_retain_memory(void);
GC_INNER void gca_retain_set_pause(unsigned ms);  /* 0: the default */
GC_INNER unsigned gca_retain_pause(void);
GC_INNER word gca_retain_requests(void);
/* A request (a type's name, or its cookie if name is NULL), answered   */
/* at the first                                                          */
/* collection numbered at least at_gc (0: the next), or with           */
/* GCA_RETAIN_WAIT at the first after which has counted the type; with  */
/* GCA_RETAIN_SITE the instances are those of callsite cookie.  0 if    */
/* malformed.  Lock held.  gca_retain_walk: one answer (is_auto: 1     */
/* auto's, 2 a callsite's).                                              */
#define GCA_RETAIN_NAME_MAX 256
#define GCA_RETAIN_MIN_MEMORY ((word)64 << 10)
#define GCA_RETAIN_WAIT 1       /* the environment's: until counted   */
#define GCA_RETAIN_SITE 2       /* cookie is a callsite id            */
GC_INNER int gca_retain_set(const char *name, word cookie, word at_gc,
                            int flags);
GC_INNER void gca_retain_walk(const char *name, word cookie,
                              const word *cookies, unsigned n, int is_auto);
GC_INNER void gca_retain_auto_collection_end(void);
/* GC_ACC_RETAIN=auto: at the dump's stop (GC_acc_dump_stop, or exit), */
/* the types and the callsites that gcacc leaks would name, judged on   */
/* every census since the request.  gca_retain_at_stop: lock NOT held.  */
GC_INNER void gca_retain_set_auto(int on);
GC_INNER void gca_retain_at_stop(void);
GC_INNER int gca_types_row_take(int sites, unsigned i,
                                word v[GCA_NCOLS_type_rows]);
/* The rows taken went into a record the writer accepted: they become  */
/* the base of the next deltas (a dropped record's stay in the next).  */
GC_INNER void gca_types_rows_commit(int sites);
GC_INNER unsigned gca_types_def_mark(void);
GC_INNER void gca_types_def_rewind(unsigned mark);
GC_INNER word gca_counters_memory_bytes(void);

/* ---- settings (env.c) ------------------------------------------------- */
GC_INNER void gca_env_read(void);
/* The largest number a setting may have: the reader (tools/gcacc,       */
/* jansson's json_int_t) refuses a header integer above 2^63 - 1, and a  */
/* setting is written there (gca_settings.h's K rows), so no setting of  */
/* bytes goes beyond it, nor beyond a word.                               */
#define GCA_JSON_INT_MAX 0x7fffffffffffffffULL
#define GCA_SETTING_MAX_BYTES \
  ((unsigned long long)GC_WORD_MAX < GCA_JSON_INT_MAX \
   ? (unsigned long long)GC_WORD_MAX : GCA_JSON_INT_MAX)
/* Nonzero if v bytes is a setting's number (a function, not an         */
/* expression: on 32-bit targets a size_t always is, and a compiler     */
/* would say so of a comparison in place).                                */
GC_INLINE int gca_setting_bytes_ok(unsigned long long v)
{
  return v <= GCA_SETTING_MAX_BYTES;
}
/* One warning for a value an API function refused (it returns         */
/* GC_ERROR): "gcacc: fn(value) refused: expected EXPECTED MAX; setting  */
/* kept" (MAX left out if 0).                                             */
GC_INNER void gca_env_warn_api(const char *fn, unsigned long long value,
                               const char *expected, unsigned long long max);

/* counters.c: sets gca_tl_mode (gca_hooks.h) after gca_on or          */
/* gca_tags_on changed; lock held.                                       */
GC_INNER void gca_tl_mode_update(void);
/* tlflags.c: incremental collection may start (gca_hook_incremental): */
/* GC_gcj_malloc's copy without the test of GC_incremental runs no more.*/
GC_INNER void gca_tlflags_incremental(void);
/* tlflags.c: the unwinder changed (lock held): GC_generic_malloc's     */
/* copy of mode 1 without the frame record runs only while sampled      */
/* stacks are taken by the tables (gca_sites_sampled_by_tables).        */
GC_INNER void gca_tlflags_unwinder_changed(void);
/* sites.c: nonzero if a sampled stack is now taken by the unwind       */
/* tables (GC_ACC_UNWIND auto where the C library allows it, libgcc),   */
/* which need no frame records; 0 if by the frame-pointer walk.         */
GC_INNER int gca_sites_sampled_by_tables(void);
/* tlflags.c: GC_acc_set_next_type was called: mode 1 runs the flags'  */
/* copy of the thread-local fast paths from now on (gca_tl_typed, set   */
/* once; takes the allocation lock).                                     */
GC_EXTERN int gca_tl_typed;
GC_INNER void gca_tlflags_typed(void);
/* counters.c: the table block was just made (lock held).               */
GC_INNER void gca_counters_tables_ready(void);
/* counters.c: nonzero once gca_tl_mode was 1 (the locked rows may hold */
/* counts); lock held.                                                  */
GC_EXTERN int gca_locked_rows_used;


/* Relaxed single-word load/store: a reader on another thread sees a      */
/* whole value, never a torn one; no read-modify-write is ever emitted.   */
#if defined(__GNUC__) || defined(__clang__)
# define GCA_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
# define GCA_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#elif defined(_MSC_VER)
  /* Aligned accesses of up to a word are single instructions; the     */
  /* barriers keep the compiler from caching or merging them.  (A cast  */
  /* to a volatile word would read and write 8 bytes of a 4-byte int.)  */
# include <intrin.h>
# define GCA_LOAD(p) (_ReadWriteBarrier(), *(p))
# define GCA_STORE(p, v) (void)(_ReadWriteBarrier(), *(p) = (v), \
                                _ReadWriteBarrier())
#else
# define GCA_LOAD(p) (*(p))
# define GCA_STORE(p, v) (void)(*(p) = (v))
#endif
/* A relaxed add (counts updated under different locks); and the        */
/* acquire/release pairs that publish table entries and pointers.      */
#if defined(__GNUC__) || defined(__clang__)
# define GCA_ADD(p, v) (void)__atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
# define ACQ_LOAD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
# define REL_STORE32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
# define ACQ_LOADP(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
# define REL_STOREP(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
# define GCA_ADD(p, v) (void)(*(p) += (v))
# define ACQ_LOAD32(p) (*(volatile unsigned *)(p))
# define REL_STORE32(p, v) (void)(*(volatile unsigned *)(p) = (v))
# define ACQ_LOADP(p) (*(p))
# define REL_STOREP(p, v) (void)(*(p) = (v))
#endif

/* pairs.c's untyped pair of a site (declared with the pairs).          */
GC_INLINE unsigned gca_pair_untyped(unsigned site)
{
  unsigned **top = ACQ_LOADP(&gca_pair_by_site);
  unsigned *c;

  if (site <= GCA_SITE_UNSAMPLED) return GCA_LOAD(&gca_pair_plain[site]);
  if (EXPECT(NULL == top
             || (site >> GCA_PSITE_CHUNK_LOG) >= GCA_PSITE_N_CHUNKS, FALSE))
    return 0;
  c = ACQ_LOADP(&top[site >> GCA_PSITE_CHUNK_LOG]);
  if (EXPECT(NULL == c, FALSE)) return 0;
  return GCA_LOAD(&c[site & ((1u << GCA_PSITE_CHUNK_LOG) - 1)]);
}

/* A word hash of (cookie, site), for the pair and type tables.         */
GC_INLINE word gca_hash(word cookie, unsigned site)
{
  word h = cookie * (word)0x9E3779B97F4A7C15ULL ^ ((word)site * 0x85EBCA6Bu);

  h ^= h >> 29;
  h *= (word)0xBF58476D1CE4E5B9ULL;
  h ^= h >> GCA_HALF_WORDSZ;
  return h;
}

#endif /* !GC_ACC_DISABLE */

#endif /* GCA_PRIV_H */
