/* SPDX-License-Identifier: MIT */
/*
 * gendump.c: writes a large synthetic gcacc dump for the reader benchmark.
 *
 *   gendump OUT.gz [RECORDS]      (default 10,000 collection records)
 *
 * The header is shaped like the writer's (config, a module map); each
 * collection record like a busy program's: ~40 "classes" rows over kinds
 * 0-1, a handful of free-list rows, two "kinds" rows, and a heap growth
 * every 25th record.  Compressed like accounting/writer.c: one gzip
 * stream, a Z_SYNC_FLUSH after every record.  Deterministic (fixed seed).
 * Prints the record count and compressed/uncompressed sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned long long rnd(unsigned long long n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return n ? rng % n : 0;
}

static z_stream zs;
static FILE *out;
static unsigned char obuf[1 << 16];
static unsigned long long raw_bytes;

static void put(const char *s, size_t n, int flush)
{
  zs.next_in = (unsigned char *)s;
  zs.avail_in = (uInt)n;
  raw_bytes += n;
  do {
    zs.next_out = obuf;
    zs.avail_out = sizeof(obuf);
    if (deflate(&zs, flush) == Z_STREAM_ERROR) {
      fprintf(stderr, "gendump: deflate failed\n");
      exit(1);
    }
    fwrite(obuf, 1, sizeof(obuf) - zs.avail_out, out);
  } while (zs.avail_out == 0);
}

int main(int argc, char **argv)
{
  long nrec = argc > 2 ? atol(argv[2]) : 10000;
  static char line[1 << 16];
  unsigned long long t = 1300000000000ULL, heap = 4 << 20;
  long i;
  int len;

  if (argc < 2) {
    fprintf(stderr, "usage: gendump OUT.gz [RECORDS]\n");
    return 2;
  }
  out = fopen(argv[1], "wb");
  if (out == NULL) { perror(argv[1]); return 1; }
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) return 1;
  len = snprintf(line, sizeof(line),
    "{\"record\":\"header\",\"format_version\":1,\"gcacc_version\":\"0.1.0\","
    "\"bdwgc_version\":\"8.2.2\",\"pid\":4242,\"start_time_ns\":"
    "1795343596231250146,\"start_mono_ns\":%llu,\"config\":{\"enable\":true,"
    "\"dump\":\"bench.gz\",\"dump_buffer\":4194304,\"word_bytes\":8,"
    "\"granule_bytes\":16,\"hblksize\":4096,\"max_small_bytes\":2048,"
    "\"max_obj_kinds\":16,\"n_kinds\":4,\"n_classes\":182,\"large_class0\":"
    "129,\"large_log0\":11,\"n_hblk_fls\":60,\"threads\":true,"
    "\"thread_local_alloc\":true,\"parallel_mark\":true,\"markers\":2,"
    "\"all_interior_pointers\":true,\"incremental\":false,\"munmap\":true},"
    "\"executable\":\"/usr/bin/bench-app\",\"modules\":["
    "{\"path\":\"/usr/bin/bench-app\",\"base\":\"0x55d1c0a00000\","
    "\"build_id\":\"4f1c0a93d1e0b2a7c35f8e6d9b0a1c2d3e4f5a6b\"},"
    "{\"path\":\"/lib/x86_64-linux-gnu/libc.so.6\",\"base\":"
    "\"0x7f3a1c000000\",\"build_id\":\"e7a914a33fd4f6d25057b8d48c7c5f3d2ab2c6e8\"}"
    "]}\n", t - 1000000);
  put(line, (size_t)len, Z_SYNC_FLUSH);
  for (i = 1; i <= nrec; i++) {
    unsigned long long t0 = t + 1000000 + rnd(50000000), mark = 200000 + rnd(3000000);
    unsigned long long live = 0, res = 0, freeb = heap / 4 + rnd(heap / 4);
    int k, c, rows = 0, n;

    t = t0 + mark + rnd(100000);
    len = snprintf(line, sizeof(line),
      "{\"record\":\"collection\",\"seq\":%ld,\"gc_no\":%ld,\"census\":1,"
      "\"t_start_ns\":%llu,\"t_end_ns\":%llu,\"mark_ns\":%llu,"
      "\"census_ns\":%llu,\"dropped\":0,\"granule_bytes\":16,"
      "\"hblk_bytes\":4096,\"heap\":{\"heap_bytes\":%llu,\"free_bytes\":%llu,"
      "\"unmapped_bytes\":%llu,\"allocd_since_prev_bytes\":%llu,"
      "\"reserved_bytes\":%llu,\"resident_bytes\":%llu},\"freelists\":{"
      "\"total_free_bytes\":%llu,\"largest_free_bytes\":%llu,"
      "\"frag_index\":0.%06llu,\"lists\":[",
      i, i + 1, t0, t, mark, 5000 + rnd(20000), heap, freeb,
      rnd(4) ? 0ULL : rnd(heap / 8) & ~4095ULL, heap / 2 + rnd(heap),
      heap + (8 << 20), heap - rnd(heap / 16), freeb,
      (freeb / (2 + rnd(6))) & ~4095ULL, rnd(1000000));
    n = 4 + (int)rnd(6);
    for (k = 0; k < n; k++)
      len += snprintf(line + len, sizeof(line) - (size_t)len,
                      "%s[%d,%llu,%llu,%llu]", k ? "," : "", k * 4 + 1 + (int)rnd(4),
                      1 + rnd(40), 4096 * (1 + rnd(400)), rnd(3) ? 0 : 4096 * rnd(20));
    len += snprintf(line + len, sizeof(line) - (size_t)len,
                    "]},\"grows_lost\":0,\"grows\":[");
    if (i % 25 == 0) {
      heap += 1 << 20;
      len += snprintf(line + len, sizeof(line) - (size_t)len,
                      "[%llu,%llu,1,%llu,%llu,1048576,%llu]", t0 - 1000,
                      16 * (1 + rnd(128)), freeb, freeb / 3, heap);
    }
    len += snprintf(line + len, sizeof(line) - (size_t)len,
                    "],\"kinds\":[[0,0,%llu,%llu,%llu],[1,%llu,%llu,%llu,%llu]],"
                    "\"classes\":[", rnd(10), 8192 * rnd(100), 8192 * rnd(120),
                    rnd(50), rnd(40), 8192 * rnd(200), 8192 * rnd(240));
    for (k = 0; k <= 1; k++)
      for (c = 1; c < 129 && rows < 40; c += 1 + (int)rnd(5)) {
        unsigned long long slot = 16ULL * c, per = 4096 / slot;
        unsigned long long blocks = 1 + rnd(200), lo = blocks * per;
        unsigned long long lv = lo - rnd(lo / 2 + 1), ao = rnd(20000);

        if (rows >= 20 * (k + 1)) break;
        live += lv * slot;
        res += blocks * 4096;
        len += snprintf(line + len, sizeof(line) - (size_t)len,
                        "%s[%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu]",
                        rows ? "," : "", k, c, lv, lv * slot, blocks * 4096,
                        lo - lv, ao, ao * (slot - rnd(16)), ao * slot);
        rows++;
      }
    len += snprintf(line + len, sizeof(line) - (size_t)len, "]}\n");
    (void)live; (void)res;
    put(line, (size_t)len, Z_SYNC_FLUSH);
  }
  put("", 0, Z_FINISH);
  deflateEnd(&zs);
  if (fclose(out) != 0) { perror(argv[1]); return 1; }
  printf("gendump: %ld records, %llu bytes uncompressed, %lu compressed\n",
         nrec + 1, raw_bytes, zs.total_out);
  return 0;
}
