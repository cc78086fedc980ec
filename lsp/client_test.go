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

// needClient skips the test when a client program is missing, except in
// CI (CI set) or under scripts/test (AGENT_LSP_REQUIRE_CLIENTS set), which
// installs every client: there it fails.
func needClient(t *testing.T, what, hint string) {
	t.Helper()
	if os.Getenv("CI") != "" || os.Getenv("AGENT_LSP_REQUIRE_CLIENTS") != "" {
		t.Fatalf("%s is missing (CI or AGENT_LSP_REQUIRE_CLIENTS is set, so this fails instead of skipping): %s", what, hint)
	}
	t.Skipf("%s is missing: %s", what, hint)
}

// clientFixture starts a scripted model server (closed at the end of the
// test) and writes files into a fresh workspace, whose real path it
// returns: what every real-client test starts from.
func clientFixture(t *testing.T, files map[string]string, replies ...agenttest.Reply) (*agenttest.Server, string) {
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
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m, ws
}

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
// workspace/applyEdit to its copy) and runs a bash command the client
// allows through window/showMessageRequest; then a cancelled run and a
// clean shutdown.
func TestNodeClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		needClient(t, "node", "install Node.js 18+")
	}
	mods := nodeModules()
	if _, err := os.Stat(filepath.Join(mods, "vscode-languageserver-protocol", "package.json")); err != nil {
		needClient(t, "vscode-languageserver-protocol", "run npm ci in lsp/testdata/clients (scripts/test does)")
	}
	m, ws := clientFixture(t, map[string]string{"main.go": "package main // disk\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"old","new_str":"new"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "bash", Arguments: `{"command":"touch made.txt"}`}}},
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
