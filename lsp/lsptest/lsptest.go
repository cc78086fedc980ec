// Package lsptest is a fake editor for tests: it runs the real agent-lsp
// server in process over net.Pipe, keeps buffers, answers applyEdit and
// showMessageRequest, and lets tests await notifications without sleeping.
package lsptest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/internal/inflight"
)

// Timeout bounds every wait of the fake editor.
const Timeout = 20 * time.Second

// Notification is one notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Request is one request the server sent, as the editor received it.
type Request struct {
	Method string
	Params json.RawMessage
}

// Options configure Connect.
type Options struct {
	// Capabilities are the client capabilities (default: UTF-16 only,
	// documentChanges and create, workDoneProgress off).
	Capabilities map[string]any
	// InitOptions are the initializationOptions.
	InitOptions map[string]any
	// ProcessID is initialize's processId (null when 0).
	ProcessID int
	// Env is the server's environment (nothing else is visible).
	Env map[string]string
	// StateDir holds the server's transcripts (default: a new temporary
	// directory); share it between two Connects to test a restart.
	StateDir string
	// OnApplyEdit answers workspace/applyEdit; nil applies the edit to the
	// buffers (sending didChange) and answers applied:true.
	OnApplyEdit func(e *Env, p ApplyEditParams) ApplyEditResult
	// OnShowMessageRequest answers window/showMessageRequest; nil answers
	// with Answers' next entry, or null when it is empty.
	OnShowMessageRequest func(ctx context.Context, e *Env, p json.RawMessage) any
	// OnApprove answers agent/approve (sent when Capabilities declare
	// experimental.agentLsp.approve); nil answers null (deny).
	OnApprove func(ctx context.Context, e *Env, p lsp.ApproveParams) any
}

// Env is a connected fake editor.
type Env struct {
	T      testing.TB
	Root   string
	Server *lsp.Server
	Conn   jsonrpc2.Conn
	opts   Options
	pipe   net.Conn

	serveDone chan int
	exit      int
	// hctx outlives every call of the server's the editor is still
	// answering; calls cancels one when the server sends $/cancelRequest
	// for it, as an editor takes a prompt down.
	hctx  context.Context
	calls inflight.Calls

	mu       sync.Mutex
	notes    []Notification
	requests []Request
	changed  chan struct{}
	bufs     map[string]*buffer
}

type buffer struct {
	version int32
	text    string
}

// Connect writes files under a temporary root, starts the server on one
// end of a pipe and initializes it from the other.
func Connect(t testing.TB, files map[string]string, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, ".no-config")}
	for k, v := range o.Env {
		env[k] = v
	}
	e := &Env{T: t, Root: root, opts: o, serveDone: make(chan int, 1), changed: make(chan struct{}), bufs: make(map[string]*buffer)}
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	e.Server = lsp.New(lsp.Options{Stderr: testWriter{t}, Getenv: func(k string) string { return env[k] }, Version: "test", ParentPoll: 10 * time.Millisecond, StateDir: o.StateDir})
	sc, cc := net.Pipe()
	go func() { e.serveDone <- e.Server.Serve(context.Background(), sc) }()
	e.pipe = cc
	e.Conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(cc), jsonrpc2.WithCodec(codec{}))
	hctx, stop := context.WithCancel(context.Background())
	e.hctx = hctx
	e.Conn.Go(context.Background(), e.handle)
	// After the server is gone no call of its can be answered: release
	// handlers still waiting (a prompt nobody answers) so none outlives
	// the test.
	t.Cleanup(func() { e.Close(); stop() })

	caps := o.Capabilities
	if caps == nil {
		caps = map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
			"documentChanges": true, "resourceOperations": []string{"create"}}}}
	}
	params := map[string]any{"processId": nil, "rootUri": string(uri.File(root)), "capabilities": caps}
	if o.ProcessID != 0 {
		params["processId"] = o.ProcessID
	}
	if o.InitOptions != nil {
		params["initializationOptions"] = o.InitOptions
	}
	var res json.RawMessage
	if err := e.Call("initialize", params, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	e.Notify("initialized", map[string]any{})
	return e
}

// Close shuts the server down (shutdown, exit) and waits for it; it
// returns the server's exit status. Calling it twice is harmless.
func (e *Env) Close() int {
	select {
	case code := <-e.serveDone:
		e.exit = code
		e.serveDone <- code
		return code
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	_, _ = e.Conn.Call(ctx, "shutdown", nil, nil)
	_ = e.Conn.Notify(ctx, "exit", nil)
	return e.WaitExit()
}

// Disconnect closes the pipe as a crashed editor would, and waits for the
// server to finish.
func (e *Env) Disconnect() int {
	e.pipe.Close()
	return e.WaitExit()
}

// WaitExit waits for Serve to return.
func (e *Env) WaitExit() int {
	select {
	case code := <-e.serveDone:
		e.serveDone <- code
		return code
	case <-time.After(Timeout):
		e.T.Fatal("the server did not exit")
		return -1
	}
}

// Call sends a request and decodes its result.
func (e *Env) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	_, err := e.Conn.Call(ctx, method, params, result)
	return err
}

// Notify sends a notification.
func (e *Env) Notify(method string, params any) {
	if err := e.Conn.Notify(context.Background(), method, params); err != nil {
		e.T.Errorf("notify %s: %v", method, err)
	}
}

// Path is the absolute path of a workspace-relative name.
func (e *Env) Path(name string) string { return filepath.Join(e.Root, filepath.FromSlash(name)) }

// URI is the file URI of a workspace-relative name.
func (e *Env) URI(name string) string { return string(uri.File(e.Path(name))) }

// Open opens name in a buffer holding text (which need not match the disk).
func (e *Env) Open(name, text string) {
	u := e.URI(name)
	e.mu.Lock()
	e.bufs[u] = &buffer{version: 1, text: text}
	e.mu.Unlock()
	e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "go", "version": 1, "text": text}})
}

// Sync returns once the server has handled every notification sent
// before it (the server handles notifications in order, before the next
// request).
func (e *Env) Sync() {
	e.T.Helper()
	var out json.RawMessage
	if err := e.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": e.URI("sync")}}, &out); err != nil {
		e.T.Fatalf("sync: %v", err)
	}
}

// Edit replaces r (UTF-16 positions) in name's buffer with text and sends
// the incremental didChange.
func (e *Env) Edit(name string, r lsp.Range, text string) {
	u := e.URI(name)
	e.mu.Lock()
	b, ok := e.bufs[u]
	if !ok {
		e.mu.Unlock()
		e.T.Fatalf("edit %s: not open", name)
	}
	m := lsp.NewMapper(b.text)
	a, z := m.Offset(lsp.UTF16, r.Start), m.Offset(lsp.UTF16, r.End)
	b.text = b.text[:a] + text + b.text[z:]
	b.version++
	v := b.version
	e.mu.Unlock()
	e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": v},
		"contentChanges": []any{map[string]any{"range": r, "text": text}},
	})
}

// Text returns the editor's buffer for name.
func (e *Env) Text(name string) (string, int32, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.bufs[e.URI(name)]
	if !ok {
		return "", 0, false
	}
	return b.text, b.version, true
}

// Notifications returns the notifications received so far.
func (e *Env) Notifications() []Notification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Notification(nil), e.notes...)
}

// Requests returns the requests the server sent so far.
func (e *Env) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Request(nil), e.requests...)
}

// Await waits for a notification matching ok (seen before or after the
// call) and returns it.
func (e *Env) Await(ok func(Notification) bool) Notification {
	e.T.Helper()
	return await(e, func() []Notification { return e.notes }, ok, "notification")
}

// AwaitRequest waits for a server→client request matching ok.
func (e *Env) AwaitRequest(ok func(Request) bool) Request {
	e.T.Helper()
	return await(e, func() []Request { return e.requests }, ok, "request")
}

// await waits until list (read under e.mu) holds an item matching ok,
// waking on every message the editor records; it never sleeps.
func await[T any](e *Env, list func() []T, ok func(T) bool, what string) T {
	e.T.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for _, x := range list() {
			if ok(x) {
				e.mu.Unlock()
				return x
			}
		}
		ch := e.changed
		n := len(list())
		e.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			e.T.Fatalf("no matching %s within %v; got %d", what, Timeout, n)
			var zero T
			return zero
		}
	}
}

// EventKind matches agent/event notifications of one type.
func EventKind(typ string) func(Notification) bool {
	return func(n Notification) bool {
		if n.Method != lsp.MethodEvent {
			return false
		}
		var ev struct {
			Type string `json:"type"`
		}
		return json.Unmarshal(n.Params, &ev) == nil && ev.Type == typ
	}
}

// Method matches notifications or requests by method.
func Method(m string) func(Notification) bool {
	return func(n Notification) bool { return n.Method == m }
}

func (e *Env) record(f func()) {
	e.mu.Lock()
	f()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// handle answers the server's requests and records its notifications.
func (e *Env) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method()) // borrowed from the frame
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	if !req.IsCall() {
		e.record(func() { e.notes = append(e.notes, Notification{method, params}) })
		if method == "$/cancelRequest" {
			_ = e.calls.Cancel(params) // a bad id leaves the prompt up: TestApproverTimeoutDenies
		}
		return nil, nil
	}
	e.record(func() { e.requests = append(e.requests, Request{method, params}) })
	switch method {
	case "workspace/applyEdit":
		var p ApplyEditParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		if e.opts.OnApplyEdit != nil {
			return e.opts.OnApplyEdit(e, p), nil
		}
		return e.ApplyEdit(p), nil
	case "window/showMessageRequest":
		rctx, done := e.calls.Detach(e.hctx, ctx, req.ID())
		defer done()
		if e.opts.OnShowMessageRequest != nil {
			return e.opts.OnShowMessageRequest(rctx, e, params), nil
		}
		return nil, nil
	case "agent/approve":
		rctx, done := e.calls.Detach(e.hctx, ctx, req.ID())
		defer done()
		var p lsp.ApproveParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		if e.opts.OnApprove != nil {
			return e.opts.OnApprove(rctx, e, p), nil
		}
		return nil, nil
	case "window/workDoneProgress/create", "agent/saveDocuments":
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s", method)
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		return m, nil
	}
	return json.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

var _ io.Writer = testWriter{}
