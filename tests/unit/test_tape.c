/* SPDX-License-Identifier: MIT */
/*
 * test_tape.c: records' tapes (accounting/text.c) written as text.
 *
 * Under the allocation lock a record is only taken down as a tape (tag
 * words and what they carry); the writer thread writes its text later.
 * The text must be exactly what the record's builder wrote itself when
 * it formatted under the lock: here a tape holding every kind of item
 * (literals, keyed words, words, negative and positive signed words,
 * hex, 64-bit times, rows first and not, strings to escape, raw bytes,
 * site and type definitions) is written out and compared byte for byte
 * with the same items written by gca_text_* directly, and with the
 * expected JSON spelled out.  The tape is also read at every byte
 * offset (the ring keeps no alignment), and tapes cut short or with an
 * unknown kind are refused (0), never read past their end.  Built with
 * the collector's private headers and the two source files themselves.
 */
#include "../../accounting/base.c"
#include "../../accounting/text.c"

#include <jansson.h>
#include <string.h>
#include "../check.h"

static struct gca_text tape, got, want;

static const char name[] = "Ns.Cl\"as\\s\n\x01\xc3\xa9\xff";
static const word row[4] = { 0, 9, 12345, (word)-1 };
static const word frames[3] = { 0x401000, 0x7f3a12c4e0b1, 0x1 };

/* Where items end in the tape: a tape cut there is whole.              */
static char item_end[1 << 12];

static void mark(void)
{
  if (tape.len < sizeof(item_end)) item_end[tape.len] = 1;
}

/* Every kind of item, into the tape and, the way record.c did before  */
/* tapes, straight into want.                                           */
static void build(void)
{
  GCA_TAPE_LITERAL(&tape, "{\"record\":\"test\"");
  mark();
  GCA_TEXT_LIT(&want, "{\"record\":\"test\"");
  GCA_TAPE_KEY(&tape, ",\"seq\":", 42);
  mark();
  GCA_TEXT_LIT(&want, ",\"seq\":");
  gca_text_word(&want, 42);
  GCA_TAPE_LITERAL(&tape, ",\"w\":");
  mark();
  GCA_TEXT_LIT(&want, ",\"w\":");
  gca_tape_one(&tape, GCA_TAPE_WORD, (word)-1);
  mark();
  gca_text_word(&want, (word)-1);
  GCA_TAPE_LITERAL(&tape, ",\"s\":[");
  mark();
  GCA_TEXT_LIT(&want, ",\"s\":[");
  gca_tape_one(&tape, GCA_TAPE_SWORD, (word)(signed_word)-1);
  mark();
  gca_text_sword(&want, -1);
  GCA_TAPE_LITERAL(&tape, ",");
  mark();
  GCA_TEXT_LIT(&want, ",");
  gca_tape_one(&tape, GCA_TAPE_SWORD, 77);
  mark();
  gca_text_sword(&want, 77);
  GCA_TAPE_LITERAL(&tape, "],\"h\":");
  mark();
  GCA_TEXT_LIT(&want, "],\"h\":");
  gca_tape_one(&tape, GCA_TAPE_HEX, 0xdeadbeef);
  mark();
  gca_text_hex(&want, 0xdeadbeef);
  GCA_TAPE_LITERAL(&tape, ",\"t\":");
  mark();
  GCA_TEXT_LIT(&want, ",\"t\":");
  gca_tape_u64(&tape, (uint64_t)1 << 62 | 12345);
  mark();
  gca_text_u64(&want, (uint64_t)1 << 62 | 12345);
  GCA_TAPE_LITERAL(&tape, ",\"rows\":[");
  mark();
  GCA_TEXT_LIT(&want, ",\"rows\":[[0,9,12345,");
  gca_tape_row(&tape, 1, row, 4);
  mark();
  gca_text_word(&want, (word)-1);
  GCA_TEXT_LIT(&want, "],[12345]");
  gca_tape_row(&tape, 0, row + 2, 1);
  mark();
  GCA_TAPE_LITERAL(&tape, "],\"name\":");
  mark();
  GCA_TEXT_LIT(&want, "],\"name\":");
  gca_tape_bytes(&tape, GCA_TAPE_STRING, name, sizeof(name) - 1);
  mark();
  gca_text_string(&want, name, sizeof(name) - 1);
  GCA_TAPE_LITERAL(&tape, ",\"frac\":0.");
  mark();
  GCA_TEXT_LIT(&want, ",\"frac\":0.");
  gca_tape_bytes(&tape, GCA_TAPE_RAW, "012345", 6);
  mark();
  GCA_TEXT_LIT(&want, "012345");
  GCA_TAPE_LITERAL(&tape, ",\"sites\":[");
  mark();
  GCA_TEXT_LIT(&want, ",\"sites\":[[3,");
  gca_tape_hex_row(&tape, 1, 3, frames, 3);
  mark();
  gca_text_hex(&want, frames[0]);
  GCA_TEXT_LIT(&want, ",");
  gca_text_hex(&want, frames[1]);
  GCA_TEXT_LIT(&want, ",");
  gca_text_hex(&want, frames[2]);
  GCA_TEXT_LIT(&want, "],[4]");
  gca_tape_hex_row(&tape, 0, 4, frames, 0);
  mark();
  GCA_TAPE_LITERAL(&tape, "],\"types\":[");
  mark();
  GCA_TEXT_LIT(&want, "],\"types\":[[1,");
  gca_tape_type_def(&tape, 1, 1, 0x1234, name, sizeof(name) - 1);
  mark();
  gca_text_hex(&want, 0x1234);
  GCA_TEXT_LIT(&want, ",");
  gca_text_string(&want, name, sizeof(name) - 1);
  GCA_TEXT_LIT(&want, "],[2,");
  gca_tape_type_def(&tape, 0, 2, 0, "", 0);
  mark();
  gca_text_hex(&want, 0);
  GCA_TEXT_LIT(&want, ",\"\"]");
  GCA_TAPE_LITERAL(&tape, "]}\n");
  mark();
  GCA_TEXT_LIT(&want, "]}\n");
}

int main(void)
{
  static char moved[1 << 14];
  json_t *j;
  json_error_t err;
  size_t off, cut;
  unsigned kinds;
  char *expect;

  build();
  if (!CHECK(!tape.fail && !want.fail && tape.len % sizeof(word) == 0))
    return check_done("test_tape");
  /* The same bytes as formatting under the lock wrote.                 */
  CHECK(gca_tape_text(&got, tape.buf, tape.len));
  if (!CHECK(got.len == want.len && memcmp(got.buf, want.buf, got.len) == 0))
    fprintf(stderr, "got  %.*s\nwant %.*s\n", (int)got.len, got.buf,
            (int)want.len, want.buf);
  /* And the JSON spelled out (the decimal and hex writers included).  */
  expect = (char *)malloc(want.len + 256);
  (void)snprintf(expect, want.len + 256,
                 "{\"record\":\"test\",\"seq\":42,\"w\":%s,\"s\":[-1,77],"
                 "\"h\":\"0xdeadbeef\",\"t\":4611686018427400249,"
                 "\"rows\":[[0,9,12345,%s],[12345]],"
                 "\"name\":\"Ns.Cl\\\"as\\\\s\\n\\u0001\xc3\xa9?\","
                 "\"frac\":0.012345,"
                 "\"sites\":[[3,\"0x401000\",\"0x%s\",\"0x1\"],[4]],"
                 "\"types\":[[1,\"0x1234\",\"Ns.Cl\\\"as\\\\s\\n\\u0001"
                 "\xc3\xa9?\"],[2,\"0x0\",\"\"]]}\n",
                 sizeof(word) == 8 ? "18446744073709551615" : "4294967295",
                 sizeof(word) == 8 ? "18446744073709551615" : "4294967295",
                 sizeof(word) == 8 ? "7f3a12c4e0b1" : "12c4e0b1");
  if (!CHECK(strlen(expect) == got.len
             && memcmp(expect, got.buf, got.len) == 0))
    fprintf(stderr, "got    %.*s\nexpect %s", (int)got.len, got.buf, expect);
  free(expect);
  j = json_loadb(got.buf, got.len, JSON_DECODE_INT_AS_REAL, &err);
  if (CHECK(j != NULL)) json_decref(j);

  /* At any alignment: the ring keeps entries at any byte offset.       */
  for (off = 1; off < sizeof(word) && tape.len + off <= sizeof(moved);
       off++) {
    memcpy(moved + off, tape.buf, tape.len);
    got.len = 0;
    CHECK(gca_tape_text(&got, moved + off, tape.len));
    CHECK(got.len == want.len && memcmp(got.buf, want.buf, got.len) == 0);
  }

  /* Cut short anywhere inside an item, or not a tape at all: refused,  */
  /* and nothing read past the end (valgrind, ASan would say).          */
  for (cut = 1; cut < tape.len && cut < sizeof(item_end); cut++) {
    char *copy = (char *)malloc(cut);
    int ok;

    memcpy(copy, tape.buf, cut);
    got.len = 0;
    ok = gca_tape_text(&got, copy, cut);
    free(copy);
    if (!CHECK(ok == item_end[cut])) {
      fprintf(stderr, "tape cut at %lu of %lu: read %s\n",
              (unsigned long)cut, (unsigned long)tape.len,
              ok ? "as whole" : "refused at an item's end");
      break;
    }
  }
  for (kinds = 0; kinds < 16; kinds++) {
    word bad[2];

    if (kinds >= GCA_TAPE_LIT && kinds <= GCA_TAPE_TYPE_DEF) continue;
    bad[0] = kinds;
    bad[1] = 0;
    got.len = 0;
    CHECK(!gca_tape_text(&got, (const char *)bad, sizeof(bad)));
  }
  /* A row or string longer than the tape left.                          */
  {
    word bad[2];

    bad[0] = (word)100 << 5 | GCA_TAPE_ROW;
    bad[1] = 0;
    got.len = 0;
    CHECK(!gca_tape_text(&got, (const char *)bad, sizeof(bad)));
    bad[0] = (word)100 << 4 | GCA_TAPE_STRING;
    CHECK(!gca_tape_text(&got, (const char *)bad, sizeof(bad)));
    bad[0] = (word)3 << 5 | GCA_TAPE_TYPE_DEF;
    CHECK(!gca_tape_text(&got, (const char *)bad, sizeof(bad)));
  }
  return check_done("test_tape");
}
