#!/bin/sh
# SPDX-License-Identifier: MIT
# census_markers.sh: test_census with one marker and with two.
#
# The census takes each block's live count from the collector's own
# count of marks (hb_n_marks) while one thread marks, and sums the mark
# bits when parallel markers may have lost increments.  test_census
# checks exact counts; run it both ways and check that each run took the
# way it was meant to (it prints "parallel marking: 0|1").
set -u
prog=${1:-tests/unit/test_census}
status=0
for m in 1 2; do
  out=$(GC_MARKERS=$m "$prog" 2>&1)
  rc=$?
  want=$([ "$m" = 1 ] && echo 0 || echo 1)
  printf '%s\n' "$out" | sed "s/^/[GC_MARKERS=$m] /"
  if [ $rc -ne 0 ]; then
    echo "census_markers: test_census failed with GC_MARKERS=$m" >&2
    status=1
  elif ! printf '%s\n' "$out" | grep -q "^parallel marking: $want\$"; then
    echo "census_markers: GC_MARKERS=$m did not give parallel marking $want" \
         "(is this machine single-core?)" >&2
    status=1
  fi
done
exit $status
