/* SPDX-License-Identifier: MIT */
/*
 * unity_amalgam.c: the Unity API sources for bdwgc's one-file build
 * (extra/gc.c, as IL2CPP compiles it), which includes this file after
 * the collector.  The separate-object build compiles the same files one
 * by one (unity.am); a file added to one list must be added to the other.
 */
#include "unity_api.c"
/* GC_gcj_vector_malloc calls the allocation hook: frame records for the */
/* frame-pointer walk, as the collector's allocation sources get them    */
/* (GCA_FRAME_RECORDS_BEGIN, accounting/gca_hooks.h).                    */
GCA_FRAME_RECORDS_BEGIN
#include "vector_mlc.c"
GCA_FRAME_RECORDS_END
