package textcalls

import (
	"strings"
	"testing"
)

// TestRecoverHeldOut: shapes written for the audit of issue 11, not taken
// from the recorded corpus nor from the other tables: other whitespace,
// several calls, argument encodings, prose around the envelope.
func TestRecoverHeldOut(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		calls      []wantCall
	}{
		{"hermes CRLF and tabs", "<tool_call>\r\n\t{ \"name\" : \"bash\" ,\r\n\t  \"arguments\" : { \"command\" : \"go vet ./...\" } }\r\n</tool_call>\r\n", []wantCall{{"bash", `{ "command" : "go vet ./..." }`}}},
		{"hermes three calls no newlines", `<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call><tool_call>{"name":"read_file","arguments":{"path":"b","offset":3}}</tool_call><tool_call>{"name":"bash","arguments":{"command":"ls","background":true}}</tool_call>`, []wantCall{{"read_file", `{"path":"a"}`}, {"read_file", `{"path":"b","offset":3}`}, {"bash", `{"command":"ls","background":true}`}}},
		{"hermes args as string with functions. prefix", `<tool_call>{"name": "functions.write_file", "arguments": "{\"path\": \"x.txt\", \"content\": \"a \\\"quoted\\\" word\"}"}</tool_call>`, []wantCall{{"write_file", `{"path": "x.txt", "content": "a \"quoted\" word"}`}}},
		{"hermes type function wrapper", "<tool_call>\n{\"type\": \"function\", \"function\": {\"name\": \"glob\", \"arguments\": {\"patterns\": [\"**/*.go\"]}}}\n</tool_call>", []wantCall{{"glob", `{"patterns": ["**/*.go"]}`}}},
		{"bare pretty-printed with type and parameters", "\n\n{\n  \"type\": \"function\",\n  \"name\": \"read_file\",\n  \"parameters\": {\n    \"path\": \"cmd/main.go\",\n    \"limit\": 40\n  }\n}\n", []wantCall{{"read_file", "{\n    \"path\": \"cmd/main.go\",\n    \"limit\": 40\n  }"}}},
		{"bare array args as strings", `[ {"name":"bash","arguments":"{\"command\":\"pwd\"}"} , {"name":"functions.read_file","arguments":"{\"path\":\"go.mod\"}"} ]`, []wantCall{{"bash", `{"command":"pwd"}`}, {"read_file", `{"path":"go.mod"}`}}},
		{"bare with id key", `{"id": "call_1", "name": "bash", "arguments": {"command": "true"}}`, []wantCall{{"bash", `{"command": "true"}`}}},
		{"fenced JSON uppercase after intent", "Sure — I'll list the Go files first.\n\n```JSON\n{\"name\": \"glob\", \"arguments\": {\"patterns\": [\"*.go\"]}}\n```\n", []wantCall{{"glob", `{"patterns": ["*.go"]}`}}},
		{"fenced json array of two", "```json\n[\n {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}},\n {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n]\n```", []wantCall{{"read_file", `{"path": "a"}`}, {"read_file", `{"path": "b"}`}}},
		{"python_tag with eom_id and trailing", "<|python_tag|>{\"name\": \"bash\", \"parameters\": {\"command\": \"uname -a\"}}<|eom_id|>", []wantCall{{"bash", `{"command": "uname -a"}`}}},
		{"python_tag without eom_id", "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"README.md\"}}", []wantCall{{"read_file", `{"path": "README.md"}`}}},
		{"python_tag after prose", "I will run it now. <|python_tag|>{\"name\": \"bash\", \"parameters\": {\"command\": \"make test\"}}<|eom_id|>", []wantCall{{"bash", `{"command": "make test"}`}}},
		{"pythonic nested quotes numbers bools", `[bash(command="echo 'it''s' \"x\"", background=True), read_file(path='a "b".go', offset=2, limit=10)]`, []wantCall{{"bash", `{"background":true,"command":"echo 'it''s' \"x\""}`}, {"read_file", `{"limit":10,"offset":2,"path":"a \"b\".go"}`}}},
		{"pythonic multi-line spacing", "[\n  glob( patterns = ['a/*', \"b/*\"] ),\n  bash( command = 'ls' )\n]", []wantCall{{"glob", `{"patterns":["a/*","b/*"]}`}, {"bash", `{"command":"ls"}`}}},
		{"tool_code two lines", "```tool_code\nread_file(path=\"a.go\")\nread_file(path=\"b.go\", limit=5)\n```", []wantCall{{"read_file", `{"path":"a.go"}`}, {"read_file", `{"limit":5,"path":"b.go"}`}}},
		{"tool_code after intent, escaped newline", "I'll write the file.\n\n```tool_code\nwrite_file(path='n.txt', content='one\\ntwo')\n```", []wantCall{{"write_file", `{"content":"one\ntwo","path":"n.txt"}`}}},
		{"mistral v3 two calls compact", `[TOOL_CALLS][{"name":"read_file","arguments":{"path":"a"}},{"name":"bash","arguments":{"command":"id"}}]`, []wantCall{{"read_file", `{"path":"a"}`}, {"bash", `{"command":"id"}`}}},
		{"mistral v3 with id and eos", "[TOOL_CALLS] [{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}, \"id\": \"Ab12Cd34E\"}]</s>", []wantCall{{"bash", `{"command": "ls"}`}}},
		{"mistral v11 repeated markers", `[TOOL_CALLS]read_file[ARGS]{"path":"a"}[TOOL_CALLS]bash[ARGS]{"command":"pwd"}`, []wantCall{{"read_file", `{"path":"a"}`}, {"bash", `{"command":"pwd"}`}}},
		{"mistral v11 after prose", "Let me check.[TOOL_CALLS]glob[ARGS]{\"patterns\": [\"*.md\"]}", []wantCall{{"glob", `{"patterns": ["*.md"]}`}}},
		{"deepseek two calls fenced", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>bash\n```json\n{\"command\": \"ls\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", []wantCall{{"read_file", `{"path": "a"}`}, {"bash", `{"command": "ls"}`}}},
		{"deepseek after prose, trailing eos", "I'll look at the file.\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\":\"go.sum\",\"limit\":3}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>", []wantCall{{"read_file", `{"path":"go.sum","limit":3}`}}},
		{"qwen3-coder multi-line value, two calls", "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n<parameter=content>\ndef f():\n    return \"<x>\"\n\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=bash>\n<parameter=command>\npython3 src/a.py\n</parameter>\n<parameter=background>\nfalse\n</parameter>\n</function>\n</tool_call>", []wantCall{{"write_file", `{"content":"def f():\n    return \"\u003cx\u003e\"\n","path":"src/a.py"}`}, {"bash", `{"background":false,"command":"python3 src/a.py"}`}}},
		{"bare JSON, end-of-turn token printed", "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}<|im_end|>\n", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"pythonic list, eot_id printed", "[read_file(path='a')]<|eot_id|>", []wantCall{{"read_file", `{"path":"a"}`}}},
		{"tool_code, end_of_turn printed", "```tool_code\nread_file(path='a')\n```<end_of_turn>", []wantCall{{"read_file", `{"path":"a"}`}}},
		{"hermes, im_end printed", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call><|im_end|>", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"mistral v3, prose after the list", "[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}]\nI will read it.", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"qwen3-coder array param", "<tool_call><function=glob><parameter=patterns>[\"*.go\", \"*.mod\"]</parameter></function></tool_call>", []wantCall{{"glob", `{"patterns":["*.go","*.mod"]}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Recover(c.text, testSpecs)
			wantCalls(t, r, c.calls)
			if strings.ContainsAny(r.Text, "<{[") || strings.Contains(r.Text, "tool") {
				t.Errorf("prose kept the envelope: %q", r.Text)
			}
		})
	}
}

// TestRecoverHeldOutNegatives: answers that must stay answers.
func TestRecoverHeldOutNegatives(t *testing.T) {
	t.Parallel()
	wantNothing(t, map[string]string{
		"sentence naming tools":      "I would call read_file(path=\"a.go\") and then bash, but the answer is already known: 42.",
		"tool name in backticks":     "Run `bash` with `go test` to check; `read_file` shows the file.",
		"json example unknown tool":  "An OpenAI tool call looks like this:\n```json\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\":\\\"Paris\\\"}\"}}\n```",
		"json config":                "```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"jest\"}}\n```",
		"json schema":                `{"type": "object", "properties": {"path": {"type": "string"}}}`,
		"shell block":                "```sh\nbash -c 'ls'\n```",
		"typescript block with call": "```ts\nawait read_file({path: \"a.go\"});\n```",
		"python list of strings":     `["read_file", "bash"]`,
		"python call of unknown":     `[search(query="go generics")]`,
		"prose then json about data": "Here is the user record you asked for, formatted as JSON for the API response the frontend expects, with the fields described above and no further changes made to the database layer.\n```json\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n```\nThat is the record.",
		"html-ish prose":             "Use the <code>read_file</code> tool.",
		"markdown task list":         "[x] read_file done\n[ ] bash pending",
	})
}

// TestRecoverHeldOutBroken: broken envelopes in shapes not in the other
// table.
func TestRecoverHeldOutBroken(t *testing.T) {
	t.Parallel()
	wantProblems(t, []problemCase{
		{"qwen3-coder unclosed function", "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n", "not closed"},
		{"hermes JSON cut mid-string", "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls -l</tool_call>", "does not parse"},
		{"mistral v3 unknown tool", `[TOOL_CALLS] [{"name": "web_search", "arguments": {"q": "x"}}]`, `"web_search" is not a tool you have`},
		{"python_tag bad args", `<|python_tag|>{"name": "read_file", "parameters": {"path": "a", "offset": 0}}<|eom_id|>`, "do not match its schema"},
		{"deepseek unknown tool", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", `"search" is not a tool you have`},
		{"bare extra property", `{"name": "bash", "arguments": {"command": "ls", "cwd": "/"}}`, "do not match its schema"},
		{"fenced truncated", "I'll read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": ", "not closed"},
		{"bare call then prose", "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n\nThis reads the file.", "has text after it"},
		{"tool_code unknown tool", "```tool_code\nweb_search(q=\"x\")\n```", `"web_search" is not a tool you have`},
	})
}
