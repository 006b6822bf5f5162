/* SPDX-License-Identifier: MIT */
/*
 * win_pdbhost.c: the game of tests/cross/windows.sh's PDB check, built
 * with mingw-w64 and the collector: it calls win_pdbmod.dll (an image
 * with a PDB only), which allocates N objects through it.  Accounting
 * and its dump are set by the environment (GC_ACC_*).
 */
#include "gc.h"

#include <stdio.h>
#include <stdlib.h>

__declspec(dllimport) int pdb_outer(void *(*f)(unsigned long long), int n);

static void *host_alloc(unsigned long long bytes)
{
  return GC_MALLOC((size_t)bytes);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000;

  GC_INIT();
  printf("allocated %d\n", pdb_outer(host_alloc, n));
  GC_gcollect();
  return 0;
}
