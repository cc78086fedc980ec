package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/internal/text"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// MCPServers are the servers a session would run: the user's
// [mcp_servers] tables, then the workspace's .mcp.json (whose entries need
// approval and cannot take a name the user's file has). Problems with
// .mcp.json are warnings.
func MCPServers(root string, cfg config.Config) ([]mcp.Server, []string) {
	source := "your configuration"
	for _, f := range cfg.Files {
		if f != config.WorkspaceFile(root) {
			source = f
		}
	}
	servers := mcp.UserServers(source, cfg.MCPServers)
	taken := make([]string, 0, len(servers))
	for _, s := range servers {
		taken = append(taken, s.Name)
	}
	ws, warnings, err := mcp.WorkspaceServers(root, taken)
	if err != nil {
		warnings = append(warnings, "MCP servers of the workspace not read: "+err.Error())
	}
	return append(servers, ws...), warnings
}

// MCPServer is one MCP server's definition, as the configuration's
// [mcp_servers.NAME] tables hold it; front-ends build them from their
// protocol's own shape (SessionOptions.MCPServers).
type MCPServer = config.MCPServer

// NewMCPManager makes the manager of a session's MCP servers (nil when
// there are none). trust asks about workspace servers; nil means no one
// can be asked.
func NewMCPManager(root, stateDir string, cfg config.Config, trust Approver, log *slog.Logger) (*mcp.Manager, []string) {
	servers, warnings := MCPServers(root, cfg)
	if len(servers) == 0 {
		return nil, warnings
	}
	opts := mcp.Options{
		Servers: servers,
		Root:    root,
		Store:   &mcp.TrustStore{Path: mcp.TrustFile(stateDir)},
		Log:     log,
		Sandbox: func(network bool, env []string) (*sandbox.Sandbox, error) {
			sc := cfg.Sandbox
			sc.Network = network
			o := SandboxOptions(root, "", sc)
			// The server's environment as given; the paths hidden are the
			// user's, whatever HOME the server's environment sets.
			o.Env, o.EnvSet, o.Hide = env, nil, sandbox.DefaultHidden(os.Environ())
			return sandbox.New(o)
		},
	}
	if trust != nil {
		opts.Trust = trustVia(trust)
	}
	return mcp.NewManager(opts), warnings
}

// trustVia asks about a workspace server through an Approver: "Allow"
// approves the exact definition for this workspace from now on, "Allow for
// this session" starts it this once.
func trustVia(a Approver) mcp.TrustFunc {
	return func(ctx context.Context, s mcp.Server) (mcp.Trust, error) {
		ans, err := a.Approve(ctx, ApprovalRequest{
			Tool:        "the workspace's MCP server " + s.Name,
			Subject:     s.Describe(),
			Reason:      s.Source + " declares this server; it would run with your rights, outside the sandbox. Allowing it remembers this exact definition for this workspace (a changed one asks again).",
			SessionRule: "starting it in this session only",
		})
		switch {
		case err != nil:
			return mcp.TrustDenied, err
		case ans == Allow:
			return mcp.TrustAlways, nil
		case ans == AllowForSession || ans == AllowServerForSession:
			return mcp.TrustSession, nil
		}
		return mcp.TrustDenied, nil
	}
}

// sessionTools offers the built-in tools and the MCP servers' tools
// through one dispatcher. The servers start the first time the tools are
// listed (or a call comes first); when their tools change, the dispatcher
// is built again with the same options, so MCP calls get the same
// argument checks, guard, deadline and output cap as every other call.
type sessionTools struct {
	mgr  *mcp.Manager
	base *tools.Registry // read at each rebuild: the LSP server adds to it after New
	opts []tools.Option
	// only, when set, enables only the tools it accepts (the subagent's
	// read-only mode).
	only func(*tools.Tool) bool
	// warn is set on the session's own tools, which pass the servers'
	// warnings on to the run (agent.Warner).
	warn bool

	mu   sync.Mutex
	gen  uint64
	disp *tools.Dispatcher
}

var _ agent.Warner = (*sessionTools)(nil)

func (s *sessionTools) current() *tools.Dispatcher {
	s.mgr.Start()
	mts, gen := s.mgr.Tools()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disp != nil && gen == s.gen {
		return s.disp
	}
	reg := tools.NewRegistry()
	for _, n := range s.base.Names() {
		if t, ok := s.base.Get(n); ok {
			reg.Add(t)
		}
	}
	opts := append([]tools.Option{}, s.opts...)
	for _, t := range mts {
		if _, builtin := s.base.Get(t.Name()); !builtin {
			reg.Add(t.Tool)
			opts = append(opts, tools.WithToolTimeout(t.Name(), t.Timeout))
		}
	}
	if s.only != nil {
		opts = append(opts, tools.WithMode("read-only", s.only))
	}
	s.disp, s.gen = tools.NewDispatcher(reg, opts...), gen
	return s.disp
}

// Specs implements agent.Tools.
func (s *sessionTools) Specs() []tools.Spec { return s.current().Specs() }

// Dispatch implements agent.Tools.
func (s *sessionTools) Dispatch(ctx context.Context, call tools.Call) tools.Result {
	return s.current().Dispatch(ctx, call)
}

// TakeWarnings implements agent.Warner.
func (s *sessionTools) TakeWarnings() []string {
	if !s.warn {
		return nil
	}
	return s.mgr.TakeWarnings()
}

// withMCP wraps the session's and the subagent's tools around the MCP
// manager. The subagent gets an MCP tool only when its server annotates it
// read-only and the rules allow it without asking.
func withMCP(mgr *mcp.Manager, reg *tools.Registry, engine *permission.Engine, main, sub []tools.Option) (agent.Tools, agent.Tools) {
	subOnly := func(t *tools.Tool) bool {
		if !t.ReadOnly() {
			return false
		}
		return !permission.IsMCPTool(t.Name()) || engine.CheckMCP(t.Name()).Verdict == permission.Allow
	}
	return &sessionTools{mgr: mgr, base: reg, opts: main, warn: true},
		&sessionTools{mgr: mgr, base: reg, opts: sub, only: subOnly}
}

// mcpHint says what the server claims about a tool, for the approval
// prompt: it words the question, it never answers it.
func mcpHint(mgr *mcp.Manager) func(string) string {
	return func(name string) string {
		ts, _ := mgr.Tools()
		for _, t := range ts {
			if t.Name() != name {
				continue
			}
			switch {
			case t.ReadOnly:
				return fmt.Sprintf("MCP server %s says tool %s only reads (readOnlyHint; not verified)", t.Server, t.Remote)
			case t.Destructive:
				return fmt.Sprintf("MCP server %s says tool %s may change or delete things (destructiveHint)", t.Server, t.Remote)
			default:
				return fmt.Sprintf("MCP server %s says tool %s changes things, but not destructively (not verified)", t.Server, t.Remote)
			}
		}
		return ""
	}
}

// mcpSubject is what an MCP call does, for the approval prompt: its
// arguments as compact JSON, cut.
func mcpSubject(a tools.Access) string {
	raw, ok := a.Params.(*json.RawMessage)
	if !ok || raw == nil {
		return a.Tool
	}
	s := strings.TrimSpace(string(*raw))
	if s == "" || s == "{}" {
		return a.Tool + " (no arguments)"
	}
	return a.Tool + " " + text.Clip(s, 600)
}
