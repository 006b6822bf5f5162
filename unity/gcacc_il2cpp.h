/* SPDX-License-Identifier: MIT */
/*
 * gcacc_il2cpp.h: gcacc's build-mode header.
 *
 * In a normal build (libgc, ./configure) this file defines nothing.  The
 * folder `make il2cpp-drop-in` writes (laid out like il2cpp's
 * external/bdwgc) carries its own copy that defines GCACC_IL2CPP to 1,
 * because Unity's build passes only its own define list (IL2CPP.md
 * section 3) and the folder has to know by itself that it is an IL2CPP
 * build.  A build of this tree in IL2CPP's manner can instead pass
 * -DGCACC_IL2CPP=1.
 *
 * GCACC_IL2CPP (docs/il2cpp.md):
 *   - gc_version.h accepts Unity's stamp GC_VERSION_MAJOR/MINOR/MICRO =
 *     7/7/0 (that exact stamp, nothing else; 8.2.2's own is accepted
 *     too), where the normal build stops with "Inconsistent version info";
 *   - private/gcconfig.h defines MANUAL_VDB and LARGE_CONFIG (unless
 *     SMALL_CONFIG), as Unity's fork forces them in its gcconfig.h.
 *
 * The heap-section API has both of Unity's eras in every build
 * (gc_unity.h): in C++ GC_foreach_heap_section takes either callback;
 * a C client of the 3-argument era (Unity 2019.4 to 2023.2.7) defines
 * GCACC_HEAP_SECTIONS_3ARG before including gc.h.
 */
#ifndef GCACC_IL2CPP_H
#define GCACC_IL2CPP_H
/* (normal build: nothing here) */
#endif
