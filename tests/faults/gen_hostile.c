/* SPDX-License-Identifier: MIT */
/*
 * gen_hostile.c: dumps no session would write, for the reader's fault
 * tests (issue 25, faults 5-8; tests/faults/hostile.sh, big_dumps.sh).
 *
 *   gen_hostile sites N OUT.gz     N distinct callsites (with types), in
 *                                  census collections of 1000 sites each
 *   gen_hostile classes N OUT.gz   N class rows, every one a distinct
 *                                  (kind, class), 1000 per collection
 *   gen_hostile classes1 N OUT.gz  the same N class rows in one record
 *   gen_hostile newlines N OUT.gz  N bytes of newlines, nothing else
 *
 * Records that jansson alone would parse, dear in memory for their size
 * (issue 38, fault 3), each followed by two plain collections:
 *   gen_hostile freelists N OUT.gz a collection whose freelists.lists
 *                                  holds N empty objects
 *   gen_hostile modules N OUT.gz   a header listing N modules {"base":1}
 *   gen_hostile unknown N OUT.gz   a collection with an unknown key
 *                                  holding N integers
 *   gen_hostile members N OUT.gz   a collection with 10 unknown keys of
 *                                  N empty objects each
 *   gen_hostile blank N OUT.gz     a header, N newlines, two
 *                                  collections (issue 38, fault 4)
 *   gen_hostile blankend N OUT.gz  a header and N newlines
 *   gen_hostile manymods N OUT.gz  a header of N modules, and N sites and
 *                                  N types named by their address, one
 *                                  in each (symbolize and diff were
 *                                  quadratic)
 *
 * Output is gzip (level 1: the test's time goes to the reader, not here).
 * The dumps are well-formed JSON Lines with a real header: what makes
 * them hostile is their number of distinct keys, far beyond a session's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char header[] =
  "{\"record\":\"header\",\"format_version\":1,\"gcacc_version\":\"0.0.0\","
  "\"pid\":1,\"start_time_ns\":1,\"start_mono_ns\":100,"
  "\"executable\":\"/bin/gen_hostile\",\"config\":{\"stacks\":\"all\","
  "\"stacks_sample_bytes\":0,\"word_bytes\":8,\"granule_bytes\":16,"
  "\"hblksize\":4096,\"max_small_bytes\":2048,\"large_class0\":129,"
  "\"large_log0\":11},\"modules\":[{\"path\":\"/bin/gen_hostile\","
  "\"base\":\"0x400000\",\"build_id\":\"\"}]}\n";

static gzFile out;
static char buf[1 << 16];
static size_t used;

static void put(const char *s, size_t n)
{
  if (used + n > sizeof(buf)) {
    if (gzwrite(out, buf, (unsigned)used) != (int)used) {
      fprintf(stderr, "gen_hostile: write failed\n");
      exit(1);
    }
    used = 0;
  }
  memcpy(buf + used, s, n);
  used += n;
}

static void puts_(const char *s) { put(s, strlen(s)); }

static void putf(const char *fmt, unsigned long long a, unsigned long long b,
                 unsigned long long c)
{
  char tmp[256];
  int n = snprintf(tmp, sizeof(tmp), fmt, a, b, c);

  put(tmp, (size_t)n);
}

#define PER_RECORD 1000ULL

/* One census collection per PER_RECORD keys: record r of n.            */
static void collection_start(unsigned long long r)
{
  putf("{\"record\":\"collection\",\"seq\":%llu,\"gc_no\":%llu,\"census\":1,"
       "\"t_start_ns\":%llu,", r + 1, r + 1, 1000 + r * 1000);
  putf("\"t_end_ns\":%llu,\"mark_ns\":10,\"heap\":{\"heap_bytes\":%llu,"
       "\"free_bytes\":0},\"freelists\":{\"lists\":[],\"total_free_bytes\":0,"
       "\"largest_free_bytes\":%llu}", 1500 + r * 1000,
       (unsigned long long)1 << 30, 0);
}

static void sites(unsigned long long n)
{
  unsigned long long r, i, nrec = (n + PER_RECORD - 1) / PER_RECORD;

  for (r = 0; r < nrec; r++) {
    unsigned long long lo = 2 + r * PER_RECORD, hi = lo + PER_RECORD;

    if (hi > 2 + n) hi = 2 + n;
    collection_start(r);
    puts_(",\"classes\":[[1,2,10,320,4096,0,10,320,320]],\"types\":[");
    putf("[%llu,\"0x%llx\",\"T%llu\"]", r + 1, 0x1000 + r, r + 1);
    puts_("],\"sites\":[");
    for (i = lo; i < hi; i++)
      putf(i > lo ? ",[%llu,\"0x%llx\",\"0x401000\"]%.0llu"
                  : "[%llu,\"0x%llx\",\"0x401000\"]%.0llu",
           i, 0x400000 + 16 * i, 0);
    puts_("],\"type_rows\":[");
    putf("[%llu,%llu,%llu,0,0,0,0,0,0,0,0,0,0,0]", r + 1, hi - lo,
         32 * (hi - lo));
    puts_("],\"site_rows\":[");
    for (i = lo; i < hi; i++)
      putf(i > lo ? ",[%llu,1,32,1,32,0,0,1,0,0,0,0,0,0]%.0llu%.0llu"
                  : "[%llu,1,32,1,32,0,0,1,0,0,0,0,0,0]%.0llu%.0llu",
           i, 0, 0);
    puts_("]}\n");
  }
}

static void classes(unsigned long long n, unsigned long long per)
{
  unsigned long long r, i, nrec = (n + per - 1) / per;

  for (r = 0; r < nrec; r++) {
    unsigned long long lo = r * per, hi = lo + per;

    if (hi > n) hi = n;
    collection_start(r);
    puts_(",\"classes\":[");
    for (i = lo; i < hi; i++)
      putf(i > lo ? ",[%llu,%llu,1,48,4096,0,1,48,48]%.0llu"
                  : "[%llu,%llu,1,48,4096,0,1,48,48]%.0llu",
           4 + i / 100, 1 + i % 100, 0);
    puts_("]}\n");
  }
}

/* N copies of s, comma-separated.                                      */
static void repeat(const char *s, unsigned long long n)
{
  unsigned long long i;

  for (i = 0; i < n; i++) {
    if (i) put(",", 1);
    puts_(s);
  }
}

/* A plain census collection (after the dear records: read, counted).  */
static void plain(unsigned long long r)
{
  collection_start(r);
  puts_(",\"classes\":[[1,2,10,320,4096,0,10,320,320]]}\n");
}

static void dear(const char *kind, unsigned long long n)
{
  unsigned long long k;

  if (strcmp(kind, "manymods") == 0) {
    unsigned long long r, i;

    puts_("{\"record\":\"header\",\"format_version\":1,\"pid\":1,"
          "\"start_mono_ns\":1,\"config\":{\"stacks\":\"all\"},"
          "\"modules\":[");
    for (i = 0; i < n; i++)
      putf(i ? ",{\"path\":\"/nonexistent/m%llu.so\",\"base\":%llu}%.0llu"
             : "{\"path\":\"/nonexistent/m%llu.so\",\"base\":%llu}%.0llu",
           i, 0x10000000ULL + i * 0x10000, 0);
    puts_("]}\n");
    for (r = 0; r * PER_RECORD < n; r++) {
      unsigned long long lo = r * PER_RECORD;

      collection_start(r);
      puts_(",\"sites\":[");
      for (i = lo; i < n && i < lo + PER_RECORD; i++)
        putf(i > lo ? ",[%llu,\"0x%llx\"]%.0llu" : "[%llu,\"0x%llx\"]%.0llu",
             2 + i, 0x10000010ULL + i * 0x10000, 0);
      /* And a type named by its address in each module (diff looked   */
      /* up each one's module by a scan of the header).                */
      puts_("],\"types\":[");
      for (i = lo; i < n && i < lo + PER_RECORD; i++)
        putf(i > lo ? ",[%llu,\"0x%llx\",\"class 0x%llx\"]"
                    : "[%llu,\"0x%llx\",\"class 0x%llx\"]",
             1 + i, 0x10000100ULL + i * 0x10000, 0x10000100ULL + i * 0x10000);
      puts_("],\"type_rows\":[");
      for (i = lo; i < n && i < lo + PER_RECORD; i++)
        putf(i > lo ? ",[%llu,1,32,1,32,0,0,0,0,0,0,0,0,0]%.0llu%.0llu"
                    : "[%llu,1,32,1,32,0,0,0,0,0,0,0,0,0]%.0llu%.0llu",
             1 + i, 0, 0);
      puts_("]}\n");
    }
    return;
  }

  if (strcmp(kind, "modules") == 0) {
    /* The header, with its module list grown.                           */
    const char *m = strstr(header, "\"modules\":[") + 11;

    put(header, (size_t)(m - header));
    repeat("{\"base\":1}", n);
    put(",", 1);
    puts_(m);
    plain(0);
    plain(1);
    return;
  }
  puts_(header);
  if (strcmp(kind, "blank") == 0 || strcmp(kind, "blankend") == 0) {
    static char nl[1 << 16];

    memset(nl, '\n', sizeof(nl));
    for (k = 0; k < n; k += sizeof(nl))
      put(nl, n - k < sizeof(nl) ? (size_t)(n - k) : sizeof(nl));
    if (strcmp(kind, "blank") == 0) {
      plain(0);
      plain(1);
    }
    return;
  }
  if (strcmp(kind, "freelists") == 0) {
    puts_("{\"record\":\"collection\",\"seq\":1,\"gc_no\":1,\"census\":1,"
          "\"t_start_ns\":1000,\"t_end_ns\":1500,\"mark_ns\":10,\"heap\":"
          "{\"heap_bytes\":1073741824,\"free_bytes\":0},"
          "\"classes\":[[1,2,10,320,4096,0,10,320,320]],\"freelists\":"
          "{\"total_free_bytes\":0,\"largest_free_bytes\":0,\"lists\":[");
    repeat("{}", n);
    puts_("]}}\n");
    plain(1);
    plain(2);
    return;
  }
  collection_start(0);
  if (strcmp(kind, "unknown") == 0) {
    puts_(",\"classes\":[[1,2,10,320,4096,0,10,320,320]],\"unknown\":[");
    repeat("1", n);
    puts_("]}\n");
  } else {                              /* members */
    for (k = 0; k < 10; k++) {
      putf(",\"unknown%llu\":[%.0llu%.0llu", k, 0, 0);
      repeat("{}", n);
      put("]", 1);
    }
    puts_("}\n");
  }
  plain(1);
  plain(2);
}

int main(int argc, char **argv)
{
  unsigned long long n;
  char *end;

  if (argc != 4) {
    fprintf(stderr, "usage: gen_hostile sites|classes|newlines N OUT.gz\n");
    return 2;
  }
  n = strtoull(argv[2], &end, 10);
  if (*end != '\0') {
    fprintf(stderr, "gen_hostile: not a number: %s\n", argv[2]);
    return 2;
  }
  out = gzopen(argv[3], "wb1");
  if (out == NULL) {
    perror(argv[3]);
    return 1;
  }
  if (strcmp(argv[1], "freelists") == 0 || strcmp(argv[1], "modules") == 0
      || strcmp(argv[1], "unknown") == 0 || strcmp(argv[1], "members") == 0
      || strcmp(argv[1], "blank") == 0
      || strcmp(argv[1], "blankend") == 0
      || strcmp(argv[1], "manymods") == 0) {
    dear(argv[1], n);
  } else if (strcmp(argv[1], "newlines") == 0) {
    unsigned long long i;

    for (i = 0; i < n; i++) put("\n", 1);
  } else {
    puts_(header);
    if (strcmp(argv[1], "sites") == 0) sites(n);
    else if (strcmp(argv[1], "classes") == 0) classes(n, PER_RECORD);
    else if (strcmp(argv[1], "classes1") == 0) {
      classes(n, n ? n : 1);
      classes(2 * PER_RECORD, PER_RECORD);    /* and records after it */
    }
    else {
      fprintf(stderr, "gen_hostile: unknown kind %s\n", argv[1]);
      return 2;
    }
  }
  if ((used && gzwrite(out, buf, (unsigned)used) != (int)used)
      || gzclose(out) != Z_OK) {
    fprintf(stderr, "gen_hostile: write failed\n");
    return 1;
  }
  return 0;
}
