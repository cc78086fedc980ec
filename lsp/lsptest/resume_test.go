package lsptest_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// TestSessionSurvivesRestart: agent/prompt with the sessionId of a session
// a previous server process ran continues it, with the whole conversation
// and today's tools.
func TestSessionSurvivesRestart(t *testing.T) {
	t.Parallel()
	m := model(t,
		agenttest.Reply{Text: "Noted: the codeword is heron."},
		agenttest.Reply{Text: "You told me heron."},
	)
	state := t.TempDir()
	opts := initOpts(m)
	opts.StateDir = state

	e := lsptest.Connect(t, nil, opts)
	var r1 lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "Remember the codeword heron."}, &r1); err != nil {
		t.Fatal(err)
	}
	if code := e.Close(); code != 0 {
		t.Fatalf("first server exited %d", code)
	}

	e2 := lsptest.Connect(t, nil, opts)
	var r2 lsp.PromptResult
	if err := e2.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "What was the codeword?", SessionID: r1.SessionID}, &r2); err != nil {
		t.Fatal(err)
	}
	if r2.SessionID != r1.SessionID || r2.Reason != "end_turn" {
		t.Fatalf("resumed result %+v", r2)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1]
	var text []string
	for _, msg := range last.Messages {
		if c, ok := msg["content"].(string); ok {
			text = append(text, c)
		}
	}
	joined := strings.Join(text, "\n")
	for _, want := range []string{"Remember the codeword heron.", "Noted: the codeword is heron.", "What was the codeword?"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the resumed request lacks %q", want)
		}
	}
	if len(last.Tools) == 0 {
		t.Error("the resumed session lost its tools")
	}

	// A client may name a new session itself; a bad name is refused.
	var r3 lsp.PromptResult
	if err := e2.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "hi", SessionID: "../escape"}, &r3); err == nil {
		t.Errorf("sessionId ../escape accepted: %+v", r3)
	}
}
