#!/bin/sh
# SPDX-License-Identifier: MIT
# leaks_guile.sh: `gcacc leaks` on real programs (issue 34): Debian's
# Guile 3.0 (it links libgc.so.1) run against this build's libgc, with
# accounting on and the dump in the default profile:
#   - keep: builds a list, a hash table and strings once, keeps them until
#     exit: weak evidence ("little churn"), exit 0 (before levels: exit 1);
#   - modules: loads Guile's ice-9 and srfi modules from source, as Guile's
#     test suite loads its files: weak ("work changes"), exit 0 (before:
#     exit 1, some 8 size classes);
#   - leak: the same work each iteration (a list built and dropped) and a
#     string appended to a global list: a strong leak, exit 1, the
#     strings' class.
# Skips without guile-3.0, or when its libgc.so.1 is not this build's.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"
need guile-3.0 "guile-3.0 not installed (tools/setup-debian.sh installs it)"
lib=$(pwd)/bdwgc/upstream/.libs
guile=$(command -v guile-3.0)
LD_LIBRARY_PATH=$lib ldd "$guile" 2>/dev/null |
  grep -q "libgc.so.1 => $lib/libgc.so.1" ||
  { echo "SKIP: $guile does not load $lib/libgc.so.1"; exit 77; }

# guile NAME SCRIPT: run SCRIPT under this libgc, the dump $tmp/NAME.gz
guile() {
  env -u GC_ACC_PROFILE LD_LIBRARY_PATH="$lib" GC_ACC_ENABLE=1 \
    GC_ACC_DUMP="$tmp/$1.gz" "$guile" --no-auto-compile "$2" \
    >"$tmp/$1.out" 2>"$tmp/$1.err" ||
    { echo "FAIL: guile $1 exited $?"; sed 's/^/  | /' "$tmp/$1.err"; exit 1; }
  [ -s "$tmp/$1.gz" ] || { echo "FAIL: guile $1 wrote no dump"; exit 1; }
}

cat >"$tmp/keep.scm" <<'SCM'
;; Build a list, a hash table and strings once; keep them until exit.
(define lst (let loop ((i 0) (acc '()))
              (if (= i 2000000) acc (loop (+ i 1) (cons (* i 2) acc)))))
(define tbl (make-hash-table))
(let loop ((i 0))
  (when (< i 500000) (hash-set! tbl i (number->string i)) (loop (+ i 1))))
(define strs (let loop ((i 0) (acc '()))
               (if (= i 500000) acc
                   (loop (+ i 1) (cons (make-string 40 #\a) acc)))))
(display (+ (length lst) (hash-count (const #t) tbl) (length strs)))
(newline)
SCM
cat >"$tmp/leak.scm" <<'SCM'
;; The same work each iteration (a list of 2000 built and summed, then
;; dropped), and one 200-byte string more kept in a global list.
(define kept '())
(define (work i)
  (let* ((tmp (map (lambda (j) (* i j)) (iota 2000)))
         (s (apply + tmp)))
    (set! kept (cons (make-string 200 #\x) kept))
    s))
(let loop ((i 0)) (when (< i 6000) (work i) (loop (+ i 1))))
(display (length kept))
(newline)
SCM
# The modules of Guile's own ice-9 and srfi folders (those that define
# the module their path names), loaded from source: no compiled files.
dir=$("$guile" -c '(display (%library-dir))')
{
  echo "(set! %load-compiled-path '())"
  echo "(define n 0)"
  (cd "$dir" && for f in ice-9/*.scm srfi/*.scm; do
     m=$(echo "${f%.scm}" | tr / ' ')
     grep -q "^(define-module ($m)" "$f" &&
       echo "(catch #t (lambda () (resolve-interface '($m)) (set! n (+ n 1)))
         (lambda _ #f))"
   done)
  echo "(display n) (newline)"
} >"$tmp/modules.scm"
guile keep "$tmp/keep.scm"
guile leak "$tmp/leak.scm"
guile modules "$tmp/modules.scm"
check_eq "keep: its data" "$(cat "$tmp/keep.out")" 3000000
check_eq "leak: the strings kept" "$(cat "$tmp/leak.out")" 6000
check_range "modules: loaded" "$(cat "$tmp/modules.out")" 50 1000

# weak NAME REASON: nothing counted (exit 0, no strong row), rows of weak
# evidence reported, REASON among their reasons (a row whose growth
# stops says that first).
weak() {
  run "$GCACC" leaks --json "$tmp/$1.gz"
  check_eq "$1: exit" "$rc" 0
  check_eq "$1: no strong row" "$(jq '[.leaks[], .leak_types[]?,
    .leak_sites[]? | select(.level != "weak")] | length' "$tmp/out")" 0
  check_range "$1: rows weak for $2" "$(jq --arg r "$2" '[.leaks[],
    .leak_sites[]? | select(.reason == $r)] | length' "$tmp/out")" 1 1000
  run "$GCACC" leaks "$tmp/$1.gz"
  check_eq "$1 table: exit" "$rc" 0
  check_grep "$1 table: weak evidence" "$tmp/out" "weak evidence, not counted"
  check_grep "$1 table: $2" "$tmp/out" "  $2:"
}
weak keep "little churn"
weak modules "work changes"
# The evidence behind: keep allocated under 4x what it kept; the modules,
# a mix of allocations that moves over 3% a window.
run "$GCACC" leaks --json "$tmp/keep.gz"
check_range "keep: churn under 4 (x1000)" \
  "$(jq '.evidence[0].churn * 1000 | floor' "$tmp/out")" 1 3999
run "$GCACC" leaks --json "$tmp/modules.gz"
check_range "modules: the mix moves over 3% (x1000)" \
  "$(jq '.evidence[0].mix_change * 1000 | floor' "$tmp/out")" 31 1000

run "$GCACC" leaks --json "$tmp/leak.gz"
check_eq "leak: exit" "$rc" 1
check_range "leak: strong rows" "$(jq '[.leaks[] | select(.level ==
  "strong")] | length' "$tmp/out")" 1 2
# The strings: 200 characters, in a pointer-free class of 200-256 bytes.
check_eq "leak: the strings' class is strong" "$(jq -r '[.leaks[]
  | select(.level == "strong" and .kind == "ptrfree")
  | .class | sub(" B$"; "") | tonumber | select(. >= 200 and . <= 256)]
  | length' "$tmp/out")" 1
check_eq "leak: by churn" "$(jq -r '[.leaks[] | select(.level ==
  "strong") | .reason] | unique | join(",")' "$tmp/out")" churn

finish
