#!/bin/sh
# SPDX-License-Identifier: MIT
# fields_agree.sh: the dump's field list is the same everywhere.  For
# every positional table, the columns, in order, of
#   fields  accounting/gca_fields.h (printed by a tiny program built here
#           from its X-macros: what the collector and the reader compile)
#   header  the "columns" of a real dump's header (tests/cli/workload)
#   docs    docs/dump-format.md's row description of the table: the line
#           of a key table starting "| `KEY` |" ("rows" for frame.rows,
#           "kind_rows" for frame.kind_rows)
#           with its first `[col, col, ...]` (`[[...], ...]` for the
#           definitions; "frames..." is the rest of the row)
# must be identical, and the three must name the same tables.  Then
# `gcacc export --csv TABLE` heads its columns with the same names (the
# reader's own copy of the list), and every row of the dump has as many
# elements as its header names (sites: at least the id), which is what
# ties the names to what the collector writes.
set -u
srcdir=${srcdir:-.}
CC=${CC:-cc}
WORKLOAD=./tests/cli/workload
GCACC=${GCACC_BIN:-./tools/gcacc/gcacc}
DOC=$srcdir/docs/dump-format.md
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq not installed"; exit 77; }
for p in "$WORKLOAD" "$GCACC"; do
  [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-fields.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n_checks=0
n_failed=0
fail() { n_failed=$((n_failed + 1)); echo "FAIL: $*"; }

# fields: "key col col ..." per table, in gca_fields.h's order.
cat >"$tmp/fields.c" <<'EOF'
#include <stdio.h>
#include "gca_fields.h"
#define COL(t, c) printf(" %s", #c);
#define TABLE(id, key, cols) printf("%s", key); cols(COL) printf("\n");
int main(void)
{
  GCA_DUMP_TABLES(TABLE)
  return 0;
}
EOF
$CC -I"$srcdir/accounting" -o "$tmp/fields" "$tmp/fields.c" ||
  { echo "FAIL: cannot build the gca_fields.h printer"; exit 1; }
"$tmp/fields" >"$tmp/fields.txt"
[ -s "$tmp/fields.txt" ] || { echo "FAIL: gca_fields.h lists no table"; exit 1; }

# header: the same from a real dump (typed: every table has rows).
GC_ACC_DUMP="$tmp/d.gz" "$WORKLOAD" typed >/dev/null ||
  { echo "FAIL: workload typed"; exit 1; }
zcat "$tmp/d.gz" | head -1 |
  jq -r '.columns // {} | to_entries[] | "\(.key) \(.value | join(" "))"' \
  >"$tmp/header.txt" || { echo "FAIL: the dump's header"; exit 1; }

# docs: a table's row description, as "key col col ...".
doc_cols() {
  case $1 in frame.*) dk=${1#frame.} ;; *) dk=$1 ;; esac
  grep -F "| \`$dk\` |" "$DOC" | grep -F '`[' >"$tmp/doclines"
  n=$(wc -l <"$tmp/doclines")
  if [ "$n" -ne 1 ]; then
    echo "$1 <$n row descriptions starting '| \`$dk\` |' in $DOC>"
    return
  fi
  awk -v key="$1" -F'`' '{
    for (i = 2; i <= NF; i += 2) if (substr($i, 1, 1) == "[") break
    s = $i
    sub(/^\[\[/, "", s); sub(/^\[/, "", s)
    sub(/\], \.\.\.\]$/, "", s); sub(/\]$/, "", s)
    n = split(s, c, ",")
    out = key
    for (j = 1; j <= n; j++) {
      gsub(/^ +| +$/, "", c[j]); sub(/\.\.\.$/, "", c[j])
      out = out " " c[j]
    }
    print out
  }' "$tmp/doclines"
}
: >"$tmp/docs.txt"
# Every table any of the three names.
cut -d' ' -f1 "$tmp/fields.txt" "$tmp/header.txt" | sort -u >"$tmp/keys"
while read -r k; do doc_cols "$k" >>"$tmp/docs.txt"; done <"$tmp/keys"

# Table by table.
cols_of() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; f = 1 }
                           END { if (!f) print "<no such table>" }' "$2"; }
while read -r k; do
  f=$(cols_of "$k" "$tmp/fields.txt")
  h=$(cols_of "$k" "$tmp/header.txt")
  d=$(cols_of "$k" "$tmp/docs.txt")
  n_checks=$((n_checks + 2))
  [ "$h" = "$f" ] ||
    fail "$k: the dump's header has [$h], accounting/gca_fields.h [$f]"
  [ "$d" = "$f" ] ||
    fail "$k: docs/dump-format.md has [$d], accounting/gca_fields.h [$f]"
done <"$tmp/keys"
n_checks=$((n_checks + 1))
[ "$(wc -l <"$tmp/keys")" -ge 10 ] ||
  fail "only $(wc -l <"$tmp/keys") tables: $(tr '\n' ' ' <"$tmp/keys")"

# The reader's list: export --csv's header line.
for t in classes grows freelists; do
  case $t in freelists) k=freelists.lists ;; *) k=$t ;; esac
  n_checks=$((n_checks + 1))
  got=$("$GCACC" export --csv "$t" "$tmp/d.gz" | head -1)
  want="gc_no,seq,$(cols_of "$k" "$tmp/fields.txt" | tr ' ' ',')"
  [ "$got" = "$want" ] || fail "gcacc export --csv $t: '$got', not '$want'"
done

# The rows: as long as the header says.
zcat "$tmp/d.gz" | jq -r -n '
  input.columns as $c
  | inputs | . as $r | $c | to_entries[] | .key as $k
  | (.value | length) as $n | ($k | split(".")) as $p
  | (if $p[0] == "frame" then (if $r.record == "frame" then $r[$p[1]]
                                else null end)
     elif $r.record == "frame" and $k != "types" and $k != "sites" then null
     else $r | getpath($p) end) as $rows
  | select($rows | type == "array") | $rows[]
  | if (if $k == "sites" then length >= $n - 1 else length == $n end)
    then "ok \($k)" else "bad \($k) \(length) \($n)" end' \
  >"$tmp/rows.txt" || { echo "FAIL: the dump's rows"; exit 1; }
n_checks=$((n_checks + 2))
[ "$(grep -c '^ok' "$tmp/rows.txt")" -gt 0 ] || fail "the dump has no rows"
bad=$(grep '^bad' "$tmp/rows.txt" | sort | uniq -c)
[ -z "$bad" ] || fail "rows of another length than the header names" \
  "(count, table, length, names): $bad"

echo "fields_agree.sh: $n_checks checks, $n_failed failed"
[ "$n_failed" -eq 0 ]
