#!/bin/sh
# SPDX-License-Identifier: MIT
# windows.sh: the collector with accounting and its dump on Windows,
# built with mingw-w64 and run under wine64 (issue 35; docs/cross.md).
#
# Compiles the patched tree's one-file build, bdwgc/upstream/extra/gc.c
# (which includes accounting/), with x86_64-w64-mingw32-gcc and IL2CPP's
# define set (as cross.sh's il2cpp build: GC_THREADS, so bdwgc's Win32
# threads, no getenv), links the il2cpp-shaped harness
# tests/il2cpp/gameload.c and a small Win32 launcher, and under wine64
# (a private WINEPREFIX in the build directory, booted once):
#   - upstream's gctest (our configure's define set), accounting off and
#     on, its dump read by gcacc;
#   - gameload.sh's checks against the harness's own truth: class names,
#     live objects per class, allocations per frame (exact), leaks,
#     fragmentation, garbage in word 0; the dump written by the Windows
#     process through the Win32 file API, read by the host's gcacc;
#   - a dump whose process is ended by TerminateProcess while it writes
#     (a long game, ended once its dump has records): readable by gcacc
#     to its last whole record;
#   - the claim: a second process given the same dump file while the
#     first writes it writes PATH.PID instead, with one warning;
#   - a named pipe whose reader never reads: the game ends, its stop
#     waits the bounded exit wait and warns once;
#   - the header's module map: the executable's PE image with its base,
#     size and CodeView record (GUID and age; linked --build-id);
#   - stacks taken by Windows' unwinder: a leaking callsite, symbolized
#     with mingw's addr2line, is the harness's call chain;
#   - our unit tests that read no dump (test_counters, test_frag_churn,
#     test_frag, test_census; in both builds), accounting on;
#   - a DLL built as MSVC builds (clang-cl, lld-link), its debug
#     information in a PDB only: the header's CodeView record is the
#     image's (llvm-readobj), `gcacc symbolize` names its functions from
#     the PDB (llvm-symbolizer), and refuses an image or a PDB of another
#     build (tests/cross/win_pdbmod.c, win_pdbhost.c).
# Exit 77 (skipped, with the reason) without mingw-w64, its zlib or
# wine64 (without clang, lld-link or llvm-symbolizer: the PDB part
# fails), unless GCACC_CROSS_REQUIRED=1 (./build.sh check): then fails.
set -u
: "${srcdir:=.}"
srcdir=$(cd "$srcdir" && pwd)
up="$srcdir/bdwgc/upstream"
CCW=${WIN_CC:-x86_64-w64-mingw32-gcc}
WINE=${WINE64:-}
if [ -z "$WINE" ]; then
  for w in /usr/lib/wine/wine64 wine64; do
    command -v "$w" > /dev/null 2>&1 && { WINE=$w; break; }
  done
fi
skip() {
  if [ "${GCACC_CROSS_REQUIRED:-0}" = 1 ]; then
    echo "FAIL: windows: $* (GCACC_CROSS_REQUIRED=1)"; exit 1
  fi
  echo "SKIP: windows: $*"; exit 77
}
command -v "$CCW" > /dev/null || skip "no $CCW (tools/setup-cross.sh)"
[ -n "$WINE" ] || skip "no wine64 (tools/setup-cross.sh)"
[ -f /usr/x86_64-w64-mingw32/lib/libz.a ] ||
  skip "no mingw-w64 zlib (libz-mingw-w64-dev; tools/setup-cross.sh)"
[ -f "$up/extra/gc.c" ] || skip "no patched tree in $up (./configure)"
[ -f /usr/include/atomic_ops.h ] || skip "no libatomic_ops headers"
command -v jq > /dev/null || skip "no jq"
GCACC=${GCACC:-$(pwd)/tools/gcacc/gcacc}
[ -x "$GCACC" ] || { echo "FAIL: windows: no host gcacc at $GCACC"; exit 1; }

out=tests/cross/windows
rm -rf "${out:?}/bin" "${out:?}/run"
mkdir -p "$out/ao" "$out/bin" "$out/run"
out=$(cd "$out" && pwd)
ln -sf /usr/include/atomic_ops.h /usr/include/atomic_ops "$out/ao/"
WINEPREFIX=$out/prefix
WINEDEBUG=-all
# No Mono, no Gecko: wineboot never looks for (or offers to download)
# them, and nothing here needs them.
WINEDLLOVERRIDES='mscoree,mshtml='
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES

fails=0
fail() { printf 'FAIL: windows: %s\n' "$*"; fails=$((fails + 1)); }
ok() { printf 'PASS: windows: %s\n' "$*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)

# The prefix: booted once (some 10 to 60 s; about 700 MB, mostly Wine's
# own DLLs copied in), kept between runs.
t0=$(now)
if [ ! -f "$WINEPREFIX/.gcacc-booted" ]; then
  "$WINE" wineboot -i > "$out/wineboot.log" 2>&1 ||
    { fail "wineboot failed: see $out/wineboot.log"; exit 1; }
  touch "$WINEPREFIX/.gcacc-booted"
fi
printf 'wine prefix: %s s\n' "$(since "$t0")"

defs="-DALL_INTERIOR_POINTERS=1 -DGC_GCJ_SUPPORT=1 -DJAVA_FINALIZATION=1
  -DNO_EXECUTE_PERMISSION=1 -DGC_NO_THREADS_DISCOVERY=1
  -DIGNORE_DYNAMIC_LOADING=1 -DGC_DONT_REGISTER_MAIN_STATIC_DATA=1
  -DGC_THREADS=1 -DUSE_MMAP=1 -DUSE_MUNMAP=1 -DNO_GETENV=1
  -DNO_DEBUGGING=1 -DDONT_USE_ATEXIT=1 -DMANUAL_VDB -DLARGE_CONFIG
  -DGC_ASSERTIONS -DGCA_TEST_API"
cflags="-g -O2 -fno-omit-frame-pointer"
inc="-I$srcdir/include -I$up/include -I$out/ao"
# Upstream's gctest (0. below) and the default build's unit tests, with
# our configure's define set (as cross.sh's default build: parallel
# marking, thread-local allocation, getenv): its gc-default.o compiled
# beside gc.o, on the second core (each takes 20 to 100 s).
ddefs="-DALL_INTERIOR_POINTERS=1 -DENABLE_DISCLAIM=1
  -DGC_ATOMIC_UNCOLLECTABLE=1 -DGC_GCJ_SUPPORT=1 -DGC_THREADS=1
  -DJAVA_FINALIZATION=1 -DNO_EXECUTE_PERMISSION=1 -DPARALLEL_MARK=1
  -DTHREAD_LOCAL_ALLOC=1 -DUSE_MUNMAP=1"
t0=$(now)
# shellcheck disable=SC2086
$CCW -c $cflags -w $ddefs $inc -o "$out/bin/gc-default.o" "$up/extra/gc.c" \
  > "$out/gc-default.clog" 2>&1 &
ddpid=$!
# shellcheck disable=SC2086
$CCW -c $cflags -w $defs $inc -o "$out/bin/gc.o" "$up/extra/gc.c" ||
  { fail "extra/gc.c does not compile for Windows"; exit 1; }
printf 'compile gc.o (%s): %s s\n' "$CCW" "$(since "$t0")"
# shellcheck disable=SC2086
$CCW $cflags $defs $inc -Wl,--build-id -o "$out/bin/gameload.exe" \
  "$srcdir/tests/il2cpp/gameload.c" "$out/bin/gc.o" -lz ||
  { fail "gameload.exe does not link"; exit 1; }
# The launcher: runs a command line, waits for FILE to hold more than
# N bytes, then for GO to exist, then TerminateProcess (exit code 9).
cat > "$out/bin/term.c" <<'EOF'
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
static long long size_of(const char *p)
{
  WIN32_FILE_ATTRIBUTE_DATA a;
  if (!GetFileAttributesExA(p, GetFileExInfoStandard, &a)) return -1;
  return (long long)a.nFileSizeHigh << 32 | a.nFileSizeLow;
}
int main(int argc, char **argv)
{
  STARTUPINFOA si; PROCESS_INFORMATION pi; DWORD code = 0; int i;
  if (argc != 6) return 2;      /* term CMDLINE FILE BYTES READY GO */
  ZeroMemory(&si, sizeof(si)); si.cb = sizeof(si);
  if (!CreateProcessA(NULL, argv[1], NULL, NULL, FALSE, 0, NULL, NULL,
                      &si, &pi)) return 3;
  for (i = 0; i < 1200 && size_of(argv[2]) <= atoll(argv[3]); i++) {
    if (WaitForSingleObject(pi.hProcess, 50) == WAIT_OBJECT_0) return 4;
  }
  CloseHandle(CreateFileA(argv[4], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                          0, NULL));
  for (i = 0; i < 1200 && size_of(argv[5]) < 0; i++) Sleep(50);
  if (WaitForSingleObject(pi.hProcess, 0) == WAIT_OBJECT_0) return 5;
  if (!TerminateProcess(pi.hProcess, 9)) return 6;
  WaitForSingleObject(pi.hProcess, INFINITE);
  GetExitCodeProcess(pi.hProcess, &code);
  return 0 == code - 9 ? 0 : 7;
}
EOF
$CCW -O1 -o "$out/bin/term.exe" "$out/bin/term.c" ||
  { fail "term.exe does not link"; exit 1; }

# 0. Upstream's gctest, with our configure's define set, accounting off
# and then on with a dump that gcacc reads.  bdwgc on Windows prints to
# gctest.gc.log beside the executable.
t0=$(now)
# shellcheck disable=SC2086
if wait "$ddpid" && $CCW $cflags $ddefs $inc -o "$out/bin/gctest.exe" "$up/tests/test.c" \
     "$out/bin/gc-default.o" -lz; then
  printf 'compile gctest.exe (default defines): %s s\n' "$(since "$t0")"
  for acc in off on; do
    rm -f "$out/bin/gctest.gc.log" "$out/run/gctest.gz"
    t0=$(now)
    if [ $acc = on ]; then
      (cd "$out/run" && GC_ACC_ENABLE=1 GC_ACC_DUMP=gctest.gz \
        "$WINE" "$out/bin/gctest.exe") > "$out/gctest-$acc.log" 2>&1
    else
      "$WINE" "$out/bin/gctest.exe" > "$out/gctest-$acc.log" 2>&1
    fi
    rc=$?
    dt=$(since "$t0")
    cat "$out/bin/gctest.gc.log" >> "$out/gctest-$acc.log" 2> /dev/null
    if [ $rc -eq 0 ] && grep -q 'Collector appears to work' "$out/gctest-$acc.log"; then
      ok "gctest, accounting $acc ($dt s)"
    else
      fail "gctest, accounting $acc: exit $rc ($dt s); see $out/gctest-$acc.log"
    fi
  done
  if "$GCACC" summary "$out/run/gctest.gz" > "$out/gctest.sum" 2>&1 &&
     awk '$1 == "collections" && $2 > 0 { c = 1 }
          $1 == "allocated" && $2 == "objects" && $3 > 0 { a = 1 }
          END { exit !(c && a) }' "$out/gctest.sum"; then
    ok "gctest's dump: $(awk '$1 == "collections" { print $2 " collections" }
      $1 == "allocated" && $2 == "objects" { print $3 " objects" }' \
      "$out/gctest.sum" | tr '\n' ' ')"
  else
    fail "gctest's dump does not read: see $out/gctest.sum"
  fi
else
  fail "gctest.exe does not build"
fi

# The unit tests of 4. below, compiled while the games run under wine.
# test_census registers its threads (they come from winpthreads, whose
# pthread_create gc.h does not wrap without GC_WIN32_PTHREADS), as
# Unity's players register theirs: unregistered, they ran beside the
# collections and corrupted the heap now and then.  winpthreads is linked
# statically (its DLL is not in the prefix).
units_of() {
  echo test_counters test_frag_churn test_census test_frag
}
build_units() {
  for b in default il2cpp; do
    if [ $b = default ]; then bdefs=$ddefs obj=$out/bin/gc-default.o
    else bdefs=$defs obj=$out/bin/gc.o; fi
    for t in $(units_of $b); do
      # shellcheck disable=SC2086
      $CCW $cflags $bdefs $inc -o "$out/bin/$t-$b.exe" \
        "$srcdir/tests/unit/$t.c" "$obj" -lz -static -lpthread \
        > "$out/$t-$b.clog" 2>&1
    done
  done
}
build_units &
upid=$!

# A named pipe whose reader never reads: stall NAME READY GO.
cat > "$out/bin/stall.c" <<'EOF'
#include <windows.h>
int main(int argc, char **argv)
{
  HANDLE p;
  int i;
  if (argc != 4) return 2;
  p = CreateNamedPipeA(argv[1], PIPE_ACCESS_INBOUND,
                       PIPE_TYPE_BYTE | PIPE_WAIT, 1, 4096, 4096, 0, NULL);
  if (INVALID_HANDLE_VALUE == p) return 3;
  CloseHandle(CreateFileA(argv[2], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                          0, NULL));
  if (!ConnectNamedPipe(p, NULL) && GetLastError() != ERROR_PIPE_CONNECTED)
    return 4;
  for (i = 0; i < 2400 && GetFileAttributesA(argv[3])
                          == INVALID_FILE_ATTRIBUTES; i++)
    Sleep(50);
  CloseHandle(p);
  return 0;
}
EOF
$CCW -O1 -o "$out/bin/stall.exe" "$out/bin/stall.c" ||
  { fail "stall.exe does not link"; exit 1; }

# 1. gameload.sh's checks, the dump written on Windows.
cat > "$out/bin/gameload-api" <<EOF
#!/bin/sh
exec "$WINE" "$out/bin/gameload.exe" "\$1" --api "\$GC_ACC_DUMP"
EOF
chmod +x "$out/bin/gameload-api"
t0=$(now)
GAMELOAD="$out/bin/gameload-api" GCACC="$GCACC" sh \
  "$srcdir/tests/il2cpp/gameload.sh" > "$out/gameload.log" 2>&1
rc=$?
dt=$(since "$t0")
# gcacc symbolize reads the PE image (Z:\... mapped as wine does) with
# mingw's addr2line: every check passes, the leak's function named.
if [ "$rc" -eq 0 ]; then
  ok "gameload.sh ($dt s): $(tail -1 "$out/gameload.log")"
else
  fail "gameload.sh ($dt s): see $out/gameload.log"
  grep '^FAIL' "$out/gameload.log" | sed 's/^/  | /'
fi

# 2. The claim and a terminated process.  A long game (session) writes
# run/t.gz; once that holds records, a second game is given the same
# file; then the first is ended by TerminateProcess mid-dump.
r=$out/run
cd "$r" || exit 1
t0=$(now)
zexe=$(printf 'Z:%s' "$out/bin/gameload.exe" | tr / '\\')
"$WINE" "$out/bin/term.exe" "$zexe session --api t.gz" t.gz 4096 ready go \
  > /dev/null 2> term.err &
tpid=$!
i=0
while [ ! -f ready ] && [ $i -lt 600 ] && kill -0 "$tpid" 2> /dev/null; do
  sleep 0.1; i=$((i + 1))
done
[ -f ready ] || fail "the long game's dump never grew past 4 KiB"
# bdwgc's warnings go to the log file next to the executable on Windows
# (upstream's GC_write: gameload.gc.log), not to stderr.
rm -f "$out/bin/gameload.gc.log"
"$WINE" "$out/bin/gameload.exe" game --api t.gz > second.out 2> second.err
src=$?
cat second.err "$out/bin/gameload.gc.log" > second.warn 2> /dev/null
touch go
wait "$tpid"
trc=$?

printf 'claim and terminate: %s s\n' "$(since "$t0")"
[ "$trc" -eq 0 ] || fail "the long game was not terminated mid-run" \
  "(launcher exit $trc: 4 ended early, 5 before the second game ended)"
[ "$src" -eq 0 ] || fail "the second game exited $src"
ls t.gz.* > others 2> /dev/null
if [ "$(wc -l < others)" -eq 1 ] &&
   [ "$(grep -c 'in use by another process; writing' second.warn)" -eq 1 ]; then
  ok "claim: the second process wrote $(cat others), with one warning"
else
  fail "claim: PATH.PID files: $(tr '\n' ' ' < others); warnings:" \
       "$(grep -c 'in use' second.warn)"
fi
other=$(head -1 others)
if [ -n "$other" ] && "$GCACC" summary "$other" > second.sum 2>&1; then
  ok "the second process's dump reads ($(gzip -dc "$other" 2>/dev/null | wc -l) records)"
else
  fail "the second process's dump does not read: see $r/second.sum"
fi
# Stacks (Windows' unwinder, RtlCaptureStackBackTrace): a leaking
# callsite of the second game, module+offset, symbolized here with
# mingw's addr2line at the image base: the harness's own call chain.
"$GCACC" leaks --json "$other" > leaks.json 2> /dev/null
jq -r '.leak_sites[0].stack // ""' leaks.json | tr '<' '\n' |
  sed -n 's/.*gameload\.exe+\(0x[0-9a-f]*\) *$/\1/p' > offs
ib=$(x86_64-w64-mingw32-objdump -p "$out/bin/gameload.exe" |
  awk '$1 == "ImageBase" { print "0x" $2 }')
depth=$(jq -r '.leak_sites[0].stack // ""' leaks.json | tr '<' '\n' | grep -c .)
chain=$(while read -r o; do printf '0x%x\n' $((ib + o - 1)); done < offs |
  x86_64-w64-mingw32-addr2line -f -e "$out/bin/gameload.exe" |
  sed -n 'p;n' | tr '\n' ' ')
case $chain in
  "new_object record_event frame_work game_loop main "*)
    ok "stacks: a leak site $depth frames deep: $chain" ;;
  *) fail "stacks: a leak site ($depth frames) reads: $chain" ;;
esac
# The same leak site as gcacc names it: `gcacc symbolize` reads the
# Windows module's PE image (its DWARF) found through its Z:\ path.
rm -f "$other.symbols"
"$GCACC" symbolize "$other" > sym.out 2> sym.err
src=$?
"$GCACC" leaks --json "$other" > leaks2.json 2> /dev/null
site=$(jq -r '.leak_sites[0].stack // ""' leaks2.json)
case " $site " in
  *" new_object < record_event < "*)
    if [ "$src" -eq 0 ] && grep -q 'gameload\.exe+0x[0-9a-f]* new_object ' sym.out
    then
      ok "symbolize: the Windows leak site reads: $site"
    else
      fail "symbolize exited $src: $(head -3 sym.err)"
    fi ;;
  *) fail "symbolize: the Windows leak site reads: $site; $(head -3 sym.err)" ;;
esac
# The terminated dump: every whole line is a record, the header first,
# and gcacc reads it (it may say the stream was cut).
gzip -dc t.gz > t.jsonl 2> /dev/null
n=$(wc -l < t.jsonl)
frames=$(grep -c '"record":"frame"' t.jsonl)
if [ "$n" -ge 2 ] && head -1 t.jsonl | jq -e '.record == "header"' > /dev/null &&
   head -n "$n" t.jsonl | jq -c . > /dev/null 2>&1; then
  ok "terminated dump: $n whole records ($frames frames), each valid JSON"
else
  fail "terminated dump: $n lines, not all valid records"
fi
if "$GCACC" summary t.gz > t.sum 2> t.err; then
  ok "gcacc summary reads the terminated dump"
else
  fail "gcacc summary on the terminated dump exited $?: $(head -3 t.err)"
fi

# A reader that stops reading (a named pipe, never read): the game runs
# to its end, its stop waits GC_ACC_DUMP_EXIT_WAIT (500 ms) and says so
# once; nothing blocks (the pipe is written in PIPE_NOWAIT mode).
rm -f sready sgo "$out/bin/gameload.gc.log"
pipe='\\.\pipe\gcacc-stall'
"$WINE" "$out/bin/stall.exe" "$pipe" sready sgo > /dev/null 2>&1 &
spid=$!
i=0
while [ ! -f sready ] && [ $i -lt 600 ] && kill -0 "$spid" 2> /dev/null; do
  sleep 0.1; i=$((i + 1))
done
t0=$(now)
timeout 120 "$WINE" "$out/bin/gameload.exe" game --api "$pipe" > stalled.out 2>&1
src=$?
dt=$(since "$t0")
touch sgo
wait "$spid"
if [ "$src" -eq 0 ] && [ "$(grep -c 'for its reader, which stopped reading' \
     "$out/bin/gameload.gc.log" 2> /dev/null)" = 1 ]; then
  ok "a pipe never read: the game ended in $dt s, one warning: $(grep -o \
    '[0-9]* records ([0-9]* bytes) not written' "$out/bin/gameload.gc.log")"
else
  fail "a pipe never read: exit $src after $dt s; warnings:" \
       "$(cat "$out/bin/gameload.gc.log" 2> /dev/null)"
fi

# 3. Modules: the executable's PE image, with its CodeView record.
head -1 t.jsonl | jq -c '.modules[] | select(.path | test("gameload.exe$"))' \
  > mod.json
if [ "$(wc -l < mod.json)" -eq 1 ] &&
   jq -e '(.base | startswith("0x")) and .size > 0
          and (.build_id | test("^[0-9A-F]{33,40}$"))' mod.json > /dev/null; then
  ok "modules: $(cat mod.json)"
else
  fail "modules: no gameload.exe image with base, size, CodeView id:" \
       "$(head -1 t.jsonl | jq -c '.modules[:2]')"
fi
# 4. Our unit tests that read no dump (their checks are in the process:
# no jansson needed, which Debian has no mingw build of), accounting on:
# the default build (GC_ACC_ENABLE=1) and the il2cpp one (no getenv;
# GCA_TEST_API).
t0=$(now)
wait "$upid"
nunit=0
for b in default il2cpp; do
  on=
  [ $b = default ] && on=GC_ACC_ENABLE=1
  for t in $(units_of $b); do
    exe=$out/bin/$t-$b.exe
    if [ ! -f "$exe" ]; then
      fail "unit test $t ($b build) does not build: see $out/$t-$b.clog"
      continue
    fi
    (cd "$out/run" && env ${on:+"$on"} timeout 300 "$WINE" "$exe") > "$out/$t-$b.log" 2>&1
    rc=$?
    last=$(tail -1 "$out/$t-$b.log" | tr -d '\r')
    case $rc:$last in
      0:*" 0 failed") ok "unit $t ($b build): $last"; nunit=$((nunit + 1)) ;;
      *) fail "unit $t ($b build) exited $rc: see $out/$t-$b.log"
         grep 'check failed' "$out/$t-$b.log" | head -5 | sed 's/^/  | /' ;;
    esac
  done
done
printf 'unit tests: %d passed, %s s\n' "$nunit" "$(since "$t0")"

# 5. A module built as MSVC builds Unity's (clang-cl, lld-link): its
# debug information in a PDB only, no DWARF.  The game (mingw, the
# collector with our configure's define set) calls win_pdbmod.dll,
# which allocates through it; its stacks run through the DLL.
p=$out/pdb
rm -rf "$p"
mkdir -p "$p/v2" "$p/good"
. "$srcdir/tests/cross/msvc_dll.sh"
pdbmod() { msvc_dll "$1" "$srcdir/tests/cross/win_pdbmod.c" pdbmod "${2:-}"; }
if ! command -v lld-link > /dev/null || ! command -v llvm-symbolizer > /dev/null ||
   ! command -v llvm-readobj > /dev/null; then
  fail "no lld-link, llvm-symbolizer or llvm-readobj (lld, llvm; tools/setup-cross.sh)"
elif ! pdbmod "$p" || ! pdbmod "$p/v2" /DPDBMOD_V2 ||
     ! $CCW $cflags $inc -DGC_THREADS=1 -o "$p/pdbhost.exe" \
       "$srcdir/tests/cross/win_pdbhost.c" "$out/bin/gc-default.o" \
       "$p/pdbmod.dll" -lz > "$p/host.log" 2>&1; then
  fail "the PDB-only module or its game does not build: see $p/*.log"
else
  cp "$p/pdbmod.dll" "$p/pdbmod.pdb" "$p/good/"
  t0=$(now)
  (cd "$p" && GC_ACC_ENABLE=1 GC_ACC_DUMP=pdb.gz GC_ACC_PROFILE=full \
    GC_ACC_STACKS=all "$WINE" "$p/pdbhost.exe" 1000) > "$p/run.log" 2>&1
  printf 'PDB-only module game: %s s\n' "$(since "$t0")"
  gzip -dc "$p/pdb.gz" 2> /dev/null | head -1 |
    jq -c '.modules[] | select(.path | test("pdbmod.dll$"))' > "$p/mod.json"
  id=$(codeview_id "$p/pdbmod.dll")
  if [ "$(jq -r '.build_id + " " + .pdb' "$p/mod.json")" = \
       "$id C:\\build\\pdbmod.pdb" ]; then
    ok "PDB-only module: the header's CodeView record is the image's ($id)"
  else
    fail "PDB-only module: header $(cat "$p/mod.json"); llvm-readobj $id"
  fi
  # No DWARF: mingw's addr2line names nothing there; gcacc reads the PDB.
  "$GCACC" symbolize --no-cache "$p/pdb.gz" > "$p/sym.out" 2> "$p/sym.err"
  "$GCACC" symbolize --no-cache --sites "$p/pdb.gz" > "$p/sites.out" 2>&1
  named=$(awk '$2 ~ /^pdbmod\.dll\+/ && $3 != "??" && $4 ~ /win_pdbmod\.c:/' \
    "$p/sym.out" | wc -l)
  chain=$(awk 'function done() { if (!f && s ~ /pdb_inner pdb_middle pdb_outer main/) {
                 print s; f = 1 } }
    /^site/ { done(); s = ""; next }
    $2 ~ /^(pdbmod\.dll|pdbhost\.exe)\+/ { s = s " " $3 }
    END { done() }' "$p/sites.out")
  if x86_64-w64-mingw32-objdump -h "$p/pdbmod.dll" | grep -q debug_info; then
    fail "PDB-only module: the DLL has DWARF"
  elif [ "$named" -eq 3 ] && [ -n "$chain" ]; then
    ok "PDB-only module: $named of its addresses named from the PDB; a site:$chain"
  else
    fail "PDB-only module: $named named; sites: $(head -5 "$p/sites.out" | tr '\n' ' ')"
    sed 's/^/  | /' "$p/sym.err"
  fi
  # Another build's image where the dump's module was: refused, nothing
  # named (its PDB would name other functions at those offsets).
  cp "$p/v2/pdbmod.dll" "$p/v2/pdbmod.pdb" "$p/"
  "$GCACC" symbolize --no-cache "$p/pdb.gz" > "$p/sym2.out" 2> "$p/sym2.err"
  if grep -q 'in its CodeView record, but the dump.s .*pdbmod.dll was .*another build of it; skipped' \
       "$p/sym2.err" &&
     ! awk '$2 ~ /^pdbmod\.dll\+/ && $3 != "??"' "$p/sym2.out" | grep -q .; then
    ok "PDB-only module: an image of another build refused, nothing named"
  else
    fail "PDB-only module: an image of another build: $(grep pdbmod "$p/sym2.out" |
      tr '\n' ' '); $(head -2 "$p/sym2.err")"
  fi
  # The right image, another build's PDB beside it: refused; the right
  # PDB given with --search-path is read, not the one beside the image
  # (which llvm-symbolizer alone would read first).
  cp "$p/good/pdbmod.dll" "$p/"
  "$GCACC" symbolize --no-cache "$p/pdb.gz" > "$p/sym3.out" 2> "$p/sym3.err"
  "$GCACC" symbolize --no-cache --search-path "$p/good" "$p/pdb.gz" \
    > "$p/sym4.out" 2> "$p/sym4.err"
  if grep -q 'the PDB of another build; skipped' "$p/sym3.err" &&
     ! awk '$2 ~ /^pdbmod\.dll\+/ && $3 != "??"' "$p/sym3.out" | grep -q . &&
     [ "$(awk '$2 ~ /^pdbmod\.dll\+/ && $3 ~ /^pdb_(inner|middle|outer)$/' \
          "$p/sym4.out" | wc -l)" -eq 3 ]; then
    ok "PDB-only module: a PDB of another build refused; the right one by --search-path"
  else
    fail "PDB-only module: another build's PDB: $(grep pdbmod "$p/sym3.out" |
      tr '\n' ' '); with --search-path: $(grep pdbmod "$p/sym4.out" | tr '\n' ' ')"
  fi
  cp "$p/good/pdbmod.pdb" "$p/"
fi

printf 'windows: %s s in all\n' "$(since "$t_all")"
[ "$fails" -eq 0 ] || exit 1
echo "windows: all passed"
