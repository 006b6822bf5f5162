/* SPDX-License-Identifier: MIT */
/*
 * diff.h: two sessions compared.  diff.c computes; the two forms are
 * drawn from what it gives, and never call each other: cmd_diff.c
 * (`gcacc diff`: text, CSV, JSON and the threshold) and diff_html.c
 * (the HTML Compare view, `diff --html`).
 *
 * diff_compute reads both dumps (one lean pass each, session_lean) and
 * gives, per size class, kind, type and callsite, the live bytes at each
 * session's compared collection (its peak-live census, or the last with
 * --live last) and the bytes allocated over the session, b minus a,
 * sorted by the absolute change in live bytes, then in allocated bytes.
 *
 * Identity across sessions (issue 23): a type is matched by its name
 * when the name is known; a name that is only the type's address (the
 * collector's "gcj vtable 0x...", "type 0x...", "class 0x...") is
 * matched by where that address is instead, so that address-space
 * randomisation does not split one class in two: module + offset when it
 * lies in a module's image (the header's module map, each image's extent
 * from its ELF file; without the file, when the other dump has such a
 * type at the same module + offset), else its place among the dump's
 * other such addresses outside every image ("heap1+0x40": the first
 * cluster of them in address order, none more than 1 MiB from the next,
 * and the offset from the cluster's start), as classes malloc'd in one
 * order at start-up keep their relative places from run to run.  A callsite is
 * matched by its stack: function names when both dumps' DUMP.symbols know
 * them, else module + offset frames.  Never by raw address.
 */
#ifndef GCACC_DIFF_H
#define GCACC_DIFF_H

#include <stdio.h>
#include "session.h"
#include "tables.h"

#define DIFF_NK SESSION_MAX_KINDS
#define DIFF_NCL SESSION_MAX_CLASSES

/* One row: a size class, a kind, a type or a callsite.                 */
struct diff_row {
  char *key;                    /* type or callsite: the match key       */
  unsigned kind, cls;           /* class and kind rows                   */
  u64 live_a, live_b, alloc_a, alloc_b;
  long long d_live, d_alloc;    /* b - a                                 */
  /* Sampling noise (issue 34): the objects and bytes behind alloc_a +   */
  /* alloc_b, unscaled, for the rows' mean object size; noise: sigma     */
  /* standard errors of d_live, were both sessions' live bytes the same */
  /* (0 for exact figures); within: d_live is not 0 and no larger than  */
  /* noise, a change the samples cannot tell from chance.                */
  u64 size_objs, size_bytes;
  double noise;
  int within;
};
struct diff_rows { struct diff_row *r; size_t n, cap; };

/* One session.                                                          */
struct diff_side {
  const char *path;
  struct session_info info;
  struct tables tb;             /* types and sites                       */
  struct session_summary sum;   /* headline figures                      */
  struct keymap *vtypes, *vsites;   /* live bytes, versioned (diff.c)  */
  struct keymap *addr_keys;     /* id -> char *: types named by address  */
  u64 *live;                    /* [DIFF_NK * DIFF_NCL] at the compared  */
  u64 *alloc;                   /* collection; granted, over the session */
  u64 live_total, live_gc_no, live_census, records;
  int have_live, last;
};

struct diff {
  int last;                     /* --live last                           */
  int resolve;                  /* --symbolize                           */
  int names;                    /* callsites matched by function names   */
  int estimated;                /* either dump's type and site figures   */
                                /* are estimates (profile "sampled")     */
  double sigma;                 /* --sigma: standard errors a change of  */
                                /* an estimate must exceed (default 5)   */
  struct diff_side s[2];
  struct diff_rows classes, kinds, types, sites;
};

/* The default of --sigma: a change of a sampled estimate counts when   */
/* it exceeds 5 standard errors (docs/dump-format.md, "Comparing          */
/* estimates").                                                          */
#define DIFF_SIGMA 5.0

/* Read paths a and b into d (zeroed by it); EXIT_OK, or EXIT_USAGE with */
/* the error printed.  d->last, d->resolve and d->sigma are the caller's, */
/* set before: diff_compute keeps them.                                  */
int diff_compute(struct diff *d, const char *a, const char *b,
                 int progress);
void diff_free(struct diff *d);

/* The note said wherever figures are estimates (NULL when none is):     */
/* "figures by type and callsite are estimated ...".  buf of sz bytes.    */
const char *diff_estimate_note(const struct diff *d, char *buf, size_t sz);

/* The label of a size-class row ("normal 48 B", "kind4 2-4 KiB") or   */
/* of a kind row ("normal"), as text, JSON and HTML print it.            */
const char *diff_row_label(const struct diff *d, int kinds,
                           const struct diff_row *r, char *buf, size_t sz);

/* |x|, as an unsigned figure (a change's magnitude).                   */
static inline u64 diff_mag(long long x)
{
  return x < 0 ? 0ULL - (u64)x : (u64)x;
}

/* v as a size, as every form prints it: "1.2 MiB"; sign: v is a       */
/* change, "+1.2 MiB", "-512 B", "0 B"; est: an estimate, "~" first.     */
/* buf of sz bytes.                                                      */
const char *diff_size_text(u64 v, int sign, int est, char *buf, size_t sz);

/* The HTML Compare view of d (diff_html.c): one self-contained page,   */
/* rows per table at most top (0: all).  0, or -1 on a write error.      */
int compare_write_html(FILE *out, const struct diff *d, unsigned long top);

#endif
