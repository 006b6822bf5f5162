/* SPDX-License-Identifier: MIT */
/*
 * gca_zlib.h: the zlib the dump writer compiles against (dumpfile.c,
 * writer.c; docs/il2cpp.md, "zlib").
 *
 * A Unity player links il2cpp's own zlib (il2cpp/external/zlib), whose
 * zconf.h defines Z_PREFIX: every zlib function is il2cpp_z_* there, and
 * no -lz is on a player's link line.  So in an IL2CPP build (the drop-in
 * folder, marked GCACC_IL2CPP by its include/gcacc_il2cpp.h, or Unity's
 * fork with our accounting, whose stamp is Unity's 7.7.0) the accounting
 * takes il2cpp's zlib.h from external/zlib, beside external/bdwgc: by a
 * path relative to this file (external/bdwgc/accounting/), so that
 * Unity's build, which passes only the include folders `include` and
 * `libatomic_ops/src`, finds it; its calls then reach il2cpp_z_deflate
 * and the rest.  Where that file is absent (a folder built elsewhere, the
 * tests), the system's <zlib.h> is taken.  GCACC_ZLIB_HEADER overrides
 * both: the header to include, as #include would name it ("path", relative
 * to this folder or absolute, or <zlib.h>).  Other builds: <zlib.h>.
 */
#ifndef GCA_ZLIB_H
#define GCA_ZLIB_H

#if defined(GCACC_ZLIB_HEADER)
# include GCACC_ZLIB_HEADER
#elif defined(GCACC_IL2CPP) \
      || (defined(GC_VERSION_MAJOR) && 7 == GC_VERSION_MAJOR \
          && defined(GC_VERSION_MINOR) && 7 == GC_VERSION_MINOR)
# if defined(__has_include)
#   if __has_include("../../zlib/zlib.h")
#     include "../../zlib/zlib.h"
#   elif __has_include(<zlib.h>)
#     include <zlib.h>
#   else
#     error "gcacc: no zlib.h: neither il2cpp's (external/zlib beside external/bdwgc) nor the system's; define GCACC_ZLIB_HEADER as the zlib.h to use (\"path\" or <zlib.h>)"
#   endif
# else
#   include "../../zlib/zlib.h"  /* no __has_include: il2cpp's layout */
# endif
#else
# include <zlib.h>
#endif

#endif /* GCA_ZLIB_H */
