package acp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
)

// Options configure the agent.
type Options struct {
	// Log receives the logs (stderr: stdout is the wire).
	Log *slog.Logger
	// UserConfig is the user's config file; empty means the default.
	UserConfig string
	// StateDir holds the transcripts; empty means the default.
	StateDir string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Settings are the command line's (endpoint, model): they beat the
	// environment and the configuration files.
	Settings harness.Settings
	// Version is agent-lsp's version, shown as agentInfo.version.
	Version string
	// ApprovalTimeout bounds a permission request (DefaultApprovalTimeout).
	ApprovalTimeout time.Duration
}

// Server is the ACP agent over one connection.
type Server struct {
	opts Options
	log  *slog.Logger
	c    *conn

	mu          sync.Mutex
	initialized bool
	fsRead      bool
	fsWrite     bool
	sessions    map[string]*session
	factories   map[string]*harness.Factory
	closing     bool
	work        sync.WaitGroup
}

// Serve speaks ACP on in and out until in ends or ctx is done, then
// cancels every run, waits for them (their commands killed) and releases
// the sessions.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	if opts.StateDir == "" {
		getenv := opts.Getenv
		if getenv == nil {
			getenv = defaultGetenv
		}
		opts.StateDir = harness.DefaultStateDir(getenv)
	}
	s := &Server{opts: opts, log: opts.Log, sessions: map[string]*session{}, factories: map[string]*harness.Factory{}}
	s.c = newConn(in, out, s, opts.Log)
	go s.c.run()
	select {
	case <-s.c.Done():
	case <-ctx.Done():
		s.c.close()
	}
	s.shutdown()
	return nil
}

// shutdown cancels the runs, waits for the handlers and closes sessions.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	for _, se := range s.sessions {
		se.cancelRun()
	}
	s.mu.Unlock()
	s.work.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, se := range s.sessions {
		se.close()
		delete(s.sessions, id)
	}
}

// methods are the requests this agent answers; each runs on its own
// goroutine, except that session/prompt claims its session first, in wire
// order, so a session/cancel right after it finds the run.
var methods = map[string]func(*Server, *request) (any, error){
	"authenticate":     (*Server).authenticate,
	"session/new":      (*Server).newSession,
	"session/load":     (*Server).loadSession,
	"session/list":     (*Server).listSessions,
	"session/set_mode": (*Server).setMode,
}

// Request routes one request (called on the read loop).
func (s *Server) Request(r *request) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		r.Reply(nil, errorf(CodeInternalError, "the agent is shutting down"))
		return
	}
	s.work.Add(1)
	s.mu.Unlock()
	if r.Method == "initialize" {
		// Inline: a request sent right after it sees the capabilities.
		defer s.work.Done()
		r.Reply(s.initialize(r))
		return
	}
	if r.Method == "session/prompt" {
		run, err := s.claimPrompt(r)
		if err != nil {
			s.work.Done()
			r.Reply(nil, err)
			return
		}
		go func() {
			defer s.work.Done()
			r.Reply(run())
		}()
		return
	}
	fn, ok := methods[r.Method]
	if !ok {
		s.work.Done()
		r.Reply(nil, errorf(CodeMethodNotFound, "method %q is not supported by agent-lsp (see docs/acp.md)", r.Method))
		return
	}
	go func() {
		defer s.work.Done()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("Handler panicked", "method", r.Method, "panic", v)
				r.Reply(nil, errorf(CodeInternalError, "%s failed: agent-lsp bug: %v", r.Method, v))
			}
		}()
		r.Reply(fn(s, r))
	}()
}

// Notify handles a notification (called on the read loop, in order).
func (s *Server) Notify(method string, params json.RawMessage) {
	switch method {
	case "session/cancel":
		var p sessionRef
		if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" {
			s.log.Warn("session/cancel without a sessionId", "params", string(params))
			return
		}
		s.mu.Lock()
		se := s.sessions[p.SessionID]
		s.mu.Unlock()
		if se == nil {
			s.log.Warn("session/cancel for an unknown session", "sessionId", p.SessionID)
			return
		}
		se.cancelRun()
	default:
		s.log.Info("Notification ignored", "method", method)
	}
}

// decode reads a request's params strictly enough to give a clear error.
func decode(r *request, v any) error {
	if len(r.Params) == 0 || string(r.Params) == "null" {
		return errorf(CodeInvalidParams, "%s needs params", r.Method)
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return errorf(CodeInvalidParams, "%s: invalid params: %v", r.Method, err)
	}
	return nil
}

func (s *Server) initialize(r *request) (any, error) {
	var p initializeParams
	if err := decode(r, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, errorf(CodeInvalidParams, "initialize: protocolVersion is required")
	}
	s.mu.Lock()
	s.initialized = true
	s.fsRead, s.fsWrite = p.ClientCaps.FS.ReadTextFile, p.ClientCaps.FS.WriteTextFile
	s.mu.Unlock()
	if p.ClientInfo != nil {
		s.log.Info("Client", "name", p.ClientInfo.Name, "version", p.ClientInfo.Version, "protocolVersion", *p.ProtocolVersion)
	}
	res := initializeResult{ProtocolVersion: ProtocolVersion, AuthMethods: []any{}, AgentInfo: implementation{Name: "agent-lsp", Title: "agent-lsp", Version: s.opts.Version}}
	res.AgentCaps.LoadSession = true
	res.AgentCaps.Prompt.EmbeddedContext = true
	res.AgentCaps.Session.List = &struct{}{}
	// The mcpServers of session/new start with the session: stdio (which
	// every agent takes) and streamable HTTP; not SSE.
	res.AgentCaps.MCP.HTTP = true
	return res, nil
}

// authenticate is never needed (authMethods is empty: the endpoint and
// key come from the configuration), but a client may still call it.
func (s *Server) authenticate(r *request) (any, error) {
	return struct{}{}, nil
}

func (s *Server) requireInit(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.initialized {
		return errorf(CodeInvalidRequest, "%s before initialize: call initialize first", method)
	}
	return nil
}

// lookup returns a live session.
func (s *Server) lookup(method, id string) (*session, error) {
	if err := s.requireInit(method); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errorf(CodeInvalidParams, "%s: sessionId is required", method)
	}
	s.mu.Lock()
	se := s.sessions[id]
	s.mu.Unlock()
	if se == nil {
		return nil, errorf(CodeNotFound, "%s: no session %q in this connection: create one with session/new or open a recorded one with session/load", method, id)
	}
	return se, nil
}

func (s *Server) setMode(r *request) (any, error) {
	var p setModeParams
	if err := decode(r, &p); err != nil {
		return nil, err
	}
	se, err := s.lookup(r.Method, p.SessionID)
	if err != nil {
		return nil, err
	}
	switch p.ModeID {
	case harness.ModeDefault, harness.ModeReadOnly:
	default:
		return nil, errorf(CodeInvalidParams, "session/set_mode: no mode %q (modes: %s, %s)", p.ModeID, harness.ModeDefault, harness.ModeReadOnly)
	}
	se.h.SetReadOnly(p.ModeID == harness.ModeReadOnly)
	return struct{}{}, nil
}

// modes is the session's mode state.
func modes(readOnly bool) *modeState {
	cur := harness.ModeDefault
	if readOnly {
		cur = harness.ModeReadOnly
	}
	return &modeState{CurrentModeID: cur, AvailableModes: []sessionMode{
		{ID: harness.ModeDefault, Name: "Default", Description: "Edits and commands under agent-lsp's permission rules; risky calls ask first"},
		{ID: harness.ModeReadOnly, Name: "Read-only", Description: "Planning: read and search only; no edits, no commands"},
	}}
}
