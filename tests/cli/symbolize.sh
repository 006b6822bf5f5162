#!/bin/sh
# SPDX-License-Identifier: MIT
# symbolize.sh: `gcacc symbolize` resolves addresses offline through the
# dump header's module map.  Builds a tiny -g program, takes two function
# addresses from nm, writes a minimal dump whose module map loads the
# program at a PIE-like base, and checks function names and file:line,
# --addresses-from -, deduplication, the cache, --search-path, and an
# address in no module.
set -eu
: "${srcdir:=.}" "${CC:=cc}"
gcacc=${GCACC:-./tools/gcacc/gcacc}
me=symbolize.sh
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
command -v addr2line >/dev/null 2>&1 ||
  { echo "$me: SKIP: no addr2line (binutils)"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "$me: SKIP: no nm"; exit 77; }

t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-sym.XXXXXX")
trap 'rm -rf "$t"' EXIT INT TERM

cat > "$t/tiny.c" <<'C'
#include <stdio.h>
int alpha_fn(int x)
{
  return x * 3 + 1;
}
int beta_fn(int x)
{
  return alpha_fn(x) - 7;
}
int main(void) { printf("%d\n", beta_fn(2)); return 0; }
C
$CC -g -O0 -fPIE -pie -Wl,--build-id -o "$t/tiny" "$t/tiny.c" ||
  fail "cannot build the test program"
a=$(nm "$t/tiny" | awk '$3 == "alpha_fn" { print $1 }')
b=$(nm "$t/tiny" | awk '$3 == "beta_fn" { print $1 }')
[ -n "$a" ] && [ -n "$b" ] || fail "nm found no alpha_fn/beta_fn"
bid=$(readelf -n "$t/tiny" 2>/dev/null | awk '/Build ID/ { print $3 }')
base=0x555555554000
abs_a=$(printf '0x%x' $((base + 0x$a)))
abs_b=$(printf '0x%x' $((base + 0x$b + 4)))   # inside beta_fn, not its entry

printf '{"record":"header","format_version":1,"config":{},"modules":[{"path":"%s","base":"%s","build_id":"%s"},{"path":"/nonexistent/libother.so","base":"0x7f0000000000","build_id":""}]}\n' \
  "$t/tiny" "$base" "$bid" > "$t/d.jsonl"
gzip -c "$t/d.jsonl" > "$t/d.gz"

# Addresses as arguments (one repeated: printed once).
"$gcacc" symbolize "$t/d.gz" "$abs_a" "$abs_b" "$abs_a" > "$t/out" \
  2> "$t/err" || { cat "$t/err" >&2; fail "symbolize exited $?"; }
cat "$t/out"
[ "$(wc -l < "$t/out")" -eq 2 ] || fail "expected 2 lines (deduplicated)"
grep -q "^$abs_a tiny+0x$(printf %x 0x$a) alpha_fn .*tiny\.c:[23]\$" "$t/out" ||
  fail "alpha_fn not resolved to tiny.c:2-3"
grep -q "^$abs_b tiny+0x[0-9a-f]* beta_fn .*tiny\.c:[78]\$" "$t/out" ||
  fail "beta_fn not resolved to tiny.c:7-8"
[ -s "$t/d.gz.symbols" ] || fail "no cache written next to the dump"

# The same from stdin, answered from the cache even with the binary gone.
mv "$t/tiny" "$t/tiny.moved"
printf '%s\n# a comment\n%s\n' "$abs_b" "$abs_a" |
  GCACC_SYMBOLIZE_STATS=1 "$gcacc" symbolize "$t/d.gz" --addresses-from - \
  > "$t/out2" 2> "$t/err2" || { cat "$t/err2" >&2; fail "stdin run failed"; }
grep -q "2 from the cache" "$t/err2" || { cat "$t/err2" >&2; fail "cache unused"; }
head -1 "$t/out2" | grep -q "beta_fn" || fail "stdin order not kept"

# No cache: the binary is found through --search-path (by basename).
mkdir "$t/syms" && mv "$t/tiny.moved" "$t/syms/tiny"
"$gcacc" symbolize --no-cache --search-path "$t/syms" "$t/d.gz" "$abs_a" \
  > "$t/out3" 2> "$t/err3" || { cat "$t/err3" >&2; fail "search path"; }
grep -q " alpha_fn .*tiny\.c:[23]\$" "$t/out3" || fail "--search-path not used"

# An address below every module, and one in a module with no file.
"$gcacc" symbolize --no-cache "$t/d.gz" 0x10 0x7f0000001234 > "$t/out4" \
  2> "$t/err4" || true
grep -q "^0x10 ? ?? ??:0\$" "$t/out4" || fail "unmapped address"
grep -q "^0x7f0000001234 libother.so+0x1234 ?? ??:0\$" "$t/out4" ||
  fail "address in a module without a file"
grep -q "no binary or debug file for /nonexistent/libother.so" "$t/err4" ||
  fail "no warning for the missing module file"
echo "$me: ok"
