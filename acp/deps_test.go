package acp_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers keeps acp a sibling of lsp: it never imports the language
// server (or an editor protocol library), only the harness below it.
func TestLayers(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/agent-lsp/agent-lsp/lsp" || strings.HasPrefix(dep, "github.com/agent-lsp/agent-lsp/lsp/") || strings.HasPrefix(dep, "go.lsp.dev/") {
			t.Errorf("acp depends on %s", dep)
		}
	}
}
