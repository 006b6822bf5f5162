/* SPDX-License-Identifier: MIT */
/*
 * leaks.h: what grows steadily across a session (leaks.c: the rules,
 * rules 1-9 at the top of that file; cmd_leaks.c: `gcacc leaks`, the
 * command line and the tables).
 */
#ifndef GCACC_LEAKS_H
#define GCACC_LEAKS_H

#include "session.h"
#include "tables.h"
#include "gca_leak_rule.h"  /* shared with GC_ACC_RETAIN=auto's choice */

#define LEAK_WINDOWS GCA_LEAK_WINDOWS
#define LEAK_MIN_GROWTH GCA_LEAK_MIN_GROWTH
#define LEAK_MIN_OLD_SHARE GCA_LEAK_MIN_OLD_SHARE
#define LEAK_MIN_CHURN 4.0
#define LEAK_MIN_CHURN_FRAMED 2.0
#define LEAK_MAX_MIX 0.03

/* One session folded: per key a fixed set of windows (leaks.c).        */
struct leaks {
  u64 n;                                /* census records (first pass)   */
  unsigned windows;
  u64 i;                                /* census records so far         */
  u64 wrecords[LEAK_WINDOWS];
  struct keymap *m;
  struct keymap *mt, *ms;               /* types, sites: id -> leak_key  */
  struct tables tb;
  /* The session's evidence (rules 8, 9).                               */
  u64 alloc;                            /* granted bytes, all records    */
  u64 peak;                             /* highest total live bytes      */
  u64 walloc[LEAK_WINDOWS];             /* granted bytes per window      */
  u64 frames, wframes[LEAK_WINDOWS];    /* frame records, per window     */
};

/* Rules 7-9: why a finding is weak, or what makes it strong.           */
enum leak_reason {
  LEAK_FRAMES, LEAK_CHURN,                      /* strong                */
  LEAK_STOPS, LEAK_LITTLE_CHURN, LEAK_MIX       /* weak: rules 7, 8, 9   */
};
#define LEAK_WEAK(r) ((r) >= LEAK_STOPS)

/* Rules 8 and 9, judged once for the session.                          */
struct leak_evidence {
  int framed;                           /* frames in every later window  */
  double churn;                         /* allocated / peak live         */
  double mix;                           /* rule 9: median distance       */
};

/* One key found growing (rules 1-5, and 6 for types and sites).        */
struct leak_finding {
  u64 key, start, end;
  double slope;
  unsigned rises;
  double old_start, old_end;            /* types, sites: rule 6          */
  enum leak_reason reason;              /* rules 7-9                     */
};

/* The verdicts: per size class, type and callsite, and the session's   */
/* evidence.                                                             */
struct leak_report {
  struct leak_finding *found, *ftypes, *fsites;
  size_t nfound, ntypes, nsites, nstrong;
  struct leak_evidence ev;
};

/* Both passes over the dump at path into l (zeroed by it): the census */
/* count, then every record folded; info filled.  EXIT_OK, or the        */
/* reader's status with the error printed.  leaks_free after, either way. */
int leaks_read(struct leaks *l, struct session_info *info, const char *path,
               int progress);
void leaks_free(struct leaks *l, struct session_info *info);

/* Judge every size class, type and callsite of l (none, with a warning, */
/* under min_coll censuses) into rep: the findings sorted, each with its */
/* level, and nstrong.  leaks_report_free after.                          */
void leaks_judge(struct leaks *l, const char *path, u64 min_coll,
                 struct leak_report *rep);
void leaks_report_free(struct leak_report *rep);

#endif
