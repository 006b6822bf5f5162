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

struct dump_reader;

enum dump_status {
  DUMP_RECORD = 0,  /* *out holds the next record (caller json_decref) */
  DUMP_END,         /* clean end of file                               */
  DUMP_TRUNCATED,   /* the file ends mid-record; records so far valid  */
  DUMP_ERROR        /* corrupt or foreign input: see dump_error()      */
};

/* Open path ("-" is standard input).  NULL with a message in *err (a   */
/* static string owned by the reader module) on failure.                 */
struct dump_reader *dump_open(const char *path, const char **err);

/* Open a dump held in memory (the fuzz target uses this).  The buffer  */
/* is gzip data or plain JSON Lines; it must outlive the reader.          */
struct dump_reader *dump_open_mem(const void *data, size_t len,
                                  const char *name);

/* The next record.  The first record of a dump must be the header      */
/* ("record":"header"); dump_next checks that, and that every record is  */
/* a JSON object with a string "record" member.                          */
enum dump_status dump_next(struct dump_reader *r, json_t **out);

/* After DUMP_ERROR or DUMP_TRUNCATED: a one-line description in the    */
/* project's message style (what, where, which record).                  */
const char *dump_error(const struct dump_reader *r);

/* Records returned so far; uncompressed bytes consumed so far.          */
unsigned long dump_records(const struct dump_reader *r);
unsigned long long dump_offset(const struct dump_reader *r);
/* Compressed bytes read so far and the file's size (0 if unknown), for  */
/* progress display.                                                     */
unsigned long long dump_compressed_offset(const struct dump_reader *r);
unsigned long long dump_compressed_size(const struct dump_reader *r);
const char *dump_name(const struct dump_reader *r);

void dump_close(struct dump_reader *r);

#endif
