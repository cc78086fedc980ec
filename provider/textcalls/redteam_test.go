package textcalls

import "testing"

// TestRecoverRedTeam: shapes from the red-team pass over issue 11 that
// the other tables missed; each failed before its fix.
func TestRecoverRedTeam(t *testing.T) {
	t.Parallel()
	rf := `{"name": "read_file", "arguments": {"path": "a"}}`
	cases := []struct {
		name, text, prose string
		calls             []wantCall
	}{
		// A byte-order mark before a whole-reply call.
		{"BOM before bare JSON", "\ufeff" + rf + "\r\n", "", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"BOM before python list", "\ufeff[read_file(path=\"a\")]", "", []wantCall{{"read_file", `{"path":"a"}`}}},
		// Windows line endings around a Qwen3-Coder parameter value.
		{"qwen3-coder CRLF", "<tool_call>\r\n<function=read_file>\r\n<parameter=path>\r\na.go\r\n</parameter>\r\n</function>\r\n</tool_call>", "", []wantCall{{"read_file", `{"path":"a.go"}`}}},
		// Text after an end-of-turn token is past the turn: not prose.
		{"hermes, im_end, then more", "<tool_call>" + rf + "</tool_call><|im_end|>\nI will now read it.", "", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"hermes, im_end, im_start", "<tool_call>" + rf + "</tool_call><|im_end|>\n<|im_start|>assistant\n", "", []wantCall{{"read_file", `{"path": "a"}`}}},
		// Two dedicated-marker families in one reply: both run, in order.
		{"hermes then mistral", "<tool_call>" + rf + "</tool_call>\n[TOOL_CALLS]bash[ARGS]{\"command\": \"ls\"}", "", []wantCall{{"read_file", `{"path": "a"}`}, {"bash", `{"command": "ls"}`}}},
		{"mistral then hermes", "[TOOL_CALLS]bash[ARGS]{\"command\": \"ls\"}\n<tool_call>" + rf + "</tool_call>", "", []wantCall{{"bash", `{"command": "ls"}`}, {"read_file", `{"path": "a"}`}}},
		// Hermes bodies real models write: two objects in one tag, a
		// fenced body, a </tool_call> inside a string argument.
		{"hermes two objects in one tag", "<tool_call>\n" + rf + "\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>", "", []wantCall{{"read_file", `{"path": "a"}`}, {"bash", `{"command": "ls"}`}}},
		{"hermes fenced body", "<tool_call>\n```json\n" + rf + "\n```\n</tool_call>", "", []wantCall{{"read_file", `{"path": "a"}`}}},
		{"hermes close tag inside a string", `<tool_call>{"name": "write_file", "arguments": {"path": "t.md", "content": "end with </tool_call>"}}</tool_call>`, "", []wantCall{{"write_file", `{"path": "t.md", "content": "end with </tool_call>"}`}}},
		// A mention of the marker in prose, then a real call.
		{"mention then real tag", "Qwen writes <tool_call> tags; here is mine:\n<tool_call>" + rf + "</tool_call>", "Qwen writes <tool_call> tags; here is mine:", []wantCall{{"read_file", `{"path": "a"}`}}},
		// An envelope in a bare fence leaves no empty fence as prose.
		{"mistral v3 in a bare fence", "Calling it.\n```\n[TOOL_CALLS] [" + rf + "]\n```", "Calling it.", []wantCall{{"read_file", `{"path": "a"}`}}},
		// Mistral v11 followed by prose, like v3.
		{"mistral v11 then prose", "[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}\nReading it now.", "Reading it now.", []wantCall{{"read_file", `{"path": "a"}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Recover(c.text, testSpecs)
			if r.Problem != "" || len(r.Calls) != len(c.calls) || r.Text != c.prose {
				t.Fatalf("Recover = %+v\nwant %v, prose %q", r, c.calls, c.prose)
			}
			for i, w := range c.calls {
				if got := r.Calls[i]; got.Name != w.name || got.Arguments != w.args || got.ID != "text_call_"+string(rune('0'+i)) {
					t.Errorf("call %d = %+v, want %s %s", i, got, w.name, w.args)
				}
			}
		})
	}
}

// TestRecoverRedTeamNegatives: answers that were taken for calls (run, or
// answered with a correction that a second time ends the run).
func TestRecoverRedTeamNegatives(t *testing.T) {
	t.Parallel()
	rf := `{"name": "read_file", "arguments": {"path": "a"}}`
	wantNothing(t, map[string]string{
		"marker mentioned in prose":       "Qwen writes <tool_call> tags around its calls.",
		"closed marker pair in prose":     "Qwen wraps calls in <tool_call></tool_call> tags.",
		"mistral marker in prose":         "Mistral emits [TOOL_CALLS] before its calls.",
		"python_tag in inline code":       "Llama 3.1 starts a call with `<|python_tag|>` and ends it with `<|eom_id|>`.",
		"hermes example in an xml block":  "Example:\n```xml\n<tool_call>\n" + rf + "\n</tool_call>\n```",
		"mistral example in a text block": "The format:\n```text\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}\n```\nThat is all.",
		"inline code call example":        "Write `<tool_call>" + rf + "</tool_call>` to call it.",
		"tool definition, fenced":         "Here is the tool definition:\n```json\n{\"name\": \"read_file\", \"description\": \"Reads a file\", \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}, \"required\": [\"path\"]}}\n```",
		"tool definition, bare":           `{"name": "bash", "description": "Runs a command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}`,
		"list of tool names as objects":   `[{"name": "bash"}, {"name": "read_file"}]`,
		"data with arguments and more":    `{"name": "bash", "arguments": {"command": "ls"}, "description": "an example call", "output": "a.go"}`,
	})
}
