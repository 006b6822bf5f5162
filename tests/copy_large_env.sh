#!/bin/sh
# SPDX-License-Identifier: MIT
# copy_large_env.sh: GC_ACC_UNWIND from the environment picks
# GC_generic_malloc's copy (accounting/tlflags.c), also when accounting
# goes on from the environment first (GC_ACC_ENABLE is read before
# GC_ACC_UNWIND: the setting goes through GC_acc_set_unwinder, which
# picks again).  Under fp the copy of mode 1 without the frame record
# would lose the program's frames of every large object's sample
# (tests/unit/test_sample_paths.c); before, it ran under fp from the
# environment.  tests/unit/test_tl_copies --env checks the copy.
set -u
prog=./tests/unit/test_tl_copies
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
rc=0
for u in fp auto libgcc; do
  env GC_ACC_ENABLE=1 GC_ACC_PROFILE=sampled GC_ACC_UNWIND=$u \
    "$prog" --env || { echo "FAIL: GC_ACC_UNWIND=$u"; rc=1; }
done
exit $rc
