package acp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/mcp/mcptest"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// binary is the real agent-lsp, built once with buildFlags.
var (
	binary     string
	buildFlags []string
)

func TestMain(m *testing.M) {
	// The bash tool's sandbox re-executes this test binary as its helper
	// (in-process tests); the built binary does so itself.
	sandbox.MaybeRunHelper()
	// The MCP test server (mcp/mcptest), when an agent started by a test
	// runs this binary as an editor's MCP server.
	mcptest.MaybeServe()
	dir, err := os.MkdirTemp("", "agent-lsp-acp-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agent-lsp")
	if out, err := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", binary, "../cmd/agent-lsp")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building agent-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needClient skips the test when a client program is missing, except in
// CI or under scripts/test (AGENT_LSP_REQUIRE_CLIENTS), where it fails.
func needClient(t *testing.T, what, hint string) {
	t.Helper()
	if os.Getenv("CI") != "" || os.Getenv("AGENT_LSP_REQUIRE_CLIENTS") != "" {
		t.Fatalf("%s is missing (CI or AGENT_LSP_REQUIRE_CLIENTS is set, so this fails instead of skipping): %s", what, hint)
	}
	t.Skipf("%s is missing: %s", what, hint)
}

// fixture starts a scripted model server and a workspace with files; it
// returns the server and the workspace's real path.
func fixture(t *testing.T, files map[string]string, replies ...agenttest.Reply) (*agenttest.Server, string) {
	t.Helper()
	m, err := agenttest.NewServer(replies...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ws := t.TempDir()
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	for name, text := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m, ws
}

func call(id, name, args string) agenttest.ScriptCall {
	return agenttest.ScriptCall{ID: id, Name: name, Arguments: args}
}
