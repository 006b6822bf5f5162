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
  if (json_is_real(v)) return (u64)json_real_value(v);
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

u64 header_config(const json_t *header, const char *key, u64 dflt)
{
  const json_t *c = json_object_get(header, "config");
  const json_t *v = json_object_get(c, key);

  return json_is_integer(v) ? (u64)json_integer_value(v) : dflt;
}

void class_range(const json_t *header, unsigned cls, u64 *lo, u64 *hi)
{
  u64 g = header_config(header, "granule_bytes", 16);
  u64 l0 = header_config(header, "large_class0", 129);
  u64 lg = header_config(header, "large_log0", 11);

  if (cls < l0) {
    *lo = *hi = (u64)cls * g;
  } else {
    unsigned b = cls - (unsigned)l0;

    *lo = (u64)1 << (b + lg);
    *hi = ((u64)1 << (b + lg + 1)) - 1;
  }
}

const char *class_label(const json_t *header, unsigned cls, char *buf)
{
  u64 lo, hi;
  char a[16], b[16];

  class_range(header, cls, &lo, &hi);
  if (lo == hi) snprintf(buf, 32, "%s", emit_size(lo, a));
  else snprintf(buf, 32, "%s-%s", emit_size(lo, a), emit_size(hi + 1, b));
  return buf;
}

const char *kind_label(unsigned kind, char *buf)
{
  static const char *names[] = { "ptrfree", "normal", "uncollectable",
                                 "atomic-uncollectable" };

  if (kind < 4) return names[kind];
  snprintf(buf, 16, "kind %u", kind);
  return buf;
}

static void rec_fill(struct rec *r, const json_t *j)
{
  const json_t *classes = json_object_get(j, "classes");
  const json_t *kinds = json_object_get(j, "kinds");
  const json_t *fl = json_object_get(j, "freelists");
  const json_t *fi = json_object_get(fl, "frag_index");
  size_t i;
  const json_t *row;

  memset(r, 0, sizeof(*r));
  r->json = j;
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
  json_array_foreach(classes, i, row) {
    r->live_objs += jrow(row, CL_LIVE_OBJS);
    r->live_bytes += jrow(row, CL_LIVE_BYTES);
    r->class_reserved_bytes += jrow(row, CL_RESERVED_BYTES);
    r->free_slots += jrow(row, CL_FREE_SLOTS);
    r->alloc_objs += jrow(row, CL_ALLOC_OBJS);
    r->alloc_req_bytes += jrow(row, CL_ALLOC_REQ_BYTES);
    r->alloc_granted_bytes += jrow(row, CL_ALLOC_GRANTED_BYTES);
  }
  json_array_foreach(kinds, i, row) r->debug_objs += jrow(row, 1);
  r->n_grows = (unsigned)json_array_size(json_object_get(j, "grows"));
}

int session_scan(const char *path, int progress, rec_visitor fn, void *arg,
                 struct session_info *info)
{
  const char *err = NULL;
  struct dump_reader *d = dump_open(path, &err);
  json_t *v;
  enum dump_status st;
  int rc = EXIT_OK, stop = 0;

  if (info != NULL) memset(info, 0, sizeof(*info));
  if (d == NULL) {
    error("%s", err);
    return EXIT_USAGE;
  }
  while (!stop && (st = dump_next(d, &v)) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    if (strcmp(kind, "header") == 0) {
      if (dump_records(d) != 1) {
        warning("%s: a second header at byte %llu (record %lu); ignored",
                dump_name(d), dump_offset(d), dump_records(d));
      } else if (info != NULL) {
        info->header = json_incref(v);
      }
    } else if (strcmp(kind, "collection") == 0
               || strcmp(kind, "snapshot") == 0) {
      struct rec r;

      rec_fill(&r, v);
      stop = fn != NULL && fn(&r, arg);
    }     /* other record types: from a newer writer; ignored */
    json_decref(v);
    progress_update(progress, dump_name(d), dump_compressed_offset(d),
                    dump_compressed_size(d));
  }
  progress_done(progress);
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
  dump_close(d);
  return rc;
}
