package tools

import (
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

// TestMain lets the test binary act as the sandbox helper: the landlock
// backend re-executes /proc/self/exe, as the agent-lsp binary does.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(tmpcheck.Run(m))
}
