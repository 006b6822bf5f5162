;; SPDX-License-Identifier: MIT
;; keep.lsp: an ECL heap of mostly conses for tests/real/real_programs.sh
;; (issue 33, item 4): lists kept round after round, a shorter one dropped.
(defun build (n) (let ((acc nil)) (dotimes (i n acc) (push i acc))))
(defvar *kept* nil)
(dotimes (r 40)
  (push (build 25000) *kept*)
  (build 10000))
(format t "~D~%" (reduce #'+ (mapcar #'length *kept*)))
