package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Options say which servers a Manager runs and how.
type Options struct {
	// Servers are the user's and the workspace's definitions.
	Servers []Server
	// Root is the workspace root: a stdio server's working directory
	// (unless its cwd says otherwise) and the key of remembered approvals.
	Root string
	// Environ is where a stdio server's base environment comes from; nil
	// means os.Environ().
	Environ []string
	// Trust asks about workspace servers; nil means no one can be asked
	// and they do not start.
	Trust TrustFunc
	// NoTrustHint ends the warning about a workspace server that could not
	// be asked about; empty means a default hint.
	NoTrustHint string
	// Store remembers approvals; nil remembers nothing.
	Store *TrustStore
	// Sandbox makes the sandbox of `sandbox = true` servers.
	Sandbox SandboxFunc
	// Log receives the servers' stderr and the client's logs.
	Log *slog.Logger
	// Version is sent as the client's version.
	Version string
}

// State is how far a server got.
type State string

// States of a server.
const (
	StateDisabled    State = "disabled"
	StateNotApproved State = "not approved"
	StateFailed      State = "failed"
	StateRunning     State = "running"
	StateExited      State = "exited"
)

// Status is one server as doctor and `agent-lsp mcp list` show it.
type Status struct {
	Name      string   `json:"name"`
	Source    string   `json:"source"`
	Transport string   `json:"transport"`
	Target    string   `json:"target"`
	Sandboxed bool     `json:"sandboxed,omitempty"`
	State     State    `json:"state"`
	Error     string   `json:"error,omitempty"`
	Tools     []string `json:"tools"`
	// StartTime is how long the start took (startMillis in JSON).
	StartTime time.Duration `json:"-"`
}

// MarshalJSON writes StartTime in milliseconds.
func (s Status) MarshalJSON() ([]byte, error) {
	type plain Status
	return json.Marshal(struct {
		plain
		StartTime int64 `json:"startMillis"`
	}{plain(s), s.StartTime.Milliseconds()})
}

// Tool is one offered MCP tool.
type Tool struct {
	*tools.Tool
	Server string
	// Remote is the tool's name on its server.
	Remote string
	// ReadOnly and Destructive are the server's annotations, defaults
	// applied (destructive unless it says otherwise): hints for prompts
	// and for what a subagent sees, never a permission.
	ReadOnly, Destructive bool
	// Timeout bounds one call.
	Timeout time.Duration
}

// Manager runs a session's MCP servers.
type Manager struct {
	opts Options
	log  *slog.Logger

	startOnce sync.Once
	closed    atomic.Bool
	// ctx ends at Close: starts and trust prompts in flight give up, and
	// Close waits for them (starting) so that nothing starts after it.
	ctx      context.Context
	cancel   context.CancelFunc
	starting sync.WaitGroup

	mu       sync.Mutex
	conns    map[string]*conn
	status   map[string]*Status
	warnings []string
	gen      uint64
	cache    []Tool
	cacheGen uint64
}

// NewManager returns a Manager; nothing starts before Start.
func NewManager(opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	m := &Manager{opts: opts, log: opts.Log, conns: map[string]*conn{}, status: map[string]*Status{}, gen: 1}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for _, s := range opts.Servers {
		m.status[s.Name] = &Status{Name: s.Name, Source: s.Source, Transport: s.Transport(), Target: s.Target(), Sandboxed: s.Sandbox, Tools: []string{}}
		if !s.On() {
			m.status[s.Name].State = StateDisabled
		}
	}
	return m
}

func (m *Manager) environ() []string {
	if m.opts.Environ != nil {
		return m.opts.Environ
	}
	return os.Environ()
}

func (m *Manager) getenv(name string) string {
	for _, kv := range m.environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Start starts every enabled server, in parallel, and returns when each
// has started, failed or run out of its startup timeout (a trust prompt
// waits for the user first). Only the first call does anything; later
// calls wait for it.
func (m *Manager) Start() {
	m.startOnce.Do(func() {
		var wg sync.WaitGroup
		for _, s := range m.opts.Servers {
			if !s.On() {
				continue
			}
			m.mu.Lock()
			closed := m.closed.Load()
			if !closed {
				m.starting.Add(1) // under mu: Close sets closed under it too
			}
			m.mu.Unlock()
			if closed {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer m.starting.Done()
				m.startOne(s)
			}()
		}
		wg.Wait()
	})
}

func (m *Manager) startOne(s Server) {
	if s.Workspace && !m.trusted(s) {
		return
	}
	startup, _ := s.Timeouts()
	ctx, cancel := context.WithTimeout(m.ctx, startup)
	defer cancel()
	t0 := time.Now()
	c, err := m.connect(ctx, s, func() { m.refresh(s.Name) })
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.status[s.Name]
	st.StartTime = time.Since(t0)
	if err == nil && m.closed.Load() {
		go c.close()
		err = fmt.Errorf("the session closed while it started")
	}
	if err != nil {
		st.State, st.Error = StateFailed, err.Error()
		m.warnLocked(fmt.Sprintf("MCP server %s did not start: %v", s.Name, err))
		m.log.Info("MCP server did not start", "server", s.Name, "err", err) // the warning event tells the user
		return
	}
	st.State = StateRunning
	m.conns[s.Name] = c
	m.gen++
	m.log.Info("MCP server started", "server", s.Name, "tools", len(c.snapshot()), "took", st.StartTime)
}

// trusted asks about a workspace server unless its definition was
// approved before; it records the outcome in the server's status.
func (m *Manager) trusted(s Server) bool {
	if m.opts.Store != nil && m.opts.Store.Trusted(m.opts.Root, s.Hash) {
		return true
	}
	refuse := func(why string) bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		st := m.status[s.Name]
		st.State, st.Error = StateNotApproved, why
		m.warnLocked(fmt.Sprintf("MCP server %s (declared by %s) was not started: %s", s.Name, s.Source, why))
		return false
	}
	if m.opts.Trust == nil {
		hint := m.opts.NoTrustHint
		if hint == "" {
			hint = "run `agent-lsp mcp list` in a terminal, or open the workspace in your editor, to approve it"
		}
		return refuse("a workspace's server needs your approval, and no one can be asked in this run; " + hint)
	}
	ctx, cancel := context.WithTimeout(m.ctx, 10*time.Minute)
	defer cancel()
	ans, err := m.opts.Trust(ctx, s)
	switch {
	case err != nil:
		return refuse("asking for approval failed: " + err.Error())
	case ans == TrustAlways:
		if m.opts.Store != nil {
			if err := m.opts.Store.Approve(m.opts.Root, s.Hash); err != nil {
				m.log.Warn("MCP approval not remembered", "server", s.Name, "err", err)
			}
		}
		return true
	case ans == TrustSession:
		return true
	}
	return refuse("you did not approve it")
}

func (m *Manager) warnLocked(w string) { m.warnings = append(m.warnings, w) }

// TakeWarnings returns the warnings since the last call: a server that did
// not start, a tool list that could not be refreshed.
func (m *Manager) TakeWarnings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.warnings
	m.warnings = nil
	return w
}

// refresh lists a server's tools again after notifications/tools/list_changed.
func (m *Manager) refresh(name string) {
	m.mu.Lock()
	c := m.conns[name]
	m.mu.Unlock()
	if c == nil || m.closed.Load() {
		return
	}
	startup, _ := c.srv.Timeouts()
	ctx, cancel := context.WithTimeout(context.Background(), startup)
	defer cancel()
	err := c.list(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.warnLocked(fmt.Sprintf("MCP server %s changed its tools, and listing them failed: %v; the old list stays", name, err))
		return
	}
	m.gen++
	m.log.Info("MCP tool list refreshed", "server", name, "tools", len(c.snapshot()))
}

// Generation changes whenever the set of tools may have changed.
func (m *Manager) Generation() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// Tools returns the tools of the running servers, sorted by name, and the
// generation they belong to.
func (m *Manager) Tools() ([]Tool, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cacheGen == m.gen {
		return m.cache, m.gen
	}
	type entry struct {
		c *conn
		t *sdk.Tool
	}
	var keys []toolKey
	byKey := map[toolKey]entry{}
	for name, c := range m.conns {
		for _, t := range c.snapshot() {
			k := toolKey{name, t.Name}
			if _, dup := byKey[k]; dup {
				continue
			}
			keys = append(keys, k)
			byKey[k] = entry{c, t}
		}
	}
	names := exposedNames(keys)
	out := make([]Tool, 0, len(keys))
	for _, k := range keys {
		e := byKey[k]
		out = append(out, m.makeTool(names[k], e.c, e.t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	for name := range m.conns {
		var ns []string
		for _, t := range out {
			if t.Server == name {
				ns = append(ns, t.Name())
			}
		}
		m.status[name].Tools = append([]string{}, ns...)
	}
	m.cache, m.cacheGen = out, m.gen
	return out, m.gen
}

func (m *Manager) makeTool(name string, c *conn, t *sdk.Tool) Tool {
	ro, destructive := false, true
	if a := t.Annotations; a != nil {
		ro = a.ReadOnlyHint
		if a.DestructiveHint != nil {
			destructive = *a.DestructiveHint
		}
	}
	if ro {
		destructive = false
	}
	remote := t.Name
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	desc = capDescription(fmt.Sprintf("[MCP server %s, tool %s] %s", c.srv.Name, remote, desc))
	tool, note := defineTool(name, desc, t.InputSchema, ro, func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return c.call(ctx, remote, args)
	})
	if note != "" {
		m.log.Info("MCP tool schema simplified", "server", c.srv.Name, "tool", remote, "how", note)
	}
	_, timeout := c.srv.Timeouts()
	return Tool{Tool: tool, Server: c.srv.Name, Remote: remote, ReadOnly: ro, Destructive: destructive, Timeout: timeout}
}

// Status lists every configured server, sorted by name.
func (m *Manager) Status() []Status {
	m.Tools() // fills in the tool names
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.status))
	for name, st := range m.status {
		s := *st
		if c := m.conns[name]; c != nil {
			c.mu.Lock()
			if c.ended != nil {
				s.State, s.Error = StateExited, c.ended.Error()
			}
			c.mu.Unlock()
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close stops every server, in parallel, and waits until they are gone.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed.Store(true)
	m.mu.Unlock()
	m.cancel()
	m.starting.Wait()
	m.mu.Lock()
	conns := m.conns
	m.conns = map[string]*conn{}
	m.gen++
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
	return nil
}
