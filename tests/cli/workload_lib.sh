# SPDX-License-Identifier: MIT
# workload_lib.sh: sourced by tests/cli/timeline.sh, top.sh, leaks.sh and
# types.sh.  On top of cli_lib.sh (GCACC, $tmp, counted checks, `finish`):
# runs tests/cli/workload (from the build directory, the cwd of `make
# check`) into $tmp, and more checks.
. "${srcdir:-.}/tests/cli/cli_lib.sh"
WORKLOAD=./tests/cli/workload
need jq "jq not installed"
for p in "$GCACC" "$WORKLOAD"; do
  [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done

# check_eq WHAT GOT EXPECTED
check_eq() {
  ok
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}
# check_range WHAT GOT LO HI (integers)
check_range() {
  ok
  if ! [ "$2" -ge "$3" ] 2>/dev/null || ! [ "$2" -le "$4" ]; then
    fail "$1: got '$2', expected $3..$4"
  fi
}
# check_grep WHAT FILE PATTERN (fixed string)
check_grep() {
  ok
  grep -qF -- "$3" "$2" || { fail "$1: '$3' not in:"; sed 's/^/  | /' "$2"; }
}
# run CMD...: $rc, stdout in $tmp/out, stderr in $tmp/err
run() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
# make_dump MODE: $tmp/MODE.gz and the workload's `name value` lines in
# $tmp/MODE.out
make_dump() {
  GC_ACC_DUMP="$tmp/$1.gz" "$WORKLOAD" "$1" >"$tmp/$1.out" \
    || { echo "FAIL: workload $1"; exit 1; }
  [ -s "$tmp/$1.gz" ] || { echo "FAIL: workload $1 wrote no dump"; exit 1; }
}
# val MODE NAME: a value the workload printed
val() { sed -n "s/^$2 //p" "$tmp/$1.out"; }
# size_label BYTES: as emit_size prints it (class labels of small classes)
size_label() {
  if [ "$1" -lt 1024 ]; then echo "$1 B"
  else awk -v b="$1" 'BEGIN { printf "%.1f KiB\n", b / 1024 }'; fi
}
# truncate_dump MODE PERCENT: the first PERCENT% of the file, as a killed
# writer or a cut copy leaves it, in $tmp/MODE-cut.gz
truncate_dump() {
  size=$(wc -c <"$tmp/$1.gz")
  head -c $((size * $2 / 100)) "$tmp/$1.gz" >"$tmp/$1-cut.gz"
}
# check_usage CMD: --help on stdout, exit 0; an unknown option: exit 2,
# the message and the hint on stderr, nothing on stdout
check_usage() {
  run "$GCACC" "$1" --help
  check_eq "$1 --help exit" "$rc" 0
  check_grep "$1 --help text" "$tmp/out" "usage: gcacc $1"
  check_eq "$1 --help stderr" "$(wc -c <"$tmp/err")" 0
  run "$GCACC" "$1" --bogus "$tmp/leak.gz"
  check_eq "$1 --bogus exit" "$rc" 2
  check_grep "$1 --bogus message" "$tmp/err" \
    "gcacc $1: error: unknown option '--bogus'"
  check_grep "$1 --bogus hint" "$tmp/err" "see 'gcacc $1 --help'"
  check_eq "$1 --bogus stdout" "$(wc -c <"$tmp/out")" 0
  run "$GCACC" "$1"
  check_eq "$1 without a dump: exit" "$rc" 2
  run "$GCACC" "$1" "$tmp/no-such-dump.gz"
  check_eq "$1 missing file: exit" "$rc" 2
}
# check_width WHAT FILE: every line fits 80 columns
check_width() {
  ok
  w=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$2")
  [ "$w" -le 80 ] || { fail "$1: a line of $w columns"; cat "$2"; }
}
