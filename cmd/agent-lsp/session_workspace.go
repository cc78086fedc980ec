package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/agent"
)

// sessionWorkspace resolves id ("last", a unique prefix or a full id) to a
// recorded session and returns its full id and the workspace to act on:
// the one its transcript header records. Resuming or replaying a session
// in another tree would run its commands and edits against the wrong
// files, so a --workspace (flagWS) that names a different directory is
// refused. A transcript without a recorded workspace (an old one) keeps
// flagWS, which may be empty for the current directory.
func sessionWorkspace(id, flagWS string) (fullID, ws string, err error) {
	st := agent.NewStore(sessionsDir())
	if fullID, err = st.Resolve(id); err != nil {
		return "", "", err
	}
	path, err := agent.TranscriptPath(st.Dir, fullID)
	if err != nil {
		return "", "", err
	}
	l, err := agent.LoadSession(path)
	if err != nil {
		return "", "", err
	}
	rec := l.Header.Workspace
	if rec == "" {
		return fullID, flagWS, nil
	}
	if st, err := os.Stat(rec); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("session %s was recorded in %s, which is no longer a directory", fullID, rec)
	}
	if flagWS == "" {
		return fullID, rec, nil
	}
	want, err := canonicalDir(flagWS)
	if err != nil {
		return "", "", err
	}
	if got, err := canonicalDir(rec); err != nil || got != want {
		return "", "", fmt.Errorf("session %s belongs to the workspace %s, not %s: run it without --workspace (it uses the session's own), or start a new session there", fullID, rec, want)
	}
	return fullID, rec, nil
}

// canonicalDir is dir made absolute with its symbolic links resolved, so
// that two spellings of one directory compare equal.
func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}
