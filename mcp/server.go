package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/config"
)

// Server is one server definition and where it came from.
type Server struct {
	// Name is the server's name in tool names (mcp__Name__TOOL).
	Name string
	// Source is the file that declared it.
	Source string
	// Workspace is true for a server of the workspace's .mcp.json: it
	// starts only with the user's approval of Hash.
	Workspace bool
	// Hash is the SHA-256 of the definition as declared.
	Hash string
	config.MCPServer
}

// Transport is "stdio" or "http".
func (s Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Target is the command line or URL, for people.
func (s Server) Target() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// Describe is the whole definition, one item per line, for a trust prompt:
// everything that decides what would run.
func (s Server) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q from %s\n", s.Name, s.Source)
	if s.URL != "" {
		fmt.Fprintf(&b, "url: %s\n", s.URL)
		for _, k := range sortedKeys(s.Headers) {
			fmt.Fprintf(&b, "header %s: %s\n", k, s.Headers[k])
		}
	} else {
		fmt.Fprintf(&b, "command: %s\n", s.Command)
		for i, a := range s.Args {
			fmt.Fprintf(&b, "arg %d: %s\n", i+1, a)
		}
		for _, k := range sortedKeys(s.Env) {
			fmt.Fprintf(&b, "env %s=%s\n", k, s.Env[k])
		}
		if s.Cwd != "" {
			fmt.Fprintf(&b, "cwd: %s\n", s.Cwd)
		}
	}
	fmt.Fprintf(&b, "sha256: %s", s.Hash)
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// UserServers turns the user's [mcp_servers] tables into Servers, sorted
// by name, disabled ones included (Status shows them).
func UserServers(source string, tables map[string]config.MCPServer) []Server {
	var out []Server
	for _, name := range slices.Sorted(mapKeys(tables)) {
		def := tables[name]
		out = append(out, Server{Name: name, Source: source, Hash: hashOf(def), MCPServer: def})
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func hashOf(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// WorkspaceFile is the workspace's server file, Claude Code's format.
func WorkspaceFile(root string) string { return filepath.Join(root, ".mcp.json") }

// maxWorkspaceFile bounds what is read of .mcp.json.
const maxWorkspaceFile = 1 << 20

// mcpJSONServer is one entry of .mcp.json's mcpServers.
type mcpJSONServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// WorkspaceServers reads root's .mcp.json. A missing file is no servers;
// a malformed file is an error; an entry that cannot be used (an unknown
// type, a bad URL) is left out with a warning. Names are made usable in
// tool names (see SanitizeServerName); a name the user's configuration
// already has is left out too: a repository cannot replace the user's
// server.
func WorkspaceServers(root string, taken []string) ([]Server, []string, error) {
	path := WorkspaceFile(root)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	data, err := io.ReadAll(io.LimitReader(f, maxWorkspaceFile+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxWorkspaceFile {
		return nil, nil, fmt.Errorf("%s: larger than %d bytes", path, maxWorkspaceFile)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []Server
	var warnings []string
	seen := map[string]bool{}
	for _, t := range taken {
		seen[t] = true
	}
	for _, raw := range slices.Sorted(mapKeys(doc.MCPServers)) {
		var e mcpJSONServer
		if err := json.Unmarshal(doc.MCPServers[raw], &e); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: server %q left out: %v", path, raw, err))
			continue
		}
		name := SanitizeServerName(raw)
		if seen[name] {
			warnings = append(warnings, fmt.Sprintf("%s: server %q left out: your configuration already has a server named %q", path, raw, name))
			continue
		}
		def := config.MCPServer{Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers}
		switch e.Type {
		case "", "stdio":
			if e.Type == "stdio" && e.URL != "" {
				def.URL = ""
			}
		case "http", "streamable-http", "streamableHttp":
			def.Command, def.Args, def.Env = "", nil, nil
		default:
			warnings = append(warnings, fmt.Sprintf("%s: server %q left out: type %q is not supported (use \"stdio\" or \"http\")", path, raw, e.Type))
			continue
		}
		if err := def.Check(); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: server %q left out: %v", path, raw, err))
			continue
		}
		seen[name] = true
		out = append(out, Server{Name: name, Source: path, Workspace: true, Hash: hashOf(e), MCPServer: def})
	}
	return out, warnings, nil
}

// SanitizeServerName maps a server name to [A-Za-z0-9_-], without "__"
// (which ends the server part of a tool name), at most 32 characters.
func SanitizeServerName(name string) string {
	s := sanitize(name)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	if len(s) > 32 {
		s = s[:32]
	}
	s = strings.Trim(s, "_")
	if s == "" {
		s = "server"
	}
	return s
}

// sanitize maps every byte outside [A-Za-z0-9_-] to '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
