package neovim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// lastUser is the text of the last user message.
func lastUser(r agenttest.ChatRequest) string {
	if i := lastUserIndex(r); i >= 0 {
		return strings.TrimSpace(strings.SplitN(toString(r.Messages[i]["content"]), "## Context from the editor", 2)[0])
	}
	return ""
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b := &strings.Builder{}
	if parts, ok := v.([]any); ok {
		for _, p := range parts {
			if m, ok := p.(map[string]any); ok {
				b.WriteString(toString(m["text"]))
			}
		}
	}
	return b.String()
}

// TestNeovimChat drives test/round2.lua: an asynchronous picker answering
// agent/approve after a delay (Deny by default, the loop never stalls), the
// keymaps, the multi-line prompt with #file context, :AgentModel,
// :AgentSessions/:AgentResume, Fix with agent from forwarded diagnostics,
// :AgentEdit, the hidden-file notice, a command's output streamed under its
// tool row, the context gauge, code-action runs shown as their own turns,
// and what the model received.
func TestNeovimChat(t *testing.T) {
	nvimPath(t)
	ws := t.TempDir()
	for _, d := range []string{".git", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"sub/main.go":   mainGo,
		"sub/hidden.go": "package main\n\nvar hidden = 1\n",
		"notes.txt":     "NOTES-CONTENT-42\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := agenttest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetModels("scripted", "other-model")
	call := func(id, name, args string) agenttest.Reply {
		return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: id, Name: name, Arguments: args}}}
	}
	srv.SetFunc(func(r agenttest.ChatRequest) agenttest.Reply {
		step := len(r.Messages) - 1 - lastUserIndex(r)
		switch u := lastUser(r); {
		case strings.HasPrefix(u, "deny me") && step == 0:
			return call("d1", "bash", `{"command":"touch denied.txt"}`)
		case strings.HasPrefix(u, "allow me") && step == 0:
			return call("a1", "bash", `{"command":"touch allowed.txt"}`)
		case strings.HasPrefix(u, "allow me") && step == 2:
			return call("a2", "read_file", `{"path":"sub/hidden.go"}`)
		case strings.HasPrefix(u, "allow me") && step == 4:
			return call("a3", "str_replace", `{"path":"sub/hidden.go","old_str":"hidden = 1","new_str":"hidden = 2"}`)
		case strings.HasPrefix(u, "stream me") && step == 0:
			// Output over about 2 s: tool_output events come while it runs.
			r := call("s1", "bash", `{"command":"for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 0.25; done"}`)
			r.PromptTokens = 3000
			return r
		case strings.HasPrefix(u, "stream me"):
			return agenttest.Reply{Text: "streamed", PromptTokens: 3300}
		}
		return agenttest.Reply{Text: "done"}
	})
	runNvim(t, "test/round2.lua",
		"AGENT_LSP_BIN="+binary,
		"AGENT_LSP_BASE_URL="+srv.URL,
		"AGENT_LSP_MODEL=scripted",
		"E2E_WS="+ws,
		"E2E_TIMEOUT_MS=40000",
	)

	var denied, multi, onModel, resumed, fixed, edited bool
	for _, r := range srv.Requests() {
		u := lastUser(r)
		if strings.Contains(toString(r.Messages[len(r.Messages)-2]["tool_calls"]), "denied.txt") || strings.Contains(r.LastToolResult(), "denied") && strings.HasPrefix(u, "deny me") {
			denied = denied || strings.Contains(strings.ToLower(r.LastToolResult()), "denied")
		}
		if strings.HasPrefix(u, "line one\nline two, see #file:notes.txt") && mentions(r, "NOTES-CONTENT-42") && mentions(r, "notes.txt") {
			multi = true
		}
		if u == "after model" {
			onModel = r.Model == "other-model"
		}
		if u == "after resume" {
			resumed = mentions(r, "allow me")
		}
		if mentions(r, "other: misspelled greeting") {
			fixed = true
		}
		if mentions(r, "uppercase the greeting") {
			edited = true
		}
	}
	for what, ok := range map[string]bool{
		"the default answer did not deny bash":                 denied,
		"the multi-line prompt or its #file did not arrive":    multi,
		":AgentModel's model was not used by the next prompt":  onModel,
		"the prompt after :AgentSessions did not continue it":  resumed,
		"Fix with agent never ran on the forwarded diagnostic": fixed,
		":AgentEdit's instruction did not reach the model":     edited,
	} {
		if !ok {
			t.Error(what)
		}
	}
}
