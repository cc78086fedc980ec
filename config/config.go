// Package config resolves agent-lsp's settings. Flags beat the environment,
// which beats the configuration files, which beat the defaults. Two files
// are read: the user's ($XDG_CONFIG_HOME/agent-lsp/config.toml, or the
// --config file) and the workspace's (.agent-lsp/config.toml). A workspace
// comes from wherever the user cloned it, so its file may not choose where
// requests and keys go (base_url, api_key, headers): it could send the
// user's key to a server of its choosing. Nor may it loosen the sandbox
// ([sandbox] network can only be turned off there, backend not chosen).
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/internal/tomlpos"
	"github.com/agent-lsp/agent-lsp/permission"
)

// DefaultBaseURL is a local Ollama's OpenAI-compatible endpoint.
const DefaultBaseURL = "http://localhost:11434/v1"

// DefaultModel is used when nothing names a model.
const DefaultModel = "qwen2.5-coder:7b"

// Config is the resolved configuration of one run or server.
type Config struct {
	BaseURL string            `toml:"base_url"`
	Model   string            `toml:"model"`
	APIKey  string            `toml:"api_key"`
	Headers map[string]string `toml:"headers"`
	// APIKeyEnv names an environment variable holding the key, so the
	// key itself stays out of files.
	APIKeyEnv string `toml:"api_key_env"`

	MaxTurns     int `toml:"max_turns"`
	MaxToolCalls int `toml:"max_tool_calls"`
	MaxTokens    int `toml:"max_tokens"`
	// RequestTimeout bounds a stalled stream (no byte for this long).
	IdleTimeout Duration `toml:"idle_timeout"`

	// Permissions are the [permissions.TOOL] tables; Rules the checked rule
	// sets of both files, in the order they apply.
	Permissions permission.Permissions `toml:"permissions"`
	Rules       permission.Config      `toml:"-"`

	// ContextWindow is the model's context window in tokens; 0 probes the
	// server (Ollama, llama.cpp) and falls back to 32768.
	ContextWindow int `toml:"context_window"`
	// CompactAt is the share of the window the prompt may fill before the
	// conversation is summarised (default 0.8).
	CompactAt float64 `toml:"compact_at"`
	// MaxResultBytes caps one tool result sent to the model; the full
	// text goes to a file the model can read back (default 16384).
	MaxResultBytes int `toml:"max_result_bytes"`

	// TextToolCalls recovers tool calls a model writes as text instead of
	// structured tool_calls (provider/textcalls); nil means on. false
	// takes such replies as plain answers.
	TextToolCalls *bool `toml:"text_tool_calls"`
	// OllamaNative lets the run talk to Ollama through its native
	// /api/chat, the only endpoint that sets the context size (num_ctx);
	// nil means on. false keeps /v1/chat/completions. User file only: it
	// chooses which endpoint requests go to.
	OllamaNative *bool `toml:"ollama_native"`

	// Review is "off" (the default: edits apply at once, every one
	// journaled and undoable) or "confirm": in a headless run every edit
	// of the file tools asks first, on the terminal (editors have their
	// own review setting, with a preview). A workspace file may only set
	// "confirm".
	Review string `toml:"review"`

	// Sandbox is the [sandbox] table: how the bash tool's commands are
	// confined.
	Sandbox Sandbox `toml:"sandbox"`

	// Files lists the configuration files that were read, for doctor.
	Files []string `toml:"-"`

	// MCPServers are the [mcp_servers.NAME] tables of the user's file
	// (mcp.go); a workspace file may not declare any.
	MCPServers map[string]MCPServer `toml:"mcp_servers"`
}

// Sandbox is the [sandbox] table. A workspace file may only tighten it: it
// can turn the network off, never on, and cannot choose the backend.
type Sandbox struct {
	// Network lets commands use the network (default false).
	Network bool `toml:"network"`
	// Backend is "auto" (default: the strongest that works), "landlock",
	// "bwrap" or "none" (no confinement: every command needs approval).
	Backend string `toml:"backend"`
	// Env names environment variables passed to commands besides the
	// built-in allow-list (sandbox.AllowedEnv).
	Env []string `toml:"env"`
	// Hide are more paths commands cannot read ("~/" is the home
	// directory; globs allowed), besides the built-in credential stores.
	Hide []string `toml:"hide"`

	networkOff bool // a workspace file set network = false
}

// SandboxBackends are the values [sandbox] backend accepts.
var SandboxBackends = []string{"auto", "landlock", "bwrap", "none"}

// Duration is a time.Duration written as "90s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// Overrides are the values given on the command line; zero means unset.
type Overrides struct {
	BaseURL      string
	Model        string
	MaxTurns     int
	MaxToolCalls int
}

// Sources says where to look.
type Sources struct {
	// UserFile is the --config file; empty means the default location,
	// which may be missing.
	UserFile string
	// Workspace is the workspace root; its .agent-lsp/config.toml is read.
	Workspace string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	Flags  Overrides
}

// Error is a configuration problem tied to a file position.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// UserFile returns the default location of the user's file.
func UserFile(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agent-lsp", "config.toml")
}

// WorkspaceFile returns the workspace's configuration file path.
func WorkspaceFile(root string) string {
	return filepath.Join(root, ".agent-lsp", "config.toml")
}

// workspaceForbidden are keys a workspace file may not set.
var workspaceForbidden = []string{"base_url", "api_key", "api_key_env", "headers", "ollama_native"}

// Load resolves the configuration. The returned error is an *Error (or
// wraps one) for a bad file; warnings are things the user should see but
// that do not stop a run.
func Load(src Sources) (Config, []string, error) {
	getenv := src.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var cfg Config
	var warnings []string

	user, explicit := src.UserFile, src.UserFile != ""
	if !explicit {
		user = UserFile(getenv)
	}
	if user != "" {
		err := decodeFile(user, &cfg, nil, permission.FromUser)
		switch {
		case err == nil:
			cfg.Files = append(cfg.Files, user)
		case errors.Is(err, os.ErrNotExist) && !explicit:
		default:
			return cfg, nil, err
		}
	}
	if src.Workspace != "" {
		var ws Config
		wsFile := WorkspaceFile(src.Workspace)
		err := decodeFile(wsFile, &ws, &warnings, permission.FromWorkspace)
		switch {
		case err == nil:
			cfg.Files = append(cfg.Files, wsFile)
			cfg.mergeWorkspace(ws)
			cfg.Rules.Sets = append(cfg.Rules.Sets, ws.Rules.Sets...)
			cfg.Rules.Notes = append(cfg.Rules.Notes, ws.Rules.Notes...)
			warnings = append(warnings, ws.Rules.Notes...)
		case errors.Is(err, os.ErrNotExist):
		default:
			return cfg, nil, err
		}
	}

	if v := firstEnv(getenv, "AGENT_LSP_BASE_URL", "OPENAI_BASE_URL"); v != "" {
		cfg.BaseURL = v
	}
	if v := getenv("AGENT_LSP_MODEL"); v != "" {
		cfg.Model = v
	}
	if cfg.APIKeyEnv != "" {
		if v := getenv(cfg.APIKeyEnv); v != "" {
			cfg.APIKey = v
		}
	}
	if v := firstEnv(getenv, "AGENT_LSP_API_KEY", "OPENAI_API_KEY"); v != "" {
		cfg.APIKey = v
	}

	f := src.Flags
	set(&cfg.BaseURL, f.BaseURL)
	set(&cfg.Model, f.Model)
	set(&cfg.MaxTurns, f.MaxTurns)
	set(&cfg.MaxToolCalls, f.MaxToolCalls)

	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.CompactAt < 0 || cfg.CompactAt >= 1 {
		return cfg, warnings, errors.New("compact_at must be between 0 and 1 (a share of the context window)")
	}
	if cfg.MaxTurns < 0 || cfg.MaxToolCalls < 0 || cfg.MaxTokens < 0 || cfg.ContextWindow < 0 || cfg.MaxResultBytes < 0 {
		return cfg, warnings, errors.New("limits must not be negative")
	}
	return cfg, warnings, nil
}

// mergeWorkspace takes the workspace's values for the keys it may set.
func (c *Config) mergeWorkspace(ws Config) {
	set(&c.Model, ws.Model)
	set(&c.MaxTurns, ws.MaxTurns)
	set(&c.MaxToolCalls, ws.MaxToolCalls)
	set(&c.MaxTokens, ws.MaxTokens)
	set(&c.IdleTimeout, ws.IdleTimeout)
	set(&c.ContextWindow, ws.ContextWindow)
	set(&c.CompactAt, ws.CompactAt)
	set(&c.MaxResultBytes, ws.MaxResultBytes)
	if ws.TextToolCalls != nil {
		c.TextToolCalls = ws.TextToolCalls
	}
	if ws.Review == "confirm" { // only tightens
		c.Review = ws.Review
	}
	if ws.Sandbox.networkOff {
		c.Sandbox.Network = false
	}
}

// set overlays v on *dst unless v is the zero value (the key was not set).
func set[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// RecoverTextToolCalls reports whether tool calls written as text are
// recovered (the default).
func (c Config) RecoverTextToolCalls() bool { return c.TextToolCalls == nil || *c.TextToolCalls }

// UseOllamaNative reports whether Ollama is spoken to through /api/chat
// so the run can set its context size (the default).
func (c Config) UseOllamaNative() bool { return c.OllamaNative == nil || *c.OllamaNative }

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// decodeFile decodes one TOML file into cfg, reporting unknown keys with
// their line, and checks its permission rules (a *permission.ConfigError
// on failure). When warnings is not nil the file is a workspace file: keys
// it may not set are reported there and dropped.
func decodeFile(path string, cfg *Config, warnings *[]string, origin permission.Origin) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	md, err := toml.Decode(string(data), cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return &Error{File: path, Line: perr.Position.Line, Msg: perr.Message}
		}
		return &Error{File: path, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return &Error{File: path, Line: tomlpos.KeyLine(data, k), Key: k.String(), Msg: "unknown key"}
	}
	if r := cfg.Review; r != "" && r != "off" && r != "confirm" {
		return &Error{File: path, Line: tomlpos.KeyLine(data, toml.Key{"review"}), Key: "review", Msg: fmt.Sprintf("%q is not one of off, confirm", r)}
	}
	if b := cfg.Sandbox.Backend; b != "" && !slices.Contains(SandboxBackends, b) {
		return &Error{File: path, Line: tomlpos.KeyLine(data, toml.Key{"sandbox", "backend"}), Key: "sandbox.backend",
			Msg: fmt.Sprintf("%q is not one of %s", b, strings.Join(SandboxBackends, ", "))}
	}
	if warnings == nil { // a workspace's servers are dropped below
		if err := checkMCPServers(path, data, cfg.MCPServers); err != nil {
			return err
		}
	}
	rs, notes, err := permission.ParseRuleSet(path, data, origin)
	if err != nil {
		return err
	}
	cfg.Rules.Sets = append(cfg.Rules.Sets, rs)
	cfg.Rules.Notes = append(cfg.Rules.Notes, notes...)
	if warnings != nil {
		for _, k := range workspaceForbidden {
			if md.IsDefined(k) {
				*warnings = append(*warnings, (&Error{File: path, Line: tomlpos.KeyLine(data, toml.Key{k}), Key: k,
					Msg: "ignored: only the user's configuration may set it (a workspace must not choose where your requests and keys go)"}).Error())
			}
		}
		cfg.BaseURL, cfg.APIKey, cfg.APIKeyEnv, cfg.Headers, cfg.OllamaNative = "", "", "", nil, nil
		// A cloned repository must not start programs: its servers go in
		// .mcp.json, which asks the user first.
		if md.IsDefined("mcp_servers") {
			*warnings = append(*warnings, (&Error{File: path, Line: tomlpos.KeyLine(data, toml.Key{"mcp_servers"}), Key: "mcp_servers",
				Msg: "ignored: only the user's configuration may declare MCP servers (a workspace declares them in .mcp.json, which needs your approval)"}).Error())
		}
		cfg.MCPServers = nil
		// The sandbox can only be tightened from a workspace.
		if k := (toml.Key{"sandbox", "network"}); md.IsDefined(k...) {
			if cfg.Sandbox.Network {
				*warnings = append(*warnings, (&Error{File: path, Line: tomlpos.KeyLine(data, k), Key: k.String(),
					Msg: "ignored: a workspace file can turn the network off, never on"}).Error())
			}
			cfg.Sandbox.networkOff = !cfg.Sandbox.Network
		}
		if k := (toml.Key{"sandbox", "backend"}); md.IsDefined(k...) {
			*warnings = append(*warnings, (&Error{File: path, Line: tomlpos.KeyLine(data, k), Key: k.String(),
				Msg: "ignored: only the user's configuration may choose the sandbox backend"}).Error())
		}
		for _, k := range []string{"env", "hide"} {
			if k := (toml.Key{"sandbox", k}); md.IsDefined(k...) {
				*warnings = append(*warnings, (&Error{File: path, Line: tomlpos.KeyLine(data, k), Key: k.String(),
					Msg: "ignored: only the user's configuration may say which variables and files commands see"}).Error())
			}
		}
		cfg.Sandbox.Network, cfg.Sandbox.Backend, cfg.Sandbox.Env, cfg.Sandbox.Hide = false, "", nil, nil
	}
	return nil
}
