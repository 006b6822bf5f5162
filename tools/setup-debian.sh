#!/bin/sh
# setup-debian.sh: install the Debian packages gcacc builds and tests with.
# Runs 'apt-get update' once, then installs what is missing.  As root it
# installs; otherwise it says which packages to install and fails.
set -eu
pkgs="build-essential autoconf automake libtool pkg-config patch
      libatomic-ops-dev zlib1g-dev libjansson-dev jq ca-certificates
      clang libclang-rt-14-dev binutils
      chromium fonts-dejavu-core sqlite3"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
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
