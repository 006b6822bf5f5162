/* SPDX-License-Identifier: MIT */
/*
 * unity_amalgam.c: the Unity API sources for bdwgc's one-file build
 * (extra/gc.c, as IL2CPP compiles it), which includes this file after
 * the collector.  The separate-object build compiles the same files one
 * by one (unity.am); a file added to one list must be added to the other.
 */
#include "unity_api.c"
#include "vector_mlc.c"
