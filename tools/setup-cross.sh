#!/bin/sh
# SPDX-License-Identifier: MIT
# setup-cross.sh: the cross toolchains and emulator the ARM tests use
# (tests/cross/cross.sh): Debian's aarch64-linux-gnu and
# arm-linux-gnueabihf gcc (each brings its target C library under
# /usr/<triplet>), their binutils (addr2line for offline symbolization),
# and qemu-user; and mingw-w64's x86-64 gcc (Windows), with which
# tests/il2cpp/portability.sh compiles the IL2CPP drop-in, its zlib
# (libz-mingw-w64-dev), its binutils (x86_64-w64-mingw32-addr2line, with
# which gcacc symbolize reads PE images) and wine64 (/usr/lib/wine/wine64), under which
# tests/cross/windows.sh runs the Windows build; and Wine's Windows and
# C runtime headers (libwine-dev), with which portability.sh compiles
# the drop-in with clang in MSVC mode; and LLVM's linker and tools (lld:
# lld-link; llvm: llvm-symbolizer, llvm-readobj), with which windows.sh
# builds a DLL as MSVC does, its debug information in a PDB only, and
# with which gcacc symbolize reads such a module through its PDB.
# The target's zlib is not installed through multiarch
# (nor its jansson; no foreign architecture is added: on the CI image `apt-get update`
# fails once one is): its .debs are downloaded one by one through a
# temporary apt source list, in a private apt configuration derived from
# the machine's own sources (the system's apt files are not touched), and
# unpacked into a sysroot, _cross/sysroot-<arch> by default
# (GCACC_CROSS_SYSROOT_DIR).  libatomic_ops is header-only for our use:
# the host's headers serve every target.
#
# Idempotent and quiet: does nothing when everything is there.  As root
# it installs; otherwise it says what is missing and fails.
#   tools/setup-cross.sh [SYSROOT_PARENT]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-${GCACC_CROSS_SYSROOT_DIR:-$top/_cross}}
pkgs="gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
      binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf
      libc6-dev-arm64-cross libc6-dev-armhf-cross qemu-user
      gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 libz-mingw-w64-dev
      wine64 libwine-dev lld llvm"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-cross.sh: error: missing Debian packages:$missing" >&2
    echo "  install them as root: apt-get install$missing" >&2
    exit 1
  fi
  echo "setup-cross.sh: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# The target's zlib (and jansson, for the tests that read dumps back), as
# single .debs in a sysroot.
need=""
for arch in arm64 armhf; do
  [ -f "$dest/sysroot-$arch/.complete2" ] || need="$need $arch"
done
[ -z "$need" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# A private apt configuration: the machine's own Debian mirror and
# suite (deb822 or one-line format), for the foreign architectures only.
mirror="" suite="" keys=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mirror=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' "$f")
  suite=$(awk '/^Suites:/ {print $2; exit}' "$f")
  keys=$(awk '/^Signed-By:/ {print $2; exit}' "$f")
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
  set -- $(awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /debian\/?$/ {print $2, $3; exit}' \
           /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null) ""
  mirror=${1:-} suite=${2:-}
fi
if [ -z "$mirror" ] || [ -z "$suite" ]; then
  echo "setup-cross.sh: error: no Debian mirror in the apt sources" >&2
  exit 1
fi
mkdir -p "$tmp/lists/partial" "$tmp/archives/partial" "$tmp/etc/preferences.d" \
  "$tmp/etc/sources.list.d"
: > "$tmp/status"
archs=$(echo $need | tr ' ' ,)
echo "deb [arch=$archs${keys:+ signed-by=$keys}] $mirror $suite main" \
  > "$tmp/etc/sources.list"
# Keys as the system has them (Dir::Etc moved, trusted.gpg.d with it).
ln -s /etc/apt/trusted.gpg.d "$tmp/etc/trusted.gpg.d"
chmod 755 "$tmp"
aptq() {
  apt-get -q -o Dir::Etc="$tmp/etc" -o APT::Sandbox::User=root -o Dir::State::Lists="$tmp/lists" \
    -o Dir::State::status="$tmp/status" -o Dir::Cache="$tmp" \
    -o Dir::Cache::Archives="$tmp/archives" \
    -o APT::Architectures::="$(dpkg --print-architecture)" \
    $(for a in $need; do printf ' -o APT::Architectures::=%s' "$a"; done) \
    "$@"
}
aptq update >/dev/null
for arch in $need; do
  (cd "$tmp" && aptq download "zlib1g:$arch" "zlib1g-dev:$arch" \
    "libjansson4:$arch" "libjansson-dev:$arch" >/dev/null)
  rm -rf "$dest/sysroot-$arch"
  mkdir -p "$dest/sysroot-$arch"
  for d in "$tmp"/*_"$arch".deb; do
    dpkg -x "$d" "$dest/sysroot-$arch"
  done
  touch "$dest/sysroot-$arch/.complete2"
done
echo "setup-cross.sh: target zlib, jansson in $dest/sysroot-{$(echo $need | tr ' ' ,)}"
