;; SPDX-License-Identifier: MIT
;; keep.scm: a Guile heap of mostly 16-byte pairs for tests/real/real_programs.sh
;; (issue 33, item 4): lists kept round after round, a shorter one dropped.
(define (build n)
  (let loop ((i 0) (acc '()))
    (if (= i n) acc (loop (+ i 1) (cons i acc)))))
(define kept '())
(do ((r 0 (+ r 1))) ((= r 40))
  (set! kept (cons (build 25000) kept))
  (build 10000))
(display (apply + (map length kept))) (newline)
