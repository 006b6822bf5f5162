/* SPDX-License-Identifier: MIT */
/*
 * symbolize.c: resolve callsite addresses offline (symbolize.h).
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
 * Files are looked for, in order: in each search directory (DIR/<build
 * id path>, DIR/<module basename>, DIR/<module path>), in
 * <debug dir>/.build-id/xx/yyyy.debug, by the module's .gnu_debuglink
 * (<debug dir><module dir>/NAME, <module dir>/.debug/NAME, <module
 * dir>/NAME), then at the module's own path.  An answer without
 * file:line (a name from a symbol table) is checked against the
 * symbols' extents ("names that are true", below).
 * A candidate whose GNU build id differs from the header's is skipped.
 *
 * Windows modules (PE images, pefile.h): the header's build id is the
 * image's CodeView record (PDB GUID and age); an image with another is
 * skipped.  An image that names a PDB is read through the PDB that has
 * the same GUID and age (by name in each search directory, beside the
 * image, at the recorded path) by llvm-symbolizer; else through its
 * DWARF by mingw's addr2line.  A PDB of another build is skipped.
 *
 * The state of one run (modules, distinct addresses) is file-static and
 * freed at its end; what the caller gets is copied into the symtab.
 */

#include "gcacc.h"
#include "dump_read.h"
#include "session.h"
#include "symbolize.h"
#include "tables.h"
#include "elfsyms.h"
#include "pefile.h"

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

static int sym_quiet;

/* Bounds on the files a dump names or its name makes (issue 38): a     */
/* module or debug file is mapped, a cache is read into memory.          */
#define MAX_MODULE_FILE ((u64)16 << 30)
#define MAX_CACHE_FILE ((u64)64 << 20)

struct module {
  char *path, *build_id, *file;   /* file: what addr2line reads, or NULL */
  u64 base, extent;               /* extent: 0 if unknown               */
  /* A PE image (Windows): file is read at the image's preferred base, */
  /* image_base + offset: by mingw's addr2line (its DWARF), or, with    */
  /* pdb (the PDB that matches its CodeView record), by llvm-symbolizer. */
  int is_pe;
  u64 image_base;
  char *pdb;
  char *pdb_name;                 /* the record's PDB name (its base)   */
  int no_debug;                   /* neither DWARF nor a matching PDB   */
  size_t naddr, cap;
  size_t *addr_ix;                /* indexes into the address table      */
  FILE *results;                  /* child's answers (tmpfile)           */
  pid_t pid;
  int status, reaped;
  /* The function symbols of file and of the module (elfsyms.h), read  */
  /* once; names checked against them, and those outside every symbol.  */
  struct elfsyms *syms;
  int syms_read;
  size_t checked, outside;
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

static char *xstrdup(const char *s)
{
  char *t = xrealloc(NULL, strlen(s) + 1);

  return strcpy(t, s);
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
/* ---- ELF: build id and PT_LOAD extent of a candidate file ------------ */

/* build id as hex into bid (or ""), extent of PT_LOAD segments.  Returns */
/* 0 if the file is an ELF we can read: 64-bit or 32-bit (armhf, x86's   */
/* i386), of the host's byte order.  The note header has one layout in   */
/* both classes.                                                          */
static int elf_info(const char *path, char *bid, size_t bidsz, u64 *extent)
{
  /* A regular file only: a module path from a dump naming a FIFO or a */
  /* device must not block the reader (issue 38, fault 2).  Mapped, not  */
  /* read: its size costs address space only (capped all the same).     */
  struct stat st;
  int fd = open_regular(path, 0, MAX_MODULE_FILE, &st, NULL);
  const unsigned char *m;
  u64 size, phoff, shoff;
  size_t i, phnum, shnum, phent, shent;
  int is64, rc = -1;

  bid[0] = '\0';
  *extent = 0;
  if (fd < 0) return -1;
  if (st.st_size < (off_t)sizeof(Elf64_Ehdr)
      || (u64)st.st_size > (u64)SIZE_MAX) {
    close(fd);
    return -1;
  }
  size = (u64)st.st_size;
  m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return -1;
  if (memcmp(m, ELFMAG, SELFMAG) != 0) goto out;
  is64 = m[EI_CLASS] == ELFCLASS64;
  if (is64) {
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;

    phoff = eh->e_phoff; phnum = eh->e_phnum; phent = eh->e_phentsize;
    shoff = eh->e_shoff; shnum = eh->e_shnum; shent = eh->e_shentsize;
    if (phent != sizeof(Elf64_Phdr)) phoff = 0;
    if (shent != sizeof(Elf64_Shdr)) shoff = 0;
  } else if (m[EI_CLASS] == ELFCLASS32) {
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)m;

    phoff = eh->e_phoff; phnum = eh->e_phnum; phent = eh->e_phentsize;
    shoff = eh->e_shoff; shnum = eh->e_shnum; shent = eh->e_shentsize;
    if (phent != sizeof(Elf32_Phdr)) phoff = 0;
    if (shent != sizeof(Elf32_Shdr)) shoff = 0;
  } else {
    goto out;
  }
  rc = 0;
  /* Extent from the program headers. */
  if (phoff && phoff + (u64)phnum * phent <= size) {
    for (i = 0; i < phnum; i++) {
      const unsigned char *q = m + phoff + i * phent;
      u64 end;

      if (is64) {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)q;

        if (ph->p_type != PT_LOAD) continue;
        end = ph->p_vaddr + ph->p_memsz;
      } else {
        const Elf32_Phdr *ph = (const Elf32_Phdr *)q;

        if (ph->p_type != PT_LOAD) continue;
        end = (u64)ph->p_vaddr + ph->p_memsz;
      }
      if (end > *extent) *extent = end;
    }
  }
  /* Build id from SHT_NOTE sections (present in .debug files too). */
  if (shoff && shoff + (u64)shnum * shent <= size) {
    for (i = 0; i < shnum && bid[0] == '\0'; i++) {
      const unsigned char *q = m + shoff + i * shent, *p, *end;
      u64 off, sz;

      if (is64) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)q;

        if (sh->sh_type != SHT_NOTE) continue;
        off = sh->sh_offset; sz = sh->sh_size;
      } else {
        const Elf32_Shdr *sh = (const Elf32_Shdr *)q;

        if (sh->sh_type != SHT_NOTE) continue;
        off = sh->sh_offset; sz = sh->sh_size;
      }
      if (off > size || sz > size - off) continue;
      p = m + off;
      end = p + sz;
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

static int try_pe(struct module *mo, const char *cand,
                  const struct pe_image *pe);

static int try_file(struct module *mo, const char *cand)
{
  char bid[160];
  u64 extent;
  struct pe_image pe;

  if (access(cand, R_OK) != 0) return 0;
  if (pe_read(cand, &pe) == 0) return try_pe(mo, cand, &pe);
  if (elf_info(cand, bid, sizeof(bid), &extent) != 0) return 0;
  if (mo->build_id[0] != '\0' && bid[0] != '\0'
      && strcmp(bid, mo->build_id) != 0) {
    if (!sym_quiet)
      warning("%s: build id %s, the dump's %s has %s; skipped", cand,
              bid, mo->path, mo->build_id);
    return 0;
  }
  mo->file = xstrdup(cand);
  /* A .debug file's PT_LOAD sizes are those of the binary, but its     */
  /* NOBITS sections make p_memsz reliable; keep the extent.             */
  mo->extent = extent;
  return 1;
}

/* ---- Windows paths (a dump written under Windows or wine) ----------- */

/* "C:\\..." or "C:/...": a drive letter, then a separator.             */
static int win_path(const char *p)
{
  return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z'))
         && p[1] == ':' && (p[2] == '\\' || p[2] == '/');
}

/* The name after the last '\\' or '/'. */
static const char *win_basename(const char *p)
{
  const char *b = p, *q;

  for (q = p; *q != '\0'; q++)
    if (*q == '\\' || *q == '/') b = q + 1;
  return b;
}

/* A Windows path as a local one, as wine maps it: Z: is /, another     */
/* drive $WINEPREFIX/dosdevices/x: (if WINEPREFIX is set); '\\' is '/'.  */
/* 0 if there is none.                                                   */
static int win_local(const char *p, char *out, size_t outsz)
{
  const char *pfx = getenv("WINEPREFIX");
  char d = (char)(p[0] | 0x20);
  size_t n, i;
  int k;

  if (d == 'z')
    k = snprintf(out, outsz, "%s", "");
  else if (pfx != NULL && pfx[0] == '/')
    k = snprintf(out, outsz, "%s/dosdevices/%c:", pfx, d);
  else
    return 0;
  if (k < 0 || (size_t)k >= outsz) return 0;
  n = (size_t)k;
  for (i = 2; p[i] != '\0'; i++) {
    if (n + 1 >= outsz) return 0;
    out[n++] = p[i] == '\\' ? '/' : p[i];
  }
  out[n] = '\0';
  /* No way out of the drive: a ".." component is refused.             */
  return strstr(out, "/../") == NULL
         && (n < 3 || strcmp(out + n - 3, "/..") != 0);
}

/* ---- PE images and their PDBs (pefile.h) --------------------------- */

/* cand is a PE image: taken if its CodeView record (PDB GUID and age)  */
/* is the one the dump's header has for the module, or either has none. */
/* Another build's image is refused: its offsets name other code.       */
static int try_pe(struct module *mo, const char *cand,
                  const struct pe_image *pe)
{
  if (mo->build_id[0] != '\0' && pe->codeview[0] != '\0'
      && strcmp(pe->codeview, mo->build_id) != 0) {
    if (!sym_quiet)
      warning("%s: PDB GUID and age %s in its CodeView record, but the "
              "dump's %s was %s: another build of it; skipped (give the "
              "build that ran with --search-path)", cand, pe->codeview,
              mo->path, mo->build_id);
    return 0;
  }
  mo->file = xstrdup(cand);
  mo->extent = pe->size;
  mo->is_pe = 1;
  mo->image_base = pe->image_base;
  mo->no_debug = !pe->has_dwarf;
  if (pe->pdb[0] != '\0') {
    /* pdb holds the record's path until find_pdb replaces it.           */
    mo->pdb = xstrdup(pe->pdb);
    mo->pdb_name = xstrdup(mo->pdb[0] == '/' ? strrchr(mo->pdb, '/') + 1
                                             : win_basename(mo->pdb));
  }
  return 1;
}

/* cand, if it is the PDB that the image's record names (GUID and age);  */
/* another build's PDB or no PDB is refused, with a warning.             */
static int pdb_matches(const struct module *mo, const char *cand,
                       const char *want)
{
  char id[PE_ID_MAX];
  const char *why = NULL;

  if (access(cand, F_OK) != 0) return 0;
  if (pdb_ident(cand, id, &why) != 0) {
    if (!sym_quiet) warning("%s: %s; skipped", cand, why);
    return 0;
  }
  if (strcmp(id, want) == 0) return 1;
  if (!sym_quiet)
    warning("%s: PDB GUID and age %s, but %s (%s) records %s: the PDB of "
            "another build; skipped (give the PDB built with that image "
            "with --search-path)", cand, id, mo->file, mo->path, want);
  return 0;
}

/* The PDB of a PE image with a CodeView record, if it matches: by its   */
/* name in each search directory, beside the image, at the recorded     */
/* path (a Windows one as wine maps it).  Without one, an image without */
/* DWARF is not read (mingw's addr2line would name nothing).            */
static void find_pdb(struct module *mo, const char *const *search,
                     int nsearch)
{
  char cand[4096], want[PE_ID_MAX];
  const char *rec = mo->pdb, *slash;
  struct pe_image pe;
  int i, found = 0;

  if (mo->pdb == NULL || pe_read(mo->file, &pe) != 0) return;
  snprintf(want, sizeof(want), "%s", pe.codeview);
  for (i = 0; i < nsearch && !found; i++) {
    snprintf(cand, sizeof(cand), "%s/%s", search[i], mo->pdb_name);
    found = pdb_matches(mo, cand, want);
  }
  slash = strrchr(mo->file, '/');
  if (!found) {
    if (slash != NULL)
      snprintf(cand, sizeof(cand), "%.*s/%s", (int)(slash - mo->file),
               mo->file, mo->pdb_name);
    else
      snprintf(cand, sizeof(cand), "%s", mo->pdb_name);
    found = pdb_matches(mo, cand, want);
  }
  if (!found && rec[0] == '/') {
    snprintf(cand, sizeof(cand), "%s", rec);
    found = pdb_matches(mo, cand, want);
  }
  if (!found && win_path(rec) && win_local(rec, cand, sizeof(cand)))
    found = pdb_matches(mo, cand, want);
  if (found) {
    char *abs = realpath(cand, NULL);

    free(mo->pdb);
    mo->pdb = abs != NULL ? abs : xstrdup(cand);
    mo->no_debug = 0;
    return;
  }
  if (!sym_quiet && mo->no_debug)
    warning("%s: no PDB %s with its GUID and age %s (looked in each "
            "--search-path, beside the image, at %s); its functions are "
            "not named: give the directory of the PDB built with it with "
            "--search-path", mo->file, mo->pdb_name, want, rec);
  free(mo->pdb);
  mo->pdb = NULL;
}

static int try_file(struct module *mo, const char *cand);

static void find_file_win(struct module *mo, const char *const *search,
                          int nsearch)
{
  char cand[4096];
  const char *bn = win_basename(mo->path);
  int i;

  for (i = 0; i < nsearch && bn[0] != '\0'; i++) {
    snprintf(cand, sizeof(cand), "%s/%s", search[i], bn);
    if (try_file(mo, cand)) return;
  }
  if (win_local(mo->path, cand, sizeof(cand))) (void)try_file(mo, cand);
}

static void find_file(struct module *mo, const char *const *search,
                      int nsearch, const char *debug_dir)
{
  char cand[4096];
  const char *bn = strrchr(mo->path, '/');
  size_t bl = strlen(mo->build_id);
  int i;

  if (win_path(mo->path)) {
    find_file_win(mo, search, nsearch);
    return;
  }
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
  if (mo->path[0] == '/') {
    /* The module's .gnu_debuglink (a name, no '/'): in the debug dir  */
    /* under the module's directory, in its .debug/, beside it.         */
    char link[256];
    const char *slash = strrchr(mo->path, '/');
    int dl = (int)(slash - mo->path);

    elfsyms_debuglink(mo->path, link, sizeof(link));
    if (link[0] != '\0') {
      snprintf(cand, sizeof(cand), "%s%.*s/%s", debug_dir, dl, mo->path,
               link);
      if (try_file(mo, cand)) return;
      snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dl, mo->path, link);
      if (try_file(mo, cand)) return;
      snprintf(cand, sizeof(cand), "%.*s/%s", dl, mo->path, link);
      if (strcmp(cand, mo->path) != 0 && try_file(mo, cand)) return;
    }
    try_file(mo, mo->path);
  }
}

/* ---- names that are true (issue 33) ----------------------------------- */
/* Without debug information addr2line names the nearest preceding      */
/* symbol, however far past its end the address lies: in a stripped     */
/* library (only .dynsym) a static function gets the name of the last   */
/* exported one before it.  An answer without file:line is checked      */
/* against the symbols' extents (st_size): the function holding the     */
/* address by name, else the nearest one marked as a guess              */
/* ("name+0x30f?": nearest symbol, outside its extent), else none.      */

static void module_syms(struct module *mo)
{
  char bid[160];
  u64 extent;

  if (mo->syms_read) return;
  mo->syms_read = 1;
  if (mo->file != NULL) (void)elfsyms_add(&mo->syms, mo->file);
  /* A debug file found for the module: the module's own tables too    */
  /* (its .dynsym), if it is the same build.                             */
  if (mo->path[0] == '/' && (mo->file == NULL || strcmp(mo->file,
                                                        mo->path) != 0)
      && elf_info(mo->path, bid, sizeof(bid), &extent) == 0
      && (mo->build_id[0] == '\0' || strcmp(bid, mo->build_id) == 0))
    (void)elfsyms_add(&mo->syms, mo->path);
}

/* The answer for offset off of module mo as it may be shown (malloc'd). */
static char *true_answer(struct module *mo, u64 off, const char *ans)
{
  const char *tab = strchr(ans, '\t');
  const char *rest = tab != NULL ? tab : "\t??:0";
  size_t fl = tab != NULL ? (size_t)(tab - ans) : strlen(ans);
  const char *in, *near;
  unsigned long long dist;
  char *out;
  size_t sz;

  if (fl == 0 || memchr(ans, '?', fl) != NULL) return xstrdup(ans);
  if (tab != NULL && strncmp(tab + 1, "??", 2) != 0)
    return xstrdup(ans);          /* debug information names it        */
  module_syms(mo);
  if (mo->syms == NULL) {         /* nothing to check it with: marked  */
    sz = fl + strlen(rest) + 2;
    out = xrealloc(NULL, sz);
    snprintf(out, sz, "%.*s?%s", (int)fl, ans, rest);
    return out;
  }
  mo->checked++;
  in = elfsyms_find(mo->syms, off, &near, &dist);
  if (in != NULL) {
    /* C++: addr2line's demangled name (of the nearest symbol, which    */
    /* holds it); C: the symbol's own name.                              */
    if (strncmp(in, "_Z", 2) == 0) return xstrdup(ans);
    sz = strlen(in) + strlen(rest) + 1;
    out = xrealloc(NULL, sz);
    snprintf(out, sz, "%s%s", in, rest);
    return out;
  }
  mo->outside++;
  if (near == NULL) return xstrdup("??\t??:0");
  sz = strlen(near) + strlen(rest) + 24;
  out = xrealloc(NULL, sz);
  snprintf(out, sz, "%s+0x%llx?%s", near, dist, rest);
  return out;
}

unsigned long long symbolize_module_extent(const char *path,
                                           const char *build_id)
{
  struct module mo;
  int quiet = sym_quiet;

  memset(&mo, 0, sizeof(mo));
  mo.path = (char *)(path ? path : "");
  mo.build_id = (char *)(build_id ? build_id : "");
  sym_quiet = 1;
  find_file(&mo, NULL, 0, "/usr/lib/debug");
  sym_quiet = quiet;
  free(mo.file);
  free(mo.pdb);
  free(mo.pdb_name);
  return mo.extent;
}

/* ---- the module map --------------------------------------------------- */

static int load_modules(const json_t *header)
{
  const json_t *arr = json_object_get(header, "modules"), *m;
  size_t i;

  json_array_foreach(arr, i, m) {
    const char *path, *bid;
    struct module *mo;
    u64 base;

    if (!header_module(m, &path, &bid, &base)) continue;
    if ((nmods & (nmods - 1)) == 0)     /* doubling (100 000 modules) */
      mods = xrealloc(mods, (nmods ? 2 * nmods : 1) * sizeof(*mods));
    mo = &mods[nmods++];
    memset(mo, 0, sizeof(*mo));
    mo->path = xstrdup(path ? path : "");
    mo->build_id = xstrdup(bid ? bid : "");
    mo->base = base;
  }
  return 0;
}

/* The modules by base, one per base (the first listed): module_for    */
/* searches them, in log time (a header may list 100 000 modules).       */
static size_t *by_base, nby_base;

static int base_cmp(const void *x, const void *y)
{
  const struct module *a = &mods[*(const size_t *)x];
  const struct module *b = &mods[*(const size_t *)y];

  if (a->base != b->base) return a->base < b->base ? -1 : 1;
  return *(const size_t *)x < *(const size_t *)y ? -1
         : *(const size_t *)x > *(const size_t *)y;
}

static void index_modules(void)
{
  size_t i, n = 0;

  free(by_base);
  by_base = xrealloc(NULL, (nmods ? nmods : 1) * sizeof(*by_base));
  for (i = 0; i < nmods; i++) by_base[i] = i;
  if (nmods > 0) qsort(by_base, nmods, sizeof(*by_base), base_cmp);
  for (i = 0; i < nmods; i++)
    if (n == 0 || mods[by_base[i]].base != mods[by_base[n - 1]].base)
      by_base[n++] = by_base[i];
  nby_base = n;
}

/* The module with the largest base at or below a (the first listed of  */
/* equal bases), if a is within its extent (when known); -1 if none.    */
static int module_for(u64 a)
{
  size_t lo = 0, hi = nby_base;
  int best;

  while (lo < hi) {                     /* first base above a          */
    size_t mid = lo + (hi - lo) / 2;

    if (mods[by_base[mid]].base <= a) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return -1;
  best = (int)by_base[lo - 1];
  if (mods[best].extent && a - mods[best].base >= mods[best].extent)
    return -1;
  return best;
}

static const char *module_name(const struct module *mo)
{
  const char *bn = strrchr(mo->path, '/');

  if (win_path(mo->path)) return win_basename(mo->path);

  return bn ? bn + 1 : (mo->path[0] ? mo->path : "?");
}

static const char *cache_key(const struct module *mo)
{
  return mo->build_id[0] ? mo->build_id : mo->path;
}

/* ---- the cache, DUMP.symbols (symbolize.h) ------------------------- */
/* Written whole (a new file renamed into place), never through a link  */
/* nor into a file we did not create; every line starts with '#', so   */
/* that nothing from a dump begins a line (issue 38, fault 1).          */

#define CACHE_MAGIC "#S\t"
#define CACHE_HEADER "# gcacc symbolize cache, format 2: #S <tab> build id " \
  "(or module path) <tab> 0x<offset> <tab> function <tab> file:line" \
  "[ <tab> function <tab> file:line...]; fields escaped (\\t \\n \\\\ " \
  "\\xNN); written by gcacc, replaced whole\n"

struct centry { char *key; u64 off; char *answer; };

static int centry_cmp(const void *a, const void *b)
{
  const struct centry *x = a, *y = b;
  int c = strcmp(x->key, y->key);

  if (c) return c;
  return x->off < y->off ? -1 : x->off > y->off;
}

int symcache_line(char *line, const char **key, unsigned long long *off,
                  char **answer)
{
  char *k, *t1, *t2;

  if (strncmp(line, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1) != 0) return 0;
  k = line + sizeof(CACHE_MAGIC) - 1;
  if ((t1 = strchr(k, '\t')) == NULL) return 0;
  if ((t2 = strchr(t1 + 1, '\t')) == NULL) return 0;
  *t1 = *t2 = '\0';
  if (!parse_addr(t1 + 1, off) || t2[1] == '\0') return 0;
  text_unescape(k);                     /* the key, escaped when written */
  *key = k;
  *answer = t2 + 1;
  return 1;
}

FILE *symcache_open(const char *path, int *refused, int quiet)
{
  const char *why;
  int fd = open_regular(path, 1, MAX_CACHE_FILE, NULL, &why);
  FILE *f;

  if (refused != NULL) *refused = 0;
  if (fd < 0) {
    if (errno == ENOENT) return NULL;
    /* A link, a FIFO, a device (or a file too big to be ours): neither */
    /* read nor replaced.                                              */
    if (refused != NULL && errno != EFBIG) *refused = 1;
    if (!quiet)
      warning("%s: %s: the symbol cache is not read%s; remove it (or use "
              "--no-cache)", path, why,
              refused != NULL && errno != EFBIG ? " nor written" : "");
    return NULL;
  }
  f = fdopen(fd, "r");
  if (f == NULL) close(fd);
  return f;
}

void symcache_full(const char *path)
{
  warning("%s: more than %d entries: the rest of the symbol cache is not "
          "read (remove the file to rebuild it)", path, SYMCACHE_MAX_ENTRIES);
}

/* The cache's entries, sorted; *refused if it must not be replaced.    */
static size_t cache_load(const char *path, struct centry **out,
                         int *refused, int quiet)
{
  FILE *f = symcache_open(path, refused, quiet);
  struct centry *e = NULL;
  size_t n = 0, cap = 0;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;

  *out = NULL;
  if (f == NULL) return 0;
  while ((len = getline(&line, &lcap, f)) > 0) {
    const char *key;
    char *ans;
    u64 off;

    if (line[len - 1] == '\n') line[--len] = '\0';
    if (!symcache_line(line, &key, &off, &ans)) continue;
    if (n == SYMCACHE_MAX_ENTRIES) {
      symcache_full(path);
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      e = xrealloc(e, cap * sizeof(*e));
    }
    e[n].key = xstrdup(key);
    e[n].off = off;
    e[n].answer = xstrdup(ans);
    n++;
  }
  free(line);
  fclose(f);
  if (n > 0) qsort(e, n, sizeof(*e), centry_cmp);
  *out = e;
  return n;
}

static void cache_put(FILE *f, const char *key, u64 off, const char *ans)
{
  size_t kn = text_escape(NULL, 0, key, 1);
  char *ek = xrealloc(NULL, kn + 1);

  /* The key (a path or build id from the dump) escaped: a tab or      */
  /* newline in it cannot forge an entry (issue 25, fault 7).  The      */
  /* answer's fields were escaped as addr2line gave them.               */
  text_escape(ek, kn + 1, key, 1);
  fprintf(f, CACHE_MAGIC "%s\t0x%llx\t%s\n", ek, off, ans);
  free(ek);
}

/* Replace path with the old entries and the new answers: a new file    */
/* (O_EXCL) in the same directory, renamed over it.                      */
static void cache_write(const char *path, const struct centry *old,
                        size_t nold, int quiet)
{
  char *tmp = xrealloc(NULL, strlen(path) + 16);
  const char *base = strrchr(path, '/');
  size_t dl = base ? (size_t)(base - path) + 1 : 0, j, m;
  FILE *f;
  int fd, bad = 0;

  base = base ? base + 1 : path;
  sprintf(tmp, "%.*s.%s.XXXXXX", (int)dl, path, base);
  fd = mkstemp(tmp);                    /* O_CREAT | O_EXCL, 0600      */
  if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
    if (!quiet)
      warning("cannot write the symbol cache %s: %s", path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    free(tmp);
    return;
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  (void)fchmod(fd, 0644);
  fputs(CACHE_HEADER, f);
  for (j = 0; j < nold; j++) cache_put(f, old[j].key, old[j].off,
                                       old[j].answer);
  for (m = 0; m < nmods; m++) {
    struct module *mo = &mods[m];

    for (j = 0; j < mo->naddr; j++) {
      const struct address *a = &addrs[mo->addr_ix[j]];

      if (a->answer == NULL || strncmp(a->answer, "??\t", 3) == 0)
        continue;
      cache_put(f, cache_key(mo), a->addr - mo->base, a->answer);
    }
  }
  if (ferror(f)) bad = 1;
  if (fclose(f) != 0) bad = 1;
  if (!bad && rename(tmp, path) != 0) bad = 1;
  if (bad) {
    if (!quiet)
      warning("cannot write the symbol cache %s: %s", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
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

/* The symbolizer of a module: llvm-symbolizer for a PE image read      */
/* through its PDB, mingw's addr2line for one with DWARF, else         */
/* binutils' addr2line; each overridden by its environment variable.   */
static const char *symbolizer_of(const struct module *mo, const char **pkg)
{
  const char *env = mo->pdb != NULL ? "GCACC_PDB_SYMBOLIZER"
                    : mo->is_pe ? "GCACC_PE_ADDR2LINE" : "GCACC_ADDR2LINE";
  const char *prog = getenv(env);

  *pkg = mo->pdb != NULL ? "llvm"
         : mo->is_pe ? "binutils-mingw-w64-x86-64" : "binutils";
  if (prog != NULL && prog[0] != '\0') return prog;
  return mo->pdb != NULL ? "llvm-symbolizer"
         : mo->is_pe ? "x86_64-w64-mingw32-addr2line" : "addr2line";
}

/* The image as llvm-symbolizer is to read it: in a private directory  */
/* (made here), beside the verified PDB under the name the image        */
/* records, which is the first place llvm-symbolizer looks (LLVM's      */
/* NativeSession::searchForPdb: the image's directory, then the         */
/* recorded path, neither checked against the image's GUID).  Both are  */
/* symbolic links.  0, or -1 with an error.                              */
#define PDB_STAGE_IMAGE "image.pe"
struct pdb_staged { char dir[512], img[544], pdb[1600]; };

static int pdb_stage(const struct module *mo, struct pdb_staged *st)
{
  const char *tmp = getenv("TMPDIR");
  char *abs;
  int ok;

  if (mo->pdb_name[0] == '\0' || strcmp(mo->pdb_name, ".") == 0
      || strcmp(mo->pdb_name, "..") == 0
      || strcmp(mo->pdb_name, PDB_STAGE_IMAGE) == 0)
    return error("%s: its PDB's recorded name \"%s\" cannot be given to "
                 "llvm-symbolizer; not symbolized", mo->file, mo->pdb_name);
  if (snprintf(st->dir, sizeof(st->dir), "%s/gcacc-pdb.XXXXXX",
               tmp != NULL && tmp[0] == '/' ? tmp : "/tmp")
      >= (int)sizeof(st->dir) || mkdtemp(st->dir) == NULL)
    return error("cannot create a directory %s: %s (TMPDIR)", st->dir,
                 strerror(errno));
  snprintf(st->img, sizeof(st->img), "%s/" PDB_STAGE_IMAGE, st->dir);
  ok = snprintf(st->pdb, sizeof(st->pdb), "%s/%s", st->dir, mo->pdb_name)
       < (int)sizeof(st->pdb);
  abs = ok ? realpath(mo->file, NULL) : NULL;
  ok = abs != NULL && symlink(abs, st->img) == 0
       && symlink(mo->pdb, st->pdb) == 0;
  free(abs);
  if (ok) return 0;
  error("%s: cannot stage it with its PDB in %s: %s", mo->file, st->dir,
        strerror(errno));
  (void)unlink(st->img);
  (void)rmdir(st->dir);
  return -1;
}

static void pdb_unstage(const struct pdb_staged *st)
{
  (void)unlink(st->pdb);
  (void)unlink(st->img);
  (void)rmdir(st->dir);
}

/* In the symbolizer's child: stdin from in_p, stdout to out_p, then    */
/* exec it on file (the module's, or its staged link).  Never returns.  */
static void exec_symbolizer(const struct module *mo, const char *file,
                            int in_p[2], int out_p[2])
{
  const char *pkg, *prog = symbolizer_of(mo, &pkg);
  char *arg = (char *)file;
  /* The file once more, just before addr2line opens it: a regular     */
  /* file still (not swapped for a FIFO that would block it), named so  */
  /* that it cannot read as an option; no shell sees it (issue 38).     */
  int fd = open_regular(mo->file, 0, MAX_MODULE_FILE, NULL, NULL);

  if (fd < 0) {
    error("%s: no longer a regular file; not symbolized", mo->file);
    _exit(1);
  }
  close(fd);
  if (file[0] != '/' && strncmp(file, "./", 2) != 0) {
    arg = xrealloc(NULL, strlen(file) + 3);
    sprintf(arg, "./%s", file);
  }
  dup2(in_p[0], 0);
  dup2(out_p[1], 1);
  close(in_p[0]); close(in_p[1]); close(out_p[0]); close(out_p[1]);
  if (mo->pdb != NULL)    /* addr2line's output: no columns, no blanks */
    execlp(prog, prog, "--output-style=GNU", "-f", "-C", "-i", "-a", "-e",
           arg, (char *)NULL);
  else
    execlp(prog, prog, "-f", "-C", "-i", "-a", "-e", arg, (char *)NULL);
  error("cannot run %s: %s (install %s)", prog, strerror(errno), pkg);
  _exit(127);
}

/* Runs in the module's child: feeds the symbolizer (addr2line's        */
/* interface) the offsets, writes one answer line per offset, in order, */
/* to out.  Exit status 0 on success.                                    */
static int run_symbolizer(const struct module *mo, const u64 *offs,
                          size_t n, FILE *out)
{
  int in_p[2], out_p[2];
  pid_t pid;
  char wbuf[65536], rbuf[65536];
  struct pdb_staged st;
  size_t wlen = 0, wpos = 0, next = 0, answered = 0;
  char *line = NULL;
  size_t llen = 0, lcap = 0;
  char *acc = NULL;
  size_t alen = 0, acap = 0;
  int have = 0, status;
  struct pollfd pf[2];

  if (mo->pdb != NULL && pdb_stage(mo, &st) != 0) return 1;
  if (pipe(in_p) != 0 || pipe(out_p) != 0 || (pid = fork()) < 0) {
    if (mo->pdb != NULL) pdb_unstage(&st);
    return 1;
  }
  if (pid == 0) exec_symbolizer(mo, mo->pdb != NULL ? st.img : mo->file,
                                in_p, out_p);
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
          /* Escaped (a tab or control character in a name from the    */
          /* module's debug info cannot forge a field or a cache line):  */
          /* parse_answer unescapes each field.                          */
          size_t el = text_escape(NULL, 0, line, 1);

          if (alen + el + 2 > acap) {
            acap = (alen + el + 2) * 2;
            acc = xrealloc(acc, acap);
          }
          if (alen) acc[alen++] = '\t';
          text_escape(acc + alen, el + 1, line, 1);
          alen += el;
        }
        llen = 0;
      }
    }
  }
  FLUSH_ANSWER();
  if (pf[0].fd >= 0) close(pf[0].fd);
  close(out_p[0]);
  waitpid(pid, &status, 0);
  if (mo->pdb != NULL) pdb_unstage(&st);
  fflush(out);
  free(line);
  free(acc);
  if (answered != n) {
    error("%s: addr2line answered %zu of %zu addresses", mo->file,
          answered, n);
    return 1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}


/* ---- one run: resolve the distinct addresses in addrs[] ------------- */

static int u64_cmp(const void *a, const void *b)
{
  u64 x = *(const u64 *)a, y = *(const u64 *)b;

  return x < y ? -1 : x > y;
}

static int addr_cmp(const void *a, const void *b)
{
  return u64_cmp(&((const struct address *)a)->addr,
                 &((const struct address *)b)->addr);
}

static void run_reset(void)
{
  size_t i;

  for (i = 0; i < naddrs; i++) free(addrs[i].answer);
  for (i = 0; i < nmods; i++) {
    free(mods[i].path);
    free(mods[i].build_id);
    free(mods[i].file);
    free(mods[i].pdb);
    free(mods[i].pdb_name);
    free(mods[i].addr_ix);
    elfsyms_free(mods[i].syms);
  }
  free(addrs);
  free(mods);
  free(by_base);
  addrs = NULL;
  mods = NULL;
  by_base = NULL;
  naddrs = addrs_cap = nmods = nby_base = 0;
}

/* Sort addrs[] and keep one of each address.                          */
static void dedup_addrs(void)
{
  size_t j, n;

  if (naddrs > 0) qsort(addrs, naddrs, sizeof(*addrs), addr_cmp);
  for (j = 0, n = 0; j < naddrs; j++)
    if (n == 0 || addrs[j].addr != addrs[n - 1].addr) addrs[n++] = addrs[j];
  naddrs = n;
}

/* Each module's file, and a PE image's PDB (their extents refine the  */
/* mapping, so before it).                                              */
static void find_files(const struct symbolize_opts *o)
{
  size_t m;

  for (m = 0; m < nmods; m++) {
    find_file(&mods[m], o->search, o->nsearch,
              o->debug_dir ? o->debug_dir : "/usr/lib/debug");
    if (mods[m].file != NULL && mods[m].is_pe)
      find_pdb(&mods[m], o->search, o->nsearch);
  }
}

/* The cache of a run: DUMP.symbols, sorted (cache_load).               */
struct run_cache {
  char *path;                     /* NULL: no cache (--no-cache, stdin) */
  struct centry *e;
  size_t n;
  int refused;                    /* not ours: neither read nor written */
};

static void run_cache_open(struct run_cache *c, const char *dump,
                           const struct symbolize_opts *o)
{
  memset(c, 0, sizeof(*c));
  if (!o->use_cache || strcmp(dump, "-") == 0) return;
  c->path = xrealloc(NULL, strlen(dump) + 9);
  sprintf(c->path, "%s.symbols", dump);
  /* A cache refused is said even when quiet: it is no file of ours.   */
  c->n = cache_load(c->path, &c->e, &c->refused, 0);
}

static void run_cache_free(struct run_cache *c)
{
  size_t j;

  for (j = 0; j < c->n; j++) {
    free(c->e[j].key);
    free(c->e[j].answer);
  }
  free(c->e);
  free(c->path);
}

/* Each address to its module; answered from the cache where it can,   */
/* else queued on its module (addr_ix) if the module has a file to read. */
/* *hits: answers from the cache; *unmapped: in no module.              */
static void map_addresses(const struct run_cache *c, int resolve,
                          size_t *hits, size_t *unmapped)
{
  size_t j;

  index_modules();
  for (j = 0; j < naddrs; j++) {
    struct address *a = &addrs[j];
    struct module *mo;

    a->module = module_for(a->addr);
    if (a->module < 0) {
      (*unmapped)++;
      continue;
    }
    mo = &mods[a->module];
    if (c->n) {
      struct centry key, *hit;

      key.key = (char *)cache_key(mo);
      key.off = a->addr - mo->base;
      hit = bsearch(&key, c->e, c->n, sizeof(*c->e), centry_cmp);
      if (hit) {
        a->answer = resolve ? true_answer(mo, key.off, hit->answer)
                            : xstrdup(hit->answer);
        (*hits)++;
        continue;
      }
    }
    if (mo->file == NULL || mo->no_debug) continue;
    if (mo->naddr == mo->cap) {
      mo->cap = mo->cap ? mo->cap * 2 : 256;
      mo->addr_ix = xrealloc(mo->addr_ix, mo->cap * sizeof(size_t));
    }
    mo->addr_ix[mo->naddr++] = j;
  }
}

/* Modules with an address left unanswered and no file to read, in one  */
/* pass; told up to 10, then counted.                                    */
static void warn_missing_files(void)
{
  unsigned char *need = xrealloc(NULL, nmods ? nmods : 1);
  size_t told = 0, j, m;

  memset(need, 0, nmods ? nmods : 1);
  for (j = 0; j < naddrs; j++)
    if (addrs[j].module >= 0 && addrs[j].answer == NULL)
      need[addrs[j].module] = 1;
  for (m = 0; m < nmods; m++)
    if (need[m] && mods[m].file == NULL && mods[m].path[0] != '\0'
        && told++ < 10)
      warning("no binary or debug file for %s (build id %s); "
              "try --search-path", mods[m].path,
              mods[m].build_id[0] ? mods[m].build_id : "none");
  if (told > 10)
    warning("no binary or debug file for %zu more modules", told - 10);
  free(need);
}

/* One child per module with work, at most 2 * CPUs at a time, each     */
/* writing its answers to the module's results file.  Returns 1 if one  */
/* could not be started.                                                 */
static int spawn_symbolizers(void)
{
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  size_t maxrun = ncpu > 0 ? (size_t)ncpu * 2 : 4, running = 0, j, m;
  int failed = 0;

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
      mo->naddr = 0;
      failed = 1;
      continue;
    }
    mo->pid = fork();
    if (mo->pid < 0) {
      error("fork: %s", strerror(errno));
      fclose(mo->results);
      mo->naddr = 0;
      failed = 1;
      continue;
    }
    if (mo->pid == 0) {
      u64 *offs = xrealloc(NULL, mo->naddr * sizeof(*offs));

      for (j = 0; j < mo->naddr; j++)
        offs[j] = addrs[mo->addr_ix[j]].addr - mo->base + mo->image_base;
      _exit(run_symbolizer(mo, offs, mo->naddr, mo->results));
    }
    running++;
  }
  return failed;
}

/* Each child's answers, in its module's order, as they may be shown.    */
/* Returns 1 if a child failed.                                          */
static int collect_answers(void)
{
  size_t j, m;
  int failed = 0;

  for (m = 0; m < nmods; m++) {
    struct module *mo = &mods[m];
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;

    if (mo->naddr == 0) continue;
    if (!mo->reaped) waitpid(mo->pid, &mo->status, 0);
    mo->reaped = 1;
    if (!WIFEXITED(mo->status) || WEXITSTATUS(mo->status) != 0) failed = 1;
    rewind(mo->results);
    for (j = 0; j < mo->naddr
                && (len = getline(&line, &lcap, mo->results)) > 0; j++) {
      if (line[len - 1] == '\n') line[len - 1] = '\0';
      addrs[mo->addr_ix[j]].answer =
        true_answer(mo, addrs[mo->addr_ix[j]].addr - mo->base, line);
    }
    free(line);
    fclose(mo->results);
  }
  return failed;
}

/* Say where there was no full symbol table nor debug file, and names   */
/* were guesses or offsets for want of one.                              */
static void warn_guesses(void)
{
  size_t m;

  for (m = 0; m < nmods; m++)
    if (mods[m].outside > 0 && !elfsyms_full(mods[m].syms))
      warning("%s: no full symbol table and no debug file (build id %s): "
              "%zu of %zu addresses lie outside every function the "
              "module exports, shown as the nearest one marked "
              "\"+0xN?\" (nearest symbol, outside its extent); install "
              "its debug symbols (Debian: the -dbgsym package)",
              mods[m].path, mods[m].build_id[0] ? mods[m].build_id
                                                : "none",
              mods[m].outside, mods[m].checked);
}

/* New answers (resolved functions only) into the cache, replaced whole; */
/* never one that is a link or not a regular file.                        */
static void cache_update(const struct run_cache *c, int quiet)
{
  size_t fresh = 0, j, m;

  for (m = 0; m < nmods; m++)
    for (j = 0; j < mods[m].naddr; j++) {
      const char *ans = addrs[mods[m].addr_ix[j]].answer;

      if (ans != NULL && strncmp(ans, "??\t", 3) != 0) fresh++;
    }
  if (c->path != NULL && !c->refused && fresh > 0)
    cache_write(c->path, c->e, c->n, quiet);
}

/* Sort and deduplicate addrs[], then answer each from the cache or from */
/* addr2line.  *hits: answers from the cache; *unmapped: in no module.   */
/* Returns 0, or 1 if an addr2line run failed (answers so far kept).     */
static int run_resolve(const char *dump, const struct symbolize_opts *o,
                       size_t *hits, size_t *unmapped)
{
  struct run_cache cache;
  int failed = 0;

  *hits = *unmapped = 0;
  dedup_addrs();
  if (o->resolve) find_files(o);
  run_cache_open(&cache, dump, o);
  map_addresses(&cache, o->resolve, hits, unmapped);
  if (o->resolve && !o->quiet) warn_missing_files();
  if (o->resolve) {
    failed = spawn_symbolizers();
    failed |= collect_answers();
    if (!o->quiet) warn_guesses();
    cache_update(&cache, o->quiet);
  }
  run_cache_free(&cache);
  return failed;
}

/* ---- the table handed out -------------------------------------------- */

/* One distinct address, resolved: what frames point into.              */
struct resolved {
  u64 addr;
  struct sym_frame f;
};

struct symtab_impl {
  struct symtab pub;
  struct sym_site *sites;
  size_t nsites, cap;
  u64 *frame_addrs;              /* every site's frames, back to back   */
  size_t nframe_addrs, frame_cap;
  struct resolved *res;          /* sorted by addr                      */
  size_t nres;
  struct sym_frame *frames;      /* per site frame, copies of res[].f   */
  char **strings;                /* everything strdup'd, to free        */
  size_t nstrings, str_cap;
};

static char *keep(struct symtab_impl *t, char *s)
{
  if (t->nstrings == t->str_cap) {
    t->str_cap = t->str_cap ? t->str_cap * 2 : 256;
    t->strings = xrealloc(t->strings, t->str_cap * sizeof(char *));
  }
  t->strings[t->nstrings++] = s;
  return s;
}

static void add_site(struct symtab_impl *t, u64 id, const u64 *a, size_t n)
{
  struct sym_site *s;
  size_t i;

  if (id != 0 && t->nsites >= keymap_max_keys()) {
    /* Bounded (fault 6): stacks beyond the cap are not kept; their     */
    /* rows are folded into "other" by the views, which say so.         */
    keymap_note_folded(1);
    return;
  }
  if (t->nsites == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    t->sites = xrealloc(t->sites, t->cap * sizeof(*t->sites));
  }
  if (t->nframe_addrs + n > t->frame_cap) {
    t->frame_cap = (t->nframe_addrs + n) * 2 + 1024;
    t->frame_addrs = xrealloc(t->frame_addrs,
                              t->frame_cap * sizeof(u64));
  }
  s = &t->sites[t->nsites++];
  s->id = id;
  s->nframes = n;
  /* frames: an index into frame_addrs until finish() makes it a pointer */
  s->frames = (const struct sym_frame *)(uintptr_t)t->nframe_addrs;
  for (i = 0; i < n; i++) {
    t->frame_addrs[t->nframe_addrs++] = a[i];
    add_addr(a[i]);
  }
}

static int site_cmp(const void *a, const void *b)
{
  return u64_cmp(&((const struct sym_site *)a)->id,
                 &((const struct sym_site *)b)->id);
}

static int res_cmp(const void *a, const void *b)
{
  return u64_cmp(&((const struct resolved *)a)->addr,
                 &((const struct resolved *)b)->addr);
}

/* Split "f\tfile:line\tf\tfile:line" into the frame's arrays.           */
static void parse_answer(struct symtab_impl *t, struct sym_frame *f,
                         const char *ans)
{
  char *s = keep(t, xstrdup(ans)), *p = s, *tab;
  size_t cap = 0, n = 0;
  const char **funcs = NULL, **lines = NULL;

  while (p != NULL && *p != '\0') {
    char *fn = p, *fl;

    tab = strchr(p, '\t');
    if (tab) *tab = '\0';
    fl = tab ? tab + 1 : NULL;
    p = NULL;
    if (fl) {
      tab = strchr(fl, '\t');
      if (tab) {
        *tab = '\0';
        p = tab + 1;
      }
    }
    text_unescape(fn);                  /* escaped as addr2line gave it */
    if (fl) text_unescape(fl);
    if (n == 0 && strcmp(fn, "??") == 0) break;     /* unresolved */
    if (n == cap) {
      cap = cap ? cap * 2 : 4;
      funcs = xrealloc(funcs, cap * sizeof(char *));
      lines = xrealloc(lines, cap * sizeof(char *));
    }
    funcs[n] = fn;
    lines[n] = fl ? fl : "??:0";
    n++;
  }
  if (n == 0) {
    free(funcs);
    free(lines);
    return;
  }
  keep(t, (char *)funcs);
  keep(t, (char *)lines);
  f->nfuncs = n;
  f->funcs = funcs;
  f->lines = lines;
}

/* Copy the run's answers into t and point every site's frames at them. */
static void finish(struct symtab_impl *t, size_t hits, size_t unmapped)
{
  size_t i, j, k = 0;

  t->res = xrealloc(NULL, (naddrs ? naddrs : 1) * sizeof(*t->res));
  t->nres = naddrs;
  for (i = 0; i < naddrs; i++) {
    struct resolved *r = &t->res[i];
    const struct address *a = &addrs[i];

    memset(r, 0, sizeof(*r));
    r->addr = a->addr;
    r->f.addr = a->addr;
    if (a->module >= 0) {
      r->f.module = keep(t, xstrdup(module_name(&mods[a->module])));
      r->f.offset = a->addr - mods[a->module].base;
    } else {
      r->f.module = "?";
      r->f.offset = a->addr;
    }
    if (a->answer) parse_answer(t, &r->f, a->answer);
    if (r->f.nfuncs) t->pub.resolved++;
    else t->pub.unresolved++;
  }
  t->frames = xrealloc(NULL, (t->nframe_addrs ? t->nframe_addrs : 1)
                               * sizeof(*t->frames));
  for (i = 0; i < t->nframe_addrs; i++) {
    struct resolved key, *hit;

    key.addr = t->frame_addrs[i];
    hit = bsearch(&key, t->res, t->nres, sizeof(*t->res), res_cmp);
    if (hit) {
      t->frames[i] = hit->f;
    } else {                            /* cannot happen */
      memset(&t->frames[i], 0, sizeof(t->frames[i]));
      t->frames[i].addr = key.addr;
      t->frames[i].module = "?";
      t->frames[i].offset = key.addr;
    }
  }
  for (i = 0; i < t->nsites; i++)
    t->sites[i].frames = t->frames + (uintptr_t)t->sites[i].frames;
  /* Sorted by id; a redefinition (none expected) keeps the first. */
  if (t->nsites > 0)
    qsort(t->sites, t->nsites, sizeof(*t->sites), site_cmp);
  for (i = 0, j = 0; i < t->nsites; i = k) {
    for (k = i + 1; k < t->nsites && t->sites[k].id == t->sites[i].id; k++)
      ;
    t->sites[j++] = t->sites[i];
  }
  t->nsites = j;
  t->pub.sites = t->sites;
  t->pub.nsites = t->nsites;
  t->pub.from_cache = hits;
  t->pub.unmapped = unmapped;
}

static void header_settings(struct symtab_impl *t, const json_t *header)
{
  const json_t *cfg = json_object_get(header, "config");
  const char *mode = json_string_value(json_object_get(cfg, "stacks"));
  const json_t *b = json_object_get(cfg, "stacks_sample_bytes");

  t->pub.stacks_known = mode != NULL;
  t->pub.sample = mode != NULL && strcmp(mode, "sample") == 0;
  if (t->pub.sample && json_is_integer(b) && json_integer_value(b) > 0)
    t->pub.sample_bytes = (u64)json_integer_value(b);
  else
    t->pub.sample = 0;
}

void symbolize_opts_init(struct symbolize_opts *o)
{
  memset(o, 0, sizeof(*o));
  o->debug_dir = "/usr/lib/debug";
  o->use_cache = 1;
  o->resolve = 1;
}

static struct symtab_impl *impl_new(void)
{
  struct symtab_impl *t = xrealloc(NULL, sizeof(*t));

  memset(t, 0, sizeof(*t));
  return t;
}

/* Read the header and, if sites, every record's "sites" into t.       */
static int read_dump(const char *dump, struct symtab_impl *t, int sites,
                     int quiet)
{
  struct dump_reader *d;
  const char *err = NULL;
  json_t *v, *header = NULL;
  enum dump_status st;

  d = dump_open(dump, &err);
  if (d == NULL) return error("%s", err);
  /* Only the sites are read: compactly, the other row tables unread.   */
  if (sites)
    dump_set_lean(d, "sites", "classes types type_rows site_rows rows");
  while ((st = dump_next(d, &v)) == DUMP_RECORD) {
    struct dump_tab defs;
    size_t i;

    if (dump_warning(d) != NULL && !quiet) warning("%s", dump_warning(d));
    if (header == NULL) {
      header = v;
      if (!sites) break;
      if (!quiet) session_warn_cols(d);  /* as the truncation below   */
      continue;
    }
    defs = dump_tab(d, v, "sites");
    for (i = 0; i < dump_tab_rows(&defs); i++) {
      /* By name (the header's columns): the id, then "frames", the rest */
      /* of the row.                                                      */
      long long id, x;
      size_t f0 = DUMP_COL(dump_cols(d), sites, frames);
      size_t n = dump_tab_len(&defs, i), k, m = 0;
      u64 stack[256], *a = stack, ax;

      if (!dump_tab_int(&defs, i, DUMP_COL(dump_cols(d), sites, site_id),
                        &id))
        continue;
      if (f0 > n) f0 = n;
      if (n - f0 > sizeof(stack) / sizeof(stack[0]))
        a = xrealloc(NULL, (n - f0) * sizeof(u64));
      for (k = f0; k < n; k++) {
        if (parse_addr(dump_tab_str(&defs, i, k), &ax))
          a[m++] = ax;
        else if (dump_tab_int(&defs, i, k, &x))
          a[m++] = (u64)x;
      }
      add_site(t, (u64)id, a, m);
      if (a != stack) free(a);
    }
    json_decref(v);
  }
  if (header == NULL) {
    error("%s: %s", dump, st == DUMP_END ? "empty dump" : dump_error(d));
    dump_close(d);
    return -1;
  }
  if (sites && st == DUMP_ERROR) {
    /* A corrupt record is unreadable input, as for every command.      */
    error("%s", dump_error(d));
    json_decref(header);
    dump_close(d);
    return -1;
  }
  if (sites && !quiet && st == DUMP_TRUNCATED)
    warning("%s", dump_error(d));
  if (sites && !quiet && st == DUMP_END && dump_warning(d) != NULL)
    warning("%s", dump_warning(d));     /* a run of blank lines at the end */
  dump_close(d);
  load_modules(header);
  header_settings(t, header);
  json_decref(header);
  return 0;
}

static int run(const char *dump, const struct symbolize_opts *opts,
               struct symtab_impl *t, int sites, const u64 *a, size_t n,
               struct symtab **out)
{
  struct symbolize_opts dflt;
  size_t hits = 0, unmapped = 0;
  int rc = 0;

  if (opts == NULL) {
    symbolize_opts_init(&dflt);
    opts = &dflt;
  }
  run_reset();
  sym_quiet = opts->quiet;
  *out = &t->pub;
  if (!sites) add_site(t, 0, a, n);
  if (read_dump(dump, t, sites, opts->quiet) != 0) {
    rc = -1;
    naddrs = 0;
  } else {
    if (nmods == 0 && naddrs > 0 && !opts->quiet)
      warning("%s: the header lists no modules", dump);
    t->pub.failed = run_resolve(dump, opts, &hits, &unmapped);
  }
  finish(t, hits, unmapped);
  run_reset();
  return rc;
}

int symbolize_dump_sites(const char *dump, const struct symbolize_opts *o,
                         struct symtab **out)
{
  return run(dump, o, impl_new(), 1, NULL, 0, out);
}

int symbolize_addrs(const char *dump, const unsigned long long *a,
                    size_t n, const struct symbolize_opts *o,
                    struct symtab **out)
{
  return run(dump, o, impl_new(), 0, a, n, out);
}

const struct sym_site *symtab_site(const struct symtab *t,
                                   unsigned long long id)
{
  struct sym_site key;

  if (t == NULL || t->nsites == 0) return NULL;
  key.id = id;
  return bsearch(&key, t->sites, t->nsites, sizeof(*t->sites), site_cmp);
}

void symtab_free(struct symtab *pub)
{
  struct symtab_impl *t = (struct symtab_impl *)pub;
  size_t i;

  if (t == NULL) return;
  for (i = 0; i < t->nstrings; i++) free(t->strings[i]);
  free(t->strings);
  free(t->sites);
  free(t->frame_addrs);
  free(t->res);
  free(t->frames);
  free(t);
}

const char *sym_frame_label(const struct sym_frame *f, char *buf,
                            size_t bufsz)
{
  if (f->nfuncs > 0) return f->funcs[0];
  snprintf(buf, bufsz, "%s+0x%llx", f->module ? f->module : "?",
           f->offset);
  return buf;
}

char *sym_site_stack(const struct sym_site *s, const char *sep,
                     int outermost_first, int inlines)
{
  size_t len = 0, cap = 256, i, k, seplen = strlen(sep);
  char *out = xrealloc(NULL, cap), buf[96];

  out[0] = '\0';
  if (s == NULL || s->nframes == 0) {
    free(out);
    return xstrdup("[unknown]");
  }
  for (i = 0; i < s->nframes; i++) {
    const struct sym_frame *f
      = &s->frames[outermost_first ? s->nframes - 1 - i : i];
    size_t nl = inlines && f->nfuncs > 1 ? f->nfuncs : 1;

    for (k = 0; k < nl; k++) {
      const char *l;
      size_t ll;

      if (nl == 1) l = sym_frame_label(f, buf, sizeof(buf));
      else l = f->funcs[outermost_first ? nl - 1 - k : k];
      ll = strlen(l);
      if (len + ll + seplen + 1 > cap) {
        cap = (len + ll + seplen + 1) * 2;
        out = xrealloc(out, cap);
      }
      if (len) {
        memcpy(out + len, sep, seplen);
        len += seplen;
      }
      memcpy(out + len, l, ll);
      len += ll;
      out[len] = '\0';
    }
  }
  return out;
}

double symtab_weight(const struct symtab *t, unsigned long long s)
{
  if (t == NULL || !t->sample || t->sample_bytes == 0 || s == 0)
    return (double)s;
  return sample_weight((double)s, (double)t->sample_bytes);
}

double symtab_scale_bytes(const struct symtab *t, unsigned long long objs,
                          unsigned long long bytes)
{
  if (t == NULL || !t->sample || objs == 0) return (double)bytes;
  return (double)objs * symtab_weight(t, bytes / objs);
}
