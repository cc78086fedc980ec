package harness

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Factory assembles the sessions of one workspace for a front-end (the
// language server, the ACP agent): it loads the configuration with the
// front-end's settings on top and builds each session's harness from it.
// Front-ends hand their settings over as data and never merge
// configuration or rule sets themselves.
type Factory struct {
	opts FactoryOptions

	mu  sync.Mutex
	cfg config.Config
}

// FactoryOptions say where a factory's configuration and state live.
type FactoryOptions struct {
	// Root is the absolute workspace root.
	Root string
	// UserConfig is the user's config file; empty means the default.
	UserConfig string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// StateDir is agent-lsp's state directory (DefaultStateDir when empty).
	StateDir string
	// Log receives the factory's and its sessions' logs (slog.Default()
	// when nil).
	Log *slog.Logger
}

// Settings are a front-end's own settings (an editor's, say). They act like
// command-line flags: they beat the environment and the configuration files.
type Settings struct {
	BaseURL      string
	Model        string
	APIKey       string
	MaxTurns     int
	MaxToolCalls int
	// Permissions are [permissions.TOOL] tables, as JSON, from the user's
	// editor settings: they count as the user's rules, applied after the
	// user's config file; the workspace's file still only tightens.
	Permissions json.RawMessage
}

// NewFactory returns a factory with the configuration loaded, st on top.
func NewFactory(opts FactoryOptions, st Settings) *Factory {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir(opts.Getenv)
	}
	f := &Factory{opts: opts}
	f.Configure(st)
	return f
}

// Root is the workspace root.
func (f *Factory) Root() string { return f.opts.Root }

// StateDir is the state directory sessions are recorded under.
func (f *Factory) StateDir() string { return f.opts.StateDir }

// Config is the configuration new sessions get.
func (f *Factory) Config() config.Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

// Configure reloads the configuration with st on top. New sessions use it;
// running ones keep theirs. Problems are logged: a broken file or bad rules
// leave the rest in force.
func (f *Factory) Configure(st Settings) {
	log := f.opts.Log
	cfg, warnings, err := config.Load(config.Sources{
		UserFile:  f.opts.UserConfig,
		Workspace: f.opts.Root,
		Getenv:    f.opts.Getenv,
		Flags: config.Overrides{
			BaseURL: st.BaseURL, Model: st.Model, MaxTurns: st.MaxTurns, MaxToolCalls: st.MaxToolCalls,
		},
	})
	for _, w := range warnings {
		log.Warn("Configuration", "warning", w)
	}
	if err != nil {
		log.Error("Configuration not loaded", "error", err)
	}
	if st.APIKey != "" {
		cfg.APIKey = st.APIKey
	}
	if sets, err := withSettingsRules(f.opts.Root, cfg.Rules.Sets, st.Permissions); err != nil {
		log.Error("Permission rules in the editor settings ignored", "error", err)
	} else {
		cfg.Rules.Sets = sets
	}
	f.mu.Lock()
	f.cfg = cfg
	f.mu.Unlock()
	log.Info("Configuration", "base_url", cfg.BaseURL, "model", cfg.Model, "root", f.opts.Root)
}

// withSettingsRules inserts the rules from a front-end's settings after the
// user's own rule sets and before the workspace's.
func withSettingsRules(root string, sets []permission.RuleSet, raw json.RawMessage) ([]permission.RuleSet, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return sets, nil
	}
	var p permission.Permissions
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
	if len(p) == 0 {
		return sets, nil
	}
	set := permission.RuleSet{Source: "editor settings (permissions)", Origin: permission.FromUser, Tools: p}
	if _, err := permission.New(root, set); err != nil {
		return nil, err
	}
	var out []permission.RuleSet
	for _, rs := range sets {
		if rs.Origin == permission.FromUser {
			out = append(out, rs)
		}
	}
	out = append(out, set)
	for _, rs := range sets {
		if rs.Origin != permission.FromUser {
			out = append(out, rs)
		}
	}
	return out, nil
}

// SessionOptions say how one session differs from the factory's default.
type SessionOptions struct {
	// Workspace is the view the tools act on (the editor's buffers); nil
	// means the disk.
	Workspace tools.Workspace
	// Approver answers "ask" verdicts; nil denies them, with AskHint.
	Approver Approver
	// Trust asks whether a server of the workspace's .mcp.json may start;
	// nil means such servers do not start.
	Trust Approver
	// MCPServers are the front-end's own servers for this session (see
	// Options.MCPServers).
	MCPServers map[string]MCPServer
	// AskHint tells the user how to allow calls when there is no Approver.
	AskHint string
	// MaxTurns, when set, bounds the session's runs (code actions).
	MaxTurns int
	// Tools are the front-end's own tools (the editor's diagnostics),
	// offered and listed in the system prompt like the built-in ones.
	Tools []*tools.Tool
	// ReadOnly starts the session in read-only mode: no edits, no bash
	// (Harness.SetReadOnly switches it later).
	ReadOnly bool
	// Model, when set, is the model this session talks to instead of the
	// configured one (the editor's model picker).
	Model string
}

// Build assembles one session's harness.
func (f *Factory) Build(o SessionOptions) (*Harness, error) {
	cfg := f.Config()
	if o.MaxTurns > 0 {
		cfg.MaxTurns = o.MaxTurns
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	return New(Options{
		Root: f.opts.Root, Config: cfg, Workspace: o.Workspace, Approver: o.Approver, Trust: o.Trust, MCPServers: o.MCPServers, AskHint: o.AskHint,
		StateDir: f.opts.StateDir, Log: f.opts.Log, Tools: o.Tools, ReadOnly: o.ReadOnly,
	})
}
