#!/bin/sh
# SPDX-License-Identifier: MIT
# run-upstream.sh MODE BDWGC_BUILD_DIR
#
# Runs upstream bdwgc's own `make check` (every test its tests.am builds
# for this configuration) against the patched library, unchanged.
#   MODE off: accounting off (no GC_ACC_* variable set).
#   MODE on:  accounting and dumping switched on for every test through
#             the environment (GC_ACC_ENABLE=1, GC_ACC_DUMP=.../%p.jsonl.gz:
#             each test process writes its own dump), with the default
#             profile, sampled, one sample per 64 KiB (eight times the
#             default rate, to take more samples); afterwards every dump
#             must be a whole gzip file whose records all parse (jq), and
#             gctest's must hold samples.
#   MODE faults: gctest with GC_ACC_DUMP at /dev/full, at a directory and
#             in a missing directory: each run passes and warns once.
#   MODE stacks-all, stacks-sample: accounting on with every object tagged
#             by type and callsite (the full profile), every allocation's
#             stack captured (GC_ACC_PROFILE=trace) or one sampled per
#             512 KiB (GC_ACC_PROFILE=full GC_ACC_STACKS=sample=524288);
#             no dump (the census and the per-type and per-site books
#             still run at every collection).
# Prints one count line and the tests by result; writes the counts to
# BDWGC_BUILD_DIR/upstream-MODE.count for tests/summary.sh.  Exit status:
# upstream's.

set -u
mode=$1
dir=$2
case $mode in
  off|on|faults|stacks-all|stacks-sample) ;;
  *) echo "run-upstream.sh: error: mode must be off, on, faults, stacks-all or stacks-sample, not '$mode'" >&2
     exit 2 ;;
esac

# Start from a clean slate: no inherited GC_ACC_* setting.
for v in $(env | sed -n 's/^\(GC_ACC_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
cd "$dir" || exit 2
dumps="$(pwd)/upstream-dumps"

if [ "$mode" = faults ]; then
  # gctest is built by the passes before this one.
  [ -x ./gctest ] || { echo "run-upstream.sh: error: $dir/gctest not built" >&2
                       exit 1; }
  mkdir -p "$dumps/a-directory"
  np=0; nf=0
  for target in /dev/full "$dumps/a-directory" "$dumps/missing/dir/d.gz"; do
    GC_ACC_DUMP=$target ./gctest > "$dumps/fault.out" 2> "$dumps/fault.err"
    st=$?
    warns=$(grep -c 'gcacc' "$dumps/fault.err")
    if [ "$st" -eq 0 ] && [ "$warns" -eq 1 ]; then
      np=$((np + 1))
    else
      nf=$((nf + 1))
      echo "  FAILED: gctest with GC_ACC_DUMP=$target: exit $st, $warns warnings"
      sed 's/^/  | /' "$dumps/fault.err" | head -10
    fi
  done
  echo "upstream gctest, unwritable dumps: 3 run, $np passed, 0 skipped, $nf failed"
  echo "3 $np 0 $nf" > "upstream-faults.count"
  [ "$nf" -eq 0 ]
  exit
fi

if [ "$mode" = on ]; then
  rm -rf "$dumps"
  mkdir -p "$dumps"
  GC_ACC_ENABLE=1
  GC_ACC_DUMP="$dumps/%p.jsonl.gz"
  GC_ACC_PROFILE=sampled=65536
  export GC_ACC_ENABLE GC_ACC_DUMP GC_ACC_PROFILE
fi

if [ "$mode" = stacks-all ] || [ "$mode" = stacks-sample ]; then
  GC_ACC_ENABLE=1
  if [ "$mode" = stacks-all ]; then GC_ACC_PROFILE=trace GC_ACC_STACKS=all
  else GC_ACC_PROFILE=full GC_ACC_STACKS=sample=524288; fi
  export GC_ACC_ENABLE GC_ACC_PROFILE GC_ACC_STACKS
fi

log="test-suite-acc-$mode.log"
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
if [ "$mode" = on ]; then
  # Every test process left a whole dump whose every record parses.
  nd=0; nrec=0; bad=""
  for f in "$dumps"/*.jsonl.gz; do
    [ -f "$f" ] || continue
    nd=$((nd + 1))
    if ! gzip -t "$f" 2>/dev/null ||
       ! n=$(zcat "$f" | jq -e -r .record 2>/dev/null | grep -c .) ||
       [ "$(zcat "$f" | head -1 | jq -r .record)" != header ]; then
      bad="$bad $(basename "$f")"
      continue
    fi
    nrec=$((nrec + n))
  done
  echo "  dumps: $nd files, $nrec records, all whole and parsed${bad:+ EXCEPT$bad}"
  # The sampled profile took samples in gctest (it allocates hundreds of
  # megabytes): its last record counts them.
  for f in "$dumps"/*.jsonl.gz; do
    [ -f "$f" ] || continue
    case $(zcat "$f" 2>/dev/null | head -1 | jq -r .executable) in
      */gctest|*/lt-gctest) ;;
      *) continue ;;
    esac
    taken=$(zcat "$f" | jq -r 'select(.samples) | .samples.taken' | tail -1)
    prof=$(zcat "$f" | head -1 | jq -r .config.profile)
    if [ "$prof" != sampled ] || [ "${taken:-0}" -lt 100 ]; then
      bad="$bad $(basename "$f")(profile=$prof,samples=${taken:-none})"
    fi
  done
  # Every test that starts the collector wrote one: match the dumps'
  # executables against the tests whose binary calls the allocator.
  exes=$(for f in "$dumps"/*.jsonl.gz; do
           zcat "$f" 2>/dev/null | head -1 | jq -r .executable; done |
         sed 's|.*/||; s|^lt-||' | sort -u)
  missing=""
  for trs in $(find . -name '*.trs'); do
    name=$(basename "$trs" .trs)
    bin=$name
    [ -f ".libs/lt-$name" ] && bin=".libs/lt-$name"
    [ -f ".libs/$name" ] && bin=".libs/$name"
    nm "$bin" 2>/dev/null | grep -q ' [UT] GC_\(init\|malloc\|generic_malloc\)' ||
      continue     # never starts the collector (test_atomic_ops)
    echo "$exes" | grep -qx "$name" || missing="$missing $name"
  done
  if [ -n "$bad" ] || [ -n "$missing" ]; then
    [ -n "$missing" ] && echo "  FAILED: no dump from:$missing"
    nf=$((nf + 1))
    fail="$fail dumps"
  fi
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
