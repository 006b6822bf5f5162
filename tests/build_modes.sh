#!/bin/sh
# SPDX-License-Identifier: MIT
# build_modes.sh: every accounting source (and the Unity API's) also
# compiles on its own.
#
# Our libgc is built as the one-file extra/gc.c (upstream's default when
# static libraries are off); `--disable-shared` builds, and embedders that
# list sources, compile accounting/*.c one by one instead (accounting.am).
# A source that leans on a declaration only the amalgamation gives it
# breaks that build: compile each alone, with the flags upstream's build
# uses, so it fails here first.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
up_src="$srcdir/bdwgc/upstream"
up_build=bdwgc/upstream
fails=0
n=0
# The Unity API's sources (unity/unity.am) are listed the same way.
for f in "$srcdir"/accounting/*.c "$srcdir"/unity/*.c; do
  case $f in */gca_amalgam.c|*/unity_amalgam.c) continue ;; esac
  n=$((n + 1))
  modes='"" -DGC_ACC_DISABLE'
  # The dump writer's portable wait (systems without futexes).
  case $f in */writer.c) modes="$modes -DGCA_DUMP_NO_FUTEX" ;; esac
  eval "set -- $modes"
  for mode in "$@"; do
    # shellcheck disable=SC2086
    if ! $CC -fsyntax-only -Werror=implicit-function-declaration \
         -DHAVE_CONFIG_H $mode -I "$up_build/include" -I "$up_src/include" \
         "$f" 2> build_modes.err; then
      echo "FAIL: $f does not compile on its own${mode:+ ($mode)}:" >&2
      sed 's/^/  | /' build_modes.err | head -20 >&2
      fails=$((fails + 1))
    fi
  done
done
rm -f build_modes.err
[ "$fails" -eq 0 ] && echo "build modes: $n accounting and Unity API sources compile alone, accounting on and off (writer.c also with its portable wait)"
exit "$fails"
