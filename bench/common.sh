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
#   bench_configs LIST [PFX]   LIST, less PFXcompiled-out when sfx names
#                              the -notl builds (they have no compiled-out)
#   bench_median_awk           an awk function median(a, n) (sorts a[1..n]),
#                              to put before an awk program's own text
#   bench_drift_awk            an awk function drift(t, bt, bb, mk, bmk): the
#                              heap's drift of a row, in instructions
#                              (bench/README.md, "Drift"), from cg_drift's
#                              figures of the row (t calls of the block
#                              allocator, mk marking) and of its base (bt,
#                              bb the base's block allocator, bmk)
#   bench_norand               sets norand: the command that runs a program
#                              with address-space randomization off, or ""
#                              with a warning where setarch -R fails
#   cg_native_env, cg_native_opt
#                              the environment word and valgrind option
#                              with which a run under callgrind marks what
#                              it marks natively: memory mapped from 4 GiB
#                              up, where no size of the collector's reads
#                              as a heap address, and symbols bound at load,
#                              so that no lazy-binding trampoline leaves
#                              registers on the stack (docs/design.md, "Off
#                              against compiled out: what valgrind kept")
#   cg_total FILE              the "totals:" count of one callgrind file
#   cg_threads PREFIX LABEL    sets main (PREFIX-01's total, the main
#                              thread's) and all (the sum over PREFIX-*),
#                              from a --separate-threads=yes run; dies,
#                              naming LABEL, when PREFIX-01 is missing
#   cg_drift PREFIX            sets nth_calls, blk_ir, mark_ir from the same
#                              files: the block allocator and marking
#                              (see its comment, below)

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
    echo "$1" | sed "s/ ${2:-}compiled-out//"
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

# The block allocator's visits over the base's at the base's cost a
# visit, plus all of marking's difference; without a base's visits, the
# marking alone.
bench_drift_awk='
function drift(t, bt, bb, mk, bmk) {
  return (bt > 0 ? (t - bt) * bb / bt : 0) + (mk - bmk)
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

cg_native_env=LD_BIND_NOW=1
cg_native_opt=--aspace-minaddr=0x100000000

cg_total() { sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$1"; }

cg_threads() {
  # One file per thread: -01 is the main thread's.
  [ -f "$1-01" ] || die "$2: callgrind wrote no ${1##*/}-01"
  main=$(cg_total "$1-01")
  all=0
  for f in "$1"-*; do all=$((all + $(cg_total "$f"))); done
}

# cg_drift PREFIX: from a --separate-threads=yes run (every PREFIX-*
# file), the functions where the heap's layout shows, summed over the
# threads.  Sets nth_calls (calls of GC_allochblk_nth, the block
# allocator's visit of one free list), blk_ir (the instructions of
# GC_allochblk_nth and GC_allochblk themselves, callees not included)
# and mark_ir (those of GC_mark_from, GC_mark_local,
# GC_push_contents_hdr and GC_header_cache_miss: marking).  Read from
# callgrind's own file format: a cost line right after a calls= line is
# the call's inclusive cost and is not the caller's own.
cg_drift() {
  set -- $(awk '
    function name(s,    id, rest) {     # "(12) foo" or "(12)"
      id = s; sub(/\).*/, "", id); sub(/^\(/, "", id)
      rest = s; sub(/^\([0-9]+\) ?/, "", rest)
      if (rest != "") names[FILENAME, id] = rest
      return names[FILENAME, id]
    }
    function base(n) { sub(/\047[0-9]+$/, "", n); sub(/\..*$/, "", n); return n }
    /^fn=/  { fn = base(name(substr($0, 4))); skip = 0; next }
    /^cfn=/ { cfn = base(name(substr($0, 5))); next }
    /^calls=/ { split(substr($1, 7), c, " "); calls[cfn] += c[1]; skip = 1; next }
    /^[-+*0-9]/ { if (skip) { skip = 0; next } self[fn] += $2; next }
    END {
      printf "%.0f %.0f %.0f\n", calls["GC_allochblk_nth"],
        self["GC_allochblk_nth"] + self["GC_allochblk"],
        self["GC_mark_from"] + self["GC_mark_local"] + \
          self["GC_push_contents_hdr"] + self["GC_header_cache_miss"]
    }' "$1"-*)
  nth_calls=${1:-0} blk_ir=${2:-0} mark_ir=${3:-0}
}
