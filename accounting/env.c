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

enum env_kind { ENV_BOOL };

struct env_option {
  const char *name;
  enum env_kind kind;
  void (*apply)(word value);
};

static void env_apply_enable(word v)
{
  gca_set_on((int)v);
}

static const struct env_option env_options[] = {
  { "GC_ACC_ENABLE", ENV_BOOL, env_apply_enable },
};

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

  for (i = 0; i < sizeof(env_options) / sizeof(env_options[0]); i++) {
    const struct env_option *o = &env_options[i];
    const char *s = GETENV(o->name);
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
    }
  }
}

#endif /* !GC_ACC_DISABLE */
