#!/bin/sh
# SPDX-License-Identifier: MIT
# symbolize_pdb.sh: `gcacc symbolize` reads a Windows module built as
# MSVC builds (clang-cl, lld-link: its debug information in a PDB only)
# through its PDB, and never through another build's (issue 35).  No
# wine: a DLL built here, and a dump header whose module map has it as a
# Windows process would (a Z:\ path, its CodeView record as build_id).
# Checked:
#  - its functions named from the PDB (file:line), found beside the
#    image under the name it records (a Windows path not on this
#    machine), then answered from the cache with no symbolizer;
#  - an image of another build where the module was: refused with a
#    warning, nothing named;
#  - another build's PDB beside the right image: refused, nothing named
#    (llvm-symbolizer alone would read it and name other functions);
#    the right PDB given with --search-path is read instead;
#  - no PDB, a FIFO named as the PDB, a cut PDB: refused, with a
#    warning each, never blocking.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
need clang
need lld-link "no lld-link (lld)"
need llvm-symbolizer "no llvm-symbolizer (llvm)"
need llvm-readobj "no llvm-readobj (llvm)"
need jq
t=$tmp

cat > "$t/mod.c" <<'C'
#ifdef V2
__declspec(dllexport) int extra_fn(int x) { return x * 11 - 3; }
#endif
__declspec(dllexport) int alpha_fn(int x)
{
  return x * 3 + 1;
}
__declspec(dllexport) int beta_fn(int x)
{
  return alpha_fn(x) * 5 - 7;
}
C
. "${srcdir:-.}/tests/cross/msvc_dll.sh"
build() { mkdir -p "$1" && msvc_dll "$1" "$t/mod.c" mod "${2:-}"; }
build "$t/v1" || { cat "$t/v1/build.log"; echo "FAIL: cannot build the DLL"; exit 1; }
build "$t/v2" /DV2 || { echo "FAIL: cannot build the second DLL"; exit 1; }
mkdir -p "$t/game"
cp "$t/v1/mod.dll" "$t/v1/mod.pdb" "$t/game/"

# The image's CodeView id (GUID, age) as the collector's header has it.
id=$(codeview_id "$t/v1/mod.dll")
check "a CodeView id ($id)" test "${#id}" -eq 33
rva() {
  llvm-readobj --coff-exports "$t/v1/mod.dll" |
    awk -v n="$1" '$1 == "Name:" { name = $2 } $1 == "RVA:" && name == n { print $2 }'
}
base=0x180000000
a=$(printf '0x%x' $((base + $(rva alpha_fn) + 2)))
b=$(printf '0x%x' $((base + $(rva beta_fn) + 4)))
zpath=$(printf 'Z:%s' "$t/game/mod.dll" | tr / '\\')
jq -cn --arg p "$zpath" --arg id "$id" --arg b "$base" '{record: "header",
  format_version: 1, config: {}, modules: [{path: $p, base: $b,
  size: 20480, build_id: $id, pdb: "C:\\build\\mod.pdb"}]}' | gzip > "$t/d.gz"

sym() {         # OUT [OPTIONS]: symbolize a and b, stdout to OUT.out
  o=$1; shift
  timeout 20 "$GCACC" symbolize --no-cache "$@" "$t/d.gz" "$a" "$b" \
    > "$t/$o.out" 2> "$t/$o.err"
}
named() { awk '$3 != "??"' "$t/$1.out" | wc -l; }

# Named from the PDB beside the image (the recorded path is not here).
sym ok
check "exit 0" test $? -eq 0
check "alpha_fn from the PDB" grep -q "^$a mod\.dll+0x[0-9a-f]* alpha_fn .*mod\.c:[4-7]\$" "$t/ok.out"
check "beta_fn from the PDB" grep -Eq "^$b mod\.dll\+0x[0-9a-f]* beta_fn .*mod\.c:([89]|1[01])\$" "$t/ok.out"
check "no warning" test ! -s "$t/ok.err"
# The cache: the same answers with no symbolizer to run.
timeout 20 "$GCACC" symbolize "$t/d.gz" "$a" "$b" > /dev/null 2>&1
GCACC_PDB_SYMBOLIZER=false timeout 20 "$GCACC" symbolize "$t/d.gz" "$a" \
  "$b" > "$t/cached.out" 2>&1
check "answered from the cache" cmp -s "$t/ok.out" "$t/cached.out"

# An image of another build where the module was.
cp "$t/v2/mod.dll" "$t/v2/mod.pdb" "$t/game/"
sym img
check "another image: refused" grep -q "mod\.dll: PDB GUID and age [0-9A-F]* in its CodeView record, but the dump's .*was $id: another build of it; skipped" "$t/img.err"
check "another image: nothing named" test "$(named img)" -eq 0

# The right image, another build's PDB beside it; the right one by
# --search-path.
cp "$t/v1/mod.dll" "$t/game/"
sym pdb
check "another PDB: refused" grep -q "mod\.pdb: PDB GUID and age [0-9A-F]*, but .* records $id: the PDB of another build; skipped" "$t/pdb.err"
check "another PDB: a warning that none matched" grep -q "no PDB mod\.pdb with its GUID and age $id" "$t/pdb.err"
check "another PDB: nothing named" test "$(named pdb)" -eq 0
sym search --search-path "$t/v1"
check "the right PDB by --search-path" cmp -s "$t/ok.out" "$t/search.out"

# No PDB; a FIFO as the PDB; a PDB cut short.
rm "$t/game/mod.pdb"
sym none
check "no PDB: a warning" grep -q "no PDB mod\.pdb with its GUID" "$t/none.err"
check "no PDB: nothing named" test "$(named none)" -eq 0
mkfifo "$t/game/mod.pdb"
sym fifo
check "a FIFO as the PDB: no hang (exit $?)" test $? -ne 124
check "a FIFO as the PDB: refused" grep -q "game/mod\.pdb: not a regular file" "$t/fifo.err"
rm "$t/game/mod.pdb"
head -c 6000 "$t/v1/mod.pdb" > "$t/game/mod.pdb"
sym cut
check "a cut PDB: refused" grep -q "game/mod\.pdb: a PDB .*; skipped" "$t/cut.err"
check "a cut PDB: nothing named" test "$(named cut)" -eq 0
finish
