#!/bin/sh
# hooks_doc.sh: docs/hooks.md lists every GC_ACC_ON_* site in the patched
# tree, file and macro, as many times as the tree has it; nothing more.
set -eu
: "${srcdir:=.}"
up="$srcdir/bdwgc/upstream"
tree=$(cd "$up" && grep -o 'GC_ACC_ON_[A-Z_]*' -- *.c | sort | uniq -c)
doc=$(sed -n 's/^| \([a-z0-9_]*\.c\) | [^|]* | \(GC_ACC_ON_[A-Z_]*\) |.*/\1:\2/p' \
        "$srcdir/docs/hooks.md" | sort | uniq -c)
if [ "$tree" != "$doc" ]; then
  echo "FAIL: docs/hooks.md and the patched tree disagree (count file:macro)" >&2
  echo "tree:" >&2; echo "$tree" >&2
  echo "docs/hooks.md:" >&2; echo "$doc" >&2
  exit 1
fi
echo "hook sites: $(echo "$tree" | awk '{n += $1} END {print n}') in tree and docs"
