/* SPDX-License-Identifier: MIT */
/*
 * dump_check.h: how gcacc's own tests read a dump back: through the
 * reader's parser, tools/gcacc/dump_read.c (linked into each test, see
 * tests/tests.am), so that the tests and `gcacc` read dumps one way.
 * What is here only drives it: one loop over a dump's records, and the
 * files a test's dump goes to and is read from.  Static functions; each
 * test includes it once.
 */
#ifndef GCACC_DUMP_CHECK_H
#define GCACC_DUMP_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include "dump_read.h"

/* Creates the empty file a test's dump goes to: path is a mkstemp     */
/* template, which becomes the file's name.  1 on success.             */
static inline int dc_temp_file(char *path)
{
  int fd = mkstemp(path);

  if (fd < 0) return 0;
  (void)close(fd);
  return 1;
}

/* Read a whole file into malloc'd memory; NULL on error.             */
static inline unsigned char *dc_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0;

  if (NULL == f) return NULL;
  for (;;) {
    size_t r;

    if (n == cap) {
      unsigned char *t = (unsigned char *)realloc(buf, cap = cap * 2 + 65536);

      if (NULL == t) { free(buf); fclose(f); return NULL; }
      buf = t;
    }
    r = fread(buf + n, 1, cap - n, f);
    if (0 == r) break;
    n += r;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* The "test" records a test submitted (GC_acc_test_dump_submit), in   */
/* order: next, the i expected next; gaps, records out of order; with    */
/* who set, records of another who counted as foreign, not followed.    */
struct dc_seq { const char *who; long next, gaps, foreign; };

static inline void dc_check_seq(json_t *rec, size_t index, void *arg)
{
  struct dc_seq *s = (struct dc_seq *)arg;
  json_t *r = json_object_get(rec, "record");
  long i;

  (void)index;
  if (NULL == r || !json_is_string(r)
      || strcmp(json_string_value(r), "test") != 0)
    return;
  if (s->who != NULL) {
    const char *who = json_string_value(json_object_get(rec, "who"));

    if (NULL == who || strcmp(who, s->who) != 0) {
      s->foreign++;
      return;
    }
  }
  i = (long)json_integer_value(json_object_get(rec, "i"));
  if (i != s->next) s->gaps++;
  s->next = i + 1;
}

/* Occurrences of what in the file at path (0 when it cannot be read). */
static inline int dc_count_in(const char *path, const char *what)
{
  size_t len;
  unsigned char *buf = dc_slurp(path, &len);
  int n = 0;

  if (buf != NULL) {
    unsigned char *z = (unsigned char *)realloc(buf, len + 1);
    const char *p;

    if (z != NULL) {
      buf = z;
      buf[len] = '\0';
      for (p = (char *)buf; (p = strstr(p, what)) != NULL; p++) n++;
    }
    free(buf);
  }
  return n;
}

/* What a (possibly cut) dump holds, as dump_read.c reads it.           */
struct dc_result {
  /* How the read ended: DUMP_END (whole: the gzip trailer seen, no     */
  /* bytes after the last record), DUMP_TRUNCATED (cut short: no        */
  /* trailer, or a record cut off; every record before the cut read),   */
  /* DUMP_ERROR (corrupt compressed data, a line that is not a record,  */
  /* or no whole header).                                               */
  enum dump_status end;
  unsigned long records;        /* records read, the header included   */
  json_t *first;                /* the first (the header; caller       */
                                /* decrefs), NULL if none              */
  char error[768];              /* dump_error() unless DUMP_END        */
};

/* Every record of r in turn to each (may be NULL: rec, its index from  */
/* 0, arg); then closes r.                                              */
static inline struct dc_result dc_read_reader(
    struct dump_reader *r, void (*each)(json_t *, size_t, void *),
    void *arg)
{
  struct dc_result res;
  json_t *v;

  memset(&res, 0, sizeof(res));
  res.end = DUMP_ERROR;
  if (NULL == r) {
    snprintf(res.error, sizeof(res.error), "cannot open the dump");
    return res;
  }
  while ((res.end = dump_next(r, &v)) == DUMP_RECORD) {
    if (each != NULL) each(v, res.records, arg);
    if (0 == res.records) res.first = v;
    else json_decref(v);
    res.records++;
  }
  if (res.end != DUMP_END)
    snprintf(res.error, sizeof(res.error), "%s", dump_error(r));
  dump_close(r);
  return res;
}

/* The first len bytes of a dump held in buf.                          */
static inline struct dc_result dc_read(
    const unsigned char *buf, size_t len,
    void (*each)(json_t *, size_t, void *), void *arg)
{
  return dc_read_reader(dump_open_mem(buf, len, "<test dump>"), each, arg);
}

/* A dump file, as it is now (a writer may still be adding to it).     */
static inline struct dc_result dc_read_file(
    const char *path, void (*each)(json_t *, size_t, void *), void *arg)
{
  const char *err = NULL;

  return dc_read_reader(dump_open(path, &err), each, arg);
}

#endif
