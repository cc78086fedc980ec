package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// nodeModules is the node_modules holding the test clients' libraries:
// AGENT_LSP_NODE_MODULES, else testdata/clients/node_modules (scripts/test
// runs npm ci there).
func nodeModules() string {
	if m := os.Getenv("AGENT_LSP_NODE_MODULES"); m != "" {
		return m
	}
	m, _ := filepath.Abs("testdata/clients/node_modules")
	return m
}

// TestNodeClient runs testdata/clients/node_client.js, a client built on
// vscode-languageserver-protocol, against the real binary: a prompt whose
// scripted model reads the unsaved buffer, edits it (the client applies
// workspace/applyEdit to its copy; with review "confirm" the edit is
// annotated) and runs a bash command the client allows through
// window/showMessageRequest; the turn's three files in agent/changes and
// agent/undo of them (the user's unsaved line kept, plain edits); then a
// cancelled run and a clean shutdown.
func TestNodeClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		agenttest.NeedClient(t, "node", "install Node.js 18+")
	}
	mods := nodeModules()
	if _, err := os.Stat(filepath.Join(mods, "vscode-languageserver-protocol", "package.json")); err != nil {
		agenttest.NeedClient(t, "vscode-languageserver-protocol", "run npm ci in lsp/testdata/clients (scripts/test does)")
	}
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // disk\n", "data.txt": "original\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"old","new_str":"new"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "bash", Arguments: `{"command":"touch made.txt && echo changed > data.txt"}`}}},
		agenttest.Reply{Text: "done"},
		agenttest.Reply{Text: "late", Delay: "30s"},
	)
	script, _ := filepath.Abs("testdata/clients/node_client.js")
	cmd := exec.Command(node, script, binary, ws, m.URL)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods, "XDG_STATE_HOME="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	t.Logf("node client passed in %v", time.Since(start).Round(time.Millisecond))
}
