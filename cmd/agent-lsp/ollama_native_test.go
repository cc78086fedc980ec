package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// longPrompt is about 1800 tokens of log: with the system prompt and
// the schemas it does not fit 2048.
var longPrompt = "Review this log and read a.txt:\n" + strings.Repeat("2026-01-01 12:00:00 INFO request served in 12ms from cache\n", 120)

// readThenAnswer calls read_file on a.txt, then answers from its result.
func readThenAnswer(n int, req agenttest.ChatRequest) agenttest.Reply {
	if n == 0 {
		return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{Name: "read_file", Arguments: `{"path":"a.txt"}`}}, CompletionTokens: 12}
	}
	if strings.Contains(req.LastToolResult(), "alpha") {
		return agenttest.Reply{Text: "It says alpha.", CompletionTokens: 4}
	}
	return agenttest.Reply{Text: "no result seen", CompletionTokens: 3}
}

// TestOllamaNativeContext: an Ollama that runs models at 2048 by default,
// with a model of 32k native context. A long prompt that /v1 would have
// cut (the run refuses it there, TestFakeOllamaSmallWindows) goes to
// /api/chat with num_ctx 32768 and fits; the tool call runs, its result
// reaches the model in Ollama's format, and the answer comes back.
func TestOllamaNativeContext(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "alpha\n")
	f := newFakeOllama(t, 2048, 32768, readThenAnswer)
	r := runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", longPrompt)
	peak, fitted, n := f.stats()
	t.Logf("2048 default, 32k native, %d-byte prompt: %d requests, peak prompt %d tokens, all fitted: %v", len(longPrompt), n, peak, fitted)
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), "It says alpha.") || !fitted || n != 2 {
		t.Fatalf("exit %d, fitted %v, %d requests, end %s\n%s", r.code, fitted, n, lastLine(r.stdout), r.stderr)
	}
	if peak <= 2048 {
		t.Errorf("peak prompt %d: the prompt would have fitted /v1's 2048, the test proves nothing", peak)
	}
	for _, w := range []string{"cutting the prompt", "2048-token context window", "context_too_small"} {
		if strings.Contains(r.stdout, w) {
			t.Errorf("output says %q:\n%s", w, r.stdout)
		}
	}
	reqs := f.requests()
	for i, q := range reqs {
		if q.path != "/api/chat" || q.numCtx != 32768 || q.tokens > q.ran {
			t.Errorf("request %d: %s num_ctx %d, %d tokens in %d", i, q.path, q.numCtx, q.tokens, q.ran)
		}
	}
	// The second request carries the call and its result as Ollama reads
	// them: arguments an object, the result a "tool" message naming it.
	msgs, _ := reqs[1].body["messages"].([]any)
	var call, result map[string]any
	for _, m := range msgs {
		switch m := m.(map[string]any); m["role"] {
		case "assistant":
			call = m
		case "tool":
			result = m
		}
	}
	calls, _ := call["tool_calls"].([]any)
	if len(calls) != 1 {
		t.Fatalf("assistant message %v", call)
	}
	c := calls[0].(map[string]any)
	args, _ := json.Marshal(c["function"].(map[string]any)["arguments"])
	id, _ := c["id"].(string)
	if string(args) != `{"path":"a.txt"}` || !strings.HasPrefix(id, "call_") {
		t.Errorf("call sent back as %v", c)
	}
	if result["tool_name"] != "read_file" || result["tool_call_id"] != id || !strings.Contains(fmt.Sprint(result["content"]), "alpha") {
		t.Errorf("tool result sent as %v", result)
	}
	if !strings.Contains(r.stdout, `"type":"tool_start"`) {
		t.Errorf("no tool_start event:\n%s", r.stdout)
	}
}

// TestOllamaNativeOff: with ollama_native = false the run stays on /v1,
// which cannot raise the window: the long prompt is refused before it is
// sent, a short one runs with the small-window warning, and with
// context_window set over the server's window the cut is warned about.
func TestOllamaNativeOff(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	v1Only(t, ws, "")
	writeFile(t, filepath.Join(ws, "a.txt"), "alpha\n")
	f := newFakeOllama(t, 2048, 32768, readThenAnswer)
	r := runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", longPrompt)
	if _, _, n := f.stats(); r.code != 1 || n != 0 || !strings.Contains(lastLine(r.stdout), `"reason":"context_too_small"`) || !strings.Contains(lastLine(r.stdout), "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("long prompt on /v1: exit %d, %d requests, end %s", r.code, n, lastLine(r.stdout))
	}
	r = runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "what does a.txt say?")
	reqs := f.requests()
	if r.code != 0 || !strings.Contains(r.stdout, "2048-token context window") || len(reqs) != 2 || reqs[0].path != "/v1/chat/completions" || reqs[1].path != "/v1/chat/completions" {
		t.Errorf("short prompt on /v1: exit %d, %d requests\n%s", r.code, len(reqs), r.stdout)
	}

	ws2 := t.TempDir()
	v1Only(t, ws2, "context_window = 32768\n")
	f = newFakeOllama(t, 2048, 32768, func(int, agenttest.ChatRequest) agenttest.Reply { return agenttest.Reply{Text: "ok"} })
	r = runBinary(t, ws2, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", longPrompt)
	if reqs := f.requests(); len(reqs) == 0 || reqs[0].path != "/v1/chat/completions" || !strings.Contains(r.stdout, "cutting the prompt") {
		t.Errorf("context_window over the server's on /v1: %d requests, no warning:\n%s", len(reqs), r.stdout)
	}
}

// TestFortyTurnNative is the 40-turn session of TestFortyTurnWindows
// against an Ollama at its 2048 default with a 32k model, /api/chat on.
func TestFortyTurnNative(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeSessionFiles(t, ws)
	f := newFakeOllama(t, 2048, 32768, session40(ws))
	r := runBinary(t, ws, "run", "--json", "--max-turns", "60", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "read f00.txt to f38.txt one by one")
	peak, fitted, n := f.stats()
	t.Logf("2048 default, num_ctx 32768: %d requests, peak prompt %5d tokens (%.0f%% of 32768), every request fitted: %v, compactions %d, end %s",
		n, peak, 100*float64(peak)/32768, fitted, strings.Count(r.stdout, `"type":"compaction"`), endReason(lastLine(r.stdout)))
	if r.code != 0 || !fitted || n != 40 {
		t.Errorf("exit %d, fitted %v, %d requests: %s", r.code, fitted, n, lastLine(r.stdout))
	}
}
