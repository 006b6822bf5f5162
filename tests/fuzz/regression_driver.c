/* SPDX-License-Identifier: MIT */
/*
 * regression_driver.c: replays every file of the fuzz corpus through
 * LLVMFuzzerTestOneInput without libFuzzer, so every `make check` runs
 * the seed and regression inputs (plain gcc, no sanitizers needed).
 *
 *   regression_driver DIR|FILE...     (default: $srcdir/tests/fuzz/corpus/dump_read)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0, n;

  if (f == NULL) {
    perror(path);
    return -1;
  }
  do {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      buf = realloc(buf, cap);
      if (buf == NULL) { fclose(f); return -1; }
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
  } while (n > 0);
  fclose(f);
  /* An exact-size copy, so out-of-bounds reads hit the allocation's end. */
  {
    unsigned char *exact = malloc(len ? len : 1);

    if (exact == NULL) { free(buf); return -1; }
    if (len) memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
  }
  return 0;
}

static int cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, int *count)
{
  struct stat st;
  DIR *d;
  struct dirent *e;
  char **names = NULL;
  size_t nn = 0, i;
  int rc = 0;

  if (stat(path, &st) != 0) { perror(path); return -1; }
  if (!S_ISDIR(st.st_mode)) {
    (*count)++;
    return run_file(path);
  }
  d = opendir(path);
  if (d == NULL) { perror(path); return -1; }
  while ((e = readdir(d)) != NULL) {
    char *p;

    if (e->d_name[0] == '.') continue;
    p = malloc(strlen(path) + strlen(e->d_name) + 2);
    names = realloc(names, (nn + 1) * sizeof(*names));
    if (p == NULL || names == NULL) { closedir(d); return -1; }
    sprintf(p, "%s/%s", path, e->d_name);
    names[nn++] = p;
  }
  closedir(d);
  qsort(names, nn, sizeof(*names), cmp);
  for (i = 0; i < nn; i++) {
    if (rc == 0 && run_path(names[i], count) != 0) rc = -1;
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv)
{
  int i, count = 0, rc = 0;

  if (argc < 2) {
    const char *srcdir = getenv("srcdir");
    char path[4096];

    snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/dump_read",
             srcdir ? srcdir : ".");
    rc = run_path(path, &count);
  }
  for (i = 1; i < argc; i++)
    if (run_path(argv[i], &count) != 0) rc = -1;
  if (rc != 0) return 1;
  if (count == 0) {
    fprintf(stderr, "regression_driver: no inputs found\n");
    return 1;
  }
  printf("regression_driver: %d inputs replayed, no crash\n", count);
  return 0;
}
