#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile_memory.sh: every part of a record is bounded, not only its row
# tables (issue 38, faults 3 and 4).
#
# Fault 3: what the lean parser does not take, jansson parsed whole: a
# freelists.lists of 10 M empty objects took `top` and `report` 5 GB from
# a 571 KB file; a header of 1.1 M modules 1.4 GB; an unknown key of 16 M
# integers 1.3 GB.  Now each is priced before jansson parses it: a member
# too dear is read as empty, a record too dear skipped, said so on
# stderr with the record's line and byte, and the rest is read.
# Fault 4: a header then a gigabyte of newlines read as an empty recording
# in 31 s, without a word.  Now a run of blank lines is skipped at once,
# and told with its count.
#
# Each command runs under ulimit -v (GCACC_MEM_VMEM_KB, default 400 MB)
# and a time limit (GCACC_MEM_SECS, default 20 s); the sizes are issue
# 38's but for the newlines (GCACC_MEM_BLANK, default 64 MiB; 1 GiB
# takes a command about 3 s).
. "$srcdir/tests/cli/cli_lib.sh"
need jq
GEN=./tests/faults/gen_hostile
vmem=${GCACC_MEM_VMEM_KB:-400000}
secs=${GCACC_MEM_SECS:-20}
blank=${GCACC_MEM_BLANK:-67108864}

"$GEN" freelists 10000000 "$tmp/freelists.gz" || exit 99
"$GEN" modules 1100000 "$tmp/modules.gz" || exit 99
"$GEN" unknown 16000000 "$tmp/unknown.gz" || exit 99
"$GEN" members 240000 "$tmp/members.gz" || exit 99
"$GEN" blank "$blank" "$tmp/blank.gz" || exit 99
"$GEN" blankend "$blank" "$tmp/blankend.gz" || exit 99
export GCACC_ADDR2LINE=true

# run NAME WANT CMD...: one command, limited; its status in WANT.
run() {
  name=$1 want=$2; shift 2
  ok
  ( ulimit -v "$vmem"; exec timeout "$secs" "$GCACC" "$@" ) \
    >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  case " $want " in
    *" $rc "*) ;;
    *) fail "$name: gcacc $* (limits ${vmem} KB, ${secs} s): exit $rc"
       grep -v '^  ' "$tmp/err" | tail -3 | sed 's/^/  /' ;;
  esac
}
# said NAME ERE: stderr of the last run holds ERE.
said() {
  ok
  grep -Eq -- "$2" "$tmp/err" ||
    { fail "$1: stderr lacks: $2"; head -3 "$tmp/err" | sed 's/^/  /'; }
}

for d in freelists modules unknown members blank; do
  f=$tmp/$d.gz
  # The commands issue 38 names; every command for the quicker inputs
  # (a 32 MB line takes each command about a second: the test stays
  # under 20 s).
  run "$d" "0" top "$f"
  run "$d" "0" report -o "$tmp/r.html" "$f"
  case $d in freelists|unknown) ;; *)
    run "$d" "0 2" symbolize --no-cache --sites "$f"
    run "$d" "0 1" diff "$f" "$f"
    run "$d" "0" summary "$f"
    run "$d" "0" top --group site --csv "$f"
    run "$d" "0" timeline --csv "$f"
    run "$d" "0" frag "$f"
    run "$d" "0 1" leaks "$f"
    run "$d" "0" export --folded "$f"
    run "$d" "0" export --chrome-trace "$f" ;;
  esac
  # What was cut or skipped, and where; the records after it read.
  run "$d" "0" summary --json "$f"
  case $d in
    freelists)
      said "$d" 'freelists\.gz: record 2 \(line 2, byte [0-9]+\): freelists\.lists holds 10000001 values, about [0-9]+ MiB parsed, more than the [0-9]+ MiB a member may take: read as empty, the rest of the record kept'
      want=3 ;;
    modules)
      said "$d" 'modules\.gz: record 1 \(line 1, byte 0\): modules holds [0-9]+ values, .*: read as empty'
      want=2 ;;
    unknown)
      said "$d" 'unknown\.gz: record 2 \(line 2, byte [0-9]+\): unknown holds 16000001 values, .*: read as empty'
      want=3 ;;
    members)
      said "$d" 'members\.gz: record 2 \(line 2, byte [0-9]+\) holds JSON values that would take about [0-9]+ MiB parsed, more than [0-9]+ MiB: skipped, the rest of the dump read'
      want=2 ;;
    blank)
      said "$d" "blank\\.gz: $blank blank lines from line 2 \\(byte [0-9]+\\): skipped"
      want=2 ;;
  esac
  ok
  got=$(jq '.summary[0].collections' "$tmp/out" 2>/dev/null)
  [ "$got" = "$want" ] ||
    fail "$d: summary --json: $got collections read, expected $want"
done

# timeline --frames reads records itself: it says the same.
run members "0 2" timeline --frames "$tmp/members.gz"
said "members: timeline --frames" 'members\.gz: record 2 \(line 2, byte [0-9]+\) holds JSON values .*: skipped'

# The header and the newlines, nothing else: an empty recording, but said.
run blankend "0" summary "$tmp/blankend.gz"
said blankend "blankend\\.gz: $blank blank lines from line 2 \\(byte [0-9]+\\): skipped"
run blankend "0 2" symbolize --no-cache "$tmp/blankend.gz"
said blankend "blankend\\.gz: $blank blank lines from line 2"
# A few blank lines are no news.
{ gzip -dc "$tmp/blank.gz" | head -1; printf '\n\n\n'; } >"$tmp/few.jsonl"
run few "0" summary "$tmp/few.jsonl"
check "a few blank lines: no warning" test ! -s "$tmp/err"
finish
