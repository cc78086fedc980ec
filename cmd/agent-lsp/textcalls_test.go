package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// events decodes the --json output.
func events(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not an event: %q", line)
		}
		out = append(out, ev)
	}
	return out
}

func countType(evs []map[string]any, typ, contains string) int {
	n := 0
	for _, ev := range evs {
		if ev["type"] == typ {
			b, _ := json.Marshal(ev)
			if strings.Contains(string(b), contains) {
				n++
			}
		}
	}
	return n
}

// TestRunRecoversTextToolCalls runs the real binary against a scripted
// server whose model writes its read_file call as text, in shapes not in
// the recorded corpus (held out: other tool, other spacing, prose around
// them). Each call must run, its result reach the model, and the run end
// end_turn with the model's final text, with one warning.
func TestRunRecoversTextToolCalls(t *testing.T) {
	t.Parallel()
	shapes := map[string]string{
		"hermes":         "Let me read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>",
		"qwen3-coder":    "<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.txt\n</parameter>\n</function>\n</tool_call>",
		"bare json":      `{"name": "functions.read_file", "arguments": "{\"path\": \"notes.txt\"}"}`,
		"fenced json":    "I'll open the notes.\n```json\n{\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}}\n```",
		"python_tag":     `<|python_tag|>{"type": "function", "name": "read_file", "parameters": {"path": "notes.txt"}}<|eom_id|>`,
		"pythonic list":  `[read_file(path='notes.txt')]`,
		"tool_code":      "```tool_code\nread_file(path=\"notes.txt\")\n```",
		"mistral v3":     `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "notes.txt"}}]`,
		"mistral v11":    `[TOOL_CALLS]read_file[ARGS]{"path": "notes.txt"}`,
		"deepseek":       "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"notes.txt\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"function tag":   `<function=read_file>{"path": "notes.txt"}</function>`,
		"after thinking": "<think>The user wants the notes; I should read them.</think>\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}</tool_call>",
	}
	for name, text := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "notes.txt"), "the code word is heliotrope\n")
			srv := newServer(t,
				agenttest.Reply{Text: text, PromptTokens: 3000, CompletionTokens: 30},
				agenttest.Reply{Text: "The code word is heliotrope.", PromptTokens: 3100, CompletionTokens: 9},
			)
			r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "What is the code word?")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].LastToolResult(), "heliotrope") {
				t.Fatalf("%d requests; tool result %q", len(reqs), reqs[len(reqs)-1].LastToolResult())
			}
			// The history shows the model its call as a structured call,
			// with the envelope gone from the text and no thinking.
			var asst map[string]any
			for _, m := range reqs[1].Messages {
				if m["role"] == "assistant" {
					asst = m
				}
			}
			content, _ := asst["content"].(string)
			calls, _ := asst["tool_calls"].([]any)
			if len(calls) != 1 || strings.Contains(content, "notes.txt") || strings.Contains(content, "think") {
				t.Errorf("assistant message sent back: %v", asst)
			}
			evs := events(t, r.stdout)
			if countType(evs, "tool_start", `"name":"read_file"`) != 1 || countType(evs, "warning", "tool calls are arriving as text") != 1 {
				t.Errorf("events:\n%s", r.stdout)
			}
			if countType(evs, "text", "notes.txt") != 0 {
				t.Errorf("the envelope was shown as answer text:\n%s", r.stdout)
			}
			if !strings.Contains(lastLine(r.stdout), `"reason":"end_turn"`) || !strings.Contains(lastLine(r.stdout), `"text":"The code word is heliotrope."`) {
				t.Errorf("end: %s", lastLine(r.stdout))
			}
		})
	}
}

// TestRunTextNotCalls: prose and examples that name no tool are answers;
// one request, end_turn, the text unchanged.
func TestRunTextNotCalls(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"prose":         "Use read_file on notes.txt, then glob for the rest.",
		"json example":  `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
		"python block":  "```python\nread_file(path=\"notes.txt\")\n```",
		"go code block": "```go\nfmt.Println(\"hi\")\n```",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			srv := newServer(t, agenttest.Reply{Text: text})
			r := runBinary(t, ws, "run", "--base-url", srv.URL, "--model", "scripted", "hi")
			if r.code != 0 || r.stdout != text+"\n" || len(srv.Requests()) != 1 || strings.Contains(r.stderr, "arriving as text") {
				t.Errorf("exit %d, stdout %q, %d requests, stderr %s", r.code, r.stdout, len(srv.Requests()), r.stderr)
			}
		})
	}
}

// TestRunBrokenTextCall: a broken envelope gets one correction; a second
// one ends the run malformed_tool_call, naming the cause and the setting.
func TestRunBrokenTextCall(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "heliotrope\n")
	broken := agenttest.Reply{Text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\""}
	srv := newServer(t, broken,
		agenttest.Reply{Text: `<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>`},
		agenttest.Reply{Text: "It says heliotrope."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"reason":"end_turn"`) {
		t.Fatalf("corrected once: exit %d\n%s", r.code, r.stdout)
	}
	reqs := srv.Requests()
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if s, _ := last["content"].(string); last["role"] != "user" || !strings.Contains(s, "not closed") {
		t.Errorf("correction sent: %v", last)
	}

	srv = newServer(t, broken, broken)
	r = runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
	end := lastLine(r.stdout)
	if r.code != 1 || !strings.Contains(end, `"reason":"malformed_tool_call"`) || !strings.Contains(end, "text_tool_calls = false") || !strings.Contains(end, "chat template") {
		t.Errorf("twice broken: exit %d, end %s", r.code, end)
	}
}

// TestRunTextToolCallsOff: with text_tool_calls = false the envelope is
// the answer.
func TestRunTextToolCallsOff(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".config", "agent-lsp", "config.toml"), "text_tool_calls = false\n")
	text := `<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>`
	srv := newServer(t, agenttest.Reply{Text: text})
	r := runBinary(t, ws, "run", "--base-url", srv.URL, "--model", "scripted", "hi")
	if r.code != 0 || r.stdout != text+"\n" {
		t.Errorf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestRunInlineThinking: <think> becomes reasoning events, is not the
// answer, and is not sent back on the next turn.
func TestRunInlineThinking(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "alpha\n")
	srv := newServer(t,
		agenttest.Reply{Text: "<think>I need a.txt first.</think>", ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		agenttest.Reply{Text: "<thinking>It says alpha.</thinking>\n\nThe file says alpha."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "what does a.txt say?")
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"text":"The file says alpha."`) {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	evs := events(t, r.stdout)
	if countType(evs, "reasoning", "first.") == 0 || countType(evs, "reasoning", "s alpha.") == 0 || countType(evs, "text", "think") != 0 {
		t.Errorf("events:\n%s", r.stdout)
	}
	body, _ := json.Marshal(srv.Requests()[1].Messages)
	if strings.Contains(string(body), "I need a.txt") || strings.Contains(string(body), "think>") {
		t.Errorf("thinking sent back: %s", body)
	}
	// The transcript keeps no thinking as answer text either.
	files, _ := filepath.Glob(filepath.Join(ws, ".state", "agent-lsp", "sessions", "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), "<think>") || strings.Contains(string(data), "<thinking>") {
			t.Errorf("transcript %s holds a think tag", f)
		}
	}
	if len(files) == 0 {
		t.Error("no transcript written")
	}
}
