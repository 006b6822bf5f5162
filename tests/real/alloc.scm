;; SPDX-License-Identifier: MIT
;; alloc.scm: an allocation-heavy Guile script for tests/real/real_programs.sh:
;; lists, bignums, strings, vectors and a hash table, with a deterministic
;; result printed at the end (the same whichever libgc runs it).
(define (build n)
  (let loop ((i 0) (acc '()))
    (if (= i n) acc (loop (+ i 1) (cons (* i i) acc)))))
(define h (make-hash-table))
(define total 0)
(do ((r 0 (+ r 1))) ((= r 60))
  (let* ((l (build 20000))
         (s (number->string (apply + l)))
         (v (list->vector l)))
    (hash-set! h r (string-append s "-" (number->string (vector-length v))))
    (set! total (+ total (string-length (hash-ref h r))))))
(display total) (newline)
(display (hash-ref h 59)) (newline)
