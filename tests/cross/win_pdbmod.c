/* SPDX-License-Identifier: MIT */
/*
 * win_pdbmod.c: a DLL built as MSVC builds (clang-cl, lld-link), its
 * debug information in a PDB only, for tests/cross/windows.sh: its
 * functions allocate through the host's allocator, so the dump's stacks
 * run through it and `gcacc symbolize` must name them from the PDB.
 * PDBMOD_V2 is "another build": a function more before them, so that
 * its PDB read against the first build's image would name wrong ones.
 * No C runtime (/NODEFAULTLIB, /NOENTRY): nothing to link but itself.
 */
typedef void *(*pdbmod_alloc)(unsigned long long bytes);

static void *volatile pdbmod_keep[64];

#ifdef PDBMOD_V2
__declspec(noinline) static void *pdb_another(pdbmod_alloc f, int i)
{
  return pdbmod_keep[(i * 7) & 63] = f(16);
}
#endif

__declspec(noinline) static void *pdb_inner(pdbmod_alloc f, int i)
{
  return pdbmod_keep[i & 63] = f(48 + (i & 7));
}

__declspec(noinline) static void *pdb_middle(pdbmod_alloc f, int i)
{
  void *p = pdb_inner(f, i);

  pdbmod_keep[(i + 1) & 63] = p;
  return p;
}

__declspec(dllexport) int pdb_outer(pdbmod_alloc f, int n)
{
  int i;

  for (i = 0; i < n; i++) {
#ifdef PDBMOD_V2
    if (i == 0) pdb_another(f, i);
#endif
    pdb_middle(f, i);
  }
  return n;
}
