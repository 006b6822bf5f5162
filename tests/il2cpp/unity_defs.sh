# SPDX-License-Identifier: MIT
# unity_defs.sh (sourced): the defines Unity's build passes when it
# compiles il2cpp's external/bdwgc/extra/gc.c on Linux (shared/IL2CPP.md
# section 3: the core set with the 7/7/0 version stamp, the non-WebGL set,
# the Bee scripts' set).  No MANUAL_VDB, no LARGE_CONFIG: the drop-in's
# include/gcacc_il2cpp.h turns them on, as Unity's fork forces them.
# DEFAULT_GC_NAME="BDWGC" is passed separately (it holds quotes).
unity_defs="-DALL_INTERIOR_POINTERS=1 -DGC_GCJ_SUPPORT=1 -DJAVA_FINALIZATION=1
  -DNO_EXECUTE_PERMISSION=1 -DGC_NO_THREADS_DISCOVERY=1
  -DIGNORE_DYNAMIC_LOADING=1 -DGC_DONT_REGISTER_MAIN_STATIC_DATA=1
  -DGC_VERSION_MAJOR=7 -DGC_VERSION_MINOR=7 -DGC_VERSION_MICRO=0
  -DGC_THREADS=1 -DUSE_MMAP=1 -DUSE_MUNMAP=1
  -DNO_DEBUGGING=1 -DNO_CRT=1 -DDONT_USE_ATEXIT=1 -DNO_GETENV=1
  -DHAVE_BDWGC_GC -DHAVE_BOEHM_GC"
