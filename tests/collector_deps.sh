#!/bin/sh
# SPDX-License-Identifier: MIT
# collector_deps.sh: what the collector side links, and what it exports.
#
# The design names bdwgc, libatomic_ops and zlib as the collector's only
# dependencies (IL2CPP's source tree ships zlib but no jansson; the reader,
# tools/gcacc, keeps jansson).  And a release libgc exports no test-only
# entry point: those are in the test library (libgcacc_test.la) alone.
# Fails when libgc needs a json_* symbol or links libjansson, or exports
# GC_acc_test_*.
set -eu
lib=bdwgc/upstream/.libs/libgc.so
[ -f "$lib" ] || lib=bdwgc/upstream/.libs/libgc.a
[ -f "$lib" ] || { echo "FAIL: no libgc under bdwgc/upstream/.libs" >&2; exit 1; }
fails=0
if nm -u "$lib" 2>/dev/null | grep ' json_'; then
  echo "FAIL: $lib needs jansson (json_* above)" >&2
  fails=$((fails + 1))
fi
case $lib in
  *.so)
    if ldd "$lib" | grep -i jansson; then
      echo "FAIL: $lib links libjansson" >&2
      fails=$((fails + 1))
    fi
    exported=$(nm -D --defined-only "$lib" | awk '{print $3}')
    ;;
  *) exported=$(nm -g --defined-only "$lib" | awk '{print $3}') ;;
esac
if echo "$exported" | grep '^GC_acc_test'; then
  echo "FAIL: $lib exports test-only entry points (above)" >&2
  fails=$((fails + 1))
fi
echo "$exported" | grep -q '^GC_acc_dump_start$' || {
  echo "FAIL: $lib does not export GC_acc_dump_start" >&2
  fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "collector deps: libgc needs no jansson and exports no test entry point"
exit "$fails"
