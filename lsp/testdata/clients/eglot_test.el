;;; eglot_test.el --- agent-lsp driven by Emacs's eglot  -*- lexical-binding: t -*-
;; lsp/eglot_test.go runs it: emacs --batch -l eglot_test.el
;; (--batch without -Q: Debian's site-start puts elpa-eglot on load-path).
;; Env: AGENT_LSP_BIN, AGENT_LSP_WS (a workspace holding main.go),
;; AGENT_LSP_MODEL_URL (the scripted model: read_file main.go, str_replace
;; "old" -> "new", "main" -> "Main" everywhere, "Main() {}" -> "Main() {
;; run() }", bash "touch made.txt", then "done"). The permission
;; prompt is answered the way Enter answers it: with eglot's default, the
;; first action, which must be the safe one (Deny).
;; It uses the README's snippets: the eglot-server-programs entry with
;; :initializationOptions, and agent-lsp-ask's request. Exit status: 0 pass,
;; 1 failure, 2 timeout.
(require 'eglot)
(require 'cl-lib)

(define-derived-mode agent-test-mode prog-mode "AgentTest")

;; The README's entry, with this test's binary, model and mode. eglot also
;; sends workspace/didChangeConfiguration with {} on connect: the server
;; must keep these settings.
(add-to-list 'eglot-server-programs
             `((agent-test-mode) . (,(getenv "AGENT_LSP_BIN")
                                    :initializationOptions (:baseUrl ,(getenv "AGENT_LSP_MODEL_URL")
                                                            :model "scripted" :apiKey "k"))))

;; Batch Emacs cannot answer prompts: apply edits without asking, and
;; answer the permission prompt (completing-read) with its default, what
;; Enter would choose (eglot passes the first action's title).
(setq eglot-confirm-server-initiated-edits nil)
(setq eglot-confirm-server-edits nil)
(defvar agent-test-asked nil)
(advice-add 'completing-read :override
            (lambda (prompt collection &optional _pred _req initial &rest _)
              (push (list prompt collection initial) agent-test-asked)
              (or initial "")))

;; Idle timers never fire in --batch, and eglot sends didChange from one
;; (eglot-send-changes-idle-time): the wait sends it as that timer would,
;; so the edits eglot applies reach the server as they do interactively.
(defun agent-test-wait (what pred &optional secs)
  (with-timeout ((or secs 20) (error "timeout waiting for %s" what))
    (while (not (funcall pred))
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))
      (accept-process-output nil 0.05))))

(run-at-time 40 nil (lambda () (princ "FAIL: global timeout\n") (kill-emacs 2)))

(condition-case err
    (let* ((ws (file-name-as-directory (getenv "AGENT_LSP_WS")))
           (file (expand-file-name "main.go" ws))
           (contact (cdr (assoc '(agent-test-mode) eglot-server-programs)))
           server res)
      (find-file file)
      (agent-test-mode)
      ;; Unsaved text with an emoji before the edit.
      (erase-buffer)
      (insert "package main\n\n// 😀 say old things\nfunc main() {}\n")
      (setq server (eglot '(agent-test-mode) `(transient . ,ws) 'eglot-lsp-server contact "go"))
      (agent-test-wait "managed" #'eglot-managed-p)
      ;; The README's agent-lsp-ask, waiting for its answer.
      (eglot--signal-textDocument/didChange)
      (jsonrpc-async-request (eglot--current-server-or-lose) :agent/prompt
                             `(:prompt "say new things, then make made.txt" :textDocument ,(eglot--TextDocumentIdentifier))
                             :success-fn (lambda (r) (setq res r))
                             :error-fn (lambda (e) (setq res (list :error e)))
                             :timeout 30)
      (agent-test-wait "the agent/prompt result" (lambda () res) 30)
      (unless (equal (plist-get res :reason) "end_turn") (error "result %S" res))
      (let ((text (buffer-substring-no-properties (point-min) (point-max))))
        (unless (equal text "package Main\n\n// 😀 say new things\nfunc Main() { run() }\n") (error "buffer %S" text)))
      (unless (buffer-modified-p) (error "the buffer was saved"))
      (unless (= (length agent-test-asked) 1) (error "prompts %S" agent-test-asked))
      (let ((p (car agent-test-asked)))
        (unless (and (string-match-p "wants to run `touch made.txt`" (nth 0 p))
                     (not (string-match-p "Reason:\\|no rule matches\\|built-in default" (nth 0 p)))
                     (equal (nth 1 p) '("Deny" "Allow once" "Allow for this session"))
                     (equal (nth 2 p) "Deny"))
          (error "prompt %S" p)))
      (when (file-exists-p (expand-file-name "made.txt" ws)) (error "made.txt was created: Enter allowed the command"))
      (eglot-shutdown server)
      (princ (format "PASS: emacs %s, eglot %s: prompt, edit in buffer, permission prompt defaults to Deny, shutdown\n"
                     emacs-version (or (ignore-errors (package-get-version)) (locate-library "eglot"))))
      (set-buffer-modified-p nil)
      (kill-emacs 0))
  (error (princ (format "FAIL: %S\n" err)) (kill-emacs 1)))
