#!/bin/sh
# run-upstream.sh MODE BDWGC_BUILD_DIR
#
# Runs upstream bdwgc's own `make check` (every test its tests.am builds
# for this configuration) against the patched library, unchanged.
#   MODE off: accounting off (no GC_ACC_* variable set).
#   MODE on:  accounting switched on for every test through the
#             environment (GC_ACC_ENABLE=1).
# Prints one count line and the tests by result; writes the counts to
# BDWGC_BUILD_DIR/upstream-MODE.count for tests/summary.sh.  Exit status:
# upstream's.

set -u
mode=$1
dir=$2
case $mode in
  off|on) ;;
  *) echo "run-upstream.sh: error: mode must be off or on, not '$mode'" >&2
     exit 2 ;;
esac

# Start from a clean slate: no inherited GC_ACC_* setting.
for v in $(env | sed -n 's/^\(GC_ACC_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
if [ "$mode" = on ]; then
  GC_ACC_ENABLE=1
  export GC_ACC_ENABLE
fi

log="test-suite-acc-$mode.log"
cd "$dir" || exit 2
start=$(date +%s)
${MAKE:-make} check TEST_SUITE_LOG="$log" > "upstream-$mode.out" 2>&1
status=$?
secs=$(( $(date +%s) - start ))

pass=""; fail=""; skip=""; np=0; nf=0; ns=0
for trs in $(find . -name '*.trs' | sort); do
  name=$(basename "$trs" .trs)
  res=$(sed -n 's/^:test-result: //p' "$trs" | head -1)
  case $res in
    PASS|XFAIL) pass="$pass $name"; np=$((np + 1)) ;;
    SKIP) skip="$skip $name"; ns=$((ns + 1)) ;;
    *) fail="$fail $name($res)"; nf=$((nf + 1)) ;;
  esac
done
run=$((np + nf + ns))
if [ "$status" -ne 0 ] && [ "$nf" -eq 0 ]; then
  # The build or the harness failed before the tests could say.
  nf=1
  fail=" (make check failed; see $dir/upstream-$mode.out)"
  tail -20 "upstream-$mode.out" | sed 's/^/  | /'
fi
echo "upstream (accounting $mode): $run run, $np passed, $ns skipped, $nf failed (${secs}s)"
[ -n "$pass" ] && echo "  passed:$pass"
[ -n "$skip" ] && echo "  skipped:$skip"
[ -n "$fail" ] && echo "  FAILED:$fail"
echo "$run $np $ns $nf" > "upstream-$mode.count"
if [ "$nf" -ne 0 ] || [ "$run" -eq 0 ]; then
  [ -f "$log" ] && sed -n '/^FAIL\|^ERROR/,+30p' "$log" | head -60 | sed 's/^/  | /'
  exit 1
fi
exit 0
