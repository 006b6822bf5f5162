/* SPDX-License-Identifier: MIT */
/*
 * why_paths.c: retention records (docs/dump-format.md "Retention
 * records") read into plain JSON for `gcacc why` and the report's Why
 * view (why.h).
 *
 * A static root is named by module + offset through the header's module
 * map (the module whose base is the highest at or below the address,
 * within its image's extent when its file is at hand), and by the data
 * symbol that holds it, from `nm` on that module (run without a shell;
 * symbols off skips it).  Types are named by the record's own "names".
 * Nothing read from the dump is trusted: a record that is not what the
 * format says is counted bad and skipped.
 */

#include "gcacc.h"
#include "session.h"
#include "symbolize.h"
#include "why.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

struct why_module {
  char *path;
  unsigned long long base, extent;      /* extent 0: unknown            */
  int nm_done;
  struct why_sym { unsigned long long lo, hi; char *name; } *syms;
  size_t nsyms;
};

struct why_ctx {
  struct why_module *mods;
  size_t nmods;
  int symbols;
};

static unsigned long long hexval(const json_t *j)
{
  unsigned long long v = 0;

  if (json_is_string(j) && parse_addr(json_string_value(j), &v)) return v;
  if (json_is_integer(j) && json_integer_value(j) >= 0)
    return (unsigned long long)json_integer_value(j);
  return 0;
}

static void read_modules(struct why_ctx *c, const json_t *header)
{
  const json_t *mods = json_object_get(header, "modules"), *m;
  size_t i;

  if (!json_is_array(mods)) return;
  c->mods = xrealloc(NULL, (json_array_size(mods) + 1) * sizeof(*c->mods));
  json_array_foreach(mods, i, m) {
    const char *p = json_string_value(json_object_get(m, "path"));
    const char *bid = json_string_value(json_object_get(m, "build_id"));
    struct why_module *w = &c->mods[c->nmods];

    if (p == NULL || !json_is_string(json_object_get(m, "base"))) continue;
    memset(w, 0, sizeof(*w));
    w->path = strdup(p);
    w->base = hexval(json_object_get(m, "base"));
    w->extent = c->symbols ? symbolize_module_extent(p, bid) : 0;
    c->nmods++;
  }
}

/* The defined symbols of m with a size, from nm (no shell).            */
static void load_syms(struct why_module *m)
{
  int fd[2];
  pid_t pid;
  FILE *f;
  char line[4096];
  size_t cap = 0;

  m->nm_done = 1;
  if (access(m->path, R_OK) != 0 || pipe(fd) != 0) return;
  pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return;
  }
  if (pid == 0) {
    close(fd[0]);
    if (dup2(fd[1], 1) < 0) _exit(127);
    close(2);
    execlp("nm", "nm", "-S", "--defined-only", "--", m->path, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  f = fdopen(fd[0], "r");
  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    unsigned long long v, sz;
    char t, name[2048];

    if (sscanf(line, "%llx %llx %c %2047s", &v, &sz, &t, name) != 4) continue;
    if (sz == 0 || (t != 'd' && t != 'D' && t != 'b' && t != 'B'
                    && t != 'r' && t != 'R')) continue;
    if (m->nsyms == cap) {
      cap = cap ? 2 * cap : 256;
      m->syms = xrealloc(m->syms, cap * sizeof(*m->syms));
    }
    m->syms[m->nsyms].lo = v;
    m->syms[m->nsyms].hi = v + sz;
    m->syms[m->nsyms].name = strdup(name);
    m->nsyms++;
  }
  if (f != NULL) fclose(f);
  else close(fd[0]);
  (void)waitpid(pid, NULL, 0);
}

/* The module of addr (NULL if none), and its data symbol (NULL).       */
static const struct why_module *module_of(struct why_ctx *c,
                                          unsigned long long addr,
                                          const char **sym,
                                          unsigned long long *sym_off)
{
  struct why_module *best = NULL;
  size_t i;

  *sym = NULL;
  *sym_off = 0;
  for (i = 0; i < c->nmods; i++) {
    if (c->mods[i].base <= addr && (best == NULL || c->mods[i].base > best->base))
      best = &c->mods[i];
  }
  if (best == NULL) return NULL;
  if (best->extent != 0 && addr - best->base >= best->extent) return NULL;
  if (c->symbols) {
    unsigned long long off = addr - best->base;

    if (!best->nm_done) load_syms(best);
    for (i = 0; i < best->nsyms; i++) {
      if (best->syms[i].lo <= off && off < best->syms[i].hi) {
        *sym = best->syms[i].name;
        *sym_off = off - best->syms[i].lo;
        break;
      }
    }
  }
  return best;
}

static const char *base_name(const char *p)
{
  const char *s = strrchr(p, '/');

  return s ? s + 1 : p;
}

static const char *kind_name(long long k, char *buf)
{
  if (k < 0 || k > 0xfffffffeLL) {
    snprintf(buf, 16, "kind ?");
    return buf;
  }
  return kind_label((unsigned)k, buf);
}

/* The name of cookie in the record's "names", or NULL.                 */
static const char *type_name(const json_t *rec, unsigned long long cookie)
{
  const json_t *names = json_object_get(rec, "names"), *n;
  size_t i;

  if (cookie == 0 || !json_is_array(names)) return NULL;
  json_array_foreach(names, i, n) {
    if (json_array_size(n) == 2 && hexval(json_array_get(n, 0)) == cookie
        && json_is_string(json_array_get(n, 1)))
      return json_string_value(json_array_get(n, 1));
  }
  return NULL;
}

struct step {
  unsigned long long addr, bytes, cookie, site;
  long long kind, ref;
  int cons;
};

static int read_step(const json_t *s, struct step *o)
{
  if (!json_is_array(s) || json_array_size(s) < 7) return 0;
  o->addr = hexval(json_array_get(s, 0));
  o->kind = json_integer_value(json_array_get(s, 1));
  o->bytes = (unsigned long long)json_integer_value(json_array_get(s, 2));
  o->cookie = hexval(json_array_get(s, 3));
  o->site = (unsigned long long)json_integer_value(json_array_get(s, 4));
  o->ref = json_integer_value(json_array_get(s, 5));
  o->cons = json_integer_value(json_array_get(s, 6)) != 0;
  return 1;
}

/* The root described in words, into buf.                               */
static void root_text(struct why_ctx *c, const json_t *root, char *buf,
                      size_t sz, json_t *jout)
{
  const char *kind = json_string_value(json_object_get(root, "kind"));
  unsigned long long addr = hexval(json_object_get(root, "addr"));
  char esc[512];

  if (kind == NULL) kind = "?";
  text_escape(esc, sizeof(esc), kind, 0);
  if (strcmp(kind, "static") == 0) {
    const char *sym;
    unsigned long long soff;
    const struct why_module *m = module_of(c, addr, &sym, &soff);

    if (m != NULL) {
      char mp[256], sb[256];

      text_escape(mp, sizeof(mp), base_name(m->path), 0);
      if (sym != NULL) {
        text_escape(sb, sizeof(sb), sym, 0);
        snprintf(buf, sz, "static %s+0x%llx (%s+%llu)", mp, addr - m->base,
                 sb, soff);
      } else {
        snprintf(buf, sz, "static %s+0x%llx", mp, addr - m->base);
      }
      json_object_set_new(jout, "module", json_string(base_name(m->path)));
      json_object_set_new(jout, "offset", json_integer((json_int_t)(addr - m->base)));
      if (sym != NULL) {
        json_object_set_new(jout, "symbol", json_string(sym));
        json_object_set_new(jout, "symbol_offset", json_integer((json_int_t)soff));
      }
    } else {
      snprintf(buf, sz, "registered root range at 0x%llx", addr);
      json_object_set_new(jout, "registered", json_true());
    }
  } else if (strcmp(kind, "stack") == 0) {
    long long t = json_integer_value(json_object_get(root, "thread"));
    int main_t = json_integer_value(json_object_get(root, "main")) != 0;

    snprintf(buf, sz, "stack of thread %lld%s at 0x%llx", t,
             main_t ? " (main)" : "", addr);
  } else if (strcmp(kind, "finalizer") == 0) {
    snprintf(buf, sz, "the finalization queue (waiting to be finalized)");
  } else if (strcmp(kind, "uncollectable") == 0) {
    const char *cl = json_string_value(json_object_get(root, "class"));

    if (cl != NULL) {
      char cb[512];

      text_escape(cb, sizeof(cb), cl, 0);
      snprintf(buf, sz, "the static fields of %s (an uncollectable object)",
               cb);
      json_object_set_new(jout, "class", json_string(cl));
    } else {
      snprintf(buf, sz, "an uncollectable object");
    }
  } else {
    snprintf(buf, sz, "%s at 0x%llx", esc, addr);
  }
  json_object_set_new(jout, "kind", json_string(esc));
  if (addr != 0) {
    char a[32];

    snprintf(a, sizeof(a), "0x%llx", addr);
    json_object_set_new(jout, "addr", json_string(a));
  }
  json_object_set_new(jout, "conservative", json_boolean(
      json_integer_value(json_object_get(root, "conservative")) != 0));
  json_object_set_new(jout, "text", json_string(buf));
}


struct why_ctx *why_new(int symbols)
{
  struct why_ctx *c = calloc(1, sizeof(*c));

  if (c == NULL) abort();
  c->symbols = symbols;
  return c;
}

void why_free(struct why_ctx *c)
{
  size_t k, j;

  if (c == NULL) return;
  for (k = 0; k < c->nmods; k++) {
    for (j = 0; j < c->mods[k].nsyms; j++) free(c->mods[k].syms[j].name);
    free(c->mods[k].syms);
    free(c->mods[k].path);
  }
  free(c->mods);
  free(c);
}

void why_header(struct why_ctx *c, const json_t *header)
{
  if (c->nmods == 0) read_modules(c, header);
}

const char *why_request_text(const json_t *req, char *buf, size_t sz)
{
  const char *t = json_string_value(json_object_get(req, "type"));

  if (json_is_integer(json_object_get(req, "site")))
    snprintf(buf, sz, "callsite %lld", (long long)
             json_integer_value(json_object_get(req, "site")));
  else
    text_escape(buf, sz, t != NULL ? t : "(a cookie)", 0);
  return buf;
}

const char *why_partial_text(const json_t *jr)
{
  if (!json_is_true(json_object_get(jr, "partial"))) return "";
  return json_is_true(json_object_get(jr, "timed_out"))
         ? "the walk hit its time bound" : "the walk hit its memory cap";
}

/* One path of rec as JSON; NULL if malformed or filtered out.          */
static json_t *why_path(struct why_ctx *c, const json_t *rec, const json_t *p,
                        int have_site, unsigned long long want_site)
{
  const json_t *steps = json_object_get(p, "steps");
  json_t *jp, *jroot, *jsteps;
  char rtext[1024];
  size_t si, n = json_array_size(steps);
  struct step last;

  if (!json_is_array(steps) || n == 0
      || !read_step(json_array_get(steps, n - 1), &last))
    return NULL;
  if (have_site && last.site != want_site) return NULL;
  jroot = json_object();
  jsteps = json_array();
  root_text(c, json_object_get(p, "root"), rtext, sizeof(rtext), jroot);
  for (si = 0; si < n; si++) {
    struct step s;
    const char *ty;
    char kb[16], a[32];
    json_t *js;

    if (!read_step(json_array_get(steps, si), &s)) continue;
    ty = type_name(rec, s.cookie);
    js = json_object();
    snprintf(a, sizeof(a), "0x%llx", s.addr);
    json_object_set_new(js, "addr", json_string(a));
    json_object_set_new(js, "kind", json_string(kind_name(s.kind, kb)));
    json_object_set_new(js, "bytes", json_integer((json_int_t)s.bytes));
    if (ty != NULL) json_object_set_new(js, "type", json_string(ty));
    json_object_set_new(js, "site", json_integer((json_int_t)s.site));
    json_object_set_new(js, "ref_word", json_integer(s.ref));
    json_object_set_new(js, "conservative", json_boolean(s.cons));
    json_array_append_new(jsteps, js);
  }
  jp = json_object();
  json_object_set_new(jp, "depth", json_integer((json_int_t)n));
  /* Before "shortest" was written, every path was found breadth first. */
  json_object_set_new(jp, "shortest", json_boolean(
      !json_is_integer(json_object_get(p, "shortest"))
      || json_integer_value(json_object_get(p, "shortest")) != 0));
  json_object_set_new(jp, "root", jroot);
  json_object_set_new(jp, "steps", jsteps);
  return jp;
}

json_t *why_record(struct why_ctx *c, const json_t *rec,
                   const char *want_type, int have_site,
                   unsigned long long want_site, int *bad)
{
  const json_t *req = json_object_get(rec, "request");
  const json_t *paths = json_object_get(rec, "paths"), *p;
  const char *tname = json_string_value(json_object_get(req, "type"));
  json_t *jr, *jpaths;
  size_t pi;

  if (!json_is_object(req) || !json_is_array(paths)) {
    (*bad)++;
    return NULL;
  }
  if (want_type != NULL && (tname == NULL || strcmp(tname, want_type) != 0))
    return NULL;
  jr = json_object();
  json_object_set_new(jr, "gc_no", json_integer(
      json_integer_value(json_object_get(rec, "gc_no"))));
  json_object_set(jr, "request", (json_t *)req);
  json_object_set(jr, "found", json_object_get(rec, "found"));
  json_object_set(jr, "wanted", json_object_get(rec, "wanted"));
  json_object_set_new(jr, "partial", json_boolean(
      json_integer_value(json_object_get(rec, "partial")) != 0));
  json_object_set_new(jr, "timed_out", json_boolean(
      json_integer_value(json_object_get(rec, "timed_out")) != 0));
  json_object_set(jr, "visited", json_object_get(rec, "visited"));
  json_object_set(jr, "pause_ns", json_object_get(rec, "pause_ns"));
  json_object_set(jr, "memory_bytes", json_object_get(rec, "memory_bytes"));
  jpaths = json_array();
  json_array_foreach(paths, pi, p) {
    json_t *jp = why_path(c, rec, p, have_site, want_site);

    if (jp == NULL) continue;
    json_object_set_new(jp, "path", json_integer((json_int_t)pi + 1));
    json_array_append_new(jpaths, jp);
  }
  json_object_set_new(jr, "paths", jpaths);
  return jr;
}
