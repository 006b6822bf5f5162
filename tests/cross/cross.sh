#!/bin/sh
# SPDX-License-Identifier: MIT
# cross.sh: the collector with accounting on ARM, under qemu-user.
#
#   tests/cross/cross.sh aarch64|armhf [quick|full]
#
# Compiles the patched tree's one-file build, bdwgc/upstream/extra/gc.c
# (which includes accounting/), with Debian's cross gcc twice:
#
#   default  the define set our ./configure gives libgc (GC_THREADS,
#            THREAD_LOCAL_ALLOC, PARALLEL_MARK, ...: the host build's
#            include/config.h, fixed here so no target configure runs),
#            libatomic_ops' headers (the host's: header-only for us);
#   il2cpp   Unity's IL2CPP define set (tests/il2cpp/amalgam.sh: no
#            getenv, no thread-local allocation, no parallel marking),
#            with GC_ASSERTIONS and the test-only entry points, as
#            amalgam.sh's second build.
#
# both with -fno-omit-frame-pointer, as the default unwinder needs.  On
# armhf everything is compiled -marm (ARM, not Thumb-2 code, which is
# Debian's default): accounting/unwind.c walks ARM-mode frames (see
# there and docs/cross.md), so callsites need the program compiled the
# same way; -funwind-tables gives the libgcc unwinder (GC_ACC_UNWIND=
# libgcc, ARM EHABI tables) what it needs there.
#
# It links upstream's gctest (tests/test.c) and our unit tests against
# each and runs them under qemu-user: the default build's programs with
# accounting off and then on (GC_ACC_ENABLE=1; gctest also with a dump,
# which the host's gcacc reads back), the il2cpp build's programs (which
# switch accounting on through the API, as a game does).  Then the
# il2cpp-shaped workload (tests/il2cpp/gameload.sh's checks) on the
# il2cpp build, its dump read and symbolized on the host with the
# target's addr2line.
#
# quick (the default; what `make check` runs) is gctest with accounting
# on and every accounting test; full adds gctest with accounting off and
# each default-build unit test with accounting off.  Prints each
# program's run time and the total.  Exit 77 (skipped, with the reason)
# when the cross tools or the target's sysroot are missing
# (tools/setup-cross.sh installs them).
set -u
: "${srcdir:=.}"
target=${1:?usage: cross.sh aarch64|armhf [quick|full]}
set=${2:-${GCACC_CROSS_SET:-quick}}
case $target in
  aarch64) triplet=aarch64-linux-gnu; qemu=qemu-aarch64; deb=arm64
           arch_cflags="" ;;
  armhf)   triplet=arm-linux-gnueabihf; qemu=qemu-arm; deb=armhf
           arch_cflags="-marm -funwind-tables" ;;
  *) echo "cross.sh: unknown target $target (aarch64 or armhf)" >&2; exit 2 ;;
esac
srcdir=$(cd "$srcdir" && pwd)
up="$srcdir/bdwgc/upstream"
sysroot=${GCACC_CROSS_SYSROOT:-${GCACC_CROSS_SYSROOT_DIR:-$srcdir/_cross}/sysroot-$deb}
CCX=${CROSS_CC:-$triplet-gcc}
# Skipped without the tools, unless GCACC_CROSS_REQUIRED=1 (./build.sh
# check, whose set-up installs them): then a missing tool fails.
skip() {
  if [ "${GCACC_CROSS_REQUIRED:-0}" = 1 ]; then
    echo "FAIL: cross $target: $* (GCACC_CROSS_REQUIRED=1)"; exit 1
  fi
  echo "SKIP: cross $target: $*"; exit 77
}
command -v "$CCX" > /dev/null || skip "no $CCX (tools/setup-cross.sh)"
command -v "$qemu" > /dev/null || skip "no $qemu (qemu-user)"
[ -f "$sysroot/usr/lib/$triplet/libz.a" ] ||
  skip "no target zlib in $sysroot (tools/setup-cross.sh)"
[ -f "$up/extra/gc.c" ] || skip "no patched tree in $up (./configure)"
[ -f /usr/include/atomic_ops.h ] || skip "no libatomic_ops headers"

out=tests/cross/$target
rm -rf "$out"
mkdir -p "$out/ao"
out=$(cd "$out" && pwd)
# libatomic_ops, header-only: the host's headers, and nothing else of the
# host's include directory.
ln -s /usr/include/atomic_ops.h /usr/include/atomic_ops "$out/ao/"
QEMU_LD_PREFIX=/usr/$triplet
export QEMU_LD_PREFIX

default_defs="-DALL_INTERIOR_POINTERS=1 -DENABLE_DISCLAIM=1
  -DGC_ATOMIC_UNCOLLECTABLE=1 -DGC_ENABLE_SUSPEND_THREAD=1
  -DGC_GCJ_SUPPORT=1 -DGC_THREADS=1 -DHANDLE_FORK=1 -DHAVE_DLADDR=1
  -DHAVE_DL_ITERATE_PHDR=1 -DJAVA_FINALIZATION=1 -DMUNMAP_THRESHOLD=6
  -DNO_EXECUTE_PERMISSION=1 -DPARALLEL_MARK=1 -DTHREAD_LOCAL_ALLOC=1
  -DUSE_MMAP=1 -DUSE_MUNMAP=1 -D_REENTRANT=1"
il2cpp_defs="-DALL_INTERIOR_POINTERS=1 -DGC_GCJ_SUPPORT=1 -DJAVA_FINALIZATION=1
  -DNO_EXECUTE_PERMISSION=1 -DGC_NO_THREADS_DISCOVERY=1
  -DIGNORE_DYNAMIC_LOADING=1 -DGC_DONT_REGISTER_MAIN_STATIC_DATA=1
  -DGC_THREADS=1 -DUSE_MMAP=1 -DUSE_MUNMAP=1 -DNO_GETENV=1
  -DNO_DEBUGGING=1 -DDONT_USE_ATEXIT=1 -DMANUAL_VDB -DLARGE_CONFIG
  -DGC_ASSERTIONS -DGCA_DUMP_NO_FUTEX -DGCA_TEST_API"
cflags="-g -O2 -fno-omit-frame-pointer $arch_cflags"
inc="-I$srcdir/include -I$up/include -I$sysroot/usr/include -I$out/ao"
libs="-L$sysroot/usr/lib/$triplet -l:libjansson.a -l:libz.a -lpthread -ldl -lm"

passed=0 failed=0
fail() { echo "FAIL: cross $target: $*"; failed=$((failed + 1)); }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)

# Compile: the two builds of extra/gc.c.
for b in default il2cpp; do
  eval "defs=\$${b}_defs"
  t0=$(now)
  # shellcheck disable=SC2086
  if ! $CCX -c $cflags -w $defs $inc -o "$out/gc-$b.o" "$up/extra/gc.c"; then
    fail "extra/gc.c ($b build) does not compile"; exit 1
  fi
  printf 'compile gc-%s.o (%s): %.1f s\n' "$b" "$CCX" "$(since "$t0")"
done

# link NAME BUILD SOURCES...: tests/cross/<target>/NAME-BUILD.
link() {
  n=$1 b=$2; shift 2
  eval "defs=\$${b}_defs"
  # shellcheck disable=SC2086
  $CCX $cflags -rdynamic $defs $inc -I"$srcdir/tools/gcacc" \
    -I"$srcdir/accounting" -o "$out/$n-$b" "$@" "$out/gc-$b.o" $libs ||
    fail "link $n ($b)"
}
# run LABEL ENV... -- PROGRAM ARGS...: under qemu, timed, output kept.
#
# Known failures: xfail LABEL sets xf_why (the bug) and xf_checks (an
# ERE every "check failed" line of the log must match).  Such a program
# is an XFAIL (printed, not counted) only if it ran to its closing count
# and failed nothing else; any other failure is a FAIL, and a pass is an
# XPASS, counted as a failure so that the entry goes once the bug is
# fixed.
xfail() {
  case $target/$1 in
    *) return 1 ;;
  esac
}
run() {
  label=$1; shift
  t0=$(now)
  env "$@" > "$out/$label.log" 2>&1
  rc=$?
  dt=$(since "$t0")
  if xfail "$label"; then
    others=$(grep 'check failed' "$out/$label.log" | grep -Evc "$xf_checks")
    if [ $rc -eq 0 ]; then
      fail "$label passes (XPASS): remove its entry in cross.sh's xfail"
    elif [ $rc -eq 1 ] && [ "$others" -eq 0 ] &&
         tail -1 "$out/$label.log" | grep -Eq ': [0-9]+ checks, [0-9]+ failed$'; then
      printf 'XFAIL %-35s %6.1f s  %s\n' "$label" "$dt" "$xf_why"
    else
      fail "$label exited $rc ($dt s), beyond its known failure: see $out/$label.log"
      tail -15 "$out/$label.log" | sed 's/^/  | /'
    fi
  elif [ $rc -eq 0 ]; then
    passed=$((passed + 1))
    printf 'PASS %-36s %6.1f s  %s\n' "$label" "$dt" "$(tail -1 "$out/$label.log")"
  else
    fail "$label exited $rc ($dt s): see $out/$label.log"
    tail -15 "$out/$label.log" | sed 's/^/  | /'
  fi
}

t0=$(now)
# gctest's fork test creates a thread in the forked child, which
# qemu-user (7.2) cannot do (it aborts on an assertion of its own):
# that one part is left out here; test_fork covers fork with accounting.
link gctest default -DNO_TEST_HANDLE_FORK "$up/tests/test.c"
for t in test_counters test_frag_churn test_census test_frag test_unwind \
         test_fork test_fork_counts; do
  link "$t" default "$srcdir/tests/unit/$t.c"
done
for t in test_counters test_frag_churn test_census test_frag test_types \
         test_types_gcj test_unwind; do
  link "$t" il2cpp "$srcdir/tests/unit/$t.c"
done
link test_dump_ring il2cpp "$srcdir/tests/unit/test_dump_ring.c" \
  "$srcdir/tools/gcacc/dump_read.c"
# 64-bit times (issue 38: a 32-bit word of ns wrapped every 4.3 s on
# armv7): the test-only clock offset puts the clock near 2^32 ns.
link test_clock64 il2cpp "$srcdir/tests/unit/test_clock64.c" \
  "$srcdir/tools/gcacc/dump_read.c"
# Records as tapes, written by the writer thread (32-bit words on armhf).
link test_tape_dump il2cpp "$srcdir/tests/unit/test_tape_dump.c" \
  "$srcdir/tools/gcacc/dump_read.c"
link gameload il2cpp "$srcdir/tests/il2cpp/gameload.c"
printf 'link: %.1f s\n' "$(since "$t0")"

Q="$qemu"
# Programs that run themselves again (test_types) do it through this.
GCACC_TEST_RUNNER=$qemu
export GCACC_TEST_RUNNER
# The default build: upstream's gctest and our unit tests.
# gctest switches incremental collection on, whose write barrier
# (mprotect and SIGSEGV) qemu-user does not emulate faithfully ("Found
# nonzero ... allocator is broken", accounting on or off):
# GC_DISABLE_INCREMENTAL=1 under emulation.
if [ "$set" = full ]; then
  run gctest-off GC_DISABLE_INCREMENTAL=1 "$Q" "$out/gctest-default"
fi
run gctest-on GC_DISABLE_INCREMENTAL=1 GC_ACC_ENABLE=1 GC_ACC_DUMP="$out/gctest.jsonl.gz" \
  "$Q" "$out/gctest-default"
for t in test_counters test_frag_churn test_census test_frag test_unwind \
         test_fork test_fork_counts; do
  [ "$set" = full ] && run "$t-default-off" "$Q" "$out/$t-default"
  run "$t-default-on" GC_ACC_ENABLE=1 "$Q" "$out/$t-default"
done
# The ARM dump, read on the host: pointer width from its header.
GCACC=${GCACC:-$(pwd)/tools/gcacc/gcacc}
if [ -x "$GCACC" ] && [ -f "$out/gctest.jsonl.gz" ]; then
  ws=$(gzip -dc "$out/gctest.jsonl.gz" | head -1 | jq -r '.word_bytes // .config.word_bytes // empty')
  want=8; [ "$target" = armhf ] && want=4
  if [ "$ws" = "$want" ]; then passed=$((passed + 1)); echo "PASS dump header word size $ws"
  else fail "dump header word size '$ws', want $want"; fi
  if "$GCACC" summary "$out/gctest.jsonl.gz" > "$out/summary.txt" 2>&1; then
    passed=$((passed + 1)); echo "PASS host gcacc summary of the $target dump"
  else fail "host gcacc summary of the $target dump"; fi
fi

# The il2cpp build.
for t in test_counters test_frag_churn test_census test_frag test_types \
         test_types_gcj test_unwind test_dump_ring test_clock64 \
         test_tape_dump; do
  run "$t-il2cpp" "$Q" "$out/$t-il2cpp"
done

# The il2cpp-shaped workload, with the API as a game calls it (no
# getenv in this build; tests/il2cpp/amalgam.sh's wrapper), its dump
# read and symbolized on the host with the target's addr2line.
if [ -x "$GCACC" ]; then
  cat > "$out/gameload-api" <<EOF
#!/bin/sh
exec $qemu "$out/gameload-il2cpp" "\$1" --api "\$GC_ACC_DUMP"
EOF
  chmod +x "$out/gameload-api"
  run gameload-il2cpp GAMELOAD="$out/gameload-api" GCACC="$GCACC" \
    GCACC_ADDR2LINE="$triplet-addr2line" srcdir="$srcdir" \
    sh "$srcdir/tests/il2cpp/gameload.sh"
elif [ "${GCACC_CROSS_REQUIRED:-0}" = 1 ]; then
  fail "no host gcacc at $GCACC: gameload not run"
else
  echo "note: no host gcacc at $GCACC: gameload not run"
fi

printf 'cross %s (%s): %d passed, %d failed, %.0f s\n' "$target" "$set" \
  "$passed" "$failed" "$(since "$t_all")"
[ "$failed" -eq 0 ]
