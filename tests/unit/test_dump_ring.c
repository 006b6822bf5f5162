/* SPDX-License-Identifier: MIT */
/*
 * test_dump_ring.c: the dump's buffer grows with its records, up to its
 * limit, and what does not fit is dropped and counted, never waited for.
 *
 * 1. Default limit: records of 1 KiB up to 900 KiB (far beyond the
 *    buffer's first 256 KiB) all get in.  A record that arrives while
 *    the buffer still holds older ones and does not fit is dropped (the
 *    submit says so at once); the test then lets the writer drain and
 *    submits it again.  Each size gets in after at most a few tries, and
 *    the file holds every record once, in order, with its full length.
 * 2. GC_acc_set_dump_buffer_size(64 KiB): a 100 KiB record never gets in,
 *    however long the writer has to drain; a 10 KiB one does.
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
#include <time.h>
#include <unistd.h>

/* Test-only entry of writer.c (not in gc_accounting.h).                */
GC_API int GC_CALL GC_acc_test_dump_submit(const char *line, size_t len);

#define N_SIZES 9
static const size_t sizes[N_SIZES] = {
  1024, 8192, 40000, 100000, 200000, 300000, 500000, 700000, 900000
};

static char *make_line(int i, size_t len)
{
  char *line = (char *)malloc(len + 1);
  int n;

  if (NULL == line) return NULL;
  n = snprintf(line, len, "{\"record\":\"test\",\"i\":%d,\"pad\":\"", i);
  memset(line + n, 'a' + i % 26, len - (size_t)n - 3);
  memcpy(line + len - 3, "\"}\n", 3);
  line[len] = '\0';
  return line;
}

static void sleep_ms(long ms)
{
  struct timespec ts;

  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* Submit until accepted; returns the tries it took (0: never).         */
static int submit_retry(const char *line, size_t len, int max_tries)
{
  int t;

  for (t = 1; t <= max_tries; t++) {
    if (GC_acc_test_dump_submit(line, len) == 0) return t;
    sleep_ms(10);
  }
  return 0;
}

struct seen { int next; int gaps; int bad_len; };

static void check_rec(json_t *rec, size_t index, void *arg)
{
  struct seen *s = (struct seen *)arg;
  const char *r = json_string_value(json_object_get(rec, "record"));
  int i;
  const char *pad;

  (void)index;
  if (NULL == r || strcmp(r, "test") != 0) return;
  i = (int)json_integer_value(json_object_get(rec, "i"));
  if (i != s->next) s->gaps++;
  s->next = i + 1;
  pad = json_string_value(json_object_get(rec, "pad"));
  if (i < 0 || i >= N_SIZES || NULL == pad
      || strlen(pad) + 3 + (size_t)snprintf(NULL, 0,
                  "{\"record\":\"test\",\"i\":%d,\"pad\":\"", i) != sizes[i])
    s->bad_len++;
}

int main(void)
{
  char path[] = "/tmp/gcacc-ring-XXXXXX";
  unsigned char *buf;
  size_t len = 0;
  int i, tries;
  struct seen s = { 0, 0, 0 };
  struct dc_result r;
  char *big, *small;

  GC_INIT();
  CHECK(dc_temp_file(path));

  /* 1. Growth up to the default limit, from the 256 KiB a dump without  */
  /* tags starts with (with tags it starts at 2 MiB).                    */
  CHECK_EQ(GC_acc_set_tags(0), GC_SUCCESS);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  for (i = 0; i < N_SIZES; i++) {
    char *line = make_line(i, sizes[i]);

    CHECK(line != NULL);
    if (NULL == line) break;
    tries = submit_retry(line, sizes[i], 300);
    if (!CHECK(tries > 0))
      fprintf(stderr, "  record of %lu bytes never accepted\n",
              (unsigned long)sizes[i]);
    free(line);
  }
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  buf = dc_slurp(path, &len);
  CHECK(buf != NULL);
  if (buf != NULL) {
    r = dc_read(buf, len, check_rec, &s);
    /* Decompresses, the trailer there, every line a record, as gcacc  */
    /* reads it (tools/gcacc/dump_read.c): DUMP_END.                   */
    if (!CHECK_EQ(r.end, DUMP_END)) fprintf(stderr, "  %s\n", r.error);
    CHECK_EQ(s.next, N_SIZES);
    CHECK_EQ(s.gaps, 0);
    CHECK_EQ(s.bad_len, 0);
    json_decref(r.first);
    free(buf);
  }

  /* 2. A limit below the record: dropped every time, never waited for. */
  GC_acc_set_dump_buffer_size(64 << 10);
  CHECK_EQ(GC_acc_dump_start(path), GC_SUCCESS);
  big = make_line(0, 100000);
  small = make_line(1, 10000);
  CHECK(big != NULL && small != NULL);
  if (big != NULL && small != NULL) {
    CHECK_EQ(submit_retry(big, 100000, 20), 0);
    CHECK(submit_retry(small, 10000, 300) > 0);
  }
  free(big);
  free(small);
  CHECK_EQ(GC_acc_dump_stop(), GC_SUCCESS);
  GC_acc_set_dump_buffer_size(0);
  unlink(path);
  return check_done("test_dump_ring");
}
