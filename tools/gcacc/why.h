/* SPDX-License-Identifier: MIT */
/*
 * why.h: the dump's retention records read into plain JSON (why_paths.c),
 * for `gcacc why` (cmd_why.c) and the report's Why view (cmd_report.c).
 */
#ifndef GCACC_WHY_H
#define GCACC_WHY_H

#include <jansson.h>

struct why_ctx;

/* symbols: name static roots by the data symbol (nm) as well.          */
struct why_ctx *why_new(int symbols);
void why_free(struct why_ctx *c);
/* The header record: its module map names static roots.                */
void why_header(struct why_ctx *c, const json_t *header);
/* One "retain" record as `gcacc why --json` gives it (a request: gc_no, */
/* request, found, wanted, partial, timed_out, visited, pause_ns,        */
/* memory_bytes, paths, each path its depth, root (kind, text, module,   */
/* offset, symbol...) and steps (addr, kind, bytes, type, site,          */
/* ref_word, conservative)); NULL if the record is not what the format   */
/* says (*bad counts them) or want_type / the site filter leave nothing  */
/* of it.  Kinds are named by kind_names_note's names (session.h).       */
json_t *why_record(struct why_ctx *c, const json_t *rec,
                   const char *want_type, int have_site,
                   unsigned long long want_site, int *bad);
/* The record's request in words ("T.Leak", "callsite 12", "(a cookie)"), */
/* into buf.                                                              */
const char *why_request_text(const json_t *req, char *buf, size_t sz);
/* The reason a walk was partial, "" if it was not.                     */
const char *why_partial_text(const json_t *jr);

#endif
