#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_symbolize.sh: `gcacc symbolize` throughput.
#
#   bench_symbolize.sh GCACC WORKDIR
#
# Generates a C file with GCACC_BENCH_FUNCS functions (default 20,000),
# compiles it with -g as a PIE, picks GCACC_BENCH_ADDRS distinct addresses
# (default 400,000) spread over the functions' code, writes a dump header
# whose module map loads the program at a PIE base, and times symbolize:
# cold (--no-cache, one addr2line) and warm (from DUMP.symbols).
# Target: 400,000 distinct addresses in under 30 s.
set -eu
gcacc=$1 work=$2
funcs=${GCACC_BENCH_FUNCS:-20000}
naddr=${GCACC_BENCH_ADDRS:-400000}
: "${CC:=cc}"
mkdir -p "$work"
src=$work/symfuncs.c bin=$work/symfuncs
# The base's low 32 bits are 0: awk (mawk) prints only 32-bit hex.
base=0x555500000000

awk -v n="$funcs" 'BEGIN {
  print "volatile long sink;"
  for (i = 0; i < n; i++) {
    printf "long f%05d(long x)\n{\n  long y = x * %d + 1;\n", i, i + 3
    printf "  if (y & 1) y ^= x << 3;\n  else y += x >> 2;\n"
    printf "  sink = y;\n  return y - %d;\n}\n", i
  }
  print "int main(void) { return (int)f00000(1); }"
}' > "$src"
t0=$(date +%s.%N)
$CC -g -O0 -fPIE -pie -o "$bin" "$src"
t1=$(date +%s.%N)
echo "bench-symbolize: $funcs functions compiled with -g in" \
     "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

# Distinct addresses inside the functions: an even stride over all their
# bytes, so every function gets some.
nm -S --defined-only "$bin" | awk -v want="$naddr" -v hi="${base%00000000}" '
  function hex(s,   i, c, v) { v = 0; s = tolower(s)
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
    return v }
  BEGIN { n = 0 }
  $4 ~ /^f[0-9]+$/ { st[n] = hex($1); sz[n] = hex($2); total += sz[n]; n++ }
  END {
    stride = total / want; if (stride < 1) stride = 1
    pos = 0; k = 0
    for (i = 0; i < n && k < want; i++)
      for (o = 0; o < sz[i] && k < want; o += stride) {
        printf "%s%08x\n", hi, st[i] + int(o); k++
      }
    if (k < want) printf "bench-symbolize: only %d addresses in %d bytes of code\n", k, total > "/dev/stderr"
  }' > "$work/addrs"
got=$(sort -u "$work/addrs" | wc -l)
printf '{"record":"header","format_version":1,"config":{},"modules":[{"path":"%s","base":"%s","build_id":""}]}\n' \
  "$bin" "$base" | gzip -c > "$work/sym-dump.gz"
rm -f "$work/sym-dump.gz.symbols"

for pass in cold warm; do
  t0=$(date +%s.%N)
  "$gcacc" symbolize "$work/sym-dump.gz" --addresses-from "$work/addrs" \
    > "$work/sym-$pass.out"
  t1=$(date +%s.%N)
  lines=$(wc -l < "$work/sym-$pass.out")
  unres=$(grep -c ' ?? ' "$work/sym-$pass.out" || true)
  awk -v p="$pass" -v a="$t0" -v b="$t1" -v n="$got" -v l="$lines" -v u="$unres" 'BEGIN {
    s = b - a
    printf "bench-symbolize: %s: %d distinct addresses in %.2f s (%.0f addresses/s); %d lines, %d unresolved%s\n",
      p, n, s, n / s, l, u, (p == "cold" ? (s < 30 ? "; target < 30 s: met" : "; target < 30 s: MISSED") : " (from the cache)") }'
done
cmp -s "$work/sym-cold.out" "$work/sym-warm.out" ||
  echo "bench-symbolize: warning: cached answers differ from cold ones" >&2
