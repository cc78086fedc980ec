package agent_test

import (
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"
)

// TestMain fails the run when a test leaves anything in the temporary
// directory.
func TestMain(m *testing.M) { os.Exit(tmpcheck.Run(m)) }
