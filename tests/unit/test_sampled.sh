#!/bin/sh
# SPDX-License-Identifier: MIT
# test_sampled.sh: the sampled profile's accuracy, types explicit and
# from word 0 (tests/unit/test_sampled.c says what is judged).
set -u
prog=./tests/unit/test_sampled
status=0
for mode in explicit word0; do
  env -u GC_ACC_DUMP -u GC_ACC_PROFILE "$prog" "$mode" || status=1
done
exit $status
