#!/bin/sh
# SPDX-License-Identifier: MIT
# dump_targets.sh: a dump target that fails never stops the program.
#
# The program measured is never blocked, slowed without bound or killed
# because of its dump (issue 25, faults 1-3).  tests/faults/dumpload
# (RECORDS records, some 200 KiB compressed: more than a pipe or the
# test's tmpfs holds) runs with GC_ACC_DUMP at targets that fail in each
# way, under `timeout`:
#
#  1. a FIFO no process reads: open() must not block (it did, inside
#     GC_init, for ever): the program finishes, warns, exits 0;
#  2. a FIFO whose reader never reads: the program finishes and exit
#     waits at most GC_ACC_DUMP_EXIT_WAIT (here 300 ms) for the writer
#     (it waited for ever), with a warning counting what was not written;
#  3. a file-size limit (ulimit -f) below the compressed header: the
#     program is not killed by SIGXFSZ (it was: exit status 153) and
#     warns;
#  4. the same limit mid-run (a few KiB): the writer thread's writes
#     fail, the program exits 0, and the dump reads up to its last whole
#     record;
#  5. a full file system (a 64 KiB tmpfs, where this machine lets the
#     test mount one; said skipped otherwise): as 4.
set -eu
: "${srcdir:=.}"
prog=${DUMPLOAD:-tests/faults/dumpload}
: "${RECORDS:=3000}"
gcacc=tools/gcacc/gcacc
tmp=$(mktemp -d)
cleanup() {
  [ -n "${mnt:-}" ] && umount "$mnt" 2>/dev/null || :
  [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null || :
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
passed=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { passed=$((passed + 1)); }

# run NAME TIMEOUT_S: runs the workload with the environment given
# before the call; status in $rc, stderr in $tmp/NAME.err.
run() {
  set +e
  timeout -s KILL "$2" "$prog" "$RECORDS" > "$tmp/$1.out" 2> "$tmp/$1.err"
  rc=$?
  set -e
}

# 1. A FIFO with no reader.
mkfifo "$tmp/nobody"
GC_ACC_DUMP="$tmp/nobody" run nobody 20
if [ "$rc" -ne 0 ]; then
  fail "FIFO with no reader: exit status $rc (137: still blocked after 20 s)"
elif ! grep -q "a FIFO no process reads" "$tmp/nobody.err"; then
  fail "FIFO with no reader: no warning saying so:"; cat "$tmp/nobody.err" >&2
else ok; fi

# 2. A FIFO whose reader never reads: this shell holds it open (read and
#    write, so opening it does not block) and reads nothing.
mkfifo "$tmp/stalled"
exec 3<> "$tmp/stalled"
t0=$(date +%s%N)
GC_ACC_DUMP="$tmp/stalled" GC_ACC_DUMP_EXIT_WAIT=300 run stalled 30
t1=$(date +%s%N)
exec 3>&-
if [ "$rc" -ne 0 ]; then
  fail "FIFO whose reader stalls: exit status $rc (137: exit still waiting after 30 s)"
elif ! grep -q "not written after waiting 300 ms" "$tmp/stalled.err"; then
  fail "FIFO whose reader stalls: no warning counting the records not written:"
  cat "$tmp/stalled.err" >&2
else ok; fi
echo "stalled reader: the program took $(( (t1 - t0) / 1000000 )) ms in all"

# limited BLOCKS NAME: the program under `ulimit -f BLOCKS` (512-byte
# blocks).  Its stderr goes through a pipe, so the program's own warning
# is not itself a write past the limit; status in $rc.
limited() {
  { st=0; (ulimit -f "$1"; GC_ACC_DUMP="$tmp/$2.gz" exec "$prog" "$RECORDS" \
       > /dev/null) || st=$?; echo "$st" > "$tmp/$2.rc"; } 2>&1 \
    | cat > "$tmp/$2.err"
  rc=$(cat "$tmp/$2.rc")
}

# 3. A file-size limit below the header: no SIGXFSZ.
limited 0 limit0
if [ "$rc" -ne 0 ]; then
  fail "file-size limit 0: exit status $rc (153: killed by SIGXFSZ)"
elif ! grep -q "cannot write dump file" "$tmp/limit0.err"; then
  fail "file-size limit 0: no warning:"; cat "$tmp/limit0.err" >&2
else ok; fi

# 4. A limit of 8 blocks of 512 bytes: the header fits, records soon do
#    not; what was written reads.
limited 8 limit8
if [ "$rc" -ne 0 ]; then
  fail "file-size limit mid-run: exit status $rc (153: killed by SIGXFSZ)"
elif ! grep -q "cannot write dump file" "$tmp/limit8.err"; then
  fail "file-size limit mid-run: no warning:"; cat "$tmp/limit8.err" >&2
elif ! "$gcacc" summary "$tmp/limit8.gz" > "$tmp/limit8.sum" 2>&1; then
  fail "file-size limit mid-run: the dump does not read:"; cat "$tmp/limit8.sum" >&2
else ok; fi

# 5. A full file system.
mnt="$tmp/mnt"
mkdir "$mnt"
if mount -t tmpfs -o size=65536 tmpfs "$mnt" 2> /dev/null; then
  GC_ACC_DUMP="$mnt/full.gz" run full 30
  if [ "$rc" -ne 0 ]; then
    fail "full file system: exit status $rc"
  elif ! grep -q "cannot write dump file" "$tmp/full.err"; then
    fail "full file system: no warning:"; cat "$tmp/full.err" >&2
  elif ! "$gcacc" summary "$mnt/full.gz" > "$tmp/full.sum" 2>&1; then
    fail "full file system: the dump does not read:"; cat "$tmp/full.sum" >&2
  else ok; fi
else
  mnt=
  echo "full file system: skipped (this machine does not let the test mount a tmpfs; the file-size limits above fail the same writes)"
fi
[ "$fails" -eq 0 ] && echo "dump targets: $passed failing targets, the program ran to its end and exited 0 each time"
exit "$fails"
