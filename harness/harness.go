// Package harness wires one agent from the configuration: the provider,
// the tools over a workspace, the sandbox the bash tool runs in, the
// permission engine and the guard in front of the dispatcher. The headless
// runner and the language server both build their agents here, so a tool
// behaves the same with or without an editor.
package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/changes"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/provider/openai"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Options say what to build.
type Options struct {
	// Root is the absolute workspace root.
	Root   string
	Config config.Config
	// Workspace is the view the tools act on; nil means the disk.
	Workspace tools.Workspace
	// Approver answers "ask" verdicts; nil denies them, with AskHint.
	Approver Approver
	// AskHint tells the user how to allow calls that needed approval when
	// there is no Approver; empty means DefaultAskHint.
	AskHint string
	// StateDir is agent-lsp's state directory: per workspace, the sandbox's
	// private tmp/cache/config and the spill files (full tool outputs).
	// Empty means DefaultStateDir(os.Getenv).
	StateDir string
	// Log receives the harness's and the guard's logs; nil means
	// slog.Default().
	Log *slog.Logger
	// Tools are added to the built-in ones (a front-end's own tools).
	Tools []*tools.Tool
	// ReadOnly starts the session in read-only mode (SetReadOnly).
	ReadOnly bool
	// Trust asks whether a server of the workspace's .mcp.json may start
	// (a person: the editor or the terminal, never --ask=allow); nil means
	// such servers do not start, with a warning.
	Trust Approver
}

// Harness is a wired agent and what it holds open.
type Harness struct {
	Agent    *agent.Agent
	Registry *tools.Registry
	// Engine is the permission engine; session rules added through the
	// guard live here.
	Engine *permission.Engine
	// Sandbox runs the bash tool's commands; Sandbox.Status() says how
	// they are confined. It is nil, and the bash tool is not offered, when
	// no sandbox could be made with backend "auto" (SandboxErr says why:
	// no bash on this machine, the workspace is /, ...); an explicitly
	// configured backend that does not work makes New fail instead.
	Sandbox    *sandbox.Sandbox
	SandboxErr error
	// Spill keeps full outputs that were cut for the model.
	Spill *tools.Spill
	// Reads is what the agent has read this session: the file tools edit
	// only files it read; the LSP server marks a prompt's document read.
	Reads *tools.Reads
	Guard *Guard
	// Tools and AgentConfig are what Agent was built from (replay reuses
	// them).
	Tools       agent.Tools
	AgentConfig agent.Config
	// System is the system prompt: the rules, AGENTS.md, the skills list.
	System string
	// Store records every session as a transcript, to resume and replay.
	Store *agent.Store
	// Warnings are problems worth showing (skills that did not load).
	Warnings []string
	// MCP runs the session's MCP servers (mcp.go); nil when none is
	// configured.
	MCP *mcp.Manager

	root, model string
	closers     []func() error
	checkpoints *checkpoints
	mode        *modeTools
}

// DefaultStateDir is $XDG_STATE_HOME/agent-lsp, or ~/.local/state/agent-lsp.
func DefaultStateDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agent-lsp")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "agent-lsp-state")
	}
	return filepath.Join(home, ".local", "state", "agent-lsp")
}

// WorkspaceStateDir is the directory of one workspace's state under
// stateDir: its base name and a hash of its path.
func WorkspaceStateDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(root))
	if len(base) > 40 {
		base = base[:40]
	}
	return filepath.Join(stateDir, "workspaces", strings.TrimLeft(base, ".")+"-"+hex.EncodeToString(sum[:6]))
}

// SandboxOptions are the sandbox options a configuration asks for.
func SandboxOptions(root, stateDir string, c config.Sandbox) sandbox.Options {
	b := sandbox.Backend(c.Backend)
	if c.Backend == "auto" {
		b = sandbox.BackendAuto
	}
	// Loopback: test servers (httptest) work on the private loopback of the
	// command's own network namespace, which has no route out; without a
	// network namespace the sandbox ignores it and keeps TCP denied.
	env := commandEnv(os.Environ())
	hide := sandbox.DefaultHidden(env)
	home, _ := os.UserHomeDir()
	for _, h := range c.Hide {
		if rest, ok := strings.CutPrefix(h, "~/"); ok && home != "" {
			h = filepath.Join(home, rest)
		}
		hide = append(hide, h)
	}
	return sandbox.Options{Workspace: root, StateDir: stateDir, Network: c.Network, Loopback: true, Backend: b, Env: env,
		EnvAllow: c.Env, Hide: hide}
}

// secretValues are the values of the environment's credential-like
// variables and the API key, for the bash tool to redact. Only names that
// say key, token, secret, password, credential or cookie count (the sandbox
// scrubs more, such as every GITHUB_ variable, but redacting a workspace
// path would blind the agent), and paths are not secrets.
func secretValues(env []string, more ...string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 8 && !strings.HasPrefix(v, "/") && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		n := strings.ToUpper(name)
		if strings.HasSuffix(n, "_PAT") || strings.HasSuffix(n, "_AUTH") || slices.ContainsFunc(
			[]string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE"},
			func(s string) bool { return strings.Contains(n, s) }) {
			add(val)
		}
	}
	for _, v := range more {
		add(v)
	}
	return out
}

// nonInteractive makes commands that would wait for a terminal fail or go
// on at once: no pager, no editor, no colours, no credential prompt.
var nonInteractive = []string{
	"TERM=dumb", "NO_COLOR=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0",
	"GIT_EDITOR=true", "EDITOR=true", "VISUAL=true", "DEBIAN_FRONTEND=noninteractive",
}

// commandEnv is env with the nonInteractive settings (the sandbox then
// scrubs secrets from it).
func commandEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(nonInteractive))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(nonInteractive, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, nonInteractive...)
}

// newSandbox makes the sandbox with its private directory dir.
func newSandbox(root, dir string, c config.Sandbox) (*sandbox.Sandbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	sb, err := sandbox.New(SandboxOptions(root, dir, c))
	if err == nil && c.Backend != "" && c.Backend != "auto" {
		// An explicitly configured backend that does not work stops the
		// run (this probes, or reads the cached probe).
		if err = sb.Err(); err != nil {
			sb.Close()
			return nil, err
		}
	}
	return sb, err
}

// spillKeep is how long spill files of earlier sessions are kept.
const spillKeep = 7 * 24 * time.Hour

// New builds a harness.
func New(opts Options) (_ *Harness, err error) {
	h := &Harness{mode: &modeTools{}}
	defer func() {
		if err != nil {
			h.Close()
		}
	}()
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	ws := opts.Workspace
	if ws == nil {
		disk, err := tools.NewDiskWorkspace(opts.Root)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", opts.Root, err)
		}
		h.closers = append(h.closers, disk.Close)
		ws = disk
	}
	cfg := opts.Config
	state := opts.StateDir
	if state == "" {
		state = DefaultStateDir(os.Getenv)
	}
	wsState := WorkspaceStateDir(state, opts.Root)

	if h.Engine, err = permission.New(opts.Root, cfg.Rules.Sets...); err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
	var st sandbox.Status
	sb, sbErr := newSandbox(opts.Root, filepath.Join(wsState, "sandbox"), cfg.Sandbox)
	switch {
	case sbErr != nil && (cfg.Sandbox.Backend == "" || cfg.Sandbox.Backend == "auto"):
		h.SandboxErr = sbErr
		log.Warn("No sandbox could be made; the bash tool is not offered", "err", sbErr)
	case sbErr != nil:
		return nil, fmt.Errorf("sandbox: %w (set [sandbox] backend = \"auto\" or check `agent-lsp doctor`)", sbErr)
	default:
		h.Sandbox = sb
		h.closers = append(h.closers, sb.Close)
		st = sb.Status()
	}
	switch {
	case h.Sandbox == nil:
	case st.Confined():
		log.Info("Sandbox", "backend", st.Backend, "layers", strings.Join(st.Layers, ","), "network", st.Network, "warning", st.Warning)
	default:
		// Callers show this to the user (Harness.Sandbox.Status()).
		log.Info("No sandbox: every bash command needs approval", "warning", st.Warning)
	}
	spillRoot := filepath.Join(wsState, "spill")
	pruneOld(spillRoot, spillKeep)
	h.Spill = tools.NewSpill(filepath.Join(spillRoot, fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405"), os.Getpid())))

	// The file tools share one record of what the agent read; read_file
	// also reads h.Spill's files (the full outputs the bash results name).
	// A workspace that can apply edits gets the write tools too; the guard
	// checks the paths of every call, for writing where the tool writes.
	h.Reads = tools.NewReads()
	// The change journal (changes.go): edits and commands report to the
	// running turn's journal, kept next to the session's transcript.
	h.checkpoints = &checkpoints{sessions: SessionsDir(state), log: log, secrets: secrets(cfg)}
	h.closers = append(h.closers, h.checkpoints.close)
	if ed, ok := ws.(tools.Editor); ok {
		h.Registry = tools.NewRegistry(tools.NewReadFile(ed, tools.WithReads(h.Reads), tools.WithSpill(h.Spill)), tools.NewGlob(ed), tools.NewGrep(ed))
		for _, t := range tools.EditTools(newJournalEditor(ed, h.checkpoints), h.Reads) {
			h.Registry.Add(t)
		}
	} else {
		h.Registry = tools.NewRegistry(tools.NewReadFile(ws, tools.WithSpill(h.Spill)), tools.NewGlob(ws), tools.NewGrep(ws))
	}
	// One redactor for every tool's output: the API key, the header
	// values and the credential-like environment values, in any cheap
	// encoding.
	redactor := tools.NewRedactor(secretValues(os.Environ(), secrets(cfg)...)...)
	if h.Sandbox != nil {
		sync, _ := ws.(tools.Syncer)
		h.checkpoints.scanner = changes.NewScanner(opts.Root, filepath.Join(wsState, "baseline"))
		h.closers = append(h.closers, h.checkpoints.scanner.Close)
		shell := &journalShell{Shell: h.Sandbox, cp: h.checkpoints}
		h.Registry.Add(tools.NewBash(tools.BashOptions{Shell: shell, Spill: h.Spill, Sync: sync, Redactor: redactor}))
	}
	for _, t := range opts.Tools {
		h.Registry.Add(t)
	}

	var mcpWarnings []string
	if h.MCP, mcpWarnings = NewMCPManager(opts.Root, state, cfg, opts.Trust, log); h.MCP != nil {
		h.closers = append(h.closers, h.MCP.Close)
	}
	for _, w := range mcpWarnings {
		log.Warn("MCP configuration", "warning", w)
		h.Warnings = append(h.Warnings, w)
	}
	h.Guard = NewGuard(GuardOptions{
		Engine:   h.Engine,
		Approver: opts.Approver,
		Sandbox:  st,
		Spill:    h.Spill,
		AskHint:  opts.AskHint,
		Log:      log,
	})
	if h.MCP != nil {
		h.Guard.opts.MCPHint = mcpHint(h.MCP)
	}
	mainOpts := []tools.Option{
		tools.WithGuard(h.Guard),
		tools.WithRedactor(redactor),
		tools.WithLogger(log),
		// The loop caps each result for the model and spills the rest, so
		// the dispatcher's cap only bounds memory.
		tools.WithMaxOutput(1 << 20),
		// bash stops its own commands at their timeout; the dispatcher's
		// deadline is the backstop.
		tools.WithToolTimeout("bash", tools.BashMaxTimeout+time.Minute),
	}
	// Subagents (the task tool) get the read-only tools behind the same
	// guard, and their own fresh context; so does a read-only session.
	subOpts := []tools.Option{tools.WithReadOnly(), tools.WithGuard(h.Guard), tools.WithLogger(log), tools.WithRedactor(redactor)}
	roOpts := append(slices.Clone(subOpts), tools.WithMaxOutput(1<<20))
	var disp, subDisp, roDisp agent.Tools = tools.NewDispatcher(h.Registry, mainOpts...), tools.NewDispatcher(h.Registry, subOpts...), tools.NewDispatcher(h.Registry, roOpts...)
	if h.MCP != nil {
		disp, subDisp = withMCP(h.MCP, h.Registry, h.Engine, mainOpts, subOpts)
		_, roDisp = withMCP(h.MCP, h.Registry, h.Engine, mainOpts, roOpts)
	}
	h.mode.full, h.mode.ro = disp, roDisp
	h.mode.readOnly.Store(opts.ReadOnly)
	// Local models (issue 11): what the endpoint is, its window and tool
	// support, for messages that name the right setting.
	ep := probeEndpoint(cfg, state, log)
	window := cfg.ContextWindow
	if window <= 0 {
		window = ep.Window
	}
	provider := openai.New(openai.Config{
		BaseURL:     cfg.BaseURL,
		Model:       cfg.Model,
		APIKey:      cfg.APIKey,
		Headers:     cfg.Headers,
		IdleTimeout: cfg.IdleTimeout.Duration,
		// Local models: tool calls written as text (issue 11).
		NoTextToolCalls: !cfg.RecoverTextToolCalls(),
		Server:          ep.Server,
	})

	instructions, err := agent.LoadInstructions(opts.Root)
	if err != nil {
		log.Warn("AGENTS.md not read", "err", err)
	}
	skills, skillErrs := agent.LoadSkills(opts.Root)
	for _, e := range skillErrs {
		log.Warn("Skill not loaded", "err", e)
		h.Warnings = append(h.Warnings, e.Error())
	}
	acfg := agent.Config{
		MaxTurns:     cfg.MaxTurns,
		MaxToolCalls: cfg.MaxToolCalls,
		MaxTokens:    cfg.MaxTokens,
		Context: agent.ContextConfig{
			Window:         window,
			CompactAt:      cfg.CompactAt,
			MaxResultBytes: cfg.MaxResultBytes,
			WindowHint:     openai.WindowSetting(ep.Server),
		},
		Notices:  endpointNotices(cfg, ep, window),
		Spill:    h.Spill,
		Root:     opts.Root,
		Skills:   skills,
		Subagent: &agent.SubagentConfig{Tools: subDisp},
		Volatile: h.modeNote,
	}
	acfg.Checkpoints = h.checkpoints
	h.Tools, h.AgentConfig = h.mode, acfg
	h.Agent = agent.New(provider, h.Tools, acfg)
	h.System = agent.BuildSystemPrompt(opts.Root, append(h.Registry.Names(), agent.BuiltinNames(acfg)...), instructions, skills)
	h.Store = agent.NewStore(SessionsDir(state), secrets(cfg)...)
	h.root, h.model = opts.Root, cfg.Model
	return h, nil
}

// Changes returns session id's change journal: the turns, the files each
// changed, what was undone.
func (h *Harness) Changes(id string) (*changes.Journal, error) { return h.checkpoints.Journal(id) }

// pruneOld removes the entries of dir last modified before now-keep.
func pruneOld(dir string, keep time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > keep {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// NewSession starts a recorded conversation with the system prompt for
// this workspace and tool set, under id (a new one when empty). When the
// transcript cannot be created the session still runs, unrecorded, and the
// error says why.
func (h *Harness) NewSession(id string) (*agent.Session, error) {
	if id == "" {
		id = agent.NewSessionID()
	}
	s, err := h.Store.CreateID(id, h.System, agent.TranscriptHeader{Workspace: h.root, Model: h.model})
	if err != nil {
		return agent.NewSession(id, h.System), fmt.Errorf("session not recorded: %w", err)
	}
	return s, nil
}

// ResumeSession continues a recorded session (an id, a unique prefix of
// one, or "last") with today's tools and instructions.
func (h *Harness) ResumeSession(id string) (*agent.Session, error) {
	l, err := h.Store.Resume(id, h.System)
	if err != nil {
		return nil, err
	}
	return l.Session, nil
}

// SessionsDir is where transcripts are kept under stateDir.
func SessionsDir(stateDir string) string { return filepath.Join(stateDir, "sessions") }

// HasSession reports whether a transcript of exactly id exists (no
// prefixes, no "last").
func (h *Harness) HasSession(id string) bool {
	p, err := agent.TranscriptPath(h.Store.Dir, id)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// probeEndpoint asks the server what it is, the model's window and its
// tool support, with the configured key and headers (probed once and
// cached for a day). A failed probe leaves what it learnt (the server
// kind, perhaps) and no window.
func probeEndpoint(cfg config.Config, state string, log *slog.Logger) openai.Endpoint {
	cache := &openai.WindowCache{Path: filepath.Join(state, "windows.json"), TTL: 24 * time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ep, err := cache.Endpoint(ctx, &http.Client{Timeout: 3 * time.Second}, cfg.BaseURL, cfg.Model, openai.Auth{APIKey: cfg.APIKey, Headers: cfg.Headers})
	if err != nil {
		log.Debug("Context window not probed; using the default", "err", err)
	}
	return ep
}

// endpointNotices are the warnings the first run shows about the endpoint.
func endpointNotices(cfg config.Config, ep openai.Endpoint, window int) []string {
	var out []string
	if ep.Tools == openai.SupportNo {
		out = append(out, fmt.Sprintf("%s does not declare tool support on %s: its tool calls may arrive as text (agent-lsp recovers the usual formats) or not at all; a model that lists tools works better", cfg.Model, ep.Server))
	}
	if window > 0 && window < agent.SmallWindow {
		src := ep.WindowSource
		if cfg.ContextWindow > 0 {
			src = "context_window in the configuration"
		}
		out = append(out, fmt.Sprintf("%s runs with a %d-token context window (%s): agent-lsp shortens the tool descriptions and caps tool results to fit; to give it more room, %s", cfg.Model, window, src, openai.WindowSetting(ep.Server)))
	}
	return out
}

// secrets are the values no transcript may hold.
func secrets(cfg config.Config) []string {
	var out []string
	if cfg.APIKey != "" {
		out = append(out, cfg.APIKey)
	}
	for _, v := range cfg.Headers {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Close releases what the harness holds.
func (h *Harness) Close() error {
	var errs []error
	for _, c := range h.closers {
		errs = append(errs, c())
	}
	h.closers = nil
	return errors.Join(errs...)
}
