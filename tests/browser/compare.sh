#!/bin/sh
# SPDX-License-Identifier: MIT
# compare.sh: the Compare view (`gcacc diff --html`, issue 23) renders in
# real headless Chromium and shows what `gcacc diff --json` computes, for
# two dumps of two processes: tests/cli/sameload a and b (b keeps 1500
# more objects of one class from one more call path; the classes are
# named only by their addresses, which move between the runs).  Checked
# in the DOM Chromium builds: the headline rows hold both sessions'
# `gcacc summary --json` figures; the type, callsite, kind and size-class
# tables have diff's rows, in diff's order, each key once, b's class and
# call path first with diff's change; no raw address in a key.  Then a
# copy of b whose header says "profile": "sampled" (issue 22) and names
# a hostile executable: the estimate note, "~" on type and callsite
# figures only, the name escaped.  No network: no http(s) URL, no script
# or external element.  A screenshot of each page must not be blank (far
# larger than a blank page's).  Chromium missing is a failure (run
# tools/setup-debian.sh).  Leaves its files in tests/browser/compare.out/.
set -u
: "${srcdir:=.}"
gcacc=${GCACC_BIN:-./tools/gcacc/gcacc}
load=./tests/cli/sameload
out=tests/browser/compare.out
fails=0 checks=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() {       # check WHAT COMMAND...: one check
  checks=$((checks + 1))
  what=$1; shift
  "$@" || fail "$what"
}

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
[ -n "$chromium" ] || { echo "FAIL: Chromium not found; install it with" \
  "tools/setup-debian.sh (as root), or set CHROMIUM"; exit 1; }
for t in jq zcat gzip addr2line; do
  command -v "$t" >/dev/null 2>&1 ||
    { echo "FAIL: '$t' not found; run tools/setup-debian.sh"; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
abs=$(cd "$out" && pwd)
udd=$(mktemp -d "${TMPDIR:-/tmp}/gcacc-compare-chromium.XXXXXX")
trap 'rm -rf "$udd"' EXIT INT TERM

browse() {      # browse ARGS... URL: headless Chromium, bounded
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
    --no-first-run --disable-background-networking --disable-sync \
    --disable-component-update --user-data-dir="$udd" \
    --window-size=1280,1800 "$@" 2>>"$abs/chromium.log"
}

# --- two processes, one workload -----------------------------------------
for m in a b; do
  GC_ACC_PROFILE=full GC_ACC_DUMP="$abs/$m.gz" "$load" $m > "$abs/$m.out" ||
    { echo "FAIL: sameload $m failed"; exit 1; }
  "$gcacc" symbolize "$abs/$m.gz" > /dev/null 2>&1
done
# b, sampled (a hand-edited header and the records' "samples", as the
# collector writes them) and
# with an executable whose name is markup.
evil='/x/<b>bold</b>&amp;"q'"'"
zcat "$abs/b.gz" | jq -c --arg e "$evil" 'if .record == "header"
  then .config.profile = "sampled" | .config.sample_bytes = 524288
       | .executable = $e
  elif .record == "collection" or .record == "snapshot"
  then .samples = {taken: 0, dropped: 0, tracked: 0} else . end' |
  gzip > "$abs/bs.gz"
cp "$abs/b.gz.symbols" "$abs/bs.gz.symbols"

"$gcacc" diff --json --top 0 "$abs/a.gz" "$abs/b.gz" > "$abs/d.json" ||
  { echo "FAIL: gcacc diff --json exited $?"; exit 1; }
"$gcacc" diff --html --top 0 -o "$abs/ab.html" "$abs/a.gz" "$abs/b.gz" ||
  { echo "FAIL: gcacc diff --html exited $?"; exit 1; }
"$gcacc" diff --html --top 0 -o "$abs/abs.html" "$abs/a.gz" "$abs/bs.gz" ||
  { echo "FAIL: gcacc diff --html (sampled) exited $?"; exit 1; }
st=0; "$gcacc" diff --html --json "$abs/a.gz" "$abs/b.gz" > /dev/null \
  2>&1 || st=$?
check "--html with --json: exit 2" test "$st" -eq 2
check "--help names --html" sh -c "'$gcacc' diff --help | grep -q -- --html"

# --- rendering --------------------------------------------------------------
printf '<!DOCTYPE html><html><body></body></html>\n' > "$abs/blank.html"
browse --screenshot="$abs/blank.png" "file://$abs/blank.html" >/dev/null
blank=$(wc -c < "$abs/blank.png" 2>/dev/null || echo 0)
for p in ab abs; do
  browse --screenshot="$abs/$p.png" "file://$abs/$p.html" >/dev/null
  size=$(wc -c < "$abs/$p.png" 2>/dev/null || echo 0)
  check "$p.png is no blank page ($size bytes; blank: $blank)" \
    test "$size" -gt $((blank * 10)) -a "$size" -gt 20000
  browse --dump-dom "file://$abs/$p.html" > "$abs/$p.dom.html"
  check "$p: Chromium built the page" grep -q '</html>' "$abs/$p.dom.html"
  check "$p.html references no http(s) URL" \
    sh -c "! grep -Eiq 'https?://' '$abs/$p.html'"
  check "$p.html has no script or external element" \
    sh -c "! grep -Eiq '<(script|link|img|iframe)[ >]' '$abs/$p.html'"
done

# attrs FILE TABLE ATTR: ATTR of every row of table TABLE, in order.
attrs() {
  sed -n "/<table class=\"cmp\" id=\"$2\"/,/<\/table>/p" "$1" |
    grep -o '<tr class="cmp-row"[^>]*' |
    sed -n "s/.* $3=\"\\([^\"]*\\)\".*/\\1/p"
}
unhtml() { sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g;
  s/&amp;/\&/g'; }
dom=$abs/ab.dom.html

# Headline: both sessions' summary figures.
for m in a b; do
  "$gcacc" summary --json "$abs/$m.gz" > "$abs/$m.sum.json"
done
for f in collections:collections live-peak:live_peak_bytes \
         alloc-granted:allocated_granted_bytes grows:heap_growths; do
  id=${f%%:*} key=${f#*:}
  row=$(grep -o "<tr id=\"h-$id\"[^>]*" "$dom")
  va=$(echo "$row" | sed -n 's/.* data-a="\([0-9]*\)".*/\1/p')
  vb=$(echo "$row" | sed -n 's/.* data-b="\([0-9]*\)".*/\1/p')
  wa=$(jq ".summary[0].$key" "$abs/a.sum.json")
  wb=$(jq ".summary[0].$key" "$abs/b.sum.json")
  check "headline $id: A $va B $vb (summary: $wa $wb)" \
    test "$va $vb" = "$wa $wb"
done

# Each table: diff's rows, in diff's order, each key once.
for t in types:.types[].type sites:.sites[].stack kinds:.kinds[].label \
         classes:.classes[].label; do
  id=${t%%:*} q=${t#*:}
  attrs "$dom" "cmp-$id" data-key | unhtml > "$abs/$id.keys"
  jq -r "$q" "$abs/d.json" > "$abs/$id.want"
  n=$(wc -l < "$abs/$id.want")
  check "cmp-$id: the $n rows of gcacc diff, in its order" \
    cmp -s "$abs/$id.keys" "$abs/$id.want"
  check "cmp-$id: each key once" \
    test "$(sort "$abs/$id.keys" | uniq -d | wc -l)" -eq 0
  attrs "$dom" "cmp-$id" data-live-delta > "$abs/$id.dl"
  jq -r ".$id[].live_change_bytes" "$abs/d.json" > "$abs/$id.dlw"
  check "cmp-$id: live changes as diff's" cmp -s "$abs/$id.dl" "$abs/$id.dlw"
  attrs "$dom" "cmp-$id" data-alloc-delta > "$abs/$id.da"
  jq -r ".$id[].alloc_change_bytes" "$abs/d.json" > "$abs/$id.daw"
  check "cmp-$id: allocated changes as diff's" \
    cmp -s "$abs/$id.da" "$abs/$id.daw"
done
awk '$1 ~ /vtable$|^cookie$/ { print $2 }' "$abs/a.out" "$abs/b.out" \
  > "$abs/raw"
check "no raw address in a type key" \
  test "$(grep -c -F -f "$abs/raw" "$abs/types.keys")" -eq 0
n=$(sed -n 's/^extra_objs //p' "$abs/b.out")
sz=$(sed -n 's/^extra_bytes //p' "$abs/b.out")
first=$(attrs "$dom" cmp-types data-live-delta | head -n 1)
check "b's class first, +$n x $sz bytes live ($first)" \
  test "$first" -ge $((n * sz)) -a "$first" -le $((n * (sz + 32)))
check "its key is heap-relative ($(head -n 1 "$abs/types.keys"))" \
  sh -c "head -n 1 '$abs/types.keys' | grep -q '^gcj vtable heap1+0x'"
check "b's call path first" \
  sh -c "head -n 1 '$abs/sites.keys' | grep -q '< grow_extra <'"
# (b's objects are kept by an array of theirs: "(no type)" grows too.)
check "the other types unchanged" test "$(paste "$abs/types.keys" \
  "$abs/types.dl" | tail -n +2 | awk -F'\t' '$1 != "(no type)" {
  d = $2 < 0 ? -$2 : $2 } d > 2048' | wc -l)" -eq 0
check "no estimate note for exact dumps" \
  sh -c "! grep -q 'id=\"estimate-note\"' '$dom'"
check "no ~ in exact dumps' cells" sh -c "! grep -q '<td>~' '$dom'"

# The sampled copy: estimates marked, for types and callsites only.
sdom=$abs/abs.dom.html
check "estimate note" grep -q '<p class="estimate-note" id="estimate-note">~ figures by type and callsite are estimated from sampled allocations (dump b: one sample per 524288 bytes on average' "$sdom"
for id in types sites; do
  check "cmp-$id marked estimated" \
    grep -q "<table class=\"cmp\" id=\"cmp-$id\"[^>]* data-estimated=\"1\"" \
    "$sdom"
  check "cmp-$id cells start with ~" sh -c "sed -n \
    '/id=\"cmp-$id\"/,/<\/table>/p' '$sdom' | grep -q '<td>~'"
done
check "cmp-kinds not estimated" sh -c "! sed -n \
  '/id=\"cmp-kinds\"/,/<\/table>/p' '$sdom' | grep -q '~'"
check "session B says estimated" \
  grep -q 'id="session-b"[^>]* data-estimated="1"' "$sdom"
check "the executable's name is escaped" grep -qF \
  '/x/&lt;b&gt;bold&lt;/b&gt;&amp;amp;&quot;q&#39;' "$abs/abs.html"
check "no element made of it" sh -c "! grep -q '<b>bold</b>' '$sdom'"

echo "compare.sh: $checks checks, $fails failed (screenshots: $abs/ab.png," \
     "$abs/abs.png)"
[ "$fails" -eq 0 ]
