/* SPDX-License-Identifier: MIT */
/*
 * text.c: the one writer of dump text (numbers, rows, JSON strings).
 *
 * A struct gca_text is a buffer of OS pages (never the GC heap, never
 * malloc, so it may be used with the allocation lock held) that grows by
 * doubling; a write that cannot get memory sets fail and the rest of the
 * writes do nothing, so a caller checks once at the end.  Numbers are
 * formatted by hand (snprintf per number cost more than the census it
 * reports), strings through gca_text_string, the one JSON escaper of the
 * collector side.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

GC_INNER int gca_text_reserve(struct gca_text *t, size_t more)
{
  size_t cap;
  char *nb;

  if (t->fail) return 0;
  if (t->len + more <= t->cap) return 1;
  cap = t->cap ? t->cap : 16384;
  while (cap < t->len + more) cap *= 2;
  nb = (char *)gca_os_alloc(cap);
  if (NULL == nb) {
    t->fail = 1;
    return 0;
  }
  if (t->len) BCOPY(t->buf, nb, t->len);
  gca_os_free(t->buf, t->cap);
  t->buf = nb;
  t->cap = cap;
  return 1;
}

GC_INNER void gca_text_put(struct gca_text *t, const char *s, size_t n)
{
  if (!gca_text_reserve(t, n)) return;
  BCOPY(s, t->buf + t->len, n);
  t->len += n;
}

static const char text_digits2[201] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536"
  "37383940414243444546474849505152535455565758596061626364656667686970717273"
  "74757677787980818283848586878889909192939495969798" "99";

/* Decimal digits of x at p (at most 20); returns the end: two digits at */
/* a time, right to left, then copied out.                               */
GC_INNER char *gca_put_word(char *p, word x)
{
  char digits[24];
  int d = 24;

  if (x < 10) {
    *p = (char)('0' + x);
    return p + 1;
  }
  while (x >= 100) {
    word q = x / 100;
    const char *dd = text_digits2 + 2 * (x - q * 100);

    digits[--d] = dd[1];
    digits[--d] = dd[0];
    x = q;
  }
  if (x >= 10) {
    digits[--d] = text_digits2[2 * x + 1];
    digits[--d] = text_digits2[2 * x];
  } else {
    digits[--d] = (char)('0' + x);
  }
  memcpy(p, digits + d, (size_t)(24 - d));
  return p + 24 - d;
}

GC_INNER char *gca_put_row(char *p, int first, const word *v, unsigned n)
{
  unsigned i;

  if (!first) *p++ = ',';
  *p++ = '[';
  for (i = 0; i < n; i++) {
    if (i) *p++ = ',';
    p = gca_put_word(p, v[i]);
  }
  *p++ = ']';
  return p;
}

GC_INNER void gca_text_word(struct gca_text *t, word x)
{
  if (!gca_text_reserve(t, 24)) return;
  t->len = (size_t)(gca_put_word(t->buf + t->len, x) - t->buf);
}

/* A 64-bit number, whatever the word's width (times: a 32-bit word of */
/* nanoseconds wraps every 4.3 s).                                      */
GC_INNER void gca_text_u64(struct gca_text *t, uint64_t x)
{
  char b[20];
  int d = (int)sizeof(b);

  if (sizeof(word) >= sizeof(x)) {
    gca_text_word(t, (word)x);
    return;
  }
  do {
    b[--d] = (char)('0' + (int)(x % 10));
    x /= 10;
  } while (x != 0);
  gca_text_put(t, b + d, sizeof(b) - (size_t)d);
}

GC_INNER void gca_text_sword(struct gca_text *t, signed_word x)
{
  if (x < 0) {
    GCA_TEXT_LIT(t, "-");
    gca_text_word(t, (word)0 - (word)x);
  } else {
    gca_text_word(t, (word)x);
  }
}

GC_INNER void gca_text_hex(struct gca_text *t, word x)
{
  static const char hex[] = "0123456789abcdef";
  char b[2 + 2 * sizeof(word)];
  int d = (int)sizeof(b);

  do {
    b[--d] = hex[x & 0xf];
    x >>= 4;
  } while (x != 0);
  GCA_TEXT_LIT(t, "\"0x");
  gca_text_put(t, b + d, sizeof(b) - (size_t)d);
  GCA_TEXT_LIT(t, "\"");
}

GC_INNER void gca_text_row(struct gca_text *t, int first, const word *v,
                           unsigned n)
{
  if (!gca_text_reserve(t, (size_t)n * 21 + 3)) return;
  t->len = (size_t)(gca_put_row(t->buf + t->len, first, v, n) - t->buf);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if the  */
/* bytes there are not one (overlong forms, surrogates and code points  */
/* past U+10FFFF included).                                              */
static size_t text_utf8_len(const unsigned char *s, size_t n)
{
  unsigned c = s[0];
  size_t len, i;
  unsigned long cp;

  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((3 == len && cp < 0x800) || (4 == len && cp < 0x10000)
      || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

GC_INNER void gca_text_string(struct gca_text *t, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;

  GCA_TEXT_LIT(t, "\"");
  while (i < n) {
    unsigned c = u[i];
    size_t run = i, l;

    /* Plain bytes go out in runs.                                      */
    while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"'
           && u[run] != '\\')
      run++;
    if (run > i) {
      gca_text_put(t, s + i, run - i);
      i = run;
      continue;
    }
    c = u[i];
    if ('"' == c || '\\' == c) {
      char e[2];

      e[0] = '\\';
      e[1] = (char)c;
      gca_text_put(t, e, 2);
      i++;
    } else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      char e[6];

      switch (c) {
      case '\n': GCA_TEXT_LIT(t, "\\n"); break;
      case '\r': GCA_TEXT_LIT(t, "\\r"); break;
      case '\t': GCA_TEXT_LIT(t, "\\t"); break;
      default:
        e[0] = '\\';
        e[1] = 'u';
        e[2] = '0';
        e[3] = '0';
        e[4] = hex[c >> 4];
        e[5] = hex[c & 0xf];
        gca_text_put(t, e, 6);
      }
      i++;
    } else if ((l = text_utf8_len(u + i, n - i)) != 0) {
      gca_text_put(t, s + i, l);
      i += l;
    } else {
      /* Not UTF-8 (a path may be any bytes): each such byte is '?'.    */
      GCA_TEXT_LIT(t, "?");
      i++;
    }
  }
  GCA_TEXT_LIT(t, "\"");
}

GC_INNER void gca_text_cstring(struct gca_text *t, const char *s)
{
  gca_text_string(t, s, strlen(s));
}

#endif /* !GC_ACC_DISABLE */
