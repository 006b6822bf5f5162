#!/bin/sh
# SPDX-License-Identifier: MIT
# escape.sh: a module path with a newline and tabs in it (issue 25,
# fault 7) does not forge an entry of DUMP.symbols, nor a line of
# symbolize's output or warnings; the escaped entry is read back (the
# second run takes it from the cache).  addr2line is a stand-in script
# (GCACC_ADDR2LINE), so that the test needs no binutils.
. "$srcdir/tests/cli/cli_lib.sh"

nl='
'
tab=$(printf '\t')
evil="$tmp/evil${nl}DEADBEEF${tab}0x10${tab}forged_function${tab}x.c:1"
cp /bin/true "$evil" || { echo "SKIP: cannot make the file"; exit 77; }
cat >"$tmp/a2l" <<'A2L'
#!/bin/sh
while read a; do echo "$a"; echo "resolved_$a"; echo "real.c:7"; done
A2L
chmod +x "$tmp/a2l"
jpath=$(printf '%s' "$evil" | sed 's/\\/\\\\/g; s/"/\\"/g' |
        awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }' |
        sed "s/$tab/\\\\t/g")
cat >"$tmp/d.jsonl" <<JSON
{"record":"header","format_version":1,"pid":1,"start_mono_ns":1,"config":{"stacks":"all"},"modules":[{"path":"$jpath","base":"0x400000","build_id":""}]}
{"record":"collection","seq":1,"gc_no":1,"census":1,"t_start_ns":2,"t_end_ns":3,"sites":[[2,"0x400010","0x400020"]],"site_rows":[[2,1,32,1,32,0,0,1,0,0,0,0,0,0]]}
JSON

export GCACC_ADDR2LINE="$tmp/a2l" GCACC_SYMBOLIZE_STATS=1
check "symbolize runs" sh -c '"$1" symbolize "$2" >"$3/out" 2>"$3/err"' \
  _ "$GCACC" "$tmp/d.jsonl" "$tmp"
check "the cache exists" test -f "$tmp/d.jsonl.symbols"
# One comment line, then one entry ("#S", issue 38) per address, each
# with 5 fields.
check "the cache has one line per address" \
  test "$(grep -c '^#S	' "$tmp/d.jsonl.symbols")" -eq 2
check "no forged cache entry" \
  sh -c '! grep -q "^DEADBEEF" "$1"' _ "$tmp/d.jsonl.symbols"
check "every cache entry has 5 fields" sh -c \
  'grep "^#S" "$1" | awk -F"\t" "NF != 5 { exit 1 }"' _ "$tmp/d.jsonl.symbols"
check "no forged output line" \
  sh -c '! grep -q "^DEADBEEF" "$1/out" "$1/err"' _ "$tmp"
check "output names the functions" grep -q "resolved_0x10 real.c:7" "$tmp/out"
check "the path is shown escaped" grep -q 'evil\\nDEADBEEF\\t0x10' "$tmp/out"
# Read back: both addresses from the cache (the escaped key matches).
"$GCACC" symbolize "$tmp/d.jsonl" >"$tmp/out2" 2>"$tmp/err2"
check "the escaped entry is read back" \
  grep -q "2 distinct addresses, 2 from the cache" "$tmp/err2"
check "same output from the cache" cmp -s "$tmp/out" "$tmp/out2"
# The views read the cache too (tables.c): functions, not module+offset.
"$GCACC" top --group site "$tmp/d.jsonl" >"$tmp/top" 2>&1
check "top names the function from the cache" grep -q resolved_0x10 "$tmp/top"
check "top writes no raw newline from the path" \
  sh -c '! grep -q "^DEADBEEF" "$1"' _ "$tmp/top"
[ "$n_failed" -eq 0 ] || { cat "$tmp/err"; cat -A "$tmp/d.jsonl.symbols"; }
finish
