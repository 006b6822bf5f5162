/*
 * env.c: the GC_ACC_* settings, read once when the collector initializes.
 *
 * One table describes every variable (name, kind, what it sets); the same
 * settings are reachable through gc_accounting.h, since builds with
 * NO_GETENV (IL2CPP's) see no environment.  A bad value gets one warning
 * naming the variable and the value, and the default is kept.
 * docs/environment.md documents each entry; tests check the two agree.
 */

#include "gca_priv.h"

#include <stdio.h>
#include <string.h>

#ifndef GC_ACC_DISABLE

enum env_kind { ENV_BOOL, ENV_PATH, ENV_SIZE, ENV_STACKS, ENV_DEPTH,
                ENV_UNWIND };

/* apply gets the parsed value: 0/1 (ENV_BOOL), bytes (ENV_SIZE), or    */
/* the string itself cast to word (ENV_PATH); ENV_STACKS, ENV_DEPTH and */
/* ENV_UNWIND have parsers of their own below (apply unused).            */
struct env_option {
  const char *name;
  enum env_kind kind;
  void (*apply)(word value);
};

static void env_apply_enable(word v)
{
  gca_control_enable((int)v);
}

/* The dump starts after every other setting was applied (its buffer   */
/* size among them), whatever the order of the table.                  */
static const char *env_dump_path = NULL;

static void env_apply_dump(word v)
{
  env_dump_path = (const char *)v;
}

static void env_apply_tags(word v)
{
  gca_control_set_tags((int)v);
}

static void env_apply_dump_buffer(word v)
{
  gca_dump_set_buffer((size_t)v);
}

static void env_warn_bad(const char *name, const char *value,
                         const char *expected);

/* GC_ACC_FIRST_WORD_TYPES: kinds whose word 0 is the type cookie, as a */
/* comma-separated list of names (ptrfree, normal, uncollectable,      */
/* atomic_uncollectable) or kind numbers, or one mask 0x...            */
static int env_parse_kinds(const char *s, unsigned *out)
{
  static const char *const names[] = {
    "ptrfree", "normal", "uncollectable", "atomic_uncollectable"
  };
  unsigned mask = 0;

  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s += 2;
    if ('\0' == *s) return -1;
    for (; *s != '\0'; s++) {
      unsigned d;

      if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
      else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
      else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
      else return -1;
      if (mask >> 28) return -1;
      mask = mask << 4 | d;
    }
    *out = mask;
    return 0;
  }
  while (*s != '\0') {
    size_t n = 0, i;
    unsigned k = 0;
    int found = 0;

    while (s[n] != '\0' && s[n] != ',') n++;
    if (0 == n) return -1;
    if (s[0] >= '0' && s[0] <= '9') {
      for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || k > 3) return -1;
        k = k * 10 + (unsigned)(s[i] - '0');
      }
      found = k < 32 && k < MAXOBJKINDS;
    } else {
      for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == n && 0 == strncmp(names[i], s, n)) {
          k = (unsigned)i;
          found = 1;
        }
      }
    }
    if (!found) return -1;
    mask |= 1u << k;
    s += n;
    if (',' == *s) s++;
  }
  *out = mask;
  return 0;
}

static void env_apply_first_word_types(word v)
{
  unsigned mask;

  if (env_parse_kinds((const char *)v, &mask) != 0) {
    env_warn_bad("GC_ACC_FIRST_WORD_TYPES", (const char *)v,
                 "expected kinds (ptrfree, normal, uncollectable,"
                 " atomic_uncollectable or numbers, comma-separated)"
                 " or a mask 0x...");
    return;
  }
  gca_tags_set_first_word_kinds(mask);
}

static const struct env_option env_options[] = {
  { "GC_ACC_TAGS", ENV_BOOL, env_apply_tags },
  { "GC_ACC_ENABLE", ENV_BOOL, env_apply_enable },
  { "GC_ACC_DUMP", ENV_PATH, env_apply_dump },
  { "GC_ACC_DUMP_BUFFER", ENV_SIZE, env_apply_dump_buffer },
  { "GC_ACC_FIRST_WORD_TYPES", ENV_PATH, env_apply_first_word_types },
  { "GC_ACC_STACKS", ENV_STACKS, NULL },
  { "GC_ACC_STACK_DEPTH", ENV_DEPTH, NULL },
  { "GC_ACC_UNWIND", ENV_UNWIND, NULL },
};

/* Parse a byte count: decimal digits, then optionally k/K (KiB), m/M   */
/* (MiB) or g/G (GiB).  Malformed or overflowing values give -1.         */
static int env_parse_bytes(const char *s, word *out)
{
  word v = 0, mul = 1;

  if (*s < '0' || *s > '9') return -1;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (GC_WORD_MAX - 9) / 10) return -1;
    v = v * 10 + (word)(*s - '0');
  }
  switch (*s) {
  case '\0': break;
  case 'k': case 'K': mul = (word)1 << 10; s++; break;
  case 'm': case 'M': mul = (word)1 << 20; s++; break;
  case 'g': case 'G': mul = (word)1 << 30; s++; break;
  default: return -1;
  }
  if (*s != '\0' || v > GC_WORD_MAX / mul) return -1;
  *out = v * mul;
  return 0;
}

/* A dump buffer size: a byte count of at least GCA_DUMP_MIN_BUFFER.      */
static int env_parse_size(const char *s, word *out)
{
  word v;

  if (env_parse_bytes(s, &v) != 0 || v < GCA_DUMP_MIN_BUFFER) return -1;
  *out = v;
  return 0;
}

/* Parse a 0/1 boolean; -1 if it is neither.                            */
static int env_parse_bool(const char *s)
{
  if (s[0] == '0' && s[1] == '\0') return 0;
  if (s[0] == '1' && s[1] == '\0') return 1;
  return -1;
}

/* One warning through bdwgc's warn proc (an embedder's                */
/* GC_set_warn_proc silences ours too).                                 */
static void env_warn_bad(const char *name, const char *value,
                         const char *expected)
{
  static char msg[256];

  (void)snprintf(msg, sizeof(msg),
                 "gcacc: ignoring %.40s=%.80s: %s; default kept", name,
                 value, expected);
  WARN("%s\n", (word)msg);
}

/* GC_ACC_STACKS: off, all, or sample=BYTES (a byte count of at least 1). */
/* 0 and sets the stack mode, or -1.                                      */
static int env_parse_stacks(const char *s)
{
  word w;

  if (strcmp(s, "off") == 0) {
    gca_stacks_set(GCA_STACKS_OFF, 0);
    return 0;
  }
  if (strcmp(s, "all") == 0) {
    gca_stacks_set(GCA_STACKS_ALL, 0);
    return 0;
  }
  if (strncmp(s, "sample=", 7) != 0 || env_parse_bytes(s + 7, &w) != 0
      || 0 == w)
    return -1;
  gca_stacks_set(GCA_STACKS_SAMPLE, w);
  return 0;
}

/* GC_ACC_STACK_DEPTH: 1..GCA_STACKS_MAX_DEPTH.                          */
static int env_parse_depth(const char *s)
{
  unsigned v = 0;

  if (*s < '0' || *s > '9') return -1;
  for (; *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (unsigned)(*s - '0');
    if (v > GCA_STACKS_MAX_DEPTH) return -1;
  }
  if (*s != '\0' || 0 == v) return -1;
  gca_stacks_set_depth(v);
  return 0;
}

/* GC_ACC_UNWIND: fp or libgcc.                                          */
static int env_parse_unwind(const char *s)
{
  if (strcmp(s, "fp") == 0) {
    gca_unwinder = GCA_UNWIND_FP;
  } else if (strcmp(s, "libgcc") == 0) {
    gca_unwinder = GCA_UNWIND_LIBGCC;
  } else {
    return -1;
  }
  return 0;
}

GC_INNER void gca_env_read(void)
{
  size_t i;

  env_dump_path = NULL;
  for (i = 0; i < sizeof(env_options) / sizeof(env_options[0]); i++) {
    const struct env_option *o = &env_options[i];
    const char *s = GETENV(o->name);
    word w;
    int b;

    if (NULL == s) continue;
    switch (o->kind) {
    case ENV_BOOL:
      b = env_parse_bool(s);
      if (b < 0) {
        env_warn_bad(o->name, s, "expected 0 or 1");
        continue;
      }
      o->apply((word)b);
      break;
    case ENV_PATH:
      if ('\0' == s[0]) {
        env_warn_bad(o->name, s, "expected a file name");
        continue;
      }
      o->apply((word)s);
      break;
    case ENV_SIZE:
      if (env_parse_size(s, &w) != 0) {
        env_warn_bad(o->name, s,
                     "expected a size in bytes, at least 4096, with an"
                     " optional k, M or G suffix");
        continue;
      }
      o->apply(w);
      break;
    case ENV_STACKS:
      if (env_parse_stacks(s) != 0)
        env_warn_bad(o->name, s,
                     "expected off, all or sample=BYTES (BYTES at least 1,"
                     " with an optional k, M or G suffix)");
      break;
    case ENV_DEPTH:
      if (env_parse_depth(s) != 0)
        env_warn_bad(o->name, s, "expected a stack depth from 1 to 64");
      break;
    case ENV_UNWIND:
      if (env_parse_unwind(s) != 0)
        env_warn_bad(o->name, s, "expected fp or libgcc");
      break;
    }
  }
  /* GC_ACC_DUMP implies accounting on (gca_control_dump_start turns it on).     */
  if (env_dump_path != NULL) (void)gca_control_dump_start(env_dump_path);
}

#endif /* !GC_ACC_DISABLE */
