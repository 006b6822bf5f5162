#!/bin/sh
# SPDX-License-Identifier: MIT
# install_check.sh: `make install` gives users a libgc they can build
# against unchanged: bdw-gc.pc, the headers plus gc/gc_accounting.h, and a
# shared library that exports our API as GC_acc_* and nothing internal.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-install.XXXXXX")
trap 'rm -rf "$t"' EXIT
${MAKE:-make} -s -C bdwgc/upstream install DESTDIR="$t" > "$t/install.log" 2>&1 || {
  cat "$t/install.log" >&2; echo "FAIL: make install" >&2; exit 1; }
pc=$(find "$t" -name bdw-gc.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: no bdw-gc.pc installed" >&2; exit 1; }
hdr=$(find "$t" -path '*/gc/gc_accounting.h' | head -1)
[ -n "$hdr" ] || { echo "FAIL: gc/gc_accounting.h not installed" >&2; exit 1; }
lib=$(find "$t" -name 'libgc.so' | head -1)
[ -n "$lib" ] || { echo "FAIL: libgc.so not installed" >&2; exit 1; }
if nm -D --defined-only "$lib" | grep -q ' gca_'; then
  echo "FAIL: libgc.so exports internal gca_* symbols:" >&2
  nm -D --defined-only "$lib" | grep ' gca_' >&2; exit 1
fi
nm -D --defined-only "$lib" | grep -q ' GC_acc_get_stats$' ||
  { echo "FAIL: libgc.so does not export GC_acc_get_stats" >&2; exit 1; }
prefix=$(dirname "$(dirname "$(dirname "$pc")")")   # .../lib/pkgconfig/x.pc
cat > "$t/user.c" <<'EOC'
#include <gc.h>
#include <gc/gc_accounting.h>
#include <stdio.h>
int main(void)
{
  struct GC_acc_stats_s s;
  GC_INIT();
  GC_acc_enable(1);
  GC_MALLOC(100);
  GC_acc_get_stats(&s, sizeof(s));
  printf("%u %lu\n", GC_acc_get_version(), (unsigned long)s.allocs);
  return s.allocs == 1 ? 0 : 1;
}
EOC
cflags=$(PKG_CONFIG_SYSROOT_DIR="$t" PKG_CONFIG_LIBDIR="$(dirname "$pc")" \
         pkg-config --cflags bdw-gc)
libs=$(PKG_CONFIG_SYSROOT_DIR="$t" PKG_CONFIG_LIBDIR="$(dirname "$pc")" \
       pkg-config --libs bdw-gc)
# shellcheck disable=SC2086
$CC -o "$t/user" "$t/user.c" $cflags $libs
LD_LIBRARY_PATH="$(dirname "$lib")" "$t/user"
echo "installed under $prefix: bdw-gc.pc, gc/gc_accounting.h, libgc.so"
