package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/harness"
)

// mcpServer is one entry of session/new's mcpServers: stdio (no type, or
// "stdio") with command, args and env, or "http" with url and headers.
// SSE servers are not taken (mcpCapabilities.sse is false).
type mcpServer struct {
	Type    string     `json:"type"`
	Name    string     `json:"name"`
	Command string     `json:"command"`
	Args    []string   `json:"args"`
	Env     []envEntry `json:"env"`
	URL     string     `json:"url"`
	Headers []envEntry `json:"headers"`
}

type envEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// mcpServers turns session/new's mcpServers into the harness's
// definitions. They come from the user's editor settings, so they start
// without a trust prompt, like the user's own configuration.
func mcpServers(raw []json.RawMessage) (map[string]harness.MCPServer, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]harness.MCPServer, len(raw))
	for i, r := range raw {
		var m mcpServer
		if err := json.Unmarshal(r, &m); err != nil {
			return nil, fmt.Errorf("mcpServers[%d]: %v", i, err)
		}
		name := strings.TrimSpace(m.Name)
		if name == "" {
			return nil, fmt.Errorf("mcpServers[%d]: a server needs a name", i)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("mcpServers[%d]: two servers are named %q", i, name)
		}
		var s harness.MCPServer
		switch m.Type {
		case "", "stdio":
			if m.Command == "" {
				return nil, fmt.Errorf("mcpServers[%d] (%s): a stdio server needs a command", i, name)
			}
			s.Command, s.Args, s.Env = m.Command, m.Args, entries(m.Env)
		case "http":
			if m.URL == "" {
				return nil, fmt.Errorf("mcpServers[%d] (%s): an http server needs a url", i, name)
			}
			s.URL, s.Headers = m.URL, entries(m.Headers)
		default:
			return nil, fmt.Errorf("mcpServers[%d] (%s): transport %q is not supported (stdio and http are)", i, name, m.Type)
		}
		out[name] = s
	}
	return out, nil
}

func entries(es []envEntry) map[string]string {
	if len(es) == 0 {
		return nil
	}
	m := make(map[string]string, len(es))
	for _, e := range es {
		m[e.Name] = e.Value
	}
	return m
}
