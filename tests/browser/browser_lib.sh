# SPDX-License-Identifier: MIT
# browser_lib.sh: what the browser tests share (report.sh,
# report_views.sh, speedscope.sh).  Sourced from the build directory.
#   need_tools T...   fail (exit 1) unless every T is installed
#   browser_setup OUT find Chromium (CHROMIUM, else /usr/bin/chromium, ...;
#                     none: exit 1, setup-debian.sh installs it), make OUT
#                     afresh ($abs: its absolute path) and a profile
#                     directory removed on exit ($udd)
#   run_chromium ARGS...
#                     headless Chromium on $udd, its messages appended to
#                     $abs/chromium.log; $window (1280,1400) is its size,
#                     $chromium_gpu its graphics flags (--disable-gpu),
#                     $chromium_extra more flags (none)
#   attr FILE ELEMENT-PATTERN NAME
#                     NAME="..." of the first element matching
#   ok MSG, fail MSG, check_eq WHAT GOT WANT
#                     a check passed or failed, counted in $checks and
#                     $fails (report_views.sh, report_why.sh,
#                     speedscope.sh)
: "${fails:=0}" "${checks:=0}"
# A test's own (report.sh's) are kept.
command -v fail >/dev/null 2>&1 ||
  fail() { echo "FAIL: $*"; fails=$((fails + 1)); checks=$((checks + 1)); }
command -v ok >/dev/null 2>&1 ||
  ok() { echo "ok: $*"; checks=$((checks + 1)); }
# shellcheck disable=SC2015
check_eq() { [ "$2" = "$3" ] && ok "$1: $2" || fail "$1: got '$2', want '$3'"; }

need_tools() {
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || {
      echo "FAIL: '$t' not found; run tools/setup-debian.sh" >&2; exit 1; }
  done
}

browser_setup() {
  chromium=${CHROMIUM:-}
  for c in /usr/bin/chromium chromium chromium-browser; do
    [ -n "$chromium" ] && break
    command -v "$c" >/dev/null 2>&1 && chromium=$(command -v "$c")
  done
  if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
    echo "FAIL: Chromium not found (looked for /usr/bin/chromium); install" \
         "it with tools/setup-debian.sh (as root), or set CHROMIUM" >&2
    exit 1
  fi
  rm -rf "$1"
  mkdir -p "$1"
  abs=$(cd "$1" && pwd)
  udd=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-chromium.XXXXXX")
  trap 'rm -rf "$udd"' EXIT INT TERM
}

window=1280,1400
chromium_gpu=--disable-gpu
chromium_extra=
run_chromium() {
  to=""
  command -v timeout >/dev/null 2>&1 && to="timeout 120"
  # shellcheck disable=SC2086
  $to "$chromium" --headless --no-sandbox $chromium_gpu --disable-quic \
    --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$udd" \
    --window-size="$window" $chromium_extra "$@" 2>>"$abs/chromium.log"
}

attr() {
  grep -o "$2[^>]*" "$1" | head -n 1 |
    sed -n "s/.* $3=\"\\([^\"]*\\)\".*/\\1/p"
}
