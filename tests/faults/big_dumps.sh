#!/bin/sh
# SPDX-License-Identifier: MIT
# big_dumps.sh: the reader's memory is bounded by design (issue 25,
# fault 6).  Dumps far beyond a session's size (tests/faults/gen_hostile:
# 400 k distinct callsites; 200 k distinct (kind, class) rows; a record
# of 1.3 M class rows, longer than the reader parses) go through every
# command under a memory limit (ulimit -v, GCACC_BIG_VMEM_KB, default
# 300 MB of address space) and a time limit per command (GCACC_BIG_SECS,
# default 60 s): a table that grows with the keys, or a command
# quadratic in them (leaks was), fails.  The cap says so on stderr and in
# --json ("notes").
#
# A record of 1 M class rows, within the 32 MiB a record may take, is
# parsed whole: every command reads records lean (session.h: row tables
# parsed compactly, some 5 bytes a cell), so each takes it under the
# same limits, where its jansson tree alone would take about 1 GB; and
# a figure of each shows the whole record was read.
#
# The full-size figures (10 M sites, 1 M class rows) are in the ChangeLog;
# GCACC_BIG_SITES and GCACC_BIG_CLASSES run this test at another size
# (GCACC_BIG_SITES=10000000 GCACC_BIG_VMEM_KB=1048576: issue 25's
# target, every command under 1 GB and a minute).
. "$srcdir/tests/cli/cli_lib.sh"
need jq
GEN=./tests/faults/gen_hostile
vmem=${GCACC_BIG_VMEM_KB:-300000}
secs=${GCACC_BIG_SECS:-60}

"$GEN" sites "${GCACC_BIG_SITES:-400000}" "$tmp/sites.gz" || exit 99
"$GEN" classes "${GCACC_BIG_CLASSES:-200000}" "$tmp/classes.gz" || exit 99
"$GEN" classes1 1300000 "$tmp/onerecord.gz" || exit 99
"$GEN" classes1 1000000 "$tmp/onemillion.gz" || exit 99
cat >"$tmp/a2l" <<'A2L'
#!/bin/sh
while read a; do echo "$a"; echo "f_$a"; echo "x.c:1"; done
A2L
chmod +x "$tmp/a2l"
export GCACC_ADDR2LINE="$tmp/a2l"

# run NAME STATUSES CMD...: one command, limited; its status in STATUSES.
run() {
  name=$1 want=$2; shift 2
  ok
  ( ulimit -v "$vmem"; exec timeout "$secs" "$GCACC" "$@" ) \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  case " $want " in
    *" $rc "*) ;;
    *) fail "$name: gcacc $* (limits ${vmem} KB, ${secs} s): exit $rc"
       grep -v '^  ' "$tmp/err" | tail -3 | sed 's/^/  /' ;;
  esac
}

for d in sites classes onerecord onemillion; do
  f=$tmp/$d.gz
  run "$d" "0" summary "$f"
  run "$d" "0" summary --json "$f"
  run "$d" "0" timeline --csv "$f"
  run "$d" "0" top --group class "$f"
  run "$d" "0" top --group type --json "$f"
  run "$d" "0" top --group site --csv "$f"
  run "$d" "0" frag "$f"
  run "$d" "0 1" leaks "$f"
  run "$d" "0 2" symbolize --no-cache --sites "$f"
  run "$d" "0" export --folded "$f"
  run "$d" "0" export --folded --group type "$f"
  run "$d" "0" export --chrome-trace "$f"
  run "$d" "0" report -o "$tmp/r.html" "$f"
  run "$d" "0 1" diff "$f" "$f"
done

# The record of a million rows (48 live bytes each, kinds 4 to 10003,
# classes 1 to 100; two records of 1000 rows after it), read lean by
# every command, under the limits: a figure of each.
f=$tmp/onemillion.gz
# is WHAT GOT WANT: one check of a figure.
is() {
  ok
  [ "$2" = "$3" ] || fail "onemillion: $1: got '$2', expected '$3'"
}
run onemillion "0" summary "$f"
is "summary: live peak" \
  "$(sed -n 's/^  live peak   *//p' "$tmp/out")" "45.8 MiB"
run onemillion "0" summary --json "$f"
is "summary --json: live peak" \
  "$(jq '.summary[0].live_peak_bytes' "$tmp/out")" 48000000
is "summary --json: objects allocated" \
  "$(jq '.summary[0].allocated_objs' "$tmp/out")" 1002000
run onemillion "0" timeline --csv "$f"
is "timeline: live at the first collection" \
  "$(sed -n 2p "$tmp/out" | cut -d, -f4)" 48000000
run onemillion "0" top --group class --peak --json "$f"
is "top --group class: live at the peak" \
  "$(jq '.at[0].total_live_bytes' "$tmp/out")" 48000000
is "top --group class: the 900 k rows beyond the cap, folded" \
  "$(jq '.top[0].live_bytes' "$tmp/out")" 43200000
run onemillion "0" top --group type --peak --json "$f"
is "top --group type: at the peak" "$(jq '.at[0].gc_no' "$tmp/out")" 1
run onemillion "0" top --group site --peak --json "$f"
is "top --group site: at the peak" \
  "$(jq '.at[0].total_live_bytes' "$tmp/out")" 48000000
run onemillion "0" frag --json "$f"
is "frag: the focus collection" \
  "$(jq '.growth[0].focus_gc_no' "$tmp/out")" 1
is "frag: classes of kind 4 at the focus" \
  "$(jq '.kinds[0].classes' "$tmp/out")" 100
run onemillion "0 1" leaks --json "$f"
is "leaks: the rows beyond the cap, said" \
  "$(jq -r '.notes[0]' "$tmp/out" | grep -o '900000 rows')" "900000 rows"
run onemillion "0" export --chrome-trace "$f"
is "export --chrome-trace: live at the first collection" \
  "$(jq '[.traceEvents[] | select(.name == "heap")][0].args.live_bytes' \
     "$tmp/out")" 48000000
run onemillion "0" export --csv classes "$f"
is "export --csv classes: every row" "$(wc -l <"$tmp/out")" 1002001
run onemillion "0" export --jsonl records "$f"
is "export --jsonl records" "$(jq -s length "$tmp/out")" 3
run onemillion "0" export --folded --bytes alloc "$f"
is "export --folded --bytes alloc" "$(sed -n 1p "$tmp/out")" "kind_4;16B 96"
run onemillion "0" report -o "$tmp/r.html" "$f"
is "report: the top table at the peak" \
  "$(grep -c '<p class="note">gc_no 1 (record 1).* 30 of 1000000 rows' \
     "$tmp/r.html")" 1
run onemillion "0 2" symbolize --no-cache --sites "$f"
is "symbolize: read to the end" \
  "$(grep -c 'defines no call stacks' "$tmp/err")" 1
run onemillion "0" diff --json --top 0 "$f" "$f"
is "diff: a million rows all read: 48 live bytes each at the peak" \
  "$(jq '.sessions[0].live_bytes' "$tmp/out")" 48000000

# Said so: on stderr, and in --json.
"$GCACC" top --group site --json "$tmp/sites.gz" >"$tmp/j" 2>"$tmp/e"
check "the cap is said on stderr" \
  grep -q 'folded into one "other" row' "$tmp/e"
check "the cap is said in --json" \
  grep -q '"notes":\[".*folded into one \\"other\\" row' "$tmp/j"
check "the other row is shown" grep -q '(other sites)' "$tmp/j"
"$GCACC" summary "$tmp/onerecord.gz" >/dev/null 2>"$tmp/e"
check "a record too long is skipped, said so" \
  grep -q 'record 2 (line 2, byte [0-9]*) is longer than 32 MiB: skipped' "$tmp/e"
finish
