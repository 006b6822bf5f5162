#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh: everything from a fresh clone, in one command.
#
#   ./build.sh demo    set up, build, and run the main job (the demo)
#   ./build.sh check   set up, build, and run every test (make check)
#   ./build.sh bench   set up, build, and run the benchmarks (make bench)
#
# Set-up installs Debian packages (tools/setup-debian.sh), generates the
# build system, and configures in _build/ (which fetches, verifies and
# patches bdwgc; see bdwgc/fetch.sh).  Extra arguments go to ./configure.
set -eu
top=$(cd "$(dirname "$0")" && pwd)
what=${1:-check}
[ $# -gt 0 ] && shift
case $what in
  demo|check|bench) ;;
  *) echo "usage: ./build.sh demo|check|bench [configure options]" >&2; exit 2 ;;
esac
jobs=$(nproc 2>/dev/null || echo 2)

sh "$top/tools/setup-debian.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
  autoreconf -fi > /dev/null
mkdir -p _build
cd _build
# A tree configured before needs no configure: `make` patches bdwgc again
# when the pin or the patch series changed since (a pull, a merge).
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
  ../configure --quiet "$@"
fi
make -j"$jobs" > make.log 2>&1 || { tail -40 make.log; exit 1; }
case $what in
  demo)  make -s demo ;;
  # The set-up installed the cross tools: the ARM subset must run.
  check) GCACC_CROSS_REQUIRED=1 make -j"$jobs" check ;;
  bench) make -s bench ;;
esac
