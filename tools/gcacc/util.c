/* SPDX-License-Identifier: MIT */
/*
 * util.c: messages, shared options and progress for the gcacc reader.
 */

#include "gcacc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *gcacc_cmd = NULL;

/* ---- escaping (see gcacc.h) --------------------------------------------- */

size_t text_escape(char *dst, size_t cap, const char *s, int backslash)
{
  size_t n = 0, w = 0;
  int full = 0;

  for (; s != NULL && *s; s++) {
    unsigned char c = (unsigned char)*s;
    char e[5];
    size_t k;

    if (c == '\n') memcpy(e, "\\n", 3), k = 2;
    else if (c == '\t') memcpy(e, "\\t", 3), k = 2;
    else if (c == '\r') memcpy(e, "\\r", 3), k = 2;
    else if (c == '\\' && backslash) memcpy(e, "\\\\", 3), k = 2;
    else if (c < 0x20 || c == 0x7f) {
      snprintf(e, sizeof(e), "\\x%02x", c);
      k = 4;
    } else e[0] = (char)c, k = 1;
    if (!full && w + k < cap) {
      memcpy(dst + w, e, k);
      w += k;
    } else {
      full = 1;                         /* cut: no half escape           */
    }
    n += k;
  }
  if (cap > 0) dst[w] = '\0';
  return n;
}

void fputs_escaped(const char *s, FILE *f)
{
  char buf[512];

  for (; s != NULL && *s; s++) {
    unsigned char c = (unsigned char)*s;

    if (c < 0x20 || c == 0x7f) {
      char one[2] = { (char)c, '\0' };

      text_escape(buf, sizeof(buf), one, 0);
      fputs(buf, f);
    } else {
      fputc(c, f);
    }
  }
}

size_t text_unescape(char *s)
{
  char *d = s, *p = s;

  while (*p) {
    if (*p != '\\' || p[1] == '\0') { *d++ = *p++; continue; }
    p++;
    switch (*p) {
    case 'n': *d++ = '\n'; p++; break;
    case 't': *d++ = '\t'; p++; break;
    case 'r': *d++ = '\r'; p++; break;
    case '\\': *d++ = '\\'; p++; break;
    case 'x':
      if (p[1] && p[2]) {
        char hex[3] = { p[1], p[2], '\0' };

        *d++ = (char)strtoul(hex, NULL, 16);
        p += 3;
        break;
      }
      /* fall through */
    default: *d++ = '\\'; break;
    }
  }
  *d = '\0';
  return (size_t)(d - s);
}

/* Messages quote paths and names from a dump: a control character in   */
/* one is escaped, so that a message stays one line (fault 7).           */
static void vmsg(const char *kind, const char *fmt, va_list ap)
{
  char msg[2048];

  vsnprintf(msg, sizeof(msg), fmt, ap);
  if (gcacc_cmd != NULL) fprintf(stderr, "gcacc %s: %s: ", gcacc_cmd, kind);
  else fprintf(stderr, "gcacc: %s: ", kind);
  fputs_escaped(msg, stderr);
  fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg("error", fmt, ap);
  va_end(ap);
  return -1;
}

void warning(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg("warning", fmt, ap);
  va_end(ap);
}

int usage_error(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg("error", fmt, ap);
  va_end(ap);
  if (gcacc_cmd != NULL) fprintf(stderr, "see 'gcacc %s --help'\n", gcacc_cmd);
  else fprintf(stderr, "see 'gcacc --help'\n");
  return EXIT_USAGE;
}

int common_opt(struct common_opts *o, int argc, char **argv, int *i)
{
  const char *a = argv[*i];

  if (strcmp(a, "--json") == 0) { o->format = EMIT_JSON; return 1; }
  if (strcmp(a, "--csv") == 0) { o->format = EMIT_CSV; return 1; }
  if (strcmp(a, "--no-progress") == 0) { o->progress = 0; return 1; }
  if (strcmp(a, "--progress") == 0) { o->progress = 1; return 1; }
  if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
    if (*i + 1 >= argc) {
      usage_error("option '%s' needs a file name", a);
      return -1;
    }
    o->output = argv[++*i];
    return 1;
  }
  if (strncmp(a, "--output=", 9) == 0) { o->output = a + 9; return 1; }
  return 0;
}

int view_arg(struct common_opts *o, const char *usage, int argc, char **argv,
             int *i)
{
  const char *a = argv[*i];
  int c;

  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
    fputs(usage, stdout);
    return EXIT_OK;
  }
  c = common_opt(o, argc, argv, i);
  if (c < 0) return EXIT_USAGE;
  if (c > 0) return ARG_TAKEN;
  if (a[0] == '-' && a[1] != '\0')
    return usage_error("unknown option '%s'", a);
  return ARG_OPERAND;
}

int view_dump_arg(struct common_opts *o, const char *usage, int argc,
                  char **argv, int *i, const char **path)
{
  int c = view_arg(o, usage, argc, argv, i);

  if (c != ARG_OPERAND) return c;
  if (*path != NULL) return usage_error("one dump at a time");
  *path = argv[*i];
  return ARG_TAKEN;
}

const char *opt_value(int argc, char **argv, int *i)
{
  if (*i + 1 >= argc) {
    usage_error("option '%s' needs a value", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

FILE *common_output(const struct common_opts *o)
{
  FILE *f;

  if (o->output == NULL || strcmp(o->output, "-") == 0) return stdout;
  f = fopen(o->output, "w");
  if (f == NULL)
    error("cannot write %s: %s", o->output, strerror(errno));
  return f;
}

void common_close(const struct common_opts *o, FILE *f)
{
  if (f != NULL && f != stdout) fclose(f);
  (void)o;
}

static int progress_shown;

void progress_update(int enabled, const char *what, unsigned long long done,
                     unsigned long long total)
{
  static struct timespec last;
  struct timespec now;

  if (enabled < 0) enabled = isatty(2);
  if (!enabled) return;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (progress_shown && (now.tv_sec - last.tv_sec) * 1000
                        + (now.tv_nsec - last.tv_nsec) / 1000000 < 200)
    return;
  last = now;
  progress_shown = 1;
  if (total > 0)
    fprintf(stderr, "\r%s: %3.0f%%", what, 100.0 * (double)done / total);
  else
    fprintf(stderr, "\r%s: %llu MiB", what, done >> 20);
}

void progress_done(int enabled)
{
  if (enabled < 0) enabled = isatty(2);
  if (enabled && progress_shown) fputs("\r\033[K", stderr);
  progress_shown = 0;
}

int open_regular(const char *path, int nofollow, unsigned long long max,
                 struct stat *st, const char **why)
{
  static char big[64];
  struct stat s;
  int fd, flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, e;

  if (why != NULL) *why = NULL;
  if (nofollow) flags |= O_NOFOLLOW;
  fd = open(path, flags);
  if (fd < 0) {
    e = errno;
    if (why != NULL)
      *why = e == ELOOP && nofollow ? "a symbolic link" : strerror(e);
    errno = e;
    return -1;
  }
  if (fstat(fd, &s) != 0) {
    e = errno;
    if (why != NULL) *why = strerror(e);
    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(s.st_mode)) {
    if (why != NULL)
      *why = "not a regular file (a FIFO, a device or a directory)";
    close(fd);
    errno = EINVAL;
    return -1;
  }
  if (max != 0 && (unsigned long long)s.st_size > max) {
    snprintf(big, sizeof(big), "larger than %llu MiB", max >> 20);
    if (why != NULL) *why = big;
    close(fd);
    errno = EFBIG;
    return -1;
  }
  /* A regular file never blocks; reads that follow expect blocking.   */
  e = fcntl(fd, F_GETFL);
  if (e >= 0) fcntl(fd, F_SETFL, e & ~O_NONBLOCK);
  if (st != NULL) *st = s;
  return fd;
}

void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n);
  if (p == NULL) {
    error("out of memory");
    exit(EXIT_USAGE);
  }
  return p;
}

int parse_addr(const char *s, unsigned long long *out)
{
  char *end;

  if (s == NULL) return 0;
  errno = 0;
  *out = strtoull(s, &end, 0);
  return errno == 0 && end != s && *end == '\0';
}
