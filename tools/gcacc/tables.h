/* SPDX-License-Identifier: MIT */
/*
 * tables.h: the type and callsite tables of a dump, rebuilt while
 * scanning (docs/dump-format.md, "Types, callsites and ages", "Sampling",
 * "Frame records").
 *
 * A view feeds every record to the tables (tables_record from its
 * rec_visitor, tables_frame from its frame_visitor; the header comes from
 * the session_info the scan fills, read when the first record arrives)
 * and reads, at any collection, the full per-type and
 * per-site tables the format's rule gives: the live and age columns of the
 * last record that had a row, alloc and freed deltas summed.  Definitions
 * ("types", "sites") come from any record, collection or frame.  Frame
 * rows are summed per (type, site) pair.  Memory grows with the distinct
 * types, sites and pairs, never with the records.
 */
#ifndef GCACC_TABLES_H
#define GCACC_TABLES_H

#include "session.h"
#include "gca_leak_rule.h"

#define TABLES_AGE_BINS 7
/* The first age bin counted as "old" by leaks: 4-7 collections.         */
#define TABLES_OLD_BIN GCA_LEAK_OLD_BIN   /* gca_leak_rule.h: rule 6 */

/* One type or callsite, as rebuilt.                                     */
struct group {
  u64 live_objs, live_bytes, age[TABLES_AGE_BINS];  /* last row seen   */
  u64 alloc_objs, alloc_bytes, freed_objs, freed_bytes;  /* summed     */
  /* The deltas of the last record that had the row, and its number     */
  /* (struct tables' census counter): deltas "at" a record are these     */
  /* when d_rec is that record, else 0.                                  */
  u64 d_alloc_objs, d_alloc_bytes, d_freed_objs, d_freed_bytes, d_rec;
  u64 max_live_objs, max_live_bytes;                /* over the session */
  /* The sampled profile's sample counts behind the figures (the rows'  */
  /* samples_*; 0 in exact profiles): live as the last row, alloc and    */
  /* freed summed, their deltas at d_rec, and the live samples of the    */
  /* row that set max_live_bytes.                                        */
  u64 s_live, s_alloc, s_freed, d_s_alloc, d_s_freed, max_s_live;
  u64 frame_objs, frame_bytes;                      /* frame rows, summed */
  int defined;                                      /* a definition seen */
  u64 cookie;                                       /* types             */
  char *name;                                       /* types (malloc'd)  */
  u64 *frames;                                      /* sites (malloc'd)  */
  unsigned nframes;
};

struct tables_module { u64 base; char *name, *key; };
struct tables_sym { char *key; u64 off; char *func; };

struct tables {
  const struct session_info *info;      /* the scan's: its header        */
  const json_t *header;
  struct keymap *types, *sites;         /* id -> struct group            */
  struct keymap *pairs;                 /* type << 32 | site -> u64[2]   */
  u64 census;                           /* census collections applied    */
  int has_type_rows;                    /* any type row with id != 0     */
  int has_site_rows;                    /* any site row with id >= 2     */
  int sample;                           /* sample mode: site rows scaled */
  double sample_bytes;                  /* B                             */
  /* profile=sampled (issue 22): every type and site figure is an       */
  /* estimate, already scaled by the collector (one weight per sample); */
  /* shown with "~" and never scaled again.  estimate_bytes: its mean.  */
  int estimated;
  u64 estimate_bytes;
  /* What says so: the header's profile, and the census records with    */
  /* rows that carry "samples" (written under the sampled profile) or do */
  /* not (a profile the program switched to after the header, by API).  */
  /* estimated: any sampled record, or the header's word with none exact. */
  int header_sampled;
  u64 sampled_records, exact_records;
  u64 frames, frame_objs, frame_bytes, lost_objs, lost_bytes;
  u64 acc_peak, acc_peak_heap;          /* peak acc_memory_bytes, heap   */
  /* Sampled stacks walked by the cached unwind rules, and of them those */
  /* that fell back to the slow unwinder: the last record's that says   */
  /* (the counts are cumulative; 0, 0: none says, as in older dumps).    */
  u64 unwind_walks, unwind_fell_back;
  struct tables_module *mods;           /* from the header, by base      */
  size_t nmods;
  struct tables_sym *syms;              /* DUMP.symbols, sorted          */
  size_t nsyms;
};

/* info: the session_info the scan of this dump fills (its header is    */
/* read when the first record arrives); NULL: no header.                */
void tables_init(struct tables *t, const struct session_info *info);
void tables_free(struct tables *t);
/* Apply a collection or snapshot record (definitions; rows of a census  */
/* collection; acc_memory).                                              */
void tables_record(struct tables *t, const struct rec *r);
/* Apply a frame record: definitions, rows summed per pair and group.    */
void tables_frame(struct tables *t, const json_t *frame);

/* The weight of a sampled object of s bytes with sample size b (the    */
/* header's stacks_sample_bytes): w(s) = s / (1 - exp(-s / b)), the bytes */
/* it stands for (docs/dump-format.md, "Sampling"); s itself when s or b  */
/* is not positive.  The reader's one computation of it.                  */
double sample_weight(double s, double b);

/* The relative error of a sampled profile's estimate made of n        */
/* samples: about 1/sqrt(n) (Poisson sampling; docs/dump-format.md,    */
/* "The sampled profile"); -1 (none: emit.h's COL_ERR) when n is 0.     */
double tables_sample_error(u64 n);

/* Group id of a keymap entry and entry itself: keymap_at(t->types, ...) */
/* A site group's figures as the format says to read them: in sample     */
/* mode scaled by w(s)/s with s the row's mean object size (the rows     */
/* hold sums, not each object's size), else as they are.                 */
u64 tables_scale(const struct tables *t, int site, u64 objs, u64 bytes,
                 u64 value);
/* Live objects in age bins >= TABLES_OLD_BIN.                           */
u64 tables_old_objs(const struct group *g);

/* Labels.  A type: its name, or "(no type)" for 0, "type N" when not    */
/* defined.  A site: "(no stack)" (0), "(not sampled)" (1), "(stack      */
/* unknown)" (no frames), else the first max_frames frames (0: all),     */
/* innermost first, joined by " < ": each the function from the symbol   */
/* cache when loaded and known, else module+0xoffset, else the raw       */
/* address.  buf of sz bytes.                                            */
const char *tables_type_label(const struct tables *t, u64 id, char *buf,
                              size_t sz);
const char *tables_site_label(const struct tables *t, u64 id,
                              unsigned max_frames, char *buf, size_t sz);
/* One address as above.                                                 */
const char *tables_addr_label(const struct tables *t, u64 addr, char *buf,
                              size_t sz);
/* Load DUMP.symbols (the cache `gcacc symbolize` writes next to the     */
/* dump); returns the entries read (0 when there is none).               */
size_t tables_load_symbols(struct tables *t, const char *dump);

/* A copy of every group of one table (shallow: names and frames stay   */
/* the table's), for views that keep the table of one collection.       */
struct tables_view { size_t n; u64 *ids; struct group *g; u64 census; };
void tables_capture(const struct tables *t, int site,
                    struct tables_view *v);
void tables_view_free(struct tables_view *v);

#endif
