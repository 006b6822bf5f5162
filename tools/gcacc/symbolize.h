/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h: the dump's call stacks ("sites", docs/dump-format.md),
 * resolved to modules, offsets and function names.
 *
 * symbolize_dump_sites() reads every "sites" definition of a dump (from
 * collection and frame records alike) and resolves each return address
 * through the header's module map: module + offset always, function and
 * file:line from the cache DUMP.symbols and, if opts->resolve, from
 * addr2line for what the cache does not know (new answers are added
 * to the cache).  This is what `gcacc symbolize` does with no addresses;
 * top, leaks, export and diff call it to show or match stacks.
 *
 * The cache file (DUMP.symbols) is plain text, one line per resolved
 * address: "#S\t<build id, or module path>\t0x<offset>\t<function>\t
 * <file:line>[\t<function>\t<file:line>...]" (innermost function first,
 * then the functions it is inlined into), each field escaped as
 * text_escape does with backslashes (gcacc.h); other lines are comments.
 * Every line starts with '#' and nothing from a dump starts one: a cache
 * planted where a shell or another program reads its input runs nothing.
 * It is replaced whole (a new file, renamed over it), never written
 * through a symbolic link; a DUMP.symbols that is a link or not a regular
 * file is neither read nor written, with a warning (issue 38, fault 1).
 *
 * Everything returned lives in the struct symtab until symtab_free().
 */
#ifndef GCACC_SYMBOLIZE_H
#define GCACC_SYMBOLIZE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* The cache, for its other readers (tables.c).  symcache_open: path   */
/* (DUMP.symbols) to read, if a regular file (not a link, not a FIFO,   */
/* at most 64 MiB), else NULL, with a warning unless it does not exist  */
/* or quiet (*refused, if not NULL: it must not be replaced either).    */
/* symcache_line: one line (no newline) split in place: 1 and *key      */
/* (unescaped), *off and *answer (the fields, escaped, tab-separated)   */
/* if it is an entry, else 0.                                            */
/* Entries read at most (each costs some 100 bytes in memory): the rest */
/* of a bigger cache is not read, with a warning (symcache_full).        */
#define SYMCACHE_MAX_ENTRIES 1000000
FILE *symcache_open(const char *path, int *refused, int quiet);
void symcache_full(const char *path);
int symcache_line(char *line, const char **key, unsigned long long *off,
                  char **answer);

struct symbolize_opts {
  const char *const *search;  /* --search-path directories (may be NULL)  */
  int nsearch;
  const char *debug_dir;      /* NULL: /usr/lib/debug                     */
  int use_cache;              /* read (and, if resolve, append to)        */
                              /* DUMP.symbols                             */
  int resolve;                /* 1: run addr2line for what the cache      */
                              /* lacks; 0: cache only (never spawns)      */
  int quiet;                  /* no warnings (missing binaries, ...)      */
};
/* Defaults: no search path, /usr/lib/debug, cache on, resolve on, loud. */
void symbolize_opts_init(struct symbolize_opts *o);

struct sym_frame {
  unsigned long long addr;    /* absolute return address, as in the dump  */
  const char *module;         /* module basename, "?" if in no module     */
  unsigned long long offset;  /* addr - module base (addr if no module)   */
  /* Resolved function names, innermost first: funcs[0] contains the     */
  /* address, funcs[1..] are the functions it is inlined into.  nfuncs 0 */
  /* when unresolved (no binary, not in the cache, resolve off).         */
  size_t nfuncs;
  const char *const *funcs;
  const char *const *lines;   /* "file:line" per funcs[i] ("??:0" unknown) */
};

struct sym_site {
  unsigned long long id;      /* the dump's site id (2 and up)            */
  size_t nframes;             /* 0: "stack unknown"                       */
  const struct sym_frame *frames;   /* innermost first, as in the dump    */
};

struct symtab {
  size_t nsites;
  const struct sym_site *sites;     /* sorted by id                       */
  size_t resolved, unresolved;      /* distinct addresses, by outcome     */
  int sample;                       /* header config: stacks "sample"     */
  unsigned long long sample_bytes;  /* B of "Sampling" (0 unless sample)  */
  int stacks_known;                 /* the header has a "stacks" setting  */
  size_t from_cache;                /* distinct addresses the cache knew  */
  size_t unmapped;                  /* distinct addresses in no module    */
  int failed;                       /* an addr2line run failed            */
};

/* Read the sites of dump and resolve them.  *out is always set (an     */
/* empty table when the dump has no sites).  Returns 0, or -1 with an    */
/* error printed when the dump cannot be read.                           */
int symbolize_dump_sites(const char *dump, const struct symbolize_opts *o,
                         struct symtab **out);
/* Resolve arbitrary absolute addresses of dump's process (what         */
/* `gcacc symbolize` does with addresses given): *out has one site, id  */
/* 0, whose frames are addrs[0 .. n - 1] in that order.  Sites of the    */
/* dump are not read.  Returns as symbolize_dump_sites.                  */
int symbolize_addrs(const char *dump, const unsigned long long *addrs,
                    size_t n, const struct symbolize_opts *o,
                    struct symtab **out);
/* How far a module's image reaches from its base (the end of its last  */
/* PT_LOAD segment), read from the module's file (its path, or          */
/* /usr/lib/debug by build id; a file whose build id differs is not     */
/* taken); 0 when no file is found.  An address at or beyond it is not   */
/* in the module (the heap, an anonymous mapping).                       */
unsigned long long symbolize_module_extent(const char *path,
                                           const char *build_id);
/* The site of id, or NULL.                                              */
const struct sym_site *symtab_site(const struct symtab *t,
                                   unsigned long long id);
void symtab_free(struct symtab *t);

/* A frame's label: its innermost function name if resolved, else        */
/* "module+0xoffset" ("?+0xaddr" outside every module).  Stable across   */
/* runs of the same binaries (no absolute address), so usable as a key.  */
/* buf of at least 64 bytes is used only for the unresolved form.        */
const char *sym_frame_label(const struct sym_frame *f, char *buf,
                            size_t bufsz);

/* A whole stack as one malloc'd string (caller frees): the frames'     */
/* labels joined by sep, outermost first if outermost_first, else       */
/* innermost first.  With inlines, each physical frame contributes its   */
/* inline chain (outer functions before inner ones when outermost        */
/* first).  "[unknown]" for a stack with no frames.                      */
char *sym_site_stack(const struct sym_site *s, const char *sep,
                     int outermost_first, int inlines);

/* w(s) of "Sampling": the bytes a sampled object of s bytes stands for; */
/* s itself when t is not sampling.                                      */
double symtab_weight(const struct symtab *t, unsigned long long s);
/* A site row's bytes scaled: objs objects of bytes in all, each taken   */
/* at the mean size bytes / objs: objs * w(bytes / objs).  bytes itself  */
/* when t is not sampling (or objs is 0).                                */
double symtab_scale_bytes(const struct symtab *t, unsigned long long objs,
                          unsigned long long bytes);

#endif
