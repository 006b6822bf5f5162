/* SPDX-License-Identifier: MIT */
/*
 * emit.c: tables, CSV and JSON from one description (see emit.h).
 * JSON strings are produced by jansson (json_dumps of a json_string), so
 * names from a dump are escaped by the library, not by hand.
 */

#include "emit.h"
#include "gcacc.h"             /* text_escape */

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

union emit_val {
  unsigned long long u;
  double d;
  char *s;
};

struct emit_table {
  char *title;
  struct emit_col *cols;
  int ncols;
  union emit_val *vals;
  int nrows, cap;
};

static int json_first_table;

struct emit_table *emit_table_new(const char *title,
                                  const struct emit_col *cols, int ncols)
{
  struct emit_table *t = calloc(1, sizeof(*t));

  if (t == NULL) abort();
  t->title = strdup(title);
  t->cols = malloc(sizeof(*cols) * (size_t)ncols);
  if (t->title == NULL || t->cols == NULL) abort();
  memcpy(t->cols, cols, sizeof(*cols) * (size_t)ncols);
  t->ncols = ncols;
  return t;
}

/* Room for one more row: the new row's cells (counted by the caller).  */
static union emit_val *new_row(struct emit_table *t)
{
  if (t->nrows == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->vals = realloc(t->vals, sizeof(*t->vals) * (size_t)t->cap
                               * (size_t)t->ncols);
    if (t->vals == NULL) abort();
  }
  return t->vals + (size_t)t->nrows * (size_t)t->ncols;
}

static char *cell_strdup(const char *s)
{
  char *d = strdup(s ? s : "");

  if (d == NULL) abort();
  return d;
}

/* A row's values from emit_row's arguments.  Strings copied if copy,   */
/* else borrowed (a streamed row is printed before its call returns).    */
static void row_args(const struct emit_table *t, union emit_val *row,
                     va_list ap, int copy)
{
  int c;

  for (c = 0; c < t->ncols; c++) {
    switch (t->cols[c].type) {
    case COL_STR: {
      const char *v = va_arg(ap, const char *);

      row[c].s = copy ? cell_strdup(v) : (char *)(v ? v : "");
      break;
    }
    case COL_RATIO: case COL_PCT: case COL_ERR:
      row[c].d = va_arg(ap, double);
      break;
    default:
      row[c].u = va_arg(ap, unsigned long long);
    }
  }
}

void emit_row(struct emit_table *t, ...)
{
  va_list ap;
  union emit_val *row = new_row(t);

  va_start(ap, t);
  row_args(t, row, ap, 1);
  va_end(ap);
  t->nrows++;
}

void emit_row_cells(struct emit_table *t, const union emit_cell *cells)
{
  int c;
  union emit_val *row = new_row(t);

  for (c = 0; c < t->ncols; c++) {
    switch (t->cols[c].type) {
    case COL_STR: row[c].s = cell_strdup(cells[c].s); break;
    case COL_RATIO: case COL_PCT: case COL_ERR:
      row[c].d = cells[c].d;
      break;
    default: row[c].u = cells[c].u;
    }
  }
  t->nrows++;
}

int emit_nrows(const struct emit_table *t) { return t->nrows; }

const char *emit_size(unsigned long long b, char *buf)
{
  if (b < 1024) snprintf(buf, 16, "%llu B", b);
  else if (b < 1024ULL * 1024) snprintf(buf, 16, "%.1f KiB", b / 1024.0);
  else if (b < 1024ULL * 1024 * 1024)
    snprintf(buf, 16, "%.1f MiB", b / (1024.0 * 1024));
  else snprintf(buf, 16, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  return buf;
}

const char *emit_estimate_note(unsigned long long sample_bytes, char *buf,
                               size_t n)
{
  char sz[16];

  if (sample_bytes == 0)
    snprintf(buf, n, "figures by type and callsite are estimated from "
             "sampled allocations");
  else
    snprintf(buf, n, "figures by type and callsite are estimated from "
             "sampled allocations (one sample per %s allocated on "
             "average)", emit_size(sample_bytes, sz));
  return buf;
}

const char *emit_error_text(double e, char *buf, size_t n)
{
  /* Whole percents from 10% up, one decimal below (+-1.2%).            */
  if (!(e >= 0)) snprintf(buf, n, "-");
  else snprintf(buf, n, "\xc2\xb1%.*f%%", e >= 0.095 ? 0 : 1, e * 100.0);
  return buf;
}

static void cell_text(const struct emit_col *col, const union emit_val *v,
                      char *buf, size_t n)
{
  char sz[16];

  switch (col->type) {
  case COL_STR: text_escape(buf, n, v->s, 0); break;     /* fault 7 */
  case COL_INT: snprintf(buf, n, "%llu", v->u); break;
  case COL_BYTES: snprintf(buf, n, "%s", emit_size(v->u, sz)); break;
  case COL_EINT: snprintf(buf, n, "~%llu", v->u); break;
  case COL_EBYTES: snprintf(buf, n, "~%s", emit_size(v->u, sz)); break;
  case COL_NS: snprintf(buf, n, "%.2f ms", v->u / 1e6); break;
  case COL_RATIO: snprintf(buf, n, "%.3f", v->d); break;
  case COL_PCT: snprintf(buf, n, "%.1f%%", v->d * 100.0); break;
  case COL_ERR: emit_error_text(v->d, buf, n); break;
  case COL_SBYTES: {
    long long x = (long long)v->u;
    unsigned long long m = x < 0 ? 0ULL - v->u : v->u;

    snprintf(buf, n, "%s%s", x < 0 ? "-" : x > 0 ? "+" : "",
             emit_size(m, sz));
    break;
  }
  }
}

/* Columns a cell takes on a terminal: its UTF-8 characters (the       */
/* plus-minus sign of COL_ERR is two bytes, one column).                 */
static int text_width(const char *s)
{
  int w = 0;

  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80) w++;
  return w;
}

/* s right-aligned (left if left) in w columns.                          */
static void print_cell(FILE *out, const char *s, int w, int left)
{
  int pad = w - text_width(s);

  if (left) fputs(s, out);
  for (; pad > 0; pad--) fputc(' ', out);
  if (!left) fputs(s, out);
}

/* One row of many columns reads better as "name  value" lines.        */
static void print_vertical(const struct emit_table *t, FILE *out)
{
  int c, w = 0;
  char buf[256];

  for (c = 0; c < t->ncols; c++)
    if (text_width(t->cols[c].name) > w) w = text_width(t->cols[c].name);
  if (t->title[0] != '\0') fprintf(out, "%s\n", t->title);
  for (c = 0; c < t->ncols; c++) {
    cell_text(&t->cols[c], &t->vals[c], buf, sizeof(buf));
    fputs("  ", out);
    print_cell(out, t->cols[c].name, w, 1);
    fprintf(out, "  %s\n", buf);
  }
}

static void print_table(const struct emit_table *t, FILE *out)
{
  int c, r, *w = calloc((size_t)t->ncols, sizeof(int));
  char buf[256];

  if (w == NULL) abort();
  for (c = 0; c < t->ncols; c++) {
    w[c] = text_width(t->cols[c].name);
    if (t->cols[c].width > w[c]) w[c] = t->cols[c].width;
    for (r = 0; r < t->nrows; r++) {
      int l;

      cell_text(&t->cols[c], &t->vals[(size_t)r * t->ncols + c], buf,
                sizeof(buf));
      l = text_width(buf);
      if (l > w[c]) w[c] = l;
    }
  }
  if (t->title[0] != '\0') fprintf(out, "%s\n", t->title);
  for (c = 0; c < t->ncols; c++) {
    if (c) fputs("  ", out);
    print_cell(out, t->cols[c].name, w[c], c == 0);
  }
  fputc('\n', out);
  for (r = 0; r < t->nrows; r++) {
    for (c = 0; c < t->ncols; c++) {
      cell_text(&t->cols[c], &t->vals[(size_t)r * t->ncols + c], buf,
                sizeof(buf));
      if (c) fputs("  ", out);
      print_cell(out, buf, w[c], t->cols[c].type == COL_STR && c == 0);
    }
    fputc('\n', out);
  }
  free(w);
}

static void print_json_string(const char *s, FILE *out)
{
  json_t *j = json_string(s);
  char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

  fputs(d ? d : "\"\"", out);
  free(d);
  json_decref(j);
}

void emit_csv_string(const char *raw, FILE *out)
{
  /* Control characters escaped (\n, \xNN: a string from a dump never   */
  /* starts a row), then RFC 4180: quote when needed, double quotes.     */
  size_t n = text_escape(NULL, 0, raw, 0);
  char *s = malloc(n + 1), *p;

  if (s == NULL) abort();
  text_escape(s, n + 1, raw, 0);
  if (strpbrk(s, ",\"") == NULL) {
    fputs(s, out);
  } else {
    fputc('"', out);
    for (p = s; *p; p++) {
      if (*p == '"') fputc('"', out);
      fputc(*p, out);
    }
    fputc('"', out);
  }
  free(s);
}

static void print_raw(const struct emit_col *col, const union emit_val *v,
                      FILE *out, int json)
{
  switch (col->type) {
  case COL_STR:
    if (json) print_json_string(v->s, out);
    else emit_csv_string(v->s, out);
    break;
  case COL_RATIO: case COL_PCT: fprintf(out, "%.6g", v->d); break;
  case COL_ERR:
    if (v->d >= 0) fprintf(out, "%.6g", v->d);
    else if (json) fputs("null", out);
    break;
  case COL_SBYTES: fprintf(out, "%lld", (long long)v->u); break;
  default: fprintf(out, "%llu", v->u);
  }
}

void emit_json_begin(FILE *out)
{
  fputc('{', out);
  json_first_table = 1;
}

const char *(*emit_json_note)(void);

static int json_estimated = -1;         /* -1: not said                 */
static unsigned long long json_est_bytes;

void emit_json_estimated(int estimated, unsigned long long est_bytes)
{
  json_estimated = estimated != 0;
  json_est_bytes = est_bytes;
}

void emit_estimate_line(FILE *out, int estimated,
                        unsigned long long est_bytes)
{
  char est[256], *paren;

  if (!estimated) return;
  /* Two lines within 80 columns: the words, then the sample distance.  */
  emit_estimate_note(est_bytes, est, sizeof(est));
  paren = strstr(est, " (");
  if (paren != NULL) *paren = '\0';
  fprintf(out, "note: %s\n", est);
  if (paren != NULL) fprintf(out, "      %s\n", paren + 1);
}

void emit_cols_estimate(struct emit_col *cols, int n)
{
  int i;

  for (i = 0; i < n; i++)
    if (cols[i].type == COL_INT) cols[i].type = COL_EINT;
    else if (cols[i].type == COL_BYTES) cols[i].type = COL_EBYTES;
}

void emit_json_end(FILE *out)
{
  const char *note = emit_json_note != NULL ? emit_json_note() : NULL;
  char est[256];
  int comma = !json_first_table;

  if (json_estimated >= 0) {
    fprintf(out, "%s\"estimated\":%s", comma ? "," : "",
            json_estimated ? "true" : "false");
    comma = 1;
  }
  if (note != NULL || json_estimated == 1) {
    fprintf(out, "%s\"notes\":[", comma ? "," : "");
    if (json_estimated == 1) {
      print_json_string(emit_estimate_note(json_est_bytes, est, sizeof(est)),
                        out);
      if (note != NULL) fputc(',', out);
    }
    if (note != NULL) print_json_string(note, out);
    fputc(']', out);
  }
  fputs("}\n", out);
  json_estimated = -1;
}

void emit_print(struct emit_table *t, enum emit_format f, FILE *out)
{
  int c, r;

  if (f == EMIT_TABLE) {
    if (t->nrows == 1 && t->ncols > 6) print_vertical(t, out);
    else print_table(t, out);
  } else if (f == EMIT_CSV) {
    for (c = 0; c < t->ncols; c++)
      fprintf(out, "%s%s", c ? "," : "", t->cols[c].name);
    fputc('\n', out);
    for (r = 0; r < t->nrows; r++) {
      for (c = 0; c < t->ncols; c++) {
        if (c) fputc(',', out);
        print_raw(&t->cols[c], &t->vals[(size_t)r * t->ncols + c], out, 0);
      }
      fputc('\n', out);
    }
  } else {
    if (!json_first_table) fputc(',', out);
    json_first_table = 0;
    print_json_string(t->title, out);
    fputs(":[", out);
    for (r = 0; r < t->nrows; r++) {
      fputs(r ? ",{" : "{", out);
      for (c = 0; c < t->ncols; c++) {
        if (c) fputc(',', out);
        print_json_string(t->cols[c].name, out);
        fputc(':', out);
        print_raw(&t->cols[c], &t->vals[(size_t)r * t->ncols + c], out, 1);
      }
      fputc('}', out);
    }
    fputc(']', out);
  }
  emit_free(t);
}

void emit_free(struct emit_table *t)
{
  int c, r;

  if (t == NULL) return;
  for (c = 0; c < t->ncols; c++) {
    if (t->cols[c].type != COL_STR) continue;
    for (r = 0; r < t->nrows; r++)
      free(t->vals[(size_t)r * t->ncols + c].s);
  }
  free(t->vals);
  free(t->cols);
  free(t->title);
  free(t);
}

/* ---- streaming (emit_stream_*, see emit.h) ---------------------------- */

struct emit_stream {
  struct emit_table *t;         /* the columns, and one row of storage   */
  enum emit_format f;
  FILE *out;
  int *w;                       /* table widths, fixed at the start      */
  int nrows;
};

struct emit_stream *emit_stream_new(const char *title,
                                    const struct emit_col *cols, int ncols,
                                    enum emit_format f, FILE *out)
{
  struct emit_stream *s = calloc(1, sizeof(*s));
  int c;

  if (s == NULL) abort();
  s->t = emit_table_new(title, cols, ncols);
  s->t->vals = calloc((size_t)ncols, sizeof(*s->t->vals));
  s->t->cap = 1;
  s->w = calloc((size_t)ncols, sizeof(int));
  if (s->t->vals == NULL || s->w == NULL) abort();
  s->f = f;
  s->out = out;
  if (f == EMIT_TABLE) {
    if (title[0] != '\0') fprintf(out, "%s\n", title);
    for (c = 0; c < ncols; c++) {
      s->w[c] = (int)strlen(cols[c].name);
      if (cols[c].width > s->w[c]) s->w[c] = cols[c].width;
      if (c == 0 && cols[c].type == COL_STR)
        fprintf(out, "%-*s", s->w[c], cols[c].name);
      else
        fprintf(out, c ? "  %*s" : "%*s", s->w[c], cols[c].name);
    }
    fputc('\n', out);
  } else if (f == EMIT_CSV) {
    for (c = 0; c < ncols; c++)
      fprintf(out, "%s%s", c ? "," : "", cols[c].name);
    fputc('\n', out);
  } else {
    if (!json_first_table) fputc(',', out);
    json_first_table = 0;
    print_json_string(title, out);
    fputs(":[", out);
  }
  return s;
}

void emit_stream_row(struct emit_stream *s, ...)
{
  struct emit_table *t = s->t;
  union emit_val *row = t->vals;
  va_list ap;
  int c;
  char buf[256];

  va_start(ap, s);
  row_args(t, row, ap, 0);
  va_end(ap);
  if (s->f == EMIT_JSON) fputs(s->nrows ? ",{" : "{", s->out);
  for (c = 0; c < t->ncols; c++) {
    if (s->f == EMIT_TABLE) {
      cell_text(&t->cols[c], &row[c], buf, sizeof(buf));
      if (t->cols[c].type == COL_STR && c == 0)
        fprintf(s->out, "%-*s", s->w[c], buf);
      else
        fprintf(s->out, c ? "  %*s" : "%*s", s->w[c], buf);
    } else {
      if (c) fputc(',', s->out);
      if (s->f == EMIT_JSON) {
        print_json_string(t->cols[c].name, s->out);
        fputc(':', s->out);
      }
      print_raw(&t->cols[c], &row[c], s->out, s->f == EMIT_JSON);
    }
  }
  fputs(s->f == EMIT_JSON ? "}" : "\n", s->out);
  for (c = 0; c < t->ncols; c++) row[c].s = NULL;
  s->nrows++;
}

int emit_stream_nrows(const struct emit_stream *s) { return s->nrows; }

void emit_stream_end(struct emit_stream *s)
{
  if (s == NULL) return;
  if (s->f == EMIT_JSON) fputc(']', s->out);
  s->t->nrows = 0;              /* no strings of ours to free */
  emit_free(s->t);
  free(s->w);
  free(s);
}
