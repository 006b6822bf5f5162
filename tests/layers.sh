#!/bin/sh
# SPDX-License-Identifier: MIT
# layers.sh: accounting/ calls only downward, in the order docs/design.md
# writes down ("Layers").
#
# Compiles each accounting source on its own (as the per-file build does)
# and reads, with nm, which gca_* and GC_acc_* symbols each object defines
# and which it uses.  Every symbol a module uses from another module must
# be defined by a module below it in the list; a module missing from the
# list, a listed module that does not exist, a list that accounting.am or
# gca_amalgam.c orders differently, or an accounting source over 800 lines
# fails too.  Upward calls, where unavoidable, go through a function
# pointer the upper module hands down (nm does not see them): design.md
# names each one.
set -eu
: "${srcdir:=.}"
: "${CC:=cc}"
up_src="$srcdir/bdwgc/upstream"
up_build=bdwgc/upstream
doc="$srcdir/docs/design.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The written order: "N. `name.c`" lines of the Layers section, bottom first.
sed -n '/^## Layers/,/^## /p' "$doc" |
  sed -n 's/^[0-9][0-9]*\. `\([a-z_]*\)\.c`.*/\1/p' > "$tmp/order"
[ -s "$tmp/order" ] || { echo "FAIL: no layer list in $doc" >&2; exit 1; }
awk '{print $1, NR}' "$tmp/order" > "$tmp/rank"

for f in "$srcdir"/accounting/*.c; do
  m=$(basename "$f" .c)
  [ "$m" = gca_amalgam ] && continue
  grep -qx "$m" "$tmp/order" || fail "accounting/$m.c is not in the layer list of docs/design.md"
  n=$(wc -l < "$f")
  [ "$n" -le 800 ] || fail "accounting/$m.c has $n lines (at most 800)"
  if ! $CC -c -O1 -DHAVE_CONFIG_H -I "$up_build/include" -I "$up_src/include" \
       -o "$tmp/$m.o" "$f" 2> "$tmp/err"; then
    fail "accounting/$m.c does not compile on its own"; sed 's/^/  | /' "$tmp/err" >&2
    continue
  fi
  nm --defined-only "$tmp/$m.o" | awk -v m="$m" \
    '$2 ~ /^[TDBRCV]$/ && $3 ~ /^(gca_|GC_acc_)/ {print $3, m}' >> "$tmp/defs"
  nm -u "$tmp/$m.o" | awk -v m="$m" \
    '$2 ~ /^(gca_|GC_acc_)/ {print m, $2}' >> "$tmp/uses"
done
while read -r m; do
  [ -f "$srcdir/accounting/$m.c" ] || fail "docs/design.md lists $m.c, which does not exist"
done < "$tmp/order"

# Each use: user, symbol, definer; upward when the definer's rank is not
# below the user's.
awk 'FILENAME == ARGV[1] {rank[$1] = $2; next}
     FILENAME == ARGV[2] {def[$1] = $2; next}
     { d = def[$2]; if (d == "" || d == $1) next;
       if (rank[d] >= rank[$1])
         printf "accounting/%s.c uses %s of accounting/%s.c, which is not below it\n", $1, $2, d }' \
  "$tmp/rank" "$tmp/defs" "$tmp/uses" > "$tmp/upward"
if [ -s "$tmp/upward" ]; then
  sed 's/^/FAIL: /' "$tmp/upward" >&2
  fails=$((fails + $(wc -l < "$tmp/upward")))
fi

# The build lists keep the same order.
tr -s ' \\\n' '\n' < "$srcdir/accounting/accounting.am" |
  sed -n 's|^accounting/\([a-z_]*\)\.c$|\1|p' | grep -vx gca_amalgam > "$tmp/am"
cmp -s "$tmp/order" "$tmp/am" || fail "accounting.am's gcacc_sources is not in the order of docs/design.md"
sed -n 's/^#include "\([a-z_]*\)\.c"$/\1/p' "$srcdir/accounting/gca_amalgam.c" > "$tmp/amalgam"
cmp -s "$tmp/order" "$tmp/amalgam" || fail "gca_amalgam.c does not include the sources in the order of docs/design.md"

n_edges=$(awk 'FILENAME == ARGV[1] {def[$1] = $2; next}
               { d = def[$2]; if (d != "" && d != $1) print $1, d }' \
          "$tmp/defs" "$tmp/uses" | sort -u | wc -l)
[ "$fails" -eq 0 ] && echo "layers: $(wc -l < "$tmp/order") accounting modules, $n_edges module-to-module uses, all downward"
exit "$fails"
