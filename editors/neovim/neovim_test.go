// Package neovim_test drives the Neovim plugin in headless Neovim against
// the real agent-lsp binary and a scripted model server.
package neovim_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/lsp"
)

// binary is the agent-lsp executable built once in TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-lsp-nvim")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agent-lsp")
	if out, err := proctest.GoBuild(binary, "../../cmd/agent-lsp"); err != nil {
		fmt.Fprintf(os.Stderr, "building agent-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// nvimPath returns headless Neovim ($AGENT_LSP_TEST_NVIM, else nvim on PATH), skipping
// the test without it (but failing in CI and under scripts/test, which
// install it).
func nvimPath(t *testing.T) string {
	t.Helper()
	name := "nvim"
	if n := os.Getenv("AGENT_LSP_TEST_NVIM"); n != "" {
		name = n
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("AGENT_LSP_REQUIRE_CLIENTS") != "" {
			t.Fatal("nvim not found; CI and scripts/test install neovim")
		}
		t.Skip("nvim not found")
	}
	return p
}

// runNvim runs a Lua driver in a clean headless Neovim with the plugin on
// the runtimepath, a clean HOME and XDG dirs, and extra env.
func runNvim(t *testing.T, script string, env ...string) string {
	t.Helper()
	nvim := nvimPath(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// Neovim's run directory (its server socket) must exist, or it makes
	// one in /tmp/nvim.USER.
	if err := os.Mkdir(filepath.Join(home, ".run"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-u", "NONE",
		"--cmd", "set rtp^="+plugin, "-c", "luafile "+filepath.Join(plugin, script))
	cmd.Dir = home
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, ".run"),
		// tempname() and friends: otherwise Neovim makes /tmp/nvim.USER,
		// and leaves it (chroot-nvim.sh binds TMPDIR at the same path).
		"TMPDIR=" + home,
		"NVIM_CHROOT=" + os.Getenv("NVIM_CHROOT"),
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("%s: %s in %v", script, strings.TrimSpace(stdout.String()), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("nvim timed out\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if os.Getenv("E2E_VERBOSE") != "" {
		t.Logf("stderr:\n%s", stderr.String())
	}
	if err != nil || !strings.HasPrefix(stdout.String(), "PASS") {
		t.Fatalf("nvim: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// lastUserIndex returns the index of the last user message.
func lastUserIndex(r agenttest.ChatRequest) int {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i]["role"] == "user" {
			return i
		}
	}
	return -1
}

func mentions(r agenttest.ChatRequest, s string) bool {
	for _, m := range r.Messages {
		if m["role"] == "user" && strings.Contains(fmt.Sprint(m["content"]), s) {
			return true
		}
	}
	return false
}

const mainGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"helo\")\n}\n"

// TestNeovimE2E: attach, a prompt whose bash call is approved through
// vim.ui.select, the edit in the buffer (undoable, saved), the answer
// buffer, forwarded diagnostics, a cancelled follow-up in the same session,
// and a clean shutdown.
func TestNeovimE2E(t *testing.T) {
	nvimPath(t)
	ws := t.TempDir()
	for _, d := range []string{".git", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	slowMark := filepath.Join(t.TempDir(), "slow-started")

	srv, err := agenttest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	var slowSawFirst, slowSawRange bool
	srv.SetFunc(func(r agenttest.ChatRequest) agenttest.Reply {
		if mentions(r, "take your time") {
			mu.Lock()
			slowSawFirst = mentions(r, "fix it")
			slowSawRange = mentions(r, "The selection (lines 5-6)") && mentions(r, "func main() {\n\tfmt.Println(\"hello, world\")")
			mu.Unlock()
			_ = os.WriteFile(slowMark, nil, 0o644)
			return agenttest.Reply{Delay: "30s", Text: "too late"}
		}
		call := func(id, name, args string) agenttest.Reply {
			return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: id, Name: name, Arguments: args}}}
		}
		switch len(r.Messages) - 1 - lastUserIndex(r) {
		case 0:
			return call("c1", "read_file", `{"path":"sub/main.go"}`)
		case 2:
			return call("c2", "diagnostics", `{"path":"sub/main.go"}`)
		case 4:
			return call("c3", "str_replace", `{"path":"sub/main.go","old_str":"fmt.Println(\"helo\")","new_str":"fmt.Println(\"hello, world\")"}`)
		case 6:
			return call("c4", "bash", `{"command":"touch made-by-agent.txt"}`)
		default:
			return agenttest.Reply{Text: "Fixed the greeting.", PromptTokens: 4000, CompletionTokens: 7}
		}
	})

	runNvim(t, "test/e2e.lua",
		"AGENT_LSP_BIN="+binary,
		"AGENT_LSP_BASE_URL="+srv.URL,
		"AGENT_LSP_MODEL=scripted",
		"E2E_WS="+ws,
		"E2E_SLOW_MARK="+slowMark,
		"E2E_TIMEOUT_MS=35000",
		"E2E_VERBOSE="+os.Getenv("E2E_VERBOSE"),
	)

	// The bash tool's result (and the approval) came back to the model.
	var bashResult string
	for _, r := range srv.Requests() {
		if n := len(r.Messages); n > 0 && r.Messages[n-1]["role"] == "tool" && strings.Contains(fmt.Sprint(r.Messages[n-2]), "touch made-by-agent.txt") {
			bashResult = r.LastToolResult()
		}
	}
	if strings.Contains(strings.ToLower(bashResult), "denied") {
		t.Errorf("bash was denied: %q", bashResult)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slowSawFirst {
		t.Error("the follow-up prompt did not continue the first session")
	}
	if !slowSawRange {
		t.Error("the follow-up prompt's range (lines 5-6) did not reach the model")
	}
}

// TestNeovimEnable checks vim.lsp.enable('agent_lsp') on Neovim 0.11+
// (the driver passes as skipped on older versions).
func TestNeovimEnable(t *testing.T) {
	nvimPath(t)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	runNvim(t, "test/enable.lua", "AGENT_LSP_BIN="+binary, "E2E_WS="+ws, "AGENT_LSP_BASE_URL=http://127.0.0.1:9/v1")
}

// TestNeovimUnit runs the Lua unit tests (config merge, validation, root
// detection, doctor parsing) in headless Neovim.
func TestNeovimUnit(t *testing.T) {
	runNvim(t, "test/unit.lua")
}

// TestProtocolMirror checks that protocol.lua names every method of the
// server's extension table.
func TestProtocolMirror(t *testing.T) {
	b, err := os.ReadFile("lua/agent_lsp/protocol.lua")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^M\.[A-Z_]+ = '([^']+)'`)
	got := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		got[m[1]] = true
	}
	for _, e := range lsp.Extensions {
		if !got[e.Name] {
			t.Errorf("protocol.lua lacks %s", e.Name)
		}
		delete(got, e.Name)
	}
	for name := range got {
		t.Errorf("protocol.lua has %s, which lsp/ext.go does not define", name)
	}
}
