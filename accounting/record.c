/*
 * record.c: one JSON line per collection (docs/dump-format.md).
 *
 * gca_record_emit builds the record in a buffer of OS memory sized for
 * the worst case (every kind and class nonzero), from the last census,
 * the allocation counters (as deltas since the previous record), the
 * free-block books, the heap-growth events since the previous record and
 * the heap totals bdwgc keeps, then hands it to the writer
 * (gca_dump_submit, which never blocks).  Only numbers and fixed keys, so
 * no escaping.  Rows whose numbers are all zero are left out.  Runs with
 * the allocation lock held; never allocates from the GC heap, never waits.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <stdio.h>
#include <stdarg.h>
#include <string.h>

/* Worst case: every (kind, class) row of 9 numbers, every free list,    */
/* every growth event, each number at most 21 characters plus a comma.   */
#define REC_NUM 22
#define REC_BUF_SZ ((size_t)MAXOBJKINDS * GCA_N_CLASSES * (9 * REC_NUM + 3) \
                    + (size_t)MAXOBJKINDS * (5 * REC_NUM + 3) \
                    + (size_t)(GCA_N_HBLK_FLS + 1) * (4 * REC_NUM + 3) \
                    + (size_t)GCA_MAX_GROWS * (7 * REC_NUM + 3) + 4096)

static char *rec_buf = NULL;
static size_t rec_len;
static int rec_overflow;
static word rec_seq = 0;

#define rec_prev (gca_tables->rec_prev)
#define rec_cur (gca_tables->rec_cur)
static word rec_prev_debug[MAXOBJKINDS];
static word rec_prev_total_allocd = 0;
static struct gca_grow_event rec_grows[GCA_MAX_GROWS];

static void rec_printf(const char *fmt, ...)
{
  va_list ap;
  int n;

  if (rec_overflow) return;
  va_start(ap, fmt);
  n = vsnprintf(rec_buf + rec_len, REC_BUF_SZ - rec_len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= REC_BUF_SZ - rec_len) {
    rec_overflow = 1;
    return;
  }
  rec_len += (size_t)n;
}

#define U(x) ((unsigned long long)(x))

static const char rec_digits2[201] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536"
  "37383940414243444546474849505152535455565758596061626364656667686970717273"
  "74757677787980818283848586878889909192939495969798" "99";

/* Decimal digits of x at p (at most 20); returns the end.  The rows are */
/* most of a record, and snprintf per number cost more than the census   */
/* itself: two digits at a time, right to left, then copied out.         */
GC_INNER char *gca_put_word(char *p, word x)
{
  char digits[24];
  int d = 24;

  if (x < 10) {
    *p = (char)('0' + x);
    return p + 1;
  }
  while (x >= 100) {
    word q = x / 100;
    const char *dd = rec_digits2 + 2 * (x - q * 100);

    digits[--d] = dd[1];
    digits[--d] = dd[0];
    x = q;
  }
  if (x >= 10) {
    digits[--d] = rec_digits2[2 * x + 1];
    digits[--d] = rec_digits2[2 * x];
  } else {
    digits[--d] = (char)('0' + x);
  }
  memcpy(p, digits + d, (size_t)(24 - d));
  return p + 24 - d;
}

GC_INNER char *gca_put_row(char *p, int first, const word *v, unsigned n)
{
  unsigned i;

  if (!first) *p++ = ',';
  *p++ = '[';
  for (i = 0; i < n; i++) {
    if (i) *p++ = ',';
    p = gca_put_word(p, v[i]);
  }
  *p++ = ']';
  return p;
}

/* Append ",[v0,v1,...]" (no comma when first).                          */
static void rec_row(int first, const word *v, unsigned n)
{
  if (rec_overflow) return;
  if (REC_BUF_SZ - rec_len < (size_t)n * REC_NUM + 4) {
    rec_overflow = 1;
    return;
  }
  rec_len = (size_t)(gca_put_row(rec_buf + rec_len, first, v, n) - rec_buf);
}

GC_INNER void gca_record_emit(int with_census)
{
  const struct gca_census *c = &gca_last_census;
  word heap_reserved, heap_resident, total_allocd, total_free, largest;
  word lost, ppm;
  unsigned k, cls, n, i, n_kinds;
  const char *sep;
  int use_census = with_census && c->valid;
  word now = gca_now_ns();

  if (NULL == gca_tables) return;     /* accounting never went on      */
  if (NULL == rec_buf) {
    rec_buf = (char *)gca_os_alloc(REC_BUF_SZ);
    if (NULL == rec_buf) return;
  }
  rec_len = 0;
  rec_overflow = 0;
  rec_seq++;

  rec_printf("{\"record\":\"%s\",\"seq\":%llu,\"gc_no\":%llu,"
             "\"census\":%d,\"t_start_ns\":%llu,\"t_end_ns\":%llu,"
             "\"mark_ns\":%llu,\"census_ns\":%llu,\"dropped\":%llu,"
             "\"granule_bytes\":%u,\"hblk_bytes\":%u,",
             with_census ? "collection" : "snapshot", U(rec_seq),
             U(use_census ? c->gc_no : GC_gc_no), use_census,
             U(use_census ? c->t_start_ns : now),
             U(use_census ? c->t_end_ns : now),
             U(use_census ? c->mark_ns : 0),
             U(use_census ? c->census_ns : 0),
             U(gca_dump_take_dropped()), (unsigned)GRANULE_BYTES,
             (unsigned)HBLKSIZE);

  /* heap */
  gca_heap_reserved_resident(&heap_reserved, &heap_resident);
  total_allocd = GC_bytes_allocd + GC_bytes_allocd_before_gc;
  rec_printf("\"heap\":{\"heap_bytes\":%llu,\"free_bytes\":%llu,"
             "\"unmapped_bytes\":%llu,\"allocd_since_prev_bytes\":%llu,"
             "\"reserved_bytes\":%llu,\"resident_bytes\":%llu},",
             U(GC_heapsize - GC_unmapped_bytes),
             U(GC_large_free_bytes - GC_unmapped_bytes),
             U(GC_unmapped_bytes), U(total_allocd - rec_prev_total_allocd),
             U(heap_reserved), U(heap_resident));
  rec_prev_total_allocd = total_allocd;

  /* freelists */
  total_free = gca_freelist_total_bytes();
  largest = gca_freelist_largest();
  ppm = gca_frag_index_ppm(total_free, largest);
  /* Fixed point by hand: a locale's decimal comma must not leak in.    */
  rec_printf("\"freelists\":{\"total_free_bytes\":%llu,"
             "\"largest_free_bytes\":%llu,\"frag_index\":%llu.%06llu,"
             "\"lists\":[", U(total_free), U(largest),
             U(ppm / 1000000u), U(ppm % 1000000u));
  sep = "";
  for (i = 0; i <= GCA_N_HBLK_FLS; i++) {
    if (0 == gca_fl.blocks[i] && 0 == gca_fl.bytes[i]) continue;
    {
      word row[4];

      row[0] = i;
      row[1] = gca_fl.blocks[i];
      row[2] = gca_fl.bytes[i];
      row[3] = gca_fl.unmapped_bytes[i];
      rec_row(sep[0] == '\0', row, 4);
    }
    sep = ",";
  }
  rec_printf("]},");

  /* grows */
  n = gca_heapgrow_take(rec_grows, &lost);
  rec_printf("\"grows_lost\":%llu,\"grows\":[", U(lost));
  for (i = 0; i < n; i++) {
    const struct gca_grow_event *e = &rec_grows[i];

    rec_printf("%s[%llu,%llu,%lld,%llu,%llu,%llu,%llu]", i ? "," : "",
               U(e->t_ns), U(e->req_bytes), (long long)e->req_kind,
               U(e->free_bytes), U(e->largest_free_bytes), U(e->grow_bytes),
               U(e->heap_bytes_after));
  }
  rec_printf("],");

  /* kinds */
  rec_printf("\"kinds\":[");
  sep = "";
  for (k = 0; k < MAXOBJKINDS; k++) {
    word dbg = gca_counters_debug_objs((int)k);
    word d = dbg - rec_prev_debug[k];
    const struct gca_kind_census *kc = &c->kinds[k];
    word lo = use_census ? kc->large_live_objs : 0;
    word lb = use_census ? kc->large_live_bytes : 0;
    word lr = use_census ? kc->large_reserved_bytes : 0;

    rec_prev_debug[k] = dbg;
    if (0 == (d | lo | lb | lr)) continue;
    rec_printf("%s[%u,%llu,%llu,%llu,%llu]", sep, k, U(d), U(lo), U(lb),
               U(lr));
    sep = ",";
  }
  rec_printf("],");

  /* classes */
  /* Only kinds that exist have counts or census rows (kinds are never */
  /* removed, so rows of kinds beyond GC_n_kinds stay zero).           */
  n_kinds = GC_n_kinds < MAXOBJKINDS ? GC_n_kinds : MAXOBJKINDS;
  gca_counters_sum_kinds(&rec_cur[0][0], n_kinds);
  rec_printf("\"classes\":[");
  sep = "";
  for (k = 0; k < n_kinds; k++) {
    for (cls = 0; cls < GCA_N_CLASSES; cls++) {
      const struct gca_class_census *cc = &c->c[k][cls];
      const struct gca_count *cur = &rec_cur[k][cls];
      struct gca_count *prev = &rec_prev[k][cls];
      word lo = use_census ? cc->live_objs : 0;
      word lb = use_census ? cc->live_bytes : 0;
      word rb = use_census ? cc->reserved_bytes : 0;
      word fs = use_census ? cc->free_slots : 0;
      word ao = cur->objs - prev->objs;
      word ar = cur->req_bytes - prev->req_bytes;
      word ag = cur->granted_bytes - prev->granted_bytes;

      *prev = *cur;
      if (0 == (lo | lb | rb | fs | ao | ar | ag)) continue;
      {
        word row[9];

        row[0] = k;
        row[1] = cls;
        row[2] = lo;
        row[3] = lb;
        row[4] = rb;
        row[5] = fs;
        row[6] = ao;
        row[7] = ar;
        row[8] = ag;
        rec_row(sep[0] == '\0', row, 9);
      }
      sep = ",";
    }
  }
  rec_printf("]");

  if (rec_overflow) return;     /* cannot happen: sized for the worst */
  /* types.c adds the per-type and per-callsite tables and the tables' */
  /* own memory, closes the record and submits it.                     */
  gca_types_record_submit(rec_buf, rec_len, use_census);
}

#endif /* !GC_ACC_DISABLE */
