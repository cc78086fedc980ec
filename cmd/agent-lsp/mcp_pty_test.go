//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestMCPOnTerminal: a workspace server is approved on the terminal ("y":
// remembered), an MCP call no rule allows is asked about and runs once
// ("y"), the next is allowed with the server-wide session rule ("a"), and
// a third call of that server then runs without a prompt. A second run
// does not ask about the server again.
func TestMCPOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	go io.Copy(io.Discard, master)
	ws := t.TempDir()
	exe, _ := os.Executable()
	writeFile(t, filepath.Join(ws, ".mcp.json"), fmt.Sprintf(`{"mcpServers":{"repo":{"command":%q,"args":["-test.run=^$"],"env":{"MCP_TEST_ROLE":"server"}}}}`, exe))
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "mcp__repo__echo", Arguments: `{"text":"once"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "mcp__repo__echo", Arguments: `{"text":"twice"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "mcp__repo__rich", Arguments: `{}`}}},
		agenttest.Reply{Text: "done"},
		agenttest.Reply{Text: "again"},
	)
	if _, err := master.Write([]byte("y\ny\na\n")); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		cmd := exec.Command(binary, "run", "--base-url", srv.URL, "--model", "scripted", "echo")
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "XDG_CONFIG_HOME=" + filepath.Join(ws, ".config"), "XDG_STATE_HOME=" + filepath.Join(ws, ".state")}
		cmd.Stdin = slave
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stderr.String()
	}
	errText := run()
	if n := strings.Count(errText, "the agent wants to run the workspace's MCP server repo"); n != 1 {
		t.Errorf("%d trust prompts:\n%s", n, errText)
	}
	if n := strings.Count(errText, "the agent wants to run mcp__repo__"); n != 2 {
		t.Errorf("%d call prompts, want 2:\n%s", n, errText)
	}
	if !strings.Contains(errText, "[a] allow every tool of this server for this session (rule: mcp__repo__*)") || !strings.Contains(errText, "only reads (readOnlyHint") {
		t.Errorf("prompt:\n%s", errText)
	}
	reqs := srv.Requests()
	for i, want := range []string{"once", "twice", "hello"} {
		if got := reqs[i+1].LastToolResult(); !strings.Contains(got, want) {
			t.Errorf("result %d: %q, want %q", i+1, got, want)
		}
	}
	if again := run(); strings.Contains(again, "MCP server repo") {
		t.Errorf("asked about the approved server again:\n%s", again)
	}
	if names := strings.Join(toolNames(srv.Requests()[4]), " "); !strings.Contains(names, "mcp__repo__echo") {
		t.Errorf("second run's tools: %s", names)
	}
}
