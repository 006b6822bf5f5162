# SPDX-License-Identifier: MIT
# cli_lib.sh: the setup the gcacc CLI tests share (tests/cli/diff.sh,
# export.sh, frag.sh, typed.sh; through workload_lib.sh also timeline.sh,
# top.sh, leaks.sh, types.sh).  Sourced with the build directory as the
# cwd (as `make check` runs them):
#   GCACC             the reader (GCACC_BIN: try another build)
#   $tmp              a fresh temporary directory, removed on exit
#   need CMD [WHY]    skip (exit 77, "SKIP: WHY", default "no CMD")
#                     unless CMD is installed
#   ok                count one check;  fail MESSAGE: count a failure
#   check WHAT COMMAND...
#                     one check: "FAIL: WHAT" unless COMMAND succeeds
#   finish [-q]       exit 0 if no check failed, else 1; first prints
#                     "<script>: N checks, M failed" unless -q
GCACC=${GCACC_BIN:-./tools/gcacc/gcacc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n_checks=0
n_failed=0

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "SKIP: ${2:-no $1}"; exit 77; }
}
fail() { n_failed=$((n_failed + 1)); echo "FAIL: $*"; }
ok() { n_checks=$((n_checks + 1)); }
check() {
  ok
  check_what=$1; shift
  "$@" || fail "$check_what"
}
finish() {
  [ "${1:-}" = -q ] ||
    echo "$(basename "$0"): $n_checks checks, $n_failed failed"
  [ "$n_failed" -eq 0 ]
  exit $?
}
