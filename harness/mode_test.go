package harness

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestReadOnlyMode: a read-only session offers no edit tools and no bash,
// refuses their calls with a message naming the mode, and tells the model
// at the end of each request; switching back offers them again.
func TestReadOnlyMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", ContextWindow: 8000}
	h, err := New(Options{Root: root, Config: cfg, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	names := func() []string {
		var n []string
		for _, s := range h.Tools.Specs() {
			n = append(n, s.Name)
		}
		return n
	}
	if !h.ReadOnly() || h.AgentConfig.Volatile() == "" {
		t.Fatalf("not read-only: %v", h.ReadOnly())
	}
	got := names()
	for _, bad := range []string{"str_replace", "write_file", "bash"} {
		if slices.Contains(got, bad) {
			t.Errorf("read-only offers %s: %v", bad, got)
		}
	}
	if !slices.Contains(got, "read_file") || !slices.Contains(got, "grep") {
		t.Errorf("read-only lacks the read tools: %v", got)
	}
	r := h.Tools.Dispatch(context.Background(), tools.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"new\n"}`})
	if !r.IsError || !strings.Contains(r.Text, "read-only mode") {
		t.Errorf("write_file in read-only mode: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Errorf("file changed in read-only mode: %q", b)
	}
	h.SetReadOnly(false)
	if got := names(); !slices.Contains(got, "write_file") || h.AgentConfig.Volatile() != "" {
		t.Errorf("default mode: %v, note %q", got, h.AgentConfig.Volatile())
	}
}
