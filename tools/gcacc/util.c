/*
 * util.c: messages, shared options and progress for the gcacc reader.
 */

#include "gcacc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *gcacc_cmd = NULL;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
  if (gcacc_cmd != NULL) fprintf(stderr, "gcacc %s: %s: ", gcacc_cmd, kind);
  else fprintf(stderr, "gcacc: %s: ", kind);
  vfprintf(stderr, fmt, ap);
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
