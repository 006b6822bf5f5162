/* SPDX-License-Identifier: MIT */
/*
 * env.c: the GC_ACC_* settings, read once when the collector initializes.
 *
 * gca_settings.h lists every setting: its name, how its value is parsed,
 * the internal setter the value goes to, its keys in the dump header and
 * the gc_accounting.h functions that set it.  env.c walks that list, so
 * a setting added there is read here, with no second list of names.
 * Builds with NO_GETENV (IL2CPP's) read no environment (GETENV gives
 * NULL) and reach the same settings through those functions.  A bad
 * value gets one warning naming the variable and the value, and the
 * setting is left as it was (its default, unless the API set it before
 * the collector initialized).  tests/settings_agree.sh checks that the
 * list, docs/environment.md (its "## NAME" sections and the functions
 * each names after "API:"), the README's table of variables and the
 * declarations of gc_accounting.h agree; tests/unit/env_warnings.sh
 * checks every parser's warning, word for word, and the defaults kept.
 */

#include "gca_priv.h"
#include "gca_settings.h"

#include <stdio.h>
#include <string.h>

#ifndef GC_ACC_DISABLE

/* Every function the list names is declared by gc_accounting.h: a     */
/* name that is not fails the build here.  (A type, no code or data.)  */
#define ENV_API_DECLARED(name, fn) char name##_##fn[sizeof(&fn) > 0];
struct env_api_declared {
  GCA_SETTINGS(GCA_S_SKIP, GCA_K_SKIP, ENV_API_DECLARED)
};
#undef ENV_API_DECLARED

/* A parsed value: each type of the list fills what its setter takes.  */
struct env_value {
  int i;                /* BOOL, STACKS and PROFILE (the mode), UNWIND, */
                        /* TYPEMODE                                     */
  word w;               /* SIZE, KINDS, STACKS (sample bytes), DEPTH    */
  const char *s;        /* PATH                                         */
};

/* What a parser expected, when its range is a number of this build:   */
/* filled by env_expected (env_read runs once, at GC_init).              */
static char env_msg[256];

#define ENV_MAX_BYTES GCA_SETTING_MAX_BYTES

/* Parse a byte count: decimal digits, then optionally k/K (KiB), m/M   */
/* (MiB) or g/G (GiB).  Malformed or overflowing values give -1, and so */
/* does a count above ENV_MAX_BYTES, which the header could not carry   */
/* (the reader refuses an integer above 2^63 - 1).                        */
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
  if (!gca_setting_bytes_ok(v * mul)) return -1;
  *out = v * mul;
  return 0;
}

/* Kinds whose word 0 is the type cookie: a comma-separated list of     */
/* names (ptrfree, normal, uncollectable, atomic_uncollectable) or kind */
/* numbers, or one mask 0x...                                           */
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
    /* Kinds the collector can have, as GC_acc_set_first_word_type_kinds */
    /* checks.                                                            */
    if (MAXOBJKINDS < 32 && mask >= (1u << (MAXOBJKINDS & 31))) return -1;
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
    if (',' == *s && '\0' == *++s) return -1;    /* a trailing comma */
  }
  *out = mask;
  return 0;
}

/* ---- one parser per type of the list ---------------------------------- */
/* env_parse_TYPE(s, v): NULL with *v filled, or what was expected (the  */
/* warning's last words).                                                */

/* 0 or 1.                                                               */
static const char *env_parse_BOOL(const char *s, struct env_value *v)
{
  if ((s[0] != '0' && s[0] != '1') || s[1] != '\0') return "expected 0 or 1";
  v->i = s[0] - '0';
  return NULL;
}

/* A file name: any non-empty string.                                   */
static const char *env_parse_PATH(const char *s, struct env_value *v)
{
  if ('\0' == s[0]) return "expected a file name";
  v->s = s;
  return NULL;
}

/* A dump buffer size: a byte count from GCA_DUMP_MIN_BUFFER to         */
/* GCA_DUMP_MAX_BUFFER, as GC_acc_set_dump_buffer_size takes.            */
static const char *env_parse_SIZE(const char *s, struct env_value *v)
{
  if (env_parse_bytes(s, &v->w) != 0 || v->w < GCA_DUMP_MIN_BUFFER
      || v->w > GCA_DUMP_MAX_BUFFER)
    return "expected a size in bytes from 4096 to 1G, with an optional k,"
           " M or G suffix";
  return NULL;
}

/* Kinds (env_parse_kinds).  An empty value gets the message it got     */
/* when this setting was read as a PATH and then parsed.                */
static const char *env_parse_KINDS(const char *s, struct env_value *v)
{
  unsigned mask;

  if ('\0' == s[0]) return "expected a file name";
  if (env_parse_kinds(s, &mask) != 0) {
    unsigned n = MAXOBJKINDS < 32 ? MAXOBJKINDS : 32;

    (void)snprintf(env_msg, sizeof(env_msg),
                   "expected kinds (ptrfree, normal, uncollectable,"
                   " atomic_uncollectable or numbers 0 to %u,"
                   " comma-separated) or a mask 0x0 to 0x%x", n - 1,
                   (unsigned)(n < 32 ? (1u << n) - 1 : ~0u));
    return env_msg;
  }
  v->w = mask;
  return NULL;
}

/* off, all, or sample=BYTES (a byte count of at least 1).               */
static const char *env_parse_STACKS(const char *s, struct env_value *v)
{
  v->w = 0;
  if (strcmp(s, "off") == 0) {
    v->i = GCA_STACKS_OFF;
  } else if (strcmp(s, "all") == 0) {
    v->i = GCA_STACKS_ALL;
  } else if (strncmp(s, "sample=", 7) == 0
             && env_parse_bytes(s + 7, &v->w) == 0 && v->w != 0) {
    v->i = GCA_STACKS_SAMPLE;
  } else {
    (void)snprintf(env_msg, sizeof(env_msg),
                   "expected off, all or sample=BYTES (BYTES from 1 to %llu,"
                   " with an optional k, M or G suffix)", ENV_MAX_BYTES);
    return env_msg;
  }
  return NULL;
}

/* off, sampled, sampled=BYTES (at least 1), full or trace.              */
static const char *env_parse_PROFILE(const char *s, struct env_value *v)
{
  v->w = 0;
  if (strcmp(s, "off") == 0) {
    v->i = GCA_PROFILE_OFF;
  } else if (strcmp(s, "sampled") == 0) {
    v->i = GCA_PROFILE_SAMPLED;
  } else if (strncmp(s, "sampled=", 8) == 0
             && env_parse_bytes(s + 8, &v->w) == 0 && v->w != 0) {
    v->i = GCA_PROFILE_SAMPLED;
  } else if (strcmp(s, "full") == 0) {
    v->i = GCA_PROFILE_FULL;
  } else if (strcmp(s, "trace") == 0) {
    v->i = GCA_PROFILE_TRACE;
  } else {
    (void)snprintf(env_msg, sizeof(env_msg),
                   "expected off, sampled, sampled=BYTES (BYTES from 1 to"
                   " %llu, with an optional k, M or G suffix), full or trace",
                   ENV_MAX_BYTES);
    return env_msg;
  }
  return NULL;
}

/* A side-table cap: a byte count of at least 64 KiB.                    */
static const char *env_parse_LIMIT(const char *s, struct env_value *v)
{
  if (env_parse_bytes(s, &v->w) != 0 || v->w < ((word)64 << 10)) {
    (void)snprintf(env_msg, sizeof(env_msg),
                   "expected a size in bytes from 64k to %llu, with an"
                   " optional k, M or G suffix", ENV_MAX_BYTES);
    return env_msg;
  }
  return NULL;
}

/* Digits only, a number from lo to hi into *out: 0, else -1.          */
static int env_digits(const char *s, word lo, word hi, word *out)
{
  word n = 0;

  if (*s < '0' || *s > '9') return -1;
  for (; *s >= '0' && *s <= '9'; s++) {
    n = n * 10 + (word)(*s - '0');
    if (n > hi) return -1;
  }
  if (*s != '\0' || n < lo) return -1;
  *out = n;
  return 0;
}

/* 1..GCA_STACKS_MAX_DEPTH.                                               */
static const char *env_parse_DEPTH(const char *s, struct env_value *v)
{
  return env_digits(s, 1, GCA_STACKS_MAX_DEPTH, &v->w) == 0 ? NULL
         : "expected a stack depth from 1 to 64";
}

/* Milliseconds, 0 to GCA_DUMP_MAX_EXIT_WAIT_MS.                         */
static const char *env_parse_MSEC(const char *s, struct env_value *v)
{
  return env_digits(s, 0, GCA_DUMP_MAX_EXIT_WAIT_MS, &v->w) == 0 ? NULL
         : "expected milliseconds from 0 to 60000";
}

/* A count of records, 1 to GCA_KEYFRAME_MAX.                            */
static const char *env_parse_KEYFRAME(const char *s, struct env_value *v)
{
  return env_digits(s, 1, GCA_KEYFRAME_MAX, &v->w) == 0 ? NULL
         : "expected a count of records from 1 to 1000000";
}

/* auto, fp or libgcc.                                                    */
static const char *env_parse_UNWIND(const char *s, struct env_value *v)
{
  if (strcmp(s, "auto") == 0) {
    v->i = GCA_UNWIND_AUTO;
  } else if (strcmp(s, "fp") == 0) {
    v->i = GCA_UNWIND_FP;
  } else if (strcmp(s, "libgcc") == 0) {
    v->i = GCA_UNWIND_LIBGCC;
  } else {
    return "expected auto, fp or libgcc";
  }
  return NULL;
}

/* cookies or il2cpp.                                                      */
static const char *env_parse_TYPEMODE(const char *s, struct env_value *v)
{
  if (strcmp(s, "cookies") == 0) {
    v->i = GCA_TYPES_COOKIES;
  } else if (strcmp(s, "il2cpp") == 0) {
    v->i = GCA_TYPES_IL2CPP;
  } else {
    return "expected cookies or il2cpp";
  }
  return NULL;
}

/* auto, type:NAME or cookie:0xHEX (retain.c checks it again).           */
static const char *env_parse_RETAIN(const char *s, struct env_value *v)
{
  size_t n = strncmp(s, "cookie:0x", 9) == 0 ? strlen(s + 9) : 0;

  if ((strncmp(s, "type:", 5) != 0 || '\0' == s[5] || strlen(s) > 260)
      && (0 == n || n > 2 * sizeof(word)
          || strspn(s + 9, "0123456789abcdefABCDEF") != n)
      && (strncmp(s, "site:", 5) != 0 || '\0' == s[5] || strlen(s) > 14
          || strspn(s + 5, "0123456789") != strlen(s + 5))
      && strcmp(s, "auto") != 0)
    return "expected auto, type:NAME (at most 255 bytes), site:ID or"
           " cookie:0xHEX";
  v->s = s;
  return NULL;
}

/* ---- one setter per setting of the list -------------------------------- */
/* ENV_SET_TYPE(set, v) hands the parsed value to the list's setter.  A   */
/* PATH (the dump) is only noted: it is opened after every other setting */
/* was applied (the dump's buffer size among them), whatever the order   */
/* of the list.  One PATH setting is all there is room for.               */
static int (*env_later)(const char *) = 0;
static const char *env_later_path = NULL;

#define ENV_SET_BOOL(set, v) set((v)->i)
#define ENV_SET_PATH(set, v) (env_later = (set), env_later_path = (v)->s)
#define ENV_SET_SIZE(set, v) set((size_t)(v)->w)
#define ENV_SET_KINDS(set, v) set((unsigned)(v)->w)
#define ENV_SET_STACKS(set, v) set((v)->i, (v)->w)
#define ENV_SET_DEPTH(set, v) set((unsigned)(v)->w)
#define ENV_SET_UNWIND(set, v) (void)set((v)->i)
#define ENV_SET_MSEC(set, v) set((unsigned)(v)->w)
#define ENV_SET_KEYFRAME(set, v) set((unsigned)(v)->w)
#define ENV_SET_TYPEMODE(set, v) set((v)->i)
#define ENV_SET_PROFILE(set, v) set((v)->i, (v)->w)
#define ENV_SET_LIMIT(set, v) set((size_t)(v)->w)
#define ENV_SET_RETAIN(set, v) (void)set((v)->s)

#define ENV_SETTER(name, type, set) \
  static void env_set_##name(const struct env_value *v) \
  { \
    ENV_SET_##type(set, v); \
  }
GCA_SETTINGS(ENV_SETTER, GCA_K_SKIP, GCA_A_SKIP)
#undef ENV_SETTER

struct env_setting {
  const char *name;
  const char *(*parse)(const char *s, struct env_value *v);
  void (*set)(const struct env_value *v);
};

#define ENV_ROW(name, type, set) { #name, env_parse_##type, env_set_##name },
static const struct env_setting env_settings[] = {
  GCA_SETTINGS(ENV_ROW, GCA_K_SKIP, GCA_A_SKIP)
};
#undef ENV_ROW

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

GC_INNER void gca_env_warn_api(const char *fn, unsigned long long value,
                               const char *expected, unsigned long long max)
{
  char msg[320], m[24];   /* 40 + 20 + 150 + 23 and the words fit */

  m[0] = '\0';
  if (max != 0) (void)snprintf(m, sizeof(m), " %llu", max);
  (void)snprintf(msg, sizeof(msg), "gcacc: %.40s(%llu) refused: expected"
                 " %.150s%s; setting kept", fn, value, expected, m);
  WARN("%s\n", (word)msg);
}

GC_INNER void gca_env_read(void)
{
  size_t i;

  env_later = 0;
  env_later_path = NULL;
  for (i = 0; i < sizeof(env_settings) / sizeof(env_settings[0]); i++) {
    const struct env_setting *o = &env_settings[i];
    const char *s = GETENV(o->name);
    const char *expected;
    struct env_value v;

    if (NULL == s) continue;
    expected = o->parse(s, &v);
    if (expected != NULL) {
      env_warn_bad(o->name, s, expected);
      continue;
    }
    o->set(&v);
  }
  /* GC_ACC_DUMP implies accounting on (gca_dump_open turns it on once  */
  /* the file is open).                                                  */
  if (env_later != 0) (void)env_later(env_later_path);
}

#endif /* !GC_ACC_DISABLE */
