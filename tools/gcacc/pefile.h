/* SPDX-License-Identifier: MIT */
/*
 * pefile.h: what `gcacc symbolize` needs of a Windows module's files,
 * a PE image and its PDB, read from their headers (a few kilobytes,
 * through open_regular: never a FIFO, bounded, nothing trusted).
 *
 * A PE image names its PDB in its CodeView debug record ("RSDS": the
 * PDB's GUID, its age, its path); the collector writes the same record
 * into the dump header's module map as build_id (GUID then age, as a
 * symbol server names them: 32 hex digits, then the age's, upper case).
 * pe_read() gives an image's record in that form, pdb_ident() a PDB's,
 * so that an image or a PDB of another build is recognised, not read.
 */
#ifndef GCACC_PEFILE_H
#define GCACC_PEFILE_H

#include <stddef.h>

#define PE_ID_MAX 48            /* "GUID(32)AGE(up to 8)" and its NUL */

struct pe_image {
  unsigned long long image_base;  /* the preferred base (ImageBase)     */
  unsigned long long size;        /* SizeOfImage                         */
  char codeview[PE_ID_MAX];       /* GUID and age; "" without a record   */
  char pdb[1024];                 /* the record's PDB path; "" if none   */
  int has_dwarf;                  /* a .debug_info section (mingw's)     */
};

/* 0 and *pe filled if path is a PE image (PE32 or PE32+); -1 if not.  */
int pe_read(const char *path, struct pe_image *pe);

/* 0 and id (PE_ID_MAX bytes) set to the PDB's GUID and age, as the     */
/* image's record names them (the PDB stream's GUID, the DBI stream's   */
/* age, which is the one the image records); -1 with *why (a static     */
/* reason) if path is no PDB (MSF 7.00) that can be read.               */
int pdb_ident(const char *path, char *id, const char **why);

#endif
