#!/bin/sh
# SPDX-License-Identifier: MIT
# speedscope.sh: `gcacc export --folded` opens in speedscope, a viewer
# none of us wrote: its web app (the npm package, installed from
# tests/browser/package-lock.json by tools/setup-debian.sh) loaded in
# headless Chromium with the exported file, the way its own command line
# loads one (#localProfilePath= a script calling loadFileFromBase64).
# The dump: the il2cpp-shaped game (tools/gcacc-demo, the trace profile:
# exact, every allocation's stack), symbolized.  For the allocated-bytes and the live-bytes export,
# speedscope's Sandwich view (a DOM table: total, self, function) must
# list, first, the function with the most bytes of its own, and for
# every function it lists the totals computed here from the folded file
# with awk (self: lines ending in it; total: lines holding it); the
# left-heavy flame graph is screenshotted and must not be blank.  The
# Chrome trace export loads too, its longest event the dump's.  Without
# speedscope (no npm registry at set-up) the test is skipped; without
# Chromium it fails, as report.sh does.  Files in tests/browser/speedscope.out/.
set -u
: "${srcdir:=.}"
gcacc=./tools/gcacc/gcacc
demo=./tools/gcacc-demo
out=tests/browser/speedscope.out
ss=$srcdir/tests/browser/node_modules/speedscope/dist/release/index.html

if [ ! -f "$ss" ]; then
  echo "SKIP: speedscope not installed ($ss): tools/setup-debian.sh" \
       "installs it with npm ci in tests/browser"
  exit 77
fi
ss=$(cd "$(dirname "$ss")" && pwd)/index.html
. "$srcdir/tests/browser/browser_lib.sh"
need_tools base64 awk gzip jq
browser_setup "$out"
window=1280,1600
# speedscope draws with WebGL: software GL instead of none.
chromium_gpu="--use-angle=swiftshader --enable-unsafe-swiftshader"
# What speedscope draws comes after its own layout passes: time for it.
chromium_extra=--virtual-time-budget=15000

GC_ACC_PROFILE=trace GC_ACC_TYPES=il2cpp \
  GC_ACC_DUMP="$abs/game.gz" "$demo" game >/dev/null ||
  { echo "FAIL: $demo game"; exit 1; }
"$gcacc" symbolize "$abs/game.gz" >/dev/null ||
  { echo "FAIL: gcacc symbolize"; exit 1; }

# loader NAME FILE: the script speedscope's #localProfilePath= loads, as
# its command line writes it (loadFileFromBase64), and then, until the
# Sandwich table has rows, a resize event every 250 ms: its rows are a
# virtual list drawn after a layout pass that a headless run does not
# always make on its own.
loader() {
  printf 'speedscope.loadFileFromBase64("%s", "%s");\n' "$1" \
    "$(base64 -w0 "$2")"
  cat <<'JS'
(function poke(n) {
  setTimeout(function () {
    if (document.querySelector('td') || n === 0) return;
    window.dispatchEvent(new Event('resize'));
    poke(n - 1);
  }, 250);
})(40);
JS
}

# expect FOLDED: "function self total" per function, self descending.
expect() {
  awk '{ v = $NF; n = split(substr($0, 1, length($0) - length(v) - 1),
                               f, ";")
         self[f[n]] += v
         delete seen
         for (i = 1; i <= n; i++)
           if (!(f[i] in seen)) { seen[f[i]] = 1; total[f[i]] += v } }
       END { for (k in total) print k, self[k] + 0, total[k] }' "$1" |
    sort -k2,2nr -k1,1
}

# sandwich DOM: "function self total" per row shown, in the table's order.
sandwich_rows() {
  tr '\n' ' ' <"$1" | sed 's/<\/tr>/\n/g' | grep '<td' |
    sed -e 's/<[^>]*>/|/g' -e 's/|||*/|/g' |
    awk -F'|' '{ n = 0
      for (i = 1; i <= NF; i++) if ($i !~ /^ *$/) c[++n] = $i
      if (n < 3) next
      t = c[1]; s = c[2]; sub(/ *\(.*/, "", t); sub(/ *\(.*/, "", s)
      gsub(/[^0-9]/, "", t); gsub(/[^0-9]/, "", s)
      name = c[n]
      gsub(/&lt;/, "<", name); gsub(/&gt;/, ">", name)
      gsub(/&amp;/, "\\&", name)
      print name, s, t }'
}

for bytes in alloc live; do
  f=$abs/$bytes.folded
  "$gcacc" export --folded --bytes "$bytes" "$abs/game.gz" >"$f" 2>"$abs/$bytes.err" ||
    { fail "export --folded --bytes $bytes exited $?"; continue; }
  [ -s "$f" ] || { fail "$bytes: empty folded file"; continue; }
  grep -q ';' "$f" && ok "$bytes: $(wc -l <"$f" | tr -d ' ') stacks" ||
    fail "$bytes: no call stacks in the folded file"
  expect "$f" >"$abs/$bytes.expect"
  js=$abs/$bytes.js
  loader "$bytes.folded" "$f" >"$js"
  url="file://$ss#localProfilePath=$js"
  # Should the table still be empty when the page is dumped: up to three
  # tries.
  for try in 1 2 3; do
    run_chromium --dump-dom "$url&view=sandwich" >"$abs/$bytes.dom.html" ||
      true
    sandwich_rows "$abs/$bytes.dom.html" >"$abs/$bytes.rows"
    [ -s "$abs/$bytes.rows" ] && break
    echo "note: $bytes: try $try: the sandwich table had no rows yet"
  done
  grep -q "<title>$bytes.folded - speedscope</title>" "$abs/$bytes.dom.html" &&
    ok "$bytes: speedscope loaded the file" ||
    fail "$bytes: speedscope did not load it (see $abs/$bytes.dom.html)"
  n=$(wc -l <"$abs/$bytes.rows" | tr -d ' ')
  [ "$n" -ge 3 ] && ok "$bytes: sandwich lists $n functions" ||
    fail "$bytes: sandwich lists $n functions"
  top=$(head -1 "$abs/$bytes.expect")
  got=$(head -1 "$abs/$bytes.rows")
  [ -n "$top" ] && [ "$got" = "$top" ] &&
    ok "$bytes: top frame by own bytes: $got" ||
    fail "$bytes: speedscope's first row '$got', the folded file's top '$top'"
  # Every function shown: its self and total bytes as the file says.
  bad=$(awk 'NR == FNR { want[$1] = $0; next }
             !($1 in want) || want[$1] != $0 { print }' \
          "$abs/$bytes.expect" "$abs/$bytes.rows")
  [ -z "$bad" ] && ok "$bytes: every row's self and total agree" ||
    fail "$bytes: rows that disagree with the folded file: $bad"
  # The three heaviest functions by own bytes are among the rows.
  head -3 "$abs/$bytes.expect" | while read -r name _; do
    grep -q "^$name " "$abs/$bytes.rows" || echo "$name"
  done >"$abs/$bytes.missing"
  [ ! -s "$abs/$bytes.missing" ] && ok "$bytes: the top three are listed" ||
    fail "$bytes: not listed: $(tr '\n' ' ' <"$abs/$bytes.missing")"
  run_chromium --screenshot="$abs/$bytes.png" "$url&view=left-heavy" \
    >/dev/null || true
  size=$(wc -c <"$abs/$bytes.png" 2>/dev/null || echo 0)
  [ "$size" -gt 8000 ] && ok "$bytes: flame graph screenshot, $size bytes" ||
    fail "$bytes: flame graph screenshot missing or blank ($size bytes)"
done
# The game's allocation is dominated by its arrays and objects: the
# exported top frame is one of the game's own functions, by name.
grep -Eq '^(new_array|new_object|new_string|frame_work|spawn_wave) ' \
  "$abs/alloc.rows" && ok "alloc: the game's allocating functions by name" ||
  fail "alloc: no function of the game named (symbolize?)"

# The Chrome trace export opens too (speedscope reads the trace-event
# format): its longest event is the dump's longest mark or census.
"$gcacc" export --chrome-trace "$abs/game.gz" >"$abs/trace.json" ||
  fail "export --chrome-trace exited $?"
loader trace.json "$abs/trace.json" >"$abs/trace.js"
for try in 1 2 3; do
  run_chromium --dump-dom \
    "file://$ss#localProfilePath=$abs/trace.js&view=sandwich" \
    >"$abs/trace.dom.html" || true
  tr '\n' ' ' <"$abs/trace.dom.html" | sed 's/<\/tr>/\n/g' | grep '<td' |
    sed -e 's/<[^>]*>/|/g' -e 's/|||*/|/g' >"$abs/trace.rows"
  [ -s "$abs/trace.rows" ] && break
done
grep -q '<title>trace.json - speedscope</title>' "$abs/trace.dom.html" &&
  ok "trace: speedscope loaded the Chrome trace" ||
  fail "trace: speedscope did not load it (see $abs/trace.dom.html)"
first=$(head -1 "$abs/trace.rows")
# "|1.21ms (18%)|1.21ms (18%)|census {...}|": the total, in ns.
got=$(echo "$first" | awk -F'|' '{ v = $2; sub(/ .*/, "", v)
  u = v; gsub(/[0-9.]/, "", u); gsub(/[^0-9.]/, "", v)
  m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "ns" ? 1 : 1e3
  printf "%.0f\n", v * m }')
want=$(zcat "$abs/game.gz" | jq -n '[inputs | select(.record == "collection")
  | .mark_ns, .census_ns] | max')
echo "$first" | grep -Eq '\|(mark|census) \{' &&
  [ "$(awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d
       print (w > 0 && d <= w / 100 + 10) }')" = 1 ] &&
  ok "trace: longest event $got ns, the dump's $want ns" ||
  fail "trace: speedscope's first row '$first' ($got ns), the dump's" \
       "longest mark or census $want ns"

echo "speedscope.sh: $checks checks, $fails failed (files in $abs)"
[ "$fails" -eq 0 ]
