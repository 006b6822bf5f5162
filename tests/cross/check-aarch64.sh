#!/bin/sh
# SPDX-License-Identifier: MIT
# check-aarch64.sh: `make check`'s cross subset for aarch64 (tests/cross/cross.sh
# quick: gctest with accounting on, every accounting test, the il2cpp
# workload).  Skipped (77, with the reason) without the cross tools.
exec sh "${srcdir:-.}/tests/cross/cross.sh" aarch64 quick
