#!/bin/sh
# SPDX-License-Identifier: MIT
# columns_moved.sh: gcacc finds every column by the header's names
# (docs/dump-format.md, "Columns"), not by position.  Real dumps of the
# workload (leak: classes, kinds, grows, free lists; typed with sampled
# stacks: types, sites, type and site rows, frame rows, scaling) are
# rewritten with jq, and every view must read each rewrite exactly as it
# reads the dump itself:
#   append   a column "x_back" after the last of every table but sites
#            (whose last column is the rest of the row), named in the
#            header (a newer writer's column)
#   front    a column "x_front" first in every table, named in the header
#   reversed every table's columns in reverse order (sites excepted),
#            the header's names reversed too
#   nocols   no "columns" in the header (a dump from before them): the
#            documented order
# (jq 1.6 rounds integers beyond 2^53, such as start_time_ns: the dump
# compared against is the same dump passed through `jq -c .`.)  Then a
# header that lacks a column gcacc reads: one warning naming it, and the
# column read as 0.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

G=$(cd "$(dirname "$GCACC")" && pwd)/$(basename "$GCACC")
make_dump leak
GC_ACC_STACKS=sample=4096 GC_ACC_DUMP="$tmp/typed.gz" "$WORKLOAD" typed \
  >/dev/null || { echo "FAIL: workload typed"; exit 1; }

# Each table's rows in a record: name in the header -> its path.
lib='def rows($k; f):
       if $k == "freelists.lists" then
         (if (.freelists.lists | type) == "array"
          then .freelists.lists |= map(f) else . end)
       elif $k == "frame.rows" then
         (if .record == "frame" and (.rows | type) == "array"
          then .rows |= map(f) else . end)
       elif $k == "frame.kind_rows" then
         (if .record == "frame" and (.kind_rows | type) == "array"
          then .kind_rows |= map(f) else . end)
       elif .record == "frame" and ($k != "types" and $k != "sites")
       then .
       elif (.[$k] | type) == "array" then .[$k] |= map(f)
       else . end;
     def each_table(hf; f):
       if .record == "header" then .columns |= with_entries(
         if .key == "sites" and $skip_sites then . else .value |= hf end)
       else reduce $keys[] as $k (.;
         if $k == "sites" and $skip_sites then . else rows($k; f) end)
       end;'
keys='["classes","kinds","freelists.lists","grows","types","sites",
       "type_rows","site_rows","frame.rows","frame.kind_rows"]'
# rewrite VARIANT IN OUT
rewrite() {
  case $1 in
    id) prog='.' ;;
    append) prog='each_table(. + ["x_back"]; . + [9])' ;;
    front) prog='each_table(["x_front"] + .; [7] + .)' ;;
    reversed) prog='each_table(reverse; reverse)' ;;
    nocols) prog='del(.columns)' ;;
  esac
  skip=true
  [ "$1" = front ] && skip=false
  zcat "$2" | jq -c --argjson keys "$keys" --argjson skip_sites "$skip" \
    "$lib $prog" | gzip >"$3" || { echo "FAIL: jq rewrite $1"; exit 1; }
}

# The views compared (stdout and stderr, the dump always named d.gz).
views='summary --json
top --json
top --group class -n 0 --json
top --group type -n 0 --json
top --group site -n 0 --json
top --session -n 0 --json
timeline --json
timeline --frames --json
frag --json
leaks --json
export --csv classes
export --csv grows
export --csv freelists
export --chrome-trace
export --folded
export --folded --bytes alloc --group type'

for dump in leak typed; do
  for v in id append front reversed nocols; do
    mkdir -p "$tmp/$dump-$v"
    rewrite "$v" "$tmp/$dump.gz" "$tmp/$dump-$v/d.gz"
  done
  # The rewrites did what they say (on the first classes row seen).
  first_row() {
    zcat "$tmp/$dump-$1/d.gz" | jq -c -n \
      '[inputs | select(.classes? | length > 0)][0].classes[0]'
  }
  id_row=$(first_row id)
  check_eq "$dump: appended" "$(first_row append)" \
    "$(echo "$id_row" | jq -c '. + [9]')"
  check_eq "$dump: in front" "$(first_row front)" \
    "$(echo "$id_row" | jq -c '[7] + .')"
  check_eq "$dump: reversed" "$(first_row reversed)" \
    "$(echo "$id_row" | jq -c 'reverse')"
  check_eq "$dump: no columns" \
    "$(zcat "$tmp/$dump-nocols/d.gz" | head -1 | jq 'has("columns")')" false

  echo "$views" | while IFS= read -r view; do
    (cd "$tmp/$dump-id" && $G $view d.gz >out 2>err; echo "exit $?" >>out)
    for v in append front reversed nocols; do
      (cd "$tmp/$dump-$v" && $G $view d.gz >out 2>err; echo "exit $?" >>out)
      for f in out err; do
        if ! cmp -s "$tmp/$dump-id/$f" "$tmp/$dump-$v/$f"; then
          echo "FAIL: $dump, $v: gcacc $view: std$f differs:"
          diff "$tmp/$dump-id/$f" "$tmp/$dump-$v/$f" | head -8
          echo x >>"$tmp/failed"
        fi
      done
      echo x >>"$tmp/ran"
    done
  done
done
# Checks counted outside the loop's subshell.
n=$(wc -l <"$tmp/ran")
check_eq "views compared" "$n" $((2 * 4 * $(echo "$views" | wc -l)))
i=0
while [ "$i" -lt "$n" ]; do ok; i=$((i + 1)); done
[ -f "$tmp/failed" ] && n_failed=$((n_failed + $(wc -l <"$tmp/failed")))

# A header without live_bytes in classes (nor the rows): one warning that
# names it, live bytes 0, the other columns as they were.
zcat "$tmp/leak-id/d.gz" | jq -c '
  if .record == "header" then
    (.columns.classes | index("live_bytes")) as $i
    | .columns.classes |= del(.[$i])
  else . end' >"$tmp/h.jsonl"
i=$(zcat "$tmp/leak-id/d.gz" | head -1 | jq '.columns.classes | index("live_bytes")')
{ head -1 "$tmp/h.jsonl"
  zcat "$tmp/leak-id/d.gz" | tail -n +2 | jq -c --argjson i "$i" \
    'if has("classes") then .classes |= map(del(.[$i])) else . end'
} | gzip >"$tmp/lack.gz"
run "$G" top --group class -n 0 --json "$tmp/lack.gz"
check_eq "lacking a column: exit" "$rc" 0
check_eq "lacking a column: one warning" \
  "$(grep -c "the header's columns lack classes.live_bytes: read as 0" \
     "$tmp/err")" 1
check_eq "lacking a column: nothing else on stderr" "$(wc -l <"$tmp/err")" 1
check_eq "lacking a column: live bytes 0" \
  "$(jq '[.top[].live_bytes] | add' "$tmp/out")" 0
"$G" top --group class -n 0 --json "$tmp/leak-id/d.gz" >"$tmp/full.json"
check_eq "lacking a column: live objects as before" \
  "$(jq -c '[.top[] | [.kind, .class, .live_objs]] | sort' "$tmp/out")" \
  "$(jq -c '[.top[] | [.kind, .class, .live_objs]] | sort' "$tmp/full.json")"

finish
