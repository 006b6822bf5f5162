/* SPDX-License-Identifier: MIT */
/*
 * gcacc.h: what the reader's subcommands share.
 *
 * The reader depends only on the dump format (docs/dump-format.md and its
 * field list, accounting/gca_fields.h: plain preprocessor lists the
 * writer shares), zlib and jansson: never on the collector.  Each subcommand lives in
 * cmd_<name>.c as `int cmd_<name>(int argc, char **argv)`, with its usage
 * lines and option table at the top of its file.
 */
#ifndef GCACC_H
#define GCACC_H

#include <stdio.h>
#include "emit.h"

/* Exit statuses, listed in `gcacc --help` and gcacc.1.md. */
enum {
  EXIT_OK = 0,          /* success                                          */
  EXIT_FINDING = 1,     /* a finding a script may act on (diff over        */
                        /* threshold, a leak found)                         */
  EXIT_USAGE = 2        /* bad usage, or input that cannot be read          */
};

/* Messages in git's style: `gcacc: error: ...` / `gcacc <cmd>: error:`. */
extern const char *gcacc_cmd;   /* the running subcommand, for messages */
int error(const char *fmt, ...);          /* prints, returns -1         */
void warning(const char *fmt, ...);
int usage_error(const char *fmt, ...);    /* + "see 'gcacc X --help'";  */
                                          /* returns EXIT_USAGE         */

/* Options every view shares: --json, --csv, -o FILE, --no-progress.    */
struct common_opts {
  enum emit_format format;
  const char *output;     /* NULL: stdout */
  int progress;           /* -1 auto (only on a terminal), 0 off, 1 on */
};
/* If argv[*i] is a common option, consume it (and its argument) and   */
/* return 1; 0 if it is not one; -1 on a missing argument.             */
int common_opt(struct common_opts *o, int argc, char **argv, int *i);
/* The rest of a view's option loop, for an argv[*i] none of the view's */
/* own options took: --help or -h prints usage on stdout and returns    */
/* EXIT_OK; a common option is consumed (ARG_TAKEN: go on); any other    */
/* option is a usage error (message printed, EXIT_USAGE); anything else  */
/* is an operand (ARG_OPERAND).  Other than ARG_*: the command's status. */
enum { ARG_TAKEN = -1, ARG_OPERAND = -2 };
int view_arg(struct common_opts *o, const char *usage, int argc, char **argv,
             int *i);
/* view_arg for a view of one dump: an operand is the dump, set in      */
/* *path (a second one is a usage error, "one dump at a time").          */
/* ARG_TAKEN: go on; else what view_arg said (EXIT_OK after --help).     */
int view_dump_arg(struct common_opts *o, const char *usage, int argc,
                  char **argv, int *i, const char **path);
/* The value of the option argv[*i] (*i moves past it), or NULL with    */
/* "option '...' needs a value" printed when argv[*i] is the last.       */
const char *opt_value(int argc, char **argv, int *i);
FILE *common_output(const struct common_opts *o);   /* NULL on error */
void common_close(const struct common_opts *o, FILE *f);

/* Strings from a dump (paths, names, stacks) are escaped where they    */
/* are written, so that none can forge a line or a field (issue 25,      */
/* fault 7).  text_escape: s into dst (cap bytes, NUL-terminated, cut    */
/* if short) with control characters as \n \t \r \xNN, and a backslash  */
/* as \\ if backslash (for files read back: text_unescape reverses it,  */
/* in place); returns the escaped length.  fputs_escaped: the same, to f, */
/* backslashes kept.                                                     */
size_t text_escape(char *dst, size_t cap, const char *s, int backslash);
size_t text_unescape(char *s);
void fputs_escaped(const char *s, FILE *f);

/* Open a file whose name came from a dump, or is made from a dump's    */
/* name (module files, debug files, DUMP.symbols), to read it (issue 38, */
/* fault 2): only a regular file, never blocking on a FIFO or a device   */
/* (opened O_NONBLOCK, checked with fstat, then blocking again), not     */
/* through a symbolic link if nofollow, at most max bytes (0: no cap).   */
/* Returns the descriptor (O_CLOEXEC), *st filled if st; or -1 with      */
/* *why (if why) a static reason, "No such file or directory", "a       */
/* symbolic link", "not a regular file (a FIFO, a device or a          */
/* directory)" or "larger than N MiB", and errno set (ENOENT, ELOOP,    */
/* EINVAL, EFBIG, or open's).                                             */
struct stat;
int open_regular(const char *path, int nofollow, unsigned long long max,
                 struct stat *st, const char **why);

/* realloc, or "out of memory" and exit(EXIT_USAGE).                    */
void *xrealloc(void *p, size_t n);
/* s (NULL: none) as one address (or other unsigned integer) in C        */
/* syntax: 0x... hex, 0... octal, else decimal, nothing after it.        */
/* Nonzero, and *out set, if it is one.                                  */
int parse_addr(const char *s, unsigned long long *out);

/* Progress on a terminal (stderr), throttled; quiet otherwise.         */
void progress_update(int enabled, const char *what, unsigned long long done,
                     unsigned long long total);
void progress_done(int enabled);

#endif
