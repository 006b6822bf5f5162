/* SPDX-License-Identifier: MIT */
/*
 * api.c: the public GC_acc_* entry points (include/gc_accounting.h).
 *
 * Each validates its arguments, takes the allocation lock where it reads
 * shared books, and calls the module that owns them.  In a
 * --disable-accounting build every function is present and answers
 * GC_UNIMPLEMENTED (or 0), so embedders link either way.
 */

#include "gca_priv.h"

GC_API unsigned GC_CALL GC_acc_get_version(void)
{
  return GC_ACC_VERSION;
}

#ifdef GC_ACC_DISABLE

GC_API int GC_CALL GC_acc_is_available(void) { return 0; }
GC_API int GC_CALL GC_acc_enable(int on) { (void)on; return GC_UNIMPLEMENTED; }
GC_API int GC_CALL GC_acc_dump_start(const char *path)
{
  (void)path;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_dump_stop(void) { return GC_UNIMPLEMENTED; }
GC_API int GC_CALL GC_acc_set_dump_buffer_size(size_t bytes)
{
  (void)bytes;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_dump_exit_wait(unsigned ms)
{
  (void)ms;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_dump_keyframe(unsigned every)
{
  (void)every;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_is_enabled(void) { return 0; }
GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz)
{
  (void)stats; (void)stats_sz;
  return 0;
}

#else

GC_API int GC_CALL GC_acc_is_available(void)
{
  return 1;
}

GC_API int GC_CALL GC_acc_enable(int on)
{
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  gca_control_enable(on);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_is_enabled(void)
{
  return gca_on;
}

GC_API int GC_CALL GC_acc_dump_start(const char *path)
{
  if (NULL == path || '\0' == path[0]) return GC_ERROR;
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  return gca_control_dump_start(path);
}

GC_API int GC_CALL GC_acc_dump_stop(void)
{
  gca_retain_at_stop();                 /* GC_ACC_RETAIN=auto's paths  */
  return gca_dump_stop();
}

/* As GC_ACC_DUMP_BUFFER: 0 (the default), or 4 KiB to 1 GiB.           */
GC_API int GC_CALL GC_acc_set_dump_buffer_size(size_t bytes)
{
  if (bytes != 0 && (bytes < GCA_DUMP_MIN_BUFFER
                     || bytes > GCA_DUMP_MAX_BUFFER)) {
    gca_env_warn_api("GC_acc_set_dump_buffer_size", bytes,
                     "0 (the default) or a size in bytes from 4096 to",
                     GCA_DUMP_MAX_BUFFER);
    return GC_ERROR;
  }
  gca_dump_set_buffer(bytes);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_dump_exit_wait(unsigned ms)
{
  if (ms > GCA_DUMP_MAX_EXIT_WAIT_MS) {
    gca_env_warn_api("GC_acc_set_dump_exit_wait", ms,
                     "milliseconds from 0 to", GCA_DUMP_MAX_EXIT_WAIT_MS);
    return GC_ERROR;
  }
  gca_dump_set_exit_wait(ms);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_dump_keyframe(unsigned every)
{
  if (every < 1 || every > GCA_KEYFRAME_MAX) {
    gca_env_warn_api("GC_acc_set_dump_keyframe", every,
                     "a count of records from 1 to", GCA_KEYFRAME_MAX);
    return GC_ERROR;
  }
  gca_dump_set_keyframe(every);
  return GC_SUCCESS;
}

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_tl_promise.c): samples taken so far.  */
  GC_API GC_word GC_CALL GC_acc_test_samples_taken(void)
  {
    word taken, dropped, tracked;

    gca_samples_stats(&taken, &dropped, &tracked);
    return taken;
  }

  /* Tests only (tests/unit/test_locked_countdown.c): samples decided so */
  /* far, taken or dropped (no room in the table).                       */
  GC_API GC_word GC_CALL GC_acc_test_samples_decided(void)
  {
    word taken, dropped, tracked;

    gca_samples_stats(&taken, &dropped, &tracked);
    return taken + dropped;
  }

  /* Tests only (tests/unit/test_tl_countdown.c): the most pops a list's */
  /* countdown runs before it is due (gca_hooks.h, GCA_TL_CAP).          */
  GC_API GC_word GC_CALL GC_acc_test_tl_cap(void)
  {
    return (word)GCA_TL_CAP;
  }
#endif

#ifdef GCA_TEST_API
  /* Tests only (tests/unit/test_dump_*.c, built against the test     */
  /* library; never in a release libgc nor in gc_accounting.h): submit */
  /* one line as the collector would, with the allocation lock held.   */
  GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len)
  {
    int res;
    DCL_LOCK_STATE;

    LOCK();
    res = gca_dump_submit(line, len);
    UNLOCK();
    return res;
  }

  /* The low parts of the age bins' counts, bits from 1 to 32 (32 as    */
  /* a release library has), before accounting first goes on: narrow,  */
  /* every row and accumulator carries (tests/unit/test_types_carry).  */
  GC_API void GC_CALL GC_acc_test_age_bits(unsigned bits)
  {
    if (bits >= 1 && bits <= 32) gca_age_lo_bits = bits;
  }

  /* A fold, then the accumulators' round stamp jumps forward to stamp */
  /* (its wrap, within a few rounds): the stamps of the rounds so far   */
  /* stay, as they would after 2^32 rounds.  The stamp now.             */
  GC_API unsigned GC_CALL GC_acc_test_acc_stamp(unsigned stamp)
  {
    unsigned now;
    DCL_LOCK_STATE;

    LOCK();
    gca_types_fold();
    if (stamp > gca_acc_stamp) gca_acc_stamp = stamp;
    now = gca_acc_stamp;
    UNLOCK();
    return now;
  }
#endif

/* The caller's struct may be older (smaller) than ours: copy what it  */
/* has room for, the GC_get_prof_stats way.  Returns the bytes copied.  */
static size_t api_copy_out(void *dst, size_t dst_sz, const void *src,
                           size_t src_sz)
{
  if (dst_sz > src_sz) dst_sz = src_sz;
  BCOPY(src, dst, dst_sz);
  return dst_sz;
}

/* The getters sum the counters into the rows' cur (gca_counters_sum_ */
/* rows), under the allocation lock.  (gca_tables: NULL until          */
/* accounting first went on, and then there is nothing to report.)      */

/* Kinds that exist (lock held): only their parts of the table block   */
/* are touched (gca_tables_memory_bytes counts the pages touched).      */
static unsigned api_n_kinds(void)
{
  return GC_n_kinds < MAXOBJKINDS ? (unsigned)GC_n_kinds : MAXOBJKINDS;
}

GC_API size_t GC_CALL GC_acc_get_stats(struct GC_acc_stats_s *stats,
                                       size_t stats_sz)
{
  struct GC_acc_stats_s s;
  unsigned k, c;
  DCL_LOCK_STATE;

  if (NULL == stats) return 0;
  BZERO(&s, sizeof(s));
  LOCK();
  if (gca_tables != NULL) {
    unsigned n_kinds = api_n_kinds();

    gca_counters_sum_rows(n_kinds);
    for (c = 1; c <= gca_n_rows; c++) {
      const struct gca_row *r = &gca_rows[c];

      if (r->kind >= n_kinds) continue;
      s.allocs += r->cur.objs;
      s.alloc_req_bytes += r->cur.req_bytes;
      s.alloc_granted_bytes += r->cur.granted_bytes;
    }
    for (k = 0; k < MAXOBJKINDS; k++)
      s.debug_allocs += gca_counters_debug_objs((int)k);
    s.live_bytes = gca_last_census.live_bytes;
    s.live_objs = gca_last_census.live_objs;
    s.reserved_bytes = gca_last_census.reserved_bytes;
    s.census_gc_no = gca_last_census.gc_no;
    s.mark_ns = gca_last_census.mark_ns;
    s.census_ns = gca_last_census.census_ns;
    s.census_rode = (GC_word)gca_census_rode();
  }
  s.collections = gca_collections;
  s.heap_grows = gca_heap_grows;
  {
    const struct gca_freelist_books *fl = gca_freelist_read();

    s.free_bytes = fl->total_bytes;
    s.largest_free_bytes = fl->largest_bytes;
  }
  s.frag_index_ppm = gca_frag_index_ppm(s.free_bytes, s.largest_free_bytes);
  UNLOCK();
  return api_copy_out(stats, stats_sz, &s, sizeof(s));
}

#endif /* !GC_ACC_DISABLE */

/* ---- census, fragmentation, heap growth (appended block) ------------ */

#ifndef GC_ERROR
# define GC_ERROR (-1)
#endif

#ifdef GC_ACC_DISABLE

GC_API int GC_CALL GC_acc_record_now(void) { return GC_UNIMPLEMENTED; }
GC_API unsigned GC_CALL GC_acc_size_class(size_t granted_bytes)
{
  (void)granted_bytes;
  return (unsigned)-1;
}
GC_API size_t GC_CALL GC_acc_get_class_stats(int kind, unsigned cls,
                                struct GC_acc_class_stats_s *out,
                                size_t out_sz)
{
  (void)kind; (void)cls; (void)out; (void)out_sz;
  return 0;
}
GC_API size_t GC_CALL GC_acc_get_last_grow(struct GC_acc_grow_s *out,
                                           size_t out_sz)
{
  (void)out; (void)out_sz;
  return 0;
}

#else

GC_API int GC_CALL GC_acc_record_now(void)
{
  int res = GC_ERROR;
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  if (gca_dump_is_open()) {
    gca_record_emit(0);
    res = GC_SUCCESS;
  }
  UNLOCK();
  return res;
}

GC_API unsigned GC_CALL GC_acc_size_class(size_t granted_bytes)
{
  return gca_class_of((word)granted_bytes);
}

GC_API size_t GC_CALL GC_acc_get_class_stats(int kind, unsigned cls,
                                struct GC_acc_class_stats_s *out,
                                size_t out_sz)
{
  struct GC_acc_class_stats_s s;
  const struct gca_row *r;
  DCL_LOCK_STATE;

  if (NULL == out || kind < 0 || kind >= MAXOBJKINDS
      || cls >= GCA_N_CLASSES)
    return 0;
  BZERO(&s, sizeof(s));
  LOCK();
  /* A kind that does not exist has no counts (nor rows to read).      */
  if (NULL == gca_tables || (unsigned)kind >= api_n_kinds()) {
    UNLOCK();
    return api_copy_out(out, out_sz, &s, sizeof(s));
  }
  gca_counters_sum_rows((unsigned)kind + 1);
  r = gca_row_find((unsigned)kind, (unsigned)cls);
  if (r != NULL) {              /* else: never counted, nor in a census */
    s.live_objs = r->census.live_objs;
    s.live_bytes = r->census.live_bytes;
    s.reserved_bytes = r->census.reserved_bytes;
    s.free_slots = r->census.free_slots;
    s.alloc_objs = r->cur.objs;
    s.alloc_req_bytes = r->cur.req_bytes;
    s.alloc_granted_bytes = r->cur.granted_bytes;
  }
  UNLOCK();
  return api_copy_out(out, out_sz, &s, sizeof(s));
}

GC_API size_t GC_CALL GC_acc_get_last_grow(struct GC_acc_grow_s *out,
                                           size_t out_sz)
{
  struct GC_acc_grow_s s;
  DCL_LOCK_STATE;

  if (NULL == out) return 0;
  LOCK();
  s.t_ns = gca_last_grow.t_ns;
  s.req_bytes = gca_last_grow.req_bytes;
  s.req_kind = gca_last_grow.t_ns != 0 ? gca_last_grow.req_kind : -1;
  s.free_bytes = gca_last_grow.free_bytes;
  s.largest_free_bytes = gca_last_grow.largest_free_bytes;
  s.grow_bytes = gca_last_grow.grow_bytes;
  s.heap_bytes_after = gca_last_grow.heap_bytes_after;
  UNLOCK();
  return api_copy_out(out, out_sz, &s, sizeof(s));
}

#endif /* !GC_ACC_DISABLE */

/* ---- types, callsites, ages, frames (appended block) ----------------- */

#ifdef GC_ACC_DISABLE

GC_API void GC_CALL GC_acc_set_next_type(GC_word cookie) { (void)cookie; }
GC_API void * GC_CALL GC_acc_malloc_typed(size_t lb, GC_word cookie)
{
  (void)cookie;
  return GC_malloc(lb);
}
GC_API void * GC_CALL GC_acc_malloc_atomic_typed(size_t lb, GC_word cookie)
{
  (void)cookie;
  return GC_malloc_atomic(lb);
}
GC_API void GC_CALL GC_acc_set_type_namer(GC_acc_type_namer_proc fn)
{
  (void)fn;
}
GC_API int GC_CALL GC_acc_set_first_word_type_kinds(unsigned mask)
{
  (void)mask;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_type_mode(int mode)
{
  (void)mode;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_frame(GC_word n)
{
  (void)n;
  return GC_UNIMPLEMENTED;
}
GC_API size_t GC_CALL GC_acc_get_type_stats(GC_word cookie,
                                struct GC_acc_group_stats_s *out,
                                size_t out_sz)
{
  (void)cookie; (void)out; (void)out_sz;
  return 0;
}
GC_API size_t GC_CALL GC_acc_get_site_stats(unsigned site,
                                struct GC_acc_group_stats_s *out,
                                size_t out_sz)
{
  (void)site; (void)out; (void)out_sz;
  return 0;
}
GC_API int GC_CALL GC_acc_get_object_tag(const void *p, GC_word *cookie,
                                         unsigned *site)
{
  (void)p; (void)cookie; (void)site;
  return 0;
}
GC_API GC_word GC_CALL GC_acc_get_memory_bytes(void) { return 0; }
GC_API const char * GC_CALL GC_acc_check_books(void) { return NULL; }
GC_API int GC_CALL GC_acc_set_tags(int on)
{
  (void)on;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_stacks(int mode, size_t sample_bytes)
{
  (void)mode; (void)sample_bytes;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_stack_depth(unsigned depth)
{
  (void)depth;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_set_profile(int profile, size_t sample_bytes)
{
  (void)profile; (void)sample_bytes;
  return GC_UNIMPLEMENTED;
}
GC_API int GC_CALL GC_acc_get_profile(size_t *sample_bytes)
{
  if (sample_bytes != NULL) *sample_bytes = 0;
  return GC_ACC_PROFILE_OFF;
}
GC_API int GC_CALL GC_acc_set_table_limit(size_t bytes)
{
  (void)bytes;
  return GC_UNIMPLEMENTED;
}

#else

GC_API int GC_CALL GC_acc_set_tags(int on)
{
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  gca_control_set_tags(on);
  return GC_SUCCESS;
}

/* Callsites (gc_accounting.h): the checks here, where the refusal is  */
/* said; sites.c keeps the settings.                                     */
GC_API int GC_CALL GC_acc_set_stacks(int mode, size_t sample_bytes)
{
  if (mode != GCA_STACKS_OFF && mode != GCA_STACKS_ALL
      && mode != GCA_STACKS_SAMPLE)
    return GC_ERROR;
  /* The header carries the rate: no more than the reader can read.    */
  if (GCA_STACKS_SAMPLE == mode && !gca_setting_bytes_ok(sample_bytes)) {
    gca_env_warn_api("GC_acc_set_stacks", sample_bytes,
                     "sample_bytes from 0 (the default) to",
                     GCA_SETTING_MAX_BYTES);
    return GC_ERROR;
  }
  gca_stacks_choose(mode, (word)sample_bytes);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_stack_depth(unsigned depth)
{
  if (depth > GCA_STACKS_MAX_DEPTH) {
    gca_env_warn_api("GC_acc_set_stack_depth", depth,
                     "0 (the default) or a depth from 1 to",
                     GCA_STACKS_MAX_DEPTH);
    return GC_ERROR;
  }
  gca_stacks_set_depth(depth);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_profile(int profile, size_t sample_bytes)
{
  if (profile < GC_ACC_PROFILE_OFF || profile > GC_ACC_PROFILE_TRACE)
    return GC_ERROR;
  /* The header carries the rate: no more than the reader can read.    */
  if (GC_ACC_PROFILE_SAMPLED == profile
      && !gca_setting_bytes_ok(sample_bytes)) {
    gca_env_warn_api("GC_acc_set_profile", sample_bytes,
                     "sample_bytes from 0 (as it is) to",
                     GCA_SETTING_MAX_BYTES);
    return GC_ERROR;
  }
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  gca_control_set_profile(profile, (word)sample_bytes);
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_get_profile(size_t *sample_bytes)
{
  if (sample_bytes != NULL) *sample_bytes = (size_t)gca_sample_bytes;
  return GCA_LOAD(&gca_profile);
}

GC_API int GC_CALL GC_acc_set_table_limit(size_t bytes)
{
  if (bytes != 0 && (bytes < ((size_t)64 << 10)
                     || !gca_setting_bytes_ok(bytes))) {
    gca_env_warn_api("GC_acc_set_table_limit", bytes,
                     "0 (the default) or a size in bytes from 65536 to",
                     GCA_SETTING_MAX_BYTES);
    return GC_ERROR;
  }
  gca_table_set_limit(bytes);
  return GC_SUCCESS;
}

/* The next allocation's type: tagged by it (full profile), or, in the  */
/* sampled profile, taken by it if it is a sample (samples.c).  The     */
/* first call switches mode 1 to the copy whose pops the note can see   */
/* (tlflags.c, gca_tl_typed).  GC_acc_set_next_type, called before each */
/* allocation by some programs, takes the switch out of line, by a tail */
/* call (with this inlined it kept a frame record: 11 instructions a    */
/* call on gameloop-typed, 7 so, 4 before the switch).                  */
GC_INLINE void api_next_type(word cookie)
{
  if (EXPECT(!GCA_LOAD(&gca_tl_typed), FALSE)) gca_tlflags_typed();
  gca_samples_note_next();
  gca_objtype_set_next(cookie);
}

/* The first call's switch by a tail call, out of line: the common    */
/* path stays a leaf, with no frame record.                             */
static GC_ATTR_NOINLINE void api_next_type_first(word cookie)
{
  gca_tlflags_typed();
  api_next_type(cookie);
}

GC_API void GC_CALL GC_acc_set_next_type(GC_word cookie)
{
  if (EXPECT(!GCA_LOAD(&gca_tl_typed), FALSE)) {
    api_next_type_first((word)cookie);
    return;
  }
  gca_samples_note_next();
  gca_objtype_set_next((word)cookie);
}

GC_API void * GC_CALL GC_acc_malloc_typed(size_t lb, GC_word cookie)
{
  void *p;

  api_next_type((word)cookie);
  p = GC_malloc(lb);
  (void)gca_objtype_take_next();      /* not left for another object */
  return p;
}

GC_API void * GC_CALL GC_acc_malloc_atomic_typed(size_t lb, GC_word cookie)
{
  void *p;

  api_next_type((word)cookie);
  p = GC_malloc_atomic(lb);
  (void)gca_objtype_take_next();
  return p;
}

GC_API void GC_CALL GC_acc_set_type_namer(GC_acc_type_namer_proc fn)
{
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_types_set_namer(fn);
  UNLOCK();
}

GC_API int GC_CALL GC_acc_set_first_word_type_kinds(unsigned mask)
{
  DCL_LOCK_STATE;

  /* Kinds the collector can have (as GC_ACC_FIRST_WORD_TYPES checks).  */
  if (MAXOBJKINDS < 32 && mask >= (1u << (MAXOBJKINDS & 31))) {
    gca_env_warn_api("GC_acc_set_first_word_type_kinds", mask,
                     "a mask of kinds from 0 to",
                     (1u << (MAXOBJKINDS & 31)) - 1);
    return GC_ERROR;
  }
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_objtype_set_first_word_kinds(mask);
  UNLOCK();
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_type_mode(int mode)
{
  DCL_LOCK_STATE;

  if (mode != GC_ACC_TYPES_COOKIES && mode != GC_ACC_TYPES_IL2CPP)
    return GC_ERROR;
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_objtype_set_mode(GC_ACC_TYPES_IL2CPP == mode ? GCA_TYPES_IL2CPP
                                                     : GCA_TYPES_COOKIES);
  UNLOCK();
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_frame(GC_word n)
{
  DCL_LOCK_STATE;

  if (!gca_on) return GC_ERROR;
  LOCK();
  gca_record_frame((word)n);
  UNLOCK();
  return GC_SUCCESS;
}

static size_t api_group_out(int ok, const struct GC_acc_group_stats_s *s,
                            struct GC_acc_group_stats_s *out, size_t out_sz)
{
  if (!ok) return 0;
  if (out_sz > sizeof(*s)) out_sz = sizeof(*s);
  BCOPY(s, out, out_sz);
  return out_sz;
}

GC_API size_t GC_CALL GC_acc_get_type_stats(GC_word cookie,
                                struct GC_acc_group_stats_s *out,
                                size_t out_sz)
{
  struct GC_acc_group_stats_s s;
  int ok;
  DCL_LOCK_STATE;

  if (NULL == out) return 0;
  BZERO(&s, sizeof(s));
  LOCK();
  ok = gca_types_get_type((word)cookie, &s);
  UNLOCK();
  return api_group_out(ok, &s, out, out_sz);
}

GC_API size_t GC_CALL GC_acc_get_site_stats(unsigned site,
                                struct GC_acc_group_stats_s *out,
                                size_t out_sz)
{
  struct GC_acc_group_stats_s s;
  int ok;
  DCL_LOCK_STATE;

  if (NULL == out) return 0;
  BZERO(&s, sizeof(s));
  LOCK();
  ok = gca_types_get_site(site, &s);
  UNLOCK();
  return api_group_out(ok, &s, out, out_sz);
}

GC_API int GC_CALL GC_acc_get_object_tag(const void *p, GC_word *cookie,
                                         unsigned *site)
{
  word c = 0;
  unsigned s = 0;
  int ok;
  DCL_LOCK_STATE;

  if (NULL == p || !GC_is_initialized) return 0;
  LOCK();
  ok = gca_tags_of((void *)p, &c, &s);
  UNLOCK();
  if (cookie != NULL) *cookie = (GC_word)c;
  if (site != NULL) *site = s;
  return ok;
}

GC_API const char * GC_CALL GC_acc_check_books(void)
{
  const char *r;
  DCL_LOCK_STATE;

  if (!GC_is_initialized) return NULL;
  LOCK();
  r = gca_freelist_verify();
  UNLOCK();
  return r;
}

GC_API GC_word GC_CALL GC_acc_get_memory_bytes(void)
{
  struct gca_acc_mem m;
  GC_word r;
  DCL_LOCK_STATE;

  if (!GC_is_initialized) return 0;
  LOCK();
  r = gca_acc_memory(&m);
  UNLOCK();
  return r;
}

#endif /* !GC_ACC_DISABLE */
