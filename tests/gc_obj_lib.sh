# SPDX-License-Identifier: MIT
# gc_obj_lib.sh: sourced by the tests that read gcc's x86-64 code of the
# one-file libgc's object (tests/gcj_public.sh, tests/tl_pop_shape.sh):
# skips (77, with the reason) where there is none to read, sets up (the
# patched build's directory) and o (the object), and gc_obj_has DEFINE:
# is DEFINE defined (config.h or the Makefile's flags)?
command -v objdump > /dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
case $(uname -m) in x86_64) ;; *) echo "SKIP: x86-64 only"; exit 77 ;; esac
case ${CC:-cc} in *clang*) echo "SKIP: gcc's code is what is read"; exit 77 ;; esac
up=bdwgc/upstream
o="$up/extra/.libs/gc.o"
[ -f "$o" ] || { echo "SKIP: no $o (not the one-file build)"; exit 77; }
grep -q -- '-DGC_ACC_DISABLE' "$up/Makefile" &&
  { echo "SKIP: accounting is compiled out in this build"; exit 77; }
gc_obj_has() {
  grep -q "define $1 1" "$up/include/config.h" 2>/dev/null ||
    grep -q -- "-D$1" "$up/Makefile"
}
