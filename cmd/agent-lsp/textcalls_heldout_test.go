package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestRunTextCallsHeldOut runs the real binary against the scripted server
// with text-protocol replies written for the audit of issue 11 (shapes in
// neither the corpus nor the other tests): each recovered call runs as a
// tool_start, its result reaches the model, one warning, end_turn with
// the final text. The server sends text in 16-byte pieces, so markers and
// tags are cut across chunks.
func TestRunTextCallsHeldOut(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		text  string
		calls int // read_file calls expected
	}{
		"hermes CRLF, args string":  {"<tool_call>\r\n{ \"name\" : \"functions.read_file\" , \"arguments\" : \"{\\\"path\\\": \\\"notes.txt\\\"}\" }\r\n</tool_call>", 1},
		"hermes two calls":          {"Reading it twice.\n<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"notes.txt\"}}</tool_call>\n<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"notes.txt\",\"limit\":1}}</tool_call>", 2},
		"bare pretty type/params":   {"{\n  \"type\": \"function\",\n  \"name\": \"read_file\",\n  \"parameters\": {\"path\": \"notes.txt\", \"offset\": 1}\n}", 1},
		"fenced after intent":       {"Let me open the notes file to find the word.\n\n```json\n[{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}]\n```\n", 1},
		"python_tag no eom":         {"<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"notes.txt\"}}", 1},
		"python_tag prose + eom":    {"I'll check. <|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"notes.txt\"}}<|eom_id|>", 1},
		"pythonic multi-line":       {"[\n  read_file( path = 'notes.txt', limit = 5 ),\n  read_file(path=\"notes.txt\", offset=1)\n]", 2},
		"tool_code after intent":    {"I'll read the notes.\n\n```tool_code\nprint(read_file(path='notes.txt'))\n```", 1},
		"mistral v3 with id":        {"[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}, \"id\": \"Zx9Yw8Vu7\"}]</s>", 1},
		"mistral v11 twice":         {"[TOOL_CALLS]read_file[ARGS]{\"path\":\"notes.txt\"}[TOOL_CALLS]read_file[ARGS]{\"path\":\"notes.txt\",\"limit\":2}", 2},
		"deepseek prose, two calls": {"Reading.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"notes.txt\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"notes.txt\", \"limit\": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", 2},
		"qwen3-coder multi-line":    {"I'll look.\n<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=limit>\n3\n</parameter>\n</function>\n</tool_call>", 1},
		"bare, im_end printed":      {"{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}<|im_end|>", 1},
		"mistral v3, prose after":   {"[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}]\nThis reads the notes.", 1},
		"thinking then mistral":     {"<think>\nThe word is in notes.txt.\nI should read it.\n</think>\n\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"notes.txt\"}", 1},
		"thinking tag then bare":    {"<thinking>Need the file.</thinking>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}", 1},
		// Red-team shapes (each failed before its fix).
		"BOM, bare, CRLF":            {"\ufeff{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\r\n", 1},
		"qwen3-coder CRLF":           {"<tool_call>\r\n<function=read_file>\r\n<parameter=path>\r\nnotes.txt\r\n</parameter>\r\n</function>\r\n</tool_call>", 1},
		"hermes, im_end, next turn":  {"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call><|im_end|>\n<|im_start|>assistant\nIt is", 1},
		"fence after intent, inline": {"I'll open it: ```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n```", 1},
		"hermes then mistral":        {"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}</tool_call>\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"notes.txt\", \"limit\": 1}", 2},
		"hermes two in one tag":      {"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\", \"limit\": 1}}\n</tool_call>", 2},
		"mistral v11, prose after":   {"[TOOL_CALLS]read_file[ARGS]{\"path\": \"notes.txt\"}\nReading it now.", 1},
		// Third red-team pass (each failed before its fix).
		"closed think first, hermes": {"</think>\n\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>", 1},
		"pythonic unicode escape":    {`[read_file(path="not\u0065s.txt")]`, 1},
		"gemini default_api":         {"```tool_code\nprint(default_api.read_file(path=\"notes.txt\"))\n```", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "notes.txt"), "the code word is heliotrope\n")
			srv := newServer(t,
				agenttest.Reply{Text: c.text, PromptTokens: 3000, CompletionTokens: 30},
				agenttest.Reply{Text: "The code word is heliotrope.", PromptTokens: 3100, CompletionTokens: 9},
			)
			r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "What is the code word?")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].LastToolResult(), "heliotrope") {
				t.Fatalf("%d requests\n%s", len(reqs), r.stdout)
			}
			tools := 0
			for _, m := range reqs[1].Messages {
				if m["role"] == "tool" {
					tools++
				}
			}
			body, _ := json.Marshal(reqs[1].Messages)
			if tools != c.calls || strings.Contains(string(body), "think>") || strings.Contains(string(body), "I should read it") || strings.Contains(string(body), "Need the file") {
				t.Errorf("%d tool results, want %d; history %s", tools, c.calls, body)
			}
			evs := events(t, r.stdout)
			if n := countType(evs, "tool_start", `"name":"read_file"`); n != c.calls {
				t.Errorf("%d tool_start, want %d:\n%s", n, c.calls, r.stdout)
			}
			if countType(evs, "warning", "tool calls are arriving as text") != 1 {
				t.Errorf("warnings:\n%s", r.stdout)
			}
			if countType(evs, "text", "notes.txt") != 0 || countType(evs, "text", "think") != 0 || strings.Contains(joined(evs, "text"), "<|") {
				t.Errorf("the envelope or thinking was shown as answer text:\n%s", r.stdout)
			}
			if strings.Contains(string(body), "im_start") {
				t.Errorf("the text past <|im_end|> went back as history: %s", body)
			}
			end := lastLine(r.stdout)
			if !strings.Contains(end, `"reason":"end_turn"`) || !strings.Contains(end, `"text":"The code word is heliotrope."`) {
				t.Errorf("end: %s", end)
			}
		})
	}
}

// TestRunTextCallPermission: a recovered bash call meets the same
// permission rules as a structured one: the denied command does not run,
// the denial is its result.
func TestRunTextCallPermission(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "x", "keep.txt"), "keep\n")
	cfg := filepath.Join(t.TempDir(), "rules.toml")
	writeFile(t, cfg, corpusConfig)
	srv := newServer(t,
		agenttest.Reply{Text: "[bash(command=\"rm -rf x\")]"},
		agenttest.Reply{Text: "I may not delete x."},
	)
	r := runBinary(t, ws, "run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "clean up")
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"reason":"end_turn"`) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].LastToolResult(), "bash call denied") {
		t.Fatalf("%d requests; result %q", len(reqs), reqs[len(reqs)-1].LastToolResult())
	}
	if _, err := os.Stat(filepath.Join(ws, "x", "keep.txt")); err != nil {
		t.Errorf("x was removed: %v", err)
	}
	if countType(events(t, r.stdout), "tool_start", `"name":"bash"`) != 1 {
		t.Errorf("no tool_start:\n%s", r.stdout)
	}
}

// TestRunTextNotCallsHeldOut: answers that mention tools or show examples
// are answers: one request, the text unchanged, no warning.
func TestRunTextNotCallsHeldOut(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"sentence with a call":   "I would call read_file(path=\"notes.txt\"), but the answer is 42.",
		"openai example":         "A call looks like this:\n```json\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"arguments\": \"{}\"}}\n```",
		"package.json":           "```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```",
		"shell block":            "```sh\nbash -c 'ls'\n```",
		"list of tool names":     `["read_file", "bash"]`,
		"task list":              "[x] read_file done\n[ ] bash pending",
		"unknown pythonic":       `[search(query="go generics")]`,
		"tool name in backticks": "Run `bash` with `go test`; `read_file` shows a file.",
		// Red-team shapes (each was run, or answered with a correction).
		"hermes example in xml":  "Example:\n```xml\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>\n```",
		"tag named in prose":     "Qwen writes <tool_call> tags around its calls.",
		"mistral marker named":   "Mistral emits [TOOL_CALLS] before its calls.",
		"python_tag in backtick": "Llama 3.1 starts a call with `<|python_tag|>`.",
		"tool definition":        "Here is the tool definition:\n```json\n{\"name\": \"read_file\", \"description\": \"Reads a file\", \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}}\n```",
		"tools as objects":       `[{"name": "bash"}, {"name": "read_file"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, agenttest.Reply{Text: text})
			r := runBinary(t, t.TempDir(), "run", "--base-url", srv.URL, "--model", "scripted", "hi")
			if r.code != 0 || r.stdout != text+"\n" || len(srv.Requests()) != 1 || strings.Contains(r.stderr, "arriving as text") {
				t.Errorf("exit %d, stdout %q, %d requests, stderr %s", r.code, r.stdout, len(srv.Requests()), r.stderr)
			}
		})
	}
}

// TestRunBrokenTextCallHeldOut: an unknown tool and schema-invalid
// arguments each get one correction naming the problem; then the fixed
// call runs. Two broken replies end the run malformed_tool_call.
func TestRunBrokenTextCallHeldOut(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ broken, want string }{
		"unknown tool":  {`[TOOL_CALLS]web_search[ARGS]{"q": "heliotrope"}`, `"web_search" is not a tool you have`},
		"bad arguments": {"<tool_call>\n<function=read_file>\n<parameter=offset>\n2\n</parameter>\n</function>\n</tool_call>", "do not match its schema"},
		"truncated":     {"<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"notes", "does not parse"},
		"unclosed":      {"```tool_code\nread_file(path=\"notes.txt\")\n", "not closed"},
		"pythonic cut":  {`[read_file(path="notes.txt"`, "not closed"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "notes.txt"), "heliotrope\n")
			srv := newServer(t, agenttest.Reply{Text: c.broken},
				agenttest.Reply{Text: `{"name": "read_file", "arguments": {"path": "notes.txt"}}`},
				agenttest.Reply{Text: "It says heliotrope."})
			r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
			if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"text":"It says heliotrope."`) {
				t.Fatalf("exit %d\n%s", r.code, r.stdout)
			}
			reqs := srv.Requests()
			last := reqs[1].Messages[len(reqs[1].Messages)-1]
			if s, _ := last["content"].(string); last["role"] != "user" || !strings.Contains(s, c.want) {
				t.Errorf("correction sent: %v", last)
			}
			if !strings.Contains(reqs[2].LastToolResult(), "heliotrope") {
				t.Errorf("fixed call result %q", reqs[2].LastToolResult())
			}

			srv = newServer(t, agenttest.Reply{Text: c.broken}, agenttest.Reply{Text: c.broken})
			r = runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
			end := lastLine(r.stdout)
			if r.code != 1 || !strings.Contains(end, `"reason":"malformed_tool_call"`) || !strings.Contains(end, "text_tool_calls = false") {
				t.Errorf("twice broken: exit %d, end %s", r.code, end)
			}
		})
	}
}

// TestRunInlineThinkingHeldOut: thinking cut across chunks at every
// offset of the 16-byte pieces, and the unclosed-at-start form from a
// reasoning model, become reasoning; the answer is the rest; a resumed
// session sends no thinking back and the transcript holds none as text.
func TestRunInlineThinkingHeldOut(t *testing.T) {
	t.Parallel()
	for pad := 0; pad < 16; pad += 3 {
		text := strings.Repeat(" ", pad) + "<think>\nsecret plan " + strings.Repeat("x", pad) + "\n</think>\n\nThe answer is 4."
		srv := newServer(t, agenttest.Reply{Text: text})
		r := runBinary(t, t.TempDir(), "run", "--json", "--base-url", srv.URL, "--model", "scripted", "2+2?")
		if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"text":"The answer is 4."`) || !strings.Contains(joined(events(t, r.stdout), "reasoning"), "secret plan") || strings.Contains(joined(events(t, r.stdout), "text"), "secret") {
			t.Errorf("pad %d: exit %d\n%s", pad, r.code, r.stdout)
		}
	}

	ws := t.TempDir()
	srv := newServer(t,
		agenttest.Reply{Text: "Okay, the user asks 2+2, a secret plan.\n</think>\n\nIt is 4."},
		agenttest.Reply{Text: "It is 5 minus 1."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "deepseek-r1:7b", "2+2?")
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"text":"It is 4."`) || !strings.Contains(joined(events(t, r.stdout), "reasoning"), "secret plan") || strings.Contains(joined(events(t, r.stdout), "text"), "secret") {
		t.Fatalf("unclosed: exit %d\n%s", r.code, r.stdout)
	}
	r = runBinary(t, ws, "run", "--json", "--resume", "last", "--base-url", srv.URL, "--model", "deepseek-r1:7b", "and 3+1?")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1].Messages)
	if len(reqs) != 2 || strings.Contains(string(body), "secret plan") || !strings.Contains(string(body), "It is 4.") {
		t.Errorf("resumed history: %s", body)
	}
	files, _ := filepath.Glob(filepath.Join(ws, ".state", "agent-lsp", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.Contains(line, "secret plan") && strings.Contains(line, `"content":"Okay`) {
			t.Errorf("thinking stored as answer text: %s", line)
		}
	}
	if !strings.Contains(string(data), "secret plan") {
		t.Log("the transcript keeps no reasoning at all")
	}
}

// joined is the text of the events of one type, in order.
func joined(evs []map[string]any, typ string) string {
	var b strings.Builder
	for _, ev := range evs {
		if s, ok := ev["text"].(string); ok && ev["type"] == typ {
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestRunTextCallsWarnOnce: calls written as text on three turns in a row
// all run, with one warning for the run.
func TestRunTextCallsWarnOnce(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "heliotrope\n")
	srv := newServer(t,
		agenttest.Reply{Text: `<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>`},
		agenttest.Reply{Text: `[read_file(path="notes.txt", limit=1)]`},
		agenttest.Reply{Text: "[TOOL_CALLS]read_file[ARGS]{\"path\": \"notes.txt\", \"offset\": 1}"},
		agenttest.Reply{Text: "It says heliotrope."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
	evs := events(t, r.stdout)
	if r.code != 0 || len(srv.Requests()) != 4 || countType(evs, "tool_start", `"name":"read_file"`) != 3 {
		t.Fatalf("exit %d, %d requests\n%s", r.code, len(srv.Requests()), r.stdout)
	}
	if n := countType(evs, "warning", "arriving as text"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, r.stdout)
	}
}

// TestRunBrokenTextCallNamesServerSetting: against a fake Ollama, the
// ending of a run whose model twice writes a broken call names Ollama's
// template as the cause and what to check.
func TestRunBrokenTextCallNamesServerSetting(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	f := newFakeOllama(t, 32768, 32768, func(int, agenttest.ChatRequest) agenttest.Reply {
		return agenttest.Reply{Text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}"}
	})
	r := runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "read notes.txt")
	end := lastLine(r.stdout)
	if r.code != 1 || !strings.Contains(end, `"reason":"malformed_tool_call"`) || !strings.Contains(end, "ollama show qwen2.5-coder:7b") || !strings.Contains(end, "text_tool_calls = false") {
		t.Errorf("exit %d, end %s", r.code, end)
	}
}

// TestRunUnclosedThinkingThenTextCall: a reasoning model whose template
// opened <think> writes "…</think>" then a call as text: the thinking is
// reasoning, the call runs, neither is answer text or history.
func TestRunUnclosedThinkingThenTextCall(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "heliotrope\n")
	srv := newServer(t,
		agenttest.Reply{Text: "The user wants notes.txt; a secret plan.\n</think>\n\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>"},
		agenttest.Reply{Text: "It says heliotrope."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "deepseek-r1:14b", "read notes.txt")
	evs := events(t, r.stdout)
	reqs := srv.Requests()
	if r.code != 0 || len(reqs) != 2 || !strings.Contains(reqs[1].LastToolResult(), "heliotrope") || !strings.Contains(joined(evs, "reasoning"), "secret plan") || strings.Contains(joined(evs, "text"), "secret") {
		t.Fatalf("exit %d, %d requests\n%s", r.code, len(reqs), r.stdout)
	}
	if body, _ := json.Marshal(reqs[1].Messages); strings.Contains(string(body), "secret plan") || strings.Contains(string(body), "think>") {
		t.Errorf("history %s", body)
	}
}

// TestRunTextCallAfterUnclosedThinking: a model not named like a
// reasoning model writes "thinking</think>" then a bare call: the call
// runs and is not printed as answer text (the gate treats the text after
// </think> as the start of the reply).
func TestRunTextCallAfterUnclosedThinking(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "heliotrope\n")
	srv := newServer(t,
		agenttest.Reply{Text: "I need the file first.\n</think>\n\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}"},
		agenttest.Reply{Text: "It says heliotrope."},
	)
	r := runBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "read notes.txt")
	evs := events(t, r.stdout)
	reqs := srv.Requests()
	if r.code != 0 || len(reqs) != 2 || !strings.Contains(reqs[1].LastToolResult(), "heliotrope") {
		t.Fatalf("exit %d, %d requests\n%s", r.code, len(reqs), r.stdout)
	}
	if strings.Contains(joined(evs, "text"), "notes.txt") {
		t.Errorf("the recovered call was printed as answer text:\n%s", r.stdout)
	}
}
