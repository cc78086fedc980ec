package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// session is one conversation and the harness it runs on.
type session struct {
	id string
	h  *harness.Harness
	as *agent.Session

	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
}

func (se *session) cancelRun() {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.cancel != nil {
		se.cancel()
	}
}

// runLimits bound a run started by a code action.
type runLimits struct {
	maxTurns int
	onlyPath string // the one file the run may edit
	title    string // progress title
}

// prompt runs the agent on p and returns how the run ended. Cancelling ctx
// ($/cancelRequest), agent/cancel and the client going away all end the
// run with reason "aborted", as a normal result.
func (s *Server) prompt(ctx context.Context, p PromptParams, lim runLimits) (*PromptResult, error) {
	if p.Mode != "" && p.Mode != harness.ModeDefault && p.Mode != harness.ModeReadOnly {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "mode %q: use %q or %q", p.Mode, harness.ModeDefault, harness.ModeReadOnly)
	}
	se, err := s.session(p.SessionID, lim)
	if err != nil {
		return nil, err
	}
	if p.Mode != "" {
		se.h.SetReadOnly(p.Mode == harness.ModeReadOnly)
	}
	se.mu.Lock()
	if se.running {
		se.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "session %s is already running a prompt", se.id)
	}
	runCtx, cancel := context.WithCancel(ctx)
	se.running, se.cancel = true, cancel
	se.mu.Unlock()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		cancel()
		se.mu.Lock()
		se.running, se.cancel = false, nil
		se.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the server is exiting")
	}
	s.runs.Add(1)
	s.mu.Unlock()
	stopAfter := context.AfterFunc(s.ctx, cancel)
	defer func() {
		stopAfter()
		cancel()
		se.mu.Lock()
		se.running, se.cancel = false, nil
		se.mu.Unlock()
		s.runs.Done()
	}()

	prompt := s.withContext(runCtx, se, p)
	title := lim.title
	if title == "" {
		title = text.OneLine(p.Prompt, 60)
	}
	prog := s.beginProgress(runCtx, title, cancel)
	obs := func(ev agent.Event) {
		s.sendEvent(se.id, ev)
		if ev.Type == agent.EvToolStart && ev.Tool != nil {
			prog.report("running " + ev.Tool.Name)
		}
	}
	res := se.h.Agent.Run(runCtx, se.as, prompt, obs)
	prog.end(string(res.Reason))
	if lim.onlyPath != "" || lim.maxTurns > 0 {
		// A code action's session is one run; it is not continued.
		s.mu.Lock()
		delete(s.sessions, se.id)
		s.mu.Unlock()
		se.close()
	}
	return &PromptResult{SessionID: se.id, Result: res}, nil
}

// session returns the session id names: one in memory, else a recorded
// one resumed from its transcript (also after a restart of the server),
// else a new recorded session when id is empty.
func (s *Server) session(id string, lim runLimits) (*session, error) {
	s.mu.Lock()
	if se, ok := s.sessions[id]; ok && id != "" {
		s.mu.Unlock()
		return se, nil
	}
	s.mu.Unlock()
	in := s.init.Load()
	var ws tools.Workspace = in.ws
	if lim.onlyPath != "" {
		ws = in.ws.LimitTo(lim.onlyPath)
	}
	// The harness is made outside the lock: it may ask the model server
	// for its context window.
	h, err := in.factory.Build(harness.SessionOptions{Workspace: ws, Approver: s.approver, Trust: s.approver, MaxTurns: lim.maxTurns, Tools: []*tools.Tool{diagnosticsTool(in.ws)}})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "start session: %v", err)
	}
	// A known id resumes that session; an unknown one starts a session
	// under the id the client chose, so it can cancel it before the first
	// result names it.
	var as *agent.Session
	err = errors.New("new session")
	if id != "" && h.HasSession(id) {
		as, err = h.ResumeSession(id)
	}
	if err != nil {
		if !validSessionID(id) {
			h.Close()
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sessionId %q: use letters, digits, '-', '_', '.' and ':' (at most 64)", id)
		}
		if as, err = h.NewSession(id); err != nil {
			s.log.Warn("Session not recorded", "err", err)
		}
	}
	se := &session{id: as.ID, h: h, as: as}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.sessions[se.id]; ok {
		// Another request resumed the same session meanwhile: use it.
		se.close()
		return old, nil
	}
	s.sessions[se.id] = se
	return se, nil
}

// validSessionID accepts the ids a transcript file can be named after.
func validSessionID(id string) bool {
	if id == "" {
		return true
	}
	if len(id) > 64 || id[0] == '.' {
		return false
	}
	for _, r := range id {
		if !(r == '_' || r == '-' || r == '.' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// close releases the session's transcript and harness.
func (se *session) close() {
	_ = se.as.Transcript().Close()
	_ = se.h.Close()
}

// cancelSession aborts the session's run, if any.
func (s *Server) cancelSession(id string) {
	s.mu.Lock()
	se := s.sessions[id]
	s.mu.Unlock()
	if se != nil {
		se.cancelRun()
	}
}

// maxContextBytes is the largest document included whole in a prompt.
const maxContextBytes = 64 << 10

// withContext adds the document and selection the prompt is about.
func (s *Server) withContext(ctx context.Context, se *session, p PromptParams) string {
	if p.TextDocument == nil || p.TextDocument.URI == "" {
		return p.Prompt
	}
	in := s.init.Load()
	path := uriPath(p.TextDocument.URI)
	rel := path
	if r, err := filepath.Rel(in.root, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = filepath.ToSlash(r)
	}
	var text string
	if d, ok := s.docs.byURI(p.TextDocument.URI); ok {
		text = d.text
	} else if b, err := in.ws.ReadFile(ctx, rel); err == nil {
		text = string(b)
	} else {
		return p.Prompt
	}
	// The document's text at this version counts as read, for the
	// read-before-edit rule: the model saw it in the prompt.
	if len(text) <= maxContextBytes && !filepath.IsAbs(rel) {
		se.h.Reads.MarkRead(rel, []byte(text))
	}
	var b strings.Builder
	b.WriteString(p.Prompt)
	if len(text) <= maxContextBytes {
		fmt.Fprintf(&b, "\n\nThe user is looking at %s (as the editor shows it, including unsaved changes):\n```\n%s\n```\n", rel, text)
	} else {
		fmt.Fprintf(&b, "\n\nThe user is looking at %s (%d bytes, too large to include; read the parts you need with read_file).\n", rel, len(text))
	}
	if p.Range != nil {
		enc := in.enc
		m := NewMapper(text)
		a, z := m.Offset(enc, p.Range.Start), m.Offset(enc, p.Range.End)
		if a < z {
			sel := text[a:z]
			if len(sel) > maxContextBytes {
				sel = sel[:maxContextBytes] + "\n[… selection cut]"
			}
			fmt.Fprintf(&b, "\nThe selection (lines %d-%d):\n```\n%s\n```\n", p.Range.Start.Line+1, p.Range.End.Line+1, sel)
		}
	}
	return b.String()
}

// sendEvent forwards one event as agent/event with the session id.
func (s *Server) sendEvent(id string, ev agent.Event) {
	b, err := json.Marshal(ev)
	if err != nil || len(b) < 2 {
		return
	}
	head, _ := json.Marshal(id)
	msg := make([]byte, 0, len(b)+len(head)+16)
	msg = append(msg, `{"sessionId":`...)
	msg = append(msg, head...)
	msg = append(msg, ',')
	msg = append(msg, b[1:]...)
	s.c.notify(MethodEvent, json.RawMessage(msg))
}
