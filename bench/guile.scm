;; SPDX-License-Identifier: MIT
;; guile.scm: the Guile workload of bench/guile-ratio.sh.  A live set of
;; some 200,000 pairs in 2,000 lists that keeps changing, and short-lived
;; lists beside it: most of the collector's time is marking, as in a
;; long-running Scheme program.  Prints one deterministic number.
(define rounds (string->number (or (getenv "BENCH_GUILE_ROUNDS") "1000")))
(define live (make-vector 2000 '()))
(define (build n)
  (let loop ((i 0) (acc '()))
    (if (= i n) acc (loop (+ i 1) (cons i acc)))))
(define total 0)
(do ((r 0 (+ r 1))) ((= r rounds))
  (vector-set! live (modulo (* r 7) 2000) (build 100))
  (let ((tmp (build 2000)))
    (set! total (+ total (length tmp)
                   (length (vector-ref live (modulo r 2000)))))))
(display total) (newline)
(display (assq-ref (gc-stats) 'gc-times)) (newline)
