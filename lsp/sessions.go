package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Sessions in the editor: agent/sessions lists the workspace's recorded
// sessions, agent/sessionHistory shows one, agent/renameSession and
// agent/deleteSession keep the list tidy. The transcripts are the record;
// titles the user gives are kept beside them, per workspace, so the
// transcripts stay append-only.

// titlesMu serialises the read-modify-write of the titles file.
var titlesMu sync.Mutex

func (s *Server) sessionsDir() string { return harness.SessionsDir(s.init.Load().factory.StateDir()) }

func (s *Server) titlesPath() string {
	in := s.init.Load()
	return filepath.Join(harness.WorkspaceStateDir(in.factory.StateDir(), in.root), "titles.json")
}

func (s *Server) titles() map[string]string {
	m := map[string]string{}
	if b, err := os.ReadFile(s.titlesPath()); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func (s *Server) setTitle(id, title string) error {
	titlesMu.Lock()
	defer titlesMu.Unlock()
	m := s.titles()
	if title == "" {
		delete(m, id)
	} else {
		m[id] = title
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	path := s.titlesPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (s *Server) isRunning(id string) bool {
	se := s.lookup(id)
	return se != nil && se.busy()
}

func (s *Server) listSessions(_ context.Context, p SessionsParams) (any, error) {
	list, err := agent.ListSessions(s.sessionsDir())
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "list sessions: %v", err)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	root := s.init.Load().root
	titles := s.titles()
	out := SessionsResult{Sessions: []SessionSummary{}}
	for _, info := range list {
		if info.Workspace != root {
			continue
		}
		if len(out.Sessions) == limit {
			break
		}
		title := titles[info.ID]
		if title == "" {
			title = text.OneLine(promptOnly(info.FirstPrompt), 80)
		}
		out.Sessions = append(out.Sessions, SessionSummary{
			ID: info.ID, Title: title, Workspace: info.Workspace, Model: info.Model,
			Created: info.Created, Updated: info.Updated, AgeSeconds: int64(time.Since(info.Updated) / time.Second),
			Messages: info.Messages, Running: s.isRunning(info.ID),
		})
	}
	return out, nil
}

// transcript finds the transcript of a session of this workspace.
func (s *Server) transcript(id string) (string, *agent.Loaded, error) {
	if id == "" || !validSessionID(id) {
		return "", nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sessionId %q: not a session id", id)
	}
	path, err := agent.TranscriptPath(s.sessionsDir(), id)
	if err != nil {
		return "", nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sessionId %q: %v", id, err)
	}
	l, err := agent.LoadSession(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no session %q", id)
	}
	if err != nil {
		return "", nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "session %q: %v", id, err)
	}
	if l.Header.Workspace != s.init.Load().root {
		return "", nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "session %q belongs to another workspace", id)
	}
	return path, l, nil
}

func (s *Server) sessionHistory(_ context.Context, p SessionRef) (any, error) {
	_, l, err := s.transcript(p.SessionID)
	if err != nil {
		return nil, err
	}
	h := SessionHistory{SessionID: p.SessionID, Turns: []HistoryTurn{}, Usage: l.Usage, Title: s.titles()[p.SessionID]}
	calls := map[string]*HistoryCall{}
	for _, m := range l.Session.Messages() {
		switch {
		case m.Role == agent.RoleUser && m.Name == "" && !strings.HasPrefix(m.Content, "<context-update>"):
			h.Turns = append(h.Turns, HistoryTurn{Role: "user", Text: promptOnly(m.Content)})
			if h.Title == "" {
				h.Title = text.OneLine(promptOnly(m.Content), 80)
			}
		case m.Role == agent.RoleAssistant:
			t := HistoryTurn{Role: "assistant", Text: m.Content}
			for _, c := range m.ToolCalls {
				t.ToolCalls = append(t.ToolCalls, HistoryCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
			h.Turns = append(h.Turns, t)
			last := &h.Turns[len(h.Turns)-1]
			for i := range last.ToolCalls {
				calls[last.ToolCalls[i].ID] = &last.ToolCalls[i]
			}
		case m.Role == agent.RoleTool:
			if c := calls[m.ToolCallID]; c != nil {
				c.Result, c.IsError = m.Content, m.IsError
			}
		}
	}
	if l.Last != nil {
		for i := len(h.Turns) - 1; i >= 0; i-- {
			if h.Turns[i].Role == "assistant" {
				h.Turns[i].Ending = string(l.Last.Reason)
				break
			}
		}
	}
	return h, nil
}

func (s *Server) renameSession(_ context.Context, p RenameSessionParams) (any, error) {
	if _, _, err := s.transcript(p.SessionID); err != nil {
		return nil, err
	}
	if err := s.setTitle(p.SessionID, text.OneLine(p.Title, 200)); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "rename: %v", err)
	}
	return nil, nil
}

func (s *Server) deleteSession(_ context.Context, p SessionRef) (any, error) {
	path, _, err := s.transcript(p.SessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	se := s.sessions[p.SessionID]
	if se != nil {
		if se.busy() {
			s.mu.Unlock()
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "session %s is running; stop it first", p.SessionID)
		}
		delete(s.sessions, p.SessionID)
	}
	s.mu.Unlock()
	if se != nil {
		se.close()
	}
	if err := os.Remove(path); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "delete: %v", err)
	}
	_ = os.RemoveAll(agent.NewStore(s.sessionsDir()).SpillDir(p.SessionID))
	_ = s.setTitle(p.SessionID, "")
	return nil, nil
}
