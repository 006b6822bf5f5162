;; SPDX-License-Identifier: MIT
;; alloc.lsp: an allocation-heavy ECL script for tests/real/real_programs.sh:
;; lists, bignums, strings, vectors and a hash table, with a deterministic
;; result printed at the end (the same whichever libgc runs it).
(defun build (n) (let ((acc nil)) (dotimes (i n acc) (push (* i i) acc))))
(defvar *h* (make-hash-table))
(defvar *total* 0)
(dotimes (r 60)
  (let* ((l (build 20000))
         (s (format nil "~D" (reduce #'+ l)))
         (v (coerce l 'vector)))
    (setf (gethash r *h*)
          (concatenate 'string s "-" (format nil "~D" (length v))))
    (incf *total* (length (gethash r *h*)))))
(format t "~D~%~A~%" *total* (gethash 59 *h*))
