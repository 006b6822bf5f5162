#!/bin/sh
# SPDX-License-Identifier: MIT
# settings_agree.sh: the GC_ACC_* settings, named in one list
# (accounting/gca_settings.h), and everything else that names them agree:
#   - docs/environment.md has one "## NAME" section per setting of the
#     list, and no other, each starting "NAME=", and the functions named
#     after its "API:" are the list's functions of that setting;
#   - include/gc_accounting.h declares each of those functions (GC_API);
#   - the README's table of variables ("| variable | meaning |") names
#     the settings of the list;
#   - every setting has a function (builds without getenv reach it) and
#     a key in the dump header's config; names and keys are unique;
#   - env.c names no setting in a string of its own (it walks the list).
# The list is printed by a small C program that includes gca_settings.h
# alone.
set -u
LC_ALL=C
export LC_ALL
: "${srcdir:=.}"
: "${CC:=cc}"
list_h="$srcdir/accounting/gca_settings.h"
doc="$srcdir/docs/environment.md"
hdr="$srcdir/include/gc_accounting.h"
readme="$srcdir/README.md"
env_c="$srcdir/accounting/env.c"
t=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-settings.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# ---- the list: "setting NAME TYPE", "key NAME key JSON", "api NAME fn" ----
cat > "$t/print.c" <<'EOF'
#include <stdio.h>
#include "gca_settings.h"
#define P_S(name, type, set) printf("setting %s %s\n", #name, #type);
#define P_K(name, key, json, expr) \
  printf("key %s %s %s\n", #name, #key, #json);
#define P_A(name, fn) printf("api %s %s\n", #name, #fn);
int main(void)
{
  GCA_SETTINGS(P_S, P_K, P_A)
  return 0;
}
EOF
if ! $CC -I "$srcdir/accounting" -o "$t/print" "$t/print.c" 2> "$t/cc.err"
then
  echo "FAIL: cannot compile a program printing $list_h:" >&2
  sed 's/^/  | /' "$t/cc.err" >&2
  exit 1
fi
"$t/print" > "$t/list" || { echo "FAIL: the list printer failed" >&2; exit 1; }
awk '$1 == "setting" { print $2 }' "$t/list" > "$t/names"
[ -s "$t/names" ] || { echo "FAIL: $list_h lists no setting" >&2; exit 1; }
sort "$t/names" > "$t/names.sorted"

# The list itself.
for d in $(sort "$t/names" | uniq -d); do fail "$d is listed twice"; done
for d in $(awk '$1 == "key" { print $3 }' "$t/list" | sort | uniq -d); do
  fail "header key \"$d\" is listed twice"
done
grep -v '^GC_ACC_[A-Z0-9_]*$' "$t/names" > "$t/misnamed" || :
while read -r n; do fail "setting $n is not named GC_ACC_*"; done < "$t/misnamed"
awk '$1 != "setting" && !($2 in s) { print $1 " row of " $2 }
     $1 == "setting" { s[$2] = 1 }' "$t/list" > "$t/orphans"
while read -r row; do
  fail "$list_h: a $row, which is not a setting listed before it"
done < "$t/orphans"
while read -r n; do
  grep -q "^api $n " "$t/list" ||
    fail "$n has no API function in $list_h (builds without getenv could not set it)"
  grep -q "^key $n " "$t/list" ||
    fail "$n has no key in the dump header's config in $list_h"
done < "$t/names"

# ---- docs/environment.md ----------------------------------------------------
sed -n 's/^## \(GC_ACC_[A-Za-z0-9_]*\)[[:space:]]*$/\1/p' "$doc" | sort > "$t/doc"
grep '^## ' "$doc" | grep -v '^## GC_ACC_[A-Za-z0-9_]*[[:space:]]*$' \
  > "$t/other" || :
while read -r l; do
  fail "$doc: a section that is not one setting: $l"
done < "$t/other"
for n in $(comm -23 "$t/names.sorted" "$t/doc"); do
  fail "$n is in $list_h but has no '## $n' section in $doc"
done
for n in $(comm -13 "$t/names.sorted" "$t/doc"); do
  fail "$doc documents $n, which $list_h does not list"
done
for d in $(uniq -d "$t/doc"); do fail "$doc has two '## $d' sections"; done
# Each section: its text (up to the next "## "), flattened.
for n in $(comm -12 "$t/names.sorted" "$t/doc"); do
  awk -v h="## $n" '
    $0 ~ /^## / { on = ($0 == h || $0 ~ "^" h "[ \t]*$"); next }
    on { printf "%s ", $0 }' "$doc" > "$t/sec"
  case $(sed 's/^[[:space:]]*//' "$t/sec") in
    "$n="*) ;;
    *) fail "$doc: section $n does not start with '$n='" ;;
  esac
  if ! grep -q 'API:' "$t/sec"; then
    fail "$doc: section $n names no API (no 'API:')"
    continue
  fi
  sed 's/^.*API://' "$t/sec" | grep -o 'GC_acc_[A-Za-z0-9_]*' | sort -u \
    > "$t/doc_api"
  awk -v n="$n" '$1 == "api" && $2 == n { print $3 }' "$t/list" | sort -u \
    > "$t/list_api"
  for f in $(comm -23 "$t/list_api" "$t/doc_api"); do
    fail "$list_h gives $n the API $f, which $doc's 'API:' does not name"
  done
  for f in $(comm -13 "$t/list_api" "$t/doc_api"); do
    fail "$doc's 'API:' for $n names $f, which $list_h does not give it"
  done
done

# ---- include/gc_accounting.h: the declarations, without comments ---------
# One declaration a line (split at ';'), from its GC_API on; the name is
# the GC_acc_* followed by '(' (GC_acc_malloc_typed's attributes have
# parentheses too, its parameters' types no '(').
tr '\n' ' ' < "$hdr" | sed 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/: :g' |
  tr ';' '\n' | sed -n 's/^.*GC_API[[:space:]]/GC_API /p' |
  grep -o 'GC_acc_[A-Za-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' |
  sort -u > "$t/declared"
[ -s "$t/declared" ] || fail "found no GC_API declaration in $hdr"
for f in $(awk '$1 == "api" { print $3 }' "$t/list" | sort -u |
           comm -23 - "$t/declared"); do
  fail "$list_h names $f, which $hdr does not declare"
done

# ---- README.md's table of run-time variables ---------------------------
awk '/^\| variable \| meaning \|/ { on = 1; next }
     on && !/^\|/ { exit }
     on { print }' "$readme" |
  sed -n 's/^| `\(GC_ACC_[A-Za-z0-9_]*\).*/\1/p' | sort > "$t/readme"
[ -s "$t/readme" ] || fail "$readme has no table '| variable | meaning |'"
for n in $(comm -23 "$t/names.sorted" "$t/readme"); do
  fail "$n is in $list_h but not in $readme's table of variables"
done
for n in $(comm -13 "$t/names.sorted" "$t/readme"); do
  fail "$readme's table of variables names $n, which $list_h does not list"
done

# ---- env.c reads the names from the list, not from a list of its own ----
if grep -n '"GC_ACC_' "$env_c" > "$t/own"; then
  fail "$env_c names settings itself (it should walk the list):"
  sed 's/^/  | /' "$t/own" >&2
fi

[ "$fails" -eq 0 ] &&
  echo "settings agree: $(wc -l < "$t/names") settings in the list, docs/environment.md, README.md and gc_accounting.h"
exit "$fails"
