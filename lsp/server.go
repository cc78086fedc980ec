// Package lsp puts the agent inside the editor: a language server over one
// stream that keeps the editor's documents, runs agent sessions against
// them, and turns the agent's edits into workspace/applyEdit. Rules:
//  1. notifications are handled inline, in wire order (didChange is never
//     reordered); requests that may block run asynchronously;
//  2. client input never panics the server: bad params get a JSON-RPC
//     error, bad notifications a logged warning;
//  3. stdout is the wire: logs go to stderr and window/logMessage;
//  4. when the client goes away every run is cancelled.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/lsp/internal/inflight"
	"go.lsp.dev/protocol"
)

// Options configure a Server.
type Options struct {
	// Stderr receives the logs (os.Stderr when nil).
	Stderr io.Writer
	// Getenv reads the environment for the configuration (os.Getenv when nil).
	Getenv func(string) string
	// UserConfig is the --config file; empty means the default location.
	UserConfig string
	// Version is reported in serverInfo.
	Version string
	// ParentPoll is how often the editor process is checked
	// (DefaultParentPoll).
	ParentPoll time.Duration
	// StateDir holds transcripts, spill files and the sandbox's private
	// directories (harness.DefaultStateDir when empty).
	StateDir string
}

// Server is one language server connection.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	c    *client // the calls the server makes to the editor

	ctx    context.Context // cancelled when the client goes away
	stop   context.CancelFunc
	docs   *store
	diags  *diagStore
	runs   sync.WaitGroup
	exited chan struct{}
	// parentGone is closed when initialize's processId no longer runs.
	parentGone chan struct{}
	exitMu     sync.Once

	// init is what initialize learned; it is set once, before any other
	// request is handled, and read without the lock.
	init atomic.Pointer[initState]

	mu          sync.Mutex // guards the fields below
	initialized bool
	shutdown    bool
	closing     bool
	settings    Settings
	approver    *Approver
	sessions    map[string]*session
	progress    map[string]context.CancelFunc // work-done tokens of running runs
	calls       inflight.Calls                // requests answered off the read loop
	nextID      atomic.Int64
}

// New returns a server; Serve runs it.
func New(opts Options) *Server {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.StateDir == "" {
		opts.StateDir = harness.DefaultStateDir(opts.Getenv)
	}
	s := &Server{
		opts:       opts,
		docs:       newStore(),
		diags:      newDiagStore(),
		exited:     make(chan struct{}),
		parentGone: make(chan struct{}),
		sessions:   make(map[string]*session),
		progress:   make(map[string]context.CancelFunc),
	}
	s.c = &client{}
	s.log = slog.New(&logHandler{c: s.c, text: slog.NewTextHandler(opts.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})})
	s.approver = &Approver{c: s.c, log: s.log, Timeout: DefaultApprovalTimeout, sem: make(chan struct{}, 1)}
	return s
}

// Serve speaks LSP over rwc until the client exits or goes away, and
// returns the process exit status LSP asks for: 0 after shutdown then
// exit, 1 otherwise. Every run is cancelled and waited for before it
// returns.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	s.ctx, s.stop = context.WithCancel(ctx)
	defer s.stop()
	gone := make(chan struct{})
	var goneOnce sync.Once
	stream := &watchStream{Stream: jsonrpc2.NewHeaderStream(rwc), s: s, onEnd: func() {
		goneOnce.Do(func() { close(gone) })
	}}
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(stdCodec{}))
	s.c.conn, s.c.ctx = s.conn, s.ctx
	s.conn.Go(s.ctx, s.guard(s.handle))

	select {
	case <-s.exited:
	case <-gone:
		s.log.Info("Client went away")
	case <-s.parentGone:
		s.log.Info("The editor process is gone")
	case <-ctx.Done():
	}
	s.stop()
	s.mu.Lock()
	s.closing = true // no run starts after this
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.log.Warn("Runs still going 10s after the client left")
	}
	// Closing stdin may not interrupt a blocked read: give the connection
	// a moment to drain, then return (the process exits).
	rwc.Close()
	closed := make(chan struct{})
	go func() { _ = s.conn.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(200 * time.Millisecond):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, se := range s.sessions {
		se.close()
		delete(s.sessions, id)
	}
	if in := s.init.Load(); in != nil {
		_ = in.ws.disk.Close()
	}
	if s.shutdown {
		return 0
	}
	return 1
}

// guard turns a handler panic into a JSON-RPC error instead of a dead
// connection.
func (s *Server) guard(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		method := strings.Clone(req.Method()) // the frame may be reused after Async
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("Handler panicked", "method", method, "panic", r)
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s", method)
				if !req.IsCall() {
					err = nil
				}
			}
		}()
		return h(ctx, req)
	}
}

// handle routes one message. Notifications run here, on the read loop, in
// order, and never return an error (that would close the connection).
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method, params := req.Method(), json.RawMessage(req.Params())
	if !req.IsCall() {
		if err := s.notification(ctx, method, params); err != nil {
			s.log.Warn("Dropped notification", "method", method, "error", err)
		}
		return nil, nil
	}
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case method == protocol.MethodInitialize:
		if initialized {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
		}
		var p initializeParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.initialize(p)
	case !initialized:
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize", method)
	case method == protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		s.stopRuns()
		return nil, nil
	case shutdown:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	}
	ctx = context.WithValue(ctx, reqIDKey{}, req.ID())
	if e, ok := extRequests[method]; ok {
		return e.handle(s, ctx, params)
	}
	if r, ok := lspRequests[method]; ok {
		return r(s, ctx, params)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
}

// notification handles one notification inline.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) error {
	if method == protocol.MethodExit {
		s.exitMu.Do(func() { close(s.exited) })
		return nil
	}
	if method == protocol.MethodCancelRequest {
		return s.calls.Cancel(params)
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		return errors.New("before initialize")
	}
	if e, ok := extNotifications[method]; ok {
		_, err := e.handle(s, ctx, params)
		return err
	}
	if n, ok := lspNotifications[method]; ok {
		return n(s, ctx, params)
	}
	if len(method) > 2 && method[:2] == "$/" {
		return nil // optional notifications may be ignored silently
	}
	return errors.New("unknown notification")
}

// stopRuns cancels every running run (shutdown).
func (s *Server) stopRuns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, se := range s.sessions {
		se.cancelRun()
	}
}

// Workspace returns the editor workspace (nil before initialize).
func (s *Server) Workspace() *Workspace {
	if in := s.init.Load(); in != nil {
		return in.ws
	}
	return nil
}

// Approver returns the permission prompter.
func (s *Server) Approver() *Approver { return s.approver }

type reqIDKey struct{}

// detach releases the read loop (jsonrpc2.Async) and returns a context
// for the rest of the request that $/cancelRequest and the client going
// away cancel. The request context itself is pooled and must not be
// retained. Call done when the request ends.
func (s *Server) detach(ctx context.Context) (context.Context, func()) {
	id, _ := ctx.Value(reqIDKey{}).(jsonrpc2.ID)
	return s.calls.Detach(s.ctx, ctx, id)
}
