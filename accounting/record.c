/* SPDX-License-Identifier: MIT */
/*
 * record.c: every line of the dump after the header (docs/dump-format.md).
 *
 * One module owns the records: a collection or snapshot record
 * (gca_record_emit) and a frame record (gca_record_frame) are taken down
 * here as a tape, in one buffer of OS memory (struct gca_text: it grows,
 * never malloc, never the GC heap) through text.c's gca_tape_*: no text
 * is formatted under the lock, the writer thread writes the tape's line
 * (the type names a tape needs are copied into it), from
 * what the modules below keep: the last census, the allocation counters
 * (as deltas since the previous record), the free-block books, the
 * heap-growth events, the type and site rows and definitions, the frame
 * counts and the tables' own memory.  Rows are written in the column
 * order of gca_fields.h, the list the header names.  Rows whose numbers
 * are all zero are left out.  Then the tape goes to the writer
 * (gca_dump_submit_tape, which never blocks).  Runs with the allocation lock
 * held; never waits.  The bases of the deltas move only when the writer
 * accepted the record, so a dropped record's counts go in the next one;
 * gca_record_final, the last record of a stop, takes the lock itself
 * (with trylock, a bounded time).
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <string.h>
#include <time.h>
#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind, GC_gcj_debug_kind */
#endif

static struct gca_text rec = { NULL, 0, 0, 0 };
static word rec_seq = 0;

static word rec_prev_debug[MAXOBJKINDS];
static word rec_prev_total_allocd = 0;
/* What the record being built read and took, so that it can be        */
/* committed once the writer accepts it, or put back if it is dropped. */
static word rec_cur_debug[MAXOBJKINDS];
static word rec_cur_total_allocd = 0;
static unsigned rec_cur_kinds = 0;  /* kinds whose rows' cur it summed  */
static unsigned rec_took_grows = 0;
static int rec_busy = 0;        /* a record is being built (lock held) */
static word rec_took_grows_lost = 0;

/* Delta records: the census columns of "classes" and "kinds" rows are  */
/* written only where they changed since the last collection record the */
/* writer took (rec_sent_seq, of the dump rec_sent_gen; its census is  */
/* gca_tables->rec_sent_kinds and the rows' sent), one record in       */
/* gca_dump_keyframe() whole (a key frame), and the first of each dump. */
/* rec_delta_now: the record being built is a delta.                    */
#define rec_sent_kinds (gca_tables->rec_sent_kinds)
static word rec_sent_seq = 0;           /* 0: no base                   */
static word rec_sent_gen = 0;
static unsigned rec_since_key = 0;      /* deltas since the key frame   */
static int rec_delta_now = 0;

#define REC_LIT(s) GCA_TAPE_LITERAL(&rec, s)

/* The growth of a cumulative count since the record before (*prev),   */
/* never negative: a sum read while a thread folds its counts may come  */
/* out below the one before (the reader's lock does not stop the        */
/* allocating threads), and an unsigned difference would then wrap to   */
/* 2^64 - d.  Such a read gives 0 and leaves *prev, so the next record  */
/* takes the growth from the higher of the two; summed over records the */
/* deltas stay the final count.                                          */
static word rec_delta(word cur, word *prev)
{
  word d;

  if (cur < *prev) return 0;
  d = cur - *prev;
  *prev = cur;
  return d;
}

/* The same growth for a collection or snapshot record, whose base is   */
/* raised (rec_raise) only once the writer has accepted the record: a   */
/* dropped record's counts go into the next record that reaches the    */
/* file, so the dump's totals stay exact whatever was dropped (issue  */
/* 38: they came out 1.3% short after 116 drops).                      */
static word rec_growth(word cur, word prev)
{
  return cur > prev ? cur - prev : 0;
}

static void rec_raise(word *prev, word cur)
{
  if (cur > *prev) *prev = cur;
}

/* Nonzero if any of v[from, n) is: rows whose numbers (past their key  */
/* columns) are all zero are left out.                                   */
static int rec_any(const word *v, unsigned from, unsigned n)
{
  word x = 0;

  for (; from < n; from++) x |= v[from];
  return x != 0;
}

/* ,"key":x  (the key given with its quotes and colon, as a literal).  */
#define REC_KEY_WORD(key, x) GCA_TAPE_KEY(&rec, key, (x))
/* Times: 64-bit on every target.                                      */
#define REC_KEY_U64(key, x) (REC_LIT(key), gca_tape_u64(&rec, (x)))

/* New type names, then new sites (definitions come before any row that */
/* uses them, in the same record).                                      */
static void rec_site_def(void *arg, unsigned id, const word *frames,
                         unsigned n)
{
  int *first = (int *)arg;

  gca_tape_hex_row(&rec, *first, id, frames, n);
  *first = 0;
}

static void rec_definitions(void)
{
  unsigned id;
  word cookie;
  const char *name;
  int first = 1;

  REC_LIT(",\"types\":[");
  while ((id = gca_types_def_next(&cookie, &name)) != 0) {
    gca_tape_type_def(&rec, first, id, cookie, name, strlen(name));
    first = 0;
  }
  first = 1;
  REC_LIT("],\"sites\":[");
  gca_sites_take_new(rec_site_def, &first);
  REC_LIT("]");
}

/* The type (sites 0) or site rows that changed since the last record. */
static void rec_group_rows(int sites)
{
  unsigned i, n = gca_types_rows_n(sites);
  word v[GCA_NCOLS_type_rows];
  int first = 1;

  for (i = 0; i < n; i++) {
    if (!gca_types_row_take(sites, i, v)) continue;
    gca_tape_row(&rec, first, v, GCA_NCOLS_type_rows);
    first = 0;
  }
}

GC_INNER word gca_acc_memory(struct gca_acc_mem *m)
{
  m->tags = gca_tags_memory_bytes();
  m->types = gca_types_memory_bytes() + gca_objtype_memory_bytes();
  m->sites = gca_sites_memory_bytes();
  m->counters = gca_counters_memory_bytes();
  m->samples = gca_samples_memory_bytes();
  m->tables = gca_tables_memory_bytes();
  m->unwind = gca_unwind_memory_bytes();
  return m->tags + m->types + m->sites + m->counters + m->samples
         + m->tables + m->unwind;
}

/* Finish a record: the type and site tables (census records with tags */
/* on), the memory the accounting tables use, "}\n"; then submit it.    */
/* 1 if the writer took it, 0 if it was dropped (or lost: no memory).  */
static int rec_finish(int with_census)
{
  struct gca_acc_mem m;
  word acc = gca_acc_memory(&m), walks, fell_back;

  if (with_census && (gca_tags_on || GCA_PROFILE_SAMPLED == gca_profile)) {
    rec_definitions();
    REC_LIT(",\"type_rows\":[");
    rec_group_rows(0);
    REC_LIT("],\"site_rows\":[");
    rec_group_rows(1);
    REC_LIT("]");
  }
  REC_KEY_WORD(",\"acc_memory\":{\"tags_bytes\":", m.tags);
  REC_KEY_WORD(",\"tags_in_use_bytes\":", gca_tags_in_use_bytes());
  REC_KEY_WORD(",\"types_bytes\":", m.types);
  REC_KEY_WORD(",\"sites_bytes\":", m.sites);
  REC_KEY_WORD(",\"counters_bytes\":", m.counters);
  REC_KEY_WORD(",\"samples_bytes\":", m.samples);
  REC_KEY_WORD(",\"tables_bytes\":", m.tables);
  REC_KEY_WORD(",\"unwind_bytes\":", m.unwind);
  REC_KEY_WORD("},\"acc_memory_bytes\":", acc);
  /* Sampled stacks walked by the cached unwind rules (x86-64): how     */
  /* many fell back to _Unwind_Backtrace, the slow walk.                */
  gca_unwcfi_walks(&walks, &fell_back);
  if (walks != 0) {
    REC_KEY_WORD(",\"unwind\":{\"walks\":", walks);
    REC_KEY_WORD(",\"fell_back\":", fell_back);
    REC_LIT("}");
  }
  if (GCA_PROFILE_SAMPLED == gca_profile) {
    word taken, dropped, tracked;

    gca_samples_stats(&taken, &dropped, &tracked);
    REC_KEY_WORD(",\"samples\":{\"taken\":", taken);
    REC_KEY_WORD(",\"dropped\":", dropped);
    REC_KEY_WORD(",\"tracked\":", tracked);
    REC_LIT("}");
  }
  REC_LIT("}\n");
  if (rec.fail) {
    /* No memory: this record is lost, but counted (an empty submit is */
    /* a drop), with the drops it carried, in the next record's         */
    /* "dropped": its seq is taken, and a gap must say why.             */
    rec.fail = 0;
    (void)gca_dump_submit(NULL, 0);
    return 0;
  }
  /* A delta goes only into the dump its base is in.                   */
  return gca_dump_submit_tape(rec.buf, rec.len,
                              rec_delta_now ? rec_sent_gen : 0) == 0;
}

static void rec_freelists(void)
{
  const struct gca_freelist_books *fl = gca_freelist_read();
  word total_free = fl->total_bytes;
  word largest = fl->largest_bytes;
  word ppm = gca_frag_index_ppm(total_free, largest);
  char frac[6];
  unsigned i, d;
  int first = 1;

  REC_KEY_WORD("\"freelists\":{\"total_free_bytes\":", total_free);
  REC_KEY_WORD(",\"largest_free_bytes\":", largest);
  /* Fixed point by hand: a locale's decimal comma must not leak in.    */
  REC_KEY_WORD(",\"frag_index\":", ppm / 1000000u);
  for (i = 0, d = 100000; i < 6; i++, d /= 10)
    frac[i] = (char)('0' + ppm % 1000000u / d % 10);
  REC_LIT(".");
  gca_tape_bytes(&rec, GCA_TAPE_RAW, frac, 6);
  REC_LIT(",\"lists\":[");
  for (i = 0; i <= GCA_N_HBLK_FLS; i++) {
    word row[GCA_NCOLS_lists];

    if (0 == fl->blocks[i] && 0 == fl->bytes[i]) continue;
    row[GCA_COL_lists_index] = i;
    row[GCA_COL_lists_blocks] = fl->blocks[i];
    row[GCA_COL_lists_bytes] = fl->bytes[i];
    row[GCA_COL_lists_unmapped_bytes] = fl->unmapped_bytes[i];
    gca_tape_row(&rec, first, row, GCA_NCOLS_lists);
    first = 0;
  }
  REC_LIT("]},");
}

static void rec_grows_rows(void)
{
  word lost;
  unsigned i, n;
  /* In place: nothing here grows the heap before the rows are written. */
  const struct gca_grow_event *grows = gca_heapgrow_take(&n, &lost);

  rec_took_grows = n;
  rec_took_grows_lost = lost;

  REC_KEY_WORD("\"grows_lost\":", lost);
  REC_LIT(",\"grows\":[");
  for (i = 0; i < n; i++) {
    const struct gca_grow_event *e = &grows[i];

    /* req_kind may be -1: the one signed column.                       */
    if (i) REC_LIT(",");
    REC_LIT("[");
    gca_tape_u64(&rec, e->t_ns);
    REC_KEY_WORD(",", e->req_bytes);
    REC_LIT(",");
    gca_tape_one(&rec, GCA_TAPE_SWORD, (word)e->req_kind);
    REC_KEY_WORD(",", e->free_bytes);
    REC_KEY_WORD(",", e->largest_free_bytes);
    REC_KEY_WORD(",", e->grow_bytes);
    REC_KEY_WORD(",", e->heap_bytes_after);
    REC_LIT("]");
  }
  REC_LIT("],");
}

/* A kind's name where the collector knows it (the reader names the   */
/* rest "kind N"): kind 3 is atomic-uncollectable only in builds that   */
/* make it, and the gcj kinds are made at the embedder's init.          */
static const char *rec_kind_name(unsigned k)
{
  if (PTRFREE == k) return "ptrfree";
  if (NORMAL == k) return "normal";
  if (UNCOLLECTABLE == k) return "uncollectable";
# ifdef GC_ATOMIC_UNCOLLECTABLE
    if (AUNCOLLECTABLE == k) return "atomic-uncollectable";
# endif
# ifdef GC_GCJ_SUPPORT
    if (GC_gcj_kind > 0 && k == (unsigned)GC_gcj_kind) return "gcj";
    if (GC_gcj_debug_kind > 0 && k == (unsigned)GC_gcj_debug_kind)
      return "gcj-debug";
# endif
  if (k < 32 && ((gca_gcj_kinds >> k) & 1) != 0) return "gcj-like";
  return NULL;
}

/* What the kind names depend on, to tell when they changed.           */
/* 64 bits on every target (fields up to bit 55).                      */
typedef unsigned long long rec_sig_t;
static rec_sig_t rec_kind_sig(void)
{
  rec_sig_t sig = (rec_sig_t)GC_n_kinds ^ ((rec_sig_t)gca_gcj_kinds << 8);

# ifdef GC_GCJ_SUPPORT
    sig ^= ((rec_sig_t)(unsigned)GC_gcj_kind << 40)
           ^ ((rec_sig_t)(unsigned)GC_gcj_debug_kind << 48);
# endif
  return sig;
}
static rec_sig_t rec_kind_sig_sent = ~(rec_sig_t)0;

/* "kind_names":{"0":"ptrfree",...}: every kind made so far that has a */
/* name.  Every collection and snapshot record has them, a frame record */
/* when they changed since the record before (a game's first frames    */
/* come before its first collection).                                   */
static void rec_kind_names(int lead)
{
  unsigned k;
  int first = 1;

  rec_kind_sig_sent = rec_kind_sig();
  if (lead) REC_LIT(",");
  REC_LIT("\"kind_names\":{");
  for (k = 0; k < GC_n_kinds && k < MAXOBJKINDS; k++) {
    const char *name = rec_kind_name(k);

    if (NULL == name) continue;
    if (!first) REC_LIT(",");
    REC_KEY_WORD("\"", k);
    REC_LIT("\":");
    gca_tape_bytes(&rec, GCA_TAPE_STRING, name, strlen(name));
    first = 0;
  }
  if (lead) REC_LIT("}"); else REC_LIT("},");
}

static void rec_kinds(int use_census)
{
  const struct gca_census *c = &gca_last_census;
  unsigned k;
  int first = 1;

  REC_LIT("\"kinds\":[");
  for (k = 0; k < MAXOBJKINDS; k++) {
    word dbg = gca_counters_debug_objs((int)k);
    const struct gca_kind_census *kc = &c->kinds[k];
    word row[GCA_NCOLS_kinds];

    row[GCA_COL_kinds_kind] = k;
    rec_cur_debug[k] = dbg;
    row[GCA_COL_kinds_debug_objs] = rec_growth(dbg, rec_prev_debug[k]);
    row[GCA_COL_kinds_large_live_objs] = use_census ? kc->large_live_objs : 0;
    row[GCA_COL_kinds_large_live_bytes] = use_census ? kc->large_live_bytes : 0;
    row[GCA_COL_kinds_large_reserved_bytes] =
                                use_census ? kc->large_reserved_bytes : 0;
    if (rec_delta_now) {
      /* A delta: the rows whose census changed, or that count debug    */
      /* allocations (a row that went to zero is written, with zeros).  */
      if (0 == row[GCA_COL_kinds_debug_objs]
          && 0 == memcmp(kc, &rec_sent_kinds[k], sizeof(*kc)))
        continue;
    } else if (!rec_any(row, GCA_COL_kinds_debug_objs, GCA_NCOLS_kinds)) {
      continue;
    }
    gca_tape_row(&rec, first, row, GCA_NCOLS_kinds);
    first = 0;
  }
  REC_LIT("],");
}

static void rec_classes(int use_census)
{
  unsigned k, cls, n_kinds;
  int first = 1;

  /* Only kinds that exist have counts or census rows (kinds are never */
  /* removed).  A pair without a row has no counts and no census.      */
  n_kinds = GC_n_kinds < MAXOBJKINDS ? GC_n_kinds : MAXOBJKINDS;
  gca_counters_sum_rows(n_kinds);
  rec_cur_kinds = n_kinds;
  REC_LIT("\"classes\":[");
  for (k = 0; k < n_kinds; k++) {
    for (cls = 0; cls < GCA_N_CLASSES; cls++) {
      const struct gca_row *r = gca_row_find(k, cls);
      const struct gca_class_census *cc;
      word row[GCA_NCOLS_classes];

      if (NULL == r) continue;
      cc = &r->census;
      row[GCA_COL_classes_kind] = k;
      row[GCA_COL_classes_class] = cls;
      row[GCA_COL_classes_live_objs] = use_census ? cc->live_objs : 0;
      row[GCA_COL_classes_live_bytes] = use_census ? cc->live_bytes : 0;
      row[GCA_COL_classes_reserved_bytes] =
                                use_census ? cc->reserved_bytes : 0;
      row[GCA_COL_classes_free_slots] = use_census ? cc->free_slots : 0;
      row[GCA_COL_classes_alloc_objs] = rec_growth(r->cur.objs, r->prev.objs);
      row[GCA_COL_classes_alloc_req_bytes] =
                        rec_growth(r->cur.req_bytes, r->prev.req_bytes);
      row[GCA_COL_classes_alloc_granted_bytes] =
                rec_growth(r->cur.granted_bytes, r->prev.granted_bytes);
      if (rec_delta_now) {
        if (!rec_any(row, GCA_COL_classes_alloc_objs, GCA_NCOLS_classes)
            && 0 == memcmp(cc, &r->sent, sizeof(*cc)))
          continue;
      } else if (!rec_any(row, GCA_COL_classes_live_objs,
                          GCA_NCOLS_classes)) {
        continue;
      }
      gca_tape_row(&rec, first, row, GCA_NCOLS_classes);
      first = 0;
    }
  }
  REC_LIT("]");
}

/* The writer took the record: its counts are the base of the next,   */
/* and a collection record's census the base of the next delta.        */
static void rec_commit(int rows, int census)
{
  unsigned k, s;

  if (census) {
    const struct gca_census *c = &gca_last_census;

    BCOPY(c->kinds, rec_sent_kinds, sizeof(rec_sent_kinds));
    for (s = 1; s <= gca_n_rows; s++)
      gca_rows[s].sent = gca_rows[s].census;
    rec_since_key = rec_delta_now ? rec_since_key + 1 : 0;
    rec_sent_seq = rec_seq;
    rec_sent_gen = gca_dump_generation();
  }

  for (k = 0; k < MAXOBJKINDS; k++)
    rec_raise(&rec_prev_debug[k], rec_cur_debug[k]);
  rec_raise(&rec_prev_total_allocd, rec_cur_total_allocd);
  for (s = 1; s <= gca_n_rows; s++) {
    struct gca_row *r = &gca_rows[s];

    if (r->kind >= rec_cur_kinds) continue;
    rec_raise(&r->prev.objs, r->cur.objs);
    rec_raise(&r->prev.req_bytes, r->cur.req_bytes);
    rec_raise(&r->prev.granted_bytes, r->cur.granted_bytes);
  }
  if (rows) {
    gca_types_rows_commit(0);
    gca_types_rows_commit(1);
  }
}

GC_INNER void gca_record_emit(int with_census)
{
  const struct gca_census *c = &gca_last_census;
  word heap_reserved, heap_resident, total_allocd;
  int use_census = with_census && c->valid;
  uint64_t now = gca_now_ns();
  unsigned types_mark, sites_mark;

  if (NULL == gca_tables) return;     /* accounting never went on      */
  rec_busy = 1;
  rec.len = 0;
  rec_seq++;
  types_mark = gca_types_def_mark();
  sites_mark = gca_sites_take_mark();

  if (with_census)
    REC_LIT("{\"record\":\"collection\"");
  else
    REC_LIT("{\"record\":\"snapshot\"");
  REC_KEY_WORD(",\"seq\":", rec_seq);
  REC_KEY_WORD(",\"gc_no\":", use_census ? c->gc_no : GC_gc_no);
  REC_KEY_WORD(",\"census\":", (word)use_census);
  /* A delta on the last collection record taken, or a key frame.      */
  rec_delta_now = use_census && rec_sent_seq != 0
                  && rec_sent_gen == gca_dump_generation()
                  && rec_since_key + 1 < gca_dump_keyframe();
  if (rec_delta_now) REC_KEY_WORD(",\"delta_of\":", rec_sent_seq);
  REC_KEY_U64(",\"t_start_ns\":", use_census ? c->t_start_ns : now);
  REC_KEY_U64(",\"t_end_ns\":", use_census ? c->t_end_ns : now);
  REC_KEY_U64(",\"mark_ns\":", use_census ? c->mark_ns : 0);
  REC_KEY_U64(",\"census_ns\":", use_census ? c->census_ns : 0);
  REC_KEY_WORD(",\"dropped\":", gca_dump_take_dropped());
  REC_KEY_WORD(",\"granule_bytes\":", (word)GRANULE_BYTES);
  REC_KEY_WORD(",\"hblk_bytes\":", (word)HBLKSIZE);
  /* The stack sampler's mean now (the header's may be out of date: a   */
  /* program that chose its stacks after the dump started).             */
  REC_KEY_WORD(",\"stacks_sample_bytes\":",
               gca_profile != GCA_PROFILE_SAMPLED
               && GCA_STACKS_SAMPLE == gca_stacks_mode
               ? gca_stacks_sample_bytes : 0);
  REC_LIT(",");

  gca_heap_reserved_resident(&heap_reserved, &heap_resident);
  total_allocd = GC_bytes_allocd + GC_bytes_allocd_before_gc;
  REC_KEY_WORD("\"heap\":{\"heap_bytes\":", GC_heapsize - GC_unmapped_bytes);
  REC_KEY_WORD(",\"free_bytes\":", GC_large_free_bytes - GC_unmapped_bytes);
  REC_KEY_WORD(",\"unmapped_bytes\":", GC_unmapped_bytes);
  rec_cur_total_allocd = total_allocd;
  REC_KEY_WORD(",\"allocd_since_prev_bytes\":",
               rec_growth(total_allocd, rec_prev_total_allocd));
  REC_KEY_WORD(",\"reserved_bytes\":", heap_reserved);
  REC_KEY_WORD(",\"resident_bytes\":", heap_resident);
  REC_LIT("},");

  rec_freelists();
  rec_grows_rows();
  rec_kind_names(0);
  rec_kinds(use_census);
  rec_classes(use_census);
  if (rec_finish(use_census)) {
    rec_commit(use_census && (gca_tags_on
                              || GCA_PROFILE_SAMPLED == gca_profile),
               use_census);
  } else {
    /* Dropped: its definitions go again, its heap growths count as   */
    /* lost, and its counts stay in the next record's deltas.          */
    gca_types_def_rewind(types_mark);
    gca_sites_take_rewind(sites_mark);
    gca_heapgrow_untake(rec_took_grows, rec_took_grows_lost);
  }
  rec_delta_now = 0;
  rec_busy = 0;
}

/* The allocation lock, for a record at a stop (gca_record_final), but */
/* never waited for long: at exit the thread running exit() may be one */
/* a signal interrupted while it held it.  1 if taken (UNLOCK then).    */
#define REC_LOCK_WAIT_NS ((word)50000000)

static int rec_lock_bounded(void)
{
# if defined(THREADS) && (defined(USE_PTHREAD_LOCKS) \
                          || defined(USE_SPIN_LOCK))
    uint64_t deadline = gca_now_ns() + REC_LOCK_WAIT_NS;

    if (!GC_need_to_lock) return !rec_busy;
    for (;;) {
      struct timespec nap = { 0, 200000 };

#     ifdef USE_PTHREAD_LOCKS
        if (pthread_mutex_trylock(&GC_allocate_ml) == 0) {
#     else
        if (AO_test_and_set_acquire(&GC_allocate_lock) != AO_TS_SET) {
#     endif
#       ifdef GC_ASSERTIONS
          SET_LOCK_HOLDER();
#       endif
        return 1;
      }
      if (gca_now_ns() >= deadline) return 0;
      (void)nanosleep(&nap, NULL);
    }
# elif defined(THREADS)
    return 0;           /* no try-lock here: no last record            */
# else
    return !rec_busy;
# endif
}

GC_INNER int gca_record_final(void)
{
  DCL_LOCK_STATE;

  if (!rec_lock_bounded()) return 0;
  if (gca_dump_is_open()) gca_record_emit(0);
  UNLOCK();
  return 1;
}

/* The frame's allocations per kind: the growth of the allocation      */
/* counters (objects, granted bytes, summed over the size classes)      */
/* since the marker before, exact in every profile and whatever the     */
/* type or callsite tables hold.  One sum of the counters per marker    */
/* (kinds x classes x threads words), nothing per object.  The rows'   */
/* cur is the scratch rec_classes uses too (lock held for both).  The  */
/* first marker only takes the base; a marker without a dump keeps it  */
/* going.                                                                */
static word rec_frame_prev[MAXOBJKINDS][2];

static void rec_frame_kinds(int write)
{
  unsigned k, s, n_kinds;
  word objs[MAXOBJKINDS], bytes[MAXOBJKINDS];
  int first = 1;

  if (NULL == gca_tables) return;
  n_kinds = GC_n_kinds < MAXOBJKINDS ? GC_n_kinds : MAXOBJKINDS;
  gca_counters_sum_rows(n_kinds);
  BZERO(objs, sizeof(objs));
  BZERO(bytes, sizeof(bytes));
  for (s = 1; s <= gca_n_rows; s++) {
    const struct gca_row *r = &gca_rows[s];

    if (r->kind >= n_kinds) continue;
    objs[r->kind] += r->cur.objs;
    bytes[r->kind] += r->cur.granted_bytes;
  }
  if (write) REC_LIT(",\"kind_rows\":[");
  for (k = 0; k < n_kinds; k++) {
    word row[GCA_NCOLS_frame_kind_rows];

    row[GCA_COL_frame_kind_rows_kind] = k;
    row[GCA_COL_frame_kind_rows_objs] =
                                rec_delta(objs[k], &rec_frame_prev[k][0]);
    row[GCA_COL_frame_kind_rows_bytes] =
                                rec_delta(bytes[k], &rec_frame_prev[k][1]);
    if (!write
        || !rec_any(row, GCA_COL_frame_kind_rows_objs,
                    GCA_NCOLS_frame_kind_rows))
      continue;
    gca_tape_row(&rec, first, row, GCA_NCOLS_frame_kind_rows);
    first = 0;
  }
  if (write) REC_LIT("]");
}

/* A frame record (lock held).  The first call only starts the         */
/* counting: no frame has been counted yet, so it writes no record.     */
GC_INNER void gca_record_frame(word n)
{
  unsigned i, n_rows, types_mark, sites_mark;
  word lost_objs, lost_bytes;
  int first = 1;

  if (!gca_frames_begin()) {
    rec_frame_kinds(0);         /* the base of the first frame          */
    return;
  }
  gca_frames_take_threads();
  /* Sampled: the types read from word 0 since the objects were counted */
  /* (samples.c), before the rows' type ids are taken.                  */
  if (GCA_PROFILE_SAMPLED == gca_profile) gca_samples_frame_types();
  if (!gca_dump_is_open()) {
    rec_frame_kinds(0);
    gca_frames_reset();         /* no dump: just start the next frame  */
    return;
  }
  rec.len = 0;
  types_mark = gca_types_def_mark();
  sites_mark = gca_sites_take_mark();
  REC_KEY_WORD("{\"record\":\"frame\",\"frame\":", n);
  REC_KEY_WORD(",\"gc_no\":", GC_gc_no);
  REC_KEY_U64(",\"t_ns\":", gca_now_ns());
  /* Type ids first (may intern), then their definitions.              */
  n_rows = gca_frames_n_rows();
  for (i = 0; i < n_rows; i++) (void)gca_pair_type(gca_frames_row_pair(i));
  rec_definitions();
  REC_LIT(",\"rows\":[");
  for (i = 0; i < n_rows; i++) {
    word v[GCA_NCOLS_frame_rows];

    gca_frames_row(i, v);
    /* A row whose counts all moved to the type word 0 named (samples). */
    if (!rec_any(v, GCA_COL_frame_rows_objs, GCA_NCOLS_frame_rows))
      continue;
    gca_tape_row(&rec, first, v, GCA_NCOLS_frame_rows);
    first = 0;
  }
  REC_LIT("]");
  if (rec_kind_sig() != rec_kind_sig_sent) rec_kind_names(1);
  rec_frame_kinds(1);
  gca_frames_lost(&lost_objs, &lost_bytes);
  REC_KEY_WORD(",\"lost_objs\":", lost_objs);
  REC_KEY_WORD(",\"lost_bytes\":", lost_bytes);
  REC_LIT("}\n");
  gca_frames_reset();
  if (rec.fail) {
    rec.fail = 0;
    (void)gca_dump_submit(NULL, 0);     /* lost: counted as a drop      */
  } else if (gca_dump_submit_tape(rec.buf, rec.len, 0) == 0) {
    return;
  }
  /* Dropped: the definitions it carried go in the next record.        */
  gca_types_def_rewind(types_mark);
  gca_sites_take_rewind(sites_mark);
}

#endif /* !GC_ACC_DISABLE */
