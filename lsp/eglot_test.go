package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestEglotClient runs testdata/clients/eglot_test.el in batch Emacs with
// eglot against the real binary, using the README's eglot snippets: the
// scripted model edits the unsaved buffer (one edit, then a word
// everywhere: two edits that eglot reports in one didChange, then one
// that needs the server's copy to have followed both) and asks to run a
// bash command;
// the driver answers the permission prompt as Enter does, with eglot's
// default (the first action), which must deny: made.txt is not created.
// It needs emacs and eglot (Debian emacs-nox, elpa-eglot).
func TestEglotClient(t *testing.T) {
	t.Parallel()
	const hint = "apt-get install --no-install-recommends emacs-nox elpa-eglot (scripts/test does)"
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		agenttest.NeedClient(t, "emacs", hint)
	}
	if out, err := exec.Command(emacs, "--batch", "--eval", "(require 'eglot)").CombinedOutput(); err != nil {
		agenttest.NeedClient(t, "eglot", hint+": "+string(out))
	}
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // disk\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"old","new_str":"new"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2a", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"main","new_str":"Main","replace_all":true}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2b", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"Main() {}","new_str":"Main() { run() }"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "bash", Arguments: `{"command":"touch made.txt"}`}}},
		agenttest.Reply{Text: "done"},
	)
	script, _ := filepath.Abs("testdata/clients/eglot_test.el")
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-l", script)
	cmd.Dir = ws
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"AGENT_LSP_BIN=" + binary, "AGENT_LSP_WS=" + ws, "AGENT_LSP_MODEL_URL=" + m.URL,
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("emacs: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "package main // disk\n" {
		t.Fatalf("main.go on disk %q: the open buffer was saved", b)
	}
	t.Logf("%s (%v)", strings.TrimSpace(string(out)), time.Since(start).Round(time.Millisecond))
}
