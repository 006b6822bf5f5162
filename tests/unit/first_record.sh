#!/bin/sh
# SPDX-License-Identifier: MIT
# first_record.sh: every collection after the dump starts has a record
# (issue 33, item 6).  GC_init's own collection (bdwgc's "precollect")
# came before GC_ACC_DUMP started the dump, so a program that made six
# collections had five records.  Checked in every profile: with
# GC_ACC_DUMP the records' gc_no are exactly 1 .. GC_get_gc_no(); with
# GC_acc_dump_start after GC_INIT, the collections after it.
set -u
prog=./tests/unit/collections
me=first_record.sh
command -v zcat >/dev/null 2>&1 || { echo "$me: SKIP: no zcat"; exit 77; }
[ -x "$prog" ] || { echo "$me: FAIL: $prog not built"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-first.XXXXXX") || exit 99
trap 'rm -rf "$t"' EXIT INT TERM
failed=0
fail() { echo "$me: FAIL: $*"; failed=1; }

# The gc_no of the dump's collection records, one line.
gcs() { zcat "$1" | grep -o '"record":"collection","seq":[0-9]*,"gc_no":[0-9]*' |
        sed 's/.*"gc_no"://' | tr '\n' ' '; }
upto() { i=$1; s=""; while [ "$i" -le "$2" ]; do s="$s$i "; i=$((i + 1)); done
         echo "$s"; }

for prof in off sampled full trace; do
  rm -f "$t/d.jsonl.gz"
  n=$(env GC_ACC_PROFILE=$prof GC_ACC_DUMP="$t/d.jsonl.gz" "$prog" 6) ||
    { fail "$prof: exit $?"; continue; }
  got=$(gcs "$t/d.jsonl.gz"); want=$(upto 1 "$n")
  [ "$got" = "$want" ] ||
    fail "$prof, GC_ACC_DUMP: $n collections, records of gc_no '$got'" \
         "(expected '$want')"
  rm -f "$t/a.jsonl.gz"
  n0=$(env -u GC_ACC_DUMP GC_ACC_PROFILE=$prof "$prog" 0) || n0=-1
  n=$(env -u GC_ACC_DUMP GC_ACC_PROFILE=$prof "$prog" 6 "$t/a.jsonl.gz") ||
    { fail "$prof: API start: exit $?"; continue; }
  got=$(gcs "$t/a.jsonl.gz"); want=$(upto $((n0 + 1)) "$n")
  [ "$got" = "$want" ] ||
    fail "$prof, GC_acc_dump_start: collections $((n0 + 1)) to $n," \
         "records of gc_no '$got' (expected '$want')"
done
[ "$failed" -eq 0 ] && echo "$me: every collection after the start has a record"
exit "$failed"
