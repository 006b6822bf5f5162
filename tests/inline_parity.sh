#!/bin/sh
# SPDX-License-Identifier: MIT
# inline_parity.sh: accounting compiled in keeps the collector's own
# functions inlined where the collector compiled without it
# (-DGC_ACC_DISABLE) has them inlined.
#
# The one-file libgc (extra/gc.c) is compiled again here, with the
# build's own command and -DGC_ACC_DISABLE, and the local functions of
# both objects compared: a function of the collector's sources (not of
# accounting/) that the compiled-in object keeps out of line and the
# compiled-out one does not is a call the off build pays and compiled
# out does not.  GC_allocobj was one (issue 36): unwind.c took its
# address for its span, so gcc no longer inlined it into its one caller,
# GC_generic_malloc_inner, 23 instructions a call on the global path's
# refills.  The exceptions below are calls of ours by design, each once a
# thread or a collection, or on the debug path.
#
#   tests/inline_parity.sh --compare ON.o OFF.o
# compares two objects made elsewhere (ON.o with debug lines, for nm -l):
# tests/unity/unit.sh does so for Unity's fork, built as il2cpp builds
# it, where every GC_malloc takes the global path.
set -eu
command -v nm > /dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
case ${CC:-cc} in *clang*) echo "SKIP: gcc's inlining is what is compared"; exit 77 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --compare ]; then
  on=$2
  cp "$3" "$tmp/off.o"
else
up=bdwgc/upstream
on="$up/extra/.libs/gc.o"
[ -f "$on" ] || { echo "SKIP: no $on (not the one-file build)"; exit 77; }
grep -q -- '-DGC_ACC_DISABLE' "$up/Makefile" &&
  { echo "SKIP: accounting is compiled out in this build"; exit 77; }
# (A make of its own: not the calling make's flags, nor its directory
# messages in the command read back.)
compile=$(cd "$up" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
  make -s --no-print-directory -f Makefile -f - gcacc-print-compile <<'MK'
gcacc-print-compile:
	@echo $(COMPILE)
MK
)
srcdir=$(sed -n 's/^top_srcdir = //p' "$up/Makefile")
(cd "$up" && $compile -DGC_ACC_DISABLE -fPIC -DPIC -c "$srcdir/extra/gc.c" \
   -o "$tmp/off.o") 2> "$tmp/err" ||
  { sed 's/^/  | /' "$tmp/err" | tail -20 >&2
    echo "FAIL: extra/gc.c does not compile with -DGC_ACC_DISABLE" >&2; exit 1; }
fi
# Local functions (clones folded: foo.part.0 is foo), and for the
# compiled-in object only the collector's: not from accounting/, nor
# named as ours (gca_*: the fast paths' copies, made in the patched
# sources).
nm -l "$on" | awk '$2 == "t" && $0 !~ /\/accounting\// && $3 !~ /^gca_/ {
    sub(/\..*/, "", $3); print $3 }' |
  sort -u > "$tmp/on"
nm "$tmp/off.o" | awk '$2 == "t" { sub(/\..*/, "", $3); print $3 }' |
  sort -u > "$tmp/off"
# Out of line in the compiled-in collector by design: the thread-local
# lists' init and destroy call their hooks (once a thread), the lists'
# marking in a collection (once a thread and collection), the debug
# allocator's store of its header; on Unity's fork, the typed array
# descriptor's sequence node (GC_calloc_explicitly_typed's, each with an
# allocation of its own), which gcc's unit-growth budget leaves out of
# line once GC_malloc_kind_global is made in copies.
allowed="GC_init_thread_local GC_destroy_thread_local GC_mark_thread_local_fls_for GC_store_debug_info_inner GC_make_sequence_descriptor"
bad=
for f in $(comm -23 "$tmp/on" "$tmp/off"); do
  case " $allowed " in *" $f "*) continue ;; esac
  bad="$bad $f"
done
if [ -n "$bad" ]; then
  echo "FAIL: the collector compiled with accounting keeps out of line what it inlines compiled out:$bad" >&2
  exit 1
fi
echo "inline parity: $(wc -l < "$tmp/on") local functions of the collector's sources, none out of line only with accounting"
