/* SPDX-License-Identifier: MIT */
/*
 * dl_names.h: the function of this program a return address lies in,
 * and its name, through dladdr (the unwinding tests: the program is
 * linked with -rdynamic).  Include after <dlfcn.h> with _GNU_SOURCE.
 */
#ifndef GCACC_TESTS_DL_NAMES_H
#define GCACC_TESTS_DL_NAMES_H

#include "gc.h"

static void *fn_of(GC_word ra)
{
  Dl_info di;

  if (0 == ra || !dladdr((void *)(ra - 1), &di)) return NULL;
  return di.dli_saddr;
}

static const char *name_of(GC_word ra)
{
  Dl_info di;

  if (0 == ra || !dladdr((void *)(ra - 1), &di) || NULL == di.dli_sname)
    return "?";
  return di.dli_sname;
}

#endif
