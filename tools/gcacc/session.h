/* SPDX-License-Identifier: MIT */
/*
 * session.h: one pass over a dump, record by record.
 *
 * session_scan() reads a dump with dump_read.c and hands each collection
 * or snapshot record to a visitor, parsed into the fixed fields of struct
 * rec (sums over its rows included) and with the raw JSON for views that
 * need the rows.  Nothing is kept between records unless the visitor keeps
 * it, so memory is bounded by what views aggregate (per kind, class,
 * type, callsite), never by the number of records.
 */
#ifndef GCACC_SESSION_H
#define GCACC_SESSION_H

#include <jansson.h>
#include "dump_read.h"
#include "emit.h"

#define SESSION_MAX_KINDS 64
#define SESSION_MAX_CLASSES 512

typedef unsigned long long u64;

struct rec {
  int collection;               /* 1 "collection", 0 "snapshot"           */
  int census;                   /* census columns filled                  */
  u64 seq, gc_no, t_start_ns, t_end_ns, mark_ns, census_ns, dropped;
  u64 heap_bytes, free_bytes, unmapped_bytes, allocd_since_prev_bytes;
  u64 reserved_bytes, resident_bytes;
  u64 total_free_bytes, largest_free_bytes;
  double frag_index;
  /* Sums over the record's "classes" rows.                              */
  u64 live_objs, live_bytes, class_reserved_bytes, free_slots;
  u64 alloc_objs, alloc_req_bytes, alloc_granted_bytes;
  u64 debug_objs;
  unsigned n_grows;
  const json_t *json;           /* the whole record                       */
  const struct dump_cols *cols; /* where its rows' columns are            */
};

/* Return nonzero to stop early (the scan then returns EXIT_OK).         */
typedef int (*rec_visitor)(const struct rec *r, void *arg);

struct session_info {
  json_t *header;               /* the header record (caller json_decref) */
  struct dump_cols cols;        /* its columns (dump_read.h)              */
  unsigned long records;        /* records read, header included          */
  int truncated;                /* the dump ended mid-record              */
};

/* Frame records ("record":"frame", docs/dump-format.md "Frame records") */
/* go to a separate visitor, raw: frame (the record), in dump order      */
/* among the collection and snapshot records (their rows' columns: the   */
/* info's cols).  Nonzero stops the scan.                                */
typedef int (*frame_visitor)(const json_t *frame, void *arg);

/* Scan path.  Prints a warning for a truncated dump (and still returns  */
/* EXIT_OK), an error for an unreadable or corrupt one (returns          */
/* EXIT_USAGE), and once a warning naming the columns the reader knows   */
/* that the header lacks (session_warn_cols).  progress: -1 auto, 0 off, */
/* 1 on.  info may be NULL.                                              */
int session_scan(const char *path, int progress, rec_visitor fn, void *arg,
                 struct session_info *info);
/* The same, also handing frame records to ffn (may be NULL).  Both      */
/* visitors get arg.  info->header and info->cols are set before the     */
/* first visit.                                                          */
int session_scan_frames(const char *path, int progress, rec_visitor fn,
                        frame_visitor ffn, void *arg,
                        struct session_info *info);
/* The same, also handing every other record (but the header) to ofn,  */
/* raw ("retain" records, or a newer writer's kinds).                    */
int session_scan_all(const char *path, int progress, rec_visitor fn,
                     frame_visitor ffn, frame_visitor ofn, void *arg,
                     struct session_info *info);

/* Lean scans (dump_read.h, "lean records"): every scan reads the row   */
/* tables of a record (SESSION_LEAN_TABLES: the top-level ones) compactly,*/
/* so memory stays bounded by design (issue 25: a record of a million    */
/* rows takes some 100 MB, not the GB of its jansson tree).  A visitor    */
/* reads a record's tables through rec_tab (never json_object_get), and  */
/* only while it visits that record: a record kept past its visit keeps  */
/* empty arrays in their place, so a view that keeps rows copies what it */
/* needs.  session_lean sets the tables read so by the scans that follow */
/* (keys) and those dropped unread (skip); NULL, NULL turns lean off (the */
/* strings must stay valid).                                              */
#define SESSION_LEAN_TABLES \
  "classes kinds grows types sites type_rows site_rows rows"
void session_lean(const char *keys, const char *skip);
/* Table key of the record (or frame record) being visited, lean or     */
/* JSON; of any other JSON record, its member.                            */
struct dump_tab rec_tab(const json_t *rec, const char *key);
/* Cell (i, k) as an integer, as jrow reads it (0 if absent, not an      */
/* integer, or negative); tcol by column name as jcol.                   */
u64 tab_u64(const struct dump_tab *t, size_t i, size_t k);
#define tcol(tab, i, cols, t, c) tab_u64((tab), (i), DUMP_COL(cols, t, c))

/* Add r's class rows to by[kind * SESSION_MAX_CLASSES + class] (kinds  */
/* and classes beyond the array left out): live bytes if live, else      */
/* allocated (granted) bytes.  Lean or not.                              */
void rec_class_add(const struct rec *r, int live, u64 *by);

/* Integer member of an object, or of a nested object ("heap.free_bytes"); */
/* 0 if absent.                                                            */
u64 jnum(const json_t *obj, const char *dotted);
/* Element i of a row array as an integer (0 if absent or not a number). */
u64 jrow(const json_t *row, size_t i);
/* Column c of table t of a row, found by name through the dump's       */
/* columns (struct dump_cols): jcol(row, r->cols, classes, live_bytes).  */
#define jcol(row, cols, t, c) jrow((row), DUMP_COL(cols, t, c))
/* The same element as JSON (NULL if absent).                            */
#define jcol_json(row, cols, t, c) \
  json_array_get((row), DUMP_COL(cols, t, c))
/* A warning when the header of d's dump lacks columns the reader knows */
/* (they read as 0).  Readers of a dump call it once, when dump_next     */
/* returned the header.                                                  */
void session_warn_cols(const struct dump_reader *d);
/* Header config value (e.g. "granule_bytes"), or dflt.                 */
u64 header_config(const json_t *header, const char *key, u64 dflt);

/* One entry m of the header's "modules" map: its path and build_id     */
/* (NULL if absent) and base (a "0x..." string or an integer).  0 when   */
/* it has no usable base (skip the entry), else 1.                       */
int header_module(const json_t *m, const char **path, const char **build_id,
                  u64 *base);

/* The class of a size (docs/dump-format.md), and the size range a class */
/* stands for: [lo, hi].  Need the header's config.                      */
void class_range(const json_t *header, unsigned cls, u64 *lo, u64 *hi);
/* "48 B", "2-4 KiB" style label of a class; buf of 32 bytes.             */
const char *class_label(const json_t *header, unsigned cls, char *buf);
/* Name of a kind: "ptrfree", "normal", "uncollectable",                 */
/* "atomic-uncollectable", else "kind N".  buf of 16 bytes.               */
const char *kind_label(unsigned kind, char *buf);
/* The kind names a record gives ("kind_names"), remembered for        */
/* kind_label; kind_name_known: the name a record gave kind, or NULL.   */
void kind_names_note(const json_t *rec);
const char *kind_name_known(unsigned kind);

/* The session at a glance (`gcacc summary`, `gcacc report`): fold every  */
/* record with session_summary_visit (arg: a zeroed struct), then         */
/* session_summary_start gives the time origin from the header.           */
struct session_summary {
  u64 t0, t_last;
  u64 collections, snapshots, records_dropped, last_seq, seq_gaps;
  u64 heap_peak, live_peak, reserved_peak, resident_peak;
  u64 live_peak_gc;
  double worst_frag;
  u64 worst_frag_gc, worst_frag_t, worst_frag_free;
  u64 alloc_objs, alloc_req, alloc_granted, grows, mark_ns, census_ns;
  u64 max_pause_ns;
};
int session_summary_visit(const struct rec *r, void *arg);
u64 session_summary_start(const struct session_summary *s,
                          const json_t *header);
/* Records lost: the larger of "dropped" counts and seq gaps.             */
u64 session_summary_dropped(const struct session_summary *s);
/* The figures both show, in order: `gcacc summary`'s first columns      */
/* (name, type) and the report's summary rows (id, label, type).         */
/* session_summary_figures fills v[SESSION_SUMMARY_NFIGS] from s, times  */
/* relative to start (session_summary_start): .d for COL_RATIO and       */
/* COL_PCT figures, .u for the others.                                   */
#define SESSION_SUMMARY_NFIGS 22
struct summary_fig {
  const char *name, *id, *label;
  enum emit_type type;
};
extern const struct summary_fig session_summary_figs[SESSION_SUMMARY_NFIGS];
void session_summary_figures(const struct session_summary *s, u64 start,
                             union emit_cell *v);

/* A map from a 64-bit key (a (kind, class) pair as kind << 32 | class,  */
/* later a type id or a callsite address) to a fixed-size value block,   */
/* zeroed when created: the keyed aggregations of top and leaks.  Memory */
/* grows with the keys, never with the records.  keymap_get returns NULL */
/* for a missing key unless create; keymap_at(m, i, &key) walks entries  */
/* 0 .. keymap_count - 1 in insertion order.  Pointers into the map are  */
/* valid until the next keymap_get that creates.                         */
/*                                                                       */
/* Memory is bounded by design (issue 25, fault 6): a map keeps at most  */
/* keymap_max_keys() distinct keys (KEYMAP_MAX_KEYS, or GCACC_MAX_KEYS   */
/* from the environment); a new key beyond that gets the one entry of    */
/* KEYMAP_OTHER instead, so its row is folded into an "other" row.       */
/* keymap_folded counts the rows folded so, keymap_folded_rows all maps'. */
#define KEYMAP_MAX_KEYS 100000
#define KEYMAP_OTHER (~0ULL)
struct keymap;
struct keymap *keymap_new(size_t val_size);
size_t keymap_max_keys(void);
u64 keymap_folded(const struct keymap *m);
u64 keymap_folded_rows(void);
/* Rows folded (or dropped) by a table that is not a keymap.             */
void keymap_note_folded(u64 rows);
/* The message saying so (NULL when nothing was folded): on stderr after */
/* every command (gcacc.c), in --json output as "notes".                 */
const char *keymap_fold_note(void);
void *keymap_get(struct keymap *m, u64 key, int create);
size_t keymap_count(const struct keymap *m);
/* Empty m, its folded rows no longer counted.                           */
void keymap_clear(struct keymap *m);
void *keymap_at(const struct keymap *m, size_t i, u64 *key);
void keymap_free(struct keymap *m);

#endif
