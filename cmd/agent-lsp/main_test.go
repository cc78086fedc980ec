package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"
	"github.com/agent-lsp/agent-lsp/mcp/mcptest"
)

// binary is the agent-lsp executable built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	// The MCP tests run this test binary as their go-sdk server.
	mcptest.MaybeServe()
	dir, err := os.MkdirTemp("", "agent-lsp-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agent-lsp")
	if out, err := proctest.GoBuild(binary, "."); err != nil {
		fmt.Fprintf(os.Stderr, "building agent-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := tmpcheck.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

type runOut struct {
	stdout, stderr string
	code           int
}

// runBinary runs the real binary with a clean environment: no user config,
// no inherited endpoint or key.
func runBinary(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	return runBinaryEnv(t, dir, nil, args...)
}

// runBinaryEnv is runBinary with extra environment variables.
func runBinaryEnv(t *testing.T, dir string, env []string, args ...string) runOut {
	t.Helper()
	return execBinary(t, dir, env, nil, args...)
}

// binaryCommand is the binary run in dir with a clean environment (home,
// configuration and state under dir) plus env.
func binaryCommand(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(dir, ".state")}, env...)
	return cmd
}

// startBinary starts the binary as binaryCommand does, its stdout and
// stderr into one buffer, for a test that signals it while it runs.
func startBinary(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := binaryCommand(dir, nil, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// execBinary runs the binary in dir with a clean environment plus env,
// and stdin (nil: none).
func execBinary(t *testing.T, dir string, env []string, stdin io.Reader, args ...string) runOut {
	t.Helper()
	cmd := binaryCommand(dir, env, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runOut{out.String(), errb.String(), code}
}

func newServer(t *testing.T, replies ...agenttest.Reply) *agenttest.Server {
	t.Helper()
	s, err := agenttest.NewServer(replies...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestRunJSONReadsFileThenAnswers(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes", "hello.txt"), "first line\nthe secret word is tangerine\n")
	srv := newServer(t,
		agenttest.Reply{Text: "Let me read it.", ToolCalls: []agenttest.ScriptCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"notes/hello.txt"}`}}, PromptTokens: 100, CompletionTokens: 20},
		agenttest.Reply{Text: "The secret word is \"tangerine\".", PromptTokens: 150, CompletionTokens: 9},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "What is the secret word?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	if !reqs[0].Stream || reqs[0].StreamOptions["include_usage"] != true || len(reqs[0].Tools) == 0 {
		t.Errorf("first request: stream=%v options=%v tools=%d", reqs[0].Stream, reqs[0].StreamOptions, len(reqs[0].Tools))
	}
	got := reqs[1].LastToolResult()
	if !strings.Contains(got, "2\tthe secret word is tangerine") {
		t.Errorf("tool result the server received:\n%s", got)
	}
	var tool map[string]any
	for _, m := range reqs[1].Messages {
		if m["role"] == "tool" {
			tool = m
		}
	}
	if tool["tool_call_id"] != "call_a" {
		t.Errorf("tool message = %v", tool)
	}
	want := `{"type":"end","reason":"end_turn","turns":2,"toolCalls":1,"usage":{"inputTokens":250,"outputTokens":29},"text":"The secret word is \"tangerine\".","changes":[]}`
	if got := lastLine(r.stdout); got != want {
		t.Errorf("last line:\n got %s\nwant %s", got, want)
	}
	for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev["type"] == nil {
			t.Errorf("line %d is not an event: %q", i+1, line)
		}
	}
}

func TestRunTextOutput(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.go"), "package a\n")
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "glob", Arguments: `{"pattern":"**/*.go"}`}}},
		agenttest.Reply{Text: "There is one Go file: a.go.", PromptTokens: 10, CompletionTokens: 5},
	)
	r := runBinary(t, ws, "run", "--base-url", srv.URL, "--model", "scripted", "list", "the", "go", "files")
	if r.code != 0 || r.stdout != "There is one Go file: a.go.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "→ glob") || !strings.Contains(lastLine(r.stderr), "end_turn · 2 turns · 1 tool calls · 10 tokens in, 5 out") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestRunNothingAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	ws := t.TempDir()
	r := runBinary(t, ws, "run", "--json", "--base-url", url, "hi")
	if r.code != 1 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var end map[string]any
	if err := json.Unmarshal([]byte(lastLine(r.stdout)), &end); err != nil || end["reason"] != "error" {
		t.Fatalf("last line %q", lastLine(r.stdout))
	}
	if msg, _ := end["error"].(string); !strings.Contains(msg, url) || !strings.Contains(msg, "AGENT_LSP_BASE_URL") {
		t.Errorf("error message %q should name the URL and how to change it", msg)
	}
	// A run that never got an answer is not a session to resume.
	r = runBinary(t, ws, "run", "--base-url", url, "hi")
	if r.code != 1 || strings.Contains(r.stderr, "--resume") {
		t.Errorf("text run: exit %d, stderr %q", r.code, r.stderr)
	}
	if r = runBinary(t, ws, "sessions"); !strings.HasPrefix(r.stdout, "no sessions yet") {
		t.Errorf("sessions after runs that got no answer:\n%s", r.stdout)
	}
}

func TestRunMaxTurnsExitsOne(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "x.txt"), "x\n")
	srv := newServer(t)
	srv.SetFunc(func(agenttest.ChatRequest) agenttest.Reply {
		return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c", Name: "read_file", Arguments: `{"path":"x.txt"}`}}}
	})
	r := runBinary(t, ws, "run", "--json", "--max-turns", "2", "--base-url", srv.URL, "loop")
	if r.code != 1 || !strings.Contains(lastLine(r.stdout), `"reason":"max_turns","turns":2,"toolCalls":2`) {
		t.Fatalf("exit %d, last line %s", r.code, lastLine(r.stdout))
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".agent-lsp", "config.toml"), "model = \"m\"\nmax_turnz = 3\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "no prompt"},
		{[]string{"run", "--bogus", "x"}, "flag provided but not defined"},
		{[]string{"run", "--workspace", filepath.Join(ws, "missing"), "x"}, "not a directory"},
		{[]string{"run", "--workspace", ws, "x"}, "config.toml:2: max_turnz: unknown key"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		r := runBinary(t, t.TempDir(), c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestHelp: every subcommand's --help says what it does with an example,
// on exit status 0; agent-lsp with no arguments and stdin not a terminal
// serves LSP (the pty test covers the terminal).
func TestHelp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, cmd := range []string{"run", "replay", "sessions", "doctor", "policy", "serve", "version"} {
		r := runBinary(t, dir, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stderr, "Usage: agent-lsp "+cmd) || !strings.Contains(r.stderr, "Example") || !strings.Contains(r.stderr, "  agent-lsp "+cmd) {
			t.Errorf("%s --help: exit %d\n%s", cmd, r.code, r.stderr)
		}
	}
	if r := runBinary(t, dir, "help"); r.code != 0 || !strings.Contains(r.stdout, "agent-lsp run [flags] PROMPT") {
		t.Errorf("help: exit %d\n%s", r.code, r.stdout)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	msg := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(init), init)
	r := execBinary(t, dir, nil, strings.NewReader(msg))
	if !strings.HasPrefix(r.stdout, "Content-Length:") || !strings.Contains(r.stdout, `"id":1`) {
		t.Errorf("agent-lsp on a pipe did not answer initialize: exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestVersionAndDoctor(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if r := runBinary(t, ws, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "agent-lsp ") {
		t.Errorf("version: %+v", r)
	}
	srv := newServer(t)
	r := runBinary(t, ws, "doctor", "--base-url", srv.URL, "--model", "scripted")
	if r.code != 0 || !strings.Contains(r.stdout, "server:    ok") || !strings.Contains(r.stdout, "workspace: "+ws) {
		t.Errorf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, ws, "doctor", "--base-url", srv.URL, "--model", "missing-model")
	if r.code != 1 || !strings.Contains(r.stdout, `does not list model "missing-model"`) {
		t.Errorf("doctor with a missing model: exit %d\n%s", r.code, r.stdout)
	}
}
