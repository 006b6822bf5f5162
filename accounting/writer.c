/*
 * writer.c: the dump file.  (Placeholder until the writer lands: no dump
 * is ever open, so every record counts as dropped.)
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

static word writer_dropped = 0;

GC_INNER int gca_dump_submit(const char *line, size_t len)
{
  (void)line; (void)len;
  writer_dropped++;
  return 1;
}

GC_INNER word gca_dump_take_dropped(void)
{
  word d = writer_dropped;

  writer_dropped = 0;
  return d;
}

GC_INNER int gca_dump_is_open(void)
{
  return 0;
}

#endif /* !GC_ACC_DISABLE */
