/* SPDX-License-Identifier: MIT */
/*
 * control.c: turning accounting, tags and the dump on and off.
 *
 * The operations that change what the modules below do, for env.c (the
 * GC_ACC_* settings at GC_init) and api.c (the GC_acc_* calls): each takes
 * the allocation lock itself (callers must not hold it) and tells every
 * module concerned, in an order that keeps the books whole.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

GC_INNER void gca_control_enable(int on)
{
  DCL_LOCK_STATE;

  if (on && GCA_PROFILE_SAMPLED == gca_profile) gca_unwind_init();
  LOCK();
  if (on && !gca_tables_get()) {
    UNLOCK();
    WARN("gcacc: no memory for accounting's tables;"
         " accounting stays off\n", 0);
    return;
  }
  if (on) gca_counters_tables_ready();
  if (on && !gca_on) {
    /* Every in-use block gets a clean tag table (types, sites, ages   */
    /* start from here).                                               */
    gca_tags_reset_all(!(gca_hblk_hooks & GCA_HBLK_TABLES));
  }
  if (on) gca_track_heap = 1;
  gca_hblk_hooks_update();
  gca_on = on != 0;
  gca_tl_mode_update();
  UNLOCK();
}

GC_INNER void gca_control_set_profile(int profile, word sample_bytes)
{
  int tags = profile >= GCA_PROFILE_FULL, redraw;
  DCL_LOCK_STATE;

  /* trace: a stack on every allocation; full: sampled stacks ("full"   */
  /* has callsites), unless the user chose the stacks (GC_ACC_STACKS,    */
  /* GC_acc_set_stacks); the others take none of their own.              */
  if (GCA_PROFILE_TRACE == profile) {
    gca_stacks_set(GCA_STACKS_ALL, 0);
  } else if (!GCA_LOAD(&gca_stacks_chosen)) {
    gca_stacks_set(GCA_PROFILE_FULL == profile ? GCA_STACKS_SAMPLE
                                               : GCA_STACKS_OFF, 0);
  }
  /* Before the lock: the loader's lock, which gca_unwind_init may take, */
  /* must never be waited for with ours held.                             */
  if (GCA_PROFILE_SAMPLED == profile) gca_unwind_init();
  LOCK();
  redraw = profile != gca_profile
           || (GCA_PROFILE_SAMPLED == profile && sample_bytes != 0);
  if (GCA_PROFILE_SAMPLED == profile && sample_bytes != 0)
    gca_samples_set_rate(sample_bytes);
  if (profile != gca_profile) {
    if (GCA_PROFILE_SAMPLED == gca_profile) gca_samples_reset();
    GCA_STORE(&gca_profile, profile);
    gca_samples_new_epoch();
  }
  /* The rows' countdowns drawn at the old rate or profile: each one's */
  /* next pop drawn afresh (the lists' and the threads' redraw at their */
  /* next due, seeing the epoch).                                        */
  if (redraw) gca_counters_locked_rearm_all();
  if (tags != gca_tags_on) {
    /* hb_acc is kept by the block hooks once GCA_HBLK_TABLES is set    */
    /* (tracking on and tags on once); until then it may be anything.   */
    int first = !(gca_hblk_hooks & GCA_HBLK_TABLES);

    gca_tags_on = tags;
    gca_hblk_hooks_update();
    gca_tl_mode_update();
    /* With tracking off, reset when accounting goes on.                */
    if (gca_on || gca_track_heap) gca_tags_reset_all(first);
  }
  UNLOCK();
}

GC_INNER void gca_control_set_tags(int on)
{
  gca_control_set_profile(on ? GCA_PROFILE_FULL : GCA_PROFILE_OFF, 0);
}

GC_INNER int gca_control_dump_start(const char *path_template)
{
  int res = gca_dump_open(path_template, gca_header_build, gca_record_final);

  if (GC_SUCCESS == res) gca_control_enable(1);
  return res;
}

#endif /* !GC_ACC_DISABLE */

/* ---- the unwinder (gc_accounting.h, "callsites") -------------------- */
/* Here rather than in sites.c: the unwinder picks GC_generic_malloc's  */
/* copy (tlflags.c, a layer above sites.c), and GC_ACC_UNWIND (env.c)    */
/* sets it through this.                                                  */

#ifdef GC_ACC_DISABLE

GC_API int GC_CALL GC_acc_set_unwinder(int u)
{
  (void)u;
  return GC_UNIMPLEMENTED;
}

#else

GC_API int GC_CALL GC_acc_set_unwinder(int u)
{
  DCL_LOCK_STATE;

  if (u != GCA_UNWIND_FP && u != GCA_UNWIND_LIBGCC && u != GCA_UNWIND_AUTO)
    return GC_ERROR;
  LOCK();
  GCA_STORE(&gca_unwinder, u);
  gca_tlflags_unwinder_changed();   /* GC_generic_malloc's copy */
  UNLOCK();
  return GC_SUCCESS;
}

#endif /* GC_ACC_DISABLE */
