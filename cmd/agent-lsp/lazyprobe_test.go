package main

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// probeFiles lists the sandbox probe caches under the state directory:
// the sandbox writes one when it probes the machine, and only then.
func probeFiles(t *testing.T, state string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "probe.json" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A run that never calls bash never probes the sandbox (no helper, no
// bwrap, no test commands before the first model request); the first
// bash call does, and says how the command is confined.
func TestNoSandboxProbeWithoutBash(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := newServer(t, agenttest.Reply{Text: "Nothing to run."})
	r := runBinary(t, ws, "run", "--base-url", srv.URL, "--model", "scripted", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := probeFiles(t, filepath.Join(ws, ".state")); len(got) != 0 {
		t.Fatalf("a run without bash probed the sandbox: %v", got)
	}

	ws2 := t.TempDir()
	srv2 := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "b", Name: "bash", Arguments: `{"command":"echo hi"}`}}},
		agenttest.Reply{Text: "done"},
	)
	r = runBinary(t, ws2, "run", "--ask", "allow", "--base-url", srv2.URL, "--model", "scripted", "say hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := probeFiles(t, filepath.Join(ws2, ".state")); len(got) != 1 {
		t.Fatalf("probe caches after a bash call: %v", got)
	}
	if res := srv2.Requests()[1].LastToolResult(); !strings.Contains(res, "hi") {
		t.Fatalf("bash result %q", res)
	}
}
