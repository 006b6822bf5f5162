;; SPDX-License-Identifier: MIT
;; parent.scm: a Guile script that runs a child Guile (system*) between
;; two rounds of allocation, for tests/real/real_programs.sh: with
;; GC_ACC_DUMP lacking %p both processes are given one file; the
;; parent's dump must stay whole.
(define (churn n)
  (let loop ((i 0) (acc '()))
    (if (= i n) (length acc) (loop (+ i 1) (cons (make-string 8 #\x) acc)))))
(display (churn 200000)) (newline)
(define st (system* "guile-3.0" "--no-auto-compile" "-c"
                    "(display (length (iota 300000))) (newline)"))
(display (status:exit-val st)) (newline)
(display (churn 200000)) (newline)
