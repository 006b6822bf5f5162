/* SPDX-License-Identifier: MIT */
/*
 * gca_amalgam.c: every accounting source, for bdwgc's one-file build.
 *
 * extra/gc.c (the amalgamation IL2CPP compiles, and upstream's
 * --enable-single-obj-compilation) includes this file after all of the
 * collector, so GC_INNER functions here become static like upstream's own.
 * The separate-object build compiles the same files one by one
 * (accounting.am); a file added to one list must be added to the other.
 * Both list the files in layer order, bottom first (docs/design.md,
 * "Layers"; tests/layers.sh checks it).
 */
#define GCA_AMALGAM 1    /* freelist.c: allchblk.c's lists are in sight */
#include "base.c"
#include "thread.c"
#include "text.c"
#include "unwind_memo.c"
#include "unwind_cfi.c"
#include "unwind.c"
#include "sites.c"
#include "pairs.c"
#include "classes.c"
#include "types.c"
#include "frames.c"
#include "objtype.c"
#include "samples.c"
#include "tagslab.c"
#include "tags.c"
#include "tlflags.c"
#include "counters_tl.c"
#include "counters.c"
#include "counters_due.c"
#include "counters_sum.c"
#include "freelist.c"
#include "heapgrow.c"
#include "census.c"
#include "dumpfile.c"
#include "writer.c"
#include "retain_record.c"
#include "retain_bounds.c"
#include "retain_mark.c"
#include "retain.c"
#include "retain_req.c"
#include "retain_auto.c"
#include "header.c"
#include "record.c"
#include "control.c"
#include "env.c"
#include "api.c"
#include "retain_api.c"
#include "hooks.c"
