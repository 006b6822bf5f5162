/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dump_read.c: libFuzzer target for the reader's record parser.
 *
 * Property checked: on any input (gzip or plain, whole, cut or corrupt)
 * dump_open_mem + dump_next end in DUMP_END, DUMP_TRUNCATED or DUMP_ERROR
 * after finitely many records without a crash, undefined behaviour or a
 * leak, and session.c's field extraction (jnum, jrow, header_config,
 * class_label, kind_label) is safe on every record they return, with
 * columns wherever the header's "columns" put them.  The same input fed
 * in pieces (dump_open_growing) gives the same records and ending, and
 * read lean (dump_set_lean: row tables parsed by the reader itself) the
 * same records and the same tables, cell for cell.
 *
 * Built two ways: by tests/fuzz/fuzz.sh with clang -fsanitize=fuzzer, and
 * with tests/fuzz/regression_driver.c (plain gcc) in every `make check`.
 */
#include "dump_read.h"
#include "session.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile u64 sink;

/* What session.c's rec_fill and the views read from a record: every   */
/* known column of each table where the header's "columns" put it       */
/* (dump_cols; the fuzzer's headers name them in any order, or not).     */
static void visit(const json_t *header, const json_t *j,
                  const struct dump_cols *cols)
{
  static const char *keys[] = {
    "census", "seq", "gc_no", "t_start_ns", "t_end_ns", "mark_ns",
    "census_ns", "dropped", "granule_bytes", "hblk_bytes", "grows_lost",
    "heap.heap_bytes", "heap.free_bytes", "heap.unmapped_bytes",
    "heap.allocd_since_prev_bytes", "heap.reserved_bytes",
    "heap.resident_bytes", "freelists.total_free_bytes",
    "freelists.largest_free_bytes", "freelists.frag_index",
    "a.very.deeply.nested.key.that.is.longer.than.sixty.four.characters."
    "to.hit.the.key.buffer.limit", "x.y"
  };
  static const int tables[] = {
    GCA_TABLE_classes, GCA_TABLE_kinds, GCA_TABLE_grows, GCA_TABLE_types,
    GCA_TABLE_sites, GCA_TABLE_type_rows, GCA_TABLE_site_rows
  };
  const json_t *row, *fl;
  size_t i, a, c;
  u64 s = 0;
  char buf[64];

  for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) s += jnum(j, keys[i]);
  for (a = 0; a < sizeof(tables) / sizeof(tables[0]); a++) {
    const struct dump_table *t = &dump_tables[tables[a]];
    const size_t *pos = dump_cols_table(cols, tables[a]);

    json_array_foreach(json_object_get(j, t->key), i, row) {
      for (c = 0; c < t->ncols; c++) s += jrow(row, pos[c]);
      s += jrow(row, json_array_size(row));       /* one past the end */
      if (tables[a] == GCA_TABLE_classes && header != NULL) {
        /* cmd_top/cmd_frag label classes; the row's class is untrusted. */
        (void)class_label(header, (unsigned)jcol(row, cols, classes, class),
                          buf);
        (void)kind_label((unsigned)jcol(row, cols, classes, kind), buf);
      }
    }
  }
  fl = json_object_get(json_object_get(j, "freelists"), "lists");
  json_array_foreach(fl, i, row)
    for (c = 0; c < GCA_NCOLS_lists; c++)
      s += jrow(row, dump_cols_table(cols, GCA_TABLE_lists)[c]);
  json_array_foreach(json_object_get(j, "rows"), i, row)
    for (c = 0; c < GCA_NCOLS_frame_rows; c++)
      s += jrow(row, dump_cols_table(cols, GCA_TABLE_frame_rows)[c]);
  sink = s;
}

/* One read of the whole input: the records read and how it ended.      */
static unsigned long run_one(const uint8_t *data, size_t size,
                             enum dump_status *end)
{
  struct dump_reader *r = dump_open_mem(data, size, "<fuzz>");
  json_t *v, *header = NULL;
  enum dump_status st;
  unsigned long n = 0;

  *end = DUMP_ERROR;
  if (r == NULL) return 0;
  while ((st = dump_next(r, &v)) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    if (v == NULL || kind == NULL) abort();     /* dump_next's contract */
    if (n == 0) {
      header = json_incref(v);
      (void)header_config(header, "granule_bytes", 16);
      (void)json_array_size(json_object_get(header, "modules"));
    } else {
      visit(header, v, dump_cols(r));
    }
    json_decref(v);
    /* Each record consumes at least one input byte's worth of output;  */
    /* a reader that returns records forever is a bug.                  */
    if (++n > 64 * 1024 * 1024) abort();
  }
  if (v != NULL) abort();                       /* *out NULL otherwise */
  if ((st == DUMP_ERROR || st == DUMP_TRUNCATED) && dump_error(r)[0] == '\0')
    abort();                                    /* a message is promised */
  if (st == DUMP_ERROR && dump_next(r, &v) != DUMP_ERROR) abort();
  if (st == DUMP_MORE) abort();                 /* growing input only    */
  json_decref(header);
  dump_close(r);
  *end = st;
  return n;
}

/* The same input arriving in pieces of step bytes (dump_open_growing):  */
/* DUMP_MORE at every piece's end, then, once ended, the same records    */
/* and the same ending as one read.                                      */
static void run_growing(const uint8_t *data, size_t size, size_t step,
                        unsigned long n_one, enum dump_status end_one)
{
  struct dump_reader *r = dump_open_growing(data, 0, "<fuzz>");
  json_t *v;
  enum dump_status st = DUMP_MORE;
  unsigned long n = 0;
  size_t have = 0;

  if (r == NULL) return;
  for (;;) {
    while ((st = dump_next(r, &v)) == DUMP_RECORD) {
      json_decref(v);
      n++;
    }
    if (st != DUMP_MORE) break;                 /* an error: stays one   */
    if (have == size) {
      dump_grow_end(r);
      while ((st = dump_next(r, &v)) == DUMP_RECORD) {
        json_decref(v);
        n++;
      }
      break;
    }
    have = size - have < step ? size : have + step;
    dump_grow(r, data, have);
  }
  if (st == DUMP_MORE || st != end_one || n != n_one) abort();
  dump_close(r);
}

/* Lean mode (dump_set_lean) reads what jansson reads: the same input  */
/* through a plain reader and a lean one, in step, gives the same        */
/* records and ending, and every table through dump_tab the same rows,   */
/* cells, integers and strings as the plain record's JSON.               */
static const char lean_keys[] = "classes types sites type_rows site_rows rows";

static void same_tab(const struct dump_tab *l, const json_t *plain)
{
  struct dump_tab p = { NULL, NULL, 0 };
  size_t i, k;

  if (json_is_array(plain)) p.json = plain;
  if (dump_tab_rows(l) != dump_tab_rows(&p)) abort();
  for (i = 0; i <= dump_tab_rows(l); i++) {       /* one past the end */
    size_t n = dump_tab_len(l, i);

    if (n != dump_tab_len(&p, i)) abort();
    for (k = 0; k <= n; k++) {
      long long a = 0, b = 0;
      const char *sa = dump_tab_str(l, i, k), *sb = dump_tab_str(&p, i, k);
      int ia = dump_tab_int(l, i, k, &a), ib = dump_tab_int(&p, i, k, &b);

      if (ia != ib || a != b) abort();
      if ((sa == NULL) != (sb == NULL) || (sa && strcmp(sa, sb) != 0))
        abort();
    }
  }
}

static void run_lean(const uint8_t *data, size_t size)
{
  struct dump_reader *p = dump_open_mem(data, size, "<fuzz>");
  struct dump_reader *l = dump_open_mem(data, size, "<fuzz>");
  enum dump_status sp, sl;

  if (p == NULL || l == NULL) abort();
  dump_set_lean(l, lean_keys, NULL);
  for (;;) {
    json_t *vp, *vl;
    const char *k = lean_keys;

    sp = dump_next(p, &vp);
    sl = dump_next(l, &vl);
    if (sp != sl) abort();
    if (sp != DUMP_RECORD) break;
    while (*k) {                                  /* each lean key     */
      char key[16];
      size_t n = strcspn(k, " ");
      struct dump_tab t;

      memcpy(key, k, n);
      key[n] = '\0';
      t = dump_tab(l, vl, key);
      same_tab(&t, json_object_get(vp, key));
      k += n;
      while (*k == ' ') k++;
    }
    json_decref(vp);
    json_decref(vl);
  }
  dump_close(p);
  dump_close(l);
}

/* The reader's input chunk (dump_read.c's CHUNK).                      */
#define READER_CHUNK (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  enum dump_status end;
  unsigned long n = run_one(data, size, &end);

  /* Growing input: a byte at a time for small inputs, else in pieces   */
  /* of 1 to 61 bytes (by length).                                      */
  run_growing(data, size, size < 512 ? 1 : 1 + size % 61, n, end);
  run_lean(data, size);
  /* Plain input again behind blank lines (which the reader skips), so   */
  /* that its records straddle a chunk boundary: inputs are capped well  */
  /* below a chunk, and that path would go untested.  One input in 8     */
  /* (by length), as this pass costs a 64 KiB copy and scan.             */
  if (size > 0 && size % 8 == 0 && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
    size_t pad = READER_CHUNK - 64 + size % 64;
    uint8_t *p = malloc(pad + size);

    if (p != NULL) {
      memset(p, '\n', pad);
      memcpy(p + pad, data, size);
      (void)run_one(p, pad + size, &end);
      free(p);
    }
  }
  return 0;
}
