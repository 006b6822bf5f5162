#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile.sh: the hostile-input corpus (tests/faults/hostile/, issue 25,
# faults 5, 7 and 8 and the reader's half of 4) against every command.
#
# Each input has an expected outcome: "bad" (not a dump, or a corrupt
# record: exit 2), or "ok" (readable: exit 0 or 1); never a signal or an
# exit status above 2.  And each has a message stderr must hold (an
# extended regular expression; every command reads the file through the
# same reader, so the same message), and for "ok" inputs that no output
# carries a control character taken raw from the dump (fault 7).  Each run
# is time-limited: input with no record is rejected in bounded time.
#
# Add an input: put the file in tests/faults/hostile/ and a line in the
# table below.  A new file without a line fails the test.
. "$srcdir/tests/cli/cli_lib.sh"
corpus=$srcdir/tests/faults/hostile

# file | outcome | message (ERE)
table='
empty|bad|not a gcacc dump: .*empty \(empty; expected a header record
empty.gz|bad|not a gcacc dump: .*empty\.gz \(empty; expected a header record
only_newlines.gz|bad|not a gcacc dump: .*only_newlines\.gz \([0-9]+ blank bytes and no record; expected a header record
spaces_line.jsonl|bad|not a gcacc dump: .*spaces_line\.jsonl \(the header record, at byte [0-9]+: 
first_not_header.jsonl|bad|not a gcacc dump: .*first_not_header\.jsonl \(no header record at byte 0\)
utf8_header.jsonl|bad|not a gcacc dump: .*utf8_header\.jsonl \(the header record, at byte 85: unable to decode byte 0xff
nul_header.jsonl|bad|not a gcacc dump: .*nul_header\.jsonl \(the header record, at byte 94: \\u0000 is not allowed
huge_delta.jsonl|ok|record 3 \(byte [0-9]+\): too big integer near .18446744073709551608. in classes\[0\]\.alloc_req_bytes; read as 0
huge_negative.jsonl|ok|record 3 \(byte [0-9]+\): too big negative integer in heap\.heap_bytes; read as 0
newline_path.jsonl|ok|
deep_nesting.jsonl|bad|corrupt record in .*deep_nesting\.jsonl at byte [0-9]+ \(record 3\): maximum parsing depth
truncated.gz|ok|truncated\.gz ends mid-record after byte [0-9]+; using records 1-[0-9]+
garbage_gzip.gz|bad|(corrupt record|corrupt compressed data) in .*garbage_gzip\.gz
'

for f in "$corpus"/*; do
  b=${f##*/}
  printf '%s\n' "$table" | grep -q "^$b|" || fail "$b: no line in hostile.sh's table"
done

# Every command, with the options that read each table.
run_all() {
  in=$1
  for c in "summary" "summary --json" "timeline" "timeline --csv" \
           "top" "top --group type" "top --group site --csv" \
           "top --group site --json" "frag" "leaks --min-collections 3" \
           "symbolize --no-cache" "symbolize --no-cache --sites" \
           "export --folded" "export --chrome-trace" \
           "report -o $tmp/r.html" "diff $in" "diff --json $in"; do
    # shellcheck disable=SC2086
    GCACC_ADDR2LINE=true timeout 20 $GCACC $c "$in" \
      >"$tmp/out" 2>"$tmp/err" </dev/null
    echo "$? $c"
    [ -f "$tmp/r.html" ] && cat "$tmp/r.html" >>"$tmp/out" && rm -f "$tmp/r.html"
    cat "$tmp/out" >>"$tmp/all.out"
    cat "$tmp/err" >>"$tmp/all.err"
    printf '%s\n' "==> $c" >>"$tmp/errs"
    cat "$tmp/err" >>"$tmp/errs"
  done
}

printf '%s\n' "$table" | while IFS='|' read -r b want msg; do
  [ -n "$b" ] || continue
  : >"$tmp/all.out"; : >"$tmp/all.err"; : >"$tmp/errs"
  run_all "$corpus/$b" >"$tmp/status"
  while read -r rc c; do
    ok
    if [ "$rc" -gt 2 ]; then
      fail "$b: gcacc $c: exit $rc (a signal, a timeout or worse)"
      sed 's/^/  /' "$tmp/errs" | tail -5
    elif [ "$want" = bad ] && [ "$rc" -ne 2 ]; then
      fail "$b: gcacc $c: exit $rc, expected 2 (not a dump)"
    elif [ "$want" = ok ] && [ "$rc" -eq 2 ] &&
         ! { [ "$c" = "symbolize --no-cache" ] ||
             [ "$c" = "symbolize --no-cache --sites" ]; }; then
      fail "$b: gcacc $c: exit 2, expected 0 or 1"
      grep -v warning "$tmp/errs" | head -3 | sed 's/^/  /'
    fi
  done <"$tmp/status"
  if [ -n "$msg" ]; then
    ok
    grep -Eq -- "$msg" "$tmp/all.err" ||
      { fail "$b: no message matching: $msg"; head -3 "$tmp/all.err"; }
  fi
  # Fault 7: nothing from the dump written raw: no ESC, no CR, and no
  # line that starts with what followed a newline in a module path or a
  # type name.
  if [ "$want" = ok ]; then
    ok
    if LC_ALL=C grep -q "$(printf '[\033\r]')" "$tmp/all.out" "$tmp/all.err" ||
       grep -Eq '^(DEADBEEF|forged)' "$tmp/all.out" "$tmp/all.err"; then
      fail "$b: a control character from the dump written raw"
      LC_ALL=C grep -n "$(printf '[\033\r]')\|^DEADBEEF\|^forged" \
        "$tmp/all.out" "$tmp/all.err" | head -3 | cat -A | sed 's/^/  /'
    fi
  fi
done > "$tmp/log"
cat "$tmp/log"
n_failed=$(grep -c '^FAIL' "$tmp/log")
n_checks=$(( $(printf '%s\n' "$table" | grep -c '|') * 18 ))
finish
