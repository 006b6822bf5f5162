#!/bin/sh
# SPDX-License-Identifier: MIT
# report_why.sh: the report's Why view (issue 37) in real headless
# Chromium, against what tests/retain/retainload built (its stdout):
# the page rendered with #view=why (--dump-dom) shows the Why section
# and hides the others; one request block per retain record of the dump,
# in its order; T.Static's five paths, depths 1..5, each from the static
# list_head (named after its data symbol), each ending at the node the
# program built, every later step through word 1; T.Stack's one step
# from a stack; T.Deep's whole chains shown by their first and last
# steps around an elision row that counts the rest (10,000 steps in
# all), the last the chain's target; T.Weak with no path.  A dump
# without retain records says so.  Chromium missing is a failure
# (tools/setup-debian.sh installs it).  Files in tests/browser/report_why.out/.
# shellcheck disable=SC2015
set -u
: "${srcdir:=.}"
gcacc=./tools/gcacc/gcacc
load=./tests/retain/retainload
out=tests/browser/report_why.out

. "$srcdir/tests/browser/browser_lib.sh"
need_tools jq zcat
for p in "$gcacc" "$load"; do
  [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
browser_setup "$out"

GC_ACC_DUMP="$abs/r.gz" "$load" >"$abs/truth.txt" ||
  { echo "FAIL: retainload"; exit 1; }
val() { sed -n "s/^$1 //p" "$abs/truth.txt"; }
"$gcacc" report -o "$abs/r.html" "$abs/r.gz" ||
  { echo "FAIL: gcacc report exited $?"; exit 1; }
run_chromium --virtual-time-budget=5000 --dump-dom \
  "file://$abs/r.html#view=why" >"$abs/why.dom.html" || true
d=$abs/why.dom.html
grep -q 'data-ready-ms=' "$d" ||
  fail "the page's script did not finish (see $d)"

# Shown and hidden: the section elements' own hidden attribute.
sec() { grep -o "<section id=\"view-$1\"[^>]*>" "$d" | grep -c ' hidden'; }
check_eq "the Why view is shown" "$(sec why)" 0
for v in overview frames topn; do
  check_eq "the $v view is hidden" "$(sec "$v")" 1
done
check_eq "the Why tab is selected" \
  "$(attr "$d" '<button[^>]*id="tab-why"' aria-selected)" true

# One block per retain record, in the dump's order.
want=$(zcat "$abs/r.gz" | jq -r 'select(.record == "retain") |
  if .request.type then .request.type else "callsite \(.request.site)" end')
got=$(grep -o '<div class="why-req"[^>]*' "$d" |
      sed -n 's/.* data-request="\([^"]*\)".*/\1/p')
check_eq "one block per retain record" "$(echo "$got" | tr '\n' ' ')" \
  "$(echo "$want" | tr '\n' ' ')"

# A request's block: from its <div> to the next.
block() {
  tr '\n' ' ' <"$d" | sed 's/<div class="why-req"/\n&/g' |
    grep "^<div class=\"why-req\" data-request=\"$1\""
}
paths() {   # the path tables' attribute NAME, one a line
  grep -o '<table class="why-path"[^>]*' | sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p"
}
block T.Static >"$abs/static.html"
check_eq "static: depths" "$(paths data-depth <"$abs/static.html" |
  tr '\n' ' ')" "1 2 3 4 5 "
check_eq "static: every root is list_head" "$(paths data-root-symbol \
  <"$abs/static.html" | sort -u)" list_head
check_eq "static: every root at list_head's address" "$(paths \
  data-root-addr <"$abs/static.html" | sort -u)" "$(val static_root)"
check_eq "static: the caption names list_head" "$(grep -o \
  '<caption>[^<]*' "$abs/static.html" | grep -c '(list_head+0)')" 5
last=$(sed 's/<table class="why-path"/\n&/g' "$abs/static.html" |
  grep '^<table' | while read -r t; do
    echo "$t" | grep -o '<tr class="why-step"[^>]*' | tail -n 1 |
      sed -n 's/.* data-addr="\([^"]*\)".*/\1/p'
  done | tr '\n' ' ')
check_eq "static: each path ends at the node built" "$last" \
  "$(val static_obj | awk '{ printf "%s ", $2 }')"
check_eq "static: every later step through word 1" "$(grep -o \
  '<tr class="why-step" data-step="[2-9]"[^>]*' "$abs/static.html" |
  sed -n 's/.* data-ref-word="\([^"]*\)".*/\1/p' | sort -u)" 1

block T.Stack >"$abs/stack.html"
check_eq "stack: one path of one step from a stack, the object" \
  "$(paths data-root-kind <"$abs/stack.html") $(grep -o \
  '<tr class="why-step"[^>]*' "$abs/stack.html" | wc -l) $(grep -o \
  '<tr class="why-step"[^>]*' "$abs/stack.html" |
  sed -n 's/.* data-addr="\([^"]*\)".*/\1/p')" "stack 1 $(val stack_obj)"

# Deep chains: the whole ones (from chain_heads) show 12 steps and an
# elision of the rest, their last step the chain's target.
block T.Deep >"$abs/deep.html"
n=$(val deep_n)
whole=0
sed 's/<table class="why-path"/\n&/g' "$abs/deep.html" | grep '^<table' \
  >"$abs/deep.tables"
while read -r t; do
  depth=$(echo "$t" | paths data-depth)
  [ "$depth" = "$n" ] || continue
  steps=$(echo "$t" | grep -o '<tr class="why-step"' | wc -l)
  el=$(echo "$t" | grep -o '<tr class="why-elided"[^>]*' |
       sed -n 's/.* data-steps="\([^"]*\)".*/\1/p')
  lastd=$(echo "$t" | grep -o '<tr class="why-step"[^>]*' | tail -n 1 |
          sed -n 's/.* data-step="\([^"]*\)".*/\1/p')
  tgt=$(echo "$t" | grep -o '<tr class="why-step"[^>]*' | tail -n 1 |
        sed -n 's/.* data-addr="\([^"]*\)".*/\1/p')
  if [ "$steps" = 12 ] && [ "$el" = $((n - 12)) ] && [ "$lastd" = "$n" ] &&
     val deep | awk '{ print $3 }' | grep -qx "$tgt"; then
    whole=$((whole + 1))
  fi
done <"$abs/deep.tables"
[ "$whole" -ge 3 ] && ok "deep: $whole whole chains of $n steps, elided" ||
  fail "deep: $whole whole chains of $n steps shown as first, elision, last"

block T.Weak >"$abs/weak.html"
check_eq "weak: found 0, no path" "$(grep -o 'data-found="[0-9]*"' \
  "$abs/weak.html") $(grep -c '<table class="why-path"' "$abs/weak.html")" \
  'data-found="0" 0'

# The same dump less its retain records: the view says there are none.
zcat "$abs/r.gz" | grep -v '"record":"retain"' | gzip >"$abs/none.gz"
"$gcacc" report -o "$abs/none.html" "$abs/none.gz" ||
  fail "gcacc report of a dump without retain records exited $?"
check_eq "no retain records: the view says so" \
  "$(grep -c 'id="why-none"' "$abs/none.html") $(grep -c \
  '<div class="why-req"' "$abs/none.html")" "1 0"

echo "report_why.sh: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
