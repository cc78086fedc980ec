package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestRunReadOnlyMode: `run --mode read-only` offers the model no edit
// tools and no bash, refuses a write, and leaves the file as it was.
func TestRunReadOnlyMode(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "old\n")
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "w", Name: "write_file", Arguments: `{"path":"a.txt","content":"new\n"}`}}},
		agenttest.Reply{Text: "I cannot write in read-only mode."},
	)
	r := runBinary(t, ws, "run", "--mode", "read-only", "--base-url", srv.URL, "--model", "scripted", "overwrite a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl["function"].(map[string]any)["name"].(string))
	}
	if slices.Contains(names, "write_file") || slices.Contains(names, "bash") || !slices.Contains(names, "read_file") {
		t.Errorf("read-only tools: %v", names)
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "not available in read-only mode") {
		t.Errorf("write result: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "old\n" {
		t.Errorf("a.txt = %q", b)
	}
	if r := runBinary(t, ws, "run", "--mode", "yolo", "x"); r.code != 2 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("bad mode: exit %d %s", r.code, r.stderr)
	}
}
