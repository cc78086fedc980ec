package textcalls

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

var testSpecs = []tools.Spec{
	{Name: "read_file", Description: "Reads a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)},
	{Name: "bash", Description: "Runs a command.", Parameters: []byte(`{"type":"object","properties":{"command":{"type":"string"},"background":{"type":"boolean"}},"required":["command"],"additionalProperties":false}`)},
	{Name: "write_file", Description: "Writes a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`)},
	{Name: "glob", Description: "Lists files.", Parameters: []byte(`{"type":"object","properties":{"patterns":{"type":"array","items":{"type":"string"}}},"required":["patterns"]}`)},
}

type wantCall struct{ name, args string }

// wantCalls checks that r recovered exactly calls, without a problem.
func wantCalls(t *testing.T, r Result, calls []wantCall) {
	t.Helper()
	if r.Problem != "" || len(r.Calls) != len(calls) {
		t.Fatalf("Recover = %+v, want %v", r, calls)
	}
	for i, w := range calls {
		if got := r.Calls[i]; got.Name != w.name || got.Arguments != w.args {
			t.Errorf("call %d = %s %s, want %s %s", i, got.Name, got.Arguments, w.name, w.args)
		}
	}
}

// problemCase is a broken envelope: no call, and a problem saying want.
type problemCase struct{ name, text, want string }

// wantProblems runs Recover on each case and expects its problem.
func wantProblems(t *testing.T, cases []problemCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Recover(c.text, testSpecs)
			if len(r.Calls) > 0 || r.Family == "" || !strings.Contains(r.Problem, c.want) {
				t.Errorf("Recover = %+v, want a problem saying %q", r, c.want)
			}
		})
	}
}

// wantNothing runs Recover on each answer (by name) and expects no call,
// no family and no problem: the text stays the answer.
func wantNothing(t *testing.T, answers map[string]string) {
	t.Helper()
	for name, text := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if r := Recover(text, testSpecs); r.Family != "" || len(r.Calls) > 0 || r.Problem != "" {
				t.Errorf("Recover(%q) = %+v, want nothing", text, r)
			}
		})
	}
}

func TestRecoverPositives(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, family, prose string
		calls                     []wantCall
	}{
		{"hermes", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>", "Hermes/Qwen <tool_call>", "", []wantCall{{"read_file", `{"path": "a.go"}`}}},
		{"hermes two, prose before", "Reading both.\n<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}</tool_call>\n<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}</tool_call>", "Hermes/Qwen <tool_call>", "Reading both.", []wantCall{{"read_file", `{"path":"a"}`}, {"read_file", `{"path":"b"}`}}},
		{"functions. prefix and type wrapper", `{"type": "function", "function": {"name": "functions.bash", "arguments": {"command": "go test ./..."}}}`, "bare JSON call", "", []wantCall{{"bash", `{"command": "go test ./..."}`}}},
		{"arguments as a JSON string", `{"name": "bash", "arguments": "{\"command\": \"ls\"}"}`, "bare JSON call", "", []wantCall{{"bash", `{"command": "ls"}`}}},
		{"parameters key", `{"name": "read_file", "parameters": {"path": "x", "limit": 5}}`, "bare JSON call", "", []wantCall{{"read_file", `{"path": "x", "limit": 5}`}}},
		{"bare array", `[{"name":"read_file","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"pwd"}}]`, "bare JSON call", "", []wantCall{{"read_file", `{"path":"a"}`}, {"bash", `{"command":"pwd"}`}}},
		{"fence without language", "```\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"go.mod\"}}\n```", "fenced ```json call", "", []wantCall{{"read_file", `{"path": "go.mod"}`}}},
		{"qwen3-coder, numeric-looking string", "<tool_call>\n<function=write_file>\n<parameter=path>\n123\n</parameter>\n<parameter=content>\nline 1\nline 2\n</parameter>\n</function>\n</tool_call>", "Qwen3-Coder <tool_call><function=NAME>", "", []wantCall{{"write_file", `{"content":"line 1\nline 2","path":"123"}`}}},
		{"function tags without tool_call", "<function=read_file>\n<parameter=path>\nmain.go\n</parameter>\n<parameter=offset>\n10\n</parameter>\n</function>", "<function=NAME> tags (Qwen3-Coder, Llama 3.1)", "", []wantCall{{"read_file", `{"offset":10,"path":"main.go"}`}}},
		{"python_tag, two calls", `<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}; {"name": "read_file", "parameters": {"path": "b"}}<|eot_id|>`, "Llama 3.1 <|python_tag|>", "", []wantCall{{"read_file", `{"path": "a"}`}, {"read_file", `{"path": "b"}`}}},
		{"python_tag, built-in style", `<|python_tag|>bash.call(command="ls -la")`, "Llama 3.1 <|python_tag|>", "", []wantCall{{"bash", `{"command":"ls -la"}`}}},
		{"pythonic list, literals", `[bash(command='echo "hi"\n', background=False), glob(patterns=["*.go", '*.md'])]`, "Python call list (Llama 3.2)", "", []wantCall{{"bash", `{"background":false,"command":"echo \"hi\"\n"}`}, {"glob", `{"patterns":["*.go","*.md"]}`}}},
		{"tool_code with print", "Let me look.\n```tool_code\nprint(read_file(path=\"README.md\", limit=20))\n```", "Gemma ```tool_code", "Let me look.", []wantCall{{"read_file", `{"limit":20,"path":"README.md"}`}}},
		{"mistral v11 with call id", `[TOOL_CALLS]bash[CALL_ID]a1b2c3d4e[ARGS]{"command": "make"}</s>`, "Mistral [TOOL_CALLS]", "", []wantCall{{"bash", `{"command": "make"}`}}},
		{"deepseek v3.1, ascii bars", `<|tool▁calls▁begin|><|tool▁call▁begin|>read_file<|tool▁sep|>{"path": "x.go"}<|tool▁call▁end|><|tool▁calls▁end|>`, "DeepSeek <｜tool▁calls▁begin｜>", "", []wantCall{{"read_file", `{"path": "x.go"}`}}},
		{"deepseek, fence inside an argument", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n{\"path\": \"README.md\", \"content\": \"```sh\\nmake\\n```\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "DeepSeek <｜tool▁calls▁begin｜>", "", []wantCall{{"write_file", `{"path": "README.md", "content": "` + "```sh\\nmake\\n```" + `"}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Recover(c.text, testSpecs)
			if r.Problem != "" || r.Family != c.family || r.Text != c.prose {
				t.Fatalf("Recover = %+v\nwant family %q, prose %q", r, c.family, c.prose)
			}
			if len(r.Calls) != len(c.calls) {
				t.Fatalf("calls %+v, want %v", r.Calls, c.calls)
			}
			for i, w := range c.calls {
				if got := r.Calls[i]; got.Name != w.name || got.Arguments != w.args || !strings.HasPrefix(got.ID, "text_call_") {
					t.Errorf("call %d = %+v, want %s %s", i, got, w.name, w.args)
				}
			}
		})
	}
}

// TestRecoverNegatives: prose, examples and code stay the answer.
func TestRecoverNegatives(t *testing.T) {
	t.Parallel()
	wantNothing(t, map[string]string{
		"prose naming a tool":        "You can use read_file to look at a.go, or bash to run the tests.",
		"JSON data, not a call":      `{"name": "Ada", "age": 36}`,
		"JSON example, unknown tool": `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
		"fenced example, unknown":    "Here is how a call looks:\n```json\n{\"name\": \"search_web\", \"arguments\": {\"q\": \"go\"}}\n```",
		"truncated, unknown tool":    `{"name": "search_web", "arguments": {"q": "go`,
		"go code block":              "```go\nfunc main() { read_file(\"x\") }\n```",
		"python code block":          "```python\nread_file(path=\"a.go\")\n```",
		"long answer then a fence":   strings.Repeat("This explains the design in detail. ", 10) + "\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```",
		"two fenced blocks":          "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\nand\n```json\n{\"a\": 1}\n```",
		"a list of numbers":          "[1, 2, 3]",
		"a markdown link list":       "[docs](https://go.dev) [spec]",
		"a bracketed word":           "[x]",
		"python list, unknown tool":  `[get_weather(city="Paris")]`,
		"empty":                      "  \n",
		"JSON with extra keys":       `{"name": "read_file", "path": "a.go", "reason": "look"}`,
	})
	if r := Recover(`<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>`, nil); r.Family != "" {
		t.Errorf("without tools offered: %+v", r)
	}
}

// TestRecoverBroken: a recognised envelope that cannot run is a problem.
func TestRecoverBroken(t *testing.T) {
	t.Parallel()
	wantProblems(t, []problemCase{
		{"unclosed tool_call", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}", "not closed"},
		{"truncated JSON in tool_call", "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": </tool_call>", "does not parse"},
		{"unknown tool in tool_call", "<tool_call>{\"name\": \"search_web\", \"arguments\": {}}</tool_call>", `"search_web" is not a tool you have (tools: bash, glob, read_file, write_file)`},
		{"missing required argument", "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"offset\": 2}}</tool_call>", "do not match its schema"},
		{"wrong argument type", `{"name": "read_file", "arguments": {"path": 7}}`, "do not match its schema"},
		{"arguments not an object", `{"name": "bash", "arguments": "ls"}`, "not valid JSON"},
		{"truncated bare JSON", `{"name": "read_file", "arguments": {"path": "a`, "looks like a tool call in JSON"},
		{"unclosed json fence", "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}", "not closed"},
		{"mistral without ARGS", "[TOOL_CALLS]read_file", "not followed by NAME[ARGS]"},
		{"mistral truncated args", `[TOOL_CALLS]read_file[ARGS]{"path": "a`, "do not parse as JSON"},
		{"deepseek without call end", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a\"}", "not closed"},
		{"qwen3 unclosed parameter", "<tool_call><function=bash><parameter=command>ls</function></tool_call>", "not closed by </parameter>"},
		{"tool_code unclosed", "```tool_code\nread_file(path=\"a\")", "not closed"},
		{"tool_code positional", "```tool_code\nread_file(\"a.go\")\n```", "name=value"},
		{"second of two calls bad", `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}}, {"name": "bash", "arguments": {}}]`, "call 2 of 2"},
		{"python_tag truncated", `<|python_tag|>{"name": "read_file", "parameters": {"path"`, "does not parse"},
	})
}

// FuzzRecover: no input panics, and a recovered call always names an
// offered tool with object arguments.
func FuzzRecover(f *testing.F) {
	for _, s := range []string{"<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"x\"}}</tool_call>", "[bash(command='x')]", "[TOOL_CALLS]bash[ARGS]{}", "```tool_code\nbash(command=\"\\\n", "<function=bash><parameter=command>x</parameter></function>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Recover(s, testSpecs)
		for _, c := range r.Calls {
			if !newToolset(testSpecs).has(c.Name) || !strings.HasPrefix(c.Arguments, "{") {
				t.Fatalf("recovered %+v from %q", c, s)
			}
		}
		if len(r.Calls) > 0 && r.Problem != "" {
			t.Fatalf("calls and a problem: %+v", r)
		}
	})
}
