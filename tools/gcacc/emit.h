/* SPDX-License-Identifier: MIT */
/*
 * emit.h: one emitter for every view gcacc prints.
 *
 * A view is a table: named columns of a type, rows of values.  The same
 * table is printed for a person (aligned, sizes in KiB/MiB, fitting 80
 * columns), as CSV, or as JSON (an array of objects, raw numbers), so the
 * three can never disagree.
 */
#ifndef GCACC_EMIT_H
#define GCACC_EMIT_H

#include <stdio.h>

enum emit_format { EMIT_TABLE, EMIT_CSV, EMIT_JSON };

enum emit_type {
  COL_INT,      /* integer count                              */
  COL_BYTES,    /* integer bytes: KiB/MiB in tables           */
  COL_NS,       /* integer nanoseconds: ms in tables          */
  COL_RATIO,    /* 0..1 fraction: 3 decimals                  */
  COL_PCT,      /* 0..1 fraction shown as a percentage        */
  COL_STR,      /* text                                       */
  COL_SBYTES,   /* signed bytes (pass a long long cast to     */
                /* unsigned long long): "+1.2 MiB", "-512 B"  */
  /* Estimates (a sampled profile's figures by type and callsite):    */
  /* as COL_INT and COL_BYTES, shown "~12.3 MiB" in tables; CSV and    */
  /* JSON carry the number, and the JSON object says "estimated".     */
  COL_EINT,
  COL_EBYTES,
  /* The relative error of an estimate (a double, 0.15 for 15%; < 0:   */
  /* none, no samples): "+-15%" in tables, with the plus-minus sign     */
  /* (U+00B1, UTF-8), "-" when none; CSV and JSON carry the fraction,   */
  /* empty or null when none.                                           */
  COL_ERR
};

struct emit_col {
  const char *name;      /* snake_case, with unit: live_bytes, pause_ns */
  enum emit_type type;
  int width;             /* table width; 0: from the header           */
};

struct emit_table;

struct emit_table *emit_table_new(const char *title,
                                  const struct emit_col *cols, int ncols);
/* Append a row: ncols values in order; COL_STR takes const char *,     */
/* COL_RATIO/COL_PCT take double, the others unsigned long long.        */
void emit_row(struct emit_table *t, ...);
/* The same from an array of ncols cells: .s for COL_STR, .d for        */
/* COL_RATIO/COL_PCT, .u for the others.                                 */
union emit_cell {
  unsigned long long u;
  double d;
  const char *s;
};
void emit_row_cells(struct emit_table *t, const union emit_cell *cells);
int emit_nrows(const struct emit_table *t);
/* Print and free.  For EMIT_JSON, several tables printed in one run    */
/* form one JSON object keyed by title: call emit_json_begin/end around. */
void emit_print(struct emit_table *t, enum emit_format f, FILE *out);
void emit_free(struct emit_table *t);

void emit_json_begin(FILE *out);
void emit_json_end(FILE *out);
/* Whether the figures by type and callsite printed are estimates: a    */
/* view that shows such figures calls it before emit_json_end, which     */
/* then adds "estimated": true or false (and, when true, the note of    */
/* emit_estimate_note to "notes").  est_bytes: the mean sample distance. */
void emit_json_estimated(int estimated, unsigned long long est_bytes);
/* For a person: that note as a line "note: ..." (when estimated).     */
void emit_estimate_line(FILE *out, int estimated,
                        unsigned long long est_bytes);
/* A COL_ERR cell's text: "+-15%" (the plus-minus sign in UTF-8), "-"  */
/* when e < 0 (none); buf of n bytes.                                    */
const char *emit_error_text(double e, char *buf, size_t n);
/* Mark cols[0 .. n-1] of type COL_INT or COL_BYTES as estimates.       */
void emit_cols_estimate(struct emit_col *cols, int n);
/* A note that emit_json_end adds, as "notes": [text], when it returns   */
/* non-NULL (session.c's: rows folded into "other" rows).               */
extern const char *(*emit_json_note)(void);

/* One CSV cell: control characters escaped (\n, \xNN), then quoted   */
/* as RFC 4180 says when it holds a comma or a double quote.             */
void emit_csv_string(const char *s, FILE *out);

/* "12.3 MiB"-style size; buf must hold 16 bytes. */
/* (below: the note that says a dump's type and callsite figures are    */
/* estimates, from a sampled profile with one sample per sample_bytes   */
/* on average, 0 unknown; in buf of n bytes.)                           */
const char *emit_estimate_note(unsigned long long sample_bytes, char *buf,
                               size_t n);
const char *emit_size(unsigned long long bytes, char *buf);

/* Streaming: a table printed row by row as rows come, for views of one  */
/* row per record (memory bounded however long the dump).  The header is */
/* printed by emit_stream_new; table widths are fixed there (the larger  */
/* of the column's width and its name), so wider cells shift the row.    */
/* For EMIT_JSON the table is one member of the object opened by         */
/* emit_json_begin, as with emit_print.  emit_stream_row takes values    */
/* as emit_row does; emit_stream_end closes the table and frees it.      */
struct emit_stream;
struct emit_stream *emit_stream_new(const char *title,
                                    const struct emit_col *cols, int ncols,
                                    enum emit_format f, FILE *out);
void emit_stream_row(struct emit_stream *s, ...);
int emit_stream_nrows(const struct emit_stream *s);
void emit_stream_end(struct emit_stream *s);

#endif
