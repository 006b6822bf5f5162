/* SPDX-License-Identifier: MIT */
/*
 * report_views.h: the Frames and TopN views of `gcacc report`
 * (report_views.c; the page's script is report.js, embedded).
 *
 * While the report scans a dump, rv_frame takes every frame record; at
 * the end, rv_write_data writes what the views show as one JSON block
 * (<script type="application/json" id="gcacc-data">) and
 * rv_write_views the two views' sections and the script.  Memory and
 * page size are bounded whatever the dump's length: frames are kept in
 * at most RV_FRAME_POINTS points (neighbours merged two by two when
 * full, as the timeline's buckets are), each with its rows per (type,
 * callsite) and per kind (a frame record's kind_rows, exact) summed,
 * plus the RV_HEAVY heaviest frames exactly; TopN
 * keeps the RV_TOPN_CAP largest types and callsites.
 */
#ifndef GCACC_REPORT_VIEWS_H
#define GCACC_REPORT_VIEWS_H

#include "session.h"
#include "tables.h"

#define RV_FRAME_POINTS 4096      /* frame points kept, at most          */
#define RV_FRAME_ROWS 2000000     /* (type, callsite) rows over them     */
#define RV_HEAVY 20               /* heaviest frames listed exactly      */
#define RV_TOPN_CAP 20000         /* types, callsites in TopN            */
#define RV_KINDS 32               /* kinds told apart (the rest: the last) */

struct rv_frames;

struct rv_frames *rv_frames_new(void);
void rv_frames_free(struct rv_frames *f);
/* A frame record (its rows' columns: c), times relative to start.     */
void rv_frame(struct rv_frames *f, const json_t *frame,
              const struct dump_cols *c);

/* The data block.  tb: the tables at the end of the scan; first_t,     */
/* first_s: copies of them at the first census (growth is live bytes at */
/* the end minus there); start: the time origin (ns).                   */
void rv_write_data(FILE *out, const struct rv_frames *f,
                   const struct tables *tb,
                   const struct tables_view *first_t,
                   const struct tables_view *first_s, u64 start);
/* The tab bar (before the overview) and the two views with the script. */
void rv_write_tabs(FILE *out);
void rv_write_views(FILE *out, const struct tables *tb);
/* The Why view (report_why.c): the dump's retention records (at most   */
/* RV_WHY_RECORDS; paths over RV_WHY_LONG steps shown by their first and */
/* last RV_WHY_ENDS), each path from its root named as `gcacc why` names */
/* it.  rv_why_record takes any record the scan hands over and keeps the */
/* "retain" ones.                                                        */
#define RV_WHY_RECORDS 64
#define RV_WHY_LONG 16
#define RV_WHY_ENDS 6
struct rv_why;
struct rv_why *rv_why_new(void);
void rv_why_free(struct rv_why *w);
int rv_why_record(const json_t *rec, struct rv_why *w);
void rv_write_why(FILE *out, const struct rv_why *w, const json_t *header);
/* Text and attribute values with & < > " ' escaped (cmd_report.c).     */
void html_esc(FILE *f, const char *s);
/* CSS the views need (inside the page's <style>).                      */
extern const char rv_css[];

#endif
