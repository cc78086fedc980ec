package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// session is one conversation and the harness it runs on.
type session struct {
	id    string
	h     *harness.Harness
	as    *agent.Session
	model string // the model override it was built with ("" = configured)

	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	run     int // counts runs, so a run ends only its own running state
}

// lookup returns the live session id, or nil.
func (s *Server) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// busy reports whether the session is running a prompt.
func (se *session) busy() bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.running
}

// runEnded clears the running state of run n, unless a later run has
// started meanwhile.
func (se *session) runEnded(n int) {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.run == n {
		se.running, se.cancel = false, nil
	}
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
	origin   string // run_start's origin: "fix", "rewrite", "edit" ("prompt" when empty)
}

// prompt runs the agent on p and returns how the run ended. Cancelling ctx
// ($/cancelRequest), agent/cancel and the client going away all end the
// run with reason "aborted", as a normal result.
func (s *Server) prompt(ctx context.Context, p PromptParams, lim runLimits) (*PromptResult, error) {
	if p.Mode != "" && p.Mode != harness.ModeDefault && p.Mode != harness.ModeReadOnly {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "mode %q: use %q or %q", p.Mode, harness.ModeDefault, harness.ModeReadOnly)
	}
	se, err := s.session(p.SessionID, lim, p.Model)
	if err != nil {
		return nil, err
	}
	if p.Model != "" && p.Model != se.model {
		// Another model from now on: the session goes on from its
		// transcript on a harness built for that model.
		if se, err = s.switchModel(se, lim, p.Model); err != nil {
			return nil, err
		}
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
	se.run++
	thisRun := se.run
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
		se.runEnded(thisRun)
		s.runs.Done()
	}()

	runCtx = context.WithValue(runCtx, sessionKey{}, se.id)
	prompt := s.withContext(runCtx, se, p)
	title := lim.title
	if title == "" {
		title = text.OneLine(p.Prompt, 60)
	}
	s.sendRunStart(se, p, lim, title)
	prog := s.beginProgress(runCtx, title, cancel)
	window := se.h.AgentConfig.Context.EffectiveWindow()
	var last agent.Usage
	obs := func(ev agent.Event) {
		if ev.Type == agent.EvEnd {
			// The run is over (its journal turn and transcript are
			// closed): a client that acts on this event, say with
			// agent/undo, must not find the session still running.
			se.runEnded(thisRun)
		}
		s.sendEvent(se.id, ev)
		switch {
		case ev.Type == agent.EvToolStart && ev.Tool != nil:
			prog.report("running " + ev.Tool.Name)
		case ev.Type == agent.EvUsage && ev.Usage != nil:
			// Usage events carry the run's running total; the prompt of
			// the request that just ended is what fills the window.
			if in := ev.Usage.InputTokens - last.InputTokens; in > 0 {
				s.c.notify(MethodEvent, ContextEvent{SessionID: se.id, Type: "context", Tokens: in, Window: window})
			}
			last = *ev.Usage
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
func (s *Server) session(id string, lim runLimits, model string) (*session, error) {
	if se := s.lookup(id); se != nil && id != "" {
		return se, nil
	}
	in := s.init.Load()
	var ws tools.Workspace = in.ws
	if lim.onlyPath != "" {
		ws = in.ws.LimitTo(lim.onlyPath)
	}
	// The harness is made outside the lock: it may ask the model server
	// for its context window.
	h, err := in.factory.Build(harness.SessionOptions{Workspace: ws, Approver: s.approver, Trust: s.approver, MaxTurns: lim.maxTurns, Model: model, Tools: []*tools.Tool{diagnosticsTool(in.ws)}})
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
	se := &session{id: as.ID, h: h, as: as, model: model}
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

// switchModel replaces an idle session's harness by one for model; the
// conversation goes on from its transcript. An unrecorded session keeps
// its model (it has nothing to resume from).
func (s *Server) switchModel(se *session, lim runLimits, model string) (*session, error) {
	if se.busy() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "session %s is already running a prompt", se.id)
	}
	if !se.h.HasSession(se.id) {
		s.log.Warn("Model not switched: the session is not recorded", "session", se.id, "model", model)
		return se, nil
	}
	s.mu.Lock()
	if s.sessions[se.id] == se {
		delete(s.sessions, se.id)
	}
	s.mu.Unlock()
	se.close()
	return s.session(se.id, lim, model)
}

// sendRunStart announces a run (run_start), so a chat shows the runs it
// did not start itself, the code actions', as their own turns.
func (s *Server) sendRunStart(se *session, p PromptParams, lim runLimits, title string) {
	ev := RunStartEvent{SessionID: se.id, Type: "run_start", Origin: lim.origin, Title: title, Prompt: p.Prompt, Model: se.model}
	if ev.Origin == "" {
		ev.Origin = "prompt"
	}
	if p.TextDocument != nil && p.TextDocument.URI != "" {
		ev.Context = s.relPath(uriPath(p.TextDocument.URI))
		if r := p.Range; r != nil {
			a, z := r.Start.Line+1, r.End.Line+1
			if r.End.Character == 0 && r.End.Line > r.Start.Line {
				z--
			}
			if a == z {
				ev.Context += fmt.Sprintf(":%d", a)
			} else {
				ev.Context += fmt.Sprintf(":%d-%d", a, z)
			}
		}
	}
	s.c.notify(MethodEvent, ev)
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
	if se := s.lookup(id); se != nil {
		se.cancelRun()
	}
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
