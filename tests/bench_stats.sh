#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_stats.sh: the statistics `make bench` prints its verdicts from.
# median_ci_rank(n) (bench/run-ratios.sh) must give the rank of the
# distribution-free 95% interval of a median, as published tables give it
# (n = 6..8: 1, 9..11: 2, 15: 4, 20: 6, 25: 8, 30: 10; none below 6), and
# ci_verdict must call a target met, MISSED or undecided from an interval.
set -eu
: "${srcdir:=.}"
script="$srcdir/bench/run-ratios.sh"
fns=$(sed -n '/^function median_ci_rank/,/^}/p; /^function ci_verdict/,/^}/p' \
        "$script")
[ -n "$fns" ] || { echo "FAIL: no median_ci_rank/ci_verdict in $script" >&2; exit 1; }
out=$(awk "$fns"'
BEGIN {
  split("4:0 5:0 6:1 7:1 8:1 9:2 10:2 11:2 12:3 15:4 20:6 25:8 30:10 50:18", want, " ")
  for (i in want) {
    split(want[i], nk, ":")
    got = median_ci_rank(nk[1] + 0)
    if (got != nk[2]) { printf "median_ci_rank(%d) = %d, want %d\n", nk[1], got, nk[2]; bad++ }
  }
  if (ci_verdict(0.98, 1.02, 1.03) != "met") { print "verdict: [0.98, 1.02] vs 1.03 should be met"; bad++ }
  if (ci_verdict(1.031, 1.10, 1.03) != "MISSED") { print "verdict: [1.031, 1.10] vs 1.03 should be MISSED"; bad++ }
  if (ci_verdict(1.00, 1.04, 1.03) != "undecided") { print "verdict: [1.00, 1.04] vs 1.03 should be undecided"; bad++ }
  if (bad) exit 1
  print "ok"
}') || { echo "FAIL: $out" >&2; exit 1; }
echo "bench statistics: $out"
