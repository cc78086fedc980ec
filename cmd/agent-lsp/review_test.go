package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// review = "confirm" in the configuration makes every edit of a headless
// run ask first: refused without anyone to ask (--ask deny), written when
// approved (--ask allow); "off" (the default) writes at once.
func TestHeadlessReview(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		review, ask string
		written     bool
	}{
		{"confirm", "deny", false},
		{"confirm", "allow", true},
		{"off", "deny", true},
	} {
		ws, dir := t.TempDir(), t.TempDir()
		cfg := filepath.Join(dir, "config.toml")
		writeFile(t, cfg, "review = \""+c.review+"\"\n")
		srv := newServer(t,
			agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "w", Name: "write_file", Arguments: `{"path":"notes.md","content":"hello\n"}`}}},
			agenttest.Reply{Text: "done"},
		)
		r := runBinary(t, ws, "run", "--config", cfg, "--ask", c.ask, "--base-url", srv.URL, "--model", "scripted", "write the notes")
		_, err := os.Stat(filepath.Join(ws, "notes.md"))
		if r.code != 0 || (err == nil) != c.written {
			t.Errorf("review %s, --ask %s: exit %d, written %v\n%s", c.review, c.ask, r.code, err == nil, r.stderr)
		}
		if res := srv.Requests()[1].LastToolResult(); !c.written && !strings.Contains(res, "review") {
			t.Errorf("review %s, --ask %s: the model was told %q", c.review, c.ask, res)
		}
	}
	ws, dir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "review = \"later\"\n")
	if r := runBinary(t, ws, "run", "--config", cfg, "hi"); r.code != 2 || !strings.Contains(r.stderr, "review") {
		t.Errorf("a bad review value: exit %d\n%s", r.code, r.stderr)
	}
}
