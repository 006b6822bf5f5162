/* SPDX-License-Identifier: MIT */
/*
 * pefile.c: a PE image's identity and its PDB's (pefile.h).
 *
 * Layouts (Microsoft's PE/COFF specification; the MSF 7.00 container of
 * a PDB as LLVM documents it, llvm.org/docs/PDB):
 *   image: "MZ", e_lfanew at 0x3c; there "PE\0\0", the COFF header
 *     (20 bytes: sections at 2, symbol table at 8, symbols at 12,
 *     optional header's size at 16), the optional header (magic 0x10b
 *     PE32 or 0x20b PE32+; ImageBase, SizeOfImage at 56, the data
 *     directories after it: entry 6 is the debug directory), then the
 *     section table (40 bytes a section).  A long section name is "/N",
 *     N an offset into the string table after the COFF symbols.
 *   debug directory entry (28 bytes): Type at 12 (2: CodeView),
 *     SizeOfData at 16, PointerToRawData at 24; CodeView: "RSDS", GUID
 *     (16), age (4), the PDB's path (NUL-terminated).
 *   PDB: a superblock (magic, block size at 32, blocks at 40, the
 *     directory's bytes at 44, the block of its block list at 52); the
 *     directory: stream count, each stream's size, each stream's
 *     blocks.  Stream 1 (PDB): version, signature, age, GUID; stream 3
 *     (DBI): signature, version, age.
 * Every offset and count read is checked against the file's size and
 * small bounds before use.
 */

#include "gcacc.h"
#include "pefile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned long long u64;

#define MAX_IMAGE_FILE ((u64)16 << 30)

static unsigned le16(const unsigned char *p)
{
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
         | (uint32_t)p[3] << 24;
}

/* n bytes at off, all of them, or 0.                                    */
static int read_at(int fd, void *buf, size_t n, u64 off, u64 size)
{
  return off <= size && n <= size - off
         && pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* GUID (Data1, Data2, Data3 little-endian, then Data4's bytes) and age, */
/* as the collector's header writes them (accounting/header.c).          */
static void format_id(char *id, const unsigned char *guid, uint32_t age)
{
  static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
                                 8, 9, 10, 11, 12, 13, 14, 15 };
  int k;

  for (k = 0; k < 16; k++) snprintf(id + 2 * k, 3, "%02X", guid[order[k]]);
  snprintf(id + 32, PE_ID_MAX - 32, "%lX", (unsigned long)age);
}

/* ---- the image ---------------------------------------------------------- */

struct pe_sections {
  int fd;
  u64 size, table, strtab;        /* file offsets; strtab 0: none       */
  unsigned n;
};

/* The file offset of rva, 0 if no section holds it.                     */
static u64 rva_offset(const struct pe_sections *s, uint32_t rva)
{
  unsigned i;

  for (i = 0; i < s->n; i++) {
    unsigned char h[40];
    uint32_t va, vs, raw, ptr;

    if (!read_at(s->fd, h, sizeof(h), s->table + 40 * (u64)i, s->size))
      return 0;
    vs = le32(h + 8); va = le32(h + 12); raw = le32(h + 16); ptr = le32(h + 20);
    if (vs < raw) vs = raw;
    if (rva >= va && rva - va < vs && rva - va < raw)
      return (u64)ptr + (rva - va);
  }
  return 0;
}

static int has_section(const struct pe_sections *s, const char *want)
{
  size_t wl = strlen(want);
  unsigned i;

  for (i = 0; i < s->n; i++) {
    unsigned char h[40];
    char name[64];

    if (!read_at(s->fd, h, sizeof(h), s->table + 40 * (u64)i, s->size))
      return 0;
    memcpy(name, h, 8);
    name[8] = '\0';
    if (name[0] == '/' && s->strtab != 0) {
      u64 at = s->strtab + (u64)strtoul(name + 1, NULL, 10);

      memset(name, 0, sizeof(name));
      if (!read_at(s->fd, name, wl + 1, at, s->size)) continue;
    }
    if (strncmp(name, want, wl + 1) == 0) return 1;
  }
  return 0;
}

/* The CodeView record of the debug directory (rva, bytes) into pe.      */
static void read_codeview(const struct pe_sections *s, uint32_t rva,
                          uint32_t bytes, struct pe_image *pe)
{
  u64 at = rva_offset(s, rva);
  unsigned i;

  for (i = 0; at != 0 && i < 16 && 28 * (i + 1) <= bytes; i++) {
    unsigned char d[28], cv[24];
    uint32_t len, ptr;
    size_t k;

    if (!read_at(s->fd, d, sizeof(d), at + 28 * (u64)i, s->size)) return;
    len = le32(d + 16);
    ptr = le32(d + 24);
    if (le32(d + 12) != 2 || len < sizeof(cv) + 1
        || !read_at(s->fd, cv, sizeof(cv), ptr, s->size)
        || memcmp(cv, "RSDS", 4) != 0)
      continue;
    format_id(pe->codeview, cv + 4, le32(cv + 20));
    k = len - sizeof(cv);
    if (k > sizeof(pe->pdb) - 1) k = sizeof(pe->pdb) - 1;
    if (!read_at(s->fd, pe->pdb, k, (u64)ptr + sizeof(cv), s->size)) k = 0;
    pe->pdb[k] = '\0';            /* up to its NUL (strlen)            */
    return;
  }
}

int pe_read(const char *path, struct pe_image *pe)
{
  struct stat st;
  int fd = open_regular(path, 0, MAX_IMAGE_FILE, &st, NULL);
  unsigned char h[64], coff[24], o[112 + 16 * 8];
  struct pe_sections s;
  unsigned magic, optsz, ndirs, dd;
  u64 lfa;
  int rc = -1;

  memset(pe, 0, sizeof(*pe));
  if (fd < 0) return -1;
  s.fd = fd;
  s.size = (u64)st.st_size;
  if (!read_at(fd, h, sizeof(h), 0, s.size) || h[0] != 'M' || h[1] != 'Z')
    goto out;
  lfa = le32(h + 0x3c);
  if (lfa > ((u64)1 << 20) || !read_at(fd, coff, sizeof(coff), lfa, s.size)
      || memcmp(coff, "PE\0\0", 4) != 0)
    goto out;
  optsz = le16(coff + 20);
  memset(o, 0, sizeof(o));
  if (optsz < 64
      || !read_at(fd, o, optsz < sizeof(o) ? optsz : sizeof(o), lfa + 24,
                  s.size))
    goto out;
  magic = le16(o);
  if (magic == 0x20b) {                 /* PE32+: ImageBase at 24, 8 B  */
    pe->image_base = (u64)le32(o + 24) | (u64)le32(o + 28) << 32;
    ndirs = le32(o + 108);
    dd = 112;
  } else if (magic == 0x10b) {          /* PE32: ImageBase at 28, 4 B   */
    pe->image_base = le32(o + 28);
    ndirs = le32(o + 92);
    dd = 96;
  } else {
    goto out;
  }
  pe->size = le32(o + 56);              /* SizeOfImage, at 56 in both   */
  rc = 0;
  s.n = le16(coff + 6);
  s.table = lfa + 24 + optsz;
  s.strtab = le32(coff + 12) != 0
             ? (u64)le32(coff + 12) + 18 * (u64)le32(coff + 16) : 0;
  if (s.n > 96) s.n = 96;               /* the specification's limit    */
  pe->has_dwarf = has_section(&s, ".debug_info");
  if (ndirs > 6 && dd + 8 * 7 <= optsz && dd + 8 * 7 <= sizeof(o))
    read_codeview(&s, le32(o + dd + 48), le32(o + dd + 52), pe);
out:
  close(fd);
  return rc;
}

/* ---- the PDB ------------------------------------------------------------ */

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";

struct msf {
  int fd;
  u64 size;
  uint32_t block, nblocks;
  unsigned char *dir;             /* the stream directory               */
  uint32_t dirsz;
};

/* The first n bytes of stream k into buf; 0 if it has fewer.            */
static int msf_stream_head(const struct msf *m, uint32_t k, void *buf,
                           size_t n)
{
  uint32_t nstreams = le32(m->dir), i, blocks = 0, first, ssize;
  u64 at;

  if (k >= nstreams || 4 + 4 * (u64)nstreams > m->dirsz) return 0;
  for (i = 0; i < k; i++) {
    uint32_t sz = le32(m->dir + 4 + 4 * i);

    if (sz != 0xffffffffu) blocks += (sz + m->block - 1) / m->block;
    if (blocks > m->nblocks) return 0;
  }
  ssize = le32(m->dir + 4 + 4 * k);
  at = 4 + 4 * (u64)nstreams + 4 * (u64)blocks;
  if (ssize == 0xffffffffu || ssize < n || n > m->block || at + 4 > m->dirsz)
    return 0;
  first = le32(m->dir + at);
  return first < m->nblocks
         && read_at(m->fd, buf, n, (u64)first * m->block, m->size);
}

static const char *msf_open(struct msf *m)
{
  unsigned char sb[56], map[4096];
  uint32_t nb, i, mapblk;

  if (!read_at(m->fd, sb, sizeof(sb), 0, m->size)
      || memcmp(sb, msf_magic, sizeof(msf_magic)) != 0)
    return "not a PDB (no MSF 7.00 superblock)";
  m->block = le32(sb + 32);
  m->nblocks = le32(sb + 40);
  m->dirsz = le32(sb + 44);
  mapblk = le32(sb + 52);
  if (m->block != 512 && m->block != 1024 && m->block != 2048
      && m->block != 4096)
    return "a PDB with an unknown block size";
  nb = (m->dirsz + m->block - 1) / m->block;
  if (m->dirsz < 8 || 4 * (u64)nb > m->block || mapblk >= m->nblocks
      || !read_at(m->fd, map, 4 * (size_t)nb, (u64)mapblk * m->block,
                  m->size))
    return "a PDB whose stream directory cannot be read";
  m->dir = xrealloc(NULL, (size_t)nb * m->block);
  for (i = 0; i < nb; i++) {
    uint32_t b = le32(map + 4 * i);

    if (b >= m->nblocks
        || !read_at(m->fd, m->dir + (size_t)i * m->block, m->block,
                    (u64)b * m->block, m->size))
      return "a PDB whose stream directory is cut";
  }
  return NULL;
}

int pdb_ident(const char *path, char *id, const char **why)
{
  struct stat st;
  struct msf m;
  unsigned char info[28], dbi[12];
  const char *bad;

  id[0] = '\0';
  memset(&m, 0, sizeof(m));
  m.fd = open_regular(path, 0, MAX_IMAGE_FILE, &st, why);
  if (m.fd < 0) return -1;
  m.size = (u64)st.st_size;
  bad = msf_open(&m);
  if (bad == NULL && !msf_stream_head(&m, 1, info, sizeof(info)))
    bad = "a PDB without its PDB stream";
  if (bad == NULL)
    format_id(id, info + 12, msf_stream_head(&m, 3, dbi, sizeof(dbi))
                             ? le32(dbi + 8) : le32(info + 8));
  free(m.dir);
  close(m.fd);
  if (why != NULL && bad != NULL) *why = bad;
  return bad == NULL ? 0 : -1;
}
