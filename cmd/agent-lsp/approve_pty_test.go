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
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// openPTY returns a new pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestRunAsksOnTerminal: with stdin a terminal and no --ask, run prompts;
// "s" allows the command and, through the session rule, the next similar
// one without a second prompt.
func TestRunAsksOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	go io.Copy(io.Discard, master) // drain the echo
	ws := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "rules.toml")
	writeFile(t, cfg, corpusConfig)
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: `{"command":"touch a1"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "bash", Arguments: `{"command":"touch a2"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "bash", Arguments: `{"command":"mkdir d"}`}}},
		agenttest.Reply{Text: "done"},
	)
	if _, err := master.Write([]byte("s\nn\n")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "touch things")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "XDG_CONFIG_HOME=" + filepath.Join(ws, ".config"), "XDG_STATE_HOME=" + filepath.Join(ws, ".state")}
	cmd.Stdin = slave
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
	}
	errText := stderr.String()
	t.Logf("stderr:\n%s", errText)
	if n := strings.Count(errText, "wants to run bash"); n != 2 {
		t.Errorf("%d prompts, want 2 (touch a1, mkdir d):\n%s", n, errText)
	}
	if !strings.Contains(errText, "[s] allow for this session (rule: touch *)") {
		t.Errorf("prompt:\n%s", errText)
	}
	for name, want := range map[string]bool{"a1": true, "a2": true, "d": false} {
		if _, err := os.Stat(filepath.Join(ws, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	reqs := srv.Requests()
	if got := reqs[3].LastToolResult(); !strings.Contains(got, "the user refused it") {
		t.Errorf("refused mkdir result: %s", got)
	}
}
