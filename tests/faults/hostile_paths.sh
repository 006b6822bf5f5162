#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile_paths.sh: the files a dump names, and those its name makes
# (issue 38, faults 1 and 2).
#
# Fault 1: a bundle holding crash.jsonl and crash.jsonl.symbols ->
# ../victim/.bashrc made `gcacc symbolize` append to that file, at the
# start of a line, a module path from the dump (a shell command).  Now
# DUMP.symbols is replaced whole (a new file renamed into place), never
# written through a link, and every line of it starts with '#'.
# Fault 2: a module path naming a FIFO, or a DUMP.symbols that is a FIFO
# or a link to /dev/zero, blocked the reader forever in open() (or grew
# it to 4 GB).  And a header of 100 000 modules took symbolize 68 s
# (every address matched against every module).  Every command runs
# under a time limit
# (GCACC_PATHS_SECS, default 10 s) and a memory limit (ulimit -v,
# GCACC_PATHS_VMEM_KB, default 400 MB), and says what it skipped.
# addr2line is a stand-in script (GCACC_ADDR2LINE): no binutils needed.
. "$srcdir/tests/cli/cli_lib.sh"
need mkfifo
need jq
secs=${GCACC_PATHS_SECS:-10}
vmem=${GCACC_PATHS_VMEM_KB:-400000}

cat >"$tmp/a2l" <<'A2L'
#!/bin/sh
# A function name with a tab and a backslash in it (debug info is input
# too): it must neither forge a field of the cache nor be mangled.
while read a; do echo "$a"; printf 'resolved_%s\tx\\y\n' "$a"; echo "real.c:7"; done
A2L
chmod +x "$tmp/a2l"
export GCACC_ADDR2LINE="$tmp/a2l"

# dump FILE MODULE_PATH: a dump of one stack in MODULE_PATH.
dump() {
  cat >"$1" <<JSON
{"record":"header","format_version":1,"pid":1,"start_mono_ns":1,"config":{"stacks":"all"},"modules":[{"path":"$2","base":"0x400000","build_id":""}]}
{"record":"collection","seq":1,"gc_no":1,"census":1,"t_start_ns":2,"t_end_ns":3,"classes":[[1,2,1,32,4096,0,1,32,32]],"sites":[[2,"0x400010","0x400020"]],"site_rows":[[2,1,32,1,32,0,0,1,0,0,0,0,0,0]]}
JSON
}

# run NAME WANT CMD...: one command under the limits; exit status in WANT.
run() {
  name=$1 want=$2; shift 2
  ok
  ( ulimit -v "$vmem"; exec timeout "$secs" "$GCACC" "$@" ) \
    >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  case " $want " in
    *" $rc "*) ;;
    *) fail "$name: gcacc $* (${secs} s): exit $rc"
       tail -3 "$tmp/err" | sed 's/^/  /' ;;
  esac
}

# ---- fault 1: the cache next to a dump from elsewhere ------------------
mkdir "$tmp/bundle" "$tmp/victim"
printf '# the victim'"'"'s file\n' >"$tmp/victim/.bashrc"
cp "$tmp/victim/.bashrc" "$tmp/victim.orig"
evil="$tmp/bundle/touch PWNED;"
cp /bin/true "$evil" || { echo "SKIP: cannot make the file"; exit 77; }
dump "$tmp/bundle/crash.jsonl" "$evil"
ln -s ../victim/.bashrc "$tmp/bundle/crash.jsonl.symbols"
run "symlinked cache" "0" symbolize "$tmp/bundle/crash.jsonl"
check "symbolize still answers" grep -q 'resolved_0x10' "$tmp/out"
check "the victim's file is untouched" cmp -s "$tmp/victim/.bashrc" \
  "$tmp/victim.orig"
check "the link is left as it was" test -L "$tmp/bundle/crash.jsonl.symbols"
check "a warning says what, where, what to do" grep -q \
  'crash\.jsonl\.symbols: a symbolic link: the symbol cache is not read nor written; remove it' \
  "$tmp/err"
run "symlinked cache, top" "0" top --group site "$tmp/bundle/crash.jsonl"
check "top names the link too" grep -q 'crash\.jsonl\.symbols: a symbolic link' \
  "$tmp/err"
check "the victim's file is still untouched" cmp -s "$tmp/victim/.bashrc" \
  "$tmp/victim.orig"

# A hard link to the victim's file (a regular file): replaced, not
# written into.
rm "$tmp/bundle/crash.jsonl.symbols"
ln "$tmp/victim/.bashrc" "$tmp/bundle/crash.jsonl.symbols" 2>/dev/null &&
{
  run "hard-linked cache" "0" symbolize "$tmp/bundle/crash.jsonl"
  check "the hard-linked file is not written into" \
    cmp -s "$tmp/victim/.bashrc" "$tmp/victim.orig"
  rm -f "$tmp/bundle/crash.jsonl.symbols"
}

# A cache we write: every line starts with '#', the path is inert.
run "cache written" "0" symbolize "$tmp/bundle/crash.jsonl"
c=$tmp/bundle/crash.jsonl.symbols
check "the cache is written" test -f "$c"
check "the cache is a regular file, not a link" test ! -L "$c"
check "every line of the cache starts with '#'" \
  sh -c '! grep -qv "^#" "$1"' _ "$c"
check "two entries, 5 fields each (a tab in a name escaped)" sh -c \
  'test "$(grep -c "^#S	" "$1")" -eq 2 &&
   grep "^#S" "$1" | awk -F"\t" "NF != 5 { exit 1 }"' _ "$c"
check "no temporary file left" \
  sh -c '! ls -A "$1" | grep -q "^\.crash"' _ "$tmp/bundle"
# Run by a shell, the cache does nothing.
( cd "$tmp/bundle" && sh ./crash.jsonl.symbols ) >/dev/null 2>&1
check "a shell reading the cache runs nothing" test ! -e "$tmp/bundle/PWNED"
# Read back whole: the same answers, from the cache, name intact.
cp "$tmp/out" "$tmp/out1"
GCACC_SYMBOLIZE_STATS=1 run "cache read" "0" symbolize "$tmp/bundle/crash.jsonl"
check "both answers from the cache" \
  grep -q '2 distinct addresses, 2 from the cache' "$tmp/err"
check "the same output from the cache" cmp -s "$tmp/out" "$tmp/out1"
check "the name's tab and backslash shown escaped" \
  grep -q 'resolved_0x10\\tx\\y real.c:7' "$tmp/out"
run "cache read by top" "0" top --group site "$tmp/bundle/crash.jsonl"
check "top names the function from the cache" grep -q resolved_0x10 \
  "$tmp/out"

# ---- fault 2: FIFOs and devices ---------------------------------------
mkfifo "$tmp/fifo"
dump "$tmp/f.jsonl" "$tmp/fifo"
run "module is a FIFO" "0" symbolize --no-cache "$tmp/f.jsonl"
check "the FIFO module is not symbolized, said so" \
  grep -q "no binary or debug file for .*fifo" "$tmp/err"
run "module is a FIFO" "0" symbolize "$tmp/f.jsonl"
run "module is a FIFO" "0 1" diff "$tmp/f.jsonl" "$tmp/f.jsonl"
run "module is a FIFO" "0 1" diff --symbolize "$tmp/f.jsonl" "$tmp/f.jsonl"
run "module is a FIFO" "0" top --group site --symbolize "$tmp/f.jsonl"
run "module is a FIFO" "0" export --folded --symbolize "$tmp/f.jsonl"
run "module is a FIFO" "0 1" leaks "$tmp/f.jsonl"
# A FIFO found on the search path, under the module's name.
mkdir "$tmp/search"
mkfifo "$tmp/search/lib.so"
dump "$tmp/s.jsonl" "/nonexistent/lib.so"
run "search path holds a FIFO" "0" symbolize --no-cache \
  --search-path "$tmp/search" "$tmp/s.jsonl"

# DUMP.symbols a FIFO, or a link to /dev/zero.
dump "$tmp/q.jsonl" "/nonexistent/lib.so"
mkfifo "$tmp/q.jsonl.symbols"
for c in "top --group site" "top --group site --json" \
         "export --folded" "report -o $tmp/r.html" "symbolize"; do
  # shellcheck disable=SC2086
  run "DUMP.symbols is a FIFO" "0" $c "$tmp/q.jsonl"
  check "$c: the FIFO is named" grep -q \
    'q\.jsonl\.symbols: not a regular file (a FIFO, a device or a directory)' \
    "$tmp/err"
done
run "DUMP.symbols is a FIFO" "0 1" leaks "$tmp/q.jsonl"
run "DUMP.symbols is a FIFO" "0 1" diff "$tmp/q.jsonl" "$tmp/q.jsonl"
check "the FIFO is still a FIFO" test -p "$tmp/q.jsonl.symbols"
dump "$tmp/z.jsonl" "/nonexistent/lib.so"
ln -s /dev/zero "$tmp/z.jsonl.symbols"
for c in "top --group site" "symbolize"; do
  # shellcheck disable=SC2086
  run "DUMP.symbols -> /dev/zero" "0" $c "$tmp/z.jsonl"
  check "$c: the link is named" grep -q 'z\.jsonl\.symbols: a symbolic link' \
    "$tmp/err"
done
# A cache too big to be ours: not read (a bound on memory), said so.
dump "$tmp/big.jsonl" "/nonexistent/lib.so"
truncate -s 100M "$tmp/big.jsonl.symbols" 2>/dev/null &&
{
  run "DUMP.symbols of 100 MB" "0" top --group site "$tmp/big.jsonl"
  check "the big cache is named" \
    grep -q 'big\.jsonl\.symbols: larger than 64 MiB' "$tmp/err"
}
# A header of 50 000 modules, an address and a type named by its
# address in each: symbolize matched every address against every module
# (100 000 modules: 68 s) and warned once a module; diff scanned the
# header for each type's module (30 000 modules: over 100 s).
./tests/faults/gen_hostile manymods 50000 "$tmp/manymods.gz" || exit 99
run manymods "0" symbolize --no-cache "$tmp/manymods.gz"
check "manymods: every address in its module" \
  test "$(grep -c '^0x[0-9a-f]* m[0-9]*\.so+0x10 ' "$tmp/out")" -eq 50000
check "manymods: 10 modules named, the rest counted" \
  grep -q 'no binary or debug file for 49990 more modules' "$tmp/err"
run manymods "0" top --group site --symbolize "$tmp/manymods.gz"
run manymods "0 1" diff --symbolize "$tmp/manymods.gz" "$tmp/manymods.gz"
run manymods "0 1" diff --json "$tmp/manymods.gz" "$tmp/manymods.gz"
check "manymods: diff matched the types by module + offset" \
  test "$(jq '[.types[] | select(.type | test("^class m[0-9]+\\.so\\+0x100$"))] | length' \
          "$tmp/out")" -gt 0

# A cache of more entries than one run could write: the rest not read
# (each entry costs memory), said so; the entries read still answer.
dump "$tmp/many.jsonl" "/nonexistent/lib.so"
awk 'BEGIN { for (i = 0; i < 1100000; i++)
               printf "#S\t/nonexistent/lib.so\t0x%x\tf_%d\tx.c:1\n", i, i }' \
  >"$tmp/many.jsonl.symbols"
run "DUMP.symbols of 1.1 M entries" "0" top --group site "$tmp/many.jsonl"
check "top: the cut is said" grep -q \
  'many\.jsonl\.symbols: more than 1000000 entries: the rest of the symbol cache is not read' \
  "$tmp/err"
check "top: the entries read answer" grep -q 'f_16 < f_32' "$tmp/out"
run "DUMP.symbols of 1.1 M entries" "0" symbolize "$tmp/many.jsonl"
check "symbolize: the cut is said" grep -q \
  'many\.jsonl\.symbols: more than 1000000 entries' "$tmp/err"
finish
