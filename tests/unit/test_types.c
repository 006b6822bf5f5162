/* SPDX-License-Identifier: MIT */
/*
 * test_types.c: type cookies, callsites, ages and frames, exactly.
 *
 * With every stack captured (GC_ACC_STACKS_ALL), three call paths
 * allocate objects of three explicit types (GC_acc_malloc_typed,
 * GC_acc_malloc_atomic_typed, GC_acc_set_next_type + GC_malloc), keep a
 * known subset reachable and drop the rest; after a collection each type
 * and each path's callsites must report exactly the kept objects live,
 * every object allocated and the dropped ones freed (for the large type,
 * where one stray conservative reference keeps a whole block, "kept" is
 * what the collector kept, within two of the subset), and the sites'
 * stacks must contain the path's own function (dladdr; -rdynamic).
 * GC_free'd objects count as freed at once.  Objects kept across N
 * collections sit in the age bin of N - 1 (0 = allocated since the
 * previous collection), past 32 and past the 128-collection wrap of the
 * tags' birth field.  A frame marker with no collection reports the
 * frame's allocations per type.  Finally the size-class invariance: the
 * same workload, run in two fresh processes with tagging on and off,
 * gives every object the same GC_size and the same class histogram.
 * Types with no name are named "type 0x<cookie>" exactly as snprintf's
 * "%llx" writes the cookie.  Built as test_types_carry (TEST_TYPES_CARRY,
 * the test library), the same with the age bins' counts carrying past 2
 * bits and the accumulators' 32-bit round stamp wrapping, and 6,000
 * types whose tables grow copying no more than they hold.
 */
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#ifdef TEST_TYPES_CARRY
  /* The test library's (accounting/api.c): age bins' low parts of     */
  /* bits, and the accumulators' round stamp.                           */
  GC_API void GC_CALL GC_acc_test_age_bits(unsigned bits);
  GC_API unsigned GC_CALL GC_acc_test_acc_stamp(unsigned stamp);
  GC_API GC_word GC_CALL GC_acc_test_mem_copied(int *in_place);
#endif


#define TYPE_A ((GC_word)0xA000)
#define TYPE_B ((GC_word)0xB000)
#define TYPE_C ((GC_word)0xC000)
#define TYPE_D ((GC_word)0xD000)
#define TYPE_E ((GC_word)0xE000)
#define TYPE_F ((GC_word)0xF000)

#define NA 100
#define NB 90
#define NC 80
#define MAX_SITES 64

static void *volatile keep_a[NA], *volatile keep_b[NB], *volatile keep_c[NC];
static void *volatile keep_d[10];

struct site_set { unsigned id[MAX_SITES]; unsigned n; };
static struct site_set sites_a, sites_b, sites_c;
/* Every type C (large) object, hidden from the collector.             */
static GC_word hidden_c[NC];

static void note_site(struct site_set *s, void *p, GC_word want_cookie)
{
  GC_word cookie = 0;
  unsigned site = 0, i;

  CHECK(GC_acc_get_object_tag(p, &cookie, &site));
  CHECK_EQ(cookie, want_cookie);
  CHECK(site >= 2);
  for (i = 0; i < s->n; i++)
    if (s->id[i] == site) return;
  if (s->n < MAX_SITES) s->id[s->n++] = site;
}

/* The three paths; not static, so dladdr names them (-rdynamic).      */
NOINLINE void path_a(void)
{
  int i;

  for (i = 0; i < NA; i++) {
    void *p = GC_acc_malloc_typed(48, TYPE_A);

    note_site(&sites_a, p, TYPE_A);
    if (i % 4 == 0) keep_a[i] = p;
  }
}

NOINLINE void path_b(void)
{
  int i;

  for (i = 0; i < NB; i++) {
    void *p;

    GC_acc_set_next_type(TYPE_B);
    p = GC_malloc(200);
    note_site(&sites_b, p, TYPE_B);
    if (i % 3 == 0) keep_b[i] = p;
    else if (i % 3 == 1 && i < 30) GC_free(p);  /* freed explicitly */
  }
}

NOINLINE void path_c(void)
{
  int i;

  for (i = 0; i < NC; i++) {
    void *p = GC_acc_malloc_atomic_typed(3000, TYPE_C);  /* large */

    note_site(&sites_c, p, TYPE_C);
    hidden_c[i] = ~(GC_word)p;
    if (i % 2 == 0) keep_c[i] = p;
  }
}

static struct GC_acc_group_stats_s type_stats(GC_word cookie)
{
  struct GC_acc_group_stats_s s;

  memset(&s, 0, sizeof(s));
  CHECK_EQ(GC_acc_get_type_stats(cookie, &s, sizeof(s)), sizeof(s));
  return s;
}

static struct GC_acc_group_stats_s sites_stats(const struct site_set *ss)
{
  struct GC_acc_group_stats_s sum, s;
  unsigned i, b;

  memset(&sum, 0, sizeof(sum));
  for (i = 0; i < ss->n; i++) {
    memset(&s, 0, sizeof(s));
    CHECK_EQ(GC_acc_get_site_stats(ss->id[i], &s, sizeof(s)), sizeof(s));
    sum.live_objs += s.live_objs;
    sum.live_bytes += s.live_bytes;
    sum.alloc_objs += s.alloc_objs;
    sum.alloc_bytes += s.alloc_bytes;
    sum.freed_objs += s.freed_objs;
    sum.freed_bytes += s.freed_bytes;
    for (b = 0; b < GC_ACC_AGE_BINS; b++) sum.age_objs[b] += s.age_objs[b];
  }
  return sum;
}

/* Every site of the set has fn among its frames.                      */
static void check_site_frames(const struct site_set *ss, const char *fn)
{
  unsigned i;

  CHECK(ss->n >= 1);
  for (i = 0; i < ss->n; i++) {
    GC_word frames[64];
    int n = GC_acc_site_frames(ss->id[i], frames, 64), j, found = 0;

    CHECK(n > 0);
    for (j = 0; j < n && j < 64; j++) {
      Dl_info info;

      /* A return address points just after the call: look it up one  */
      /* byte back, inside the calling function.                       */
      if (dladdr((void *)(frames[j] - 1), &info) && info.dli_sname != NULL
          && 0 == strcmp(info.dli_sname, fn))
        found = 1;
    }
    if (!CHECK(found)) fprintf(stderr, "  site %u lacks %s\n", ss->id[i], fn);
  }
}

static void check_group(const char *what, struct GC_acc_group_stats_s s,
                        GC_word live, GC_word alloc, GC_word freed,
                        GC_word obj_bytes)
{
  int ok = 1;

  ok &= CHECK_EQ(s.live_objs, live);
  ok &= CHECK_EQ(s.live_bytes, live * obj_bytes);
  ok &= CHECK_EQ(s.alloc_objs, alloc);
  ok &= CHECK_EQ(s.alloc_bytes, alloc * obj_bytes);
  ok &= CHECK_EQ(s.freed_objs, freed);
  ok &= CHECK_EQ(s.freed_bytes, freed * obj_bytes);
  if (!ok) fprintf(stderr, "  (%s)\n", what);
}

static void test_types_and_sites(void)
{
  GC_word sa, sb, sc, live_c;
  struct GC_acc_group_stats_s s;

  GC_disable();         /* no collection until the one we make below */
  path_a();
  path_b();
  path_c();
  GC_enable();
  sa = GC_size(keep_a[0]);
  sb = GC_size(keep_b[0]);
  sc = (GC_size(keep_c[0]) + 4095) / 4096 * 4096;

  /* Before any collection, GC_free'd objects already count.           */
  s = type_stats(TYPE_B);
  CHECK_EQ(s.freed_objs, 10);
  CHECK_EQ(s.alloc_objs, 10);

  collect();
  check_group("type A", type_stats(TYPE_A), NA / 4, NA, NA - NA / 4, sa);
  check_group("type B", type_stats(TYPE_B), NB / 3, NB, NB - NB / 3, sb);
  /* Large objects: a conservative false reference anywhere inside a   */
  /* dropped block keeps it, so the truth is what the collector kept:  */
  /* the blocks still in use (a freed block has no GC_base).  At most   */
  /* two such accidents are allowed.                                    */
  {
    int i;

    live_c = 0;
    for (i = 0; i < NC; i++)
      if (GC_base((void *)~hidden_c[i]) != NULL) live_c++;
    CHECK(live_c >= NC / 2 && live_c <= NC / 2 + 2);
  }
  check_group("type C", type_stats(TYPE_C), live_c, NC, NC - live_c, sc);
  check_group("sites A", sites_stats(&sites_a), NA / 4, NA, NA - NA / 4, sa);
  check_group("sites B", sites_stats(&sites_b), NB / 3, NB, NB - NB / 3, sb);
  check_group("sites C", sites_stats(&sites_c), live_c, NC, NC - live_c,
              sc);
  /* All kept objects were allocated since the previous collection.    */
  CHECK_EQ(type_stats(TYPE_A).age_objs[0], NA / 4);
  check_site_frames(&sites_a, "path_a");
  check_site_frames(&sites_b, "path_b");
  check_site_frames(&sites_c, "path_c");

  /* Nothing changes for a second collection but the ages and nothing  */
  /* is counted twice.                                                 */
  collect();
  check_group("type A again", type_stats(TYPE_A), NA / 4, NA, NA - NA / 4,
              sa);
  CHECK_EQ(type_stats(TYPE_A).age_objs[1], NA / 4);
  memset((void *)keep_a, 0, sizeof(keep_a));
  collect();
  check_group("type A dropped", type_stats(TYPE_A), 0, NA, NA, sa);
}

static NOINLINE void alloc_d(void)
{
  int i;

  for (i = 0; i < 10; i++) keep_d[i] = GC_acc_malloc_typed(32, TYPE_D);
}

/* Bin of an age (collections survived before the last one).           */
static unsigned bin_of(unsigned age)
{
  unsigned b = 0;

  if (age < 2) return age;
  while (age > 1 && b < 5) {
    age >>= 1;
    b++;
  }
  return b + 1;
}

static void test_ages(void)
{
  unsigned n, b;
  static const unsigned at[] = { 1, 2, 3, 5, 9, 17, 33, 40, 140 };
  unsigned k = 0;

  alloc_d();
  for (n = 1; n <= 140; n++) {
    collect();
    if (k < sizeof(at) / sizeof(at[0]) && at[k] == n) {
      struct GC_acc_group_stats_s s = type_stats(TYPE_D);
      unsigned want = bin_of(n - 1);

      k++;
      CHECK_EQ(s.live_objs, 10);
      for (b = 0; b < GC_ACC_AGE_BINS; b++) {
        if (!CHECK_EQ(s.age_objs[b], b == want ? 10 : 0))
          fprintf(stderr, "  after %u collections, bin %u\n", n, b);
      }
    }
  }
  CHECK_EQ(type_stats(TYPE_D).alloc_objs, 10);
  CHECK_EQ(type_stats(TYPE_D).freed_objs, 0);
  /* Old objects dying: out of the live count and the 32+ bin at once.  */
  for (n = 0; n < 10; n++) keep_d[n] = NULL;
  collect();
  {
    struct GC_acc_group_stats_s s = type_stats(TYPE_D);

    CHECK_EQ(s.live_objs, 0);
    CHECK_EQ(s.live_bytes, 0);
    CHECK_EQ(s.freed_objs, 10);
    for (b = 0; b < GC_ACC_AGE_BINS; b++) CHECK_EQ(s.age_objs[b], 0);
  }
}

#ifdef TEST_TYPES_CARRY
/* The accumulators' 32-bit round stamp wraps: a type's accumulator   */
/* last used in round a, when the rounds come to a again, counts as   */
/* new (a GC_free'd object in each: both counted).  The objects are    */
/* made first: an allocation may collect, a round more.                */
#define TYPE_W ((GC_word)0x1F000)
static void *volatile keep_w[2];
static void test_stamp_wrap(void)
{
  unsigned a, n = 0;
  struct GC_acc_group_stats_s s;

  GC_TEST_ROOT(keep_w);
  /* No stacks: one pair (with them the first allocation of a size,  */
  /* the slow path's, is another callsite).                              */
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_OFF, 0), GC_SUCCESS);
  keep_w[0] = GC_acc_malloc_typed(16, TYPE_W);
  keep_w[1] = GC_acc_malloc_typed(16, TYPE_W);
  a = GC_acc_test_acc_stamp(0);
  GC_free(keep_w[0]);
  /* Round a ends; then 0xffffffff, and the wrap: 1, 2, ... a.          */
  (void)GC_acc_test_acc_stamp(0xffffffffu);
  while (GC_acc_test_acc_stamp(0) != a && n++ < 1000) { }
  CHECK(n < 1000);
  GC_free(keep_w[1]);
  keep_w[0] = keep_w[1] = NULL;
  s = type_stats(TYPE_W);
  CHECK_EQ(s.alloc_objs, 2);
  CHECK_EQ(s.freed_objs, 2);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
}
#endif

/* A frame without a collection: its allocations per type.            */
static GC_word e_granted;

static NOINLINE void frame_allocs(void)
{
  int i;

  for (i = 0; i < 7; i++) e_granted = GC_size(GC_acc_malloc_typed(64, TYPE_E));
  for (i = 0; i < 5; i++) (void)GC_acc_malloc_atomic_typed(128, TYPE_F);
}

/* A dump's records, one parsed line at a time: records_next gives the */
/* next (the caller's to json_decref), NULL at the end; a line that    */
/* does not parse fails a check and is skipped.                         */
static FILE *records_open(const char *path)
{
  char cmd[512];

  snprintf(cmd, sizeof(cmd), "zcat '%s'", path);
  return popen(cmd, "r");
}

static json_t *records_next(FILE *f)
{
  static char line[1 << 22];  /* test_names_and_many_types: long */

  while (fgets(line, sizeof(line), f) != NULL) {
    json_error_t err;
    json_t *r = json_loads(line, 0, &err);

    if (CHECK(r != NULL)) return r;
  }
  return NULL;
}

static void test_frames(const char *path)
{
  FILE *f;
  json_t *r;
  GC_word gc_before;
  long type_e = -1, type_f = -1;
  unsigned long objs_e = 0, objs_f = 0, bytes_e = 0, frames = 0;
  int saw_frame = 0;

  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  CHECK_EQ(GC_acc_frame(1), GC_SUCCESS);        /* starts counting:   */
                                                /* no record          */
  gc_before = GC_get_gc_no();
  frame_allocs();
  CHECK_EQ(GC_acc_frame(2), GC_SUCCESS);
  CHECK_EQ(GC_get_gc_no(), gc_before);          /* no collection      */
  collect();                                    /* a census record    */
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  f = records_open(path);
  if (!CHECK(f != NULL)) return;
  while ((r = records_next(f)) != NULL) {
    const char *kind = json_string_value(json_object_get(r, "record"));
    json_t *v = json_object_get(r, "types");
    size_t i;

    for (i = 0; v != NULL && i < json_array_size(v); i++) {
      json_t *t = json_array_get(v, i);
      const char *cookie = json_string_value(json_array_get(t, 1));
      long id = (long)json_integer_value(json_array_get(t, 0));

      if (cookie && 0 == strcmp(cookie, "0xe000")) type_e = id;
      if (cookie && 0 == strcmp(cookie, "0xf000")) type_f = id;
      CHECK(json_is_string(json_array_get(t, 2)));
    }
    if (kind && 0 == strcmp(kind, "frame")) {
      frames++;
      if (2 == json_integer_value(json_object_get(r, "frame"))) {
        saw_frame = 1;
        v = json_object_get(r, "rows");
        for (i = 0; i < json_array_size(v); i++) {
          json_t *row = json_array_get(v, i);
          long t = (long)json_integer_value(json_array_get(row, 0));

          if (t == type_e) {
            objs_e += (unsigned long)json_integer_value(json_array_get(row, 2));
            bytes_e += (unsigned long)json_integer_value(json_array_get(row, 3));
          }
          if (t == type_f)
            objs_f += (unsigned long)json_integer_value(json_array_get(row, 2));
        }
      }
    }
    if (kind && 0 == strcmp(kind, "collection")) {
      CHECK(json_integer_value(json_object_get(r, "acc_memory_bytes")) > 0);
      CHECK(json_is_array(json_object_get(r, "type_rows")));
      CHECK(json_is_array(json_object_get(r, "site_rows")));
    }
    json_decref(r);
  }
  pclose(f);
  CHECK(saw_frame);
  CHECK_EQ(frames, 1);
  CHECK(type_e > 0 && type_f > 0);
  CHECK_EQ(objs_e, 7);
  CHECK_EQ(bytes_e, 7 * e_granted);     /* granted bytes          */
  CHECK_EQ(objs_f, 5);
}

/* ---- rows whose live columns alone change ---------------------------- */
/* Objects kept, none allocated after: each collection ages them, and a */
/* record carries their type's row when its live columns changed since  */
/* the record before (ages 0, 1, 2: bins 0, 1, 2-3), not when they did  */
/* not (age 3: still 2-3).  The rows kept a copy of every column once;  */
/* a flag says it now (types.c, ROW_LIVE).                               */
#define TYPE_G ((GC_word)0x6000)
#define NG 20
static void *volatile keep_g[NG];

static void test_live_only_rows(const char *path)
{
  FILE *f;
  json_t *r;
  long type_g = -1;
  int i, n = 0, seen[8];
  long age[8][4];

  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (i = 0; i < NG; i++) keep_g[i] = GC_acc_malloc_typed(48, TYPE_G);
  for (i = 0; i < 4; i++) collect();
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  memset(seen, 0, sizeof(seen));
  memset(age, 0, sizeof(age));
  f = records_open(path);
  if (!CHECK(f != NULL)) return;
  while ((r = records_next(f)) != NULL) {
    const char *kind = json_string_value(json_object_get(r, "record"));
    json_t *v = json_object_get(r, "types");
    size_t j;

    for (j = 0; v != NULL && j < json_array_size(v); j++) {
      json_t *t = json_array_get(v, j);
      const char *cookie = json_string_value(json_array_get(t, 1));

      if (cookie && 0 == strcmp(cookie, "0x6000"))
        type_g = (long)json_integer_value(json_array_get(t, 0));
    }
    if (kind && 0 == strcmp(kind, "collection") && n < 8) {
      v = json_object_get(r, "type_rows");
      for (j = 0; j < json_array_size(v); j++) {
        json_t *row = json_array_get(v, j);
        int b;

        if ((long)json_integer_value(json_array_get(row, 0)) != type_g)
          continue;
        seen[n] = 1;
        CHECK_EQ(json_integer_value(json_array_get(row, 1)), NG);
        for (b = 0; b < 4; b++)   /* age0, age1, age2_3, age4_7      */
          age[n][b] = (long)json_integer_value(json_array_get(row, 7 + b));
      }
      n++;
    }
    json_decref(r);
  }
  pclose(f);
  CHECK(type_g > 0);
  CHECK_EQ(n, 4);
  CHECK(seen[0] && seen[1] && seen[2]);
  CHECK(!seen[3]);              /* unchanged: no row                   */
  CHECK_EQ(age[0][0], NG);
  CHECK_EQ(age[1][1], NG);
  CHECK_EQ(age[2][2], NG);
  (void)keep_g[0];
}

/* ---- default names, and many types ------------------------------------ */
/* A type with no name of its own is named "type 0x<cookie>", as        */
/* "%s 0x%llx" writes it (types.c writes it by hand): cookies of one to */
/* sixteen hex digits.  Then NT more types: under the test library,    */
/* growing the tables for them copied no more bytes than the type      */
/* tables hold (they grow in place where the OS can: mremap; grown by  */
/* copies, 2.85 MB were copied for tables of 2.75 MB).                 */
#define NT 6000
static void test_names_and_many_types(const char *path)
{
  static const GC_word cookies[] = {
    0x1, 0x10, 0xabcdef, (GC_word)0x7ffff0, (GC_word)~(GC_word)0 - 0xff,
    (GC_word)1 << (sizeof(GC_word) * 8 - 4)
  };
  const int nc = (int)(sizeof(cookies) / sizeof(cookies[0]));
  int named[sizeof(cookies) / sizeof(cookies[0])];
  FILE *f;
  json_t *r;
  long types_bytes = 0;
  int i, defs = 0;
#ifdef TEST_TYPES_CARRY
  int in_place = 0;
  GC_word copied = GC_acc_test_mem_copied(&in_place);
#endif

  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (i = 0; i < nc; i++) (void)GC_acc_malloc_typed(32, cookies[i]);
  for (i = 0; i < NT; i++)
    (void)GC_acc_malloc_typed(32, (GC_word)0x5000000 + (GC_word)i * 16);
  collect();
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
#ifdef TEST_TYPES_CARRY
  copied = GC_acc_test_mem_copied(&in_place) - copied;
#endif

  memset(named, 0, sizeof(named));
  f = records_open(path);
  if (!CHECK(f != NULL)) return;
  while ((r = records_next(f)) != NULL) {
    json_t *v = json_object_get(r, "types");
    json_t *m = json_object_get(r, "acc_memory");
    size_t j;

    for (j = 0; v != NULL && j < json_array_size(v); j++) {
      json_t *t = json_array_get(v, j);
      const char *cookie = json_string_value(json_array_get(t, 1));
      const char *name = json_string_value(json_array_get(t, 2));
      char want[64];

      defs++;
      for (i = 0; cookie != NULL && name != NULL && i < nc; i++) {
        snprintf(want, sizeof(want), "0x%llx",
                 (unsigned long long)cookies[i]);
        if (strcmp(cookie, want) != 0) continue;
        snprintf(want, sizeof(want), "type 0x%llx",
                 (unsigned long long)cookies[i]);
        if (!CHECK(0 == strcmp(name, want)))
          fprintf(stderr, "  name \"%s\", want \"%s\"\n", name, want);
        named[i]++;
      }
    }
    if (m != NULL && json_integer_value(json_object_get(m, "types_bytes"))
                     > types_bytes)
      types_bytes = (long)json_integer_value(json_object_get(m,
                                                             "types_bytes"));
    json_decref(r);
  }
  pclose(f);
  for (i = 0; i < nc; i++) CHECK_EQ(named[i], 1);
  CHECK(defs >= NT + nc);
  CHECK(types_bytes > 0);
#ifdef TEST_TYPES_CARRY
  if (!in_place) {
    printf("test_types: tables grow by copies here: not bounded\n");
  } else if (!CHECK((long)copied <= types_bytes)) {
    fprintf(stderr, "  %lu bytes copied to grow tables of %ld bytes\n",
            (unsigned long)copied, types_bytes);
  }
#endif
}

/* ---- size classes with tagging on and off ---------------------------- */

static NOINLINE int workload(int on)
{
  static void *volatile objs[4000];
  unsigned long hist[64], h = 5381;
  int i;

  GC_INIT();
  /* Exact types: the full profile (tags on every object).           */
  GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0);
  if (on) {
    GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0);
    GC_acc_enable(1);
  }
  memset(hist, 0, sizeof(hist));
  for (i = 0; i < 4000; i++) {
    size_t lb = (size_t)(i * 37 % 2600) + 1;
    void *p = (i & 1) ? GC_acc_malloc_typed(lb, TYPE_A)
                      : GC_malloc_atomic(lb);
    size_t g = GC_size(p);

    if (i % 3 == 0) objs[i] = p;
    h = h * 33 + g;
    hist[g <= 2048 ? g / 16 % 64 : 63]++;
    if (i % 500 == 0) GC_gcollect();
  }
  (void)objs[0];
  printf("size-hash %lu", h);
  for (i = 0; i < 64; i++) printf(" %lu", hist[i]);
  printf(" tags-%s\n", on && GC_acc_get_memory_bytes() > 0 ? "yes" : "no");
  return 0;
}

static void test_size_invariance(const char *self)
{
  char cmd[600], a[4096], b[4096];
  FILE *f;

  /* GCACC_TEST_RUNNER: what runs a program of this build (qemu-user's */
  /* binary for tests/cross/cross.sh's ARM builds), else nothing.       */
  const char *run = getenv("GCACC_TEST_RUNNER");

  if (NULL == run) run = "";
  snprintf(cmd, sizeof(cmd), "%s '%s' workload 1", run, self);
  f = popen(cmd, "r");
  CHECK(f != NULL && fgets(a, sizeof(a), f) != NULL);
  if (f) pclose(f);
  snprintf(cmd, sizeof(cmd), "%s '%s' workload 0", run, self);
  f = popen(cmd, "r");
  CHECK(f != NULL && fgets(b, sizeof(b), f) != NULL);
  if (f) pclose(f);
  if (!(CHECK(strstr(a, " tags-yes") != NULL)
        & CHECK(strstr(b, " tags-no") != NULL)))
    return;
  *strstr(a, " tags-") = '\0';
  *strstr(b, " tags-") = '\0';
  if (!CHECK(0 == strcmp(a, b)))
    fprintf(stderr, "  on:  %s\n  off: %s\n", a, b);
}

int main(int argc, char **argv)
{
  char path[256];

  if (argc == 3 && 0 == strcmp(argv[1], "workload"))
    return workload(atoi(argv[2]));
  unsetenv("GC_ACC_DUMP");
#ifdef TEST_TYPES_CARRY
  /* Counts of 4 and more carry (test_ages: bins of 10 objects).        */
  GC_acc_test_age_bits(2);
#endif
  GC_INIT();
  /* Exact types: the full profile (tags on every object).           */
  GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0);
  /* Roots by hand too: IL2CPP's build registers no static data.        */
  GC_TEST_ROOT(keep_a);
  GC_TEST_ROOT(keep_b);
  GC_TEST_ROOT(keep_c);
  GC_TEST_ROOT(keep_d);
  CHECK_EQ(GC_acc_set_stacks(GC_ACC_STACKS_ALL, 0), GC_SUCCESS);
  GC_acc_enable(1);
#ifdef TEST_TYPES_CARRY
  test_stamp_wrap();
#endif
  collect();
  test_types_and_sites();
  test_ages();
  snprintf(path, sizeof(path), "/tmp/gcacc-test-types-%d.jsonl.gz",
           (int)getpid());
  test_frames(path);
  unlink(path);
  GC_TEST_ROOT(keep_g);
  test_live_only_rows(path);
  unlink(path);
  test_names_and_many_types(path);
  unlink(path);
  {
    char self[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (CHECK(n > 0)) {
      self[n] = '\0';
      test_size_invariance(self);
    }
  }
  return check_done("test_types");
}
