// Package harness wires one agent from the configuration: the provider,
// the tools over a workspace, the sandbox the bash tool runs in, the
// permission engine and the guard in front of the dispatcher. The headless
// runner and the language server both build their agents here, so a tool
// behaves the same with or without an editor.
package harness

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// MCPServers are servers a front-end passes for this session (an ACP
	// editor's session/new), from the user's editor settings: they start
	// like the user's own, without a trust prompt, and win over a server
	// of the same name in the configuration.
	MCPServers map[string]MCPServer
	// Preconnect dials the model's server while the harness is built, for
	// a front-end whose first request follows at once (agent-lsp run);
	// an editor's first prompt may come minutes later, on a connection
	// the server has closed by then.
	Preconnect bool
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

// New builds a harness.
func New(opts Options) (_ *Harness, err error) {
	h := &Harness{mode: &modeTools{}}
	defer func() {
		if err != nil {
			h.Close()
		}
	}()
	var preconn *openai.Preconn
	if opts.Preconnect {
		if preconn = openai.Preconnect(opts.Config.BaseURL); preconn != nil {
			h.closers = append(h.closers, preconn.Close)
		}
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	// The disk's interfaces are known here; an editor's are asked for
	// (an assertion to an interface builds its table at run time).
	ws := opts.Workspace
	var ed tools.Editor
	var syncer tools.Syncer
	if ws == nil {
		disk, err := tools.NewDiskWorkspace(opts.Root)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", opts.Root, err)
		}
		h.closers = append(h.closers, disk.Close)
		ws, ed = disk, disk
	} else {
		ed, _ = ws.(tools.Editor)
		syncer, _ = ws.(tools.Syncer)
	}
	cfg := opts.Config
	state := opts.StateDir
	if state == "" {
		state = DefaultStateDir(os.Getenv)
	}
	wsState := WorkspaceStateDir(state, opts.Root)

	sets := cfg.Rules.Sets
	if cfg.Review == "confirm" && opts.Workspace == nil {
		// Headless review: every edit of the file tools asks first (the
		// editors review through their own preview instead).
		sets = append(slices.Clone(sets), permission.RuleSet{Source: "review = \"confirm\" in the configuration", Origin: permission.FromUser,
			Tools: permission.Permissions{"write_file": {Ask: []string{"**"}}, "str_replace": {Ask: []string{"**"}}}})
	}
	if h.Engine, err = permission.New(opts.Root, sets...); err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
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
	}
	// The sandbox is probed when its status is first needed: the guard
	// asks at the first shell command, so a run without one never probes.
	status := func() sandbox.Status { return sandbox.Status{} }
	if sb := h.Sandbox; sb != nil {
		status = sync.OnceValue(func() sandbox.Status {
			st := sb.Status()
			if st.Confined() {
				log.Info("Sandbox", "backend", st.Backend, "layers", strings.Join(st.Layers, ","), "network", st.Network, "warning", st.Warning)
			} else {
				// Callers show this to the user (Harness.Sandbox.Status()).
				log.Info("No sandbox: every bash command needs approval", "warning", st.Warning)
			}
			return st
		})
	}
	spillRoot := filepath.Join(wsState, "spill")
	h.Spill = tools.NewSpill(filepath.Join(spillRoot, time.Now().UTC().Format("20060102T150405")+"-"+strconv.Itoa(os.Getpid())))
	h.Spill.BeforeFirstSave(func() { pruneOld(spillRoot, spillKeep) })

	// The file tools share one record of what the agent read; read_file
	// also reads h.Spill's files (the full outputs the bash results name).
	// A workspace that can apply edits gets the write tools too; the guard
	// checks the paths of every call, for writing where the tool writes.
	h.Reads = tools.NewReads()
	// The change journal (changes.go): edits and commands report to the
	// running turn's journal, kept next to the session's transcript.
	h.checkpoints = &checkpoints{sessions: SessionsDir(state), log: log, secrets: secrets(cfg)}
	h.closers = append(h.closers, h.checkpoints.close)
	if ed != nil {
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
		h.checkpoints.scanner = changes.NewScanner(opts.Root, filepath.Join(wsState, "baseline"), state)
		h.closers = append(h.closers, h.checkpoints.scanner.Close)
		shell := &journalShell{Shell: h.Sandbox, cp: h.checkpoints}
		h.Registry.Add(tools.NewBash(tools.BashOptions{Shell: shell, Spill: h.Spill, Sync: syncer, Redactor: redactor}))
	}
	for _, t := range opts.Tools {
		h.Registry.Add(t)
	}

	var mcpWarnings []string
	if len(opts.MCPServers) > 0 {
		all := maps.Clone(cfg.MCPServers)
		if all == nil {
			all = map[string]MCPServer{}
		}
		maps.Copy(all, opts.MCPServers)
		cfg.MCPServers = all
	}
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
		Sandbox:  status,
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
	// On Ollama the run sets the window it needs (/api/chat's num_ctx).
	numCtx := OllamaNumCtx(cfg, ep)
	if numCtx > 0 {
		window = numCtx
		log.Info("Ollama: native /api/chat", "num_ctx", numCtx, "probed", ep.Window, "native", ep.NativeWindow)
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
		OllamaNumCtx:    numCtx,
		Preconn:         preconn,
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
			// Local servers may cut a prompt silently; hosted APIs refuse it.
			RejectsOverflow: hostedAPI(cfg.BaseURL, ep.Server),
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

// Close releases what the harness holds.
func (h *Harness) Close() error {
	var errs []error
	for _, c := range h.closers {
		errs = append(errs, c())
	}
	h.closers = nil
	return errors.Join(errs...)
}
