/* SPDX-License-Identifier: MIT */
/*
 * cmd_symbolize.c: resolve callsite addresses offline.
 *
 * The work is in symbolize.c (symbolize.h): module map, cache, one
 * addr2line per module.  This file is the command: addresses from the
 * command line, a file, or (none given) the dump's "sites" definitions,
 * printed one distinct address per line in first-seen order.
 */

#include "gcacc.h"
#include "symbolize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char symbolize_usage[] =
  "usage: gcacc symbolize [<options>] <dump> [<address>...]\n"
  "\n"
  "Resolves absolute code addresses (hex 0x..., or decimal) to module,\n"
  "offset, function and file:line, using the dump header's module map and\n"
  "the modules' binaries or separate debug files.  Prints one line per\n"
  "distinct address, in first-seen order:\n"
  "  <address> <module>+<offset> <function> <file>:<line>\n"
  "and, for code inlined there, `  (inlined by) <function> <file>:<line>`.\n"
  "With no addresses given, resolves every return address of the dump's\n"
  "call stacks (its \"sites\" definitions, docs/dump-format.md).\n"
  "A function is named only when the address lies inside it: debug\n"
  "information says so, or a symbol's extent (st_size) holds it.  In a\n"
  "module with only its dynamic symbol table (a stripped library: its\n"
  "static functions have no symbol) an address outside every exported\n"
  "function is shown as the nearest one before it marked as a guess,\n"
  "`name+0x30f?` (nearest symbol, outside its extent), with a warning\n"
  "that the module had no full symbol table nor debug file.  Debug files\n"
  "are found by build id (<debug dir>/.build-id/xx/y.debug) and by the\n"
  "module's .gnu_debuglink (<debug dir>/<module dir>/, <module dir>/.debug/,\n"
  "<module dir>/).\n"
  "A Windows module (a dump written under Windows or wine: `Z:\\...`)\n"
  "is looked for by its name in each --search-path, then where wine maps\n"
  "it (Z: is /, another drive $WINEPREFIX/dosdevices/x:); a PE image is\n"
  "read at its preferred image base: one whose CodeView record names a\n"
  "PDB (MSVC's, clang-cl's) through that PDB by llvm-symbolizer\n"
  "(GCACC_PDB_SYMBOLIZER overrides it), else its DWARF (mingw's) by\n"
  "x86_64-w64-mingw32-addr2line (GCACC_PE_ADDR2LINE overrides it).  The\n"
  "PDB is looked for by its name in each --search-path, beside the image,\n"
  "then at its recorded path.  An image or a PDB whose GUID and age are\n"
  "not the dump's (the header's build_id) is another build: refused with\n"
  "a warning, never read.\n"
  "\n"
  "  --addresses-from <file>  read addresses from <file> (`-`: stdin),\n"
  "                           whitespace-separated; `#` starts a comment\n"
  "  --search-path <dir>      look for binaries and debug files in <dir>\n"
  "                           (repeatable; also <dir>/.build-id/xx/y.debug)\n"
  "  --debug-dir <dir>        the global debug directory\n"
  "                           (default /usr/lib/debug)\n"
  "  --no-cache               neither read nor write <dump>.symbols\n"
  "  --sites                  print the dump's stacks instead, site by site:\n"
  "                           `site <id>` then one indented line per frame,\n"
  "                           innermost first\n"
  "  -o <file>                write to <file>\n"
  "\n"
  "Needs binutils' addr2line (GCACC_ADDR2LINE overrides the command).\n";

typedef unsigned long long u64;

static u64 *addrs;
static size_t naddrs, addrs_cap;

static void add_addr(u64 a)
{
  if (naddrs == addrs_cap) {
    addrs_cap = addrs_cap ? addrs_cap * 2 : 1024;
    addrs = xrealloc(addrs, addrs_cap * sizeof(*addrs));
  }
  addrs[naddrs++] = a;
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

/* "<addr> <module>+<offset> <function> <file:line>", inlines after.  */
static void print_frame(FILE *f, const char *indent,
                        const struct sym_frame *fr)
{
  size_t k;

  /* Module names come from the dump: escaped (fault 7).               */
  if (fr->module == NULL || strcmp(fr->module, "?") == 0) {
    fprintf(f, "%s0x%llx ? ", indent, fr->addr);
  } else {
    fprintf(f, "%s0x%llx ", indent, fr->addr);
    fputs_escaped(fr->module, f);
    fprintf(f, "+0x%llx ", fr->offset);
  }
  if (fr->nfuncs == 0) {
    fputs("?? ??:0\n", f);
    return;
  }
  for (k = 0; k < fr->nfuncs; k++) {
    if (k) fprintf(f, "%s  (inlined by) ", indent);
    fputs_escaped(fr->funcs[k], f);
    fputc(' ', f);
    fputs_escaped(fr->lines[k], f);
    fputc('\n', f);
  }
}

/* Address a already printed?  seen: sorted distinct addresses, with a   */
/* flag each.                                                            */
struct seen { u64 addr; int done; };

static int seen_cmp(const void *a, const void *b)
{
  u64 x = ((const struct seen *)a)->addr, y = ((const struct seen *)b)->addr;

  return x < y ? -1 : x > y;
}

int cmd_symbolize(int argc, char **argv)
{
  struct symbolize_opts so;
  const char **search = NULL, *dump = NULL, *output = NULL;
  int nsearch = 0, i, rc = EXIT_OK, any_from = 0, sites = 0;
  struct symtab *tab = NULL;
  struct seen *seen = NULL;
  size_t nseen = 0, j, k, n;
  FILE *out;

  symbolize_opts_init(&so);
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
        so.debug_dir = argv[++i];
      } else if (a[2] == 'a') {
        any_from = 1;                   /* read once the dump is known */
        i++;
      } else {
        output = argv[++i];
      }
    } else if (strcmp(a, "--no-cache") == 0) {
      so.use_cache = 0;
    } else if (strcmp(a, "--sites") == 0) {
      sites = 1;
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
  if (sites && (naddrs > 0 || any_from))
    return usage_error("--sites takes no addresses");
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--addresses-from") == 0 && i + 1 < argc)
      if (read_addresses(argv[++i]) != 0) return EXIT_USAGE;
  so.search = search;
  so.nsearch = nsearch;

  if (naddrs > 0 || any_from) {
    if (symbolize_addrs(dump, addrs, naddrs, &so, &tab) != 0) {
      symtab_free(tab);
      return EXIT_USAGE;
    }
  } else {
    if (symbolize_dump_sites(dump, &so, &tab) != 0) {
      symtab_free(tab);
      return EXIT_USAGE;
    }
    if (tab->nsites == 0)
      warning("no addresses: give them as arguments or with "
              "--addresses-from (%s defines no call stacks: was it "
              "written with GC_ACC_STACKS?)", dump);
  }
  if (tab->failed) rc = EXIT_USAGE;

  out = output ? fopen(output, "w") : stdout;
  if (out == NULL) {
    error("cannot write %s: %s", output, strerror(errno));
    symtab_free(tab);
    return EXIT_USAGE;
  }
  /* Distinct addresses in first-seen order (sites by id, frames      */
  /* innermost first); with --sites, every stack.                     */
  for (j = 0, n = 0; j < tab->nsites; j++) n += tab->sites[j].nframes;
  seen = xrealloc(NULL, (n ? n : 1) * sizeof(*seen));
  for (j = 0; j < tab->nsites; j++)
    for (k = 0; k < tab->sites[j].nframes; k++) {
      seen[nseen].addr = tab->sites[j].frames[k].addr;
      seen[nseen++].done = 0;
    }
  if (nseen > 0) qsort(seen, nseen, sizeof(*seen), seen_cmp);
  for (j = 0; j < tab->nsites; j++) {
    const struct sym_site *s = &tab->sites[j];

    if (sites) {
      fprintf(out, "site %llu%s\n", s->id,
              s->nframes ? "" : " (stack unknown)");
      for (k = 0; k < s->nframes; k++) print_frame(out, "  ", &s->frames[k]);
      continue;
    }
    for (k = 0; k < s->nframes; k++) {
      struct seen key, *hit;

      key.addr = s->frames[k].addr;
      hit = bsearch(&key, seen, nseen, sizeof(*seen), seen_cmp);
      if (hit->done) continue;
      hit->done = 1;
      print_frame(out, "", &s->frames[k]);
    }
  }
  if (tab->unmapped)
    warning("%zu address%s in no module of the dump's map", tab->unmapped,
            tab->unmapped == 1 ? "" : "es");
  if (getenv("GCACC_SYMBOLIZE_STATS"))
    fprintf(stderr, "gcacc symbolize: %zu distinct addresses, %zu from the "
            "cache\n", tab->resolved + tab->unresolved, tab->from_cache);
  free(seen);
  free(addrs);
  free(search);
  symtab_free(tab);
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
