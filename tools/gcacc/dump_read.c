/* SPDX-License-Identifier: MIT */
/*
 * dump_read.c: streaming reader of gcacc dump files (see dump_read.h).
 *
 * Decompression is zlib's inflate in gzip-or-zlib mode over fixed-size
 * input chunks, so a file of any size is read in one pass with a buffer
 * as long as its longest record.  Concatenated gzip members are read in
 * turn; input that does not start with the gzip magic is read as plain
 * JSON Lines.  Records are parsed with jansson.  This is the unit the
 * fuzz target drives: it must never crash or loop on any input.
 *
 * The header's "columns" give each table's column names; the reader
 * keeps, per dump, where each column it knows (accounting/gca_fields.h)
 * sits in that dump's rows (struct dump_cols), so that rows are read by
 * name, whatever a writer appended or moved.
 */

#include "dump_read.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define CHUNK (64 * 1024)
/* A record longer than this is skipped, with a warning (the header: an */
/* error).  Parsed, a record takes about 20 times its length (jansson's  */
/* values), so this bounds the reader's memory (issue 25, fault 6): a    */
/* session's longest records (new call stacks, every site's row) are a   */
/* few MiB.                                                              */
#define MAX_RECORD ((size_t)32 << 20)
/* Blank bytes read before the header at most: beyond, not a dump.       */
#define MAX_BLANK_PREFIX ((unsigned long long)1 << 20)
/* A run of at least this many blank lines is told (with its count):     */
/* skipped cheaply, but a dump the writer never wrote (issue 38, 4).    */
#define BLANK_RUN_NOTE 1024ULL

/* What a record's JSON costs jansson, value by value (bytes measured    */
/* with jansson 2.14 on x86-64, rounded up; issue 38, fault 3): the part */
/* of a record jansson parses, whatever the lean parser did not take,    */
/* is priced before it is parsed.  An array or object (other than the    */
/* record itself) dearer than MAX_MEMBER_COST is read as empty, said so; */
/* a record dearer than MAX_RECORD_COST is skipped (a header: an error). */
/* A line cheaper than MAX_MEMBER_COST / COST_PER_BYTE_MAX bytes cannot  */
/* be dear: it is not priced (every record a session writes).            */
#define COST_NUMBER 48ULL             /* 42 */
#define COST_LITERAL 16ULL            /* null, true, false: 10 */
#define COST_STRING 96ULL             /* + its length; "ab": 90 */
#define COST_KEY 80ULL                /* + its length; a member: 70 */
#define COST_ARRAY 160ULL             /* []: 138 */
#define COST_OBJECT 256ULL            /* {}: 234 */
#define COST_PER_BYTE_MAX 128ULL      /* "{}," is 3 bytes for 256       */
#define MAX_MEMBER_COST ((unsigned long long)64 << 20)
#define MAX_RECORD_COST ((unsigned long long)128 << 20)
/* Containers priced one by one; deeper ones (jansson stops at 2048)   */
/* are priced with the deepest.                                          */
#define BUDGET_DEPTH 2100

struct dump_reader {
  char name[512];
  FILE *f;                      /* NULL for memory input */
  const unsigned char *mem;     /* memory input          */
  size_t mem_len, mem_pos;
  int gzip;                     /* -1 unknown, 0 plain, 1 gzip/zlib */
  int stream_end;               /* the current gzip member ended     */
  int input_eof;
  int inflate_ready;
  z_stream zs;
  unsigned char in[CHUNK];
  unsigned char out[CHUNK];
  size_t out_pos, out_len;      /* decompressed bytes not yet consumed */
  char *line;                   /* the record being assembled */
  size_t line_len, line_cap;
  unsigned long records;
  unsigned long long offset;    /* uncompressed bytes consumed */
  unsigned long long coffset;   /* compressed bytes read        */
  unsigned long long csize;
  int growing;                  /* dump_open_growing, until dump_grow_end */
  struct dump_cols cols;        /* from the header                        */
  char err[768];
  char warn[1400];              /* about the last record returned */
  char note[700];               /* a skipped record, not yet told  */
  unsigned long long lines;     /* lines consumed (blank ones too) */
  unsigned long long blank_run, blank_at, blank_line;   /* a run of */
                                /* blank lines: count, byte, line   */
  struct bframe {               /* budget_line's open containers    */
    unsigned long long cost, nval;
    size_t start, key, keylen, index;
    char open, haskey;
  } *bstack;
  int skipping;                 /* inside a record too long        */
  int raw;                      /* dump_set_raw: lines, not parsed */
  size_t raw_len;
  unsigned long long skip_len;
  unsigned long repaired;       /* numbers replaced so far         */
  /* Lean mode (dump_set_lean): the compact tables of lean_rec.         */
  const char *lean_keys, *lean_skip;
  const json_t *lean_rec;       /* the record they belong to, or NULL */
  struct lean_tab { char key[16]; size_t row0, nrows; } ltab[16];
  size_t nltab;
  /* 5 bytes a cell: a 32-bit value (LEAN_INT), pool offset (LEAN_STR) */
  /* or index into lbig (LEAN_BIG: the rare integer beyond 32 bits), and */
  /* its LEAN_* tag.  A record is at most MAX_RECORD bytes, so fewer     */
  /* cells, rows and pool bytes than 2^32.                               */
  uint32_t *lrow;                         /* each table: nrows + 1     */
  size_t nlrow, lrow_cap;
  uint32_t *lval;
  unsigned char *ltag;
  size_t nlcell, lcell_cap;
  long long *lbig;
  size_t nlbig, lbig_cap;
  char *lpool;                            /* strings, NUL-terminated   */
  size_t lpool_len, lpool_cap;
  /* Delta records (delta_apply): the census tables as the last         */
  /* collection record left them, and the bounds of their keys.         */
  struct delta_tab {
    unsigned long long *v;      /* rows of GCA_NCOLS_* known columns,   */
    size_t nrows, cap;          /* sorted by key                        */
  } dstate[2];
  int dhave;                    /* dstate holds a record's census       */
  unsigned long long dseq;      /* its seq                              */
  unsigned long long dmax_kinds, dmax_classes;
  int dskipped;                 /* a record was skipped since           */
};


/* ---- columns (see dump_read.h) ------------------------------------------ */

#define DUMP_COL_NAME_(t, c) #c,
#define DUMP_TABLE_NAMES_(id, key, cols) \
  static const char *const names_##id[] = { cols(DUMP_COL_NAME_) };
GCA_DUMP_TABLES(DUMP_TABLE_NAMES_)
#undef DUMP_TABLE_NAMES_
#undef DUMP_COL_NAME_

const struct dump_table dump_tables[GCA_N_TABLES] = {
#define DUMP_TABLE_ENTRY_(id, key, cols) \
  { key, GCA_NCOLS_##id, names_##id, offsetof(struct dump_cols, id) },
  GCA_DUMP_TABLES(DUMP_TABLE_ENTRY_)
#undef DUMP_TABLE_ENTRY_
};

const size_t *dump_cols_table(const struct dump_cols *c, int t)
{
  return (const size_t *)(const void *)((const char *)c
                                        + dump_tables[t].offset);
}

/* Append "key.name" to the list of missing columns; ", ..." ends a     */
/* list that would not fit (room for it is always kept).                */
static void cols_note_missing(struct dump_cols *c, const char *key,
                              const char *name)
{
  size_t used = strlen(c->missing), cap = sizeof(c->missing);
  const char *sep = used ? ", " : "";
  char one[160];
  int n;

  if (used >= 3 && strcmp(c->missing + used - 3, "...") == 0) return;
  n = snprintf(one, sizeof(one), "%s%s.%s", sep, key, name);
  if (n < 0 || (size_t)n >= sizeof(one) || used + (size_t)n + 6 > cap)
    snprintf(c->missing + used, cap - used, "%s...", sep);
  else
    memcpy(c->missing + used, one, (size_t)n + 1);
}

void dump_cols_init(struct dump_cols *c, const json_t *header)
{
  const json_t *all = json_object_get(header, "columns");
  int t;

  memset(c, 0, sizeof(*c));
  for (t = 0; t < GCA_N_TABLES; t++) {
    const struct dump_table *d = &dump_tables[t];
    size_t *pos = (size_t *)(void *)((char *)c + d->offset);
    const json_t *names = json_object_get(all, d->key);
    size_t k, j;

    if (!json_is_array(names)) {
      /* No "columns", or not this table: gca_fields.h's order.          */
      for (k = 0; k < d->ncols; k++) pos[k] = k;
      continue;
    }
    for (k = 0; k < d->ncols; k++) {
      pos[k] = DUMP_COL_ABSENT;
      for (j = 0; j < json_array_size(names); j++) {
        const char *n = json_string_value(json_array_get(names, j));

        if (n != NULL && strcmp(n, d->names[k]) == 0) {
          pos[k] = j;                   /* the first of equal names     */
          break;
        }
      }
      if (pos[k] == DUMP_COL_ABSENT) cols_note_missing(c, d->key, d->names[k]);
    }
  }
}

const struct dump_cols *dump_cols(const struct dump_reader *r)
{
  return &r->cols;
}

/* ---- a number that does not fit ---------------------------------------- */
/* A record with one impossible number (a delta that wrapped to 2^64 - 8,  */
/* docs/dump-format.md "Impossible values") must not lose the session:     */
/* the number is replaced by null (which every view reads as 0) and the    */
/* record kept, with a warning naming the record and the field.            */

/* Overwrite the integer ending at line[end - 1] with "null" and spaces.  */
/* 0 if there is no integer there.                                         */
static int blank_number(char *line, size_t len, size_t end)
{
  size_t b = end;

  if (end > len || end == 0) return 0;
  while (b > 0 && ((line[b - 1] >= '0' && line[b - 1] <= '9')
                   || line[b - 1] == '-'))
    b--;
  if (end - b < 4) return 0;
  memcpy(line + b, "null", 4);
  memset(line + b + 4, ' ', end - b - 4);
  return 1;
}

/* The first null of v as "key", "key.sub" or "table[row].column".        */
static int name_null(const json_t *v, const struct dump_cols *cols,
                     char *buf, size_t sz, int depth)
{
  const char *key;
  const json_t *m, *row, *e;
  size_t i, j, t, k;

  if (depth > 2) return 0;
  json_object_foreach((json_t *)v, key, m) {
    if (json_is_null(m)) {
      snprintf(buf, sz, "%s", key);
      return 1;
    }
    if (json_is_object(m)) {
      char sub[200];

      if (name_null(m, cols, sub, sizeof(sub), depth + 1)) {
        snprintf(buf, sz, "%s.%s", key, sub);
        return 1;
      }
    }
    json_array_foreach(m, i, row) {
      json_array_foreach(row, j, e) {
        const char *col = NULL;

        if (!json_is_null(e)) continue;
        for (t = 0; t < GCA_N_TABLES && col == NULL; t++) {
          const size_t *pos = dump_cols_table(cols, (int)t);
          const char *tk = dump_tables[t].key, *dot = strchr(tk, '.');

          if (strcmp(tk, key) != 0 && !(dot && strcmp(dot + 1, key) == 0))
            continue;
          for (k = 0; k < dump_tables[t].ncols; k++)
            if (pos[k] == j) col = dump_tables[t].names[k];
        }
        if (col != NULL) snprintf(buf, sz, "%s[%zu].%s", key, i, col);
        else snprintf(buf, sz, "%s[%zu][%zu]", key, i, j);
        return 1;
      }
    }
  }
  return 0;
}

/* ---- lean records (see dump_read.h) ------------------------------------ */
/* A small parser for the one shape row tables have, an array of arrays  */
/* of integers, strings and nulls, much cheaper than jansson's tree of    */
/* values.  Whatever it does not take it leaves to jansson, byte for     */
/* byte: it accepts only what jansson reads the same way.                */

enum { LEAN_NULL = 0, LEAN_INT = 1, LEAN_STR = 2, LEAN_BIG = 3 };

static void *lean_grow(void *p, size_t *cap, size_t need, size_t elem)
{
  size_t c = *cap ? *cap : 1024;

  if (need <= *cap) return p;
  while (c < need) c += c / 2;          /* 1.5: less slack than 2     */
  p = realloc(p, c * elem);
  if (p == NULL) return NULL;
  *cap = c;
  return p;
}

/* A cell: 0 if memory ran out (the table then goes to jansson).        */
static int lean_cell(struct dump_reader *r, unsigned char tag, long long v)
{
  /* Beyond 32 bits (not from a record within MAX_RECORD): jansson's.  */
  if (r->nlcell >= UINT32_MAX || r->nlbig >= UINT32_MAX
      || (tag == LEAN_STR && v > (long long)UINT32_MAX))
    return 0;
  if (tag == LEAN_INT && (v < 0 || v > (long long)UINT32_MAX)) {
    long long *b = lean_grow(r->lbig, &r->lbig_cap, r->nlbig + 1,
                             sizeof(*b));

    if (b == NULL) return 0;
    r->lbig = b;
    r->lbig[r->nlbig] = v;
    v = (long long)r->nlbig++;
    tag = LEAN_BIG;
  }
  if (r->nlcell == r->lcell_cap) {
    size_t cap = r->lcell_cap;
    uint32_t *nv = lean_grow(r->lval, &cap, r->nlcell + 1, sizeof(*nv));
    unsigned char *nt;

    if (nv == NULL) return 0;
    r->lval = nv;
    cap = r->lcell_cap;
    nt = lean_grow(r->ltag, &cap, r->nlcell + 1, 1);
    if (nt == NULL) return 0;
    r->ltag = nt;
    r->lcell_cap = cap;
  }
  r->lval[r->nlcell] = (uint32_t)v;
  r->ltag[r->nlcell++] = tag;
  return 1;
}

static int lean_row_start(struct dump_reader *r)
{
  uint32_t *p = lean_grow(r->lrow, &r->lrow_cap, r->nlrow + 1, sizeof(*p));

  if (p == NULL) return 0;
  r->lrow = p;
  r->lrow[r->nlrow++] = (uint32_t)r->nlcell;
  return 1;
}

static int lean_pool(struct dump_reader *r, size_t n)
{
  char *p = lean_grow(r->lpool, &r->lpool_cap, r->lpool_len + n, 1);

  if (p == NULL) return 0;
  r->lpool = p;
  return 1;
}

static const char *lean_ws(const char *p, const char *e)
{
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p;
}

static int hex4(const char *p, const char *e, unsigned *u)
{
  int i;

  *u = 0;
  if (e - p < 4) return 0;
  for (i = 0; i < 4; i++) {
    char c = p[i];

    *u <<= 4;
    if (c >= '0' && c <= '9') *u |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') *u |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') *u |= (unsigned)(c - 'A' + 10);
    else return 0;
  }
  return 1;
}

/* A string at p (its '"'): into the pool; the byte after it, or NULL.  */
static const char *lean_string(struct dump_reader *r, const char *p,
                               const char *e)
{
  const char *q;
  size_t at = r->lpool_len;

  for (q = p + 1; q < e; q++) {
    unsigned char c = (unsigned char)*q;
    unsigned u, lo;

    if (c == '"') break;
    if (c < 0x20) return NULL;                  /* jansson's to judge   */
    if (!lean_pool(r, 8)) return NULL;
    if (c >= 0x80) {
      /* UTF-8, valid as jansson checks it (utf8.c: no overlong form,   */
      /* no surrogate, nothing beyond U+10FFFF), copied as it is: a     */
      /* table of names that are not ASCII stays lean.                  */
      size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4 : 0, k;
      unsigned long cp;

      if (n == 0 || (size_t)(e - q) < n) return NULL;
      cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
      for (k = 1; k < n; k++) {
        unsigned char b = (unsigned char)q[k];

        if (b < 0x80 || b > 0xbf) return NULL;
        cp = (cp << 6) | (b & 0x3f);
      }
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)
          || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
        return NULL;
      memcpy(r->lpool + r->lpool_len, q, n);
      r->lpool_len += n;
      q += n - 1;
      continue;
    }
    if (c != '\\') {
      r->lpool[r->lpool_len++] = (char)c;
      continue;
    }
    if (++q >= e) return NULL;
    switch (*q) {
    case '"': case '\\': case '/': r->lpool[r->lpool_len++] = *q; break;
    case 'b': r->lpool[r->lpool_len++] = '\b'; break;
    case 'f': r->lpool[r->lpool_len++] = '\f'; break;
    case 'n': r->lpool[r->lpool_len++] = '\n'; break;
    case 'r': r->lpool[r->lpool_len++] = '\r'; break;
    case 't': r->lpool[r->lpool_len++] = '\t'; break;
    case 'u':
      if (!hex4(q + 1, e, &u) || u == 0) return NULL;
      q += 4;
      if (u >= 0xdc00 && u <= 0xdfff) return NULL;
      if (u >= 0xd800 && u <= 0xdbff) {
        if (e - q < 7 || q[1] != '\\' || q[2] != 'u'
            || !hex4(q + 3, e, &lo) || lo < 0xdc00 || lo > 0xdfff)
          return NULL;
        q += 6;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
      }
      if (u < 0x80) {
        r->lpool[r->lpool_len++] = (char)u;
      } else if (u < 0x800) {
        r->lpool[r->lpool_len++] = (char)(0xc0 | (u >> 6));
        r->lpool[r->lpool_len++] = (char)(0x80 | (u & 0x3f));
      } else if (u < 0x10000) {
        r->lpool[r->lpool_len++] = (char)(0xe0 | (u >> 12));
        r->lpool[r->lpool_len++] = (char)(0x80 | ((u >> 6) & 0x3f));
        r->lpool[r->lpool_len++] = (char)(0x80 | (u & 0x3f));
      } else {
        r->lpool[r->lpool_len++] = (char)(0xf0 | (u >> 18));
        r->lpool[r->lpool_len++] = (char)(0x80 | ((u >> 12) & 0x3f));
        r->lpool[r->lpool_len++] = (char)(0x80 | ((u >> 6) & 0x3f));
        r->lpool[r->lpool_len++] = (char)(0x80 | (u & 0x3f));
      }
      break;
    default: return NULL;
    }
  }
  if (q >= e || !lean_pool(r, 1)) return NULL;
  r->lpool[r->lpool_len++] = '\0';
  if (!lean_cell(r, LEAN_STR, (long long)at)) return NULL;
  return q + 1;
}

/* An integer at p: one cell; the byte after it, or NULL (a real, a     */
/* number beyond 64 bits signed, a leading zero: jansson's).             */
static const char *lean_int(struct dump_reader *r, const char *p,
                            const char *e)
{
  const char *q = p + (*p == '-');
  unsigned long long v = 0;
  int nd = 0;

  if (q >= e || *q < '0' || *q > '9') return NULL;
  if (*q == '0' && q + 1 < e && q[1] >= '0' && q[1] <= '9') return NULL;
  for (; q < e && *q >= '0' && *q <= '9'; q++) {
    if (++nd > 19) return NULL;
    v = v * 10 + (unsigned long long)(*q - '0');
  }
  if (q < e && (*q == '.' || *q == 'e' || *q == 'E')) return NULL;
  if (*p == '-') {
    if (v > (unsigned long long)LLONG_MAX + 1) return NULL;
    if (!lean_cell(r, LEAN_INT, v == (unsigned long long)LLONG_MAX + 1
                                ? LLONG_MIN : -(long long)v))
      return NULL;
  } else {
    if (v > (unsigned long long)LLONG_MAX) return NULL;
    if (!lean_cell(r, LEAN_INT, (long long)v)) return NULL;
  }
  return q;
}

/* After a value at *pp: ',' (1, *pp past it and its blanks) or ']'    */
/* (0, *pp past it); -1 for anything else.                               */
static int lean_next(const char **pp, const char *e)
{
  const char *p = lean_ws(*pp, e);

  if (p < e && *p == ',') {
    *pp = lean_ws(p + 1, e);
    return 1;
  }
  if (p < e && *p == ']') {
    *pp = p + 1;
    return 0;
  }
  return -1;
}

/* The array of rows at p ('['): a table; the byte after it, or NULL,   */
/* with nothing kept.                                                    */
static const char *lean_table(struct dump_reader *r, const char *key,
                              const char *p, const char *e)
{
  size_t row0 = r->nlrow, cell0 = r->nlcell, pool0 = r->lpool_len;
  size_t big0 = r->nlbig;
  size_t nrows = 0, i;
  struct lean_tab *t;
  int more;

  p = lean_ws(p + 1, e);
  if (p < e && *p == ']') {
    p++;
    goto done;
  }
  for (;;) {
    if (p >= e || *p != '[' || !lean_row_start(r)) goto fail;
    nrows++;
    p = lean_ws(p + 1, e);
    if (p < e && *p == ']') {
      p++;
    } else {
      for (;;) {
        if (p >= e) goto fail;
        if (*p == '"') p = lean_string(r, p, e);
        else if (*p == 'n') {
          p = e - p >= 4 && memcmp(p, "null", 4) == 0
              && lean_cell(r, LEAN_NULL, 0) ? p + 4 : NULL;
        } else p = lean_int(r, p, e);
        if (p == NULL || (more = lean_next(&p, e)) < 0) goto fail;
        if (!more) break;
      }
    }
    if ((more = lean_next(&p, e)) < 0) goto fail;
    if (!more) break;
  }
done:
  if (!lean_row_start(r)) goto fail;            /* the end of the last */
  for (i = 0; i < r->nltab; i++)               /* a key seen again    */
    if (strcmp(r->ltab[i].key, key) == 0) break;
  if (i == r->nltab) {
    if (r->nltab == sizeof(r->ltab) / sizeof(r->ltab[0])) goto fail;
    r->nltab++;
  }
  t = &r->ltab[i];
  snprintf(t->key, sizeof(t->key), "%s", key);
  t->row0 = row0;
  t->nrows = nrows;
  return p;
fail:
  r->nlrow = row0;
  r->nlcell = cell0;
  r->nlbig = big0;
  r->lpool_len = pool0;
  return NULL;
}

/* The end of the JSON value at p (a string, a container, a scalar), or */
/* NULL.  Brackets are only counted: jansson checks the rest.            */
static const char *skip_value(const char *p, const char *e)
{
  int depth = 0;

  while (p < e) {
    char c = *p;

    if (c == '"') {
      for (p++; p < e && *p != '"'; p++)
        if (*p == '\\') p++;
      if (p >= e) return NULL;
      p++;
      if (depth == 0) return p;
      continue;
    }
    if (c == '[' || c == '{') {
      depth++;
    } else if (c == ']' || c == '}') {
      if (depth == 0) return p;
      if (--depth == 0) return p + 1;
    } else if (depth == 0 && c == ',') {
      return p;
    }
    p++;
  }
  return NULL;
}

/* Is key (len bytes) a word of the space-separated list?                */
static int in_list(const char *list, const char *key, size_t len)
{
  const char *p = list;

  while (p != NULL && *p) {
    size_t n = strcspn(p, " ");

    if (n == len && memcmp(p, key, len) == 0) return 1;
    p += n;
    while (*p == ' ') p++;
  }
  return 0;
}

/* Can lean_line follow every top-level member of line the way jansson */
/* reads it (keys without escapes, the object closed)?  Lean keys given */
/* more than once go into dup (jansson keeps the last of equal keys,    */
/* whatever its value: those tables are left to it).                    */
static int lean_followable(const struct dump_reader *r, const char *line,
                           size_t len, char dup[][16], size_t *ndup)
{
  const char *e = line + len, *p = lean_ws(line, e);
  char seen[16][16];
  size_t nseen = 0, i;

  *ndup = 0;
  if (p >= e || *p != '{') return 0;
  p = lean_ws(p + 1, e);
  if (p < e && *p == '}') return 1;
  while (p < e && *p == '"') {
    const char *k = p + 1, *end;
    size_t kl;

    while (p + 1 < e && p[1] != '"' && p[1] != '\\') p++;
    if (p + 1 >= e || p[1] != '"') return 0;   /* an escaped key       */
    kl = (size_t)(p + 1 - k);
    p = lean_ws(p + 2, e);
    if (p >= e || *p != ':') return 0;
    if (kl < 16 && in_list(r->lean_keys, k, kl)) {
      for (i = 0; i < nseen; i++)
        if (strlen(seen[i]) == kl && memcmp(seen[i], k, kl) == 0) break;
      if (i < nseen) {
        if (*ndup < 16) {
          memcpy(dup[*ndup], k, kl);
          dup[(*ndup)++][kl] = '\0';
        }
      } else if (nseen < 16) {
        memcpy(seen[nseen], k, kl);
        seen[nseen++][kl] = '\0';
      } else {
        return 0;
      }
    }
    end = skip_value(lean_ws(p + 1, e), e);
    if (end == NULL) return 0;
    p = lean_ws(end, e);
    if (p < e && *p == '}') return 1;
    if (p >= e || *p != ',') return 0;
    p = lean_ws(p + 1, e);
  }
  return 0;
}

/* Take the lean tables out of line (in place: each becomes "[]" and    */
/* spaces, so every byte offset stays).  Takes nothing from a line it    */
/* cannot follow to the end of its object (lean_followable).             */
static void lean_line(struct dump_reader *r, char *line, size_t len)
{
  const char *e = line + len, *p = lean_ws(line, e);
  char dup[16][16];
  size_t ndup, j;

  r->nltab = 0;
  r->nlrow = r->nlcell = r->lpool_len = r->nlbig = 0;
  /* All or nothing: a member lean_line could not follow may be a lean  */
  /* key again (escaped, or after something it does not read), which    */
  /* jansson would take over a table already taken (found by fuzzing).  */
  if (!lean_followable(r, line, len, dup, &ndup)) return;
  if (p >= e || *p != '{') return;
  p = lean_ws(p + 1, e);
  while (p < e && *p == '"') {
    const char *k = p + 1, *v, *end;
    char key[16];
    size_t kl, i;

    while (p + 1 < e && p[1] != '"' && p[1] != '\\') p++;
    if (p + 1 >= e || p[1] != '"') return;
    kl = (size_t)(p + 1 - k);
    p = lean_ws(p + 2, e);
    if (p >= e || *p != ':') return;
    v = lean_ws(p + 1, e);
    end = NULL;
    if (kl < sizeof(key) && v < e && *v == '[') {
      memcpy(key, k, kl);
      key[kl] = '\0';
      for (j = 0; j < ndup; j++)
        if (strcmp(dup[j], key) == 0) break;
      if (j < ndup) {
        /* given twice: jansson's (the last one wins)                    */
      } else if (in_list(r->lean_keys, key, kl)) {
        end = lean_table(r, key, v, e);
        if (end == NULL) {              /* jansson's: the JSON one wins */
          for (i = 0; i < r->nltab; i++)
            if (strcmp(r->ltab[i].key, key) == 0)
              r->ltab[i] = r->ltab[--r->nltab];
        }
      } else if (in_list(r->lean_skip, key, kl)) {
        end = skip_value(v, e);
      }
      if (end != NULL) {
        char *w = line + (v - line);

        w[0] = '[';
        w[1] = ']';
        memset(w + 2, ' ', (size_t)(end - v) - 2);
      }
    }
    if (end == NULL) end = skip_value(v, e);
    if (end == NULL) return;
    p = lean_ws(end, e);
    if (p >= e || *p != ',') return;
    p = lean_ws(p + 1, e);
  }
}

void dump_set_lean(struct dump_reader *r, const char *keys,
                   const char *skip)
{
  r->lean_keys = keys;
  r->lean_skip = skip;
}

struct dump_tab dump_tab(const struct dump_reader *r, const json_t *rec,
                         const char *key)
{
  struct dump_tab t = { NULL, NULL, 0 };
  const json_t *v;
  size_t i;

  if (r != NULL && rec != NULL && rec == r->lean_rec)
    for (i = 0; i < r->nltab; i++)
      if (strcmp(r->ltab[i].key, key) == 0) {
        t.r = r;
        t.lean = i + 1;
        return t;
      }
  v = json_object_get(rec, key);
  if (json_is_array(v)) t.json = v;
  return t;
}

size_t dump_tab_rows(const struct dump_tab *t)
{
  if (t->lean) return t->r->ltab[t->lean - 1].nrows;
  return json_array_size(t->json);
}

/* The cells of row i of a lean table: [*c0, *c1).                     */
static int lean_cells(const struct dump_tab *t, size_t i, size_t *c0,
                      size_t *c1)
{
  const struct lean_tab *l = &t->r->ltab[t->lean - 1];

  if (i >= l->nrows) return 0;
  *c0 = t->r->lrow[l->row0 + i];
  *c1 = t->r->lrow[l->row0 + i + 1];
  return 1;
}

size_t dump_tab_len(const struct dump_tab *t, size_t i)
{
  size_t c0, c1;

  if (!t->lean) return json_array_size(json_array_get(t->json, i));
  return lean_cells(t, i, &c0, &c1) ? c1 - c0 : 0;
}

int dump_tab_int(const struct dump_tab *t, size_t i, size_t k,
                 long long *v)
{
  size_t c0, c1;

  if (!t->lean) {
    const json_t *e = json_array_get(json_array_get(t->json, i), k);

    if (!json_is_integer(e)) return 0;
    *v = (long long)json_integer_value(e);
    return 1;
  }
  if (!lean_cells(t, i, &c0, &c1) || k >= c1 - c0) return 0;
  switch (t->r->ltag[c0 + k]) {
  case LEAN_INT: *v = (long long)t->r->lval[c0 + k]; return 1;
  case LEAN_BIG: *v = t->r->lbig[t->r->lval[c0 + k]]; return 1;
  default: return 0;
  }
}

const char *dump_tab_str(const struct dump_tab *t, size_t i, size_t k)
{
  size_t c0, c1;

  if (!t->lean)
    return json_string_value(json_array_get(json_array_get(t->json, i), k));
  if (!lean_cells(t, i, &c0, &c1) || k >= c1 - c0
      || t->r->ltag[c0 + k] != LEAN_STR)
    return NULL;
  return t->r->lpool + t->r->lval[c0 + k];
}

json_t *dump_tab_cell(const struct dump_tab *t, size_t i, size_t k)
{
  size_t c0, c1;
  long long v;

  if (!t->lean)
    return json_incref(json_array_get(json_array_get(t->json, i), k));
  if (!lean_cells(t, i, &c0, &c1) || k >= c1 - c0) return NULL;
  switch (t->r->ltag[c0 + k]) {
  case LEAN_STR: return json_string(t->r->lpool + t->r->lval[c0 + k]);
  case LEAN_NULL: return json_null();
  default:
    dump_tab_int(t, i, k, &v);
    return json_integer((json_int_t)v);
  }
}

/* ---- delta records (docs/dump-format.md, "Delta records") ------------- */
/* A collection record with "delta_of": S carries, in "classes" and       */
/* "kinds", only the rows whose census columns changed since the          */
/* collection record of seq S (the one before it with a census), or that */
/* counted allocations.  The reader keeps the census tables of the last   */
/* collection record and hands every delta record on whole, its tables   */
/* rebuilt: each row of the delta as written, each other row of the      */
/* record before with its allocation columns 0, rows all 0 left out, in  */
/* (kind, class) order, as the writer writes a whole record.  Nothing of */
/* a delta is taken on trust: one without the record it names as its    */
/* base (no whole record before it, a record between missing), a row     */
/* whose key is out of the header's bounds or given twice, is an error.  */

static const struct delta_desc {
  const char *key;
  int table;                    /* GCA_TABLE_*                          */
  size_t ncols, nkey;           /* known columns; the first nkey: key   */
  size_t state0, state1;        /* census columns [state0, state1)      */
} delta_descs[2] = {
  { "classes", GCA_TABLE_classes, GCA_NCOLS_classes, 2,
    GCA_COL_classes_live_objs, GCA_COL_classes_free_slots + 1 },
  { "kinds", GCA_TABLE_kinds, GCA_NCOLS_kinds, 1,
    GCA_COL_kinds_large_live_objs, GCA_COL_kinds_large_reserved_bytes + 1 }
};

static unsigned long long delta_config(const json_t *header, const char *key,
                                       unsigned long long dflt,
                                       unsigned long long max)
{
  const json_t *v = json_object_get(json_object_get(header, "config"), key);
  json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

  if (n <= 0) return dflt;
  return (unsigned long long)n < max ? (unsigned long long)n : max;
}

static void delta_init(struct dump_reader *r, const json_t *header)
{
  r->dmax_kinds = delta_config(header, "max_obj_kinds", 64, 256);
  r->dmax_classes = delta_config(header, "n_classes", 4096, 65536);
  r->dhave = 0;
}

/* Row i of table t into v (the known columns, gca_fields.h's order), as */
/* the commands read cells (tab_u64: 0 unless a positive integer).        */
static void delta_row(const struct dump_tab *t, const size_t *pos,
                      size_t ncols, size_t i, unsigned long long *v)
{
  size_t k;

  for (k = 0; k < ncols; k++) {
    long long x;

    v[k] = pos[k] != DUMP_COL_ABSENT && dump_tab_int(t, i, pos[k], &x)
           && x > 0 ? (unsigned long long)x : 0;
  }
}

static int delta_cmp_key(const unsigned long long *a,
                         const unsigned long long *b, size_t nkey)
{
  size_t k;

  for (k = 0; k < nkey; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static size_t delta_sort_nkey;
static int delta_cmp(const void *a, const void *b)
{
  return delta_cmp_key(a, b, delta_sort_nkey);
}

static int delta_any(const unsigned long long *v, size_t from, size_t to)
{
  for (; from < to; from++)
    if (v[from] != 0) return 1;
  return 0;
}

static int delta_reserve(struct delta_tab *d, size_t rows, size_t ncols)
{
  unsigned long long *p;

  if (rows <= d->cap) return 0;
  p = realloc(d->v, rows * ncols * sizeof(*p));
  if (p == NULL) return -1;
  d->v = p;
  d->cap = rows;
  return 0;
}

/* The rows of a table of rec, sorted, into out; an error in r->err (a */
/* key out of bounds or twice, when check) or -1 without memory.        */
static int delta_read(struct dump_reader *r, const json_t *rec,
                      const struct delta_desc *dd, struct delta_tab *out,
                      int check, unsigned long long at, const char **why)
{
  const struct dump_tab t = dump_tab(r, rec, dd->key);
  const size_t *pos = dump_cols_table(&r->cols, dd->table);
  size_t n = dump_tab_rows(&t), i;

  *why = NULL;
  out->nrows = 0;
  if (n > r->dmax_kinds * (dd->nkey > 1 ? r->dmax_classes : 1)) {
    /* More rows than keys: some out of bounds or twice (not read).     */
    *why = "more rows than the header's max_obj_kinds and n_classes allow";
    if (check) {
      snprintf(r->err, sizeof(r->err),
               "corrupt record in %s at byte %llu (record %lu): delta "
               "record: %s has %zu rows, %s; nothing of it is used",
               r->name, at, r->records, dd->key, n, *why);
      return 1;
    }
    return 0;
  }
  if (delta_reserve(out, n, dd->ncols) != 0) return -1;
  for (i = 0; i < n; i++) {
    unsigned long long *v = out->v + i * dd->ncols;

    delta_row(&t, pos, dd->ncols, i, v);
    if (v[0] >= r->dmax_kinds
        || (dd->nkey > 1 && v[1] >= r->dmax_classes)) {
      *why = "a kind or class beyond the header's max_obj_kinds or"
             " n_classes";
      if (check) {
        snprintf(r->err, sizeof(r->err),
                 "corrupt record in %s at byte %llu (record %lu): delta "
                 "record: %s row %zu has %s; nothing of it is used",
                 r->name, at, r->records, dd->key, i, *why);
        return 1;
      }
    }
  }
  out->nrows = n;
  delta_sort_nkey = dd->nkey;
  if (n > 1) qsort(out->v, n, dd->ncols * sizeof(*out->v), delta_cmp);
  for (i = 1; i < n; i++) {
    if (delta_cmp_key(out->v + (i - 1) * dd->ncols, out->v + i * dd->ncols,
                      dd->nkey) == 0) {
      *why = "a row given twice";
      if (check) {
        snprintf(r->err, sizeof(r->err),
                 "corrupt record in %s at byte %llu (record %lu): delta "
                 "record: %s has a row given twice (key %llu%s); nothing "
                 "of it is used", r->name, at, r->records, dd->key,
                 out->v[i * dd->ncols], dd->nkey > 1 ? ", ..." : "");
        return 1;
      }
      break;
    }
  }
  return 0;
}

/* Keep, of the rows of in, those with a census, as the state.          */
static void delta_keep(struct delta_tab *st, const struct delta_tab *in,
                       const struct delta_desc *dd)
{
  size_t i;

  st->nrows = 0;
  for (i = 0; i < in->nrows; i++) {
    const unsigned long long *v = in->v + i * dd->ncols;

    if (!delta_any(v, dd->state0, dd->state1)) continue;
    memcpy(st->v + st->nrows++ * dd->ncols, v, dd->ncols * sizeof(*v));
  }
}

/* Put rows (n of them) in place of rec's table: lean if it is lean,   */
/* else as JSON.  Each row as wide as the header's columns need.        */
static int delta_put(struct dump_reader *r, json_t *rec,
                     const struct delta_desc *dd,
                     const unsigned long long *rows, size_t n)
{
  const size_t *pos = dump_cols_table(&r->cols, dd->table);
  struct dump_tab t = dump_tab(r, rec, dd->key);
  size_t width = 0, i, k;

  for (k = 0; k < dd->ncols; k++)
    if (pos[k] != DUMP_COL_ABSENT && pos[k] + 1 > width) width = pos[k] + 1;
  if (width > 64) return -2;            /* (a header's columns, bounded) */
  if (t.lean) {
    struct lean_tab *l = &r->ltab[t.lean - 1];
    size_t row0 = r->nlrow;

    for (i = 0; i < n; i++) {
      unsigned long long cell[64];

      memset(cell, 0, width * sizeof(*cell));
      for (k = 0; k < dd->ncols; k++)
        if (pos[k] != DUMP_COL_ABSENT) cell[pos[k]] = rows[i * dd->ncols + k];
      if (!lean_row_start(r)) return -1;
      for (k = 0; k < width; k++)
        if (!lean_cell(r, LEAN_INT, (long long)cell[k])) return -1;
    }
    if (!lean_row_start(r)) return -1;
    l->row0 = row0;
    l->nrows = n;
    return 0;
  } else {
    json_t *arr = json_array();

    if (arr == NULL) return -1;
    for (i = 0; i < n; i++) {
      json_t *row = json_array();

      if (row == NULL || json_array_append_new(arr, row) != 0) {
        json_decref(arr);
        return -1;
      }
      for (k = 0; k < width; k++) json_array_append_new(row, json_integer(0));
      for (k = 0; k < dd->ncols; k++)
        if (pos[k] != DUMP_COL_ABSENT)
          json_array_set_new(row, pos[k],
                             json_integer((json_int_t)rows[i * dd->ncols + k]));
    }
    return json_object_set_new(rec, dd->key, arr) != 0 ? -1 : 0;
  }
}

/* The rows of the record before (st) merged with the delta's (in), into */
/* out; the state becomes out's rows with a census.                      */
static int delta_merge(struct delta_tab *st, const struct delta_tab *in,
                       struct delta_tab *out, const struct delta_desc *dd)
{
  size_t a = 0, b = 0, nc = dd->ncols;

  out->nrows = 0;
  if (delta_reserve(out, st->nrows + in->nrows, nc) != 0) return -1;
  while (a < st->nrows || b < in->nrows) {
    /* (no pointer into a table that has no rows: it may be NULL)      */
    const unsigned long long *sa = a < st->nrows ? st->v + a * nc : NULL;
    const unsigned long long *ib = b < in->nrows ? in->v + b * nc : NULL;
    unsigned long long *o = out->v + out->nrows * nc;
    int c = sa == NULL ? 1 : ib == NULL ? -1
            : delta_cmp_key(sa, ib, dd->nkey);

    if (c < 0) {                /* unchanged: the census, no allocation */
      memset(o, 0, nc * sizeof(*o));
      memcpy(o, sa, dd->nkey * sizeof(*o));
      memcpy(o + dd->state0, sa + dd->state0,
             (dd->state1 - dd->state0) * sizeof(*o));
      a++;
    } else {
      memcpy(o, ib, nc * sizeof(*o));
      b++;
      if (c == 0) a++;
    }
    if (delta_any(o, dd->nkey, nc)) out->nrows++;
  }
  if (delta_reserve(st, out->nrows, nc) != 0) return -1;
  delta_keep(st, out, dd);
  return 0;
}

static int delta_apply(struct dump_reader *r, json_t *rec,
                       unsigned long long at)
{
  const char *type = json_string_value(json_object_get(rec, "record"));
  const json_t *of = json_object_get(rec, "delta_of");
  const json_t *seq = json_object_get(rec, "seq");
  const json_t *census = json_object_get(rec, "census");
  struct delta_tab in = { NULL, 0, 0 }, out = { NULL, 0, 0 };
  const char *why = NULL;
  int d, res = 0;

  if (of == NULL) {
    /* A whole record: its census is the base of the deltas after it.  */
    if (type == NULL || strcmp(type, "collection") != 0
        || !json_is_integer(census) || json_integer_value(census) != 1)
      return 0;
    r->dhave = 0;
    r->dskipped = 0;
    for (d = 0; d < 2; d++) {
      if (delta_read(r, rec, &delta_descs[d], &in, 0, at, &why) != 0)
        break;
      if (why != NULL) break;           /* no deltas on it, but readable */
      if (delta_reserve(&r->dstate[d], in.nrows, delta_descs[d].ncols) != 0)
        break;
      delta_keep(&r->dstate[d], &in, &delta_descs[d]);
    }
    free(in.v);
    if (d == 2 && json_is_integer(seq) && json_integer_value(seq) > 0) {
      r->dhave = 1;
      r->dseq = (unsigned long long)json_integer_value(seq);
    }
    return 0;
  }
  if (type == NULL || strcmp(type, "collection") != 0
      || !json_is_integer(census) || json_integer_value(census) != 1
      || !json_is_integer(of) || json_integer_value(of) <= 0
      || !json_is_integer(seq)
      || json_integer_value(seq) <= json_integer_value(of)) {
    snprintf(r->err, sizeof(r->err),
             "corrupt record in %s at byte %llu (record %lu): \"delta_of\" "
             "must be a positive seq, below the record's own, of a "
             "collection record with \"census\":1; nothing of it is used",
             r->name, at, r->records);
    return 1;
  }
  if (!r->dhave || r->dseq != (unsigned long long)json_integer_value(of)) {
    if (!r->dhave)
      snprintf(r->err, sizeof(r->err),
               "corrupt record in %s at byte %llu (record %lu): a delta "
               "record on record seq %lld, but %s; its rows cannot be "
               "rebuilt: nothing of it is used (records before it were "
               "read)", r->name, at, r->records,
               (long long)json_integer_value(of),
               r->dskipped ? "a record before it was skipped"
               : "no whole collection record (key frame) came before it");
    else
      snprintf(r->err, sizeof(r->err),
               "corrupt record in %s at byte %llu (record %lu): a delta "
               "record on record seq %lld, but the collection record "
               "before it is seq %llu%s; its rows cannot be rebuilt: "
               "nothing of it is used (records before it were read)",
               r->name, at, r->records, (long long)json_integer_value(of),
               r->dseq, r->dskipped ? " (a record between was skipped)"
               : "");
    return 1;
  }
  for (d = 0; d < 2 && res == 0; d++) {
    const struct delta_desc *dd = &delta_descs[d];

    res = delta_read(r, rec, dd, &in, 1, at, &why);
    if (res == 0) res = delta_merge(&r->dstate[d], &in, &out, dd);
    if (res == 0) res = delta_put(r, rec, dd, out.v, out.nrows);
    if (res == -2)
      snprintf(r->err, sizeof(r->err), "corrupt record in %s at byte %llu "
               "(record %lu): a delta record's %s cannot be rebuilt: the "
               "header puts its columns beyond the 64th", r->name, at,
               r->records, dd->key);
    else if (res < 0)
      snprintf(r->err, sizeof(r->err), "out of memory reading %s (record "
               "%lu, a delta record's %s)", r->name, r->records, dd->key);
  }
  free(in.v);
  free(out.v);
  if (res != 0) {
    r->dhave = 0;
    return 1;
  }
  r->dseq = (unsigned long long)json_integer_value(seq);
  /* Handed on as the whole record it stands for.                     */
  json_object_del(rec, "delta_of");
  return 0;
}

/* A skipped record's note goes with the next record returned, or the  */
/* end.                                                                  */
static void deliver_note(struct dump_reader *r)
{
  char both[sizeof(r->warn)];

  if (r->note[0] == '\0') return;
  if (r->warn[0] != '\0') {
    /* Both bounded: a note of up to 699 bytes, the warning cut after.  */
    snprintf(both, sizeof(both), "%.699s; %.696s", r->note, r->warn);
    memcpy(r->warn, both, sizeof(both));
  } else {
    memcpy(r->warn, r->note, sizeof(r->note));
  }
  r->note[0] = '\0';
}

/* Add to the note (told with the next record returned, or the end);  */
/* a note that does not fit is cut.                                      */
static void note_add(struct dump_reader *r, const char *msg)
{
  size_t used = strlen(r->note);

  if (used + 3 >= sizeof(r->note)) return;
  snprintf(r->note + used, sizeof(r->note) - used, "%s%s",
           used ? "; " : "", msg);
}

/* A run of blank lines ended (at a record, or the end): told if long.  */
static void blank_run_end(struct dump_reader *r)
{
  char msg[400];

  if (r->blank_run >= BLANK_RUN_NOTE) {
    snprintf(msg, sizeof(msg), "%.300s: %llu blank lines from line %llu "
             "(byte %llu): skipped", r->name, r->blank_run, r->blank_line,
             r->blank_at);
    note_add(r, msg);
  }
  r->blank_run = 0;
}

/* ---- pricing what jansson parses (issue 38, fault 3) ------------------- */

/* The path of the container closing at depth (st[0..depth-1] its       */
/* ancestors, st[0] the record): "freelists.lists", "modules", "x[3].y". */
static void budget_path(const struct bframe *st, size_t depth,
                        const char *line, char *buf, size_t sz)
{
  size_t used = 0, j;

  buf[0] = '\0';
  for (j = 0; j < depth && used + 1 < sz; j++) {
    int n;

    if (st[j].open == '{' && st[j].haskey)
      n = snprintf(buf + used, sz - used, "%s%.*s", j ? "." : "",
                   (int)(st[j].keylen > 40 ? 40 : st[j].keylen),
                   line + st[j].key);
    else if (st[j].open == '[')
      n = snprintf(buf + used, sz - used, "[%zu]", st[j].index);
    else
      n = 0;
    if (n < 0) break;
    used += (size_t)n;
    if (used >= sz) used = sz - 1;
  }
  if (buf[0] == '\0') snprintf(buf, sz, "a member");
}

static int budget_delim(char ch)
{
  switch (ch) {
  case ' ': case '\t': case '\r': case '\n': case ',': case ':':
  case '[': case ']': case '{': case '}': case '"':
    return 1;
  default:
    return 0;
  }
}

/* Price line (a record, lean tables already taken out) before jansson  */
/* parses it: each array or object below the record dearer than          */
/* MAX_MEMBER_COST becomes an empty one in place ("[]" or "{}" and       */
/* spaces), told in the note.  Returns 0, or -1 if the record, so cut,   */
/* still costs more than MAX_RECORD_COST (*cost: what it costs).  The   */
/* line need not be valid JSON: jansson judges that afterwards.          */
static int budget_line(struct dump_reader *r, char *line, size_t len,
                       unsigned long long at, unsigned long long lno,
                       unsigned long long *cost)
{
  struct bframe *st = r->bstack, *top;
  size_t depth = 0, extra = 0, p = 0, q, ncut = 0;
  unsigned long long total = 0, c, nv;
  char path[200], msg[600];
  unsigned long long cut_nval = 0, cut_cost = 0;

  *cost = 0;
  if ((unsigned long long)len * COST_PER_BYTE_MAX <= MAX_MEMBER_COST)
    return 0;                           /* cannot be dear              */
  if (st == NULL) {
    st = r->bstack = malloc(BUDGET_DEPTH * sizeof(*st));
    if (st == NULL) return 0;
  }
  path[0] = '\0';
  while (p < len) {
    unsigned char ch = (unsigned char)line[p];

    switch (ch) {
    case ' ': case '\t': case '\r': case '\n': case ',': case ':':
      p++;
      continue;
    case '[': case '{':
      if (depth == BUDGET_DEPTH) {
        extra++;                        /* priced with the deepest     */
        st[depth - 1].cost += ch == '[' ? COST_ARRAY : COST_OBJECT;
      } else {
        top = &st[depth++];
        top->cost = ch == '[' ? COST_ARRAY : COST_OBJECT;
        top->nval = 0;
        top->start = p;
        top->index = 0;
        top->open = (char)ch;
        top->haskey = 0;
      }
      p++;
      continue;
    case ']': case '}':
      p++;
      if (extra > 0) {
        extra--;
        continue;
      }
      if (depth == 0) continue;         /* stray: jansson's to judge    */
      top = &st[--depth];
      c = top->cost;
      nv = top->nval + 1;
      if (depth > 0 && c > MAX_MEMBER_COST
          && ch == (top->open == '[' ? ']' : '}')) {
        /* Read as empty: "[]" or "{}" and spaces, offsets kept.        */
        if (ncut++ == 0) {
          budget_path(st, depth, line, path, sizeof(path));
          cut_nval = nv;
          cut_cost = c;
        }
        line[top->start + 1] = (char)ch;
        memset(line + top->start + 2, ' ', p - top->start - 2);
        c = top->open == '[' ? COST_ARRAY : COST_OBJECT;
        nv = 1;
      }
      break;
    case '"': {
      size_t s0 = p, e;

      for (q = p + 1; q < len && line[q] != '"'; q++)
        if (line[q] == '\\') q++;
      if (q > len) q = len;
      e = q;                            /* its closing quote (or len)  */
      c = COST_STRING + (e - s0);
      nv = 1;
      p = e + 1;
      if (depth > 0 && extra == 0 && st[depth - 1].open == '{') {
        for (q = p; q < len && (line[q] == ' ' || line[q] == '\t'
                                || line[q] == '\r' || line[q] == '\n'); q++)
          ;
        if (q < len && line[q] == ':') {          /* a key            */
          top = &st[depth - 1];
          top->key = s0 + 1;
          top->keylen = e - s0 - 1;
          top->haskey = 1;
          top->cost += COST_KEY + (e - s0);
          continue;
        }
      }
      break;
    }
    default:                            /* a number, a literal, junk    */
      for (q = p; q < len && !budget_delim(line[q]); q++)
        ;
      if (q == p) q = p + 1;
      c = ch == 'n' || ch == 't' || ch == 'f' ? COST_LITERAL : COST_NUMBER;
      nv = 1;
      p = q;
      break;
    }
    /* A value of cost c (nv values) into its container.                */
    if (depth == 0) {
      total += c;
    } else {
      st[depth - 1].cost += c;
      st[depth - 1].nval += nv;
      st[depth - 1].index++;
    }
  }
  while (depth > 0) total += st[--depth].cost;     /* never closed      */
  if (ncut > 0) {
    char more[48] = "";

    if (ncut > 1)
      snprintf(more, sizeof(more), " (and %zu more)", ncut - 1);
    snprintf(msg, sizeof(msg), "%.300s: record %lu (line %llu, byte %llu): "
             "%s%s holds %llu values, about %llu MiB parsed, more than the "
             "%llu MiB a member may take: read as empty, the rest of the "
             "record kept", r->name, r->records + 1, lno, at, path, more,
             cut_nval, cut_cost >> 20, MAX_MEMBER_COST >> 20);
    note_add(r, msg);
  }
  *cost = total;
  return total > MAX_RECORD_COST ? -1 : 0;
}

const char *dump_warning(struct dump_reader *r)
{
  return r->warn[0] ? r->warn : NULL;
}

static char open_err[600];

static struct dump_reader *reader_new(const char *name)
{
  struct dump_reader *r = calloc(1, sizeof(*r));

  if (r == NULL) return NULL;
  snprintf(r->name, sizeof(r->name), "%s", name);
  r->gzip = -1;
  dump_cols_init(&r->cols, NULL);
  return r;
}

struct dump_reader *dump_open(const char *path, const char **err)
{
  struct dump_reader *r;
  struct stat st;

  r = reader_new(strcmp(path, "-") == 0 ? "<stdin>" : path);
  if (r == NULL) {
    *err = "out of memory";
    return NULL;
  }
  r->f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (r->f == NULL) {
    snprintf(open_err, sizeof(open_err), "cannot open %s: %s", path,
             strerror(errno));
    *err = open_err;
    free(r);
    return NULL;
  }
  if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(open_err, sizeof(open_err), "cannot read %s: Is a directory",
             path);
    *err = open_err;
    if (r->f != stdin) fclose(r->f);
    free(r);
    return NULL;
  }
  if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode))
    r->csize = (unsigned long long)st.st_size;
  return r;
}

struct dump_reader *dump_open_mem(const void *data, size_t len,
                                  const char *name)
{
  struct dump_reader *r = reader_new(name);

  if (r == NULL) return NULL;
  r->mem = data;
  r->mem_len = len;
  r->csize = len;
  return r;
}

struct dump_reader *dump_open_growing(const void *data, size_t len,
                                      const char *name)
{
  struct dump_reader *r = dump_open_mem(data, len, name);

  if (r != NULL) r->growing = 1;
  return r;
}

void dump_grow(struct dump_reader *r, const void *data, size_t len)
{
  if (len < r->mem_pos) len = r->mem_pos;       /* bytes cannot go away */
  r->mem = data;
  r->mem_len = len;
  r->csize = len;
  r->input_eof = 0;
}

void dump_grow_end(struct dump_reader *r)
{
  r->growing = 0;
}

/* Raw input: up to cap bytes into to; 0 at end of input (for now, if */
/* growing).                                                           */
static size_t reader_fill_to(struct dump_reader *r, unsigned char *to,
                             size_t cap)
{
  size_t n;

  if (r->input_eof) return 0;
  if (r->f != NULL) {
    n = fread(to, 1, cap, r->f);
  } else {
    n = r->mem_len - r->mem_pos;
    if (n > cap) n = cap;
    memcpy(to, r->mem + r->mem_pos, n);
    r->mem_pos += n;
  }
  if (n == 0) r->input_eof = 1;
  r->coffset += n;
  return n;
}

/* Raw input: up to CHUNK bytes into r->in; 0 at end of input. */
static size_t reader_fill(struct dump_reader *r)
{
  return reader_fill_to(r, r->in, CHUNK);
}

/* Refill r->out with decompressed bytes.  Returns 1 if some are there,   */
/* 0 at the end of input, -1 on corrupt compressed data (r->err set).     */
static int reader_refill(struct dump_reader *r)
{
  r->out_pos = r->out_len = 0;
  for (;;) {
    int zr;

    if (r->gzip == 0) {
      size_t n = reader_fill(r);

      if (n == 0) return 0;
      memcpy(r->out, r->in, n);
      r->out_len = n;
      return 1;
    }
    if (r->zs.avail_in == 0) {
      size_t n = reader_fill(r);

      if (n == 0) return 0;
      r->zs.next_in = r->in;
      r->zs.avail_in = (uInt)n;
    }
    if (r->gzip < 0 && r->zs.avail_in < 2 && r->growing) {
      /* One byte cannot tell: wait for the second.                     */
      r->zs.avail_in += (uInt)reader_fill_to(r, r->in + r->zs.avail_in,
                                             CHUNK - r->zs.avail_in);
      if (r->zs.avail_in < 2) return 0;
    }
    if (r->gzip < 0) {
      /* First bytes decide: gzip magic or zlib header, else plain text. */
      int gz = r->zs.avail_in >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;

      r->gzip = gz;
      if (!gz) {
        memcpy(r->out, r->zs.next_in, r->zs.avail_in);
        r->out_len = r->zs.avail_in;
        r->zs.avail_in = 0;
        return 1;
      }
      if (inflateInit2(&r->zs, 15 + 32) != Z_OK) {
        snprintf(r->err, sizeof(r->err), "cannot start decompressing %s",
                 r->name);
        return -1;
      }
      r->inflate_ready = 1;
      r->zs.next_in = r->in;
    }
    if (r->stream_end) {
      /* Another gzip member follows the one that ended. */
      if (inflateReset(&r->zs) != Z_OK) return -1;
      r->stream_end = 0;
    }
    r->zs.next_out = r->out;
    r->zs.avail_out = CHUNK;
    zr = inflate(&r->zs, Z_NO_FLUSH);
    r->out_len = CHUNK - r->zs.avail_out;
    if (zr == Z_STREAM_END) {
      r->stream_end = 1;
    } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
      snprintf(r->err, sizeof(r->err),
               "corrupt compressed data in %s at compressed byte %llu "
               "(after record %lu): %s", r->name,
               r->coffset - r->zs.avail_in, r->records,
               r->zs.msg ? r->zs.msg : "inflate failed");
      return -1;
    }
    if (r->out_len > 0) return 1;
    if (r->stream_end && r->zs.avail_in == 0 && r->input_eof) return 0;
  }
}

/* Validate one parsed line as a record. */
static enum dump_status reader_check(struct dump_reader *r, json_t *v,
                                     unsigned long long at)
{
  json_t *kind = json_is_object(v) ? json_object_get(v, "record") : NULL;

  if (!json_is_string(kind)) {
    if (r->records == 0)
      snprintf(r->err, sizeof(r->err),
               "not a gcacc dump: %s (no header record at byte 0)", r->name);
    else
      snprintf(r->err, sizeof(r->err),
               "corrupt record in %s at byte %llu (record %lu): "
               "not an object with a \"record\" member", r->name, at,
               r->records + 1);
    return DUMP_ERROR;
  }
  if (r->records == 0 && strcmp(json_string_value(kind), "header") != 0) {
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (no header record at byte 0)", r->name);
    return DUMP_ERROR;
  }
  return DUMP_RECORD;
}

/* The input ran out (not growing): the clean end, a dump cut short    */
/* (records so far kept) or no dump at all.                              */
static enum dump_status input_ended(struct dump_reader *r)
{
  int clean = r->gzip <= 0 || r->stream_end;

  if (r->skipping) {              /* the input ends inside it      */
    r->skipping = 0;
    r->offset += r->skip_len;
    r->note[0] = '\0';
    r->line_len = 1;
  }
  r->warn[0] = '\0';
  blank_run_end(r);
  deliver_note(r);
  if (r->line_len == 0 && clean && r->records == 0) {
    /* Empty file, empty gzip stream, only blank lines: not a dump. */
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (%s; expected a header record, "
             "{\"record\":\"header\",...}, as the first line)",
             r->name, r->offset ? "only blank lines" : "empty");
    return DUMP_ERROR;
  }
  if (r->line_len == 0 && clean) return DUMP_END;
  if (r->line_len == 0) {
    snprintf(r->err, sizeof(r->err),
             "%s ends without its gzip trailer after byte %llu "
             "(the process was stopped?); using records 1-%lu",
             r->name, r->offset, r->records);
  } else {
    snprintf(r->err, sizeof(r->err),
             "%s ends mid-record after byte %llu; using records 1-%lu",
             r->name, r->offset, r->records);
  }
  if (r->records == 0) {
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (no whole header record)", r->name);
    return DUMP_ERROR;
  }
  return DUMP_TRUNCATED;
}

/* Blank lines at the start of a line, a run at a time (a gigabyte of  */
/* them after the header took 31 s one by one; issue 38, fault 4).      */
/* 1: some taken, 0: none, -1: too many before any record (r->err).     */
static int take_blank_run(struct dump_reader *r)
{
  const unsigned char *b = r->out + r->out_pos, *e = r->out + r->out_len;
  size_t k;

  while (b < e && *b == '\n') b++;
  k = (size_t)(b - (r->out + r->out_pos));
  if (k == 0) {
    if (r->blank_run > 0) blank_run_end(r);
    return 0;
  }
  if (r->blank_run == 0) {
    r->blank_at = r->offset;
    r->blank_line = r->lines + 1;
  }
  r->blank_run += k;
  r->lines += k;
  r->offset += k;
  r->out_pos += k;
  if (r->records == 0 && r->offset > MAX_BLANK_PREFIX) {
    /* Bounded: gigabytes of newlines are not read to the end.    */
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (%llu blank bytes and no record; "
             "expected a header record, {\"record\":\"header\",...}, "
             "as the first line)", r->name, r->offset);
    return -1;
  }
  return 1;
}

/* Appends the output up to nl (or all of it, nl NULL) to the line, or */
/* counts it as skipped when the line is too long to parse within       */
/* bounded memory (told when its end comes).  -1: an error (r->err).    */
static int take_to(struct dump_reader *r, const unsigned char *nl)
{
  size_t take = nl ? (size_t)(nl - (r->out + r->out_pos))
                   : r->out_len - r->out_pos;

  if (!r->skipping && r->line_len + take + 1 > r->line_cap) {
    size_t cap = r->line_cap ? r->line_cap : 4096;

    while (cap < r->line_len + take + 1) cap *= 2;
    if (cap > MAX_RECORD && r->records == 0) {
      snprintf(r->err, sizeof(r->err),
               "not a gcacc dump: %s (the header record is longer than "
               "%zu MiB)", r->name, MAX_RECORD >> 20);
      return -1;
    }
    if (cap > MAX_RECORD) {
      r->skipping = 1;
      r->skip_len = r->line_len;
      r->line_len = 0;
    } else {
      char *p = realloc(r->line, cap);

      if (p == NULL) {
        snprintf(r->err, sizeof(r->err), "out of memory reading %s",
                 r->name);
        return -1;
      }
      r->line = p;
      r->line_cap = cap;
    }
  }
  if (r->skipping) {
    r->skip_len += take;
  } else {
    memcpy(r->line + r->line_len, r->out + r->out_pos, take);
    r->line_len += take;
  }
  r->out_pos += take;
  return 0;
}

/* The end of a line too long to parse: skipped, told, counted.         */
static void end_skipped_line(struct dump_reader *r)
{
  char msg[400];

  r->out_pos++;
  r->lines++;
  snprintf(msg, sizeof(msg),
           "%.300s: record %lu (line %llu, byte %llu) is longer than %zu "
           "MiB: skipped, the rest of the dump read", r->name,
           r->records + 1, r->lines, r->offset, MAX_RECORD >> 20);
  note_add(r, msg);
  r->offset += r->skip_len + 1;
  r->records++;
  r->skipping = 0;
  r->dskipped = 1;
}

/* A record whose values would cost too much parsed (its cost): not   */
/* parsed, told, counted; the header so is no dump.  1: skipped, -1:   */
/* an error (r->err).                                                   */
static int skip_costly(struct dump_reader *r, unsigned long long at,
                       unsigned long long lno, unsigned long long cost)
{
  char msg[600];

  r->line_len = 0;
  r->nltab = 0;
  if (r->records == 0) {
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (the header record holds JSON "
             "values that would take about %llu MiB parsed, more "
             "than %llu MiB)", r->name, cost >> 20,
             MAX_RECORD_COST >> 20);
    return -1;
  }
  snprintf(msg, sizeof(msg), "%.300s: record %lu (line %llu, byte "
           "%llu) holds JSON values that would take about %llu MiB "
           "parsed, more than %llu MiB: skipped, the rest of the "
           "dump read", r->name, r->records + 1, lno, at, cost >> 20,
           MAX_RECORD_COST >> 20);
  note_add(r, msg);
  r->records++;
  r->dskipped = 1;
  return 1;
}

/* Parses the line read, which started at byte at: the value, or NULL */
/* with r->err set.  Numbers that do not fit (at most 8 per record     */
/* after the header) are read as null, and r->warn says so.            */
static json_t *parse_line(struct dump_reader *r, unsigned long long at)
{
  json_error_t jerr;
  json_t *v = json_loadb(r->line, r->line_len, JSON_DISABLE_EOF_CHECK, &jerr);

  if (v == NULL && r->records > 0) {
    char first[256];
    unsigned fixed = 0;

    snprintf(first, sizeof(first), "%s", jerr.text);
    while (v == NULL && fixed < 8 && strstr(jerr.text, "too big") != NULL
           && jerr.position > 0
           && blank_number(r->line, r->line_len,
                           (size_t)jerr.position)) {
      fixed++;
      v = json_loadb(r->line, r->line_len, JSON_DISABLE_EOF_CHECK,
                     &jerr);
    }
    if (v != NULL) {
      char field[240];

      if (!name_null(v, &r->cols, field, sizeof(field), 0))
        snprintf(field, sizeof(field), "?");
      r->repaired += fixed;
      snprintf(r->warn, sizeof(r->warn),
               "%s: record %lu (byte %llu): %s%s in %s; read as 0, "
               "the rest of the record kept", r->name, r->records + 1,
               at, first, fixed > 1 ? " (and more)" : "", field);
    }
  }
  r->line_len = 0;
  if (v != NULL) return v;
  if (r->records == 0)
    /* The bad byte's position (jansson's): invalid UTF-8, \u0000, */
    /* a number that does not fit, or no JSON at all.              */
    snprintf(r->err, sizeof(r->err),
             "not a gcacc dump: %s (the header record, at byte %llu: "
             "%s)", r->name, at + (unsigned long long)jerr.position,
             jerr.text);
  else
    snprintf(r->err, sizeof(r->err),
             "corrupt record in %s at byte %llu (record %lu): %s",
             r->name, at + (unsigned long long)jerr.position,
             r->records + 1, jerr.text);
  return NULL;
}

/* A whole line has been read, its newline next: the record it holds   */
/* (DUMP_RECORD, *out set; NULL in raw mode), an error, or DUMP_MORE    */
/* when there is none to deliver (an empty or skipped line: read on).   */
static enum dump_status end_line(struct dump_reader *r, json_t **out)
{
  unsigned long long at = r->offset, lno, cost;
  enum dump_status st;
  json_t *v;

  r->out_pos++;                     /* the newline */
  r->offset += r->line_len + 1;
  lno = ++r->lines;
  if (r->line_len == 0) return DUMP_MORE;   /* (runs are taken before) */
  r->warn[0] = '\0';
  if (r->raw && r->records > 0) {
    /* The line itself (dump_line), unparsed.                       */
    r->line[r->line_len] = '\0';
    r->raw_len = r->line_len;
    r->line_len = 0;
    r->records++;
    deliver_note(r);
    return DUMP_RECORD;
  }
  r->lean_rec = NULL;
  r->nltab = 0;
  if (r->records > 0 && (r->lean_keys != NULL || r->lean_skip != NULL))
    lean_line(r, r->line, r->line_len);
  if (budget_line(r, r->line, r->line_len, at, lno, &cost) != 0)
    return skip_costly(r, at, lno, cost) < 0 ? DUMP_ERROR : DUMP_MORE;
  v = parse_line(r, at);
  if (v == NULL) return DUMP_ERROR;
  st = reader_check(r, v, at);
  if (st != DUMP_RECORD) {
    json_decref(v);
    return st;
  }
  r->records++;
  if (r->records == 1) {
    dump_cols_init(&r->cols, v);
    delta_init(r, v);
  }
  r->lean_rec = v;
  if (r->records > 1 && delta_apply(r, v, at) != 0) {
    r->lean_rec = NULL;
    r->nltab = 0;
    json_decref(v);
    return DUMP_ERROR;
  }
  deliver_note(r);
  *out = v;
  return DUMP_RECORD;
}

enum dump_status dump_next(struct dump_reader *r, json_t **out)
{
  *out = NULL;
  if (r->err[0] != '\0') return DUMP_ERROR;
  for (;;) {
    unsigned char *nl;

    if (r->out_pos == r->out_len) {
      int got = reader_refill(r);

      if (got < 0) return DUMP_ERROR;
      if (got == 0) return r->growing ? DUMP_MORE : input_ended(r);
    }
    if (r->line_len == 0 && !r->skipping) {
      int blanks = take_blank_run(r);

      if (blanks < 0) return DUMP_ERROR;
      if (blanks > 0) continue;
    }
    nl = memchr(r->out + r->out_pos, '\n', r->out_len - r->out_pos);
    if (take_to(r, nl) != 0) return DUMP_ERROR;
    if (nl == NULL) continue;
    if (r->skipping) {
      end_skipped_line(r);
    } else {
      enum dump_status st = end_line(r, out);

      if (st != DUMP_MORE) return st;
    }
  }
}

void dump_set_raw(struct dump_reader *r) { r->raw = 1; }

const char *dump_line(const struct dump_reader *r, size_t *len)
{
  *len = r->raw_len;
  return r->line;
}

const char *dump_error(const struct dump_reader *r) { return r->err; }
unsigned long dump_records(const struct dump_reader *r) { return r->records; }
unsigned long long dump_offset(const struct dump_reader *r)
{
  return r->offset;
}
unsigned long long dump_compressed_offset(const struct dump_reader *r)
{
  return r->coffset;
}
unsigned long long dump_compressed_size(const struct dump_reader *r)
{
  return r->csize;
}
const char *dump_name(const struct dump_reader *r) { return r->name; }

void dump_close(struct dump_reader *r)
{
  if (r == NULL) return;
  if (r->inflate_ready) inflateEnd(&r->zs);
  if (r->f != NULL && r->f != stdin) fclose(r->f);
  free(r->line);
  free(r->lrow);
  free(r->lval);
  free(r->ltag);
  free(r->lbig);
  free(r->lpool);
  free(r->bstack);
  free(r->dstate[0].v);
  free(r->dstate[1].v);
  free(r);
}
