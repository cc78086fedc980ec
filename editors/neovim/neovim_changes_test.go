package neovim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestNeovimChanges: three turns (an edit, a created file and a file made
// by bash; a created file; an edit the user then overwrites) and the
// plugin's review and undo: :AgentChanges' quickfix list, :AgentDiff's
// diff split, :AgentUndo of the last turn, of one turn with the user's
// unsaved edit elsewhere in the file kept, and a conflict reported.
func TestNeovimChanges(t *testing.T) {
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
	srv, err := agenttest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	calls := map[string][]string{
		"first change": {
			`str_replace {"path":"sub/main.go","old_str":"fmt.Println(\"helo\")","new_str":"fmt.Println(\"hello\")"}`,
			`write_file {"path":"notes.txt","content":"a\nb\n"}`,
			`bash {"command":"printf 'x\\n' > by-bash.txt"}`,
		},
		"second change": {`write_file {"path":"other.txt","content":"o\n"}`},
		"third change":  {`str_replace {"path":"sub/main.go","old_str":"package main","new_str":"package main // agent"}`},
	}
	srv.SetFunc(func(r agenttest.ChatRequest) agenttest.Reply {
		// The prompt is the last user message naming a turn (the server may
		// add messages of its own after it).
		for i := len(r.Messages) - 1; i >= 0; i-- {
			m := r.Messages[i]
			if m["role"] != "user" {
				continue
			}
			for key, list := range calls {
				if !strings.Contains(fmt.Sprint(m["content"]), key) {
					continue
				}
				// One call per reply, each after the previous one's result.
				n := 0
				for _, later := range r.Messages[i+1:] {
					if later["role"] == "tool" {
						n++
					}
				}
				if n < len(list) {
					name, args, _ := strings.Cut(list[n], " ")
					return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("c%d", n), Name: name, Arguments: args}}}
				}
				return agenttest.Reply{Text: "Done: " + key + "."}
			}
		}
		return agenttest.Reply{Text: "?"}
	})
	runNvim(t, "test/changes.lua",
		"AGENT_LSP_BIN="+binary,
		"AGENT_LSP_BASE_URL="+srv.URL,
		"AGENT_LSP_MODEL=scripted",
		"E2E_WS="+ws,
		"E2E_TIMEOUT_MS=40000",
	)
	// What the plugin left on disk: the undone files are gone.
	for _, f := range []string{"notes.txt", "by-bash.txt", "other.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); !os.IsNotExist(err) {
			t.Errorf("%s still exists after the undo (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git")); err != nil {
		t.Errorf(".git: %v", err)
	}
}
