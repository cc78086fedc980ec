package acp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"

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
	if out, err := proctest.GoBuild(binary, "../cmd/agent-lsp", buildFlags...); err != nil {
		fmt.Fprintf(os.Stderr, "building agent-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := tmpcheck.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

func call(id, name, args string) agenttest.ScriptCall {
	return agenttest.ScriptCall{ID: id, Name: name, Arguments: args}
}
