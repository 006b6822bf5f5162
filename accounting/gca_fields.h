/* SPDX-License-Identifier: MIT */
/*
 * gca_fields.h: the dump's positional tables and their columns, in one
 * list (docs/dump-format.md describes each).
 *
 * The collector's record module writes the rows in this order and names
 * the columns in the header ("columns"); the reader (tools/gcacc) finds
 * each column through those names, falling back to this order for a
 * header without them; tests/fields_agree.sh checks that the docs, the
 * header of a real dump and this list agree.  Plain C preprocessor, no
 * other include: both sides use it.
 *
 * GCA_DUMP_TABLES(T) calls T(id, "key", COLS) once per table: id names
 * the table in C, "key" is its name in the header's "columns" object
 * (the record key, dotted where it is nested; "frame.rows" is the "rows"
 * key of frame records, "frame.kind_rows" their "kind_rows"), COLS its
 * column list.  A column list COLS(C)
 * calls C(id, column) once per column, in row order.  Columns are only
 * ever appended: a reader that knows fewer reads the ones it knows.
 */
#ifndef GCA_FIELDS_H
#define GCA_FIELDS_H

#define GCA_COLS_CLASSES(C) \
  C(classes, kind) C(classes, class) C(classes, live_objs) \
  C(classes, live_bytes) C(classes, reserved_bytes) C(classes, free_slots) \
  C(classes, alloc_objs) C(classes, alloc_req_bytes) \
  C(classes, alloc_granted_bytes)

#define GCA_COLS_KINDS(C) \
  C(kinds, kind) C(kinds, debug_objs) C(kinds, large_live_objs) \
  C(kinds, large_live_bytes) C(kinds, large_reserved_bytes)

#define GCA_COLS_LISTS(C) \
  C(lists, index) C(lists, blocks) C(lists, bytes) C(lists, unmapped_bytes)

#define GCA_COLS_GROWS(C) \
  C(grows, t_ns) C(grows, req_bytes) C(grows, req_kind) \
  C(grows, free_bytes) C(grows, largest_free_bytes) C(grows, grow_bytes) \
  C(grows, heap_bytes_after)

/* Type definitions: [type_id, "0xcookie", "name"].                     */
#define GCA_COLS_TYPES(C) C(types, type_id) C(types, cookie) C(types, name)

/* Site definitions: [site_id, "0xaddr", ...]: frames is the rest of the */
/* row, innermost first (so this table cannot grow columns).            */
#define GCA_COLS_SITES(C) C(sites, site_id) C(sites, frames)

/* Per-type and per-site rows of collection records.  In the sampled    */
/* profile the objs/bytes/age columns are estimates and samples_* the   */
/* sample counts behind them (0 in the full profile).                    */
#define GCA_COLS_GROUP_ROWS(C, t, id) \
  C(t, id) C(t, live_objs) C(t, live_bytes) C(t, alloc_objs) \
  C(t, alloc_bytes) C(t, freed_objs) C(t, freed_bytes) C(t, age0) \
  C(t, age1) C(t, age2_3) C(t, age4_7) C(t, age8_15) C(t, age16_31) \
  C(t, age32) C(t, samples_live) C(t, samples_alloc) C(t, samples_freed)
#define GCA_COLS_TYPE_ROWS(C) GCA_COLS_GROUP_ROWS(C, type_rows, type_id)
#define GCA_COLS_SITE_ROWS(C) GCA_COLS_GROUP_ROWS(C, site_rows, site_id)

/* Frame records' rows: allocations of the frame per (type, site).      */
#define GCA_COLS_FRAME_ROWS(C) \
  C(frame_rows, type_id) C(frame_rows, site_id) C(frame_rows, objs) \
  C(frame_rows, bytes)

/* Frame records' kind rows: allocations of the frame per object kind,  */
/* exact in every profile (the allocation counters, not the samples).   */
#define GCA_COLS_FRAME_KIND_ROWS(C) \
  C(frame_kind_rows, kind) C(frame_kind_rows, objs) C(frame_kind_rows, bytes)

#define GCA_DUMP_TABLES(T) \
  T(classes, "classes", GCA_COLS_CLASSES) \
  T(kinds, "kinds", GCA_COLS_KINDS) \
  T(lists, "freelists.lists", GCA_COLS_LISTS) \
  T(grows, "grows", GCA_COLS_GROWS) \
  T(types, "types", GCA_COLS_TYPES) \
  T(sites, "sites", GCA_COLS_SITES) \
  T(type_rows, "type_rows", GCA_COLS_TYPE_ROWS) \
  T(site_rows, "site_rows", GCA_COLS_SITE_ROWS) \
  T(frame_rows, "frame.rows", GCA_COLS_FRAME_ROWS) \
  T(frame_kind_rows, "frame.kind_rows", GCA_COLS_FRAME_KIND_ROWS)

/* Column positions: GCA_COL_<table>_<column>, and GCA_NCOLS_<table>.   */
#define GCA_COL_ENUM_(t, c) GCA_COL_##t##_##c,
#define GCA_TABLE_ENUM_(id, key, cols) \
  enum gca_cols_##id { cols(GCA_COL_ENUM_) GCA_NCOLS_##id };
GCA_DUMP_TABLES(GCA_TABLE_ENUM_)
#undef GCA_TABLE_ENUM_

/* Table ids: GCA_TABLE_<table>, and GCA_N_TABLES.                      */
#define GCA_TABLE_ID_(id, key, cols) GCA_TABLE_##id,
enum gca_tables_id { GCA_DUMP_TABLES(GCA_TABLE_ID_) GCA_N_TABLES };
#undef GCA_TABLE_ID_

#endif /* GCA_FIELDS_H */
