package lsptest_test

import (
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/mcp/mcptest"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// TestMain lets the test binary act as the sandbox helper: the server's
// bash tool re-executes /proc/self/exe to confine its commands.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	// MCP: the supervisor of stdio servers, and the go-sdk test server.
	mcp.MaybeRunSupervisor()
	mcptest.MaybeServe()
	os.Exit(tmpcheck.Run(m))
}
