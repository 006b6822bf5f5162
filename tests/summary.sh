#!/bin/sh
# SPDX-License-Identifier: MIT
# summary.sh BDWGC_BUILD_DIR OWN_TEST_SUITE_LOG
# The closing lines of `make check`: upstream's passes (off, on, faults,
# stacks-all, stacks-sample) and our tests,
# then the plain 'N passed, N failed' line.  Skipped tests (exit 77)
# are listed with their reasons, and count neither way.
set -u
dir=$1
own=$2
total_p=0; total_f=0
for mode in off on faults stacks-all stacks-sample; do
  if [ -f "$dir/upstream-$mode.count" ]; then
    read -r run p s f < "$dir/upstream-$mode.count"
  else
    run=0; p=0; s=0; f=1
  fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
done
op=$(sed -n 's/^# PASS: *//p' "$own" | head -1)
of=$(sed -n 's/^# FAIL: *//p' "$own" | head -1)
oe=$(sed -n 's/^# ERROR: *//p' "$own" | head -1)
os=$(sed -n 's/^# SKIP: *//p' "$own" | head -1)
op=${op:-0}; of=${of:-0}; oe=${oe:-0}; os=${os:-0}
if [ "$os" -gt 0 ]; then
  echo "gcacc own tests: $op passed, $((of + oe)) failed, $os skipped:"
  # Each skipped test's own reason (its "SKIP: ..." lines).
  grep '^SKIP: ' "$own" | grep -v '^SKIP: [^ ]*$' | sort -u | sed 's/^/  /'
else
  echo "gcacc own tests: $op passed, $((of + oe)) failed"
fi
total_p=$((total_p + op)); total_f=$((total_f + of + oe))
echo "check: $total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
