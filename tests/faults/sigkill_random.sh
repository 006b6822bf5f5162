#!/bin/sh
# SPDX-License-Identifier: MIT
# sigkill_random.sh: a dumping program killed at random moments leaves a
# dump that reads to its last whole record, every time, and loses no
# record without counting it.
#
# Runs tests/faults/dumpload (a dump of RECORDS records, GC_acc_record_now
# in a loop, a collection every 50) KILLS times, each killed with SIGKILL
# after a random 5 to 400 ms; one run in four with the smallest ring
# (GC_ACC_DUMP_BUFFER=4096), where the program outruns the writer and
# records are dropped in runs.  Each dump must:
#  - read with `gcacc summary` (exit 0: a cut-short dump is read up to
#    its last whole record, with a warning), whose "records dropped" is
#    the sum of the whole records' "dropped";
#  - hold a header and records in sequence: every whole line jq parses,
#    seq rising by one, or by more only where the next record's "dropped"
#    counts the records missing (a record dropped, or lost, is counted in
#    the next record that reaches the file, never lost silently).
# The small-ring runs must, between them, have dropped and counted some
# records (else they did not test the drops).  Unless the program had
# already finished, what a kill loses is what was built but not yet
# written (or dropped, and counted): with the default ring, the snapshot
# records the program built (DUMPLOAD_PROGRESS) and the file lacks.
# A program killed before its dump began (no record asked for yet, and
# no file or not one whole line: GC_init had not written the header) is
# no fault; such kills are counted and printed, and the test fails if
# every kill came that early.
# Prints how many dumps were readable, the median number of records, the
# records dropped and counted, and the median and largest number of
# snapshot records a kill lost.
set -eu
: "${KILLS:=30}"
: "${RECORDS:=20000}"
prog=${DUMPLOAD:-tests/faults/dumpload}
gcacc=tools/gcacc/gcacc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
readable=0
small_runs=0
small_read=0
small_dropped=0
dropped_all=0
early=0
i=0
seed=$$
: > "$tmp/counts"
: > "$tmp/lost"
while [ "$i" -lt "$KILLS" ]; do
  i=$((i + 1))
  seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
  ms=$(( 5 + seed % 396 ))
  f="$tmp/k$i.gz"
  ring=
  if [ $((i % 4)) -eq 1 ]; then
    ring=4096
    small_runs=$((small_runs + 1))
  fi
  rm -f "$tmp/progress"
  if [ -n "$ring" ]; then
    GC_ACC_DUMP_BUFFER=$ring GC_ACC_DUMP="$f" \
      DUMPLOAD_PROGRESS="$tmp/progress" "$prog" "$RECORDS" > /dev/null 2>&1 &
  else
    GC_ACC_DUMP="$f" \
      DUMPLOAD_PROGRESS="$tmp/progress" "$prog" "$RECORDS" > /dev/null 2>&1 &
  fi
  pid=$!
  sleep "$(printf '0.%03d' "$ms")"
  kill -KILL "$pid" 2>/dev/null || :
  wait "$pid" 2>/dev/null || :
  what="kill $i after $ms ms${ring:+ (ring $ring bytes)}"
  # Snapshot records the program asked for (its count outlives it).
  built=$(od -An -tdL "$tmp/progress" 2> /dev/null | tr -d ' ' || :)
  whole=$({ gzip -dc "$f" 2> /dev/null || :; } | head -1 | wc -l)
  if [ "${built:-0}" -eq 0 ] && [ "$whole" -eq 0 ]; then
    early=$((early + 1))
    continue
  fi
  if ! "$gcacc" summary "$f" > "$tmp/sum" 2>&1; then
    echo "FAIL: $what: the dump does not read:" >&2
    sed 's/^/  | /' "$tmp/sum" >&2
    fails=$((fails + 1))
    continue
  fi
  # The whole lines: the header, then records with seq 1, 2, 3, ...
  gzip -dc "$f" 2> /dev/null | sed '$!b; /}$/!d' > "$tmp/lines" || :
  if ! head -1 "$tmp/lines" | jq -e '.record == "header"' > /dev/null 2>&1; then
    echo "FAIL: $what: no header" >&2
    fails=$((fails + 1))
    continue
  fi
  tail -n +2 "$tmp/lines" |
    jq -r 'select(.seq) | "\(.seq) \(.dropped // 0) \(.record)"' \
    > "$tmp/seq" 2> /dev/null || :
  # A gap is a fault unless the record after it counts the records
  # missing (its "dropped"): a flood of records may outrun the writer,
  # and the format says so instead of blocking the program.  Prints the
  # unexplained gaps (the first few, then their number), the sum of the
  # "dropped" and the snapshot records in the file.
  awk -v what="$what" '
    NR > 1 && $1 - prev - 1 > $2 {
      if (++g <= 3)
        printf "FAIL: %s: seq %d follows %d, with \"dropped\": %d\n",
               what, $1, prev, $2 > "/dev/stderr"
    }
    { prev = $1; d += $2; if ($3 == "snapshot") s++ }
    END { print g + 0, d + 0, s + 0 }' "$tmp/seq" > "$tmp/gaps"
  read -r gaps dropped snaps < "$tmp/gaps"
  if [ "$gaps" -ne 0 ]; then
    echo "FAIL: $what: $gaps gaps in the records' seq that no dropped count explains" >&2
    fails=$((fails + 1))
    continue
  fi
  # The reader shows the same count of drops as the file holds.
  shown=$(sed -n 's/^ *records dropped  *\([0-9][0-9]*\)$/\1/p' "$tmp/sum")
  if [ "$shown" != "$dropped" ]; then
    echo "FAIL: $what: summary shows \"records dropped ${shown:-(none)}\", the records hold $dropped" >&2
    fails=$((fails + 1))
    continue
  fi
  if [ -n "$ring" ]; then
    small_read=$((small_read + 1))
    small_dropped=$((small_dropped + dropped))
  fi
  dropped_all=$((dropped_all + dropped))
  readable=$((readable + 1))
  n=$(($(wc -l < "$tmp/lines") - 1))
  echo "$n" >> "$tmp/counts"
  # Snapshot records built but not in the file: those the kill caught
  # in the writer's batching, and those dropped (and counted).
  if [ -z "$ring" ] && [ -n "$built" ] && [ "$built" -lt "$RECORDS" ]; then
    echo $((built - snaps)) >> "$tmp/lost"
  fi
done
if [ "$readable" -eq 0 ] && [ "$early" -gt 0 ]; then
  echo "FAIL: all $early kills came before the dump began: nothing tested" >&2
  fails=$((fails + 1))
fi
if [ "$small_read" -gt 0 ] && [ "$small_dropped" -eq 0 ]; then
  echo "FAIL: the $small_read dumps with a 4096-byte ring dropped no record: the drops went untested" >&2
  fails=$((fails + 1))
fi
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : 0) }'; }
median=$(med "$tmp/counts")
lost_n=$(wc -l < "$tmp/lost")
lost_med=$(med "$tmp/lost")
lost_max=$(sort -n "$tmp/lost" | tail -1)
echo "sigkill: $readable of $((KILLS - early)) dumps killed at random moments read to their last whole record ($early more killed before the dump began; median $median records; $dropped_all records dropped and counted, $small_dropped of them in the $small_runs runs with a 4096-byte ring; none missing uncounted)"
echo "sigkill: snapshot records built but not in the file, in the $lost_n dumps with the default ring killed before the program's end: median $lost_med, largest ${lost_max:-0}"
[ "$fails" -eq 0 ] || echo "sigkill: $fails of $KILLS dumps failed" >&2
exit "$fails"
