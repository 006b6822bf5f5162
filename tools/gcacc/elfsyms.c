/* SPDX-License-Identifier: MIT */
/*
 * elfsyms.c: the function symbols of ELF files (elfsyms.h).
 *
 * A stripped shared library keeps only its dynamic symbol table: its
 * static functions have no symbol, and the nearest preceding exported
 * one (what addr2line names without debug information) usually ends well
 * before the address.  The extents read here let the symbolizer name a
 * function only when the address lies inside it.
 */

#include "elfsyms.h"
#include "gcacc.h"
#include "session.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct esym {
  u64 lo, hi;
  char *name;
};

struct elfsyms {
  struct esym *v;
  size_t n, cap;
  int sorted, full;
};

/* The file mapped read-only, if it is a regular ELF file.              */
static const unsigned char *map_elf(const char *path, u64 *size)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  void *m;

  if (fd < 0) return NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)
      || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return NULL;
  }
  m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return NULL;
  if (memcmp(m, ELFMAG, SELFMAG) != 0
      || (((unsigned char *)m)[EI_CLASS] != ELFCLASS64
          && ((unsigned char *)m)[EI_CLASS] != ELFCLASS32)) {
    munmap(m, (size_t)st.st_size);
    return NULL;
  }
  *size = (u64)st.st_size;
  return m;
}

/* Section i's header fields, checked to lie in the file; 0 if not.     */
struct sect { u64 type, off, size, link, entsize; };

static int section(const unsigned char *m, u64 size, size_t i,
                   struct sect *s)
{
  int is64 = m[EI_CLASS] == ELFCLASS64;
  u64 shoff, shnum, shent;

  if (is64) {
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    shoff = eh->e_shoff; shnum = eh->e_shnum; shent = eh->e_shentsize;
    if (shent != sizeof(Elf64_Shdr)) return 0;
  } else {
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)m;
    shoff = eh->e_shoff; shnum = eh->e_shnum; shent = eh->e_shentsize;
    if (shent != sizeof(Elf32_Shdr)) return 0;
  }
  if (i >= shnum || shoff == 0 || shoff > size
      || shnum * shent > size - shoff)
    return 0;
  if (is64) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + shoff + i * shent);
    s->type = sh->sh_type; s->off = sh->sh_offset; s->size = sh->sh_size;
    s->link = sh->sh_link; s->entsize = sh->sh_entsize;
  } else {
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(m + shoff + i * shent);
    s->type = sh->sh_type; s->off = sh->sh_offset; s->size = sh->sh_size;
    s->link = sh->sh_link; s->entsize = sh->sh_entsize;
  }
  if (s->type == SHT_NOBITS) s->size = 0;
  return s->off <= size && s->size <= size - s->off;
}

static size_t nsections(const unsigned char *m)
{
  return m[EI_CLASS] == ELFCLASS64 ? ((const Elf64_Ehdr *)m)->e_shnum
                                   : ((const Elf32_Ehdr *)m)->e_shnum;
}

static void add_sym(struct elfsyms *s, u64 lo, u64 sz, const char *name,
                    size_t maxlen)
{
  size_t len = strnlen(name, maxlen);

  if (len == 0 || len == maxlen) return;      /* unterminated: skipped */
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 1024;
    s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
  }
  s->v[s->n].lo = lo;
  s->v[s->n].hi = lo + sz;
  s->v[s->n].name = xrealloc(NULL, len + 1);
  memcpy(s->v[s->n].name, name, len);
  s->v[s->n].name[len] = '\0';
  s->n++;
  s->sorted = 0;
}

int elfsyms_add(struct elfsyms **sp, const char *path)
{
  u64 size;
  const unsigned char *m = map_elf(path, &size);
  struct elfsyms *s;
  size_t i, n;
  int is64;

  if (m == NULL) return -1;
  if (*sp == NULL) {
    *sp = xrealloc(NULL, sizeof(**sp));
    memset(*sp, 0, sizeof(**sp));
  }
  s = *sp;
  is64 = m[EI_CLASS] == ELFCLASS64;
  n = nsections(m);
  for (i = 0; i < n; i++) {
    struct sect sy, st;
    u64 k, ent = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

    if (!section(m, size, i, &sy)
        || (sy.type != SHT_SYMTAB && sy.type != SHT_DYNSYM))
      continue;
    if (sy.entsize != ent || !section(m, size, (size_t)sy.link, &st)
        || st.type != SHT_STRTAB || st.size == 0)
      continue;
    if (sy.type == SHT_SYMTAB) s->full = 1;
    for (k = 0; k + 1 <= sy.size / ent; k++) {
      const unsigned char *q = m + sy.off + k * ent;
      u64 name, value, sz;
      unsigned type, shndx;

      if (is64) {
        const Elf64_Sym *e = (const Elf64_Sym *)q;
        name = e->st_name; value = e->st_value; sz = e->st_size;
        type = ELF64_ST_TYPE(e->st_info); shndx = e->st_shndx;
      } else {
        const Elf32_Sym *e = (const Elf32_Sym *)q;
        name = e->st_name; value = e->st_value; sz = e->st_size;
        type = ELF32_ST_TYPE(e->st_info); shndx = e->st_shndx;
      }
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF
          || sz == 0 || name >= st.size || value + sz < value)
        continue;
      add_sym(s, value, sz, (const char *)m + st.off + name,
              (size_t)(st.size - name));
    }
  }
  munmap((void *)m, (size_t)size);
  return 0;
}

int elfsyms_full(const struct elfsyms *s)
{
  return s != NULL && s->full;
}

static int esym_cmp(const void *a, const void *b)
{
  const struct esym *x = a, *y = b;

  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi) return x->hi > y->hi ? -1 : 1;   /* longest first */
  return strcmp(x->name, y->name);
}

const char *elfsyms_find(const struct elfsyms *cs, unsigned long long off,
                         const char **near, unsigned long long *dist)
{
  struct elfsyms *s = (struct elfsyms *)cs;
  size_t lo = 0, hi, i;

  *near = NULL;
  *dist = 0;
  if (s == NULL || s->n == 0) return NULL;
  if (!s->sorted) {
    qsort(s->v, s->n, sizeof(*s->v), esym_cmp);
    s->sorted = 1;
  }
  hi = s->n;
  while (lo < hi) {                     /* the first symbol above off */
    size_t mid = lo + (hi - lo) / 2;

    if (s->v[mid].lo <= off) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return NULL;
  *near = s->v[lo - 1].name;
  *dist = off - s->v[lo - 1].lo;
  /* Symbols may nest or overlap (aliases, a function inside another's  */
  /* range): any one at or below off that holds it.  Going down, the     */
  /* first found is the innermost start.                                 */
  for (i = lo; i-- > 0;) {
    if (off < s->v[i].hi) return s->v[i].name;
    if (lo - i > 64) break;             /* far enough: none holds it   */
  }
  return NULL;
}

void elfsyms_debuglink(const char *path, char *name, size_t sz)
{
  u64 size;
  const unsigned char *m = map_elf(path, &size);
  size_t i, n;
  struct sect shstr, s;
  u64 shstrndx;

  name[0] = '\0';
  if (m == NULL || sz == 0) goto out;
  shstrndx = m[EI_CLASS] == ELFCLASS64 ? ((const Elf64_Ehdr *)m)->e_shstrndx
                                       : ((const Elf32_Ehdr *)m)->e_shstrndx;
  if (!section(m, size, (size_t)shstrndx, &shstr)) goto out;
  n = nsections(m);
  for (i = 0; i < n; i++) {
    u64 nm;
    const char *sn;

    if (!section(m, size, i, &s) || s.type != SHT_PROGBITS) continue;
    nm = m[EI_CLASS] == ELFCLASS64
           ? ((const Elf64_Shdr *)(m + ((const Elf64_Ehdr *)m)->e_shoff)
              + i)->sh_name
           : ((const Elf32_Shdr *)(m + ((const Elf32_Ehdr *)m)->e_shoff)
              + i)->sh_name;
    if (nm >= shstr.size) continue;
    sn = (const char *)m + shstr.off + nm;
    if (strnlen(sn, (size_t)(shstr.size - nm)) != 14
        || memcmp(sn, ".gnu_debuglink", 14) != 0)
      continue;
    {
      size_t len = strnlen((const char *)m + s.off, (size_t)s.size);

      if (len == 0 || len == s.size || len >= sz || strchr((const char *)m
          + s.off, '/') != NULL)
        goto out;
      memcpy(name, m + s.off, len);
      name[len] = '\0';
    }
    break;
  }
out:
  if (m != NULL) munmap((void *)m, (size_t)size);
}

void elfsyms_free(struct elfsyms *s)
{
  size_t i;

  if (s == NULL) return;
  for (i = 0; i < s->n; i++) free(s->v[i].name);
  free(s->v);
  free(s);
}
