/* SPDX-License-Identifier: MIT */
/*
 * base.c: the services every accounting module stands on.
 *
 * The bottom of accounting's layers (docs/design.md, "Layers"): OS pages
 * for our tables (never the GC heap), the clock, the block of large tables
 * taken when accounting first goes on, the allocation path's one
 * thread-local struct, and the switches the hooks read.  It calls nothing
 * of accounting's own; every other module may call it.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <stdio.h>
#include <time.h>
#include <unistd.h>
#if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
# include <windows.h>
#else
# include <sys/mman.h>
#endif

/* ---- switches (gca_hooks.h) ---------------------------------------------- */
GC_INNER int gca_on = 0;
GC_INNER int gca_track_heap = 0;
GC_INNER int gca_tl_mode = 0;
GC_INNER int gca_tags_on = 0;           /* the full profile's tags */
GC_INNER int gca_hblk_hooks = 0;
/* A request no free block met, until a block is handed out (hooks.c): */
/* the block hook's inline part (gca_hooks.h) calls gca_hook_hblk_alloc */
/* only then or with tags.                                                */
GC_INNER int gca_hblk_unmet_pending = 0;
static int hblk_tags_were_on = 0;

GC_INNER void gca_hblk_hooks_update(void)
{
  if (gca_tags_on) hblk_tags_were_on = 1;
  gca_hblk_hooks = !gca_track_heap ? 0
        : GCA_HBLK_TRACK
          | (gca_tags_on || gca_hblk_unmet_pending ? GCA_HBLK_CALL : 0)
          | (hblk_tags_were_on ? GCA_HBLK_TABLES : 0);
}
GC_INNER int gca_profile = GCA_PROFILE_SAMPLED;
GC_INNER unsigned gca_gcj_kinds = 0;
GC_INNER word gca_collections = 0;
GC_INNER word gca_heap_grows = 0;

/* ---- the thread-local struct of the allocation path ------------------- */
GC_INNER GCA_TLS_FAST struct gca_tl gca_tl_self;

/* ---- random draws for sampling ------------------------------------------ */
/* xorshift64* (64-bit state on every word size: a 32-bit word would     */
/* truncate its shifts and constants).                                   */
GC_INNER unsigned long long gca_rng_next(unsigned long long *st)
{
  unsigned long long x = *st;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *st = x;
  return x * 0x2545F4914F6CDD1DULL;
}

GC_INNER void gca_rng_seed(unsigned long long *st)
{
  static volatile word seq = 0;
  unsigned long long s = (unsigned long long)gca_now_ns()
        ^ ((unsigned long long)(word)st * 0x9E3779B97F4A7C15ULL)
        ^ ((unsigned long long)__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)
           * 0xBF58476D1CE4E5B9ULL);

  *st = s != 0 ? s : 1;
  (void)gca_rng_next(st);
}

/* No libm (embedders' links, the IL2CPP one among them, may lack      */
/* -lm): the two functions sampling needs, to about 1e-12.               */

/* -ln(u), 0 < u <= 1: u = m 2^e with m in [1, 2); ln m = 2 atanh(t),   */
/* t = (m - 1) / (m + 1) <= 1/3: the series' first 13 terms, t^(2k+1)  */
/* / (2k+1) for k < 13, by Horner's rule in t^2 on their reciprocals    */
/* (no division a term: a third of a sample's instructions went to    */
/* them).  The terms and so the truncation are the earlier loop's; only  */
/* the rounding differs, by an ulp or two (tests/unit/test_sample_math  */
/* draws the same countdowns as the loop did).                          */
static double base_neg_log(double u)
{
  union { double d; unsigned long long b; } v;
  double m, t, t2, p;
  int e;

  v.d = u;
  e = (int)((v.b >> 52) & 0x7ff) - 1023;
  v.b = (v.b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  m = v.d;
  t = (m - 1) / (m + 1);
  t2 = t * t;
  p = 1.0 / 25;
  p = p * t2 + 1.0 / 23;
  p = p * t2 + 1.0 / 21;
  p = p * t2 + 1.0 / 19;
  p = p * t2 + 1.0 / 17;
  p = p * t2 + 1.0 / 15;
  p = p * t2 + 1.0 / 13;
  p = p * t2 + 1.0 / 11;
  p = p * t2 + 1.0 / 9;
  p = p * t2 + 1.0 / 7;
  p = p * t2 + 1.0 / 5;
  p = p * t2 + 1.0 / 3;
  p = p * t2 + 1;
  return -(e * 0.69314718055994530942 + 2 * (t * p));
}

GC_INNER double gca_one_minus_exp_neg(double x)
{
  double sum = 0, term = x, r, e;
  int k, n;

  if (x < 0.5) {                /* x - x^2/2! + x^3/3! - ...             */
    /* Up to 16 terms; it stops at the first below 2^-55 of the sum:   */
    /* that one and the smaller ones after it are under half the        */
    /* sum's ulp, so adding them left the sum as it was (same result,   */
    /* bit for bit; a sample's x is some 1e-4: 5 terms, not 16).        */
    for (k = 1; k <= 16; k++) {
      sum += term;
      term *= -x / (k + 1);
      if ((term < 0 ? -term : term) < sum * 0x1p-55) break;
    }
    return sum;
  }
  if (x > 60) return 1;
  n = (int)(x / 0.69314718055994530942);      /* exp(-x) = 2^-n e^-r  */
  r = x - n * 0.69314718055994530942;         /* 0 <= r < ln 2         */
  e = 1;
  term = 1;
  for (k = 1; k <= 20; k++) {
    term *= -r / k;
    e += term;
  }
  while (n-- > 0) e *= 0.5;
  return 1 - e;
}

GC_INNER double gca_rng_unit(unsigned long long *st)
{
  return ((double)(gca_rng_next(st) >> 11) + 1.0)
         * (1.0 / 9007199254740992.0);              /* (0, 1]          */
}

GC_INNER signed_word gca_rng_exp(unsigned long long *st, word mean)
{
  /* At most a quarter of the word's range, so that a countdown that   */
  /* starts there never wraps.                                          */
  double lim = (double)(~(word)0 >> 3);
  double d = base_neg_log(gca_rng_unit(st)) * (double)mean;

  return d >= lim ? (signed_word)lim : (signed_word)d;
}

/* ---- the dump's key frames (a setting, read by record.c) -------------- */
static unsigned base_keyframe_every = GCA_KEYFRAME_DEFAULT;

GC_INNER void gca_dump_set_keyframe(unsigned every)
{
  if (every < 1) every = 1;
  if (every > GCA_KEYFRAME_MAX) every = GCA_KEYFRAME_MAX;
  GCA_STORE(&base_keyframe_every, every);
}

GC_INNER unsigned gca_dump_keyframe(void)
{
  return GCA_LOAD(&base_keyframe_every);
}

/* ---- the side tables' cap --------------------------------------------- */
static word base_table_limit = GCA_TABLE_LIMIT_DEFAULT;
static volatile int base_limit_said = 0;

GC_INNER word gca_table_limit(void)
{
  return GCA_LOAD(&base_table_limit);
}

GC_INNER void gca_table_set_limit(size_t bytes)
{
  GCA_STORE(&base_table_limit, bytes != 0 ? (word)bytes
                                          : GCA_TABLE_LIMIT_DEFAULT);
}

GC_INNER void gca_table_limit_reached(const char *what, word n)
{
  char msg[256];
  int len;

  if (__atomic_exchange_n(&base_limit_said, 1, __ATOMIC_RELAXED)) return;
  len = snprintf(msg, sizeof(msg), "gcacc: the side tables reached"
                 " GC_ACC_TABLE_LIMIT (%lu bytes): %lu %s dropped so far,"
                 " more will be; records count them (raise the limit to"
                 " keep them)\n", (unsigned long)gca_table_limit(),
                 (unsigned long)n, what);
  if (len > 0) {
    ssize_t w = write(2, msg, (size_t)len < sizeof(msg) ? (size_t)len
                                                        : sizeof(msg) - 1);
    (void)w;
  }
}

/* ---- OS pages ------------------------------------------------------------ */

GC_INNER void *gca_os_alloc(size_t bytes)
{
# if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
    return VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE,
                        PAGE_READWRITE);
# else
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANON, -1, 0);
    return p == MAP_FAILED ? NULL : p;
# endif
}

GC_INNER void gca_os_free(void *p, size_t bytes)
{
  if (NULL == p) return;
# if defined(MSWIN32) || defined(MSWINCE) || defined(CYGWIN32)
    (void)bytes;
    VirtualFree(p, 0, MEM_RELEASE);
# else
    (void)munmap(p, bytes);
# endif
}

/* Pages taken for an owner's tables, counted as the OS gives them:    */
/* whole pages.  The counts may be updated from threads holding         */
/* different locks (a pair's spin lock, the allocation lock): atomic.    */
GC_INNER word gca_mem_bytes[GCA_MEM_N] = { 0 };

#define MEM_PAGES(bytes) (((word)(bytes) + 4095) & ~(word)4095)

GC_INNER void *gca_mem_alloc(unsigned owner, size_t bytes)
{
  void *p = gca_os_alloc(bytes);

  if (p != NULL) GCA_ADD(&gca_mem_bytes[owner], MEM_PAGES(bytes));
  return p;
}

GC_INNER void gca_mem_free(unsigned owner, void *p, size_t bytes)
{
  if (NULL == p) return;
  gca_os_free(p, bytes);
  GCA_ADD(&gca_mem_bytes[owner], (word)0 - MEM_PAGES(bytes));
}

#if defined(MREMAP_MAYMOVE) && !defined(GCA_NO_MREMAP)
# define MEM_GROWS_IN_PLACE 1
#else
# define MEM_GROWS_IN_PLACE 0
#endif
#if !MEM_GROWS_IN_PLACE || defined(GCA_TEST_API)
  GC_INNER word gca_mem_copied = 0;
#endif

GC_INNER void *gca_mem_grow(unsigned owner, void *p, size_t old_bytes,
                            size_t new_bytes)
{
  void *q;

  if (NULL == p) return gca_mem_alloc(owner, new_bytes);
  if (MEM_PAGES(new_bytes) == MEM_PAGES(old_bytes)) return p;
# if MEM_GROWS_IN_PLACE
    q = mremap(p, MEM_PAGES(old_bytes), MEM_PAGES(new_bytes),
               MREMAP_MAYMOVE);
    if (MAP_FAILED == q) return NULL;
    GCA_ADD(&gca_mem_bytes[owner],
            MEM_PAGES(new_bytes) - MEM_PAGES(old_bytes));
# else
    q = gca_mem_alloc(owner, new_bytes);
    if (NULL == q) return NULL;
    BCOPY(p, q, old_bytes);
    gca_mem_free(owner, p, old_bytes);
    GCA_ADD(&gca_mem_copied, old_bytes);
# endif
  return q;
}

/* Names (types.c's) live in arenas of 16 KiB, counted as its tables. */
GC_INNER char *gca_mem_strdup(const char *s, size_t n)
{
  static char *arena = NULL;
  static size_t arena_left = 0;
  char *r;

  if (n + 1 > arena_left) {
    size_t sz = n + 1 > 16384 ? n + 1 : 16384;

    arena = (char *)gca_mem_alloc(GCA_MEM_TYPES, sz);
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

GC_INNER word gca_mem_fit(word elem_bytes, word need, word cur)
{
  word n = cur + cur / 2;

  if (n < need) n = need;
  return MEM_PAGES(n * elem_bytes) / elem_bytes;
}

/* ---- the table block ------------------------------------------------------ */
GC_INNER struct gca_tables *gca_tables = NULL;
/* Where kind k's lock-held rows start (gca_hooks.h, gca_locked_count). */
GC_INNER word *gca_locked_kind[MAXOBJKINDS] = { NULL };
/* Where kind k's lock-held large rows start, at its class GCA_LARGE0   */
/* + 1 (gca_hooks.h, gca_locked_count_large).                           */
GC_INNER word *gca_locked_large_kind[MAXOBJKINDS] = { NULL };
/* Where kind k's lock-held rows' countdowns start (gca_hooks.h,       */
/* GCA_LOCKED_POP_CNT).                                                   */
GC_INNER signed_word *gca_locked_w_kind[MAXOBJKINDS] = { NULL };

GC_INNER int gca_tables_get(void)
{
  unsigned k;

  if (NULL == gca_tables) {
    gca_tables = (struct gca_tables *)gca_os_alloc(sizeof(struct gca_tables));
    for (k = 0; gca_tables != NULL && k < MAXOBJKINDS; k++) {
      gca_locked_kind[k] = gca_tables->locked_rows[k * GCA_LOCKED_KIND_ROWS];
      gca_locked_large_kind[k] =
                gca_tables->locked_large[k * GCA_LOCKED_LARGE_ROWS + 1];
      gca_locked_w_kind[k] =
                gca_tables->locked_wb[k * GCA_LOCKED_KIND_ROWS];
    }
  }
  return gca_tables != NULL;
}

/* The rows: slot 0 unused (row_of's "none").  They start at a page's  */
/* worth and grow by half (gca_mem_fit), copied into new pages.         */
GC_INNER struct gca_row *gca_rows = NULL;
GC_INNER unsigned gca_n_rows = 0;
static word tables_rows_cap = 0;        /* slots, 0 included           */

GC_INNER GC_ATTR_NOINLINE struct gca_row *gca_row_make(unsigned k,
                                                      unsigned cls)
{
  struct gca_row *r;

  if (k >= MAXOBJKINDS || cls >= GCA_N_CLASSES) return NULL;
  if (gca_n_rows + 1 >= tables_rows_cap) {
    word cap = gca_mem_fit(sizeof(struct gca_row), gca_n_rows + 2,
                           tables_rows_cap);
    struct gca_row *p = (struct gca_row *)gca_os_alloc(
                                        cap * sizeof(struct gca_row));

    if (NULL == p) return NULL;
    if (gca_rows != NULL) {
      BCOPY(gca_rows, p, (gca_n_rows + 1) * sizeof(struct gca_row));
      gca_os_free(gca_rows, tables_rows_cap * sizeof(struct gca_row));
    }
    gca_rows = p;
    tables_rows_cap = cap;
  }
  r = &gca_rows[++gca_n_rows];
  r->kind = (unsigned short)k;
  r->cls = (unsigned short)cls;
  gca_tables->row_of[k][cls] = (unsigned short)gca_n_rows;
  return r;
}

/* The table block's pages in memory: it is sized for every kind there */
/* could be (MAXOBJKINDS), but only the parts of kinds that exist are  */
/* ever written or read (the readers stop at GC_n_kinds), so a program */
/* of few kinds leaves most of its pages untouched, never backed by    */
/* memory.  mincore() says which pages are (a page only read, mapped   */
/* to the zero page, counts too); without it, the whole block counts.  */
/* The rows' pages count whole.                                          */
#if (defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__) \
     || defined(__NetBSD__) || defined(__OpenBSD__) \
     || defined(__DragonFly__)) && !defined(__EMSCRIPTEN__)
# define TABLES_MINCORE
#endif
#define TABLES_VEC (sizeof(struct gca_tables) / 4096 + 1)

static word tables_block_bytes(void)
{
  word ps = 4096;

# ifdef TABLES_MINCORE
    {
      static unsigned char vec[TABLES_VEC];
      long sps = sysconf(_SC_PAGESIZE);
      word n, i, resident = 0;

      if (sps > 0) ps = (word)sps;
      n = ((word)sizeof(struct gca_tables) + ps - 1) / ps;
      if (n <= TABLES_VEC
          && 0 == mincore((void *)gca_tables, (size_t)(n * ps),
                          (void *)vec)) {
        for (i = 0; i < n; i++) resident += vec[i] & 1;
        return resident * ps;
      }
    }
# endif
  return ((word)sizeof(struct gca_tables) + ps - 1) & ~(ps - 1);
}

GC_INNER word gca_tables_memory_bytes(void)
{
  if (NULL == gca_tables) return 0;
  return tables_block_bytes()
         + MEM_PAGES(tables_rows_cap * sizeof(struct gca_row));
}

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_types_carry): bytes copied so far to   */
  /* grow accounting's tables (gca_mem_grow), and in *in_place whether  */
  /* they grow in place (mremap: none copied).                           */
  GC_API GC_word GC_CALL GC_acc_test_mem_copied(int *in_place)
  {
    *in_place = MEM_GROWS_IN_PLACE;
    return gca_mem_copied;
  }

  /* The age bins' low parts (gca_priv.h; GC_acc_test_age_bits).        */
  GC_INNER unsigned gca_age_lo_bits = 32;
#endif

/* ---- the clock ----------------------------------------------------------- */

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_clock64.c): added to every monotonic    */
  /* time, so that a short run crosses 2^32 ns, where a 32-bit word of   */
  /* nanoseconds would wrap.                                             */
  static volatile uint64_t base_clock_offset = 0;

  GC_API void GC_CALL GC_acc_test_clock_offset(unsigned long long ns)
  {
    base_clock_offset = (uint64_t)ns;
  }
# define BASE_CLOCK_OFFSET base_clock_offset
#else
# define BASE_CLOCK_OFFSET 0
#endif

#ifdef GCA_WIN32
/* Windows' stack walk (gca_win.h), for unwind_cfi.c: at most           */
/* BASE_WIN_FRAMES return addresses, this function's own skipped.        */
/* Taken from kernel32 by name: some SDKs' headers (Wine's) do not     */
/* declare it.  None found: no frames.                                   */
# define BASE_WIN_FRAMES 128
typedef WORD (WINAPI *base_capture_t)(DWORD, DWORD, PVOID *, PDWORD);
GC_INNER GC_ATTR_NOINLINE int gca_win_backtrace(gca_win_unw_fn fn, void *arg)
{
  static base_capture_t capture = NULL;
  void *ra[BASE_WIN_FRAMES];
  struct gca_win_unw_context c;
  WORD i, n;

  if (NULL == capture) {
    FARPROC f = GetProcAddress(GetModuleHandleW(L"kernel32.dll"),
                               "RtlCaptureStackBackTrace");

    if (NULL == f) return _URC_END_OF_STACK;
    memcpy(&capture, &f, sizeof(capture));
  }
  n = capture(1, BASE_WIN_FRAMES, ra, NULL);
  for (i = 0; i < n; i++) {
    c.ip = (word)ra[i];
    if (fn(&c, arg) != _URC_NO_REASON) break;
  }
  return _URC_END_OF_STACK;
}
#endif

GC_INNER uint64_t gca_now_ns(void)
{
# if defined(CLOCK_MONOTONIC) && !defined(MSWIN32) && !defined(MSWINCE)
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec
           + BASE_CLOCK_OFFSET;
# elif defined(MSWIN32) && !defined(MSWINCE) && !defined(NO_CLOCK)
    /* Windows: the performance counter (bdwgc's GET_TIME there is     */
    /* GetTickCount: steps of some 16 ms, wrapping after 49 days).      */
    static LARGE_INTEGER freq;
    LARGE_INTEGER c;

    if (0 == freq.QuadPart && !QueryPerformanceFrequency(&freq)) return 0;
    if (!QueryPerformanceCounter(&c) || freq.QuadPart <= 0) return 0;
    return (uint64_t)(c.QuadPart / freq.QuadPart) * 1000000000u
           + (uint64_t)(c.QuadPart % freq.QuadPart) * 1000000000u
             / (uint64_t)freq.QuadPart + BASE_CLOCK_OFFSET;
# elif !defined(NO_CLOCK)
    /* Millisecond clock of the platform, from an arbitrary origin.     */
    static CLOCK_TYPE t0;
    static int t0_set = 0;
    CLOCK_TYPE t;

    GET_TIME(t);
    if (!t0_set) {
      t0 = t;
      t0_set = 1;
    }
    return (uint64_t)MS_TIME_DIFF(t, t0) * 1000000u + BASE_CLOCK_OFFSET;
# else
    return 0;
# endif
}

#endif /* !GC_ACC_DISABLE */
