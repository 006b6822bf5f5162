#!/bin/sh
# SPDX-License-Identifier: MIT
# check-armhf.sh: `make check`'s cross subset for armhf (tests/cross/cross.sh
# quick: gctest with accounting on, every accounting test, the il2cpp
# workload).  Skipped (77, with the reason) without the cross tools.
exec sh "${srcdir:-.}/tests/cross/cross.sh" armhf quick
