#!/bin/sh
# SPDX-License-Identifier: MIT
# hooks_doc.sh: docs/hooks.md lists every GC_ACC_ON_* site in the patched
# tree, file and macro, as many times as the tree has it; nothing more.
# Two bases: the 8.2.2 tree (bdwgc/upstream) has the sites of the main
# table plus those under "bdwgc 8.2.2 only"; Unity's fork
# (bdwgc/unity/src, from bdwgc/patches-unity) has the main table's plus
# the rows of the table under "Unity's fork only".  Without
# the fork (bdwgc/unity.sh exits 3) only 8.2.2 is checked, and it says so.
set -eu
: "${srcdir:=.}"
doc_rows() { # which (822|unity) -> "count file:macro" lines: the main
  # table's rows plus those of that base's own section
  awk -v want="$1" '
    /^### Unity.s fork only/ { sec = "unity"; next }
    /^### bdwgc 8\.2\.2 only/ { sec = "822"; next }
    /^##/ { sec = "" }
    /^\| [a-z0-9_]*\.c \| [^|]* \| GC_ACC_ON_[A-Z_]* \|/ {
      s = (sec == "") ? "common" : sec
      if (s == "common" || s == want) {
        split($0, f, "|"); gsub(/ /, "", f[2]); gsub(/ /, "", f[4])
        print f[2] ":" f[4]
      }
    }' "$srcdir/docs/hooks.md" | sort | uniq -c
}
tree_rows() { (cd "$1" && grep -o 'GC_ACC_ON_[A-Z_]*' -- *.c | sort | uniq -c); }
check() { # name tree doc
  if [ "$2" != "$3" ]; then
    echo "FAIL: docs/hooks.md and the $1 tree disagree (count file:macro)" >&2
    echo "tree:" >&2; echo "$2" >&2
    echo "docs/hooks.md:" >&2; echo "$3" >&2
    exit 1
  fi
  echo "hook sites ($1): $(echo "$2" | awk '{n += $1} END {print n}') in tree and docs"
}
check "bdwgc 8.2.2" "$(tree_rows "$srcdir/bdwgc/upstream")" "$(doc_rows 822)"
set +e
unity=$(sh "$srcdir/bdwgc/unity.sh" tree 2>/dev/null)
rc=$?
set -e
case $rc in
  0) check "Unity fork" "$(tree_rows "$unity")" "$(doc_rows unity)" ;;
  3) echo "hook sites (Unity fork): not checked, no Unity bdwgc fork" \
          "(UNITY_BDWGC_TARBALL or ../shared/vendor)" ;;
  *) echo "FAIL: bdwgc/unity.sh tree failed" >&2; exit 1 ;;
esac
