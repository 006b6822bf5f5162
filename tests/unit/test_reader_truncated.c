/* SPDX-License-Identifier: MIT */
/*
 * test_reader_truncated.c: a dump cut anywhere reads back up to the cut.
 *
 * Writes a complete dump (header, test records of varied sizes, and
 * whatever records collections add), then reads it back as gcacc does
 * (tools/gcacc/dump_read.c) cut at every byte offset (one incremental
 * pass: the file growing a byte at a time, dump_open_growing) and at
 * random offsets (each a fresh read of the truncated file): every
 * complete record before the cut decompresses and parses, the records
 * read are a prefix of the whole dump's, their number never falls as the
 * cut moves on, and, since each record is flushed on its own, every count
 * from 0 to all of them is seen.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

#define N_TEST 300

static void *volatile sink;

int main(void)
{
  char path[] = "/tmp/gcacc-trunc-XXXXXX";
  static char line[8192];
  unsigned char *buf;
  size_t len = 0, off, total, prev;
  int i;
  struct dc_result full, r;
  struct dump_reader *grow;
  enum dump_status st;
  json_t *v;
  size_t n_read = 0, bad = 0;
  static size_t count_at[1 << 20];     /* records read with the cut at off */
  unsigned char *seen;
  unsigned long long seed = 12345;

  GC_INIT();
  CHECK(dc_temp_file(path));
  /* All N_TEST records are submitted in one burst, faster than the     */
  /* writer compresses them: a buffer that holds them all keeps this a   */
  /* test of truncation (test_dump_ring covers a buffer that fills up).  */
  GC_acc_set_dump_buffer_size((size_t)1 << 20);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (i = 0; i < N_TEST; i++) {
    int k, n = snprintf(line, sizeof(line),
                        "{\"record\":\"test\",\"i\":%d,\"pad\":\"", i);
    int pad = (i * 37) % 3000;

    for (k = 0; k < pad; k++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      line[n++] = "abcdefghijklmnopqrstuvwxyz0123456789"[(seed >> 33) % 36];
    }
    n += snprintf(line + n, sizeof(line) - (size_t)n, "\"}\n");
    CHECK_EQ(GC_acc_test_dump_submit(line, (size_t)n), 0);
    for (k = 0; k < 200; k++) sink = GC_malloc(32);
    if (i % 50 == 0) GC_gcollect();
  }
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);

  buf = dc_slurp(path, &len);
  unlink(path);
  CHECK(buf != NULL && len > 100);
  CHECK(len < sizeof(count_at) / sizeof(count_at[0]));
  if (NULL == buf || len >= sizeof(count_at) / sizeof(count_at[0]))
    return check_done("test_reader_truncated");

  /* The whole file: decompresses, the trailer there, every line a     */
  /* record, nothing after the last newline (DUMP_END says all four).   */
  full = dc_read(buf, len, NULL, NULL);
  if (!CHECK_EQ(full.end, DUMP_END)) fprintf(stderr, "  %s\n", full.error);
  CHECK(full.records >= N_TEST + 1);
  total = full.records;
  json_decref(full.first);

  /* Every cut, in one pass: the input grows one byte at a time; each   */
  /* byte's records are read until the reader wants more (DUMP_MORE;    */
  /* anything else is corrupt data or a line that is not a record).     */
  grow = dump_open_growing(buf, 0, "<growing test dump>");
  CHECK(grow != NULL);
  if (NULL == grow) return check_done("test_reader_truncated");
  count_at[0] = 0;
  for (off = 0; off < len; off++) {
    dump_grow(grow, buf, off + 1);
    while ((st = dump_next(grow, &v)) == DUMP_RECORD) {
      json_decref(v);
      n_read++;
    }
    if (st != DUMP_MORE && bad++ == 0)
      fprintf(stderr, "  at byte %lu: %s\n", (unsigned long)off,
              dump_error(grow));
    count_at[off + 1] = n_read;
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(n_read, total);
  /* The input ends there: a whole dump.                                 */
  dump_grow_end(grow);
  CHECK_EQ(dump_next(grow, &v), DUMP_END);
  dump_close(grow);
  seen = (unsigned char *)calloc(total + 1, 1);
  CHECK(seen != NULL);
  prev = 0;
  for (off = 0; off <= len; off++) {
    if (count_at[off] < prev) {
      CHECK(count_at[off] >= prev);   /* monotonic in the cut */
      break;
    }
    prev = count_at[off];
    if (seen != NULL && prev <= total) seen[prev] = 1;
  }
  if (seen != NULL) {
    size_t missing = 0, k;

    for (k = 0; k <= total; k++) missing += !seen[k];
    CHECK_EQ(missing, 0);   /* each record flushed on its own */
    free(seen);
  }
  /* The trailer (CRC, length: 8 bytes) is not needed for any record.  */
  CHECK_EQ(count_at[len - 8], total);

  /* Random cuts, each read afresh as a truncated file.                */
  for (i = 0; i < 200; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    off = (size_t)((seed >> 33) % (len + 1));
    r = dc_read(buf, off, NULL, NULL);
    /* No corrupt data, no line that is not a record.  A cut before the */
    /* header's end cannot be told from a file that is not a dump: the  */
    /* reader says so (and reads nothing, as count_at says).            */
    if (!CHECK(r.end != DUMP_ERROR
               || (count_at[off] == 0
                   && strstr(r.error, "no whole header record") != NULL)))
      fprintf(stderr, "  cut at %lu: %s\n", (unsigned long)off, r.error);
    if (!CHECK_EQ(r.records, count_at[off]))
      fprintf(stderr, "  cut at %lu of %lu\n", (unsigned long)off,
              (unsigned long)len);
    if (off > 0 && r.records > 0) {
      CHECK(r.first != NULL && strcmp(json_string_value(json_object_get(
                                r.first, "record")), "header") == 0);
    }
    json_decref(r.first);
  }
  free(buf);
  return check_done("test_reader_truncated");
}
