#!/bin/sh
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
# The full-size figures (10 M sites, 1 M class rows) are in the ChangeLog;
# GCACC_BIG_SITES and GCACC_BIG_CLASSES run this test at another size.
. "$srcdir/tests/cli/cli_lib.sh"
GEN=./tests/faults/gen_hostile
vmem=${GCACC_BIG_VMEM_KB:-300000}
secs=${GCACC_BIG_SECS:-60}

"$GEN" sites "${GCACC_BIG_SITES:-400000}" "$tmp/sites.gz" || exit 99
"$GEN" classes "${GCACC_BIG_CLASSES:-200000}" "$tmp/classes.gz" || exit 99
"$GEN" classes1 1300000 "$tmp/onerecord.gz" || exit 99
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

for d in sites classes onerecord; do
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

# Said so: on stderr, and in --json.
"$GCACC" top --group site --json "$tmp/sites.gz" >"$tmp/j" 2>"$tmp/e"
check "the cap is said on stderr" \
  grep -q 'folded into one "other" row' "$tmp/e"
check "the cap is said in --json" \
  grep -q '"notes":\[".*folded into one \\"other\\" row' "$tmp/j"
check "the other row is shown" grep -q '(other sites)' "$tmp/j"
"$GCACC" summary "$tmp/onerecord.gz" >/dev/null 2>"$tmp/e"
check "a record too long is skipped, said so" \
  grep -q 'record 2 (byte [0-9]*) is longer than 32 MiB: skipped' "$tmp/e"
finish
