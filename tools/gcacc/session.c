/* SPDX-License-Identifier: MIT */
/*
 * session.c: one streaming pass over a dump (see session.h).
 */

#include "session.h"
#include "dump_read.h"
#include "gcacc.h"

#include <stdlib.h>
#include <string.h>

u64 jnum(const json_t *obj, const char *dotted)
{
  char key[64];
  const char *dot = strchr(dotted, '.');
  const json_t *v;

  if (!json_is_object(obj)) return 0;
  if (dot != NULL) {
    size_t n = (size_t)(dot - dotted);

    if (n >= sizeof(key)) return 0;
    memcpy(key, dotted, n);
    key[n] = '\0';
    return jnum(json_object_get(obj, key), dot + 1);
  }
  v = json_object_get(obj, dotted);
  if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
    return i < 0 ? 0 : (u64)i;
  }
  if (json_is_real(v)) {
    /* Clamped: converting a double out of u64's range (or NaN) is       */
    /* undefined behaviour (found by tests/fuzz).                        */
    double d = json_real_value(v);

    if (!(d > 0)) return 0;
    if (d >= 18446744073709551615.0) return ~(u64)0;
    return (u64)d;
  }
  return 0;
}

u64 jrow(const json_t *row, size_t i)
{
  const json_t *v = json_array_get(row, i);

  if (json_is_integer(v)) {
    json_int_t x = json_integer_value(v);
    return x < 0 ? 0 : (u64)x;
  }
  return 0;
}

void session_warn_cols(const struct dump_reader *d)
{
  const char *m = dump_cols(d)->missing;

  if (m[0] != '\0')
    warning("%s: the header's columns lack %s: read as 0", dump_name(d), m);
}

u64 header_config(const json_t *header, const char *key, u64 dflt)
{
  const json_t *c = json_object_get(header, "config");
  const json_t *v = json_object_get(c, key);

  return json_is_integer(v) ? (u64)json_integer_value(v) : dflt;
}

int header_module(const json_t *m, const char **path, const char **build_id,
                  u64 *base)
{
  const json_t *b = json_object_get(m, "base");

  *path = json_string_value(json_object_get(m, "path"));
  *build_id = json_string_value(json_object_get(m, "build_id"));
  if (json_is_string(b)) return parse_addr(json_string_value(b), base);
  if (!json_is_integer(b)) return 0;
  *base = (u64)json_integer_value(b);
  return 1;
}

void class_range(const json_t *header, unsigned cls, u64 *lo, u64 *hi)
{
  u64 g = header_config(header, "granule_bytes", 16);
  u64 l0 = header_config(header, "large_class0", 129);
  u64 lg = header_config(header, "large_log0", 11);

  if (cls < l0) {
    *lo = *hi = (u64)cls * g;
  } else {
    /* Saturated: a class or large_log0 from a corrupt dump could ask    */
    /* for a shift of 64 or more, undefined behaviour (found by fuzzing). */
    u64 sh = (u64)(cls - (unsigned)l0) + lg;

    *lo = sh < 64 ? (u64)1 << sh : ~(u64)0;
    *hi = sh < 63 ? ((u64)1 << (sh + 1)) - 1 : ~(u64)0;
  }
}

const char *class_label(const json_t *header, unsigned cls, char *buf)
{
  u64 lo, hi;
  char a[16], b[16];

  if (cls == 0xffffffffu) {             /* KEYMAP_OTHER's class half     */
    snprintf(buf, 32, "(other)");
    return buf;
  }
  class_range(header, cls, &lo, &hi);
  if (lo == hi) snprintf(buf, 32, "%s", emit_size(lo, a));
  else snprintf(buf, 32, "%s-%s", emit_size(lo, a), emit_size(hi + 1, b));
  return buf;
}

/* Kind names the records give ("kind_names", newest wins); before     */
/* any, or for a dump without them, the four fixed ones of a default   */
/* bdwgc build.                                                         */
#define KIND_NAMES_MAX 64
static char kind_names[KIND_NAMES_MAX][24];

void kind_names_note(const json_t *rec)
{
  const json_t *o = json_object_get(rec, "kind_names"), *v;
  const char *key;

  if (!json_is_object(o)) return;
  json_object_foreach((json_t *)o, key, v) {
    char *end;
    unsigned long k = strtoul(key, &end, 10);
    const char *name = json_string_value(v);

    if (*key == '\0' || *end != '\0' || k >= KIND_NAMES_MAX || name == NULL
        || *name == '\0' || strlen(name) >= sizeof(kind_names[0])
        || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-")
           != strlen(name))
      continue;                 /* a name we did not write: not taken */
    snprintf(kind_names[k], sizeof(kind_names[k]), "%s", name);
  }
}

const char *kind_name_known(unsigned kind)
{
  return kind < KIND_NAMES_MAX && kind_names[kind][0] != '\0'
         ? kind_names[kind] : NULL;
}

const char *kind_label(unsigned kind, char *buf)
{
  static const char *names[] = { "ptrfree", "normal", "uncollectable",
                                 "atomic-uncollectable" };

  if (kind < KIND_NAMES_MAX && kind_names[kind][0] != '\0')
    return kind_names[kind];
  if (kind < 4) return names[kind];
  if (kind == 0xffffffffu) return "(other)";  /* KEYMAP_OTHER's kind half */
  snprintf(buf, 16, "kind %u", kind);
  return buf;
}

/* ---- lean scans (see session.h) ---------------------------------------- */

static const char *lean_keys = SESSION_LEAN_TABLES, *lean_skip;
static const struct dump_reader *visiting;      /* during a visit        */

void session_lean(const char *keys, const char *skip)
{
  lean_keys = keys;
  lean_skip = skip;
}

struct dump_tab rec_tab(const json_t *rec, const char *key)
{
  return dump_tab(visiting, rec, key);
}

u64 tab_u64(const struct dump_tab *t, size_t i, size_t k)
{
  long long v;

  return dump_tab_int(t, i, k, &v) && v > 0 ? (u64)v : 0;
}

void rec_class_add(const struct rec *r, int live, u64 *by)
{
  const struct dump_tab classes = rec_tab(r->json, "classes");
  size_t i, vcol = live ? DUMP_COL(r->cols, classes, live_bytes)
                        : DUMP_COL(r->cols, classes, alloc_granted_bytes);

  for (i = 0; i < dump_tab_rows(&classes); i++) {
    u64 k = tcol(&classes, i, r->cols, classes, kind);
    u64 c = tcol(&classes, i, r->cols, classes, class);

    if (k < SESSION_MAX_KINDS && c < SESSION_MAX_CLASSES)
      by[k * SESSION_MAX_CLASSES + c] += tab_u64(&classes, i, vcol);
  }
}

static void rec_fill(struct rec *r, const json_t *j,
                     const struct dump_cols *cols)
{
  const struct dump_tab classes = rec_tab(j, "classes");
  const struct dump_tab kinds = rec_tab(j, "kinds");
  const json_t *fl = json_object_get(j, "freelists");
  const json_t *fi = json_object_get(fl, "frag_index");
  size_t i;

  memset(r, 0, sizeof(*r));
  r->json = j;
  r->cols = cols;
  r->collection = strcmp(json_string_value(json_object_get(j, "record")),
                         "collection") == 0;
  r->census = (int)jnum(j, "census");
  r->seq = jnum(j, "seq");
  r->gc_no = jnum(j, "gc_no");
  r->t_start_ns = jnum(j, "t_start_ns");
  r->t_end_ns = jnum(j, "t_end_ns");
  r->mark_ns = jnum(j, "mark_ns");
  r->census_ns = jnum(j, "census_ns");
  r->dropped = jnum(j, "dropped");
  r->heap_bytes = jnum(j, "heap.heap_bytes");
  r->free_bytes = jnum(j, "heap.free_bytes");
  r->unmapped_bytes = jnum(j, "heap.unmapped_bytes");
  r->allocd_since_prev_bytes = jnum(j, "heap.allocd_since_prev_bytes");
  r->reserved_bytes = jnum(j, "heap.reserved_bytes");
  r->resident_bytes = jnum(j, "heap.resident_bytes");
  r->total_free_bytes = jnum(fl, "total_free_bytes");
  r->largest_free_bytes = jnum(fl, "largest_free_bytes");
  r->frag_index = json_is_number(fi) ? json_number_value(fi) : 0.0;
  for (i = 0; i < dump_tab_rows(&classes); i++) {
    r->live_objs += tcol(&classes, i, cols, classes, live_objs);
    r->live_bytes += tcol(&classes, i, cols, classes, live_bytes);
    r->class_reserved_bytes
      += tcol(&classes, i, cols, classes, reserved_bytes);
    r->free_slots += tcol(&classes, i, cols, classes, free_slots);
    r->alloc_objs += tcol(&classes, i, cols, classes, alloc_objs);
    r->alloc_req_bytes += tcol(&classes, i, cols, classes, alloc_req_bytes);
    r->alloc_granted_bytes
      += tcol(&classes, i, cols, classes, alloc_granted_bytes);
  }
  for (i = 0; i < dump_tab_rows(&kinds); i++)
    r->debug_objs += tcol(&kinds, i, cols, kinds, debug_objs);
  {
    const struct dump_tab grows = rec_tab(j, "grows");

    r->n_grows = (unsigned)dump_tab_rows(&grows);
  }
}

int session_scan(const char *path, int progress, rec_visitor fn, void *arg,
                 struct session_info *info)
{
  return session_scan_frames(path, progress, fn, NULL, arg, info);
}

int session_scan_frames(const char *path, int progress, rec_visitor fn,
                        frame_visitor ffn, void *arg,
                        struct session_info *info)
{
  return session_scan_all(path, progress, fn, ffn, NULL, arg, info);
}

int session_scan_all(const char *path, int progress, rec_visitor fn,
                     frame_visitor ffn, frame_visitor ofn, void *arg,
                     struct session_info *info)
{
  const char *err = NULL;
  struct dump_reader *d = dump_open(path, &err);
  json_t *v;
  enum dump_status st;
  int rc = EXIT_OK, stop = 0;
  unsigned long info_warned = 0;

  if (info != NULL) {
    memset(info, 0, sizeof(*info));
    dump_cols_init(&info->cols, NULL);
  }
  if (d == NULL) {
    error("%s", err);
    return EXIT_USAGE;
  }
  dump_set_lean(d, lean_keys, lean_skip);
  visiting = d;
  while (!stop && (st = dump_next(d, &v)) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    if (dump_warning(d) != NULL) {
      if (++info_warned <= 10) warning("%s", dump_warning(d));
      if (info_warned == 10)
        warning("%s: more impossible values are not shown", dump_name(d));
    }
    if (strcmp(kind, "header") == 0) {
      if (dump_records(d) != 1) {
        warning("%s: a second header at byte %llu (record %lu); ignored",
                dump_name(d), dump_offset(d), dump_records(d));
      } else {
        session_warn_cols(d);
        if (info != NULL) {
          info->header = json_incref(v);
          info->cols = *dump_cols(d);
        }
      }
    } else if (strcmp(kind, "collection") == 0
               || strcmp(kind, "snapshot") == 0) {
      struct rec r;

      kind_names_note(v);
      rec_fill(&r, v, dump_cols(d));
      stop = fn != NULL && fn(&r, arg);
    } else if (strcmp(kind, "frame") == 0) {
      kind_names_note(v);
      stop = ffn != NULL && ffn(v, arg);
    } else if (ofn != NULL) {   /* retain, ...; or from a newer writer */
      stop = ofn(v, arg);
    }
    json_decref(v);
    progress_update(progress, dump_name(d), dump_compressed_offset(d),
                    dump_compressed_size(d));
  }
  progress_done(progress);
  if (!stop && dump_warning(d) != NULL) warning("%s", dump_warning(d));
  if (!stop) {
    if (st == DUMP_ERROR) {
      error("%s", dump_error(d));
      rc = EXIT_USAGE;
    } else if (st == DUMP_TRUNCATED) {
      warning("%s", dump_error(d));
      if (info != NULL) info->truncated = 1;
    }
  }
  if (info != NULL) info->records = dump_records(d);
  visiting = NULL;
  dump_close(d);
  return rc;
}

int session_summary_visit(const struct rec *r, void *arg)
{
  struct session_summary *s = arg;

  if (s->t0 == 0 || (r->t_start_ns && r->t_start_ns < s->t0))
    s->t0 = r->t_start_ns;
  if (r->t_end_ns > s->t_last) s->t_last = r->t_end_ns;
  if (r->collection) s->collections++;
  else s->snapshots++;
  s->records_dropped += r->dropped;
  if (s->last_seq && r->seq > s->last_seq + 1)
    s->seq_gaps += r->seq - s->last_seq - 1;
  s->last_seq = r->seq;
  if (r->heap_bytes + r->unmapped_bytes > s->heap_peak)
    s->heap_peak = r->heap_bytes + r->unmapped_bytes;
  if (r->census && r->live_bytes > s->live_peak) {
    s->live_peak = r->live_bytes;
    s->live_peak_gc = r->gc_no;
  }
  if (r->census && r->class_reserved_bytes > s->reserved_peak)
    s->reserved_peak = r->class_reserved_bytes;
  if (r->resident_bytes > s->resident_peak)
    s->resident_peak = r->resident_bytes;
  if (r->frag_index > s->worst_frag) {
    s->worst_frag = r->frag_index;
    s->worst_frag_gc = r->gc_no;
    s->worst_frag_t = r->t_end_ns;
    s->worst_frag_free = r->total_free_bytes;
  }
  s->alloc_objs += r->alloc_objs;
  s->alloc_req += r->alloc_req_bytes;
  s->alloc_granted += r->alloc_granted_bytes;
  s->grows += r->n_grows;
  s->mark_ns += r->mark_ns;
  s->census_ns += r->census_ns;
  if (r->mark_ns > s->max_pause_ns) s->max_pause_ns = r->mark_ns;
  return 0;
}

u64 session_summary_start(const struct session_summary *s,
                          const json_t *header)
{
  u64 start = header ? jnum(header, "start_mono_ns") : 0;

  if (start == 0 || start > s->t0) start = s->t0;
  return start;
}

u64 session_summary_dropped(const struct session_summary *s)
{
  return s->records_dropped > s->seq_gaps ? s->records_dropped : s->seq_gaps;
}

const struct summary_fig session_summary_figs[SESSION_SUMMARY_NFIGS] = {
  { "duration_ns", "duration", "session length", COL_NS },
  { "collections", "collections", "collections", COL_INT },
  { "snapshots", "snapshots", "snapshots", COL_INT },
  { "heap_peak_bytes", "heap-peak", "heap peak", COL_BYTES },
  { "live_peak_bytes", "live-peak", "live peak", COL_BYTES },
  { "live_peak_gc_no", "live-peak-gc", "live peak at gc_no", COL_INT },
  { "reserved_peak_bytes", "reserved-peak", "reserved peak", COL_BYTES },
  { "resident_peak_bytes", "resident-peak", "resident peak", COL_BYTES },
  { "worst_frag_index", "worst-frag", "worst fragmentation index",
    COL_RATIO },
  { "worst_frag_gc_no", "worst-frag-gc", "worst fragmentation at gc_no",
    COL_INT },
  { "worst_frag_at_ns", "worst-frag-at", "worst fragmentation at", COL_NS },
  { "worst_frag_free_bytes", "worst-frag-free", "free bytes then",
    COL_BYTES },
  { "allocated_objs", "alloc-objs", "allocated objects", COL_INT },
  { "allocated_req_bytes", "alloc-req", "allocated (requested)", COL_BYTES },
  { "allocated_granted_bytes", "alloc-granted", "allocated (granted)",
    COL_BYTES },
  { "rounding_waste_bytes", "waste-bytes", "rounding waste", COL_BYTES },
  { "rounding_waste", "waste", "rounding waste share", COL_PCT },
  { "heap_growths", "grows", "heap growths", COL_INT },
  { "mark_total_ns", "mark-total", "mark time, total", COL_NS },
  { "mark_max_ns", "mark-max", "mark time, longest", COL_NS },
  { "census_total_ns", "census-total", "census time, total", COL_NS },
  { "records_dropped", "dropped", "records dropped", COL_INT },
};

void session_summary_figures(const struct session_summary *s, u64 start,
                             union emit_cell *v)
{
  v[0].u = s->t_last > start ? s->t_last - start : 0;
  v[1].u = s->collections;
  v[2].u = s->snapshots;
  v[3].u = s->heap_peak;
  v[4].u = s->live_peak;
  v[5].u = s->live_peak_gc;
  v[6].u = s->reserved_peak;
  v[7].u = s->resident_peak;
  v[8].d = s->worst_frag;
  v[9].u = s->worst_frag_gc;
  v[10].u = s->worst_frag_t > start ? s->worst_frag_t - start : 0;
  v[11].u = s->worst_frag_free;
  v[12].u = s->alloc_objs;
  v[13].u = s->alloc_req;
  v[14].u = s->alloc_granted;
  v[15].u = s->alloc_granted - s->alloc_req;
  v[16].d = s->alloc_granted ? (double)(s->alloc_granted - s->alloc_req)
                               / (double)s->alloc_granted : 0.0;
  v[17].u = s->grows;
  v[18].u = s->mark_ns;
  v[19].u = s->max_pause_ns;
  v[20].u = s->census_ns;
  v[21].u = session_summary_dropped(s);
}

/* ---- keymap (see session.h) --------------------------------------------- */

struct keymap {
  size_t val_size, n, cap;      /* entries in insertion order            */
  size_t max;                   /* distinct keys kept (KEYMAP_OTHER aside) */
  u64 folded;                   /* rows that went to KEYMAP_OTHER        */
  u64 *keys;
  unsigned char *vals;
  size_t *slot, nslots;         /* open addressing: index + 1, 0 empty   */
};

static u64 folded_rows;          /* over every map of the run             */

size_t keymap_max_keys(void)
{
  static size_t max;

  if (max == 0) {
    const char *e = getenv("GCACC_MAX_KEYS");
    char *end;
    unsigned long long v = e != NULL ? strtoull(e, &end, 10) : 0;

    max = e != NULL && *e && *end == '\0' && v > 0 && v < ((size_t)1 << 40)
          ? (size_t)v : KEYMAP_MAX_KEYS;
  }
  return max;
}

u64 keymap_folded_rows(void) { return folded_rows; }

void keymap_note_folded(u64 rows)
{
  folded_rows += rows;
  emit_json_note = keymap_fold_note;
}

const char *keymap_fold_note(void)
{
  static char note[300];

  if (folded_rows == 0) return NULL;
  snprintf(note, sizeof(note), "more than %zu distinct keys in a table "
           "(sites, types, classes or pairs): %llu rows of the others "
           "folded into one \"other\" row per table (GCACC_MAX_KEYS "
           "raises the cap)", keymap_max_keys(), folded_rows);
  return note;
}

struct keymap *keymap_new(size_t val_size)
{
  struct keymap *m = calloc(1, sizeof(*m));

  if (m == NULL) abort();
  m->val_size = val_size;
  m->max = keymap_max_keys();
  emit_json_note = keymap_fold_note;
  return m;
}

static void *keymap_get_(struct keymap *m, u64 key, int create);

void *keymap_get(struct keymap *m, u64 key, int create)
{
  void *v = keymap_get_(m, key, create && (m->n < m->max
                                           || key == KEYMAP_OTHER));

  if (v == NULL && create) {
    /* Beyond the cap: the row goes to the one "other" entry.            */
    m->folded++;
    folded_rows++;
    v = keymap_get_(m, KEYMAP_OTHER, 1);
  }
  return v;
}

u64 keymap_folded(const struct keymap *m) { return m->folded; }

static size_t keymap_hash(u64 k, size_t nslots)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (size_t)(k & (nslots - 1));
}

static void keymap_rehash(struct keymap *m, size_t nslots)
{
  size_t i, h;

  free(m->slot);
  m->slot = calloc(nslots, sizeof(*m->slot));
  if (m->slot == NULL) abort();
  m->nslots = nslots;
  for (i = 0; i < m->n; i++) {
    for (h = keymap_hash(m->keys[i], nslots); m->slot[h];
         h = (h + 1) & (nslots - 1)) {}
    m->slot[h] = i + 1;
  }
}

static void *keymap_get_(struct keymap *m, u64 key, int create)
{
  size_t h;

  if (m->nslots != 0) {
    for (h = keymap_hash(key, m->nslots); m->slot[h];
         h = (h + 1) & (m->nslots - 1))
      if (m->keys[m->slot[h] - 1] == key)
        return m->vals + (m->slot[h] - 1) * m->val_size;
  }
  if (!create) return NULL;
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->keys = realloc(m->keys, m->cap * sizeof(*m->keys));
    m->vals = realloc(m->vals, m->cap * m->val_size);
    if (m->keys == NULL || m->vals == NULL) abort();
  }
  m->keys[m->n] = key;
  memset(m->vals + m->n * m->val_size, 0, m->val_size);
  m->n++;
  if (2 * m->n > m->nslots) keymap_rehash(m, m->nslots ? 2 * m->nslots : 128);
  else {
    for (h = keymap_hash(key, m->nslots); m->slot[h];
         h = (h + 1) & (m->nslots - 1)) {}
    m->slot[h] = m->n;
  }
  return m->vals + (m->n - 1) * m->val_size;
}

size_t keymap_count(const struct keymap *m) { return m->n; }

void keymap_clear(struct keymap *m)
{
  folded_rows -= m->folded;
  m->folded = 0;
  m->n = 0;
  free(m->slot);                /* rebuilt as it fills: no cost per slot */
  m->slot = NULL;
  m->nslots = 0;
}

void *keymap_at(const struct keymap *m, size_t i, u64 *key)
{
  if (key != NULL) *key = m->keys[i];
  return m->vals + i * m->val_size;
}

void keymap_free(struct keymap *m)
{
  if (m == NULL) return;
  free(m->keys);
  free(m->vals);
  free(m->slot);
  free(m);
}
