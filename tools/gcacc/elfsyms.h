/* SPDX-License-Identifier: MIT */
/*
 * elfsyms.h: the function symbols of ELF files, with their extents, so
 * that a name is shown only for an address inside its symbol (issue 33).
 */
#ifndef GCACC_ELFSYMS_H
#define GCACC_ELFSYMS_H

#include <stddef.h>

struct elfsyms;

/* Adds the STT_FUNC and STT_GNU_IFUNC symbols of path's .symtab and     */
/* .dynsym (defined, of nonzero size) to *s (a new set when *s is NULL).  */
/* Returns 0, or -1 if path is not a readable regular ELF file.  Nothing */
/* read from the file is trusted: every offset is checked against its   */
/* size.                                                                  */
int elfsyms_add(struct elfsyms **s, const char *path);

/* Has any file added so far had a .symtab (not only .dynsym)?           */
int elfsyms_full(const struct elfsyms *s);

/* The symbol whose extent [value, value + size) holds off: its name.    */
/* Otherwise NULL, and *near the nearest symbol at or below off (NULL if  */
/* none), *dist off minus its value.                                      */
const char *elfsyms_find(const struct elfsyms *s, unsigned long long off,
                         const char **near, unsigned long long *dist);

/* .gnu_debuglink's file name of path ("" if none or unreadable).        */
void elfsyms_debuglink(const char *path, char *name, size_t sz);

void elfsyms_free(struct elfsyms *s);

#endif
