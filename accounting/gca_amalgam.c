/*
 * gca_amalgam.c: every accounting source, for bdwgc's one-file build.
 *
 * extra/gc.c (the amalgamation IL2CPP compiles, and upstream's
 * --enable-single-obj-compilation) includes this file after all of the
 * collector, so GC_INNER functions here become static like upstream's own.
 * The separate-object build compiles the same files one by one
 * (accounting.am); a file added to one list must be added to the other.
 */
#include "api.c"
#include "census.c"
#include "counters.c"
#include "env.c"
#include "freelist.c"
#include "heapgrow.c"
#include "hooks.c"
#include "record.c"
#include "sites.c"
#include "tags.c"
#include "types.c"
#include "unwind.c"
#include "writer.c"
