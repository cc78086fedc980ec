package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/changes"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/tools"
)

// UndoLabel starts the label of every edit an undo sends.
const UndoLabel = "agent-lsp: undo"

// ChangesParams are agent/changes's params.
type ChangesParams struct {
	SessionID string `json:"sessionId"`
	// Contents adds each file's text before and after (text files only).
	Contents bool `json:"contents,omitempty"`
}

// ChangesResult lists a session's turns, oldest first.
type ChangesResult struct {
	SessionID string       `json:"sessionId"`
	Turns     []ChangeTurn `json:"turns"`
}

// ChangeTurn is one turn (one prompt) and the files it changed.
type ChangeTurn struct {
	Turn    int           `json:"turn"`
	Prompt  string        `json:"prompt"`
	Time    string        `json:"time"`
	Undone  bool          `json:"undone"`
	Files   []ChangedFile `json:"files"`
	Ignored []string      `json:"ignored,omitempty"`
	// Conflicts are the files the undo left as the user had them.
	Conflicts []UndoConflict `json:"conflicts,omitempty"`
}

// ChangedFile is one file of a turn.
type ChangedFile struct {
	URI     string `json:"uri"`
	FromURI string `json:"fromUri,omitempty"`
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Tool    string `json:"tool"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Diff is a unified diff; empty for binary files and files whose
	// content was not kept (NotKept says why).
	Diff    string  `json:"diff"`
	Binary  bool    `json:"binary,omitempty"`
	NotKept string  `json:"notKept,omitempty"`
	Before  *string `json:"before,omitempty"`
	After   *string `json:"after,omitempty"`
}

// UndoParams are agent/undo's params.
type UndoParams struct {
	SessionID string `json:"sessionId"`
	// Turns is how many of the last turns not yet undone to take back (1
	// when absent), or "all".
	Turns json.RawMessage `json:"turns,omitempty"`
	// Turn, when set, takes back that turn alone.
	Turn int `json:"turn,omitempty"`
}

// UndoResult says what an undo did.
type UndoResult struct {
	Turns     []int          `json:"turns"`
	Reverted  []string       `json:"reverted"`
	Conflicts []UndoConflict `json:"conflicts"`
}

// UndoConflict is a file (wholly or partly) left as the user has it.
type UndoConflict struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// journal returns session id's change journal: the running session's, or
// the one recorded in the state directory.
func (s *Server) journal(id string) (*changes.Journal, func(), error) {
	if !validSessionID(id) || id == "" {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sessionId %q is not a session id", id)
	}
	if se := s.lookup(id); se != nil {
		j, err := se.h.Changes(id)
		if err != nil {
			return nil, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		return j, func() {}, nil
	}
	sessions := harness.SessionsDir(s.init.Load().factory.StateDir())
	if _, err := os.Stat(filepath.Join(sessions, id+".jsonl")); err != nil {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no session %s", id)
	}
	j, err := changes.Open(changes.Dir(sessions, id))
	if err != nil {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
	}
	return j, func() { j.Close() }, nil
}

// fileURI is the URI of a workspace-relative path.
func (s *Server) fileURI(rel string) string {
	return string(uri.File(filepath.Join(s.init.Load().root, filepath.FromSlash(rel))))
}

// listChanges answers agent/changes.
func (s *Server) listChanges(p ChangesParams) (*ChangesResult, error) {
	j, done, err := s.journal(p.SessionID)
	if err != nil {
		return nil, err
	}
	defer done()
	res := &ChangesResult{SessionID: p.SessionID, Turns: []ChangeTurn{}}
	for _, t := range j.Turns() {
		ct := ChangeTurn{Turn: t.N, Prompt: t.Prompt, Time: t.Time.Format("2006-01-02T15:04:05Z"), Undone: t.Undone, Files: []ChangedFile{}, Ignored: t.Ignored}
		for _, c := range t.Conflicts {
			ct.Conflicts = append(ct.Conflicts, UndoConflict{URI: s.fileURI(c.Path), Reason: c.Reason})
		}
		for _, f := range t.Files {
			cf := ChangedFile{URI: s.fileURI(f.Path), Path: f.Path, Kind: string(f.Kind), Tool: f.Tool, Added: f.Added, Removed: f.Removed, Binary: f.Binary, NotKept: f.NotKept}
			if f.From != "" {
				cf.FromURI = s.fileURI(f.From)
			}
			cf.Diff = j.Diff(f)
			if p.Contents && !f.Binary && f.NotKept == "" {
				if b, err := j.Content(f.Before); err == nil {
					text := string(b)
					cf.Before = &text
				}
				if a, err := j.Content(f.After); err == nil {
					text := string(a)
					cf.After = &text
				}
			}
			ct.Files = append(ct.Files, cf)
		}
		res.Turns = append(res.Turns, ct)
	}
	return res, nil
}

// undo answers agent/undo: the plan is worked out against what the
// editor shows (unsaved text included) and carried out as applyEdit
// requests, so open buffers change in place and the editor's own undo can
// take the undo back.
func (s *Server) undo(ctx context.Context, p UndoParams) (*UndoResult, error) {
	sel := changes.Selection{Turn: p.Turn}
	if len(p.Turns) > 0 && string(p.Turns) != "null" {
		var n int
		var all string
		switch {
		case json.Unmarshal(p.Turns, &n) == nil && n > 0:
			sel.Last = n
		case json.Unmarshal(p.Turns, &all) == nil && all == "all":
			sel.All = true
		default:
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "turns: give a number of turns (1 or more) or \"all\"")
		}
	}
	if s.isRunning(p.SessionID) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "session %s is running a prompt; cancel it or wait for its end before undoing", p.SessionID)
	}
	j, done, err := s.journal(p.SessionID)
	if err != nil {
		return nil, err
	}
	defer done()
	ws := s.init.Load().ws
	plan, err := j.Plan(ctx, sel, ws.ReadFile)
	if errors.Is(err, changes.ErrNothing) {
		return &UndoResult{Turns: []int{}, Reverted: []string{}, Conflicts: []UndoConflict{}}, nil
	}
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	var failed []changes.Conflict
	for _, op := range plan.Ops {
		var err error
		switch op.Kind {
		case changes.OpDelete:
			err = ws.DeleteFile(ctx, op.Path, op.Old)
		default:
			err = ws.ApplyEdit(ctx, tools.Change{Path: op.Path, Old: op.Old, New: op.New, Label: UndoLabel + " " + op.Path})
		}
		if err != nil {
			reason := "not undone: " + err.Error()
			if errors.Is(err, tools.ErrConflict) {
				reason = "not undone: the file changed while the undo ran, or the editor refused the edit"
			}
			failed = append(failed, changes.Conflict{Path: op.Path, Reason: reason})
		}
	}
	plan.Merge(failed)
	if err := j.Undone(plan.Turns, plan.Conflicts); err != nil {
		s.log.Warn("Undo not recorded in the journal", "session", p.SessionID, "err", err)
	}
	res := &UndoResult{Turns: plan.Turns, Reverted: []string{}, Conflicts: []UndoConflict{}}
	for _, r := range plan.Reverted {
		res.Reverted = append(res.Reverted, s.fileURI(r))
	}
	for _, c := range plan.Conflicts {
		res.Conflicts = append(res.Conflicts, UndoConflict{URI: s.fileURI(c.Path), Reason: c.Reason})
	}
	return res, nil
}
