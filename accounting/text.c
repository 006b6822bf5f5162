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
 * collector side.  Records are not formatted under the allocation lock:
 * record.c takes them down as tapes (gca_tape_*, below) and the writer
 * thread writes their text with the same functions (gca_tape_text).
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

GC_INNER void gca_text_free(struct gca_text *t)
{
  gca_os_free(t->buf, t->cap);
  t->buf = NULL;
  t->len = t->cap = 0;
  t->fail = 0;
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

/* ---- tapes ------------------------------------------------------------ */
/* A record is taken down under the allocation lock as a tape (what it  */
/* says, in words) and written as text by the writer thread, outside    */
/* the collector's pause (gca_tape_text).  Each item is a tag word,     */
/* TAPE_KIND(tag) and TAPE_COUNT(tag), then its payload.  Literals are   */
/* kept by address: they must be static (string literals).              */
#define TAPE_KIND_BITS 4
#define TAPE_KIND(tag) ((unsigned)((tag) & 0xf))
#define TAPE_COUNT(tag) ((size_t)((tag) >> TAPE_KIND_BITS))
#define TAPE_TAG(kind, n) ((word)(n) << TAPE_KIND_BITS | (word)(kind))
#define TAPE_W sizeof(word)
#define TAPE_WORDS(bytes) (((bytes) + TAPE_W - 1) / TAPE_W)

/* Room for n more words at the end of t; their start, or NULL.         */
static char *tape_room(struct gca_text *t, size_t n)
{
  char *p;

  if (EXPECT(t->len + n * TAPE_W > t->cap, FALSE)
      && !gca_text_reserve(t, n * TAPE_W))
    return NULL;
  p = t->buf + t->len;
  t->len += n * TAPE_W;
  return p;
}

static void tape_put_word(char *p, word x) { memcpy(p, &x, TAPE_W); }

static word tape_get_word(const char *p)
{
  word x;

  memcpy(&x, p, TAPE_W);
  return x;
}

GC_INNER void gca_tape_lit(struct gca_text *t, const char *s, size_t n)
{
  char *p = tape_room(t, 2);

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_LIT, n));
  tape_put_word(p + TAPE_W, (word)s);
}

GC_INNER void gca_tape_key_word(struct gca_text *t, const char *s, size_t n,
                                word x)
{
  char *p = tape_room(t, 3);

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_KEY_WORD, n));
  tape_put_word(p + TAPE_W, (word)s);
  tape_put_word(p + 2 * TAPE_W, x);
}

/* WORD, SWORD and HEX: a tag and one word.                              */
GC_INNER void gca_tape_one(struct gca_text *t, unsigned kind, word x)
{
  char *p = tape_room(t, 2);

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(kind, 0));
  tape_put_word(p + TAPE_W, x);
}

GC_INNER void gca_tape_u64(struct gca_text *t, uint64_t x)
{
  char *p = tape_room(t, 1 + TAPE_WORDS(sizeof(x)));

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_U64, 0));
  memcpy(p + TAPE_W, &x, sizeof(x));
}

GC_INNER void gca_tape_row(struct gca_text *t, int first, const word *v,
                           unsigned n)
{
  char *p = tape_room(t, 1 + (size_t)n);

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_ROW, (word)n << 1 | (first != 0)));
  memcpy(p + TAPE_W, v, (size_t)n * TAPE_W);
}

GC_INNER void gca_tape_hex_row(struct gca_text *t, int first, word id,
                               const word *v, unsigned n)
{
  char *p = tape_room(t, 2 + (size_t)n);

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_HEX_ROW, (word)n << 1 | (first != 0)));
  tape_put_word(p + TAPE_W, id);
  memcpy(p + 2 * TAPE_W, v, (size_t)n * TAPE_W);
}

GC_INNER void gca_tape_type_def(struct gca_text *t, int first, word id,
                                word cookie, const char *name, size_t n)
{
  char *p = tape_room(t, 3 + TAPE_WORDS(n));

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(GCA_TAPE_TYPE_DEF, (word)n << 1 | (first != 0)));
  tape_put_word(p + TAPE_W, id);
  tape_put_word(p + 2 * TAPE_W, cookie);
  memcpy(p + 3 * TAPE_W, name, n);
}

/* STRING (escaped, in quotes) and RAW (as is): s[0, n) copied.         */
GC_INNER void gca_tape_bytes(struct gca_text *t, unsigned kind,
                             const char *s, size_t n)
{
  char *p = tape_room(t, 1 + TAPE_WORDS(n));

  if (NULL == p) return;
  tape_put_word(p, TAPE_TAG(kind, n));
  memcpy(p + TAPE_W, s, n);
}

/* A row's text from its n words at p (any alignment); returns p past  */
/* them.                                                                  */
static const char *tape_row_text(struct gca_text *t, int first,
                                  const char *p, unsigned n)
{
  char *o;
  unsigned i;

  if (!gca_text_reserve(t, (size_t)n * 21 + 3)) return p + n * TAPE_W;
  o = t->buf + t->len;
  if (!first) *o++ = ',';
  *o++ = '[';
  for (i = 0; i < n; i++, p += TAPE_W) {
    if (i) *o++ = ',';
    o = gca_put_word(o, tape_get_word(p));
  }
  *o++ = ']';
  t->len = (size_t)(o - t->buf);
  return p;
}

GC_INNER int gca_tape_text(struct gca_text *out, const char *tape, size_t len)
{
  const char *p = tape, *end = tape + len;

  while (p < end && !out->fail) {
    word tag, x;
    size_t n, room;
    uint64_t u;

    if ((size_t)(end - p) < TAPE_W) return 0;
    room = (size_t)(end - p) / TAPE_W - 1;    /* words past the tag     */
    tag = tape_get_word(p);
    n = TAPE_COUNT(tag);
    p += TAPE_W;
    switch (TAPE_KIND(tag)) {
    case GCA_TAPE_LIT:
    case GCA_TAPE_KEY_WORD:
      if (room < (GCA_TAPE_LIT == TAPE_KIND(tag) ? 1u : 2u)) return 0;
      gca_text_put(out, (const char *)tape_get_word(p), n);
      p += TAPE_W;
      if (GCA_TAPE_KEY_WORD == TAPE_KIND(tag)) {
        gca_text_word(out, tape_get_word(p));
        p += TAPE_W;
      }
      break;
    case GCA_TAPE_WORD:
    case GCA_TAPE_SWORD:
    case GCA_TAPE_HEX:
      if (room < 1) return 0;
      x = tape_get_word(p);
      p += TAPE_W;
      if (GCA_TAPE_WORD == TAPE_KIND(tag))
        gca_text_word(out, x);
      else if (GCA_TAPE_SWORD == TAPE_KIND(tag))
        gca_text_sword(out, (signed_word)x);
      else
        gca_text_hex(out, x);
      break;
    case GCA_TAPE_U64:
      if (room < TAPE_WORDS(sizeof(u))) return 0;
      memcpy(&u, p, sizeof(u));
      p += TAPE_WORDS(sizeof(u)) * TAPE_W;
      gca_text_u64(out, u);
      break;
    case GCA_TAPE_ROW:
      if (room < n >> 1) return 0;
      p = tape_row_text(out, (int)(n & 1), p, (unsigned)(n >> 1));
      break;
    case GCA_TAPE_HEX_ROW:
    case GCA_TAPE_TYPE_DEF:
      {
        int def = GCA_TAPE_TYPE_DEF == TAPE_KIND(tag);
        size_t i, nw = def ? 1 + TAPE_WORDS(n >> 1) : n >> 1;

        if (room < 1 + nw) return 0;
        if ((n & 1) == 0) GCA_TEXT_LIT(out, ",");
        GCA_TEXT_LIT(out, "[");
        gca_text_word(out, tape_get_word(p));
        p += TAPE_W;
        for (i = 0; i < (def ? 1 : nw); i++, p += TAPE_W) {
          GCA_TEXT_LIT(out, ",");
          gca_text_hex(out, tape_get_word(p));
        }
        if (def) {
          GCA_TEXT_LIT(out, ",");
          gca_text_string(out, p, n >> 1);
          p += TAPE_WORDS(n >> 1) * TAPE_W;
        }
        GCA_TEXT_LIT(out, "]");
      }
      break;
    case GCA_TAPE_STRING:
    case GCA_TAPE_RAW:
      if (room < TAPE_WORDS(n)) return 0;
      if (GCA_TAPE_STRING == TAPE_KIND(tag))
        gca_text_string(out, p, n);
      else
        gca_text_put(out, p, n);
      p += TAPE_WORDS(n) * TAPE_W;
      break;
    default:
      return 0;
    }
  }
  return !out->fail;
}

#endif /* !GC_ACC_DISABLE */
