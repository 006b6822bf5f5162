# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# unity-forks.sh (sourced by bdwgc/unity.sh and tools/il2cpp-install.sh):
# knowing Unity's bdwgc fork by the files our series changes.
#
# A Unity installation ships a pruned copy of the fork (no autotools
# files, docs, most tests; libatomic_ops/ filled in), and the 2021.3 and
# 2022.3 releases an older commit than 6000.  So a tree is known by the
# sha256 of exactly the files bdwgc/patches-unity/series touches, looked
# up in bdwgc/patches-unity/known-forks (one row per commit and file);
# every other file may be anything, or absent.
#
#   uf_touched PATCHDIR          the files the series touches, sorted
#   uf_found DIR PATCHDIR        "path sha256" per touched file ("-": absent)
#   uf_match FOUND TABLE         "commit era" per known commit whose rows
#                                all match FOUND (a file of uf_found lines)
#   uf_report FOUND TABLE        one line per touched file that is not as
#                                every known commit has it: what it is
#   uf_describe DIR              what the tree says it is (version, era)
#   uf_apply DIR PATCHDIR        apply the series to DIR: each patch first
#                                with --dry-run, both without fuzz; on a
#                                failure, patch's words on stderr, status 1
#   uf_sha256 FILE               a file's sha256 (sha256sum or shasum;
#                                $uf_sha is that command, for many files)

if command -v sha256sum >/dev/null 2>&1; then uf_sha=sha256sum
else uf_sha="shasum -a 256"; fi
uf_sha256() { $uf_sha "$1" | cut -d' ' -f1; }

uf_series() { sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$1/series"; }

uf_touched() {
  uf_series "$1" | while read -r p; do
    sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1/$p"
  done | LC_ALL=C sort -u
}

uf_found() {
  uf_touched "$2" | while read -r f; do
    if [ -f "$1/$f" ]; then printf '%s %s\n' "$f" "$(uf_sha256 "$1/$f")"
    else printf '%s -\n' "$f"; fi
  done
}

uf_match() {
  awk 'NR == FNR { have[$1] = $2; n++; next }
       /^#/ || NF < 4 { next }
       { c = $1; if (!(c in rows)) order[++k] = c
         era[c] = $2; rows[c]++; if (have[$4] == $3) ok[c]++ }
       END { for (i = 1; i <= k; i++) { c = order[i]
               if (rows[c] == n && ok[c] == n) print c, era[c] } }' "$1" "$2"
}

uf_report() {
  awk 'NR == FNR { if ($1 !~ /^#/ && NF >= 4) {
                     if (!($1 in seen)) { seen[$1] = 1; nc++ }
                     key = $4 " " $3; by[key] = by[key] " " substr($1, 1, 8)
                     cnt[key]++ }
                   next }
       $2 == "-" { print "  " $1 ": absent"; next }
       { key = $1 " " $2
         if (!(key in by))
           print "  " $1 ": sha256 " $2 ", in no known commit"
         else if (cnt[key] < nc)
           print "  " $1 ": as in" by[key] " only" }' "$2" "$1"
}

uf_describe() {
  v=$(for w in MAJOR MINOR MICRO; do
         sed -n "s/^#define GC_TMP_VERSION_$w \([0-9]*\).*/\1/p" \
           "$1/include/gc_version.h" 2>/dev/null
       done | tr '\n' . | sed 's/\.$//')
  [ -n "$v" ] || v="unknown (no include/gc_version.h)"
  if grep -q GC_heap_section_type "$1/include/gc.h" 2>/dev/null; then
    e="4-argument GC_foreach_heap_section (Unity 2023.2.10+ and 6000)"
  elif grep -q GC_get_heap_section_count "$1/include/gc.h" 2>/dev/null; then
    e="3-argument GC_foreach_heap_section (Unity 2019.4 to 2023.2.7)"
  else e="no Unity heap-section API in include/gc.h"; fi
  printf 'bdwgc %s, %s\n' "$v" "$e"
}

uf_apply() {
  for p in $(uf_series "$2"); do
    [ -f "$2/$p" ] || { echo "the series names $p, which does not exist" >&2
                        return 1; }
    for how in --dry-run ''; do
      # shellcheck disable=SC2086
      out=$(cd "$1" && patch -p1 --forward --batch --fuzz=0 \
              --no-backup-if-mismatch -r - $how < "$2/$p" 2>&1) || {
        printf '%s\n' "$out" | sed 's/^/  patch: /' >&2
        echo "$p does not apply exactly (no fuzz allowed)" >&2
        return 1; }
    done
  done
}
