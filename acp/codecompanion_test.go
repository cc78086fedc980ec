package acp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestCodeCompanion drives the real binary with a real editor's ACP
// client: CodeCompanion.nvim's (its Connection, PromptBuilder and fs/*
// handlers) in headless Neovim 0.10+ (testdata/codecompanion.lua). The
// plugin is not vendored: the test runs when AGENT_LSP_TEST_CODECOMPANION
// names a directory holding codecompanion/ and plenary/ checkouts, with
// the Neovim of AGENT_LSP_TEST_NVIM (the chroot one of
// editors/neovim/test/chroot-nvim.sh) or on PATH:
//
//	AGENT_LSP_TEST_CODECOMPANION=$DIR NVIM_CHROOT=$(scripts/nvim-chroot sid) \
//	  AGENT_LSP_TEST_NVIM=$PWD/editors/neovim/test/chroot-nvim.sh go test -run CodeCompanion ./acp/
//
// One prompt with main.go open in a buffer: the model reads it
// (fs/read_text_file), edits it (fs/write_text_file: CodeCompanion puts it
// in the buffer, a diff block in the update), creates new.txt (CodeCompanion
// answers "" for a missing file), runs a command that asks (answered
// allow_once) and sees both files, and answers.
func TestCodeCompanion(t *testing.T) {
	plugins := os.Getenv("AGENT_LSP_TEST_CODECOMPANION")
	if plugins == "" {
		t.Skip("AGENT_LSP_TEST_CODECOMPANION is not set (a directory with codecompanion/ and plenary/)")
	}
	nvim := os.Getenv("AGENT_LSP_TEST_NVIM")
	if nvim == "" {
		nvim = "nvim"
	}
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // say old things\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("r1", "read_file", `{"path":"main.go"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("e1", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("w1", "write_file", `{"path":"new.txt","content":"a new file\n"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("x1", "bash", `{"command":"cat main.go new.txt > made.txt; touch done"}`)}},
		agenttest.Reply{Text: "done: main.go says new things"},
	)
	// A copy under the test's temporary dir, which chroot-nvim.sh mounts.
	scratch := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(plugins, "codecompanion"), filepath.Join(plugins, "plenary"), scratch).CombinedOutput(); err != nil {
		t.Fatalf("copy the plugins: %v\n%s", err, out)
	}
	plugins = scratch
	agent := filepath.Join(scratch, "agent-lsp")
	if out, err := exec.Command("cp", binary, agent).CombinedOutput(); err != nil {
		t.Fatalf("copy the binary: %v\n%s", err, out)
	}
	// Neovim's own temporary dir (nvim.USER) under the mounted TMPDIR.
	t.Cleanup(func() {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "nvim.*"))
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	})
	outFile := filepath.Join(t.TempDir(), "result.json")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+filepath.Join(mustAbs(t, "testdata"), "codecompanion.lua"))
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "CC_PLUGINS="+plugins, "CC_AGENT="+agent, "CC_MODEL="+m.URL, "CC_WS="+ws, "CC_OUT="+outFile,
		"HOME="+ws, "XDG_CONFIG_HOME="+filepath.Join(ws, ".config"), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	b, rerr := os.ReadFile(outFile)
	if err != nil || rerr != nil {
		t.Fatalf("nvim: %v\n%s\nresult: %s", err, out, b)
	}
	var r struct {
		Session, Text, Stop, Error, Buffer string
		Modified                           bool
		Tools                              []struct{ ID, Kind, Title, Status string }
		Updates                            []struct {
			ID, Status string
			Diff       bool
		}
		Permissions []struct{ ID, Title string }
		Writes      []string
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	t.Logf("CodeCompanion saw: %s", b)
	if r.Session == "" || r.Stop != "end_turn" || r.Error != "" || r.Text != "done: main.go says new things" {
		t.Errorf("session %q, stop %q, error %q, text %q", r.Session, r.Stop, r.Error, r.Text)
	}
	// CodeCompanion's fs/read_text_file reads the file (not its buffer);
	// its fs/write_text_file writes into the buffer when one is open.
	if got := m.Requests()[1].LastToolResult(); !strings.Contains(got, "say old things") {
		t.Errorf("read_file gave the model %q", got)
	}
	// It answers "" for a missing file: write_file still creates it.
	if got := m.Requests()[3].LastToolResult(); !strings.Contains(got, "new.txt") || strings.Contains(got, "Error") {
		t.Errorf("write_file of a new file through CodeCompanion: %q", got)
	}
	kinds := map[string]string{}
	for _, c := range r.Tools {
		kinds[c.ID] = c.Kind
	}
	if kinds["r1"] != "read" || kinds["e1"] != "edit" || kinds["w1"] != "edit" || kinds["x1"] != "execute" {
		t.Errorf("tool calls %+v", r.Tools)
	}
	final := map[string]string{}
	diff := false
	for _, u := range r.Updates {
		if u.Status != "" {
			final[u.ID] = u.Status
		}
		diff = diff || u.ID == "e1" && u.Diff
	}
	if final["r1"] != "completed" || final["e1"] != "completed" || final["w1"] != "completed" || final["x1"] != "completed" || !diff {
		t.Errorf("updates %+v", r.Updates)
	}
	if len(r.Permissions) != 1 || r.Permissions[0].ID != "x1" || len(r.Writes) != 2 || r.Writes[0] != filepath.Join(ws, "main.go") || r.Writes[1] != filepath.Join(ws, "new.txt") {
		t.Errorf("permissions %+v, writes %v", r.Permissions, r.Writes)
	}
	if !strings.HasPrefix(r.Buffer, "package main // say new things") {
		t.Errorf("CodeCompanion's buffer after the edit: %q", r.Buffer)
	}
	// The command saw both files. (CodeCompanion saves the buffer itself,
	// with one more empty line than it was sent.)
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || !strings.HasPrefix(string(b), "package main // say new things\n") || !strings.HasSuffix(string(b), "\na new file\n") {
		t.Errorf("the allowed command's output: %q %v", b, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
