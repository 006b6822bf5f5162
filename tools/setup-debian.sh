#!/bin/sh
# SPDX-License-Identifier: MIT
# setup-debian.sh: install the Debian packages gcacc builds and tests with.
# Runs 'apt-get update' once, then installs what is missing.  As root it
# installs; otherwise it says which packages to install and fails.  Then
# the front-end tools of the browser tests (tests/browser/package.json:
# speedscope) with `npm ci` from their lockfile, when it changed; where
# that fails (no registry), it warns and the tests that need them skip.
# valgrind, libjemalloc2 and libgoogle-perftools4 are for the benches
# only (make bench-instr, make bench-anchors), never for make check.
# Last, the ARM cross toolchains and qemu-user (tools/setup-cross.sh),
# which `make check`'s cross subset needs.
set -eu
pkgs="build-essential autoconf automake libtool pkg-config patch
      libatomic-ops-dev zlib1g-dev libjansson-dev jq ca-certificates
      clang libclang-rt-14-dev binutils
      chromium fonts-dejavu-core sqlite3 nodejs guile-3.0 ecl
      valgrind libjemalloc2 libgoogle-perftools4"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
# Debian's nodejs comes without npm (a package of its own); other builds
# of nodejs carry it, and conflict with Debian's npm.
if ! command -v npm >/dev/null 2>&1; then
  case $missing in *nodejs*) ;; *) missing="$missing npm" ;; esac
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-debian.sh: error: missing Debian packages:$missing" >&2
    echo "  install them as root: apt-get install$missing" >&2
    exit 1
  fi
  echo "setup-debian.sh: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing >/dev/null
  if ! command -v npm >/dev/null 2>&1; then
    apt-get install -y -q --no-install-recommends npm >/dev/null
  fi
fi

web=$(cd "$(dirname "$0")/.." && pwd)/tests/browser
stamp=$web/node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ "$web/package-lock.json" -nt "$stamp" ]; then
  echo "setup-debian.sh: npm ci in tests/browser (speedscope)"
  if ! (cd "$web" && npm ci --no-audit --no-fund --loglevel=error \
          >/dev/null); then
    echo "setup-debian.sh: warning: npm ci in $web failed: the browser" \
         "tests that need speedscope will be skipped" >&2
  fi
fi

# The ARM cross toolchains, qemu-user and the targets' libraries that
# check's cross subset runs with (idempotent; quiet when present).
exec sh "$(dirname "$0")/setup-cross.sh"
