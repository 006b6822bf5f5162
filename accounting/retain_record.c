/* SPDX-License-Identifier: MIT */
/*
 * retain_record.c: a retention walk's "retain" record (issue 37,
 * docs/dump-format.md "Retention records"), written after the walk
 * (retain.c) with the world running again, lock held: per instance
 * reached, its path from its root, each step an object (address, kind,
 * bytes, type cookie, callsite, the word of the step before that refers
 * to it, conservative or not), and the names of the steps' types.
 *
 * An uncollectable root in the il2cpp type mode is named after the
 * class whose static fields it holds, when the census can tell: among
 * the classes it typed, and their declaring types and parents (a few
 * levels, each class read once: classes.c), the one whose static_fields
 * is that block.  A class nothing typed or links to (a static class of
 * no instances and no nested class with instances) stays unnamed.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"

static const char *const rr_root_names[] = {
  "heap", "static", "stack", "finalizer", "uncollectable"
};

#define RR_CHAIN 4              /* declaring types, parents followed    */

static struct gca_text rt = { NULL, 0, 0, 0 };
#define RT_LIT(s) GCA_TEXT_LIT(&rt, s)
#define RT_KW(key, x) (RT_LIT(key), gca_text_word(&rt, (x)))

/* The type cookie of the marked object at base (0: none known), as   */
/* the census types it: its tag, or a valid word 0.                      */
static word rr_cookie(ptr_t base, hdr *hhdr)
{
  word cookie = 0, w;
  unsigned site;

  if (gca_tags_of(base, &cookie, &site) && cookie != 0) return cookie;
  if (hhdr->hb_obj_kind >= MAXOBJKINDS
      || 0 == gca_objtype_how(hhdr->hb_obj_kind))
    return 0;
  w = *(word *)base;
  if (0 == w || HDR(w) != 0) return 0;          /* none, or a link      */
  if (GCA_TYPES_IL2CPP == gca_objtype_mode() && !gca_class_valid(w))
    return 0;
  return w;
}

/* The classes whose static fields are the blocks bases[0, n), into    */
/* out (0: not found), among the census's classes and those they link  */
/* to.  One read per class visited.                                     */
static void rr_statics_of(const word *bases, word *out, unsigned n)
{
  unsigned id, n_types = gca_types_count(), i, left = n;

  for (i = 0; i < n; i++) out[i] = 0;
  for (id = 1; id <= n_types && left != 0; id++) {
    word samples, k0 = 0;
    int how;

    (void)gca_types_live_of(id, &k0, &samples);
    for (how = 0; how < 2 && left != 0; how++) {
      word k = k0;
      unsigned d;

      for (d = 0; d <= RR_CHAIN && k != 0; d++) {
        word st, decl, par;

        if (!gca_class_statics(k, &st, &decl, &par)) break;
        for (i = 0; i < n; i++) {
          if (0 == out[i] && st == bases[i] && st != 0) {
            out[i] = k;
            left--;
          }
        }
        k = 0 == how ? decl : par;
      }
    }
  }
}

static void rr_step(const struct gca_rwalk *w, unsigned i, int first)
{
  const struct gca_rnode *n = GCA_RNODE(w, i);
  hdr *hhdr = HDR(n->base);
  word cookie = rr_cookie((ptr_t)n->base, hhdr), c2 = 0;
  unsigned site = 0;

  (void)gca_tags_of((void *)n->base, &c2, &site);
  if (!first) RT_LIT(",");
  RT_LIT("[");
  gca_text_hex(&rt, n->base);
  RT_LIT(",");
  gca_text_word(&rt, hhdr->hb_obj_kind);
  RT_LIT(",");
  gca_text_word(&rt, hhdr->hb_sz > MAXOBJBYTES
                     ? OBJ_SZ_TO_BLOCKS(hhdr->hb_sz) * HBLKSIZE
                     : hhdr->hb_sz);
  RT_LIT(",");
  gca_text_hex(&rt, cookie);
  RT_LIT(",");
  gca_text_word(&rt, site);
  RT_LIT(",");
  if (n->parent != GCA_RNONE) gca_text_word(&rt, n->ref & ~GCA_RREF_CONS);
  else RT_LIT("-1");
  RT_LIT(",");
  gca_text_word(&rt, n->parent != GCA_RNONE
                     ? (n->ref & GCA_RREF_CONS) != 0
                     : (GCA_RROOT(w, n->ref)->info & GCA_RI_CONSERVATIVE) != 0);
  RT_LIT("]");
}

/* The root of path t (its first node's).                               */
static void rr_root(const struct gca_rwalk *w, unsigned first, word statics_of)
{
  const struct gca_rroot *r = GCA_RROOT(w, GCA_RNODE(w, first)->ref);
  unsigned kind = GCA_RI_KIND(r->info);

  RT_LIT(",\"root\":{\"kind\":");
  gca_text_cstring(&rt, rr_root_names[kind]);
  RT_LIT(",\"conservative\":");
  gca_text_word(&rt, (r->info & GCA_RI_CONSERVATIVE) != 0);
  if (r->from != 0) {
    RT_LIT(",\"addr\":");
    gca_text_hex(&rt, r->from);
  }
  if (GCA_RK_STACK == kind) {
    RT_KW(",\"thread\":", r->info >> GCA_RI_SHIFT);
    RT_KW(",\"main\":", (r->info & GCA_RI_MAIN) != 0);
    RT_KW(",\"collecting\":", (r->info & GCA_RI_SELF) != 0);
  } else if (GCA_RK_STATIC == kind) {
    int k = (int)(r->info >> GCA_RI_SHIFT);

    RT_LIT(",\"range\":[");
    gca_text_hex(&rt, (word)GC_static_roots[k].r_start);
    RT_LIT(",");
    gca_text_hex(&rt, (word)GC_static_roots[k].r_end);
    RT_LIT("]");
  } else if (statics_of != 0) {
    char buf[256];

    RT_LIT(",\"statics_of\":");
    gca_text_hex(&rt, statics_of);
    if (gca_class_name(statics_of, buf, sizeof(buf))) {
      RT_LIT(",\"class\":");
      gca_text_cstring(&rt, buf);
    }
  }
  RT_LIT("}");
}

/* Path t, root first: its nodes collected into a side array (OS pages). */
static void rr_path(const struct gca_rwalk *w, unsigned t, int first,
                    int shortest, word statics_of)
{
  unsigned depth = 0, i, root = t, *ch, d;
  word bytes;

  for (i = t; i != GCA_RNONE; i = GCA_RNODE(w, i)->parent) {
    root = i;
    depth++;
  }
  if (!first) RT_LIT(",");
  RT_KW("{\"depth\":", depth);
  RT_KW(",\"shortest\":", shortest);
  bytes = ((word)depth * sizeof(unsigned) + GC_page_size - 1)
          & ~(word)(GC_page_size - 1);
  ch = (unsigned *)gca_os_alloc((size_t)bytes);
  if (NULL == ch) {             /* no memory: the path untold        */
    RT_LIT(",\"steps\":[]}");
    return;
  }
  for (i = t, d = depth; i != GCA_RNONE; i = GCA_RNODE(w, i)->parent)
    ch[--d] = i;
  rr_root(w, root, statics_of);
  RT_LIT(",\"steps\":[");
  for (d = 0; d < depth; d++) rr_step(w, ch[d], 0 == d);
  RT_LIT("]}");
  gca_os_free(ch, (size_t)bytes);
}

/* The names of the types the paths' steps have (each once).           */
static void rr_names(const struct gca_rwalk *w)
{
  word seen[256];
  unsigned n_seen = 0, t, k;
  int first = 1;

  RT_LIT(",\"names\":[");
  for (t = 0; t < w->n_targets; t++) {
    unsigned i;

    for (i = w->targets[t]; i != GCA_RNONE; i = GCA_RNODE(w, i)->parent) {
      word b = GCA_RNODE(w, i)->base, c = rr_cookie((ptr_t)b, HDR(b));
      const char *name;

      if (0 == c) continue;
      for (k = 0; k < n_seen && seen[k] != c; k++) {
      }
      if (k < n_seen) continue;
      if (n_seen < 256) seen[n_seen++] = c;
      name = gca_types_name_of(c);
      if (NULL == name) continue;
      if (!first) RT_LIT(",");
      first = 0;
      RT_LIT("[");
      gca_text_hex(&rt, c);
      RT_LIT(",");
      gca_text_cstring(&rt, name);
      RT_LIT("]");
      if (n_seen >= 256) break;
    }
  }
  RT_LIT("]");
}

GC_INNER void gca_retain_record(const struct gca_rwalk *w)
{
  word blocks[GCA_RETAIN_K], statics[GCA_RETAIN_K];
  unsigned t, n_blocks = 0;

  /* Uncollectable roots: whose static fields (the il2cpp mode).       */
  for (t = 0; t < w->n_targets; t++) {
    unsigned i = w->targets[t];

    while (GCA_RNODE(w, i)->parent != GCA_RNONE) i = GCA_RNODE(w, i)->parent;
    blocks[t] = GCA_RK_UNCOLLECTABLE
                == GCA_RI_KIND(GCA_RROOT(w, GCA_RNODE(w, i)->ref)->info)
                && GCA_TYPES_IL2CPP == gca_objtype_mode()
                ? GCA_RNODE(w, i)->base : 0;
    if (blocks[t] != 0) n_blocks++;
  }
  if (n_blocks != 0) rr_statics_of(blocks, statics, w->n_targets);
  else for (t = 0; t < w->n_targets; t++) statics[t] = 0;
  rt.len = 0;
  rt.fail = 0;
  RT_KW("{\"record\":\"retain\",\"gc_no\":", GC_gc_no);
  RT_KW(",\"t_ns\":", w->t0);
  RT_LIT(",\"request\":{");
  if (w->name != NULL) {
    RT_LIT("\"type\":");
    gca_text_cstring(&rt, w->name);
  } else if (w->site) {
    RT_KW("\"site\":", w->req_cookie);
  } else {
    RT_LIT("\"cookie\":");
    gca_text_hex(&rt, w->req_cookie);
  }
  if (w->is_auto) RT_LIT(",\"auto\":1");
  RT_KW("},\"types_matched\":", w->n_cookies);
  RT_KW(",\"pause_ns\":", w->t_end - w->t0);
  RT_KW(",\"walk_ns\":", w->t_end - w->t_stopped);
  RT_KW(",\"visited\":", w->visited);
  RT_KW(",\"words\":", w->words);
  RT_KW(",\"memory_bytes\":", w->mem.peak);
  RT_KW(",\"memory_cap\":", w->mem.cap);
  RT_KW(",\"partial\":", w->partial);
  RT_KW(",\"timed_out\":", w->timed_out);
  RT_KW(",\"time_cap_ns\":", w->budget);
  RT_KW(",\"depth_first\":", w->depth_first);
  RT_KW(",\"from_marking\":", w->from_marking);
  RT_KW(",\"stacks\":", GCA_RETAIN_STACKS);
  RT_KW(",\"wanted\":", GCA_RETAIN_K);
  RT_KW(",\"found\":", w->n_targets);
  RT_LIT(",\"step_columns\":[\"addr\",\"kind\",\"bytes\",\"cookie\","
         "\"site\",\"ref_word\",\"conservative\"]");
  rr_names(w);
  RT_LIT(",\"paths\":[");
  for (t = 0; t < w->n_targets; t++)
    rr_path(w, w->targets[t], 0 == t, t < w->n_shortest, statics[t]);
  RT_LIT("]}\n");
  if (rt.fail) {
    (void)gca_dump_submit(NULL, 0);     /* lost: counted as a drop      */
    return;
  }
  (void)gca_dump_submit(rt.buf, rt.len);
}

#endif /* !GC_ACC_DISABLE */
