#!/bin/sh
# SPDX-License-Identifier: MIT
# flaky.sh: run each statistical test FLAKY_N times (default 50) and
# count its failures (`make check-flaky`, issue 34).
#
#   tests/flaky.sh TEST...
#
# A TEST ending in .sh runs under sh, any other is run as it is, from
# the build directory, with the environment `make check` gives (srcdir,
# CC).  Prints each test's failures of its runs and the log of its
# first failure; exits 1 if any run failed.  Each test's bounds make a
# chance failure rarer than one run in 10^7 (tests/stat_bound.h), so
# any failure here is a bug to look at, not bad luck.
set -u
: "${srcdir:=.}"
export srcdir
n=${FLAKY_N:-50}
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-flaky.XXXXXX")
trap 'rm -rf "$t"' EXIT
total_fail=0
for test in "$@"; do
  fails=0 i=0 t0=$(date +%s)
  while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    case $test in
      *.sh) sh "$srcdir/$test" > "$t/log" 2>&1 ;;
      *) "./$test" > "$t/log" 2>&1 ;;
    esac
    rc=$?
    # 77: skipped (as automake counts it), not a failure.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
      fails=$((fails + 1))
      if [ "$fails" -eq 1 ]; then
        cp "$t/log" "$t/first"
        first=$i
      fi
    fi
  done
  printf '%-36s %d of %d runs failed (%d s)\n' "$test" "$fails" "$n" \
    $(($(date +%s) - t0))
  if [ "$fails" -gt 0 ]; then
    echo "  run $first's log (last 20 lines):"
    tail -n 20 "$t/first" | sed 's/^/  | /'
  fi
  total_fail=$((total_fail + fails))
done
[ "$total_fail" -eq 0 ]
