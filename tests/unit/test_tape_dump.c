/* SPDX-License-Identifier: MIT */
/*
 * test_tape_dump.c: records are formatted by the writer thread, not
 * under the allocation lock.
 *
 * Collection, snapshot and frame records are taken down as tapes with
 * the lock held (accounting/text.c) and written as text by the writer
 * thread.  Here collections, snapshots and frames run in the sampled
 * profile (type and site definitions, type and site rows) with a small
 * ring (64 KiB), so that entries wrap around its end many times over;
 * then:
 *  - every record the collector queued went in as a tape, none as a
 *    line of text (GC_acc_test_dump_entries: a record formatted under
 *    the lock again would count as a line);
 *  - the dump reads back whole (DUMP_END) through the reader's parser,
 *    with one record for each tape queued, each a collection, snapshot
 *    or frame, and its seq gaps explained by "dropped".
 * Fails on the text line counter (and does not build) if records go
 * back to being formatted under the lock.
 */
#include "gc.h"
#include "gc_accounting.h"
#include "../check.h"
#include "dump_check.h"

#include <stdlib.h>
#include <string.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API void GC_CALL GC_acc_test_dump_entries(GC_word *lines,
                                             GC_word *tapes);

struct seen {
  unsigned long records, collections, snapshots, frames, other;
  unsigned long dropped, last_seq;
};

static void each(json_t *rec, size_t index, void *arg)
{
  struct seen *s = (struct seen *)arg;
  const char *kind = json_string_value(json_object_get(rec, "record"));

  if (0 == index) return;             /* the header                    */
  s->records++;
  if (NULL == kind) {
    s->other++;
    return;
  }
  if (strcmp(kind, "frame") == 0) {
    s->frames++;
    return;
  }
  if (strcmp(kind, "collection") == 0) s->collections++;
  else if (strcmp(kind, "snapshot") == 0) s->snapshots++;
  else s->other++;
  s->last_seq = (unsigned long)json_integer_value(json_object_get(rec, "seq"));
  s->dropped += (unsigned long)json_integer_value(
                                    json_object_get(rec, "dropped"));
}

static void *volatile sink;

/* Objects from a few call chains, so that samples make sites.          */
static void alloc_a(int n)
{
  int i;

  for (i = 0; i < n; i++) sink = GC_MALLOC(24 + 8 * (i % 32));
}

static void alloc_b(int n)
{
  int i;

  for (i = 0; i < n; i++) sink = GC_MALLOC_ATOMIC(1000 + 16 * (i % 64));
}

int main(void)
{
  char path[] = "/tmp/gcacc_tape_XXXXXX";
  struct seen s;
  struct dc_result r;
  GC_word lines = 0, tapes = 0;
  int i;

  if (!CHECK(dc_temp_file(path))) return 1;
  (void)setenv("GC_ACC_PROFILE", "sampled=4096", 1);
  GC_INIT();
  CHECK_EQ(GC_acc_set_dump_buffer_size(65536), GC_SUCCESS);
  if (!CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS)) return 1;
  (void)GC_acc_frame(0);
  for (i = 1; i <= 150; i++) {
    alloc_a(2000);
    alloc_b(200);
    if (i % 3 == 0) GC_gcollect();
    else if (i % 3 == 1) (void)GC_acc_record_now();
    else (void)GC_acc_frame((GC_word)i);
  }
  if (!CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS)) return 1;
  GC_acc_test_dump_entries(&lines, &tapes);

  memset(&s, 0, sizeof(s));
  r = dc_read_file(path, each, &s);
  if (!CHECK(r.end == DUMP_END)) fprintf(stderr, "  %s\n", r.error);
  if (r.first != NULL) json_decref(r.first);
  printf("%lu lines, %lu tapes queued; read %lu records: %lu collections,"
         " %lu snapshots, %lu frames, %lu dropped\n", (unsigned long)lines,
         (unsigned long)tapes, s.records, s.collections, s.snapshots,
         s.frames, s.dropped);
  /* No record formatted under the lock.                                */
  CHECK_EQ(lines, 0);
  CHECK(tapes > 0);
  CHECK_EQ(s.records, (unsigned long)tapes);
  CHECK_EQ(s.other, 0);
  CHECK(s.collections > 0 && s.snapshots > 0 && s.frames > 0);
  /* Drops of frames (no seq) are counted in "dropped" too.            */
  CHECK(s.dropped >= s.last_seq - s.collections - s.snapshots);
  (void)remove(path);
  return check_done("test_tape_dump");
}
