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

#ifndef GC_ACC_DISABLE

enum env_kind { ENV_BOOL, ENV_PATH, ENV_SIZE };

/* apply gets the parsed value: 0/1 (ENV_BOOL), bytes (ENV_SIZE), or    */
/* the string itself cast to word (ENV_PATH).                           */
struct env_option {
  const char *name;
  enum env_kind kind;
  void (*apply)(word value);
};

static void env_apply_enable(word v)
{
  gca_set_on((int)v);
}

/* The dump starts after every other setting was applied (its buffer   */
/* size among them), whatever the order of the table.                  */
static const char *env_dump_path = NULL;

static void env_apply_dump(word v)
{
  env_dump_path = (const char *)v;
}

static void env_apply_dump_buffer(word v)
{
  gca_dump_set_buffer((size_t)v);
}

static const struct env_option env_options[] = {
  { "GC_ACC_ENABLE", ENV_BOOL, env_apply_enable },
  { "GC_ACC_DUMP", ENV_PATH, env_apply_dump },
  { "GC_ACC_DUMP_BUFFER", ENV_SIZE, env_apply_dump_buffer },
};

/* Parse a size: decimal digits, then optionally k/K (KiB), m/M (MiB)   */
/* or g/G (GiB).  0 and too-small or overflowing values are rejected.   */
static int env_parse_size(const char *s, word *out)
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
  v *= mul;
  if (v < GCA_DUMP_MIN_BUFFER) return -1;
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
    }
  }
  /* GC_ACC_DUMP implies accounting on (gca_dump_open turns it on).     */
  if (env_dump_path != NULL) (void)gca_dump_open(env_dump_path);
}

#endif /* !GC_ACC_DISABLE */
