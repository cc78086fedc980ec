package mcp

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// dispatch runs one call through a real dispatcher over the MCP tools.
func dispatch(ctx context.Context, ts []Tool, name, args string) tools.Result {
	reg := tools.NewRegistry()
	var opts []tools.Option
	for _, t := range ts {
		reg.Add(t.Tool)
		opts = append(opts, tools.WithToolTimeout(t.Name(), t.Timeout))
	}
	return tools.NewDispatcher(reg, opts...).Dispatch(ctx, tools.Call{ID: "call_1", Name: name, Arguments: args})
}

func startManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.Root == "" {
		opts.Root = tempRoot(t)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := NewManager(opts)
	t.Cleanup(func() { m.Close() })
	m.Start()
	return m
}

func toolNamed(t *testing.T, ts []Tool, name string) Tool {
	t.Helper()
	for _, x := range ts {
		if x.Name() == name {
			return x
		}
	}
	var names []string
	for _, x := range ts {
		names = append(names, x.Name())
	}
	t.Fatalf("no tool %s among %v", name, names)
	return Tool{}
}

func TestStdioAndHTTPServers(t *testing.T) {
	t.Parallel()
	url, headers := httpTestServer(t)
	web := Server{Name: "web", Source: "test"}
	web.URL = url
	web.Headers = map[string]string{"X-Test": "env:MCP_TEST_HEADER_VALUE", "X-Plain": "plain"}
	m := startManager(t, Options{Servers: []Server{testServer(t, "local"), web}, Environ: append(os.Environ(), "MCP_TEST_HEADER_VALUE=from-env")})
	if w := m.TakeWarnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	ts, _ := m.Tools()
	for _, server := range []string{"local", "web"} {
		echo := toolNamed(t, ts, "mcp__"+server+"__echo")
		if !echo.ReadOnly || echo.Destructive || !strings.Contains(echo.Spec().Description, "Echoes text.") {
			t.Errorf("%s echo: %+v %q", server, echo, echo.Spec().Description)
		}
		res := dispatch(context.Background(), ts, echo.Name(), `{"text":"ab","times":"2"}`)
		if res.IsError || !strings.Contains(res.Text, "abab") || !strings.Contains(res.Text, "used the integer 2") {
			t.Errorf("%s echo: %+v", server, res)
		}
	}
	var sawHeader bool
	for _, h := range headers() {
		sawHeader = sawHeader || h.Get("X-Test") == "from-env" && h.Get("X-Plain") == "plain"
	}
	if !sawHeader {
		t.Errorf("headers not sent: %v", headers())
	}
	st := m.Status()
	if len(st) != 2 || st[0].State != StateRunning || st[1].State != StateRunning || len(st[0].Tools) == 0 {
		t.Errorf("status: %+v", st)
	}
}

func TestResultsAndErrors(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []Server{testServer(t, "t")}})
	ts, _ := m.Tools()
	res := dispatch(context.Background(), ts, "mcp__t__rich", `{}`)
	for _, want := range []string{"hello", "[image: image/png, 8 bytes; not shown", "[resource link: file:///tmp/report.txt (report), text/plain]", "[resource mem://note]\nembedded text", `structuredContent: {"answer":42}`} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("rich result lacks %q:\n%s", want, res.Text)
		}
	}
	if res := dispatch(context.Background(), ts, "mcp__t__fail", `{}`); !res.IsError || !strings.Contains(res.Text, "it broke") || !strings.HasPrefix(res.Text, "Error (call_1): mcp__t__fail") {
		t.Errorf("fail: %+v", res)
	}
	// The model's malformed calls never reach the server.
	for args, want := range map[string]string{
		`{"text":`:                "not valid JSON",
		`{"times":2}`:             `missing required field "text"`,
		`{"text":"a","times":[]}`: "must be an integer",
		`[1]`:                     "must be a JSON object",
		`{"text":"` + strings.Repeat("x", 2<<20) + `"}`: "over the",
	} {
		if res := dispatch(context.Background(), ts, "mcp__t__echo", args); !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("echo %.40s: %+v, want %q", args, res, want)
		}
	}
	if res := dispatch(context.Background(), ts, "mcp__t__ecoh", `{}`); !res.IsError || !strings.Contains(res.Text, "Did you mean mcp__t__echo") {
		t.Errorf("unknown tool: %+v", res)
	}
}

func TestEnvironmentIsMinimal(t *testing.T) {
	t.Parallel()
	env := append(os.Environ(), "AGENT_LSP_API_KEY=sk-secret-key-123", "GITHUB_TOKEN=ghp_secret", "LANG=C.UTF-8")
	m := startManager(t, Options{Servers: []Server{testServer(t, "t", "MY_TOKEN=given")}, Environ: env})
	ts, _ := m.Tools()
	res := dispatch(context.Background(), ts, "mcp__t__env", `{}`)
	if strings.Contains(res.Text, "sk-secret") || strings.Contains(res.Text, "ghp_secret") {
		t.Errorf("a secret reached the server:\n%s", res.Text)
	}
	for _, want := range []string{"MY_TOKEN=given", "LANG=C.UTF-8", "PATH="} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("environment lacks %s:\n%s", want, res.Text)
		}
	}
}

func TestCancelTellsServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flag, started := filepath.Join(dir, "cancelled"), filepath.Join(dir, "started")
	m := startManager(t, Options{Servers: []Server{testServer(t, "t", "MCP_TEST_CANCELLED="+flag, "MCP_TEST_STARTED="+started)}})
	ts, _ := m.Tools()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	go func() { done <- dispatch(ctx, ts, "mcp__t__slow", `{"seconds":600}`) }()
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil }, "the server to be inside the call")
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Text, "cancelled") {
		t.Errorf("result: %+v", res)
	}
	waitFor(t, func() bool { _, err := os.Stat(flag); return err == nil }, "the server to see notifications/cancelled")
}

func TestToolTimeout(t *testing.T) {
	t.Parallel()
	s := testServer(t, "t")
	s.ToolTimeout.Duration = 300 * time.Millisecond
	m := startManager(t, Options{Servers: []Server{s}})
	ts, _ := m.Tools()
	if res := dispatch(context.Background(), ts, "mcp__t__slow", `{"seconds":600}`); !res.IsError || !strings.Contains(res.Text, "timed out") {
		t.Errorf("result: %+v", res)
	}
}

func TestFailingServersWarnOnce(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	exit := Server{Name: "exits", Source: "test"}
	exit.Command, exit.Args, exit.Env = exe, []string{"-test.run=^$"}, map[string]string{"MCP_TEST_ROLE": "exit"}
	hang := Server{Name: "hangs", Source: "test"}
	hang.Command, hang.Args, hang.Env = exe, []string{"-test.run=^$"}, map[string]string{"MCP_TEST_ROLE": "hang"}
	hang.StartupTimeout.Duration = 500 * time.Millisecond
	missing := Server{Name: "missing", Source: "test"}
	missing.Command = "/nonexistent/mcp-server"
	m := startManager(t, Options{Servers: []Server{exit, hang, missing, testServer(t, "ok")}})
	w := m.TakeWarnings()
	if len(w) != 3 {
		t.Fatalf("warnings: %q", w)
	}
	joined := strings.Join(w, "\n")
	for _, want := range []string{"exits did not start: the server exited with status 3", "refusing to serve", "hangs did not start: initialize: no answer within the startup timeout", "missing did not start"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	if more := m.TakeWarnings(); len(more) != 0 {
		t.Errorf("warnings again: %v", more)
	}
	ts, _ := m.Tools()
	toolNamed(t, ts, "mcp__ok__echo")
}

func TestListChangedRefreshes(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []Server{testServer(t, "t")}})
	ts, gen := m.Tools()
	if res := dispatch(context.Background(), ts, "mcp__t__grow", `{}`); res.IsError {
		t.Fatal(res.Text)
	}
	waitFor(t, func() bool { return m.Generation() != gen }, "the tool list to be refreshed")
	ts, _ = m.Tools()
	if res := dispatch(context.Background(), ts, toolNamed(t, ts, "mcp__t__added").Name(), `{}`); res.Text != "new" {
		t.Errorf("added: %+v", res)
	}
}

func TestNoOrphanAfterClose(t *testing.T) {
	t.Parallel()
	marker := "agent-lsp-mcp-close-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { proctest.KillAll(marker) })
	m := NewManager(Options{Servers: []Server{testServer(t, "t", "MCP_TEST_MARKER_ARG="+marker)}, Root: tempRoot(t)})
	m.Start()
	ts, _ := m.Tools()
	if res := dispatch(context.Background(), ts, "mcp__t__spawn", `{"marker":"`+marker+`"}`); res.IsError {
		t.Fatal(res.Text)
	}
	waitFor(t, func() bool { return len(proctest.Live(marker)) == 1 }, "the grandchild to start")
	m.Close()
	if left := proctest.Live(marker); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
}

func TestNoOrphanWhenHostIsKilled(t *testing.T) {
	t.Parallel()
	// One marker per test process, so an orphan a failed run left behind
	// fails that run, not every later one; and whatever is left is killed.
	marker := "agent-lsp-mcp-sigkill-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { proctest.KillAll(marker) })
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCP_TEST_ROLE=host", "MCP_TEST_MARKER="+marker)
	in, _ := cmd.StdinPipe()
	defer in.Close()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("host said %q", buf[:n])
	}
	if len(proctest.Live(marker)) < 2 { // the server (its argv has the marker) and the grandchild
		t.Fatalf("processes: %v", proctest.Live(marker))
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitFor(t, func() bool { return len(proctest.Live(marker)) == 0 }, "every server process to end after SIGKILL of the host: "+strings.Join(proctest.Live(marker), "; "))
}

// waitFor polls cond for up to 20 s: how long the machine takes is not
// what is tested, only that it happens.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
