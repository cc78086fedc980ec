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

// TestNeovimClient runs testdata/clients/nvim_test.lua in headless Neovim
// (0.7+, the built-in LSP client, no plugin) against the real binary: the
// scripted model reads the unsaved buffer, edits it with str_replace (the
// edit lands in the buffer), replaces a word everywhere in it (one
// WorkspaceEdit of two edits, which Neovim reports in one didChange) and
// reads it back as the server now holds it, edits a file that is not open twice (Neovim
// keeps it in a buffer it does not attach; the server writes it before a
// command), runs a bash command the driver allows in its
// window/showMessageRequest handler; then a clean shutdown.
func TestNeovimClient(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		agenttest.NeedClient(t, "nvim", "apt-get install neovim (scripts/test does)")
	}
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // disk\n", "other.txt": "other: one\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"old","new_str":"new"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2a", Name: "str_replace", Arguments: `{"path":"main.go","old_str":"main","new_str":"Main","replace_all":true}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2b", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c3", Name: "read_file", Arguments: `{"path":"other.txt"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c4", Name: "str_replace", Arguments: `{"path":"other.txt","old_str":"one","new_str":"ONE"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c5", Name: "str_replace", Arguments: `{"path":"other.txt","old_str":"ONE","new_str":"TWO"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c6", Name: "bash", Arguments: `{"command":"touch made.txt"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c7", Name: "bash", Arguments: `{"command":"cat other.txt"}`}}},
		agenttest.Reply{Text: "done"},
	)
	script, _ := filepath.Abs("testdata/clients/nvim_test.lua")
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := os.Mkdir(filepath.Join(home, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = ws
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		// Neovim's run directory (sockets) and temporary files; without
		// these it makes /tmp/nvim.USER.
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "TMPDIR=" + home,
		"AGENT_LSP_BIN=" + binary, "AGENT_LSP_WS=" + ws, "AGENT_LSP_MODEL_URL=" + m.URL, "AGENT_LSP_TIMEOUT_MS=40000",
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		log, _ := os.ReadFile(filepath.Join(home, "cache", "nvim", "lsp.log"))
		if len(log) > 8<<10 {
			log = log[len(log)-8<<10:]
		}
		t.Fatalf("nvim: %v\n%s\nlsp.log:\n%s", err, out, log)
	}
	t.Logf("%s (%v)", strings.TrimSpace(string(out)), time.Since(start).Round(time.Millisecond))
}
