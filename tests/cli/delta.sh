#!/bin/sh
# SPDX-License-Identifier: MIT
# delta.sh: delta records (docs/dump-format.md, "Delta records").
#   - the writer: tests/cli/deltaload with GC_ACC_DUMP_KEYFRAME=5 writes
#     delta records with fewer rows than the whole tables, and at every
#     key frame the tables rebuilt from the deltas before it equal the
#     key frame's (a row the writer left out wrongly would show there);
#   - the reader: every command's output is the same for that dump and
#     for the same dump made whole by jq (the rebuild as the format page
#     describes it); a dump cut mid-way reads to its last whole record;
#   - hostile deltas (one without its key frame, one whose base is not
#     the record before, rows out of bounds or given twice, "delta_of" on
#     a snapshot) are errors (exit 2) naming the record, nothing printed.
. "${srcdir:-.}/tests/cli/cli_lib.sh"
need jq "jq not installed"
LOAD=./tests/cli/deltaload
for p in "$GCACC" "$LOAD"; do
  [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
mkdir "$tmp/d" "$tmp/w"
GC_ACC_DUMP_KEYFRAME=5 GC_ACC_DUMP="$tmp/d/x.gz" "$LOAD" > "$tmp/load.out" ||
  { echo "FAIL: deltaload"; exit 1; }
gzip -dc "$tmp/d/x.gz" > "$tmp/d.jsonl"

# The rebuild, as docs/dump-format.md says it: each delta's rows as
# written, every other row of the record before with its allocation
# columns 0; all-zero rows left out; (kind, class) order.
cat > "$tmp/expand.jq" <<'JQ'
def ck: "\(.[0]),\(.[1])";
def kk: "\(.[0])";
def rows($s; $d; zero; key):
  ($s | with_entries(.value |= zero)) + ($d | map({key: key, value: .})
                                           | from_entries)
  | [.[]] | sort;
def state(key; $cen):
  map(select(.[$cen[0]:$cen[1]] | any(. != 0)))
  | map({key: key, value: .}) | from_entries;
foreach inputs as $r ({c: null, k: null, out: null};
  if $r.record == "collection" and $r.census == 1 then
    if ($r | has("delta_of")) then
      (rows(.c; $r.classes; .[0:6] + [0, 0, 0]; ck)
       | map(select(.[2:] | any(. != 0)))) as $cl
      | (rows(.k; $r.kinds; [.[0], 0] + .[2:5]; kk)
         | map(select(.[1:] | any(. != 0)))) as $kd
      | .out = ($r | .classes = $cl | .kinds = $kd | del(.delta_of))
      | .c = ($cl | state(ck; [2, 6])) | .k = ($kd | state(kk; [2, 5]))
    else
      .out = $r
      | .c = ($r.classes | state(ck; [2, 6]))
      | .k = ($r.kinds | state(kk; [2, 5]))
    end
  else .out = $r end;
  .out)
JQ
jq -c -n -f "$tmp/expand.jq" < "$tmp/d.jsonl" > "$tmp/whole.jsonl" ||
  { echo "FAIL: jq could not rebuild the dump"; exit 1; }
gzip -c "$tmp/whole.jsonl" > "$tmp/w/x.gz"
# The delta dump through jq too, so that both are written the same way
# (jq writes a real without its fraction, 0.000000, as 0).
jq -c . "$tmp/d.jsonl" | gzip -c > "$tmp/d/x.gz"

# ---- the writer ------------------------------------------------------------
# The census the program saw after each of its collections, against the
# tables gcacc rebuilt for that collection (gc_no) from the delta dump.
sed -n 's/^census //p' "$tmp/load.out" | sort > "$tmp/truth"
cut -d' ' -f1 "$tmp/truth" | sort -u > "$tmp/gcs"
"$GCACC" export --csv classes --no-progress "$tmp/d/x.gz" |
  awk -F, 'FNR == NR { g[$1] = 1; next }
           FNR > 1 && ($1 in g) && ($5 + $6 + $7 + $8) > 0 {
             print $1, $3, $4, $5, $6, $7, $8 }' "$tmp/gcs" - |
  sort > "$tmp/rebuilt"
ok; [ "$(wc -l < "$tmp/gcs")" -ge 30 ] ||
  fail "the program printed the census of $(wc -l < "$tmp/gcs") collections"
ok; cmp -s "$tmp/truth" "$tmp/rebuilt" || {
  fail "the rebuilt census rows differ from the collector's"
  diff "$tmp/truth" "$tmp/rebuilt" | head -n 10 | sed 's/^/  | /'
}
n_delta=$(grep -c '"delta_of":' "$tmp/d.jsonl")
ok; [ "$n_delta" -ge 20 ] || fail "delta records: $n_delta, expected >= 20"
rows_d=$(jq -s '[.[] | select(.record == "collection" and .census == 1)
                 | .classes | length] | add' "$tmp/d.jsonl")
rows_w=$(jq -s '[.[] | select(.record == "collection" and .census == 1)
                 | .classes | length] | add' "$tmp/whole.jsonl")
ok; [ "$rows_d" -lt $((rows_w / 2)) ] ||
  fail "the delta dump holds $rows_d class rows, the whole one $rows_w"
first=$(jq -s '[.[] | select(.record == "collection")][0] | has("delta_of")' \
        "$tmp/d.jsonl")
check "the first collection record is whole" [ "$first" = false ]
keys=$(jq -s '[.[] | select(.record == "collection" and .census == 1
               and (has("delta_of") | not))] | length' "$tmp/d.jsonl")
all=$(jq -s '[.[] | select(.record == "collection" and .census == 1)]
             | length' "$tmp/d.jsonl")
check "one collection record in 5 is whole ($keys of $all)" \
  [ "$keys" -eq $(((all + 4) / 5)) ]
GC_ACC_DUMP_KEYFRAME=1 GC_ACC_DUMP="$tmp/one.gz" "$LOAD" >/dev/null
check "GC_ACC_DUMP_KEYFRAME=1: no delta record" \
  [ "$(gzip -dc "$tmp/one.gz" | grep -c '"delta_of"')" -eq 0 ]
# The C API: GC_acc_set_dump_keyframe, as the setting.
"$LOAD" -k 0 "$tmp/api0.gz" > "$tmp/api0.out" 2> "$tmp/api0.err"
check "GC_acc_set_dump_keyframe(0) is GC_ERROR" \
  grep -q '^keyframe_api -1$' "$tmp/api0.out"
check "GC_acc_set_dump_keyframe(0) warns" \
  grep -q 'GC_acc_set_dump_keyframe' "$tmp/api0.err"
"$LOAD" -k 3 "$tmp/api3.gz" > "$tmp/api3.out"
check "GC_acc_set_dump_keyframe(3) is GC_SUCCESS" \
  grep -q '^keyframe_api 0$' "$tmp/api3.out"
keys3=$(gzip -dc "$tmp/api3.gz" | jq -s '[.[] | select(.record == "collection"
          and .census == 1 and (has("delta_of") | not))] | length')
all3=$(gzip -dc "$tmp/api3.gz" | jq -s '[.[] | select(.record == "collection"
          and .census == 1)] | length')
check "GC_acc_set_dump_keyframe(3): one record in 3 whole ($keys3 of $all3)" \
  [ "$keys3" -eq $(((all3 + 2) / 3)) ]
# A second dump of the same process starts with a whole record.
GC_ACC_DUMP_KEYFRAME=4 "$LOAD" "$tmp/first.gz" "$tmp/second.gz" >/dev/null
first2=$(gzip -dc "$tmp/second.gz" |
         jq -s '[.[] | select(.record == "collection")][0] | has("delta_of")')
check "a second dump's first collection record is whole" [ "$first2" = false ]
check "gcacc reads the second dump" \
  "$GCACC" summary --no-progress "$tmp/second.gz" > /dev/null
check "the header says dump_keyframe" \
  [ "$(gzip -dc "$tmp/d/x.gz" | head -n 1 | jq .config.dump_keyframe)" = 5 ]

# ---- the reader: the same output either way --------------------------------
same() {    # same NAME ARGS...: the command's output on d/x.gz and w/x.gz
  name=$1; shift
  (cd "$tmp/d" && "$GCACC" "$@" x.gz > "$tmp/out.d" 2>&1; echo "rc $?" >> "$tmp/out.d")
  (cd "$tmp/w" && "$GCACC" "$@" x.gz > "$tmp/out.w" 2>&1; echo "rc $?" >> "$tmp/out.w")
  ok
  if ! cmp -s "$tmp/out.d" "$tmp/out.w"; then
    fail "gcacc $name: output differs between the delta dump and the whole one"
    diff "$tmp/out.d" "$tmp/out.w" | head -n 10 | sed 's/^/  | /'
  fi
}
case $GCACC in /*) ;; *) GCACC=$(pwd)/$GCACC ;; esac
same summary summary --no-progress
same summary-json summary --json --no-progress
same timeline timeline --json --no-progress
same top top --no-progress
same top-kind top --group kind --no-progress
same top-json top --json --no-progress
same frag frag --no-progress
same frag-json frag --json --no-progress
same leaks leaks --json --no-progress
same export-classes export --csv classes --no-progress
same export-kinds export --csv kinds --no-progress
same export-records export --jsonl records --no-progress
same export-folded export --folded --no-progress
same chrome export --chrome-trace --no-progress
same report report -o /dev/stdout --no-progress
(cd "$tmp" && "$GCACC" diff d/x.gz w/x.gz --no-progress > "$tmp/diff.out" 2>&1)
check "gcacc diff finds no difference between the two" [ $? -eq 0 ]

# ---- a dump cut mid-way --------------------------------------------------------
size=$(wc -c < "$tmp/d/x.gz")
head -c $((size * 6 / 10)) "$tmp/d/x.gz" > "$tmp/cut.gz"
"$GCACC" export --csv classes --no-progress "$tmp/cut.gz" > "$tmp/cut.csv" 2> "$tmp/cut.err"
check "a cut delta dump reads (exit 0)" [ $? -eq 0 ]
"$GCACC" export --csv classes --no-progress "$tmp/w/x.gz" > "$tmp/all.csv" 2>/dev/null
n=$(wc -l < "$tmp/cut.csv")
ok; [ "$n" -gt 10 ] && head -n "$n" "$tmp/all.csv" | cmp -s - "$tmp/cut.csv" ||
  fail "the cut dump's classes are not the whole dump's first $n lines"
check "the cut is told" grep -q "ends" "$tmp/cut.err"

# ---- hostile deltas ------------------------------------------------------------
# hostile NAME JQFILTER-ON-THE-LINES PATTERN: the dump's lines (one JSON
# array) changed by the filter must be refused: exit 2, PATTERN on
# stderr, and nothing of the bad record (nor after it) in what the
# command printed: its last collection is one before.
hostile() {
  jq -c -s "$2 | .[]" "$tmp/d.jsonl" | gzip -c > "$tmp/h.gz"
  "$GCACC" timeline --json --no-progress "$tmp/h.gz" > "$tmp/h.out" 2> "$tmp/h.err"
  rc=$?
  bad=$(jq -s "$2 | .[$4].gc_no" "$tmp/d.jsonl")
  ok
  if [ "$rc" -ne 2 ] || ! grep -q "$3" "$tmp/h.err" ||
     grep -q "\"gc_no\":$bad," "$tmp/h.out"; then
    fail "$1: exit $rc, stderr:"; sed 's/^/  | /' "$tmp/h.err"
    head -c 300 "$tmp/h.out" | sed 's/^/  | out: /'
  fi
}
hostile "a delta without its key frame" \
  'del(.[1])' 'no whole collection record (key frame) came before it' 1
hostile "a delta whose base is not the record before" \
  'del(.[3])' 'but the collection record before it is seq' 3
hostile "a row of an unknown kind" \
  '.[2].classes += [[999, 3, 1, 16, 4096, 1, 0, 0, 0]]' 'beyond the header' 2
hostile "a row of an unknown class" \
  '.[2].classes += [[1, 99999, 1, 16, 4096, 1, 0, 0, 0]]' 'beyond the header' 2
hostile "a row given twice" \
  '.[2].classes += [.[2].classes[0]]' 'given twice' 2
hostile "more rows than keys" \
  '.[2].classes += [range(0; 3000) | [0, 1, 1, 16, 4096, 1, 0, 0, 0]]' \
  'more rows than the header' 2
hostile "delta_of on a snapshot" \
  '.[2].record = "snapshot"' '"delta_of" must be' 2
hostile "delta_of not below its own seq" \
  '.[2].delta_of = .[2].seq' '"delta_of" must be' 2
finish
