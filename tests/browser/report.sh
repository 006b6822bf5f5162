#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh: `gcacc report` renders in real headless Chromium and shows the
# dump's numbers.  Makes a dump with the demo, derives a second one with jq
# (one class's live and allocated bytes raised by known amounts), writes
# the one- and two-dump reports, then for each: a screenshot that is not
# blank, and the rendered DOM checked against figures computed here from
# the dump with zcat, grep and jq.  No network: the page must reference no
# http(s) URL nor load anything (its one script is inline, and its
# Content-Security-Policy allows nothing else).  Chromium missing is a failure (run tools/setup-debian.sh).
# Leaves its files in tests/browser/report.out/ for a look.
# ok() never fails, so `test && ok || fail` is an if-else here.
# shellcheck disable=SC2015
set -eu
: "${srcdir:=.}"
gcacc=./tools/gcacc/gcacc
demo=./tools/gcacc-demo
out=tests/browser/report.out
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

. "$srcdir/tests/browser/browser_lib.sh"
need_tools jq zcat gzip
browser_setup "$out"
window=1280,2000

# --- the dumps ----------------------------------------------------------
GC_ACC_DUMP="$out/a.gz" "$demo" game >/dev/null
ncoll=$(zcat "$out/a.gz" | grep -c '"record":"collection"')
# The class with the most live bytes at the peak-live collection (the
# first census record with the largest sum of live bytes; ties in a class
# go to the lower kind, then class).
top=$(zcat "$out/a.gz" | jq -s -r '
  [.[] | select(.record == "collection" and .census == 1)]
  | reduce .[] as $r (null;
      ([$r.classes[] | .[3]] | add // 0) as $l
      | if . == null or $l > .l then {l: $l, r: $r} else . end)
  | .r.classes | sort_by(-.[3], .[0], .[1]) | .[0]
  | "\(.[0]) \(.[1]) \(.[3])"')
# shellcheck disable=SC2086
set -- $top
tk=$1 tc=$2 tlive=$3
# Dump B: that class gets 4096 more live bytes and 1000 more allocated
# bytes in every record that has it; the header names a hostile
# executable, which the page must show as text.
evil='/x/<script>alert(1)</script>\&'"'"'\\"q'    # sed: \& is &
{ zcat "$out/a.gz" | head -n 1 |
    sed "s|\"executable\":\"[^\"]*\"|\"executable\":\"$evil\"|"
  zcat "$out/a.gz" | tail -n +2 | jq -c --argjson k "$tk" --argjson c "$tc" '
    if .record == "collection" then
      .classes |= map(if .[0] == $k and .[1] == $c
                      then .[3] += 4096 | .[8] += 1000 else . end)
    else . end'
} | gzip >"$out/b.gz"
nrows=$(zcat "$out/a.gz" | jq -r --argjson k "$tk" --argjson c "$tc" '
  select(.record == "collection") | .classes[] | select(.[0] == $k
  and .[1] == $c) | 1' | wc -l | tr -d ' ')
dalloc=$((nrows * 1000))
echo "dump: $ncoll collections; top class at peak: kind $tk class $tc" \
     "($tlive live bytes); B adds 4096 live, $dalloc allocated"

# --- the command line ---------------------------------------------------
st=0; "$gcacc" report --help >/dev/null || st=$?
[ "$st" -eq 0 ] && ok "--help exits 0" || fail "--help exited $st"
for args in "" "--json $out/a.gz" "--bogus $out/a.gz" \
            "$out/a.gz $out/a.gz $out/a.gz" "$out/no-such.gz"; do
  st=0
  # shellcheck disable=SC2086
  "$gcacc" report $args >/dev/null 2>&1 || st=$?
  [ "$st" -eq 2 ] && ok "report $args: exit 2" ||
    fail "report $args: exit $st, want 2"
done
"$gcacc" report -o "$out/one.html" "$out/a.gz" ||
  { echo "FAIL: gcacc report exited $?" >&2; exit 1; }
"$gcacc" report -o "$out/two.html" "$out/a.gz" "$out/b.gz" ||
  { echo "FAIL: gcacc report (two dumps) exited $?" >&2; exit 1; }

# --- rendering ----------------------------------------------------------
# PNG not blank: decode it (8-bit RGB/RGBA) and count distinct colours.
png_colours() {
  python3 - "$1" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
p, idat = 8, b''
while p < len(d):
    n, t = struct.unpack('>I4s', d[p:p + 8])
    c = d[p + 8:p + 8 + n]
    if t == b'IHDR':
        w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', c)
    elif t == b'IDAT':
        idat += c
    p += 12 + n
assert depth == 8 and ctype in (2, 6) and lace == 0, 'unexpected PNG'
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, i = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            q = a + b - c
            pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pr) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 2):
            seen.add(bytes(line[x:x + 3]))
    prev = line
print(len(seen))
EOF
}

check_page() {      # check_page NAME: NAME.html rendered and checked
  name=$1 html="$abs/$1.html" dom="$abs/$1.dom.html" png="$abs/$1.png"
  if grep -Eiq 'https?://' "$html"; then
    fail "$name.html references a URL: $(grep -Eio 'https?://[^" ]*' \
          "$html" | head -n 3 | tr '\n' ' ')"
  else ok "$name.html references no http(s) URL"
  fi
  if grep -Eiq '<script[^>]* src=|<(link|img|iframe)[ >]' "$html"; then
    fail "$name.html has an external-resource element"
  fi
  grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" \
    "$html" || fail "$name.html: no Content-Security-Policy"
  run_chromium --screenshot="$png" "file://$html" >/dev/null || true
  if [ ! -s "$png" ]; then
    fail "$name: no screenshot (see $abs/chromium.log)"
  else
    size=$(wc -c <"$png" | tr -d ' ')
    if command -v python3 >/dev/null 2>&1; then
      n=$(png_colours "$png" || echo 0)
      [ "$n" -gt 50 ] && ok "$name.png: $size bytes, $n colours" ||
        fail "$name.png looks blank: $n colours"
    else
      [ "$size" -gt 20000 ] && ok "$name.png: $size bytes" ||
        fail "$name.png looks blank: $size bytes"
    fi
  fi
  run_chromium --dump-dom "file://$html" >"$dom" || true
  if ! grep -q '</html>' "$dom"; then
    fail "$name: --dump-dom gave no page (see $abs/chromium.log)"
    return
  fi
  v=$(attr "$dom" '<tr id="s-collections"' data-a)
  [ "$v" = "$ncoll" ] && ok "$name: summary says $v collections" ||
    fail "$name: summary says '$v' collections, the dump has $ncoll"
  pts=$(grep -o '<polyline id="timeline-chart-heap"[^>]*' "$dom" |
        sed -n 's/.* points="\([^"]*\)".*/\1/p' | tr ' ' '\n' |
        grep -c ',' || true)
  [ "$pts" -ge 2 ] && ok "$name: heap polyline has $pts points" ||
    fail "$name: heap polyline has $pts points"
  for s in live reserved free; do
    grep -q "<polyline id=\"timeline-chart-$s\"" "$dom" ||
      fail "$name: no $s series in the timeline chart"
  done
  grep -q '<polyline id="frag-chart-frag_index"' "$dom" ||
    fail "$name: no fragmentation chart"
  row=$(grep -o '<tr class="top-row"[^>]*' "$dom" | head -n 1)
  k=$(echo "$row" | sed -n 's/.* data-kind="\([0-9]*\)".*/\1/p')
  c=$(echo "$row" | sed -n 's/.* data-class="\([0-9]*\)".*/\1/p')
  l=$(echo "$row" | sed -n 's/.* data-live-bytes="\([0-9]*\)".*/\1/p')
  [ "$k $c $l" = "$tk $tc $tlive" ] &&
    ok "$name: top row is kind $k class $c, $l live bytes" ||
    fail "$name: top row is '$k $c $l', jq says '$tk $tc $tlive'"
  bars=$(grep -o '<rect class="bar"' "$dom" | wc -l | tr -d ' ')
  nb=$(attr "$dom" '<svg id="frag-histogram"' data-bars)
  [ "$bars" -ge 1 ] && [ "$bars" = "$nb" ] &&
    ok "$name: frag histogram has $bars bars" ||
    fail "$name: frag histogram has $bars bars (data-bars '$nb')"
  grep -q '<table id="grows"' "$dom" || fail "$name: no grows table"
  grep -q 'class="bdwgc-version">8\.2\.2<' "$dom" ||
    fail "$name: bdwgc version not shown"
}

check_page one
grep -q 'id="diff"' "$abs/one.dom.html" 2>/dev/null &&
  fail "one: a diff section with one dump"
check_page two
row=$(grep -o '<tr class="diff-row"[^>]*' "$abs/two.dom.html" | head -n 1)
n=$(attr "$abs/two.dom.html" '<table id="diff"' data-rows)
k=$(echo "$row" | sed -n 's/.* data-kind="\([0-9]*\)".*/\1/p')
c=$(echo "$row" | sed -n 's/.* data-class="\([0-9]*\)".*/\1/p')
dl=$(echo "$row" | sed -n 's/.* data-live-delta="\([-0-9]*\)".*/\1/p')
da=$(echo "$row" | sed -n 's/.* data-alloc-delta="\([-0-9]*\)".*/\1/p')
[ "$n" = 1 ] && [ "$k $c $dl $da" = "$tk $tc 4096 $dalloc" ] &&
  ok "two: diff has 1 row: kind $k class $c, live +$dl, allocated +$da" ||
  fail "two: diff rows '$n', first '$k $c $dl $da'," \
       "want 1 row '$tk $tc 4096 $dalloc'"

# The hostile executable, escaped, and no element made of it.
if grep -qF '/x/&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;&quot;q' \
     "$abs/two.html"; then ok "two: the executable's name is escaped"
else fail "two: the executable's name is not escaped as expected"
fi
grep -q '<script>alert' "$abs/two.dom.html" &&
  fail "two: the executable's name became a script element"

if [ "$fails" -ne 0 ]; then
  echo "report.sh: $fails failures; files in $abs" >&2
  exit 1
fi
echo "report.sh: all checks passed (screenshots in $abs)"
