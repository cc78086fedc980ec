package lsptest_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// TestPromptReadOnlyMode: agent/prompt's mode "read-only" refuses edits
// (no applyEdit reaches the editor) and a bad mode is an invalid-params
// error.
func TestPromptReadOnlyMode(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		agenttest.Reply{Text: "I may not edit in read-only mode."},
	)
	e := lsptest.Connect(t, map[string]string{"main.go": diskMain}, initOpts(m))
	e.Open("main.go", unsavedMain)
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "edit it", Mode: "read-only"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != "end_turn" || len(applyEdits(e)) != 0 {
		t.Fatalf("result %+v, %d edits", res, len(applyEdits(e)))
	}
	if got := m.Requests()[1].LastToolResult(); !strings.Contains(got, "not available in read-only mode") {
		t.Errorf("str_replace in read-only mode: %s", got)
	}
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "x", Mode: "yolo"}, &res); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("bad mode: %v", err)
	}
}
