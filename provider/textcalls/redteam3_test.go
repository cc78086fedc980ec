package textcalls

import "testing"

// TestRecoverRedTeam3: shapes from the third red-team pass over issue 11;
// each failed before its fix.
func TestRecoverRedTeam3(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		calls      []wantCall
	}{
		// Python string escapes: \u00e9 is é, and an escape Python does
		// not know keeps its backslash ("\d" is a regex, not "d"); the
		// call ran with the wrong argument before.
		{"pythonic unicode escape", `[read_file(path="caf\u00e9.go")]`, []wantCall{{"read_file", `{"path":"café.go"}`}}},
		{"pythonic regex escape kept", `[bash(command="grep -E '\d+\.go' list")]`, []wantCall{{"bash", `{"command":"grep -E '\\d+\\.go' list"}`}}},
		{"tool_code hex and U escapes", "```tool_code\nwrite_file(path='x', content='\\x41\\U0001F600\\\\')\n```", []wantCall{{"write_file", `{"content":"A😀\\","path":"x"}`}}},
		{"python_tag line continuation", "<|python_tag|>bash.call(command=\"echo a\\\nb\")", []wantCall{{"bash", `{"command":"echo ab"}`}}},
		// Gemini's namespace and harmony/Kimi-style indices on the name.
		{"hermes default_api prefix", `<tool_call>{"name": "default_api.read_file", "arguments": {"path": "a"}}</tool_call>`, []wantCall{{"read_file", `{"path": "a"}`}}},
		{"tool_code default_api", "```tool_code\nprint(default_api.read_file(path=\"a\"))\n```", []wantCall{{"read_file", `{"path":"a"}`}}},
		{"pythonic default_api", `[default_api.read_file(path="a")]`, []wantCall{{"read_file", `{"path":"a"}`}}},
		{"hermes functions.NAME:0", `<tool_call>{"name": "functions.read_file:0", "arguments": {"path": "a"}}</tool_call>`, []wantCall{{"read_file", `{"path": "a"}`}}},
		// Spaces inside Qwen3-Coder's tags.
		{"qwen3-coder spaces after =", "<tool_call>\n<function= read_file >\n<parameter= path >\na.go\n</parameter>\n</function>\n</tool_call>", []wantCall{{"read_file", `{"path":"a.go"}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Recover(c.text, testSpecs)
			wantCalls(t, r, c.calls)
		})
	}
}

// TestRecoverRedTeam3Broken: broken envelopes that were silent answers.
func TestRecoverRedTeam3Broken(t *testing.T) {
	t.Parallel()
	wantProblems(t, []problemCase{
		{"pythonic truncated", `[read_file(path="notes.txt"`, "Python call"},
		{"pythonic cut in a string", `[read_file(path="no`, "Python call"},
		{"pythonic second call cut", `[read_file(path="a"), bash(command=`, "Python call"},
		{"pythonic call then prose", "[read_file(path=\"a\")]\n\nThis reads the file.", "text after it"},
		{"empty tool_call pair", "<tool_call>\n</tool_call>", "no call"},
	})
}

// TestRecoverRedTeam3Negatives: answers that must stay answers, next to
// the broken shapes above.
func TestRecoverRedTeam3Negatives(t *testing.T) {
	t.Parallel()
	wantNothing(t, map[string]string{
		"unknown pythonic cut":       `[web_search(q="x"`,
		"markdown link to a tool":    "[read_file](docs/tools.md#read_file) reads a file.",
		"checkbox list":              "[ ] read_file(path) documented\n[x] bash",
		"pythonic in a python fence": "Here's how:\n\n```python\nread_file(path=\"x\")\n```\n\nThat returns the file.",
		"readme with trailing text":  "To read a file, call `read_file` like this:\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n```\n\nThe result is the file's text.",
		"prose mentions empty pair":  "Qwen wraps calls in <tool_call></tool_call> tags.",
		"granite marker":             `<|tool_call|>[{"name": "read_file", "arguments": {"path": "a"}}]`,
		"functionary marker":         ">>>read_file\n{\"path\": \"a\"}",
		"glm-4 name then json":       "read_file\n{\"path\": \"a\"}",
		"command-r action":           "Action: ```json\n[{\"tool_name\": \"read_file\", \"parameters\": {\"path\": \"a\"}}]\n```",
	})
}
