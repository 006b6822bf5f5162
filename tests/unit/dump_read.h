/*
 * dump_read.h: reading dump files back in gcacc's own tests.
 *
 * Decompresses a gzip dump (possibly cut short, without its trailer, as a
 * killed process leaves it) incrementally with zlib, splits the output
 * into lines and parses each complete line with jansson.  Static
 * functions only; each test includes it once.
 */
#ifndef GCACC_DUMP_READ_H
#define GCACC_DUMP_READ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <zlib.h>

/* Creates the empty file a test's dump goes to: path is a mkstemp     */
/* template, which becomes the file's name.  1 on success.             */
static inline int dr_temp_file(char *path)
{
  int fd = mkstemp(path);

  if (fd < 0) return 0;
  (void)close(fd);
  return 1;
}

/* Read a whole file into malloc'd memory; NULL on error.             */
static unsigned char *dr_slurp(const char *path, size_t *len)
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

/* What a (possibly cut) dump holds.                                   */
struct dr_result {
  int zerr;             /* 1 if inflate reported corrupt data          */
  int ended;            /* 1 if the gzip stream ended (trailer seen)   */
  size_t lines;         /* complete lines (newline-terminated)         */
  size_t bad;           /* of which not parseable as a JSON object     */
  json_t *first;        /* the first line parsed (caller decrefs)      */
  size_t partial;       /* bytes after the last newline                */
};

/* Incremental line splitter and parser.                               */
struct dr_state {
  z_stream zs;
  char line[1 << 20];
  size_t line_len;
  struct dr_result r;
  void (*each)(json_t *rec, size_t index, void *arg); /* may be NULL */
  void *arg;
};

static void dr_take(struct dr_state *s, const unsigned char *p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++) {
    if (p[i] != '\n') {
      if (s->line_len < sizeof(s->line) - 1) s->line[s->line_len] = (char)p[i];
      s->line_len++;
      continue;
    }
    {
      json_error_t e;
      json_t *j;

      s->line[s->line_len < sizeof(s->line) ? s->line_len
                                            : sizeof(s->line) - 1] = '\0';
      j = json_loads(s->line, 0, &e);
      if (NULL == j || !json_is_object(j)) s->r.bad++;
      if (j != NULL && s->each != NULL) s->each(j, s->r.lines, s->arg);
      if (0 == s->r.lines && j != NULL) {
        s->r.first = j;
      } else {
        json_decref(j);
      }
      s->r.lines++;
      s->line_len = 0;
    }
  }
  s->r.partial = s->line_len;
}

static void dr_init(struct dr_state *s)
{
  memset(s, 0, sizeof(*s));
  (void)inflateInit2(&s->zs, 15 + 16);
}

/* Feed n more compressed bytes; returns 0, or -1 on corrupt data.     */
static int dr_feed(struct dr_state *s, const unsigned char *in, size_t n)
{
  unsigned char out[65536];

  s->zs.next_in = (Bytef *)in;
  s->zs.avail_in = (uInt)n;
  while (!s->r.ended && !s->r.zerr) {
    int ret;

    s->zs.next_out = out;
    s->zs.avail_out = sizeof(out);
    ret = inflate(&s->zs, Z_NO_FLUSH);
    dr_take(s, out, sizeof(out) - s->zs.avail_out);
    if (Z_STREAM_END == ret) {
      s->r.ended = 1;
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      s->r.zerr = 1;
    } else if (0 == s->zs.avail_in && s->zs.avail_out != 0) {
      break;
    }
  }
  return s->r.zerr ? -1 : 0;
}

static void dr_end(struct dr_state *s)
{
  (void)inflateEnd(&s->zs);
}

/* Read the first len bytes of a dump held in buf.                      */
static struct dr_result dr_read(const unsigned char *buf, size_t len,
                                void (*each)(json_t *, size_t, void *),
                                void *arg)
{
  static struct dr_state s;   /* large: not on the stack */
  struct dr_result r;

  dr_init(&s);
  s.each = each;
  s.arg = arg;
  (void)dr_feed(&s, buf, len);
  dr_end(&s);
  r = s.r;
  return r;
}

#endif
