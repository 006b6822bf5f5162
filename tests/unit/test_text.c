/* SPDX-License-Identifier: MIT */
/*
 * test_text.c: the collector's one writer of dump text (accounting/text.c).
 *
 * Numbers, rows and hex words as JSON, and the string escaper on what
 * paths and type names may hold: quotes, backslashes, every control
 * character, valid UTF-8 of each length, and bytes that are not UTF-8
 * (a lone continuation, a truncated sequence, overlong forms, surrogates,
 * code points past U+10FFFF), each written as '?'.  Every output is parsed
 * back with jansson, which accepts only valid JSON and UTF-8.  Built with
 * the collector's private headers and the two source files themselves
 * (no test entry point in libgc).
 */
#include "../../accounting/base.c"
#include "../../accounting/text.c"

#include <jansson.h>
#include <string.h>
#include "../check.h"

static struct gca_text t, tape;

/* t's text (NUL-terminated copy) as one JSON value, or NULL.           */
static json_t *parse_text(void)
{
  json_error_t err;
  json_t *j = json_loadb(t.buf, t.len, JSON_DECODE_ANY | JSON_ALLOW_NUL,
                         &err);

  if (NULL == j)
    fprintf(stderr, "not JSON (%s): %.*s\n", err.text, (int)t.len, t.buf);
  return j;
}

static void check_string_n(const char *in, size_t n, const char *want,
                           size_t wn)
{
  json_t *j;

  t.len = 0;
  gca_text_string(&t, in, n);
  j = parse_text();
  if (!CHECK(j != NULL && json_is_string(j))) return;
  if (!CHECK(wn == json_string_length(j)
             && memcmp(want, json_string_value(j), wn) == 0))
    fprintf(stderr, "  got \"%s\", want \"%s\"\n", json_string_value(j), want);
  json_decref(j);
}

static void check_string(const char *in, size_t n, const char *want)
{
  check_string_n(in, n, want, strlen(want));
}

static void check_word(word x, const char *want)
{
  t.len = 0;
  gca_text_word(&t, x);
  CHECK(t.len == strlen(want) && memcmp(t.buf, want, t.len) == 0);
}

int main(void)
{
  char all_ctl[31], want_ctl[31];
  unsigned i;
  json_t *j;
  word row[3] = { 0, 12345, (word)1 << 40 };

  /* Numbers.                                                           */
  check_word(0, "0");
  check_word(9, "9");
  check_word(10, "10");
  check_word(99, "99");
  check_word(100, "100");
  check_word(1000000007, "1000000007");
  if (sizeof(word) == 8) check_word(~(word)0, "18446744073709551615");
  t.len = 0;
  gca_text_sword(&t, -1);
  CHECK(t.len == 2 && memcmp(t.buf, "-1", 2) == 0);
  t.len = 0;
  gca_text_hex(&t, 0x7f3a12c4e0b1);
  CHECK(t.len == 16 && memcmp(t.buf, "\"0x7f3a12c4e0b1\"", 16) == 0);
  t.len = 0;
  gca_text_hex(&t, 0);
  CHECK(t.len == 5 && memcmp(t.buf, "\"0x0\"", 5) == 0);
  /* A row parses back to its numbers.                                  */
  t.len = 0;
  tape.len = 0;
  gca_tape_row(&tape, 1, row, 3);
  CHECK(gca_tape_text(&t, tape.buf, tape.len));
  j = parse_text();
  if (CHECK(j != NULL && json_array_size(j) == 3)) {
    CHECK_EQ(json_integer_value(json_array_get(j, 1)), 12345);
    json_decref(j);
  }

  /* Strings.                                                           */
  check_string("plain", 5, "plain");
  check_string("", 0, "");
  check_string("a\"b\\c", 5, "a\"b\\c");
  check_string("/tmp/new\nline\tand\rcr", 20, "/tmp/new\nline\tand\rcr");
  for (i = 1; i < 32; i++) {
    all_ctl[i - 1] = (char)i;
    want_ctl[i - 1] = (char)i;
  }
  check_string_n(all_ctl, 31, want_ctl, 31);   /* \u00XX, parsed back */
  check_string_n("nul\0inside", 10, "nul\0inside", 10);   /* as \u0000 */
  check_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xae", 14,
               "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xae");
  check_string("bad\xff", 4, "bad?");
  check_string("lone\x80", 5, "lone?");
  check_string("cut\xe2\x82", 5, "cut??");
  check_string("overlong\xc0\x80", 10, "overlong??");
  check_string("overlong3\xe0\x80\xaf", 12, "overlong3???");
  check_string("surrogate\xed\xa0\x80", 12, "surrogate???");
  check_string("past\xf4\x90\x80\x80", 8, "past????");
  check_string("\xf5\x80\x80\x80", 4, "????");
  /* A long string grows the buffer past its first size.               */
  {
    static char big[100000], wantb[100000];

    memset(big, 'x', sizeof(big) - 1);
    memset(wantb, 'x', sizeof(wantb) - 1);
    big[500] = '"';
    wantb[500] = '"';
    check_string(big, sizeof(big) - 1, wantb);
    CHECK(t.cap >= sizeof(big) && !t.fail);
  }
  return check_done("test_text");
}
