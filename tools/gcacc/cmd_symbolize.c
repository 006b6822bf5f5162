/*
 * cmd_symbolize.c: resolve callsite addresses offline.
 *
 * An absolute address maps to (module, offset) through the module map in
 * the dump's header ("modules": path, base, build_id): the module with
 * the largest base at or below it (checked against the module file's
 * PT_LOAD extent when the file is found).  offset = address - base is the
 * ELF virtual address addr2line expects, for PIE executables, shared
 * objects and (base 0) non-PIE executables alike.
 *
 * Addresses are deduplicated, then each module's addresses go through ONE
 * long-lived `addr2line -f -C -i -a -e FILE` (fed through a pipe, answers
 * read as they come); modules run in parallel, one child process each.
 * Answers are cached next to the dump in DUMP.symbols, keyed by build id
 * (or module path when there is none) and offset, so a second run spawns
 * nothing for what it already knows.
 *
 * Files are looked for, in order: in each --search-path DIR (DIR/<build
 * id path>, DIR/<module basename>, DIR/<module path>), in
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then at the module's own path.
 * A candidate whose GNU build id differs from the header's is skipped.
 */

#include "gcacc.h"
#include "dump_read.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char symbolize_usage[] =
  "usage: gcacc symbolize [<options>] <dump> [<address>...]\n"
  "\n"
  "Resolves absolute code addresses (hex 0x..., or decimal) to module,\n"
  "offset, function and file:line, using the dump header's module map and\n"
  "the modules' binaries or separate debug files.  Prints one line per\n"
  "distinct address, in first-seen order:\n"
  "  <address> <module>+<offset> <function> <file>:<line>\n"
  "and, for code inlined there, `  (inlined by) <function> <file>:<line>`.\n"
  "With no addresses given, uses the dump's \"site\" records, if any\n"
  "(their \"frames\" array; provisional until the format documents it).\n"
  "\n"
  "  --addresses-from <file>  read addresses from <file> (`-`: stdin),\n"
  "                           whitespace-separated; `#` starts a comment\n"
  "  --search-path <dir>      look for binaries and debug files in <dir>\n"
  "                           (repeatable; also <dir>/.build-id/xx/y.debug)\n"
  "  --debug-dir <dir>        the global debug directory\n"
  "                           (default /usr/lib/debug)\n"
  "  --no-cache               neither read nor write <dump>.symbols\n"
  "  -o <file>                write to <file>\n"
  "\n"
  "Needs binutils' addr2line (GCACC_ADDR2LINE overrides the command).\n";

typedef unsigned long long u64;

struct module {
  char *path, *build_id, *file;   /* file: what addr2line reads, or NULL */
  u64 base, extent;               /* extent: 0 if unknown               */
  size_t naddr, cap;
  size_t *addr_ix;                /* indexes into the address table      */
  FILE *results;                  /* child's answers (tmpfile)           */
  pid_t pid;
  int status, reaped;
};

struct address {
  u64 addr;
  int module;                     /* -1: in no known module              */
  char *answer;                   /* "func\tfile:line[\tfunc\tfile:line]" */
};

static struct address *addrs;
static size_t naddrs, addrs_cap;
static struct module *mods;
static size_t nmods;

static void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n);
  if (p == NULL) {
    error("out of memory");
    exit(EXIT_USAGE);
  }
  return p;
}

static char *xstrdup(const char *s)
{
  char *t = xrealloc(NULL, strlen(s) + 1);

  return strcpy(t, s);
}

static int parse_addr(const char *s, u64 *out)
{
  char *end;

  errno = 0;
  *out = strtoull(s, &end, 0);
  return errno == 0 && end != s && *end == '\0';
}

static void add_addr(u64 a)
{
  if (naddrs == addrs_cap) {
    addrs_cap = addrs_cap ? addrs_cap * 2 : 1024;
    addrs = xrealloc(addrs, addrs_cap * sizeof(*addrs));
  }
  addrs[naddrs].addr = a;
  addrs[naddrs].module = -1;
  addrs[naddrs].answer = NULL;
  naddrs++;
}

static int read_addresses(const char *path)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  char tok[128];
  int c, n = 0, bad = 0;
  unsigned long line = 1;

  if (f == NULL) return error("cannot open %s: %s", path, strerror(errno));
  for (;;) {
    c = getc(f);
    if (c == '#') {
      while (c != EOF && c != '\n') c = getc(f);
    }
    if (c == EOF || c == ' ' || c == '\t' || c == '\n' || c == '\r'
        || c == ',') {
      if (n > 0) {
        u64 a;

        tok[n] = '\0';
        if (parse_addr(tok, &a)) add_addr(a);
        else if (bad++ < 5)
          warning("%s:%lu: not an address: '%s'", path, line, tok);
        n = 0;
      }
      if (c == '\n') line++;
      if (c == EOF) break;
      continue;
    }
    if (n < (int)sizeof(tok) - 1) tok[n++] = (char)c;
  }
  if (f != stdin) fclose(f);
  return 0;
}

/* ---- ELF: build id and PT_LOAD extent of a candidate file ------------ */

/* build id as hex into bid (or ""), extent of PT_LOAD segments.  Returns */
/* 0 if the file is an ELF we can read.                                   */
static int elf_info(const char *path, char *bid, size_t bidsz, u64 *extent)
{
  int fd = open(path, O_RDONLY);
  struct stat st;
  const unsigned char *m;
  const Elf64_Ehdr *eh;
  size_t i;
  int rc = -1;

  bid[0] = '\0';
  *extent = 0;
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)
      || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return -1;
  }
  m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return -1;
  eh = (const Elf64_Ehdr *)m;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0
      || eh->e_ident[EI_CLASS] != ELFCLASS64) goto out;
  rc = 0;
  /* Extent from the program headers. */
  if (eh->e_phoff && eh->e_phentsize == sizeof(Elf64_Phdr)
      && eh->e_phoff + (u64)eh->e_phnum * sizeof(Elf64_Phdr)
         <= (u64)st.st_size) {
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + eh->e_phoff);

    for (i = 0; i < eh->e_phnum; i++)
      if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > *extent)
        *extent = ph[i].p_vaddr + ph[i].p_memsz;
  }
  /* Build id from SHT_NOTE sections (present in .debug files too). */
  if (eh->e_shoff && eh->e_shentsize == sizeof(Elf64_Shdr)
      && eh->e_shoff + (u64)eh->e_shnum * sizeof(Elf64_Shdr)
         <= (u64)st.st_size) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);

    for (i = 0; i < eh->e_shnum && bid[0] == '\0'; i++) {
      const unsigned char *p, *end;

      if (sh[i].sh_type != SHT_NOTE
          || sh[i].sh_offset + sh[i].sh_size > (u64)st.st_size) continue;
      p = m + sh[i].sh_offset;
      end = p + sh[i].sh_size;
      while (p + sizeof(Elf64_Nhdr) <= end) {
        const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
        const unsigned char *name = p + sizeof(*nh);
        const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);

        if (desc + nh->n_descsz > end) break;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4
            && memcmp(name, "GNU", 4) == 0) {
          size_t j;

          for (j = 0; j < nh->n_descsz && 2 * j + 2 < bidsz; j++)
            snprintf(bid + 2 * j, 3, "%02x", desc[j]);
          break;
        }
        p = desc + ((nh->n_descsz + 3) & ~3u);
      }
    }
  }
out:
  munmap((void *)m, (size_t)st.st_size);
  return rc;
}

static int try_file(struct module *mo, const char *cand)
{
  char bid[160];
  u64 extent;

  if (access(cand, R_OK) != 0) return 0;
  if (elf_info(cand, bid, sizeof(bid), &extent) != 0) return 0;
  if (mo->build_id[0] != '\0' && bid[0] != '\0'
      && strcmp(bid, mo->build_id) != 0) {
    warning("%s: build id %s, the dump's %s has %s; skipped", cand, bid,
            mo->path, mo->build_id);
    return 0;
  }
  mo->file = xstrdup(cand);
  /* A .debug file's PT_LOAD sizes are those of the binary, but its     */
  /* NOBITS sections make p_memsz reliable; keep the extent.             */
  mo->extent = extent;
  return 1;
}

static void find_file(struct module *mo, const char **search, int nsearch,
                      const char *debug_dir)
{
  char cand[4096];
  const char *bn = strrchr(mo->path, '/');
  size_t bl = strlen(mo->build_id);
  int i;

  bn = bn ? bn + 1 : mo->path;
  for (i = 0; i < nsearch; i++) {
    if (bl > 2) {
      snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", search[i],
               mo->build_id, mo->build_id + 2);
      if (try_file(mo, cand)) return;
    }
    if (bn[0] != '\0') {
      snprintf(cand, sizeof(cand), "%s/%s", search[i], bn);
      if (try_file(mo, cand)) return;
      snprintf(cand, sizeof(cand), "%s/%s.debug", search[i], bn);
      if (try_file(mo, cand)) return;
    }
    if (mo->path[0] == '/') {
      snprintf(cand, sizeof(cand), "%s%s", search[i], mo->path);
      if (try_file(mo, cand)) return;
    }
  }
  if (bl > 2) {
    snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", debug_dir,
             mo->build_id, mo->build_id + 2);
    if (try_file(mo, cand)) return;
  }
  if (mo->path[0] == '/') try_file(mo, mo->path);
}

/* ---- the module map --------------------------------------------------- */

static int load_modules(const json_t *header)
{
  const json_t *arr = json_object_get(header, "modules"), *m;
  size_t i;

  json_array_foreach(arr, i, m) {
    const char *path = json_string_value(json_object_get(m, "path"));
    const char *bid = json_string_value(json_object_get(m, "build_id"));
    const json_t *b = json_object_get(m, "base");
    struct module *mo;
    u64 base;

    if (json_is_string(b)) {
      if (!parse_addr(json_string_value(b), &base)) continue;
    } else if (json_is_integer(b)) {
      base = (u64)json_integer_value(b);
    } else {
      continue;
    }
    mods = xrealloc(mods, (nmods + 1) * sizeof(*mods));
    mo = &mods[nmods++];
    memset(mo, 0, sizeof(*mo));
    mo->path = xstrdup(path ? path : "");
    mo->build_id = xstrdup(bid ? bid : "");
    mo->base = base;
  }
  return 0;
}

static int module_for(u64 a)
{
  size_t i;
  int best = -1;

  for (i = 0; i < nmods; i++)
    if (mods[i].base <= a && (best < 0 || mods[i].base > mods[best].base))
      best = (int)i;
  if (best >= 0 && mods[best].extent
      && a - mods[best].base >= mods[best].extent)
    return -1;
  return best;
}

static const char *module_name(const struct module *mo)
{
  const char *bn = strrchr(mo->path, '/');

  return bn ? bn + 1 : (mo->path[0] ? mo->path : "?");
}

static const char *cache_key(const struct module *mo)
{
  return mo->build_id[0] ? mo->build_id : mo->path;
}

/* ---- the cache: "key\toffset\tfunc\tfile:line[...]" per line ---------- */

struct centry { const char *key; u64 off; char *answer; };

static int centry_cmp(const void *a, const void *b)
{
  const struct centry *x = a, *y = b;
  int c = strcmp(x->key, y->key);

  if (c) return c;
  return x->off < y->off ? -1 : x->off > y->off;
}

static size_t cache_load(const char *path, struct centry **out)
{
  FILE *f = fopen(path, "r");
  struct centry *e = NULL;
  size_t n = 0, cap = 0;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;

  *out = NULL;
  if (f == NULL) return 0;
  while ((len = getline(&line, &lcap, f)) > 0) {
    char *t1, *t2;
    u64 off;

    if (line[len - 1] == '\n') line[--len] = '\0';
    if (line[0] == '#') continue;
    t1 = strchr(line, '\t');
    if (t1 == NULL) continue;
    t2 = strchr(t1 + 1, '\t');
    if (t2 == NULL) continue;
    *t1 = *t2 = '\0';
    if (!parse_addr(t1 + 1, &off)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      e = xrealloc(e, cap * sizeof(*e));
    }
    e[n].key = xstrdup(line);
    e[n].off = off;
    e[n].answer = xstrdup(t2 + 1);
    n++;
  }
  free(line);
  fclose(f);
  qsort(e, n, sizeof(*e), centry_cmp);
  *out = e;
  return n;
}

/* ---- one addr2line per module, in a child process --------------------- */

static int is_addr_line(const char *s)
{
  size_t i;

  if (s[0] != '0' || s[1] != 'x') return 0;
  for (i = 2; s[i] != '\0'; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return i > 2;
}

/* Runs in the module's child: feeds addr2line the offsets, writes one    */
/* answer line per offset, in order, to out.  Exit status 0 on success.  */
static int run_symbolizer(const struct module *mo, const u64 *offs,
                          size_t n, FILE *out)
{
  const char *prog = getenv("GCACC_ADDR2LINE");
  int in_p[2], out_p[2];
  pid_t pid;
  char wbuf[65536], rbuf[65536];
  size_t wlen = 0, wpos = 0, next = 0, answered = 0;
  char *line = NULL;
  size_t llen = 0, lcap = 0;
  char *acc = NULL;
  size_t alen = 0, acap = 0;
  int have = 0, status;
  struct pollfd pf[2];

  if (prog == NULL || prog[0] == '\0') prog = "addr2line";
  if (pipe(in_p) != 0 || pipe(out_p) != 0) return 1;
  pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    dup2(in_p[0], 0);
    dup2(out_p[1], 1);
    close(in_p[0]); close(in_p[1]); close(out_p[0]); close(out_p[1]);
    execlp(prog, prog, "-f", "-C", "-i", "-a", "-e", mo->file,
           (char *)NULL);
    fprintf(stderr, "gcacc symbolize: error: cannot run %s: %s "
            "(install binutils)\n", prog, strerror(errno));
    _exit(127);
  }
  close(in_p[0]);
  close(out_p[1]);
  fcntl(in_p[1], F_SETFL, O_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);

#define FLUSH_ANSWER()                                                     \
  do {                                                                     \
    if (have) {                                                            \
      fwrite(acc ? acc : "", 1, alen, out);                                \
      if (alen == 0) fputs("??\t??:0", out);                               \
      fputc('\n', out);                                                    \
      answered++;                                                          \
    }                                                                      \
    alen = 0;                                                              \
  } while (0)

  pf[0].fd = in_p[1];
  pf[1].fd = out_p[0];
  for (;;) {
    int np = 0, wfd = -1;

    if (pf[0].fd >= 0) {
      if (wpos == wlen && next < n) {
        wpos = wlen = 0;
        while (next < n && wlen + 24 < sizeof(wbuf))
          wlen += (size_t)sprintf(wbuf + wlen, "0x%llx\n", offs[next++]);
      }
      if (wpos == wlen && next == n) {
        close(pf[0].fd);
        pf[0].fd = -1;
      }
    }
    wfd = pf[0].fd;
    pf[0].events = POLLOUT;
    pf[1].events = POLLIN;
    pf[0].fd = wfd;
    np = poll(pf, 2, -1);
    if (np < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (wfd >= 0 && (pf[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(wfd, wbuf + wpos, wlen - wpos);

      if (w > 0) wpos += (size_t)w;
      else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        close(wfd);
        pf[0].fd = -1;
        next = n;
      }
    }
    if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(out_p[0], rbuf, sizeof(rbuf));
      ssize_t i;

      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        break;                                  /* addr2line is done */
      }
      for (i = 0; i < r; i++) {
        if (rbuf[i] != '\n') {
          if (llen + 1 >= lcap) {
            lcap = lcap ? lcap * 2 : 256;
            line = xrealloc(line, lcap);
          }
          line[llen++] = rbuf[i];
          continue;
        }
        if (line == NULL) line = xrealloc(NULL, lcap = 256);
        line[llen] = '\0';
        if (is_addr_line(line)) {               /* -a: a new answer */
          FLUSH_ANSWER();
          have = 1;
        } else if (have) {                      /* function, file:line... */
          if (alen + llen + 2 > acap) {
            acap = (alen + llen + 2) * 2;
            acc = xrealloc(acc, acap);
          }
          if (alen) acc[alen++] = '\t';
          memcpy(acc + alen, line, llen);
          alen += llen;
        }
        llen = 0;
      }
    }
  }
  FLUSH_ANSWER();
  if (pf[0].fd >= 0) close(pf[0].fd);
  close(out_p[0]);
  waitpid(pid, &status, 0);
  fflush(out);
  free(line);
  free(acc);
  if (answered != n) {
    fprintf(stderr, "gcacc symbolize: error: %s: addr2line answered %zu "
            "of %zu addresses\n", mo->file, answered, n);
    return 1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* ---- addresses from the dump's "site" records (provisional) ---------- */

static void add_json_addr(const json_t *v)
{
  u64 a;

  if (json_is_integer(v)) add_addr((u64)json_integer_value(v));
  else if (json_is_string(v) && parse_addr(json_string_value(v), &a))
    add_addr(a);
}

static void add_site_addrs(const json_t *rec)
{
  static const char *keys[] = { "frames", "addr", "addrs", "stack", "pcs" };
  size_t k, i;
  const json_t *v, *e;

  for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    v = json_object_get(rec, keys[k]);
    if (json_is_array(v)) json_array_foreach(v, i, e) add_json_addr(e);
    else add_json_addr(v);
  }
}

/* ---- the command ------------------------------------------------------ */

struct ix { u64 addr; size_t i; };

static int ix_cmp(const void *a, const void *b)
{
  const struct ix *x = a, *y = b;

  if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static void print_answer(FILE *f, const struct address *a)
{
  const struct module *mo = a->module >= 0 ? &mods[a->module] : NULL;
  const char *ans = a->answer ? a->answer : "??\t??:0";
  int first = 1;

  if (mo) fprintf(f, "0x%llx %s+0x%llx ", a->addr, module_name(mo),
                  a->addr - mo->base);
  else fprintf(f, "0x%llx ? ", a->addr);
  while (*ans) {
    const char *t = strchr(ans, '\t');
    const char *fl = t ? t + 1 : "??:0";
    const char *e = t ? strchr(fl, '\t') : NULL;
    size_t fn_len = t ? (size_t)(t - ans) : strlen(ans);
    size_t fl_len = e ? (size_t)(e - fl) : strlen(fl);

    if (!first) fputs("  (inlined by) ", f);
    fprintf(f, "%.*s %.*s\n", (int)fn_len, ans, (int)fl_len, fl);
    first = 0;
    if (e == NULL) break;
    ans = e + 1;
  }
  if (first) fputs("?? ??:0\n", f);
}

int cmd_symbolize(int argc, char **argv)
{
  const char **search = NULL, *dump = NULL, *output = NULL;
  const char *debug_dir = "/usr/lib/debug", *err = NULL;
  int nsearch = 0, use_cache = 1, i, rc = EXIT_OK, any_from = 0;
  struct dump_reader *d;
  json_t *header = NULL, *v;
  enum dump_status st;
  struct ix *order;
  size_t n, j, m, unmapped = 0, hits = 0;
  struct centry *cache = NULL;
  size_t ncache = 0;
  char *cache_path = NULL;
  FILE *out;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  size_t running = 0, maxrun;
  u64 prev = 0;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];

    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(symbolize_usage, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--search-path") == 0
               || strcmp(a, "--debug-dir") == 0
               || strcmp(a, "--addresses-from") == 0
               || strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs an argument", a);
      if (a[2] == 's') {
        search = xrealloc(search, (size_t)(nsearch + 1) * sizeof(*search));
        search[nsearch++] = argv[++i];
      } else if (a[2] == 'd') {
        debug_dir = argv[++i];
      } else if (a[2] == 'a') {
        any_from = 1;                   /* read once the dump is known */
        i++;
      } else {
        output = argv[++i];
      }
    } else if (strcmp(a, "--no-cache") == 0) {
      use_cache = 0;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option '%s'", a);
    } else if (dump == NULL) {
      dump = a;
    } else {
      u64 x;

      if (!parse_addr(a, &x)) return usage_error("not an address: '%s'", a);
      add_addr(x);
    }
  }
  if (dump == NULL) return usage_error("no dump given");
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--addresses-from") == 0 && i + 1 < argc)
      if (read_addresses(argv[++i]) != 0) return EXIT_USAGE;

  /* The header (and, with no addresses given, the "site" records). */
  d = dump_open(dump, &err);
  if (d == NULL) {
    error("%s", err);
    return EXIT_USAGE;
  }
  while ((st = dump_next(d, &v)) == DUMP_RECORD) {
    const char *kind = json_string_value(json_object_get(v, "record"));

    if (header == NULL) {
      header = v;
      if (naddrs > 0 || any_from) break;
      continue;
    }
    if (strcmp(kind, "site") == 0) add_site_addrs(v);
    json_decref(v);
  }
  if (header == NULL) {
    error("%s", st == DUMP_END ? "empty dump" : dump_error(d));
    dump_close(d);
    return EXIT_USAGE;
  }
  if (!(naddrs > 0 || any_from) && (st == DUMP_ERROR || st == DUMP_TRUNCATED))
    warning("%s", dump_error(d));
  dump_close(d);
  load_modules(header);
  json_decref(header);
  if (nmods == 0) warning("%s: the header lists no modules", dump);

  if (naddrs == 0)
    warning("no addresses: give them as arguments or with "
            "--addresses-from (%s has no \"site\" records)", dump);

  /* Deduplicate, keeping first-seen order. */
  order = xrealloc(NULL, (naddrs ? naddrs : 1) * sizeof(*order));
  for (j = 0; j < naddrs; j++) {
    order[j].addr = addrs[j].addr;
    order[j].i = j;
  }
  qsort(order, naddrs, sizeof(*order), ix_cmp);
  for (j = 0, n = 0; j < naddrs; j++) {
    u64 cur = order[j].addr;

    if (j == 0 || cur != prev) {
      order[n].addr = order[j].i;       /* sort the kept by first index */
      order[n++].i = order[j].i;
    }
    prev = cur;
  }
  qsort(order, n, sizeof(*order), ix_cmp);
  for (j = 0; j < n; j++) addrs[j] = addrs[order[j].i];
  naddrs = n;
  free(order);

  /* Files first (their extents refine the mapping), then the mapping. */
  for (m = 0; m < nmods; m++) find_file(&mods[m], search, nsearch, debug_dir);
  if (use_cache && strcmp(dump, "-") != 0) {
    cache_path = xrealloc(NULL, strlen(dump) + 9);
    sprintf(cache_path, "%s.symbols", dump);
    ncache = cache_load(cache_path, &cache);
  }
  for (j = 0; j < naddrs; j++) {
    struct address *a = &addrs[j];
    struct module *mo;

    a->module = module_for(a->addr);
    if (a->module < 0) {
      unmapped++;
      continue;
    }
    mo = &mods[a->module];
    if (ncache) {
      struct centry key, *hit;

      key.key = cache_key(mo);
      key.off = a->addr - mo->base;
      hit = bsearch(&key, cache, ncache, sizeof(*cache), centry_cmp);
      if (hit) {
        a->answer = xstrdup(hit->answer);
        hits++;
        continue;
      }
    }
    if (mo->file == NULL) continue;
    if (mo->naddr == mo->cap) {
      mo->cap = mo->cap ? mo->cap * 2 : 256;
      mo->addr_ix = xrealloc(mo->addr_ix, mo->cap * sizeof(size_t));
    }
    mo->addr_ix[mo->naddr++] = j;
  }
  for (m = 0; m < nmods; m++)
    if (mods[m].file == NULL && mods[m].path[0] != '\0') {
      for (j = 0; j < naddrs; j++)
        if (addrs[j].module == (int)m && addrs[j].answer == NULL) break;
      if (j < naddrs)
        warning("no binary or debug file for %s (build id %s); "
                "try --search-path", mods[m].path,
                mods[m].build_id[0] ? mods[m].build_id : "none");
    }

  /* One child per module with work, at most 2 * CPUs at a time. */
  maxrun = ncpu > 0 ? (size_t)ncpu * 2 : 4;
  fflush(stdout);
  fflush(stderr);
  for (m = 0; m < nmods; m++) {
    struct module *mo = &mods[m];

    if (mo->naddr == 0) continue;
    while (running >= maxrun) {         /* reap the oldest running */
      for (j = 0; j < m; j++)
        if (mods[j].naddr && !mods[j].reaped) break;
      waitpid(mods[j].pid, &mods[j].status, 0);
      mods[j].reaped = 1;
      running--;
    }
    mo->results = tmpfile();
    if (mo->results == NULL) {
      error("cannot create a temporary file: %s", strerror(errno));
      return EXIT_USAGE;
    }
    mo->pid = fork();
    if (mo->pid < 0) {
      error("fork: %s", strerror(errno));
      return EXIT_USAGE;
    }
    if (mo->pid == 0) {
      u64 *offs = xrealloc(NULL, mo->naddr * sizeof(*offs));

      for (j = 0; j < mo->naddr; j++)
        offs[j] = addrs[mo->addr_ix[j]].addr - mo->base;
      _exit(run_symbolizer(mo, offs, mo->naddr, mo->results));
    }
    running++;
  }
  for (m = 0; m < nmods; m++) {
    struct module *mo = &mods[m];
    int status;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;

    if (mo->naddr == 0) continue;
    if (!mo->reaped) waitpid(mo->pid, &mo->status, 0);
    mo->reaped = 1;
    status = mo->status;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = EXIT_USAGE;
    rewind(mo->results);
    for (j = 0; j < mo->naddr
                && (len = getline(&line, &lcap, mo->results)) > 0; j++) {
      if (line[len - 1] == '\n') line[len - 1] = '\0';
      addrs[mo->addr_ix[j]].answer = xstrdup(line);
    }
    free(line);
    fclose(mo->results);
  }

  /* New answers into the cache (resolved functions only). */
  if (cache_path != NULL) {
    FILE *cf = NULL;

    for (m = 0; m < nmods; m++) {
      struct module *mo = &mods[m];

      for (j = 0; j < mo->naddr; j++) {
        const struct address *a = &addrs[mo->addr_ix[j]];

        if (a->answer == NULL || strncmp(a->answer, "??\t", 3) == 0)
          continue;
        if (cf == NULL) {
          cf = fopen(cache_path, "a");
          if (cf == NULL) {
            warning("cannot write the cache %s: %s", cache_path,
                    strerror(errno));
            goto cache_done;
          }
          if (ftell(cf) == 0)
            fputs("# gcacc symbolize cache: build-id (or path)\toffset\t"
                  "function\tfile:line[\tfunction\tfile:line...]\n", cf);
        }
        fprintf(cf, "%s\t0x%llx\t%s\n", cache_key(mo),
                a->addr - mo->base, a->answer);
      }
    }
    if (cf != NULL && fclose(cf) != 0)
      warning("cannot write the cache %s: %s", cache_path, strerror(errno));
  }
cache_done:
  out = output ? fopen(output, "w") : stdout;
  if (out == NULL) {
    error("cannot write %s: %s", output, strerror(errno));
    return EXIT_USAGE;
  }
  for (j = 0; j < naddrs; j++) print_answer(out, &addrs[j]);
  if (unmapped)
    warning("%zu address%s in no module of the dump's map", unmapped,
            unmapped == 1 ? "" : "es");
  if (getenv("GCACC_SYMBOLIZE_STATS"))
    fprintf(stderr, "gcacc symbolize: %zu distinct addresses, %zu from the "
            "cache\n", naddrs, hits);
  if (out != stdout) {
    if (fclose(out) != 0) {
      error("cannot write %s: %s", output, strerror(errno));
      rc = EXIT_USAGE;
    }
  } else if (fflush(out) != 0) {
    rc = EXIT_USAGE;
  }
  return rc;
}
