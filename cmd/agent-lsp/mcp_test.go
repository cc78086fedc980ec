package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// mcpConfig writes a user config with the go-sdk test server (this test
// binary) as server NAME, whose command line carries marker so /proc can
// find it, plus extra TOML.
func mcpConfig(t *testing.T, dir, name, marker, env, extra string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[mcp_servers.%s]\ncommand = %q\nargs = [\"-test.run=^$\", %q]\nenv = { MCP_TEST_ROLE = \"server\"%s }\n%s", name, exe, marker, env, extra))
	return cfg
}

// toolResults maps the tool_call_id of every tool message of a request
// to its content.
func toolResults(r agenttest.ChatRequest) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m["role"] == "tool" {
			id, _ := m["tool_call_id"].(string)
			out[id], _ = m["content"].(string)
		}
	}
	return out
}

func toolNames(r agenttest.ChatRequest) []string {
	var out []string
	for _, t := range r.Tools {
		if f, ok := t["function"].(map[string]any); ok {
			out = append(out, fmt.Sprint(f["name"]))
		}
	}
	return out
}

func TestMCPThroughTheBinary(t *testing.T) {
	t.Parallel()
	ws, dir := t.TempDir(), t.TempDir()
	started := filepath.Join(dir, "started")
	marker := "agent-lsp-mcp-e2e-" + fmt.Sprint(time.Now().UnixNano())
	cfg := mcpConfig(t, dir, "t", marker, fmt.Sprintf(", MCP_TEST_STARTED = %q", started),
		"[permissions.mcp]\nallow = [\"mcp__t__echo\", \"mcp__t__env\"]\n")
	huge := `{"text":"` + strings.Repeat("x", 1<<20+10) + `"}`
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{
			{ID: "c_echo", Name: "mcp__t__echo", Arguments: `{"text":"hi","times":2}`},
			{ID: "c_env", Name: "mcp__t__env", Arguments: `{}`},
			{ID: "c_slow", Name: "mcp__t__slow", Arguments: `{"seconds":0}`},
			{ID: "c_unknown", Name: "mcp__t__ecoh", Arguments: `{}`},
			{ID: "c_broken", Name: "mcp__t__echo", Arguments: `{"text":`},
			{ID: "c_schema", Name: "mcp__t__echo", Arguments: `{"times":"many"}`},
			{ID: "c_huge", Name: "mcp__t__echo", Arguments: huge},
		}},
		agenttest.Reply{Text: "done"},
	)
	r := runBinaryEnv(t, ws, []string{"AGENT_LSP_API_KEY=sk-e2e-secret-key"}, "run", "--json", "--ask", "deny", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "use the tools")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	names := strings.Join(toolNames(reqs[0]), " ")
	for _, want := range []string{"mcp__t__echo", "mcp__t__slow", "mcp__t__rich", "read_file"} {
		if !strings.Contains(names, want) {
			t.Errorf("tools offered lack %s: %s", want, names)
		}
	}
	res := toolResults(reqs[1])
	for id, want := range map[string]string{
		"c_echo":    "hihi",
		"c_env":     "MCP_TEST_ROLE=server",
		"c_slow":    "mcp__t__slow call denied: needs the user's approval",
		"c_unknown": "unknown tool \"mcp__t__ecoh\"",
		"c_broken":  "not valid JSON",
		"c_schema":  `missing required field "text"`,
		"c_huge":    "this call was too large",
	} {
		if !strings.Contains(res[id], want) {
			t.Errorf("%s: %q, want %q", id, res[id], want)
		}
	}
	if strings.Contains(res["c_env"], "sk-e2e-secret-key") {
		t.Errorf("the API key reached the server:\n%s", res["c_env"])
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("the denied call reached the server")
	}
	if !strings.Contains(r.stdout, `"name":"mcp__t__echo"`) {
		t.Errorf("no tool events for the MCP call:\n%s", r.stdout)
	}
	if left := proctest.Live(marker); len(left) > 0 {
		t.Errorf("server processes outlive the run: %v", left)
	}
}

func TestMCPFailingServersWarnAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	ws, dir := t.TempDir(), t.TempDir()
	exe, _ := os.Executable()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf(`
[mcp_servers.exits]
command = %q
args = ["-test.run=^$"]
env = { MCP_TEST_ROLE = "exit" }

[mcp_servers.hangs]
command = %q
args = ["-test.run=^$"]
env = { MCP_TEST_ROLE = "hang" }
startup_timeout = "1s"
`, exe, exe))
	srv := newServer(t, agenttest.Reply{Text: "still here"})
	r := runBinary(t, ws, "run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var warnings []string
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "warning" {
			warnings = append(warnings, fmt.Sprint(ev["text"]))
		}
	}
	joined := strings.Join(warnings, "\n")
	if len(warnings) != 2 || !strings.Contains(joined, "MCP server exits did not start: the server exited with status 3") ||
		!strings.Contains(joined, "MCP server hangs did not start: initialize: no answer within the startup timeout") {
		t.Errorf("warnings:\n%s", joined)
	}
}

func TestMCPCancelAndSIGKILL(t *testing.T) {
	t.Parallel()
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprint("kill=", kill), func(t *testing.T) {
			t.Parallel()
			ws, dir := t.TempDir(), t.TempDir()
			started, cancelled := filepath.Join(dir, "started"), filepath.Join(dir, "cancelled")
			marker := fmt.Sprintf("agent-lsp-mcp-cancel-%v-%d", kill, time.Now().UnixNano())
			cfg := mcpConfig(t, dir, "t", marker, fmt.Sprintf(", MCP_TEST_STARTED = %q, MCP_TEST_CANCELLED = %q", started, cancelled),
				"[permissions.mcp]\nallow = [\"mcp__t__*\"]\n")
			srv := newServer(t,
				agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "mcp__t__spawn", Arguments: fmt.Sprintf(`{"marker":%q}`, marker+"-grandchild")}}},
				agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "mcp__t__slow", Arguments: `{"seconds":600}`}}},
				agenttest.Reply{Text: "unreachable"},
			)
			cmd := exec.Command(binary, "run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "wait")
			cmd.Dir = ws
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "XDG_STATE_HOME=" + filepath.Join(ws, ".state")}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, func() bool { _, err := os.Stat(started); return err == nil }, "the slow call to reach the server")
			if n := len(proctest.Live(marker)); n < 2 {
				t.Fatalf("server and grandchild not both running: %v", proctest.Live(marker))
			}
			if kill {
				cmd.Process.Kill()
				cmd.Wait()
			} else {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
				if last := lastLine(out.String()); !strings.Contains(last, `"reason":"aborted"`) {
					t.Errorf("end: %s", last)
				}
				waitUntil(t, func() bool { _, err := os.Stat(cancelled); return err == nil }, "the server to get notifications/cancelled")
			}
			waitUntil(t, func() bool { return len(proctest.Live(marker)) == 0 }, "no server process left")
		})
	}
}

func TestMCPWorkspaceServerHeadless(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	exe, _ := os.Executable()
	writeFile(t, filepath.Join(ws, ".mcp.json"), fmt.Sprintf(`{"mcpServers":{"repo":{"command":%q,"args":["-test.run=^$"],"env":{"MCP_TEST_ROLE":"server"}}}}`, exe))
	srv := newServer(t, agenttest.Reply{Text: "ok"})
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "hi")
	if !strings.Contains(r.stdout, "MCP server repo (declared by "+filepath.Join(ws, ".mcp.json")+") was not started: a workspace's server needs your approval") {
		t.Errorf("no warning:\n%s\n%s", r.stdout, r.stderr)
	}
	if names := strings.Join(toolNames(srv.Requests()[0]), " "); strings.Contains(names, "mcp__") {
		t.Errorf("workspace tools offered: %s", names)
	}
	l := runBinary(t, ws, "mcp", "list", "--json")
	var got struct {
		Servers []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(l.stdout), &got); err != nil || len(got.Servers) != 1 || got.Servers[0].State != "not approved" {
		t.Errorf("mcp list: %v %s %s", err, l.stdout, l.stderr)
	}
}

func TestMCPListAndDoctor(t *testing.T) {
	t.Parallel()
	ws, dir := t.TempDir(), t.TempDir()
	cfg := mcpConfig(t, dir, "t", "agent-lsp-mcp-list", "", "")
	r := runBinary(t, ws, "mcp", "list", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "t (stdio, ") || !strings.Contains(r.stdout, "running, 8 tools") || !strings.Contains(r.stdout, "mcp__t__echo") {
		t.Errorf("mcp list: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	d := runBinary(t, ws, "doctor", "--config", cfg, "--base-url", newServer(t).URL)
	if !strings.Contains(d.stdout, "mcp:       t (stdio, ") || !strings.Contains(d.stdout, "running, 8 tools") {
		t.Errorf("doctor:\n%s", d.stdout)
	}
}

// waitUntil polls cond for up to 30 s: how long the machine takes is not
// what is tested.
func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
