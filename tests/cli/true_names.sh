#!/bin/sh
# SPDX-License-Identifier: MIT
# true_names.sh: `gcacc symbolize` names a function only when the address
# lies inside that symbol's extent (issue 33, item 2).  A test library
# with an exported function followed by a static and a hidden one (as
# Guile's allocators are), stripped to its dynamic symbol table (strip
# --strip-all keeps .dynsym): addr2line names the nearest preceding
# exported symbol, past its end.  Known addresses (from the unstripped
# library's .symtab): one in each function.  Checked:
#  - stripped: every name shown holds its address (st_size), the static
#    and hidden functions' addresses are a guess marked "name+0xN?" or
#    module+offset, and a warning says there was no full symbol table;
#  - unstripped (.symtab): each address gets its own function's name;
#  - stripped, with a debug file by build id (--debug-dir) and, on its
#    own, by .gnu_debuglink beside the library: the same true names.
set -eu
: "${CC:=cc}"
gcacc=${GCACC:-./tools/gcacc/gcacc}
me=true_names.sh
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
for p in addr2line readelf strip objcopy; do
  command -v $p >/dev/null 2>&1 || { echo "$me: SKIP: no $p (binutils)"; exit 77; }
done
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-names.XXXXXX")
trap 'rm -rf "$t"' EXIT INT TERM

cat > "$t/tn.c" <<'C'
#define NI __attribute__((noinline, used))
int tn_exported(int x) { return x * 3 + 1; }
static NI int tn_static(int x)
{
  volatile int a[64];
  int i;
  for (i = 0; i < 64; i++) a[i] = x + i * 7;
  return a[x & 63] + a[(x >> 3) & 63];
}
__attribute__((visibility("hidden"))) NI int tn_hidden(int x)
{
  volatile int a[64];
  int i;
  for (i = 0; i < 64; i++) a[i] = x * i + 5;
  return a[x & 63] - a[(x >> 2) & 63];
}
int tn_entry(int x) { return tn_static(x) + tn_hidden(x) + tn_exported(x); }
C
$CC -O1 -fPIC -shared -fno-toplevel-reorder -Wl,--build-id \
  -o "$t/full.so" "$t/tn.c" || fail "cannot build the test library"
sym() { readelf -sW "$t/full.so" | awk -v n="$1" '$8 == n { print $2; exit }'; }
for f in tn_exported tn_static tn_hidden tn_entry; do
  [ -n "$(sym $f)" ] || fail "no $f in the test library's .symtab"
done
mkdir -p "$t/lib"
cp "$t/full.so" "$t/lib/libtn.so"
strip --strip-all "$t/lib/libtn.so"
readelf -SW "$t/lib/libtn.so" | grep -q ' \.symtab ' && fail "strip kept .symtab"
readelf -sW --dyn-syms "$t/lib/libtn.so" | grep -q ' tn_static$' &&
  fail "tn_static is in .dynsym"
bid=$(readelf -n "$t/full.so" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "no build id"
base=0x7f1234560000
addr() { printf '0x%x' $((base + 0x$(sym "$1") + $2)); }
a_exp=$(addr tn_exported 2); a_sta=$(addr tn_static 8)
a_hid=$(addr tn_hidden 8); a_ent=$(addr tn_entry 2)

# dump LIBPATH: a header loading LIBPATH at base.
dump() {
  printf '{"record":"header","format_version":1,"config":{},"modules":[{"path":"%s","base":"%s","build_id":"%s"}]}\n' \
    "$1" "$base" "$bid" | gzip -c > "$t/d.gz"
}
# names ARGS...: symbolize the four addresses: "ADDR NAME" lines.
names() {
  "$gcacc" symbolize --no-cache "$@" "$t/d.gz" "$a_exp" "$a_sta" "$a_hid" \
    "$a_ent" > "$t/out" 2> "$t/err" || { cat "$t/err" >&2; fail "symbolize: $?"; }
  awk '{ print $1, $3 }' "$t/out"
}
# holds ADDR NAME: the name is a guess ("?"), none, or a function of
# the unstripped library whose extent holds the address.
holds() {
  case $2 in *\?*|\?\?) return 0 ;; esac
  line=$(readelf -sW "$t/full.so" | awk -v n="$2" '$4 == "FUNC" && $8 == n { print; exit }')
  [ -n "$line" ] || return 1
  lo=$((0x$(echo "$line" | awk '{ print $2 }'))); sz=$(echo "$line" | awk '{ print $3 }')
  off=$(($1 - base))
  [ "$off" -ge "$lo" ] && [ "$off" -lt $((lo + sz)) ]
}
name_of() { awk -v a="$1" '$1 == a { print $2 }' "$t/names"; }

# Stripped: true names or marked guesses, and the warning.
dump "$t/lib/libtn.so"
names > "$t/names"
cat "$t/names"
while read -r a n; do
  holds "$a" "$n" || fail "stripped: $a shown as $n, outside that symbol"
done < "$t/names"
[ "$(name_of "$a_exp")" = tn_exported ] || fail "stripped: tn_exported not named"
[ "$(name_of "$a_ent")" = tn_entry ] || fail "stripped: tn_entry not named"
case $(name_of "$a_sta") in
  tn_exported+0x*\?|libtn.so+0x*) ;;
  *) fail "stripped: tn_static's address shown as $(name_of "$a_sta")" ;;
esac
grep -q "no full symbol table and no debug file" "$t/err" ||
  fail "stripped: no warning of the missing symbol table: $(cat "$t/err")"

# Unstripped: every function by its own name, no warning.
dump "$t/full.so"
names > "$t/names"
for f in exported static hidden entry; do
  eval "a=\$a_$(echo $f | cut -c1-3)"
  [ "$(name_of "$a")" = "tn_$f" ] ||
    fail "unstripped: tn_$f's address shown as $(name_of "$a")"
done
! grep -q "no full symbol table" "$t/err" || fail "unstripped: a warning"

# Stripped, with its debug file by build id.
objcopy --only-keep-debug "$t/full.so" "$t/libtn.so.debug"
mkdir -p "$t/dbg/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$t/libtn.so.debug" "$t/dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
dump "$t/lib/libtn.so"
names --debug-dir "$t/dbg" > "$t/names"
[ "$(name_of "$a_sta")" = tn_static ] ||
  fail "debug file by build id: tn_static's address shown as $(name_of "$a_sta")"
[ "$(name_of "$a_hid")" = tn_hidden ] ||
  fail "debug file by build id: tn_hidden's address shown as $(name_of "$a_hid")"

# Stripped, with a .gnu_debuglink to a debug file beside it.
objcopy --add-gnu-debuglink="$t/libtn.so.debug" "$t/lib/libtn.so" "$t/lib/libtn2.so"
mv "$t/lib/libtn2.so" "$t/lib/libtn.so"
cp "$t/libtn.so.debug" "$t/lib/libtn.so.debug"
names --debug-dir "$t/nodbg" > "$t/names"
[ "$(name_of "$a_sta")" = tn_static ] ||
  fail "debuglink: tn_static's address shown as $(name_of "$a_sta")"
! grep -q "no full symbol table" "$t/err" || fail "debuglink: a warning"
echo "$me: ok"
