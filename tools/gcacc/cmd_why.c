/* SPDX-License-Identifier: MIT */
/*
 * cmd_why.c: `gcacc why`, the dump's retention records (issue 37,
 * docs/dump-format.md "Retention records"): for each request, the paths
 * from a root to the instances the collector reached, step by step.
 *
 * A static root is named by module + offset through the header's module
 * map (the module whose base is the highest at or below the address,
 * within its image's extent when its file is at hand), and by the data
 * symbol that holds it, from `nm` on that module (run without a shell;
 * --no-symbols skips it).  Types are named by the record's own "names".
 * Nothing read from the dump is trusted: a record that is not what the
 * format says is skipped with one warning.
 */

#include "gcacc.h"
#include "dump_read.h"
#include "symbolize.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

static const char why_usage[] =
  "usage: gcacc why [<options>] <dump>\n"
  "\n"
  "Who holds what grows: the paths from a root to sampled instances of\n"
  "a type, as the program asked for them (GC_ACC_RETAIN=type:NAME or\n"
  "GC_acc_retain_request): per request the collection, the instances\n"
  "found (at most 5, the nearest), whether the walk was partial (its\n"
  "memory cap or time bound), and each path from its root: static data (module+offset\n"
  "and the data symbol holding it), a thread's stack, the finalization\n"
  "queue or an uncollectable object; then each object with its type\n"
  "(or kind), size, and the word of the previous one that refers to it,\n"
  "\"conservative\" when that word was only taken to be a pointer.\n"
  "\n"
  "  --type <name>       only the requests for this type\n"
  "  --site <id>         only the paths to instances from this callsite\n"
  "  --full              every step of long paths (else the first and\n"
  "                      last 6 of paths over 16 steps)\n"
  "  --no-symbols        module+offset only (no nm)\n"
  "  --json, --csv       machine-readable output (every step)\n"
  "  -o <file>           write to <file>\n"
  "  --no-progress       no progress display on a terminal\n";

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

/* The kinds' names from the last collection record's kind_names.       */
static json_t *kind_names;

static const char *kind_name(long long k)
{
  static const char *const n[] = { "ptrfree", "normal", "uncollectable",
                                   "atomic-uncollectable" };
  static char buf[64];
  char key[24];
  const char *s;

  snprintf(key, sizeof(key), "%lld", k);
  s = json_string_value(json_object_get(kind_names, key));
  if (s != NULL) {
    text_escape(buf, sizeof(buf), s, 0);
    return buf;
  }
  if (k >= 0 && k < 4) return n[k];
  snprintf(buf, sizeof(buf), "kind %lld", k);
  return buf;
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
    snprintf(buf, sz, "an uncollectable object");
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

static void csv_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s != NULL && *s; s++) {
    if (*s == '"') fputc('"', f);
    if ((unsigned char)*s < 0x20) fputc(' ', f);
    else fputc(*s, f);
  }
  fputc('"', f);
}

int cmd_why(int argc, char **argv)
{
  struct common_opts o = { EMIT_TABLE, NULL, -1 };
  const char *path = NULL, *want_type = NULL, *err = NULL;
  unsigned long long want_site = 0;
  int have_site = 0, full = 0, i, bad = 0, shown = 0;
  struct dump_reader *r;
  struct why_ctx c;
  json_t *rec, *all = json_array();
  enum dump_status st;
  FILE *out;
  size_t k;

  memset(&c, 0, sizeof(c));
  c.symbols = 1;
  for (i = 1; i < argc; i++) {
    int rc;

    if (strcmp(argv[i], "--type") == 0) {
      if (++i >= argc) return usage_error("--type needs a type name");
      want_type = argv[i];
      continue;
    }
    if (strcmp(argv[i], "--site") == 0) {
      if (++i >= argc || !parse_addr(argv[i], &want_site))
        return usage_error("--site needs a callsite id (a number)");
      have_site = 1;
      continue;
    }
    if (strcmp(argv[i], "--full") == 0) {
      full = 1;
      continue;
    }
    if (strcmp(argv[i], "--no-symbols") == 0) {
      c.symbols = 0;
      continue;
    }
    rc = view_arg(&o, why_usage, argc, argv, &i);
    if (rc == ARG_TAKEN) continue;
    if (rc != ARG_OPERAND) return rc;
    if (path != NULL) return usage_error("one dump at a time");
    path = argv[i];
  }
  if (path == NULL) return usage_error("no dump given");
  r = dump_open(path, &err);
  if (r == NULL) {
    error("%s: %s", path, err);
    return EXIT_USAGE;
  }
  out = common_output(&o);
  if (out == NULL) {
    dump_close(r);
    return EXIT_USAGE;
  }
  if (o.format == EMIT_CSV)
    fputs("gc_no,request,path,depth,root,step,addr,kind,bytes,type,site,"
          "ref_word,conservative\n", out);
  while ((st = dump_next(r, &rec)) == DUMP_RECORD) {
    const char *rt = json_string_value(json_object_get(rec, "record"));
    const json_t *req, *paths, *p;
    const char *tname;
    json_t *jr;
    size_t pi;
    long long gc_no;

    if (strcmp(rt, "header") == 0) {
      read_modules(&c, rec);
      json_decref(rec);
      continue;
    }
    if (strcmp(rt, "collection") == 0
        && json_is_object(json_object_get(rec, "kind_names"))) {
      json_decref(kind_names);
      kind_names = json_incref(json_object_get(rec, "kind_names"));
    }
    if (strcmp(rt, "retain") != 0) {
      json_decref(rec);
      continue;
    }
    req = json_object_get(rec, "request");
    paths = json_object_get(rec, "paths");
    tname = json_string_value(json_object_get(req, "type"));
    gc_no = json_integer_value(json_object_get(rec, "gc_no"));
    if (!json_is_object(req) || !json_is_array(paths)) {
      if (!bad++) warning("%s: a retain record without request or paths"
                          " (skipped)", path);
      json_decref(rec);
      continue;
    }
    if (want_type != NULL && (tname == NULL || strcmp(tname, want_type) != 0)) {
      json_decref(rec);
      continue;
    }
    shown++;
    jr = json_object();
    json_object_set_new(jr, "gc_no", json_integer(gc_no));
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
    json_object_set_new(jr, "paths", json_array());
    if (o.format == EMIT_TABLE) {
      char tb[512];

      if (json_is_integer(json_object_get(req, "site")))
        snprintf(tb, sizeof(tb), "callsite %lld", (long long)
                 json_integer_value(json_object_get(req, "site")));
      else
        text_escape(tb, sizeof(tb), tname != NULL ? tname : "(a cookie)", 0);
      fprintf(out, "gc %lld: %s: %lld of %lld instances reached%s;"
              " %lld objects visited, pause %.2f ms, %.1f MiB\n",
              gc_no, tb, json_integer_value(json_object_get(rec, "found")),
              json_integer_value(json_object_get(rec, "wanted")),
              !json_integer_value(json_object_get(rec, "partial")) ? ""
              : json_integer_value(json_object_get(rec, "timed_out"))
                ? " (partial: the walk hit its time bound)"
                : " (partial: the walk hit its memory cap)",
              json_integer_value(json_object_get(rec, "visited")),
              (double)json_integer_value(json_object_get(rec, "pause_ns")) / 1e6,
              (double)json_integer_value(json_object_get(rec, "memory_bytes"))
                / 1048576.0);
      if (json_integer_value(json_object_get(rec, "found")) == 0)
        fputs("  no marked instance reached from a root (none live, or held"
              " only weakly)\n", out);
    }
    json_array_foreach(paths, pi, p) {
      const json_t *steps = json_object_get(p, "steps");
      json_t *jp, *jroot = json_object(), *jsteps = json_array();
      char rtext[1024];
      size_t si, n = json_array_size(steps);
      struct step last;

      if (!json_is_array(steps) || n == 0
          || !read_step(json_array_get(steps, n - 1), &last)) {
        json_decref(jroot);
        json_decref(jsteps);
        continue;
      }
      if (have_site && last.site != want_site) {
        json_decref(jroot);
        json_decref(jsteps);
        continue;
      }
      root_text(&c, json_object_get(p, "root"), rtext, sizeof(rtext), jroot);
      if (o.format == EMIT_TABLE)
        fprintf(out, "  path %zu, %zu steps, from %s%s\n", pi + 1, n, rtext,
                json_integer_value(json_object_get(json_object_get(p, "root"),
                                   "conservative")) ? " (conservative)" : "");
      for (si = 0; si < n; si++) {
        struct step s;
        const char *ty;
        char tyb[512], kb[64];
        json_t *js;

        if (!read_step(json_array_get(steps, si), &s)) continue;
        ty = type_name(rec, s.cookie);
        if (ty != NULL) text_escape(tyb, sizeof(tyb), ty, 0);
        else snprintf(tyb, sizeof(tyb), "%s", kind_name(s.kind));
        snprintf(kb, sizeof(kb), "%s", kind_name(s.kind));
        if (o.format == EMIT_TABLE) {
          if (!full && n > 16 && si == 6) {
            fprintf(out, "      ... %zu steps ...\n", n - 12);
            si = n - 7;
            continue;
          }
          if (si == 0) fprintf(out, "    ");
          else fprintf(out, "    [word %lld]%s -> ", s.ref,
                       s.cons ? " conservative" : "");
          fprintf(out, "%s (%s, %llu B) at 0x%llx\n", tyb, kb, s.bytes,
                  s.addr);
        } else if (o.format == EMIT_CSV) {
          fprintf(out, "%lld,", gc_no);
          csv_str(out, tname);
          fprintf(out, ",%zu,%zu,", pi + 1, n);
          csv_str(out, rtext);
          fprintf(out, ",%zu,0x%llx,%s,%llu,", si + 1, s.addr, kb, s.bytes);
          csv_str(out, ty != NULL ? ty : "");
          fprintf(out, ",%llu,%lld,%d\n", s.site, s.ref, s.cons);
        } else {
          char a[32];

          js = json_object();
          snprintf(a, sizeof(a), "0x%llx", s.addr);
          json_object_set_new(js, "addr", json_string(a));
          json_object_set_new(js, "kind", json_string(kb));
          json_object_set_new(js, "bytes", json_integer((json_int_t)s.bytes));
          if (ty != NULL) json_object_set_new(js, "type", json_string(ty));
          json_object_set_new(js, "site", json_integer((json_int_t)s.site));
          json_object_set_new(js, "ref_word", json_integer(s.ref));
          json_object_set_new(js, "conservative", json_boolean(s.cons));
          json_array_append_new(jsteps, js);
        }
      }
      jp = json_object();
      json_object_set_new(jp, "depth", json_integer((json_int_t)n));
      json_object_set_new(jp, "root", jroot);
      json_object_set_new(jp, "steps", jsteps);
      json_array_append_new(json_object_get(jr, "paths"), jp);
    }
    json_array_append_new(all, jr);
    json_decref(rec);
  }
  if (st == DUMP_ERROR) {
    error("%s: %s", path, dump_error(r));
    dump_close(r);
    json_decref(all);
    common_close(&o, out);
    return EXIT_USAGE;
  }
  if (st == DUMP_TRUNCATED) warning("%s: the dump ends mid-record", path);
  if (o.format == EMIT_JSON) {
    json_t *top = json_object();

    json_object_set_new(top, "requests", all);
    all = NULL;
    json_dumpf(top, out, JSON_INDENT(1));
    fputc('\n', out);
    json_decref(top);
  } else if (o.format == EMIT_TABLE && shown == 0) {
    fprintf(out, "no retention records%s (ask with GC_ACC_RETAIN=type:NAME"
            " or GC_acc_retain_request)\n",
            want_type != NULL ? " for this type" : "");
  }
  json_decref(all);
  json_decref(kind_names);
  kind_names = NULL;
  dump_close(r);
  common_close(&o, out);
  for (k = 0; k < c.nmods; k++) {
    size_t j;

    for (j = 0; j < c.mods[k].nsyms; j++) free(c.mods[k].syms[j].name);
    free(c.mods[k].syms);
    free(c.mods[k].path);
  }
  free(c.mods);
  return EXIT_OK;
}
