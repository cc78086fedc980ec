package config

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/internal/tomlpos"
)

// MCPServer is one `[mcp_servers.NAME]` table, in Codex's format: a stdio
// server (command, args, env, cwd) or a streamable HTTP one (url,
// headers). Only the user's file may declare servers: a workspace declares
// its own in .mcp.json, and those start only after the user approved them
// (package mcp).
type MCPServer struct {
	Command string            `toml:"command" json:"command,omitempty"`
	Args    []string          `toml:"args" json:"args,omitempty"`
	Env     map[string]string `toml:"env" json:"env,omitempty"`
	Cwd     string            `toml:"cwd" json:"cwd,omitempty"`

	URL string `toml:"url" json:"url,omitempty"`
	// Headers are sent with every HTTP request; a value "env:NAME" is
	// read from the environment variable NAME when the server starts.
	Headers map[string]string `toml:"headers" json:"headers,omitempty"`

	// Enabled defaults to true.
	Enabled *bool `toml:"enabled" json:"enabled,omitempty"`
	// StartupTimeout bounds start-up and the first tools/list (default
	// 30s); ToolTimeout bounds one call (default 120s). Codex's
	// startup_timeout_sec and tool_timeout_sec (seconds) are read too.
	StartupTimeout    Duration `toml:"startup_timeout" json:"startup_timeout,omitempty"`
	ToolTimeout       Duration `toml:"tool_timeout" json:"tool_timeout,omitempty"`
	StartupTimeoutSec float64  `toml:"startup_timeout_sec" json:"-"`
	ToolTimeoutSec    float64  `toml:"tool_timeout_sec" json:"-"`
	// EnabledTools, when set, offers only these tools of the server;
	// DisabledTools hides some (names as the server calls them).
	EnabledTools  []string `toml:"enabled_tools" json:"enabled_tools,omitempty"`
	DisabledTools []string `toml:"disabled_tools" json:"disabled_tools,omitempty"`

	// Sandbox runs a stdio server inside the same OS sandbox as bash;
	// Network then lets it reach the network (off by default).
	Sandbox bool `toml:"sandbox" json:"sandbox,omitempty"`
	Network bool `toml:"network" json:"network,omitempty"`
}

// On reports whether the server is enabled.
func (s MCPServer) On() bool { return s.Enabled == nil || *s.Enabled }

// Timeouts returns the startup and per-call timeouts, defaults applied.
func (s MCPServer) Timeouts() (startup, call time.Duration) {
	startup, call = s.StartupTimeout.Duration, s.ToolTimeout.Duration
	if startup == 0 && s.StartupTimeoutSec > 0 {
		startup = time.Duration(s.StartupTimeoutSec * float64(time.Second))
	}
	if call == 0 && s.ToolTimeoutSec > 0 {
		call = time.Duration(s.ToolTimeoutSec * float64(time.Second))
	}
	if startup <= 0 {
		startup = 30 * time.Second
	}
	if call <= 0 {
		call = 120 * time.Second
	}
	return startup, call
}

// ValidMCPServerName reports whether name can be a server name: letters,
// digits, '-' and single '_' (a "__" would make mcp__SERVER__TOOL
// ambiguous), at most 32 characters.
func ValidMCPServerName(name string) bool {
	if name == "" || len(name) > 32 || strings.Contains(name, "__") {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Check returns what is wrong with the table, or nil.
func (s MCPServer) Check() error {
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("needs command (a stdio server) or url (a streamable HTTP server)")
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("has both command and url; a server is one or the other")
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q is not an http(s) URL", s.URL)
		}
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" || s.Sandbox {
			return fmt.Errorf("args, env, cwd and sandbox are for stdio servers (command), not url")
		}
	default:
		if len(s.Headers) > 0 {
			return fmt.Errorf("headers are for HTTP servers (url), not command")
		}
	}
	if s.StartupTimeout.Duration < 0 || s.ToolTimeout.Duration < 0 || s.StartupTimeoutSec < 0 || s.ToolTimeoutSec < 0 {
		return fmt.Errorf("timeouts must not be negative")
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env name %q is not a variable name", k)
		}
	}
	for k, v := range s.Headers {
		if strings.ContainsAny(k, " :\r\n\x00") || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("header %q is malformed", k)
		}
	}
	return nil
}

// checkMCPServers reports the first bad [mcp_servers.NAME] table of a file.
func checkMCPServers(path string, data []byte, servers map[string]MCPServer) error {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		key := toml.Key{"mcp_servers", n}
		if !ValidMCPServerName(n) {
			return &Error{File: path, Line: tomlpos.KeyLine(data, key), Key: key.String(),
				Msg: "server names use letters, digits, '-' and single '_' (at most 32)"}
		}
		if err := servers[n].Check(); err != nil {
			return &Error{File: path, Line: tomlpos.KeyLine(data, key), Key: key.String(), Msg: err.Error()}
		}
	}
	return nil
}
