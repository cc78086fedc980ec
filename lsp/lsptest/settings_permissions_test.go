package lsptest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// TestEditorSettingsPermissions: permission rules in the editor's settings
// (the VS Code extension's agentLsp.permissions) decide like the user's
// config file: here they allow `touch *` without a prompt and deny `ls*`.
func TestEditorSettingsPermissions(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("a", "bash", `{"command":"touch made.txt"}`),
		call("b", "bash", `{"command":"ls -la"}`),
		agenttest.Reply{Text: "done"},
	)
	opts := initOpts(m)
	opts.InitOptions["permissions"] = map[string]any{
		"bash": map[string]any{"allow": []string{"touch *"}, "deny": []string{"ls*"}},
	}
	e := lsptest.Connect(t, nil, opts)
	res := prompt(t, e, "make a file, then list")
	if res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	for _, r := range e.Requests() {
		if r.Method == "window/showMessageRequest" {
			t.Fatalf("asked the user although the settings decide: %s", r.Params)
		}
	}
	if _, err := os.Stat(e.Path("made.txt")); err != nil {
		t.Fatalf("touch did not run: %v", err)
	}
	rs := toolResults(e)
	if len(rs) != 2 || rs[0].IsError || !rs[1].IsError || !strings.Contains(rs[1].Result, "ls*") {
		t.Fatalf("results %+v", rs)
	}
}

// TestBadEditorPermissionsIgnored: rules the engine cannot use are
// reported and dropped, not half-applied.
func TestBadEditorPermissionsIgnored(t *testing.T) {
	t.Parallel()
	m := model(t, call("a", "bash", `{"command":"touch x.txt"}`), agenttest.Reply{Text: "done"})
	opts := initOpts(m)
	opts.InitOptions["permissions"] = map[string]any{"bsh": map[string]any{"allow": []string{"touch *"}}}
	opts.InitOptions["approvalTimeout"] = "200ms"
	e := lsptest.Connect(t, nil, opts)
	if res := prompt(t, e, "touch"); res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(e.Path("x.txt")); err == nil {
		t.Fatal("a rule for an unknown tool allowed a command")
	}
}
