# SPDX-License-Identifier: MIT
# common.sh: what the bench scripts share; sourced, never run.
#
#   here=$(cd "$(dirname "$0")" && pwd); . "$here/common.sh"
#   bench_setup NAME [OUTDIR]
#
# bench_setup sets top (the source tree) and out (OUTDIR, default
# _build/bench), and names the script in die's messages.  Also:
#   die MESSAGE...             error on stderr, exit 1
#   want_count VAR VALUE       die unless VALUE is a positive integer
#   unset_acc_env              no GC_ACC_* setting leaks in from the caller
#   bench_build VAR VALUE      which pair of builds VALUE (VAR's value)
#                              names: sets sfx, "" for tl (also when VALUE
#                              is empty), -notl for notl; dies otherwise
#   bench_configs LIST         LIST, less compiled-out when sfx names the
#                              -notl builds (they have no compiled-out)
#   bench_median_awk           an awk function median(a, n) (sorts a[1..n]),
#                              to put before an awk program's own text
#   bench_norand               sets norand: the command that runs a program
#                              with address-space randomization off, or ""
#                              with a warning where setarch -R fails
#   cg_total FILE              the "totals:" count of one callgrind file
#   cg_threads PREFIX LABEL    sets main (PREFIX-01's total, the main
#                              thread's) and all (the sum over PREFIX-*),
#                              from a --separate-threads=yes run; dies,
#                              naming LABEL, when PREFIX-01 is missing

bench_setup() {
  bench_name=$1
  top=$(cd "$here/.." && pwd)
  out=$(cd "${2:-$top/_build/bench}" && pwd)
}

die() { printf '%s: error: %s\n' "$bench_name" "$*" >&2; exit 1; }

want_count() {
  case $2 in ''|*[!0-9]*|0) die "$1=$2: want a positive integer" ;; esac
}

unset_acc_env() {
  for v in $(env | sed -n 's/^\(GC_ACC_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
  done
}

bench_build() {
  case $2 in
    ''|tl) sfx= ;;
    notl) sfx=-notl ;;
    *) die "$1=$2: want tl or notl" ;;
  esac
}

bench_configs() {
  if [ -n "$sfx" ]; then
    echo "$1" | sed 's/ compiled-out//'
  else
    echo "$1"
  fi
}

bench_median_awk='
function median(a, n,    i, j, t) {
  for (i = 2; i <= n; i++) {          # insertion sort; n is small
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  if (n == 0) return ""
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

bench_norand() {
  norand=
  if setarch "$(uname -m)" -R true 2> /dev/null; then
    norand="setarch $(uname -m) -R"
  else
    echo "$bench_name: warning: setarch -R fails here; instruction counts may vary a little with address-space randomization" >&2
  fi
}

cg_total() { sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$1"; }

cg_threads() {
  # One file per thread: -01 is the main thread's.
  [ -f "$1-01" ] || die "$2: callgrind wrote no ${1##*/}-01"
  main=$(cg_total "$1-01")
  all=0
  for f in "$1"-*; do all=$((all + $(cg_total "$f"))); done
}
