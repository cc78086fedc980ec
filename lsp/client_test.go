package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestNodeClient runs testdata/clients/node_client.js, a client built on
// vscode-languageserver-protocol, against the real binary. It needs node
// and AGENT_LSP_NODE_MODULES pointing at a node_modules directory holding
// vscode-languageserver-protocol; otherwise it is skipped.
func TestNodeClient(t *testing.T) {
	mods := os.Getenv("AGENT_LSP_NODE_MODULES")
	node, err := exec.LookPath("node")
	if mods == "" || err != nil {
		t.Skip("set AGENT_LSP_NODE_MODULES (and install node) to run the vscode-languageserver-protocol client")
	}
	m, err := agenttest.NewServer(
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{Text: "done"},
		agenttest.Reply{Text: "late", Delay: "30s"},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main // disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/clients/node_client.js")
	cmd := exec.Command(node, script, binary, ws, m.URL)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods, "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("node client: %v\n%s", err, out)
	}
}
