/* SPDX-License-Identifier: MIT */
/*
 * dump_read.h: streaming reader of gcacc dump files.
 *
 * Reads a gzip-compressed JSON Lines dump one record at a time, in one
 * pass, with memory bounded by the longest record.  A file cut short
 * (a killed process, a truncated copy) yields every whole record before
 * the cut and then reports where it stopped; a corrupt or foreign file
 * gets an error naming the file, the byte offset and the record number.
 */
#ifndef GCACC_DUMP_READ_H
#define GCACC_DUMP_READ_H

#include <stddef.h>
#include <jansson.h>
#include "gca_fields.h"     /* accounting/: the tables and their columns */

struct dump_reader;

enum dump_status {
  DUMP_RECORD = 0,  /* *out holds the next record (caller json_decref) */
  DUMP_END,         /* clean end of file                               */
  DUMP_TRUNCATED,   /* the file ends mid-record; records so far valid  */
  DUMP_ERROR,       /* corrupt or foreign input: see dump_error()      */
  DUMP_MORE         /* growing input ran out: dump_grow, then again    */
};

/* Open path ("-" is standard input).  NULL with a message in *err (a   */
/* static string owned by the reader module) on failure.                 */
struct dump_reader *dump_open(const char *path, const char **err);

/* Open a dump held in memory (the fuzz target uses this).  The buffer  */
/* is gzip data or plain JSON Lines; it must outlive the reader.          */
struct dump_reader *dump_open_mem(const void *data, size_t len,
                                  const char *name);

/* Input that is still arriving (a file being written, a test feeding a */
/* dump byte by byte): like dump_open_mem over the bytes so far, but     */
/* where the input ends dump_next returns DUMP_MORE (never DUMP_END or   */
/* DUMP_TRUNCATED, nor an error for a header not yet whole): call        */
/* dump_grow with the longer input (the same bytes first, possibly       */
/* moved) and dump_next again.  After dump_grow_end the end of the input */
/* is the end of the dump, as for dump_open_mem.                          */
struct dump_reader *dump_open_growing(const void *data, size_t len,
                                      const char *name);
void dump_grow(struct dump_reader *r, const void *data, size_t len);
void dump_grow_end(struct dump_reader *r);

/* The next record.  The first record of a dump must be the header      */
/* ("record":"header"); dump_next checks that, and that every record is  */
/* a JSON object with a string "record" member.                          */
enum dump_status dump_next(struct dump_reader *r, json_t **out);

/* Raw mode, for a quick pass (leaks counts census records so): after   */
/* the header, which is parsed and checked as always, dump_next returns  */
/* DUMP_RECORD with *out NULL, and dump_line gives the record's line (NUL */
/* terminated, without its newline, valid until the next dump_next),     */
/* not parsed: nothing about it is checked.                              */
void dump_set_raw(struct dump_reader *r);
const char *dump_line(const struct dump_reader *r, size_t *len);

/* ---- lean records --------------------------------------------------- */
/* Row tables are most of a big record, and jansson takes some 50 bytes  */
/* and a malloc per cell.  In lean mode the reader parses the row tables */
/* named in keys (top-level keys of a record, space-separated: "classes  */
/* sites site_rows") itself, into a compact form (5 bytes a cell, no     */
/* malloc), and hands the rest of the record to jansson with each such   */
/* table replaced by an empty array; read them with dump_tab.  Tables    */
/* named in skip are dropped unread (replaced by an empty array too).    */
/* A table the compact parser does not take (a real, a nested array, a  */
/* number beyond 64 bits, a string that is not valid UTF-8, a duplicate */
/* key, a record it cannot follow to its end) stays in the JSON, where  */
/* dump_tab finds it: lean mode changes memory and time,                 */
/* never what is read.  keys and skip must outlive the reader (NULL:     */
/* none).                                                                */
void dump_set_lean(struct dump_reader *r, const char *keys,
                   const char *skip);

/* One table of a record, in either form: the compact one of the record  */
/* dump_next returned last (valid until the next dump_next), or a JSON   */
/* array (valid while the record is).                                    */
struct dump_tab {
  const json_t *json;           /* the JSON array, or NULL               */
  const struct dump_reader *r;  /* with lean: the reader holding it      */
  size_t lean;                  /* its index + 1; 0: JSON (or none)      */
};
/* Table key of record rec: compact if r (may be NULL) holds it for rec, */
/* else rec's JSON member.                                               */
struct dump_tab dump_tab(const struct dump_reader *r, const json_t *rec,
                         const char *key);
size_t dump_tab_rows(const struct dump_tab *t);
/* Cells in row i.                                                       */
size_t dump_tab_len(const struct dump_tab *t, size_t i);
/* Cell (i, k): 1 and *v if it is an integer, else 0.                    */
int dump_tab_int(const struct dump_tab *t, size_t i, size_t k,
                 long long *v);
/* Cell (i, k) if it is a string, else NULL.                             */
const char *dump_tab_str(const struct dump_tab *t, size_t i, size_t k);
/* Cell (i, k) as JSON, a new reference (caller json_decref): the JSON  */
/* value, or one made from the compact cell (an integer, a string, null);*/
/* NULL if absent.                                                        */
json_t *dump_tab_cell(const struct dump_tab *t, size_t i, size_t k);

/* After DUMP_ERROR or DUMP_TRUNCATED: a one-line description in the    */
/* project's message style (what, where, which record).                  */
const char *dump_error(const struct dump_reader *r);

/* A warning about the record dump_next just returned (NULL: none): a   */
/* number in it that does not fit (an impossible value, such as a delta  */
/* that wrapped) was read as 0 and the rest of the record kept; names    */
/* the record and the field.                                             */
const char *dump_warning(struct dump_reader *r);

/* Records returned so far; uncompressed bytes consumed so far.          */
unsigned long dump_records(const struct dump_reader *r);
unsigned long long dump_offset(const struct dump_reader *r);
/* Compressed bytes read so far and the file's size (0 if unknown), for  */
/* progress display.                                                     */
unsigned long long dump_compressed_offset(const struct dump_reader *r);
unsigned long long dump_compressed_size(const struct dump_reader *r);
const char *dump_name(const struct dump_reader *r);

/* ---- columns -------------------------------------------------------- */
/* Where each column the reader knows (accounting/gca_fields.h) sits in  */
/* this dump's rows, from the names in the header's "columns" (docs/     */
/* dump-format.md, "Columns"); a header without them, or without a       */
/* table, gives gca_fields.h's order.  Columns the header names that the */
/* reader does not know are skipped; a known one it does not name is at  */
/* DUMP_COL_ABSENT, which reads as absent (json_array_get gives NULL),   */
/* so as 0.  For "sites", the "frames" column is the rest of the row.    */
#define DUMP_COL_ABSENT ((size_t)-1)
struct dump_cols {
#define DUMP_COLS_MEMBER_(id, key, cols) size_t id[GCA_NCOLS_##id];
  GCA_DUMP_TABLES(DUMP_COLS_MEMBER_)
#undef DUMP_COLS_MEMBER_
  /* The known columns the header lacks, "table.column" joined by ", "  */
  /* (truncated with "..." when long); "" when none.                     */
  char missing[240];
};
/* Position of column c of table t in a row: DUMP_COL(cols, classes,    */
/* live_bytes).  t and c as in gca_fields.h (a typo does not compile).   */
#define DUMP_COL(cols, t, c) ((cols)->t[GCA_COL_##t##_##c])

/* The reader's tables: the "key" in the header's "columns" and the     */
/* names of the columns, in gca_fields.h order (GCA_TABLE_<id>).         */
struct dump_table {
  const char *key;
  size_t ncols;
  const char *const *names;
  size_t offset;                /* of its positions in struct dump_cols  */
};
extern const struct dump_table dump_tables[GCA_N_TABLES];
/* The positions of table t (GCA_TABLE_<id>) in c: ncols of them.        */
const size_t *dump_cols_table(const struct dump_cols *c, int t);

/* The map of a header record (NULL: gca_fields.h's order).              */
void dump_cols_init(struct dump_cols *c, const json_t *header);
/* The map of r's dump: set when dump_next returns the header (before   */
/* that, gca_fields.h's order).                                          */
const struct dump_cols *dump_cols(const struct dump_reader *r);

void dump_close(struct dump_reader *r);

#endif
