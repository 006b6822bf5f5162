# SPDX-License-Identifier: MIT
# unity_lib.sh: what the tests on Unity's bdwgc fork share (sourced).
#
# Sets UNITY_SRC (the patched fork, bdwgc/unity/src), UNITY_DEFS (Unity's
# define set, bdwgc/unity.sh defines) and OUT (this test's build folder,
# tests/unity/<name>/), or skips the test (exit 77, with the reason on
# stdout, which the check summary repeats) when no fork is found.
: "${srcdir:=.}"
: "${CC:=cc}"
unity_sh="$srcdir/bdwgc/unity.sh"
set +e
UNITY_SRC=$(sh "$unity_sh" tree 2>"${TMPDIR:-/tmp}/unity-tree.$$")
rc=$?
set -e
if [ "$rc" -eq 3 ]; then
  echo "SKIP: $me: no Unity bdwgc fork (set UNITY_BDWGC_TARBALL, or put" \
       "unity-bdwgc-b0c6e4bc.tar.gz in ../shared/vendor)"
  rm -f "${TMPDIR:-/tmp}/unity-tree.$$"
  exit 77
fi
cat "${TMPDIR:-/tmp}/unity-tree.$$" >&2
rm -f "${TMPDIR:-/tmp}/unity-tree.$$"
[ "$rc" -eq 0 ] || { echo "FAIL: $me: bdwgc/unity.sh tree failed" >&2; exit 1; }
UNITY_DEFS=$(sh "$unity_sh" defines)
OUT=tests/unity/$me
mkdir -p "$OUT"

# unity_build NAME [CFLAGS...]: the fork's extra/gc.c as $OUT/NAME.o.
unity_build() {
  n=$1; shift
  sh "$unity_sh" build "$OUT/$n.d" "$@"
  mv "$OUT/$n.d/gc-unity.o" "$OUT/$n.o"
  rmdir "$OUT/$n.d"
}
